//! Issue 28, gate PodDeletionCostManagement: with it on, Karpenter writes
//! `controller.kubernetes.io/pod-deletion-cost` itself and reads only `karpenter.sh/disruption-cost`
//! as a pod's eviction cost (utils/disruption/disruption.go, EvictionCost); off (the default), a
//! user's pod-deletion-cost counts when there is no disruption-cost. The eviction cost decides
//! whether a node is empty (no pod with a positive cost), so the gate changes that decision.
//! `simulate` refuses the gate: the ReplicaSet scale-down order it steers is not modelled.

use nodecast::json::{Input, Outcome, Request};
use serde_json::Value;

const CATALOG: &str = r#"{"instanceTypes": [
  {"name": "s-4", "allocatable": {"cpu": "3900m", "memory": "7300Mi", "pods": "40"}, "onDemandPrice": 0.20}],
  "capacityTypes": ["on-demand"]}"#;

const DOCS: &str = r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: p}
spec:
  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 0s}
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
---
apiVersion: v1
kind: Node
metadata:
  name: a
  labels: {karpenter.sh/nodepool: p, karpenter.sh/initialized: "true", karpenter.sh/capacity-type: on-demand, node.kubernetes.io/instance-type: s-4, topology.kubernetes.io/zone: test-zone-a}
status:
  allocatable: {cpu: 3900m, memory: 7300Mi, pods: "40"}
---
apiVersion: v1
kind: Pod
metadata:
  name: cheap
  namespace: default
  annotations: {controller.kubernetes.io/pod-deletion-cost: "-2147483647"}
spec:
  nodeName: a
  containers: [{name: c, image: x, resources: {requests: {cpu: 100m, memory: 128Mi}}}]
status: {phase: Running}
"#;

fn request(gate: bool) -> Request {
    let mut req = Request {
        inputs: vec![Input { name: Some("t.yaml".into()), text: DOCS.into() }],
        catalog: Some(serde_json::from_str(CATALOG).expect("catalog")),
        now: Some("2025-03-05T12:00:00Z".into()),
        ..Default::default()
    };
    req.settings.feature_gates.pod_deletion_cost_management = gate;
    req
}

fn consolidate(gate: bool) -> Value {
    let v: Value = serde_json::from_str(&nodecast::consolidate(&request(gate)).to_json()).expect("json");
    assert_eq!(v["status"], "success", "{v}");
    v
}

#[test]
fn gate_off_a_users_pod_deletion_cost_can_leave_a_node_empty() {
    // -2^31+1 / 2^27 = -16: the pod's eviction cost clamps to -10, so the node counts as empty.
    let v = consolidate(false);
    assert_eq!(v["decision"], "delete", "{v}");
    assert_eq!(v["disruptedNodes"], serde_json::json!(["a"]), "{v}");
}

#[test]
fn gate_on_karpenter_no_longer_reads_pod_deletion_cost() {
    // The pod costs 1 to evict: the node is not empty, and WhenEmpty keeps it.
    let v = consolidate(true);
    assert_eq!(v["decision"], "none", "{v}");
}

#[test]
fn simulate_refuses_the_gate_with_a_located_error() {
    let mut req = request(true);
    req.trace =
        Some(nodecast::simulate::TraceInput { name: Some("t.yaml".into()), text: "kind: Trace\nevents: []\n".into(), format: None });
    match nodecast::simulate(&req).outcome {
        Outcome::Success(_) => panic!("simulate accepted PodDeletionCostManagement=true"),
        Outcome::Failure { errors } => {
            let e = errors.iter().find(|e| e.code == "unsupported-feature-gate").expect("gate error");
            assert_eq!(e.path.as_deref(), Some("settings.featureGates.PodDeletionCostManagement"));
            assert!(e.message.contains("scale-down"), "{}", e.message);
        }
    }
}
