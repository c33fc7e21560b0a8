//! Pods and the pieces of a pod spec the scheduler uses.

use crate::labels::{KeyId, ValueId};
use crate::requirements::Requirements;
use crate::resources::Resources;
use crate::taints::Toleration;
use smallvec::SmallVec;
use std::sync::Arc;

/// Sorted (key, value) pairs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct LabelSet(pub SmallVec<[(KeyId, ValueId); 8]>);

impl LabelSet {
    pub fn from_pairs(mut pairs: Vec<(KeyId, ValueId)>) -> Self {
        pairs.sort_unstable();
        // Later duplicates of a key win, like a YAML mapping would.
        let mut out: SmallVec<[(KeyId, ValueId); 8]> = SmallVec::new();
        for (k, v) in pairs {
            match out.last_mut() {
                Some(last) if last.0 == k => last.1 = v,
                _ => out.push((k, v)),
            }
        }
        LabelSet(out)
    }

    pub fn get(&self, key: KeyId) -> Option<ValueId> {
        self.0.binary_search_by_key(&key, |(k, _)| *k).ok().map(|i| self.0[i].1)
    }

    pub fn set(&mut self, key: KeyId, value: ValueId) {
        match self.0.binary_search_by_key(&key, |(k, _)| *k) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (key, value)),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (KeyId, ValueId)> + '_ {
        self.0.iter().copied()
    }
}

/// A label-selector expression operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SelectorOp {
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

/// A Kubernetes label selector. `matches_nothing` models a nil or unparsable selector (R5.15.4).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Selector {
    pub exprs: Vec<(KeyId, SelectorOp, SmallVec<[ValueId; 2]>)>,
    pub matches_nothing: bool,
}

impl Selector {
    pub fn nothing() -> Self {
        Selector { exprs: Vec::new(), matches_nothing: true }
    }

