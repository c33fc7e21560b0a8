//! One provisioning pass (spec §5): existing nodes first, then NodeClaims planned in this
//! pass, then a new NodeClaim from the best NodePool, relaxing preferences one step at a time.

mod admit;
mod baseline;
pub mod claim;
pub mod dra;
mod exclusive;
pub mod existing;
mod gosort;
mod inflight;
pub mod launch;
pub mod memo;
mod order;
pub mod reserve;
mod scan;
pub mod topology;
mod view;

use crate::catalog::{InstanceType, Offering};
use crate::labels::KeyId;
use crate::model::{book_limit, LimitKey, Model, Pod};
use crate::requirements::{Incompatible, Requirement, Requirements};
use crate::taints::{Taint, Toleration};
use claim::{CompatCache, PlannedClaim, Template};
use existing::ExistingState;
use memo::{RejectMemo, Shape};
use std::collections::{HashMap, VecDeque};
use topology::{GroupKind, Topology};

pub use baseline::{Baseline, BaselineMemo};
use view::{Relax, View, ViewParts};

/// Instance type labels vs requirements (R2.6 with the type's single-valued labels; zone and
/// capacity type are checked through offerings).
pub fn it_labels_compatible(it: &InstanceType, r: &Requirements, m: &Model) -> bool {
    r.iter().all(|(k, req)| {
        if k == m.keys.zone || k == m.keys.capacity_type || !m.catalog.is_label_key(k) {
            return true;
        }
        match it.labels.get(k) {
            Some(v) => req.has(v, &m.interner),
            // The reservation labels of a type are those of its reservations (the AWS
            // provider's instance-type requirements: In the ids, or DoesNotExist without any).
            None if m.keys.is_reservation_key(k) => {
                let mut values = it.offerings.iter().filter_map(|o| crate::catalog::resolve::reservation_of(m, o)).peekable();
                if values.peek().is_none() {
                    return req.allows_absent();
                }
                values.any(|r| req.has(crate::catalog::resolve::label_value(r, k, m), &m.interner))
            }
            None => req.allows_absent(),
        }
    })
}

pub fn offering_compatible(o: &Offering, r: &Requirements, m: &Model) -> bool {
    r.get(m.keys.zone).is_none_or(|z| z.has(o.zone, &m.interner))
        && r.get(m.keys.capacity_type).is_none_or(|c| c.has(o.capacity_type, &m.interner))
        && match o.reservation {
            Some(_) => crate::catalog::resolve::reserved_offering_compatible(o, r, m),
            // The AWS provider's on-demand and spot offerings carry the three reservation
            // labels as DoesNotExist (offering/base_resolver.go): a NodeClaim that requires a
            // reservation id (or type) cannot launch them, whatever its capacity types allow.
            None => {
                m.reservations.is_empty() || m.keys.reservation_keys().into_iter().all(|k| r.get(k).is_none_or(|req| req.allows_absent()))
            }
        }
}

/// Why no instance type survived filtering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoTypeFit {
    pub any_requirements: bool,
    pub any_resources: bool,
}

/// Why one placement attempt failed.
#[derive(Debug, Clone, PartialEq)]
pub enum Fail {
    Taint(Taint),
    Requirements(Incompatible),
    Topology {
        kind: GroupKind,
        key: KeyId,
    },
    HostPort,
    NoType(NoTypeFit),
    MinValues {
        key: KeyId,
        min: u32,
        found: usize,
    },
    /// Every type that fits exceeds a limit; what remained of each limit then.
    Limits {
        remaining: Vec<(LimitKey, i64)>,
    },
    NodesLimit,
    Resources,
    /// Reserved capacity could not be reserved (see `reserve`).
    Reserved(reserve::ReservedFail),
    /// The DRA allocator found no devices for the pod's claims (`dra`).
    Dra(dra::DraFail),
}

/// Final outcome for a pod that stays pending.
#[derive(Debug, Clone, PartialEq)]
pub enum PodFailure {
    /// Karpenter ignores the pod (R5.2.3).
    Ignored(String),
    /// The pod references ResourceClaims and `--ignore-dra-requests` is true: Karpenter's
    /// scheduler refuses it before trying any node and never relaxes it (`DRAError`).
    DynamicResources,
    /// No NodePool can be used at all.
    NoNodePools,
    /// Karpenter's provisioner found no dynamic NodePool, so its pass did not run
    /// ([`solve`]); the node the kube-scheduler may still bind the pod to, if one has room.
    NoDynamicNodePools(Option<usize>),
    /// Per usable NodePool (pool index), the error of the most relaxed attempt.
    PerPool(Vec<(usize, Fail)>),
}

