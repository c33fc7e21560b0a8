//! One answer → the metric cells of its row. Defined once here so the CLI's CSV and Python's
//! DataFrame carry the same columns and the same numbers.

use super::Operation;
use crate::api::{Decision, Plan};
use crate::json::{Answer, Outcome};
use crate::simulate::Simulation;
use serde_json::{json, Value};

const SIMULATE: [&str; 36] = [
    "cost_usd",
    "cost_per_hour_usd",
    "static_cost_usd",
    "savings_percent",
    "gpu_hours_paid",
    "gpu_hours_used",
    "gpu_utilization",
    "empty_node_cost_usd",
    "pending_p50_s",
    "pending_p95_s",
    "pending_max_s",
    "work_lost_s",
    "pods_submitted",
    "pods_finished",
    "pods_pending_at_end",
    "unschedulable_pods",
    "launches",
    "disruptions",
    "disrupted_empty",
    "disrupted_underutilized",
    "disrupted_expired",
    "disrupted_interrupted",
    "nodes_alive_at_end",
    "duration_s",
    "warnings",
    "reserved_committed_cost_usd",
    "total_cost_with_reservations_usd",
    "disrupted_capacity_block_expiring",
    // The scaling axis (HPA, KEDA, demand series; docs/simulate.md): sums and worst cases over
    // the answer's `autoscaling` rows, so a grid over `spec.maxReplicas` or a ScaledObject's
    // pollingInterval reads as one row per combination.
    "autoscaled_workloads",
    "autoscaled_replica_hours",
    "served_percent",
    "unserved_unit_hours",
    "seconds_short",
    "scale_up_p95_s",
    "scale_up_max_s",
    "autoscaled_gpu_cost_usd",
];

const PLAN: [&str; 7] =
    ["price_per_hour_usd", "node_claims", "gpus", "pods_on_new_nodes", "pods_on_existing_nodes", "unschedulable_pods", "warnings"];

const CONSOLIDATE: [&str; 7] =
    ["decision", "reason", "disrupted_nodes", "price_per_hour_before_usd", "price_per_hour_after_usd", "savings_per_hour_usd", "warnings"];

pub fn columns(op: Operation) -> &'static [&'static str] {
    match op {
        Operation::Plan => &PLAN,
        Operation::Consolidate => &CONSOLIDATE,
        Operation::Simulate => &SIMULATE,
    }
}

/// One sample cell of each metric column of `op`, of the JSON type every successful row holds
/// there (an integer count, a float of dollars or a fraction, a string), so a front end writing a
/// typed table (the CLI's Parquet) knows each column's type before the first row is computed.
/// `tests::metric_cells_have_the_sample_types` checks real rows against these.
pub fn samples(op: Operation) -> Vec<Value> {
    let (types, n) = match op {
        Operation::Plan => ("fiiiiii", PLAN.len()),
        Operation::Consolidate => ("ssifffi", CONSOLIDATE.len()),
        Operation::Simulate => ("ffffffffiiiiiiiiiiiiiiiiiffiifffiiif", SIMULATE.len()),
    };
    debug_assert_eq!(types.len(), n);
    types
        .chars()
        .map(|t| match t {
            'f' => json!(0.5),
            'i' => json!(0),
            _ => json!(""),
        })
        .collect()
}

/// Is `name` a metric column of any operation (so a grid dimension cannot take it)?
pub fn is_metric(name: &str) -> bool {
    [&SIMULATE[..], &PLAN[..], &CONSOLIDATE[..]].iter().any(|cols| cols.contains(&name))
}

/// Dollars, rounded like the answers round them (1e-6), without a negative zero.
fn usd(x: f64) -> f64 {
    (x * 1e6).round() / 1e6 + 0.0
}