    pub fn matches(&self, labels: &LabelSet) -> bool {
        if self.matches_nothing {
            return false;
        }
        self.exprs.iter().all(|(k, op, vals)| {
            let v = labels.get(*k);
            match op {
                SelectorOp::In => v.is_some_and(|v| vals.contains(&v)),
                SelectorOp::NotIn => v.is_none_or(|v| !vals.contains(&v)),
                SelectorOp::Exists => v.is_some(),
                SelectorOp::DoesNotExist => v.is_none(),
            }
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unsatisfiable {
    DoNotSchedule,
    ScheduleAnyway,
}

/// A topology spread constraint, with `matchLabelKeys` already folded into the selector.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SpreadConstraint {
    pub max_skew: i32,
    pub key: KeyId,
    pub when_unsatisfiable: Unsatisfiable,
    pub selector: Selector,
    pub min_domains: Option<i32>,
    /// nodeAffinityPolicy Honor (default) vs Ignore.
    pub honor_node_affinity: bool,
    /// nodeTaintsPolicy Honor vs Ignore (default).
    pub honor_node_taints: bool,
}

/// A pod (anti-)affinity term.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AffinityTerm {
    pub key: KeyId,
    pub selector: Selector,
    /// None = every namespace.
    pub namespaces: Option<SmallVec<[ValueId; 2]>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HostPort {
    pub port: i32,
    pub protocol: ValueId,
    /// None = 0.0.0.0 / unspecified.
    pub ip: Option<ValueId>,
}

impl HostPort {
    /// R5.22.1.
    pub fn conflicts(&self, other: &HostPort) -> bool {
        self.port == other.port && self.protocol == other.protocol && (self.ip.is_none() || other.ip.is_none() || self.ip == other.ip)
    }
}

/// A pod, pending or bound: what differs between the replicas of one workload, and the rest
/// (`PodSpec`) shared behind an `Arc`. A Deployment of 100,000 replicas lowers to one spec and
/// 100,000 names instead of 100,000 deep copies (deep copies were a third of lowering it and
/// most of the model's memory). Fields of the spec read through `Deref`; writing one goes
/// through `DerefMut`, which copies the spec first if another pod shares it (copy on write),
/// so code that edits a pod can never change its siblings.
#[derive(Debug, Clone)]
pub struct Pod {
    pub name: String,
    pub uid: String,
    pub node_name: Option<String>,
    /// Name of the workload it was expanded from (Deployment, Job, ...), if any.
    pub workload: Option<String>,
    /// creationTimestamp, unix seconds (0 when absent).
    pub created: i64,
    pub document: usize,
    /// `status.startTime`, unix seconds: when a duration-valued do-not-disrupt runs out.
    pub started: Option<i64>,
    /// The pod's `Ready` condition is `False` (not merely absent): a PDB with
    /// `unhealthyPodEvictionPolicy: AlwaysAllow` lets it go (pdb.go, isEvictable).
    pub not_ready: bool,
    spec: Arc<PodSpec>,
    /// The spec's content class (`intern_specs`): pods with the same nonzero class have equal
    /// specs even when they do not share one (separate Pod objects written alike). 0: a spec
    /// no other pod has, not interned, or edited since.
    class: u32,
}

/// The part of a pod its workload's replicas have in common (see `Pod`).
#[derive(Debug, Clone, PartialEq)]
pub struct PodSpec {
    pub namespace: String,
    pub namespace_id: ValueId,
    pub labels: LabelSet,
    /// The annotation `karpenter.sh/do-not-disrupt: "true"`.
    pub do_not_disrupt: bool,
    /// A duration-valued `karpenter.sh/do-not-disrupt` (e.g. "2m"), in nanoseconds: it protects
    /// the pod until its start time plus the duration (pod/scheduling.go, IsDoNotDisruptActive).
    pub do_not_disrupt_for: Option<i64>,
    /// A `karpenter.sh/do-not-disrupt` value that is neither "true" nor a positive Go duration:
    /// Karpenter treats it as absent (and says so in an event); nodecast warns.
    pub do_not_disrupt_invalid: Option<String>,
    /// (kind, name) of the first owner reference.
    pub owner: Option<(String, String)>,
    /// Effective requests (R4.1) including `pods: 1`.
    pub requests: Resources,
    pub node_selector: Requirements,
    /// Required node affinity terms (OR), in order.
    pub required_terms: Vec<Requirements>,
    /// Preferred node affinity terms, sorted by weight descending (stable).
    pub preferred_terms: Vec<(i32, Requirements)>,
    pub tolerations: Vec<Toleration>,
    pub spread: Vec<SpreadConstraint>,
    pub affinity: Vec<AffinityTerm>,
    pub anti_affinity: Vec<AffinityTerm>,
    pub preferred_affinity: Vec<(i32, AffinityTerm)>,
    pub preferred_anti_affinity: Vec<(i32, AffinityTerm)>,
    pub host_ports: Vec<HostPort>,
    pub terminal: bool,
    /// Deleting (a `deletionTimestamp`) and owned by a StatefulSet: `terminal` (not active) yet
    /// reschedulable — Karpenter moves it with its node (IsReschedulable: active, or owned by a
    /// StatefulSet and terminating), so a node holding one is not empty.
    pub terminating_statefulset: bool,
    pub owned_by_daemonset: bool,
    pub mirror: bool,
    /// What evicting this pod costs the disruption controller (`eviction_cost`): orders
    /// consolidation candidates, decides emptiness and weighs Balanced moves.
    pub eviction_cost: f64,
    /// `spec.priority` (what admission resolved from the PriorityClass), when written.
    pub priority: Option<i64>,
    /// `spec.preemptionPolicy: Never`: the Cluster Autoscaler never treats the pod as expendable.
    pub preemption_never: bool,
    /// The eviction cost with the PodDeletionCostManagement gate on: Karpenter then writes
    /// `controller.kubernetes.io/pod-deletion-cost` itself and reads only
    /// `karpenter.sh/disruption-cost` (utils/disruption/disruption.go, EvictionCost). Lowering
    /// makes it `eviction_cost` when the gate is on.
    pub eviction_cost_managed: f64,
    /// Why Karpenter would ignore this pod entirely (R5.2.3), if it would.
    pub ignored: Option<String>,
    /// The pod references ResourceClaims (Dynamic Resource Allocation; Karpenter's
    /// `HasDRARequirements`): refused while `--ignore-dra-requests` is true.
    pub resource_claims: bool,
    /// The pod's `spec.resourceClaims` (what the DRA allocator resolves, scheduling::dra).
    pub dra_claims: Vec<crate::dra::PodClaim>,
    /// The pod mounts a PersistentVolumeClaim or a generic ephemeral volume: Karpenter would add
    /// its volume's zone to the pod's requirements (volume topology) and count CSI attach
    /// limits; nodecast does not model volumes and says so in a warning (`volumes-not-modelled`).
    pub volumes: bool,
}

impl std::ops::Deref for Pod {
    type Target = PodSpec;
    fn deref(&self) -> &PodSpec {
        &self.spec
    }
}

impl std::ops::DerefMut for Pod {
    fn deref_mut(&mut self) -> &mut PodSpec {
        // The edit may make the spec differ from its class's.
        self.class = 0;
        Arc::make_mut(&mut self.spec)
    }
}

impl Pod {
    pub fn new(name: String, uid: String, created: i64, document: usize, spec: PodSpec) -> Self {
        Pod {
            name,
            uid,
            node_name: None,
            workload: None,
            created,
            document,
            started: None,
            not_ready: false,
            spec: Arc::new(spec),
            class: 0,
        }
    }

    /// Identifies the shared spec: pods with equal ids have identical `PodSpec`s (replicas of
    /// one workload). Stable while the model lives; models are immutable once lowered.
    pub fn spec_id(&self) -> usize {
        Arc::as_ptr(&self.spec) as usize
    }

    /// Replace the spec (a what-if copy of the model giving a workload's replicas one edited spec).
    pub fn set_spec(&mut self, spec: Arc<PodSpec>) {
        self.spec = spec;
        self.class = 0;
    }

    /// Whether another pod shares this one's spec (caches keyed by `spec_id` only pay off then).
    pub fn spec_shared(&self) -> bool {
        Arc::strong_count(&self.spec) > 1
    }

    /// Identifies the spec's content, for caches of what the spec alone decides: pods with
    /// equal ids have equal `PodSpec`s, whether they share one (replicas) or were written as
    /// separate, identical objects (see [`intern_specs`]). Unlike `spec_id`, it does not say
    /// that the pods are replicas of one workload, so what edits a workload's replicas
    /// together (hint re-plans) keys on `spec_id`.
    pub fn content_id(&self) -> usize {
        match self.class {
            0 => self.spec_id(),
            // The top half of `usize`: above every address (user space ends far below 2^63 on
            // 64-bit targets; wasm32's memory stays below 2 GiB) and below the
            // `usize::MAX - index` keys some callers give unshared pods.
            class => (1usize << (usize::BITS - 1)) + class as usize,
        }
    }

    /// Whether another pod may have this one's `content_id` (caches keyed by it pay off then).
    pub fn content_shared(&self) -> bool {
        self.class != 0 || self.spec_shared()
    }

    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }

    /// Whether `karpenter.sh/do-not-disrupt` protects the pod at `now` (unix seconds): "true"
    /// always; a duration while the pod has run less than it, or when its start time is unknown
    /// (Karpenter's fail-safe); anything else never.
    pub fn do_not_disrupt_at(&self, now: i64) -> bool {
        if self.do_not_disrupt {
            return true;
        }
        match (self.do_not_disrupt_for, self.started) {
            (Some(_), None) => true,
            (Some(d), Some(start)) => (now.saturating_sub(start) as i128) * 1_000_000_000 < d as i128,
            (None, _) => false,
        }
    }

    /// Karpenter's IsReschedulable: not terminal (or a StatefulSet's terminating pod), not a
    /// DaemonSet pod and not a mirror pod: the pods consolidation moves.
    pub fn is_reschedulable(&self) -> bool {
        (!self.terminal || self.terminating_statefulset) && !self.owned_by_daemonset && !self.mirror
    }

    pub fn is_pending(&self) -> bool {
        self.node_name.is_none() && !self.owned_by_daemonset && !self.mirror && !self.terminal
    }

    /// The strict requirement alternatives (R4.7.1): the node selector combined with each
    /// required node-affinity term in order, or the node selector alone when there are none.
    pub fn strict_alternatives(&self, interner: &crate::labels::Interner) -> Vec<Requirements> {
        if self.required_terms.is_empty() {
            return vec![self.node_selector.clone()];
        }
        self.required_terms
            .iter()
            .map(|t| {
                let mut r = self.node_selector.clone();
                r.add_all(t, interner);
                r
            })
            .collect()
    }

    /// Does an affinity term / selector with these namespaces select this pod?
    pub fn in_namespaces(&self, namespaces: &Option<SmallVec<[ValueId; 2]>>) -> bool {
        namespaces.as_ref().is_none_or(|ns| ns.contains(&self.namespace_id))
    }
}

/// Number the pods' specs by content (hash-consing): pods written as separate objects with
/// identical specs get one class, so caches of what a spec alone decides (explanations, fix
/// proposals, the solver's views and shapes) work once per class, as they already did per
/// workload for replicas sharing one `Arc`. 100,000 separate GPU pods of a few dozen shapes
/// were explained one by one (3.5 s of a 4.4 s plan). The `Arc`s themselves are not merged:
/// `spec_id` stays the replica identity that hint re-plans and gang detection read.
///
/// Call when the pods are final (the end of lowering); an edit later resets the pod's class.
pub fn intern_specs(pods: &mut [Pod]) {
    let mut by_arc: crate::fxhash::FxHashMap<usize, u32> = Default::default();
    let mut by_content: crate::fxhash::FxHashMap<ByContent<'_>, u32> = Default::default();
    let mut sizes: Vec<u32> = Vec::new();
    let mut classes: Vec<u32> = Vec::with_capacity(pods.len());
    for pod in pods.iter() {
        // Replicas share their spec: hashed once per workload, not per replica.
        let class = *by_arc.entry(pod.spec_id()).or_insert_with(|| {
            let next = sizes.len() as u32;
            *by_content.entry(ByContent(&pod.spec)).or_insert_with(|| {
                sizes.push(0);
                next
            })
        });
        sizes[class as usize] += 1;
        classes.push(class);
    }
    drop(by_content);
    for (pod, class) in pods.iter_mut().zip(classes) {
        // Class 0 means "not interned": a spec of its own keeps it (its `Arc` identifies it).
        pod.class = if sizes[class as usize] > 1 { class + 1 } else { 0 };
    }
}

/// A spec compared and hashed by content. `f64` fields compare by bits, so `Eq` holds.
struct ByContent<'a>(&'a PodSpec);

impl PartialEq for ByContent<'_> {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.0, other.0);
        a.eviction_cost.to_bits() == b.eviction_cost.to_bits()
            && a.eviction_cost_managed.to_bits() == b.eviction_cost_managed.to_bits()
            && a == b
    }
}

