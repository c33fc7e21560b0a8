//! Templates (one per usable NodePool) and planned NodeClaims: candidate narrowing, daemon
//! overhead, instance-type filtering and minValues (spec §4.7, §5.3.4, §5.8–§5.10).

use super::{it_labels_compatible, offering_compatible, Fail, NoTypeFit};
use crate::catalog::InstanceType;
use crate::labels::{KeyId, ValueId};
use crate::model::{HostPort, MinValuesPolicy, Model};
use crate::requirements::{Requirement, Requirements};
use crate::resources::Resources;
use crate::taints::{first_untolerated, Toleration};
use std::collections::HashMap;

/// A NodePool ready for scheduling.
#[derive(Debug, Clone)]
pub struct Template {
    pub pool: usize,
    pub requirements: Requirements,
    /// Instance types this pool can ever launch (R5.3.4), catalog indices.
    pub its: Vec<u32>,
    /// Per catalog index: daemon-group index (usize::MAX when not in `its`).
    pub group_of: Vec<usize>,
    pub groups: Vec<DaemonGroup>,
    /// Allocatable per catalog index when the pool's node class changes it (AWS only). Shared
    /// by the pools of one node class (see [`TemplateShare`]).
    pub allocatable: Option<std::sync::Arc<Vec<Resources>>>,
    /// Room per type in `its` and resource: see [`Room`].
    pub room: Room,
}

/// Per candidate type and resource, what pods may request in total: `allocatable − daemon
/// overhead` (`i64::MAX` against unbounded allocatable, `i64::MIN` everywhere for a type with
/// a negative allocatable, which fits nothing). `total ≤ room` in every resource is exactly
/// `total.fits_with(overhead, allocatable)` for non-negative totals within the model's
/// resources, but reads one contiguous row instead of three vectors: the fit test runs for up
/// to every candidate type on every try of a pod on a NodeClaim. Shared (`Arc`) because each
/// pass clones the templates of its baseline.
#[derive(Debug, Clone, Default)]
pub struct Room {
    width: usize,
    rows: std::sync::Arc<[i64]>,
}

impl Room {
    fn build(its: &[u32], allocatable: Option<&Vec<Resources>>, group_of: &[usize], groups: &[DaemonGroup], m: &Model) -> Room {
        // Wide enough for every entry of every allocatable and overhead involved, so that a
        // row sees everything `fits_with` would.
        let alloc_of = |i: u32| allocatable.map_or(&m.catalog.types[i as usize].allocatable, |a| &a[i as usize]);
        let widest = |v: &Resources| v.iter_nonzero().map(|(r, _)| r as usize + 1).max().unwrap_or(0);
        let width = its
            .iter()
            .map(|&i| widest(alloc_of(i)).max(widest(&groups[group_of[i as usize]].overhead)))
            .fold(m.resources.len(), usize::max);
        let mut rows = vec![i64::MIN; m.catalog.types.len() * width];
        for &i in its {
            let alloc = alloc_of(i);
            if (0..width as u16).any(|r| alloc.get(r) < 0) {
                continue;
            }
            let over = &groups[group_of[i as usize]].overhead;
            for (r, slot) in rows[i as usize * width..][..width].iter_mut().enumerate() {
                *slot = Room::slot(alloc.get(r as u16), over.get(r as u16));
            }
        }
        Room { width, rows: rows.into() }
    }

    /// What pods may request of one resource with `allocatable` and daemon `overhead`.
    /// `fits_with` adds saturating, so against i64::MAX anything fits.
    fn slot(allocatable: i64, overhead: i64) -> i64 {
        if allocatable == i64::MAX {
            i64::MAX
        } else {
            allocatable.saturating_sub(overhead)
        }
    }

    /// Does `needs` (from [`Room::needs`]) fit in `row`?
    pub fn fits(needs: &[i64], row: &[i64]) -> bool {
        needs.iter().zip(row).all(|(need, room)| need <= room)
    }

    /// The row of catalog type `it`.
    pub fn of(&self, it: u32) -> &[i64] {
        &self.rows[it as usize * self.width..][..self.width]
    }

