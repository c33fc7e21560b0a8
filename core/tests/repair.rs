//! Node repair and terminate-first (issue 28 item 5): Karpenter v1.15.0's Repair disruption
//! method (pkg/controllers/disruption/repair.go) with the AWS provider's repair policies, and
//! the terminate-first path of helpers.go for drift and repair. One test per rule.

mod common;
use common::NODE_CLASS;
use nodecast::{Input, Request};
use serde_json::{json, Value};

const NOW: &str = "2026-12-01T12:00:00Z";

fn pool(capacity_types: &str, budgets: &str) -> String {
    format!(
        r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: p5}}
spec:
  disruption: {{consolidateAfter: Never, budgets: {budgets}}}
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}}
      requirements:
      - {{key: karpenter.sh/capacity-type, operator: In, values: [{capacity_types}]}}
      - {{key: node.kubernetes.io/instance-type, operator: In, values: [p5.48xlarge]}}
"#
    )
}

/// A p5 Node with `conditions` (YAML flow list items) and extra `annotations`.
fn node(name: &str, capacity_type: &str, conditions: &str, annotations: &str) -> String {
    let reservation = if capacity_type == "reserved" { "\n    karpenter.k8s.aws/capacity-reservation-id: cr-a" } else { "" };
    format!(
        r#"
apiVersion: v1
kind: Node
metadata:
  name: {name}
  annotations: {{{annotations}}}
  labels:
    karpenter.sh/nodepool: p5
    node.kubernetes.io/instance-type: p5.48xlarge
    topology.kubernetes.io/zone: us-east-1a
    karpenter.sh/capacity-type: {capacity_type}{reservation}
    karpenter.sh/initialized: "true"
    karpenter.sh/registered: "true"
  creationTimestamp: "2026-12-01T00:00:00Z"
status:
  capacity: {{cpu: "192", memory: 2048Gi, pods: "100", nvidia.com/gpu: "8"}}
  allocatable: {{cpu: "191", memory: 2000Gi, pods: "100", nvidia.com/gpu: "8"}}
  conditions: [{{type: Ready, status: "True"}}{conditions}]
"#
    )
}

fn gpu_fault(reason: &str, since: &str) -> String {
    format!(r#", {{type: AcceleratedHardwareReady, status: "False", reason: {reason}, lastTransitionTime: "{since}"}}"#)
}

fn trainer(name: &str, node: &str) -> String {
    format!(
        r#"
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  nodeName: {node}
  containers:
  - name: c
    image: trainer
    resources: {{requests: {{cpu: "100", nvidia.com/gpu: "8"}}, limits: {{nvidia.com/gpu: "8"}}}}
status: {{phase: Running}}
"#
    )
}

fn request(yaml: &[String], gates: &str, available: i64) -> Request {
    let reservations = json!({"CapacityReservations": [{
        "CapacityReservationId": "cr-a", "OwnerId": "123456789012", "InstanceType": "p5.48xlarge",
        "AvailabilityZone": "us-east-1a", "TotalInstanceCount": 2, "AvailableInstanceCount": available,
        "State": "active", "InstanceMatchCriteria": "targeted", "ReservationType": "default",
        "Tags": [{"Key": "team", "Value": "ml"}]}]});
    let mut req = Request {
        inputs: vec![
            Input { name: Some("cluster.yaml".into()), text: yaml.join("---\n") },
            Input { name: Some("reservations.json".into()), text: reservations.to_string() },
        ],
        catalog: Some(json!({"source": "aws-us-east-1", "zones": ["us-east-1a", "us-east-1b"]})),
        now: Some(NOW.into()),
        ..Default::default()
    };
    req.settings.feature_gates.apply(gates).expect("gates");
    req
}

fn consolidate(yaml: &[String], gates: &str) -> Value {
    consolidate_with(yaml, gates, 0)
}

fn consolidate_with(yaml: &[String], gates: &str, available: i64) -> Value {
    let v: Value = serde_json::from_str(&nodecast::consolidate(&request(yaml, gates, available)).to_json()).expect("json");
    assert_eq!(v["status"], "success", "{v}");
    v
}

fn verdict<'a>(d: &'a Value, node: &str) -> &'a Value {
    d["nodes"].as_array().expect("nodes").iter().find(|n| n["name"] == node).expect("node verdict")
}

