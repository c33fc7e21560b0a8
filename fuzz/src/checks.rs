//! One function per fuzz target. Each must never panic on its own account; a panic (from the
//! library or from a failed check here) is a finding. Common checks:
//! - the answer is valid JSON with `apiVersion: nodecast/v1` and `status` success or failure;
//! - every error has a kebab-case code, a message and a location (source, document, object,
//!   path or line);
//! - the same request twice gives the same bytes.
//!
//! Depends only on nodecast, serde_json, indexmap and std (core/tests/fuzz_corpus.rs includes this
//! file).

use crate::capacity;
use crate::cluster::{self, Src};
use nodecast::internal::labels::Interner;
use nodecast::internal::quantity::{format_milli, parse_milli, QuantityError, Unit};
use nodecast::internal::requirements::{Operator, Requirement, Requirements};
use nodecast::{Input, Request};
use serde_json::{json, Value};

/// The clock of every consolidate request.
pub const NOW: &str = "2026-11-25T12:00:00Z";

/// Check the envelope of an answer; returns it parsed.
pub fn check_answer(json: &str) -> Value {
    let v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("answer is not JSON ({e}): {json}"));
    assert_eq!(v["apiVersion"], "nodecast/v1", "{json}");
    match v["status"].as_str() {
        Some("success") => {}
        Some("failure") => {
            let errors = v["errors"].as_array().unwrap_or_else(|| panic!("failure without an error list: {json}"));
            assert!(!errors.is_empty(), "failure with no errors: {json}");
            for e in errors {
                check_error(e);
            }
        }
        _ => panic!("answer without a valid status: {json}"),
    }
    v
}

/// An error must say what (code, message) and where.
pub fn check_error(e: &Value) {
    let code = e["code"].as_str().unwrap_or_else(|| panic!("error without a code: {e}"));
    assert!(
        !code.is_empty() && code.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
        "error code is not kebab-case: {e}"
    );
    assert!(e["message"].as_str().is_some_and(|m| !m.trim().is_empty()), "error without a message: {e}");
    let located = ["source", "document", "object", "path", "line"].iter().any(|k| !e[*k].is_null());
    assert!(located, "error without a location: {e}");
}

pub(crate) fn run(f: impl Fn() -> String) -> Value {
    let first = f();
    let second = f();
    assert_eq!(first, second, "the same request gave different answers");
    check_answer(&first)
}

/// Prices and utilizations in a successful plan are finite and in range.
fn check_plan_numbers(v: &Value) {
    if v["status"] != "success" {
        return;
    }
    let total = v["totalPricePerHour"].as_f64().expect("totalPricePerHour");
    assert!(total.is_finite() && total >= 0.0, "total price {total}");
    let mut sum = 0.0;
    for c in v["nodeClaims"].as_array().expect("nodeClaims") {
        if let Some(p) = c["pricePerHour"].as_f64() {
            assert!(p.is_finite() && p >= 0.0, "price {p} in {c}");
            sum += p;
        }
        for (r, u) in c["utilization"].as_object().expect("utilization") {
            let u = u.as_f64().expect("utilization is a number");
            assert!((0.0..=1.0 + 1e-9).contains(&u), "utilization of {r} is {u}: {c}");
        }
        assert!(!c["pods"].as_array().expect("pods").is_empty(), "a NodeClaim without pods: {c}");
    }
    assert!((sum - total).abs() <= 1e-6 * sum.max(1.0), "total {total} is not the sum {sum}");
}

/// Arbitrary bytes through the front door: decoding, then validate and plan on the default
/// (embedded AWS) catalog.
pub fn front_door(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match nodecast::internal::manifest::decode(&text, Some("fuzz.yaml")) {
        Ok(docs) => {
            for d in &docs {
                assert_eq!(d.source.as_deref(), Some("fuzz.yaml"));
            }
        }
        Err(errors) => {
            assert!(!errors.is_empty(), "decode failed without errors");
            for e in &errors {
                assert_eq!(e.source.as_deref(), Some("fuzz.yaml"), "{e:?}");
                check_error(&serde_json::to_value(e).expect("errors serialise"));
            }
        }
    }
    let req = Request { inputs: vec![Input { name: Some("fuzz.yaml".into()), text: text.into_owned() }], ..Default::default() };
    run(|| nodecast::validate(&req).to_json());
    let v = run(|| nodecast::plan(&req).to_json());
    check_plan_numbers(&v);
}

