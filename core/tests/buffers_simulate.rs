//! Issue 28, CapacityBuffer in the simulator: a buffer's virtual pods are placed again in every
//! provisioning pass (Karpenter's `GetPendingPods` appends them), so a warm spare GPU node
//! takes a scaled-up replica at once and a new spare is launched behind it; emptiness does not
//! delete a node hosting virtual pods (`HasBufferPods`).
//!
//! Latencies are fixed so every number is computable by hand: batch 1 s, GPU start-up 240 s,
//! device plugin 75 s; the pool launches only on-demand g5.xlarge (1 GPU) in us-east-1a.

mod common;
use common::{fixed, PLUGIN, STARTUP};
use nodecast::simulate::Simulation;
use nodecast::{Input, Outcome, Request};

const BATCH: i64 = 1;
const G5_XLARGE: f64 = 1.006;

const CLUSTER: &str = r#"
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: gpu}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 5m
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ml}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: s
        image: vllm
        resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}
"#;

const BUFFER: &str = "---\napiVersion: autoscaling.x-k8s.io/v1beta1\nkind: CapacityBuffer\nmetadata: {name: spare, namespace: ml}\nspec:\n  scalableRef: {apiGroup: apps, kind: Deployment, name: web}\n  replicas: 1\n";

/// One replica at 0, two from 1 h, back to one at 2 h; the run ends at 3 h.
const TRACE: &str = "kind: Trace\nend: 3h\nevents:\n- {at: 0s, submit: {ref: Deployment/ml/web}, name: web}\n- {at: 1h, scale: {workload: web, replicas: 2}}\n- {at: 2h, scale: {workload: web, replicas: 1}}\n";

fn run(buffer: Option<&str>, gate: bool) -> Simulation {
    let text = format!("{CLUSTER}{}", buffer.unwrap_or(""));
    let mut req = Request {
        inputs: vec![Input { name: Some("cluster.yaml".into()), text }],
        trace: Some(nodecast::simulate::TraceInput { name: Some("trace.yaml".into()), text: TRACE.into(), format: None }),
        simulation: Some(fixed()),
        ..Default::default()
    };
    req.settings.feature_gates.capacity_buffer = gate;
    match nodecast::simulate(&req).outcome {
        Outcome::Success(s) => s,
        Outcome::Failure { errors } => panic!("{errors:?}"),
    }
}

fn pending(s: &Simulation, pod: &str) -> i64 {
    s.pods.iter().find(|p| p.name == pod).unwrap_or_else(|| panic!("no pod {pod}: {:?}", s.pods)).pending_seconds
}

#[test]
fn a_warm_spare_node_takes_the_scale_up_at_once() {
    let cold = run(None, true);
    let warm = run(Some(BUFFER), true);
    let node_up = BATCH + STARTUP + PLUGIN;
    // Without a buffer the second replica waits for a node; with one it waits for the batch only.
    assert_eq!(pending(&cold, "ml/web-1"), node_up);
    assert_eq!(pending(&warm, "ml/web-1"), BATCH, "{:#?}", warm.timeline);
    // The first replica waited for a node in both runs (the spare launched beside it).
    assert_eq!(pending(&warm, "ml/web-0"), node_up);
    assert_eq!(pending(&cold, "ml/web-0"), node_up);
    // The second replica ran on the first spare, launched at the first pass beside the first
    // replica's node; a new spare was launched in the pass that bound it.
    let node_of = |pod: &str| warm.pods.iter().find(|p| p.name == pod).map(|p| p.nodes.clone()).unwrap_or_default();
    let (first, second) = (node_of("ml/web-0"), node_of("ml/web-1"));
    assert_eq!((first.len(), second.len()), (1, 1), "{:#?}", warm.pods);
    assert_ne!(first, second);
    let spare1 = warm.nodes.iter().find(|n| n.name == second[0]).expect("spare node");
    assert_eq!(spare1.launched_seconds, BATCH, "{:#?}", warm.nodes);
    let spare2 = warm.nodes.iter().find(|n| n.launched_seconds == 3600 + BATCH).expect("a new spare at 1 h");
    assert_ne!(spare2.name, spare1.name);
    assert_eq!(warm.summary.launches.total, 3);
    assert_eq!(cold.summary.launches.total, 2);
}

