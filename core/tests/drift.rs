//! Drift and the differences Karpenter v1.15.0's own suites found (issue 39), each test named
//! after the Karpenter spec it mirrors (pkg/controllers/disruption/drift_test.go,
//! pkg/controllers/nodeclaim/disruption/drift_test.go, consolidation_test.go,
//! provisioning/scheduling/suite_test.go).

use nodecast::json::{Input, Request};
use serde_json::Value;

const CATALOG: &str = r#"{"instanceTypes": [
  {"name": "s-2", "allocatable": {"cpu": "1900m", "memory": "3500Mi", "pods": "20"}, "onDemandPrice": 0.10, "spotPrice": 0.04},
  {"name": "s-4", "allocatable": {"cpu": "3900m", "memory": "7300Mi", "pods": "40"}, "onDemandPrice": 0.20, "spotPrice": 0.08},
  {"name": "s-8", "allocatable": {"cpu": "7900m", "memory": "15000Mi", "pods": "80"}, "onDemandPrice": 0.40, "spotPrice": 0.16}],
  "capacityTypes": ["on-demand", "spot"]}"#;
const NOW: &str = "2025-03-05T12:00:00Z";

/// Karpenter v1.15.0's hashes of the NodePools in data/nodepool-hashes.yaml, printed by
/// oracle/cmd/nodepool-hash (NodePool.Hash with the CRD's expireAfter default applied).
const KARPENTER_HASHES: &[(&str, &str)] = &[
    ("minimal", "6821555240594823858"),
    ("requirements-ignored", "6821555240594823858"),
    ("labelled", "16326339723959931039"),
    ("tainted", "13138323744379773909"),
    ("never-expires", "5191017205297229152"),
    ("short-lived", "14470786836382220342"),
    ("explicit-default-expiry", "6821555240594823858"),
];

fn template_hash(doc: &Value) -> String {
    nodecast::gohash::nodepool_template_hash(doc.get("spec").and_then(|s| s.get("template"))).expect("hashable")
}

#[test]
fn nodepool_hash_equals_karpenters() {
    let docs = nodecast::internal::manifest::decode(include_str!("data/nodepool-hashes.yaml"), None).expect("pools");
    assert_eq!(docs.len(), KARPENTER_HASHES.len());
    for (doc, (name, want)) in docs.iter().zip(KARPENTER_HASHES) {
        assert_eq!(doc.name(), *name);
        assert_eq!(template_hash(&doc.value), *want, "NodePool {name}");
    }
}

/// The default NodePool of these tests; `template` is inserted under `spec.template.spec`.
fn pool(extra_spec: &str, disruption: &str) -> String {
    format!(
        "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: default}}\nspec:\n  disruption: {disruption}\n  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n{extra_spec}      requirements:\n      - {{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}}\n"
    )
}

const NEVER: &str = "{consolidateAfter: Never, budgets: [{nodes: \"100%\"}]}";

/// The hash the default pool's template has with `extra_spec`.
fn hash_of(extra_spec: &str) -> String {
    let docs = nodecast::internal::manifest::decode(&pool(extra_spec, NEVER), None).expect("pool");
    template_hash(&docs[0].value)
}

/// A Node and its NodeClaim (annotations and conditions on the claim).
fn node(name: &str, ty: &str, ct: &str, zone: &str, claim_annotations: &str, claim_conditions: &str, claim_spec: &str) -> String {
    let cpu = match ty {
        "s-2" => "1900m",
        "s-4" => "3900m",
        _ => "7900m",
    };
    format!(
        "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  creationTimestamp: \"2025-03-05T08:00:00Z\"\n  labels: {{karpenter.sh/nodepool: default, karpenter.sh/initialized: \"true\", karpenter.sh/capacity-type: {ct}, node.kubernetes.io/instance-type: {ty}, topology.kubernetes.io/zone: {zone}}}\nstatus:\n  allocatable: {{cpu: {cpu}, memory: 15000Mi, pods: \"80\"}}\n---\napiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata:\n  name: {name}-claim\n  creationTimestamp: \"2025-03-05T08:00:00Z\"\n  labels: {{karpenter.sh/nodepool: default}}\n  annotations: {{{claim_annotations}}}\nspec:\n  nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n{claim_spec}status:\n  nodeName: {name}\n  conditions:\n  - {{type: Initialized, status: \"True\", lastTransitionTime: \"2025-03-05T08:05:00Z\"}}\n{claim_conditions}"
    )
}