/// A reference value in milli-units computed in floating point, for plain forms.
fn reference_milli(s: &str) -> Option<f64> {
    let t = s.trim();
    let suffixes: &[(&str, f64)] = &[
        ("Ki", 1024f64),
        ("Mi", 1024f64.powi(2)),
        ("Gi", 1024f64.powi(3)),
        ("Ti", 1024f64.powi(4)),
        ("Pi", 1024f64.powi(5)),
        ("Ei", 1024f64.powi(6)),
        ("n", 1e-9),
        ("u", 1e-6),
        ("m", 1e-3),
        ("k", 1e3),
        ("M", 1e6),
        ("G", 1e9),
        ("T", 1e12),
        ("P", 1e15),
        ("E", 1e18),
    ];
    for (suf, f) in suffixes {
        if let Some(m) = t.strip_suffix(suf) {
            if m.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b'+' || b == b'-') {
                return m.parse::<f64>().ok().map(|x| x * f * 1000.0);
            }
            return None;
        }
    }
    if t.bytes().all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b)) {
        return t.parse::<f64>().ok().map(|x| x * 1000.0);
    }
    None
}

/// Quantity parsing: never a panic; canonical formatting round-trips; `-q` rounds toward zero
/// where `q` rounds up; the value agrees with a floating-point reference.
pub fn quantity(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else { return };
    let parsed = parse_milli(s);
    if let Ok(v) = parsed {
        for unit in [Unit::Decimal, Unit::Bytes] {
            let f = format_milli(v, unit);
            assert_eq!(parse_milli(&f), Ok(v), "{s:?} = {v} formats as {f:?}, which does not parse back");
        }
        assert_eq!(parse_milli(&format!("{v}m")), Ok(v));
    }
    let t = s.trim();
    if !t.is_empty() && !t.starts_with(['+', '-']) {
        let neg = parse_milli(&format!("-{t}"));
        match (&parsed, &neg) {
            (Ok(p), Ok(n)) => {
                let gap = i128::from(*p) + i128::from(*n);
                assert!((0..=1).contains(&gap), "{t:?} = {p} but -{t:?} = {n}");
            }
            (Err(QuantityError::Syntax(_)), e) | (e, Err(QuantityError::Syntax(_))) => {
                assert!(matches!(e, Err(QuantityError::Syntax(_))), "{t:?}: syntax accepted only with a sign: {parsed:?} {neg:?}")
            }
            _ => {}
        }
    }
    if let Some(r) = reference_milli(s) {
        if r.is_finite() {
            match parsed {
                Ok(v) => {
                    let tol = 2.0 + r.abs() * 1e-9;
                    assert!((v as f64 - r).abs() <= tol, "{s:?} parsed as {v}, reference {r}");
                }
                Err(QuantityError::TooLarge(_)) => assert!(r.abs() > 9.2e18, "{s:?} refused as too large, reference {r}"),
                Err(_) => {}
            }
        }
    }
}

const UNIVERSE: &[&str] = &[
    "a",
    "b",
    "c",
    "0",
    "1",
    "-1",
    "2",
    "10",
    "007",
    "9223372036854775807",
    "9223372036854775806",
    "-9223372036854775808",
    "99999999999999999999",
    "",
];
const OPS: &[&str] = &["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"];

fn requirement(src: &mut Src, interner: &Interner) -> (Requirement, Value) {
    let op_text = src.pick(OPS);
    let op = Operator::parse(op_text).expect("known operator");
    let values: Vec<&str> = (0..src.below(4)).map(|_| src.pick(UNIVERSE)).collect();
    let ids: Vec<u32> = values.iter().map(|v| interner.get(v).expect("interned")).collect();
    let r = Requirement::from_operator(op, &ids, interner);
    (r, json!({"operator": op_text, "values": values}))
}

