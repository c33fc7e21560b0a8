//! `simulate`: a discrete-event simulation of Karpenter over a workload trace (docs/simulate.md).
//!
//! The simulator owns time and lifecycles only. Every provisioning decision is the `plan` pass
//! (`scheduling::solve_pods` + `launch::finalize_claims`) on the current state; every disruption decision is
//! the `consolidate` pass (`disruption::decide`) at the simulated `now`. The model is lowered once;
//! pods and nodes are then added to and removed from it in place as the clock advances.

mod autoscale;
mod buffers;
#[cfg(feature = "cluster-autoscaler")]
pub(crate) mod ca_loop;
#[cfg(feature = "cluster-autoscaler")]
mod ca_state;
mod conditions;
mod demand;
mod duration;
mod edits;
mod engine;
mod hpa;
mod jobs;
mod keda;
mod keda_loop;
mod metrics;
mod node_conditions;
mod nodes;
mod render;
mod requeue;
mod res_notice;
mod reservations;
pub(crate) mod rng;
mod sequence;
pub mod settings;
mod sim;
mod state;
mod static_nodes;
mod summary;
pub(crate) mod trace;
mod validation;
mod workloads;

use crate::api::Warning;
use crate::error::InputError;
use crate::load::Sources;
use crate::model::Skipped;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

pub use autoscale::AutoscaledWorkload;
pub use hpa::{replay as replay_hpa, ReplayPod, ReplaySync};
pub use keda::job::{replay as replay_scaled_job, ReplayTrigger as ScaledJobReplayTrigger};
pub use render::{render_series_csv, render_series_prom, rfc3339};
pub use sequence::consolidation_sequence;
pub use settings::{SecondsRange, SimSettings};

/// The trace of a `simulate` request.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceInput {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The trace's file name, quoted in error locations and used to guess its format.
    pub name: Option<String>,
    /// The trace itself: YAML, JSON or CSV events (docs/simulate.md).
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
    /// The seed every random draw derives from; the same seed replays the same run.
    pub seed: u64,
    /// Every setting as resolved (defaults filled in), so a run can be reproduced from the answer.
    pub settings: SimSettings,
    /// Totals over the whole run: cost, savings against a static cluster, GPU hours, pod waits.
    pub summary: Summary,
    /// Every NodeClaim the run launched, with its lifecycle times and cost.
    pub nodes: Vec<NodeOut>,
    /// Every pod the trace submitted, with its waits, run time and outcome.
    pub pods: Vec<PodOut>,
    /// Every event in time order (pod and NodeClaim lifecycle steps).
    pub timeline: Vec<TimelineEntry>,
    /// Karpenter's metrics sampled at a fixed interval.
    pub series: Series,
    /// Non-fatal findings about the input or the trace.
    pub warnings: Vec<Warning>,
    /// Objects the loader recognised but does not model (kind/name and why).
    pub skipped: Vec<Skipped>,
    /// Per capacity reservation of the input: its use over the run and what it commits
    /// (docs/reservations.md, "In the simulator"). Absent without reservations.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reservations: Vec<ReservationUse>,
    /// Per workload an HPA scales or the trace gives demand for: replicas, served demand,
    /// scale-up times and GPU cost (docs/simulate.md, "Demand and autoscaling"). Absent without.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub autoscaling: Vec<AutoscaledWorkload>,
    /// Unix seconds of time 0 (the trace start or the default origin); used by the Prometheus
    /// renderer for sample timestamps.
    #[serde(skip)]
    pub origin: i64,
}

