//! Plan identity: the answers of `plan`, `consolidate` and `simulate` must not change when the
//! code is made faster. Every performance change is checked against digests recorded from the
//! code before it (`core/tests/golden/plan_identity.txt`).
//!
//! Inputs: every conformance scenario in `../shared/conformance/cases` (when that checkout is
//! present), the scenarios of `examples/expectations.yaml`, the example manifests, and the
//! benchmark generators of `benches/src/lib.rs` at moderate sizes.
//!
//! * `NODECAST_BLESS=1` rewrites the golden file from the current code (do this only on code
//!   whose answers are known good, i.e. before an optimisation).
//! * `NODECAST_IDENTITY_DUMP=DIR` also writes every answer's JSON to `DIR/<name>.json`, so two
//!   commits can be diffed answer by answer when a digest changes.
//!
//! The digest is 64-bit FNV-1a over the answer's pretty JSON, with its length: collisions between
//! a correct and a subtly different plan are not a practical concern at this size.

#[allow(dead_code, unused_imports, clippy::all)]
#[path = "../../benches/src/lib.rs"]
mod gen;

use nodecast::{Input, Request};
use nodecast::{MinValuesPolicy, PreferencePolicy, Settings};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// One case: a name and the answer JSON it produces.
struct Case {
    name: String,
    json: String,
}

/// A conformance scenario as a request (the same mapping as `tests/conformance`).
fn scenario_request(s: &Value, dir: &Path) -> Request {
    let mut settings = Settings::default();
    if let Some(st) = s.get("settings") {
        if st.get("minValuesPolicy").and_then(Value::as_str) == Some("BestEffort") {
            settings.min_values_policy = MinValuesPolicy::BestEffort;
        }
        if st.get("preferencePolicy").and_then(Value::as_str) == Some("Ignore") {
            settings.preference_policy = PreferencePolicy::Ignore;
        }
        if let Some(on) = st.get("spotToSpotConsolidation").and_then(Value::as_bool) {
            settings.feature_gates.spot_to_spot_consolidation = on;
        }
        // Karpenter's flag spelling, as in the conformance runner.
        if let Some(gates) = st.get("featureGates").and_then(Value::as_str) {
            settings.feature_gates.apply(gates).expect("scenario feature gates");
        }
    }
    let mut inputs = Vec::new();
    if let Some(text) = s.get("objects").and_then(Value::as_str) {
        inputs.push(Input { name: Some("objects".into()), text: text.to_string() });
    }
    for f in s.get("files").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        let text = std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        inputs.push(Input { name: Some(f.to_string()), text });
    }
    Request {
        inputs,
        catalog: s.get("catalog").cloned(),
        settings,
        now: s.get("clock").and_then(|c| c.get("now")).and_then(Value::as_str).map(str::to_string),
        ..Default::default()
    }
}

fn run_scenario(prefix: &str, s: &Value, dir: &Path, out: &mut Vec<Case>) {
    let name = format!("{prefix}/{}", s.get("name").and_then(Value::as_str).expect("scenario name"));
    let req = scenario_request(s, dir);
    let json = match s.get("kind").and_then(Value::as_str) {
        Some("disrupt") => nodecast::consolidate(&req).to_json(),
        _ => nodecast::plan(&req).to_json(),
    };
    out.push(Case { name, json });
}

fn conformance_cases(out: &mut Vec<Case>) {
    let dir = root().join("../shared/conformance/cases");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!("plan_identity: {} not present, conformance cases skipped", dir.display());
        return;
    };
    let mut files: Vec<PathBuf> =
        rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "yaml")).collect();
    files.sort();
    for f in files {
        let s: Value = serde_saphyr::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        run_scenario("conformance", &s, &dir, out);
    }
}

fn expectation_cases(out: &mut Vec<Case>) {
    let dir = root().join("examples");
    let list: Value = serde_saphyr::from_str(&std::fs::read_to_string(dir.join("expectations.yaml")).unwrap()).unwrap();
    for s in list.as_array().expect("a list of scenarios") {
        run_scenario("expectations", s, &dir, out);
    }
}

fn files(paths: &[&str]) -> Vec<Input> {
    paths
        .iter()
        .map(|p| Input { name: Some(p.to_string()), text: std::fs::read_to_string(root().join("examples").join(p)).unwrap() })
        .collect()
}

fn example_cases(out: &mut Vec<Case>) {
    // Every workload over the three GPU pools, and the README's commands.
    let pools = ["nodepools/gpu-general.yaml", "nodepools/gpu-inference.yaml", "nodepools/gpu-training.yaml"];
    let mut workloads: Vec<String> = std::fs::read_dir(root().join("examples/workloads"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| format!("workloads/{}", e.file_name().to_string_lossy())))
        .collect();
    workloads.sort();
    for w in &workloads {
        let mut paths: Vec<&str> = pools.to_vec();
        paths.push(w);
        let req = Request { inputs: files(&paths), ..Default::default() };
        out.push(Case { name: format!("examples/gpu-pools+{w}"), json: nodecast::plan(&req).to_json() });
    }
    for extra in ["nodepools/inferentia.yaml", "nodepools/spot-tiers.yaml"] {
        let mut paths: Vec<&str> = vec![extra];
        paths.extend(workloads.iter().map(String::as_str).filter(|w| w.contains("mixed") || w.contains("neuron") || w.contains("queue")));
        let req = Request { inputs: files(&paths), ..Default::default() };
        out.push(Case { name: format!("examples/{extra}+mixed"), json: nodecast::plan(&req).to_json() });
    }
    for pool in ["pool-when-empty.yaml", "pool-underutilized.yaml", "pool-business-hours.yaml"] {
        for now in ["2025-03-05T12:00:00Z", "2025-03-08T03:00:00Z"] {
            let req = Request {
                inputs: files(&[&format!("disruption/{pool}"), "disruption/cluster-state.yaml"]),
                now: Some(now.into()),
                ..Default::default()
            };
            out.push(Case { name: format!("examples/consolidate/{pool}@{now}"), json: nodecast::consolidate(&req).to_json() });
        }
    }
}