/// The requirement algebra on a fixed universe of values (including i64 edges) and the same
/// requirements as YAML through lowering and validation.
pub fn requirements(data: &[u8]) {
    let mut src = Src::new(data);
    let mut interner = Interner::new();
    for v in UNIVERSE {
        interner.intern(v);
    }
    let (a, ja) = requirement(&mut src, &interner);
    let (b, jb) = requirement(&mut src, &interner);
    let ab = a.intersect(&b, &interner);
    let ba = b.intersect(&a, &interner);
    let mut witness = false;
    for v in UNIVERSE {
        let id = interner.get(v).expect("interned");
        let both = a.has(id, &interner) && b.has(id, &interner);
        witness |= both;
        assert_eq!(ab.has(id, &interner), both, "{v:?}: {a:?} ∩ {b:?} = {ab:?}");
        assert_eq!(ba.has(id, &interner), both, "{v:?}: {b:?} ∩ {a:?} = {ba:?}");
    }
    let hi = a.has_intersection(&b, &interner);
    assert_eq!(hi, b.has_intersection(&a, &interner), "has_intersection is not symmetric: {a:?} {b:?}");
    if witness {
        assert!(hi, "{a:?} and {b:?} share a value but has_intersection says no");
    }
    for r in [&a, &b, &ab] {
        let _ = r.render(&interner);
        if let Some(x) = r.any_value(&interner) {
            let id = interner.intern(&x);
            assert!(r.has(id, &interner), "any_value {x:?} is not allowed by {r:?}");
        }
    }
    let mut set = Requirements::new();
    set.add(0, a.clone(), &interner);
    set.add(0, b.clone(), &interner);
    assert_eq!(set.get(0), Some(&ab));

    // The same requirements as a NodePool and a pod's node affinity, with raw text from the
    // rest of the input as an extra value.
    let extra = src.rest_text();
    let with_key = |mut j: Value| {
        j["key"] = json!("example.com/n");
        if !extra.is_empty() {
            j["values"].as_array_mut().expect("values").push(json!(extra));
        }
        j
    };
    let objects = vec![
        json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "np"},
            "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "d"},
                "requirements": [with_key(ja.clone())]}}}}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [with_key(jb)]}]}}},
                     "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}),
    ];
    let catalog = json!({"instanceTypes": [{"name": "t", "allocatable": {"cpu": "4", "memory": "8Gi"}, "onDemandPrice": 0.1}]});
    let req = Request { objects, catalog: Some(catalog), ..Default::default() };
    run(|| nodecast::validate(&req).to_json());
    let v = run(|| nodecast::plan(&req).to_json());
    check_plan_numbers(&v);
}

/// A structured small cluster rendered to YAML, planned on an inline catalog.
pub fn facade_plan(data: &[u8]) {
    let mut src = Src::new(data);
    let (objects, catalog) = cluster::cluster(&mut src, data.first().is_some_and(|b| b & 1 == 1));
    let text = cluster::to_yaml(&objects);
    let req = Request { inputs: vec![Input { name: Some("cluster.yaml".into()), text }], catalog: Some(catalog), ..Default::default() };
    let v = run(|| nodecast::plan(&req).to_json());
    check_plan_numbers(&v);
    if v["status"] == "success" {
        // Every pending pod is accounted for once: on a NodeClaim, an existing node or unschedulable.
        let mut seen = std::collections::HashSet::new();
        let claims = v["nodeClaims"].as_array().expect("nodeClaims");
        let existing = v["existingNodes"].as_array().expect("existingNodes");
        for p in claims.iter().chain(existing).flat_map(|c| c["pods"].as_array().expect("pods")) {
            assert!(seen.insert(p.as_str().expect("pod name").to_string()), "pod {p} placed twice: {v}");
        }
        for u in v["unschedulable"].as_array().expect("unschedulable") {
            assert!(seen.insert(u["pod"].as_str().expect("pod").to_string()), "pod {} both placed and unschedulable", u["pod"]);
        }
    }
}

