//! Fix hints for pods that stay pending: for each NodePool's reason, the smallest change that
//! would let the pod onto that NodePool — the toleration to add, the requirement value to admit
//! (on the pod or on the NodePool), the limit to raise — and a re-plan with the change applied
//! that says whether it is enough. A hint is never a guess: the answer carries what the re-plan
//! did (`verified` true only when the pod then schedules).
//!
//! Work is bounded: one re-plan per distinct (pod spec, change) — replicas of one workload share
//! their spec and so their hints — and at most [`MAX_REPLANS`](crate::hints::MAX_REPLANS) re-plans per answer; reasons past
//! that budget get no hint rather than an unchecked one.

use crate::api::{Hint, UnschedulableOut};
use crate::reason::ReasonCode;
use crate::fit::{closest_within_limits, limit_name, nodes_in_use};
use crate::labels::{KeyId, ValueId};
use crate::model::{LimitKey, Model};
use crate::quantity::format_milli;
use crate::requirements::{Requirement, Requirements};
use crate::resources::Resources;
use crate::scheduling::claim::Template;
use crate::scheduling::{offering_compatible, Fail, Placement, PodFailure, Solution};
use crate::taints::{Taint, Toleration, TolerationOp};
use std::collections::HashMap;
use std::sync::Arc;

/// Re-plans one answer may spend on checking hints (each is a whole provisioning pass).
pub const MAX_REPLANS: usize = 16;

/// A change to the input that may let a pod schedule.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Edit {
    /// Add a toleration of this taint to the pod (and its replicas).
    Tolerate(Taint),
    /// Set these limits of the NodePool (milli-units, as the model keeps them).
    Limits { pool: usize, limits: Vec<(LimitKey, i64)> },
    /// Widen the pod's requirements so each key admits the value.
    PodRequirements(Vec<(KeyId, ValueId)>),
    /// Widen the NodePool's requirements so each key admits the value.
    PoolRequirements { pool: usize, keys: Vec<(KeyId, ValueId)> },
}

/// Attach checked hints to `outs`, which holds the pods of `sol.failures` in that order.
pub fn attach(m: &Model, sol: &Solution, outs: &mut [UnschedulableOut]) {
    let mut checked: HashMap<(usize, Edit), Option<(bool, String)>> = HashMap::new();
    let mut budget = MAX_REPLANS;
    for ((p, failure), out) in sol.failures.iter().zip(outs.iter_mut()) {
        let PodFailure::PerPool(errs) = failure else { continue };
        for (pool, fail) in errs {
            let Some((code, edit)) = propose(m, sol, *p, *pool, fail) else { continue };
            let change = describe(m, *p, &edit);
            let result = checked
                .entry((m.pods[*p].spec_id(), edit))
                .or_insert_with_key(|(_, edit)| {
                    (budget > 0).then(|| {
                        budget -= 1;
                        replan(m, *p, edit)
                    })
                })
                .clone();
            if let Some((verified, check)) = result {
                out.hints.push(Hint { code, node_pool: m.node_pools[*pool].name.clone(), change, verified, check });
            }
        }
    }
}

/// The edit worth checking for one NodePool's failure, with the reason code it answers.
fn propose(m: &Model, sol: &Solution, p: usize, pool: usize, fail: &Fail) -> Option<(ReasonCode, Edit)> {
    let t = sol.templates.iter().find(|t| t.pool == pool)?;
    match fail {
        Fail::Taint(taint) => Some((ReasonCode::TaintNotTolerated, Edit::Tolerate(taint.clone()))),
        Fail::Limits { remaining } => {
            let (it, _) = closest_within_limits(m, t, p, remaining)?;
            let cap = &m.catalog.types[it as usize].capacity;
            let limits = m.node_pools[pool]
                .limits
                .iter()
                .map(|&(k, limit)| match k {
                    LimitKey::Resource(r) => {
                        let rem = remaining.iter().find(|(rk, _)| *rk == k).map_or(limit, |x| x.1);
                        (k, limit + (cap.get(r) - rem).max(0))
                    }
                    LimitKey::Nodes => (k, limit),
                })
                .collect();
            Some((ReasonCode::LimitExceeded, Edit::Limits { pool, limits }))
        }
        Fail::NodesLimit => {
            let np = &m.node_pools[pool];
            let used = np.limits.iter().find(|(k, _)| *k == LimitKey::Nodes).map(|_| nodes_in_use(m, sol, pool))?;
            let limits = np.limits.iter().map(|&(k, v)| if k == LimitKey::Nodes { (k, v.max(used) + 1000) } else { (k, v) }).collect();
            Some((ReasonCode::LimitExceeded, Edit::Limits { pool, limits }))
        }
        Fail::Requirements(_) | Fail::NoType(_) => {
            let pod_side = admitting_edit(m, t, p, Side::Pod);
            let pool_side = admitting_edit(m, t, p, Side::Pool);
            let edit = match (pod_side, pool_side) {
                (Some(a), Some(b)) if b.len() < a.len() => Edit::PoolRequirements { pool, keys: b },
                (Some(a), _) => Edit::PodRequirements(a),
                (None, Some(b)) => Edit::PoolRequirements { pool, keys: b },
                (None, None) => return None,
            };
            Some((ReasonCode::RequirementConflict, edit))
        }
        _ => None,
    }
}

