//! A provisioning pass rendered as a plan: the NodeClaims with their launch, the pods on
//! existing nodes, the pods that stay pending and why, the NodePools' limits.

use crate::api::*;
use crate::diagnostics;
use crate::model::{LimitKey, Model};
use crate::price::round_price;
use crate::quantity::format_milli;
use crate::requirements::Without;
use crate::resources::{ResourceNames, Resources};
use crate::scheduling::{launch, Solution};
use indexmap::IndexMap;
use std::sync::Arc;

/// What a rendering includes beyond the plan itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderOptions {
    /// Attach checked fix hints to the pending pods (`hints::attach`): up to
    /// [`replan_budget`](crate::hints::replan_budget) whole re-plans. Internal plans that never
    /// show their pending pods' hints (advise's candidates, sweep rows) turn it off.
    pub hints: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions { hints: true }
    }
}

/// The plan of one provisioning pass `sol` over `m`, with fix hints.
pub fn render(m: &Model, sol: &Solution, warnings: Vec<Warning>) -> Plan {
    render_with(m, sol, warnings, RenderOptions::default())
}

/// [`render`] with the parts `opts` selects.
pub fn render_with(m: &Model, sol: &Solution, warnings: Vec<Warning>, opts: RenderOptions) -> Plan {
    let (finals, truncation_failures) = launch::finalize_claims(m, sol);
    let mut plan = Plan { skipped: m.skipped.clone(), warnings, node_overlays: m.node_overlays.clone(), ..Default::default() };
    let mut shared = Shared::default();
    for (f, name) in finals.iter().zip(launch::claim_names(m, sol, &finals)) {
        plan.node_claims.push(claim_out(m, sol, f, name, &mut shared));
    }
    let fees: f64 = plan.node_claims.iter().filter_map(|c| c.auto_mode_fee_per_hour).sum();
    plan.total_price_per_hour = round_price(plan.node_claims.iter().filter_map(|c| c.price_per_hour).sum::<f64>() + fees);
    if crate::catalog::auto_mode_fee::given(m) {
        plan.auto_mode_fee_per_hour = Some(round_price(fees));
        let launched =
            finals.iter().filter_map(|f| f.launch.as_ref().map(|l| (sol.templates[sol.claims[f.claim].template].pool, l.it as usize)));
        if let Some((code, message)) = crate::catalog::auto_mode_fee::missing_note(m, launched) {
            plan.warnings.push(Warning { code, message, object: None });
        }
    }
    plan.static_node_claims = crate::static_pools::render(m, sol);
    for e in &sol.existing {
        // A static NodeClaim is listed with its pods in `static_node_claims`.
        if e.pods.is_empty() || crate::static_pools::is_static_launch(m, e.node) {
            continue;
        }
        let n = &m.nodes[e.node];
        let mut pods: Vec<String> = e.pods.iter().map(|&p| m.pods[p].key()).collect();
        pods.sort();
        plan.existing_nodes.push(ExistingNodeOut {
            name: n.name.clone(),
            node_pool: n.nodepool.clone(),
            instance_type: n.instance_type.clone(),
            pods,
        });
    }
    plan.existing_nodes.sort_by(|a, b| a.name.cmp(&b.name));
    // The reasons depend on the spec and the failure only: pods of one spec content (replicas,
    // or separate objects written alike) that fail alike are explained once (each explanation
    // scans the NodePools' types; 20,000 pending replicas took 1.9 s of scans).
    let mut explained: std::collections::HashMap<usize, Vec<(&crate::scheduling::PodFailure, UnschedulableOut)>> =
        std::collections::HashMap::new();
    for (p, failure) in &sol.failures {
        let pod = &m.pods[*p];
        if !pod.content_shared() {
            plan.unschedulable.push(diagnostics::unschedulable(m, sol, *p, failure));
            continue;
        }
        let known = explained.entry(pod.content_id()).or_default();
        let out = match known.iter().find(|(f, _)| *f == failure) {
            Some((_, first)) => UnschedulableOut { pod: pod.key(), ..first.clone() },
            None => {
                let out = diagnostics::unschedulable(m, sol, *p, failure);
                known.push((failure, out.clone()));
                out
            }
        };
        plan.unschedulable.push(out);
    }
    let excluded = diagnostics::excluded_pools(m, sol);
    if !excluded.is_empty() {
        for ((_, failure), out) in sol.failures.iter().zip(plan.unschedulable.iter_mut()) {
            if !matches!(failure, crate::scheduling::PodFailure::Ignored(_)) {
                out.reasons.extend(excluded.iter().cloned());
            }
        }
    }
    if opts.hints {
        let unchecked = crate::hints::attach(m, sol, &mut plan.unschedulable);
        if unchecked > 0 {
            let budget = crate::hints::replan_budget(m.pods.len());
            plan.warnings.push(Warning {
                code: "hints-not-checked".into(),
                message: format!(
                    "{unchecked} of {} pending pods got no fix hint: each hint is checked by re-planning all {} pods, and this input allows {budget} such re-plans (at most {} pods re-planned per answer); plan a smaller part of the input to get them",
                    sol.failures.len(),
                    m.pods.len(),
                    crate::hints::MAX_REPLANNED_PODS
                ),
                object: None,
            });
        }
    }
    for (p, shortfall) in truncation_failures {
        let reason = diagnostics::truncation_reason(m, &shortfall);
        plan.unschedulable.push(UnschedulableOut { pod: m.pods[p].key(), code: reason.code, reasons: vec![reason], hints: Vec::new() });
    }
    plan.unschedulable.sort_by(|a, b| a.pod.cmp(&b.pod));
    plan.node_pools = pools_out(m, sol, &finals);
    crate::reservation_report::attach(m, &finals, &mut plan);
    plan.capacity_buffers = crate::capacity_buffers::render(m, sol, &plan.unschedulable);
    plan.total_price_per_month = crate::figures::per_month(plan.total_price_per_hour);
    plan.summary = crate::figures::plan_summary(&plan);
    plan
}

