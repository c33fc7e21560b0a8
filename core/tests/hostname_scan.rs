//! Pods that all carry one hostname spread or anti-affinity constraint on the same label
//! (issue 21): every pod needs a NodeClaim of its own. The claim scan remembers, per request
//! vector and hostname groups, the NodeClaims such a group rejects for good
//! (`scheduling::memo`, `Verdict::Dead`); these tests check the answers that memo must keep,
//! past the point where the hostname groups join the scan key (64 scans).

#[path = "../../benches/src/lib.rs"]
#[allow(dead_code, unused_imports)]
mod gen;

use nodecast::Outcome;
use std::collections::BTreeSet;

fn each_pod_alone(anti: bool, n: usize) {
    let answer = nodecast::plan(&gen::hostname_request(n, anti));
    let Outcome::Success(plan) = &answer.outcome else { panic!("plan failed: {}", answer.to_json()) };
    assert!(plan.unschedulable.is_empty(), "{} unschedulable", plan.unschedulable.len());
    assert_eq!(plan.node_claims.len(), n, "one NodeClaim per pod");
    let mut seen = BTreeSet::new();
    for c in &plan.node_claims {
        assert_eq!(c.pods.len(), 1, "{} holds {:?}", c.name, c.pods);
        assert!(seen.insert(c.pods[0].clone()), "{} placed twice", c.pods[0]);
    }
    assert_eq!(seen.len(), n);
}

#[test]
fn hostname_anti_affinity_pods_each_get_a_nodeclaim() {
    each_pod_alone(true, 400);
}

#[test]
fn hostname_spread_pods_each_get_a_nodeclaim() {
    // maxSkew 1 over hostname domains: a NodeClaim holding one selected pod takes no second
    // (its count would be 2 with the placeholders of the other NodeClaims at 1).
    each_pod_alone(false, 400);
}

#[test]
fn mixed_pods_still_share_nodeclaims_with_the_hostname_pods() {
    // Generic pods (no hostname groups) next to 200 anti-affinity pods: the anti-affinity pods'
    // dead NodeClaims must stay open to the generic pods, which fill them up.
    let mut req = gen::hostname_request(200, true);
    req.objects.extend(
        gen::diverse_pods_grouped(300, 9, (usize::MAX, usize::MAX))
            .into_iter()
            .filter(|p| p["spec"].get("affinity").is_none() && p["spec"].get("topologySpreadConstraints").is_none()),
    );
    let answer = nodecast::plan(&req);
    let Outcome::Success(plan) = &answer.outcome else { panic!("plan failed: {}", answer.to_json()) };
    assert!(plan.unschedulable.is_empty());
    let web_per_claim: Vec<usize> =
        plan.node_claims.iter().map(|c| c.pods.iter().filter(|p| p.starts_with("default/web-")).count()).collect();
    assert!(web_per_claim.iter().all(|&w| w <= 1), "two anti-affinity pods on one NodeClaim");
    assert_eq!(web_per_claim.iter().sum::<usize>(), 200);
    assert!(
        plan.node_claims.iter().any(|c| c.pods.len() > 1 && c.pods.iter().any(|p| p.starts_with("default/web-"))),
        "generic pods joined the anti-affinity pods' NodeClaims"
    );
}

#[test]
fn hostname_deaths_are_shared_only_by_pods_with_the_same_groups() {
    // Two anti-affinity apps of 200 pods each, with the mix's request vectors: a NodeClaim
    // that one `web` pod took is dead for every `web` key whatever its requests
    // (`Verdict::DeadForGroups`), but stays open to the `api` pods, whose groups differ — each
    // `api` pod may join a NodeClaim holding one `web` pod.
    let mut req = gen::hostname_request(200, true);
    let api = gen::hostname_pods(200, true, 23).into_iter().map(|p| {
        let text = serde_json::to_string(&p).unwrap().replace("\"web\"", "\"api\"").replace("web-", "api-");
        serde_json::from_str::<serde_json::Value>(&text).unwrap()
    });
    req.objects.extend(api);
    let answer = nodecast::plan(&req);
    let Outcome::Success(plan) = &answer.outcome else { panic!("plan failed: {}", answer.to_json()) };
    assert!(plan.unschedulable.is_empty(), "{} unschedulable", plan.unschedulable.len());
    let count = |c: &nodecast::api::NodeClaimOut, app: &str| c.pods.iter().filter(|p| p.starts_with(&format!("default/{app}-"))).count();
    for c in &plan.node_claims {
        assert!(count(c, "web") <= 1 && count(c, "api") <= 1, "{} holds {:?}", c.name, c.pods);
    }
    assert_eq!(plan.node_claims.iter().map(|c| count(c, "web")).sum::<usize>(), 200);
    assert_eq!(plan.node_claims.iter().map(|c| count(c, "api")).sum::<usize>(), 200);
    assert!(plan.node_claims.iter().any(|c| count(c, "web") == 1 && count(c, "api") == 1), "no api pod joined a web pod's NodeClaim");
    assert!(plan.node_claims.len() < 400, "{} NodeClaims for 400 pods of two apps", plan.node_claims.len());
}
