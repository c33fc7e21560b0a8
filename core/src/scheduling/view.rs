//! A pod as one scheduling attempt sees it: the topology groups the batch needs, the pod's
//! requirements and tolerations after preference relaxation, and the relaxation steps
//! themselves (R5.13.1). Moved out of `mod.rs`, which keeps the placement itself.

use super::topology;
use super::{Solver, Toleration};
use crate::model::{Pod, PreferencePolicy, Unsatisfiable};
use crate::requirements::Requirements;
use std::collections::HashMap;
use std::sync::Arc;

/// How far one pod's preferences have been relaxed, and the steps taken (for explanations).
#[derive(Debug, Clone, Default)]
pub(super) struct Relax {
    term: usize,
    pref_node: usize,
    pref_aff: usize,
    pref_anti: usize,
    removed_spread: Vec<usize>,
    pns: bool,
    pub(super) steps: Vec<String>,
}

/// A pod as seen by one attempt (after relaxation).
pub struct View {
    /// The three parts below are shared (`Arc`) by the unrelaxed views of pods with the same
    /// spec: replicas would otherwise clone the same requirement sets once each.
    pub strict: Arc<Requirements>,
    pub full: Arc<Requirements>,
    pub tolerations: Arc<Vec<Toleration>>,
    /// (group, the group selects this pod)
    pub groups: Vec<(usize, bool)>,
    /// The positions in `groups` that `rejects_on_topology` may judge alone: the first group
    /// of each key the pod's own requirements leave open. Found once per view, not once per
    /// open NodeClaim: with one inverse group per other exclusive Job, the per-claim scan of
    /// every group made the pass cubic in Jobs.
    pub(super) probe: Vec<usize>,
}

pub(super) type ViewParts = (Arc<Requirements>, Arc<Requirements>, Arc<Vec<Toleration>>);