impl PodFailure {
    /// Did the pod fail on a ReservedOfferingError (see `reserve`)?
    pub fn is_reserved_offering_error(&self) -> bool {
        matches!(self, PodFailure::PerPool(errs) if errs.iter().any(|(_, f)| matches!(f, Fail::Reserved(r) if r.is_reserved_offering_error())))
    }
}

/// Where a pod went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    Existing(usize),
    Claim(usize),
}

/// The pass's result before launch decisions.
pub struct Solution {
    pub templates: Vec<Template>,
    pub claims: Vec<PlannedClaim>,
    pub existing: Vec<ExistingState>,
    pub placements: HashMap<usize, Placement>,
    pub failures: Vec<(usize, PodFailure)>,
    /// Pod index → the preference-relaxation steps it needed (for explanations).
    pub relaxed: HashMap<usize, Vec<String>>,
}

pub struct Solver<'m> {
    pub m: &'m Model,
    pub templates: Vec<Template>,
    pub existing: Vec<ExistingState>,
    pub claims: Vec<PlannedClaim>,
    remaining: HashMap<usize, Vec<(LimitKey, i64)>>,
    pub topo: Topology,
    owned_inverse: HashMap<usize, Vec<usize>>,
    /// Bound pods that count for topology (pod, node), for groups first built mid-pass.
    bound: Vec<(usize, usize)>,
    cache: std::cell::RefCell<CompatCache>,
    any_pns: bool,
    next_host: u32,
    /// Existing nodes / open NodeClaims known to reject a pod shape (see `memo`).
    existing_memo: RejectMemo,
    claim_memo: RejectMemo,
    /// The same for pods with topology groups, remembering only resource rejections, keyed
    /// by `ShapeIds::requests` (see `memo`).
    existing_room_memo: RejectMemo,
    claim_room_memo: RejectMemo,
    /// Per resource, the least any pod of the batch requests: a claim without room for it
    /// can take no pod of this pass, ever (requests only grow, candidates only shrink).
    least_request: crate::resources::Resources,
    /// Per claim, whether it still has room for `least_request`.
    claim_alive: Vec<bool>,
    /// The claims in Karpenter's order (pod count, ties as Go's sort leaves them), kept up to
    /// date per commit rather than re-sorted per pod; full claims stop costing anything.
    order: inflight::InflightOrder,
    /// Claims whose place in `order` moved without a commit (reused buffer).
    moved: Vec<u32>,
    /// (shape, template) → outcome of a new claim from that template (see `add`).
    fresh_memo: crate::fxhash::FxHashMap<(u32, usize), FreshOutcome>,
    /// (shape, template) → why a new claim from a template whose pool has limits failed, with
    /// the remaining limits it failed under (see `add`).
    limited_memo: crate::fxhash::FxHashMap<(u32, usize), (Remaining, Fail)>,
    /// Pod shapes by id (see `memo::ShapeIds`).
    shape_ids: memo::ShapeIds,
    /// (pod spec, bound) → shape id of the unrelaxed view (see `add`).
    spec_shapes: crate::fxhash::FxHashMap<(usize, bool), u32>,
    /// Pod spec → the parts of its unrelaxed view (see `View`).
    spec_views: crate::fxhash::FxHashMap<usize, ViewParts>,
    /// The view parts of a pod without node constraints or tolerations.
    plain_view: Option<ViewParts>,
    /// The pass's reservation counts, when some template can launch into a reservation.
    reserve: Option<reserve::Manager>,
    /// Per template: some candidate type has a reserved offering compatible with it.
    reserved_templates: Vec<bool>,
    /// Placements so far: every change of the solver's state a shape's answer reads (a
    /// commit to a claim or an existing node, a new claim, limits booked) comes with one.
    placed: u64,
    /// Shape → why `add` failed for it, and `placed` then (see `add`).
    failed_memo: crate::fxhash::FxHashMap<u32, (u64, PodFailure)>,
    /// The DRA allocator's state, with `--ignore-dra-requests=false` (`dra`).
    dra: Option<dra::Pass>,
    /// Which open NodeClaims a pod of an exclusive Job may take (`exclusive`).
    exclusive: exclusive::ExclusiveIndex,
}

