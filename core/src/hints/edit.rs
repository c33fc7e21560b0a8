//! The changes a hint proposes, how each is applied to a copy of the model for its re-plan, and
//! how it is said to the user.

use crate::fit::limit_name;
use crate::labels::{KeyId, ValueId};
use crate::model::pod::{PodSpec, Unsatisfiable};
use crate::model::{LimitKey, Model};
use crate::quantity::format_milli;
use crate::requirements::{Requirement, Requirements};
use crate::scheduling::topology::GroupKind;
use crate::taints::{Taint, Toleration, TolerationOp};
use std::sync::Arc;

/// A change to the input that may let a pod schedule.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Edit {
    /// Add a toleration of this taint to the pod (and its replicas).
    Tolerate(Taint),
    /// Set these limits of the NodePool (milli-units, as the model keeps them).
    Limits { pool: usize, limits: Vec<(LimitKey, i64)> },
    /// Widen the pod's requirements so each key admits the value.
    PodRequirements(Vec<(KeyId, ValueId)>),
    /// Widen the NodePool's requirements so each key admits the value.
    PoolRequirements { pool: usize, keys: Vec<(KeyId, ValueId)> },
    /// Lower the `minValues` of the NodePool's requirement on `key` to `min`.
    MinValues { pool: usize, key: KeyId, from: u32, min: u32 },
    /// Make the pod's required constraints of this kind on `key` soft: topology spread
    /// `whenUnsatisfiable: ScheduleAnyway`, pod (anti-)affinity moved to the preferred terms.
    Soften { kind: GroupKind, key: KeyId },
    /// Give the NodePool's nodes the label `key: value` (template labels, so also a
    /// requirement `key In [value]`): a pod's selector on a label the NodePool does not define.
    PoolLabel { pool: usize, key: KeyId, value: ValueId },
    /// Drop these host ports from the pod (they clash with a DaemonSet's on every node of the
    /// NodePool).
    DropHostPorts(Vec<(i32, ValueId)>),
    /// Declare extended resources on these catalog types with a NodeOverlay (`hints/overlay.rs`).
    Overlay { types: Vec<u32>, capacity: Vec<(crate::resources::ResourceId, i64)> },
}

