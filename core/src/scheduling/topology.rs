//! Topology spread, pod affinity and pod anti-affinity (spec §5.14–§5.19).
//!
//! A *group* is one distinct constraint (kind, key, namespaces, selector, skew, node filter);
//! it counts, per domain of its key, the placed pods it selects. A pod being placed is checked
//! against the groups it owns (its own constraints) and against the *inverse* anti-affinity
//! groups of other pods that select it.

use crate::labels::{Interner, KeyId, ValueId};
use crate::model::{AffinityTerm, LabelSet, Model, Pod, Selector, SpreadConstraint};
use crate::requirements::{Requirement, Requirements};
use crate::taints::{first_untolerated, Taint, Toleration};
use smallvec::SmallVec;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

mod family_hosts;
pub use family_hosts::HostMember;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupKind {
    Spread,
    Affinity,
    AntiAffinity,
}

/// The node filter of a spread group (R5.15.3): which nodes' pods count.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct NodeFilter {
    /// Honor node affinity: node selector + required terms of the owner (OR of terms).
    pub affinity: Option<(Requirements, Vec<Requirements>)>,
    /// Honor taints: the owner's tolerations.
    pub tolerations: Option<Vec<Toleration>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GroupKey {
    pub kind: GroupKind,
    pub key: KeyId,
    pub namespaces: Option<SmallVec<[ValueId; 2]>>,
    pub selector: Selector,
    pub max_skew: i32,
    pub min_domains: Option<i32>,
    pub filter: NodeFilter,
    pub inverse: bool,
}

#[derive(Debug, Clone)]
pub struct Group {
    /// Shared with the index (and a merged group's family): held inline, the definitions made
    /// the groups and the index, both doubling, most of exclusive placement's heap (issue 29).
    pub def: Arc<GroupKey>,
    /// Domain → count of selected pods; every known domain is present (possibly 0), except
    /// the hostnames registered since the group was made (`hosts_from`), which a hostname
    /// group holds only once a pod counts there (see [`Topology::hosts_of`]).
    pub counts: BTreeMap<ValueId, i32>,
    /// For a hostname group: its domains include `Topology::hosts[hosts_from..]`.
    hosts_from: usize,
    /// Counts kept by a [`Family`] instead of `counts` (which then stays empty).
    virt: Option<Virtual>,
}

/// A group whose counts a [`Family`] keeps.
#[derive(Debug, Clone, Copy)]
enum Virtual {
    /// The member whose selector excludes `value` (`label NotIn [value]`).
    Member { family: usize, value: ValueId },
    /// Every inverse member that selects a pod whose label is `without`, as one group: their
    /// anti-affinities all hold exactly where the sum of their counts is 0.
    Merged { family: usize, without: ValueId },
}

/// Anti-affinity groups that differ only in the one value their selector excludes
/// (`label Exists, label NotIn [value]`, the rest equal): JobSet's and LeaderWorkerSet's
/// exclusive placement gives every Job (group) one, selecting every other Job's pods. Kept
/// one by one, each placed pod counted into the group of every other Job and each pod was
/// checked against the inverse group of every other Job: quadratic time and memory in Jobs.
/// A family keeps per domain the count of all its pods (`all`) and of the pods of each label
/// value (`by`), so a member's count is a difference (non-inverse: the pods it selects are
/// all but those of its own value; inverse: its owners' placements), a placement costs two
/// increments, and a pod meets all the inverse members that select it as one merged group.
#[derive(Debug, Clone)]
struct Family {
    /// The members' common definition, the `NotIn` expression removed (selects every pod any
    /// member could select); its merged groups share it.
    def: Arc<GroupKey>,
    label: KeyId,
    /// Domains every member starts with (at 0), sorted; and the hostnames registered after
    /// `hosts_from`, as a member group's.
    start: Vec<ValueId>,
    hosts_from: usize,
    all: crate::fxhash::FxHashMap<ValueId, i32>,
    by: crate::fxhash::FxHashMap<ValueId, crate::fxhash::FxHashMap<ValueId, i32>>,
    /// Member groups by excluded value, and merged groups by the value they leave out.
    members: crate::fxhash::FxHashMap<ValueId, usize>,
    merged: crate::fxhash::FxHashMap<ValueId, usize>,
}

impl Family {
    fn count(&self, d: ValueId, by: ValueId) -> i32 {
        self.by.get(&by).and_then(|c| c.get(&d)).copied().unwrap_or(0)
    }

