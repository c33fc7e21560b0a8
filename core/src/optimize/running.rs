//! `optimize` for the running cluster (`optimize.running`): the cheapest set of nodes — existing
//! ones kept and new NodeClaims — for the pods that run now, beside what Karpenter's
//! consolidation does (the cluster fills that side in from `consolidate`).
//!
//! Every existing node is either **pinned** or **removable**. Pinned are the nodes Karpenter
//! could never disrupt whatever the NodePool's consolidation settings say: unmanaged, not
//! initialized, deleting, rebooting, `karpenter.sh/do-not-disrupt` on the node, a pod that
//! cannot be evicted (do-not-disrupt, a PDB that allows no eviction now, several PDBs), a
//! static NodePool's, one Karpenter cannot price, and one whose offering its NodePool no
//! longer launches (keeping it could not be matched by a NodeClaim of the same kind). The
//! blockers are disruption's own (`disruption::node_infos`), so a pod that cannot be evicted
//! pins its node exactly where `consolidate` would say so. consolidationPolicy,
//! consolidateAfter and budgets pin nothing: they are what `advise` may change.
//!
//! The removable nodes' pods become pending in a copy of the model and those nodes are gone;
//! the provisioning optimum (`run`) then packs them onto new NodeClaims, with the pinned nodes
//! as existing nodes (Karpenter's own pass puts pods on their free room first). Keeping a
//! removable node costs exactly what a new NodeClaim of its (NodePool, type, capacity type,
//! zone) costs, so each optimum NodeClaim of that kind stands for keeping such a node: they
//! are matched, the node holding most of the NodeClaim's pods first. The pinned nodes' free
//! room is in the model as bins of price 0 (`existing`), in the integer program and in the
//! bound alike, so which moved pods take it is optimised, not Karpenter's first fit.

use super::output::{Optimization, HOURS_PER_MONTH};
pub use super::running_answer::{KarpenterConsolidation, NodeFate, RunningCluster, RunningNode};
use super::solve::Budget;
use crate::disruption::{node_infos, node_price, Say};
use crate::error::InputError;
use crate::model::{ExistingNode, Model};
use crate::price::round_price;
use crate::reason::ReasonCode;
use crate::scheduling;
use std::collections::{BTreeMap, HashMap};

/// The blockers that pin a node: Karpenter never disrupts it for consolidation, whatever the
/// NodePool's consolidation settings (those are what `advise` edits, so they pin nothing):
/// every blocker that stops Karpenter building a candidate at all (disruption's list), and a
/// node whose labels or instance type it cannot read.
fn pinning(code: &ReasonCode) -> bool {
    crate::disruption::PRE_CANDIDATE.contains(code) || matches!(code, ReasonCode::MissingLabel | ReasonCode::UnknownInstanceType)
}

/// Does NodePool `pool` still launch node `n`'s offering (type, zone, capacity type)?
fn still_offered(m: &Model, n: &ExistingNode, pool: usize) -> bool {
    let Some(t) = scheduling::claim::build_template(pool, m) else { return false };
    let Some(it) = m.catalog.types.iter().position(|t| Some(&t.name) == n.instance_type.as_ref()) else { return false };
    t.its.contains(&(it as u32))
        && m.catalog.types[it].offerings.iter().any(|o| {
            o.available
                && Some(m.interner.str(o.zone)) == n.zone.as_deref()
                && Some(m.interner.str(o.capacity_type)) == n.capacity_type.as_deref()
                && scheduling::offering_compatible(o, &t.requirements, m)
        })
}

