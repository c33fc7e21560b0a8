//! The `rabbitmq` scaler as KEDA v2.21.0 reads it (pkg/scalers/rabbitmq_scaler.go,
//! rabbitMQMetadata.Validate and validateTrigger): in `QueueLength` mode it reports the queue's
//! message count against `value` (an AverageValue target written `%.3f`, as every external
//! scaler's) and is active when the count is above `activationValue` — the trace's series stands
//! for the count, as for `aws-sqs-queue`. The rate modes (`MessageRate`, `DeliverGetRate`,
//! `PublishedToDeliveredRatio`, `ExpectedQueueConsumptionTime`) combine two or three numbers
//! RabbitMQ's HTTP API reports; one series cannot stand for them, so they are refused.

use super::kind::{Kind, Problem};
use serde_json::{Map, Value};

/// validateTrigger's default when neither `mode`, `value` nor `queueLength` is given.
const DEFAULT_QUEUE_LENGTH: f64 = 20.0;
const MODES: [&str; 5] = ["QueueLength", "MessageRate", "DeliverGetRate", "PublishedToDeliveredRatio", "ExpectedQueueConsumptionTime"];

/// One metadata value as text (KEDA's typed config reads strings; numbers are accepted).
fn text(meta: &Map<String, Value>, mp: &str, k: &str, out: &mut Vec<Problem>) -> Option<String> {
    match meta.get(k) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => Some(s.trim().to_string()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(_) => {
            out.push((format!("{mp}.{k}"), "wrong-type", "trigger metadata values are strings".into(), format!("{k}: \"10\"")));
            None
        }
    }
}

/// A float field (strconv.ParseFloat); absent is 0, as the Go zero value.
fn float(meta: &Map<String, Value>, mp: &str, k: &str, out: &mut Vec<Problem>) -> Option<f64> {
    let Some(t) = text(meta, mp, k, out) else { return Some(0.0) };
    let parsed = t.parse::<f64>().ok().filter(|x| x.is_finite());
    if parsed.is_none() {
        out.push((format!("{mp}.{k}"), "invalid-value", format!("{t:?} is not a number"), format!("{k}: \"10\"")));
    }
    parsed
}

