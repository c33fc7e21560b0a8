//! Existing nodes' free room in the optimisation model: each existing node is a bin of price 0
//! (it is paid for whatever the optimum does), at most one of it, holding what its allocatable
//! leaves after the pods that stay on it and the DaemonSet pods it still owes.
//!
//! Karpenter's pass puts pending pods on existing nodes first, first fit; that use of the room
//! is not the best one in general (a big pod may find the room taken by small ones that a new
//! node would hold as cheaply). So the pods Karpenter puts there are placed by the model too,
//! with every other free pod: the integer program chooses which pods take which node's room.
//!
//! Which pods may use the room: a pod whose constraints reach no other node — no topology
//! spread of its own, no required pod affinity, anti-affinity only on the hostname, and
//! selected by no other pod's spread, affinity or non-hostname anti-affinity ("plain"). Such a
//! pod's rules on a node are pairwise (hostname anti-affinity both ways, host ports), so one
//! test against the pods that stay on the node decides it for its whole group, and the pattern
//! rules decide it among moved pods. Pods Karpenter puts on existing nodes that are not plain
//! keep that placement (and their room stays used).
//!
//! The bound needs more care: a relaxation must admit every placement a real plan could make,
//! so its bins (`relaxed`) admit any pod whose requirements, taints and requests the node
//! allows, and hold the node's room before Karpenter's pass (every pod Karpenter puts on it
//! packed anew).

use super::instance::{Bin, Class, Instance, LimitRow, Scope};
use crate::model::{Model, Pod};
use crate::scheduling::{self, Placement, Solution};
use crate::taints::first_untolerated;

/// Is pod `p` plain: no constraint of its own or of another pod that relates it to pods on
/// other nodes, and none on its node beyond pairwise hostname anti-affinity and host ports?
/// `with_terms`: one pod per spec among the pods with spread, affinity or anti-affinity terms.
pub fn plain(m: &Model, p: usize, with_terms: &[usize]) -> bool {
    let pod = &m.pods[p];
    let host = m.keys.hostname;
    if !pod.spread.is_empty() || !pod.affinity.is_empty() || pod.anti_affinity.iter().any(|t| t.key != host) {
        return false;
    }
    !with_terms.iter().any(|&q| {
        let other = &m.pods[q];
        let sel = |t: &crate::model::AffinityTerm| pod.in_namespaces(&t.namespaces) && t.selector.matches(&pod.labels);
        other.spread.iter().any(|s| s.selector.matches(&pod.labels) && other.namespace_id == pod.namespace_id)
            || other.affinity.iter().any(sel)
            || other.anti_affinity.iter().any(|t| t.key != host && sel(t))
    })
}

/// One pod per spec among the model's live pods that carry spread, affinity or anti-affinity terms.
pub fn with_terms(m: &Model) -> Vec<usize> {
    let mut seen = std::collections::HashSet::new();
    (0..m.pods.len())
        .filter(|&q| {
            let pod = &m.pods[q];
            !pod.terminal && (!pod.spread.is_empty() || !pod.affinity.is_empty() || !pod.anti_affinity.is_empty())
        })
        .filter(|&q| seen.insert(m.pods[q].spec_id()))
        .collect()
}

/// The pods Karpenter's pass puts on existing nodes that the model may move (`plain`).
pub fn freed(m: &Model, sol: &Solution) -> Vec<usize> {
    let terms = with_terms(m);
    let mut out: Vec<usize> = sol
        .placements
        .iter()
        .filter(|(_, pl)| matches!(pl, Placement::Existing(_)))
        .map(|(&p, _)| p)
        .filter(|&p| plain(m, p, &terms))
        .collect();
    out.sort_unstable();
    out
}