/// A structured small cluster with existing nodes, through consolidate at a fixed clock.
pub fn facade_consolidate(data: &[u8]) {
    let mut src = Src::new(data);
    let (objects, catalog) = cluster::cluster(&mut src, true);
    let names: Vec<String> =
        objects.iter().filter(|o| o["kind"] == "Node").filter_map(|o| o["metadata"]["name"].as_str().map(str::to_string)).collect();
    let text = cluster::to_yaml(&objects);
    let req = Request {
        inputs: vec![Input { name: Some("cluster.yaml".into()), text }],
        catalog: Some(catalog),
        now: Some(NOW.into()),
        ..Default::default()
    };
    let v = run(|| nodecast::consolidate(&req).to_json());
    if v["status"] == "success" {
        for n in v["disruptedNodes"].as_array().expect("disruptedNodes") {
            let n = n.as_str().expect("node name");
            assert!(names.iter().any(|m| m == n), "disrupted {n}, which is not an input node");
        }
        for key in ["pricePerHourBefore", "pricePerHourAfter"] {
            let p = v[key].as_f64().expect("price");
            assert!(p.is_finite() && p >= 0.0, "{key} = {p}");
        }
        assert!(
            v["pricePerHourAfter"].as_f64() <= v["pricePerHourBefore"].as_f64().map(|b| b + 1e-9),
            "consolidation raised the price: {v}"
        );
        if let Some(r) = v.get("replacement") {
            assert!(v["decision"] == "replace", "a replacement without a replace decision: {v}");
            assert!(r["pricePerHour"].as_f64().is_none_or(|p| p.is_finite() && p >= 0.0));
        }
    }
}

/// A trace over the workloads of `objects` (Pods, Deployments, Jobs), as JSON. Mostly a trace
/// the simulator accepts (times in order, instances scaled or deleted after their submission),
/// so that the physical checks run; when `wild`, any event kind, duration and time, up to
/// i64::MAX and negative, to exercise the refusals.
pub(crate) fn sim_trace(src: &mut Src, objects: &[Value], wild: bool) -> Value {
    let refs: Vec<(String, bool)> = objects
        .iter()
        .filter_map(|o| {
            let kind = o["kind"].as_str()?;
            if !["Pod", "Deployment", "Job"].contains(&kind) {
                return None;
            }
            let m = &o["metadata"];
            Some((format!("{kind}/{}/{}", m["namespace"].as_str()?, m["name"].as_str()?), kind == "Deployment"))
        })
        .collect();
    let mut workloads = serde_json::Map::new();
    for (i, (r, _)) in refs.iter().enumerate() {
        let mut w = json!({"ref": r});
        match src.below(if wild { 5 } else { 4 }) {
            0 => {}
            1 => w["runTime"] = json!(src.pick(&["30m", "2h", "1s"])),
            2 => w["runTime"] = json!({"distribution": "uniform", "min": src.pick(&["1m", "1h"]), "max": "2h"}),
            3 => w["runTime"] = json!({"distribution": "exponential", "mean": src.pick(&["20m", "3h"])}),
            _ => w["runTime"] = json!(src.pick(&["9223372036854775807s", "-5m", "3650d", "0s"])),
        }
        if src.chance(60) {
            w["checkpointInterval"] = json!(if wild { src.pick(&["10m", "0s", "-1s"]) } else { src.pick(&["10m", "1h"]) });
        }
        workloads.insert(format!("w{i}"), w);
    }
    let times = ["0s", "1m", "5m", "1h", "3h", "12h", "2d", "-1s", "9223372036854775807s"];
    let mut at = 0;
    let mut events = Vec::new();
    let mut live: Vec<(String, bool)> = Vec::new();
    for i in 0..src.below(14) {
        at = if wild { src.below(times.len()) } else { (at + src.below(2)).min(5) };
        let when = times[at];
        let ev = match src.below(5) {
            _ if refs.is_empty() => break,
            0 | 1 => {
                let def = src.below(refs.len());
                let mut e = json!({"at": when, "submit": format!("w{def}"), "name": format!("i{i}")});
                if src.chance(40) {
                    e["repeat"] = if wild {
                        json!({"every": src.pick(&["1h", "0s"]), "times": src.pick(&[2, 100, 0])})
                    } else {
                        json!({"every": src.pick(&["1h", "6h"]), "times": src.pick(&[2, 5])})
                    };
                }
                live.push((format!("i{i}"), refs[def].1));
                e
            }
            2 if wild || live.iter().any(|(_, d)| *d) => {
                let deployments: Vec<&String> = live.iter().filter(|(_, d)| *d || wild).map(|(n, _)| n).collect();
                let name = deployments.get(src.below(deployments.len().max(1))).map_or("none".to_string(), |n| n.to_string());
                let replicas = if wild { src.pick(&[0i64, 4, 20, -1, 1_000_000]) } else { src.pick(&[0i64, 1, 4, 20]) };
                json!({"at": when, "scale": {"workload": name, "replicas": replicas}})
            }
            3 if wild || !live.is_empty() => {
                let name = live.get(src.below(live.len().max(1))).map_or("none".to_string(), |(n, _)| n.clone());
                live.retain(|(n, _)| *n != name);
                json!({"at": when, "delete": name})
            }
            4 if wild => json!({"at": when, "interrupt": format!("{}-{}", src.pick(&["default", "gpu", "spot", "a"]), src.below(3) + 1)}),
            _ => json!({"at": when, "submit": format!("w{}", src.below(refs.len()))}),
        };
        events.push(ev);
    }
    let trace = json!({
        "apiVersion": "nodecast/v1", "kind": "Trace",
        "start": "2026-11-23T00:00:00Z",
        "end": if wild { src.pick(&["1h", "7d", "0s", "-1h"]) } else { src.pick(&["1h", "1d", "2d"]) },
        "workloads": workloads,
        "events": events,
    });
    trace
}

