//! Property tests for disruption decisions on random clusters:
//! - a node with a do-not-disrupt pod, a do-not-disrupt annotation or a blocking PDB is never
//!   disrupted (no node is expired here, so nothing is forceful);
//! - the number of disrupted nodes never exceeds the pool's budget;
//! - a replacement is always cheaper than what it replaces;
//! - every evicted pod fits in the resulting cluster (checked by planning it again);
//! - the same input gives the same bytes.

use nodecast::Request;
use proptest::prelude::*;
use serde_json::{json, Value};

const TYPES: &[(&str, u32, f64)] = &[("s-2", 2, 0.10), ("s-4", 4, 0.20), ("s-8", 8, 0.40), ("s-16", 16, 0.80)];
const NOW: &str = "2025-03-05T12:00:00Z";

fn catalog() -> Value {
    let types: Vec<Value> = TYPES
        .iter()
        .map(|(n, cpu, price)| json!({"name": n, "allocatable": {"cpu": format!("{}m", cpu * 1000 - 100), "memory": format!("{}Gi", cpu * 4), "pods": "50"}, "onDemandPrice": price}))
        .collect();
    json!({"instanceTypes": types, "capacityTypes": ["on-demand"]})
}

#[derive(Debug, Clone)]
struct NodeSpec {
    ty: usize,
    pods: Vec<u32>,
    dnd_node: bool,
    dnd_pod: bool,
    pdb: bool,
}

fn node_strategy() -> impl Strategy<Value = NodeSpec> {
    (
        0usize..TYPES.len(),
        prop::collection::vec(100u32..1500, 0..4),
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.15),
    )
        .prop_map(|(ty, pods, dnd_node, dnd_pod, pdb)| NodeSpec { ty, pods, dnd_node, dnd_pod, pdb })
}

fn objects(nodes: &[NodeSpec], budget: u32) -> Vec<Value> {
    let mut out = vec![json!({
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
        "spec": {"disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s", "budgets": [{"nodes": budget.to_string()}]},
                 "template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}, "requirements": []}}}
    })];
    for (i, n) in nodes.iter().enumerate() {
        let (ty, cpu, _) = TYPES[n.ty];
        let mut meta = json!({"name": format!("node-{i}"), "creationTimestamp": "2025-03-04T00:00:00Z",
            "labels": {"karpenter.sh/nodepool": "default", "node.kubernetes.io/instance-type": ty, "topology.kubernetes.io/zone": "test-zone-a", "karpenter.sh/capacity-type": "on-demand"}});
        if n.dnd_node {
            meta["annotations"] = json!({"karpenter.sh/do-not-disrupt": "true"});
        }
        out.push(json!({"apiVersion": "v1", "kind": "Node", "metadata": meta,
            "status": {"allocatable": {"cpu": format!("{}m", cpu * 1000 - 100), "memory": format!("{}Gi", cpu * 4), "pods": "50"}}}));
        for (j, milli) in n.pods.iter().enumerate() {
            let app = format!("app-{i}-{j}");
            let mut pmeta = json!({"name": format!("p-{i}-{j}"), "labels": {"app": app}});
            if n.dnd_pod && j == 0 {
                pmeta["annotations"] = json!({"karpenter.sh/do-not-disrupt": "true"});
            }
            out.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": pmeta,
                "spec": {"nodeName": format!("node-{i}"), "containers": [{"name": "c", "resources": {"requests": {"cpu": format!("{milli}m"), "memory": "256Mi"}}}]}}));
            if n.pdb && j == 0 {
                out.push(json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": format!("pdb-{i}")},
                    "spec": {"maxUnavailable": 0, "selector": {"matchLabels": {"app": app}}}}));
            }
        }
    }
    out
}

fn consolidate(objects: Vec<Value>) -> Value {
    let req = Request { objects, catalog: Some(catalog()), now: Some(NOW.into()), ..Default::default() };
    serde_json::from_str(&nodecast::consolidate(&req).to_json()).unwrap()
}

