//! `simulate`: a discrete-event simulation of Karpenter over a workload trace (docs/simulate.md).
//!
//! The simulator owns time and lifecycles only. Every provisioning decision is the `plan` pass
//! (`scheduling::solve_pods` + `launch::finalize_claims`) on the current state; every disruption decision is
//! the `consolidate` pass (`disruption::decide`) at the simulated `now`. The model is lowered once;
//! pods and nodes are then added to and removed from it in place as the clock advances.

mod engine;
mod metrics;
mod nodes;
mod render;
pub mod rng;
pub mod settings;
mod sim;
mod state;
mod summary;
pub mod trace;
mod workloads;

use crate::api::Warning;
use crate::error::InputError;
use crate::load::Sources;
use crate::model::Skipped;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

pub use render::{render_series_csv, render_series_prom};
pub use settings::{SecondsRange, SimSettings};

/// The trace of a `simulate` request.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceInput {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub text: String,
    /// `auto` (default), `yaml`, `json` or `csv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
}

/// The answer of `simulate` (`kind: Simulation`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Simulation {
    /// RFC 3339 start, when the trace gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    pub seed: u64,
    pub settings: SimSettings,
    pub summary: Summary,
    pub nodes: Vec<NodeOut>,
    pub pods: Vec<PodOut>,
    pub timeline: Vec<TimelineEntry>,
    pub series: Series,
    pub warnings: Vec<Warning>,
    pub skipped: Vec<Skipped>,
    /// Unix seconds of time 0 (the trace start or the default origin); used by the Prometheus
    /// renderer for sample timestamps.
    #[serde(skip)]
    pub origin: i64,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub duration_seconds: i64,
    pub cost_usd: f64,
    pub static_cost_usd: f64,
    pub savings_usd: f64,
    pub savings_percent: f64,
    pub static_cluster: Vec<StaticNodes>,
    pub gpu_hours_paid: f64,
    pub gpu_hours_used: f64,
    pub gpu_utilization: f64,
    pub empty_node_cost_usd: f64,
    pub empty_node_seconds: i64,
    pub pending_seconds: Percentiles,
    pub work_lost_seconds: i64,
    pub pods: PodCounts,
    pub launches: Launches,
    pub disruptions: Disruptions,
    pub nodes_alive_at_end: usize,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StaticNodes {
    pub node_pool: String,
    pub instance_type: String,
    #[cfg_attr(feature = "schema", schemars(with = "crate::reason::CapacityType"))]
    pub capacity_type: String,
    pub count: usize,
    pub price_per_hour_usd: f64,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Percentiles {
    pub p50: i64,
    pub p95: i64,
    pub max: i64,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PodCounts {
    pub submitted: usize,
    pub finished: usize,
    pub running: usize,
    pub pending: usize,
    pub deleted: usize,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Launches {
    pub total: usize,
    pub by_node_pool: IndexMap<String, usize>,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Disruptions {
    pub total: usize,
    pub by_reason: IndexMap<String, usize>,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeOut {
    pub name: String,
    pub node_pool: Option<String>,
    pub instance_type: Option<String>,
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::reason::CapacityType>"))]
    pub capacity_type: Option<String>,
    pub zone: Option<String>,
    pub price_per_hour_usd: f64,
    pub gpus: i64,
    pub launched_seconds: i64,
    pub registered_seconds: Option<i64>,
    pub initialized_seconds: Option<i64>,
    pub terminated_seconds: Option<i64>,
    pub lifetime_seconds: i64,
    pub cost_usd: f64,
    pub empty_cost_usd: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::vocab::TerminationReason>"))]
    pub termination_reason: Option<String>,
    pub pods: usize,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodOut {
    pub name: String,
    pub workload: String,
    pub submitted_seconds: i64,
    pub started_seconds: Option<i64>,
    pub finished_seconds: Option<i64>,
    #[cfg_attr(feature = "schema", schemars(with = "crate::vocab::PodState"))]
    pub state: String,
    pub pending_seconds: i64,
    pub run_time_seconds: Option<i64>,
    pub running_seconds: i64,
    pub work_lost_seconds: i64,
    pub restarts: u32,
    pub nodes: Vec<String>,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TimelineEntry {
    pub time_seconds: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    #[cfg_attr(feature = "schema", schemars(with = "crate::vocab::TimelineEvent"))]
    pub event: &'static str,
    pub object: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Series {
    pub interval_seconds: i64,
    pub times_seconds: Vec<i64>,
    pub metrics: Vec<Metric>,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metric {
    pub name: String,
    pub labels: IndexMap<String, String>,
    pub values: Vec<f64>,
}

/// Replay `trace` over the cluster of `req` with `settings` (defaults when `None`). The trace
/// is checked first, then the cluster is loaded with the trace's inline manifests.
pub fn simulate(req: &Sources, trace: Option<&TraceInput>, settings: Option<&SimSettings>) -> Result<Simulation, Vec<InputError>> {
    simulate_loaded(req, None, trace, settings)
}

/// [`simulate`] with the model of `req` already lowered (see `workloads::prepare`).
pub(crate) fn simulate_loaded(
    req: &Sources,
    loaded: Option<(&crate::model::Model, &[Warning])>,
    trace: Option<&TraceInput>,
    settings: Option<&SimSettings>,
) -> Result<Simulation, Vec<InputError>> {
    let Some(t) = trace else {
        return Err(vec![InputError::new("required", "simulate needs a workload trace")
            .path("trace")
            .help("{\"trace\": {\"name\": \"week.yaml\", \"text\": \"...\"}} (--trace on the CLI); docs/simulate.md")]);
    };
    let settings = settings.cloned().unwrap_or_default();
    settings.check()?;
    let trace = trace::parse(&t.text, t.name.as_deref(), t.format.as_deref().unwrap_or("auto"))?;
    let prepared = workloads::prepare(req, loaded, &trace, t.name.as_deref())?;
    engine::run(prepared, &trace, settings)
}
