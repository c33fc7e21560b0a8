//! One function per fuzz target. Each must never panic on its own account; a panic (from the
//! library or from a failed check here) is a finding. Common checks:
//! - the answer is valid JSON with `apiVersion: nodecast/v1` and `status` success or failure;
//! - every error has a kebab-case code, a message and a location (source, document, object,
//!   path or line);
//! - the same request twice gives the same bytes.
//!
//! Depends only on nodecast, serde_json and std (core/tests/fuzz_corpus.rs includes this file).

use crate::cluster::{self, Src};
use nodecast::labels::Interner;
use nodecast::quantity::{format_milli, parse_milli, QuantityError, Unit};
use nodecast::requirements::{Operator, Requirement, Requirements};
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

fn run(f: impl Fn() -> String) -> Value {
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
    match nodecast::manifest::decode(&text, Some("fuzz.yaml")) {
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