/// Simulation settings: defaults and mundane changes, or (`wild`) values at and past the edges
/// of their bounds.
fn sim_settings(src: &mut Src, wild: bool) -> Value {
    let mut s = json!({"seed": src.byte()});
    let mut set = |src: &mut Src, key: &str, calm: &[Value], extreme: &[Value]| {
        if src.chance(50) {
            let all: Vec<&Value> = calm.iter().chain(if wild { extreme } else { &[] }).collect();
            s[key] = all[src.below(all.len())].clone();
        }
    };
    let big = json!(i64::MAX);
    set(src, "spotInterruptionRatePerHour", &[json!(0), json!(0.5), json!(60)], &[json!(60.5), json!(1e6), json!(-1)]);
    set(src, "metricsIntervalSeconds", &[json!(60), json!(600)], &[json!(1), json!(0), big.clone()]);
    set(
        src,
        "devicePluginSeconds",
        &[json!({"min": 0, "max": 0}), json!({"min": 60, "max": 90})],
        &[json!({"min": i64::MAX - 10, "max": i64::MAX})],
    );
    set(src, "gpuStartupSeconds", &[json!({"min": 1, "max": 1})], &[json!({"min": 300, "max": 180})]);
    set(src, "batchMaxSeconds", &[json!(0), json!(10)], std::slice::from_ref(&big));
    set(src, "disruptionPollSeconds", &[json!(1), json!(10)], &[json!(0), big.clone()]);
    set(src, "interruptionNoticeSeconds", &[json!(0), json!(120)], std::slice::from_ref(&big));
    set(src, "terminationGracePeriodSeconds", &[json!(0), json!(60)], std::slice::from_ref(&big));
    set(src, "endSeconds", &[json!(600), json!(86_400)], &[json!(0), big.clone()]);
    set(src, "maxEvents", &[json!(100_000)], &[json!(10)]);
    set(src, "maxPodAttempts", &[json!(100_000)], &[json!(5)]);
    s
}