/// Output parts that many NodeClaims have in common, built once per render and shared: a
/// pass over 100,000 GPU pods makes ~50,000 claims on a few dozen (type, zone) launches, and
/// giving each its own copy of ~30 labels and up to 60 option names was most of the answer's
/// memory and of the render time.
#[derive(Default)]
struct Shared<'a> {
    options: crate::fxhash::FxHashMap<Vec<u32>, Arc<Vec<String>>>,
    /// (pool, custom requirement labels, launch (type, zone, capacity type)) → labels.
    labels: crate::fxhash::FxHashMap<LabelsKey, Arc<IndexMap<String, String>>>,
    /// (requirements but the keys not written, reservations held) → the written lines.
    requirements: crate::fxhash::FxHashMap<(Without<'a>, &'a [u32]), Arc<Vec<String>>>,
    /// Rendered resource maps (requests, allocatable) by value.
    quantities: crate::fxhash::FxHashMap<Resources, Arc<IndexMap<String, String>>>,
    /// Utilization maps by (requests, allocatable).
    utilization: crate::fxhash::FxHashMap<(Resources, Resources), Arc<IndexMap<String, f64>>>,
    /// Accelerators by the (shared) allocatable and labels maps they are read from.
    accelerators: crate::fxhash::FxHashMap<(usize, usize), Arc<Vec<crate::api::Accelerator>>>,
}

impl Shared<'_> {
    fn quantities(&mut self, names: &ResourceNames, v: &Resources) -> Arc<IndexMap<String, String>> {
        if let Some(q) = self.quantities.get(v) {
            return q.clone();
        }
        let q = Arc::new(names.render(v));
        self.quantities.insert(v.clone(), q.clone());
        q
    }
}

