//! Spec example 8.30: an in-flight NodeClaim (launched by an earlier pass, no Node yet) takes
//! pods that fit it before any new NodeClaim is planned.

use nodecast::{Input, Request};
use serde_json::{json, Value};

const OBJECTS: &str = r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: default-abc12, labels: {karpenter.sh/nodepool: default}}
spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  requirements:
  - {key: node.kubernetes.io/instance-type, operator: In, values: [standard-4]}
  - {key: topology.kubernetes.io/zone, operator: In, values: [test-zone-b]}
  - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: v1
kind: Pod
metadata: {name: reuse}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [test-zone-a, test-zone-b]}]
  containers: [{name: c, resources: {requests: {cpu: 10m}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: elsewhere}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [test-zone-a, test-zone-c]}]
  containers: [{name: c, resources: {requests: {cpu: 10m}}}]
"#;

#[test]
fn in_flight_nodeclaims_take_pods_first() {
    let catalog = json!({"instanceTypes": [
        {"name": "standard-2", "allocatable": {"cpu": "1900m", "memory": "3500Mi"}, "onDemandPrice": 0.1},
        {"name": "standard-4", "allocatable": {"cpu": "3900m", "memory": "7300Mi"}, "onDemandPrice": 0.2}]});
    let req = Request { inputs: vec![Input { name: None, text: OBJECTS.into() }], catalog: Some(catalog), ..Default::default() };
    let v: Value = serde_json::from_str(&nodecast::plan(&req).to_json()).unwrap();
    assert_eq!(v["status"], "success", "{v}");
    assert_eq!(v["existingNodes"][0]["name"], "default-abc12");
    assert_eq!(v["existingNodes"][0]["pods"], json!(["default/reuse"]));
    assert_eq!(v["nodeClaims"].as_array().unwrap().len(), 1);
    assert_eq!(v["nodeClaims"][0]["pods"], json!(["default/elsewhere"]));
    assert_ne!(v["nodeClaims"][0]["zone"], "test-zone-b");
}

/// A NodeClaim joins its Node by provider ID, as Karpenter's cluster state keys nodes by it
/// (state/cluster.go, UpdateNode/UpdateNodeClaim), with or without `status.nodeName`. Karpenter
/// v1.15.0's scheduling suite, "Scheduling Existing Nodes Daemonsets should not subtract daemonset
/// overhead that is not strictly compatible with an existing node", writes such a NodeClaim: taken
/// as a second, in-flight node it had room for the pod that Karpenter leaves to a new NodeClaim.
#[test]
fn nodeclaim_joins_its_node_by_provider_id() {
    let objects = r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
---
apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels: {karpenter.sh/nodepool: default, karpenter.sh/capacity-type: on-demand, node.kubernetes.io/instance-type: standard-4,
           topology.kubernetes.io/zone: test-zone-a, karpenter.sh/registered: "true", karpenter.sh/initialized: "true"}
spec: {providerID: "fake://i-0a"}
status: {allocatable: {cpu: 3900m, memory: 7300Mi, pods: "40"}}
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: default-a1b2c, labels: {karpenter.sh/nodepool: default}}
spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [standard-4]}]
status:
  providerID: "fake://i-0a"
  allocatable: {cpu: 3900m, memory: 7300Mi, pods: "40"}
  conditions: [{type: Initialized, status: "True", lastTransitionTime: "2025-03-05T08:05:00Z"}]
---
apiVersion: v1
kind: Pod
metadata: {name: running}
spec:
  nodeName: node-a
  containers: [{name: c, resources: {requests: {cpu: "3"}}}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: pending}
spec:
  containers: [{name: c, resources: {requests: {cpu: "2"}}}]
"#;
    let catalog = json!({"instanceTypes": [
        {"name": "standard-2", "allocatable": {"cpu": "1900m", "memory": "3500Mi"}, "onDemandPrice": 0.1},
        {"name": "standard-4", "allocatable": {"cpu": "3900m", "memory": "7300Mi"}, "onDemandPrice": 0.2}]});
    let req = Request { inputs: vec![Input { name: None, text: objects.into() }], catalog: Some(catalog), ..Default::default() };
    let v: Value = serde_json::from_str(&nodecast::plan(&req).to_json()).unwrap();
    assert_eq!(v["status"], "success", "{v}");
    // The Node with its claim is full; no in-flight claim with room of its own.
    assert_eq!(v["existingNodes"], json!([]), "{v}");
    assert_eq!(v["nodeClaims"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["nodeClaims"][0]["pods"], json!(["default/pending"]));
}
