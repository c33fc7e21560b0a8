//! Node repair (Karpenter v1.15's NodeRepair gate): which Node conditions make a node
//! unhealthy, when Karpenter acts on them, and the Repair disruption method.
//!
//! Sources (sigs.k8s.io/karpenter@v1.15.0 unless named):
//! - Policies: the request's `settings.repairPolicies`, else the AWS provider's
//!   `CloudProvider.RepairPolicies()` (crate::repair_policies). The AWS reboot policy
//!   (transient GPU XIDs) replaces unless the provider's own `RebootForRepair` gate is on
//!   (default off, not an input nodecast takes), and a given RebootNode policy is refused, so
//!   every action here is a replacement.
//! - Matching and selection: pkg/controllers/node/health/policy.go. Per condition, the policies
//!   of its (type, status) whose reason pattern matches; when none does, the set's one
//!   fallback policy. A match is eligible at max(lastTransitionTime, Node creation) +
//!   toleration. Of the eligible ones the selected is the most disruptive action, then the
//!   higher priority, the earlier eligibility, the smaller condition type; the drain bound is
//!   the shortest policy termination grace period. Score = the highest over the eligible
//!   matches of dense priority rank + minutes since eligible ÷ 30 (all AWS policies share
//!   priority 0, so there the score is the waiting time).
//! - The method: pkg/controllers/disruption/repair.go. Candidates (Repair's class ignores the
//!   node's do-not-disrupt, an uninitialized node, and pods' do-not-disrupt and PDBs; types.go
//!   NewCandidate) with an eligible policy and no `karpenter.sh/do-not-repair: "true"`, sorted
//!   by score (highest first), disruption cost, name. A pool with more than 20 % of its Nodes
//!   matching any policy key (toleration or not) is skipped (the unhealthy breaker, percentage
//!   rounded up); an initialized candidate needs the pool's `Unhealthy` budget; the first whose
//!   pods all reschedule (fallback reservation mode, its blocked pods included) is replaced by
//!   the simulation's NodeClaims. The budget for `Unhealthy` does not count NotReady nodes as
//!   disrupting (helpers.go NodePoolStatsFromNodes).
//! - Terminate-first (helpers.go SimulateSchedulingWithReservedFallback): see `terminate_first`.

use super::*;
use crate::repair_policies::PolicySet;
use crate::scheduling;
use crate::scheduling::reserve::ReservedMode;

/// What a match keeps of its policy.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PolicyTerms {
    /// Seconds the condition must hold.
    pub toleration: i64,
    /// Seconds repair drains for at most.
    pub grace: Option<i64>,
    pub priority: i64,
    /// Dense rank of the priority in its set.
    pub rank: i64,
}

/// Whether some policy is keyed on this (type, status): what the unhealthy breaker counts.
fn keyed(set: &PolicySet, c: &NodeCondition) -> bool {
    set.keyed(&c.type_, &c.status)
}

use crate::model::NodeCondition;

/// One condition matched to one policy.
#[derive(Debug, Clone)]
pub(crate) struct Match {
    pub condition: usize,
    pub policy: PolicyTerms,
    /// None: the Node has neither a creation time nor a transition time (Go's zero time:
    /// eligible long ago).
    pub eligible_at: Option<i64>,
}

/// Every policy match of the node's conditions (RepairPolicyMatcher.Match).
pub(crate) fn matches(set: &PolicySet, n: &ExistingNode) -> Vec<Match> {
    let mut out = Vec::new();
    for (i, c) in n.conditions.iter().enumerate() {
        if !set.keyed(&c.type_, &c.status) {
            continue;
        }
        // A transition before the Node's creation counts from the creation.
        let since = match (c.last_transition, n.created) {
            (Some(t), Some(cr)) => Some(t.max(cr)),
            (t, cr) => t.or(cr),
        };
        let mut push = |p: &crate::repair_policies::Policy| {
            let terms = PolicyTerms { toleration: p.toleration, grace: p.grace, priority: p.priority, rank: p.rank };
            // After a reboot the toleration runs again from its end (health.Resolve's
            // notBefore): the rejoined node's conditions may not have caught up yet.
            let eligible_at = match (since.map(|s| s + p.toleration), n.reboot_finished.map(|r| r + p.toleration)) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            out.push(Match { condition: i, policy: terms, eligible_at })
        };
        let mut matched = false;
        for p in set.policies.iter().filter(|p| p.condition == c.type_ && p.status == c.status && !p.reason.is_fallback()) {
            if p.reason.matches(&c.reason) {
                matched = true;
                push(p);
            }
        }
        if !matched {
            // The set's one fallback policy, whatever the condition's type.
            if let Some(f) = set.fallback.and_then(|f| set.policies.get(f)) {
                push(f);
            }
        }
    }
    out
}

