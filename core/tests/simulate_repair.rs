//! The simulator's `condition` trace event (docs/feature-gates.md#noderepair): a node's GPU
//! fault from the trace, repaired as Karpenter v1.15.0's Repair method does with the AWS
//! provider's policies (pkg/controllers/disruption/repair.go), only with the NodeRepair gate.

use nodecast::simulate::{SecondsRange, SimSettings, Simulation};
use nodecast::{Input, Outcome, Request};

const CLUSTER: &str = "apiVersion: karpenter.k8s.aws/v1
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
  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 5m, budgets: [{nodes: '1'}]}
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: serve, namespace: ml}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: s
        image: vllm
        resources: {requests: {cpu: '2', memory: 8Gi, nvidia.com/gpu: '1'}, limits: {nvidia.com/gpu: '1'}}
";

fn request(trace: &str, gates: &str) -> Request {
    let settings = SimSettings {
        gpu_startup_seconds: SecondsRange { min: 240, max: 240 },
        device_plugin_seconds: SecondsRange { min: 75, max: 75 },
        spot_interruption_rate_per_hour: 0.0,
        end_seconds: Some(6 * 3600),
        ..Default::default()
    };
    let mut req = Request {
        inputs: vec![Input { name: Some("cluster.yaml".into()), text: CLUSTER.into() }],
        trace: Some(nodecast::simulate::TraceInput { name: Some("trace.yaml".into()), text: trace.into(), format: None }),
        simulation: Some(settings),
        ..Default::default()
    };
    req.settings.feature_gates.apply(gates).expect("gates");
    req
}

fn run(trace: &str, gates: &str) -> Simulation {
    match nodecast::simulate(&request(trace, gates)).outcome {
        Outcome::Success(s) => s,
        Outcome::Failure { errors } => panic!("{errors:?}"),
    }
}

fn trace(condition: &str) -> String {
    format!("kind: Trace\nevents:\n- {{at: 0s, submit: {{ref: Deployment/ml/serve}}}}\n- {{at: 2h, condition: {condition}}}\n")
}

const XID79: &str = "{node: gpu-1, type: AcceleratedHardwareReady, status: 'False', reason: NvidiaXID79Error}";

#[test]
fn a_gpu_fault_is_repaired_after_its_toleration_and_the_replacement_counted() {
    let s = run(&trace(XID79), "NodeRepair=true");
    let gone: Vec<_> = s.nodes.iter().filter(|n| n.termination_reason.map(|r| r.as_str()) == Some("unhealthy")).collect();
    assert_eq!(gone.len(), 1, "{:?}", s.nodes);
    assert_eq!(gone[0].name, "gpu-1");
    // XID 79's toleration is 10 minutes: nothing happens before 2h10m.
    let replacement: Vec<_> = s.nodes.iter().filter(|n| n.launched_seconds >= 2 * 3600).collect();
    assert_eq!(replacement.len(), 1, "{:?}", s.nodes);
    assert!(replacement[0].launched_seconds >= 2 * 3600 + 600, "{:?}", replacement[0]);
    assert!(gone[0].terminated_seconds.is_some_and(|t| t > replacement[0].launched_seconds));
    assert!(s.timeline.iter().any(|e| e.event.as_str() == "node-condition"));
    // Both replicas run at the end.
    assert_eq!(s.summary.pods.pending, 0);
}

#[test]
fn gate_off_keeps_the_faulty_node_and_says_so() {
    let s = run(&trace(XID79), "");
    assert!(s.nodes.iter().all(|n| n.termination_reason.map(|r| r.as_str()) != Some("unhealthy")), "{:?}", s.nodes);
    assert!(s.warnings.iter().any(|w| w.code == "node-repair-disabled" && w.message.contains("NodeRepair=true")), "{:?}", s.warnings);
}

#[test]
fn a_fault_that_clears_before_its_toleration_is_not_repaired() {
    let t = format!("{}- {{at: 2h5m, condition: {{node: gpu-1, type: AcceleratedHardwareReady, status: 'True'}}}}\n", trace(XID79));
    let s = run(&t, "NodeRepair=true");
    assert!(s.nodes.iter().all(|n| n.termination_reason.map(|r| r.as_str()) != Some("unhealthy")), "{:?}", s.nodes);
}

#[test]
fn a_bad_condition_event_is_a_located_error() {
    let Outcome::Failure { errors } = nodecast::simulate(&request(&trace("{node: gpu-1, type: Ready, status: Broken}"), "")).outcome else {
        panic!("accepted")
    };
    assert!(errors.iter().any(|e| e.path.as_deref() == Some("events[1].condition.status")), "{errors:?}");
}
