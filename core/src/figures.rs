//! Figures a user reads, computed once here for every front end (CLI, Python, wasm, the
//! playground): the monthly cost, the accelerators of a NodeClaim, the one-line summaries.
//! Before, each front end derived them itself, with different rules (three accelerator lists,
//! the ×730 in four places); now they are answer fields and the front ends only format them.

use crate::api::{Accelerator, Decision, Plan};
use indexmap::IndexMap;

/// Hours in a month, as cloud price sheets count them (365 × 24 / 12).
pub const HOURS_PER_MONTH: f64 = 730.0;

/// `per_hour` × [`HOURS_PER_MONTH`], to the cent: a month is not priced to the 1e-9.
pub fn per_month(per_hour: f64) -> f64 {
    (per_hour * HOURS_PER_MONTH * 100.0).round() / 100.0 + 0.0
}

/// Extended resources that are accelerators (GPUs, Neuron devices and cores, Gaudi), in the
/// order a node lists them. Karpenter's AWS provider and the device plugins name these; the
/// VPC resources (`vpc.amazonaws.com/...`) and storage are not accelerators.
pub const ACCELERATOR_RESOURCES: [&str; 7] = [
    "nvidia.com/gpu",
    "amd.com/gpu",
    "aws.amazon.com/neuron",
    "aws.amazon.com/neuroncore",
    "aws.amazon.com/neurondevice",
    "habana.ai/gaudi",
    "gpu.intel.com/i915",
];

/// The accelerators of a node with `allocatable` (rendered quantities) and `labels`.
pub fn accelerators(allocatable: &IndexMap<String, String>, labels: &IndexMap<String, String>) -> Vec<Accelerator> {
    let label = |k: &str| labels.get(&format!("karpenter.k8s.aws/instance-{k}")).cloned();
    ACCELERATOR_RESOURCES
        .iter()
        .filter_map(|&r| {
            let count = allocatable.get(r)?.parse::<i64>().ok().filter(|&n| n > 0)?;
            // A GPU's facts are under `instance-gpu-*`; Neuron (and other non-GPU) devices'
            // under `instance-accelerator-*`.
            let family = if label("gpu-count").is_some() && !r.starts_with("aws.amazon.com/neuron") { "gpu" } else { "accelerator" };
            Some(Accelerator {
                resource: r.to_string(),
                count,
                name: label(&format!("{family}-name")),
                manufacturer: label(&format!("{family}-manufacturer")),
                memory_mib: if family == "gpu" { label("gpu-memory").and_then(|m| m.parse().ok()) } else { None },
            })
        })
        .collect()
}

/// `$5.672`: $/h with up to 5 decimals, trailing zeros dropped, at least 2.
pub fn dollars(p: f64) -> String {
    let s = format!("{:.5}", p + 0.0);
    let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
    let frac = frac.trim_end_matches('0');
    format!("${int}.{frac:0<2}")
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The plan in one line: `1 new NodeClaim: $5.672/h for 1 pod; 0 pods on existing nodes;
/// 0 pods unschedulable`.
pub fn plan_summary(p: &Plan) -> String {
    let placed_existing: usize = p.existing_nodes.iter().map(|n| n.pods.len()).sum();
    let placed_new: usize = p.node_claims.iter().map(|c| c.pods.len()).sum();
    let line = format!(
        "{}: {}/h for {}; {} on existing nodes; {} unschedulable",
        plural(p.node_claims.len(), "new NodeClaim", "new NodeClaims"),
        dollars(p.total_price_per_hour),
        plural(placed_new, "pod", "pods"),
        plural(placed_existing, "pod", "pods"),
        plural(p.unschedulable.len(), "pod", "pods"),
    );
    let line = if p.static_deprovisioned.is_empty() {
        line
    } else {
        format!("{line}; {} deleted by static scale-down", plural(p.static_deprovisioned.len(), "NodeClaim", "NodeClaims"))
    };
    if p.static_node_claims.is_empty() {
        return line;
    }
    // Static NodeClaims are launched whatever the demand: their cost is shown apart from the
    // provisioner's, so the figures of the pending pods stay comparable.
    let placed_static: usize = p.static_node_claims.iter().map(|c| c.pods.len()).sum();
    let rate: f64 = p.static_node_claims.iter().filter_map(|c| c.price_per_hour).sum();
    format!(
        "{line}; {} kept by static NodePools: {}/h for {}",
        plural(p.static_node_claims.len(), "NodeClaim", "NodeClaims"),
        dollars(crate::price::round_price(rate)),
        plural(placed_static, "pod", "pods"),
    )
}

/// The decision in one line: `At 2025-03-05T12:00:00Z: delete 1 node (a)`.
pub fn decision_summary(d: &Decision) -> String {
    format!("At {}: {}", d.now, d.command)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_are_priced_to_the_cent() {
        assert_eq!(per_month(5.672), 4140.56);
        assert_eq!(per_month(3.06), 2233.8);
        assert_eq!(per_month(0.0), 0.0);
        assert_eq!(dollars(5.672), "$5.672");
        assert_eq!(dollars(1.0), "$1.00");
    }

    #[test]
    fn accelerators_come_from_allocatable_and_catalog_labels() {
        let map = |kv: &[(&str, &str)]| kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<IndexMap<_, _>>();
        let alloc = map(&[("cpu", "47810m"), ("vpc.amazonaws.com/efa", "1"), ("nvidia.com/gpu", "4")]);
        let labels = map(&[
            ("karpenter.k8s.aws/instance-gpu-count", "4"),
            ("karpenter.k8s.aws/instance-gpu-name", "a10g"),
            ("karpenter.k8s.aws/instance-gpu-manufacturer", "nvidia"),
            ("karpenter.k8s.aws/instance-gpu-memory", "22888"),
        ]);
        let a = accelerators(&alloc, &labels);
        assert_eq!(a.len(), 1, "the EFA interface is no accelerator");
        assert_eq!(
            (a[0].resource.as_str(), a[0].count, a[0].name.as_deref(), a[0].memory_mib),
            ("nvidia.com/gpu", 4, Some("a10g"), Some(22888))
        );
        let neuron = accelerators(
            &map(&[("aws.amazon.com/neuron", "1"), ("aws.amazon.com/neuroncore", "2")]),
            &map(&[
                ("karpenter.k8s.aws/instance-accelerator-name", "inferentia2"),
                ("karpenter.k8s.aws/instance-accelerator-manufacturer", "aws"),
            ]),
        );
        assert_eq!(neuron.len(), 2);
        assert_eq!((neuron[1].count, neuron[1].name.as_deref(), neuron[1].memory_mib), (2, Some("inferentia2"), None));
        assert!(accelerators(&map(&[("cpu", "2"), ("nvidia.com/gpu", "0")]), &map(&[])).is_empty());
    }
}
