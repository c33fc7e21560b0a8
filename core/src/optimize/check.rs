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

/// Pods the optimum puts on an existing node's free room, checked against that node as the
/// scheduler checks a pod there: the node's labels against each pod's requirements, its taints
/// against the pod's tolerations, the pods' requests with the staying pods' and the DaemonSet
/// pods it owes within its allocatable (`scheduling::existing`'s remaining room), and the
/// hostname rules with every pod on the node, staying ones included (a rule the staying pods
/// already break among themselves is theirs, not the optimum's).
#[allow(clippy::result_large_err)]
fn existing_node(m: &Model, bin: &super::instance::Bin, pods: &[usize]) -> Result<(), InputError> {
    let n = &m.nodes[bin.node];
    let state = crate::scheduling::existing::build(m, &[]).into_iter().find(|s| s.node == bin.node);
    let Some(state) = state else { return Err(broken(format!("node {} takes pods but cannot", n.name))) };
    let mut left = state.remaining.clone();
    for &p in &bin.staying {
        if m.pods[p].node_name.as_deref() != Some(n.name.as_str()) {
            left.sub(&m.pods[p].requests);
        }
    }
    for &p in pods {
        let pod = &m.pods[p];
        if crate::taints::first_untolerated(&state.taints, &pod.tolerations).is_some() {
            return Err(broken(format!("pod {} does not tolerate node {}'s taints", pod.key(), n.name)));
        }
        if !pod.strict_alternatives(&m.interner).iter().any(|s| state.requirements.compatible(s, |_| false, &m.interner).is_ok()) {
            return Err(broken(format!("pod {} may not run on node {}", pod.key(), n.name)));
        }
        if !pod.requests.fits_in(&left) {
            return Err(broken(format!("node {} is over its allocatable", n.name)));
        }
        left.sub(&pod.requests);
    }
    let mut all = bin.staying.clone();
    all.extend_from_slice(pods);
    if let (Some(what), None) = (super::affinity::violation(m, &all), super::affinity::violation(m, &bin.staying)) {
        return Err(broken(format!("node {}: {what}", n.name)));
    }
    Ok(())
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
    let mut bins_used = std::collections::HashSet::new();
    for (i, node) in nodes.iter().enumerate() {
        let class = &inst.classes[node.class];
        if let Some(b) = class.existing {
            if !bins_used.insert(b) {
                return Err(broken(format!("existing node {} is used twice", m.nodes[inst.bins[b].node].name)));
            }
            for &p in &node.pods {
                if !seen.insert(p) {
                    return Err(broken(format!("pod {} is placed twice", m.pods[p].key())));
                }
            }
            existing_node(m, &inst.bins[b], &node.pods)?;
            continue;
        }
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
                Scope::Existing(b) => format!("existing node {} is used {used} times", m.nodes[inst.bins[b].node].name),
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
        let site = match class.existing {
            Some(b) => Site::node(m, inst.bins[b].node),
            None => Site::claim(m, &templates[class.template], class.it, class.zone, class.capacity_type),
        };
        placed.add_site(site, &node.pods);
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
