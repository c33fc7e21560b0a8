//! nodecast's ScaledJob metrics against KEDA v2.21.0's own functions (oracle/keda): each case is
//! a random ScaledJob (triggers with targets and activation thresholds, min/max replica counts,
//! multipleScalersCalculation) and a random queue series, with KEDA's answer at every poll
//! (IsScaledJobActive over CalculateQueueLengthAndMaxValue). The checked-in sample runs here
//! without Go; `make oracle-keda` generates 2,000 fresh cases and points NODECAST_KEDA_CASES at them.

use serde::Deserialize;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Poll {
    values: Vec<f64>,
    active: bool,
    scale_to: i64,
    max_scale: i64,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    calc: String,
    min: i64,
    max: i64,
    triggers: Vec<nodecast::simulate::ScaledJobReplayTrigger>,
    polls: Vec<Poll>,
}

#[test]
fn scaled_job_metrics_agree_with_keda_at_every_poll() {
    let path = std::env::var("NODECAST_KEDA_CASES")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../oracle/keda/testdata/sample.json").to_string());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let cases: Vec<Case> = serde_json::from_str(&text).unwrap();
    assert!(!cases.is_empty());
    let (mut polls, mut agree, mut failed) = (0usize, 0usize, Vec::new());
    for c in &cases {
        let values: Vec<Vec<f64>> = c.polls.iter().map(|p| p.values.clone()).collect();
        let got = nodecast::simulate::replay_scaled_job(&c.calc, c.min, c.max, &c.triggers, &values)
            .unwrap_or_else(|e| panic!("{}: {e:?}", c.name));
        for (k, (g, p)) in got.iter().zip(&c.polls).enumerate() {
            polls += 1;
            if *g == (p.active, p.scale_to, p.max_scale) {
                agree += 1;
            } else {
                failed.push(format!("{} poll {k}: nodecast {g:?} keda {:?}", c.name, (p.active, p.scale_to, p.max_scale)));
            }
        }
    }
    eprintln!("KEDA oracle: {agree} of {polls} polls agree over {} series", cases.len());
    assert!(failed.is_empty(), "{} polls disagree:\n{}", failed.len(), failed.iter().take(10).cloned().collect::<Vec<_>>().join("\n"));
}
