//! Reason codes and messages for pods that stay pending (FORMAT §7.1), shared by `plan` and
//! `explain`. The solver records *which* check failed per NodePool; the words and the "closest
//! instance type" are worked out here, once, only for pods that need them.

use crate::api::{Reason, UnschedulableOut};
use crate::model::{Model, Pod};
use crate::quantity::format_milli;
use crate::reason::ReasonCode;
use crate::requirements::Incompatible;
use crate::scheduling::claim::Template;
use crate::scheduling::topology::GroupKind;
use crate::scheduling::{Fail, PodFailure, Solution};

pub use crate::fit::{compatible_types, pod_requirements};

/// Explain a resource misfit: the binding resource and the largest type, or the closest type.
pub fn resource_message(pod: &Pod, t: &Template, its: &[u32], m: &Model) -> String {
    let names = &m.resources;
    let show = |id, v| format!("{} {}", names.name(id), format_milli(v, names.unit(id)));
    // Extended resources first: a GPU shortfall is what users look for.
    let mut ids: Vec<(u16, i64)> = pod.requests.iter_nonzero().collect();
    ids.sort_by_key(|(id, _)| (*id < 4, *id));
    for (id, need) in &ids {
        let best = its
            .iter()
            .map(|&i| (i, t.alloc(i, m).get(*id) - t.overhead(i).get(*id)))
            .max_by(|a, b| a.1.cmp(&b.1).then_with(|| m.catalog.types[b.0 as usize].name.cmp(&m.catalog.types[a.0 as usize].name)));
        match best {
            // No allowed type has the resource at all (a GPU pod on a CPU-only NodePool): naming
            // the "largest" type with 0 would point at an arbitrary type.
            Some(_) if its.iter().all(|&i| t.alloc(i, m).get(*id) <= 0) => {
                // No type of the catalog at all: say why (a MIG profile or custom device is what
                // a device plugin advertises on the node, unknown to the instance type).
                let why = if *id >= 4 && m.catalog.types.iter().all(|it| it.allocatable.get(*id) <= 0) {
                    " (Karpenter knows only the resources an instance type reports; a NodeOverlay can declare what a device plugin advertises)"
                } else {
                    ""
                };
                return format!("needs {}; no instance type this NodePool allows has {}{why}", show(*id, *need), names.name(*id));
            }
            Some((i, have)) if have < *need => {
                let daemons = if t.overhead(i).get(*id) > 0 { " after DaemonSet overhead" } else { "" };
                return format!(
                    "needs {}; largest allowed type {} has {}{daemons}",
                    show(*id, *need),
                    m.catalog.types[i as usize].name,
                    format_milli(have.max(0), names.unit(*id))
                );
            }
            _ => {}
        }
    }
    // Every resource fits some type, but no type holds them all.
    let closest = its.iter().copied().min_by_key(|&i| {
        let need = pod.requests.plus(t.overhead(i));
        (need.shortfalls(t.alloc(i, m)).len(), (crate::scheduling::launch::min_price(i, &t.requirements, m) * 1e6) as i64)
    });
    let wanted: Vec<String> = ids.iter().filter(|(id, _)| *id != crate::resources::PODS).map(|(id, v)| show(*id, *v)).collect();
    match closest {
        Some(i) => {
            let need = pod.requests.plus(t.overhead(i));
            let short: Vec<String> = need
                .shortfalls(t.alloc(i, m))
                .iter()
                .map(|(id, n, h)| {
                    format!("{} {} > {}", names.name(*id), format_milli(*n, names.unit(*id)), format_milli(*h, names.unit(*id)))
                })
                .collect();
            format!(
                "no allowed type holds {} together (with DaemonSet overhead); closest is {} ({})",
                wanted.join(", "),
                m.catalog.types[i as usize].name,
                short.join(", ")
            )
        }
        None => format!("no allowed type holds {}", wanted.join(", ")),
    }
}

fn group_name(kind: GroupKind) -> &'static str {
    match kind {
        GroupKind::Spread => "topology spread",
        GroupKind::Affinity => "pod affinity",
        GroupKind::AntiAffinity => "pod anti-affinity",
    }
}

