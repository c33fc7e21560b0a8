//! Required pod affinity inside the model (hostname and zone, to a workload's own pods or to
//! another's), its pods no longer kept on Karpenter's NodeClaims, the checks that reject a
//! placement missing it, and the random differential against the brute force.

use super::{brute_force, deployment, request, solved, yaml_request, ONE_GPU};
use crate::optimize::*;

const CACHE: &str = r#"{requests: {cpu: "1", memory: 2Gi}}"#;

fn affinity(key: &str, app: &str) -> String {
    format!("      affinity:\n        podAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n          - {{topologyKey: {key}, labelSelector: {{matchLabels: {{app: {app}}}}}}}")
}

const HOST: &str = "kubernetes.io/hostname";
const ZONE: &str = "topology.kubernetes.io/zone";

#[test]
fn hostname_affinity_to_a_cache_is_optimised_and_proven() {
    // Three 1-GPU servers that must run beside a cache pod, three cache replicas. Before, the
    // six pods kept Karpenter's NodeClaims (`required pod affinity`).
    let serve = deployment("serve", 3, &affinity(HOST, "cache"), ONE_GPU);
    let cache = deployment("cache", 3, "", CACHE);
    let req = yaml_request(&format!("{cache}{serve}"));
    let o = solved(&req);
    assert!(o.not_optimised.is_empty(), "{:?}", o.not_optimised);
    assert_eq!(o.kept_pods, 0);
    assert_eq!(o.certificate, "optimal");
    for c in &o.node_claims {
        let serves = c.pods.iter().any(|p| p.starts_with("ml/serve"));
        let caches = c.pods.iter().any(|p| p.starts_with("ml/cache"));
        assert!(!serves || caches, "a server without a cache: {c:?}");
    }
    let exact = brute_force(&req).expect("small enough");
    assert!((exact - o.optimum_price_per_hour).abs() < 1e-6, "{exact} vs {}", o.optimum_price_per_hour);
}

#[test]
fn self_affinity_needs_a_partner_on_the_node() {
    // Four 1-GPU replicas with hostname affinity to their own pods: each needs another replica
    // beside it, so no node holds a single one; pairs on 2-GPU nodes ($2.10 each) beat both one
    // 4-GPU node ($4.40) and four single nodes (not allowed).
    let req = yaml_request(&deployment("pair", 4, &affinity(HOST, "pair"), ONE_GPU));
    let o = solved(&req);
    assert_eq!(o.kept_pods, 0, "{:?}", o.not_optimised);
    assert_eq!(o.certificate, "optimal");
    assert!(o.node_claims.iter().all(|c| c.pods.len() >= 2), "{o:?}");
    let exact = brute_force(&req).expect("small enough");
    assert!((exact - o.optimum_price_per_hour).abs() < 1e-6, "{exact} vs {}", o.optimum_price_per_hour);
}

#[test]
fn zone_affinity_follows_the_pods_it_selects() {
    // The servers must share a zone with a cache pod; the caches spread over both zones, so
    // the servers may use either, always with a cache beside them in the zone.
    let spread = "      topologySpreadConstraints:\n      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: cache}}}";
    let serve = deployment("serve", 3, &affinity(ZONE, "cache"), ONE_GPU);
    let cache = deployment("cache", 2, spread, CACHE);
    let req = yaml_request(&format!("{cache}{serve}"));
    let o = solved(&req);
    assert!(o.not_optimised.is_empty(), "{:?}", o.not_optimised);
    assert_eq!(o.certificate, "optimal");
    let zones_of = |app: &str| -> std::collections::BTreeSet<String> {
        o.node_claims.iter().filter(|c| c.pods.iter().any(|p| p.starts_with(&format!("ml/{app}-")))).map(|c| c.zone.clone()).collect()
    };
    assert!(zones_of("serve").is_subset(&zones_of("cache")), "{o:?}");
    let exact = brute_force(&req).expect("small enough");
    assert!((exact - o.optimum_price_per_hour).abs() < 1e-6, "{exact} vs {}", o.optimum_price_per_hour);
}