/// The trigger's target and activation, or the problems KEDA (or nodecast) reports.
pub fn parse(meta: &Map<String, Value>, mp: &str, value_type: bool, out: &mut Vec<Problem>) -> Option<Kind> {
    let before = out.len();
    let req = |k: &str, example: &str, out: &mut Vec<Problem>| {
        if text(meta, mp, k, out).is_none() {
            out.push((format!("{mp}.{k}"), "required", format!("the rabbitmq scaler needs metadata.{k}"), format!("{k}: {example}")));
        }
    };
    req("queueName", "orders", out);
    // `hostFromEnv` names a container environment variable KEDA resolves: its scheme is unknown here.
    if text(meta, mp, "hostFromEnv", out).is_none() {
        req("host", "amqp://rabbitmq.default:5672/", out);
    }
    let protocol = text(meta, mp, "protocol", out).unwrap_or_else(|| "auto".into());
    let mut http = protocol == "http";
    if !matches!(protocol.as_str(), "amqp" | "http" | "auto") {
        out.push((
            format!("{mp}.protocol"),
            "unsupported-value",
            format!("the protocol has to be either `amqp`, `http`, or `auto` but is `{protocol}`"),
            "amqp, http or auto".into(),
        ));
    } else if protocol == "auto" {
        // Validate: with `auto` the host's URL scheme decides.
        if let Some(host) = text(meta, mp, "host", out) {
            let scheme = host.split_once("://").map_or("", |(s, _)| s);
            match scheme {
                "amqp" | "amqps" => {}
                "http" | "https" => http = true,
                _ => out.push((
                    format!("{mp}.host"),
                    "invalid-value",
                    format!("unknown host URL scheme: `{scheme}`"),
                    "amqp://, amqps://, http:// or https://".into(),
                )),
            }
        }
    }
    for k in ["useRegex", "excludeUnacknowledged"] {
        if let Some(t) = text(meta, mp, k, out) {
            match t.as_str() {
                // strconv.ParseBool's spellings.
                "1" | "t" | "T" | "TRUE" | "true" | "True" if !http => out.push((
                    format!("{mp}.{k}"),
                    "invalid-value",
                    format!("configure {k}=true only with HTTP protocol"),
                    "protocol: http".into(),
                )),
                "1" | "t" | "T" | "TRUE" | "true" | "True" | "0" | "f" | "F" | "FALSE" | "false" | "False" => {}
                _ => out.push((format!("{mp}.{k}"), "invalid-value", format!("{t:?} is not a boolean"), format!("{k}: \"true\""))),
            }
        }
    }
    if let Some(t) = text(meta, mp, "pageSize", out) {
        if t.parse::<i64>().map_or(true, |n| n < 1) {
            out.push((format!("{mp}.pageSize"), "invalid-value", "pageSize should be 1 or greater".into(), "pageSize: \"100\"".into()));
        }
    }
    let queue_length = float(meta, mp, "queueLength", out)?;
    let value = float(meta, mp, "value", out)?;
    let activation = float(meta, mp, "activationValue", out)?;
    let mode = text(meta, mp, "mode", out);
    let target = match (queue_length != 0.0, mode.as_deref(), value != 0.0) {
        (false, None, false) => DEFAULT_QUEUE_LENGTH,
        (true, Some(_), _) | (true, _, true) => {
            out.push((
                format!("{mp}.queueLength"),
                "invalid-value",
                "queueLength is deprecated; use mode and value".into(),
                "mode: QueueLength, value: \"20\"".into(),
            ));
            return None;
        }
        (true, None, false) => queue_length,
        (false, None, true) => {
            out.push((format!("{mp}.mode"), "required", "mode must be specified".into(), "mode: QueueLength".into()));
            return None;
        }
        (false, Some(_), false) => {
            out.push((format!("{mp}.value"), "required", "value must be specified".into(), "value: \"20\"".into()));
            return None;
        }
        (false, Some(m), true) if !MODES.contains(&m) => {
            out.push((
                format!("{mp}.mode"),
                "unsupported-value",
                format!("trigger mode {m} must be one of {}", MODES.join(", ")),
                "mode: QueueLength".into(),
            ));
            return None;
        }
        (false, Some("QueueLength"), true) => value,
        (false, Some(m), true) => {
            let msg = if http {
                format!("rabbitmq mode {m} is not modelled by nodecast: it combines RabbitMQ's message rates, which one demand series cannot stand for")
            } else {
                // Validate has resolved `auto` from the host's scheme by then.
                format!("protocol amqp not supported; must be HTTP to use trigger mode {m}")
            };
            out.push((
                format!("{mp}.mode"),
                "unsupported-value",
                msg,
                "mode: QueueLength (the series is the queue's message count)".into(),
            ));
            return None;
        }
    };
    (out.len() == before).then_some(Kind::External { target, activation, value: value_type })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(meta: Value) -> (Option<Kind>, Vec<String>) {
        let mut out = Vec::new();
        let Value::Object(m) = meta else { unreachable!() };
        let k = parse(&m, "spec.triggers[0].metadata", false, &mut out);
        (k, out.into_iter().map(|p| format!("{} {}", p.0, p.2)).collect())
    }

    const HOST: &str = "amqp://guest:password@localhost:5672/vhost";

    #[test]
    fn queue_length_mode_targets_and_activation() {
        // rabbitmq_scaler_test.go TestParseDefaultQueueLength: the default is QueueLength 20.
        let (k, p) = run(json!({"queueName": "sample", "host": HOST}));
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(k, Some(Kind::External { target: 20.0, activation: 0.0, value: false }));
        let (k, _) = run(json!({"queueName": "sample", "host": HOST, "mode": "QueueLength", "value": "1000", "activationValue": "5.5"}));
        assert_eq!(k, Some(Kind::External { target: 1000.0, activation: 5.5, value: false }));
        // The deprecated queueLength alone is still QueueLength mode.
        let (k, _) = run(json!({"queueName": "sample", "host": HOST, "queueLength": "7"}));
        assert_eq!(k, Some(Kind::External { target: 7.0, activation: 0.0, value: false }));
    }

    /// rabbitmq_scaler_test.go testRabbitMQMetadata, the rows about the fields nodecast reads
    /// (host, queueName, protocol, mode, value, queueLength): whether KEDA refuses each.
    #[test]
    fn keda_metadata_table() {
        let rows = [
            (json!({}), true),
            (json!({"queueLength": "10", "queueName": "sample", "hostFromEnv": "H"}), false),
            (json!({"queueLength": "AA", "queueName": "sample", "hostFromEnv": "H"}), true),
            (json!({"queueLength": "AA", "queueName": "sample"}), true),
            (json!({"queueLength": "10", "hostFromEnv": "H"}), true),
            (json!({"queueLength": "10", "queueName": "sample", "host": HOST, "protocol": "http"}), false),
            (json!({"queueName": "sample", "host": "something://"}), true),
            (json!({"queueName": "sample", "host": "http://"}), false),
            (json!({"queueName": "sample", "host": "https://"}), false),
            (json!({"queueLength": "10", "mode": "QueueLength", "queueName": "sample", "host": "https://"}), true),
            (json!({"queueLength": "10", "value": "20", "queueName": "sample", "host": "https://"}), true),
            (json!({"mode": "QueueLength", "queueName": "sample", "host": "https://"}), true),
            (json!({"value": "20", "queueName": "sample", "host": "https://"}), true),
            (json!({"mode": "QueueLength", "value": "20", "queueName": "sample", "host": "https://"}), false),
            (json!({"mode": "Feelings", "value": "20", "queueName": "sample", "host": "https://"}), true),
            (json!({"mode": "QueueLength", "value": "lots", "queueName": "sample", "host": "https://"}), true),
            (json!({"mode": "QueueLength", "value": "20", "queueName": "sample", "host": "amqps://"}), false),
            (json!({"mode": "MessageRate", "value": "1000", "queueName": "sample", "host": "amqps://"}), true),
        ];
        for (meta, refused) in rows {
            let (k, p) = run(meta.clone());
            assert_eq!(k.is_none(), refused, "{meta}: {p:?}");
            assert_eq!(p.is_empty(), !refused, "{meta}: {p:?}");
        }
    }

    #[test]
    fn keda_refusals_are_located() {
        let cases = [
            (
                json!({"queueName": "q", "host": HOST, "queueLength": "10", "mode": "QueueLength", "value": "5"}),
                "metadata.queueLength queueLength is deprecated",
            ),
            (json!({"queueName": "q", "host": HOST, "value": "5"}), "metadata.mode mode must be specified"),
            (json!({"queueName": "q", "host": HOST, "mode": "QueueLength"}), "metadata.value value must be specified"),
            (json!({"queueName": "q", "host": HOST, "mode": "Queue", "value": "5"}), "metadata.mode trigger mode Queue must be one of"),
            (json!({"queueName": "q", "host": HOST, "mode": "MessageRate", "value": "5"}), "metadata.mode protocol amqp not supported"),
            (
                json!({"queueName": "q", "host": "http://rabbit:15672/", "mode": "MessageRate", "value": "5"}),
                "metadata.mode rabbitmq mode MessageRate is not modelled",
            ),
            (json!({"host": HOST}), "metadata.queueName the rabbitmq scaler needs"),
            (json!({"queueName": "q", "host": "rabbit:5672"}), "metadata.host unknown host URL scheme"),
            (json!({"queueName": "q", "host": HOST, "protocol": "amqps"}), "metadata.protocol the protocol has to be"),
            (json!({"queueName": "q", "host": HOST, "useRegex": "true"}), "metadata.useRegex configure useRegex=true only with HTTP"),
            (json!({"queueName": "q", "host": HOST, "pageSize": "0"}), "metadata.pageSize pageSize should be 1"),
            (json!({"queueName": "q", "host": HOST, "value": "x", "mode": "QueueLength"}), "metadata.value \"x\" is not a number"),
        ];
        for (meta, want) in cases {
            let (k, p) = run(meta.clone());
            assert!(k.is_none() && p.iter().any(|m| m.starts_with(&format!("spec.triggers[0].{want}"))), "{meta}: {p:?}");
        }
    }
}