impl Eq for ByContent<'_> {}

impl std::hash::Hash for ByContent<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        // Every field, destructured so that a new one cannot be forgotten here.
        let PodSpec {
            namespace: _,
            namespace_id,
            labels,
            do_not_disrupt,
            do_not_disrupt_for,
            do_not_disrupt_invalid,
            owner,
            requests,
            node_selector,
            required_terms,
            preferred_terms,
            tolerations,
            spread,
            affinity,
            anti_affinity,
            preferred_affinity,
            preferred_anti_affinity,
            host_ports,
            terminal,
            terminating_statefulset,
            owned_by_daemonset,
            mirror,
            eviction_cost,
            priority,
            preemption_never,
            eviction_cost_managed,
            ignored,
            resource_claims,
            dra_claims,
            volumes,
        } = self.0;
        // `namespace` is hashed through its interned id.
        (namespace_id, labels, do_not_disrupt, do_not_disrupt_for, do_not_disrupt_invalid, owner, requests).hash(h);
        (node_selector, required_terms, preferred_terms, tolerations, spread, affinity, anti_affinity).hash(h);
        (preferred_affinity, preferred_anti_affinity, host_ports, terminal, terminating_statefulset, owned_by_daemonset, mirror).hash(h);
        (
            eviction_cost.to_bits(),
            priority,
            preemption_never,
            eviction_cost_managed.to_bits(),
            ignored,
            resource_claims,
            dra_claims,
            volumes,
        )
            .hash(h);
    }
}

