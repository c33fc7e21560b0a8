//! Issue 30, item 6: `consolidate --until` — the commands Karpenter's disruption controller
//! carries out pass after pass (one command per pass, disruption/controller.go) — and
//! `explain --node` for a node a pass did not evaluate.

use nodecast::{Input, Request};
use serde_json::{json, Value};

const NOW: &str = "2025-03-05T12:00:00Z";

fn catalog() -> Value {
    json!({"zones": ["test-zone-a"], "instanceTypes": [
        {"name": "standard-4", "capacity": {"cpu": "4", "memory": "8Gi", "pods": "40"},
         "allocatable": {"cpu": "3900m", "memory": "7300Mi", "pods": "40"}, "onDemandPrice": 0.2}]})
}

fn node(name: &str) -> String {
    format!(
        r#"---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  creationTimestamp: "2025-03-05T08:00:00Z"
  labels: {{karpenter.sh/nodepool: default, karpenter.sh/capacity-type: on-demand, node.kubernetes.io/instance-type: standard-4, topology.kubernetes.io/zone: test-zone-a, kubernetes.io/arch: amd64, kubernetes.io/os: linux, kubernetes.io/hostname: {name}}}
status:
  capacity: {{cpu: "4", memory: 8Gi, pods: "40"}}
  allocatable: {{cpu: 3900m, memory: 7300Mi, pods: "40"}}
"#
    )
}

fn pod(name: &str, node: &str, cpu: &str) -> String {
    format!(
        "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u, controller: true}}]}}\nspec:\n  nodeName: {node}\n  containers: [{{name: c, image: x, resources: {{requests: {{cpu: {cpu}}}}}}}]\n"
    )
}

/// node-a empty, node-b with a small pod that fits on node-c (half used).
fn cluster() -> String {
    let pool = r#"apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s}
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
"#;
    [pool.to_string(), node("node-a"), node("node-b"), node("node-c"), pod("small", "node-b", "500m"), pod("big", "node-c", "2")].concat()
}

fn request(extra: Value) -> Request {
    let mut req = Request {
        inputs: vec![Input { name: Some("cluster.yaml".into()), text: cluster() }],
        catalog: Some(catalog()),
        now: Some(NOW.into()),
        ..Default::default()
    };
    if let Some(u) = extra.get("until").and_then(Value::as_str) {
        req.until = Some(u.into());
    }
    if let Some(n) = extra.get("node").and_then(Value::as_str) {
        req.node = Some(n.into());
    }
    req
}

#[test]
fn the_sequence_carries_out_the_commands_a_single_pass_leaves_for_later() {
    let one: Value = serde_json::from_str(&nodecast::consolidate(&request(json!({}))).to_json()).unwrap();
    assert_eq!(one["status"], "success", "{one}");
    assert!(one.get("sequence").is_none());
    // One pass: emptiness deletes node-a; node-b is not evaluated in this pass.
    assert_eq!(one["disruptedNodes"], json!(["node-a"]), "{one}");
    let b = one["nodes"].as_array().unwrap().iter().find(|n| n["name"] == "node-b").unwrap();
    assert_eq!(b["reasons"][0]["code"], "not-evaluated", "{b}");

    let until = "2025-03-05T13:00:00Z";
    let v: Value = serde_json::from_str(&nodecast::consolidate(&request(json!({"until": until}))).to_json()).unwrap();
    assert_eq!(v["status"], "success", "{v}");
    let seq = &v["sequence"];
    assert_eq!(seq["until"], until);
    let steps = seq["steps"].as_array().unwrap();
    assert!(steps.len() >= 2, "{seq}");
    // Decided by this pass, carried out once Karpenter has validated it again 15 s later.
    assert_eq!(steps[0]["decidedAfterSeconds"], 0);
    assert_eq!(steps[0]["afterSeconds"], 15);
    assert_eq!(steps[0]["command"], one["command"], "the first step is the single answer");
    assert_eq!(steps[0]["reason"], "empty");
    // A later pass removes node-b (its pod moves to node-c).
    let later =
        steps.iter().find(|s| s["disruptedNodes"].as_array().unwrap().iter().any(|n| n == "node-b")).unwrap_or_else(|| panic!("{seq}"));
    assert!(later["afterSeconds"].as_i64().unwrap() > 0, "{later}");
    assert_eq!(later["reason"], "underutilized");
    assert_eq!(seq["nodesAtUntil"], json!(["node-c"]), "{seq}");
    assert_eq!(seq["pricePerHourAtUntil"], 0.2);
    assert_eq!(seq["pendingPodsAtUntil"], 0);
    // The same request gives the same bytes.
    let again = nodecast::consolidate(&request(json!({"until": until}))).to_json();
    assert_eq!(serde_json::from_str::<Value>(&again).unwrap(), v);
    assert_eq!(again, nodecast::consolidate(&request(json!({"until": until}))).to_json());
}

#[test]
fn explain_node_says_when_a_node_not_evaluated_goes() {
    let v: Value = serde_json::from_str(&nodecast::explain(&request(json!({"node": "node-b"}))).to_json()).unwrap();
    assert_eq!(v["status"], "success", "{v}");
    let summary = v["node"]["summary"].as_str().unwrap();
    assert!(summary.contains("not-evaluated"), "{summary}");
    assert!(summary.contains("one command per pass") && summary.contains("node-b"), "{summary}");
    assert!(summary.contains("in the pass at 2025-03-05T12:"), "{summary}");
}

#[test]
fn until_must_be_a_later_rfc3339_time() {
    for (until, needle) in [("tomorrow", "is not an RFC 3339 time"), (NOW, "is not after now")] {
        let v: Value = serde_json::from_str(&nodecast::consolidate(&request(json!({"until": until}))).to_json()).unwrap();
        assert_eq!(v["status"], "failure", "{v}");
        assert_eq!(v["errors"][0]["path"], "until", "{v}");
        assert!(v["errors"][0]["message"].as_str().unwrap().contains(needle), "{v}");
    }
}
