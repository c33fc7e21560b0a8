//! Objects that count only under a Karpenter feature gate: NodeOverlays (gate NodeOverlay).
//! They are always read and checked as the apiserver checks them (the CRD is installed whatever
//! the gate says); with the gate off they are listed under `skipped` with the gate that would
//! make them count, never as objects that do not influence provisioning.

use super::Lowering;
use crate::catalog::overlay::{self, PoolView};
use crate::catalog::Catalog;
use crate::error::InputError;
use crate::labels;
use crate::manifest::reader::{At, Sink};
use crate::model::{LabelSet, OverlayStatus, Settings, Skipped};

/// Why a NodeOverlay is skipped while its gate is off.
pub const OVERLAY_GATE_OFF: &str =
    "karpenter.sh/v1alpha1 NodeOverlay counts only with the NodeOverlay feature gate (off by default; --feature-gates NodeOverlay=true)";

impl Lowering {
    /// A `karpenter.sh` NodeOverlay document: `v1alpha1` is its only served version.
    pub(super) fn node_overlay(&mut self, root: &At, api: &str, source: Option<String>, sink: &mut Sink) {
        if api != "karpenter.sh/v1alpha1" {
            let at = root.get("apiVersion").unwrap_or(*root);
            sink.error(&at, "unsupported-api-version", format!("{api} NodeOverlay is not a served version"), "karpenter.sh/v1alpha1");
            return;
        }
        let meta = super::read_meta(root, sink);
        if let Some(mut ov) = overlay::read(root, meta.name, &mut self.interner, &mut self.resources, sink) {
            ov.source = source;
            if let Some(dup) = self.overlays.iter().find(|o| o.name == ov.name) {
                sink.error(
                    root.get("metadata").as_ref().unwrap_or(root),
                    "duplicate-object",
                    format!("NodeOverlay {:?} is defined twice (first in document {})", ov.name, dup.document),
                    "one NodeOverlay per name (they are cluster-scoped)",
                );
                return;
            }
            self.overlays.push(ov);
        }
    }

    /// Resolve the NodeOverlays into `catalog` (gate on) or list them as skipped (gate off).
    pub(super) fn resolve_overlays(&mut self, catalog: &mut Catalog, settings: &Settings) -> Result<Vec<OverlayStatus>, Vec<InputError>> {
        if !settings.feature_gates.node_overlay {
            for ov in &self.overlays {
                self.skipped.push(Skipped {
                    source: ov.source.clone(),
                    document: ov.document,
                    kind: "NodeOverlay".into(),
                    name: ov.name.clone(),
                    reason: OVERLAY_GATE_OFF.into(),
                });
            }
            return Ok(Vec::new());
        }
        if self.overlays.is_empty() {
            return Ok(Vec::new());
        }
        // Karpenter matches a NodePool's template labels and its name, not the node class label
        // nodecast adds to the pool's labels.
        let class_key = self.interner.get("karpenter.k8s.aws/ec2nodeclass");
        let nodepool_key = self.interner.get(labels::NODEPOOL);
        let pool_labels: Vec<LabelSet> = self
            .node_pools
            .iter()
            .map(|np| LabelSet::from_pairs(np.labels.iter().filter(|(k, _)| Some(*k) != class_key && Some(*k) != nodepool_key).collect()))
            .collect();
        let pools: Vec<PoolView> = self
            .node_pools
            .iter()
            .zip(&pool_labels)
            .map(|(np, labels)| PoolView { name: &np.name, labels, requirements: &np.requirements })
            .collect();
        let accelerators: Vec<_> = crate::catalog::aws::ACCELERATORS.iter().filter_map(|n| self.resources.get(n)).collect();
        overlay::resolve(catalog, &self.overlays, &pools, &mut self.interner, &accelerators)
    }
}

/// Why an object that is not lowered is skipped, when a Karpenter gate or flag would make it
/// count (the `skipped` list names it rather than saying the object does not matter).
pub fn gated_skip_reason(group: &str, api: &str, kind: &str) -> Option<String> {
    match (group, kind) {
        ("resource.k8s.io", "ResourceClaim" | "ResourceClaimTemplate" | "DeviceClass" | "ResourceSlice") => Some(format!(
            "{api} {kind} counts only with --ignore-dra-requests=false (Karpenter's DRA allocator); \
             with the default (true) Karpenter refuses pods that reference resource claims"
        )),
        // A PodTemplate shapes a CapacityBuffer's virtual pods (`spec.podTemplateRef`); one a
        // counted buffer names leaves the skipped list (lower/buffers.rs).
        ("", "PodTemplate") => Some(format!(
            "{api} {kind} counts only as the spec.podTemplateRef of a CapacityBuffer, with the CapacityBuffer feature gate on (off by default; --feature-gates CapacityBuffer=true)"
        )),
        ("autoscaling.x-k8s.io", "CapacityBuffer") => Some(format!(
            "{api} {kind} counts only with the CapacityBuffer feature gate (off by default; --feature-gates CapacityBuffer=true)"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gated_kinds_name_their_gate_or_flag() {
        let dra = gated_skip_reason("resource.k8s.io", "resource.k8s.io/v1", "ResourceClaimTemplate").unwrap();
        assert!(dra.contains("--ignore-dra-requests=false"), "{dra}");
        let buffer = gated_skip_reason("autoscaling.x-k8s.io", "autoscaling.x-k8s.io/v1beta1", "CapacityBuffer").unwrap();
        assert!(buffer.contains("CapacityBuffer feature gate"), "{buffer}");
        assert!(OVERLAY_GATE_OFF.contains("NodeOverlay=true"));
        assert_eq!(gated_skip_reason("", "v1", "Service"), None);
        // A PodTemplate shapes a CapacityBuffer's virtual pods: never "does not influence".
        let template = gated_skip_reason("", "v1", "PodTemplate").unwrap();
        assert!(template.contains("podTemplateRef") && template.contains("CapacityBuffer=true"), "{template}");
    }
}
