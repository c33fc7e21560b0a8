//! Packing onto an existing cluster, and the one-line summary every plan bench prints in its setup.

use super::*;

pub const PACKING_SEED: u64 = 99;

/// An existing cluster of `nodes` initialized Karpenter nodes (generation-0 synthetic types of
/// 2–16 vCPUs, zones in turn) each running 1–3 bound pods, plus `pending` pending pods of the
/// diverse mix ([`diverse_pods`]): the pass first tries every existing node for every pod
/// (Karpenter's `ExistingNode.CanAdd`), and only pods that fit nowhere get new NodeClaims.
pub fn packing_request(nodes: usize, pending: usize) -> Request {
    let mut rng = SplitMix64::new(PACKING_SEED);
    let types: Vec<_> = node_types().into_iter().filter(|(_, cpu, _, _)| *cpu <= 16_000).collect();
    let mut objects = vec![default_nodepool()];
    let mut bound = Vec::new();
    for i in 0..nodes {
        let (ty, _, _, t) = rng.pick(&types);
        let name = format!("ip-10-{}-{}-{}.ec2.internal", i / 65_536, i / 256 % 256, i % 256);
        let zone = ["test-zone-a", "test-zone-b", "test-zone-c"][i % 3];
        objects.push(json!({
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": name,
                "labels": {
                    "karpenter.sh/nodepool": "default",
                    "karpenter.sh/initialized": "true",
                    "karpenter.sh/registered": "true",
                    "karpenter.sh/capacity-type": if i % 4 == 0 { "spot" } else { "on-demand" },
                    "node.kubernetes.io/instance-type": format!("synth-{ty}"),
                    "topology.kubernetes.io/zone": zone,
                    "kubernetes.io/hostname": name,
                    "kubernetes.io/arch": "amd64",
                    "kubernetes.io/os": "linux",
                },
            },
            "status": {"capacity": t["capacity"], "allocatable": t["allocatable"], "conditions": [{"type": "Ready", "status": "True"}]},
        }));
        for b in 0..rng.between(1, 3) {
            let cpu = *rng.pick(&["100m", "250m", "500m"]);
            let memory = *rng.pick(&["128Mi", "256Mi", "512Mi"]);
            let mut p = pod(
                &format!("bound-{i}-{b}"),
                json!({"app": format!("bound-{}", i % 50)}),
                json!({"cpu": cpu, "memory": memory}),
                json!({"nodeName": name}),
            );
            p["status"] = json!({"phase": "Running"});
            bound.push(p);
        }
    }
    objects.extend(bound);
    objects.extend(diverse_pods(pending, PACKING_SEED));
    Request { objects, catalog: Some(synthetic_catalog(DIVERSE_TYPES)), ..Default::default() }
}

// ---------------------------------------------------------------------------------------------

/// What one plan produced, printed once per case during bench setup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Pending pods the pass considered (placed + unschedulable).
    pub pods: usize,
    pub node_claims: usize,
    /// Pods placed on new NodeClaims.
    pub scheduled: usize,
    /// Pods placed on existing nodes.
    pub on_existing: usize,
    pub unschedulable: usize,
}

/// Plan once and summarise; panics (with the errors) if the request is rejected, so a broken
/// generator is caught before anything is timed.
pub fn summarize(req: &Request) -> Summary {
    let answer = nodecast::plan(req);
    match &answer.outcome {
        Outcome::Success(p) => {
            let scheduled = p.node_claims.iter().map(|c| c.pods.len()).sum();
            let on_existing = p.existing_nodes.iter().map(|n| n.pods.len()).sum();
            Summary {
                pods: scheduled + on_existing + p.unschedulable.len(),
                node_claims: p.node_claims.len(),
                scheduled,
                on_existing,
                unschedulable: p.unschedulable.len(),
            }
        }
        Outcome::Failure { .. } => panic!("benchmark request rejected:\n{}", answer.to_json()),
    }
}

/// Print a setup line for a case (to stderr, so criterion's own output stays parseable).
pub fn report(case: &str, req: &Request) -> Summary {
    let s = summarize(req);
    eprintln!(
        "[setup] {case}: {} pods -> {} NodeClaims, {} pods placed on them, {} on existing nodes, {} unschedulable",
        s.pods, s.node_claims, s.scheduled, s.on_existing, s.unschedulable
    );
    s
}
