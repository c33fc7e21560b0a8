//! Issue 30, item 4: Jobs as the Job controller runs them (waves of `parallelism` pods until
//! `completions` succeeded, `backoffLimit`), `suspend` treated alike for batch/v1 Jobs and the
//! ML kinds, and an existing cluster simulated to `end` when the trace has no events.
//!
//! Latencies are fixed so every number is computable by hand: batch 1 s, GPU start-up 240 s,
//! device plugin 75 s.

mod common;
use common::{fixed, PLUGIN, STARTUP};
use nodecast::simulate::Simulation;
use nodecast::{Input, Outcome, Request};
use serde_json::Value;

const BATCH: i64 = 1;

fn cluster(job_spec: &str, gpus: i64) -> String {
    format!(
        r#"
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {{name: gpu}}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{{alias: al2023@latest}}]
  subnetSelectorTerms: [{{tags: {{karpenter.sh/discovery: c}}}}]
  securityGroupSelectorTerms: [{{tags: {{karpenter.sh/discovery: c}}}}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: gpu}}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}}
      requirements:
      - {{key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge]}}
      - {{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}}
      - {{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}}
  limits:
    nvidia.com/gpu: "{gpus}"
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 5m
---
apiVersion: batch/v1
kind: Job
metadata: {{name: train, namespace: ml}}
spec:
{job_spec}
  template:
    spec:
      containers:
      - name: t
        image: pytorch
        resources: {{requests: {{cpu: "2", memory: 8Gi, nvidia.com/gpu: "1"}}, limits: {{nvidia.com/gpu: "1"}}}}
"#
    )
}

fn request(cluster: &str, trace: &str) -> Request {
    Request {
        inputs: vec![Input { name: Some("cluster.yaml".into()), text: cluster.into() }],
        trace: Some(nodecast::simulate::TraceInput { name: Some("trace.yaml".into()), text: trace.into(), format: None }),
        simulation: Some(fixed()),
        ..Default::default()
    }
}

fn run(cluster: &str, trace: &str) -> Simulation {
    match nodecast::simulate(&request(cluster, trace)).outcome {
        Outcome::Success(s) => s,
        Outcome::Failure { errors } => panic!("{errors:?}"),
    }
}

/// Most pods running at once, from the timeline.
fn peak_running(s: &Simulation) -> usize {
    let (mut now, mut peak) = (0usize, 0usize);
    for e in &s.timeline {
        match e.event.as_str() {
            "pod-started" => now += 1,
            "pod-finished" | "pod-evicted" | "pod-deleted" => now = now.saturating_sub(1),
            _ => {}
        }
        peak = peak.max(now);
    }
    peak
}

#[test]
fn a_job_runs_waves_of_parallelism_pods_until_its_completions() {
    // 10 completions, 3 at a time, 10 minutes each, room for 4 GPUs: waves of 3, 3, 3, 1.
    let s = run(
        &cluster("  completions: 10\n  parallelism: 3", 4),
        "kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/ml/train, runTime: 10m}}\n",
    );
    assert_eq!(s.summary.pods.submitted, 10, "{:?}", s.pods.iter().map(|p| &p.name).collect::<Vec<_>>());
    assert_eq!(s.summary.pods.finished, 10);
    assert_eq!(peak_running(&s), 3);
    assert_eq!(s.summary.launches.total, 3, "the first wave's three nodes run every wave");
    // Wave k starts when wave k−1 finishes: the last pod finishes after 4 waves of 600 s.
    let first_start = BATCH + STARTUP + PLUGIN;
    let last = s.pods.iter().filter_map(|p| p.finished_seconds).max().unwrap();
    assert_eq!(last, first_start + 4 * 600 + 3, "{:?}", s.pods.iter().map(|p| (&p.name, p.started_seconds)).collect::<Vec<_>>());
    assert_eq!(s.pods.last().unwrap().name, "ml/train-9");
}

#[test]
fn without_completions_a_job_is_done_when_its_pods_finish() {
    let s = run(&cluster("  parallelism: 2", 4), "kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/ml/train, runTime: 10m}}\n");
    assert_eq!(s.summary.pods.submitted, 2);
    assert_eq!(s.summary.pods.finished, 2);
}

