//! The invariant check every answer passes before it is returned: each optimised node holds
//! only pods whose requirements and tolerations admit it, their requests plus the DaemonSet
//! overhead fit the type's allocatable, "one per node" groups hold, no two pods on a node break
//! a hostname anti-affinity or clash on host ports and every hostname spread holds with all the
//! node's pods in place (`affinity::violation`, pod by pod), zone spreads and zone
//! anti-affinity hold over every pod's final zone (`zones::violation`), NodePool limits hold, and
//! every pod is placed exactly once. Checked pod by pod with the scheduler's predicates, not
//! with the group summaries the solver used.

use super::instance::{pod_admits, Instance, Scope};
use super::output::Node;
use super::zones::{Placed, Site};
use crate::error::InputError;
use crate::model::Model;
use crate::resources::Resources;
use crate::scheduling::claim::Template;

fn broken(what: String) -> InputError {
    InputError::new("optimizer-invariant", format!("the optimised placement breaks an invariant: {what}"))
        .help("this is a bug in nodecast's optimiser; the plan itself is unaffected")
}

// An error here is the answer's only error, returned once per call: its size does not matter.
#[allow(clippy::result_large_err)]
/// `fixed`: the pods that stay where they are (existing nodes, kept NodeClaims), for the zone rules.
pub fn verify(m: &Model, templates: &[Template], inst: &Instance, nodes: &[Node], fixed: &Placed) -> Result<(), InputError> {
    let mut seen = std::collections::HashSet::new();
    let mut limit_used = vec![0i64; inst.limits.len()];
    let group_of: std::collections::HashMap<usize, usize> =
        inst.groups.iter().enumerate().flat_map(|(g, group)| group.pods.iter().map(move |&p| (p, g))).collect();
    for (i, node) in nodes.iter().enumerate() {
        let class = &inst.classes[node.class];
        let t = &templates[class.template];
        let mut total = Resources::new();
        for &p in &node.pods {
            let pod = &m.pods[p];
            if !seen.insert(p) {
                return Err(broken(format!("pod {} is placed twice", pod.key())));
            }
            if !pod_admits(pod, t, class.it, class.zone, class.capacity_type, class.reservation, m) {
                return Err(broken(format!("pod {} may not run on node {i} ({})", pod.key(), m.catalog.types[class.it as usize].name)));
            }
            total.add(&pod.requests);
        }
        if !total.fits_with(t.overhead(class.it), t.alloc(class.it, m)) {
            return Err(broken(format!("node {i} ({}) is over its allocatable", m.catalog.types[class.it as usize].name)));
        }
        if let Some(what) = super::affinity::violation(m, &node.pods) {
            return Err(broken(format!("node {i}: {what}")));
        }
        let mut here = vec![0u32; inst.groups.len()];
        for p in &node.pods {
            if let Some(&g) = group_of.get(p) {
                here[g] += 1;
            }
        }
        if let Some(g) = (0..here.len()).find(|&g| here[g] > inst.groups[g].per_node) {
            return Err(broken(format!("node {i} holds {} pods of a group limited to {} per node", here[g], inst.groups[g].per_node)));
        }
        for (u, c) in limit_used.iter_mut().zip(&class.limit_use) {
            *u += c;
        }
    }
    for (l, used) in inst.limits.iter().zip(&limit_used) {
        if *used > l.remaining {
            return Err(broken(match l.scope {
                Scope::Pool { pool, .. } => format!("NodePool {} is over its limits", m.node_pools[pool].name),
                Scope::Reservation(r) => {
                    format!("{used} nodes launch into reservation {}, which has {} free", m.reservations[r as usize].id, l.remaining)
                }
            }));
        }
    }
    // Zone spreads and zone anti-affinity, from each moved pod's own constraints over every
    // pod's final zone.
    let mut placed = fixed.clone();
    for node in nodes {
        let class = &inst.classes[node.class];
        placed.add_site(Site::claim(m, &templates[class.template], class.it, class.zone, class.capacity_type), &node.pods);
    }
    let moved: Vec<usize> = nodes.iter().flat_map(|n| n.pods.iter().copied()).collect();
    if let Some((_, what)) = super::zones::violation(m, &placed, &moved) {
        return Err(broken(what));
    }
    if let Some(what) = super::replan::rejected(m, &placed, &moved) {
        return Err(broken(what));
    }
    let expected: usize = inst.groups.iter().map(|g| g.pods.len()).sum();
    if seen.len() != expected {
        return Err(broken(format!("{} of {expected} pods are placed", seen.len())));
    }
    Ok(())
}
