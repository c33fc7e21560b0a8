//! The trace's `nodePool` event: at its time the NodePool of the manifest's name is replaced by
//! the manifest, as `kubectl apply` of an edited NodePool would. Nothing else happens at once:
//! the nodes launched from the old template carry its hash (`nodepool_hash`), so the next
//! disruption pass finds them drifted (NodePoolDrifted, or RequirementsDrifted when their labels
//! no longer fit) and the Drift method replaces them one at a time within the `Drifted` budgets,
//! as Karpenter's NodePool hash controller and drift controller do.
//!
//! The manifest is lowered with the cluster inputs under an internal name (so admission checks
//! it, with errors pointing at the trace) and taken out of the model again before the run.

use crate::error::InputError;
use crate::model::{Model, NodePool};
use serde_json::Value;

/// The internal name an edit's NodePool is lowered under: `{EDIT_PREFIX}{index in inline}`.
pub(super) const EDIT_PREFIX: &str = "nodecast-edit-";

/// A NodePool edit read from the trace, before lowering.
pub(super) struct Edit {
    /// The event's path (`events[3]`).
    pub path: String,
    /// The NodePool the manifest replaces.
    pub name: String,
    /// Its internal name in the lowered model.
    pub internal: String,
}

/// Checks an edit's manifest and renames it for lowering: the manifest to add to the inputs,
/// or the error.
pub(super) fn prepare(m: &Value, path: &str, index: usize) -> Result<(Edit, Value), (String, &'static str, String, &'static str)> {
    let kind = m.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind != "NodePool" {
        return Err((
            format!("{path}.nodePool.kind"),
            "unsupported-kind",
            format!("a nodePool event replaces a NodePool, not {kind:?}"),
            "kind: NodePool",
        ));
    }
    let Some(name) = m.pointer("/metadata/name").and_then(Value::as_str).filter(|n| !n.is_empty()) else {
        return Err((
            format!("{path}.nodePool.metadata.name"),
            "required",
            "the NodePool's name says which NodePool it replaces".into(),
            "metadata: {name: default}",
        ));
    };
    let internal = format!("{EDIT_PREFIX}{index}");
    let mut renamed = m.clone();
    if let Some(meta) = renamed.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("name".into(), Value::String(internal.clone()));
    }
    Ok((Edit { path: path.to_string(), name: name.to_string(), internal }, renamed))
}

/// Takes the edits' NodePools out of the lowered model: per edit (in order), the index of the
/// NodePool it replaces and its replacement under the original name.
pub(super) fn take(model: &mut Model, edits: &[Edit], errors: &mut Vec<InputError>) -> Vec<Option<(usize, NodePool)>> {
    let mut lowered = Vec::new();
    model.node_pools.retain(|np| {
        if np.name.starts_with(EDIT_PREFIX) {
            lowered.push(np.clone());
            false
        } else {
            true
        }
    });
    edits
        .iter()
        .map(|e| {
            let mut np = lowered.iter().find(|np| np.name == e.internal)?.clone();
            let at = format!("{}.nodePool.metadata.name", e.path);
            let Some(pool) = model.node_pools.iter().position(|p| p.name == e.name) else {
                let known: Vec<&str> = model.node_pools.iter().map(|p| p.name.as_str()).collect();
                errors.push(
                    InputError::new("unknown-nodepool", format!("no NodePool named {:?} in the inputs to replace", e.name))
                        .path(at)
                        .help(format!("one of: {}", known.join(", "))),
                );
                return None;
            };
            if np.is_static != model.node_pools[pool].is_static {
                errors.push(
                    InputError::new(
                        "unsupported-edit",
                        format!("NodePool {:?}: an edit cannot add or remove spec.replicas (static NodePools)", e.name),
                    )
                    .path(format!("{}.nodePool.spec.replicas", e.path))
                    .help("keep spec.replicas as the NodePool has it"),
                );
                return None;
            }
            np.name = e.name.clone();
            np.node_class_index = crate::lower::node_class_index(&np, &model.node_classes);
            Some((pool, np))
        })
        .collect()
}
