//! `optimize`: the cheapest set of NodeClaims for the pods Karpenter's plan places, under the
//! same constraints, with a lower bound, beside Karpenter's plan.
//!
//! The pods Karpenter puts on existing nodes stay there, the pods it leaves pending stay out of
//! both sides, and the pods whose constraints the optimiser cannot express (topology spread,
//! pod affinity, anti-affinity beyond "one per node", host ports) keep Karpenter's NodeClaims;
//! every such exclusion is listed in `notOptimised`. The other pods are grouped by spec and
//! packed by `solve` onto the offerings `instance` finds compatible; `check` verifies the result
//! with the scheduler's predicates before it is answered.

pub(crate) mod affinity;
mod canonical;
mod check;
mod class;
pub(crate) mod existing;
mod flex;
pub mod gen;
mod group;
pub(crate) mod instance;
mod output;
mod replan;
pub mod running;
mod running_answer;
pub mod solve;
#[cfg(test)]
mod tests;
pub(crate) mod zones;

use crate::error::InputError;
use crate::model::{LimitKey, Model, Pod, PreferencePolicy, Unsatisfiable};
use crate::scheduling::{self, Placement, Solution};
use instance::{Group, LimitRow, Scope};
pub use output::{Optimization, OptimizedClaim, PodMove, Stats, HOURS_PER_MONTH};
use serde::{Deserialize, Serialize};
use solve::{Budget, Pattern};

/// Request options of `optimize` (`request.optimize`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct OptimizeSettings {
    /// Wall-clock budget of the whole call, seconds (default 10), read on the clock the front
    /// end lends (the CLI, Python and wasm do): Karpenter's plan, the pattern listing and each
    /// solver call take from what is left (the LP bound at most a quarter, the whole plan's
    /// bound, when needed, half of what the first solve leaves). When it binds, the best
    /// packing found so far is answered with its gap to the bound (and reruns may differ);
    /// without one, Karpenter's plan, marked. Without a lent clock only the solver calls are
    /// bounded, by static shares that add up to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_budget_seconds: Option<f64>,
    /// At most this many packing patterns are listed exhaustively (default 20,000); above it,
    /// patterns are generated and the answer says how far from the bound it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enumerate_limit: Option<usize>,
    /// Optimise the running cluster (needs `now`): the cheapest set of nodes, existing ones
    /// kept and new NodeClaims, for the pods that run now, beside what Karpenter's
    /// consolidation does (`running` in the answer). Nodes Karpenter can never disrupt (a pod
    /// that cannot be evicted, do-not-disrupt, unmanaged, ...) stay with their pods.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub running: bool,
}

/// Optimise a loaded model (`Cluster::optimize`): check the settings, plan as Karpenter,
/// optimise, compare. `warnings` are the loading warnings, carried into the answer.
/// `now`: the clock (Unix seconds, and as the answer shows it), needed by `settings.running`.
pub(crate) fn optimize(
    m: &Model,
    warnings: &[crate::api::Warning],
    settings: &OptimizeSettings,
    now: Option<(i64, &str)>,
) -> Result<Optimization, Vec<InputError>> {
    if let Some(s) = settings.time_budget_seconds {
        if !(s.is_finite() && s > 0.0 && s <= 3600.0) {
            let e = InputError::new("invalid-number", format!("timeBudgetSeconds {s} is not a number of seconds in (0, 3600]"))
                .path("optimize.timeBudgetSeconds")
                .help("a positive number of seconds, at most 3600");
            return Err(vec![e]);
        }
    }
    // The budget starts here, before Karpenter's own plan: with a lent clock it bounds the
    // whole call (issue 35: a 10 s budget answered after 17 s when the whole plan's bound ran
    // a second full-budget solve after the first).
    let budget = Budget::new(settings.time_budget_seconds.unwrap_or(10.0), settings.enumerate_limit.unwrap_or(20_000).min(1_000_000));
    let mut body = match now {
        Some((t, text)) if settings.running => running::run(m, budget, t, text),
        None if settings.running => Err(InputError::new("required", "optimize.running needs the clock: `now`")
            .path("now")
            .help("give the time of the pass, e.g. --now 2026-11-29T04:00:00Z")),
        _ => run(m, budget),
    }
    .map_err(|e| vec![e])?;
    body.warnings = warnings.to_vec();
    Ok(body)
}

