//! Emptiness, multi-node and single-node consolidation (spec §9, §11–§13).

use super::balanced;
use super::ties;
use super::*;
use crate::requirements::Requirement;
use crate::scheduling::{self, launch, offering_compatible};
use crate::vocab::ScoredMove;

/// A consolidation command.
pub(crate) struct Command {
    pub method: Method,
    /// Indices into `infos`, in the order Karpenter ranked them.
    pub cands: Vec<usize>,
    pub nodes: Vec<usize>,
    pub replacement: Option<Replacement>,
    /// The Balanced pools' scores of the command (empty when none is Balanced).
    pub scores: Vec<BalancedScore>,
    /// Candidates Karpenter may pick instead (ties.rs).
    pub ties: Vec<TieOut>,
}

/// Why a consolidation attempt produced nothing, with the Balanced score that decided it when
/// the scoring did.
pub(super) struct Rejection(pub ReasonCode, pub String, pub Option<Box<BalancedScore>>);

fn reject(code: ReasonCode, message: String) -> Rejection {
    Rejection(code, message, None)
}

/// Karpenter's consolidation order (D-6.5): savings ratio (price ÷ reschedule disruption cost),
/// highest first. Equal ratios keep the order Karpenter gathered the candidates in, its cluster
/// state's map order; nodecast takes its likeliest, launch order (`super::map_order`), and
/// ties.rs says where that matters.
pub(crate) fn by_savings(m: &Model, infos: &[NodeInfo], mut list: Vec<usize>) -> Vec<usize> {
    list.sort_by(|&a, &b| {
        infos[b]
            .savings_ratio()
            .total_cmp(&infos[a].savings_ratio())
            .then_with(|| super::map_order(&m.nodes[infos[a].node], &m.nodes[infos[b].node]))
    });
    list
}

fn budget_reason(m: &Model, pool: usize, reason: &str) -> Reason {
    Reason {
        code: ReasonCode::Budget,
        node_pool: Some(m.node_pools[pool].name.clone()),
        message: format!("NodePool {:?} allows no more disruptions for reason {reason} now", m.node_pools[pool].name),
    }
}

/// Emptiness (§9): every empty consolidatable candidate its pool's `Empty` budget allows,
/// most expensive first, in one delete command.
/// The ties are those the budgets cut through: which of equally ranked empty nodes a budget
/// lets go is Karpenter's arbitrary order.
pub(crate) fn emptiness(
    m: &Model,
    infos: &[NodeInfo],
    now: i64,
    verdicts: &mut IndexMap<usize, Vec<Reason>>,
) -> Option<(Vec<usize>, Vec<TieOut>)> {
    let list: Vec<usize> = (0..infos.len()).filter(|&i| emptiness_candidate(m, &infos[i])).collect();
    let mut budgets: IndexMap<usize, Option<i64>> = IndexMap::new();
    let mut taken = Vec::new();
    let ranked = by_savings(m, infos, list);
    for &i in &ranked {
        let pool = infos[i].pool?;
        let b = budgets.entry(pool).or_insert_with(|| pool_budget(m, pool, "Empty", now));
        match b {
            Some(0) => verdicts.entry(infos[i].node).or_default().push(budget_reason(m, pool, "Empty")),
            Some(n) => {
                *n -= 1;
                taken.push(i);
            }
            None => taken.push(i),
        }
    }
    if taken.is_empty() {
        return None;
    }
    let all = pool_budgets(m, "Empty", now);
    let ties = ties::cut_groups(m, infos, &ranked, &taken, &|p| all[p], true);
    Some((taken.iter().map(|&i| infos[i].node).collect(), ties))
}

/// Whether emptiness's filter (emptiness.go, `ShouldDisrupt`) keeps the node: a candidate with
/// no blocker, empty. A node the last provisioning pass put CapacityBuffer virtual pods on is
/// not empty to emptiness (`HasBufferPods`); consolidation skips empty nodes, so it stays.
pub(super) fn emptiness_candidate(m: &Model, info: &NodeInfo) -> bool {
    let hosts_buffer = !m.buffer_hosts.is_empty() && m.buffer_hosts.contains(&m.nodes[info.node].name);
    info.blocker.is_none() && info.empty && !hosts_buffer
}

/// Whether consolidation's filter (consolidation.go, `ShouldDisrupt`) keeps the node: a
/// candidate with no blocker, not empty (emptiness takes those), of a known pool.
pub(super) fn consolidation_candidate(info: &NodeInfo) -> bool {
    info.blocker.is_none() && !info.empty && info.pool.is_some()
}