impl Solver<'_> {
    /// Create every topology group the batch can need, with initial counts from bound pods.
    pub(super) fn build_groups(&mut self, batch: &[usize], exclude: &[usize]) {
        let m = self.m;
        let respect = m.settings.preference_policy == PreferencePolicy::Respect;
        // Karpenter's state nodes: active (not marked for deletion), registered, not a candidate.
        self.topo.set_domain_nodes(
            (0..m.nodes.len()).filter(|n| !exclude.contains(n) && !m.nodes[*n].marked_for_deletion && !m.nodes[*n].in_flight).collect(),
        );
        for &p in batch {
            let pod = &m.pods[p];
            for sc in &pod.spread {
                if respect || sc.when_unsatisfiable == Unsatisfiable::DoNotSchedule {
                    self.topo.group(topology::spread_key(sc, pod), pod, m);
                }
            }
            for t in &pod.affinity {
                self.topo.group(topology::affinity_key(t, false, false), pod, m);
            }
            for t in &pod.anti_affinity {
                self.topo.group(topology::affinity_key(t, true, false), pod, m);
                let g = self.topo.group(topology::affinity_key(t, true, true), pod, m);
                self.owned_inverse.entry(p).or_default().push(g);
            }
            if respect {
                for (_, t) in &pod.preferred_affinity {
                    self.topo.group(topology::affinity_key(t, false, false), pod, m);
                }
                for (_, t) in &pod.preferred_anti_affinity {
                    self.topo.group(topology::affinity_key(t, true, false), pod, m);
                }
            }
        }
        // Bound pods with required anti-affinity repel pods they select (R5.15.6).
        let node_index: HashMap<&str, usize> = m.nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect();
        let bound: Vec<(usize, usize)> = m
            .pods
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.terminal)
            .filter_map(|(i, p)| p.node_name.as_deref().and_then(|n| node_index.get(n)).map(|&n| (i, n)))
            .filter(|(_, n)| !exclude.contains(n) && !m.nodes[*n].marked_for_deletion)
            .collect();
        for &(p, n) in &bound {
            let pod = &m.pods[p];
            for t in &pod.anti_affinity {
                let g = self.topo.group(topology::affinity_key(t, true, true), pod, m);
                if let Some(v) = m.nodes[n].labels.get(t.key) {
                    self.topo.add_count(g, v, pod);
                }
            }
        }
        for e in &self.existing {
            if let Some(h) = m.nodes[e.node].labels.get(m.keys.hostname) {
                self.topo.register_hostname(h);
            }
        }
        // Initial counts (R5.15.5): per bound pod, only the groups that select it; a node's
        // labels become requirements once.
        let mut node_reqs: HashMap<usize, Requirements> = HashMap::new();
        let mut selecting = Vec::new();
        for &(p, n) in &bound {
            let node = &m.nodes[n];
            self.topo.selecting(&m.pods[p], false, &mut selecting);
            self.topo.count_bound_families(&m.pods[p], n, &mut node_reqs, m);
            for &g in &selecting {
                let g = &mut self.topo.groups[g];
                let Some(v) = node.labels.get(g.def.key) else { continue };
                let reqs = topology::node_requirements(&mut node_reqs, n, m);
                if topology::filter_passes(&g.def, reqs, &node.taints, m) {
                    *g.counts.entry(v).or_insert(0) += 1;
                }
            }
        }
        self.bound = bound;
    }

    /// The requirement and toleration parts of a view: functions of the pod's spec and the
    /// relaxation only.
    pub(super) fn view_parts(&self, pod: &Pod, relax: &Relax) -> ViewParts {
        let m = self.m;
        let respect = m.settings.preference_policy == PreferencePolicy::Respect;
        let mut strict = pod.node_selector.clone();
        if let Some(t) = pod.required_terms.get(relax.term) {
            strict.add_all(t, &m.interner);
        }
        let mut full = strict.clone();
        if respect {
            if let Some((_, t)) = pod.preferred_terms.get(relax.pref_node) {
                full.add_all(t, &m.interner);
            }
        }
        let mut tolerations = pod.tolerations.clone();
        if relax.pns {
            tolerations.push(Toleration::prefer_no_schedule());
        }
        (Arc::new(strict), Arc::new(full), Arc::new(tolerations))
    }

    pub(super) fn view(&mut self, p: usize, relax: &Relax) -> View {
        let m = self.m;
        let pod = &m.pods[p];
        let respect = m.settings.preference_policy == PreferencePolicy::Respect;
        let plain =
            pod.node_selector.is_empty() && pod.required_terms.is_empty() && pod.preferred_terms.is_empty() && pod.tolerations.is_empty();
        let (strict, full, tolerations) = if plain && !relax.pns {
            // No node constraints and no tolerations (most pods): one shared empty view, not
            // three allocations per pod.
            if self.plain_view.is_none() {
                self.plain_view = Some(self.view_parts(pod, relax));
            }
            self.plain_view.clone().unwrap_or_else(|| self.view_parts(pod, relax))
        } else if relax.steps.is_empty() && pod.content_shared() {
            match self.spec_views.get(&pod.content_id()) {
                Some(parts) => parts.clone(),
                None => {
                    let parts = self.view_parts(pod, relax);
                    self.spec_views.insert(pod.content_id(), parts.clone());
                    parts
                }
            }
        } else {
            self.view_parts(pod, relax)
        };
        let mut groups = Vec::new();
        let mut push = |s: &mut Self, def: topology::GroupKey| {
            let selects = topology::selects(&def, pod);
            let g = s.topo.group(def, pod, m);
            groups.push((g, selects));
        };
        for (i, sc) in pod.spread.iter().enumerate() {
            let active = sc.when_unsatisfiable == Unsatisfiable::DoNotSchedule || (respect && !relax.removed_spread.contains(&i));
            if active {
                let def = topology::relaxed_spread_key(sc, pod, relax.term);
                if relax.term > 0 && self.topo.find(&def).is_none() {
                    let g = self.topo.group(def.clone(), pod, m);
                    self.topo.count_bound(g, &self.bound, m);
                }
                push(self, def);
            }
        }
        for t in &pod.affinity {
            push(self, topology::affinity_key(t, false, false));
        }
        for t in &pod.anti_affinity {
            push(self, topology::affinity_key(t, true, false));
        }
        if respect {
            for (_, t) in pod.preferred_affinity.iter().skip(relax.pref_aff) {
                push(self, topology::affinity_key(t, false, false));
            }
            for (_, t) in pod.preferred_anti_affinity.iter().skip(relax.pref_anti) {
                push(self, topology::affinity_key(t, true, false));
            }
        }
        let mut inverse = Vec::new();
        self.topo.selecting(pod, true, &mut inverse);
        // Then the inverse anti-affinity families, each as one merged group (`topology::Family`):
        // after the pod's own groups, as the inverse groups always are.
        let mut merged = Vec::new();
        self.topo.merged_selecting(pod, &mut merged);
        inverse.extend(merged);
        // `inverse` is unique; only the pod's own groups can repeat one (an inverse group is
        // never one of them, but the check is as cheap as it is safe). Checking against every
        // group pushed so far was quadratic per pod in the inverse groups that select it (one
        // per other exclusive Job).
        let own = groups.len();
        for g in inverse {
            if !groups[..own].iter().any(|(x, _)| *x == g) {
                groups.push((g, false));
            }
        }
        let mut probe: Vec<usize> = Vec::new();
        for (i, &(g, _)) in groups.iter().enumerate() {
            let key = self.topo.groups[g].def.key;
            if full.get(key).is_none() && !probe.iter().any(|&e| self.topo.groups[groups[e].0].def.key == key) {
                probe.push(i);
            }
        }
        View { strict, full, tolerations, groups, probe }
    }

    /// One relaxation step (R5.13.1); false when nothing is left to relax.
    pub(super) fn relax(&self, p: usize, r: &mut Relax) -> bool {
        let pod = &self.m.pods[p];
        let respect = self.m.settings.preference_policy == PreferencePolicy::Respect;
        if pod.required_terms.len() > r.term + 1 {
            r.term += 1;
            r.steps.push(format!("dropped required node affinity term {}", r.term));
            return true;
        }
        if respect && r.pref_aff < pod.preferred_affinity.len() {
            r.pref_aff += 1;
            r.steps.push("dropped a preferred pod affinity term".into());
            return true;
        }
        if respect && r.pref_anti < pod.preferred_anti_affinity.len() {
            r.pref_anti += 1;
            r.steps.push("dropped a preferred pod anti-affinity term".into());
            return true;
        }
        if respect && r.pref_node < pod.preferred_terms.len() {
            r.pref_node += 1;
            r.steps.push(format!("dropped preferred node affinity (weight {})", pod.preferred_terms[r.pref_node - 1].0));
            return true;
        }
        if respect {
            if let Some(i) = (0..pod.spread.len())
                .find(|i| pod.spread[*i].when_unsatisfiable == Unsatisfiable::ScheduleAnyway && !r.removed_spread.contains(i))
            {
                r.removed_spread.push(i);
                r.steps.push("dropped a ScheduleAnyway topology spread constraint".into());
                return true;
            }
        }
        if self.any_pns && !r.pns && !pod.tolerations.contains(&Toleration::prefer_no_schedule()) {
            r.pns = true;
            r.steps.push("tolerated PreferNoSchedule taints".into());
            return true;
        }
        false
    }
}