    fn add(&mut self, value: ValueId, d: ValueId) {
        *self.all.entry(d).or_insert(0) += 1;
        *self.by.entry(value).or_default().entry(d).or_insert(0) += 1;
    }
}

/// `(label, excluded value, the selector without that expression)` when `selector` has the
/// family form: an `Exists` on a label and a one-value `NotIn` on the same label.
fn family_form(selector: &Selector) -> Option<(KeyId, ValueId, Selector)> {
    use crate::model::pod::SelectorOp;
    let mut not_in = selector.exprs.iter().enumerate().filter(|(_, (_, op, vals))| *op == SelectorOp::NotIn && vals.len() == 1);
    let (i, (label, _, vals)) = not_in.next()?;
    if not_in.next().is_some() || !selector.exprs.iter().any(|(k, op, _)| k == label && *op == SelectorOp::Exists) {
        return None;
    }
    let mut base = selector.clone();
    base.exprs.remove(i);
    Some((*label, vals[0], base))
}

impl Group {
    /// Every domain of the group with its count: `counts` plus, at 0, the registered hostnames
    /// it does not hold (`hosts`, from [`Topology::hosts_of`]). Borrowed when there are none.
    fn domains<'a>(&'a self, hosts: &[ValueId]) -> Cow<'a, BTreeMap<ValueId, i32>> {
        if hosts.iter().all(|h| self.counts.contains_key(h)) {
            return Cow::Borrowed(&self.counts);
        }
        let mut all = self.counts.clone();
        for &h in hosts {
            all.entry(h).or_insert(0);
        }
        Cow::Owned(all)
    }
}

/// Per key, the domains Karpenter knows and the taint lists they come with (R5.14).
#[derive(Debug, Clone, Default)]
struct Domain {
    untainted: bool,
    taint_lists: Vec<Vec<Taint>>,
}

#[derive(Debug, Clone, Default)]
pub struct Topology {
    pub groups: Vec<Group>,
    index: crate::fxhash::FxHashMap<Arc<GroupKey>, usize>,
    universe: HashMap<KeyId, BTreeMap<ValueId, Domain>>,
    hostname: KeyId,
    /// Hostname domains (existing nodes, new NodeClaims) in the order they were registered.
    /// Every hostname group has, at count 0, each one registered after the group was made;
    /// they are kept here once rather than inserted into every group, which cost a map entry
    /// per (group, hostname): quadratic time and memory for one exclusive group per Job (and
    /// cubic time, as the affinity bootstrap scanned them per open NodeClaim).
    hosts: Vec<ValueId>,
    /// Existing nodes whose labels can add domains to a group (not in flight, not marked for
    /// deletion, not a disruption candidate): see [`Topology::group`].
    domain_nodes: Vec<usize>,
    /// Which groups can select a pod, so that recording a placement (and finding the inverse
    /// groups that select a pod) looks at a handful of groups rather than all of them: with one
    /// group per app, a scan of every group per pod made the pass quadratic in pods.
    /// `[non-inverse, inverse]`.
    selecting: [SelectorIndex; 2],
    /// Anti-affinity families (see [`Family`]), found by definition, and indexed by their
    /// common selector as `selecting` indexes groups (`[non-inverse, inverse]`).
    families: Vec<Family>,
    family_index: crate::fxhash::FxHashMap<(GroupKey, KeyId, Vec<ValueId>, usize), usize>,
    family_selecting: [SelectorIndex; 2],
}

/// Groups by one `In` expression of their selector: a group can only select a pod carrying one
/// of that expression's (key, value) labels. Groups without an `In` expression are always
/// candidates; groups whose selector matches nothing are never listed.
#[derive(Debug, Clone, Default)]
struct SelectorIndex {
    by_label: crate::fxhash::FxHashMap<(KeyId, ValueId), Vec<usize>>,
    unindexed: Vec<usize>,
}

impl SelectorIndex {
    fn insert(&mut self, g: usize, selector: &Selector) {
        if selector.matches_nothing {
            return;
        }
        match selector.exprs.iter().find(|(_, op, _)| *op == crate::model::pod::SelectorOp::In) {
            Some((k, _, vals)) => {
                for v in vals {
                    self.by_label.entry((*k, *v)).or_default().push(g);
                }
            }
            None => self.unindexed.push(g),
        }
    }