/// Non-empty consolidation candidates (§4.2).
fn consolidation_candidates(infos: &[NodeInfo]) -> Vec<usize> {
    (0..infos.len()).filter(|&i| consolidation_candidate(&infos[i])).collect()
}

/// Existing nodes that may not receive moved pods: inside their own pool's consolidateAfter
/// window (D-5.9). `Never` and `0s` pools never gate. Ascending (`has_home` searches it).
fn gated_nodes(m: &Model, now: i64) -> Vec<usize> {
    (0..m.nodes.len())
        .filter(|&i| {
            let n = &m.nodes[i];
            let Some(pool) = n.nodepool.as_deref().and_then(|np| m.node_pools.iter().find(|p| p.name == np)) else { return false };
            match pool.disruption.consolidate_after {
                Some(after) if after > 0 && n.managed => {
                    let t0 = n.consolidation_reference().unwrap_or(i64::MIN / 2);
                    now - t0 < after
                }
                _ => false,
            }
        })
        .collect()
}

/// Worst launch price of an option (D-11.1.1): the most expensive compatible launchable offering
/// of the first capacity type (reserved, spot, on-demand) that has one. Launchable, as
/// Karpenter's `WorstLaunchPrice(Launchable())`: a full reservation is available at a tiny
/// price but would launch on-demand or spot.
fn worst_price(m: &Model, it: u32, r: &crate::requirements::Requirements) -> f64 {
    let offs: Vec<&crate::catalog::Offering> =
        m.catalog.types[it as usize].offerings.iter().filter(|o| launch::launchable(o, m) && offering_compatible(o, r, m)).collect();
    for ct in [m.keys.reserved, m.keys.spot, m.keys.on_demand] {
        let prices: Vec<f64> = offs.iter().filter(|o| o.capacity_type == ct).map(|o| o.price).collect();
        if !prices.is_empty() {
            return prices.into_iter().fold(f64::MIN, f64::max);
        }
    }
    f64::INFINITY
}

/// The price multi-node consolidation's same-type guard gives node `n` of instance type `it`
/// (Karpenter's `filterOutSameInstanceType`): the cheapest of the type's offerings compatible with
/// every label of the node, or None when none is. Unlike the candidate's price (the offering of
/// its zone and capacity type alone, `node_price`), this reads the node's reservation labels too:
/// the AWS provider's on-demand and spot offerings require the three reservation labels absent
/// (offering/base_resolver.go), so a node carrying one — even with an empty value — matches none
/// of them, and a reserved offering matches only a node whose reservation labels are its own.
fn label_price(m: &Model, n: &crate::model::ExistingNode, it: u32) -> Option<f64> {
    let label = |k| n.labels.get(k);
    let reservation_keys = m.keys.reservation_keys();
    m.catalog.types[it as usize]
        .offerings
        .iter()
        .filter(|o| label(m.keys.zone).is_none_or(|z| z == o.zone))
        .filter(|o| label(m.keys.capacity_type).is_none_or(|c| c == o.capacity_type))
        .filter(|o| match crate::catalog::resolve::reservation_of(m, o) {
            Some(res) => reservation_keys.iter().all(|&k| label(k).is_none_or(|v| v == crate::catalog::resolve::label_value(res, k, m))),
            None => !m.catalog.is_aws() || reservation_keys.iter().all(|&k| label(k).is_none()),
        })
        .map(|o| o.price)
        .reduce(f64::min)
}

/// What every consolidation attempt of one pass shares: they all re-schedule over the same
/// model at the same `now`, so the scheduling baseline, the pending pods and the gated nodes
/// are computed once per pass (at the first attempt) instead of once per attempt.
pub(crate) struct Attempts<'m> {
    m: &'m Model,
    now: i64,
    /// Pass over single-node candidates that provably cannot be consolidated without
    /// re-scheduling them (see `hopeless_alone`). Their verdict then says nothing about them, so
    /// only callers that use the decision alone (the simulator) ask for it.
    pass_over_hopeless: bool,
    /// Carried over from the previous pass of a series (the simulator's), if any.
    memo: std::cell::RefCell<Option<&'m mut scheduling::BaselineMemo>>,
    shared: std::cell::OnceCell<Shared>,
    /// Balanced denominators per pool, from every node of the pass.
    totals: Vec<balanced::Totals>,
}

