//! The cloud provider's node repair policies as an input (`settings.repairPolicies`).
//!
//! Karpenter's core has no repair policies of its own: each cloud provider returns them
//! (`CloudProvider.RepairPolicies()`, sigs.k8s.io/karpenter@v1.15.0 pkg/cloudprovider/types.go
//! `RepairPolicy`). nodecast uses the AWS provider's set ([`PolicySet::aws`]) unless the request
//! gives its own, for another provider, a customised build, or Karpenter's test provider
//! (whose one policy is `BadNode=False`, 30m toleration, grace 0, the set's fallback).
//!
//! A given set is validated as Karpenter's `newRepairPolicyMatcher` does
//! (pkg/controllers/node/health/policy.go): a condition type, a status of True / False / Unknown,
//! no negative toleration or grace, a priority in 0..=100, a supported action, a reason regex that
//! compiles, and exactly one default fallback (empty `reasonRegex`) whose action is ReplaceNode.
//! Karpenter refuses to start with an invalid set; nodecast refuses the request, located at
//! `settings.repairPolicies[i].<field>`. The `RebootNode` action (an in-place reboot handed to the
//! provider's reboot lifecycle, not a disruption command) is refused as not modelled.

use crate::error::InputError;
use serde::{Deserialize, Serialize};

/// One repair policy, spelled as Karpenter's `cloudprovider.RepairPolicy` fields in camelCase.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RepairPolicySpec {
    /// The Node condition type the policy reads, e.g. `Ready`.
    pub condition_type: String,
    /// The unhealthy status: `True`, `False` or `Unknown`.
    pub condition_status: String,
    /// A Go regular expression matched (unanchored) against the condition's reason. Empty: the
    /// set's one default fallback, used for a supported (type, status) whose reason no specific
    /// policy matches.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason_regex: String,
    /// How long the condition must hold (a Go duration, e.g. `30m`); default `0s`.
    #[serde(default = "zero_duration")]
    pub toleration_duration: String,
    /// The drain bound of a repair (Go duration): absent inherits the NodeClaim's
    /// terminationGracePeriod, `0s` skips the drain, otherwise the shorter of the two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination_grace_period: Option<String>,
    /// Ordering weight 0..=100: higher is repaired first (dense ranks; default 0).
    #[serde(default)]
    pub priority: i64,
    /// `ReplaceNode` (default). `RebootNode` is refused: nodecast does not model reboots.
    #[serde(default = "replace_node")]
    pub action: String,
}

fn zero_duration() -> String {
    "0s".into()
}

fn replace_node() -> String {
    REPLACE.into()
}

const REPLACE: &str = "ReplaceNode";
const REBOOT: &str = "RebootNode";

/// How a policy reads a condition's reason.
#[derive(Debug, Clone)]
pub(crate) enum ReasonMatch {
    /// `.*`: every reason.
    Any,
    /// `.*XID(a|b|...).*`: the reason contains `XID` directly followed by one of the codes (the
    /// AWS set, without compiling a regex per pass).
    Xid(&'static [u32]),
    /// A given policy's reason regex (Go RE2 syntax; regex-lite, unanchored like MatchString).
    Regex(regex_lite::Regex),
    /// The set's fallback (empty pattern): used for a condition no specific policy matched.
    Fallback,
}

impl ReasonMatch {
    pub(crate) fn matches(&self, reason: &str) -> bool {
        match self {
            ReasonMatch::Any => true,
            // Go's `XID(46|...)` has no word boundary: XID460 contains XID46 and matches.
            ReasonMatch::Xid(codes) => codes.iter().any(|c| reason.contains(&format!("XID{c}"))),
            ReasonMatch::Regex(r) => r.is_match(reason),
            ReasonMatch::Fallback => false,
        }
    }