#[test]
fn evictions_past_the_backoff_limit_fail_the_job() {
    // backoffLimit 1: the first interruption is a failure the Job survives, the second fails it.
    let start = BATCH + STARTUP + PLUGIN;
    let trace = format!(
        "kind: Trace\nevents:\n- {{at: 0s, submit: {{ref: Job/ml/train, runTime: 5h}}}}\n- {{at: {}s, interrupt: gpu-1}}\n- {{at: {}s, interrupt: gpu-2}}\n",
        start + 600,
        start + 600 + 3600
    );
    let mut c = cluster("  completions: 1\n  backoffLimit: 1", 4);
    c = c.replace("values: [on-demand]", "values: [spot]");
    let s = run(&c, &trace);
    let failed: Vec<&nodecast::api::Warning> = s.warnings.iter().filter(|w| w.code == "job-failed").collect();
    assert_eq!(failed.len(), 1, "{:?}", s.warnings);
    assert!(failed[0].message.contains("backoffLimit 1"), "{}", failed[0].message);
    assert_eq!(s.summary.pods.deleted, 1, "{:?}", s.pods);
    assert_eq!(s.summary.pods.finished, 0);
    // With the default backoffLimit (6) the same two interruptions are survived.
    let s = run(&cluster("  completions: 1", 4).replace("values: [on-demand]", "values: [spot]"), &trace);
    assert!(s.warnings.iter().all(|w| w.code != "job-failed"), "{:?}", s.warnings);
    assert_eq!(s.summary.pods.finished, 1);
}

fn plan_json(text: &str) -> Value {
    let req = Request { inputs: vec![Input { name: Some("c.yaml".into()), text: text.into() }], ..Default::default() };
    serde_json::from_str(&nodecast::plan(&req).to_json()).unwrap()
}

#[test]
fn a_suspended_batch_job_is_planned_like_a_suspended_pytorchjob() {
    let job = plan_json(&cluster("  suspend: true\n  parallelism: 2", 4));
    assert_eq!(job["status"], "success", "{job}");
    assert_eq!(job["nodeClaims"].as_array().unwrap().len(), 0, "{job}");
    let skipped = job["skipped"].as_array().unwrap();
    let entry = skipped.iter().find(|s| s["kind"] == "Job").unwrap_or_else(|| panic!("{job}"));
    let reason = entry["reason"].as_str().unwrap();
    assert!(reason.contains("suspended") && reason.contains("Kueue"), "{reason}");

    let pytorch = r#"
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt, namespace: ml}
spec:
  runPolicy: {suspend: true}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers: [{name: pytorch, image: x, resources: {requests: {cpu: "1"}}}]
"#;
    let pt = plan_json(pytorch);
    let pt_reason = pt["skipped"][0]["reason"].as_str().unwrap_or_else(|| panic!("{pt}"));
    // The same words for both: not running, Kueue or the user decides when it resumes.
    let tail = |r: &str| r.split_once(") ").map(|(_, t)| t.to_string()).unwrap();
    assert_eq!(tail(reason), tail(pt_reason));
}

#[test]
fn an_existing_cluster_with_no_events_runs_to_end() {
    let node = r#"
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-old
  labels: {karpenter.sh/nodepool: gpu, karpenter.sh/capacity-type: on-demand, node.kubernetes.io/instance-type: g5.xlarge, topology.kubernetes.io/zone: us-east-1a, kubernetes.io/arch: amd64, kubernetes.io/os: linux, kubernetes.io/hostname: gpu-old}
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "58", nvidia.com/gpu: "1"}
  allocatable: {cpu: 3920m, memory: 15000Mi, pods: "58", nvidia.com/gpu: "1"}
---
apiVersion: v1
kind: Pod
metadata: {name: serving, namespace: ml, annotations: {karpenter.sh/do-not-disrupt: "true"}}
spec:
  nodeName: gpu-old
  containers: [{name: s, image: vllm, resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}}]
"#;
    let c = cluster("  parallelism: 1", 4) + node;
    let s = run(&c, "kind: Trace\nend: 2h\nevents: []\n");
    assert_eq!(s.summary.duration_seconds, 7200);
    assert_eq!(s.summary.nodes_alive_at_end, 1);
    assert!(s.summary.cost_usd > 0.0, "{:?}", s.summary);
}