fn first_code(d: &Value, node: &str) -> String {
    verdict(d, node)["reasons"][0]["code"].as_str().unwrap_or("").to_string()
}

fn base(conditions: &str, annotations: &str) -> Vec<String> {
    vec![
        NODE_CLASS.to_string(),
        pool("on-demand", r#"[{nodes: "10%"}]"#),
        node("gpu-1", "on-demand", conditions, annotations),
        trainer("train-0", "gpu-1"),
        node("gpu-2", "on-demand", "", ""),
        node("gpu-3", "on-demand", "", ""),
        node("gpu-4", "on-demand", "", ""),
        node("gpu-5", "on-demand", "", ""),
    ]
}

const FATAL: &str = "NvidiaXID79Error";

#[test]
fn gate_off_leaves_the_node_and_names_the_gate() {
    let d = consolidate(&base(&gpu_fault(FATAL, "2026-12-01T11:00:00Z"), ""), "");
    assert_ne!(d["method"], "repair", "{d}");
    let w = d["warnings"].as_array().unwrap().iter().find(|w| w["code"] == "node-repair-disabled").expect("gate hint");
    assert!(w["message"].as_str().unwrap().contains("NodeRepair=true"), "{w}");
    assert_eq!(w["object"], "Node/gpu-1");
    // The policy the node matches is in the answer either way.
    assert_eq!(verdict(&d, "gpu-1")["repair"]["eligible"], true, "{d}");
}

#[test]
fn fatal_xid_past_its_ten_minute_toleration_is_replaced_first() {
    let d = consolidate(&base(&gpu_fault(FATAL, "2026-12-01T11:45:00Z"), ""), "NodeRepair=true");
    assert_eq!(d["method"], "repair", "{d}");
    assert_eq!(d["reason"], "unhealthy");
    // Its trainer fits on an empty node: deleted.
    assert_eq!(d["decision"], "delete");
    assert_eq!(d["disruptedNodes"], json!(["gpu-1"]));
    let r = &verdict(&d, "gpu-1")["repair"];
    assert_eq!(r["condition"], "AcceleratedHardwareReady");
    assert_eq!(r["tolerationSeconds"], 600);
    assert_eq!(r["terminationGracePeriodSeconds"], 300);
    assert!(d["warnings"].as_array().unwrap().iter().all(|w| w["code"] != "node-repair-disabled"));
}

#[test]
fn a_lone_unhealthy_node_is_replaced() {
    // 1 unhealthy of 1: not more than ceil(20 % × 1) = 1, so the breaker holds.
    let yaml = base(&gpu_fault(FATAL, "2026-12-01T11:00:00Z"), "")[..4].to_vec();
    let d = consolidate(&yaml, "NodeRepair=true");
    assert_eq!(d["method"], "repair", "{d}");
    assert_eq!(d["decision"], "replace");
    assert_eq!(d["replacement"]["instanceType"], "p5.48xlarge");
    assert_eq!(d["replacement"]["pods"], json!(["default/train-0"]));
}

#[test]
fn toleration_not_elapsed_waits() {
    // XID79: 10 minutes; 5 have passed.
    let d = consolidate(&base(&gpu_fault(FATAL, "2026-12-01T11:55:00Z"), ""), "NodeRepair=true");
    assert_ne!(d["method"], "repair", "{d}");
    assert_eq!(first_code(&d, "gpu-1"), "repair-not-yet", "{d}");
    assert_eq!(verdict(&d, "gpu-1")["repair"]["eligibleAt"], "2026-12-01T12:05:00Z");
}

#[test]
fn unrecognised_gpu_fault_takes_the_thirty_minute_fallback() {
    // No XID the specific policies know: the fallback policy, 30 minutes; 20 have passed.
    let d = consolidate(&base(&gpu_fault("DCGMHealthCheckFailed", "2026-12-01T11:40:00Z"), ""), "NodeRepair=true");
    assert_eq!(first_code(&d, "gpu-1"), "repair-not-yet", "{d}");
    assert_eq!(verdict(&d, "gpu-1")["repair"]["tolerationSeconds"], 1800);
    // The same twenty minutes with a fatal XID are past its ten.
    let d = consolidate(&base(&gpu_fault(FATAL, "2026-12-01T11:40:00Z"), ""), "NodeRepair=true");
    assert_eq!(d["method"], "repair", "{d}");
}

#[test]
fn unhealthy_budget_of_zero_blocks_and_not_ready_does_not_consume_it() {
    let mut yaml = base(&gpu_fault(FATAL, "2026-12-01T11:00:00Z"), "");
    yaml[1] = pool("on-demand", r#"[{nodes: "0", reasons: [Unhealthy]}]"#);
    let d = consolidate(&yaml, "NodeRepair=true");
    assert_ne!(d["method"], "repair", "{d}");
    assert_eq!(first_code(&d, "gpu-1"), "budget", "{d}");
    // 2 of 10 (20 %) for every reason; a NotReady node uses up one of Drifted's, none of
    // Unhealthy's. (2 unhealthy of 10 is not more than 20 %: the breaker holds.)
    let mut yaml = base(&gpu_fault(FATAL, "2026-12-01T11:00:00Z"), "");
    yaml[1] = pool("on-demand", r#"[{nodes: "20%"}]"#);
    yaml.extend((6..=10).map(|i| node(&format!("gpu-{i}"), "on-demand", "", "")));
    yaml[4] = node("gpu-2", "on-demand", "", "")
        .replace(r#"{type: Ready, status: "True"}"#, r#"{type: Ready, status: "False", lastTransitionTime: "2026-12-01T11:59:00Z"}"#);
    let d = consolidate(&yaml, "NodeRepair=true");
    assert_eq!(d["method"], "repair", "{d}");
    let budgets = &d["nodePools"][0]["allowed"];
    assert_eq!(budgets["Unhealthy"], 2, "{d}");
    assert_eq!(budgets["Drifted"], 1, "{d}");
}

#[test]
fn more_than_twenty_percent_unhealthy_stops_repair_in_the_pool() {
    // 2 of 5 nodes match a policy key (one not yet past its toleration): 2 > ceil(20 % × 5) = 1.
    let mut yaml = base(&gpu_fault(FATAL, "2026-12-01T11:00:00Z"), "");
    yaml[4] = node("gpu-2", "on-demand", &gpu_fault(FATAL, "2026-12-01T11:59:00Z"), "");
    let d = consolidate(&yaml, "NodeRepair=true");
    assert_ne!(d["method"], "repair", "{d}");
    assert_eq!(first_code(&d, "gpu-1"), "unhealthy-threshold", "{d}");
}

#[test]
fn do_not_repair_vetoes_but_do_not_disrupt_does_not() {
    let d = consolidate(&base(&gpu_fault(FATAL, "2026-12-01T11:00:00Z"), r#"karpenter.sh/do-not-repair: "true""#), "NodeRepair=true");
    assert_ne!(d["method"], "repair", "{d}");
    assert_eq!(first_code(&d, "gpu-1"), "do-not-repair", "{d}");
    let d = consolidate(&base(&gpu_fault(FATAL, "2026-12-01T11:00:00Z"), r#"karpenter.sh/do-not-disrupt: "true""#), "NodeRepair=true");
    assert_eq!(d["method"], "repair", "{d}");
}

fn reserved_cluster() -> Vec<String> {
    vec![
        NODE_CLASS.to_string(),
        pool("reserved", r#"[{nodes: "100%"}]"#),
        node("gpu-r", "reserved", &gpu_fault(FATAL, "2026-12-01T11:00:00Z"), ""),
        trainer("train-0", "gpu-r"),
    ]
}

#[test]
fn terminate_first_repair_deletes_a_reserved_node_whose_slot_is_the_only_room() {
    // The reservation is full: the trainer fits nowhere but the slot gpu-r frees.
    let d = consolidate(&reserved_cluster(), "NodeRepair=true");
    assert_ne!(d["method"], "repair", "{d}");
    assert_eq!(first_code(&d, "gpu-r"), "pods-do-not-fit", "{d}");
    let d = consolidate(&reserved_cluster(), "NodeRepair=true,TerminateFirstRepair=true");
    assert_eq!(d["method"], "repair", "{d}");
    assert_eq!(d["decision"], "delete");
    assert_eq!(d["terminateFirst"], "no-reserved-capacity");
    // With a free slot the replacement is staged first, as without the gate.
    let d = consolidate_with(&reserved_cluster(), "NodeRepair=true,TerminateFirstRepair=true", 1);
    assert_eq!(d["decision"], "replace", "{d}");
    assert!(d.get("terminateFirst").is_none());
}

#[test]
fn terminate_first_drift_deletes_a_drifted_reserved_node() {
    let mut yaml = reserved_cluster();
    yaml[2] = node("gpu-r", "reserved", "", "");
    yaml.push(
        r#"
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: gpu-r-claim, labels: {karpenter.sh/nodepool: p5}, creationTimestamp: "2026-12-01T00:00:00Z"}
spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
status:
  nodeName: gpu-r
  conditions:
  - {type: Initialized, status: "True", lastTransitionTime: "2026-12-01T00:05:00Z"}
  - {type: Drifted, status: "True", reason: AMIDrift, lastTransitionTime: "2026-12-01T10:00:00Z"}
"#
        .to_string(),
    );
    let d = consolidate(&yaml, "");
    assert_ne!(d["method"], "drift", "{d}");
    let d = consolidate(&yaml, "TerminateFirstDrift=true");
    assert_eq!(d["method"], "drift", "{d}");
    assert_eq!(d["decision"], "delete");
    assert_eq!(d["terminateFirst"], "no-reserved-capacity");
}

#[test]
fn a_condition_without_a_type_is_a_located_error() {
    let yaml = base(r#", {status: "False"}"#, "");
    let v: Value = serde_json::from_str(&nodecast::consolidate(&request(&yaml, "", 0)).to_json()).expect("json");
    assert_eq!(v["status"], "failure", "{v}");
    assert!(v.to_string().contains("Node condition without a type"), "{v}");
}

#[test]
fn explain_node_says_why() {
    let mut req = request(&base(&gpu_fault(FATAL, "2026-12-01T11:00:00Z"), ""), "NodeRepair=true", 0);
    req.node = Some("gpu-1".into());
    let v: Value = serde_json::from_str(&nodecast::explain(&req).to_json()).expect("json");
    let summary = v["node"]["summary"].as_str().unwrap_or_default();
    assert!(summary.contains("unhealthy") && summary.contains("AcceleratedHardwareReady"), "{v}");
}

fn static_pool(limits: &str) -> String {
    format!(
        r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: p5}}
spec:
  replicas: 1
  {limits}
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}}
      requirements:
      - {{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}}
      - {{key: node.kubernetes.io/instance-type, operator: In, values: [p5.48xlarge]}}
"#
    )
}

#[test]
fn a_static_pools_node_is_replaced_from_its_template_or_terminated_first_at_the_limit() {
    let fault = gpu_fault(FATAL, "2026-12-01T11:00:00Z");
    let yaml = vec![NODE_CLASS.to_string(), static_pool(""), node("gpu-1", "on-demand", &fault, "")];
    let d = consolidate(&yaml, "NodeRepair=true");
    assert_eq!(d["method"], "repair", "{d}");
    assert_eq!(d["decision"], "replace");
    assert_eq!(d["replacement"]["instanceType"], "p5.48xlarge");
    let yaml = vec![NODE_CLASS.to_string(), static_pool("limits: {nodes: \"1\"}"), node("gpu-1", "on-demand", &fault, "")];
    let d = consolidate(&yaml, "NodeRepair=true");
    assert_ne!(d["method"], "repair", "{d}");
    assert!(verdict(&d, "gpu-1")["reasons"][0]["message"].as_str().unwrap().contains("node limit"), "{d}");
    let d = consolidate(&yaml, "NodeRepair=true,TerminateFirstRepair=true");
    assert_eq!(d["decision"], "delete", "{d}");
    assert_eq!(d["terminateFirst"], "static-at-limit");
}

/// The provider's policies as an input (`settings.repairPolicies`, crate::repair_policies):
/// Karpenter's test provider's one policy, `BadNode=False` for 30m, no drain (its fallback).
fn test_provider_policies() -> Vec<nodecast::repair_policies::RepairPolicySpec> {
    serde_json::from_value(json!([{
        "conditionType": "BadNode", "conditionStatus": "False", "tolerationDuration": "30m0s",
        "terminationGracePeriod": "0s", "action": "ReplaceNode"
    }]))
    .expect("policies")
}

fn consolidate_req(req: &Request) -> Value {
    serde_json::from_str(&nodecast::consolidate(req).to_json()).expect("json")
}

#[test]
fn given_repair_policies_replace_the_aws_providers() {
    let bad = r#", {type: BadNode, status: "False", lastTransitionTime: "2026-12-01T11:00:00Z"}"#;
    // With the AWS provider's policies BadNode is no condition any policy reads.
    let d = consolidate(&base(bad, ""), "NodeRepair=true");
    assert_ne!(d["method"], "repair", "{d}");
    assert!(verdict(&d, "gpu-1")["repair"].is_null(), "{d}");
    let mut req = request(&base(bad, ""), "NodeRepair=true", 0);
    req.settings.repair_policies = Some(test_provider_policies());
    let d = consolidate_req(&req);
    assert_eq!(d["method"], "repair", "{d}");
    assert_eq!(d["disruptedNodes"], json!(["gpu-1"]));
    let r = &verdict(&d, "gpu-1")["repair"];
    assert_eq!((r["condition"].as_str(), r["tolerationSeconds"].as_i64()), (Some("BadNode"), Some(1800)), "{d}");
    assert_eq!(r["terminationGracePeriodSeconds"], 0);
    // And the AWS provider's GPU fault is no condition the given set reads.
    let mut req = request(&base(&gpu_fault(FATAL, "2026-12-01T11:00:00Z"), ""), "NodeRepair=true", 0);
    req.settings.repair_policies = Some(test_provider_policies());
    let d = consolidate_req(&req);
    assert_ne!(d["method"], "repair", "{d}");
}

#[test]
fn a_higher_priority_policy_is_repaired_first() {
    // gpu-1's LowPriority condition has been eligible for 20m (score 0 + 0.67), gpu-2's
    // HighPriority one for 5m (rank 1 + 0.17): gpu-2 first (health/policy.go ScoreAt).
    let mut yaml = base(r#", {type: LowPriority, status: "False", reason: slow, lastTransitionTime: "2026-12-01T11:40:00Z"}"#, "");
    yaml[4] = node(
        "gpu-2",
        "on-demand",
        r#", {type: HighPriority, status: "False", reason: hot, lastTransitionTime: "2026-12-01T11:55:00Z"}"#,
        "",
    );
    // Ten nodes, so two unhealthy ones do not trip the 20 % breaker.
    for i in 6..=10 {
        yaml.push(node(&format!("gpu-{i}"), "on-demand", "", ""));
    }
    let mut req = request(&yaml, "NodeRepair=true", 0);
    let mut policies = test_provider_policies();
    policies.extend(
        serde_json::from_value::<Vec<nodecast::repair_policies::RepairPolicySpec>>(json!([
            {"conditionType": "LowPriority", "conditionStatus": "False", "reasonRegex": ".*", "priority": 10, "action": "ReplaceNode"},
            {"conditionType": "HighPriority", "conditionStatus": "False", "reasonRegex": "^hot$", "priority": 90, "action": "ReplaceNode"}
        ]))
        .expect("policies"),
    );
    req.settings.repair_policies = Some(policies.clone());
    let d = consolidate_req(&req);
    assert_eq!((d["method"].as_str(), d["disruptedNodes"].clone()), (Some("repair"), json!(["gpu-2"])), "{d}");
    // A reason the HighPriority pattern does not match falls back to the set's fallback (30m):
    // not yet eligible, so gpu-1 is repaired.
    yaml[4] = node(
        "gpu-2",
        "on-demand",
        r#", {type: HighPriority, status: "False", reason: cold, lastTransitionTime: "2026-12-01T11:55:00Z"}"#,
        "",
    );
    let mut req = request(&yaml, "NodeRepair=true", 0);
    req.settings.repair_policies = Some(policies);
    let d = consolidate_req(&req);
    assert_eq!(d["disruptedNodes"], json!(["gpu-1"]), "{d}");
}

#[test]
fn invalid_repair_policies_are_located_errors() {
    let mut req = request(&base("", ""), "NodeRepair=true", 0);
    let mut policies = test_provider_policies();
    policies[0].condition_status = "Bad".into();
    req.settings.repair_policies = Some(policies);
    let v = consolidate_req(&req);
    assert_eq!(v["status"], "failure", "{v}");
    assert!(v.to_string().contains("settings.repairPolicies[0].conditionStatus"), "{v}");
    // Through the JSON facade: an unknown field is refused, not ignored.
    let out = nodecast::json::call(
        "consolidate",
        &json!({"inputs": [], "settings": {"repairPolicies": [{"conditionType": "A", "conditionStatus": "False", "tolerance": "1m"}]}})
            .to_string(),
    );
    assert!(out.contains("tolerance"), "{out}");
}

/// A p5 Node `name` with its NodeClaim: the Node's extra `labels` (YAML flow mapping items) and
/// `conditions`, the claim's `claim_conditions` (YAML flow list items).
fn claimed(name: &str, labels: &str, conditions: &str, claim_conditions: &str) -> Vec<String> {
    vec![
        format!(
            r#"
apiVersion: v1
kind: Node
metadata:
  name: {name}
  creationTimestamp: "2026-12-01T00:00:00Z"
  labels: {{karpenter.sh/nodepool: p5, node.kubernetes.io/instance-type: p5.48xlarge, topology.kubernetes.io/zone: us-east-1a, karpenter.sh/capacity-type: on-demand{labels}}}
status:
  capacity: {{cpu: "192", memory: 2048Gi, pods: "100", nvidia.com/gpu: "8"}}
  allocatable: {{cpu: "191", memory: 2000Gi, pods: "100", nvidia.com/gpu: "8"}}
  conditions: [{{type: Ready, status: "True"}}{conditions}]
"#
        ),
        format!(
            r#"
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {{name: {name}-claim, labels: {{karpenter.sh/nodepool: p5}}, creationTimestamp: "2026-12-01T00:00:00Z"}}
spec:
  nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}}
status:
  nodeName: {name}
  conditions: [{{type: Launched, status: "True"}}{claim_conditions}]
"#
        ),
    ]
}

const BAD_NODE: &str = r#", {type: BadNode, status: "False", lastTransitionTime: "2026-12-01T10:00:00Z"}"#;

fn with_test_policies(yaml: &[String]) -> Value {
    let mut req = request(yaml, "NodeRepair=true", 0);
    req.settings.repair_policies = Some(test_provider_policies());
    let d = consolidate_req(&req);
    assert_eq!(d["status"], "success", "{d}");
    d
}

#[test]
fn an_uninitialized_node_is_repaired_only_once_registered() {
    // Karpenter's "Repair uninitialized nodes should not repair a node that never registered"
    // (disruption/repair_test.go): an uninitialized node without `karpenter.sh/registered` is
    // the registration timeout's (statenode.go, ValidateNodeDisruptable).
    let uninit = r#", {type: Initialized, status: "Unknown"}"#;
    let cluster = |labels: &str, claim: &str| {
        let mut y = vec![NODE_CLASS.to_string(), pool("on-demand", r#"[{nodes: "10%"}]"#)];
        y.extend(claimed("gpu-1", labels, BAD_NODE, &format!("{uninit}{claim}")));
        y
    };
    let d = with_test_policies(&cluster("", ""));
    assert_ne!(d["method"], "repair", "{d}");
    let v = verdict(&d, "gpu-1");
    assert_eq!(v["reasons"][0]["code"], "not-initialized", "{d}");
    assert_eq!(v["reasons"][0]["message"], "node isn't initialized nor registered", "{d}");
    // Registered by the label, or (the format may leave Karpenter's labels out) by the claim's
    // Registered condition: repaired, without budget (an uninitialized node needs none).
    for (labels, claim) in [(r#", karpenter.sh/registered: "true""#, ""), ("", r#", {type: Registered, status: "True"}"#)] {
        let d = with_test_policies(&cluster(labels, claim));
        assert_eq!(d["method"], "repair", "{labels} {claim}: {d}");
        assert_eq!(d["disruptedNodes"], json!(["gpu-1"]));
    }
    // The label wins over the condition, as Karpenter reads only the label.
    let d = with_test_policies(&cluster(r#", karpenter.sh/registered: "false""#, r#", {type: Registered, status: "True"}"#));
    assert_ne!(d["method"], "repair", "{d}");
}

#[test]
fn a_rebooting_node_is_no_candidate_and_takes_a_budget_slot() {
    // "... should not repair a rebooting node": the claim's Rebooting condition is True.
    let rebooting = r#", {type: Rebooting, status: "True", reason: RebootIssued}"#;
    let mut yaml = vec![NODE_CLASS.to_string(), pool("on-demand", r#"[{nodes: "1"}]"#)];
    yaml.extend(claimed("gpu-1", "", BAD_NODE, &format!(r#", {{type: Initialized, status: "True"}}{rebooting}"#)));
    let d = with_test_policies(&yaml);
    assert_ne!(d["method"], "repair", "{d}");
    assert_eq!(first_code(&d, "gpu-1"), "rebooting", "{d}");
    // Five more nodes, one of them unhealthy (2 of 6 would trip the breaker, so the rebooting
    // node is healthy here): its reboot uses the pool's one disruption, so gpu-2 waits.
    let mut yaml = vec![NODE_CLASS.to_string(), pool("on-demand", r#"[{nodes: "1"}]"#)];
    yaml.extend(claimed("gpu-1", "", "", &format!(r#", {{type: Initialized, status: "True"}}{rebooting}"#)));
    yaml.push(node("gpu-2", "on-demand", BAD_NODE, ""));
    for i in 3..=6 {
        yaml.push(node(&format!("gpu-{i}"), "on-demand", "", ""));
    }
    let d = with_test_policies(&yaml);
    assert_ne!(d["method"], "repair", "{d}");
    assert_eq!(first_code(&d, "gpu-2"), "budget", "{d}");
    // Once the reboot is over, gpu-2 is repaired.
    yaml[2] = yaml[2].replace(
        "status: \"True\", reason: RebootIssued",
        "status: \"False\", reason: RebootSucceeded, lastTransitionTime: \"2026-12-01T09:00:00Z\"",
    );
    yaml[3] = yaml[3]
        .replace(rebooting, r#", {type: Rebooting, status: "False", reason: RebootSucceeded, lastTransitionTime: "2026-12-01T09:00:00Z"}"#);
    let d = with_test_policies(&yaml);
    assert_eq!(d["method"], "repair", "{d}");
    assert_eq!(d["disruptedNodes"], json!(["gpu-2"]), "{d}");
}

#[test]
fn the_toleration_runs_from_the_end_of_the_last_reboot() {
    // "... should measure the toleration from when the last reboot finished": BadNode since
    // 10:00 (30m toleration), the reboot ended at 11:40, now is 12:00: eligible at 12:10.
    let finished = |at: &str| {
        format!(
            r#", {{type: Initialized, status: "True"}}, {{type: Rebooting, status: "False", reason: RebootSucceeded, lastTransitionTime: "{at}"}}"#
        )
    };
    let mut yaml = vec![NODE_CLASS.to_string(), pool("on-demand", r#"[{nodes: "10%"}]"#)];
    yaml.extend(claimed("gpu-1", "", BAD_NODE, &finished("2026-12-01T11:40:00Z")));
    let d = with_test_policies(&yaml);
    assert_ne!(d["method"], "repair", "{d}");
    assert_eq!(first_code(&d, "gpu-1"), "repair-not-yet", "{d}");
    assert_eq!(verdict(&d, "gpu-1")["repair"]["eligibleAt"], "2026-12-01T12:10:00Z", "{d}");
    // Ended at 11:20: eligible at 11:50.
    yaml[3] = yaml[3].replace("11:40", "11:20");
    let d = with_test_policies(&yaml);
    assert_eq!(d["method"], "repair", "{d}");
}

#[test]
fn a_rebooting_nodes_fence_does_not_keep_pods_off_it() {
    // statenode.go Taints: while a reboot is in flight the `karpenter.sh/rebooting` NoSchedule
    // taint is left out of scheduling (the node's capacity is coming back), so a pending pod is
    // placed on the node rather than on a new NodeClaim.
    let mut yaml = vec![NODE_CLASS.to_string(), pool("on-demand", r#"[{nodes: "10%"}]"#)];
    let mut node_claim =
        claimed("gpu-1", "", "", r#", {type: Initialized, status: "True"}, {type: Rebooting, status: "True", reason: RebootIssued}"#);
    node_claim[0] = node_claim[0].replace("status:\n", "spec:\n  taints: [{key: karpenter.sh/rebooting, effect: NoSchedule}]\nstatus:\n");
    yaml.extend(node_claim.clone());
    yaml.push(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: w}\nspec:\n  containers: [{name: c, image: x, resources: {requests: {cpu: \"1\"}}}]\n"
            .to_string(),
    );
    let plan = |yaml: &[String]| -> Value {
        let v: Value = serde_json::from_str(&nodecast::plan(&request(yaml, "", 0)).to_json()).expect("json");
        assert_eq!(v["status"], "success", "{v}");
        v
    };
    let v = plan(&yaml);
    assert_eq!(v["nodeClaims"].as_array().map(Vec::len), Some(0), "{v}");
    assert_eq!(v["existingNodes"][0]["pods"], json!(["default/w"]), "{v}");
    // Without the Rebooting condition the taint keeps the pod off: a new NodeClaim.
    yaml[3] = yaml[3].replace(r#", {type: Rebooting, status: "True", reason: RebootIssued}"#, "");
    let v = plan(&yaml);
    assert_eq!(v["nodeClaims"].as_array().map(Vec::len), Some(1), "{v}");
}

#[test]
fn legacy_node_repair_with_the_gate_on_is_refused_at_its_setting() {
    // Karpenter's --legacy-node-repair swaps the Repair method for the legacy node.health
    // controller (controllers.go), which nodecast does not model.
    let mut req = request(&base(&gpu_fault(FATAL, "2026-12-01T11:00:00Z"), ""), "NodeRepair=true", 0);
    req.settings.legacy_node_repair = true;
    let v = consolidate_req(&req);
    assert_eq!(v["status"], "failure", "{v}");
    assert!(v.to_string().contains("settings.legacyNodeRepair"), "{v}");
    // With the gate off the flag changes nothing (Karpenter registers neither repair).
    let mut req = request(&base(&gpu_fault(FATAL, "2026-12-01T11:00:00Z"), ""), "", 0);
    req.settings.legacy_node_repair = true;
    assert_eq!(consolidate_req(&req)["status"], "success");
    // Through the JSON facade the setting is read, not ignored.
    let out = nodecast::json::call(
        "consolidate",
        &json!({"inputs": [], "now": NOW, "settings": {"legacyNodeRepair": true, "featureGates": "NodeRepair=true"}}).to_string(),
    );
    assert!(out.contains("settings.legacyNodeRepair"), "{out}");
}
