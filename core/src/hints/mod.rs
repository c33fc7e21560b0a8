//! Fix hints for pods that stay pending: for each NodePool's reason, the smallest change that
//! would let the pod onto that NodePool — the toleration to add, the requirement value to admit
//! (on the pod or on the NodePool, instance-type labels, zones and capacity types), the limits
//! that let every pod the NodePool's limits hold back schedule, the minValues the allowed types
//! can meet, the topology constraint to make soft (or the zones to allow), the host port to give
//! up — and a re-plan with the change applied that says whether it is enough. A hint is never a
//! guess: the answer carries what the re-plan did (`verified` true only when the pod then
//! schedules).
//!
//! Work is bounded: one re-plan per distinct (pod spec, change) — replicas of one workload share
//! their spec and so their hints — one limit proposal per NodePool (two plans), and at most
//! [`MAX_REPLANS`] plans per answer; reasons past that budget get no hint rather than an
//! unchecked one.

mod admit;
mod edit;
mod limits;
mod overlay;

use crate::api::{Hint, UnschedulableOut};
use crate::model::Model;
use crate::reason::HintOutcome;
use crate::reason::ReasonCode;
use crate::requirements::Incompatible;
use crate::scheduling::claim::Template;
use crate::scheduling::topology::GroupKind;
use crate::scheduling::{Fail, Placement, PodFailure, Solution};
use admit::{admitting_edit, Side};
use edit::{apply, describe, Edit};
use limits::PoolLimitFix;
use std::collections::HashMap;

/// Plans one answer may spend on checking hints (each is a whole provisioning pass).
pub const MAX_REPLANS: usize = 16;

/// Pods all the hint re-plans of one answer may plan together. Each re-plan is a whole pass, so
/// 16 of them cost 16 answers: on 20,000 pods that was seconds of hints behind a 0.4 s plan,
/// and on 100,000 GPU pods held by a limit 43 s. Large inputs get fewer checks (none past
/// 64,000 pods), and the answer says how many pending pods went without one.
pub const MAX_REPLANNED_PODS: usize = 64_000;

/// The re-plans an answer over `pods` pods may spend.
pub fn replan_budget(pods: usize) -> usize {
    (MAX_REPLANNED_PODS / pods.max(1)).min(MAX_REPLANS)
}

/// Did the pod fail because reservations it could use are held by other NodeClaims of this
/// pass (it waits for the next pass)?
fn deferred(errs: &[(usize, Fail)]) -> bool {
    errs.iter().any(|(_, f)| matches!(f, Fail::Reserved(crate::scheduling::reserve::ReservedFail::HeldByOthers)))
}

/// The edits worth checking for one failure, best first, with the reason each answers.
type Proposals = Vec<(ReasonCode, Edit)>;