/// What is left of a NodePool's limits (milli-units; `nodes` counts 1000 per node).
type Remaining = Vec<(LimitKey, i64)>;

/// A new claim's requirements, candidates, whether minValues was relaxed and the candidates'
/// headroom (memoised too: 20,000 one-pod claims recomputed it per row), or why not.
/// The reservations it would hold are not part of it (see `Solver::reservations_for`).
type FreshOutcome = Result<(Requirements, Vec<u32>, bool, claim::Ties, claim::Headroom), Fail>;

/// What `can_add` answers: the claim's requirements and candidates with the pod, the ties its
/// topology choices broke, and the reservations it would hold.
type Accepted = (Requirements, Vec<u32>, claim::Ties, reserve::Held);

/// Run one provisioning pass over every pending pod of the model.
pub fn solve(m: &Model) -> Solution {
    let mut sol = solve_pods(m, None, &[], &[]);
    if !(0..m.node_pools.len()).any(|p| m.provisionable(p)) {
        pass_not_run(&mut sol);
    }
    sol
}

/// Karpenter's provisioner without a dynamic NodePool: `Provisioner.NewScheduler`
/// (pkg/controllers/provisioning/provisioner.go) drops static, not Ready and deleting NodePools
/// and returns `ErrNodePoolsNotFound` when none is left; `Schedule` then marks every pod of the
/// pass "no dynamic nodepools found" and returns no results. So no pod is placed, not even on
/// an existing node (static NodeClaims included). The pass `sol` ran with no templates: where it
/// put a pod on an existing node is where the kube-scheduler may still bind it, kept in the
/// failure for the answer to say. Pods Karpenter ignores stay ignored (`GetPendingPods` never
/// hands them to the pass).
fn pass_not_run(sol: &mut Solution) {
    let mut failures = Vec::new();
    for e in sol.existing.iter_mut() {
        for p in std::mem::take(&mut e.pods) {
            failures.push((p, PodFailure::NoDynamicNodePools(Some(e.node))));
        }
    }
    for (p, f) in sol.failures.drain(..) {
        let f = match f {
            PodFailure::Ignored(why) => PodFailure::Ignored(why),
            _ => PodFailure::NoDynamicNodePools(None),
        };
        failures.push((p, f));
    }
    failures.sort_by_key(|(p, _)| *p);
    sol.placements.clear();
    sol.relaxed.clear();
    sol.failures = failures;
}

/// Run a pass over `pods` (default: every pending pod), treating nodes in `exclude` as gone
/// and nodes in `gated` as closed to pods that already run somewhere (D-5.9).
/// Disruption reuses this to re-schedule a candidate's pods (no second scheduler).
pub fn solve_pods(m: &Model, pods: Option<&[usize]>, exclude: &[usize], gated: &[usize]) -> Solution {
    solve_on(m, &Baseline::new(m), pods, exclude, gated)
}

/// [`solve_pods`] from a [`Baseline`] of the same model.
pub fn solve_on(m: &Model, base: &Baseline, pods: Option<&[usize]>, exclude: &[usize], gated: &[usize]) -> Solution {
    solve_with(m, base, pods, exclude, gated, reserve::ReservedMode::Strict, &[])
}