/// The shared cluster generator makes most clusters invalid on purpose (plan's refusals are
/// its subject); a simulation needs a valid one for its checks to run, so outside `wild` runs
/// the fields it gets wrong are dropped: NodePool weights, disruption blocks and restricted or
/// numeric requirements, negative replicas, and the inline catalog (the embedded one is used).
fn calm(objects: &mut [Value], catalog: &mut Value) {
    *catalog = Value::Null;
    for o in objects.iter_mut() {
        match o["kind"].as_str() {
            Some("NodePool") => {
                if let Some(spec) = o["spec"].as_object_mut() {
                    spec.remove("weight");
                    spec.remove("disruption");
                    spec.remove("limits");
                }
                if let Some(reqs) = o["spec"]["template"]["spec"]["requirements"].as_array_mut() {
                    reqs.retain(|r| {
                        let key = r["key"].as_str().unwrap_or("");
                        let op = r["operator"].as_str().unwrap_or("");
                        ["In", "NotIn", "Exists", "DoesNotExist"].contains(&op)
                            && key.contains('/')
                            && !["karpenter.sh/nodepool", "kubernetes.io/hostname"].contains(&key)
                    });
                }
            }
            Some("Deployment") | Some("Job") => {
                for key in ["replicas", "parallelism", "completions"] {
                    if o["spec"][key].as_i64().is_some_and(|n| n < 0) {
                        o["spec"][key] = json!(1);
                    }
                }
            }
            _ => {}
        }
    }
}

fn num(v: &Value, what: &str) -> f64 {
    let x = v.as_f64().unwrap_or_else(|| panic!("{what} is not a number: {v}"));
    assert!(x.is_finite(), "{what} = {x}");
    x
}

fn secs(v: &Value, what: &str) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("{what} is not an integer: {v}"))
}

