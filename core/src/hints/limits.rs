//! The limit hint for a whole NodePool: the `spec.limits` that let every pending pod the
//! NodePool's limits hold back schedule, not only one of them — telling a user the limit that
//! fixes one pod of twenty would be a hint that is checked but still misleads.
//!
//! The pass is planned once with the NodePool's limits lifted; what that plan books against
//! each limit is the limit needed. Karpenter books the largest instance type a new NodeClaim
//! could still become (R5.11.1), not the type it finally launches, so the booking per NodeClaim
//! is the largest type that fits the pod that opened it. The proposal is then re-planned with
//! the limits set and the pods that schedule are counted.

use super::edit::Edit;
use crate::fit::{compatible_types, pod_requirements};
use crate::model::{LimitKey, Model};
use crate::scheduling::{Fail, PodFailure, Solution};

/// The checked limit change of one NodePool.
pub struct PoolLimitFix {
    pub edit: Edit,
    /// The pending pods the NodePool's limits held back.
    pub held: Vec<usize>,
    /// The re-plan with `edit` applied.
    pub solution: Solution,
    pub model: Model,
}

impl PoolLimitFix {
    /// How many of `held` schedule in the re-plan.
    pub fn scheduled(&self) -> usize {
        self.held.iter().filter(|p| self.solution.placements.contains_key(p)).count()
    }
}

/// The pending pods whose reason on `pool` is one of its limits.
fn held_back(sol: &Solution, pool: usize) -> Vec<usize> {
    sol.failures
        .iter()
        .filter(|(_, f)| match f {
            PodFailure::PerPool(errs) => errs.iter().any(|(q, e)| *q == pool && matches!(e, Fail::Limits { .. } | Fail::NodesLimit)),
            _ => false,
        })
        .map(|(p, _)| *p)
        .collect()
}

/// What the claims and nodes of `pool` in `sol` (planned over `m`) count against each of the
/// NodePool's limit keys `keys`: existing nodes by their capacity, each new NodeClaim by the
/// largest type that fits the pod that opened it.
fn booked(m: &Model, sol: &Solution, pool: usize, keys: &[(LimitKey, i64)]) -> Vec<(LimitKey, i64)> {
    let np = &m.node_pools[pool];
    let nodes: Vec<_> = m.nodes.iter().filter(|n| n.nodepool.as_deref() == Some(np.name.as_str()) && !n.marked_for_deletion).collect();
    // Per claim, the capacity it books: the largest candidate when it was opened.
    let claims: Vec<Vec<u32>> = sol
        .claims
        .iter()
        .filter(|c| sol.templates[c.template].pool == pool)
        .map(|c| {
            let t = &sol.templates[c.template];
            let Some(&first) = c.pods.first() else { return c.its.clone() };
            let pod = &m.pods[first];
            let opened: Vec<u32> = compatible_types(t, &pod_requirements(pod, t, m), m)
                .into_iter()
                .filter(|&i| pod.requests.fits_with(t.overhead(i), t.alloc(i, m)))
                .collect();
            if opened.is_empty() {
                c.its.clone()
            } else {
                opened
            }
        })
        .collect();
    keys.iter()
        .map(|&(k, _)| {
            let used: i64 = match k {
                LimitKey::Nodes => 1000 * (nodes.len() + claims.len()) as i64,
                LimitKey::Resource(r) => {
                    nodes.iter().map(|n| n.capacity.get(r)).sum::<i64>()
                        + claims
                            .iter()
                            .map(|its| its.iter().map(|&i| m.catalog.types[i as usize].capacity.get(r)).max().unwrap_or(0))
                            .sum::<i64>()
                }
            };
            (k, used)
        })
        .collect()
}

/// The limits of `pool` that let the pods its limits hold back in `sol` schedule, checked by
/// a re-plan; None when no pod is held back or the limits are already what is needed.
/// Spends two plans (limits lifted, then the proposal).
pub fn pool_fix(m: &Model, sol: &Solution, pool: usize) -> Option<PoolLimitFix> {
    let held = held_back(sol, pool);
    if held.is_empty() {
        return None;
    }
    let old = &m.node_pools[pool].limits;
    let mut lifted = m.clone();
    lifted.node_pools[pool].limits.clear();
    let free = crate::scheduling::solve(&lifted);
    let limits: Vec<(LimitKey, i64)> =
        booked(&lifted, &free, pool, old).into_iter().zip(old).map(|((k, used), &(_, limit))| (k, limit.max(used))).collect();
    if limits == *old {
        return None;
    }
    let edit = Edit::Limits { pool, limits: limits.clone() };
    let mut model = m.clone();
    model.node_pools[pool].limits = limits;
    let solution = crate::scheduling::solve(&model);
    Some(PoolLimitFix { edit, held, solution, model })
}