fn plan(objects: Vec<Value>) -> Value {
    let req = Request { objects, catalog: Some(catalog()), ..Default::default() };
    serde_json::from_str(&nodecast::plan(&req).to_json()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    #[test]
    fn disruption_invariants(nodes in prop::collection::vec(node_strategy(), 1..7), budget in 0u32..4) {
        let objs = objects(&nodes, budget);
        let d = consolidate(objs.clone());
        prop_assert_eq!(&d["status"], "success");
        prop_assert_eq!(consolidate(objs.clone()).to_string(), d.to_string());
        let disrupted: Vec<usize> = d["disruptedNodes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()[5..].parse().unwrap()).collect();
        for &i in &disrupted {
            prop_assert!(!nodes[i].dnd_node, "node-{} has do-not-disrupt", i);
            prop_assert!(!nodes[i].dnd_pod || nodes[i].pods.is_empty(), "node-{} runs a do-not-disrupt pod", i);
            prop_assert!(!nodes[i].pdb || nodes[i].pods.is_empty(), "node-{} runs a pod with a blocking PDB", i);
        }
        prop_assert!(disrupted.len() <= budget as usize, "{} disrupted with budget {}", disrupted.len(), budget);
        if let Some(r) = d.get("replacement") {
            let removed: f64 = disrupted.iter().map(|&i| TYPES[nodes[i].ty].2).sum();
            prop_assert!(r["pricePerHour"].as_f64().unwrap() < removed);
        }
        if disrupted.is_empty() {
            return Ok(());
        }
        // The resulting cluster: drop disrupted nodes, add the replacement as a node, and make
        // the evicted pods pending. Planning it must place every pod without a new node.
        let mut after: Vec<Value> = Vec::new();
        for o in objs {
            let name = o["metadata"]["name"].as_str().unwrap_or("").to_string();
            match o["kind"].as_str() {
                Some("Node") if disrupted.iter().any(|i| name == format!("node-{i}")) => {}
                Some("Pod") => {
                    let mut o = o.clone();
                    let node = o["spec"]["nodeName"].as_str().unwrap_or("").to_string();
                    if disrupted.iter().any(|i| node == format!("node-{i}")) {
                        o["spec"].as_object_mut().unwrap().remove("nodeName");
                    }
                    after.push(o);
                }
                _ => after.push(o),
            }
        }
        if let Some(r) = d.get("replacement") {
            let ty = r["instanceType"].as_str().unwrap();
            let (_, cpu, _) = TYPES.iter().find(|t| t.0 == ty).unwrap();
            after.push(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "replacement",
                "labels": {"karpenter.sh/nodepool": "default", "node.kubernetes.io/instance-type": ty, "topology.kubernetes.io/zone": r["zone"], "karpenter.sh/capacity-type": r["capacityType"]}},
                "status": {"allocatable": {"cpu": format!("{}m", cpu * 1000 - 100), "memory": format!("{}Gi", cpu * 4), "pods": "50"}}}));
        }
        let p = plan(after);
        prop_assert_eq!(&p["status"], "success");
        prop_assert_eq!(p["nodeClaims"].as_array().unwrap().len(), 0, "evicted pods needed new nodes: {}", p);
        prop_assert_eq!(p["unschedulable"].as_array().unwrap().len(), 0, "evicted pods do not fit: {}", p);
    }
}

/// `decide_action` (the simulator's pass) passes over provably hopeless single-node candidates
/// and builds no verdicts but budget blocks: its action and budget blocks must be `decide`'s.
fn decide_action_matches_decide(nodes: &[NodeSpec], budget: u32) -> Result<(), TestCaseError> {
    let req = Request { objects: objects(nodes, budget), catalog: Some(catalog()), now: Some(NOW.into()), ..Default::default() };
    let (m, _) = nodecast::internal::load::model(&req.sources()).unwrap();
    let now = nodecast::internal::disruption::parse_now(Some(NOW)).unwrap();
    let full = nodecast::internal::disruption::decide(&m, now);
    let mut memo = nodecast::internal::scheduling::BaselineMemo::default();
    let action = nodecast::internal::disruption::decide_action(&m, now, &mut memo);
    prop_assert_eq!(&nodecast::internal::disruption::decide_action(&m, now, &mut memo), &action);
    prop_assert_eq!(&action.decision, &full.decision);
    prop_assert_eq!(&action.reason, &full.reason);
    prop_assert_eq!(&action.method, &full.method);
    prop_assert_eq!(&action.disrupted_nodes, &full.disrupted_nodes);
    prop_assert_eq!(&action.replacement, &full.replacement);
    prop_assert_eq!(&action.command, &full.command);
    let budget_held = |d: &nodecast::api::Decision| -> Vec<(String, Vec<String>)> {
        d.nodes
            .iter()
            .map(|v| {
                (
                    v.name.clone(),
                    v.reasons
                        .iter()
                        .filter(|r| r.code == nodecast::reason::ReasonCode::Budget)
                        .map(|r| r.message.clone())
                        .collect::<Vec<_>>(),
                )
            })
            .filter(|(_, r)| !r.is_empty())
            .collect()
    };
    prop_assert_eq!(budget_held(&action), budget_held(&full));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    #[test]
    fn decide_action_acts_like_decide(nodes in prop::collection::vec(node_strategy(), 1..9), budget in 0u32..4) {
        decide_action_matches_decide(&nodes, budget)?;
    }
}

/// Found by the property above in CI (1 in ≈ 350 cases): multi-node's budget cut marked node-0
/// held back, then single-node deleted it. `decide` shows no verdict on a disrupted node;
/// `decide_action` listed the budget block, so the simulator would have seen a held node.
#[test]
fn a_node_the_command_takes_is_not_listed_as_held_by_the_budget() {
    let node = |ty, pods: &[u32]| NodeSpec { ty, pods: pods.to_vec(), dnd_node: false, dnd_pod: false, pdb: false };
    decide_action_matches_decide(&[node(0, &[1028]), node(1, &[1028, 873])], 1).unwrap();
}