/// The simulator: a cluster (as `facade_consolidate`), a trace and settings from the bytes.
/// Besides the envelope and determinism, a successful answer must be physically possible:
/// costs finite and ≥ 0 (each node's cost its price × its lifetime), every node's times in
/// order and inside the simulated span, the timeline monotone, the pod counts adding up, every
/// pod's nodes existing, the metric series aligned with its clock.
/// Returns whether the simulation succeeded (so runs can say how many answers were checked).
pub fn facade_simulate(data: &[u8]) -> bool {
    let mut src = Src::new(data);
    let with_nodes = src.chance(128);
    let wild = src.chance(48);
    let (mut objects, mut catalog) = cluster::cluster(&mut src, with_nodes);
    if !wild {
        calm(&mut objects, &mut catalog);
    }
    let mut trace = sim_trace(&mut src, &objects, wild);
    let settings = sim_settings(&mut src, wild);
    let mut events = std::mem::take(trace["events"].as_array_mut().expect("events"));
    let extra = capacity::add(&mut src, wild, catalog.is_null(), &mut objects, &mut events);
    trace["events"] = Value::Array(events);
    let mut inputs = vec![json!({"name": "cluster.yaml", "text": cluster::to_yaml(&objects)})];
    if let Some(text) = extra.reservations {
        inputs.push(json!({"name": "reservations.json", "text": text}));
    }
    let mut request = json!({
        "inputs": inputs,
        "catalog": catalog,
        "trace": {"name": "trace.yaml", "text": trace.to_string()},
        "simulation": settings,
    });
    if let Some(gates) = extra.gates {
        request["settings"] = json!({"featureGates": gates});
    }
    let request = request.to_string();
    let v = run(|| nodecast::call("simulate", &request));
    if v["status"] != "success" {
        if std::env::var_os("NODECAST_SIM_DEBUG").is_some() {
            eprintln!("refused: {} {} {}", v["errors"][0]["code"], v["errors"][0]["path"], v["errors"][0]["message"]);
        }
        return false;
    }
    let s = &v["summary"];
    let duration = secs(&s["durationSeconds"], "durationSeconds");
    assert!(duration >= 0, "durationSeconds {duration}");
    for key in ["costUsd", "staticCostUsd", "emptyNodeCostUsd", "gpuHoursPaid", "gpuHoursUsed"] {
        assert!(num(&s[key], key) >= 0.0, "{key} < 0: {s}");
    }
    let cost = num(&s["costUsd"], "costUsd");
    assert!(num(&s["emptyNodeCostUsd"], "emptyNodeCostUsd") <= cost + 1e-6 * cost.max(1.0), "empty cost above the cost: {s}");
    assert!(num(&s["gpuHoursUsed"], "gpuHoursUsed") <= num(&s["gpuHoursPaid"], "gpuHoursPaid") * (1.0 + 1e-9) + 1e-9, "{s}");
    assert!((0.0..=1.0 + 1e-9).contains(&num(&s["gpuUtilization"], "gpuUtilization")), "{s}");

    let nodes = v["nodes"].as_array().expect("nodes");
    let mut sum = 0.0;
    for n in nodes {
        let price = num(&n["pricePerHourUsd"], "pricePerHourUsd");
        let node_cost = num(&n["costUsd"], "node costUsd");
        assert!(price >= 0.0 && node_cost >= 0.0, "{n}");
        assert!(num(&n["emptyCostUsd"], "emptyCostUsd") <= node_cost + 1e-6 * node_cost.max(1.0), "{n}");
        let lifetime = secs(&n["lifetimeSeconds"], "lifetimeSeconds");
        assert!((0..=duration).contains(&lifetime) || duration == 0, "lifetime {lifetime} outside 0..={duration}: {n}");
        let expected = price * lifetime as f64 / 3600.0;
        assert!((node_cost - expected).abs() <= 1e-6 * expected.max(1.0), "cost {node_cost} ≠ price × lifetime {expected}: {n}");
        sum += node_cost;
        let mut last = secs(&n["launchedSeconds"], "launchedSeconds");
        assert!(last <= duration, "{n}");
        for key in ["registeredSeconds", "initializedSeconds", "terminatedSeconds"] {
            if let Some(t) = n[key].as_i64() {
                assert!(t >= last && t <= duration, "{key} {t} out of order (after {last}, end {duration}): {n}");
                last = t;
            }
        }
    }
    // Each cost is rounded to 6 decimals in the answer: the sum may drift by half a unit per node.
    let drift = 5e-7 * (nodes.len() + 1) as f64 + 1e-9 * cost;
    assert!((sum - cost).abs() <= drift, "cost {cost} is not the sum of the nodes' {sum}");

    let mut last = i64::MIN;
    for e in v["timeline"].as_array().expect("timeline") {
        let t = secs(&e["timeSeconds"], "timeSeconds");
        assert!(t >= last && (0..=duration).contains(&t), "timeline not monotone or outside 0..={duration}: {e}");
        last = t;
    }

    let pods = v["pods"].as_array().expect("pods");
    let c = &s["pods"];
    let count = |k: &str| c[k].as_u64().unwrap_or_else(|| panic!("pods.{k}: {c}"));
    assert_eq!(count("submitted") as usize, pods.len(), "{c}");
    assert_eq!(count("finished") + count("running") + count("pending") + count("deleted"), count("submitted"), "{c}");
    let names: std::collections::HashSet<&str> = nodes.iter().filter_map(|n| n["name"].as_str()).collect();
    for p in pods {
        let submitted = secs(&p["submittedSeconds"], "submittedSeconds");
        assert!((0..=duration).contains(&submitted), "{p}");
        let started = p["startedSeconds"].as_i64();
        if let Some(t) = started {
            assert!(t >= submitted && t <= duration, "started before submitted: {p}");
        }
        if let Some(t) = p["finishedSeconds"].as_i64() {
            assert!(t >= started.unwrap_or(submitted) && t <= duration, "finished out of order: {p}");
        }
        for key in ["pendingSeconds", "runningSeconds", "workLostSeconds"] {
            let x = secs(&p[key], key);
            assert!((0..=duration).contains(&x) || (key == "workLostSeconds" && x >= 0), "{key} {x}: {p}");
        }
        for n in p["nodes"].as_array().expect("pod nodes") {
            let n = n.as_str().expect("node name");
            assert!(names.contains(n), "pod ran on {n}, which is no node of the answer: {p}");
        }
    }

    let series = &v["series"];
    let times = series["timesSeconds"].as_array().expect("timesSeconds");
    let mut last = i64::MIN;
    for t in times {
        let t = secs(t, "timesSeconds[]");
        assert!(t > last && t <= duration.max(0), "series clock not increasing or past the end: {t}");
        last = t;
    }
    for m in series["metrics"].as_array().expect("metrics") {
        let values = m["values"].as_array().expect("values");
        assert_eq!(values.len(), times.len(), "metric {} has {} values for {} times", m["name"], values.len(), times.len());
        for x in values {
            num(x, "metric value");
        }
    }
    true
}

