//! The simulated objects' state: pods, nodes, the event queue's events and the random streams.
//! Plain data with no behaviour of the simulation, so every part of the simulator (engine,
//! nodes, metrics, summary) can name it without importing another part: the files of
//! `simulate/` form no import circle (core/tests/module_graph.rs).

use crate::resources::Resources;

/// Random streams: each purpose draws from its own generator per object (rng.rs).
pub const STREAM_RUN: u64 = 1;
pub const STREAM_LAUNCH: u64 = 2;
pub const STREAM_INTERRUPT: u64 = 3;

/// `Sim::model_pod_owner` of a CapacityBuffer virtual pod: no simulated pod (buffers.rs).
pub const VIRTUAL: usize = usize::MAX;

/// Most samples per series (a year at one minute is 525,600).
pub const MAX_SAMPLES: i64 = 600_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ev {
    Trace(usize),
    BatchClose(u64),
    Registered(usize),
    Initialized(usize),
    Finish(usize, u64),
    Disrupt(u64),
    Interrupt(usize),
    /// Node, reason index into `REASONS`.
    Terminate(usize, usize),
    DeleteInstance(usize),
}

pub const REASONS: [&str; 5] = ["empty", "underutilized", "expired", "interrupted", "drifted"];

/// The reasons every summary lists (with 0 when none happened); `drifted` is listed only when
/// a drifted node was replaced, so runs without drift read as before.
pub const ALWAYS_LISTED: usize = 4;

pub fn reason_index(r: &str) -> usize {
    REASONS.iter().position(|x| *x == r).unwrap_or(1)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PodState {
    Pending,
    Nominated,
    Bound,
    Running,
    Finished,
    Deleted,
}

#[derive(Debug, Clone)]
pub struct SPod {
    pub key: String,
    pub workload: String,
    pub state: PodState,
    pub node: Option<usize>,
    pub run: Option<i64>,
    pub checkpoint: Option<i64>,
    /// Work done and kept (survives evictions up to the last checkpoint).
    pub progress: i64,
    pub run_since: i64,
    pub submitted: i64,
    pub first_start: Option<i64>,
    pub finished: Option<i64>,
    pub pending_since: i64,
    pub pending_total: i64,
    pub running_total: i64,
    pub lost: i64,
    pub restarts: u32,
    pub nodes: Vec<usize>,
    /// Bumped on every eviction so a stale Finish event is ignored.
    pub gen: u64,
    /// Index in `model.pods` while the pod exists in the cluster.
    pub midx: Option<usize>,
    pub unschedulable_reported: bool,
    /// GPUs requested (whole devices).
    pub gpus: i64,
    /// Bound in the cluster inputs: runs for the whole simulation, not a trace pod.
    pub initial: bool,
    /// The trace instance that created it (`usize::MAX` for pods of the inputs).
    pub instance: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NState {
    Launching,
    Registered,
    Initialized,
    Terminated,
}

#[derive(Debug, Clone)]
pub struct SNode {
    pub name: String,
    pub pool: Option<usize>,
    pub pool_name: Option<String>,
    pub instance_type: Option<String>,
    pub capacity_type: Option<String>,
    pub zone: Option<String>,
    pub price: f64,
    /// On-demand price of the same type (for the static cluster), else `price`.
    pub on_demand_price: f64,
    pub gpus: i64,
    pub capacity: Resources,
    pub allocatable: Resources,
    pub launched: i64,
    pub registered: Option<i64>,
    pub initialized: Option<i64>,
    pub terminated: Option<i64>,
    pub reason: Option<String>,
    pub state: NState,
    /// Cordoned: being deleted (disruption, interruption or expiry drain).
    pub deleting: bool,
    /// Why it is being deleted, once decided.
    pub deleting_reason: Option<String>,
    pub pods: Vec<usize>,
    pub pods_ever: usize,
    pub empty_since: Option<i64>,
    pub empty_seconds: i64,
    pub midx: Option<usize>,
    /// Nodes this replacement replaces: drained once it is initialized.
    pub replaces: Vec<usize>,
    /// Seconds after an expiry decision after which remaining pods are evicted.
    pub grace: Option<i64>,
}

/// One Job instance's progress.
#[derive(Debug, Clone)]
pub struct JobProgress {
    pub parallelism: i64,
    /// `None`: done when any pod succeeds (no completions given).
    pub completions: Option<i64>,
    pub backoff_limit: i64,
    pub succeeded: i64,
    pub failed: i64,
    /// Failures exceeded the backoff limit.
    pub job_failed: bool,
}