/// The policy decision for a node at `now` (health.Resolve, with no reboot history: every
/// action is a replacement).
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// The selected eligible match; None when no match is eligible yet.
    pub selected: Option<Match>,
    /// The match that becomes eligible first, when none is yet.
    pub pending: Option<Match>,
    /// Shortest policy grace of the eligible matches.
    pub grace: Option<i64>,
    /// The highest rank + minutes waited ÷ 30 over the eligible matches.
    pub score: f64,
}

pub(crate) fn resolve(set: &PolicySet, n: &ExistingNode, now: i64) -> Option<Resolved> {
    let all = matches(set, n);
    if all.is_empty() {
        return None;
    }
    let at = |m: &Match| m.eligible_at.unwrap_or(i64::MIN / 4);
    let eligible: Vec<&Match> = all.iter().filter(|m| at(m) <= now).collect();
    // Same action: the higher priority, then the earlier eligibility, then the smaller
    // condition type; the first seen wins a full tie (mergePolicy replaces only on a strict
    // improvement).
    let mut selected: Option<&Match> = None;
    for m in &eligible {
        let better = match selected {
            None => true,
            Some(s) => match (m.policy.priority.cmp(&s.policy.priority), at(m).cmp(&at(s))) {
                (std::cmp::Ordering::Greater, _) => true,
                (std::cmp::Ordering::Less, _) => false,
                (_, std::cmp::Ordering::Less) => true,
                (_, std::cmp::Ordering::Greater) => false,
                _ => n.conditions[m.condition].type_ < n.conditions[s.condition].type_,
            },
        };
        if better {
            selected = Some(m);
        }
    }
    let grace = eligible.iter().filter_map(|m| m.policy.grace).min();
    // mergeScore: the eligible match with the highest rank + age ÷ 30 minutes.
    let score_of = |m: &Match| m.policy.rank as f64 + (now.saturating_sub(at(m))) as f64 / 60.0 / 30.0;
    let score = eligible.iter().map(|m| score_of(m)).fold(None, |best: Option<f64>, s| Some(best.map_or(s, |b| b.max(s)))).unwrap_or(0.0);
    let pending = if selected.is_none() { all.iter().min_by_key(|m| at(m)).cloned() } else { None };
    Some(Resolved { selected: selected.cloned(), pending, grace, score })
}

fn rfc3339(unix: i64) -> String {
    jiff::Timestamp::from_second(unix).map(|t| t.to_string()).unwrap_or_else(|_| unix.to_string())
}

/// The answer's view of a node's repair policy.
pub(crate) fn out(n: &ExistingNode, r: &Resolved) -> Option<RepairOut> {
    let m = r.selected.as_ref().or(r.pending.as_ref())?;
    let c = &n.conditions[m.condition];
    let grace = r.grace.map(|g| n.termination_grace_period.map_or(g, |own| own.min(g)));
    Some(RepairOut {
        condition: c.type_.clone(),
        status: c.status.clone(),
        reason: c.reason.clone(),
        action: "replace".into(),
        toleration_seconds: m.policy.toleration,
        eligible_at: m.eligible_at.map_or_else(|| "the beginning (no creation or transition time)".into(), rfc3339),
        eligible: r.selected.is_some(),
        termination_grace_period_seconds: grace.filter(|_| r.selected.is_some()),
    })
}