pub fn simulation(s: &Simulation) -> Vec<Value> {
    let m = &s.summary;
    let hours = m.duration_seconds as f64 / 3600.0;
    let reason = |r: &str| m.disruptions.by_reason.get(r).copied().unwrap_or(0);
    let mut unschedulable: Vec<&str> =
        s.timeline.iter().filter(|t| t.event == crate::vocab::TimelineEvent::PodUnschedulable).map(|t| t.object.as_str()).collect();
    unschedulable.sort_unstable();
    unschedulable.dedup();
    vec![
        json!(m.cost_usd),
        json!(if hours > 0.0 { usd(m.cost_usd / hours) } else { 0.0 }),
        json!(m.static_cost_usd),
        json!(m.savings_percent),
        json!(m.gpu_hours_paid),
        json!(m.gpu_hours_used),
        json!(m.gpu_utilization),
        json!(m.empty_node_cost_usd),
        json!(m.pending_seconds.p50),
        json!(m.pending_seconds.p95),
        json!(m.pending_seconds.max),
        json!(m.work_lost_seconds),
        json!(m.pods.submitted),
        json!(m.pods.finished),
        json!(m.pods.pending),
        json!(unschedulable.len()),
        json!(m.launches.total),
        json!(m.disruptions.total),
        json!(reason("empty")),
        json!(reason("underutilized")),
        json!(reason("expired")),
        json!(reason("interrupted")),
        json!(m.nodes_alive_at_end),
        json!(m.duration_seconds),
        json!(s.warnings.len()),
        // Without reservations nothing is committed: 0, and the total is the node cost.
        json!(m.reserved_committed_cost_usd.unwrap_or(0.0)),
        json!(m.total_cost_with_reservations_usd.unwrap_or(m.cost_usd)),
        json!(reason("capacity-block-expiring")),
    ]
    .into_iter()
    .chain(autoscaling(&s.autoscaling))
    .collect()
}

/// The autoscaling cells: the number of rows, Σ replica-hours and GPU cost; over the rows with a
/// `capacityPerReplica` the served percent of their total demand (null when none has one), Σ
/// unserved unit-hours and seconds short; the worst p95 and max scale-up (null without rises).
fn autoscaling(rows: &[crate::simulate::AutoscaledWorkload]) -> Vec<Value> {
    let sum = |f: &dyn Fn(&crate::simulate::AutoscaledWorkload) -> Option<f64>| rows.iter().filter_map(f).sum::<f64>();
    let demand = sum(&|w| w.demand_unit_hours);
    let served = sum(&|w| w.served_unit_hours);
    let measured = rows.iter().any(|w| w.demand_unit_hours.is_some());
    let served_percent = match (measured, demand > 0.0) {
        (false, _) => Value::Null,
        // No demand at all is fully served.
        (true, false) => json!(100.0),
        // One decimal, as each row's servedPercent.
        (true, true) => json!((served / demand * 1000.0).round() / 10.0),
    };
    let worst = |f: &dyn Fn(&crate::simulate::Percentiles) -> i64| {
        rows.iter().filter_map(|w| w.scale_up_seconds.as_ref().map(f)).max().map_or(Value::Null, |v| json!(v))
    };
    vec![
        json!(rows.len()),
        json!(usd(sum(&|w| Some(w.replica_hours)))),
        served_percent,
        if measured { json!(usd(sum(&|w| w.unserved_unit_hours))) } else { Value::Null },
        if measured { json!(rows.iter().filter_map(|w| w.seconds_short).sum::<i64>()) } else { Value::Null },
        worst(&|p| p.p95),
        worst(&|p| p.max),
        json!(usd(sum(&|w| Some(w.gpu_cost_usd)))),
    ]
}

/// Whole devices of a quantity string (`"8"`); other forms count 0.
fn devices(q: Option<&String>) -> i64 {
    q.and_then(|s| s.parse::<i64>().ok()).unwrap_or(0)
}

pub fn plan(p: &Plan) -> Vec<Value> {
    let gpus: i64 = p.node_claims.iter().map(|c| devices(c.allocatable.get("nvidia.com/gpu"))).sum();
    vec![
        json!(p.total_price_per_hour),
        json!(p.node_claims.len()),
        json!(gpus),
        json!(p.node_claims.iter().map(|c| c.pods.len()).sum::<usize>()),
        json!(p.existing_nodes.iter().map(|n| n.pods.len()).sum::<usize>()),
        json!(p.unschedulable.len()),
        json!(p.warnings.len()),
    ]
}

pub fn decision(d: &Decision) -> Vec<Value> {
    vec![
        json!(d.decision),
        json!(d.reason),
        json!(d.disrupted_nodes.len()),
        json!(d.price_per_hour_before),
        json!(d.price_per_hour_after),
        json!(usd(d.price_per_hour_before - d.price_per_hour_after)),
        json!(d.warnings.len()),
    ]
}

/// `status` and `error` cells plus the metrics; a failure has null metrics.
pub fn cells<T>(answer: &Answer<T>, metrics: impl FnOnce(&T) -> Vec<Value>, n: usize) -> Vec<Value> {
    match &answer.outcome {
        Outcome::Success(body) => {
            let mut row = vec![json!("success"), Value::Null];
            row.extend(metrics(body));
            row
        }
        Outcome::Failure { errors } => failure(&errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "), n),
    }
}

pub fn failure(message: &str, n: usize) -> Vec<Value> {
    let mut row = vec![json!("failure"), json!(message)];
    row.resize(2 + n, Value::Null);
    row
}