/// Code and message for one NodePool's failure.
pub fn describe(m: &Model, sol: &Solution, p: usize, pool: usize, fail: &Fail) -> (ReasonCode, String) {
    let pod = &m.pods[p];
    let t = sol.templates.iter().find(|t| t.pool == pool);
    let key = |k| m.interner.str(k).to_string();
    match fail {
        Fail::Taint(taint) => (ReasonCode::TaintNotTolerated, format!("did not tolerate taint {taint}")),
        Fail::Requirements(Incompatible::Undefined(k)) => (
            ReasonCode::RequirementConflict,
            format!("label {:?} is not defined by the NodePool (a custom label must come from its labels or requirements)", key(*k)),
        ),
        Fail::Requirements(Incompatible::Conflict(k)) => {
            let np = m.node_pools[pool].requirements.get(*k).map(|r| r.render(&m.interner)).unwrap_or_else(|| "nothing".into());
            (ReasonCode::RequirementConflict, format!("incompatible requirements: key {}, the NodePool allows {np}", key(*k)))
        }
        Fail::Topology { kind, key: k } => {
            (ReasonCode::TopologyUnsatisfiable, format!("unsatisfiable {} constraint on {}", group_name(*kind), key(*k)))
        }
        Fail::HostPort => (ReasonCode::HostPortConflict, "a host port conflicts with a DaemonSet or another pod of the same node".into()),
        Fail::MinValues { key: k, min, found } => {
            (ReasonCode::MinValuesNotMet, format!("minValues {min} for {} cannot be met: {found} values remain", key(*k)))
        }
        Fail::Limits { remaining } => (ReasonCode::LimitExceeded, crate::fit::limit_message(m, sol, p, pool, remaining)),
        Fail::NodesLimit => (ReasonCode::LimitExceeded, crate::fit::nodes_limit_message(m, sol, pool)),
        Fail::Resources => (ReasonCode::NoInstanceTypeFits, "not enough room".into()),
        Fail::Reserved(f) => (ReasonCode::ReservedOfferingUnavailable, f.message().to_string()),
        Fail::Dra(f) => (ReasonCode::DynamicResources, f.message()),
        Fail::NoType(fit) => {
            let Some(t) = t else { return (ReasonCode::NoInstanceTypeFits, "no instance type fits".into()) };
            let r = pod_requirements(pod, t, m);
            let its = compatible_types(t, &r, m);
            // Types dropped because a DaemonSet on them holds the pod's host port: say so,
            // rather than blame the requirements the types do meet.
            let clash = crate::fit::host_port_clash(m, t, pod, &its);
            if let Some((h, d)) = clash.first() {
                let ds = &m.daemonsets[*d];
                return (
                    ReasonCode::HostPortConflict,
                    format!(
                        "host port {}/{} is held by DaemonSet {}/{} on every instance type this NodePool allows",
                        h.port,
                        m.interner.str(h.protocol),
                        ds.namespace,
                        ds.name
                    ),
                );
            }
            if !fit.any_requirements || its.is_empty() {
                let shown = r.render(&m.interner, |k| k == m.keys.hostname || k == m.keys.registered || k == m.keys.initialized);
                (ReasonCode::RequirementConflict, format!("no instance type of the NodePool meets the requirements {shown}"))
            } else {
                (ReasonCode::NoInstanceTypeFits, resource_message(pod, t, &its, m))
            }
        }
    }
}

/// Would the pod fit a fresh NodeClaim of `pool` if taints did not exist?
fn fits_ignoring_taints(m: &Model, sol: &Solution, p: usize, pool: usize) -> bool {
    let Some(t) = sol.templates.iter().find(|t| t.pool == pool) else { return false };
    let pod = &m.pods[p];
    let r = pod_requirements(pod, t, m);
    if t.requirements.compatible(&r, |k| m.is_well_known(k), &m.interner).is_err() {
        return false;
    }
    compatible_types(t, &r, m).iter().any(|&i| pod.requests.fits_with(t.overhead(i), t.alloc(i, m)))
}

fn priority(code: ReasonCode, taint_binding: bool) -> u8 {
    match code {
        ReasonCode::ReservedOfferingUnavailable => 11,
        ReasonCode::TaintNotTolerated if taint_binding => 10,
        ReasonCode::LimitExceeded => 9,
        ReasonCode::MinValuesNotMet => 8,
        ReasonCode::TopologyUnsatisfiable => 7,
        ReasonCode::NoInstanceTypeFits => 6,
        ReasonCode::HostPortConflict => 5,
        ReasonCode::TaintNotTolerated => 3,
        _ => 2,
    }
}

/// Karpenter's error for a DRA pod (pkg/controllers/provisioning/scheduling/scheduler.go), and
/// what decides it.
pub const DRA_REFUSED: &str = "pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter \
     (Karpenter refuses pods with resourceClaims while --ignore-dra-requests is true, its default, and never relaxes them)";