fn generator_cases(out: &mut Vec<Case>) {
    let mut plan = |name: &str, req: Request| out.push(Case { name: format!("bench/{name}"), json: nodecast::plan(&req).to_json() });
    for n in [1, 100, 1000] {
        plan(&format!("diverse/{n}"), gen::diverse_request(n));
    }
    plan("diverse-one-app/500", gen::diverse_request_one_app(500));
    plan("gpu-limits/300", gen::gpu_request(300));
    plan("gpu-unlimited/300", gen::gpu_request_unlimited(300));
    plan("gpu-deployments/2000", gen::gpu_request_deployments(2000));
    plan("packing/600-onto-300", gen::packing_request(300, 600));
    plan("packing/3000-onto-200", gen::packing_request(200, 3000));
    // Exclusive placement (issue 29): recorded from the code before the hostname domains were
    // shared and the per-claim topology probe was found once per view.
    for (name, lws, groups, per_group, key) in [
        ("jobset-hostname-120x2", false, 120, 2, "kubernetes.io/hostname"),
        ("jobset-zone-8x3", false, 8, 3, "topology.kubernetes.io/zone"),
        ("lws-hostname-40x3", true, 40, 3, "kubernetes.io/hostname"),
        ("lws-zone-8x2", true, 8, 2, "topology.kubernetes.io/zone"),
    ] {
        plan(&format!("exclusive/{name}"), gen::exclusive_request(lws, groups, per_group, key));
    }
    out.push(Case {
        name: "bench/consolidation/100x2000".into(),
        json: nodecast::consolidate(&gen::consolidation_request(100, 2000, "10%")).to_json(),
    });
    out.push(Case { name: "bench/simulate/300-jobs".into(), json: nodecast::simulate(&gen::simulate_week_request(300, 7)).to_json() });
}

fn golden_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/plan_identity.txt")
}

fn read_golden() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(golden_path()).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.rsplit_once(' ').map(|(name, digest)| (name.to_string(), digest.to_string())))
        .collect()
}

fn digest(json: &str) -> String {
    format!("{:016x}:{}", fnv1a(json.as_bytes()), json.len())
}

#[test]
fn answers_match_the_recorded_digests() {
    let mut cases = Vec::new();
    conformance_cases(&mut cases);
    expectation_cases(&mut cases);
    example_cases(&mut cases);
    generator_cases(&mut cases);
    assert!(cases.len() > 40, "too few cases: {}", cases.len());
    // Names must be unique, or two answers would share one golden line.
    let mut names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), cases.len(), "duplicate case names");

    if let Ok(dir) = std::env::var("NODECAST_IDENTITY_DUMP") {
        std::fs::create_dir_all(&dir).unwrap();
        for c in &cases {
            std::fs::write(Path::new(&dir).join(format!("{}.json", c.name.replace('/', "__"))), &c.json).unwrap();
        }
    }

    if std::env::var("NODECAST_BLESS").is_ok_and(|v| v == "1") {
        let mut text =
            String::from("# plan_identity golden digests: <case> <fnv1a64 of answer JSON>:<bytes>. NODECAST_BLESS=1 regenerates.\n");
        for c in &cases {
            text.push_str(&format!("{} {}\n", c.name, digest(&c.json)));
        }
        std::fs::create_dir_all(golden_path().parent().unwrap()).unwrap();
        std::fs::write(golden_path(), text).unwrap();
        return;
    }

    let golden = read_golden();
    assert!(!golden.is_empty(), "no golden file at {}; run with NODECAST_BLESS=1", golden_path().display());
    let mut mismatches = Vec::new();
    for c in &cases {
        let got = digest(&c.json);
        match golden.get(&c.name) {
            Some(want) if *want == got => {}
            Some(want) => mismatches.push(format!("{}: recorded {want}, now {got}", c.name)),
            None => mismatches.push(format!("{}: not recorded (new case? bless it)", c.name)),
        }
    }
    // The shared conformance checkout is optional; every other recorded case must still run.
    for name in golden.keys().filter(|n| !n.starts_with("conformance/")) {
        if !cases.iter().any(|c| &c.name == name) {
            mismatches.push(format!("{name}: recorded but no longer produced"));
        }
    }
    assert!(mismatches.is_empty(), "answers changed ({}):\n{}", mismatches.len(), mismatches.join("\n"));
}
