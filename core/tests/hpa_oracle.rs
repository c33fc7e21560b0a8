//! nodecast's HPA replica calculation and behavior against Kubernetes 1.36.1's own controller
//! code (oracle/hpa): each case is a random HPA and a random series of pods and metric values,
//! with the replicas the real controller chose at every 15 s sync. The checked-in sample runs
//! here without Go; `make oracle-hpa` generates 2,000 fresh cases and points
//! NODECAST_HPA_CASES at them.

use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Case {
    name: String,
    hpa: Value,
    replicas: i32,
    syncs: Vec<nodecast::simulate::ReplaySync>,
    expected: Vec<i32>,
}

#[test]
fn hpa_replicas_agree_with_the_kubernetes_controller_at_every_sync() {
    let path = std::env::var("NODECAST_HPA_CASES")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../oracle/hpa/testdata/sample.json").to_string());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let cases: Vec<Case> = serde_json::from_str(&text).unwrap();
    assert!(!cases.is_empty());
    let (mut syncs, mut agree, mut failed) = (0usize, 0usize, Vec::new());
    for c in &cases {
        let got = nodecast::simulate::replay_hpa(&c.hpa, c.replicas, &c.syncs).unwrap_or_else(|e| panic!("{}: {e:?}", c.name));
        syncs += c.expected.len();
        // A case agrees sync by sync; after a divergence the pods no longer match the count.
        let first = got.iter().zip(&c.expected).position(|(a, b)| a != b);
        agree += first.unwrap_or(c.expected.len());
        if let Some(k) = first {
            failed.push(format!("{} sync {k}: nodecast {} kubernetes {}", c.name, got[k], c.expected[k]));
        }
    }
    eprintln!("HPA oracle: {} of {} series agree at every sync ({agree} of {syncs} syncs)", cases.len() - failed.len(), cases.len());
    assert!(failed.is_empty(), "{} series disagree:\n{}", failed.len(), failed.iter().take(10).cloned().collect::<Vec<_>>().join("\n"));
}
