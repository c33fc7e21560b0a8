//! The NodeOverlay hint: a pod asks an extended resource that no instance type of the catalog
//! reports (a MIG profile such as `nvidia.com/mig-1g.10gb`, a custom device). Karpenter knows
//! only the resources an instance type reports, so no NodePool change can help; a NodeOverlay
//! (feature gate NodeOverlay) that declares the resource on a type whose device plugin
//! advertises it does. The hint proposes the smallest such overlay — the cheapest allowed type
//! that holds the rest of the pod, declaring what the pod asks — and the caller re-plans with it.

use crate::fit::{compatible_types, pod_requirements};
use crate::model::Model;
use crate::quantity::format_milli;
use crate::resources::ResourceId;
use crate::scheduling::claim::Template;
use crate::scheduling::launch::min_price;

/// GPU names (`karpenter.k8s.aws/instance-gpu-name`) of NVIDIA GPUs that support MIG.
const MIG_GPUS: [&str; 5] = ["a100", "a30", "h100", "h200", "b200"];

/// Extended resources the pod asks that no catalog type has.
pub fn unknown_resources(m: &Model, p: usize) -> Vec<(ResourceId, i64)> {
    m.pods[p]
        .requests
        .iter_nonzero()
        .filter(|&(id, _)| is_extended(m.resources.name(id)) && m.catalog.types.iter().all(|t| t.allocatable.get(id) <= 0))
        .collect()
}

fn is_extended(name: &str) -> bool {
    name.split_once('/').is_some_and(|(domain, _)| domain != "kubernetes.io" && !domain.ends_with(".kubernetes.io"))
}

/// Catalog types to declare resources on, and the resources with their amounts.
pub type Proposal = (Vec<u32>, Vec<(ResourceId, i64)>);

/// The overlay for pod `p` on template `t`, if one can be proposed: the catalog types to declare
/// the resources on, and the resources (the caller makes it an `Edit::Overlay`; edit.rs applies
/// and describes it through this file, so this file does not name `Edit`).
pub fn propose(m: &Model, t: &Template, p: usize) -> Option<Proposal> {
    let unknown = unknown_resources(m, p);
    if unknown.is_empty() {
        return None;
    }
    let pod = &m.pods[p];
    let r = pod_requirements(pod, t, m);
    // The rest of the pod must fit the type as it is.
    let mut rest = pod.requests.clone();
    for &(id, _) in &unknown {
        rest.set(id, 0);
    }
    let gpu = m.resources.get("nvidia.com/gpu");
    let gpu_name = m.interner.get("karpenter.k8s.aws/instance-gpu-name");
    let suits = |i: u32| {
        let it = &m.catalog.types[i as usize];
        unknown.iter().all(|&(id, _)| {
            let name = m.resources.name(id);
            if name.starts_with("nvidia.com/mig-") {
                gpu_name.and_then(|k| it.labels.get(k)).is_some_and(|v| MIG_GPUS.contains(&m.interner.str(v)))
            } else if name.starts_with("nvidia.com/") {
                gpu.is_some_and(|g| it.allocatable.get(g) > 0)
            } else {
                true
            }
        })
    };
    let best = compatible_types(t, &r, m)
        .into_iter()
        .filter(|&i| suits(i) && rest.fits_with(t.overhead(i), t.alloc(i, m)))
        .min_by(|&a, &b| min_price(a, &r, m).total_cmp(&min_price(b, &r, m)).then_with(|| a.cmp(&b)))?;
    Some((vec![best], unknown))
}

/// The catalog with the overlay's capacity declared on its types (as `catalog::overlay`
/// resolves a NodeOverlay's `capacity`).
pub fn apply(m2: &mut Model, types: &[u32], capacity: &[(ResourceId, i64)]) {
    for &i in types {
        let it = &mut m2.catalog.types[i as usize];
        for &(id, q) in capacity {
            it.capacity.set(id, q);
            it.allocatable.set(id, q);
        }
    }
}

/// The NodeOverlay to write, as YAML the user can apply.
pub fn describe(m: &Model, types: &[u32], capacity: &[(ResourceId, i64)]) -> String {
    let names: Vec<&str> = types.iter().map(|&i| m.catalog.types[i as usize].name.as_str()).collect();
    let cap: Vec<String> =
        capacity.iter().map(|&(id, q)| format!("{}: \"{}\"", m.resources.name(id), format_milli(q, m.resources.unit(id)))).collect();
    let gate = if m.settings.feature_gates.node_overlay {
        ""
    } else {
        " and turn on Karpenter's NodeOverlay feature gate (--feature-gates NodeOverlay=true)"
    };
    format!(
        "Karpenter knows only the resources an instance type reports: if the device plugin on {} advertises it, declare it with a NodeOverlay{gate}: \
         {{apiVersion: karpenter.sh/v1alpha1, kind: NodeOverlay, spec: {{requirements: [{{key: node.kubernetes.io/instance-type, operator: In, values: [{}]}}], capacity: {{{}}}}}}} \
         (the count here is what the pod asks; write what the node advertises)",
        names.join(", "),
        names.join(", "),
        cap.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extended_means_a_domain_outside_kubernetes_io() {
        assert!(is_extended("nvidia.com/mig-1g.10gb"));
        assert!(!is_extended("cpu"));
        assert!(!is_extended("hugepages.kubernetes.io/x"));
        assert!(!is_extended("kubernetes.io/x"));
    }
}
