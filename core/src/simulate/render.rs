//! Renderings every front end shares byte for byte: the series as CSV and as Prometheus text.

use super::Simulation;
use std::fmt::Write;

/// Unix seconds as RFC 3339 UTC (`2025-03-05T12:00:00Z`); out of range: the number itself.
pub fn rfc3339(unix: i64) -> String {
    jiff::Timestamp::from_second(unix).map(|t| t.to_string()).unwrap_or_else(|_| unix.to_string())
}

fn labels_csv(m: &super::Metric) -> String {
    let mut pairs: Vec<(&String, &String)> = m.labels.iter().collect();
    pairs.sort();
    pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(";")
}

/// Long CSV: `timeSeconds,metric,labels,value`, one row per metric, label set and sample time
/// (metric-major, in the order of `series.metrics`).
pub fn render_series_csv(s: &Simulation) -> String {
    let mut out = String::from("timeSeconds,metric,labels,value\n");
    for m in &s.series.metrics {
        let labels = labels_csv(m);
        let quoted = if labels.contains(',') { format!("\"{}\"", labels.replace('"', "\"\"")) } else { labels };
        for (t, v) in s.series.times_seconds.iter().zip(&m.values) {
            let _ = writeln!(out, "{t},{},{quoted},{v}", m.name);
        }
    }
    out
}

fn help(name: &str) -> (&'static str, &'static str) {
    match name {
        "karpenter_nodepool_usage" => ("gauge", "Simulated resources held by the NodePool's nodes, by resource type."),
        "karpenter_nodepool_limit" => ("gauge", "Simulated NodePool limit, by resource type (absent when unlimited)."),
        "karpenter_nodes_allocatable" => ("gauge", "Simulated allocatable of initialized nodes, summed per NodePool."),
        "karpenter_nodeclaims_launched_total" => ("counter", "Simulated NodeClaim launches so far."),
        "karpenter_nodeclaims_terminated_total" => ("counter", "Simulated NodeClaim terminations so far, by reason."),
        "karpenter_scheduler_queue_depth" => ("gauge", "Simulated pending pods waiting for a node."),
        "nodecast_cost_usd_total" => ("counter", "Dollars spent on nodes since the start of the simulation."),
        "nodecast_capacity_reservation_used_instances" => {
            ("gauge", "Instances of the capacity reservation in use (TotalInstanceCount - AvailableInstanceCount), 0 while not active.")
        }
        "nodecast_capacity_reservation_instances" => ("gauge", "TotalInstanceCount of the capacity reservation while active, else 0."),
        "nodecast_workload_replicas" => ("gauge", "Replicas the workload's Scale asks for after each HPA sync (pods pending or running)."),
        "nodecast_workload_ready_replicas" => ("gauge", "Pods of the workload that are Ready (running past their readiness delay)."),
        "kube_horizontalpodautoscaler_status_desired_replicas" => ("gauge", "Desired replicas the simulated HPA controller computed."),
        "nodecast_demand" => ("gauge", "The trace's demand for the workload, by metric."),
        _ => ("gauge", "Dollars per hour of the live nodes."),
    }
}

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// Prometheus text exposition format (0.0.4), samples timestamped in milliseconds from the
/// trace start (or the default origin, docs/simulate.md).
pub fn render_series_prom(s: &Simulation) -> String {
    let mut out = String::new();
    let mut last = "";
    for m in &s.series.metrics {
        if m.name != last {
            let (kind, text) = help(&m.name);
            let _ = writeln!(out, "# HELP {} {text}", m.name);
            let _ = writeln!(out, "# TYPE {} {kind}", m.name);
            last = &m.name;
        }
        let labels = if m.labels.is_empty() {
            String::new()
        } else {
            format!("{{{}}}", m.labels.iter().map(|(k, v)| format!("{k}=\"{}\"", escape(v))).collect::<Vec<_>>().join(","))
        };
        for (t, v) in s.series.times_seconds.iter().zip(&m.values) {
            let _ = writeln!(out, "{}{labels} {v} {}", m.name, (s.origin + t) * 1000);
        }
    }
    out
}