    /// `total`'s entries over the row width, when that is all of it and none is negative (the
    /// domain where a row comparison equals `fits_with`); None otherwise.
    fn needs(&self, total: &Resources) -> Option<smallvec::SmallVec<[i64; 8]>> {
        let ok = total.iter_nonzero().all(|(r, v)| (r as usize) < self.width && v > 0);
        ok.then(|| (0..self.width as u16).map(|r| total.get(r)).collect())
    }
}

#[derive(Debug, Clone)]
pub struct DaemonGroup {
    pub overhead: Resources,
    pub host_ports: Vec<HostPort>,
    pub daemons: Vec<usize>,
}

impl Template {
    pub fn alloc<'a>(&'a self, it: u32, m: &'a Model) -> &'a Resources {
        match &self.allocatable {
            Some(a) => &a[it as usize],
            None => &m.catalog.types[it as usize].allocatable,
        }
    }

    pub fn overhead(&self, it: u32) -> &Resources {
        &self.groups[self.group_of[it as usize]].overhead
    }
}

/// What the templates of several NodePools can share: the per-type data of the catalog that
/// depends only on the node class. Built per pool, it cost about 200 KB per NodePool with the
/// AWS catalog (issue 17: 10,000 NodePools and one pod came near 10 GB).
#[derive(Default)]
pub struct TemplateShare {
    /// Node class → allocatable per catalog type.
    allocatable: HashMap<usize, std::sync::Arc<Vec<Resources>>>,
    /// Node class (None: the catalog's own allocatable) → room rows without daemon overhead.
    room: HashMap<Option<usize>, Room>,
}

/// Build the template of NodePool `pool`, or None when it can launch nothing (R5.3.4).
pub fn build_template(pool: usize, m: &Model) -> Option<Template> {
    build_template_shared(pool, m, &mut TemplateShare::default())
}

/// [`build_template`], sharing per-catalog data with the other templates built with `share`.
pub fn build_template_shared(pool: usize, m: &Model, share: &mut TemplateShare) -> Option<Template> {
    let np = &m.node_pools[pool];
    let reqs = np.requirements.clone();
    let class = match (m.catalog.is_aws(), np.node_class_index) {
        (true, Some(ci)) => Some(ci),
        _ => None,
    };
    let allocatable = class.map(|ci| {
        let class = &m.node_classes[ci];
        share
            .allocatable
            .entry(ci)
            .or_insert_with(|| {
                std::sync::Arc::new(
                    m.catalog.types.iter().map(|it| crate::catalog::aws::adjust_allocatable(it, class, &m.interner)).collect(),
                )
            })
            .clone()
    });
    let mut its = Vec::new();
    for (i, it) in m.catalog.types.iter().enumerate() {
        let alloc = allocatable.as_ref().map_or(&it.allocatable, |a| &a[i]);
        if it_labels_compatible(it, &reqs, m)
            && it.offerings.iter().any(|o| o.available && offering_compatible(o, &reqs, m))
            && Resources::new().fits_in(alloc)
        {
            its.push(i as u32);
        }
    }
    if its.is_empty() {
        return None;
    }
    if has_min_values(&reqs) && m.settings.min_values_policy == MinValuesPolicy::Strict && min_values_shortfall(&its, &reqs, m).is_some() {
        return None;
    }
    // Daemon groups (R4.7): per instance type, the set of compatible daemons.
    let mut group_index: HashMap<Vec<usize>, usize> = HashMap::new();
    let mut groups = Vec::new();
    let mut group_of = vec![usize::MAX; m.catalog.types.len()];
    let mut tols_cache: Vec<Vec<Toleration>> = Vec::new();
    for ds in &m.daemonsets {
        let mut t = ds.pod.tolerations.clone();
        t.push(Toleration::prefer_no_schedule());
        tols_cache.push(t);
    }
    let tolerated: Vec<bool> = tols_cache.iter().map(|t| first_untolerated(&np.taints, t).is_none()).collect();
    for &i in &its {
        let it = &m.catalog.types[i as usize];
        let daemons: Vec<usize> = m
            .daemonsets
            .iter()
            .enumerate()
            // A DaemonSet pod with resource claims adds no overhead while Karpenter ignores DRA
            // requests (buildDaemonOverheadGroups).
            .filter(|(d, ds)| tolerated[*d] && !skips_dra(&ds.pod, m) && daemon_fits_template(&ds.pod, &reqs, it, m))
            .map(|(d, _)| d)
            .collect();
        let next = groups.len();
        let g = *group_index.entry(daemons.clone()).or_insert_with(|| {
            let mut overhead = Resources::new();
            let mut host_ports = Vec::new();
            for &d in &daemons {
                overhead.add(&m.daemonsets[d].pod.requests);
                host_ports.extend(m.daemonsets[d].pod.host_ports.iter().copied());
            }
            groups.push(DaemonGroup { overhead, host_ports, daemons: daemons.clone() });
            next
        });
        group_of[i as usize] = g;
    }
    // Without daemon overhead a row is the type's allocatable alone, the same for every pool
    // of the node class: one set of rows over the whole catalog serves them all (a pool only
    // reads the rows of its own types).
    let room = if groups.iter().all(|g| g.overhead.iter_nonzero().next().is_none()) {
        share
            .room
            .entry(class)
            .or_insert_with(|| {
                let every: Vec<u32> = (0..m.catalog.types.len() as u32).collect();
                let none = [DaemonGroup { overhead: Resources::new(), host_ports: Vec::new(), daemons: Vec::new() }];
                Room::build(&every, allocatable.as_deref(), &vec![0; every.len()], &none, m)
            })
            .clone()
    } else {
        Room::build(&its, allocatable.as_deref(), &group_of, &groups, m)
    };
    Some(Template { pool, requirements: reqs, its, group_of, groups, allocatable, room })
}