type LabelsKey = (usize, Vec<(String, String)>, Option<(u32, crate::labels::ValueId, crate::labels::ValueId, Option<u32>)>);

fn claim_out<'a>(m: &Model, sol: &'a Solution, f: &launch::FinalClaim, name: String, shared: &mut Shared<'a>) -> NodeClaimOut {
    let pc = &sol.claims[f.claim];
    let t = &sol.templates[pc.template];
    let np = &m.node_pools[t.pool];
    let names = &m.resources;
    let mut pods: Vec<String> = pc.pods.iter().map(|&p| m.pods[p].key()).collect();
    pods.sort();
    // Custom requirement keys get a concrete value (R5.20.5).
    let mut custom: Vec<(String, String)> = Vec::new();
    for (k, r) in pc.requirements.iter() {
        let key = m.interner.str(k);
        if k == m.keys.hostname
            || m.is_well_known(k)
            || crate::labels::is_restricted(key)
            || key.starts_with("karpenter.sh/")
            || np.labels.iter().any(|(l, _)| m.interner.str(l) == key)
            || custom.iter().any(|(c, _)| c == key)
        {
            continue;
        }
        if let Some(v) = r.any_value(&m.interner) {
            custom.push((key.to_string(), v));
        }
    }
    let launched = f.launch.as_ref().map(|l| (l.it, l.zone, l.capacity_type, l.reservation));
    let labels = shared
        .labels
        .entry((t.pool, custom, launched))
        .or_insert_with_key(|(_, custom, _)| {
            let mut labels: IndexMap<String, String> = IndexMap::new();
            for (k, v) in np.labels.iter() {
                labels.insert(m.interner.str(k).to_string(), m.interner.str(v).to_string());
            }
            for (k, v) in custom {
                labels.insert(k.clone(), v.clone());
            }
            if let Some(l) = &f.launch {
                let it = &m.catalog.types[l.it as usize];
                for (k, v) in it.labels.iter() {
                    labels.insert(m.interner.str(k).to_string(), m.interner.str(v).to_string());
                }
                labels.insert(crate::labels::ZONE.into(), m.interner.str(l.zone).to_string());
                labels.insert(crate::labels::CAPACITY_TYPE.into(), m.interner.str(l.capacity_type).to_string());
                // The reservation's labels (the offering's requirements, written on the node).
                if let Some(r) = l.reservation.map(|r| &m.reservations[r as usize]) {
                    labels.insert(crate::labels::RESERVATION_ID.into(), r.id.clone());
                    labels.insert(crate::labels::RESERVATION_TYPE.into(), m.interner.str(r.type_value).to_string());
                    labels.insert(crate::labels::RESERVATION_INTERRUPTIBLE.into(), r.interruptible.to_string());
                }
            }
            labels.sort_keys();
            Arc::new(labels)
        })
        .clone();
    let mut allocatable = Resources::new();
    let (mut instance_type, mut capacity_type, mut zone, mut price) = (None, None, None, None);
    let (mut price_source, mut auto_mode_fee) = (None, None);
    if let Some(l) = &f.launch {
        let it = &m.catalog.types[l.it as usize];
        // Said only when the user priced something: the catalog's own prices are list or
        // factor prices as documented, and answers without user prices stay as they were.
        if m.catalog.user_prices {
            price_source = it
                .offerings
                .iter()
                .find(|o| o.zone == l.zone && o.capacity_type == l.capacity_type && o.reservation == l.reservation)
                .map(|o| o.source);
        }
        instance_type = Some(it.name.clone());
        capacity_type = Some(m.interner.str(l.capacity_type).to_string());
        zone = Some(m.interner.str(l.zone).to_string());
        price = Some(round_price(l.price));
        auto_mode_fee = crate::catalog::auto_mode_fee::of(m, Some(t.pool), Some(l.it as usize)).map(round_price);
        allocatable = t.alloc(l.it, m).clone();
    }
    let utilization = match shared.utilization.get(&(f.requests.clone(), allocatable.clone())) {
        Some(u) => u.clone(),
        None => {
            let u = Arc::new(utilization(names, &f.requests, &allocatable));
            shared.utilization.insert((f.requests.clone(), allocatable.clone()), u.clone());
            u
        }
    };
    let skip = [m.keys.hostname, m.keys.registered, m.keys.initialized, m.keys.instance_type];
    let render_lines = |r: &Without| {
        let lines: std::collections::BTreeSet<String> =
            r.iter().map(|(k, r)| format!("{} {}", m.interner.str(k), r.render(&m.interner))).collect();
        Arc::new(lines.into_iter().collect::<Vec<_>>())
    };
    // FinalizeScheduling pins a claim holding reservations to them (`launch_reserved::pin`);
    // the pinned set is a function of the claim's requirements and the reservations it holds,
    // so those key the rendering and it is built once per distinct pair.
    let written = Without { reqs: &pc.requirements, skip };
    let requirements = shared
        .requirements
        .entry((written, pc.reserved.as_slice()))
        .or_insert_with(|| {
            if pc.reserved.is_empty() {
                render_lines(&written)
            } else {
                let pinned = crate::catalog::launch_reserved::pin(&pc.requirements, &pc.reserved, m);
                render_lines(&Without { reqs: &pinned, skip })
            }
        })
        .clone();
    let reservation = f.launch.as_ref().and_then(|l| l.reservation).map(|r| &m.reservations[r as usize]);
    let instance_type_options = match shared.options.get(&f.options) {
        Some(o) => o.clone(),
        None => {
            let o = Arc::new(f.options.iter().map(|&i| m.catalog.types[i as usize].name.clone()).collect::<Vec<_>>());
            shared.options.insert(f.options.clone(), o.clone());
            o
        }
    };
    let allocatable = shared.quantities(names, &allocatable);
    let accelerators = shared
        .accelerators
        .entry((Arc::as_ptr(&allocatable) as usize, Arc::as_ptr(&labels) as usize))
        .or_insert_with(|| Arc::new(crate::figures::accelerators(&allocatable, &labels)))
        .clone();
    NodeClaimOut {
        name,
        node_pool: np.name.clone(),
        instance_type,
        capacity_type,
        zone,
        price_per_hour: price,
        price_source,
        auto_mode_fee_per_hour: auto_mode_fee,
        instance_type_options,
        pods,
        daemon_sets: f.daemons.iter().map(|&d| format!("{}/{}", m.daemonsets[d].namespace, m.daemonsets[d].name)).collect(),
        requests: shared.quantities(names, &f.requests),
        allocatable,
        utilization,
        labels,
        requirements,
        accelerators,
        reservation_id: reservation.map(|r| r.id.clone()),
        reservation_type: reservation.map(|r| m.interner.str(r.type_value).to_string()),
        ties: ties_out(m, np, pc),
    }
}

