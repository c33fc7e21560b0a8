//! KEDA triggers (`spec.triggers` of a ScaledObject or ScaledJob, keda.sh/v1alpha1), read as
//! KEDA v2.21.0 reads them: the list rules of apis/keda/v1alpha1/scaletriggers_types.go
//! (ValidateTriggers) and, per scaler type, the metadata fields that set its target and its
//! activation threshold (pkg/scalers/*_scaler.go, the `keda:"name=..."` tags). Every modelled
//! scaler reports one number (a queue length, a lag, a query result) and is active when that
//! number is above its activation threshold; the trace's demand series stands for the number.
//! Other metadata (addresses, queries, credentials) only says where KEDA reads the number.

use serde_json::{Map, Value};

pub use super::kind::{Kind, Problem};

/// One modelled external scaler: its `type`, the metadata key of its target (and the default
/// when the scaler has one), of its activation threshold, and whether KEDA reads both as
/// integers (int64 fields) rather than floats.
struct Scaler {
    kind: &'static str,
    target: &'static str,
    target_default: Option<f64>,
    activation: &'static str,
    integer: bool,
}

/// pkg/scalers/prometheus_scaler.go, aws_sqs_queue_scaler.go, kafka_scaler.go, redis_scaler.go,
/// metrics_api_scaler.go, azure_queue_scaler.go, nats_jetstream_scaler.go.
const SCALERS: [Scaler; 7] = [
    Scaler { kind: "prometheus", target: "threshold", target_default: None, activation: "activationThreshold", integer: false },
    Scaler { kind: "aws-sqs-queue", target: "queueLength", target_default: Some(5.0), activation: "activationQueueLength", integer: true },
    Scaler { kind: "kafka", target: "lagThreshold", target_default: Some(10.0), activation: "activationLagThreshold", integer: true },
    Scaler { kind: "redis", target: "listLength", target_default: Some(5.0), activation: "activationListLength", integer: true },
    Scaler { kind: "metrics-api", target: "targetValue", target_default: None, activation: "activationTargetValue", integer: false },
    Scaler { kind: "azure-queue", target: "queueLength", target_default: Some(5.0), activation: "activationQueueLength", integer: true },
    Scaler {
        kind: "nats-jetstream",
        target: "lagThreshold",
        target_default: Some(10.0),
        activation: "activationLagThreshold",
        integer: true,
    },
];

/// GetMetricTargetType's ErrScalerUnsupportedUtilizationMetricType.
const UTILIZATION: &str = "'Utilization' metric type is unsupported for external metrics, allowed values are 'Value' or 'AverageValue'";

/// The scaler types nodecast models, for messages.
pub fn modelled() -> String {
    let mut names: Vec<&str> = SCALERS.iter().map(|s| s.kind).collect();
    names.extend(["rabbitmq", "cpu", "memory"]);
    names.join(", ")
}

#[derive(Debug, Clone, PartialEq)]
pub struct Trigger {
    /// `type`, e.g. `aws-sqs-queue`.
    pub scaler: String,
    /// The demand series it reads: the trigger's `name` when set, else its `type`.
    pub metric: String,
    pub kind: Kind,
    /// `spec.triggers[i]`.
    pub path: String,
}

impl Trigger {
    /// The scaler's activity for `value` (getScalerState: the scaler's own `value > activation`).
    pub fn active(&self, value: f64) -> bool {
        match &self.kind {
            Kind::External { activation, .. } => value > *activation,
            Kind::Resource { .. } => false,
        }
    }
}