/// The run's totals (`summary` of a Simulation).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Simulated time from 0 to the end of the run, in seconds.
    pub duration_seconds: i64,
    /// What every NodeClaim cost over its lifetime, in US dollars.
    pub cost_usd: f64,
    /// What the static cluster (nodes alive at each pool's on-demand peak, kept all run) would cost, USD.
    pub static_cost_usd: f64,
    /// `staticCostUsd − costUsd`: what autoscaling saved against the static cluster.
    pub savings_usd: f64,
    /// `100 × (static − actual) / static`.
    pub savings_percent: f64,
    /// The static cluster's node mix, per NodePool, instance type and capacity type.
    pub static_cluster: Vec<StaticNodes>,
    /// Σ node GPUs × node lifetime, in hours: the GPU time paid for.
    pub gpu_hours_paid: f64,
    /// Σ pod GPU requests × pod running time, in hours: the GPU time pods used.
    pub gpu_hours_used: f64,
    /// `gpuHoursUsed ÷ gpuHoursPaid` (0 when nothing was paid).
    pub gpu_utilization: f64,
    /// USD spent on initialized nodes with no pods (waiting for `consolidateAfter`, a budget, or never used).
    pub empty_node_cost_usd: f64,
    /// Seconds nodes spent initialized and empty, summed over nodes.
    pub empty_node_seconds: i64,
    /// Nearest-rank percentiles of the time pods waited before they started (pods that started at least once).
    pub pending_seconds: Percentiles,
    /// Seconds of pod run time lost to evictions and interruptions (restarted from zero).
    pub work_lost_seconds: i64,
    /// Pods by final state.
    pub pods: PodCounts,
    /// NodeClaims launched, in total and per NodePool.
    pub launches: Launches,
    /// Nodes disrupted, in total and per reason (`empty`, `underutilized`, `expired`, `interrupted`).
    pub disruptions: Disruptions,
    /// Nodes still running when the simulation ended.
    pub nodes_alive_at_end: usize,
    /// With capacity reservations: `costUsd` split by the capacity type the nodes ran as
    /// (`on-demand`, `spot`, `reserved`: reserved nodes cost Karpenter's on-demand ÷ 10,000,000).
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub cost_by_capacity_type: IndexMap<String, f64>,
    /// With capacity reservations: what they commit over the run whether used or not, the sum
    /// of the reservations' known `committedCostUsd` (a capacity block without a price is left
    /// out, warning `reservation-price-unknown`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reserved_committed_cost_usd: Option<f64>,
    /// With capacity reservations: `costUsd` + `reservedCommittedCostUsd`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_cost_with_reservations_usd: Option<f64>,
}

/// One capacity reservation over the run (`reservations` of a Simulation).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReservationUse {
    /// CapacityReservationId.
    pub id: String,
    /// Its instance type.
    pub instance_type: String,
    /// Its availability zone.
    pub zone: String,
    /// `default` (an ODCR) or `capacity-block`.
    pub reservation_type: String,
    /// TotalInstanceCount.
    pub total: i64,
    /// Simulated second it is active from (0 when before the run); absent when its State
    /// makes it never active.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_from_seconds: Option<i64>,
    /// Simulated second it ends (the end of the run when later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_until_seconds: Option<i64>,
    /// NodeClaims the run launched into it.
    pub launches: usize,
    /// Σ (TotalInstanceCount − AvailableInstanceCount) × time while active, in instance-hours
    /// (instances outside the cluster count as used, as EC2 counts them).
    pub used_instance_hours: f64,
    /// `usedInstanceHours ÷ (total × active hours)`.
    pub utilization: f64,
    /// The most instances used at once.
    pub peak_used: i64,
    /// NodeClaims deleted because the capacity block was expiring.
    pub nodes_deleted: usize,
    /// NodeClaims that ran on as on-demand after the ODCR ended.
    pub nodes_on_demand: usize,
    /// NodeClaims deleted on an interruption notice (an interruptible ODCR's owner reclaimed
    /// their instances: trace `reservationInterrupt`); absent when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub nodes_interrupted: usize,
    /// $/h it bills while active: an ODCR the on-demand price × TotalInstanceCount; a capacity
    /// block its `simulation.capacityBlockPrices` × TotalInstanceCount; absent when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub committed_price_per_hour_usd: Option<f64>,
    /// What it commits over its active part of the run, used or not; absent when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub committed_cost_usd: Option<f64>,
    /// Why a figure is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One group of the static cluster: nodes of one type a pool had at its on-demand peak.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StaticNodes {
    /// The NodePool the nodes belong to.
    pub node_pool: String,
    /// The nodes' instance type.
    pub instance_type: String,
    #[cfg_attr(feature = "schema", schemars(with = "crate::reason::CapacityType"))]
    /// Capacity type of the nodes at the peak (priced on-demand in the comparison).
    pub capacity_type: String,
    /// How many such nodes the pool had at its peak.
    pub count: usize,
    /// On-demand $/h of one such node.
    pub price_per_hour_usd: f64,
}