/// Karpenter's claims as the optimiser sees them.
pub(crate) struct KarpenterClaim {
    pub name: String,
    pub pool: usize,
    pub launch: Option<scheduling::launch::Launch>,
    pub pods: Vec<usize>,
}

/// Why a pod keeps Karpenter's placement, if it must: the constraints that relate pods on
/// different nodes on keys other than the hostname and the zone. Hostname anti-affinity and
/// affinity, hostname spreads and host ports are in the model (`affinity`), zone rules too
/// (`zones`).
fn unexpressed(pod: &Pod, m: &Model) -> Option<&'static str> {
    let (host, zone) = (m.keys.hostname, m.keys.zone);
    let respect = m.settings.preference_policy == PreferencePolicy::Respect;
    let other_key = |k| k != host && k != zone;
    if pod.spread.iter().any(|s| other_key(s.key) && s.when_unsatisfiable == Unsatisfiable::DoNotSchedule) {
        return Some("topology spread on a key other than the hostname and the zone (DoNotSchedule)");
    }
    if respect && pod.spread.iter().any(|s| other_key(s.key)) {
        return Some("topology spread on a key other than the hostname and the zone (ScheduleAnyway, held under the Respect policy)");
    }
    if pod.affinity.iter().any(|t| other_key(t.key)) {
        return Some("required pod affinity on a key other than the hostname and the zone");
    }
    if pod.anti_affinity.iter().any(|t| other_key(t.key)) {
        return Some("pod anti-affinity on a key other than the hostname and the zone");
    }
    None
}

pub(crate) fn karpenter_claims(m: &Model, sol: &Solution) -> Vec<KarpenterClaim> {
    let (finals, _) = scheduling::launch::finalize_claims(m, sol);
    let names = scheduling::launch::claim_names(m, sol, &finals);
    finals
        .iter()
        .zip(names)
        .map(|(f, name)| {
            let pc = &sol.claims[f.claim];
            let mut pods = pc.pods.clone();
            pods.sort_unstable();
            KarpenterClaim { name, pool: sol.templates[pc.template].pool, launch: f.launch.clone(), pods }
        })
        .collect()
}

/// Pods other pods' cross-node terms select stay too: moving them would change what those
/// terms see. Hostname anti-affinity and hostname spreads of a kept pod see only its own
/// NodeClaim, which a moved pod leaves: they hold no pod back.
/// `kept`: the pods of kept NodeClaims, which hold what their affinity terms select too.
fn hold_selected(m: &Model, placed: &[usize], kept: &[usize], reason: &mut std::collections::BTreeMap<usize, &'static str>) {
    let host = m.keys.hostname;
    let mut seen_specs = std::collections::HashSet::new();
    let holders: Vec<usize> = reason.keys().chain(kept).copied().filter(|&q| seen_specs.insert(m.pods[q].spec_id())).collect();
    for &p in placed {
        let pod = &m.pods[p];
        let hit = |sel: &crate::model::Selector, ns: &Option<smallvec::SmallVec<[crate::labels::ValueId; 2]>>| {
            pod.in_namespaces(ns) && sel.matches(&pod.labels)
        };
        let selected = holders.iter().any(|&q| {
            let other = &m.pods[q];
            other.spread.iter().any(|s| s.key != host && pod.namespace_id == other.namespace_id && hit(&s.selector, &None))
                || other.affinity.iter().any(|t| hit(&t.selector, &t.namespaces))
                || other.anti_affinity.iter().any(|t| t.key != host && hit(&t.selector, &t.namespaces))
        });
        if selected {
            reason.entry(p).or_insert("selected by another pod's topology constraint");
        }
    }
}