/// The pod's own requirements in their most relaxed form (node selector + last required term).
fn pod_only_requirements(m: &Model, p: usize) -> Requirements {
    let pod = &m.pods[p];
    let mut r = pod.node_selector.clone();
    if let Some(term) = pod.required_terms.last() {
        r.add_all(term, &m.interner);
    }
    r
}

/// An admitting edit: (keys changed, cheapest price it admits, that type, the (key, value)s).
type Candidate = (usize, f64, u32, Vec<(KeyId, ValueId)>);

#[derive(Clone, Copy, PartialEq)]
enum Side {
    Pod,
    Pool,
}

/// The fewest requirement values to admit — on the pod's side (types the NodePool allows) or on
/// the NodePool's side (any catalog type) — so that some type fitting the pod's requests becomes
/// allowed; among equally small edits, the one admitting the cheapest type. Only keys that are
/// instance-type labels are widened; a type the other side's zone/capacity-type requirements
/// leave no offering of is not a candidate.
fn admitting_edit(m: &Model, t: &Template, p: usize, side: Side) -> Option<Vec<(KeyId, ValueId)>> {
    let pod = &m.pods[p];
    let pod_req = pod_only_requirements(m, p);
    let pool_req = &t.requirements;
    let (edited, fixed) = match side {
        Side::Pod => (&pod_req, pool_req),
        Side::Pool => (pool_req, &pod_req),
    };
    let none = Resources::new();
    let candidates: Box<dyn Iterator<Item = u32>> = match side {
        Side::Pod => Box::new(t.its.iter().copied()),
        Side::Pool => Box::new(0..m.catalog.types.len() as u32),
    };
    let mut best: Option<Candidate> = None;
    for i in candidates {
        let it = &m.catalog.types[i as usize];
        let overhead = if t.group_of[i as usize] == usize::MAX { &none } else { t.overhead(i) };
        if !pod.requests.fits_with(overhead, t.alloc(i, m)) || !crate::scheduling::it_labels_compatible(it, fixed, m) {
            continue;
        }
        let mut keys = Vec::new();
        let mut fixable = true;
        for (k, req) in edited.iter() {
            if k == m.keys.zone || k == m.keys.capacity_type || !m.catalog.is_label_key(k) {
                continue;
            }
            match it.labels.get(k) {
                Some(v) if req.has(v, &m.interner) => {}
                Some(v) => keys.push((k, v)),
                None if req.allows_absent() => {}
                None => fixable = false,
            }
        }
        if !fixable || keys.is_empty() {
            continue;
        }
        let mut both = pool_req.clone();
        both.add_all(&pod_req, &m.interner);
        let Some(price) =
            it.offerings.iter().filter(|o| o.available && offering_compatible(o, &both, m)).map(|o| o.price).min_by(f64::total_cmp)
        else {
            continue;
        };
        let better = best.as_ref().is_none_or(|(n, bp, bi, _)| {
            (keys.len(), price).partial_cmp(&(*n, *bp)).is_some_and(|o| o.is_lt())
                || (keys.len() == *n && price == *bp && it.name < m.catalog.types[*bi as usize].name)
        });
        if better {
            best = Some((keys.len(), price, i, keys));
        }
    }
    best.map(|b| b.3)
}

/// `req` widened just enough to admit `v`.
fn widen(req: &Requirement, v: ValueId, m: &Model) -> Requirement {
    let mut out = req.clone();
    if out.complement {
        out.values.retain(|x| *x != v);
    } else if let Err(at) = out.values.binary_search(&v) {
        out.values.insert(at, v);
    }
    if let Some(n) = m.interner.int(v) {
        out.gte = out.gte.map(|g| g.min(n));
        out.lte = out.lte.map(|l| l.max(n));
    }
    out
}

fn widen_all(reqs: &mut Requirements, keys: &[(KeyId, ValueId)], m: &Model) {
    for &(k, v) in keys {
        if let Some(r) = reqs.get(k) {
            let w = widen(r, v, m);
            reqs.set(k, w);
        }
    }
}