/// p50, p95 and maximum of a duration in seconds (nearest rank).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Percentiles {
    /// Median, in seconds.
    pub p50: i64,
    /// 95th percentile, in seconds.
    pub p95: i64,
    /// Largest value, in seconds.
    pub max: i64,
}

/// How many pods ended the run in each state.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PodCounts {
    /// Pods the trace submitted.
    pub submitted: usize,
    /// Pods whose run time completed.
    pub finished: usize,
    /// Pods still running at the end.
    pub running: usize,
    /// Pods still pending at the end.
    pub pending: usize,
    /// Pods the trace deleted (a scale-down or delete event) before they finished.
    pub deleted: usize,
}

/// NodeClaims launched during the run.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Launches {
    /// All NodeClaims launched.
    pub total: usize,
    /// NodeClaims launched per NodePool name.
    pub by_node_pool: IndexMap<String, usize>,
}

/// Nodes disrupted during the run.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Disruptions {
    /// All nodes disrupted.
    pub total: usize,
    /// Nodes disrupted per reason: `empty`, `underutilized`, `expired`, `interrupted`.
    pub by_reason: IndexMap<String, usize>,
}

/// One NodeClaim of the run, its lifecycle and what it cost.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeOut {
    /// The NodeClaim's name, `<nodepool>-<n>` as in a plan.
    pub name: String,
    /// The NodePool it was launched from.
    pub node_pool: Option<String>,
    /// The instance type launched.
    pub instance_type: Option<String>,
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::reason::CapacityType>"))]
    /// `on-demand`, `spot` or `reserved`.
    pub capacity_type: Option<String>,
    /// The availability zone launched in.
    pub zone: Option<String>,
    /// $/h of the launched offering.
    pub price_per_hour_usd: f64,
    /// GPUs the node has (its capacity of the GPU resources, e.g. `nvidia.com/gpu`).
    pub gpus: i64,
    /// Simulated second the NodeClaim was created.
    pub launched_seconds: i64,
    /// Second the Node registered with the cluster (absent if it never did).
    pub registered_seconds: Option<i64>,
    /// Second the node became initialized and could run pods (absent if it never did).
    pub initialized_seconds: Option<i64>,
    /// Second the node was terminated; absent when it was alive at the end.
    pub terminated_seconds: Option<i64>,
    /// Seconds from launch to termination (or to the end of the run).
    pub lifetime_seconds: i64,
    /// `pricePerHourUsd × lifetime`, in USD.
    pub cost_usd: f64,
    /// USD the node cost while initialized with no pods.
    pub empty_cost_usd: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Why the node was terminated: `empty`, `underutilized`, `expired` or `interrupted`; absent when alive at the end.
    pub termination_reason: Option<crate::vocab::TerminationReason>,
    /// How many pods ever ran on the node.
    pub pods: usize,
}

/// One pod of the run: when it waited, ran and ended.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodOut {
    /// The pod, as `namespace/name`.
    pub name: String,
    /// The workload that created it, as `Kind/namespace/name`.
    pub workload: String,
    /// Simulated second the pod was submitted.
    pub submitted_seconds: i64,
    /// Second it first started running (absent if it never did).
    pub started_seconds: Option<i64>,
    /// Second its run time completed (absent if it did not finish).
    pub finished_seconds: Option<i64>,
    /// Final state: `finished`, `running`, `pending` or `deleted`.
    pub state: crate::vocab::PodState,
    /// Seconds pending, summed over every spell (submission or eviction until start).
    pub pending_seconds: i64,
    /// The run time the trace drew for the pod; absent when it runs until deleted.
    pub run_time_seconds: Option<i64>,
    /// Seconds spent running, lost work included.
    pub running_seconds: i64,
    /// Seconds of running lost to evictions and interruptions.
    pub work_lost_seconds: i64,
    /// How many times the pod restarted after an eviction or interruption.
    pub restarts: u32,
    /// The nodes it ran on, in order.
    pub nodes: Vec<String>,
}

