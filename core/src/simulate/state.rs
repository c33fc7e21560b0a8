//! The simulated objects' state: pods, nodes, the event queue's events and the random streams.
//! Plain data with no behaviour of the simulation, so every part of the simulator (engine,
//! nodes, metrics, summary) can name it without importing another part: the files of
//! `simulate/` form no import circle (core/tests/module_graph.rs).

use crate::reason::DisruptionReason;
use crate::resources::Resources;
use crate::vocab::TerminationReason;

/// Random streams: each purpose draws from its own generator per object (rng.rs).
pub const STREAM_RUN: u64 = 1;
pub const STREAM_LAUNCH: u64 = 2;
pub const STREAM_INTERRUPT: u64 = 3;

/// `Sim::model_pod_owner` of a CapacityBuffer virtual pod: no simulated pod (buffers.rs).
pub const VIRTUAL: usize = usize::MAX;

/// Most samples per series (a year at one minute is 525,600).
pub const MAX_SAMPLES: i64 = 600_000;

/// How often Karpenter's pod controller re-triggers the provisioner for a pod that is still
/// provisionable (pkg/controllers/provisioning/controller.go, `RequeueAfter: 10 * time.Second`).
pub const POD_REQUEUE_SECONDS: i64 = 10;

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
    /// A capacity reservation's clock: reservation index, edge (`RES_*`).
    Reservation(usize, u8),
    /// The pod controller's 10 s requeue of pods a pass left unplaced (engine.rs `log`).
    Requeue,
    /// The HPA controller's sync (every 15 s while a workload is watched; autoscale.rs).
    HpaSync,
    /// KEDA's scale loop polls ScaledObject or ScaledJob `k` (keda_loop.rs).
    KedaPoll(usize),
    /// The 15 s validation of the pending disruption command of this generation
    /// (validation.rs).
    Validate(u64),
}

/// A reservation's edges on the clock: it becomes active; a capacity block turns expiring (its
/// NodeClaims are deleted); EC2 reclaims a capacity block's instances; it ends.
pub const RES_START: u8 = 0;
pub const RES_EXPIRING: u8 = 1;
pub const RES_RECLAIM: u8 = 2;
pub const RES_END: u8 = 3;
/// The AWS provider's unavailable-offerings entry for the reservation (set by an interruption
/// notice) runs out: its offering is available again (res_notice.rs).
pub const RES_UNHIDE: u8 = 4;

/// The termination reason of a NodeClaim deleted because its capacity block expires.
pub const CAPACITY_BLOCK_EXPIRING: TerminationReason = TerminationReason::CapacityBlockExpiring;

/// The termination reason of a NodeClaim whose interruptible reservation's owner reclaimed its
/// instance (an EC2 Capacity Reservation Instance Interruption Warning; res_notice.rs).
pub const RESERVATION_INTERRUPTED: TerminationReason = TerminationReason::ReservationInterrupted;

/// The reasons a summary counts, in its order (`Ev::Terminate` carries an index into it).
pub const REASONS: [TerminationReason; 7] = [
    TerminationReason::Empty,
    TerminationReason::Underutilized,
    TerminationReason::Expired,
    TerminationReason::Interrupted,
    TerminationReason::Drifted,
    CAPACITY_BLOCK_EXPIRING,
    RESERVATION_INTERRUPTED,
];

/// The reasons every summary lists (with 0 when none happened); `drifted` is listed only when
/// a drifted node was replaced, so runs without drift read as before.
pub const ALWAYS_LISTED: usize = 4;

pub fn reason_index(r: TerminationReason) -> usize {
    REASONS.iter().position(|x| *x == r).unwrap_or(1)
}

/// The termination reason of a node the disruption controller deleted for `r`.
pub fn ended_by(r: DisruptionReason) -> TerminationReason {
    match r {
        DisruptionReason::Expired => TerminationReason::Expired,
        DisruptionReason::Empty => TerminationReason::Empty,
        DisruptionReason::Underutilized => TerminationReason::Underutilized,
        DisruptionReason::Drifted => TerminationReason::Drifted,
        DisruptionReason::Unhealthy => TerminationReason::Unhealthy,
    }
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
    /// When its `Registered` event is due while it launches (requeue.rs folds long waits).
    pub registers_at: Option<i64>,
    pub initialized: Option<i64>,
    pub terminated: Option<i64>,
    pub reason: Option<TerminationReason>,
    pub state: NState,
    /// Cordoned: being deleted (disruption, interruption or expiry drain).
    pub deleting: bool,
    /// Why it is being deleted, once decided.
    pub deleting_reason: Option<TerminationReason>,
    pub pods: Vec<usize>,
    pub pods_ever: usize,
    pub empty_since: Option<i64>,
    pub empty_seconds: i64,
    pub midx: Option<usize>,
    /// Nodes this replacement replaces: drained once it is initialized.
    pub replaces: Vec<usize>,
    /// Seconds after an expiry decision after which remaining pods are evicted.
    pub grace: Option<i64>,
    /// The capacity reservation (index into `Model::reservations`) it runs in.
    pub reservation: Option<usize>,
    /// USD accrued at earlier prices (an ODCR's node turned on-demand), and the second the
    /// current `price` applies from.
    pub cost_before: f64,
    pub price_from: i64,
}

impl SNode {
    /// What the node cost from its launch to `t` (its termination at the latest).
    pub fn cost_until(&self, t: i64) -> f64 {
        let until = self.terminated.unwrap_or(t).min(t);
        if until <= self.launched {
            return 0.0;
        }
        if until <= self.price_from {
            // Sampled before the price changed: the earlier segment only, pro rata.
            let span = (self.price_from - self.launched).max(1) as f64;
            return self.cost_before * (until - self.launched) as f64 / span;
        }
        self.cost_before + self.price * (until - self.price_from) as f64 / 3600.0
    }
}

/// A capacity reservation on the simulated clock (one per `Model::reservations` entry).
#[derive(Debug, Clone, Default)]
pub struct ResTrack {
    /// Simulated seconds it is active from / until (None: since before the run / no end);
    /// `window` is None when its State says it is never active (expired, cancelled, ...).
    pub window: Option<(Option<i64>, Option<i64>)>,
    pub active: bool,
    /// The type's on-demand $/h (read before the catalog is pruned).
    pub on_demand_price: Option<f64>,
    /// Instance-seconds used (TotalInstanceCount − AvailableInstanceCount) while active.
    pub used_seconds: f64,
    pub last: i64,
    pub peak_used: i64,
    pub launches: usize,
    pub deleted: usize,
    pub demoted: usize,
    /// Until when (simulated seconds) an interruption notice hides its offering.
    pub hidden_until: Option<i64>,
    /// NodeClaims that got an interruption notice: their instance goes back to the owner, so
    /// their termination shrinks TotalInstanceCount instead of freeing a slot.
    pub reclaimed: std::collections::BTreeSet<usize>,
    /// When each reclaimed instance left the reservation (simulated seconds).
    pub reclaimed_at: Vec<i64>,
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

/// A disruption command waiting out its 15 s validation (validation.rs).
pub struct PendingCommand {
    pub decision: crate::api::Decision,
}