    pub(crate) fn is_fallback(&self) -> bool {
        matches!(self, ReasonMatch::Fallback)
    }
}

/// One compiled repair policy.
#[derive(Debug, Clone)]
pub(crate) struct Policy {
    pub condition: String,
    pub status: String,
    pub reason: ReasonMatch,
    /// Seconds the condition must hold.
    pub toleration: i64,
    /// Seconds repair drains for at most.
    pub grace: Option<i64>,
    /// The given priority (0..=100) and its dense rank among the set's priorities.
    pub priority: i64,
    pub rank: i64,
}

/// A validated, compiled policy set: what `health.RepairPolicyMatcher` holds.
#[derive(Debug, Clone)]
pub struct PolicySet {
    pub(crate) policies: Vec<Policy>,
    /// Index of the set's one fallback policy.
    pub(crate) fallback: Option<usize>,
}

const MIN: i64 = 60;

impl PolicySet {
    /// The AWS provider's v1.15.0 policies, in its order (karpenter-provider-aws
    /// pkg/cloudprovider/cloudprovider.go `RepairPolicies`; every priority 0, every action a
    /// replacement with the provider's RebootForRepair gate off).
    pub fn aws() -> PolicySet {
        let p = |condition: &str, status: &str, reason: ReasonMatch, toleration: i64, grace: i64| Policy {
            condition: condition.into(),
            status: status.into(),
            reason,
            toleration,
            grace: Some(grace),
            priority: 0,
            rank: 0,
        };
        let policies = vec![
            p("Ready", "False", ReasonMatch::Any, 30 * MIN, 10 * MIN),
            p("Ready", "Unknown", ReasonMatch::Any, 30 * MIN, 10 * MIN),
            p(
                "AcceleratedHardwareReady",
                "False",
                ReasonMatch::Xid(&[46, 48, 54, 62, 63, 95, 109, 110, 136, 140, 143, 155, 156, 158]),
                10 * MIN,
                5 * MIN,
            ),
            p("AcceleratedHardwareReady", "False", ReasonMatch::Xid(&[64, 74, 79, 119, 120]), 10 * MIN, 5 * MIN),
            p("AcceleratedHardwareReady", "False", ReasonMatch::Fallback, 30 * MIN, 10 * MIN),
            p("StorageReady", "False", ReasonMatch::Any, 30 * MIN, 10 * MIN),
            p("NetworkingReady", "False", ReasonMatch::Any, 30 * MIN, 10 * MIN),
            p("KernelReady", "False", ReasonMatch::Any, 30 * MIN, 10 * MIN),
            p("ContainerRuntimeReady", "False", ReasonMatch::Any, 30 * MIN, 10 * MIN),
        ];
        PolicySet { policies, fallback: Some(4) }
    }

    /// The request's set, or the AWS provider's when it gives none. A given set is expected to
    /// have passed [`check`]; a policy that does not compile is left out rather than panicking.
    pub fn of(given: Option<&[RepairPolicySpec]>) -> PolicySet {
        let Some(specs) = given else { return PolicySet::aws() };
        let mut priorities: Vec<i64> = specs.iter().map(|s| s.priority).collect();
        priorities.sort_unstable();
        priorities.dedup();
        let mut policies = Vec::new();
        let mut fallback = None;
        for s in specs {
            let Some(toleration) = seconds(&s.toleration_duration) else { continue };
            let grace = match &s.termination_grace_period {
                Some(g) => match seconds(g) {
                    Some(v) => Some(v),
                    None => continue,
                },
                None => None,
            };
            let reason = if s.reason_regex.is_empty() {
                fallback.get_or_insert(policies.len());
                ReasonMatch::Fallback
            } else {
                match regex_lite::Regex::new(&s.reason_regex) {
                    Ok(r) => ReasonMatch::Regex(r),
                    Err(_) => continue,
                }
            };
            let rank = priorities.binary_search(&s.priority).unwrap_or(0) as i64;
            policies.push(Policy {
                condition: s.condition_type.clone(),
                status: s.condition_status.clone(),
                reason,
                toleration,
                grace,
                priority: s.priority,
                rank,
            });
        }
        PolicySet { policies, fallback }
    }

