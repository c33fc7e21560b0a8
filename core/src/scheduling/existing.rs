//! Existing nodes (real and in-flight) as placement targets (spec §1.6, §4.8, §5.7).

use super::{topology, Fail, View};
use crate::model::{ExistingNode, HostPort, Model, Pod};
use crate::requirements::{Requirement, Requirements};
use crate::resources::Resources;
use crate::taints::{first_untolerated, Effect, Taint, Toleration};
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct ExistingState {
    pub node: usize,
    /// Allocatable − bound pods − remaining daemon need (R4.8.2), minus pods nominated here.
    pub remaining: Resources,
    /// The node's labels as requirements; shared, not copied, by the passes of one baseline.
    pub requirements: Arc<Requirements>,
    /// Effective taints (R1.6.4); shared, not copied, by the passes of one baseline.
    pub taints: Arc<Vec<Taint>>,
    pub host_ports: Vec<HostPort>,
    /// Pods nominated to this node in this pass.
    pub pods: Vec<usize>,
    /// Inside its own pool's consolidateAfter window: pods moved off disruption candidates may
    /// not land here (D-5.9); pending pods may.
    pub gated: bool,
}

const EPHEMERAL_TAINTS: [&str; 4] = [
    "node.kubernetes.io/not-ready",
    "node.kubernetes.io/unreachable",
    "node.cloudprovider.kubernetes.io/uninitialized",
    "karpenter.sh/unregistered",
];

/// Taints that count for scheduling: an uninitialized or rebooting managed node drops the
/// known ephemeral taints, its startup taints and the reboot's `karpenter.sh/rebooting`
/// NoSchedule fence, so its capacity counts as coming back (R1.6.4; statenode.go, Taints).
pub fn effective_taints(n: &ExistingNode) -> Vec<Taint> {
    if !n.managed || (n.initialized && !n.rebooting) {
        return n.taints.clone();
    }
    n.taints
        .iter()
        .filter(|t| !EPHEMERAL_TAINTS.contains(&t.key.as_str()) && !t.key.starts_with("readiness.k8s.io/"))
        .filter(|t| !(t.key == "karpenter.sh/rebooting" && t.effect == Effect::NoSchedule))
        .filter(|t| !n.startup_taints.iter().any(|s| s.key == t.key && s.effect == t.effect && s.value == t.value))
        .cloned()
        .collect()
}

/// Existing nodes in scheduling order: initialized first, then by name (R5.3.6).
pub fn build(m: &Model, exclude: &[usize]) -> Vec<ExistingState> {
    build_with(m, exclude, |n| Arc::new(topology::label_requirements(&n.labels, &m.interner)))
}

/// [`build`] with the label requirements of each node from `requirements_of` (which must
/// return `topology::label_requirements` of its labels, e.g. remembered from an earlier build).
pub fn build_with(m: &Model, exclude: &[usize], mut requirements_of: impl FnMut(&ExistingNode) -> Arc<Requirements>) -> Vec<ExistingState> {
    let mut by_node: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for (i, p) in m.pods.iter().enumerate() {
        if let (Some(n), false) = (p.node_name.as_deref(), p.terminal) {
            by_node.entry(n).or_default().push(i);
        }
    }
    let mut idx: Vec<usize> = (0..m.nodes.len()).filter(|i| !exclude.contains(i) && !m.nodes[*i].marked_for_deletion).collect();
    idx.sort_by(|&a, &b| {
        let (x, y) = (&m.nodes[a], &m.nodes[b]);
        y.initialized.cmp(&x.initialized).then_with(|| x.name.cmp(&y.name))
    });
    idx.into_iter()
        .map(|i| {
            let n = &m.nodes[i];
            let mut remaining = n.allocatable.clone();
            let mut host_ports = Vec::new();
            let mut daemon_pods: Vec<&str> = Vec::new();
            for p in by_node.get(n.name.as_str()).into_iter().flatten().map(|&i| &m.pods[i]) {
                remaining.sub(&p.requests);
                host_ports.extend(p.host_ports.iter().copied());
                if let Some((kind, name)) = &p.owner {
                    if kind == "DaemonSet" {
                        daemon_pods.push(name);
                    }
                }
            }
            let taints = effective_taints(n);
            let requirements = requirements_of(n);
            // Daemons that would run here but have no pod yet still reserve room (R4.8.1).
            for ds in &m.daemonsets {
                // Karpenter skips DaemonSet pods with resource claims here too (getCompatibleDaemonPods).
                if daemon_pods.contains(&ds.name.as_str()) || crate::scheduling::claim::skips_dra(&ds.pod, m) {
                    continue;
                }
                if daemon_compatible(&ds.pod, &requirements, &taints, m) {
                    remaining.sub(&ds.pod.requests);
                }
            }
            let taints = Arc::new(taints);
            ExistingState { node: i, remaining, requirements, taints, host_ports, pods: Vec::new(), gated: false }
        })
        .collect()
}

