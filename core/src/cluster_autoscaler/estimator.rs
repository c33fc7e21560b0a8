//! The scheduler predicates the Cluster Autoscaler simulates on template nodes, and its
//! binpacking estimator (cluster-autoscaler/estimator/binpacking_estimator.go,
//! decreasing_pod_orderer.go), in nodecast's words:
//!
//! - Pods come in equivalence groups (one controller, one spec). Groups are ordered by
//!   `cpu/allocatable cpu + memory/allocatable memory` of their first pod, largest first (Go's
//!   `sort.Slice`, not stable: equal scores keep input order here, and the answer says so).
//! - For each group, its pods first go onto the nodes this estimate already added (any that
//!   fits); at the first pod that fits none, the rest of the group goes onto new nodes: each pod
//!   is tried on the last node added, and when it does not fit a new node is added — unless the
//!   last node added is still empty (the pod fits no fresh node, so adding more is pointless) or
//!   the limiter refuses (max-nodes-per-scaleup, the group's room below its max size, the
//!   cluster's max-nodes-total). A pod that then does not fit the fresh node ends the group.
//! - The estimate is the number of new nodes that received a pod.

use super::template::Template;
use crate::labels::Interner;
use crate::model::{Model, Pod};
use crate::requirements::Requirements;
use crate::resources::{Resources, CPU, MEMORY};
use crate::taints::Effect;

/// A node in a simulation: a template copy with what was placed on it.
#[derive(Debug, Clone)]
pub struct SimNode {
    pub group: usize,
    /// Requests of its DaemonSet pods and placed pods.
    pub used: Resources,
    /// Indices into `Model::pods` of the pods placed (DaemonSet pods not included).
    pub pods: Vec<usize>,
}

/// Why a pod does not fit an empty template node.
#[derive(Debug, Clone, PartialEq)]
pub enum Misfit {
    /// (resource, needs, has free) for each short resource.
    Resources(Vec<(String, i64, i64)>),
    Taint(String),
    NodeSelector,
    HostPort,
    AntiAffinity,
}

/// Does `labels` satisfy every requirement of `reqs` (kube-scheduler's node selector match:
/// a missing label satisfies only NotIn and DoesNotExist)?
pub fn labels_match(reqs: &Requirements, t: &Template, interner: &Interner) -> bool {
    reqs.iter().all(|(k, r)| match t.labels.get(k) {
        Some(v) => r.has(v, interner),
        None => r.allows_absent(),
    })
}

/// The node-level predicates (selector, affinity, taints) of `pod` on template `t`.
pub fn static_misfit(pod: &Pod, t: &Template, interner: &Interner) -> Option<Misfit> {
    if let Some(taint) =
        t.taints.iter().find(|x| x.effect != Effect::PreferNoSchedule && !pod.tolerations.iter().any(|tol| tol.tolerates(x)))
    {
        return Some(Misfit::Taint(taint.to_string()));
    }
    let affinity_ok = pod.required_terms.is_empty() || pod.required_terms.iter().any(|term| labels_match(term, t, interner));
    if !labels_match(&pod.node_selector, t, interner) || !affinity_ok {
        return Some(Misfit::NodeSelector);
    }
    None
}

/// Whether `p` fits node `n` of template `t` now (resources, host ports, anti-affinity on the
/// hostname among the node's pods), given the node-level predicates already hold.
pub fn fits_node(m: &Model, p: usize, n: &SimNode, t: &Template, daemons: &[usize]) -> Result<(), Misfit> {
    let pod = &m.pods[p];
    let mut free = t.capacity.clone();
    free.sub(&n.used);
    if !pod.requests.fits_in(&free) {
        let short = pod
            .requests
            .shortfalls(&free)
            .into_iter()
            .map(|(id, need, have)| (m.resources.name(id).to_string(), need, have.max(0)))
            .collect();
        return Err(Misfit::Resources(short));
    }
    let others = n.pods.iter().map(|&q| &m.pods[q]).chain(daemons.iter().map(|&d| &m.daemonsets[d].pod));
    for q in others {
        if pod.host_ports.iter().any(|a| q.host_ports.iter().any(|b| a.conflicts(b))) {
            return Err(Misfit::HostPort);
        }
    }
    let hostname = m.keys.hostname;
    let repels = |a: &Pod, b: &Pod| {
        a.anti_affinity.iter().any(|term| {
            term.key == hostname
                && term.selector.matches(&b.labels)
                && term.namespaces.as_ref().is_none_or(|ns| ns.contains(&b.namespace_id))
        })
    };
    if n.pods.iter().any(|&q| repels(pod, &m.pods[q]) || repels(&m.pods[q], pod)) {
        return Err(Misfit::AntiAffinity);
    }
    Ok(())
}