#[test]
fn emptiness_keeps_the_node_that_hosts_the_virtual_pod() {
    let warm = run(Some(BUFFER), true);
    // consolidateAfter is 5 m: the spare stays empty for an hour, then two more, and is never
    // deleted as empty. After the 2 h scale-down one node too many is empty, and that one goes.
    let empty = warm.summary.disruptions.by_reason.get("empty").copied().unwrap_or(0);
    assert_eq!(empty, 1, "{:#?}", warm.timeline.iter().filter(|e| e.event.as_str().starts_with("nodeclaim")).collect::<Vec<_>>());
    assert_eq!(warm.summary.disruptions.total, 1);
    assert_eq!(warm.summary.nodes_alive_at_end, 2, "the replica's node and one spare");
    // The cold run deletes its scaled-down node too and keeps one.
    assert_eq!(run(None, true).summary.nodes_alive_at_end, 1);
}

#[test]
fn the_buffer_costs_one_idle_gpu_node() {
    let cold = run(None, true);
    let warm = run(Some(BUFFER), true);
    // The warm run pays for one g5.xlarge more than the cold one from the spare's launch (1 s)
    // to the end (3 h), except after the 2 h scale-down: the cold run's freed node waits
    // consolidateAfter (5 m) before emptiness deletes it, while in the warm run the virtual pod
    // moves onto the freed node and the old spare, empty for longer than that, goes at the next
    // disruption pass (every 10 s). Lifetimes are whole seconds.
    let (consolidate_after, poll) = (300, 10);
    let most = (3 * 3600 - BATCH) as f64 / 3600.0;
    let least = most - (consolidate_after + poll) as f64 / 3600.0;
    let diff = (warm.summary.cost_usd - cold.summary.cost_usd) / G5_XLARGE;
    assert!(diff > least - 1e-9 && diff < most + 1e-9, "extra g5.xlarge hours {diff}, expected {least}..{most}");
    // The idle GPU-hours are the spare's, less the 315 s the second replica ran earlier on it.
    let idle = |s: &Simulation| s.summary.gpu_hours_paid - s.summary.gpu_hours_used;
    let saved_hours = (STARTUP + PLUGIN) as f64 / 3600.0;
    let idle_diff = idle(&warm) - idle(&cold);
    assert!(idle_diff > least - saved_hours - 1e-6 && idle_diff < most - saved_hours + 1e-6, "{} vs {}", idle(&warm), idle(&cold));
}

#[test]
fn gate_off_the_buffer_changes_nothing_and_is_skipped() {
    let off = run(Some(BUFFER), false);
    let cold = run(None, false);
    assert_eq!(off.summary, cold.summary);
    assert!(off.skipped.iter().any(|s| s.kind == "CapacityBuffer" && s.reason.contains("CapacityBuffer=true")), "{:?}", off.skipped);
}

#[test]
fn a_percentage_buffer_says_its_count_is_fixed() {
    let b = BUFFER.replace("replicas: 1", "percentage: 100");
    let warm = run(Some(&b), true);
    let w = warm.warnings.iter().find(|w| w.code == "capacity-buffer-count-fixed").expect("warning");
    assert!(w.message.contains("ml/spare") && w.message.contains("1 virtual pods"), "{}", w.message);
    assert_eq!(pending(&warm, "ml/web-1"), BATCH);
    // A buffer with a fixed count has nothing to say.
    assert!(!run(Some(BUFFER), true).warnings.iter().any(|w| w.code.starts_with("capacity-buffer")));
}