/// One event of the run.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TimelineEntry {
    /// Simulated second of the event.
    pub time_seconds: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The same instant in RFC 3339, when the trace gave a start.
    pub time: Option<String>,
    /// What happened, e.g. `pod-bound`, `nodeclaim-launched`, `nodeclaim-terminated`.
    pub event: crate::vocab::TimelineEvent,
    /// The pod (`namespace/name`) or NodeClaim the event is about.
    pub object: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The node involved, when the event has one (e.g. the node a pod is bound to).
    pub node: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// A reason code: the disruption reason on evictions and terminations, the summary code on `pod-unschedulable`.
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Free text for people, e.g. the launched offering and its price.
    pub detail: Option<String>,
}

/// Metric samples at `0, intervalSeconds, …` up to the end of the run.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Series {
    /// Seconds between samples.
    pub interval_seconds: i64,
    /// The sample times, in simulated seconds.
    pub times_seconds: Vec<i64>,
    /// One time series per metric name and label set.
    pub metrics: Vec<Metric>,
}

/// One time series, named and labelled as Karpenter's Prometheus metric.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metric {
    /// Karpenter's metric name, e.g. `karpenter_nodepool_usage`.
    pub name: String,
    /// The metric's labels, e.g. `nodepool`, `resource_type`.
    pub labels: IndexMap<String, String>,
    /// One value per entry of `timesSeconds`.
    pub values: Vec<f64>,
}

/// Replay `trace` over the cluster of `req` with `settings` (defaults when `None`). The trace
/// is checked first, then the cluster is loaded with the trace's inline manifests.
pub fn simulate(req: &Sources, trace: Option<&TraceInput>, settings: Option<&SimSettings>) -> Result<Simulation, Vec<InputError>> {
    simulate_loaded(req, None, trace, settings, None)
}

/// [`simulate`] with time 0 at `now` (Unix seconds) when the trace gives no `start`: a cluster
/// read live is simulated from the time it was read, so its objects' ages and timers are the
/// cluster's (the request's `now`; the CLI's `--now`, by default the time of the read).
pub fn simulate_from(
    req: &Sources,
    trace: Option<&TraceInput>,
    settings: Option<&SimSettings>,
    now: Option<i64>,
) -> Result<Simulation, Vec<InputError>> {
    simulate_loaded(req, None, trace, settings, now)
}

/// [`simulate`] with the model of `req` already lowered (see `workloads::prepare`).
pub(crate) fn simulate_loaded(
    req: &Sources,
    loaded: Option<(&crate::model::Model, &[Warning])>,
    trace: Option<&TraceInput>,
    settings: Option<&SimSettings>,
    now: Option<i64>,
) -> Result<Simulation, Vec<InputError>> {
    let Some(t) = trace else {
        return Err(vec![InputError::new("required", "simulate needs a workload trace")
            .path("trace")
            .help("{\"trace\": {\"name\": \"week.yaml\", \"text\": \"...\"}} (--trace on the CLI); docs/simulate.md")]);
    };
    let settings = settings.cloned().unwrap_or_default();
    settings.check()?;
    refuse_unsimulated_gates(req.settings)?;
    let mut trace = trace::parse(&t.text, t.name.as_deref(), t.format.as_deref().unwrap_or("auto"), settings.max_events)?;
    trace.start = trace.start.or(now);
    run_parsed(req, loaded, &trace, t.name.as_deref(), &settings)
}

/// Gates whose effect on a simulation nodecast does not follow, refused rather than ignored:
/// with PodDeletionCostManagement Karpenter writes `controller.kubernetes.io/pod-deletion-cost`
/// on the pods of nodes it would consolidate (pkg/controllers/pod/deletioncost), which steers
/// which pods a ReplicaSet scale-down deletes; the simulator's scale-down does not rank nodes.
fn refuse_unsimulated_gates(settings: &crate::model::Settings) -> Result<(), Vec<InputError>> {
    if !settings.feature_gates.pod_deletion_cost_management {
        return Ok(());
    }
    Err(vec![InputError::new(
        "unsupported-feature-gate",
        "feature gate PodDeletionCostManagement=true: Karpenter then ranks nodes and writes pod-deletion-cost so ReplicaSet scale-downs delete pods from the nodes it would consolidate; the simulator's scale-down order does not follow that ranking",
    )
    .path("settings.featureGates.PodDeletionCostManagement")
    .help("leave PodDeletionCostManagement at Karpenter's default (false) for simulate; plan and consolidate model it")])
}