struct Shared {
    base: scheduling::Baseline,
    pending: Vec<usize>,
    /// The pods of nodes already deleting that the simulation re-places (`deleting_node_pods`).
    deleting: Vec<usize>,
    gated: Vec<usize>,
    /// `cheapest_holding` by requests, as computed in this pass.
    holding: std::cell::RefCell<Vec<(crate::resources::Resources, f64)>>,
    /// Per (pod spec, bound): the existing nodes that could take such a pod (`has_home`), the
    /// first `HOMES_KEPT`, and whether that is all of them.
    homes: std::cell::RefCell<crate::fxhash::FxHashMap<(usize, bool), Homes>>,
}

/// The first existing nodes that could take a spec's pods, and whether they are all of them.
type Homes = (Vec<usize>, bool);

impl<'m> Attempts<'m> {
    pub fn new(
        m: &'m Model,
        infos: &[NodeInfo],
        now: i64,
        pass_over_hopeless: bool,
        memo: Option<&'m mut scheduling::BaselineMemo>,
    ) -> Self {
        let totals = balanced::totals(m, infos);
        Attempts { m, now, pass_over_hopeless, memo: std::cell::RefCell::new(memo), shared: std::cell::OnceCell::new(), totals }
    }

    fn shared(&self) -> &Shared {
        self.shared.get_or_init(|| {
            let m = self.m;
            let base = match self.memo.borrow_mut().as_deref_mut() {
                Some(memo) => scheduling::Baseline::remembering(m, memo),
                None => scheduling::Baseline::new(m),
            };
            Shared {
                base,
                pending: (0..m.pods.len()).filter(|&p| m.pods[p].is_pending() && m.pods[p].ignored.is_none()).collect(),
                deleting: super::deleting_node_pods(m, self.now),
                gated: gated_nodes(m, self.now),
                holding: Default::default(),
                homes: Default::default(),
            }
        })
    }
}

/// True when `compute` of the candidates `cands` is certain to be a rejection, shown without
/// re-scheduling. Call a candidate's pod homeless when no existing node outside `cands` could
/// take it (`ExistingState::could_accept` is a necessary condition for every placement the pass
/// could make there). A homeless pod must go to a new NodeClaim or stay unschedulable, so when
/// there is one the command needs a single replacement holding every homeless pod (two claims or
/// an unschedulable pod are rejections), and that replacement needs an option whose worst launch
/// price is below the candidates' price. Every option is an instance type of the claim's template
/// that holds the claim's requests (at least the homeless pods') plus the template's daemon
/// overhead, and its worst launch price is the price of one of its available offerings: when the
/// candidates cost no more than the cheapest available offering of every such type, no
/// replacement is cheaper.
fn hopeless(a: &Attempts, infos: &[NodeInfo], cands: &[usize]) -> bool {
    let m = a.m;
    let shared = a.shared();
    let nodes: Vec<usize> = cands.iter().map(|&i| infos[i].node).collect();
    let price: f64 = cands.iter().map(|&i| infos[i].price.unwrap_or(0.0)).sum();
    let mut homeless = crate::resources::Resources::new();
    let mut any = false;
    for &p in cands.iter().flat_map(|&i| infos[i].reschedulable.iter()) {
        let pod = &m.pods[p];
        if !shared.has_home(m, pod, &nodes) {
            homeless.add(&pod.requests);
            any = true;
        }
    }
    any && price <= shared.cheapest_holding(m, &homeless)
}

