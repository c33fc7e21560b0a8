//! Lifecycle simulation: a week of GPU jobs.

use super::*;

/// Job templates of the simulation benchmark: (reference, share in %, run time range in minutes).
/// 1-GPU jobs go to `gpu-inference` (t4/a10g/l4), multi-GPU training to `gpu-training`.
pub const SIM_JOBS: [(&str, usize, (usize, usize)); 4] = [
    ("Job/ml/batch-1gpu", 55, (5, 60)),
    ("Job/ml/train-2gpu", 20, (20, 120)),
    ("Job/ml/train-4gpu", 15, (30, 180)),
    ("Job/ml/train-8gpu", 10, (60, 360)),
];

const SIM_TEMPLATES: &str = r#"
apiVersion: batch/v1
kind: Job
metadata: {name: batch-1gpu, namespace: ml}
spec:
  template:
    metadata: {annotations: {karpenter.sh/do-not-disrupt: "true"}}
    spec:
      nodeSelector: {workload-type: inference}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers: [{name: c, image: x, resources: {requests: {cpu: "3", memory: 12Gi, nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: train-2gpu, namespace: ml}
spec:
  template:
    metadata: {annotations: {karpenter.sh/do-not-disrupt: "true"}}
    spec:
      nodeSelector: {workload-type: training}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers: [{name: c, image: x, resources: {requests: {cpu: "16", memory: 64Gi, nvidia.com/gpu: "2"}, limits: {nvidia.com/gpu: "2"}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: train-4gpu, namespace: ml}
spec:
  template:
    metadata: {annotations: {karpenter.sh/do-not-disrupt: "true"}}
    spec:
      nodeSelector: {workload-type: training}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers: [{name: c, image: x, resources: {requests: {cpu: "32", memory: 128Gi, nvidia.com/gpu: "4"}, limits: {nvidia.com/gpu: "4"}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: train-8gpu, namespace: ml}
spec:
  template:
    metadata: {annotations: {karpenter.sh/do-not-disrupt: "true"}}
    spec:
      nodeSelector: {workload-type: training}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers: [{name: c, image: x, resources: {requests: {cpu: "90", memory: 600Gi, nvidia.com/gpu: "8"}, limits: {nvidia.com/gpu: "8"}}}]
"#;

/// A 7-day CSV trace of `jobs` GPU jobs (arrivals uniform over the week) on the example GPU
/// NodePools without their limits, default simulation settings with `seed`.
pub fn simulate_week_request(jobs: usize, seed: u64) -> Request {
    let mut g = SplitMix64::new(seed);
    let mut rows: Vec<(usize, &str, usize)> = (0..jobs)
        .map(|_| {
            let mut r = g.below(100);
            let (wl, _, (lo, hi)) = SIM_JOBS
                .iter()
                .find(|(_, share, _)| {
                    let hit = r < *share;
                    r = r.saturating_sub(*share);
                    hit
                })
                .unwrap_or(&SIM_JOBS[0]);
            (g.below(7 * 86_400), *wl, g.between(*lo, *hi))
        })
        .collect();
    rows.sort();
    let mut csv = String::from("time,workload,replicas,runTime\n");
    for (t, wl, run) in rows {
        csv.push_str(&format!("{t}s,{wl},1,{run}m\n"));
    }
    let mut inputs: Vec<nodecast::Input> = GPU_NODEPOOLS[..2]
        .iter()
        .map(|(name, text)| nodecast::Input { name: Some(name.to_string()), text: without_limits(text) })
        .collect();
    inputs.push(nodecast::Input { name: Some("jobs.yaml".into()), text: SIM_TEMPLATES.into() });
    Request {
        inputs,
        trace: Some(nodecast::simulate::TraceInput { name: Some("week.csv".into()), text: csv, format: None }),
        simulation: Some(nodecast::simulate::SimSettings { seed, end_seconds: Some(7 * 86_400), ..Default::default() }),
        ..Default::default()
    }
}

/// [`simulate_week_request`] without the jobs' `karpenter.sh/do-not-disrupt` annotation, so every
/// busy `gpu-inference` node is a single-node consolidation candidate in every disruption pass.
pub fn simulate_week_request_disruptable(jobs: usize, seed: u64) -> Request {
    let mut req = simulate_week_request(jobs, seed);
    for input in &mut req.inputs {
        input.text = input.text.replace("    metadata: {annotations: {karpenter.sh/do-not-disrupt: \"true\"}}\n", "");
    }
    req
}

/// The `p`-quantile (0..=1) of `sorted` by nearest rank, 0 when empty: the percentiles the
/// bench examples print (optimize_gap, advise_recovery).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// The bench examples' arguments `[SEEDS] [PODS...]`: seeds (default `default_seeds`) and
/// instance sizes (default 30 and 200 pods).
pub fn seeds_and_sizes(default_seeds: u64) -> (u64, Vec<usize>) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seeds = args.first().and_then(|s| s.parse().ok()).unwrap_or(default_seeds);
    let sizes = if args.len() > 1 { args[1..].iter().filter_map(|s| s.parse().ok()).collect() } else { vec![30, 200] };
    (seeds, sizes)
}