/// The NodeClaim's choices that Karpenter makes in Go map order (see `DomainTieOut`).
fn ties_out(m: &Model, np: &crate::model::NodePool, pc: &crate::scheduling::claim::PlannedClaim) -> Vec<crate::api::DomainTieOut> {
    pc.ties
        .iter()
        .map(|(key, values)| {
            let listed = np.listed_order(*key);
            let name = |v: &crate::labels::ValueId| m.interner.str(*v).to_string();
            let mut candidates: Vec<String> = values.iter().map(name).collect();
            candidates.sort();
            let value = pc
                .requirements
                .get(*key)
                .and_then(crate::scheduling::topology::single)
                .map(|v| name(&v))
                .unwrap_or_else(|| candidates[0].clone());
            let key = m.interner.str(*key).to_string();
            let what = match key.as_str() {
                "topology.kubernetes.io/zone" => "zone".to_string(),
                "karpenter.sh/capacity-type" => "capacity type".to_string(),
                other => other.to_string(),
            };
            // The NodePool's listed order decided when it holds more than one candidate and the
            // shown value is the likeliest (the first of `values`, scheduling/admit.rs).
            let by_listing = values.iter().filter(|v| listed.contains(v)).count() >= 2 && name(&values[0]) == value;
            // `values` is in the order nodecast tried them: the ones before the shown value
            // left the pod unplaceable on this NodeClaim (scheduling/admit.rs's retry).
            let failed: Vec<String> = values.iter().map(name).take_while(|v| *v != value).collect();
            let why = if !failed.is_empty() {
                format!(
                    "; a run that picks {} first cannot place the pod on this NodePool there: it tries the next NodePool or leaves the pod pending for a later pass",
                    failed.join(" or ")
                )
            } else if by_listing {
                format!(", Karpenter's likeliest pick from the order NodePool {} lists them in", np.name)
            } else {
                String::new()
            };
            let message = format!(
                "the {what} is a tie among {} in Karpenter (Go map order decides, reruns differ); nodecast shows {value}{why}",
                candidates.join(", ")
            );
            crate::api::DomainTieOut { key, value, candidates, message }
        })
        .collect()
}