/// Karpenter's per-pod eviction cost (spec disruption.md D-6.1, checked against v1.15.0's
/// `utils/disruption.EvictionCost`): 1, plus the `karpenter.sh/disruption-cost` annotation ÷ 2^27
/// when it parses as an int32, otherwise (the PodDeletionCostManagement gate is off by default)
/// `controller.kubernetes.io/pod-deletion-cost` ÷ 2^27 when that parses as an int32; plus
/// `spec.priority` ÷ 2^25; clamped to [-10, 10]. Unparsable annotations are ignored, as
/// Karpenter only logs them. (The spec says the deletion cost parses as a float64; Karpenter
/// parses an int32, so `"1.5"` counts for nothing.)
pub fn eviction_cost(disruption_cost: Option<&str>, deletion_cost: Option<&str>, priority: Option<i64>) -> f64 {
    let int32 = |s: Option<&str>| s.and_then(|s| s.parse::<i32>().ok());
    let mut cost = 1.0;
    if let Some(s) = disruption_cost {
        // A present annotation wins even when it does not parse: the deletion cost is then
        // not consulted (Karpenter's if / else-if on the annotation's presence).
        if let Some(v) = int32(Some(s)) {
            cost += f64::from(v) / 134_217_728.0;
        }
    } else if let Some(v) = int32(deletion_cost) {
        cost += f64::from(v) / 134_217_728.0;
    }
    if let Some(p) = priority {
        cost += p as f64 / 33_554_432.0;
    }
    cost.clamp(-10.0, 10.0)
}

