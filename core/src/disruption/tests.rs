//! Disruption decisions on small clusters, checked against what Karpenter v1.15.0 decides
//! (pending pods in the simulation, Balanced scoring and totals, ties).

use super::*;
use crate::json::{Input, Request};

const CATALOG: &str = r#"{"instanceTypes": [
  {"name": "s-2", "allocatable": {"cpu": "1900m", "memory": "3500Mi", "pods": "20"}, "onDemandPrice": 0.10},
  {"name": "s-4", "allocatable": {"cpu": "3900m", "memory": "7300Mi", "pods": "40"}, "onDemandPrice": 0.20},
  {"name": "s-8", "allocatable": {"cpu": "7900m", "memory": "15000Mi", "pods": "80"}, "onDemandPrice": 0.40}],
  "capacityTypes": ["on-demand"]}"#;
const NOW: &str = "2025-03-05T12:00:00Z";

fn pool(name: &str, policy: &str) -> String {
    format!(
        "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: {name}}}\nspec:\n  disruption: {{consolidationPolicy: {policy}, consolidateAfter: 0s, budgets: [{{nodes: \"100%\"}}]}}\n  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n      requirements: []\n"
    )
}

fn node(name: &str, pool: &str, ty: &str, dnd: bool) -> String {
    let (cpu, mem) = match ty {
        "s-2" => ("1900m", "3500Mi"),
        "s-4" => ("3900m", "7300Mi"),
        _ => ("7900m", "15000Mi"),
    };
    let ann = if dnd { "\n  annotations: {karpenter.sh/do-not-disrupt: \"true\"}" } else { "" };
    format!(
        "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  creationTimestamp: \"2025-03-05T08:00:00Z\"{ann}\n  labels: {{karpenter.sh/nodepool: {pool}, karpenter.sh/capacity-type: on-demand, node.kubernetes.io/instance-type: {ty}, topology.kubernetes.io/zone: test-zone-a}}\nstatus:\n  allocatable: {{cpu: {cpu}, memory: {mem}, pods: \"40\"}}\n"
    )
}