/// Per node: Some(why) when pinned.
fn pins(m: &Model, now: i64) -> Vec<Option<String>> {
    node_infos(m, now, Say(true))
        .into_iter()
        .map(|info| {
            let n = &m.nodes[info.node];
            match (&info.blocker, info.pool) {
                (Some((code, why)), _) if pinning(code) => Some(why.clone()),
                (Some((ReasonCode::ConsolidationDisabled, why)), Some(p)) if m.node_pools[p].is_static => Some(why.clone()),
                (_, None) => Some("its NodePool is not among the inputs".into()),
                (_, Some(p)) if info.price.is_none() => {
                    Some(format!("its offering is not in the catalog, so it cannot be priced (NodePool {:?})", m.node_pools[p].name))
                }
                (_, Some(p)) if !still_offered(m, n, p) => Some(format!(
                    "NodePool {:?} no longer launches its offering ({}, {}, {}): a new NodeClaim cannot stand for it",
                    m.node_pools[p].name,
                    n.instance_type.as_deref().unwrap_or("?"),
                    n.capacity_type.as_deref().unwrap_or("?"),
                    n.zone.as_deref().unwrap_or("?")
                )),
                _ => None,
            }
        })
        .collect()
}

/// The model with the removable nodes gone and their pods pending; pods pending now are left
/// out (marked terminal). Returns it and the pending pods' keys.
fn without(m: &Model, removable: &[bool]) -> (Model, Vec<String>) {
    let mut m2 = m.clone();
    let gone: std::collections::HashSet<&str> = m.nodes.iter().zip(removable).filter(|(_, r)| **r).map(|(n, _)| n.name.as_str()).collect();
    let mut left_out = Vec::new();
    for pod in m2.pods.iter_mut() {
        match pod.node_name.as_deref() {
            Some(n) if gone.contains(n) => {
                if pod.is_reschedulable() && !pod.terminal {
                    pod.node_name = None;
                } else {
                    // DaemonSet and mirror pods go with their node; terminating ones are done.
                    pod.terminal = true;
                    pod.node_name = None;
                }
            }
            None if pod.is_pending() && pod.ignored.is_none() => {
                left_out.push(pod.key());
                pod.terminal = true;
            }
            _ => {}
        }
    }
    let index: Vec<Option<usize>> = {
        let mut next = 0;
        removable
            .iter()
            .map(|&r| {
                (!r).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    };
    m2.nodes = m.nodes.iter().zip(removable).filter(|(_, r)| !**r).map(|(n, _)| n.clone()).collect();
    for s in m2.static_launches.iter_mut() {
        s.node = s.node.and_then(|i| index[i]);
    }
    left_out.sort();
    (m2, left_out)
}

/// The running-cluster optimum at `now` (`now_text` as the answer shows it). Karpenter's side
/// (`RunningCluster::karpenter`) is left for the caller, which runs `consolidate`.
// The error is the answer's only error, returned once per call.
#[allow(clippy::result_large_err)]
pub fn run(m: &Model, budget: Budget, now: i64, now_text: &str) -> Result<Optimization, InputError> {
    let pinned = pins(m, now);
    let removable: Vec<bool> = pinned.iter().map(Option::is_none).collect();
    let (m2, pending_left_out) = without(m, &removable);
    let mut opt = super::run(&m2, budget)?;
    // Where each pod runs now.
    let mut now_on: HashMap<String, &str> = HashMap::new();
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for pod in m.pods.iter().filter(|p| !p.terminal && p.is_reschedulable()) {
        if let Some(n) = pod.node_name.as_deref() {
            now_on.insert(pod.key(), n);
            *count.entry(n).or_default() += 1;
        }
    }
    // Match the optimum's NodeClaims to removable nodes of the same kind, most shared pods first.
    let kind = |pool: &str, it: &str, ct: &str, zone: &str| (pool.to_string(), it.to_string(), ct.to_string(), zone.to_string());
    let mut free_nodes: BTreeMap<(String, String, String, String), Vec<usize>> = BTreeMap::new();
    for (i, n) in m.nodes.iter().enumerate().filter(|(i, _)| removable[*i]) {
        let key = kind(
            n.nodepool.as_deref().unwrap_or(""),
            n.instance_type.as_deref().unwrap_or(""),
            n.capacity_type.as_deref().unwrap_or(""),
            n.zone.as_deref().unwrap_or(""),
        );
        free_nodes.entry(key).or_default().push(i);
    }
    let mut stands_for: HashMap<usize, String> = HashMap::new();
    let mut final_node: HashMap<String, String> = HashMap::new();
    let mut new_claims = Vec::new();
    for c in &opt.node_claims {
        let key = kind(&c.node_pool, &c.instance_type, &c.capacity_type, &c.zone);
        let shared = |i: usize| c.pods.iter().filter(|p| now_on.get(*p) == Some(&m.nodes[i].name.as_str())).count();
        let pick = free_nodes.get(&key).and_then(|list| {
            list.iter().copied().filter(|i| !stands_for.contains_key(i)).max_by(|&a, &b| shared(a).cmp(&shared(b)).then(b.cmp(&a)))
        });
        let place = match pick {
            Some(i) => {
                stands_for.insert(i, c.name.clone());
                m.nodes[i].name.clone()
            }
            None => {
                new_claims.push(c.name.clone());
                c.name.clone()
            }
        };
        for p in &c.pods {
            final_node.insert(p.clone(), place.clone());
        }
    }
    // Pods the optimum puts on a pinned node's free room end there.
    for (p, n) in &opt.existing_placements {
        final_node.insert(p.clone(), n.clone());
    }
    let pods_moved = now_on.iter().filter(|(p, n)| final_node.get(*p).is_some_and(|f| f != *n)).count();
    let price = |n: &ExistingNode| round_price(node_price(m, n).unwrap_or(0.0));
    let nodes: Vec<RunningNode> = m
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let fate = match (&pinned[i], stands_for.contains_key(&i)) {
                (Some(_), _) => NodeFate::Pinned,
                (None, true) => NodeFate::Kept,
                (None, false) => NodeFate::Removed,
            };
            RunningNode {
                name: n.name.clone(),
                node_pool: n.nodepool.clone(),
                instance_type: n.instance_type.clone(),
                price_per_hour: price(n),
                fate,
                reason: pinned[i].clone(),
                optimum_node_claim: stands_for.get(&i).cloned(),
                pods: count.get(n.name.as_str()).copied().unwrap_or(0),
            }
        })
        .collect();
    // Managed nodes only, as consolidate's prices: unmanaged nodes are pinned and cost the same
    // on both sides.
    let managed_pinned: f64 = m.nodes.iter().zip(&pinned).filter(|(n, p)| n.managed && p.is_some()).map(|(n, _)| price(n)).sum();
    let current = round_price(m.nodes.iter().filter(|n| n.managed).map(price).sum());
    let optimum = round_price(managed_pinned + opt.optimum_price_per_hour);
    // The pinned nodes' free room is in the model (price 0), and the provisioning answer's
    // bound covers it: the whole plan's bound when some pod could use that room outside the
    // model (`existing`).
    let (new_bound, proven_new) = (opt.lower_bound_per_hour, opt.certificate == "optimal");
    let bound = round_price((managed_pinned + new_bound).min(optimum));
    let proven = proven_new || optimum - bound <= 1e-9 * optimum.max(1.0);
    let gap = if optimum > 0.0 && !proven { ((optimum - bound) / optimum * 100.0).max(0.0) } else { 0.0 };
    let gap = (gap * 1e4).round() / 1e4;
    let certificate = if proven || gap == 0.0 { "optimal".to_string() } else { format!("within {gap:.2} % of optimal") };
    let savings = round_price(current - optimum);
    opt.running = Some(RunningCluster {
        now: now_text.to_string(),
        current_price_per_hour: current,
        optimum_price_per_hour: optimum,
        lower_bound_per_hour: bound,
        certificate,
        savings_per_hour: savings,
        savings_per_month: round_price(savings * HOURS_PER_MONTH),
        nodes,
        new_node_claims: new_claims,
        pods_moved,
        pending_left_out,
        karpenter: None,
    });
    Ok(opt)
}