/// R4.7.1: some required term (with the node selector) is compatible with the template and
/// intersects the instance type.
fn daemon_fits_template(pod: &crate::model::Pod, reqs: &Requirements, it: &InstanceType, m: &Model) -> bool {
    let allow = |k: KeyId| m.is_well_known(k);
    pod.strict_alternatives(&m.interner)
        .iter()
        .any(|strict| reqs.compatible(strict, allow, &m.interner).is_ok() && it_labels_compatible(it, strict, m))
}

pub fn has_min_values(reqs: &Requirements) -> bool {
    reqs.iter().any(|(_, r)| r.min_values.is_some())
}

/// Distinct values of `key` over instance types `its` (zone / capacity type from offerings).
fn distinct_values(its: &[u32], key: KeyId, reqs: &Requirements, m: &Model) -> usize {
    let mut vals: Vec<ValueId> = Vec::new();
    for &i in its {
        let it = &m.catalog.types[i as usize];
        if key == m.keys.zone || key == m.keys.capacity_type {
            for o in it.offerings.iter().filter(|o| o.available && offering_compatible(o, reqs, m)) {
                vals.push(if key == m.keys.zone { o.zone } else { o.capacity_type });
            }
        } else if let Some(v) = it.labels.get(key) {
            vals.push(v);
        }
    }
    vals.sort_unstable();
    vals.dedup();
    vals.len()
}

/// The first key whose minValues is not met by `its`, with the number of values found.
pub fn min_values_shortfall(its: &[u32], reqs: &Requirements, m: &Model) -> Option<(KeyId, u32, usize)> {
    reqs.iter().filter_map(|(k, r)| r.min_values.map(|mv| (k, mv))).find_map(|(k, mv)| {
        let n = distinct_values(its, k, reqs, m);
        ((n as u32) < mv).then_some((k, mv, n))
    })
}

/// Per label key, the equally good values a placement chose among (see `PlannedClaim::ties`).
pub type Ties = Vec<(crate::labels::KeyId, Vec<ValueId>)>;

