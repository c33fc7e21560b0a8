//! The decisions nodecast reports, as types: why a pod stays pending or a node stays
//! ([`ReasonCode`]), which disruption method acted ([`Method`]) and for which disruption reason
//! ([`DisruptionReason`]), and the capacity types Karpenter knows ([`CapacityType`]).
//!
//! Inside the core these are compared as enums (the simulator asks `r.code ==
//! ReasonCode::Budget`, not a string); they become their kebab-case wire names only when an
//! answer is serialized, so the JSON bytes are the ones the goldens pin.

use serde::{Serialize, Serializer};
use std::fmt;

/// A set of wire names that must stay byte-for-byte what the JSON answers have always said:
/// `as_str` is the only place a variant's name is written, `parse` its exact inverse.
macro_rules! wire_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $wire:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every variant, in declaration order (for tests and generated schemas).
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The wire name, exactly as the JSON answers spell it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $wire,)+
                }
            }

            /// The variant whose wire name is `s`; `None` for anything else (case matters, as
            /// it does for Kubernetes label values).
            pub fn parse(s: &str) -> Option<Self> {
                match s {
                    $($wire => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                // `pad`, not `write_str`: the CLI aligns codes in columns (`{:24}`).
                f.pad(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                *self == other.as_str()
            }
        }

        // The JSON Schema (and so the TypeScript literal union) of the wire names: the same
        // list `as_str` writes, so the schema cannot drift from the answers.
        #[cfg(feature = "schema")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "type": "string", "enum": [$($wire),+] })
            }
        }
    };
}

