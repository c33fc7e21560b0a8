//! StaticDrift: drifted NodeClaims of static NodePools (pkg/controllers/disruption/
//! staticdrift.go, Karpenter v1.15). It runs after Emptiness and before Drift (controller.go
//! `NewMethods`), gate or no gate: a static pool's NodeClaims drift like any other (the
//! NodeClaim disruption controller sets `Drifted` on them too), Drift itself skips them.
//!
//! Per static pool with drifted candidates (the Eventual class's candidates, as Drift's):
//! - nothing while its `Drifted` budget allows no disruption, or while the pool has more
//!   running (plus pending-disruption) NodeClaims than `replicas` (scale-down first);
//! - at most min(budget, candidates) of them; with `limits.nodes`, only as many as the limit
//!   leaves room for a replacement each (`ReserveNodeCount`);
//! - each taken candidate gets its own command: replaced by one NodeClaim of the pool's bare
//!   template (no scheduling simulation: the static provisioning controller would make the
//!   same), so its pods need no home elsewhere;
//! - when the limit leaves no room, with TerminateFirstDrift on and the pool Ready, each of the
//!   first min(budget, candidates) is deleted first (the static controller refills the pool);
//!   without it they are blocked. With TerminateFirstDrift, a pool whose template can only
//!   land in full capacity reservations does the same, candidates holding an offered slot
//!   first and only they deleted first.
//!
//! Every command of every pool is carried out in the same pass. Karpenter takes a pool's
//! candidates in cluster-state order (a Go map), so when it takes fewer than all, which ones is
//! open: nodecast takes names in order and discloses the tie.

use super::repair::{holds_offered_slot, static_replacement, static_reservations};
use super::*;

/// The commands StaticDrift issues in one pass.
pub(crate) struct StaticDrift {
    /// Nodes (indices into `Model::nodes`) it disrupts.
    pub nodes: Vec<usize>,
    /// One per replaced node (delete-only commands have none).
    pub replacements: Vec<Replacement>,
    pub terminate_first: Option<TerminateFirst>,
    pub ties: Vec<TieOut>,
}

pub(crate) fn static_drift(
    m: &Model,
    infos: &[NodeInfo],
    found: &IndexMap<usize, drift::Drifted>,
    now: i64,
    verdicts: &mut IndexMap<usize, Vec<Reason>>,
) -> Option<StaticDrift> {
    let mut by_pool: IndexMap<usize, Vec<usize>> = IndexMap::new();
    for info in infos {
        let Some(pool) = info.pool.filter(|&p| m.node_pools[p].is_static) else { continue };
        if found.contains_key(&info.node) && drift::eventual_candidate(m, info) {
            by_pool.entry(pool).or_default().push(info.node);
        }
    }
    let mut out = StaticDrift { nodes: Vec::new(), replacements: Vec::new(), terminate_first: None, ties: Vec::new() };
    let mut said: Vec<usize> = Vec::new();
    let mut say = |said: &mut Vec<usize>, node: usize, code: ReasonCode, pool: &str, message: String| {
        said.push(node);
        verdicts.entry(node).or_default().insert(0, Reason { code, node_pool: Some(pool.to_string()), message });
    };
    for (pool, mut cands) in by_pool {
        let np = &m.node_pools[pool];
        cands.sort_by(|&a, &b| m.nodes[a].name.cmp(&m.nodes[b].name));
        let budget = match pool_budget(m, pool, "Drifted", now) {
            Some(0) => {
                for &c in &cands {
                    say(
                        &mut said,
                        c,
                        ReasonCode::Budget,
                        &np.name,
                        format!("NodePool {:?} allows no more disruptions for reason Drifted now", np.name),
                    );
                }
                continue;
            }
            Some(b) => b as usize,
            None => usize::MAX,
        };
        let mine = |n: &&ExistingNode| n.managed && n.nodepool.as_deref() == Some(np.name.as_str());
        let active = m.nodes.iter().filter(mine).filter(|n| !n.marked_for_deletion).count() as i64;
        let deleting = m.nodes.iter().filter(mine).filter(|n| n.marked_for_deletion).count() as i64;
        let replicas = np.replicas.unwrap_or(0);
        if active > replicas {
            for &c in &cands {
                say(
                    &mut said,
                    c,
                    ReasonCode::LimitExceeded,
                    &np.name,
                    format!(
                        "drifted, but static NodePool {:?} has {active} nodes for {replicas} replicas: its scale-down comes first",
                        np.name
                    ),
                );
            }
            continue;
        }
        let max_drifts = budget.min(cands.len());
        let gate = m.settings.feature_gates.terminate_first_drift;
        let first = gate && np.ready;
        let mut taken: Vec<usize> = Vec::new();
        let full = if gate { static_reservations(m, pool).filter(|(full, _)| *full) } else { None };
        if let Some((_, offered)) = full {
            // Only a candidate holding a still-offered slot frees one the refill can use.
            let (holding, rest): (Vec<usize>, Vec<usize>) = cands.iter().partition(|&&c| holds_offered_slot(m, c, &offered));
            for c in holding.into_iter().chain(rest).take(max_drifts) {
                if first && holds_offered_slot(m, c, &offered) {
                    taken.push(c);
                    out.terminate_first = Some(TerminateFirst::NoReservedCapacity);
                } else {
                    say(
                        &mut said,
                        c,
                        ReasonCode::LimitExceeded,
                        &np.name,
                        "static NodePool's capacity reservations are full and cannot stage a replacement".into(),
                    );
                }
            }
        } else {
            let room = match crate::static_pools::node_limit(&np.limits) {
                None => max_drifts,
                Some(l) => usize::try_from(l - (active + deleting)).unwrap_or(0).min(max_drifts),
            };
            if room == 0 {
                for &c in cands.iter().take(max_drifts) {
                    if first {
                        taken.push(c);
                        out.terminate_first = Some(TerminateFirst::StaticAtLimit);
                    } else {
                        say(
                            &mut said,
                            c,
                            ReasonCode::LimitExceeded,
                            &np.name,
                            "static NodePool is at its node limit and cannot stage a replacement".into(),
                        );
                    }
                }
            } else {
                for &c in cands.iter().take(room) {
                    match static_replacement(m, pool) {
                        Ok(r) => {
                            out.replacements.push(r);
                            taken.push(c);
                        }
                        Err(why) => say(&mut said, c, ReasonCode::PodsDoNotFit, &np.name, why),
                    }
                }
            }
        }
        if !taken.is_empty() && taken.len() < cands.len() {
            let mut names: Vec<String> = cands.iter().map(|&c| m.nodes[c].name.clone()).collect();
            names.sort();
            out.ties.push(TieOut {
                count: taken.len(),
                message: format!(
                    "Karpenter may pick {} of: {} (drifted NodeClaims of static NodePool {:?}, taken in cluster-state order, a Go map's)",
                    if taken.len() == 1 { "any".to_string() } else { format!("any {}", taken.len()) },
                    names.join(", "),
                    np.name
                ),
                nodes: names,
            });
        }
        let passed: Vec<usize> = cands.iter().copied().filter(|c| !taken.contains(c) && !said.contains(c)).collect();
        for c in passed {
            say(
                &mut said,
                c,
                ReasonCode::Budget,
                &np.name,
                format!("NodePool {:?}'s Drifted budget is spent on its other drifted NodeClaims", np.name),
            );
        }
        out.nodes.extend(taken);
    }
    (!out.nodes.is_empty()).then_some(out)
}