/// `req` widened just enough to admit `v`.
pub fn widen(req: &Requirement, v: ValueId, m: &Model) -> Requirement {
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

/// The pod's own requirements in their most relaxed form (node selector + last required term).
pub fn pod_only_requirements(m: &Model, p: usize) -> Requirements {
    let pod = &m.pods[p];
    let mut r = pod.node_selector.clone();
    if let Some(term) = pod.required_terms.last() {
        r.add_all(term, &m.interner);
    }
    r
}

/// The model with `edit` applied, for the pods sharing `p`'s spec.
pub fn apply(m: &Model, p: usize, edit: &Edit) -> Model {
    let mut m2 = m.clone();
    let spec = || (*m.pods[p]).clone();
    match edit {
        Edit::Tolerate(taint) => {
            let mut spec = spec();
            spec.tolerations.push(toleration(taint));
            share_spec(&mut m2, p, spec);
        }
        Edit::PodRequirements(keys) => {
            let mut spec = spec();
            widen_all(&mut spec.node_selector, keys, m);
            for term in spec.required_terms.iter_mut() {
                widen_all(term, keys, m);
            }
            share_spec(&mut m2, p, spec);
        }
        Edit::Limits { pool, limits } => m2.node_pools[*pool].limits = limits.clone(),
        Edit::PoolRequirements { pool, keys } => widen_all(&mut m2.node_pools[*pool].requirements, keys, m),
        Edit::MinValues { pool, key, min, .. } => {
            if let Some(r) = m2.node_pools[*pool].requirements.get(*key) {
                let r = r.clone().with_min_values(Some(*min));
                m2.node_pools[*pool].requirements.set(*key, r);
            }
        }
        Edit::PoolLabel { pool, key, value } => {
            let np = &mut m2.node_pools[*pool];
            let mut pairs: Vec<(KeyId, ValueId)> = np.labels.0.iter().copied().collect();
            pairs.push((*key, *value));
            np.labels = crate::model::LabelSet::from_pairs(pairs);
            np.requirements.set(*key, Requirement::in_values([*value]));
        }
        Edit::Soften { kind, key } => {
            let mut spec = spec();
            soften(&mut spec, *kind, *key);
            share_spec(&mut m2, p, spec);
        }
        Edit::DropHostPorts(ports) => {
            let mut spec = spec();
            spec.host_ports.retain(|h| !ports.contains(&(h.port, h.protocol)));
            share_spec(&mut m2, p, spec);
        }
        Edit::Overlay { types, capacity } => super::overlay::apply(&mut m2, types, capacity),
    }
    m2
}

/// Weight of a required (anti-)affinity term moved to the preferred ones: the most a
/// preference can weigh, so it still counts first.
const SOFTENED_WEIGHT: i32 = 100;

fn soften(spec: &mut PodSpec, kind: GroupKind, key: KeyId) {
    match kind {
        GroupKind::Spread => {
            for c in spec.spread.iter_mut().filter(|c| c.key == key) {
                c.when_unsatisfiable = Unsatisfiable::ScheduleAnyway;
            }
        }
        GroupKind::Affinity => {
            let (moved, kept) = std::mem::take(&mut spec.affinity).into_iter().partition(|t| t.key == key);
            spec.affinity = kept;
            spec.preferred_affinity.extend(moved.into_iter().map(|t: crate::model::pod::AffinityTerm| (SOFTENED_WEIGHT, t)));
        }
        GroupKind::AntiAffinity => {
            let (moved, kept) = std::mem::take(&mut spec.anti_affinity).into_iter().partition(|t| t.key == key);
            spec.anti_affinity = kept;
            spec.preferred_anti_affinity.extend(moved.into_iter().map(|t: crate::model::pod::AffinityTerm| (SOFTENED_WEIGHT, t)));
        }
    }
}

/// Give every pod sharing `p`'s spec the edited one (shared again, as lowering shares it).
fn share_spec(m2: &mut Model, p: usize, spec: PodSpec) {
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

/// `key In [a] → In [a b] (admits b)`, one entry per key however many values it admits.
fn show_keys(m: &Model, reqs: &Requirements, keys: &[(KeyId, ValueId)]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut seen: Vec<KeyId> = Vec::new();
    for &(k, _) in keys {
        if seen.contains(&k) {
            continue;
        }
        seen.push(k);
        let Some(before) = reqs.get(k) else { continue };
        let values: Vec<ValueId> = keys.iter().filter(|(kk, _)| *kk == k).map(|x| x.1).collect();
        let after = values.iter().fold(before.clone(), |r, &v| widen(&r, v, m));
        let admits: Vec<&str> = values.iter().map(|&v| m.interner.str(v)).collect();
        out.push(format!(
            "{} {} → {} (admits {})",
            m.interner.str(k),
            before.render(&m.interner),
            after.render(&m.interner),
            admits.join(", ")
        ));
    }
    out.join("; ")
}

/// The change in words, as the user would make it in the manifests.
pub fn describe(m: &Model, p: usize, edit: &Edit) -> String {
    match edit {
        Edit::Overlay { types, capacity } => super::overlay::describe(m, types, capacity),
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
            format!("widen the pod's node requirements: {}", show_keys(m, &pod_only_requirements(m, p), keys))
        }
        Edit::PoolRequirements { pool, keys } => {
            let np = &m.node_pools[*pool];
            format!("widen NodePool {} requirements: {}", np.name, show_keys(m, &np.requirements, keys))
        }
        Edit::PoolLabel { pool, key, value } => format!(
            "add the label {}: {} to NodePool {} spec.template.metadata.labels (the pod's node selector asks for it)",
            m.interner.str(*key),
            m.interner.str(*value),
            m.node_pools[*pool].name
        ),
        Edit::MinValues { pool, key, from, min } => format!(
            "lower NodePool {} minValues of {} from {from} to {min} (the instance types it allows for this pod offer {min} values)",
            m.node_pools[*pool].name,
            m.interner.str(*key)
        ),
        Edit::Soften { kind, key } => {
            let key = m.interner.str(*key);
            match kind {
                GroupKind::Spread => {
                    format!("set whenUnsatisfiable: ScheduleAnyway on the pod's topologySpreadConstraints with topologyKey {key}")
                }
                GroupKind::Affinity => format!(
                    "move the pod's required podAffinity terms with topologyKey {key} to preferredDuringSchedulingIgnoredDuringExecution (weight {SOFTENED_WEIGHT})"
                ),
                GroupKind::AntiAffinity => format!(
                    "move the pod's required podAntiAffinity terms with topologyKey {key} to preferredDuringSchedulingIgnoredDuringExecution (weight {SOFTENED_WEIGHT})"
                ),
            }
        }
        Edit::DropHostPorts(ports) => {
            let shown: Vec<String> = ports.iter().map(|(port, proto)| format!("{port}/{}", m.interner.str(*proto))).collect();
            format!(
                "remove hostPort {} from the pod's containers (a DaemonSet holds it on every node of this NodePool), or pick a port no DaemonSet uses",
                shown.join(", ")
            )
        }
    }
}
