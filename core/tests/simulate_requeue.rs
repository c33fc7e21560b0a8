//! Karpenter's pod controller requeues a pending pod every 10 s and each requeue runs a
//! provisioning pass (provisioning/controller.go): a pod one pass could not place is placed by a
//! later one once the cluster has changed. The simulator runs those passes (simulate/engine.rs
//! `arm_requeue`), found by the controller oracle's ctl-93 (its second wave).

mod common;
use nodecast::simulate::{SimSettings, Simulation};

/// A pod with a required zone affinity to a pod of the same pass: that pod goes to a new
/// NodeClaim allowed in every zone, which gives the affinity no domain, so the first pass leaves
/// the follower unschedulable. The NodeClaim launches into one zone; the pods' requeue 10 s after
/// their creation runs a pass that places the follower beside it.
const CLUSTER: &str = r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [m6i.large]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: leader, namespace: web}
spec:
  replicas: 1
  template:
    metadata: {labels: {app: leader}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "1", memory: 1Gi}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: follower, namespace: web}
spec:
  replicas: 1
  template:
    metadata: {labels: {app: follower}}
    spec:
      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: leader}}}
      containers: [{name: c, image: x, resources: {requests: {cpu: "1", memory: 1Gi}}}]
"#;

fn run(trace: &str) -> Simulation {
    common::simulate(CLUSTER, trace, SimSettings { batch_idle_seconds: 1, ..SimSettings::default() })
}

fn at(s: &Simulation, event: &str, object_prefix: &str) -> Vec<i64> {
    s.timeline.iter().filter(|e| e.event.as_str() == event && e.object.starts_with(object_prefix)).map(|e| e.time_seconds).collect()
}

#[test]
fn a_pod_left_unplaced_is_placed_by_its_requeue() {
    let trace = "kind: Trace\nend: 1h\nevents:\n- {at: 0s, submit: {ref: Deployment/web/leader}}\n- {at: 0s, submit: {ref: Deployment/web/follower}}\n";
    let s = run(trace);
    // The first pass (the batch closes 1 s after the pods appear) places the leader on a new
    // NodeClaim and cannot place the follower.
    assert_eq!(at(&s, "pod-nominated", "web/leader"), [1], "{:?}", s.timeline);
    assert_eq!(at(&s, "pod-unschedulable", "web/follower"), [1], "{:?}", s.timeline);
    // Requeued at 10 s, its batch closes at 11 s: the follower goes to the leader's zone.
    assert_eq!(at(&s, "pod-nominated", "web/follower"), [11], "{:?}", s.timeline);
    let follower = s.pods.iter().find(|p| p.name.starts_with("web/follower")).unwrap();
    let leader = s.pods.iter().find(|p| p.name.starts_with("web/leader")).unwrap();
    let zone = |node: &str| s.nodes.iter().find(|n| n.name == node).and_then(|n| n.zone.clone());
    assert!(zone(&leader.nodes[0]).is_some());
    assert_eq!(zone(&follower.nodes[0]), zone(&leader.nodes[0]), "{:?}", s.nodes);
}

#[test]
fn a_pod_that_never_fits_costs_no_pass_per_requeue() {
    // A follower whose leader never comes stays unschedulable for the whole day: the requeues
    // after the cluster stopped changing run no pass, so the answer is immediate and reports
    // the pod once.
    let trace = "kind: Trace\nend: 1d\nevents:\n- {at: 0s, submit: {ref: Deployment/web/follower}}\n";
    let s = run(trace);
    assert_eq!(at(&s, "pod-unschedulable", "web/follower"), [1], "{:?}", s.timeline);
    assert!(at(&s, "pod-nominated", "web/follower").is_empty());
}
