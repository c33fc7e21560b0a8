//! Re-placing the optimum's pods with the scheduler's own topology code: every pod of an
//! optimised NodeClaim is checked on its node against the zone groups Karpenter's scheduler
//! would build for it (`scheduling::topology`: its spreads, anti-affinity and affinity terms on the zone,
//! and the inverse anti-affinity groups that select it), with every other pod in place — the
//! counts of all pods recorded as `topology::record` records a placement, the pod's own share
//! taken out, and `next_domain_of` asked whether the pod's zone is one it may join. A pod it
//! rejects is a disagreement between the optimiser's model (`zones`) and the scheduler: an
//! `optimizer-invariant` error, never an answer. (The node-level rules — requirements, taints,
//! resources, hostname terms, host ports — are checked with the scheduler's predicates by
//! `check`.)

use super::zones::{self, Placed};
use crate::model::Model;
use crate::requirements::Requirement;
use crate::scheduling::topology::{self, filter_passes, selects, Topology};

/// The first moved pod the scheduler's zone groups would not admit where the optimum puts it.
pub fn rejected(m: &Model, placed: &Placed, moved: &[usize]) -> Option<String> {
    let zone_key = m.keys.zone;
    let zoned = |p: usize| zones::has_zone_rule(&m.pods[p], m);
    let any_anti = placed.pods.iter().any(|&(q, _)| zones::antis(&m.pods[q], m).next().is_some());
    if !any_anti && !moved.iter().any(|&p| zoned(p)) {
        return None;
    }
    let mut topo = Topology::new(m.keys.hostname);
    topo.set_domain_nodes((0..m.nodes.len()).filter(|&n| !m.nodes[n].marked_for_deletion && !m.nodes[n].in_flight).collect());
    // The groups: moved pods' own (as the scheduler builds them for a pod it places), and the
    // inverse anti-affinity groups of every placed pod.
    let mut owned: std::collections::HashMap<usize, Vec<usize>> = Default::default();
    for &(q, _) in &placed.pods {
        let pod = &m.pods[q];
        for t in zones::antis(pod, m) {
            let g = topo.group(topology::affinity_key(t, true, true), pod, m);
            owned.entry(q).or_default().push(g);
        }
    }
    for &p in moved {
        let pod = &m.pods[p];
        for sc in zones::spreads(pod, m) {
            topo.group(topology::spread_key(sc, pod), pod, m);
        }
        for t in zones::antis(pod, m) {
            topo.group(topology::affinity_key(t, true, false), pod, m);
        }
        for t in zones::affs(pod, m) {
            topo.group(topology::affinity_key(t, false, false), pod, m);
        }
    }
    for &(q, s) in &placed.pods {
        let site = &placed.sites[s];
        let none = Vec::new();
        topology::record(&mut topo, &m.pods[q], &site.reqs, &site.taints, owned.get(&q).unwrap_or(&none), m);
    }
    let site_of: std::collections::HashMap<usize, usize> = placed.pods.iter().copied().collect();
    let exists = Requirement::exists();
    let mut inverse = Vec::new();
    let mut merged = Vec::new();
    for &p in moved {
        let pod = &m.pods[p];
        let Some(site) = site_of.get(&p).map(|&s| &placed.sites[s]) else { continue };
        let Some(zone) = site.zone else { continue };
        let mut strict = pod.node_selector.clone();
        if let Some(t) = pod.required_terms.first() {
            strict.add_all(t, &m.interner);
        }
        let pod_domains = strict.get(zone_key).cloned().unwrap_or_else(|| exists.clone());
        let node_domains = Requirement::in_values([zone]);
        // (group, does the pod count in it where it is now)
        let mut checks: Vec<(usize, bool)> = Vec::new();
        for sc in zones::spreads(pod, m) {
            let def = topology::spread_key(sc, pod);
            let counted = selects(&def, pod) && filter_passes(&def, &site.reqs, &site.taints, m);
            checks.extend(topo.find(&def).map(|g| (g, counted)));
        }
        for t in zones::antis(pod, m) {
            let def = topology::affinity_key(t, true, false);
            checks.extend(topo.find(&def).map(|g| (g, selects(&def, pod))));
        }
        for t in zones::affs(pod, m) {
            let def = topology::affinity_key(t, false, false);
            checks.extend(topo.find(&def).map(|g| (g, selects(&def, pod))));
        }
        topo.selecting(pod, true, &mut inverse);
        let mine = owned.get(&p).cloned().unwrap_or_default();
        checks.extend(inverse.iter().filter(|&&g| topo.groups[g].def.key == zone_key).map(|&g| (g, mine.contains(&g))));
        topo.merged_selecting(pod, &mut merged);
        checks.extend(merged.iter().filter(|&&g| topo.groups[g].def.key == zone_key).map(|&g| (g, false)));
        for (g, counted) in checks {
            // A family member never counts its own pods (`Topology::is_virtual`).
            let own = counted && !topo.is_virtual(g);
            if own {
                *topo.groups[g].counts.entry(zone).or_insert(0) -= 1;
            }
            let self_selecting = selects(&topo.groups[g].def, pod);
            let verdict = topo.next_domain_of(g, &pod_domains, &node_domains, self_selecting, &m.interner);
            if own {
                *topo.groups[g].counts.entry(zone).or_insert(0) += 1;
            }
            if !verdict.is_some_and(|r| r.has(zone, &m.interner)) {
                let kind = format!("{:?}", topo.groups[g].def.kind).to_lowercase();
                return Some(format!(
                    "re-placing pod {} in zone {}: the scheduler's {kind} group on the zone rejects it with every other pod in place",
                    pod.key(),
                    m.interner.str(zone)
                ));
            }
        }
    }
    None
}
