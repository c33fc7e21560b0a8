//! The invariant check every answer passes before it is returned: each optimised node holds
//! only pods whose requirements and tolerations admit it, their requests plus the DaemonSet
//! overhead fit the type's allocatable, "one per node" groups hold, no two pods on a node break
//! a hostname anti-affinity or clash on host ports and every hostname spread holds with all the
//! node's pods in place (`affinity::violation`, pod by pod), each pod with a required hostname
//! affinity has a pod it selects beside it (`affinity::unmet`), zone spreads, zone
//! anti-affinity and zone affinity hold over every pod's final zone (`zones::violation`), NodePool limits hold, and
//! every pod is placed exactly once. Checked pod by pod with the scheduler's predicates, not
//! with the group summaries the solver used.

use super::instance::{pod_admits, Instance, Scope};
use super::output::Node;
use super::zones::{Placed, Site};
use crate::error::InputError;
use crate::model::Model;
use crate::resources::Resources;
use crate::scheduling::claim::Template;

/// The NodePool's minValues over the options Karpenter would give a NodeClaim holding `pods`
/// (its types every pod admits and whose room holds them all, cheapest first, truncated),
/// counted by the scheduler's own `min_values_shortfall`.
fn min_values_missed(m: &Model, t: &Template, class: &super::instance::Class, pods: &[usize], inst: &Instance) -> Option<String> {
    use crate::scheduling::claim::{has_min_values, min_values_shortfall};
    if !has_min_values(&t.requirements) || m.settings.min_values_policy != crate::model::MinValuesPolicy::Strict {
        return None;
    }
    let mut reqs = t.requirements.clone();
    if pods.iter().any(|p| inst.groups.iter().enumerate().any(|(g, grp)| inst.rules.zones.zoned(g) && grp.pods.contains(p))) {
        reqs.set(m.keys.zone, crate::requirements::Requirement::in_values([class.zone]));
    }
    let mut total = Resources::new();
    for &p in pods {
        total.add(&m.pods[p].requests);
    }
    let mut its: Vec<u32> = t
        .its
        .iter()
        .copied()
        .filter(|&it| {
            let offers = &m.catalog.types[it as usize].offerings;
            total.fits_with(t.overhead(it), t.alloc(it, m))
                && pods.iter().all(|&p| {
                    offers.iter().any(|o| {
                        o.available
                            && crate::scheduling::offering_compatible(o, &reqs, m)
                            && pod_admits(&m.pods[p], t, it, o.zone, o.capacity_type, o.reservation, m)
                    })
                })
        })
        .collect();
    crate::scheduling::launch::sort_by_price(&mut its, &reqs, m);
    its.truncate(m.settings.max_instance_types);
    let (key, least, found) = min_values_shortfall(&its, &reqs, m)?;
    Some(format!("its NodeClaim keeps {found} values of {} against minValues {least}", m.key_name(key)))
}

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
        if let Some(what) = min_values_missed(m, t, class, &node.pods, inst) {
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
    // Required hostname affinity, with every pod of the final placement in place.
    let everyone: Vec<usize> = placed.pods.iter().map(|&(p, _)| p).collect();
    for (i, node) in nodes.iter().enumerate() {
        if let Some(what) = super::affinity::unmet(m, &node.pods, &everyone) {
            return Err(broken(format!("node {i}: {what}")));
        }
    }
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
