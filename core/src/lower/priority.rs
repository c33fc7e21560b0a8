//! PriorityClasses and a pod's priority as Kubernetes' Priority admission plugin resolves it
//! (kubernetes plugin/pkg/admission/priority/admission.go, scheduling/v1 types), in nodecast's
//! words:
//! - a pod naming `spec.priorityClassName` gets that class's `value`, and its
//!   `preemptionPolicy` when the pod sets none; a name no class has (and not one of the two
//!   built-in classes, `system-cluster-critical` 2000000000 and `system-node-critical`
//!   2000001000) is rejected;
//! - a pod naming none gets the global default class (`globalDefault: true`; with several, the
//!   lowest value), else priority 0 — nodecast keeps "none" (`None`), which every reader takes
//!   as 0;
//! - a pod that states `spec.priority` keeps it (what admission already resolved, as a live
//!   cluster's pods show it).
//!
//! The Cluster Autoscaler's expendable pods (`cluster_autoscaler::is_expendable`) and
//! Karpenter's eviction order read the resolved priority.

use crate::manifest::Document;
use serde_json::Value;

/// The built-in classes every cluster has (pkg/apis/scheduling: SystemClusterCritical,
/// SystemNodeCritical).
const BUILT_IN: [(&str, i64); 2] = [("system-cluster-critical", 2_000_000_000), ("system-node-critical", 2_000_001_000)];

/// One PriorityClass of the input.
#[derive(Debug, Clone, PartialEq)]
struct Class {
    name: String,
    value: i64,
    global_default: bool,
    preemption_never: bool,
}

/// The PriorityClasses of the input, read before any pod (they may come after it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriorityClasses {
    classes: Vec<Class>,
}

/// What a pod's priority resolved to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved {
    /// The class's value, and whether its preemption policy is `Never`.
    Class(i64, bool),
    /// No class of that name: admission rejects the pod.
    Unknown,
}

pub fn is_priority_class(d: &Document) -> bool {
    d.kind() == "PriorityClass" && d.api_version().starts_with("scheduling.k8s.io/")
}

impl PriorityClasses {
    /// Every PriorityClass among `docs` (a value that is not an integer is reported when the
    /// document itself is lowered, `check`).
    pub fn collect(docs: &[Document]) -> PriorityClasses {
        let classes = docs
            .iter()
            .filter(|d| is_priority_class(d))
            .filter_map(|d| {
                let value = d.value.get("value").and_then(Value::as_i64)?;
                Some(Class {
                    name: d.name().to_string(),
                    value,
                    global_default: d.value.get("globalDefault").and_then(Value::as_bool) == Some(true),
                    preemption_never: d.value.get("preemptionPolicy").and_then(Value::as_str) == Some("Never"),
                })
            })
            .collect();
        PriorityClasses { classes }
    }

    /// The priority of a pod naming class `name`.
    pub fn named(&self, name: &str) -> Resolved {
        if let Some(c) = self.classes.iter().find(|c| c.name == name) {
            return Resolved::Class(c.value, c.preemption_never);
        }
        match BUILT_IN.iter().find(|(n, _)| *n == name) {
            Some(&(_, v)) => Resolved::Class(v, false),
            None => Resolved::Unknown,
        }
    }

    /// The global default class's (value, preemption Never) for a pod naming none.
    pub fn default_class(&self) -> Option<(i64, bool)> {
        self.classes.iter().filter(|c| c.global_default).min_by_key(|c| c.value).map(|c| (c.value, c.preemption_never))
    }

    /// The names known, for an error's help.
    pub fn names(&self) -> Vec<String> {
        self.classes.iter().map(|c| c.name.clone()).chain(BUILT_IN.iter().map(|(n, _)| n.to_string())).collect()
    }
}
