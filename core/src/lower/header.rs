//! The object header the apiserver checks before anything else: apiVersion and kind together, a
//! served version, and a name.

use crate::manifest::reader::{At, Sink};

/// The kinds nodecast reads, by API group: their only served version is `v1`.
const READ_KINDS: [(&str, &[&str]); 6] = [
    ("karpenter.sh", &["NodePool", "NodeClaim"]),
    ("karpenter.k8s.aws", &["EC2NodeClass"]),
    ("eks.amazonaws.com", &["NodeClass"]),
    ("", &["Pod", "Node"]),
    ("apps", &["Deployment", "StatefulSet", "ReplicaSet", "DaemonSet"]),
    ("batch", &["Job", "CronJob"]),
];

/// What the apiserver checks before anything else: apiVersion and kind together, a served
/// version, and a name. False when the object cannot be read (errors reported).
pub(super) fn object_header(value: &serde_json::Value, root: &At, group: &str, api: &str, kind: &str, sink: &mut Sink) -> bool {
    match (api.is_empty(), kind.is_empty()) {
        (true, true) => return true, // reported by the caller's ("", "") arm
        (true, false) => {
            sink.error(
                root,
                "required",
                format!("{kind} without `apiVersion`"),
                "e.g. apiVersion: v1 (Pod, Node), apps/v1, batch/v1, karpenter.sh/v1",
            );
            return false;
        }
        (false, true) => {
            sink.error(root, "required", format!("object of {api} without `kind`"), "kind: Pod, Deployment, Job, NodePool, ...");
            return false;
        }
        (false, false) => {}
    }
    let expanded = super::kinds::served_versions(group, kind);
    let read = READ_KINDS.iter().any(|(g, kinds)| *g == group && kinds.contains(&kind))
        || (group == "policy" && kind == "PodDisruptionBudget")
        || expanded.is_some();
    if !read {
        return true;
    }
    let version = api.rsplit_once('/').map_or(api, |(_, v)| v);
    if let Some(served) = expanded.filter(|s| !s.contains(&version)) {
        let at = root.get("apiVersion").unwrap_or(*root);
        let help = served.iter().map(|v| format!("{group}/{v}")).collect::<Vec<_>>().join(" or ");
        sink.error(&at, "unsupported-api-version", format!("{api} {kind} is not a version nodecast expands"), help);
        return false;
    }
    if expanded.is_none() && version != "v1" {
        let at = root.get("apiVersion").unwrap_or(*root);
        let help = match group {
            "karpenter.sh" | "karpenter.k8s.aws" => {
                format!("{group}/v1 (Karpenter v1 no longer serves {api}; its conversion moved fields, see Karpenter's v1 migration guide)")
            }
            "" => "v1".to_string(),
            g => format!("{g}/v1"),
        };
        sink.error(&at, "unsupported-api-version", format!("{api} {kind} is not a served version"), help);
        return false;
    }
    let name = value.get("metadata").and_then(|m| m.get("name"));
    if let Some(other) = name.filter(|n| !n.is_string() && !n.is_null()) {
        // `name: y` or `name: on` are booleans to YAML 1.1 readers, kubectl's included.
        let meta = root.get("metadata");
        let name_at = meta.as_ref().and_then(|m| m.get("name"));
        let at = name_at.unwrap_or(*root);
        let msg = format!("{kind} metadata.name must be a string, got {other}");
        sink.error(&at, "wrong-type", msg, "a quoted name (YAML reads y, yes, on, true, ... as booleans)");
        return false;
    }
    if name.and_then(serde_json::Value::as_str).is_none_or(str::is_empty) {
        let meta = root.get("metadata");
        let name_at = meta.as_ref().and_then(|m| m.get("name"));
        let at = name_at.or(meta).unwrap_or(*root);
        sink.error(&at, "required", format!("{kind} without `metadata.name`"), "metadata: {name: ...}");
        return false;
    }
    true
}