fn daemon_compatible(pod: &Pod, node: &Requirements, taints: &[Taint], m: &Model) -> bool {
    let mut tols = pod.tolerations.clone();
    tols.push(Toleration::prefer_no_schedule());
    if first_untolerated(taints, &tols).is_some() {
        return false;
    }
    pod.strict_alternatives(&m.interner).iter().any(|strict| node.compatible(strict, |_| false, &m.interner).is_ok())
}

impl ExistingState {
    /// §5.7: taints, host ports, resources, strict label compatibility, topology. Returns the
    /// node's requirements for recording. `Fail::Resources` means exactly: no room for the
    /// pod's requests, or a gated node and a bound pod (`scan` relies on it).
    pub fn accepts(&self, pod: &Pod, view: &View, topo: &topology::Topology, m: &Model) -> Result<Requirements, Fail> {
        if self.gated && pod.node_name.is_some() {
            return Err(Fail::Resources);
        }
        if let Some(t) = first_untolerated(&self.taints, &view.tolerations) {
            return Err(Fail::Taint(t.clone()));
        }
        if pod.host_ports.iter().any(|a| self.host_ports.iter().any(|b| a.conflicts(b))) {
            return Err(Fail::HostPort);
        }
        if !pod.requests.fits_in(&self.remaining) {
            return Err(Fail::Resources);
        }
        self.requirements.compatible(&view.full, |_| false, &m.interner).map_err(Fail::Requirements)?;
        for &(g, selects) in &view.groups {
            let group = &topo.groups[g];
            let key = group.def.key;
            let exists = Requirement::exists();
            let pod_domains = view.strict.get(key).unwrap_or(&exists);
            let node_domains = self.requirements.get(key).unwrap_or(&exists);
            let req = topo
                .next_domain_of(g, pod_domains, node_domains, selects, &m.interner)
                .ok_or(Fail::Topology { kind: group.def.kind, key })?;
            let mut extra = Requirements::new();
            extra.set(key, req);
            self.requirements.compatible(&extra, |_| false, &m.interner).map_err(|_| Fail::Topology { kind: group.def.kind, key })?;
        }
        Ok(Requirements::clone(&self.requirements))
    }

    /// A necessary condition for [`accepts`](Self::accepts) under every relaxation of `pod`,
    /// whatever the pass placed here first: false only when no attempt can place the pod on
    /// this node. Each test is one `accepts` makes, loosened to hold for every view:
    /// - gated: exact (the same test);
    /// - taints: with the PreferNoSchedule toleration a relaxation may add (more tolerations
    ///   never untolerate a taint);
    /// - resources: against the room before this pass (placements only take room, and a
    ///   request that does not fit some room does not fit less);
    /// - labels: only for a pod without node-affinity terms, whose every view is exactly its
    ///   node selector (the same test); otherwise not checked.
    ///
    /// `most_tolerations` are the pod's tolerations plus the PreferNoSchedule one.
    pub fn could_accept(&self, pod: &Pod, most_tolerations: &[Toleration], m: &Model) -> bool {
        if self.gated && pod.node_name.is_some() {
            return false;
        }
        if !pod.requests.fits_in(&self.remaining) || first_untolerated(&self.taints, most_tolerations).is_some() {
            return false;
        }
        if pod.required_terms.is_empty() && pod.preferred_terms.is_empty() {
            return self.requirements.compatible(&pod.node_selector, |_| false, &m.interner).is_ok();
        }
        true
    }

    pub fn add(&mut self, p: usize, pod: &Pod) {
        self.remaining.sub(&pod.requests);
        self.host_ports.extend(pod.host_ports.iter().copied());
        self.pods.push(p);
    }
}
