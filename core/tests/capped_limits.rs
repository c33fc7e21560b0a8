//! A NodePool limit written larger than milli-units can hold (Karpenter's scheduling benchmark
//! sets `memory: 10000000Gi`) is valid Kubernetes and is compared exactly by Karpenter. nodecast
//! holds it at the i64 cap; booking NodeClaims must not shrink it from there, or it would bind
//! at ~8 Pi where Karpenter's does not (seen at 100,000 generated benchmark pods).

use nodecast::{Input, Request};
use serde_json::{json, Value};

fn plan(limit: &str) -> Value {
    let objects = format!(
        r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: huge}}
spec:
  limits: {{memory: {limit}}}
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements: [{{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: big}}
spec:
  replicas: 3
  selector: {{matchLabels: {{app: big}}}}
  template:
    metadata: {{labels: {{app: big}}}}
    spec:
      containers: [{{name: c, resources: {{requests: {{cpu: 100m, memory: 3Pi}}}}}}]
"#
    );
    // One type of 4 Pi: three pods need three NodeClaims, 12 Pi booked, more than the cap.
    let catalog = json!({"instanceTypes": [
        {"name": "vast-1", "allocatable": {"cpu": "8", "memory": "4Pi"}, "onDemandPrice": 1.0}]});
    let req = Request { inputs: vec![Input { name: None, text: objects }], catalog: Some(catalog), ..Default::default() };
    serde_json::from_str(&nodecast::plan(&req).to_json()).unwrap()
}

#[test]
fn a_limit_beyond_the_milli_range_does_not_bind_below_itself() {
    // 100,000,000 Gi ≈ 95 Pi: far above the 12 Pi the plan books.
    let v = plan("100000000Gi");
    assert_eq!(v["status"], "success", "{v}");
    assert_eq!(v["nodeClaims"].as_array().unwrap().len(), 3, "{v}");
    assert!(v["unschedulable"].as_array().is_none_or(|u| u.is_empty()), "{v}");
}

#[test]
fn a_limit_within_the_milli_range_still_binds() {
    // 8 Pi (just inside the milli range, which ends at ~8.19 Pi) holds two 4 Pi NodeClaims,
    // not three: the third pod stays pending on the limit.
    let v = plan("8Pi");
    assert_eq!(v["status"], "success", "{v}");
    assert_eq!(v["nodeClaims"].as_array().unwrap().len(), 2, "{v}");
    let pending = v["unschedulable"].as_array().expect("one pod pending");
    assert_eq!(pending.len(), 1, "{v}");
    assert!(pending[0].to_string().contains("limit"), "{v}");
}