#[cfg(test)]
mod eviction_cost_tests {
    use super::eviction_cost;

    #[test]
    fn defaults_to_one() {
        assert_eq!(eviction_cost(None, None, None), 1.0);
    }

    #[test]
    fn disruption_cost_wins_over_deletion_cost() {
        // 2^27 adds exactly 1.
        assert_eq!(eviction_cost(Some("134217728"), Some("268435456"), None), 2.0);
        assert_eq!(eviction_cost(None, Some("268435456"), None), 3.0);
        // Present but unparsable: the deletion cost is not consulted either.
        assert_eq!(eviction_cost(Some("lots"), Some("268435456"), None), 1.0);
        // Karpenter parses int32: a float or an out-of-range value counts for nothing.
        assert_eq!(eviction_cost(None, Some("1.5"), None), 1.0);
        assert_eq!(eviction_cost(None, Some("4294967296"), None), 1.0);
    }

    #[test]
    fn priority_and_clamp() {
        // 2^25 priority adds 1.
        assert_eq!(eviction_cost(None, None, Some(33_554_432)), 2.0);
        assert_eq!(eviction_cost(None, None, Some(2_000_000_000)), 10.0);
        assert_eq!(eviction_cost(Some("-2147483647"), None, Some(-2_000_000_000)), -10.0);
    }
}