wire_enum! {
    /// Why a pod stays pending (FORMAT §7.1) or why a node is not disrupted (FORMAT §6).
    ReasonCode {
        // Provisioning: a pending pod.
        /// No instance type of the NodePool holds the pod's requests (with DaemonSet overhead).
        NoInstanceTypeFits = "no-instance-type-fits",
        /// The pod's node selector/affinity cannot be met by what the NodePool allows.
        RequirementConflict = "requirement-conflict",
        /// The pod does not tolerate a taint of the NodePool.
        TaintNotTolerated = "taint-not-tolerated",
        /// The NodePool's limits leave no room for another NodeClaim that would hold the pod.
        LimitExceeded = "limit-exceeded",
        /// A topology spread or pod (anti-)affinity constraint cannot be satisfied.
        TopologyUnsatisfiable = "topology-unsatisfiable",
        /// A requirement's minValues cannot be met by the remaining instance types.
        MinValuesNotMet = "min-values-not-met",
        /// A host port clashes with a DaemonSet or another pod of the same node.
        HostPortConflict = "host-port-conflict",
        /// Karpenter does not provision for this pod at all (e.g. already bound, DaemonSet-owned).
        PodIgnored = "pod-ignored",
        /// No NodePool can launch any instance type of the catalog.
        NoNodepools = "no-nodepools",
        /// The pod references ResourceClaims (DRA), which Karpenter refuses under
        /// `--ignore-dra-requests` (its default).
        DynamicResources = "dynamic-resources",
        /// Karpenter's ReservedOfferingError (or a full reservation with no fallback): the pod
        /// waits for reserved capacity (docs/reservations.md).
        ReservedOfferingUnavailable = "reserved-offering-unavailable",
        /// The NodePool launches nothing at all (static, not Ready, or its requirements leave no
        /// instance type with an available offering), so it took no part in the pass.
        NodepoolUnusable = "nodepool-unusable",
        // Disruption: a node that stays.
        /// A pod on the node has the `karpenter.sh/do-not-disrupt` annotation.
        DoNotDisruptPod = "do-not-disrupt-pod",
        /// The node itself has the `karpenter.sh/do-not-disrupt` annotation.
        DoNotDisruptNode = "do-not-disrupt-node",
        /// A PodDisruptionBudget forbids evicting one of the node's pods.
        Pdb = "pdb",
        /// The NodePool's disruption budget allows no more disruptions for this reason now.
        Budget = "budget",
        /// consolidateAfter has not elapsed since the node's last pod event.
        NotConsolidatableYet = "not-consolidatable-yet",
        /// The NodePool never consolidates (consolidateAfter: Never, or a static pool).
        ConsolidationDisabled = "consolidation-disabled",
        /// The NodePool consolidates only empty nodes and this one is not empty.
        PolicyWhenEmpty = "policy-when-empty",
        /// No replacement would be cheaper than the node.
        NotCheaper = "not-cheaper",
        /// The node's pods would not all schedule elsewhere.
        PodsDoNotFit = "pods-do-not-fit",
        /// Replacing spot with spot needs the SpotToSpotConsolidation feature gate.
        SpotToSpotDisabled = "spot-to-spot-disabled",
        /// The node is not initialized yet.
        NotInitialized = "not-initialized",
        /// Karpenter does not manage the node.
        Unmanaged = "unmanaged",
        /// The node is already being deleted.
        Deleting = "deleting",
        /// The node's `karpenter.sh/nodepool` names no NodePool of the input.
        NodepoolNotFound = "nodepool-not-found",
        /// The node's instance type, zone or capacity type is not in the catalog (no price).
        UnknownInstanceType = "unknown-instance-type",
        /// A non-empty node lacks the instance type, capacity type or zone label consolidation
        /// prices it by.
        MissingLabel = "missing-label",
        /// The pass acted on other nodes before it reached this one.
        NotEvaluated = "not-evaluated",
        /// A Balanced pool's score for the move is below its threshold.
        BelowBalancedThreshold = "below-balanced-threshold",
        /// The node matches a repair policy, but its toleration has not elapsed at `now`.
        RepairNotYet = "repair-not-yet",
        /// The node has the `karpenter.sh/do-not-repair` annotation.
        DoNotRepair = "do-not-repair",
        /// More than 20 % of the NodePool's nodes are unhealthy: repair stops for the pool.
        UnhealthyThreshold = "unhealthy-threshold",
        /// Repair would drain past blocking pods, but no termination grace period bounds it.
        RepairUnbounded = "repair-unbounded",
        /// The node's NodeClaim is rebooting (its `Rebooting` condition is True): no method
        /// disrupts it until the reboot ends.
        Rebooting = "rebooting",
        /// A provisioning pass nominated the node for a pending pod less than the nomination
        /// window (max(2 × batch max duration, 10 s)) ago: no method but expiration takes it
        /// until the window ends. Only `simulate` knows nominations.
        Nominated = "nominated",
    }
}

wire_enum! {
    /// What re-planning with a fix hint's change did, best first (answers sort hints by it).
    HintOutcome {
        /// The pod schedules on the NodePool the hint is for.
        Verified = "verified",
        /// The pod schedules, but on another NodePool or an existing node than the hint's.
        LandsElsewhere = "lands-elsewhere",
        /// The pod still stays pending: another constraint binds too.
        NotEnoughAlone = "not-enough-alone",
    }
}

wire_enum! {
    /// The risk an advised edit adds (docs/advise.md), least first: advise ranks by it before
    /// savings.
    RiskLevel {
        /// Nothing the edit changes puts a workload at risk.
        None = "none",
        /// Less headroom on existing nodes.
        Low = "low",
        /// Pods newly on spot, or few instance types left to fall back on.
        Medium = "medium",
        /// `do-not-disrupt` pods or run-to-completion work newly on spot.
        High = "high",
    }
}

wire_enum! {
    /// The disruption method that produced a command, in Karpenter's order of trying them.
    Method {
        /// Nodes past their `expireAfter`.
        Expiration = "expiration",
        /// An unhealthy node (a repair policy's condition past its toleration) replaced
        /// (NodeRepair gate).
        Repair = "repair",
        /// Empty consolidatable nodes, deleted together.
        Emptiness = "emptiness",
        /// A drifted node replaced (or deleted) on its own.
        Drift = "drift",
        /// Several nodes removed or replaced by at most one node.
        MultiNodeConsolidation = "multi-node-consolidation",
        /// One node removed or replaced by a cheaper one.
        SingleNodeConsolidation = "single-node-consolidation",
    }
}

