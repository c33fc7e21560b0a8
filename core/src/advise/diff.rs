//! The YAML diff of an edited NodePool (or EC2NodeClass), as a reviewer reads it.

use serde_json::Value;

/// A unified diff (3 lines of context) of two renderings of the same document.
pub fn unified(before: &Value, after: &Value) -> String {
    let name = before.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("?");
    // `nodepool/NAME`, `ec2nodeclass/NAME`: the kind, lower-cased, as kubectl names objects.
    let kind = before.get("kind").and_then(Value::as_str).unwrap_or("nodepool").to_lowercase();
    let a = serde_saphyr::to_string(before).unwrap_or_default();
    let b = serde_saphyr::to_string(after).unwrap_or_default();
    similar::TextDiff::from_lines(&a, &b)
        .unified_diff()
        .context_radius(3)
        .header(&format!("{kind}/{name}"), &format!("{kind}/{name} (advised)"))
        .to_string()
}

/// The diff that adds a whole NodePool document (a split's copy).
pub fn added(doc: &Value) -> String {
    let name = doc.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("?");
    let b = format!("---\n{}", serde_saphyr::to_string(doc).unwrap_or_default());
    similar::TextDiff::from_lines("", &b)
        .unified_diff()
        .context_radius(3)
        .header("/dev/null", &format!("nodepool/{name} (advised, new)"))
        .to_string()
}