#[cfg(test)]
thread_local! {
    /// Existing nodes examined by `Shared::each_home` on this thread.
    pub(super) static HOME_TRIES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many of a spec's accepting existing nodes `Shared::homes` keeps: more than the largest
/// candidate set (multi-node prefixes stop at 100), so a kept list that is full always names a
/// node outside the candidates.
const HOMES_KEPT: usize = 128;

impl Shared {
    /// Whether an existing node outside `nodes` could take `pod` (`ExistingState::could_accept`,
    /// the pass's gating applied). Which nodes could is a property of the pod's spec and of
    /// whether it is bound, fixed for the pass, so it is listed once per spec (up to
    /// `HOMES_KEPT` nodes) instead of scanning every existing node for every pod of every
    /// candidate set: that scan was reported as a fifth of a simulated week's profile (issue 29).
    fn has_home(&self, m: &Model, pod: &crate::model::Pod, nodes: &[usize]) -> bool {
        let key = (pod.content_id(), pod.node_name.is_some());
        let outside = |list: &[usize]| list.iter().any(|n| !nodes.contains(n));
        let known = self.homes.borrow().get(&key).map(|(list, complete)| (outside(list), *complete));
        let (found, complete) = known.unwrap_or_else(|| {
            let (mut list, mut complete) = (Vec::new(), true);
            self.each_home(m, pod, |n| {
                complete = list.len() < HOMES_KEPT;
                complete && {
                    list.push(n);
                    true
                }
            });
            let found = outside(&list);
            self.homes.borrow_mut().insert(key, (list, complete));
            (found, complete)
        });
        if found || complete {
            return found;
        }
        // Every kept node is a candidate; past them (more than HOMES_KEPT candidates), look on.
        let mut found = false;
        self.each_home(m, pod, |n| {
            found = !nodes.contains(&n);
            !found
        });
        found
    }

    /// Calls `visit` with each existing node that could take `pod`, in order, while it returns
    /// true.
    fn each_home(&self, m: &Model, pod: &crate::model::Pod, mut visit: impl FnMut(usize) -> bool) {
        let mut tols = pod.tolerations.clone();
        tols.push(crate::taints::Toleration::prefer_no_schedule());
        for e in self.base.existing() {
            #[cfg(test)]
            HOME_TRIES.with(|t| t.set(t.get() + 1));
            // In the pass, `e.gated` is whether the node is gated (the baseline's is false).
            let gated = pod.node_name.is_some() && self.gated.binary_search(&e.node).is_ok();
            if !gated && e.could_accept(pod, &tols, m) && !visit(e.node) {
                return;
            }
        }
    }
}

impl Shared {
    /// The lowest price of an available offering of an instance type some template can launch
    /// with room for `requests` besides its daemon overhead (infinite when there is none).
    fn cheapest_holding(&self, m: &Model, requests: &crate::resources::Resources) -> f64 {
        if let Some((_, p)) = self.holding.borrow().iter().find(|(r, _)| r == requests) {
            return *p;
        }
        let mut best = f64::INFINITY;
        for t in self.base.templates() {
            for &i in &t.its {
                if !requests.fits_with(t.overhead(i), t.alloc(i, m)) {
                    continue;
                }
                for o in &m.catalog.types[i as usize].offerings {
                    if launch::launchable(o, m) && o.price.is_finite() {
                        best = best.min(o.price);
                    }
                }
            }
        }
        self.holding.borrow_mut().push((requests.clone(), best));
        best
    }
}

/// What Karpenter's SimulateScheduling gives for removing a candidate set: the solution, its
/// new NodeClaims that can be created (truncated options), and which pods were pending.
pub(super) struct Removal<'a> {
    pub sol: scheduling::Solution,
    pub claims: Vec<(usize, launch::FinalClaim)>,
    /// The pending pods of the simulation, ascending.
    pub pending: &'a [usize],
}

/// SimulateScheduling (disruption/helpers.go) of removing `cands` (indices into infos): their
/// pods re-scheduled with every pending pod and the pods of nodes already deleting. A pod that
/// is not pending and fails (or lands on an uninitialized node, or on a NodeClaim the option
/// truncation leaves short of minValues) refuses the removal (`AllNonPendingPodsScheduled`).
/// Consolidation's `compute` and the command validation (validation.rs) both start from it.
pub(super) fn simulate_removal<'a>(a: &'a Attempts, infos: &[NodeInfo], cands: &[usize]) -> Result<Removal<'a>, Rejection> {
    let m = a.m;
    let Shared { base, pending, deleting, gated, .. } = a.shared();
    let nodes: Vec<usize> = cands.iter().map(|&i| infos[i].node).collect();
    let mut pods: Vec<usize> = cands.iter().flat_map(|&i| infos[i].reschedulable.iter().copied()).collect();
    pods.extend(pending.iter().copied());
    // SimulateScheduling adds the pods of nodes already deleting too: they are not pending, so
    // they must place for the command to hold, and only an uninitialized node they land on is
    // no objection.
    pods.extend(deleting.iter().copied());
    // SimulateScheduling runs the scheduler without DisableReservedCapacityFallback: fallback mode.
    let sol = scheduling::solve_with(m, base, Some(&pods), &nodes, gated, scheduling::reserve::ReservedMode::Fallback, &[]);
    let is_pending = |p: &usize| pending.binary_search(p).is_ok();
    let mut failed: Vec<String> = sol.failures.iter().filter(|(p, _)| !is_pending(p)).map(|(p, _)| m.pods[*p].key()).collect();
    failed.extend(super::uninitialized_landings(m, &sol, |p| !is_pending(&p) && deleting.binary_search(&p).is_err()));
    if !failed.is_empty() {
        return Err(reject(ReasonCode::PodsDoNotFit, format!("not all pods would schedule: {}", failed.join(", "))));
    }
    // Karpenter truncates every new NodeClaim's options (MaxInstanceTypes) and, under Strict
    // minValues, drops a claim the truncation leaves short; its pods then fail to schedule,
    // which only matters for pods that are not pending.
    let mut claims = Vec::new();
    for (c, pc) in sol.claims.iter().enumerate() {
        match launch::finalize(c, pc, &sol.templates[pc.template], m) {
            Ok(fin) => claims.push((c, fin)),
            Err(_) if pc.pods.iter().all(is_pending) => {}
            Err(_) => {
                let stranded: Vec<String> = pc.pods.iter().filter(|p| !is_pending(p)).map(|&p| m.pods[p].key()).collect();
                return Err(reject(
                    ReasonCode::PodsDoNotFit,
                    format!("not all pods would schedule: {} (their NodeClaim cannot meet minValues)", stranded.join(", ")),
                ));
            }
        }
    }
    Ok(Removal { sol, claims, pending })
}

