//! Static NodePools under the StaticCapacity gate, off (Karpenter's default) and on.

use super::*;
use crate::json::{Input, Request};

const CATALOG: &str = r#"{"instanceTypes": [
  {"name": "s-2", "allocatable": {"cpu": "1900m", "memory": "3500Mi", "pods": "20"}, "onDemandPrice": 0.10},
  {"name": "s-4", "allocatable": {"cpu": "3900m", "memory": "7300Mi", "pods": "40"}, "onDemandPrice": 0.20},
  {"name": "s-8", "allocatable": {"cpu": "7900m", "memory": "15000Mi", "pods": "80"}, "onDemandPrice": 0.40}],
  "capacityTypes": ["on-demand"]}"#;

/// A NodePool; `spec_extra` goes under `spec` (e.g. `replicas: 2`).
fn pool(name: &str, spec_extra: &str, requirements: &str) -> String {
    format!(
        "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: {name}}}\nspec:\n{spec_extra}  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n      requirements: {requirements}\n"
    )
}

fn node(name: &str, pool: &str, deleting: bool) -> String {
    let del = if deleting { "\n  deletionTimestamp: \"2025-03-05T11:00:00Z\"\n  finalizers: [karpenter.sh/termination]" } else { "" };
    format!(
        "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  creationTimestamp: \"2025-03-05T08:00:00Z\"{del}\n  labels: {{karpenter.sh/nodepool: {pool}, karpenter.sh/capacity-type: on-demand, node.kubernetes.io/instance-type: s-2, topology.kubernetes.io/zone: test-zone-a}}\nstatus:\n  allocatable: {{cpu: 1900m, memory: 3500Mi, pods: \"20\"}}\n"
    )
}