/// What a checked edit did for one pod, before it is judged against the NodePool the hint is
/// for (one pod-side edit may be proposed for several NodePools).
#[derive(Clone)]
enum Outcome {
    /// The pod schedules: on a NodeClaim or existing node of this NodePool (None: an unmanaged
    /// node), in words.
    Placed { pool: Option<usize>, went: String },
    /// It stays pending, with this code.
    Pending(&'static str),
}

/// What a checked edit did: (outcome for the hint's NodePool, the words).
type Checked = (HintOutcome, String);

/// Attach checked hints to `outs`, which holds the pods of `sol.failures` in that order.
/// Returns how many pending pods had a reason worth a hint that the re-plan budget
/// ([`replan_budget`]) left unchecked, and so without one.
pub(crate) fn attach(m: &Model, sol: &Solution, outs: &mut [UnschedulableOut]) -> usize {
    let mut unchecked = 0;
    // Per (spec, edit), what the re-plan did for each pending pod of that spec.
    let mut checked: HashMap<(usize, Edit), Option<HashMap<usize, Outcome>>> = HashMap::new();
    // Per NodePool: the checked limit fix and the pending codes of its re-plan, worked out once
    // (every held pod asks).
    let mut pool_limits: HashMap<usize, Option<Option<(PoolLimitFix, PendingCodes)>>> = HashMap::new();
    let mut budget = replan_budget(m.pods.len());
    let mut proposals: HashMap<(usize, usize), Vec<(Fail, Proposals)>> = HashMap::new();
    for ((p, failure), out) in sol.failures.iter().zip(outs.iter_mut()) {
        let PodFailure::PerPool(errs) = failure else { continue };
        // A pod whose reservation other NodeClaims of this pass hold is deferred, not stuck:
        // Karpenter retries it in the next pass (where those NodeClaims have launched and the
        // counts are EC2's again), and it needs no change to schedule. A re-plan could only
        // say that a change to another NodePool "is not enough alone" while the pod still
        // waits on the reservation: 16 such passes were 90 % of a plan with 100 reservations.
        if deferred(errs) {
            continue;
        }
        let mut starved = false;
        for (pool, fail) in errs {
            let node_pool = m.node_pools[*pool].name.clone();
            if matches!(fail, Fail::Limits { .. } | Fail::NodesLimit) {
                // None: the budget did not allow the check (it needs at least two plans).
                let fix = pool_limits.entry(*pool).or_insert_with(|| {
                    (budget >= 2).then(|| {
                        limits::pool_fix(m, sol, *pool, &mut budget).map(|f| {
                            let codes = PendingCodes::new(&f.solution);
                            (f, codes)
                        })
                    })
                });
                let Some(fix) = fix else {
                    starved = true;
                    continue;
                };
                // A pod that stays pending even with the limits lifted gets no limit hint: no
                // limit value would schedule it.
                if let Some((fix, codes)) = fix.as_ref().filter(|(f, _)| f.held.contains(p)) {
                    let (outcome, check) = limit_check(m, *p, *pool, fix, codes);
                    out.hints.push(Hint {
                        code: ReasonCode::LimitExceeded,
                        node_pool,
                        change: describe(m, *p, &fix.edit),
                        verified: outcome == HintOutcome::Verified,
                        outcome,
                        check,
                    });
                }
                continue;
            }
            // With the budget spent, only a replica of an already checked spec can still get a
            // hint; working out the edits of a pod of its own (a catalog scan) would be wasted.
            if budget == 0 && !m.pods[*p].spec_shared() {
                starved = true;
                continue;
            }
            // Candidates in order of preference: the first the re-plan verifies is the hint;
            // when none is enough, the first, with what its re-plan found.
            let mut shown: Option<(ReasonCode, Edit, Checked)> = None;
            // Pods of one spec content (replicas, or separate objects written alike) that fail
            // alike get the same proposals: worked out once, as each is a scan of the catalog.
            let spec = m.pods[*p].content_id();
            let known = proposals.entry((spec, *pool)).or_default();
            let edits = match known.iter().find(|(f, _)| f == fail) {
                Some((_, edits)) => edits.clone(),
                None => {
                    let edits = propose(m, sol, *p, *pool, fail);
                    known.push((fail.clone(), edits.clone()));
                    edits
                }
            };
            for (code, edit) in edits {
                let result = checked
                    .entry((m.pods[*p].spec_id(), edit.clone()))
                    .or_insert_with_key(|(spec, edit)| {
                        (budget > 0).then(|| {
                            budget -= 1;
                            let replicas: Vec<usize> = sol.failures.iter().map(|f| f.0).filter(|&q| m.pods[q].spec_id() == *spec).collect();
                            replan(m, *p, &replicas, edit)
                        })
                    })
                    .as_ref()
                    .map(|r| judge(m, *p, *pool, &r[p], "this change"));
                let Some(result) = result else {
                    starved = true;
                    break;
                };
                let done = result.0 == HintOutcome::Verified;
                if done || shown.is_none() {
                    shown = Some((code, edit, result));
                }
                if done {
                    break;
                }
            }
            if let Some((code, edit, (outcome, check))) = shown {
                let verified = outcome == HintOutcome::Verified;
                out.hints.push(Hint { code, node_pool, change: describe(m, *p, &edit), verified, outcome, check });
            }
        }
        // The fixes that work first: a pod held by its label selector should read the
        // selector fix before the limits of a NodePool it would not use anyway (stable, so
        // equal outcomes keep the NodePools' order).
        out.hints.sort_by_key(|h| h.outcome);
        unchecked += usize::from(starved && out.hints.is_empty());
    }
    unchecked
}

/// The edits worth checking for one NodePool's failure, best first, with the reason code each
/// answers (limits are handled per NodePool, by [`limits::pool_fix`]).
fn propose(m: &Model, sol: &Solution, p: usize, pool: usize, fail: &Fail) -> Vec<(ReasonCode, Edit)> {
    let Some(t) = sol.templates.iter().find(|t| t.pool == pool) else { return Vec::new() };
    match fail {
        Fail::Taint(taint) => vec![(ReasonCode::TaintNotTolerated, Edit::Tolerate(taint.clone()))],
        // An extended resource no type reports: only a NodeOverlay declaring it helps.
        Fail::NoType(_) if !overlay::unknown_resources(m, p).is_empty() => overlay::propose(m, t, p)
            .map(|(types, capacity)| vec![(ReasonCode::NoInstanceTypeFits, edit::Edit::Overlay { types, capacity })])
            .unwrap_or_default(),
        Fail::NoType(_) if !clashing_ports(m, t, p).is_empty() => {
            vec![(ReasonCode::HostPortConflict, Edit::DropHostPorts(clashing_ports(m, t, p)))]
        }
        // The pod's selector on a label no instance type carries (a NodePool's own label):
        // only a label change addresses it. Widening the NodePool's instance types, as the
        // admitting edit below would, leaves the selector failing (issue 30).
        Fail::Requirements(Incompatible::Undefined(k) | Incompatible::Conflict(k))
            if *k != m.keys.zone && *k != m.keys.capacity_type && !m.catalog.is_label_key(*k) =>
        {
            label_edit(m, t, p, pool, *k).into_iter().map(|e| (ReasonCode::RequirementConflict, e)).collect()
        }
        Fail::Requirements(_) | Fail::NoType(_) => {
            let pod_side = admitting_edit(m, t, p, Side::Pod);
            let pool_side = admitting_edit(m, t, p, Side::Pool);
            let edit = match (pod_side, pool_side) {
                (Some(a), Some(b)) if b.len() < a.len() => Edit::PoolRequirements { pool, keys: b },
                (Some(a), _) => Edit::PodRequirements(a),
                (None, Some(b)) => Edit::PoolRequirements { pool, keys: b },
                (None, None) => return Vec::new(),
            };
            vec![(ReasonCode::RequirementConflict, edit)]
        }
        Fail::MinValues { key, found, .. } => {
            // Only the NodePool's own minValues can be lowered; 0 values left is not a minValues
            // problem a smaller number fixes.
            let from = m.node_pools[pool].requirements.get(*key).and_then(|r| r.min_values);
            match from {
                Some(from) if *found > 0 && (*found as u32) < from => {
                    vec![(ReasonCode::MinValuesNotMet, Edit::MinValues { pool, key: *key, from, min: *found as u32 })]
                }
                _ => Vec::new(),
            }
        }
        Fail::Topology { kind, key } => {
            let mut out = Vec::new();
            // Zone spread or anti-affinity on a NodePool that allows fewer zones than its types
            // are offered in: allowing them is the edit that keeps the constraint.
            if *key == m.keys.zone && *kind != GroupKind::Affinity {
                if let Some(keys) = missing_zones(m, t, pool) {
                    out.push((ReasonCode::TopologyUnsatisfiable, Edit::PoolRequirements { pool, keys }));
                }
            }
            // Softening is offered only for a constraint the pod itself carries (another pod's
            // anti-affinity that excludes this one is not the pod's to relax).
            let pod = &m.pods[p];
            let own = match kind {
                GroupKind::Spread => pod.spread.iter().any(|c| c.key == *key),
                GroupKind::Affinity => pod.affinity.iter().any(|t| t.key == *key),
                GroupKind::AntiAffinity => pod.anti_affinity.iter().any(|t| t.key == *key),
            };
            if own {
                out.push((ReasonCode::TopologyUnsatisfiable, Edit::Soften { kind: *kind, key: *key }));
            }
            out
        }
        Fail::HostPort => {
            let pod = &m.pods[p];
            let mut ports: Vec<(i32, crate::labels::ValueId)> = pod
                .host_ports
                .iter()
                .filter(|h| t.groups.iter().any(|g| g.host_ports.iter().any(|d| d.conflicts(h))))
                .map(|h| (h.port, h.protocol))
                .collect();
            ports.sort_unstable();
            ports.dedup();
            if ports.is_empty() {
                Vec::new()
            } else {
                vec![(ReasonCode::HostPortConflict, Edit::DropHostPorts(ports))]
            }
        }
        Fail::Limits { .. } | Fail::NodesLimit | Fail::Resources | Fail::Reserved(_) | Fail::Dra(_) => Vec::new(),
    }
}

/// The label change that lets `p`'s selector on custom label `key` match NodePool `pool`: the
/// pod admits the NodePool's value (a conflict), or the NodePool gets the value the pod asks
/// for (a label it does not define). None when neither side names a single value to use.
fn label_edit(m: &Model, t: &Template, p: usize, pool: usize, key: crate::labels::KeyId) -> Option<Edit> {
    let first = |r: &crate::requirements::Requirement| {
        let mut vals: Vec<crate::labels::ValueId> = r.values.iter().copied().collect();
        vals.sort_by(|a, b| m.interner.str(*a).cmp(m.interner.str(*b)));
        (!r.complement).then(|| vals.first().copied()).flatten()
    };
    let pod_req = edit::pod_only_requirements(m, p);
    match t.requirements.get(key) {
        Some(pool_req) => {
            pod_req.get(key)?;
            Some(Edit::PodRequirements(vec![(key, first(pool_req)?)]))
        }
        None => Some(Edit::PoolLabel { pool, key, value: first(pod_req.get(key)?)? }),
    }
}

/// The pod's host ports a DaemonSet holds on every type of `t` that meets its requirements.
fn clashing_ports(m: &Model, t: &Template, p: usize) -> Vec<(i32, crate::labels::ValueId)> {
    let pod = &m.pods[p];
    let its = crate::fit::compatible_types(t, &crate::fit::pod_requirements(pod, t, m), m);
    let mut ports: Vec<(i32, crate::labels::ValueId)> =
        crate::fit::host_port_clash(m, t, pod, &its).into_iter().map(|(h, _)| (h.port, h.protocol)).collect();
    ports.sort_unstable();
    ports.dedup();
    ports
}

/// The zones the NodePool's types are offered in that its zone requirement leaves out, as
/// values to admit; None when it allows every one.
fn missing_zones(m: &Model, t: &Template, pool: usize) -> Option<Vec<(crate::labels::KeyId, crate::labels::ValueId)>> {
    let req = m.node_pools[pool].requirements.get(m.keys.zone)?;
    let mut zones: Vec<crate::labels::ValueId> = t
        .its
        .iter()
        .flat_map(|&i| m.catalog.types[i as usize].offerings.iter().filter(|o| o.available).map(|o| o.zone))
        .filter(|&z| !req.has(z, &m.interner))
        .collect();
    zones.sort_by(|a, b| m.interner.str(*a).cmp(m.interner.str(*b)));
    zones.dedup();
    (!zones.is_empty()).then(|| zones.into_iter().map(|z| (m.keys.zone, z)).collect())
}

/// Where `p` went in a plan: its NodePool and the words; None when it stays pending.
fn placed(m2: &Model, sol: &Solution, p: usize) -> Option<(Option<usize>, String)> {
    match sol.placements.get(&p)? {
        Placement::Claim(c) => {
            let pool = sol.templates[sol.claims[*c].template].pool;
            Some((Some(pool), format!("goes on a new NodeClaim of NodePool {}", m2.node_pools[pool].name)))
        }
        Placement::Existing(e) => {
            let node = &m2.nodes[sol.existing[*e].node];
            let pool = node.nodepool.as_deref().and_then(|n| m2.node_pools.iter().position(|np| np.name == n));
            Some((pool, format!("goes on existing node {}", node.name)))
        }
    }
}

/// A re-plan's outcome for `p`, judged for the hint on NodePool `pool`: verified only when the
/// pod lands on that NodePool (a pod-side change that sends it to another NodePool fixes the
/// pod, but not the way the hint says, so it is reported as landing elsewhere).
fn judge(m: &Model, p: usize, pool: usize, outcome: &Outcome, what: &str) -> Checked {
    let pod = m.pods[p].key();
    match outcome {
        Outcome::Placed { pool: Some(q), went } if *q == pool => {
            (HintOutcome::Verified, format!("verified: re-planned with {what}, {pod} {went}"))
        }
        Outcome::Placed { went, .. } => (
            HintOutcome::LandsElsewhere,
            format!("lands elsewhere: re-planned with {what}, {pod} {went}, not on NodePool {}", m.node_pools[pool].name),
        ),
        Outcome::Pending(code) => {
            (HintOutcome::NotEnoughAlone, format!("not enough alone: re-planned with {what}, {pod} still stays pending ({code})"))
        }
    }
}

/// The codes pods stay pending with in one plan, found without scanning: pod → position in
/// `sol.failures` (a scan per replica was quadratic), and the code worked out once per (spec,
/// failure), as replicas that fail alike share it (each is a scan of the NodePools' types).
struct PendingCodes {
    index: HashMap<usize, usize>,
    /// spec → (position of a failure, its code).
    by_spec: std::cell::RefCell<HashMap<usize, Vec<(usize, &'static str)>>>,
}

impl PendingCodes {
    fn new(sol: &Solution) -> PendingCodes {
        PendingCodes { index: sol.failures.iter().enumerate().map(|(i, (p, _))| (*p, i)).collect(), by_spec: Default::default() }
    }
}

/// The code `p` stays pending with in the plan `sol` over `m2` (`codes` indexes it).
fn pending_code(m2: &Model, sol: &Solution, codes: &PendingCodes, p: usize) -> &'static str {
    let Some(&i) = codes.index.get(&p) else { return "unschedulable" };
    let (q, f) = &sol.failures[i];
    let mut by_spec = codes.by_spec.borrow_mut();
    let known = by_spec.entry(m2.pods[*q].content_id()).or_default();
    if let Some((_, code)) = known.iter().find(|(j, _)| sol.failures[*j].1 == *f) {
        return code;
    }
    let code = crate::diagnostics::unschedulable(m2, sol, *q, f).code.as_str();
    known.push((i, code));
    code
}

/// Re-plan with `edit` applied (to `p` and the pods sharing its spec): for each pod of
/// `replicas` (the pending pods of that spec), where it goes or why it stays pending.
fn replan(m: &Model, p: usize, replicas: &[usize], edit: &Edit) -> HashMap<usize, Outcome> {
    let m2 = apply(m, p, edit);
    let sol = crate::scheduling::solve(&m2);
    let codes = PendingCodes::new(&sol);
    replicas.iter().map(|&q| (q, outcome(&m2, &sol, &codes, q))).collect()
}

fn outcome(m2: &Model, sol: &Solution, codes: &PendingCodes, q: usize) -> Outcome {
    match placed(m2, sol, q) {
        Some((pool, went)) => Outcome::Placed { pool, went },
        None => Outcome::Pending(pending_code(m2, sol, codes, q)),
    }
}

/// What the NodePool's limit proposal did for `p`, with how many of the pods its limits held
/// back schedule.
fn limit_check(m: &Model, p: usize, pool: usize, fix: &PoolLimitFix, codes: &PendingCodes) -> Checked {
    let (n, of) = (fix.scheduled, fix.held.len());
    let (outcome, words) = judge(m, p, pool, &outcome(&fix.model, &fix.solution, codes, p), "these limits");
    (outcome, format!("{words}; {n} of the {of} pending pods held back only by this NodePool's limits schedule"))
}
