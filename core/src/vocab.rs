//! The closed sets of strings in the answers that are not decisions of `crate::reason` (a leaf
//! module: the answer types point here). Each is an enum the core builds where it decides (a
//! pod's `outcome`, a type's `verdict`, a scored move, a simulated node's termination reason, a
//! pod's end state, a timeline event, a reservation change) and serialises as the string the
//! wire format has always carried; the JSON Schema gets an `enum` and TypeScript a literal union
//! from the same type, so the compiler, not a test, keeps the vocabulary closed. (Reason codes,
//! disruption methods and reasons and capacity types are `crate::reason`'s.)

use serde::Serialize;
use std::fmt;

/// The enum's wire strings, `as_str` and `Display` from one table per enum (the serde names
/// are checked against `as_str` by the tests below).
macro_rules! wire_strings {
    ($name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        impl $name {
            /// The string the answers carry.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

/// Where an explained pod goes.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PodOutcome {
    /// Onto a node that exists.
    ExistingNode,
    /// Onto a new NodeClaim.
    NewNodeClaim,
    /// Nowhere: it stays pending.
    Unschedulable,
    /// It already runs on a node (`spec.nodeName` set): the pass does not place it.
    Bound,
}
wire_strings!(PodOutcome { ExistingNode => "existing-node", NewNodeClaim => "new-node-claim", Unschedulable => "unschedulable", Bound => "bound" });

/// What an explained instance type is to the plan.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TypeVerdict {
    /// The type a NodeClaim launches.
    Launched,
    /// One of a NodeClaim's options, not launched.
    Option,
    /// Not an option for the pod.
    Rejected,
}
wire_strings!(TypeVerdict { Launched => "launched", Option => "option", Rejected => "rejected" });

/// The move a Balanced score is about.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
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
wire_strings!(ScoredMove { Delete => "delete", Replace => "replace", DeleteBestCase => "delete (best case)" });

/// Why a simulated node ended.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
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
    /// The owner of its interruptible capacity reservation reclaimed the instance.
    ReservationInterrupted,
    /// Repair deleted it (an unhealthy node condition outlasted its toleration).
    Unhealthy,
}
wire_strings!(TerminationReason {
    Empty => "empty",
    Underutilized => "underutilized",
    Expired => "expired",
    Interrupted => "interrupted",
    Drifted => "drifted",
    CapacityBlockExpiring => "capacity-block-expiring",
    ReservationInterrupted => "reservation-interrupted",
    Unhealthy => "unhealthy",
});

/// What a reservation's end does to a running node.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReservationChange {
    /// A capacity block expiring: the NodeClaim is deleted.
    Deleted,
    /// An ODCR ended: the node runs on as on-demand.
    OnDemand,
}
wire_strings!(ReservationChange { Deleted => "deleted", OnDemand => "on-demand" });

/// A simulated pod's state at the end of the trace.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
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
wire_strings!(PodState { Finished => "finished", Running => "running", Pending => "pending", Deleted => "deleted" });

/// What happened at a timeline entry.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
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
    /// A node condition the trace set or cleared (`nodeCondition` events).
    NodeCondition,
    /// An interruption notice made a reservation's offering unavailable.
    ReservationOfferingUnavailable,
    /// The interruption's unavailable-offerings entry expired: the offering is available again.
    ReservationOfferingAvailable,
    /// A disruption pass decided an emptiness or consolidation command for this NodeClaim;
    /// Karpenter validates it 15 s later and carries it out then (`nodeclaim-disrupted`) or
    /// drops it (`disruption-rejected`).
    DisruptionDecided,
    /// The command's 15 s validation dropped this NodeClaim: `reason` is `churn` (no longer a
    /// candidate), `budget` or `scheduling` (Karpenter's ConsolidationRejected reasons).
    DisruptionRejected,
}
wire_strings!(TimelineEvent {
    PodPending => "pod-pending",
    PodNominated => "pod-nominated",
    PodBound => "pod-bound",
    PodStarted => "pod-started",
    PodFinished => "pod-finished",
    PodEvicted => "pod-evicted",
    PodRestarted => "pod-restarted",
    PodDeleted => "pod-deleted",
    PodUnschedulable => "pod-unschedulable",
    NodeclaimLaunched => "nodeclaim-launched",
    NodeclaimRegistered => "nodeclaim-registered",
    NodeclaimInitialized => "nodeclaim-initialized",
    NodeclaimDisrupted => "nodeclaim-disrupted",
    NodeclaimInterrupted => "nodeclaim-interrupted",
    NodeclaimTerminated => "nodeclaim-terminated",
    NodeclaimRelabeled => "nodeclaim-relabeled",
    ReservationActive => "reservation-active",
    ReservationExpiring => "reservation-expiring",
    ReservationEnded => "reservation-ended",
    NodeCondition => "node-condition",
    ReservationOfferingUnavailable => "reservation-offering-unavailable",
    ReservationOfferingAvailable => "reservation-offering-available",
    DisruptionDecided => "disruption-decided",
    DisruptionRejected => "disruption-rejected",
});

#[cfg(test)]
mod tests {
    use super::*;

    /// `as_str` (what the core compares and prints) and serde (what the answers carry) agree.
    fn same<T: Serialize + Copy>(all: &[T], as_str: fn(T) -> &'static str) {
        for &v in all {
            assert_eq!(serde_json::to_value(v).unwrap(), serde_json::Value::String(as_str(v).into()));
        }
    }

    #[test]
    fn wire_strings_match_serde() {
        use PodOutcome as P;
        same(&[P::ExistingNode, P::NewNodeClaim, P::Unschedulable, P::Bound], P::as_str);
        same(&[TypeVerdict::Launched, TypeVerdict::Option, TypeVerdict::Rejected], TypeVerdict::as_str);
        same(&[ScoredMove::Delete, ScoredMove::Replace, ScoredMove::DeleteBestCase], ScoredMove::as_str);
        use TerminationReason as R;
        same(
            &[
                R::Empty,
                R::Underutilized,
                R::Expired,
                R::Interrupted,
                R::Drifted,
                R::CapacityBlockExpiring,
                R::ReservationInterrupted,
                R::Unhealthy,
            ],
            R::as_str,
        );
        same(&[ReservationChange::Deleted, ReservationChange::OnDemand], ReservationChange::as_str);
        same(&[PodState::Finished, PodState::Running, PodState::Pending, PodState::Deleted], PodState::as_str);
        use TimelineEvent as E;
        same(
            &[
                E::PodPending,
                E::PodNominated,
                E::PodBound,
                E::PodStarted,
                E::PodFinished,
                E::PodEvicted,
                E::PodRestarted,
                E::PodDeleted,
                E::PodUnschedulable,
                E::NodeclaimLaunched,
                E::NodeclaimRegistered,
                E::NodeclaimInitialized,
                E::NodeclaimDisrupted,
                E::NodeclaimInterrupted,
                E::NodeclaimTerminated,
                E::NodeclaimRelabeled,
                E::ReservationActive,
                E::ReservationExpiring,
                E::ReservationEnded,
                E::NodeCondition,
                E::ReservationOfferingUnavailable,
                E::ReservationOfferingAvailable,
                E::DisruptionDecided,
                E::DisruptionRejected,
            ],
            E::as_str,
        );
    }
}