/// [`solve_on`] in reservation mode `mode` (the provisioner's is strict, the disruption
/// simulation's fallback), with reservation slots credited back (reservation, count).
pub fn solve_with(
    m: &Model,
    base: &Baseline,
    pods: Option<&[usize]>,
    exclude: &[usize],
    gated: &[usize],
    mode: reserve::ReservedMode,
    credit: &[(u32, i64)],
) -> Solution {
    let templates = base.templates.clone();
    let reserved_templates: Vec<bool> = templates
        .iter()
        .filter(|_| !m.reservations.is_empty())
        .map(|t| {
            t.its.iter().any(|&i| {
                m.catalog.types[i as usize].offerings.iter().any(|o| o.reservation.is_some() && offering_compatible(o, &t.requirements, m))
            })
        })
        .collect();
    let reserve = reserved_templates.iter().any(|&r| r).then(|| reserve::Manager::new(m, mode, credit));
    let mut reserved_templates = reserved_templates;
    reserved_templates.resize(templates.len(), false);
    let any_pns = templates.iter().any(|t| m.node_pools[t.pool].taints.iter().any(|t| t.effect == crate::taints::Effect::PreferNoSchedule));
    let mut existing: Vec<ExistingState> = base.existing.iter().filter(|e| !exclude.contains(&e.node)).cloned().collect();
    for e in existing.iter_mut() {
        e.gated = gated.contains(&e.node);
    }
    let mut remaining = HashMap::new();
    for t in &templates {
        let np = &m.node_pools[t.pool];
        let mut rem = np.limits.clone();
        for e in &existing {
            let node = &m.nodes[e.node];
            if node.nodepool.as_deref() == Some(np.name.as_str()) && !node.marked_for_deletion {
                for (k, v) in rem.iter_mut() {
                    book_limit(
                        v,
                        match k {
                            LimitKey::Nodes => 1000,
                            LimitKey::Resource(r) => node.capacity.get(*r),
                        },
                    );
                }
            }
        }
        remaining.insert(t.pool, rem);
    }
    let mut s = Solver {
        m,
        templates,
        existing,
        claims: Vec::new(),
        remaining,
        topo: Topology::new(m.keys.hostname),
        owned_inverse: HashMap::new(),
        bound: Vec::new(),
        cache: Default::default(),
        any_pns,
        next_host: 0,
        existing_memo: RejectMemo::default(),
        claim_memo: RejectMemo::default(),
        existing_room_memo: RejectMemo::default(),
        claim_room_memo: RejectMemo::default(),
        least_request: crate::resources::Resources::new(),
        claim_alive: Vec::new(),
        order: Default::default(),
        moved: Vec::new(),
        fresh_memo: Default::default(),
        limited_memo: Default::default(),
        shape_ids: Default::default(),
        spec_shapes: Default::default(),
        spec_views: Default::default(),
        plain_view: None,
        reserve,
        reserved_templates,
        placed: 0,
        failed_memo: Default::default(),
        dra: None,
        exclusive: Default::default(),
    };
    let pending: Vec<usize> = match pods {
        Some(p) => p.to_vec(),
        None => (0..m.pods.len()).filter(|&i| m.pods[i].is_pending()).collect(),
    };
    s.dra = (!m.settings.ignore_dra_requests).then(|| dra::Pass::new(m, &pending));
    let mut failures = Vec::new();
    let mut queue: Vec<usize> = Vec::new();
    for &p in &pending {
        match &m.pods[p].ignored {
            Some(why) => failures.push((p, PodFailure::Ignored(why.clone()))),
            None if m.pods[p].resource_claims && m.settings.ignore_dra_requests => failures.push((p, PodFailure::DynamicResources)),
            None => queue.push(p),
        }
    }
    s.build_groups(&queue, exclude);
    for r in 0..m.resources.len() as crate::resources::ResourceId {
        s.least_request.set(r, queue.iter().map(|&p| m.pods[p].requests.get(r)).min().unwrap_or(0));
    }
    let queue = order::queue_order(m, &queue);
    let mut placements = HashMap::new();
    let mut relaxed = HashMap::new();
    let mut errors: crate::fxhash::FxHashMap<usize, PodFailure> = Default::default();
    let mut queue: VecDeque<usize> = queue.into();
    let mut pushed_at: crate::fxhash::FxHashMap<usize, usize> = Default::default();
    while let Some(p) = queue.pop_front() {
        // Cancelled: the caller drops this pass's answer (crate::interrupt).
        if crate::interrupt::poll() {
            queue.push_front(p);
            break;
        }
        if pushed_at.get(&p) == Some(&(queue.len() + 1)) {
            queue.push_front(p);
            break;
        }
        match s.try_schedule(p) {
            Ok((placement, steps)) => {
                placements.insert(p, placement);
                if !steps.is_empty() {
                    relaxed.insert(p, steps);
                }
                errors.remove(&p);
            }
            Err(e) => {
                errors.insert(p, e);
                queue.push_back(p);
                pushed_at.insert(p, queue.len());
            }
        }
    }
    let mut rest: Vec<usize> = queue.into_iter().collect();
    rest.sort_unstable();
    for p in rest {
        if let Some(e) = errors.remove(&p) {
            failures.push((p, e));
        }
    }
    failures.sort_by_key(|(p, _)| *p);
    Solution { templates: s.templates, claims: s.claims, existing: s.existing, placements, failures, relaxed }
}

