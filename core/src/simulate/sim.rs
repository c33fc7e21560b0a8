//! The simulation: one `Sim` holds the model, the clock, the event queue and every simulated
//! pod and node. Its behaviour is split by subject, each file an `impl Sim` block: the event
//! loop and scheduling passes (engine.rs), NodeClaim lifecycles and disruption (nodes.rs). They
//! share this struct and state.rs, and never import each other.

use super::metrics::Recorder;
use super::rng::SplitMix64;
use super::settings::SimSettings;
use super::state::{Ev, SNode, SPod};
use super::trace::RunTime;
use super::workloads::{SimEvent, Template};
use super::TimelineEntry;
use crate::api::Warning;
use crate::model::Model;
use crate::scheduling;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};

#[derive(Debug, Clone)]
pub struct Instance {
    pub name: String,
    pub tpl: usize,
    pub pods: Vec<usize>,
    pub next_index: usize,
    pub run_time: Option<RunTime>,
    pub checkpoint: Option<i64>,
    pub rng: SplitMix64,
    pub deleted: bool,
    /// A Job's progress toward its completions (jobs.rs); `None` for other workloads.
    pub job: Option<super::state::JobProgress>,
}

pub struct Sim {
    pub m: Model,
    pub s: SimSettings,
    pub templates: Vec<Template>,
    pub trace_events: Vec<SimEvent>,
    pub origin: i64,
    pub show_time: bool,
    pub now: i64,
    pub end: i64,
    pub(super) seq: u64,
    pub(super) queue: BinaryHeap<Reverse<(i64, u64, Ev)>>,
    pub pods: Vec<SPod>,
    pub model_pod_owner: Vec<usize>,
    pub pending: BTreeSet<usize>,
    /// Pods nominated to a NodeClaim still in flight (not registered): unbound, so still
    /// provisionable to Karpenter, which requeues them and renews their node's nomination
    /// window at every pass (requeue.rs; docs/karpenter-fidelity.md, section 59).
    pub nominated: BTreeSet<usize>,
    pub instances: Vec<Instance>,
    pub(super) instance_names: HashMap<String, usize>,
    pub(super) used_names: HashMap<String, usize>,
    pub nodes: Vec<SNode>,
    pub model_node_owner: Vec<usize>,
    pub node_by_name: HashMap<String, usize>,
    pub pool_counters: Vec<usize>,
    pub(super) batch_open: Option<i64>,
    pub(super) batch_gen: u64,
    /// The last provisioning pass left pods it could not place: Karpenter's pod controller
    /// requeues each of them every 10 s, and each requeue runs a pass (engine.rs `log`).
    pub(super) unplaced: bool,
    /// An `Ev::Requeue` is on the queue.
    pub(super) requeue_armed: bool,
    /// Timeline entries that record a change to the cluster (all but `pod-unschedulable`),
    /// and their count when the last provisioning pass began: a requeue with no change since
    /// would see the same cluster and give the same answer, so it runs no pass.
    pub(super) changes: usize,
    pub(super) batch_saw: usize,
    /// A provisioning pass has run (`batch_saw` holds its start).
    pub(super) passed: bool,
    pub pass_at: Option<i64>,
    pub pass_token: u64,
    /// The emptiness or consolidation command waiting out its 15 s validation, if any: the
    /// disruption controller runs no other pass meanwhile (validation.rs).
    pub command: Option<super::state::PendingCommand>,
    pub command_gen: u64,
    pub timeline: Vec<TimelineEntry>,
    pub warnings: Vec<Warning>,
    pub metrics: Recorder,
    pub live_trace_pods: usize,
    pub live_sim_nodes: usize,
    pub(super) trace_left: usize,
    pub templates_cache: Vec<Option<Option<scheduling::claim::Template>>>,
    pub gpu_resources: Vec<crate::resources::ResourceId>,
    pub accel_resources: Vec<crate::resources::ResourceId>,
    /// Carried between scheduling passes (templates, node label requirements).
    pub baseline_memo: scheduling::BaselineMemo,
    /// Pending pods summed over the provisioning passes so far (bounded by maxPodAttempts).
    pub pod_attempts: u64,
    /// The CapacityBuffers' virtual pods (CapacityBuffer gate on; buffers.rs): in the model's
    /// pods only during a provisioning or disruption pass.
    pub virtual_pods: Vec<crate::model::Pod>,
    /// The capacity reservations on the clock, one per `m.reservations` entry (reservations.rs).
    pub res: Vec<super::state::ResTrack>,
    /// Workloads with an HPA or a demand series (autoscale.rs), and the trace's demand.
    pub watched: Vec<super::hpa::Watched>,
    pub demand: Vec<super::demand::Demand>,
    /// KEDA's ScaledObjects and ScaledJobs (keda_loop.rs).
    pub keda: Vec<super::keda::Run>,
    /// A Cluster Autoscaler run (ca_loop.rs): its scan loop replaces Karpenter's passes.
    #[cfg(feature = "cluster-autoscaler")]
    pub ca: Option<super::ca_state::CaRun>,
}

/// The trace's `nodePool` event (edits.rs reads it; the replacement happens here, so edits.rs
/// need not know the simulator).
impl Sim {
    /// Replaces NodePool `pool` (the `nodePool` event) and asks for a disruption pass, which
    /// finds the drift.
    pub fn edit_node_pool(&mut self, pool: usize, np: crate::model::NodePool) {
        self.m.node_pools[pool] = np;
        // Both caches hold templates made from the old NodePool.
        self.templates_cache[pool] = None;
        self.baseline_memo = crate::scheduling::BaselineMemo::default();
        self.mark_dirty();
    }
}