/// Why Karpenter's pass did not run (`scheduling::solve`, provisioner.go `ErrNodePoolsNotFound`),
/// and the node the kube-scheduler may still bind the pod to.
fn no_dynamic_pools(m: &Model, node: Option<usize>) -> String {
    let names = |f: &dyn Fn(&crate::model::NodePool) -> bool| -> Vec<&str> {
        m.node_pools.iter().filter(|np| f(np)).map(|np| np.name.as_str()).collect()
    };
    let (statics, not_ready) = (names(&|np| np.is_static), names(&|np| !np.is_static && !np.ready));
    let mut why = Vec::new();
    if !statics.is_empty() {
        why.push(format!("static (spec.replicas): {}", statics.join(", ")));
    }
    if !not_ready.is_empty() {
        why.push(format!("not Ready: {}", not_ready.join(", ")));
    }
    let why = if why.is_empty() { "the input has no NodePool".to_string() } else { format!("every NodePool is {}", why.join("; or ")) };
    let mut text = format!(
        "no dynamic nodepools found: Karpenter's provisioner has no NodePool to provision from ({why}), so its scheduling pass does not run and Karpenter nominates no node and launches nothing for this pod"
    );
    if let Some(n) = node {
        let what = if m.static_launches.iter().any(|s| s.node == Some(n)) { "the static NodeClaim" } else { "node" };
        text.push_str(&format!("; the kube-scheduler can still bind it to {what} {}, which has room for it", m.nodes[n].name));
    }
    text
}

pub fn unschedulable(m: &Model, sol: &Solution, p: usize, failure: &PodFailure) -> UnschedulableOut {
    let pod = m.pods[p].key();
    match failure {
        PodFailure::Ignored(why) => UnschedulableOut {
            pod,
            code: ReasonCode::PodIgnored,
            reasons: vec![Reason { code: ReasonCode::PodIgnored, node_pool: None, message: format!("Karpenter ignores this pod: {why}") }],
            hints: Vec::new(),
        },
        PodFailure::DynamicResources => UnschedulableOut {
            pod,
            code: ReasonCode::DynamicResources,
            reasons: vec![Reason { code: ReasonCode::DynamicResources, node_pool: None, message: DRA_REFUSED.into() }],
            hints: Vec::new(),
        },
        PodFailure::NoNodePools => UnschedulableOut {
            pod,
            code: ReasonCode::NoNodepools,
            reasons: vec![Reason {
                code: ReasonCode::NoNodepools,
                node_pool: None,
                message: "no NodePool can launch any instance type of the catalog".into(),
            }],
            hints: Vec::new(),
        },
        PodFailure::NoDynamicNodePools(node) => UnschedulableOut {
            pod,
            code: ReasonCode::NoNodepools,
            reasons: vec![Reason { code: ReasonCode::NoNodepools, node_pool: None, message: no_dynamic_pools(m, *node) }],
            hints: Vec::new(),
        },
        PodFailure::PerPool(errs) => {
            let mut best: Option<(u8, ReasonCode)> = None;
            let mut reasons = Vec::new();
            for (pool, fail) in errs {
                let (code, message) = describe(m, sol, p, *pool, fail);
                let binding = code == ReasonCode::TaintNotTolerated && fits_ignoring_taints(m, sol, p, *pool);
                let pr = priority(code, binding);
                if best.as_ref().is_none_or(|(b, _)| pr > *b) {
                    best = Some((pr, code));
                }
                reasons.push(Reason { code, node_pool: Some(m.node_pools[*pool].name.clone()), message });
            }
            UnschedulableOut { pod, code: best.map_or(ReasonCode::NoInstanceTypeFits, |b| b.1), reasons, hints: Vec::new() }
        }
    }
}

/// The reason of a pod whose claim lost minValues when its options were cut to
/// `MaxInstanceTypes`.
pub fn truncation_reason(m: &Model, s: &crate::scheduling::launch::MinValuesShortfall) -> Reason {
    Reason {
        code: ReasonCode::MinValuesNotMet,
        node_pool: Some(m.node_pools[s.pool].name.clone()),
        message: format!(
            "the cheapest {} instance types offer {} values of {} but minValues is {}",
            m.settings.max_instance_types,
            s.found,
            m.interner.str(s.key),
            s.min
        ),
    }
}

/// One reason per NodePool that took no part in the pass `sol` (no template: static, not
/// Ready, or nothing to launch), for every pending pod: "why not the pool I meant?" must name
/// it, not only the pools that were tried.
pub fn excluded_pools(m: &Model, sol: &Solution) -> Vec<Reason> {
    m.pool_order()
        .into_iter()
        .filter(|&p| !sol.templates.iter().any(|t| t.pool == p))
        .filter_map(|p| crate::unusable::why(m, p))
        .map(|u| Reason {
            code: ReasonCode::NodepoolUnusable,
            node_pool: Some(m.node_pools[u.pool].name.clone()),
            message: format!("took no part in provisioning: {}", u.message),
        })
        .collect()
}