fn utilization(names: &ResourceNames, req: &Resources, alloc: &Resources) -> IndexMap<String, f64> {
    alloc
        .iter_nonzero()
        .filter(|(id, _)| req.get(*id) > 0)
        .map(|(id, a)| (names.name(id).to_string(), ((req.get(id) as f64 / a as f64) * 1e4).round() / 1e4))
        .collect()
}

fn pools_out(m: &Model, sol: &Solution, finals: &[launch::FinalClaim]) -> Vec<NodePoolOut> {
    let mut out = Vec::new();
    for p in m.pool_order() {
        let np = &m.node_pools[p];
        let mine: Vec<&launch::FinalClaim> = finals.iter().filter(|f| sol.templates[sol.claims[f.claim].template].pool == p).collect();
        let mut limits = IndexMap::new();
        for (k, limit) in &np.limits {
            let (name, unit) = match k {
                LimitKey::Nodes => ("nodes".to_string(), crate::quantity::Unit::Decimal),
                LimitKey::Resource(r) => (m.resources.name(*r).to_string(), m.resources.unit(*r)),
            };
            let existing: i64 = m
                .nodes
                .iter()
                .filter(|n| n.nodepool.as_deref() == Some(np.name.as_str()) && !n.marked_for_deletion)
                .map(|n| match k {
                    LimitKey::Nodes => 1000,
                    LimitKey::Resource(r) => n.capacity.get(*r),
                })
                .fold(0i64, i64::saturating_add);
            let launched: i64 = mine
                .iter()
                .filter_map(|f| f.launch.as_ref())
                .map(|l| match k {
                    LimitKey::Nodes => 1000,
                    LimitKey::Resource(r) => m.catalog.types[l.it as usize].capacity.get(*r),
                })
                .fold(0i64, i64::saturating_add);
            // Saturating, as the limit checks are: a Node's capacity near i64::MAX is valid input.
            let used = existing.saturating_add(launched);
            limits.insert(
                name,
                LimitOut {
                    limit: format_milli(*limit, unit),
                    used: format_milli(used, unit),
                    // A capped limit (`i64::MAX`, beyond milli-units) stays beyond them after
                    // any finite use: shown as the same lower bound, not as cap − used.
                    remaining: format_milli(if *limit == i64::MAX { i64::MAX } else { limit.saturating_sub(used) }, unit),
                },
            );
        }
        let unusable = if sol.templates.iter().any(|t| t.pool == p) { None } else { crate::unusable::why(m, p).map(|u| u.message) };
        out.push(NodePoolOut { name: np.name.clone(), weight: np.weight, new_node_claims: mine.len(), limits, unusable });
    }
    out
}