/// The limiter's room for new nodes in one estimate.
pub struct Limits {
    pub max_new_nodes: i64,
}

/// One equivalence group: pods of one controller and spec, in input order.
pub type EquivalenceGroup = Vec<usize>;

/// Result of one estimate for one node group.
#[derive(Debug, Clone, Default)]
pub struct Estimate {
    /// The new nodes that received pods, in the order added.
    pub nodes: Vec<SimNode>,
    /// Pods placed, in placement order.
    pub pods: Vec<usize>,
    /// Some pods did not fit because the limiter refused another node.
    pub limited: bool,
    /// Equivalence groups with equal scores were ordered by input order (Go's unstable sort
    /// may order them otherwise).
    pub order_tie: bool,
}

/// The decreasing pod orderer's score of a group on template `t`.
fn score(m: &Model, group: &EquivalenceGroup, t: &Template) -> f64 {
    let pod = &m.pods[group[0]];
    let mut s = 0.0;
    let (cpu, mem) = (t.capacity.get(CPU), t.capacity.get(MEMORY));
    if cpu > 0 {
        s += pod.requests.get(CPU) as f64 / cpu as f64;
    }
    if mem > 0 {
        s += pod.requests.get(MEMORY) as f64 / mem as f64;
    }
    s
}

/// Binpack `groups` (each already known to fit an empty template node) onto new nodes of `t`.
pub fn estimate(
    m: &Model,
    groups: &[EquivalenceGroup],
    t: &Template,
    group_index: usize,
    daemons: &[usize],
    overhead: &Resources,
    limits: &Limits,
) -> Estimate {
    let mut order: Vec<(f64, &EquivalenceGroup)> = groups.iter().map(|g| (score(m, g, t), g)).collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0));
    let order_tie = order.windows(2).any(|w| w[0].0 == w[1].0);
    let mut nodes: Vec<SimNode> = Vec::new();
    let mut placed = Vec::new();
    let mut limited = false;
    let fresh = || SimNode { group: group_index, used: overhead.clone(), pods: Vec::new() };
    for (_, group) in order {
        let mut rest = group.as_slice();
        // Onto the nodes this estimate added, while each pod fits one of them.
        while let Some((&p, tail)) = rest.split_first() {
            match nodes.iter().position(|n| fits_node(m, p, n, t, daemons).is_ok()) {
                Some(i) => {
                    place(&mut nodes[i], m, p);
                    placed.push(p);
                    rest = tail;
                }
                None => break,
            }
        }
        for &p in rest {
            if let Some(last) = nodes.last_mut() {
                if fits_node(m, p, last, t, daemons).is_ok() {
                    place(last, m, p);
                    placed.push(p);
                    continue;
                }
                if last.pods.is_empty() {
                    break;
                }
            }
            if nodes.len() as i64 >= limits.max_new_nodes {
                limited = true;
                break;
            }
            let mut n = fresh();
            if fits_node(m, p, &n, t, daemons).is_err() {
                // Kept (empty) as the Cluster Autoscaler keeps it; it counts for nothing.
                nodes.push(n);
                break;
            }
            place(&mut n, m, p);
            placed.push(p);
            nodes.push(n);
        }
    }
    nodes.retain(|n| !n.pods.is_empty());
    Estimate { nodes, pods: placed, limited, order_tie }
}

fn place(n: &mut SimNode, m: &Model, p: usize) {
    n.used.add(&m.pods[p].requests);
    n.pods.push(p);
}