/// A trace already parsed (or built, as `consolidate --until` does) over the cluster of `req`.
pub(crate) fn run_parsed(
    req: &Sources,
    loaded: Option<(&crate::model::Model, &[Warning])>,
    trace: &trace::Trace,
    trace_name: Option<&str>,
    settings: &SimSettings,
) -> Result<Simulation, Vec<InputError>> {
    run_parsed_with(
        req,
        loaded,
        trace,
        trace_name,
        settings,
        #[cfg(feature = "cluster-autoscaler")]
        None,
    )
}

/// The trace of `t` replayed over the node groups of `req` with the Cluster Autoscaler's scan
/// loop in place of Karpenter's passes (ca_loop.rs): the Cluster Autoscaler side of a
/// side-by-side comparison (`crate::compare`). Also what its loops did.
#[cfg(feature = "cluster-autoscaler")]
pub(crate) fn simulate_node_groups(
    req: &Sources,
    t: &TraceInput,
    settings: &SimSettings,
) -> Result<(Simulation, ca_loop::CaLog), Vec<InputError>> {
    settings.check()?;
    let docs = crate::load::documents(req)?;
    let input = crate::node_groups::read(&docs)?;
    let facts = crate::cluster_autoscaler::stepper::facts(&docs);
    drop(docs);
    let trace = trace::parse(&t.text, t.name.as_deref(), t.format.as_deref().unwrap_or("auto"), settings.max_events)?;
    let log = std::rc::Rc::new(std::cell::RefCell::new(ca_loop::CaLog::default()));
    let consumed = input.consumed.clone();
    let ca = ca_loop::CaInput { input, facts, log: log.clone() };
    let mut sim = run_parsed_with(req, None, &trace, t.name.as_deref(), settings, Some(ca))?;
    // The node-group documents are this side's inputs, not skipped ones.
    sim.skipped.retain(|k| !consumed.contains(&(k.source.clone(), k.document)));
    let log = log.borrow().clone();
    Ok((sim, log))
}

fn run_parsed_with(
    req: &Sources,
    loaded: Option<(&crate::model::Model, &[Warning])>,
    trace: &trace::Trace,
    trace_name: Option<&str>,
    settings: &SimSettings,
    #[cfg(feature = "cluster-autoscaler")] ca: Option<ca_loop::CaInput>,
) -> Result<Simulation, Vec<InputError>> {
    settings.check()?;
    let keda = keda::prepare(req, &trace.demand)?;
    let mut prepared = workloads::prepare(req, loaded, trace, trace_name, &keda.job_manifests)?;
    // The ScaledObjects and ScaledJobs simulated leave the skipped list.
    let simulated: Vec<(String, String)> = keda
        .runs
        .iter()
        .map(|r| match r {
            keda::Run::Object(o) => ("ScaledObject".to_string(), o.spec.name.clone()),
            keda::Run::Job(j) => ("ScaledJob".to_string(), j.spec.name.clone()),
        })
        .collect();
    prepared
        .model
        .skipped
        .retain(|k| !simulated.iter().any(|(kind, n)| k.kind == *kind && (k.name == *n || k.name.ends_with(&format!("/{n}")))));
    let claimed = keda.claimed();
    prepared.watched = hpa::prepare(req, &trace.demand, &claimed, &mut prepared.model.skipped, &mut prepared.warnings)?;
    let offset = prepared.watched.len();
    prepared.watched.extend(keda.watched);
    let mut templates = prepared.extra_templates.iter();
    prepared.keda = keda
        .runs
        .into_iter()
        .map(|mut r| {
            match &mut r {
                keda::Run::Object(o) => o.watched += offset,
                keda::Run::Job(j) => j.template = templates.next().copied(),
            }
            r
        })
        .collect();
    engine::run(
        prepared,
        trace,
        settings.clone(),
        #[cfg(feature = "cluster-autoscaler")]
        ca,
    )
}

/// serde's `skip_serializing_if` for counts that are absent when zero (answers without them
/// keep their bytes).
fn is_zero(n: &usize) -> bool {
    *n == 0
}