/// Simulate removing `cands` (indices into infos) and compute the command (§11).
///
/// The simulation re-schedules the candidates' pods together with every pending pod Karpenter
/// would provision (its SimulateScheduling adds them), and every NodeClaim it opens counts,
/// including one that holds only pending pods: none is a delete, one is the replacement that
/// must be cheaper than the candidates, two or more refuse the move. Pending pods that fail to
/// schedule do not matter; any other pod that fails refuses it.
fn compute(a: &Attempts, infos: &[NodeInfo], cands: &[usize], multi: bool) -> Result<Command, Rejection> {
    let m = a.m;
    let Removal { sol, mut claims, pending } = simulate_removal(a, infos, cands)?;
    let is_pending = |p: &usize| pending.binary_search(p).is_ok();
    let nodes: Vec<usize> = cands.iter().map(|&i| infos[i].node).collect();
    let method = if multi { Method::MultiNodeConsolidation } else { Method::SingleNodeConsolidation };
    let candidate_price: f64 = cands.iter().map(|&i| infos[i].price.unwrap_or(0.0)).sum();
    if claims.is_empty() {
        return approve(
            a,
            infos,
            cands,
            Command { method, cands: cands.to_vec(), nodes, replacement: None, scores: vec![], ties: vec![] },
            candidate_price,
        );
    }
    if claims.len() > 1 {
        let only_pending = claims.iter().filter(|(c, _)| sol.claims[*c].pods.iter().all(is_pending)).count();
        let why = if only_pending > 0 {
            format!(" ({only_pending} of them only for pending pods, which Karpenter's simulation schedules too)")
        } else {
            String::new()
        };
        return Err(reject(ReasonCode::PodsDoNotFit, format!("can't remove without creating {} nodes{why}", claims.len())));
    }
    let (c, fin) = claims.swap_remove(0);
    let pc = &sol.claims[c];
    let t = &sol.templates[pc.template];
    // FinalizeScheduling's pin: a replacement that reserved a free slot keeps only reserved
    // offerings, so the price filter below leaves only the types of its reservations.
    let mut r = launch::launch_requirements(pc, m).into_owned();
    let all_spot = cands.iter().all(|&i| m.nodes[infos[i].node].capacity_type.as_deref() == Some(crate::labels::SPOT));
    let admits = |r: &crate::requirements::Requirements, ct| r.get(m.keys.capacity_type).is_none_or(|c| c.has(ct, &m.interner));
    let mut options = fin.options;
    if all_spot && admits(&r, m.keys.spot) {
        if !m.settings.feature_gates.spot_to_spot_consolidation {
            return Err(reject(
                ReasonCode::SpotToSpotDisabled,
                "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node (feature gate SpotToSpotConsolidation=false)"
                    .into(),
            ));
        }
        r.add(m.keys.capacity_type, Requirement::in_values([m.keys.spot]), &m.interner);
        options.retain(|&i| m.catalog.types[i as usize].offerings.iter().any(|o| o.available && offering_compatible(o, &r, m)));
    }
    options.retain(|&i| worst_price(m, i, &r) < candidate_price);
    if options.is_empty() {
        return Err(reject(
            ReasonCode::NotCheaper,
            format!("can't replace with a cheaper node: every option's worst launch price is at least ${}", round_price(candidate_price)),
        ));
    }
    if crate::scheduling::claim::has_min_values(&r) && crate::scheduling::claim::min_values_shortfall(&options, &r, m).is_some() {
        return Err(reject(ReasonCode::NotCheaper, "filtering by price breaks minValues".into()));
    }
    if all_spot && admits(&r, m.keys.spot) && !multi {
        if options.len() < 15 {
            return Err(reject(
                ReasonCode::NotCheaper,
                format!(
                    "SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to consolidate, got {}",
                    options.len()
                ),
            ));
        }
        // Karpenter keeps the 15 cheapest options, or with minValues the shortest cheapest prefix
        // that meets them when that is longer (consolidation.go, computeSpotToSpotConsolidation).
        let keep = if crate::scheduling::claim::has_min_values(&r) { 15.max(min_values_prefix(&options, &r, m)) } else { 15 };
        options.truncate(keep);
    }
    // D-11.1.4: the price check assumed spot; a replacement that may be spot must be spot.
    if admits(&r, m.keys.spot) && admits(&r, m.keys.on_demand) {
        let any_spot = options.iter().any(|&i| {
            m.catalog.types[i as usize]
                .offerings
                .iter()
                .any(|o| o.available && o.capacity_type == m.keys.spot && offering_compatible(o, &r, m))
        });
        if any_spot {
            r.add(m.keys.capacity_type, Requirement::in_values([m.keys.spot]), &m.interner);
        }
    }
    if multi {
        // Same-type guard (D-12.6): never replace several nodes with one of a type being
        // deleted unless strictly cheaper than the cheapest such node. Karpenter applies it
        // after the replacement was restricted to spot (multinodeconsolidation.go,
        // filterOutSameInstanceType, re-filters by worst launch price under the replacement's
        // requirements as they are then), so an option with no offering left under them (an
        // on-demand-only type once the replacement must be spot) goes too, even when no
        // candidate's type is among the options (its bound is then unlimited, and an option
        // without a compatible offering is never below it).
        let mut rf = r.clone();
        if admits(&rf, m.keys.spot) && admits(&rf, m.keys.on_demand) {
            rf.add(m.keys.capacity_type, Requirement::in_values([m.keys.spot]), &m.interner);
        }
        let max_price = options
            .iter()
            .filter_map(|&o| {
                let name = &m.catalog.types[o as usize].name;
                let mut any = false;
                let cheapest = cands
                    .iter()
                    .filter(|&&c| m.nodes[infos[c].node].instance_type.as_ref() == Some(name))
                    .filter_map(|&c| {
                        any = true;
                        label_price(m, &m.nodes[infos[c].node], o)
                    })
                    .reduce(f64::min);
                // No candidate of the type priced by its labels: Karpenter's price map has no
                // entry for the type and its lookup reads 0, so no option is below the bound.
                any.then(|| cheapest.unwrap_or(0.0))
            })
            .fold(f64::INFINITY, f64::min);
        options.retain(|&i| worst_price(m, i, &rf) < max_price);
        if options.is_empty() {
            return Err(reject(ReasonCode::NotCheaper, "the only cheaper replacement is a type being deleted".into()));
        }
        if crate::scheduling::claim::has_min_values(&rf) && crate::scheduling::claim::min_values_shortfall(&options, &rf, m).is_some() {
            return Err(reject(ReasonCode::NotCheaper, "filtering by price breaks minValues".into()));
        }
    }
    let chosen = launch::choose_launch(&options, &r, m);
    let name = |i: u32| m.catalog.types[i as usize].name.clone();
    let mut pods: Vec<String> = pc.pods.iter().map(|&p| m.pods[p].key()).collect();
    pods.sort();
    // Karpenter's estimated savings price the replacement at the cheapest offering of its first
    // (cheapest) option, not at what the launch picks.
    let first = launch::min_price(options[0], &r, m);
    let replacement_price = if first.is_finite() && first < f64::MAX { first } else { 0.0 };
    let cmd = Command {
        method,
        cands: cands.to_vec(),
        nodes,
        replacement: Some(Replacement {
            node_pool: m.node_pools[t.pool].name.clone(),
            instance_type: chosen.as_ref().map(|l| name(l.it)),
            capacity_type: chosen.as_ref().map(|l| m.interner.str(l.capacity_type).to_string()),
            zone: chosen.as_ref().map(|l| m.interner.str(l.zone).to_string()),
            price_per_hour: chosen.as_ref().map(|l| round_price(l.price)),
            instance_type_options: options.iter().map(|&i| name(i)).collect(),
            pods,
            launch: chosen.map(|launch| crate::api::ChosenLaunch { pool: t.pool, launch }),
        }),
        scores: vec![],
        ties: vec![],
    };
    approve(a, infos, cands, cmd, candidate_price - replacement_price)
}