/// The cluster every `trace_text` input is replayed over: one NodePool, a Job, a Deployment and
/// a bare Pod the trace can reference (`Job/train`, `Deployment/web`, `Pod/solo`).
const TRACE_CLUSTER: &str = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, g5.xlarge]}]\n---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: train}\nspec:\n  template:\n    spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, resources: {requests: {cpu: 250m}}}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: solo}\nspec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}\n";

/// Arbitrary bytes as a workload trace (YAML, JSON or CSV, decided by its text) over
/// [`TRACE_CLUSTER`], with small event and pod-attempt bounds so every input ends fast. The
/// answer is a valid envelope, deterministic; a failure reports at most the capped number of
/// errors (plus the one that counts the rest), each located.
pub fn trace_text(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let req = Request {
        inputs: vec![Input { name: Some("cluster.yaml".into()), text: TRACE_CLUSTER.into() }],
        trace: Some(nodecast::simulate::TraceInput { name: Some("trace".into()), text: text.into(), format: None }),
        simulation: Some(serde_json::from_value(json!({"maxEvents": 20_000, "maxPodAttempts": 200_000})).expect("settings")),
        ..Default::default()
    };
    let v = run(|| nodecast::simulate(&req).to_json());
    if let Some(errors) = v["errors"].as_array() {
        assert!(errors.len() <= nodecast::error::MAX_REPORTED_ERRORS + 1, "{} errors reported", errors.len());
        let counted = errors.iter().filter(|e| e["code"] == "too-many-errors").count();
        assert!(counted <= 1 && (counted == 0 || errors.last().is_some_and(|e| e["code"] == "too-many-errors")), "{errors:?}");
    }
    if v["status"] == "success" {
        let pods = v["pods"].as_array().expect("pods");
        assert!(pods.len() as i64 <= nodecast::internal::lower::MAX_REQUEST_PODS, "{} pods", pods.len());
    }
}

/// Arbitrary bytes as a sweep spec, with a fixed set of files it may name (`pools.yaml`,
/// `pods.yaml`, `trace.yaml`). `referenced_files` and `load` never panic; their errors are
/// located; a loaded sweep is within its combination bound, and its first combination gives a
/// row as wide as the columns, the same twice.
pub fn sweep_spec(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = nodecast::sweep::referenced_files(text, Some("sweep.yaml"));
    let (pools, rest) = TRACE_CLUSTER.split_once("---\n").expect("two parts");
    let files: indexmap::IndexMap<String, String> = [
        ("pools.yaml".to_string(), pools.to_string()),
        ("pods.yaml".to_string(), rest.to_string()),
        ("trace.yaml".to_string(), "kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/train, runTime: 10m}}\n".to_string()),
    ]
    .into_iter()
    .collect();
    match nodecast::sweep::load(text, Some("sweep.yaml"), &files) {
        Err(errors) => {
            assert!(!errors.is_empty(), "a refused spec says why");
            for e in &errors {
                check_error(&serde_json::to_value(e).expect("an error serialises"));
            }
        }
        Ok(sw) => {
            assert!(sw.len() as u64 <= nodecast::sweep::MAX_COMBINATIONS, "{} combinations", sw.len());
            assert!(!sw.columns().is_empty());
            if !sw.is_empty() {
                let (row, _) = sw.run(0, false);
                assert_eq!(row.len(), sw.columns().len(), "row {row:?} for columns {:?}", sw.columns());
                assert_eq!(sw.run(0, false).0, row, "the same combination gave another row");
            }
        }
    }
}
