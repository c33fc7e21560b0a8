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
