//! Issue 30, item 5: a live cluster exported with `kubectl get ... -o yaml` (a `kind: List` of
//! workloads, their ReplicaSets and Jobs, and the pods the controllers already run). Each
//! workload plans only the pods its controller would still create (core/src/lower/owners.rs),
//! generated names never collide with the export's pods, and errors name the List item.

use nodecast::{Input, Request};
use serde_json::{json, Value};

fn catalog() -> Value {
    json!({"zones": ["test-zone-a"], "instanceTypes": [
        {"name": "standard-4", "capacity": {"cpu": "4", "memory": "8Gi", "pods": "40"},
         "allocatable": {"cpu": "3900m", "memory": "7300Mi", "pods": "40"}, "onDemandPrice": 0.2}]})
}

/// The export: a NodePool, one node, and `items` (each a YAML mapping written as JSON-ish flow).
fn export(items: &[&str]) -> String {
    let mut text = String::from(
        r#"apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: default}
  spec:
    template:
      spec:
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
        requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
- apiVersion: v1
  kind: Node
  metadata:
    name: node-a
    labels: {karpenter.sh/nodepool: default, karpenter.sh/capacity-type: on-demand, node.kubernetes.io/instance-type: standard-4, topology.kubernetes.io/zone: test-zone-a, kubernetes.io/arch: amd64, kubernetes.io/os: linux, kubernetes.io/hostname: node-a}
  status:
    capacity: {cpu: "4", memory: 8Gi, pods: "40"}
    allocatable: {cpu: 3900m, memory: 7300Mi, pods: "40"}
"#,
    );
    for item in items {
        text.push_str("- ");
        text.push_str(&item.trim().replace('\n', "\n  "));
        text.push('\n');
    }
    text
}

const SPEC: &str = "{containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]}";

fn deployment(name: &str, replicas: i64) -> String {
    format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: ml}}\nspec:\n  replicas: {replicas}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n    spec: {SPEC}")
}

fn owned_pod(name: &str, kind: &str, owner: &str, phase: &str, labels: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: ml\n  labels: {{{labels}}}\n  ownerReferences: [{{apiVersion: apps/v1, kind: {kind}, name: {owner}, uid: u-{owner}, controller: true}}]\nspec:\n  nodeName: node-a\n  containers: [{{name: c, image: x, resources: {{requests: {{cpu: 100m}}}}}}]\nstatus: {{phase: {phase}}}"
    )
}

fn plan(text: &str) -> Value {
    let req = Request {
        inputs: vec![Input { name: Some("export.yaml".into()), text: text.into() }],
        catalog: Some(catalog()),
        ..Default::default()
    };
    serde_json::from_str(&nodecast::plan(&req).to_json()).unwrap()
}

/// Names of the pods the plan places (on the existing node or new NodeClaims) or leaves pending.
fn new_pods(v: &Value) -> Vec<String> {
    let mut pods: Vec<String> = v["nodeClaims"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["pods"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()))
        .collect();
    pods.extend(v["unschedulable"].as_array().into_iter().flatten().map(|u| u["pod"].as_str().unwrap().to_string()));
    // An existing node's `pods` are the pending pods this pass places on it.
    pods.extend(
        v["existingNodes"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|n| n["pods"].as_array().into_iter().flatten().map(|p| p.as_str().unwrap().to_string())),
    );
    pods
}

#[test]
fn a_deployment_plans_only_the_replicas_its_replicaset_does_not_run() {
    let rs = "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: serve-7d9f\n  namespace: ml\n  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: serve, uid: u1, controller: true}]\nspec:\n  replicas: 3\n  template:\n    metadata: {labels: {app: serve, pod-template-hash: 7d9f}}\n    spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]}";
    let p1 = owned_pod("serve-7d9f-abcde", "ReplicaSet", "serve-7d9f", "Running", "app: serve, pod-template-hash: 7d9f");
    let p2 = owned_pod("serve-7d9f-fghij", "ReplicaSet", "serve-7d9f", "Running", "app: serve, pod-template-hash: 7d9f");
    let v = plan(&export(&[&deployment("serve", 3), rs, &p1, &p2]));
    assert_eq!(v["status"], "success", "{v}");
    // Two run already: one more replica, planned once (not by the Deployment and the ReplicaSet).
    let pods = new_pods(&v);
    assert_eq!(pods.len(), 1, "{v}");
    assert!(pods[0].starts_with("ml/serve-"), "{pods:?}");

    // Without the ReplicaSet in the export, the pod-template-hash label ties the pods to it.
    let v = plan(&export(&[&deployment("serve", 3), &p1, &p2]));
    assert_eq!(new_pods(&v).len(), 1, "{v}");
    // Everything running: nothing to plan.
    let p3 = owned_pod("serve-7d9f-klmno", "ReplicaSet", "serve-7d9f", "Running", "app: serve, pod-template-hash: 7d9f");
    let v = plan(&export(&[&deployment("serve", 3), &p1, &p2, &p3]));
    assert_eq!(new_pods(&v), Vec::<String>::new(), "{v}");
}