/// `spec.triggers` of a ScaledObject (`job` false) or ScaledJob.
pub fn parse(v: Option<&Value>, job: bool, out: &mut Vec<Problem>) -> Vec<Trigger> {
    let err = |out: &mut Vec<Problem>, path: &str, code: &'static str, msg: String, help: &str| {
        out.push((path.to_string(), code, msg, help.to_string()));
    };
    let list = match v {
        Some(Value::Array(a)) if !a.is_empty() => a,
        Some(Value::Array(_)) | None | Some(Value::Null) => {
            // The CRD's MinItems=1 and ValidateTriggers: "no triggers defined".
            err(
                out,
                "spec.triggers",
                "required",
                "no triggers defined in the ScaledObject/ScaledJob".into(),
                "triggers: [{type: prometheus, metadata: {threshold: \"10\"}}]",
            );
            return Vec::new();
        }
        Some(_) => {
            err(out, "spec.triggers", "wrong-type", "triggers is a list".into(), "triggers: [{type: ..., metadata: {...}}]");
            return Vec::new();
        }
    };
    let mut triggers: Vec<Trigger> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for (i, t) in list.iter().enumerate() {
        let path = format!("spec.triggers[{i}]");
        let Value::Object(o) = t else {
            err(out, &path, "wrong-type", "a trigger is a mapping".into(), "{type: prometheus, metadata: {...}}");
            continue;
        };
        for k in o.keys() {
            if !["type", "name", "useCachedMetrics", "metadata", "authenticationRef", "metricType"].contains(&k.as_str()) {
                err(
                    out,
                    &format!("{path}.{k}"),
                    "unknown-field",
                    format!("unknown field {k:?}"),
                    "type, name, metadata, metricType, useCachedMetrics, authenticationRef",
                );
            }
        }
        let Some(kind) = o.get("type").and_then(Value::as_str).filter(|s| !s.is_empty()) else {
            err(out, &format!("{path}.type"), "required", "a trigger needs its scaler type".into(), &modelled());
            continue;
        };
        let name = match o.get("name") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.is_empty() => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                err(out, &format!("{path}.name"), "wrong-type", "name is a string".into(), "name: queue");
                None
            }
        };
        if let Some(n) = &name {
            if names.contains(n) {
                err(
                    out,
                    &format!("{path}.name"),
                    "duplicate-field",
                    format!("triggerName {n:?} is defined multiple times in the ScaledObject/ScaledJob, but it must be unique"),
                    "unique trigger names",
                );
            }
            names.push(n.clone());
        }
        let cached = o.get("useCachedMetrics").and_then(Value::as_bool).unwrap_or(false);
        if cached && matches!(kind, "cpu" | "memory" | "cron") {
            err(
                out,
                &format!("{path}.useCachedMetrics"),
                "invalid-value",
                format!("property \"useCachedMetrics\" is not supported for {kind:?} scaler"),
                "leave useCachedMetrics out",
            );
        }
        let metric_type = match o.get("metricType") {
            None | Some(Value::Null) => "",
            Some(Value::String(s)) if matches!(s.as_str(), "" | "AverageValue" | "Value" | "Utilization") => s.as_str(),
            Some(x) => {
                err(
                    out,
                    &format!("{path}.metricType"),
                    "unsupported-value",
                    format!("unsupported metricType {}", crate::manifest::reader::render_short(x)),
                    "AverageValue, Value, Utilization",
                );
                continue;
            }
        };
        let empty = Map::new();
        let meta = match o.get("metadata") {
            Some(Value::Object(m)) => m,
            None | Some(Value::Null) => &empty,
            Some(_) => {
                err(
                    out,
                    &format!("{path}.metadata"),
                    "wrong-type",
                    "metadata is a mapping of strings".into(),
                    "metadata: {threshold: \"10\"}",
                );
                continue;
            }
        };
        let mp = format!("{path}.metadata");
        let text = |k: &str, out: &mut Vec<Problem>| -> Option<String> {
            match meta.get(k) {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.trim().to_string()),
                Some(Value::Number(n)) => Some(n.to_string()),
                Some(_) => {
                    out.push((format!("{mp}.{k}"), "wrong-type", "trigger metadata values are strings".into(), format!("{k}: \"10\"")));
                    None
                }
            }
        };
        let trigger_kind = if kind == "cpu" || kind == "memory" {
            if job {
                // getScaledJobMetrics skips metric specs that are not External.
                err(
                    out,
                    &format!("{path}.type"),
                    "unsupported-value",
                    format!("a ScaledJob's {kind} trigger gives it no job count (KEDA reads only External metrics for ScaledJobs)"),
                    "a queue scaler",
                );
                continue;
            }
            let Some(value) = text("value", out) else {
                err(out, &format!("{mp}.value"), "required", format!("the {kind} scaler needs metadata.value"), "value: \"60\"");
                continue;
            };
            match metric_type {
                "Utilization" => match value.parse::<i32>() {
                    Ok(u) => Kind::Resource { resource: kind.into(), utilization: Some(u), average: None },
                    Err(_) => {
                        err(out, &format!("{mp}.value"), "invalid-value", format!("{value:?} is not a whole percent"), "value: \"60\"");
                        continue;
                    }
                },
                "AverageValue" => {
                    if crate::quantity::parse_milli(&value).is_err() {
                        err(
                            out,
                            &format!("{mp}.value"),
                            "invalid-quantity",
                            format!("{value:?} is not a quantity"),
                            crate::quantity::QUANTITY_HELP,
                        );
                        continue;
                    }
                    Kind::Resource { resource: kind.into(), utilization: None, average: Some(value) }
                }
                other => {
                    err(
                        out,
                        &format!("{path}.metricType"),
                        "unsupported-value",
                        format!("unknown metric type: {other}, allowed values are 'Utilization' or 'AverageValue'"),
                        "metricType: Utilization",
                    );
                    continue;
                }
            }
        } else if kind == "rabbitmq" {
            if metric_type == "Utilization" {
                err(out, &format!("{path}.metricType"), "unsupported-value", UTILIZATION.into(), "AverageValue or Value");
                continue;
            }
            match super::rabbitmq::parse(meta, &mp, metric_type == "Value", out) {
                Some(k) => k,
                None => continue,
            }
        } else {
            let Some(s) = SCALERS.iter().find(|s| s.kind == kind) else {
                err(
                    out,
                    &format!("{path}.type"),
                    "unsupported-value",
                    format!("the {kind:?} scaler is not modelled by nodecast"),
                    &format!("one of {}; any scaler that reports a number against a target behaves like prometheus", modelled()),
                );
                continue;
            };
            if metric_type == "Utilization" {
                // GetMetricTargetType: ErrScalerUnsupportedUtilizationMetricType.
                err(out, &format!("{path}.metricType"), "unsupported-value", UTILIZATION.into(), "AverageValue or Value");
                continue;
            }
            let num = |key: &str, default: Option<f64>, out: &mut Vec<Problem>| -> Option<f64> {
                let Some(t) = text(key, out) else {
                    if default.is_none() {
                        out.push((
                            format!("{mp}.{key}"),
                            "required",
                            format!("the {kind} scaler needs metadata.{key}"),
                            format!("{key}: \"10\""),
                        ));
                    }
                    return default;
                };
                let parsed =
                    if s.integer { t.parse::<i64>().ok().map(|n| n as f64) } else { t.parse::<f64>().ok().filter(|x| x.is_finite()) };
                if parsed.is_none() {
                    let what = if s.integer { "an integer" } else { "a number" };
                    out.push((format!("{mp}.{key}"), "invalid-value", format!("{t:?} is not {what}"), format!("{key}: \"10\"")));
                }
                parsed
            };
            let target = num(s.target, s.target_default, out);
            let activation = num(s.activation, Some(0.0), out);
            let (Some(target), Some(activation)) = (target, activation) else { continue };
            if matches!(kind, "kafka" | "nats-jetstream") && target <= 0.0 {
                err(out, &format!("{mp}.{}", s.target), "out-of-range", format!("{:?} must be positive number", s.target), "e.g. \"10\"");
                continue;
            }
            if activation < 0.0 && kind == "kafka" {
                err(
                    out,
                    &format!("{mp}.{}", s.activation),
                    "out-of-range",
                    format!("{:?} must be a non-negative number", s.activation),
                    "\"0\"",
                );
                continue;
            }
            Kind::External { target, activation, value: metric_type == "Value" }
        };
        triggers.push(Trigger { scaler: kind.to_string(), metric: name.unwrap_or_else(|| kind.to_string()), kind: trigger_kind, path });
    }
    triggers
}

