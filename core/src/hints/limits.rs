//! The limit hint for a whole NodePool: the `spec.limits` that let every pending pod the
//! NodePool's limits hold back schedule, not only one of them — telling a user the limit that
//! fixes one pod of twenty would be a hint that is checked but still misleads.
//!
//! The pass is planned once with the NodePool's limits lifted; what that plan counts against
//! each limit is the limit proposed. Karpenter books the largest instance type a new NodeClaim
//! could still become when it opens it (R5.11.1), not the type it finally launches, and a
//! smaller limit changes which types a claim opens with; so proposals go from what the claims
//! finally need up to what they booked, each re-planned, and the pods that schedule are counted.

use super::edit::Edit;
use crate::fit::{compatible_types, pod_requirements};
use crate::model::{LimitKey, Model};
use crate::scheduling::{Fail, PodFailure, Solution};
use std::collections::HashSet;

/// The checked limit change of one NodePool.
pub struct PoolLimitFix {
    pub edit: Edit,
    /// The pending pods the NodePool's limits held back: those that schedule once they are
    /// lifted (a pod with another blocker too is not counted). A set: every held pod asks.
    pub held: HashSet<usize>,
    /// How many of `held` schedule in the re-plan.
    pub scheduled: usize,
    /// The re-plan with `edit` applied.
    pub solution: Solution,
    pub model: Model,
}

impl PoolLimitFix {
    fn new(edit: Edit, held: &[usize], model: Model, solution: Solution) -> PoolLimitFix {
        let scheduled = held.iter().filter(|p| solution.placements.contains_key(p)).count();
        PoolLimitFix { edit, held: held.iter().copied().collect(), scheduled, solution, model }
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

/// How much of an instance type's capacity a NodeClaim is counted with, from the least to the
/// most: each proposal is tried in this order and the first that schedules every held pod wins.
#[derive(Clone, Copy, PartialEq)]
enum Count {
    /// The type it launches as (the cheapest that holds all its pods).
    Launched,
    /// The largest type that fits the pod that opened it (what Karpenter books, R5.11.1).
    Opened,
    /// The largest type of the NodePool: an upper bound on any booking.
    Widest,
}

/// What the claims and nodes of `pool` in `sol` (planned over `m`) count against each of the
/// NodePool's limit keys `keys`: existing nodes by their capacity, each new NodeClaim as
/// `count` says; each limit only raised, never lowered.
fn booked(m: &Model, sol: &Solution, pool: usize, keys: &[(LimitKey, i64)], count: Count) -> Vec<(LimitKey, i64)> {
    let np = &m.node_pools[pool];
    let nodes: Vec<_> = m.nodes.iter().filter(|n| n.nodepool.as_deref() == Some(np.name.as_str()) && !n.marked_for_deletion).collect();
    let launched: Vec<Option<u32>> = if count == Count::Launched {
        let (finals, _) = crate::scheduling::launch::finalize_claims(m, sol);
        let mut by_claim = vec![None; sol.claims.len()];
        for f in finals {
            by_claim[f.claim] = f.launch.map(|l| l.it);
        }
        by_claim
    } else {
        Vec::new()
    };
    let claims: Vec<Vec<u32>> = sol
        .claims
        .iter()
        .enumerate()
        .filter(|(_, c)| sol.templates[c.template].pool == pool)
        .map(|(ci, c)| {
            let t = &sol.templates[c.template];
            match (count, c.pods.first()) {
                (Count::Launched, _) => launched[ci].map_or_else(|| c.its.clone(), |it| vec![it]),
                (Count::Opened, Some(&first)) => {
                    let pod = &m.pods[first];
                    let opened: Vec<u32> = compatible_types(t, &pod_requirements(pod, t, m), m)
                        .into_iter()
                        .filter(|&i| pod.requests.fits_with(t.overhead(i), t.alloc(i, m)))
                        .collect();
                    if opened.is_empty() {
                        t.its.clone()
                    } else {
                        opened
                    }
                }
                _ => t.its.clone(),
            }
        })
        .collect();
    keys.iter()
        .map(|&(k, limit)| {
            // Saturating: capacities near i64::MAX are valid input (a Node's status), and a sum
            // past it only means "more than any limit".
            let used: i64 = match k {
                LimitKey::Nodes => 1000i64.saturating_mul((nodes.len() + claims.len()) as i64),
                LimitKey::Resource(r) => nodes
                    .iter()
                    .map(|n| n.capacity.get(r))
                    .chain(claims.iter().map(|its| its.iter().map(|&i| m.catalog.types[i as usize].capacity.get(r)).max().unwrap_or(0)))
                    .fold(0i64, i64::saturating_add),
            };
            (k, limit.max(used))
        })
        .collect()
}

/// Plan `m` with `pool`'s limits set to `limits`.
fn plan_with(m: &Model, pool: usize, limits: Vec<(LimitKey, i64)>) -> (Model, Solution) {
    let mut model = m.clone();
    model.node_pools[pool].limits = limits;
    let solution = crate::scheduling::solve(&model);
    (model, solution)
}

/// The limits of `pool` that let the pods its limits hold back in `sol` schedule, checked by
/// re-planning; None when no pod schedules even without the limits, the limits are already
/// what is needed, or `budget` (plans) does not allow a check. The pass is planned with the
/// limits lifted, then with each proposal of [`Count`] from the smallest, up to the first that
/// schedules every held pod (at most four plans); the proposal scheduling the most is kept.
pub fn pool_fix(m: &Model, sol: &Solution, pool: usize, budget: &mut usize) -> Option<PoolLimitFix> {
    let held = held_back(sol, pool);
    if held.is_empty() || *budget < 2 {
        return None;
    }
    *budget -= 1;
    let old = &m.node_pools[pool].limits;
    let (lifted, free) = plan_with(m, pool, Vec::new());
    // A limit that is exhausted fails every pod before its other checks: only the pods that
    // schedule without it were held back by it.
    let held: Vec<usize> = held.into_iter().filter(|p| free.placements.contains_key(p)).collect();
    if held.is_empty() {
        return None;
    }
    let mut best: Option<PoolLimitFix> = None;
    let mut tried: Vec<Vec<(LimitKey, i64)>> = Vec::new();
    for count in [Count::Launched, Count::Opened, Count::Widest] {
        let limits = booked(&lifted, &free, pool, old, count);
        if limits == *old || tried.contains(&limits) {
            continue;
        }
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        tried.push(limits.clone());
        let (model, solution) = plan_with(m, pool, limits.clone());
        let fix = PoolLimitFix::new(Edit::Limits { pool, limits }, &held, model, solution);
        let all = fix.scheduled == held.len();
        if best.as_ref().is_none_or(|b| fix.scheduled > b.scheduled) {
            best = Some(fix);
        }
        if all {
            break;
        }
    }
    best
}