    /// Candidate groups for a pod with `labels`, ascending and unique (not yet checked with
    /// [`selects`]).
    fn candidates(&self, labels: &LabelSet, out: &mut Vec<usize>) {
        out.clear();
        out.extend_from_slice(&self.unindexed);
        for (k, v) in labels.iter() {
            if let Some(gs) = self.by_label.get(&(k, v)) {
                out.extend_from_slice(gs);
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}

impl Topology {
    pub fn new(hostname: KeyId) -> Self {
        Topology { hostname, ..Default::default() }
    }

    /// Domains of `key` from NodePools × instance types (R5.14.1–2).
    fn universe_for(&mut self, key: KeyId, m: &Model) -> &BTreeMap<ValueId, Domain> {
        self.universe.entry(key).or_insert_with(|| domains_of(key, m))
    }

    /// The existing nodes that add their own domains to the groups created from now on.
    pub fn set_domain_nodes(&mut self, nodes: Vec<usize>) {
        self.domain_nodes = nodes;
    }

    /// Find or create the group for a definition; returns its index.
    ///
    /// Its domains: those of the NodePools whose taints the owner tolerates (every one for a
    /// spread that ignores taints), plus — for a group the owner's own constraint defines, not
    /// an inverse anti-affinity group — the key's value on every existing node that passes the
    /// group's node filter. Karpenter adds node values only when it first counts a group's
    /// pods (topology.go `countDomains`), which it never does for inverse groups: a pod that
    /// an anti-affinity selects can then only go to a domain some tolerated NodePool offers,
    /// even onto an existing node.
    pub fn group(&mut self, def: GroupKey, owner: &Pod, m: &Model) -> usize {
        if let Some(&i) = self.index.get(&def) {
            return i;
        }
        let honor_taints = def.kind != GroupKind::Spread || def.filter.tolerations.is_some();
        let mut counts = BTreeMap::new();
        if def.key != self.hostname {
            for (v, d) in self.universe_for(def.key, m).iter() {
                let eligible =
                    !honor_taints || d.untainted || d.taint_lists.iter().any(|t| first_untolerated(t, &owner.tolerations).is_none());
                if eligible {
                    counts.insert(*v, 0);
                }
            }
            if !def.inverse {
                for &n in &self.domain_nodes {
                    let node = &m.nodes[n];
                    let Some(v) = node.labels.get(def.key) else { continue };
                    if !counts.contains_key(&v) && filter_passes(&def, &label_requirements(&node.labels, &m.interner), &node.taints, m) {
                        counts.insert(v, 0);
                    }
                }
            }
        }
        let i = self.groups.len();
        let hosts_from = self.hosts.len();
        let family = if def.kind == GroupKind::AntiAffinity { family_form(&def.selector) } else { None };
        let virt = match family {
            Some((label, value, selector)) => {
                let base = GroupKey { selector, ..def.clone() };
                let start: Vec<ValueId> = counts.keys().copied().collect();
                let key = (base, label, start, hosts_from);
                let f = match self.family_index.get(&key) {
                    Some(&f) => f,
                    None => {
                        let f = self.families.len();
                        self.family_selecting[usize::from(def.inverse)].insert(f, &key.0.selector);
                        let (def, label, start, hosts_from) = key.clone();
                        self.families.push(Family {
                            def: Arc::new(def),
                            label,
                            start,
                            hosts_from,
                            all: Default::default(),
                            by: Default::default(),
                            members: Default::default(),
                            merged: Default::default(),
                        });
                        self.family_index.insert(key, f);
                        f
                    }
                };
                self.families[f].members.insert(value, i);
                counts.clear();
                Some(Virtual::Member { family: f, value })
            }
            None => {
                self.selecting[usize::from(def.inverse)].insert(i, &def.selector);
                None
            }
        };
        let def = Arc::new(def);
        self.groups.push(Group { def: Arc::clone(&def), counts, hosts_from, virt });
        self.index.insert(def, i);
        i
    }

    /// The families (inverse ones when `inverse`) whose common selector selects `pod`.
    fn families_selecting(&self, pod: &Pod, inverse: bool) -> Vec<usize> {
        let mut out = Vec::new();
        self.family_selecting[usize::from(inverse)].candidates(&pod.labels, &mut out);
        out.retain(|&f| selects(&self.families[f].def, pod));
        out
    }

    /// The merged inverse groups that select `pod`, one per inverse family with a member
    /// whose excluded value is not the pod's (made on first use), ascending by family.
    pub fn merged_selecting(&mut self, pod: &Pod, out: &mut Vec<usize>) {
        out.clear();
        for f in self.families_selecting(pod, true) {
            let fam = &self.families[f];
            let Some(w) = pod.labels.get(fam.label) else { continue };
            if fam.members.len() <= usize::from(fam.members.contains_key(&w)) {
                continue;
            }
            let g = match fam.merged.get(&w) {
                Some(&g) => g,
                None => {
                    let g = self.groups.len();
                    let group = Group {
                        def: Arc::clone(&fam.def),
                        counts: BTreeMap::new(),
                        hosts_from: fam.hosts_from,
                        virt: Some(Virtual::Merged { family: f, without: w }),
                    };
                    self.groups.push(group);
                    self.families[f].merged.insert(w, g);
                    g
                }
            };
            out.push(g);
        }
    }

    /// Count one pod at domain `d` into group `g`: `pod` is the placed pod for a group that
    /// selects it, the owner for an inverse group.
    pub fn add_count(&mut self, g: usize, d: ValueId, pod: &Pod) {
        match self.groups[g].virt {
            None => *self.groups[g].counts.entry(d).or_insert(0) += 1,
            Some(Virtual::Member { family, value }) => {
                let fam = &mut self.families[family];
                // Inverse: the owner's placement under its own value. Otherwise the pod counts
                // for every member but the one excluding its label value.
                let by = if fam.def.inverse { Some(value) } else { pod.labels.get(fam.label) };
                if let Some(by) = by {
                    fam.add(by, d);
                }
            }
            Some(Virtual::Merged { .. }) => debug_assert!(false, "merged groups are never counted into"),
        }
    }

    /// Count a placed pod at `values` (the domains its placement has on each family's key,
    /// from `values_of`) into the non-inverse families that select it.
    fn count_families(&mut self, pod: &Pod, mut values_of: impl FnMut(&GroupKey) -> Vec<ValueId>) {
        for f in self.families_selecting(pod, false) {
            let Some(w) = pod.labels.get(self.families[f].label) else { continue };
            for d in values_of(&self.families[f].def) {
                self.families[f].add(w, d);
            }
        }
    }

    /// Count a bound pod on node `n` into the non-inverse families that select it, as the
    /// groups that select it are counted (R5.15.5). The node's labels become requirements only
    /// when a family asks (most bound pods have none; issue 35), once per node in `node_reqs`.
    pub fn count_bound_families(&mut self, pod: &Pod, n: usize, node_reqs: &mut HashMap<usize, Requirements>, m: &Model) {
        let node = &m.nodes[n];
        self.count_families(pod, |def| match node.labels.get(def.key) {
            Some(v) if filter_passes(def, node_requirements(node_reqs, n, m), &node.taints, m) => vec![v],
            _ => Vec::new(),
        });
    }

    /// The requirement group `g` imposes on a placement ([`next_domain`], with the counts a
    /// family keeps for its groups).
    pub fn next_domain_of(
        &self,
        g: usize,
        pod_domains: &Requirement,
        node_domains: &Requirement,
        selects_self: bool,
        interner: &Interner,
    ) -> Option<Requirement> {
        let group = &self.groups[g];
        let Some(virt) = group.virt else {
            return next_domain(group, self.hosts_of(g), self.hostname, pod_domains, node_domains, selects_self, interner);
        };
        let (family, value) = match virt {
            Virtual::Member { family, value } | Virtual::Merged { family, without: value } => (family, value),
        };
        let fam = &self.families[family];
        let own_only = matches!(virt, Virtual::Member { .. }) && fam.def.inverse;
        let count = |d: ValueId| {
            if own_only {
                fam.count(d, value)
            } else {
                fam.all.get(&d).copied().unwrap_or(0) - fam.count(d, value)
            }
        };
        // As `next_domain` for an anti-affinity group: the domains it holds at 0 are those it
        // started with and the hostnames registered since, less those where a pod counts.
        if group.def.key == self.hostname {
            if let Some(h) = single(node_domains) {
                return (count(h) == 0).then(|| Requirement::in_values([h]));
            }
        }
        let hosts = if group.def.key == self.hostname { &self.hosts[fam.hosts_from.min(self.hosts.len())..] } else { &[] };
        let mut allowed: Vec<ValueId> = fam
            .start
            .iter()
            .chain(hosts)
            .copied()
            .filter(|&d| count(d) == 0 && pod_domains.has(d, interner) && node_domains.has(d, interner))
            .collect();
        allowed.sort_unstable();
        allowed.dedup();
        (!allowed.is_empty()).then(|| Requirement::in_values(allowed))
    }

    /// Whether a family keeps group `g`'s counts (its `counts` then stay empty; only
    /// [`Topology::next_domain_of`] reads them). A family member never counts its own pods.
    pub fn is_virtual(&self, g: usize) -> bool {
        self.groups[g].virt.is_some()
    }

    /// The index of an existing group.
    pub fn find(&self, def: &GroupKey) -> Option<usize> {
        self.index.get(def).copied()
    }

    /// Count into group `g` the bound pods it selects whose node passes its filter
    /// (`bound`: pod, node), as a group first built mid-pass starts (R5.15.5).
    pub fn count_bound(&mut self, g: usize, bound: &[(usize, usize)], m: &Model) {
        // (Only relaxed spread groups are built mid-pass; families are anti-affinity groups.)
        debug_assert!(self.groups[g].virt.is_none());
        let group = &mut self.groups[g];
        for &(p, n) in bound {
            let node = &m.nodes[n];
            if !selects(&group.def, &m.pods[p]) {
                continue;
            }
            let Some(v) = node.labels.get(group.def.key) else { continue };
            if filter_passes(&group.def, &label_requirements(&node.labels, &m.interner), &node.taints, m) {
                *group.counts.entry(v).or_insert(0) += 1;
            }
        }
    }

    /// The groups (inverse ones when `inverse`) that select `pod`, ascending.
    pub fn selecting(&self, pod: &Pod, inverse: bool, out: &mut Vec<usize>) {
        self.selecting[usize::from(inverse)].candidates(&pod.labels, out);
        out.retain(|&g| selects(&self.groups[g].def, pod));
    }

    /// Register a hostname domain (existing node or new NodeClaim) in every hostname group
    /// that exists now (see `hosts`).
    pub fn register_hostname(&mut self, h: ValueId) {
        self.hosts.push(h);
    }

    /// The registered hostnames group `g` has as domains besides its `counts` keys: those
    /// registered after it was made (none for a group of another key). Pass them to
    /// [`next_domain`] and [`tied_domains`] with the group.
    pub fn hosts_of(&self, g: usize) -> &[ValueId] {
        let group = &self.groups[g];
        if group.def.key == self.hostname {
            &self.hosts[group.hosts_from.min(self.hosts.len())..]
        } else {
            &[]
        }
    }
}

/// Domains of `key` from NodePools × instance types (R5.14.1–2; existing nodes' values are
/// added per group, see [`Topology::group`]).
///
/// As Karpenter's `buildDomainGroups` (topology.go): every instance type the provider lists
/// for a NodePool counts, whether or not it is compatible with the NodePool's requirements.
/// Per type, the NodePool's requirement on the key is intersected with the type's own and
/// whatever values remain are domains, so a NodePool that can launch nothing still adds, for
/// instance, every zone its types are offered in. Karpenter inserts the *raw* value set of
/// the intersection: for a `NotIn` left unnarrowed that is the excluded values (spec R5.14.1
/// flags this as a quirk; real Karpenter does it, so nodecast does too).
fn domains_of(key: KeyId, m: &Model) -> BTreeMap<ValueId, Domain> {
    let mut doms: BTreeMap<ValueId, Domain> = BTreeMap::new();
    let mut add = |values: &[ValueId], taints: &[Taint]| {
        for &v in values {
            let d = doms.entry(v).or_default();
            if taints.is_empty() {
                d.untainted = true;
            } else if !d.taint_lists.iter().any(|t| t == taints) {
                d.taint_lists.push(taints.to_vec());
            }
        }
    };
    let (zone, ct) = (m.keys.zone, m.keys.capacity_type);
    // A NodePool for which the provider lists no type contributes nothing (provisioner.go
    // leaves it out of the map buildDomainGroups reads).
    let listed = !m.catalog.types.is_empty();
    for (_, np) in m.node_pools.iter().enumerate().filter(|(i, _)| listed && m.provisionable(*i)) {
        let pool = np.requirements.get(key);
        if key == zone || key == ct || m.catalog.is_label_key(key) {
            for it in &m.catalog.types {
                // The type's requirement on the key: its offerings' zones or capacity types,
                // its label, or DoesNotExist for a catalog label it does not carry.
                // A reservation's zone is not one of the type's zones by itself: the AWS
                // provider's zone requirement is the zones EC2 offers the type in (types.go
                // `availableZones`), and a reservation in another zone only adds an unavailable
                // offering (reserved_capacity_resolver.go). Its capacity type does count.
                let own = if key == zone {
                    Requirement::in_values(it.offerings.iter().filter(|o| o.reservation.is_none()).map(|o| o.zone))
                } else if key == ct {
                    Requirement::in_values(it.offerings.iter().map(|o| o.capacity_type))
                } else {
                    it.labels.get(key).map_or_else(Requirement::does_not_exist, |v| Requirement::in_values([v]))
                };
                let both = pool.map_or(own.clone(), |p| p.intersect(&own, &m.interner));
                add(&both.values, &np.taints);
            }
        } else if let Some(p) = pool {
            // No type has a requirement on this key: the NodePool's alone, once per type.
            add(&p.values, &np.taints);
        }
        // Every value of an `In` requirement of the NodePool, offered or not.
        if let Some(p) = pool.filter(|p| !p.complement) {
            add(&p.values, &np.taints);
        }
    }
    doms
}

/// Does `g` select `pod` (namespace + label selector)?
pub fn selects(g: &GroupKey, pod: &Pod) -> bool {
    pod.in_namespaces(&g.namespaces) && g.selector.matches(&pod.labels)
}

/// Does a node with labels/requirements `node` and `taints` pass the group's node filter?
///
/// Unlike the pod-to-NodeClaim check, a key of the owner's node selector or required term
/// that the node (or NodeClaim) does not define fails the filter even when it is well-known:
/// Karpenter's `TopologyNodeFilter.Matches` drops the "undefined well-known labels allowed"
/// option before its compatibility check. So a selected pod on a NodeClaim that leaves, say,
/// an instance-type label open does not count for a spread whose owner selects on that label.
pub fn filter_passes(g: &GroupKey, node: &Requirements, taints: &[Taint], m: &Model) -> bool {
    if let Some((selector, terms)) = &g.filter.affinity {
        let allow = |_: KeyId| false;
        if node.compatible(selector, allow, &m.interner).is_err() {
            return false;
        }
        if !terms.is_empty() && !terms.iter().any(|t| node.compatible(t, allow, &m.interner).is_ok()) {
            return false;
        }
    }
    if let Some(tols) = &g.filter.tolerations {
        if first_untolerated(taints, tols).is_some() {
            return false;
        }
    }
    true
}

pub fn spread_key(sc: &SpreadConstraint, pod: &Pod) -> GroupKey {
    relaxed_spread_key(sc, pod, 0)
}

/// The spread group of a pod whose first `dropped` required node affinity terms were relaxed
/// away. Karpenter rebuilds a relaxed pod's groups from the relaxed spec, so the node filter
/// keeps only the remaining terms — a different group from the unrelaxed pod's, counting only
/// bound pods and the placements recorded after it appears (R5.13.1, R5.15.3).
pub fn relaxed_spread_key(sc: &SpreadConstraint, pod: &Pod, dropped: usize) -> GroupKey {
    let terms = pod.required_terms.get(dropped..).unwrap_or_default().to_vec();
    let filter = NodeFilter {
        affinity: sc.honor_node_affinity.then(|| (pod.node_selector.clone(), terms)),
        tolerations: sc.honor_node_taints.then(|| pod.tolerations.clone()),
    };
    GroupKey {
        kind: GroupKind::Spread,
        key: sc.key,
        namespaces: Some(SmallVec::from_elem(pod.namespace_id, 1)),
        selector: sc.selector.clone(),
        max_skew: sc.max_skew,
        min_domains: sc.min_domains,
        filter,
        inverse: false,
    }
}

pub fn affinity_key(t: &AffinityTerm, anti: bool, inverse: bool) -> GroupKey {
    GroupKey {
        kind: if anti { GroupKind::AntiAffinity } else { GroupKind::Affinity },
        key: t.key,
        namespaces: t.namespaces.clone(),
        selector: t.selector.clone(),
        max_skew: 0,
        min_domains: None,
        filter: NodeFilter::default(),
        inverse,
    }
}

pub fn single(r: &Requirement) -> Option<ValueId> {
    (!r.complement && r.values.len() == 1).then(|| r.values[0])
}

/// The global minimum a spread's skew is measured against: the least count over the domains the
/// pod may use, 0 when there are none or fewer than `minDomains` (no allocation: this runs for
/// every open NodeClaim a pod is tried against). Shared by the choice and the tie disclosure so
/// both see the same minimum.
fn spread_min(g: &Group, counts: &BTreeMap<ValueId, i32>, pod_domains: &Requirement, interner: &Interner) -> i32 {
    let (mut n_pod_doms, mut min) = (0i32, i32::MAX);
    for (_, c) in counts.iter().filter(|(d, _)| pod_domains.has(**d, interner)) {
        n_pod_doms += 1;
        min = min.min(*c);
    }
    if n_pod_doms == 0 || g.def.min_domains.is_some_and(|md| n_pod_doms < md) {
        0
    } else {
        min
    }
}

/// A self-selecting affinity pod may open a domain when no domain it may use has a matching pod
/// yet (or no domain has one at all). Domains outside `counts` (`Group::domains`) hold 0 pods,
/// so `counts` alone answers.
fn affinity_bootstrap(g: &Group, pod_domains: &Requirement, selects_self: bool, interner: &Interner) -> bool {
    if !selects_self {
        return false;
    }
    let populated_for_pod = g.counts.iter().any(|(d, c)| *c > 0 && pod_domains.has(*d, interner));
    let all_empty = g.counts.values().all(|c| *c == 0);
    all_empty || !populated_for_pod
}

/// The requirement a group imposes on a placement (R5.16–R5.18). `None` = unsatisfiable.
pub fn next_domain(
    g: &Group,
    hosts: &[ValueId],
    hostname: KeyId,
    pod_domains: &Requirement,
    node_domains: &Requirement,
    selects_self: bool,
    interner: &Interner,
) -> Option<Requirement> {
    let count = |d: ValueId| g.counts.get(&d).copied().unwrap_or(0);
    let is_host = g.def.key == hostname;
    match g.def.kind {
        GroupKind::Spread => {
            let me = i32::from(selects_self);
            if is_host {
                if let Some(h) = single(node_domains) {
                    return (count(h) + me <= g.def.max_skew).then(|| Requirement::in_values([h]));
                }
            }
            let counts = g.domains(hosts);
            let min = spread_min(g, &counts, pod_domains, interner);
            let best = counts
                .iter()
                .filter(|(d, _)| node_domains.has(**d, interner))
                .filter(|(_, c)| **c + me - min <= g.def.max_skew)
                .min_by(|a, b| (a.1, interner.str(*a.0)).cmp(&(b.1, interner.str(*b.0))))
                .map(|(d, _)| *d);
            best.map(|d| Requirement::in_values([d]))
        }
        GroupKind::Affinity => {
            let bootstrap = affinity_bootstrap(g, pod_domains, selects_self, interner);
            if is_host {
                if let Some(h) = single(node_domains) {
                    let ok = pod_domains.has(h, interner) && (count(h) > 0 || bootstrap);
                    return ok.then(|| Requirement::in_values([h]));
                }
            }
            // Populated domains only: the registered hostnames outside `counts` hold none.
            let allowed: Vec<ValueId> = g
                .counts
                .iter()
                .filter(|(d, c)| **c > 0 && pod_domains.has(**d, interner) && node_domains.has(**d, interner))
                .map(|(d, _)| *d)
                .collect();
            if !allowed.is_empty() {
                return Some(Requirement::in_values(allowed));
            }
            if bootstrap {
                let first = g
                    .domains(hosts)
                    .keys()
                    .copied()
                    .filter(|d| pod_domains.has(*d, interner) && node_domains.has(*d, interner))
                    .min_by_key(|d| interner.str(*d));
                return first.map(|d| Requirement::in_values([d]));
            }
            None
        }
        GroupKind::AntiAffinity => {
            if is_host {
                if let Some(h) = single(node_domains) {
                    return (count(h) == 0).then(|| Requirement::in_values([h]));
                }
            }
            let allowed: Vec<ValueId> = g
                .domains(hosts)
                .iter()
                .filter(|(d, c)| **c == 0 && pod_domains.has(**d, interner) && node_domains.has(**d, interner))
                .map(|(d, _)| *d)
                .collect();
            (!allowed.is_empty()).then(|| Requirement::in_values(allowed))
        }
    }
}

/// The domains Karpenter could have picked where [`next_domain`] picked one, when there are
/// several; empty otherwise. Karpenter walks a Go map (or set) of domains and keeps the first
/// with the least count (spread, `nextDomainTopologySpread`) or the first usable one
/// (affinity without a populated domain, `nextDomainAffinity`), and Go randomises map order,
/// so any of these can come out of a real run; [`next_domain`] takes the first by name and
/// the admission (`admit.rs`) then the likeliest: the first the claim's NodePool lists.
pub fn tied_domains(
    g: &Group,
    hostname: KeyId,
    pod_domains: &Requirement,
    node_domains: &Requirement,
    selects_self: bool,
    interner: &Interner,
) -> Vec<ValueId> {
    // (Hostname groups, the only ones with domains outside `counts`, have no ties.)
    if g.def.key == hostname {
        return Vec::new();
    }
    let on_node = |d: &ValueId| node_domains.has(*d, interner);
    let tied: Vec<ValueId> = match g.def.kind {
        GroupKind::Spread => {
            let me = i32::from(selects_self);
            let min = spread_min(g, &g.counts, pod_domains, interner);
            let valid = || g.counts.iter().filter(|(d, c)| on_node(d) && **c + me - min <= g.def.max_skew);
            let Some(least) = valid().map(|(_, c)| *c).min() else { return Vec::new() };
            valid().filter(|(_, c)| **c == least).map(|(d, _)| *d).collect()
        }
        GroupKind::Affinity => {
            // Only the bootstrap picks one domain; a populated domain yields them all.
            let populated = g.counts.iter().any(|(d, c)| *c > 0 && pod_domains.has(*d, interner) && on_node(d));
            if populated || !affinity_bootstrap(g, pod_domains, selects_self, interner) {
                return Vec::new();
            }
            g.counts.keys().filter(|d| pod_domains.has(**d, interner) && on_node(d)).copied().collect()
        }
        GroupKind::AntiAffinity => Vec::new(),
    };
    if tied.len() < 2 {
        return Vec::new();
    }
    tied
}

/// Record a placement with final requirements `placed` (R5.19): the inverse groups the pod owns
/// and the other groups that select it. Counts are per group, so the visiting order is free.
pub fn record(topo: &mut Topology, pod: &Pod, placed: &Requirements, taints: &[Taint], owned_inverse: &[usize], m: &Model) {
    let mut candidates = Vec::new();
    topo.selecting(pod, false, &mut candidates);
    // A pod with two identical anti-affinity terms owns the same inverse group twice; it counts once.
    let mut owned: Vec<usize> = owned_inverse.iter().copied().filter(|&i| topo.groups[i].def.inverse).collect();
    owned.sort_unstable();
    owned.dedup();
    topo.count_families(pod, |def| match placed.get(def.key) {
        // (Anti-affinity: every value of the placement counts, as below; no node filter.)
        Some(r) if !r.complement && filter_passes(def, placed, taints, m) => r.values.to_vec(),
        _ => Vec::new(),
    });
    for i in candidates.into_iter().chain(owned) {
        if topo.groups[i].virt.is_some() {
            // An owned inverse member: the owner's placement, at every value, into its family.
            let Some(r) = placed.get(topo.groups[i].def.key).filter(|r| !r.complement) else { continue };
            for v in r.values.clone() {
                topo.add_count(i, v, pod);
            }
            continue;
        }
        let g = &mut topo.groups[i];
        let Some(r) = placed.get(g.def.key) else { continue };
        let increment_all = if g.def.inverse {
            true
        } else {
            if !filter_passes(&g.def, placed, taints, m) {
                continue;
            }
            g.def.kind == GroupKind::AntiAffinity
        };
        if r.complement {
            continue;
        }
        if increment_all {
            for v in &r.values {
                *g.counts.entry(*v).or_insert(0) += 1;
            }
        } else if r.values.len() == 1 {
            *g.counts.entry(r.values[0]).or_insert(0) += 1;
        }
    }
}

/// Node `n`'s labels as requirements, built once into `cache`.
pub fn node_requirements<'c>(cache: &'c mut HashMap<usize, Requirements>, n: usize, m: &Model) -> &'c Requirements {
    cache.entry(n).or_insert_with(|| label_requirements(&m.nodes[n].labels, &m.interner))
}

/// Node labels as requirements (`In [v]` per label).
pub fn label_requirements(labels: &LabelSet, interner: &Interner) -> Requirements {
    let mut r = Requirements::new();
    for (k, v) in labels.iter() {
        r.add(k, Requirement::in_values([v]), interner);
    }
    r
}

#[cfg(test)]
mod tests;