/// The length of the shortest prefix of `options` (cheapest first) whose types meet every
/// minValues of `r`, or all of them when none does (Karpenter's InstanceTypes.SatisfiesMinValues).
fn min_values_prefix(options: &[u32], r: &crate::requirements::Requirements, m: &Model) -> usize {
    (1..=options.len()).find(|&k| crate::scheduling::claim::min_values_shortfall(&options[..k], r, m).is_none()).unwrap_or(options.len())
}

/// The Balanced scoring of a command that would otherwise go ahead (D-16.5): rejected when a
/// Balanced pool among the candidates scores below its threshold.
fn approve(a: &Attempts, infos: &[NodeInfo], cands: &[usize], mut cmd: Command, savings: f64) -> Result<Command, Rejection> {
    let m = a.m;
    let what = if cmd.replacement.is_some() { ScoredMove::Replace } else { ScoredMove::Delete };
    let (ok, scores) = balanced::evaluate(m, infos, &a.totals, cands, savings);
    if !ok {
        let (pool, s) =
            scores.iter().find(|(_, s)| !s.approved()).copied().unwrap_or((0, balanced::score_move(0.0, 0.0, Default::default())));
        return Err(Rejection(
            ReasonCode::BelowBalancedThreshold,
            s.rejection(m, pool, what).message,
            Some(Box::new(s.out(m, pool, what))),
        ));
    }
    cmd.scores = scores.iter().map(|(p, s)| s.out(m, *p, what)).collect();
    Ok(cmd)
}