// The error is the answer's only error, returned once per call.
#[allow(clippy::result_large_err)]
fn run(m: &Model, budget: Budget) -> Result<Optimization, InputError> {
    let sol = scheduling::solve(m);
    let claims = karpenter_claims(m, &sol);
    let mut notes: Vec<String> = Vec::new();
    // Pods Karpenter puts on existing nodes that the model places anew (`existing`): they and
    // the free room they took are in the model.
    let freed = existing::freed(m, &sol);
    // Pods other pods' cross-node terms select stay too: moving them would change what those
    // terms see. Hostname anti-affinity and hostname spreads of a kept pod see only its own
    // NodeClaim, which a moved pod leaves: they hold no pod back.
    let placed: Vec<usize> = claims.iter().flat_map(|c| c.pods.iter().copied()).collect();
    let mut reason: std::collections::BTreeMap<usize, &'static str> = Default::default();
    for &p in &placed {
        if let Some(r) = unexpressed(&m.pods[p], m).or_else(|| zones::unmodelled(p, m, &sol, &placed)) {
            reason.insert(p, r);
        } else if sol.relaxed.contains_key(&p) && affinity::host_affinity(&m.pods[p], m).next().is_some() {
            reason.insert(p, "required hostname affinity of a pod Karpenter placed only after relaxing its preferences or terms");
        }
    }
    // Karpenter checks a spread only when it places the spread's owner, so pods placed later may
    // push a node past maxSkew; the model holds every rule with all pods in place. Such a
    // NodeClaim is no seed (it breaks a rule) and the note says the optimum may cost more there.
    let breaks: Vec<bool> = claims.iter().map(|c| c.launch.is_some() && affinity::violation(m, &c.pods).is_some()).collect();
    // Keeping pods keeps their NodeClaims, whose other pods then stay too and count as fixed for
    // the zone rules of the rest: repeated until nothing changes (each round keeps more pods).
    let mut kept_before: Vec<usize> = Vec::new();
    let (kept, fixed) = loop {
        hold_selected(m, &placed, &kept_before, &mut reason);
        // A claim holding a pod that must stay is kept whole.
        let kept: Vec<bool> = claims.iter().map(|c| c.launch.is_none() || c.pods.iter().any(|p| reason.contains_key(p))).collect();
        let kept_list: Vec<usize> = claims.iter().zip(&kept).filter(|(_, k)| **k).flat_map(|(c, _)| c.pods.iter().copied()).collect();
        let mut fixed = zones::Placed::fixed(m, &sol);
        fixed.pods.retain(|(p, _)| freed.binary_search(p).is_err());
        for (c, _) in claims.iter().zip(&kept).filter(|(_, k)| **k) {
            if let (Some(l), Some(t)) = (&c.launch, sol.templates.iter().find(|t| t.pool == c.pool)) {
                fixed.add_site(zones::Site::claim(m, t, l.it, l.zone, l.capacity_type), &c.pods);
            }
        }
        let kept_set: std::collections::HashSet<usize> = kept_list.iter().copied().collect();
        let free: Vec<usize> = placed.iter().copied().filter(|p| !reason.contains_key(p) && !kept_set.contains(p)).collect();
        let mut changed = kept_list != kept_before;
        kept_before = kept_list.clone();
        // A required hostname affinity selecting a pod that stays can only be met beside it:
        // never on a new node. Nor can one that selects no other pod (Karpenter placed it
        // beside a pod the model does not move) or that Karpenter's own placement misses with
        // all pods in place.
        let staying: Vec<usize> = fixed.pods.iter().map(|&(q, _)| q).collect();
        let everyone: Vec<usize> = staying.iter().chain(&free).copied().collect();
        for &p in &free {
            let pod = &m.pods[p];
            let selects = |t: &crate::model::AffinityTerm, q: usize| {
                q != p && m.pods[q].in_namespaces(&t.namespaces) && t.selector.matches(&m.pods[q].labels)
            };
            for t in affinity::host_affinity(pod, m) {
                let why = if staying.iter().any(|&q| selects(t, q)) {
                    Some("required hostname affinity selecting pods that stay where they are")
                } else if !(free.iter().any(|&q| selects(t, q)) || (pod.in_namespaces(&t.namespaces) && t.selector.matches(&pod.labels))) {
                    Some("required hostname affinity selecting no pod the optimiser places")
                } else {
                    None
                };
                if let Some(why) = why {
                    reason.entry(p).or_insert(why);
                    changed = true;
                }
            }
        }
        for ((c, _), &broke) in claims.iter().zip(&kept).zip(&breaks).filter(|((c, k), _)| !**k && c.launch.is_some()) {
            // A NodeClaim breaking a hostname spread is re-packed from scratch (no seed): with
            // an affinity among its pods the model may then hold no packing at all (the
            // affinity needs a partner the spread caps), so such NodeClaims are kept.
            let affine = broke && c.pods.iter().any(|&p| affinity::host_affinity(&m.pods[p], m).next().is_some());
            if affine || affinity::unmet(m, &c.pods, &everyone).is_some() {
                let why = if affine {
                    "required hostname affinity on a NodeClaim of Karpenter's that breaks a hostname spread once all pods are in place"
                } else {
                    "required hostname affinity Karpenter's own placement misses once all pods are in place"
                };
                for &p in &c.pods {
                    reason.entry(p).or_insert(why);
                }
                changed = true;
            }
        }
        let mut by_spec: std::collections::HashMap<usize, bool> = Default::default();
        for &p in &free {
            let pod = &m.pods[p];
            if *by_spec.entry(pod.spec_id()).or_insert_with(|| zones::spread_selects_any(pod, m, &kept_list)) {
                reason.insert(p, "zone spread selecting pods on kept NodeClaims");
                changed = true;
            }
        }
        if !changed {
            // Karpenter's own placement of the free pods keeps their zone rules (see `zones`);
            // should it not, its pods keep their NodeClaims rather than seed a broken plan.
            let mut all = fixed.clone();
            for (c, _) in claims.iter().zip(&kept).filter(|(_, k)| !**k) {
                if let (Some(l), Some(t)) = (&c.launch, sol.templates.iter().find(|t| t.pool == c.pool)) {
                    all.add_site(zones::Site::claim(m, t, l.it, l.zone, l.capacity_type), &c.pods);
                }
            }
            if let Some((p, _)) = zones::violation(m, &all, &free) {
                let spec = m.pods[p].spec_id();
                for &q in free.iter().filter(|&&q| m.pods[q].spec_id() == spec) {
                    reason.insert(q, "zone rules Karpenter's own placement breaks once all pods are in place");
                }
                changed = true;
            }
        }
        if !changed {
            break (kept, fixed);
        }
    };
    let mut by_reason: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut kept_pods = 0;
    for (c, claim) in claims.iter().enumerate() {
        if kept[c] {
            kept_pods += claim.pods.len();
            for p in &claim.pods {
                *by_reason.entry(reason.get(p).copied().unwrap_or("shares a kept NodeClaim")).or_insert(0) += 1;
            }
        }
    }
    for (why, n) in &by_reason {
        notes.push(format!("{why}: {n} pod(s) keep Karpenter's NodeClaims"));
    }
    let remade = breaks.iter().zip(&kept).filter(|(b, k)| **b && !**k).count();
    if remade > 0 {
        notes.push(format!(
            "{BREAKS_SPREAD}: {remade} of Karpenter's NodeClaims hold more pods of a hostname spread's selection than its maxSkew once all their pods are in place (Karpenter checks a spread only when it places the spread's pod); the optimum holds every spread, and may cost more than Karpenter's plan for it"
        ));
    }
    let respect = m.settings.preference_policy == PreferencePolicy::Respect;
    let any_preferences = placed.iter().any(|&p| {
        let pod = &m.pods[p];
        !pod.preferred_terms.is_empty()
            || !pod.preferred_affinity.is_empty()
            || !pod.preferred_anti_affinity.is_empty()
            || (!respect && pod.spread.iter().any(|s| s.when_unsatisfiable == Unsatisfiable::ScheduleAnyway))
    });
    if any_preferences {
        notes.push("preferred node and pod affinities (and ScheduleAnyway spreads under the Ignore policy): soft, not optimised for (the optimum may ignore them)".into());
    }
    let stuck = sol.placements.iter().filter(|(p, pl)| matches!(pl, Placement::Existing(_)) && freed.binary_search(p).is_err()).count();
    if stuck > 0 {
        notes.push(format!("existing nodes: {stuck} pod(s) Karpenter puts on them keep that placement (their spreads or pod affinities, or another pod's terms selecting them, reach other nodes); the rest of the nodes' free room is in the model at no cost"));
    }
    let mut free: Vec<usize> = claims.iter().zip(&kept).filter(|(_, k)| !**k).flat_map(|(c, _)| c.pods.iter().copied()).collect();
    free.extend(freed.iter().copied());
    let (mut groups, group_index) = group_pods(m, free);
    let limits = limit_rows(m, &sol, &claims, &kept);
    let mut rules = affinity::rules(m, &mut groups);
    rules.zones = zones::rules(m, &groups, &fixed);
    let mut inst = instance::build(m, &sol.templates, groups, limits, rules);
    existing::add(&mut inst, m, existing::bins(m, &sol, &freed, false));
    // Karpenter's free claims as seed patterns: each fits some class (its own offering, or one
    // that beats it), so the optimum is never dearer than Karpenter's plan.
    let mut seeds = Vec::new();
    for (c, claim) in claims.iter().enumerate() {
        if kept[c] {
            continue;
        }
        let mut counts = vec![0u32; inst.groups.len()];
        for p in &claim.pods {
            counts[group_index[p]] += 1;
        }
        let best = (0..inst.classes.len())
            .filter(|&k| {
                let class = &inst.classes[k];
                // A seed keeps Karpenter's reservation use (none, or its own reservation), so
                // the seeds together respect every reservation's count.
                let own = claim.launch.as_ref().and_then(|l| l.reservation);
                // A seed with zoned pods stays in its zone, so the seeds together keep the zone rules.
                let zoned = counts.iter().enumerate().any(|(g, &n)| n > 0 && inst.rules.zones.zoned(g));
                let zone_ok = !zoned || claim.launch.as_ref().is_some_and(|l| l.zone == class.zone);
                class.pool == claim.pool
                    && zone_ok
                    && (class.reservation.is_none() || class.reservation == own)
                    && solve::fits(&inst, class, &counts)
            })
            .min_by(|&a, &b| inst.classes[a].price.total_cmp(&inst.classes[b].price).then(a.cmp(&b)));
        if let Some(class) = best {
            seeds.push(Pattern { class, counts });
        }
    }
    // Karpenter's use of each existing node's room is a seed too.
    for (k, class) in inst.classes.iter().enumerate() {
        let Some(b) = class.existing else { continue };
        let node = inst.bins[b].node;
        let mut counts = vec![0u32; inst.groups.len()];
        for (p, pl) in &sol.placements {
            if let (Placement::Existing(e), Some(&g)) = (pl, group_index.get(p)) {
                if sol.existing[*e].node == node {
                    counts[g] += 1;
                }
            }
        }
        if counts.iter().any(|&n| n > 0) && solve::fits(&inst, class, &counts) {
            seeds.push(Pattern { class: k, counts });
        }
    }
    // The whole plan's bound (below) is a second solve: when it will run, this one gets half
    // of what is left and the bound the rest, so the two together stay within the budget.
    let kept_any = kept.iter().zip(&claims).any(|(k, c)| *k && c.launch.is_some());
    let relaxed = existing::bins(m, &sol, &[], true);
    let terms = existing::with_terms(m);
    let barred = stuck > 0
        || inst.groups.iter().any(|g| {
            let pod = &m.pods[g.pods[0]];
            !existing::plain(m, g.pods[0], &terms) && relaxed.iter().any(|b| existing::allows(m, b, pod))
        });
    let needs_whole = kept_any || barred;
    let outcome = solve::solve(&inst, seeds, if needs_whole { budget.part(WHOLE_SHARE) } else { budget }).map_err(|e| {
        InputError::new("optimizer-failed", format!("the solver gave no packing: {e}"))
            .help("report this input; nodecast's plan is unaffected")
    })?;
    let nodes = output::assign(&inst, &outcome.chosen, &outcome.quota);
    check::verify(m, &sol.templates, &inst, &nodes, &fixed)?;
    // With NodeClaims kept, the bound of the free pods says nothing about the kept ones: the
    // bound of the whole plan comes from every pod Karpenter launches for, without the
    // constraints the model does not hold (a relaxation, so its optimum — or LP bound — is a
    // lower bound of every plan that keeps them all).
    let broken = breaks.iter().zip(&kept).any(|(b, k)| *b && *k);
    // The model's own bound covers every plan only when it holds every pod that could use an
    // existing node's room: none kept there, none barred from it for its rules alone (`barred`).
    let whole = needs_whole.then(|| whole_bound(m, &sol, &claims, budget.after(WHOLE_SHARE), broken));
    let answer = output::Answer { outcome: &outcome, whole_bound: whole, kept_pods };
    Ok(output::render(m, &inst, &claims, &kept, &nodes, &answer, notes, &sol))
}