/// A float target as the Quantity KEDA writes into the HPA (GetMetricTargetMili: `%.3f`).
pub fn quantity_text(x: f64) -> String {
    if !x.is_finite() || x < 0.0 {
        return "0".into();
    }
    format!("{x:.3}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scaler_defaults_activation_and_errors() {
        let mut p = Vec::new();
        let t = parse(
            Some(
                &json!([{"type": "aws-sqs-queue", "metadata": {"queueURL": "x"}}, {"type": "prometheus", "name": "rps", "metadata": {"threshold": "12.5", "activationThreshold": "3"}}]),
            ),
            false,
            &mut p,
        );
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(t[0].kind, Kind::External { target: 5.0, activation: 0.0, value: false });
        assert_eq!((t[0].metric.as_str(), t[1].metric.as_str()), ("aws-sqs-queue", "rps"));
        assert!(!t[1].active(3.0) && t[1].active(3.01));
        let mut p = Vec::new();
        parse(
            Some(
                &json!([{"type": "cron", "metadata": {}}, {"type": "prometheus", "metadata": {}}, {"type": "kafka", "metadata": {"lagThreshold": "1.5"}}]),
            ),
            false,
            &mut p,
        );
        let paths: Vec<&str> = p.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(paths, ["spec.triggers[0].type", "spec.triggers[1].metadata.threshold", "spec.triggers[2].metadata.lagThreshold"]);
        let mut p = Vec::new();
        parse(
            Some(&json!([{"type": "redis", "name": "a", "metadata": {}}, {"type": "redis", "name": "a", "metadata": {}}])),
            false,
            &mut p,
        );
        assert_eq!(p[0].1, "duplicate-field");
        let mut p = Vec::new();
        parse(Some(&json!([])), false, &mut p);
        assert_eq!(p[0].0, "spec.triggers");
        let mut p = Vec::new();
        parse(Some(&json!([{"type": "cpu", "metadata": {"value": "60"}}])), false, &mut p);
        assert_eq!(p[0].0, "spec.triggers[0].metricType");
        let mut p = Vec::new();
        parse(Some(&json!([{"type": "cpu", "metricType": "Utilization", "metadata": {"value": "60"}}])), true, &mut p);
        assert_eq!(p[0].0, "spec.triggers[0].type");
    }

    #[test]
    fn targets_are_written_with_three_decimals() {
        assert_eq!(quantity_text(12.5), "12.500");
        assert_eq!(quantity_text(0.0004), "0.000");
    }
}
