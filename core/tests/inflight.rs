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