impl Solver<'_> {
    fn try_schedule(&mut self, p: usize) -> Result<(Placement, Vec<String>), PodFailure> {
        let mut relax = Relax::default();
        loop {
            let view = self.view(p, &relax);
            match self.add(p, &view, relax.steps.is_empty()) {
                Ok(pl) => return Ok((pl, relax.steps)),
                Err(e) => {
                    // Karpenter does not relax a pod that failed on a ReservedOfferingError: it
                    // may schedule later without relaxing, once reservations are released.
                    if e.is_reserved_offering_error() || !self.relax(p, &mut relax) {
                        return Err(e);
                    }
                }
            }
        }
    }

    /// `unrelaxed`: no preference was relaxed, so the view is a function of the pod's spec.
    fn add(&mut self, p: usize, view: &View, unrelaxed: bool) -> Result<Placement, PodFailure> {
        let m = self.m;
        let pod = &m.pods[p];
        // Without topology groups the answer of a target depends only on its state and the
        // pod's shape, so targets that rejected this shape since their last change are skipped.
        // A DRA pod's answer depends on the devices each target has left: no shape memo.
        let dra_pod = self.dra.is_some() && pod.resource_claims;
        let shape = (view.groups.is_empty() && !dra_pod).then(|| {
            // Replicas share their spec (see `Pod`), and with it the shape of an unrelaxed view:
            // the shape is built and hashed once per spec, not once per replica.
            if !unrelaxed || !pod.content_shared() {
                return self.shape_ids.id(Shape::of(pod, view));
            }
            let key = (pod.content_id(), pod.node_name.is_some());
            match self.spec_shapes.get(&key) {
                Some(&id) => id,
                None => {
                    let id = self.shape_ids.id(Shape::of(pod, view));
                    self.spec_shapes.insert(key, id);
                    id
                }
            }
        });
        // A new claim's answer for a shape does not depend on its placeholder hostname when the
        // pod has no hostname requirement, and not on the pass when its pool has no limits:
        // it is computed once per (shape, template). 50,000 GPU claims each filtered the
        // template's types from scratch before.
        let fresh_key = shape.filter(|_| !view.full.has_key(m.keys.hostname));
        // The whole answer for such a shape reads only the shape and the solver's state, which
        // changes only with a placement (existing nodes, open claims and their reservations,
        // limits, the claim order): a shape that failed stays failing, with the same errors,
        // until the next placement. Deferred pods repeat it: with 100 reservations, 939 of
        // 1,000 GPU pods fail on held reservations (a ReservedOfferingError) between a few
        // dozen placements, and each re-ran every open claim and NodePool with its
        // reservation choice (neither memo above can keep a reservation answer, the counts
        // change without the target changing).
        if let Some((at, failure)) = fresh_key.and_then(|k| self.failed_memo.get(&k)) {
            if *at == self.placed {
                return Err(failure.clone());
            }
        }
        let result = self.add_uncached(p, view, shape, fresh_key);
        match &result {
            Ok(_) => self.placed += 1,
            Err(failure) => {
                if let Some(k) = fresh_key {
                    self.failed_memo.insert(k, (self.placed, failure.clone()));
                }
            }
        }
        result
    }

    /// [`Solver::add`] without its memo of failed shapes.
    fn add_uncached(&mut self, p: usize, view: &View, shape: Option<u32>, fresh_key: Option<u32>) -> Result<Placement, PodFailure> {
        let m = self.m;
        let pod = &m.pods[p];
        let found = self.first_existing(pod, view, shape);
        if let Some((i, reqs)) = found {
            self.dra_commit(pod, dra::Holder::Node(self.existing[i].node), &[]);
            self.existing[i].add(p, pod);
            self.existing_memo.changed(i);
            self.existing_room_memo.changed(i);
            let owned = self.owned_inverse.get(&p).cloned().unwrap_or_default();
            let taints = std::sync::Arc::clone(&self.existing[i].taints);
            topology::record(&mut self.topo, pod, &reqs, &taints, &owned, m);
            return Ok(Placement::Existing(i));
        }
        // Open NodeClaims, fewest pods first, ties in the order Go's sort leaves them. Karpenter
        // sorts here, after the existing nodes refused the pod (`inflight`).
        self.settle_order();
        let found = self.first_open_claim(pod, view, shape);
        if let Some((c, r, its, ties, held)) = found {
            self.commit(c, p, r, its, ties, None, held);
            return Ok(Placement::Claim(c));
        }
        if self.templates.is_empty() {
            return Err(PodFailure::NoNodePools);
        }
        let mut errs = Vec::new();
        for ti in 0..self.templates.len() {
            let t = &self.templates[ti];
            let rem = self.remaining.get(&t.pool).map(Vec::as_slice).unwrap_or(&[]);
            // The memo holds the answer without the reservation step, which reads the pass's
            // reservation counts and is taken on every new claim (`reservations_for`): with
            // 100 reservations the GPU NodeClaims filtered their template's types from scratch.
            let memo_key = fresh_key.as_ref().filter(|_| rem.is_empty());
            // With limits, the outcome depends on the shape, the template and the remaining
            // limits only (the hostname argument above holds), so a failure stays the answer
            // while the pool's remaining limits are what it failed under. Once a limit is
            // spent nothing more launches from the pool and they never change again: 100,000
            // GPU pods held by a limit each scanned the catalog twice before.
            let limited_key = fresh_key.filter(|_| !rem.is_empty() && !self.reserved_templates[ti]).map(|k| (k, ti));
            if let Some((under, fail)) = limited_key.and_then(|k| self.limited_memo.get(&k)) {
                if under.as_slice() == rem {
                    errs.push((t.pool, fail.clone()));
                    continue;
                }
            }
            let fail_with = |s: &mut Self, pool: usize, fail: Fail| {
                if let Some(k) = limited_key {
                    let under = s.remaining.get(&pool).cloned().unwrap_or_default();
                    s.limited_memo.insert(k, (under, fail.clone()));
                }
                fail
            };
            let h = placeholder(self.next_host);
            let known = memo_key.and_then(|&k| self.fresh_memo.get(&(k, ti))).cloned();
            let outcome = match known {
                Some(outcome) => outcome,
                None => {
                    let its = match claim::limit_filter(rem, &t.its, m) {
                        Ok(its) => its,
                        Err(e) => {
                            let pool = t.pool;
                            errs.push((pool, fail_with(self, pool, e)));
                            continue;
                        }
                    };
                    let mut reqs = t.requirements.clone();
                    reqs.set(m.keys.hostname, Requirement::in_values([h]));
                    let fresh = PlannedClaim {
                        template: ti,
                        requirements: reqs,
                        its,
                        pods: Vec::new(),
                        requests: crate::resources::Resources::new(),
                        hostname: h,
                        host_ports: Vec::new(),
                        min_values_relaxed: false,
                        ties: Vec::new(),
                        headroom: claim::Headroom::default(),
                        reserved: reserve::Held::new(),
                    };
                    let outcome = self.can_add_base(&fresh, pod, view, true).map(|(r, its, ties)| {
                        let relaxed = its_relaxed(&fresh.requirements, &r);
                        let mut headroom = claim::Headroom::default();
                        headroom.update(t, &its, m);
                        (r, its, relaxed, ties, headroom)
                    });
                    if let Some(&k) = memo_key {
                        self.fresh_memo.insert((k, ti), outcome.clone());
                    }
                    outcome
                }
            };
            let outcome = outcome.and_then(|(r, its, relaxed, ties, headroom)| {
                let held = self.reservations_for(ti, &its, &r, &[])?;
                Ok((r, its, relaxed, ties, headroom, held))
            });
            match outcome {
                Ok((mut r, its, relaxed, ties, headroom, held)) => {
                    // The requirements name the placeholder they were computed with.
                    r.set(m.keys.hostname, Requirement::in_values([h]));
                    self.next_host += 1;
                    let c = self.claims.len();
                    self.claims.push(PlannedClaim {
                        template: ti,
                        requirements: Requirements::new(),
                        its: Vec::new(),
                        pods: Vec::new(),
                        requests: crate::resources::Resources::new(),
                        hostname: h,
                        host_ports: Vec::new(),
                        min_values_relaxed: relaxed,
                        ties: Vec::new(),
                        headroom: claim::Headroom::default(),
                        reserved: reserve::Held::new(),
                    });
                    self.topo.register_hostname(h);
                    // R5.11.1: book the largest candidate's capacity; `nodes` counts one per
                    // claim (the R5.11.2 recommendation, so a nodes limit holds within a pass).
                    if let Some(rem) = self.remaining.get_mut(&t.pool) {
                        for (k, v) in rem.iter_mut() {
                            book_limit(
                                v,
                                match k {
                                    LimitKey::Nodes => 1000,
                                    LimitKey::Resource(res) => {
                                        its.iter().map(|&i| m.catalog.types[i as usize].capacity.get(*res)).max().unwrap_or(0)
                                    }
                                },
                            );
                        }
                    }
                    self.commit(c, p, r, its, ties, Some(headroom), held);
                    return Ok(Placement::Claim(c));
                }
                // A ReservedOfferingError: Karpenter discards every later NodePool's answer
                // (scheduler.go addToNewNodeClaim), so lower-weight NodePools are not tried.
                Err(Fail::Reserved(f)) if f.is_reserved_offering_error() => {
                    errs.push((t.pool, Fail::Reserved(f)));
                    break;
                }
                // No type is left because the limits removed every type that would hold the
                // pod: that is the limit's doing, and the answer says so with the numbers.
                Err(Fail::NoType(_))
                    if claim::limits_bind(self.remaining.get(&t.pool).map_or(&[], Vec::as_slice), t, pod, &view.full, m) =>
                {
                    let pool = t.pool;
                    let remaining = self.remaining.get(&pool).cloned().unwrap_or_default();
                    errs.push((pool, fail_with(self, pool, Fail::Limits { remaining })))
                }
                Err(e) => {
                    let pool = t.pool;
                    errs.push((pool, fail_with(self, pool, e)))
                }
            }
        }
        Err(PodFailure::PerPool(errs))
    }

    /// `headroom`: the headroom of `its` when the caller has it (a new claim's, memoised).
    #[allow(clippy::too_many_arguments)]
    fn commit(
        &mut self,
        c: usize,
        p: usize,
        r: Requirements,
        its: Vec<u32>,
        ties: claim::Ties,
        headroom: Option<claim::Headroom>,
        held: reserve::Held,
    ) {
        let m = self.m;
        let pod = &m.pods[p];
        if let Some(mgr) = self.reserve.as_mut() {
            // `can_add` checked every new slot against these counts just now.
            let ok = mgr.update(&mut self.claims[c].reserved, held);
            debug_assert!(ok, "over-reserved a reservation");
        }
        self.claim_memo.changed(c);
        self.claim_room_memo.changed(c);
        self.dra_commit(pod, dra::Holder::Claim(self.claims[c].hostname), &its);
        let claim = &mut self.claims[c];
        claim.requirements = r;
        claim.its = its;
        claim.ties.extend(ties);
        claim.pods.push(p);
        claim.requests.add(&pod.requests);
        claim.host_ports.extend(pod.host_ports.iter().copied());
        if let Some(h) = headroom {
            claim.headroom = h;
        }
        claim.headroom.update(&self.templates[claim.template], &claim.its, m);
        let alive = claim.headroom.admits(&claim.requests, &self.least_request, m);
        if c == self.claim_alive.len() {
            self.claim_alive.push(true);
        }
        self.claim_alive[c] = alive;
        self.order.committed(c, claim.pods.len() as u32, alive);
        // Borrowed field by field (no clones: this runs once per placed pod).
        let claim = &self.claims[c];
        let taints = &m.node_pools[self.templates[claim.template].pool].taints;
        let owned = self.owned_inverse.get(&p).map(Vec::as_slice).unwrap_or(&[]);
        topology::record(&mut self.topo, pod, &claim.requirements, taints, owned, m);
    }

    /// Karpenter's sort of its NodeClaims by pod count, applied to the last commit. Claims the
    /// sort moved are reported to the memos, whose entries carry the scan order.
    fn settle_order(&mut self) {
        self.moved.clear();
        self.order.settle(&mut self.moved);
        for &c in &self.moved {
            self.claim_memo.changed(c as usize);
            self.claim_room_memo.changed(c as usize);
        }
    }

    /// The verdict of the first topology group that rejects an open claim, computed the way
    /// the full check in `can_add` would (same arguments to `next_domain`) but before cloning
    /// the claim's requirements: pods with topology groups cannot use the reject memo, so each
    /// is tried against every open claim, and cloning first made that scan allocate per claim
    /// (quadratic in allocations for hostname anti-affinity). Only groups whose key nothing
    /// earlier in the full check narrows qualify: the pod does not constrain the key and no
    /// earlier group has it (earlier groups only add requirements on their own keys), so the
    /// node domains are exactly the claim's. Anything else is left to the full check.
    fn rejects_on_topology(&self, claim: &PlannedClaim, view: &View) -> Option<(GroupKind, KeyId)> {
        let m = self.m;
        let exists = Requirement::exists();
        for &i in &view.probe {
            let (g, selects) = view.groups[i];
            let group = &self.topo.groups[g];
            let key = group.def.key;
            let pod_domains = view.strict.get(key).unwrap_or(&exists);
            let node_domains = claim.requirements.get(key).unwrap_or(&exists);
            if self.topo.next_domain_of(g, pod_domains, node_domains, selects, &m.interner).is_none() {
                return Some((group.def.kind, key));
            }
        }
        None
    }

    /// Also returns the ties its topology choices broke (see `topology::tied_domains`).
    fn can_add(&self, claim: &PlannedClaim, pod: &Pod, view: &View, new_claim: bool) -> Result<Accepted, Fail> {
        let (r, its, ties) = self.can_add_base(claim, pod, view, new_claim)?;
        let held = self.reservations_for(claim.template, &its, &r, &claim.reserved)?;
        Ok((r, its, ties, held))
    }

    /// The reservations a claim from template `ti` holding `held` would hold with candidates
    /// `its` under `r` (`offeringsToReserve`), or why it cannot reserve. It reads the pass's
    /// reservation counts, which change without the claim changing, so it is kept apart from
    /// [`Solver::can_add_base`], whose answer for a fresh claim is memoised per shape.
    fn reservations_for(&self, ti: usize, its: &[u32], r: &Requirements, held: &[u32]) -> Result<reserve::Held, Fail> {
        match &self.reserve {
            Some(mgr) if self.reserved_templates[ti] => mgr.offerings_to_reserve(its, r, held, self.m).map_err(Fail::Reserved),
            _ => Ok(reserve::Held::new()),
        }
    }
}