/// A NodeClaim planned in this run.
#[derive(Debug, Clone)]
pub struct PlannedClaim {
    pub template: usize,
    pub requirements: Requirements,
    pub its: Vec<u32>,
    pub pods: Vec<usize>,
    pub requests: Resources,
    pub hostname: ValueId,
    pub host_ports: Vec<HostPort>,
    pub min_values_relaxed: bool,
    /// Choices among equal domains that Go's map order makes in Karpenter (see
    /// `topology::tied_domains`): key, the values it may pick (nodecast's choice included),
    /// Karpenter's likeliest first (`admit.rs`).
    pub ties: Ties,
    /// Most room any candidate type leaves, for rejecting a full claim before any
    /// requirement or topology work (see [`Headroom`]).
    pub headroom: Headroom,
    /// Reservations this claim holds a slot of (Karpenter's `reservedOfferings`).
    pub reserved: super::reserve::Held,
}

/// Per resource, the largest `allocatable − daemon overhead` over a claim's candidate types.
/// A total of pod requests above it in any resource fits none of them, so `filter_its` would
/// find nothing: that is a necessary condition only, checked before the expensive steps.
/// Most rejections in a long pass come from claims that are already full.
#[derive(Debug, Clone, Default)]
pub struct Headroom {
    /// Candidate count it was computed for: candidates only shrink, so an equal count means
    /// the same set and no recomputation.
    of_len: usize,
    /// None when no candidate can fit anything (negative allocatable). `i64::MAX` stands for
    /// unbounded room: a saturated total of requests is never above it.
    max: Option<smallvec::SmallVec<[i64; 8]>>,
    /// Per resource, the least room over the candidates (full [`Room`] rows; empty when there
    /// are none): a total within it fits every candidate (see [`Known`]).
    least: smallvec::SmallVec<[i64; 8]>,
}

impl Headroom {
    pub fn least(&self) -> &[i64] {
        &self.least
    }

    /// Recompute for candidates `its` of template `t`, unless they did not change.
    ///
    /// Runs on most commits (a claim's candidates shrink as its pods add up: 15,680 times over
    /// 6.2 M rows for Karpenter's 20,000-pod benchmark), so it is one pass of plain `i64`
    /// min / max over the rows, with the usual 4-wide row (cpu, memory, pods,
    /// ephemeral-storage) unrolled. A type with a negative allocatable has every entry at
    /// `i64::MIN` — the identity of `max` — so it adds nothing to `max` and needs no test; it
    /// only matters when every candidate is one (then `max` is None: nothing fits).
    pub fn update(&mut self, t: &Template, its: &[u32], m: &Model) {
        if self.of_len == its.len() && self.of_len != 0 {
            return;
        }
        let n = m.resources.len();
        let width = t.room.width;
        let (least, most) = match width {
            4 => {
                let (l, x) = fold_rows::<4>(&t.room, its);
                (smallvec::SmallVec::from_slice(&l), smallvec::SmallVec::from_slice(&x))
            }
            _ => fold_rows_dyn(&t.room, its),
        };
        let least = if its.is_empty() { smallvec::SmallVec::new() } else { least };
        // Some row is not all i64::MIN exactly when the max over the full width is not.
        let live = !its.is_empty() && (n == 0 || most.iter().any(|&v| v != i64::MIN));
        // Rows are at least `n` wide (see `Room::build`).
        let max = live.then(|| most[..n].iter().copied().collect());
        *self = Headroom { of_len: its.len(), max, least };
    }

    /// Could `base + extra` (summed as `Resources::add` does, saturating) fit in some candidate?
    pub fn admits(&self, base: &Resources, extra: &Resources, m: &Model) -> bool {
        let Some(max) = &self.max else { return false };
        let n = m.resources.len();
        let total = |r: u16| base.get(r).saturating_add(extra.get(r));
        (0..n).all(|r| total(r as u16) <= max[r])
            && base.iter_nonzero().chain(extra.iter_nonzero()).all(|(r, _)| (r as usize) < n || total(r) <= 0)
    }
}

/// Per resource over the rows of `its`: the least and the largest room (fixed width `W`).
fn fold_rows<const W: usize>(room: &Room, its: &[u32]) -> ([i64; W], [i64; W]) {
    let (mut least, mut most) = ([i64::MAX; W], [i64::MIN; W]);
    for &i in its {
        let row: &[i64; W] = room.of(i).try_into().expect("row of the room's width");
        for r in 0..W {
            least[r] = least[r].min(row[r]);
            most[r] = most[r].max(row[r]);
        }
    }
    (least, most)
}