fn pod(name: &str, cpu: &str, node: Option<&str>, extra: &str) -> String {
    let nn = node.map(|n| format!("\n  nodeName: {n}")).unwrap_or_default();
    format!(
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}{extra}\nspec:{nn}\n  containers: [{{name: c, image: x, resources: {{requests: {{cpu: \"{cpu}\", memory: 128Mi}}}}}}]\n"
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

fn decide_docs(docs: &[String]) -> (Model, Decision) {
    let (m, _) = crate::load::model(&request(docs).sources()).expect("model");
    let now = parse_now(Some(NOW)).expect("now");
    let d = decide(&m, now);
    (m, d)
}

#[test]
fn a_claim_of_only_pending_pods_is_the_replacement() {
    // a's pod fits on b; the pending 3-CPU pod fits nowhere and opens the only new NodeClaim,
    // which is cheaper than a (s-4 < s-8): Karpenter replaces a, it does not delete it.
    let docs = [
        pool("p", "WhenEmptyOrUnderutilized"),
        node("a", "p", "s-8", false),
        node("b", "p", "s-8", true),
        pod("x", "1", Some("a"), ""),
        pod("w", "6", Some("b"), ""),
        pod("pending", "3", None, ""),
    ];
    let (_, d) = decide_docs(&docs);
    assert_eq!(d.decision, "replace", "{}", d.command);
    let r = d.replacement.expect("replacement");
    assert_eq!(r.instance_type.as_deref(), Some("s-4"));
    assert_eq!(r.pods, vec!["default/pending".to_string()]);
}

#[test]
fn two_new_claims_refuse_the_move() {
    // The pending pod (7 CPU) and a's pod (5 CPU) cannot share an s-8: two NodeClaims.
    let docs = [
        pool("p", "WhenEmptyOrUnderutilized"),
        node("a", "p", "s-8", false),
        node("b", "p", "s-8", true),
        pod("x", "5", Some("a"), ""),
        pod("w", "6", Some("b"), ""),
        pod("pending", "7", None, ""),
    ];
    let (_, d) = decide_docs(&docs);
    assert_eq!(d.decision, "none", "{}", d.command);
    let a = d.nodes.iter().find(|n| n.name == "a").expect("a");
    assert_eq!(a.reasons[0].code, ReasonCode::PodsDoNotFit);
    assert!(a.reasons[0].message.contains("2 nodes"), "{}", a.reasons[0].message);
    assert!(a.reasons[0].message.contains("pending"), "{}", a.reasons[0].message);
}

#[test]
fn balanced_totals_count_every_node_of_the_pool() {
    // a: candidate, 2 pods (rdc 3); b: do-not-disrupt (not a candidate), 1 pod with a mirror-like
    // extra cost: its state cost counts; c: another pool.
    let docs = [
        pool("p", "Balanced"),
        pool("q", "WhenEmptyOrUnderutilized"),
        node("a", "p", "s-4", false),
        node("b", "p", "s-8", true),
        node("c", "q", "s-2", false),
        pod("a1", "100m", Some("a"), ""),
        pod("a2", "100m", Some("a"), "\n  annotations: {karpenter.sh/disruption-cost: \"134217728\"}"),
        pod("b1", "100m", Some("b"), ""),
        pod("c1", "100m", Some("c"), ""),
    ];
    let (m, _) = crate::load::model(&request(&docs).sources()).expect("model");
    let infos = node_infos(&m, parse_now(Some(NOW)).expect("now"), Say(false));
    let t = balanced::totals(&m, &infos);
    let p = m.node_pools.iter().position(|x| x.name == "p").expect("p");
    assert!((t[p].cost - 0.60).abs() < 1e-9);
    // a: 1 + 1 + 2 (the annotated pod costs 2); b: 1 + 1.
    assert!((t[p].disruption - 6.0).abs() < 1e-9, "{:?}", t[p]);
    let a = infos.iter().find(|i| m.nodes[i.node].name == "a").expect("a");
    assert!(a.candidate && (a.rdc - 4.0).abs() < 1e-9);
    assert!((a.savings_ratio() - 0.05).abs() < 1e-9);
}

#[test]
fn balanced_splits_savings_across_pools_by_price_share() {
    let docs = [
        pool("p", "Balanced"),
        pool("q", "Balanced"),
        node("a", "p", "s-4", false),
        node("b", "q", "s-8", false),
        pod("a1", "100m", Some("a"), ""),
        pod("b1", "100m", Some("b"), ""),
    ];
    let (m, _) = crate::load::model(&request(&docs).sources()).expect("model");
    let infos = node_infos(&m, parse_now(Some(NOW)).expect("now"), Say(false));
    let t = balanced::totals(&m, &infos);
    // Deleting both saves $0.60: pool p gets 1/3 of it ($0.20), pool q 2/3 ($0.40).
    let (ok, scores) = balanced::evaluate(&m, &infos, &t, &[0, 1], 0.60);
    assert!(ok);
    assert_eq!(scores.len(), 2);
    assert!((scores[0].1.savings - 0.20).abs() < 1e-9 && (scores[1].1.savings - 0.40).abs() < 1e-9);
    // Each pool: all its cost for all its disruption.
    assert!(scores.iter().all(|(_, s)| (s.value() - 1.0).abs() < 1e-9));
    // A replacement that costs almost as much fails both.
    let (ok, _) = balanced::evaluate(&m, &infos, &t, &[0, 1], 0.1);
    assert!(!ok);
}

#[test]
fn non_balanced_pools_are_never_scored() {
    let docs = [pool("p", "WhenEmptyOrUnderutilized"), node("a", "p", "s-4", false), pod("a1", "100m", Some("a"), "")];
    let (m, _) = crate::load::model(&request(&docs).sources()).expect("model");
    let infos = node_infos(&m, parse_now(Some(NOW)).expect("now"), Say(false));
    let t = balanced::totals(&m, &infos);
    assert!(balanced::cannot_pass(&m, &infos[0], &t).is_none());
    let (ok, scores) = balanced::evaluate(&m, &infos, &t, &[0], 0.0);
    assert!(ok && scores.is_empty());
}

#[test]
fn pods_costing_nothing_to_evict_leave_a_node_empty() {
    // Karpenter's IsEmpty reads eviction costs: a pod whose cost clamps to ≤ 0 does not count.
    let docs = [
        pool("p", "WhenEmptyOrUnderutilized"),
        node("a", "p", "s-4", false),
        pod("cheap", "100m", Some("a"), "\n  annotations: {karpenter.sh/disruption-cost: \"-2147483647\"}"),
    ];
    let (_, d) = decide_docs(&docs);
    assert_eq!(d.method, Some(Method::Emptiness), "{}", d.command);
}

#[test]
fn tie_groups_follow_budgets_and_ranks() {
    // Three equal empty nodes, budget 100 %: all deleted, nothing to disclose.
    let docs =
        [pool("p", "WhenEmptyOrUnderutilized"), node("a", "p", "s-4", false), node("b", "p", "s-4", false), node("c", "p", "s-4", false)];
    let (_, d) = decide_docs(&docs);
    assert_eq!(d.disrupted_nodes.len(), 3);
    assert!(d.ties.is_empty());
    // One cheaper node among them ranks apart: budget 1 takes one of the two s-4s.
    let mut docs: Vec<String> = docs.to_vec();
    docs[0] = docs[0].replace("100%", "1");
    docs[3] = node("c", "p", "s-2", false);
    let (_, d) = decide_docs(&docs);
    assert_eq!(d.ties.len(), 1);
    assert_eq!(d.ties[0].nodes, vec!["a".to_string(), "b".to_string()]);
    assert_eq!(d.ties[0].count, 1);
    assert!(d.ties[0].message.starts_with("Karpenter may pick any of: a, b"));
}

/// Issue 29: the simulator's pass asked, for every pod of every candidate, whether any other
/// existing node could take it, scanning every node each time (candidates × pods × nodes, a
/// fifth of a simulated week). Which nodes could is a property of the pod's spec for the whole
/// pass, so it is now listed once per spec. 60 full s-8 nodes of two 3-CPU replicas each (one
/// spec): no node has room for another's pod and none is cheaper, so every candidate is
/// provably hopeless; the pass examines each node once (it was 60 × 2 × 60 = 7,200 times) and
/// decides as `decide` does.
#[test]
fn hopeless_candidates_list_the_homes_of_a_spec_once_per_pass() {
    let n = 60;
    let mut docs = vec![pool("p", "WhenEmptyOrUnderutilized")];
    for i in 0..n {
        docs.push(node(&format!("n{i}"), "p", "s-8", false));
        for k in 0..2 {
            docs.push(pod(&format!("w{i}-{k}"), "3", Some(&format!("n{i}")), ""));
        }
    }
    let (mut m, _) = crate::load::model(&request(&docs).sources()).expect("model");
    // Replicas of one workload share one spec, as the simulator's pods of one template do.
    let spec = std::sync::Arc::new(crate::model::pod::PodSpec::clone(&m.pods[0]));
    for p in &mut m.pods {
        p.set_spec(std::sync::Arc::clone(&spec));
    }
    let now = parse_now(Some(NOW)).expect("now");
    consolidation::HOME_TRIES.with(|t| t.set(0));
    let action = decide_action(&m, now, &mut crate::scheduling::BaselineMemo::default());
    let tries = consolidation::HOME_TRIES.with(|t| t.get());
    assert!(tries <= 2 * n as u64, "{tries} nodes examined for {n} hopeless candidates");
    assert!(tries >= n as u64, "the homes were listed: {tries}");
    let full = decide(&m, now);
    assert_eq!((&action.decision, &action.disrupted_nodes), (&full.decision, &full.disrupted_nodes));
}

#[test]
fn a_nominated_node_is_no_candidate_until_its_window_ends_but_still_expires() {
    // Two empty nodes; a provisioning pass nominated a pod to a 5 s ago (only the simulator
    // sets the time). Emptiness takes b alone, a's verdict says why, and at the window's end
    // (exclusive, as Nominated compares) a goes too.
    let docs = [pool("p", "WhenEmptyOrUnderutilized"), node("a", "p", "s-4", false), node("b", "p", "s-4", false)];
    let (mut m, _) = crate::load::model(&request(&docs).sources()).expect("model");
    let now = parse_now(Some(NOW)).expect("now");
    let a = m.nodes.iter().position(|n| n.name == "a").expect("a");
    m.nodes[a].nominated_until = Some(now + 15);
    let d = decide(&m, now);
    assert_eq!((d.decision.as_str(), d.disrupted_nodes.clone()), ("delete", vec!["b".to_string()]), "{}", d.command);
    let va = d.nodes.iter().find(|n| n.name == "a").expect("a");
    assert_eq!(va.reasons[0].code, ReasonCode::Nominated);
    assert_eq!(va.reasons[0].message, "node is nominated for a pending pod");
    let d = decide(&m, now + 15);
    assert_eq!(d.disrupted_nodes.len(), 2, "{}", d.command);
    // Expiration is the NodeClaim's own forceful controller: the window does not hold it.
    m.nodes[a].expire_after = Some(Some(3600));
    let d = decide(&m, now);
    assert_eq!((d.reason, d.disrupted_nodes.clone()), (Some(DisruptionReason::Expired), vec!["a".to_string()]), "{}", d.command);
}