/// Pods grouped by spec (identical replicas count as one group), in order of first pod, and
/// each pod's group.
fn group_pods(m: &Model, mut pods: Vec<usize>) -> (Vec<Group>, std::collections::HashMap<usize, usize>) {
    pods.sort_unstable();
    let dims = m.resources.len();
    let mut groups: Vec<Group> = Vec::new();
    let mut group_of_spec: std::collections::HashMap<usize, usize> = Default::default();
    let mut group_index: std::collections::HashMap<usize, usize> = Default::default();
    for &p in &pods {
        let pod = &m.pods[p];
        let key = if pod.spec_shared() { pod.spec_id() } else { usize::MAX - p };
        let g = *group_of_spec.entry(key).or_insert_with(|| {
            groups.push(Group { pods: Vec::new(), requests: (0..dims).map(|r| pod.requests.get(r as u16)).collect(), per_node: u32::MAX });
            groups.len() - 1
        });
        groups[g].pods.push(p);
        group_index.insert(p, g);
    }
    (groups, group_index)
}

/// The share of the time left that the free pods' solve gets when the whole plan's bound is
/// solved after it (that bound takes the rest).
const WHOLE_SHARE: f64 = 0.5;

/// The start of the note on Karpenter's NodeClaims that break a hostname spread in the final placement.
pub const BREAKS_SPREAD: &str = "hostname spreads held with every pod in place";