/// [`fold_rows`] for any width.
fn fold_rows_dyn(room: &Room, its: &[u32]) -> (smallvec::SmallVec<[i64; 8]>, smallvec::SmallVec<[i64; 8]>) {
    let mut least: smallvec::SmallVec<[i64; 8]> = smallvec::smallvec![i64::MAX; room.width];
    let mut most: smallvec::SmallVec<[i64; 8]> = smallvec::smallvec![i64::MIN; room.width];
    for &i in its {
        for ((l, x), &v) in least.iter_mut().zip(most.iter_mut()).zip(room.of(i)) {
            *l = (*l).min(v);
            *x = (*x).max(v);
        }
    }
    (least, most)
}

/// Cache of "instance types compatible with these requirements and with an available
/// compatible offering", keyed by the requirement entries that instance types can see.
#[derive(Default)]
pub struct CompatCache {
    map: crate::fxhash::FxHashMap<Requirements, Vec<bool>>,
}

impl CompatCache {
    pub fn get(&mut self, reqs: &Requirements, m: &Model) -> &Vec<bool> {
        let mut key = Requirements::new();
        // The EC2NodeClass scopes reserved offerings (`reserved_offering_compatible`): without it
        // in the key, a claim of a class that selected no reservation took another class's
        // reserved offerings from the cache (oracle seed reserved-65).
        let class_key = (!m.reservations.is_empty()).then_some(m.keys.node_class);
        for (k, r) in reqs.iter() {
            if k == m.keys.zone || k == m.keys.capacity_type || m.catalog.is_label_key(k) || Some(k) == class_key {
                key.set(k, Requirement { min_values: None, ..r.clone() });
            }
        }
        self.map.entry(key).or_insert_with_key(|key| {
            m.catalog
                .types
                .iter()
                .map(|it| it_labels_compatible(it, key, m) && it.offerings.iter().any(|o| o.available && offering_compatible(o, key, m)))
                .collect()
        })
    }
}

/// What is known of the candidates of an open claim before filtering them again.
pub struct Known<'a> {
    /// The new requirements equal those the candidates were filtered under (the claim's), so
    /// every candidate is compatible with them.
    pub unchanged: bool,
    /// The least room over the candidates ([`Headroom`]); empty when unknown.
    pub least_room: &'a [i64],
}

impl Known<'_> {
    pub const NOTHING: Known<'static> = Known { unchanged: false, least_room: &[] };
}

/// Instance-type filtering for a claim with total pod requests `total` under requirements `r`
/// (R5.9). Returns survivors, or why none survived.
///
/// Most pods added to an open claim change neither its requirements nor which candidates have
/// room: with `known` those pods keep every candidate without a look at each (the filter ran
/// for up to 400 types on every pod placed).
#[allow(clippy::too_many_arguments)]
pub fn filter_its(
    t: &Template,
    candidates: &[u32],
    r: &Requirements,
    total: &Resources,
    pod_ports: &[HostPort],
    known: &Known,
    cache: &mut CompatCache,
    m: &Model,
) -> Result<Vec<u32>, Fail> {
    let needs = t.room.needs(total);
    if let Some(needs) = &needs {
        let all_fit = needs.len() == known.least_room.len() && Room::fits(needs, known.least_room);
        if known.unchanged && all_fit && pod_ports.is_empty() && !candidates.is_empty() {
            return Ok(candidates.to_vec());
        }
    }
    let compat = if known.unchanged { None } else { Some(cache.get(r, m)) };
    // Sized once: growing it push by push was a tenth of the diverse solve.
    let mut out = Vec::with_capacity(candidates.len());
    let (mut any_req, mut any_fit) = (false, false);
    for &i in candidates {
        if !pod_ports.is_empty() {
            let g = &t.groups[t.group_of[i as usize]];
            if g.host_ports.iter().any(|a| pod_ports.iter().any(|b| a.conflicts(b))) {
                continue;
            }
        }
        let ok_req = compat.is_none_or(|c| c[i as usize]);
        let fits = match &needs {
            Some(needs) => Room::fits(needs, t.room.of(i)),
            None => total.fits_with(t.overhead(i), t.alloc(i, m)),
        };
        any_req |= ok_req;
        any_fit |= fits;
        if ok_req && fits {
            out.push(i);
        }
    }
    if out.is_empty() {
        return Err(Fail::NoType(NoTypeFit { any_requirements: any_req, any_resources: any_fit }));
    }
    Ok(out)
}