/// Pools whose unhealthy breaker is tripped: more than 20 % (rounded up) of the Nodes with
/// the pool's label match a policy key (repair.go breakerTrippedPools). Keyed by label value.
fn tripped<'a>(m: &'a Model, set: &PolicySet) -> IndexMap<&'a str, (usize, usize)> {
    let mut counts: IndexMap<&str, (usize, usize)> = IndexMap::new();
    for n in m.nodes.iter().filter(|n| !n.in_flight) {
        let Some(pool) = n.nodepool.as_deref() else { continue };
        let e = counts.entry(pool).or_default();
        e.0 += 1;
        if n.conditions.iter().any(|c| keyed(set, c)) {
            e.1 += 1;
        }
    }
    counts.retain(|_, (total, unhealthy)| *unhealthy > (*total * 20).div_ceil(100));
    counts
}

/// What the Repair method decided.
pub(crate) struct Command {
    pub node: usize,
    pub replacements: Vec<Replacement>,
    pub terminate_first: Option<TerminateFirst>,
}

fn push_reason(verdicts: &mut IndexMap<usize, Vec<Reason>>, node: usize, code: ReasonCode, pool: Option<String>, message: String) {
    verdicts.entry(node).or_default().insert(0, Reason { code, node_pool: pool, message });
}