fn pod(name: &str, cpu: &str) -> String {
    format!(
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  containers: [{{name: c, image: x, resources: {{requests: {{cpu: \"{cpu}\", memory: 128Mi}}}}}}]\n"
    )
}

fn request(docs: &[String], gate: bool) -> Request {
    let mut req = Request {
        inputs: vec![Input { name: Some("t.yaml".into()), text: docs.concat() }],
        catalog: Some(serde_json::from_str(CATALOG).expect("catalog")),
        ..Default::default()
    };
    req.settings.feature_gates.static_capacity = gate;
    req
}

fn plan(docs: &[String], gate: bool) -> crate::api::Plan {
    match crate::json::plan(&request(docs, gate)).outcome {
        crate::json::Outcome::Success(p) => p,
        crate::json::Outcome::Failure { errors } => panic!("plan failed: {errors:?}"),
    }
}

#[test]
fn replicas_are_counted_against_active_nodes_and_the_node_limit() {
    assert_eq!(to_launch(3, 0, 0, None), 3);
    assert_eq!(to_launch(3, 1, 0, None), 2);
    assert_eq!(to_launch(3, 3, 0, None), 0);
    // More nodes than replicas: scale-down is the deprovisioning controller's, never negative here.
    assert_eq!(to_launch(1, 4, 0, None), 0);
    // limits.nodes caps active + deleting + the new ones (ReserveNodeCount).
    assert_eq!(to_launch(5, 1, 0, Some(3)), 2);
    assert_eq!(to_launch(5, 1, 1, Some(3)), 1);
    assert_eq!(to_launch(5, 1, 3, Some(3)), 0);
    assert_eq!(to_launch(0, 0, 0, Some(0)), 0);
    // limits.nodes is read as Quantity.Value(): rounded up.
    assert_eq!(node_limit(&[(LimitKey::Nodes, 2500)]), Some(3));
    assert_eq!(node_limit(&[(LimitKey::Nodes, 2000)]), Some(2));
    assert_eq!(node_limit(&[]), None);
}

#[test]
fn gate_off_launches_nothing_and_says_the_gate_decides() {
    let docs = [pool("fixed", "  replicas: 2\n", "[]"), pod("web", "500m")];
    let p = plan(&docs, false);
    assert!(p.static_node_claims.is_empty());
    // Dynamic provisioning never uses a static pool: the pod stays pending.
    assert_eq!(p.unschedulable.len(), 1);
    let w = p.warnings.iter().find(|w| w.code == "static-capacity-gate-off").expect("gate warning");
    assert_eq!(w.object.as_deref(), Some("NodePool/fixed"));
    assert!(w.message.contains("StaticCapacity=true"), "{}", w.message);
    // Nor does the gate-off Karpenter scale a pool down: the message says so too.
    assert!(w.message.contains("nor deletes its NodeClaims above them"), "{}", w.message);
}

#[test]
fn gate_on_keeps_replicas_and_pending_pods_land_on_them() {
    let docs = [pool("fixed", "  replicas: 2\n", "[]"), pool("dyn", "", "[]"), pod("web", "500m")];
    let p = plan(&docs, true);
    assert_eq!(p.static_node_claims.len(), 2);
    for c in &p.static_node_claims {
        assert_eq!(c.node_pool, "fixed");
        // No pod requests to fit: the cheapest type the pool allows.
        assert_eq!(c.instance_type.as_deref(), Some("s-2"));
        assert_eq!(c.price_per_hour, Some(0.10));
    }
    assert_eq!(p.static_node_claims[0].name, "fixed-1");
    assert_eq!(p.static_node_claims[1].name, "fixed-2");
    // The pod goes on the in-flight static capacity, not on a new dynamic NodeClaim.
    assert!(p.node_claims.is_empty(), "{:?}", p.node_claims);
    let placed: Vec<&String> = p.static_node_claims.iter().flat_map(|c| &c.pods).collect();
    assert_eq!(placed.len(), 1);
    assert!(p.existing_nodes.is_empty());
    assert!(p.summary.contains("2 NodeClaims kept by static NodePools: $0.20/h for 1 pod"), "{}", p.summary);
    assert!(!p.warnings.iter().any(|w| w.code == "static-capacity-gate-off"));
}

#[test]
fn existing_nodes_count_and_names_skip_them() {
    let docs = [pool("fixed", "  replicas: 3\n", "[]"), node("fixed-1", "fixed", false), node("fixed-9", "fixed", true)];
    let p = plan(&docs, true);
    // fixed-1 is active, fixed-9 deleting: 3 − 1 = 2 new ones, named past fixed-1.
    let names: Vec<&str> = p.static_node_claims.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["fixed-2", "fixed-3"]);
}

#[test]
fn node_limit_caps_the_launches_with_a_warning() {
    let docs = [pool("fixed", "  replicas: 5\n  limits: {nodes: \"3\"}\n", "[]"), node("a", "fixed", false), node("b", "fixed", true)];
    let p = plan(&docs, true);
    assert_eq!(p.static_node_claims.len(), 1);
    let w = p.warnings.iter().find(|w| w.code == "static-node-limit").expect("limit warning");
    assert!(w.message.contains("limits.nodes 3"), "{}", w.message);
}

#[test]
fn requirements_pick_the_type_and_no_type_is_a_warning() {
    let pick = [pool("fixed", "  replicas: 1\n", "[{key: node.kubernetes.io/instance-type, operator: In, values: [s-8]}]")];
    let p = plan(&pick, true);
    assert_eq!(p.static_node_claims[0].instance_type.as_deref(), Some("s-8"));
    let none = [pool("fixed", "  replicas: 1\n", "[{key: node.kubernetes.io/instance-type, operator: In, values: [s-16]}]")];
    let p = plan(&none, true);
    assert_eq!(p.static_node_claims.len(), 1);
    assert_eq!(p.static_node_claims[0].instance_type, None);
    assert!(p.warnings.iter().any(|w| w.code == "static-no-instance-type"));
}

#[test]
fn too_many_replicas_is_a_located_error_only_with_the_gate_on() {
    let docs = [pool("fixed", "  replicas: 1000000000\n", "[]")];
    assert!(plan(&docs, false).static_node_claims.is_empty());
    match crate::json::plan(&request(&docs, true)).outcome {
        crate::json::Outcome::Failure { errors } => {
            assert_eq!(errors[0].code, "too-many-nodes");
            assert_eq!(errors[0].path.as_deref(), Some("spec.replicas"));
            assert_eq!(errors[0].object.as_deref(), Some("NodePool/fixed"));
        }
        crate::json::Outcome::Success(_) => panic!("a billion static nodes must be refused"),
    }
}

#[test]
fn static_nodes_are_not_consolidated() {
    // An empty static NodeClaim is never an emptiness or consolidation candidate (gate on or
    // off: Karpenter's ShouldDisrupt checks the pool, not the gate).
    let docs = [pool("fixed", "  replicas: 1\n", "[]"), node("fixed-1", "fixed", false)];
    let mut req = request(&docs, true);
    req.now = Some("2025-03-05T12:00:00Z".into());
    match crate::json::consolidate(&req).outcome {
        crate::json::Outcome::Success(d) => {
            let text = serde_json::to_string(&d).expect("json");
            assert!(!text.contains("\"delete\""), "{text}");
            assert!(text.contains("is static"), "{text}");
        }
        crate::json::Outcome::Failure { errors } => panic!("{errors:?}"),
    }
}

/// A pod bound to `node`, with extra metadata lines (e.g. annotations).
fn bound(name: &str, node: &str, meta: &str) -> String {
    format!(
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n{meta}spec:\n  nodeName: {node}\n  containers: [{{name: c, image: x, resources: {{requests: {{cpu: 500m, memory: 128Mi}}}}}}]\nstatus: {{phase: Running, startTime: \"2025-03-05T09:00:00Z\"}}\n"
    )
}

fn plan_at(docs: &[String], gate: bool) -> crate::api::Plan {
    let mut req = request(docs, gate);
    req.now = Some("2025-03-05T12:00:00Z".into());
    match crate::json::plan(&req).outcome {
        crate::json::Outcome::Success(p) => p,
        crate::json::Outcome::Failure { errors } => panic!("plan failed: {errors:?}"),
    }
}

#[test]
fn with_only_static_pools_karpenter_runs_no_pass() {
    // provisioner.go: no dynamic NodePool, ErrNodePoolsNotFound, every pod marked "no dynamic
    // nodepools found" and no results, the static NodeClaims' room notwithstanding.
    let docs = [pool("fixed", "  replicas: 2\n", "[]"), pod("web", "500m"), pod("big", "6")];
    let p = plan(&docs, true);
    assert_eq!(p.static_node_claims.len(), 2);
    assert!(p.static_node_claims.iter().all(|c| c.pods.is_empty()), "{:?}", p.static_node_claims);
    assert!(p.existing_nodes.is_empty() && p.node_claims.is_empty());
    assert_eq!(p.unschedulable.len(), 2);
    for u in &p.unschedulable {
        assert_eq!(u.code, crate::reason::ReasonCode::NoNodepools);
        assert!(u.reasons[0].message.starts_with("no dynamic nodepools found"), "{}", u.reasons[0].message);
        assert!(u.reasons[0].message.contains("static (spec.replicas): fixed"), "{}", u.reasons[0].message);
    }
    // The kube-scheduler may still bind the small pod to a static NodeClaim; the big one fits none.
    let web = p.unschedulable.iter().find(|u| u.pod == "default/web").expect("web");
    assert!(web.reasons[0].message.contains("bind it to the static NodeClaim fixed-1"), "{}", web.reasons[0].message);
    let big = p.unschedulable.iter().find(|u| u.pod == "default/big").expect("big");
    assert!(!big.reasons[0].message.contains("bind it"), "{}", big.reasons[0].message);
    // With a dynamic pool beside it the pass runs and the pod lands on the static capacity.
    let docs = [pool("fixed", "  replicas: 2\n", "[]"), pool("dyn", "", "[]"), pod("web", "500m")];
    assert_eq!(plan(&docs, true).static_node_claims.iter().map(|c| c.pods.len()).sum::<usize>(), 1);
}

#[test]
fn scale_down_takes_unlaunched_then_empty_then_cheapest() {
    let unlaunched = "---\napiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata:\n  name: fixed-u\n  labels: {karpenter.sh/nodepool: fixed}\nspec:\n  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n  requirements: []\n".to_string();
    let nodes = [
        node("fixed-a", "fixed", false),
        node("fixed-b", "fixed", false),
        node("fixed-c", "fixed", false),
        node("fixed-d", "fixed", false),
    ];
    let pods = [
        // fixed-a: empty. fixed-b: two pods, fixed-c: one, fixed-d: one with do-not-disrupt.
        bound("b1", "fixed-b", ""),
        bound("b2", "fixed-b", ""),
        bound("c1", "fixed-c", ""),
        bound("d1", "fixed-d", "  annotations: {karpenter.sh/do-not-disrupt: \"true\"}\n"),
    ];
    let mut docs = vec![pool("fixed", "  replicas: 2\n", "[]"), pool("dyn", "", "[]"), unlaunched];
    docs.extend(nodes.iter().cloned());
    docs.extend(pods.iter().cloned());
    let p = plan_at(&docs, true);
    // 5 running for 2 replicas: fixed-u (not launched), fixed-a (empty), fixed-c (cost 1 < 2).
    let got: Vec<(&str, &str)> = p.static_deprovisioned.iter().map(|d| (d.name.as_str(), d.why.as_str())).collect();
    assert_eq!(got, [("fixed-u", "not launched yet"), ("fixed-a", "empty"), ("fixed-c", "lowest disruption cost")]);
    assert!(p.static_deprovisioned.iter().all(|d| d.tied_with.is_empty()), "{:?}", p.static_deprovisioned);
    // fixed-c's pod is pending again: the pass puts it on a static node that stays.
    assert_eq!(p.static_deprovisioned[2].pods, ["default/c1"]);
    let on: Vec<&str> = p.existing_nodes.iter().filter(|n| n.pods.contains(&"default/c1".to_string())).map(|n| n.name.as_str()).collect();
    assert!(on == ["fixed-b"] || on == ["fixed-d"], "{:?}", p.existing_nodes);
    assert!(p.summary.contains("3 NodeClaims deleted by static scale-down"), "{}", p.summary);
    // Gate off: the static controllers do not run.
    assert!(plan_at(&docs, false).static_deprovisioned.is_empty());
    // At or below the replicas nothing is deleted.
    let mut docs = vec![pool("fixed", "  replicas: 4\n", "[]")];
    docs.extend(nodes.iter().cloned());
    assert!(plan_at(&docs, true).static_deprovisioned.is_empty());
}

#[test]
fn scale_down_among_equals_discloses_the_tie() {
    let mut docs = vec![pool("fixed", "  replicas: 1\n", "[]")];
    docs.extend([node("fixed-a", "fixed", false), node("fixed-b", "fixed", false), node("fixed-c", "fixed", false)]);
    docs.extend([bound("a1", "fixed-a", ""), bound("b1", "fixed-b", ""), bound("c1", "fixed-c", ""), bound("c2", "fixed-c", "")]);
    let p = plan_at(&docs, true);
    // fixed-a and fixed-b cost the same (one pod each) and both go; fixed-c (two pods) stays.
    let names: Vec<&str> = p.static_deprovisioned.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["fixed-a", "fixed-b"]);
    assert!(p.static_deprovisioned.iter().all(|d| d.tied_with.is_empty()));
    // Replicas 2: one of the two equal nodes goes, Karpenter's pick among them is open.
    docs[0] = pool("fixed", "  replicas: 2\n", "[]");
    let p = plan_at(&docs, true);
    assert_eq!(p.static_deprovisioned.len(), 1);
    assert_eq!(p.static_deprovisioned[0].name, "fixed-a");
    assert_eq!(p.static_deprovisioned[0].tied_with, ["fixed-b"]);
}

/// A registered, initialized static node with its NodeClaim, drifted (a provider drift taken as given).
fn drifted_node(name: &str, pool: &str) -> String {
    format!(
        "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  creationTimestamp: \"2025-03-05T08:00:00Z\"\n  labels: {{karpenter.sh/nodepool: {pool}, karpenter.sh/initialized: \"true\", karpenter.sh/registered: \"true\", karpenter.sh/capacity-type: on-demand, node.kubernetes.io/instance-type: s-2, topology.kubernetes.io/zone: test-zone-a}}\nspec: {{providerID: \"fake://{name}\"}}\nstatus:\n  allocatable: {{cpu: 1900m, memory: 3500Mi, pods: \"20\"}}\n---\napiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata:\n  name: {name}\n  creationTimestamp: \"2025-03-05T08:00:00Z\"\n  labels: {{karpenter.sh/nodepool: {pool}}}\nspec:\n  nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n  requirements: []\nstatus:\n  nodeName: {name}\n  providerID: \"fake://{name}\"\n  conditions:\n  - {{type: Initialized, status: \"True\", lastTransitionTime: \"2025-03-05T08:05:00Z\"}}\n  - {{type: Drifted, status: \"True\", reason: AMIDrift, lastTransitionTime: \"2025-03-05T10:00:00Z\"}}\n"
    )
}

fn consolidate(docs: &[String], gates: &str) -> crate::api::Decision {
    let mut req = request(docs, true);
    req.settings.feature_gates.apply(gates).expect("gates");
    req.now = Some("2025-03-05T12:00:00Z".into());
    match crate::json::consolidate(&req).outcome {
        crate::json::Outcome::Success(d) => d,
        crate::json::Outcome::Failure { errors } => panic!("{errors:?}"),
    }
}

#[test]
fn static_drift_replaces_drifted_static_nodes_with_the_template() {
    // StaticDrift (staticdrift.go): budget 100 % lets both go, each replaced by the bare template.
    let budgets = "  disruption: {budgets: [{nodes: \"100%\"}]}\n";
    let docs =
        [pool("fixed", &format!("  replicas: 2\n{budgets}"), "[]"), drifted_node("fixed-a", "fixed"), drifted_node("fixed-b", "fixed")];
    let d = consolidate(&docs, "");
    assert_eq!(d.decision, crate::api::Action::Replace);
    assert_eq!(d.reason, Some(crate::reason::DisruptionReason::Drifted));
    assert_eq!(d.disrupted_nodes, ["fixed-a", "fixed-b"]);
    assert_eq!(d.replacement.as_ref().and_then(|r| r.instance_type.as_deref()), Some("s-2"));
    assert_eq!(d.more_replacements.len(), 1);
    assert!(d.replacement.as_ref().is_some_and(|r| r.pods.is_empty()));
    assert!(d.ties.is_empty());
    // The default budget (10 % of 2, rounded up: 1) takes one; which one is Karpenter's map order.
    let docs = [pool("fixed", "  replicas: 2\n", "[]"), drifted_node("fixed-a", "fixed"), drifted_node("fixed-b", "fixed")];
    let d = consolidate(&docs, "");
    assert_eq!(d.disrupted_nodes, ["fixed-a"]);
    assert_eq!(d.ties.len(), 1);
    assert_eq!(d.ties[0].nodes, ["fixed-a", "fixed-b"]);
}

#[test]
fn static_drift_at_the_node_limit_waits_or_terminates_first() {
    let spec = "  replicas: 2\n  limits: {nodes: \"2\"}\n  disruption: {budgets: [{nodes: \"100%\"}]}\n";
    let docs = [pool("fixed", spec, "[]"), drifted_node("fixed-a", "fixed"), drifted_node("fixed-b", "fixed")];
    // No room for a replacement: blocked, with Karpenter's words.
    let d = consolidate(&docs, "");
    assert_eq!(d.decision, crate::api::Action::None);
    let a = d.nodes.iter().find(|n| n.name == "fixed-a").expect("fixed-a");
    assert!(a.reasons[0].message.contains("at its node limit"), "{:?}", a.reasons);
    // TerminateFirstDrift: deleted first, the static controller refills the pool.
    let d = consolidate(&docs, "TerminateFirstDrift=true");
    assert_eq!(d.decision, crate::api::Action::Delete);
    assert_eq!(d.disrupted_nodes, ["fixed-a", "fixed-b"]);
    assert_eq!(d.terminate_first, Some(crate::api::TerminateFirst::StaticAtLimit));
    // Above its replicas the pool waits for its scale-down.
    let docs = [
        pool("fixed", "  replicas: 1\n  disruption: {budgets: [{nodes: \"100%\"}]}\n", "[]"),
        drifted_node("fixed-a", "fixed"),
        drifted_node("fixed-b", "fixed"),
    ];
    let d = consolidate(&docs, "");
    assert_eq!(d.decision, crate::api::Action::None);
    assert!(d.nodes[0].reasons[0].message.contains("scale-down comes first"), "{:?}", d.nodes[0].reasons);
}