/// Multi-node consolidation (§12): binary search over prefixes of ≥ 2 candidates. A Balanced
/// rejection makes a prefix invalid like any other.
pub(crate) fn multi_node(a: &Attempts, infos: &[NodeInfo], verdicts: &mut IndexMap<usize, Vec<Reason>>) -> Option<Command> {
    let (m, now) = (a.m, a.now);
    let sorted = by_savings(m, infos, consolidation_candidates(infos));
    let mut budgets: IndexMap<usize, Option<i64>> = IndexMap::new();
    let mut list = Vec::new();
    for &i in &sorted {
        let pool = infos[i].pool?;
        let b = budgets.entry(pool).or_insert_with(|| pool_budget(m, pool, "Underutilized", now));
        match b {
            Some(0) => {
                let v = verdicts.entry(infos[i].node).or_default();
                if !v.iter().any(|r| r.code == ReasonCode::Budget) {
                    v.push(budget_reason(m, pool, "Underutilized"));
                }
            }
            Some(n) => {
                *n -= 1;
                list.push(i);
            }
            None => list.push(i),
        }
    }
    if list.len() < 2 {
        return None;
    }
    let max = list.len().min(100);
    let (mut lo, mut hi) = (1usize, if list.len() <= max { list.len() - 1 } else { max });
    let mut best: Option<Command> = None;
    while lo <= hi && !crate::interrupt::poll() {
        let mid = (lo + hi) / 2;
        // A provably hopeless prefix is a rejection: the search takes the same path.
        let attempt = if a.pass_over_hopeless && hopeless(a, infos, &list[..=mid]) {
            Err(reject(ReasonCode::NotCheaper, String::new()))
        } else {
            compute(a, infos, &list[..=mid], true)
        };
        match attempt {
            Ok(cmd) => {
                best = Some(cmd);
                lo = mid + 1;
            }
            Err(_) => {
                if mid == 0 {
                    break;
                }
                hi = mid - 1;
            }
        }
    }
    if let Some(cmd) = best.as_mut().filter(|_| a.discloses()) {
        // Which equally ranked nodes make the budget cut or the prefix is Karpenter's arbitrary
        // order; other members of a group the command splits are as likely.
        let all = pool_budgets(m, "Underutilized", now);
        cmd.ties = ties::cut_groups(m, infos, &sorted, &cmd.cands, &|p| all[p], false);
    }
    best
}