impl Solver<'_> {
    /// Whether existing node `node` has the devices for the pod's claims.
    pub(super) fn dra_accepts(&self, pod: &Pod, node: usize) -> Result<(), Fail> {
        match &self.dra {
            Some(pass) if pod.resource_claims => pass.check(self.m, pod, dra::Holder::Node(node), &[]).map(|_| ()).map_err(Fail::Dra),
            _ => Ok(()),
        }
    }

    /// Record the devices a placement of a DRA pod took (the check is repeated: it is
    /// deterministic, and the scans keep only the winner's answer).
    fn dra_commit(&mut self, pod: &Pod, holder: dra::Holder, its: &[u32]) {
        let m = self.m;
        let Some(pass) = self.dra.as_mut().filter(|_| pod.resource_claims) else { return };
        if let Ok(outcome) = pass.check(m, pod, holder, its) {
            pass.commit(holder, outcome);
        }
    }
}

/// Placeholder hostnames (R5.8.1) exist only within a pass: they take ids from the top of the
/// id space, far above anything the model interned, so the model stays shared and immutable.
pub fn placeholder(n: u32) -> crate::labels::ValueId {
    u32::MAX - 1 - n
}

fn its_relaxed(before: &Requirements, after: &Requirements) -> bool {
    after.iter().any(|(k, r)| match (r.min_values, before.get(k).and_then(|b| b.min_values)) {
        (Some(a), Some(b)) => a < b,
        _ => false,
    })
}
