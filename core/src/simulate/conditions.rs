//! Node condition events (`{at: 2h, condition: {node: gpu-1, type: AcceleratedHardwareReady,
//! status: "False", reason: NvidiaXID79Error}}`): a live NodeClaim's Node reports a condition
//! from `at` on, as the kubelet or the Node Monitoring Agent would. The disruption passes then
//! see it as `consolidate` does: with the NodeRepair gate, Karpenter's Repair method replaces
//! the node once its policy's toleration has passed (disruption/repair.rs); without it, nothing.
//! This file parses the event; `node_conditions.rs` applies it.

use serde_json::Value;

/// A parsed condition event.
#[derive(Debug, Clone, PartialEq)]
pub struct ConditionEvent {
    pub node: String,
    pub type_: String,
    pub status: String,
    pub reason: String,
}

/// What is wrong with a `condition` value: (field path, code, message, help).
pub type ParseError = (String, &'static str, String, &'static str);

const HELP: &str = "condition: {node: gpu-training-1, type: AcceleratedHardwareReady, status: \"False\", reason: NvidiaXID79Error}";

/// Read the `condition` mapping at `path` (every problem reported, located).
pub fn parse(v: &Value, path: &str) -> Result<ConditionEvent, Vec<ParseError>> {
    let Value::Object(o) = v else {
        return Err(vec![(path.to_string(), "wrong-type", "condition is a mapping {node, type, status, reason}".into(), HELP)]);
    };
    let mut errors = Vec::new();
    for k in o.keys().filter(|k| !["node", "type", "status", "reason"].contains(&k.as_str())) {
        errors.push((format!("{path}.{k}"), "unknown-field", format!("unknown field {k:?}"), "node, type, status, reason"));
    }
    let mut field = |k: &str, required: bool| match o.get(k) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::String(_)) if !required => Some(String::new()),
        None if !required => Some(String::new()),
        None => {
            errors.push((format!("{path}.{k}"), "required", format!("condition needs {k}"), HELP));
            None
        }
        Some(other) => {
            let shown = crate::manifest::reader::render_short(other);
            errors.push((format!("{path}.{k}"), "wrong-type", format!("{k} must be a non-empty string, found {shown}"), HELP));
            None
        }
    };
    let (node, type_, status, reason) = (field("node", true), field("type", true), field("status", true), field("reason", false));
    if let Some(s) = status.as_deref().filter(|s| !["True", "False", "Unknown"].contains(s)) {
        // A Node condition's status is one of these three (core/v1 ConditionStatus).
        errors.push((
            format!("{path}.status"),
            "unsupported-value",
            format!("status {s:?} is not a condition status"),
            "True, False or Unknown",
        ));
    }
    match (node, type_, status, reason) {
        (Some(node), Some(type_), Some(status), Some(reason)) if errors.is_empty() => Ok(ConditionEvent { node, type_, status, reason }),
        _ => Err(errors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_is_located() {
        let v: Value = serde_json::json!({"node": "a", "type": "Ready", "status": "Bad", "colour": 1});
        let e = parse(&v, "events[0].condition").unwrap_err();
        let paths: Vec<&str> = e.iter().map(|e| e.0.as_str()).collect();
        assert_eq!(paths, ["events[0].condition.colour", "events[0].condition.status"]);
        let e = parse(&serde_json::json!({"type": 3, "status": "False"}), "c").unwrap_err();
        assert_eq!(e.iter().map(|e| e.1).collect::<Vec<_>>(), ["required", "wrong-type"]);
        let ok = parse(&serde_json::json!({"node": "a", "type": "KernelReady", "status": "False"}), "c").unwrap();
        assert_eq!(ok.reason, "");
    }
}