/// The Repair method (repair.go computeCommands) over resolved nodes; None when it issues no
/// command. Blocked candidates record why, first.
pub(crate) fn repair(
    m: &Model,
    infos: &[NodeInfo],
    resolved: &IndexMap<usize, Resolved>,
    now: i64,
    verdicts: &mut IndexMap<usize, Vec<Reason>>,
) -> Option<Command> {
    let gates = &m.settings.feature_gates;
    if !gates.node_repair {
        return None;
    }
    let mut order: Vec<usize> = Vec::new();
    for (i, info) in infos.iter().enumerate() {
        let Some(r) = resolved.get(&info.node) else { continue };
        let n = &m.nodes[info.node];
        if r.selected.is_none() {
            if let Some(p) = &r.pending {
                let c = &n.conditions[p.condition];
                push_reason(
                    verdicts,
                    info.node,
                    ReasonCode::RepairNotYet,
                    n.nodepool.clone(),
                    format!(
                        "{}={} ({}) matches a repair policy, but its {}m toleration runs until {}",
                        c.type_,
                        c.status,
                        if c.reason.is_empty() { "no reason" } else { &c.reason },
                        p.policy.toleration / 60,
                        p.eligible_at.map_or_else(String::new, rfc3339)
                    ),
                );
            }
            continue;
        }
        // Repair's candidate construction: unmanaged, deleting and unknown-pool nodes are no
        // candidates (their blocker verdict says so); do-not-disrupt, initialization and pod
        // blockers do not keep a node from being one.
        // Nor is a rebooting node, or an uninitialized one that never registered
        // (ValidateNodeDisruptable; Repair ignores only its NodeUninitializedError), nor an
        // initialized one a provisioning pass has just nominated (checked after initialization).
        if !n.managed
            || n.in_flight
            || n.marked_for_deletion
            || info.pool.is_none()
            || n.rebooting
            || (!n.initialized && !n.registered)
            || (n.initialized && n.nominated(now))
        {
            continue;
        }
        if n.do_not_repair {
            push_reason(
                verdicts,
                info.node,
                ReasonCode::DoNotRepair,
                n.nodepool.clone(),
                "repair is blocked through the \"karpenter.sh/do-not-repair\" annotation".into(),
            );
            continue;
        }
        let pod_blocked = matches!(&info.blocker, Some((ReasonCode::DoNotDisruptPod | ReasonCode::Pdb, _)));
        if pod_blocked && r.grace.is_none() && !n.has_termination_grace_period {
            push_reason(
                verdicts,
                info.node,
                ReasonCode::RepairUnbounded,
                n.nodepool.clone(),
                "repair requires a termination grace period to bypass blocking pods".into(),
            );
            continue;
        }
        order.push(i);
    }
    order.sort_by(|&a, &b| {
        let (ra, rb) = (&resolved[&infos[a].node], &resolved[&infos[b].node]);
        rb.score
            .partial_cmp(&ra.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(infos[a].rdc.partial_cmp(&infos[b].rdc).unwrap_or(std::cmp::Ordering::Equal))
            .then_with(|| super::map_order(&m.nodes[infos[a].node], &m.nodes[infos[b].node]))
    });
    let breaker = tripped(m, &m.repair_policies);
    let mut base = None;
    let mut deleting: Option<Vec<usize>> = None;
    for i in order {
        let info = &infos[i];
        let n = &m.nodes[info.node];
        let pool = info.pool?;
        let np = &m.node_pools[pool];
        if let Some((total, unhealthy)) = breaker.get(np.name.as_str()) {
            push_reason(
                verdicts,
                info.node,
                ReasonCode::UnhealthyThreshold,
                Some(np.name.clone()),
                format!(
                    "more than 20% of nodes in nodepool {:?} are unhealthy ({unhealthy} of {total}): Karpenter repairs none of them",
                    np.name
                ),
            );
            continue;
        }
        if n.initialized && !n.in_flight && pool_budget(m, pool, "Unhealthy", now) == Some(0) {
            push_reason(
                verdicts,
                info.node,
                ReasonCode::Budget,
                Some(np.name.clone()),
                format!("NodePool {:?} allows no more disruptions for reason Unhealthy now", np.name),
            );
            continue;
        }
        if np.is_static {
            match static_command(m, info, pool) {
                Ok(cmd) => return Some(cmd),
                Err(message) => {
                    push_reason(verdicts, info.node, ReasonCode::LimitExceeded, Some(np.name.clone()), message);
                    continue;
                }
            }
        }
        let base = base.get_or_insert_with(|| scheduling::Baseline::new(m));
        // Repair simulates every reschedulable pod, blocked ones included (IncludeBlockedCandidatePods).
        let moved = info.reschedulable.clone();
        let deleting = deleting.get_or_insert_with(|| super::deleting_node_pods(m, now));
        match reschedule(m, base, info, &moved, deleting, gates.terminate_first_repair) {
            Ok((replacements, terminate_first)) => return Some(Command { node: info.node, replacements, terminate_first }),
            Err(failed) => {
                push_reason(
                    verdicts,
                    info.node,
                    ReasonCode::PodsDoNotFit,
                    Some(np.name.clone()),
                    format!("unhealthy, but not all pods would schedule: {}", failed.join(", ")),
                );
            }
        }
    }
    None
}

/// A static pool's repair (repair.go, OwnedByStaticNodePool): a pool already above its
/// replicas is left to static deprovisioning; otherwise one NodeClaim of the pool's template
/// replaces the node when `limits.nodes` leaves room for it. At the limit, TerminateFirstRepair
/// deletes the node first when the pool is Ready (the static controller refills it).
fn static_command(m: &Model, info: &NodeInfo, pool: usize) -> Result<Command, String> {
    let np = &m.node_pools[pool];
    let mine = |n: &&ExistingNode| n.managed && n.nodepool.as_deref() == Some(np.name.as_str());
    let active = m.nodes.iter().filter(mine).filter(|n| !n.marked_for_deletion).count() as i64;
    let deleting = m.nodes.iter().filter(mine).filter(|n| n.marked_for_deletion).count() as i64;
    if active > np.replicas.unwrap_or(0) {
        return Err(format!(
            "static NodePool {:?} has {active} nodes for {} replicas: static deprovisioning, not repair, removes one",
            np.name,
            np.replicas.unwrap_or(0)
        ));
    }
    let gate = m.settings.feature_gates.terminate_first_repair;
    // With the gate: are all the template's offerings reserved and full? Then only the
    // candidate's own slot, if it holds an offered one, helps.
    let mut full = false;
    if gate {
        if let Some((all_full, offered)) = static_reservations(m, pool) {
            full = all_full;
            if full && !holds_offered_slot(m, info.node, &offered) {
                return Err("static NodePool's capacity reservations are full and cannot stage a replacement".into());
            }
        }
    }
    let limit = crate::static_pools::node_limit(&np.limits);
    if full || limit.is_some_and(|l| l - (active + deleting) <= 0) {
        if gate && np.ready {
            let why = if full { TerminateFirst::NoReservedCapacity } else { TerminateFirst::StaticAtLimit };
            return Ok(Command { node: info.node, replacements: Vec::new(), terminate_first: Some(why) });
        }
        return Err("static NodePool is at its node limit and cannot stage a replacement".into());
    }
    Ok(Command { node: info.node, replacements: vec![static_replacement(m, pool)?], terminate_first: None })
}

/// A static pool's replacement NodeClaim: its bare template, launched as a static NodeClaim
/// is (`static_pools::launch_choice`); an error when the requirements leave no type.
pub(super) fn static_replacement(m: &Model, pool: usize) -> Result<Replacement, String> {
    let np = &m.node_pools[pool];
    let Some((l, _)) = crate::static_pools::launch_choice(pool, m) else {
        return Err(format!("static NodePool {:?}'s requirements leave no launchable instance type for a replacement", np.name));
    };
    let name = m.catalog.types[l.it as usize].name.clone();
    Ok(Replacement {
        node_pool: np.name.clone(),
        instance_type: Some(name.clone()),
        capacity_type: Some(m.interner.str(l.capacity_type).to_string()),
        zone: Some(m.interner.str(l.zone).to_string()),
        price_per_hour: Some(round_price(l.price)),
        instance_type_options: vec![name],
        pods: Vec::new(),
        launch: Some(crate::api::ChosenLaunch { pool, launch: l }),
    })
}

/// Reschedule a candidate's `moved` pods (and the pending ones) without it, as a drift or
/// repair command does (helpers.go SimulateSchedulingWithReservedFallback): pass 1 in fallback
/// reservation mode; when pods stay pending, the gate is on and the candidate is a reserved
/// node with a reservation, pass 2 in strict mode with its slot credited back. Ok: the
/// replacements (pass 1) or the terminate-first verdict (pass 2); Err: the pods that fail.
pub(crate) fn reschedule(
    m: &Model,
    base: &scheduling::Baseline,
    info: &NodeInfo,
    moved: &[usize],
    deleting: &[usize],
    terminate_first: bool,
) -> Result<(Vec<Replacement>, Option<TerminateFirst>), Vec<String>> {
    let pending: Vec<usize> = (0..m.pods.len()).filter(|&p| m.pods[p].is_pending() && m.pods[p].ignored.is_none()).collect();
    let mut pods = moved.to_vec();
    pods.extend(pending.iter().copied());
    pods.extend(deleting.iter().copied());
    let sol = scheduling::solve_with(m, base, Some(&pods), &[info.node], &[], ReservedMode::Fallback, &[]);
    let failed = replacements_or_failures(m, &sol, moved, deleting);
    let failed = match failed {
        Ok(r) => return Ok((r, None)),
        Err(f) => f,
    };
    if terminate_first && fits_in_freed_slot(m, base, info.node, &pods, moved, deleting) {
        return Ok((Vec::new(), Some(TerminateFirst::NoReservedCapacity)));
    }
    Err(failed)
}

/// Terminate-first's second pass: the node is reserved, holds a slot of one of the input's
/// reservations, and with that slot credited back every moved pod places in strict mode
/// (a full reservation is not fallen through). Only then does deleting the node first help.
/// `deleting`: the pods of nodes already deleting among `pods` (they must place too, but an
/// uninitialized node they land on is no objection; see `deleting_node_pods`).
pub(crate) fn fits_in_freed_slot(
    m: &Model,
    base: &scheduling::Baseline,
    node: usize,
    pods: &[usize],
    moved: &[usize],
    deleting: &[usize],
) -> bool {
    let Some(res) = reserved_slot(m, &m.nodes[node]) else { return false };
    let sol = scheduling::solve_with(m, base, Some(pods), &[node], &[], ReservedMode::Strict, &[(res, 1)]);
    sol.failures.iter().all(|(p, _)| !moved.contains(p) && !deleting.contains(p))
        && super::uninitialized_landings(m, &sol, |p| moved.contains(&p)).is_empty()
}

/// The reservation a reserved node holds (its `karpenter.k8s.aws/capacity-reservation-id`
/// label, among the input's reservations), for terminate-first.
/// Whether a static pool's replacement (its bare template) could only land in full capacity
/// reservations, and which compatible reservations are still offered (helpers.go
/// `staticReservations`): a compatible offering that is not reserved, or a reserved one with
/// room, means no. None when the template leaves no type.
pub(super) fn static_reservations(m: &Model, pool: usize) -> Option<(bool, Vec<u32>)> {
    let t = scheduling::claim::build_template(pool, m)?;
    let mut offered: Vec<u32> = Vec::new();
    for &it in &t.its {
        for o in m.catalog.types[it as usize].offerings.iter().filter(|o| scheduling::offering_compatible(o, &t.requirements, m)) {
            let launchable = o.available && o.reservation.is_some_and(|r| m.reservations[r as usize].available > 0);
            if o.capacity_type != m.keys.reserved || launchable {
                return Some((false, offered));
            }
            offered.extend(o.reservation.filter(|_| o.available));
        }
    }
    Some((true, offered))
}

/// Does node `node` hold a slot of one of the `offered` reservations (helpers.go
/// `holdsOfferedReservation`)?
pub(super) fn holds_offered_slot(m: &Model, node: usize, offered: &[u32]) -> bool {
    reserved_slot(m, &m.nodes[node]).is_some_and(|r| offered.contains(&r))
}

fn reserved_slot(m: &Model, n: &ExistingNode) -> Option<u32> {
    if n.capacity_type.as_deref() != Some("reserved") {
        return None;
    }
    let id = n.labels.get(m.keys.reservation_id).map(|v| m.interner.str(v))?;
    m.reservations.iter().position(|r| r.id == id).map(|r| r as u32)
}

/// The NodeClaims a solution opens, or the moved pods that do not schedule.
fn replacements_or_failures(
    m: &Model,
    sol: &scheduling::Solution,
    moved: &[usize],
    deleting: &[usize],
) -> Result<Vec<Replacement>, Vec<String>> {
    let bound = |p: &usize| moved.contains(p) || deleting.contains(p);
    let mut failed: Vec<String> = sol.failures.iter().filter(|(p, _)| bound(p)).map(|(p, _)| m.pods[*p].key()).collect();
    failed.extend(super::uninitialized_landings(m, sol, |p| moved.contains(&p)));
    if !failed.is_empty() {
        return Err(failed);
    }
    let bound: Vec<usize> = moved.iter().chain(deleting).copied().collect();
    let (replacements, stranded) = replacements_of(m, sol, &bound);
    if stranded.is_empty() {
        Ok(replacements)
    } else {
        Err(stranded)
    }
}

/// With the NodeRepair gate off (Karpenter's default): one warning per managed node whose
/// condition is past its repair policy's toleration, naming the gate that would replace it.
pub(crate) fn gate_off_warnings(m: &Model, now: i64) -> Vec<Warning> {
    if m.settings.feature_gates.node_repair {
        return Vec::new();
    }
    m.nodes
        .iter()
        .filter(|n| n.managed && !n.in_flight && !n.marked_for_deletion)
        .filter_map(|n| {
            let r = resolve(&m.repair_policies, n, now)?;
            let s = r.selected.as_ref()?;
            let c = &n.conditions[s.condition];
            Some(Warning {
                code: "node-repair-disabled".into(),
                message: format!(
                    "{}={}{} has held past its {}m repair toleration: with the NodeRepair feature gate (--feature-gates NodeRepair=true) Karpenter would replace this node; the gate is off (Karpenter v1.15's default)",
                    c.type_,
                    c.status,
                    if c.reason.is_empty() { String::new() } else { format!(" ({})", c.reason) },
                    s.policy.toleration / 60
                ),
                object: Some(format!("Node/{}", n.name)),
            })
        })
        .collect()
}