/// A lower bound of the whole plan's cost: every pod on Karpenter's launched NodeClaims packed
/// anew under the hostname rules, requirements, resources and limits, the cross-node
/// constraints dropped. Its proven optimum when the budget allows, else its LP bound.
/// `dynamic`: a kept NodeClaim of Karpenter's breaks a hostname spread in the final placement
/// (Karpenter checks a spread only when its owner is placed), so the bound drops the spreads
/// across groups too; anti-affinity and host ports Karpenter checks both ways, and a spread
/// that counts its own group caps that group in either reading.
fn whole_bound(m: &Model, sol: &Solution, claims: &[KarpenterClaim], budget: Budget, dynamic: bool) -> f64 {
    let mut pods: Vec<usize> = claims.iter().filter(|c| c.launch.is_some()).flat_map(|c| c.pods.iter().copied()).collect();
    pods.extend(sol.placements.iter().filter(|(_, pl)| matches!(pl, Placement::Existing(_))).map(|(&p, _)| p));
    pods_bound(m, sol, claims, pods, budget, dynamic)
}

/// [`whole_bound`] of the given pods (`pods`, a subset of the pods Karpenter places): the
/// same relaxation, packing only them on new NodeClaims and the existing nodes' room before
/// Karpenter's pass (bins that admit a pod by its requirements, taints and requests alone).
fn pods_bound(m: &Model, sol: &Solution, claims: &[KarpenterClaim], pods: Vec<usize>, budget: Budget, dynamic: bool) -> f64 {
    if pods.is_empty() {
        return 0.0;
    }
    let (mut groups, _) = group_pods(m, pods);
    let none_kept = vec![false; claims.len()];
    let rules = affinity::rules(m, &mut groups);
    let mut inst = instance::build(m, &sol.templates, groups, limit_rows(m, sol, claims, &none_kept), rules);
    existing::add(&mut inst, m, existing::bins(m, sol, &[], true));
    if dynamic {
        inst.rules.caps.clear();
    }
    // The affinities are dropped too: their pods may be among those kept for a reason the
    // model cannot hold, and fewer rules keep the bound a relaxation.
    inst.rules.relax_needs();
    match solve::solve(&inst, Vec::new(), budget) {
        Ok(o) if o.karpenter_plan.is_none() => o.lower_bound,
        // Only when the solve gave no bound of its own: the LP again, in what is left.
        _ => solve::lp_bound(&inst, budget.left().min(budget.seconds * solve::LP_SHARE)).map_or(0.0, |(b, _)| b),
    }
}

