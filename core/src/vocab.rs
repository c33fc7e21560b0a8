//! The closed sets of strings in the answers (a leaf module: the answer types point here, and
//! `schema` reads them through the answer types), as schema-only enums: fields that travel as
//! strings (`capacityType`, `decision`, a pod's `outcome`, ...) point their schema here with
//! `#[schemars(with = "...")]`, so the JSON Schema has an `enum` and TypeScript a literal union.
//! (Sets the core also uses as types — reason codes, disruption methods and reasons, capacity
//! types — get their schema from `crate::reason` instead.) These enums are never built: the core writes the strings, and `core/tests/schema.rs` checks
//! that the strings it writes in the golden answers are members of these sets.

use schemars::JsonSchema;

/// Where an explained pod goes.
#[derive(JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)]
pub enum PodOutcome {
    /// Onto a node that exists.
    ExistingNode,
    /// Onto a new NodeClaim.
    NewNodeClaim,
    /// Nowhere: it stays pending.
    Unschedulable,
}

/// What an explained instance type is to the plan.
#[derive(JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)]
pub enum TypeVerdict {
    /// The type a NodeClaim launches.
    Launched,
    /// One of a NodeClaim's options, not launched.
    Option,
    /// Not an option for the pod.
    Rejected,
}

/// The move a Balanced score is about.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub enum ScoredMove {
    /// Delete the nodes.
    #[serde(rename = "delete")]
    Delete,
    /// Replace the nodes.
    #[serde(rename = "replace")]
    Replace,
    /// The pre-check before simulating.
    #[serde(rename = "delete (best case)")]
    DeleteBestCase,
}

/// Why a simulated node ended.
#[derive(JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)]
pub enum TerminationReason {
    /// Consolidated while empty.
    Empty,
    /// Consolidated while underutilized.
    Underutilized,
    /// Expired.
    Expired,
    /// A spot interruption.
    Interrupted,
    /// Drift replaced it.
    Drifted,
    /// Its capacity block was expiring (deleted 40 minutes before the end, or reclaimed by EC2).
    CapacityBlockExpiring,
}

/// What a reservation's end does to a running node.
#[derive(JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)]
pub enum ReservationChange {
    /// A capacity block expiring: the NodeClaim is deleted.
    Deleted,
    /// An ODCR ended: the node runs on as on-demand.
    OnDemand,
}

/// A simulated pod's state at the end of the trace.
#[derive(JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)]
pub enum PodState {
    /// It ran to completion.
    Finished,
    /// It still runs.
    Running,
    /// It never started or waits again.
    Pending,
    /// The trace deleted it.
    Deleted,
}

/// What happened at a timeline entry.
#[derive(JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)]
pub enum TimelineEvent {
    /// A pod was submitted.
    PodPending,
    /// A pod was nominated to a node.
    PodNominated,
    /// A pod was bound.
    PodBound,
    /// A pod started.
    PodStarted,
    /// A pod finished.
    PodFinished,
    /// A pod was evicted.
    PodEvicted,
    /// A pod restarted.
    PodRestarted,
    /// A pod was deleted.
    PodDeleted,
    /// A pod cannot be scheduled.
    PodUnschedulable,
    /// A NodeClaim was launched.
    #[serde(rename = "nodeclaim-launched")]
    NodeclaimLaunched,
    /// A NodeClaim registered.
    #[serde(rename = "nodeclaim-registered")]
    NodeclaimRegistered,
    /// A NodeClaim initialized.
    #[serde(rename = "nodeclaim-initialized")]
    NodeclaimInitialized,
    /// A NodeClaim was disrupted.
    #[serde(rename = "nodeclaim-disrupted")]
    NodeclaimDisrupted,
    /// A NodeClaim was interrupted.
    #[serde(rename = "nodeclaim-interrupted")]
    NodeclaimInterrupted,
    /// A NodeClaim was terminated.
    #[serde(rename = "nodeclaim-terminated")]
    NodeclaimTerminated,
    /// A NodeClaim of an ended ODCR was relabelled on-demand.
    #[serde(rename = "nodeclaim-relabeled")]
    NodeclaimRelabeled,
    /// A capacity reservation became active.
    ReservationActive,
    /// A capacity block became expiring (40 minutes before its end).
    ReservationExpiring,
    /// A capacity reservation ended.
    ReservationEnded,
}