/// Remaining-limit filter before a new NodeClaim (R5.10.1a).
pub fn limit_filter(remaining: &[(crate::model::LimitKey, i64)], its: &[u32], m: &Model) -> Result<Vec<u32>, Fail> {
    use crate::model::LimitKey;
    if remaining.is_empty() {
        return Ok(its.to_vec());
    }
    if remaining.iter().any(|(k, v)| *k == LimitKey::Nodes && *v <= 0) {
        return Err(Fail::NodesLimit);
    }
    let out: Vec<u32> = its
        .iter()
        .copied()
        .filter(|&i| {
            let cap = &m.catalog.types[i as usize].capacity;
            remaining.iter().all(|(k, v)| match k {
                LimitKey::Nodes => true,
                LimitKey::Resource(r) => cap.get(*r) <= *v,
            })
        })
        .collect();
    if out.is_empty() {
        Err(Fail::Limits { remaining: remaining.to_vec() })
    } else {
        Ok(out)
    }
}

/// Did the remaining limits remove every type of `t` that would hold `pod` (labels and
/// resources with DaemonSet overhead)? Asked only after a new claim found no type.
pub fn limits_bind(
    remaining: &[(crate::model::LimitKey, i64)],
    t: &Template,
    pod: &crate::model::Pod,
    reqs: &Requirements,
    m: &Model,
) -> bool {
    use crate::model::LimitKey;
    if remaining.is_empty() {
        return false;
    }
    let fits = |i: u32| it_labels_compatible(&m.catalog.types[i as usize], reqs, m) && pod.requests.fits_with(t.overhead(i), t.alloc(i, m));
    let within = |i: u32| {
        let cap = &m.catalog.types[i as usize].capacity;
        remaining.iter().all(|(k, v)| match k {
            LimitKey::Nodes => true,
            LimitKey::Resource(r) => cap.get(*r) <= *v,
        })
    };
    let mut any_fit = false;
    for &i in &t.its {
        if fits(i) {
            if within(i) {
                return false;
            }
            any_fit = true;
        }
    }
    any_fit
}

/// Whether Karpenter leaves a DaemonSet pod out of node overhead: it references ResourceClaims
/// and `--ignore-dra-requests` is true (scheduler.go, `shouldSkipDaemonPod`).
pub fn skips_dra(pod: &crate::model::Pod, m: &Model) -> bool {
    pod.resource_claims && m.settings.ignore_dra_requests
}

#[cfg(test)]
mod tests {
    use super::Room;
    use crate::resources::Resources;
    use proptest::prelude::*;

    fn edge() -> impl Strategy<Value = i64> {
        prop_oneof![Just(0), Just(1), Just(i64::MAX), Just(i64::MAX - 1), 0..1_000_000i64, 0..i64::MAX]
    }

    proptest! {
        /// A row comparison decides exactly what `fits_with` decides, at the i64 edges too.
        #[test]
        fn room_rows_agree_with_fits_with(
            total in prop::collection::vec(edge(), 4),
            over in prop::collection::vec(edge(), 4),
            alloc in prop::collection::vec(prop_oneof![edge(), Just(-1i64), i64::MIN..0], 4),
        ) {
            let res = |v: &[i64]| {
                let mut r = Resources::new();
                for (i, &x) in v.iter().enumerate() {
                    r.set(i as u16, x);
                }
                r
            };
            let (t, o, a) = (res(&total), res(&over), res(&alloc));
            let negative = alloc.iter().any(|&x| x < 0);
            let row: Vec<i64> = if negative { vec![i64::MIN; 4] } else { (0..4).map(|r| Room::slot(alloc[r], over[r])).collect() };
            // `needs` is only used when every nonzero entry is positive, as here.
            prop_assert_eq!(Room::fits(&total, &row), t.fits_with(&o, &a));
        }
    }
}