/// Per NodePool limit: what is left after existing nodes and the kept NodeClaims.
fn limit_rows(m: &Model, sol: &Solution, claims: &[KarpenterClaim], kept: &[bool]) -> Vec<LimitRow> {
    let mut rows = Vec::new();
    for t in &sol.templates {
        let np = &m.node_pools[t.pool];
        for &(key, limit) in &np.limits {
            let usage = |cap: &crate::resources::Resources| match key {
                LimitKey::Nodes => 1000,
                LimitKey::Resource(r) => cap.get(r),
            };
            let existing: i64 = m
                .nodes
                .iter()
                .filter(|n| n.nodepool.as_deref() == Some(np.name.as_str()) && !n.marked_for_deletion)
                .map(|n| usage(&n.capacity))
                .sum();
            let kept_use: i64 = claims
                .iter()
                .zip(kept)
                .filter(|(c, k)| **k && c.pool == t.pool)
                .filter_map(|(c, _)| c.launch.as_ref())
                .map(|l| usage(&m.catalog.types[l.it as usize].capacity))
                .sum();
            rows.push(LimitRow { scope: Scope::Pool { pool: t.pool, key }, remaining: limit - existing - kept_use });
        }
    }
    // Free reserved capacity: a reservation's AvailableInstanceCount (the instances already
    // running in it are not available) less the kept NodeClaims launched into it. Karpenter's
    // own pass never reserves more than that (scheduling::reserve), so its plan stays feasible.
    for (r, res) in m.reservations.iter().enumerate() {
        let r = r as u32;
        let offered = m.catalog.types.iter().any(|t| t.offerings.iter().any(|o| o.available && o.reservation == Some(r)));
        if !offered {
            continue;
        }
        let kept_use = claims.iter().zip(kept).filter(|(c, k)| **k && c.launch.as_ref().is_some_and(|l| l.reservation == Some(r))).count();
        rows.push(LimitRow { scope: Scope::Reservation(r), remaining: res.available - kept_use as i64 });
    }
    rows
}