/// The model with `edit` applied, for the pods sharing `p`'s spec.
fn apply(m: &Model, p: usize, edit: &Edit) -> Model {
    let mut m2 = m.clone();
    match edit {
        Edit::Tolerate(taint) => {
            let mut spec = (*m.pods[p]).clone();
            spec.tolerations.push(toleration(taint));
            share_spec(&mut m2, p, spec);
        }
        Edit::PodRequirements(keys) => {
            let mut spec = (*m.pods[p]).clone();
            widen_all(&mut spec.node_selector, keys, m);
            for term in spec.required_terms.iter_mut() {
                widen_all(term, keys, m);
            }
            share_spec(&mut m2, p, spec);
        }
        Edit::Limits { pool, limits } => m2.node_pools[*pool].limits = limits.clone(),
        Edit::PoolRequirements { pool, keys } => widen_all(&mut m2.node_pools[*pool].requirements, keys, m),
    }
    m2
}

/// Give every pod sharing `p`'s spec the edited one (shared again, as lowering shares it).
fn share_spec(m2: &mut Model, p: usize, spec: crate::model::pod::PodSpec) {
    let id = m2.pods[p].spec_id();
    let spec = Arc::new(spec);
    for q in m2.pods.iter_mut().filter(|q| q.spec_id() == id) {
        q.set_spec(spec.clone());
    }
}

fn toleration(taint: &Taint) -> Toleration {
    if taint.value.is_empty() {
        Toleration { key: taint.key.clone(), operator: TolerationOp::Exists, value: String::new(), effect: Some(taint.effect) }
    } else {
        Toleration { key: taint.key.clone(), operator: TolerationOp::Equal, value: taint.value.clone(), effect: Some(taint.effect) }
    }
}

/// Re-plan with `edit` applied: (the pod schedules, what happened in words).
fn replan(m: &Model, p: usize, edit: &Edit) -> (bool, String) {
    let m2 = apply(m, p, edit);
    let sol = crate::scheduling::solve(&m2);
    let pod = m.pods[p].key();
    match sol.placements.get(&p) {
        Some(Placement::Claim(c)) => {
            let pool = &m2.node_pools[sol.templates[sol.claims[*c].template].pool].name;
            (true, format!("verified: re-planned with this change, {pod} goes on a new NodeClaim of NodePool {pool}"))
        }
        Some(Placement::Existing(e)) => {
            let node = &m2.nodes[sol.existing[*e].node].name;
            (true, format!("verified: re-planned with this change, {pod} goes on existing node {node}"))
        }
        None => {
            let code = sol
                .failures
                .iter()
                .find(|(q, _)| *q == p)
                .map_or("unschedulable", |(q, f)| crate::diagnostics::unschedulable(&m2, &sol, *q, f).code.as_str());
            (false, format!("not enough alone: re-planned with this change, {pod} still stays pending ({code})"))
        }
    }
}

fn describe(m: &Model, p: usize, edit: &Edit) -> String {
    let show_keys = |reqs: &Requirements, keys: &[(KeyId, ValueId)]| {
        keys.iter()
            .map(|&(k, v)| {
                let before = reqs.get(k).map(|r| r.render(&m.interner)).unwrap_or_default();
                let after = reqs.get(k).map(|r| widen(r, v, m).render(&m.interner)).unwrap_or_default();
                format!("{} {before} → {after} (admits {})", m.interner.str(k), m.interner.str(v))
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    match edit {
        Edit::Tolerate(taint) => {
            let tol = toleration(taint);
            let value = if tol.value.is_empty() { String::new() } else { format!(", value: {}", tol.value) };
            let op = if tol.operator == TolerationOp::Exists { "Exists" } else { "Equal" };
            format!("add to the pod's tolerations: {{key: {}, operator: {op}{value}, effect: {}}}", tol.key, taint.effect.as_str())
        }
        Edit::Limits { pool, limits } => {
            let np = &m.node_pools[*pool];
            let changed: Vec<String> = limits
                .iter()
                .zip(&np.limits)
                .filter(|(new, old)| new.1 != old.1)
                .map(|(&(k, new), &(_, old))| {
                    let (name, unit) = limit_name(m, k);
                    format!("{name} {} → {}", format_milli(old, unit), format_milli(new, unit))
                })
                .collect();
            format!("raise NodePool {} spec.limits: {}", np.name, changed.join(", "))
        }
        Edit::PodRequirements(keys) => {
            format!("widen the pod's node requirements: {}", show_keys(&pod_only_requirements(m, p), keys))
        }
        Edit::PoolRequirements { pool, keys } => {
            let np = &m.node_pools[*pool];
            format!("widen NodePool {} requirements: {}", np.name, show_keys(&np.requirements, keys))
        }
    }
}