wire_enum! {
    /// The disruption reason a command is budgeted under (a NodePool budget's `reasons`).
    DisruptionReason {
        /// Expiration.
        Expired = "expired",
        /// Emptiness.
        Empty = "empty",
        /// Multi- or single-node consolidation.
        Underutilized = "underutilized",
        /// Drift.
        Drifted = "drifted",
        /// Repair (budgets say `Unhealthy`).
        Unhealthy = "unhealthy",
    }
}

wire_enum! {
    /// The capacity types Karpenter knows (`karpenter.sh/capacity-type`).
    CapacityType {
        /// On-demand instances.
        OnDemand = "on-demand",
        /// Spot instances, interruptible.
        Spot = "spot",
        /// Capacity reservations.
        Reserved = "reserved",
    }
}

impl Method {
    /// The disruption reason the method's commands are budgeted under.
    pub fn reason(self) -> DisruptionReason {
        match self {
            Method::Expiration => DisruptionReason::Expired,
            Method::Emptiness => DisruptionReason::Empty,
            Method::Drift => DisruptionReason::Drifted,
            Method::Repair => DisruptionReason::Unhealthy,
            Method::MultiNodeConsolidation | Method::SingleNodeConsolidation => DisruptionReason::Underutilized,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Copy + PartialEq + fmt::Debug + Serialize>(all: &[T], as_str: fn(T) -> &'static str, parse: fn(&str) -> Option<T>) {
        let mut seen = std::collections::BTreeSet::new();
        for &v in all {
            let s = as_str(v);
            assert!(seen.insert(s), "{s} is the wire name of two variants");
            assert_eq!(parse(s), Some(v));
            assert_eq!(serde_json::to_string(&v).unwrap(), format!("\"{s}\""));
            assert!(s.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{s} is not kebab-case");
        }
        assert_eq!(parse("Spot"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn wire_names_round_trip() {
        round_trip(ReasonCode::ALL, ReasonCode::as_str, ReasonCode::parse);
        round_trip(Method::ALL, Method::as_str, Method::parse);
        round_trip(DisruptionReason::ALL, DisruptionReason::as_str, DisruptionReason::parse);
        round_trip(CapacityType::ALL, CapacityType::as_str, CapacityType::parse);
    }

    #[test]
    fn wire_names_are_the_documented_ones() {
        // The strings the goldens and FORMAT §6/§7.1 carry; a typo here would change the wire.
        assert_eq!(ReasonCode::ALL.len(), 36);
        assert_eq!(ReasonCode::Rebooting.as_str(), "rebooting");
        assert_eq!(ReasonCode::UnhealthyThreshold.as_str(), "unhealthy-threshold");
        assert_eq!(Method::Repair.reason(), DisruptionReason::Unhealthy);
        assert_eq!(DisruptionReason::Unhealthy.as_str(), "unhealthy");
        assert_eq!(ReasonCode::MissingLabel.as_str(), "missing-label");
        assert_eq!(Method::Drift.as_str(), "drift");
        assert_eq!(Method::Drift.reason(), DisruptionReason::Drifted);
        assert_eq!(DisruptionReason::Drifted.as_str(), "drifted");
        assert_eq!(ReasonCode::NoInstanceTypeFits.as_str(), "no-instance-type-fits");
        assert_eq!(ReasonCode::NoNodepools.as_str(), "no-nodepools");
        assert_eq!(ReasonCode::NodepoolNotFound.as_str(), "nodepool-not-found");
        assert_eq!(ReasonCode::Pdb.as_str(), "pdb");
        assert_eq!(Method::MultiNodeConsolidation.as_str(), "multi-node-consolidation");
        assert_eq!(CapacityType::OnDemand.as_str(), "on-demand");
        assert_eq!(format!("[{:8}]", ReasonCode::Pdb), "[pdb     ]");
        assert_eq!(Method::SingleNodeConsolidation.reason(), DisruptionReason::Underutilized);
    }
}