fn hashed(h: &str) -> String {
    format!("karpenter.sh/nodepool-hash: \"{h}\", karpenter.sh/nodepool-hash-version: v3")
}

fn drifted_at(t: &str) -> String {
    format!("  - {{type: Drifted, status: \"True\", reason: NodePoolDrifted, lastTransitionTime: \"{t}\"}}\n")
}

fn pod(name: &str, node: &str, cpu: &str, annotations: &str) -> String {
    format!(
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  labels: {{app: {name}}}\n  annotations: {{{annotations}}}\nspec:\n  nodeName: {node}\n  containers: [{{name: c, image: x, resources: {{requests: {{cpu: \"{cpu}\", memory: 128Mi}}}}}}]\nstatus:\n  phase: Running\n  startTime: \"2025-03-05T11:59:00Z\"\n"
    )
}

fn request(docs: &[String]) -> Request {
    Request {
        inputs: vec![Input { name: Some("t.yaml".into()), text: docs.concat() }],
        catalog: Some(serde_json::from_str(CATALOG).expect("catalog")),
        now: Some(NOW.into()),
        ..Default::default()
    }
}

fn consolidate(docs: &[String]) -> Value {
    let v: Value = serde_json::from_str(&nodecast::consolidate(&request(docs)).to_json()).expect("json");
    assert_eq!(v["status"], "success", "{v}");
    v
}

fn verdict<'a>(d: &'a Value, node: &str) -> &'a Value {
    d["nodes"].as_array().expect("nodes").iter().find(|n| n["name"] == node).expect("node verdict")
}

// --- Drift detection (nodeclaim/disruption/drift_test.go) ---

#[test]
fn should_return_drifted_only_on_nodeclaims_that_are_drifted_from_an_updated_nodepool() {
    let edited = "      taints: [{key: example.com/new, effect: NoSchedule}]\n";
    let old = hash_of("");
    let docs = [
        pool(edited, NEVER),
        node("old", "s-8", "on-demand", "test-zone-a", &hashed(&old), "", ""),
        node("new", "s-8", "on-demand", "test-zone-a", &hashed(&hash_of(edited)), "", ""),
    ];
    let d = consolidate(&docs);
    assert_eq!(verdict(&d, "old")["drift"]["reason"], "NodePoolDrifted", "{d}");
    assert!(verdict(&d, "new").get("drift").is_none(), "{d}");
}

#[test]
fn should_not_return_drifted_if_the_nodeclaims_hash_version_does_not_match() {
    let docs = [
        pool("", NEVER),
        node("a", "s-8", "on-demand", "test-zone-a", "karpenter.sh/nodepool-hash: \"123\", karpenter.sh/nodepool-hash-version: v2", "", ""),
    ];
    assert!(verdict(&consolidate(&docs), "a").get("drift").is_none());
}

/// The NodePool hash controller (nodepool/hash/controller.go, updateNodeClaimHash): a pool not
/// yet at hash version v3 (here: no annotation) moves its NodeClaims to v3; one that is already
/// drifted keeps its old hash and is compared with it.
#[test]
fn a_drifted_nodeclaim_at_an_older_hash_version_keeps_its_hash_when_the_pool_is_upgraded() {
    let edited = "      taints: [{key: example.com/new, effect: NoSchedule}]\n";
    let old = format!("karpenter.sh/nodepool-hash: \"{}\", karpenter.sh/nodepool-hash-version: v2", hash_of(""));
    let docs = [pool(edited, NEVER), node("a", "s-8", "on-demand", "test-zone-a", &old, &drifted_at("2025-03-05T10:00:00Z"), "")];
    let d = consolidate(&docs);
    assert_eq!(verdict(&d, "a")["drift"]["reason"], "NodePoolDrifted", "{d}");
    // A Drifted condition of status False counts as one too (the controller asks for the
    // condition, not its status).
    let cond = "  - {type: Drifted, status: \"False\", reason: NotDrifted, lastTransitionTime: \"2025-03-05T10:00:00Z\"}\n";
    let docs = [pool(edited, NEVER), node("a", "s-8", "on-demand", "test-zone-a", &old, cond, "")];
    assert_eq!(verdict(&consolidate(&docs), "a")["drift"]["reason"], "NodePoolDrifted");
    // Without a Drifted condition it gets the pool's current hash: not drifted.
    let docs = [pool(edited, NEVER), node("a", "s-8", "on-demand", "test-zone-a", &old, "", "")];
    assert!(verdict(&consolidate(&docs), "a").get("drift").is_none());
}

/// A pool already at v3 leaves its NodeClaims' annotations alone: one at v2 is never compared,
/// drifted condition or not.
#[test]
fn a_pool_at_the_current_hash_version_does_not_upgrade_its_nodeclaims() {
    let edited = "      taints: [{key: example.com/new, effect: NoSchedule}]\n";
    let old = format!("karpenter.sh/nodepool-hash: \"{}\", karpenter.sh/nodepool-hash-version: v2", hash_of(""));
    let upgraded = pool(edited, NEVER)
        .replace("metadata: {name: default}", "metadata: {name: default, annotations: {karpenter.sh/nodepool-hash-version: v3}}");
    assert_ne!(upgraded, pool(edited, NEVER));
    let docs = [upgraded, node("a", "s-8", "on-demand", "test-zone-a", &old, &drifted_at("2025-03-05T10:00:00Z"), "")];
    let d = consolidate(&docs);
    assert!(verdict(&d, "a").get("drift").is_none(), "{d}");
    assert_eq!(d["decision"], "none");
}

// InstanceTypeNotFound (nodeclaim/disruption/drift.go, instanceTypeNotFound): checked from an
// hour after the NodeClaim's creation on.

#[test]
fn should_detect_stale_instance_type_drift_if_the_instance_type_doesnt_exist() {
    let docs = [pool("", NEVER), node("a", "s-16", "on-demand", "test-zone-a", &hashed(&hash_of("")), "", "")];
    let d = consolidate(&docs);
    assert_eq!(verdict(&d, "a")["drift"]["reason"], "InstanceTypeNotFound", "{d}");
    assert_eq!(d["method"], "drift", "{d}");
}

#[test]
fn should_detect_stale_instance_type_drift_if_the_instance_type_offerings_arent_compatible_with_the_nodeclaim() {
    // s-8 is offered in test-zone-a..c only.
    let docs = [pool("", NEVER), node("a", "s-8", "on-demand", "test-zone-q", &hashed(&hash_of("")), "", "")];
    let d = consolidate(&docs);
    assert_eq!(verdict(&d, "a")["drift"]["reason"], "InstanceTypeNotFound", "{d}");
    // An unavailable offering still counts: the type is there, only not for sale now.
    let unavailable = CATALOG.replace(
        "\"capacityTypes\"",
        "\"unavailable\": [{\"instanceType\": \"s-8\", \"zone\": \"test-zone-a\", \"capacityType\": \"on-demand\"}], \"capacityTypes\"",
    );
    let mut req = request(&[pool("", NEVER), node("a", "s-8", "on-demand", "test-zone-a", &hashed(&hash_of("")), "", "")]);
    req.catalog = Some(serde_json::from_str(&unavailable).expect("catalog"));
    let d: Value = serde_json::from_str(&nodecast::consolidate(&req).to_json()).expect("json");
    assert_eq!(d["status"], "success", "{d}");
    assert!(verdict(&d, "a").get("drift").is_none(), "{d}");
}

#[test]
fn instance_type_drift_is_not_checked_in_the_first_hour() {
    let young = |t: &str| node("a", "s-16", "on-demand", "test-zone-a", &hashed(&hash_of("")), "", "").replace("2025-03-05T08:00:00Z", t);
    let d = consolidate(&[pool("", NEVER), young("2025-03-05T11:00:00Z")]);
    assert!(verdict(&d, "a").get("drift").is_none(), "exactly an hour: {d}");
    let d = consolidate(&[pool("", NEVER), young("2025-03-05T10:59:59Z")]);
    assert_eq!(verdict(&d, "a")["drift"]["reason"], "InstanceTypeNotFound", "{d}");
    // A stale InstanceTypeNotFound condition on a type that exists is cleared.
    let cond = "  - {type: Drifted, status: \"True\", reason: InstanceTypeNotFound, lastTransitionTime: \"2025-03-05T10:00:00Z\"}\n";
    let d = consolidate(&[pool("", NEVER), node("a", "s-8", "on-demand", "test-zone-a", &hashed(&hash_of("")), cond, "")]);
    assert!(verdict(&d, "a").get("drift").is_none(), "{d}");
}

#[test]
fn should_not_return_drifted_if_nodepool_hash_annotation_is_not_present_on_the_nodeclaim() {
    let docs = [pool("      taints: [{key: x, effect: NoSchedule}]\n", NEVER), node("a", "s-8", "on-demand", "test-zone-a", "", "", "")];
    assert!(verdict(&consolidate(&docs), "a").get("drift").is_none());
}

#[test]
fn should_detect_node_requirement_drift() {
    // The pool allows on-demand only; the node is spot.
    let docs = [pool("", NEVER), node("a", "s-8", "spot", "test-zone-a", &hashed(&hash_of("")), "", "")];
    let d = consolidate(&docs);
    assert_eq!(verdict(&d, "a")["drift"]["reason"], "RequirementsDrifted", "{d}");
}

#[test]
fn should_remove_the_status_condition_if_the_nodeclaim_is_no_longer_drifted() {
    // A stale NodePoolDrifted condition that no longer holds is cleared by Karpenter's next check.
    let docs =
        [pool("", NEVER), node("a", "s-8", "on-demand", "test-zone-a", &hashed(&hash_of("")), &drifted_at("2025-03-05T10:00:00Z"), "")];
    let d = consolidate(&docs);
    assert!(verdict(&d, "a").get("drift").is_none(), "{d}");
    assert_eq!(d["decision"], "none");
}

#[test]
fn a_provider_drift_reason_is_taken_from_the_condition() {
    let cond = "  - {type: Drifted, status: \"True\", reason: AMIDrift, lastTransitionTime: \"2025-03-05T10:00:00Z\"}\n";
    let docs = [pool("", NEVER), node("a", "s-8", "on-demand", "test-zone-a", &hashed(&hash_of("")), cond, "")];
    let d = consolidate(&docs);
    assert_eq!(verdict(&d, "a")["drift"]["reason"], "AMIDrift");
    assert_eq!(d["method"], "drift");
}

// --- The Drift method (disruption/drift_test.go) ---

#[test]
fn should_delete_drifted_nodes_when_they_are_empty_and_consolidation_is_disabled() {
    let docs = [pool("", NEVER), node("a", "s-8", "spot", "test-zone-a", "", "", "")];
    let d = consolidate(&docs);
    assert_eq!(d["decision"], "delete", "{d}");
    assert_eq!(d["reason"], "drifted");
    assert_eq!(d["method"], "drift");
    assert_eq!(d["disruptedNodes"], serde_json::json!(["a"]));
}

#[test]
fn should_replace_drifted_nodes() {
    let docs = [pool("", NEVER), node("a", "s-8", "spot", "test-zone-a", "", "", ""), pod("web", "a", "3", "")];
    let d = consolidate(&docs);
    assert_eq!(d["decision"], "replace", "{d}");
    assert_eq!(d["reason"], "drifted");
    assert_eq!(d["replacement"]["capacityType"], "on-demand");
    assert_eq!(d["replacement"]["instanceType"], "s-4");
    assert!(d["command"].as_str().unwrap().ends_with("reason drifted"), "{d}");
}

#[test]
fn can_replace_drifted_nodes_with_multiple_nodes() {
    // Two 3-CPU pods that must not share a node (hostname anti-affinity): two replacements.
    let anti = |name: &str| {
        format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  labels: {{app: spread}}\nspec:\n  nodeName: a\n  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - {{topologyKey: kubernetes.io/hostname, labelSelector: {{matchLabels: {{app: spread}}}}}}\n  containers: [{{name: c, image: x, resources: {{requests: {{cpu: \"3\", memory: 128Mi}}}}}}]\nstatus:\n  phase: Running\n"
        )
    };
    let docs = [pool("", NEVER), node("a", "s-8", "spot", "test-zone-a", "", "", ""), anti("one"), anti("two")];
    let d = consolidate(&docs);
    assert_eq!(d["decision"], "replace", "{d}");
    assert_eq!(d["moreReplacements"].as_array().map(Vec::len), Some(1), "{d}");
    assert!(d["command"].as_str().unwrap().contains("and 1 more node"), "{d}");
}

#[test]
fn should_drift_empty_nodes_before_non_empty_nodes() {
    let docs = [
        pool("", NEVER),
        node("busy", "s-8", "spot", "test-zone-a", "", &drifted_at("2025-03-05T09:00:00Z"), ""),
        node("idle", "s-8", "spot", "test-zone-a", "", &drifted_at("2025-03-05T11:00:00Z"), ""),
        pod("web", "busy", "1", ""),
    ];
    let d = consolidate(&docs);
    assert_eq!(d["disruptedNodes"], serde_json::json!(["idle"]), "{d}");
}

#[test]
fn should_drift_one_non_empty_node_at_a_time_starting_with_the_earliest_drift() {
    let docs = [
        pool("", NEVER),
        node("later", "s-8", "spot", "test-zone-a", "", &drifted_at("2025-03-05T11:00:00Z"), ""),
        node("earlier", "s-8", "spot", "test-zone-a", "", &drifted_at("2025-03-05T09:00:00Z"), ""),
        pod("w1", "later", "1", ""),
        pod("w2", "earlier", "1", ""),
    ];
    let d = consolidate(&docs);
    assert_eq!(d["disruptedNodes"], serde_json::json!(["earlier"]), "{d}");
}

#[test]
fn should_only_consider_nodes_allowed_to_be_disrupted_because_of_budgets() {
    let budgets = "{consolidateAfter: Never, budgets: [{nodes: \"0\", reasons: [Drifted]}]}";
    let docs = [pool("", budgets), node("a", "s-8", "spot", "test-zone-a", "", "", "")];
    let d = consolidate(&docs);
    assert_eq!(d["decision"], "none", "{d}");
    assert_eq!(verdict(&d, "a")["reasons"][0]["code"], "budget");
    assert!(verdict(&d, "a")["reasons"][0]["message"].as_str().unwrap().contains("Drifted"));
}

#[test]
fn should_continue_to_the_next_drifted_node_if_the_first_cannot_reschedule_all_pods() {
    // The pool's CPU limit is used up: no new node. huge's 7-CPU pod fits nowhere else (small
    // is an s-4); small's half-CPU pod fits on huge.
    let limited = pool("", NEVER).replace("spec:\n  disruption", "spec:\n  limits: {cpu: \"8\"}\n  disruption");
    let docs = [
        limited,
        node("huge", "s-8", "spot", "test-zone-a", "", &drifted_at("2025-03-05T09:00:00Z"), ""),
        node("small", "s-4", "spot", "test-zone-a", "", &drifted_at("2025-03-05T10:00:00Z"), ""),
        pod("big", "huge", "7", ""),
        pod("web", "small", "500m", ""),
    ];
    let d = consolidate(&docs);
    assert_eq!(d["disruptedNodes"], serde_json::json!(["small"]), "{d}");
    assert_eq!(verdict(&d, "huge")["reasons"][0]["code"], "pods-do-not-fit", "{d}");
}

#[test]
fn should_ignore_nodes_with_the_do_not_disrupt_annotation_on_pods_unless_the_nodeclaim_has_a_termination_grace_period() {
    let dnd = "karpenter.sh/do-not-disrupt: \"true\"";
    let docs = [pool("", NEVER), node("a", "s-8", "spot", "test-zone-a", "", "", ""), pod("web", "a", "1", dnd)];
    let d = consolidate(&docs);
    assert_eq!(d["decision"], "none", "{d}");
    assert_eq!(verdict(&d, "a")["reasons"][0]["code"], "do-not-disrupt-pod");
    // With a terminationGracePeriod the node is a drift candidate; its protected pod is not
    // moved (it cannot be evicted), so nothing needs a new node.
    let docs =
        [pool("", NEVER), node("a", "s-8", "spot", "test-zone-a", "", "", "  terminationGracePeriod: 5m\n"), pod("web", "a", "1", dnd)];
    let d = consolidate(&docs);
    assert_eq!(d["decision"], "delete", "{d}");
    assert_eq!(d["reason"], "drifted");
}

#[test]
fn emptiness_runs_before_drift() {
    let docs = [pool("", "{consolidateAfter: 0s, budgets: [{nodes: \"100%\"}]}"), node("a", "s-8", "spot", "test-zone-a", "", "", "")];
    let d = consolidate(&docs);
    assert_eq!(d["reason"], "empty", "{d}");
}

#[test]
fn explain_node_says_why_it_drifted() {
    let docs = [pool("", NEVER), node("a", "s-8", "spot", "test-zone-a", "", "", ""), pod("web", "a", "1", "")];
    let mut req = request(&docs);
    req.node = Some("a".into());
    let v: Value = serde_json::from_str(&nodecast::explain(&req).to_json()).expect("json");
    let summary = v["node"]["summary"].as_str().expect("summary").to_string();
    assert!(summary.contains("drifted (RequirementsDrifted) because its label karpenter.sh/capacity-type=spot"), "{summary}");
}

// --- Consolidation differences the disruption suite found (consolidation_test.go) ---

#[test]
fn does_not_consolidate_nodes_with_pods_that_have_a_duration_based_do_not_disrupt_annotation_that_is_still_active() {
    let consolidating = "{consolidateAfter: 0s, budgets: [{nodes: \"100%\"}]}";
    let hold = "karpenter.sh/do-not-disrupt: \"2m\"";
    let pool_od = pool("", consolidating);
    let docs = [pool_od.clone(), node("a", "s-8", "on-demand", "test-zone-a", "", "", ""), pod("web", "a", "1", hold)];
    let d = consolidate(&docs);
    assert_eq!(verdict(&d, "a")["reasons"][0]["code"], "do-not-disrupt-pod", "{d}");
    // started 11:59, "2m": active until 12:01. At 12:03 it has run out.
    let mut req = request(&docs);
    req.now = Some("2025-03-05T12:03:00Z".into());
    let v: Value = serde_json::from_str(&nodecast::consolidate(&req).to_json()).expect("json");
    assert_eq!(v["decision"], "replace", "{v}");
    // A value that is neither "true" nor a duration is ignored, with a warning.
    let docs =
        [pool_od, node("a", "s-8", "on-demand", "test-zone-a", "", "", ""), pod("web", "a", "1", "karpenter.sh/do-not-disrupt: soon")];
    let d = consolidate(&docs);
    assert_eq!(d["decision"], "replace", "{d}");
    assert!(d["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "invalid-do-not-disrupt"), "{d}");
}

#[test]
fn should_fire_an_event_when_a_candidate_does_not_have_the_capacity_type_label() {
    // Karpenter passes the node over (an event), it does not refuse the whole cluster.
    let consolidating = "{consolidateAfter: 0s, budgets: [{nodes: \"100%\"}]}";
    let mut unlabelled = node("a", "s-8", "on-demand", "test-zone-a", "", "", "");
    unlabelled = unlabelled.replace("karpenter.sh/capacity-type: on-demand, ", "");
    // (A pool requiring `capacity-type In [...]` would find the unlabelled node drifted.)
    let lenient = pool("", consolidating).replace("operator: In, values: [on-demand]", "operator: NotIn, values: [spot]");
    let docs = [lenient, unlabelled, pod("web", "a", "1", "")];
    let d = consolidate(&docs);
    assert_eq!(verdict(&d, "a")["reasons"][0]["code"], "missing-label", "{d}");
    assert!(verdict(&d, "a")["reasons"][0]["message"].as_str().unwrap().contains("karpenter.sh/capacity-type"));
}