#[test]
fn the_checks_reject_a_placement_that_misses_an_affinity() {
    // One server with zone affinity to one cache, placed by hand: in different zones both the
    // independent check and the scheduler's own groups reject it; in one zone both accept it.
    // On the hostname, `affinity::unmet` rejects a node without the cache.
    use crate::optimize::zones::{Placed, Site};
    let text = format!("{}{}", deployment("cache", 1, "", CACHE), deployment("serve", 1, &affinity(ZONE, "cache"), ONE_GPU));
    let req = yaml_request(&text);
    let (m, _) = crate::load::model(&req.sources()).expect("loads");
    let sol = crate::scheduling::solve(&m);
    let pods: Vec<usize> = (0..m.pods.len()).collect();
    assert_eq!(pods.len(), 2);
    let t = &sol.templates[0];
    let it = *t.its.iter().find(|&&it| m.catalog.types[it as usize].name == "gpu-1x").expect("a GPU type");
    let offers = &m.catalog.types[it as usize].offerings;
    let za = offers[0].zone;
    let zb = offers.iter().find(|o| o.zone != za).expect("two zones").zone;
    let ct = offers[0].capacity_type;
    let place = |zones: [crate::labels::ValueId; 2]| {
        let mut placed = Placed::default();
        for (i, z) in zones.iter().enumerate() {
            placed.add_site(Site::claim(&m, t, it, *z, ct), &[pods[i]]);
        }
        placed
    };
    let apart = place([za, zb]);
    assert!(crate::optimize::zones::violation(&m, &apart, &pods).is_some());
    let why = crate::optimize::replan::rejected(&m, &apart, &pods).expect("the scheduler rejects it");
    assert!(why.contains("affinity group on the zone"), "{why}");
    let together = place([za, za]);
    assert_eq!(crate::optimize::zones::violation(&m, &together, &pods), None);
    assert_eq!(crate::optimize::replan::rejected(&m, &together, &pods), None);
    let serve = pods.iter().copied().find(|&p| m.pods[p].name.starts_with("serve")).expect("serve");
    assert!(crate::optimize::affinity::unmet(&m, &[serve], &pods).is_none(), "zone terms are not hostname terms");
}

#[test]
fn random_clusters_with_pod_affinity_match_the_brute_force() {
    // `optimal` is never wrong and never below the exact optimum; on every instance the brute
    // force solves whose pods are all modelled, the optimum reaches it.
    let (mut compared, mut reached, mut optimal, mut affine, mut kept) = (0, 0, 0, 0, 0);
    for seed in 0..70 {
        let max = if seed % 2 == 0 { 7 } else { 24 };
        let objects = gen::affine_cluster(seed, max);
        let has = objects.iter().any(|o| o.to_string().contains("podAffinity"));
        let req = request(objects, Some(gen::catalog()));
        let o = match super::optimized(&req).outcome {
            crate::json::Outcome::Success(o) => o,
            crate::json::Outcome::Failure { errors } => panic!("seed {seed}: {errors:?}"),
        };
        affine += usize::from(has);
        kept += usize::from(o.kept_pods > 0);
        assert!(o.lower_bound_per_hour <= o.optimum_price_per_hour + 1e-9, "seed {seed}");
        let mut a: Vec<&String> = o.node_claims.iter().flat_map(|c| &c.pods).collect();
        let mut b: Vec<&String> = o.karpenter_node_claims.iter().flat_map(|c| &c.pods).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b, "seed {seed}");
        optimal += usize::from(o.certificate == "optimal");
        if o.kept_pods > 0 {
            continue;
        }
        if let Some(exact) = brute_force(&req) {
            compared += 1;
            assert!(o.optimum_price_per_hour >= exact - 1e-6, "seed {seed}: below the exact optimum {exact}: {o:?}");
            if o.certificate == "optimal" {
                assert!(
                    (exact - o.optimum_price_per_hour).abs() < 1e-6,
                    "seed {seed}: `optimal` {} vs exact {exact}",
                    o.optimum_price_per_hour
                );
            }
            reached += usize::from((exact - o.optimum_price_per_hour).abs() < 1e-6);
        }
    }
    eprintln!(
        "pod affinity: {affine}/70 with affinity, {kept} with kept pods, {optimal} optimal, brute force {compared}, reached {reached}"
    );
    assert!(affine >= 35, "{affine}");
    assert!(compared >= 15, "only {compared} instances small enough for the brute force");
    assert_eq!(reached, compared);
}