/// Every existing node that takes pods as a bin. `freed`: Karpenter's placements on existing
/// nodes the model moves (the others stay). `relaxed`: the bound's bins (every placement moves).
pub fn bins(m: &Model, sol: &Solution, freed: &[usize], relaxed: bool) -> Vec<Bin> {
    let dims = m.resources.len();
    let mut stays_by_node: std::collections::HashMap<usize, Vec<usize>> = Default::default();
    for (&p, pl) in &sol.placements {
        if let Placement::Existing(e) = pl {
            if !relaxed && freed.binary_search(&p).is_err() {
                stays_by_node.entry(sol.existing[*e].node).or_default().push(p);
            }
        }
    }
    let mut bound_on: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for (i, p) in m.pods.iter().enumerate() {
        if let (Some(n), false) = (p.node_name.as_deref(), p.terminal) {
            bound_on.entry(n).or_default().push(i);
        }
    }
    // The scheduler's own states: allocatable less bound pods and owed DaemonSet pods.
    let mut out: Vec<Bin> = scheduling::existing::build(m, &[])
        .into_iter()
        .map(|s| {
            let mut remaining = s.remaining.clone();
            let mut staying = bound_on.get(m.nodes[s.node].name.as_str()).cloned().unwrap_or_default();
            for &p in stays_by_node.get(&s.node).into_iter().flatten() {
                remaining.sub(&m.pods[p].requests);
                staying.push(p);
            }
            staying.sort_unstable();
            let room = (0..dims).map(|r| remaining.get(r as u16)).collect();
            Bin { node: s.node, room, staying, requirements: s.requirements.clone(), taints: s.taints.clone(), relaxed }
        })
        .collect();
    out.sort_by_key(|b| b.node);
    out
}

/// Do `pod`'s requirements, tolerations and requests allow it on bin `b` (the scheduler's
/// existing-node tests without topology)?
pub fn allows(m: &Model, b: &Bin, pod: &Pod) -> bool {
    (0..m.resources.len()).all(|r| pod.requests.get(r as u16) <= b.room[r])
        && first_untolerated(&b.taints, &pod.tolerations).is_none()
        && pod.strict_alternatives(&m.interner).iter().any(|s| b.requirements.compatible(s, |_| false, &m.interner).is_ok())
}

/// Append the bins to the instance as classes of price 0, one limit row (at most one node) each.
/// A group is admitted when its pods are plain and allowed on the node, and no pod that stays
/// there clashes with it (hostname anti-affinity either way, host ports: the only rules a plain
/// pod has on a node, both pairwise); in a relaxed bin when allowed at all. Bins that admit no
/// group are left out.
pub fn add(inst: &mut Instance, m: &Model, bins: Vec<Bin>) {
    let terms = with_terms(m);
    let plain_group: Vec<bool> = inst.groups.iter().map(|g| plain(m, g.pods[0], &terms)).collect();
    let mut kept: Vec<(Bin, Vec<bool>)> = Vec::new();
    for b in bins {
        let admits: Vec<bool> = inst
            .groups
            .iter()
            .zip(&plain_group)
            .map(|(g, &plain)| {
                let pod = &m.pods[g.pods[0]];
                (b.relaxed || plain)
                    && allows(m, &b, pod)
                    && (b.relaxed || !b.staying.iter().any(|&q| super::affinity::clash(m, pod, &m.pods[q])))
            })
            .collect();
        if admits.iter().any(|&a| a) {
            kept.push((b, admits));
        }
    }
    if kept.is_empty() {
        return;
    }
    let first_row = inst.limits.len();
    for class in inst.classes.iter_mut() {
        class.limit_use.resize(first_row + kept.len(), 0);
    }
    inst.limits.extend((0..kept.len()).map(|i| LimitRow { scope: Scope::Existing(i), remaining: 1 }));
    let mut bins = Vec::with_capacity(kept.len());
    for (i, (b, admits)) in kept.into_iter().enumerate() {
        let n = &m.nodes[b.node];
        let mut limit_use = vec![0i64; inst.limits.len()];
        limit_use[first_row + i] = 1;
        // No zone label: a zone no offering has (plain pods have no zone rules; the bound has none).
        let zone = n.labels.get(m.keys.zone).unwrap_or(u32::MAX);
        let capacity_type = n.labels.get(m.keys.capacity_type).unwrap_or(u32::MAX);
        inst.classes.push(Class {
            template: usize::MAX,
            pool: usize::MAX,
            it: u32::MAX,
            zone,
            capacity_type,
            reservation: None,
            price: 0.0,
            room: b.room.clone(),
            admits,
            limit_use,
            existing: Some(i),
        });
        bins.push(b);
    }
    inst.bins = bins;
}