#[test]
fn a_statefulset_creates_its_missing_ordinals_and_names_never_collide() {
    let sts = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: ml}\nspec:\n  replicas: 3\n  template:\n    spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]}";
    let p0 = owned_pod("db-0", "StatefulSet", "db", "Running", "app: db");
    let p2 = owned_pod("db-2", "StatefulSet", "db", "Running", "app: db");
    let v = plan(&export(&[sts, &p0, &p2]));
    assert_eq!(v["status"], "success", "{v}");
    assert_eq!(new_pods(&v), vec!["ml/db-1".to_string()], "{v}");

    // A pod that happens to carry a generated name (no owner) is not a duplicate-name error:
    // the Deployment's replica takes the next free name.
    let squatter = "apiVersion: v1\nkind: Pod\nmetadata: {name: serve-0, namespace: ml}\nspec:\n  nodeName: node-a\n  containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]";
    let v = plan(&export(&[&deployment("serve", 1), squatter]));
    assert_eq!(v["status"], "success", "{v}");
    assert_eq!(new_pods(&v), vec!["ml/serve-1".to_string()], "{v}");
}

#[test]
fn a_job_counts_its_succeeded_failed_and_running_pods() {
    let job = |status: &str| {
        format!("apiVersion: batch/v1\nkind: Job\nmetadata: {{name: train, namespace: ml}}\nspec:\n  completions: 5\n  parallelism: 3\n  backoffLimit: 1\n  template:\n    spec: {SPEC}\nstatus: {status}")
    };
    let running = owned_pod("train-abc", "Job", "train", "Running", "job-name: train");
    let done = owned_pod("train-def", "Job", "train", "Succeeded", "job-name: train");
    // 5 completions, 1 succeeded, 1 running: min(3, 5 − 1) − 1 = 2 more pods now.
    let v = plan(&export(&[&job("{succeeded: 1}"), &running, &done]));
    assert_eq!(v["status"], "success", "{v}");
    assert_eq!(new_pods(&v).len(), 2, "{v}");
    // Four succeeded per its status: min(3, 1) − 1 running = 0.
    let v = plan(&export(&[&job("{succeeded: 4}"), &running]));
    assert_eq!(new_pods(&v).len(), 0, "{v}");
    // Two failures exceed backoffLimit 1: the Job has failed, creates nothing, and says so.
    let v = plan(&export(&[&job("{failed: 2}")]));
    assert_eq!(new_pods(&v).len(), 0, "{v}");
    let skipped = v["skipped"].to_string();
    assert!(skipped.contains("backoffLimit 1"), "{skipped}");
}

#[test]
fn errors_inside_a_list_name_the_item() {
    let bad = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: bad, namespace: ml}\nspec:\n  replicas: -2\n  template:\n    spec: {containers: [{name: c, image: x}]}";
    let v = plan(&export(&[&deployment("serve", 1), bad]));
    assert_eq!(v["status"], "failure", "{v}");
    let e = &v["errors"][0];
    let shown = e.to_string();
    assert!(shown.contains("items[3]"), "{shown}");
    assert!(!e["message"].as_str().unwrap_or("").contains("document 0"), "{shown}");
    // As the CLI prints it: the item, not "document 0".
    let err: nodecast::InputError = serde_json::from_value(e.clone()).unwrap();
    let line = err.to_string();
    assert!(line.starts_with("export.yaml, Deployment/ml/bad, items[3].spec"), "{line}");
}

/// Issue 36: Karpenter's EC2NodeClass `status.subnets` narrows its NodePools to those zones
/// (the AWS provider's offerings), from a file as from a live cluster, and the answer says so.
#[test]
fn ec2nodeclass_status_subnets_narrow_the_zones() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/live/nodeclass-status.yaml")).unwrap();
    let zones = |text: &str| -> (Vec<String>, Vec<String>) {
        let req = Request { inputs: vec![Input { name: Some("status.yaml".into()), text: text.into() }], ..Default::default() };
        let v: Value = serde_json::from_str(&nodecast::plan(&req).to_json()).unwrap();
        assert_eq!(v["status"], "success", "{v}");
        let zones = v["nodeClaims"].as_array().unwrap().iter().map(|c| c["zone"].as_str().unwrap().to_string()).collect();
        let codes =
            v["warnings"].as_array().map(|w| w.iter().map(|w| w["code"].as_str().unwrap().to_string()).collect()).unwrap_or_default();
        (zones, codes)
    };
    let (with_status, codes) = zones(&text);
    assert_eq!(with_status, ["us-east-1b", "us-east-1c"]);
    assert_eq!(codes, ["nodeclass-status-zones"]);
    // Without the status (a hand-written EC2NodeClass): the catalog's zones, no note.
    let i = text.find("status:\n").unwrap();
    let j = i + text[i..].find("---").unwrap();
    let (without, codes) = zones(&format!("{}{}", &text[..i], &text[j..]));
    assert_eq!(without, ["us-east-1a", "us-east-1b"]);
    assert!(codes.is_empty(), "{codes:?}");
    // No subnet resolved: Karpenter offers nothing with the class.
    let no_subnets: String = text.lines().filter(|l| !l.starts_with("  - {id: subnet-")).map(|l| format!("{l}\n")).collect();
    let (none, codes) = zones(&no_subnets.replace("  subnets:\n", "  subnets: []\n"));
    assert!(none.is_empty());
    assert!(codes.contains(&"nodeclass-status-zones".to_string()), "{codes:?}");
}
