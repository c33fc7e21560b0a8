//! Which types of a NodePool's template can take a pod, and how far the NodePool's limits are
//! from admitting one: shared by the reasons (`diagnostics`) and the fix hints (`hints`).

use crate::model::pod::HostPort;
use crate::model::{LimitKey, Model, Pod};
use crate::quantity::{format_milli, Unit};
use crate::requirements::Requirements;
use crate::scheduling::claim::Template;
use crate::scheduling::{it_labels_compatible, offering_compatible, Solution};

/// The requirements a pod brings to a new NodeClaim of `t` (most relaxed form: node selector
/// and the last required term).
pub fn pod_requirements(pod: &Pod, t: &Template, m: &Model) -> Requirements {
    let mut r = t.requirements.clone();
    r.add_all(&pod.node_selector, &m.interner);
    if let Some(term) = pod.required_terms.last() {
        r.add_all(term, &m.interner);
    }
    r
}

/// Instance types of `t` compatible with `r` (labels and an available offering).
pub fn compatible_types(t: &Template, r: &Requirements, m: &Model) -> Vec<u32> {
    t.its
        .iter()
        .copied()
        .filter(|&i| {
            let it = &m.catalog.types[i as usize];
            it_labels_compatible(it, r, m) && it.offerings.iter().any(|o| o.available && offering_compatible(o, r, m))
        })
        .collect()
}

/// Milli-nodes of `pool` counted against its `nodes` limit: its nodes not marked for deletion
/// and the NodeClaims this pass planned on it.
pub fn nodes_in_use(m: &Model, sol: &Solution, pool: usize) -> i64 {
    let name = m.node_pools[pool].name.as_str();
    let nodes = m.nodes.iter().filter(|n| n.nodepool.as_deref() == Some(name) && !n.marked_for_deletion).count();
    let claims = sol.claims.iter().filter(|c| sol.templates[c.template].pool == pool).count();
    1000 * (nodes + claims) as i64
}

/// Of the types `t` allows that the pod's requirements and resources admit, the one whose
/// launch overshoots the remaining limits least (summed over limits, each relative to its
/// limit), with its overshoot per limit key.
pub fn closest_within_limits(m: &Model, t: &Template, p: usize, remaining: &[(LimitKey, i64)]) -> Option<(u32, Vec<(LimitKey, i64)>)> {
    let pod = &m.pods[p];
    let r = pod_requirements(pod, t, m);
    let limits = &m.node_pools[t.pool].limits;
    compatible_types(t, &r, m)
        .into_iter()
        .filter(|&i| pod.requests.fits_with(t.overhead(i), t.alloc(i, m)))
        .map(|i| {
            let cap = &m.catalog.types[i as usize].capacity;
            let over: Vec<(LimitKey, i64)> = remaining
                .iter()
                .filter_map(|&(k, rem)| match k {
                    LimitKey::Resource(id) if cap.get(id) > rem => Some((k, cap.get(id) - rem)),
                    _ => None,
                })
                .collect();
            let score: f64 =
                over.iter().map(|(k, x)| *x as f64 / limits.iter().find(|(lk, _)| lk == k).map_or(1.0, |l| l.1.max(1) as f64)).sum();
            (i, over, score)
        })
        .min_by(|a, b| a.2.total_cmp(&b.2).then_with(|| m.catalog.types[a.0 as usize].name.cmp(&m.catalog.types[b.0 as usize].name)))
        .map(|(i, over, _)| (i, over))
}

/// A limit key's name and unit as the answers show it.
pub fn limit_name(m: &Model, k: LimitKey) -> (String, Unit) {
    match k {
        LimitKey::Nodes => ("nodes".into(), Unit::Decimal),
        LimitKey::Resource(r) => (m.resources.name(r).to_string(), m.resources.unit(r)),
    }
}

/// The words of a `limit-exceeded` reason: what remains of each limit and what the closest
/// fitting instance type would need.
pub fn limit_message(m: &Model, sol: &Solution, p: usize, pool: usize, remaining: &[(LimitKey, i64)]) -> String {
    let show = |k: LimitKey, v: i64| {
        let (name, unit) = limit_name(m, k);
        format!("{name} {}", format_milli(v, unit))
    };
    let rem: Vec<String> = remaining.iter().filter(|(k, _)| *k != LimitKey::Nodes).map(|&(k, v)| show(k, v.max(0))).collect();
    let head = format!("every fitting instance type exceeds the NodePool's remaining limits ({} remaining)", rem.join(", "));
    let Some(t) = sol.templates.iter().find(|t| t.pool == pool) else { return head };
    match closest_within_limits(m, t, p, remaining) {
        Some((it, over)) => {
            let cap = &m.catalog.types[it as usize].capacity;
            let needs: Vec<String> = over
                .iter()
                .map(|&(k, _)| match k {
                    LimitKey::Resource(r) => show(k, cap.get(r)),
                    LimitKey::Nodes => show(k, 1000),
                })
                .collect();
            format!("{head}; the closest, {}, needs {}", m.catalog.types[it as usize].name, needs.join(", "))
        }
        None => head,
    }
}

/// The words of a `limit-exceeded` reason for the `nodes` limit.
pub fn nodes_limit_message(m: &Model, sol: &Solution, pool: usize) -> String {
    match m.node_pools[pool].limits.iter().find(|(k, _)| *k == LimitKey::Nodes) {
        Some(&(_, limit)) => format!(
            "the NodePool's node limit is exhausted (limit {}, {} in use)",
            format_milli(limit, Unit::Decimal),
            format_milli(nodes_in_use(m, sol, pool), Unit::Decimal)
        ),
        None => "the NodePool's node limit is exhausted".into(),
    }
}

/// The pod's host ports that a DaemonSet of `t` holds, each with the first DaemonSet (index)
/// holding it — when every type of `its` runs such a DaemonSet, so that no new NodeClaim of `t`
/// can take the pod; empty otherwise.
pub fn host_port_clash(m: &Model, t: &Template, pod: &Pod, its: &[u32]) -> Vec<(HostPort, usize)> {
    if pod.host_ports.is_empty() || its.is_empty() {
        return Vec::new();
    }
    let clashes = |i: u32| {
        let g = t.group_of[i as usize];
        g != usize::MAX && t.groups[g].host_ports.iter().any(|a| pod.host_ports.iter().any(|b| a.conflicts(b)))
    };
    if !its.iter().all(|&i| clashes(i)) {
        return Vec::new();
    }
    let mut out: Vec<(HostPort, usize)> = Vec::new();
    for h in pod.host_ports.iter() {
        let holder =
            t.groups.iter().flat_map(|g| g.daemons.iter()).find(|&&d| m.daemonsets[d].pod.host_ports.iter().any(|a| a.conflicts(h)));
        if let Some(&d) = holder {
            if !out.iter().any(|(x, _)| x == h) {
                out.push((*h, d));
            }
        }
    }
    out
}