    /// Whether some policy is keyed on this (type, status): a "supported" condition.
    pub(crate) fn keyed(&self, type_: &str, status: &str) -> bool {
        self.policies.iter().any(|p| p.condition == type_ && p.status == status)
    }
}

/// A Go duration in whole seconds, rounded up (a toleration of 1.5s has not passed after 1s);
/// None when it is no duration or negative.
fn seconds(s: &str) -> Option<i64> {
    let n = crate::golang::duration_nanos(s)?;
    if n < 0 {
        return None;
    }
    Some(((n + 999_999_999) / 1_000_000_000) as i64)
}

/// The errors Karpenter's `newRepairPolicyMatcher` reports for this set, located at
/// `settings.repairPolicies[i].<field>`.
pub fn check(specs: &[RepairPolicySpec]) -> Vec<InputError> {
    let mut errors = Vec::new();
    let err = |i: usize, field: &str, code: &str, message: String, help: &str| {
        InputError::new(code, message).path(format!("settings.repairPolicies[{i}].{field}")).help(help.to_string())
    };
    if specs.is_empty() {
        errors.push(
            InputError::new("invalid-repair-policies", "node repair requires the cloud provider to define RepairPolicies, but the list is empty")
                .path("settings.repairPolicies")
                .help("give at least the one default fallback policy (empty reasonRegex, action ReplaceNode), or leave repairPolicies out for the AWS provider's"),
        );
        return errors;
    }
    let mut fallback: Option<usize> = None;
    for (i, s) in specs.iter().enumerate() {
        if s.condition_type.is_empty() {
            errors.push(err(i, "conditionType", "required", "the condition type is empty".into(), "a Node condition type, e.g. Ready"));
        }
        if !matches!(s.condition_status.as_str(), "True" | "False" | "Unknown") {
            errors.push(err(
                i,
                "conditionStatus",
                "invalid-value",
                format!("condition status {:?} is not True, False or Unknown", s.condition_status),
                "True, False or Unknown",
            ));
        }
        match crate::golang::duration_nanos(&s.toleration_duration) {
            None => errors.push(err(
                i,
                "tolerationDuration",
                "invalid-duration",
                format!("{:?} is not a Go duration", s.toleration_duration),
                "a Go duration such as 30m or 1h30m",
            )),
            Some(n) if n < 0 => errors.push(err(
                i,
                "tolerationDuration",
                "invalid-duration",
                format!("negative toleration duration {}", s.toleration_duration),
                "a duration of 0s or more",
            )),
            Some(_) => {}
        }
        if let Some(g) = &s.termination_grace_period {
            match crate::golang::duration_nanos(g) {
                None => errors.push(err(
                    i,
                    "terminationGracePeriod",
                    "invalid-duration",
                    format!("{g:?} is not a Go duration"),
                    "a Go duration such as 10m, or 0s",
                )),
                Some(n) if n < 0 => errors.push(err(
                    i,
                    "terminationGracePeriod",
                    "invalid-duration",
                    format!("negative termination grace period {g}"),
                    "a duration of 0s or more (0s: no drain)",
                )),
                Some(_) => {}
            }
        }
        if !(0..=100).contains(&s.priority) {
            errors.push(err(
                i,
                "priority",
                "invalid-value",
                format!("priority {} is outside the supported range [0, 100]", s.priority),
                "an integer from 0 to 100",
            ));
        }
        match s.action.as_str() {
            REPLACE => {}
            REBOOT => errors.push(err(
                i,
                "action",
                "unsupported-repair-action",
                "action RebootNode reboots the node in place through the provider's reboot lifecycle, which nodecast does not model".into(),
                "ReplaceNode",
            )),
            a => errors.push(err(
                i,
                "action",
                "invalid-value",
                format!("unsupported action {a:?}"),
                "ReplaceNode (or RebootNode, which nodecast does not model)",
            )),
        }
        if s.reason_regex.is_empty() {
            if let Some(first) = fallback {
                errors.push(err(
                    i,
                    "reasonRegex",
                    "invalid-repair-policies",
                    format!("the set has multiple default fallbacks (empty reasonRegex): [{first}] and [{i}]"),
                    "give every policy but one a reasonRegex",
                ));
            } else {
                fallback = Some(i);
                if s.action != REPLACE {
                    errors.push(err(
                        i,
                        "action",
                        "invalid-repair-policies",
                        format!("the default fallback policy must use action {REPLACE}"),
                        REPLACE,
                    ));
                }
            }
        } else if let Err(e) = regex_lite::Regex::new(&s.reason_regex) {
            errors.push(err(
                i,
                "reasonRegex",
                "invalid-regex",
                format!("{:?} does not compile: {e}", s.reason_regex),
                "a Go (RE2) regular expression",
            ));
        }
    }
    if fallback.is_none() {
        errors.push(
            InputError::new(
                "invalid-repair-policies",
                "the repair policy set must define one default fallback (a policy with an empty reasonRegex)",
            )
            .path("settings.repairPolicies")
            .help("add a policy without reasonRegex, action ReplaceNode"),
        );
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(t: &str, s: &str, re: &str) -> RepairPolicySpec {
        RepairPolicySpec {
            condition_type: t.into(),
            condition_status: s.into(),
            reason_regex: re.into(),
            toleration_duration: "30m".into(),
            termination_grace_period: None,
            priority: 0,
            action: REPLACE.into(),
        }
    }

    fn paths(specs: &[RepairPolicySpec]) -> Vec<String> {
        check(specs).into_iter().map(|e| e.path.unwrap_or_default()).collect()
    }

    #[test]
    fn the_test_providers_one_fallback_is_valid() {
        assert!(check(&[spec("BadNode", "False", "")]).is_empty());
    }

    #[test]
    fn every_refusal_is_located() {
        assert_eq!(paths(&[]), ["settings.repairPolicies"]);
        // No fallback.
        assert_eq!(paths(&[spec("A", "False", "x")]), ["settings.repairPolicies"]);
        let mut bad = spec("", "Maybe", "");
        bad.toleration_duration = "-1m".into();
        bad.termination_grace_period = Some("ten".into());
        bad.priority = 101;
        assert_eq!(
            paths(&[bad]),
            [
                "settings.repairPolicies[0].conditionType",
                "settings.repairPolicies[0].conditionStatus",
                "settings.repairPolicies[0].tolerationDuration",
                "settings.repairPolicies[0].terminationGracePeriod",
                "settings.repairPolicies[0].priority",
            ]
        );
        assert_eq!(paths(&[spec("A", "False", ""), spec("B", "False", "")]), ["settings.repairPolicies[1].reasonRegex"]);
        assert_eq!(paths(&[spec("A", "False", ""), spec("B", "False", "(")]), ["settings.repairPolicies[1].reasonRegex"]);
        let mut reboot = spec("A", "False", "");
        reboot.action = REBOOT.into();
        let errs = check(&[reboot]);
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(errs.iter().any(|e| e.code == "unsupported-repair-action"));
    }

    #[test]
    fn ranks_are_dense_and_durations_round_up() {
        let mut a = spec("A", "False", "x");
        a.priority = 90;
        a.toleration_duration = "1.5s".into();
        let mut b = spec("B", "False", "");
        b.priority = 10;
        let set = PolicySet::of(Some(&[a, b]));
        assert_eq!(set.policies.iter().map(|p| (p.rank, p.toleration)).collect::<Vec<_>>(), [(1, 2), (0, 1800)]);
        assert_eq!(set.fallback, Some(1));
        assert!(set.keyed("A", "False") && set.keyed("B", "False") && !set.keyed("A", "True"));
    }
}