/// Single-node consolidation (§13): candidates by savings, interleaved across pools; the first
/// that yields a command wins. Every candidate tried before records why it stayed, and its
/// Balanced score when the scoring decided.
pub(crate) fn single_node(
    a: &Attempts,
    infos: &[NodeInfo],
    verdicts: &mut IndexMap<usize, Vec<Reason>>,
    scores: &mut IndexMap<usize, BalancedScore>,
) -> Option<Command> {
    let (m, now) = (a.m, a.now);
    let sorted = by_savings(m, infos, consolidation_candidates(infos));
    let mut groups: IndexMap<usize, Vec<usize>> = IndexMap::new();
    for i in sorted {
        groups.entry(infos[i].pool.unwrap_or(0)).or_default().push(i);
    }
    let longest = groups.values().map(Vec::len).max().unwrap_or(0);
    // Interleaved: each pool's best, then each pool's second, ... Karpenter visits the pools of
    // a round in Go map order (`shuffleCandidates` ranges over `lo.Keys`), nodecast in the order
    // of their best candidates; `round` keeps which round each entry of `order` belongs to.
    let (order, round): (Vec<usize>, Vec<usize>) =
        (0..longest).flat_map(|k| groups.values().filter_map(move |g| g.get(k).map(|&i| (i, k)))).unzip();
    // Each pool's budget, counted the first time one of its candidates asks (the model does
    // not change during the pass).
    let mut budgets: Vec<Option<Option<i64>>> = vec![None; m.node_pools.len()];
    for (at, &i) in order.iter().enumerate() {
        if crate::interrupt::poll() {
            return None;
        }
        let pool = infos[i].pool?;
        if *budgets[pool].get_or_insert_with(|| pool_budget(m, pool, "Underutilized", now)) == Some(0) {
            let v = verdicts.entry(infos[i].node).or_default();
            if !v.iter().any(|r| r.code == ReasonCode::Budget) {
                v.push(budget_reason(m, pool, "Underutilized"));
            }
            continue;
        }
        if let Some(s) = balanced::cannot_pass(m, &infos[i], &a.totals) {
            let what = ScoredMove::DeleteBestCase;
            verdicts.entry(infos[i].node).or_default().push(s.rejection(m, pool, what));
            scores.insert(infos[i].node, s.out(m, pool, what));
            continue;
        }
        if a.pass_over_hopeless && hopeless(a, infos, &[i]) {
            continue;
        }
        match compute(a, infos, &[i], false) {
            Ok(mut cmd) => {
                if a.discloses() {
                    cmd.ties = single_node_tie(a, infos, &order[at + 1..], i);
                    let same_round: Vec<usize> =
                        order[at + 1..].iter().zip(&round[at + 1..]).filter(|&(_, &k)| k == round[at]).map(|(&j, _)| j).collect();
                    cmd.ties.extend(pool_order_tie(a, infos, &same_round, i, &budgets));
                }
                return Some(cmd);
            }
            Err(Rejection(code, msg, score)) => {
                verdicts.entry(infos[i].node).or_default().push(Reason {
                    code,
                    node_pool: Some(m.node_pools[pool].name.clone()),
                    message: msg,
                });
                if let Some(s) = score {
                    scores.insert(infos[i].node, *s);
                }
            }
        }
    }
    None
}

/// The candidates of the winner's pool that rank equal to it: Karpenter may try any of them
/// first, so each that would also yield a command could be its pick. The ones nodecast tried
/// before the winner were rejected; the ones after it (`rest`) are tried here.
fn single_node_tie(a: &Attempts, infos: &[NodeInfo], rest: &[usize], winner: usize) -> Vec<TieOut> {
    let key = infos[winner].savings_ratio();
    let also: Vec<usize> = rest
        .iter()
        .copied()
        .filter(|&j| infos[j].pool == infos[winner].pool && infos[j].savings_ratio().total_cmp(&key).is_eq())
        .filter(|&j| balanced::cannot_pass(a.m, &infos[j], &a.totals).is_none() && compute(a, infos, &[j], false).is_ok())
        .collect();
    if also.is_empty() {
        return Vec::new();
    }
    let mut group = also;
    group.push(winner);
    vec![ties::tie(a.m, infos, &group, 1, key)]
}

/// The other pools' candidates of the winner's round (`same_round`, the ones nodecast had not
/// tried yet) that would also yield a command: Karpenter tries the pools of a round in an
/// arbitrary order, so whichever of them comes first is its pick. The earlier rounds and the
/// pools tried before the winner in this one yielded nothing, whatever their order. A pool
/// whose budget is used up is skipped by Karpenter as here.
fn pool_order_tie(
    a: &Attempts,
    infos: &[NodeInfo],
    same_round: &[usize],
    winner: usize,
    budgets: &[Option<Option<i64>>],
) -> Option<TieOut> {
    let also: Vec<usize> = same_round
        .iter()
        .copied()
        .filter(|&j| {
            let Some(pool) = infos[j].pool else { return false };
            let budget = budgets[pool].unwrap_or_else(|| pool_budget(a.m, pool, "Underutilized", a.now));
            budget != Some(0) && balanced::cannot_pass(a.m, &infos[j], &a.totals).is_none() && compute(a, infos, &[j], false).is_ok()
        })
        .collect();
    if also.is_empty() {
        return None;
    }
    let mut group = also;
    group.push(winner);
    Some(ties::pool_order_tie(a.m, infos, &group))
}

impl Attempts<'_> {
    /// Ties are output only: a pass that only acts on the decision (the simulator's) skips the
    /// extra simulations they take.
    fn discloses(&self) -> bool {
        !self.pass_over_hopeless
    }
}
