//! Karpenter's `--scheduler-config` (`settings.schedulerConfig`): the parts of kube-scheduler's
//! configuration Karpenter mirrors, in v1.15.0 only `podTopologySpread.defaultConstraints`
//! (sigs.k8s.io/karpenter@v1.15.0 pkg/operator/options/options.go `SchedulerConfiguration`).
//!
//! A default constraint applies to every pod Karpenter schedules that declares no
//! topologySpreadConstraints of its own, with a label selector deduced per pod from the Services
//! selecting it and its controller (pkg/controllers/provisioning/scheduling/defaultconstraints.go;
//! the lowering side is `lower::default_spread`). The configuration is validated as Karpenter's
//! `SchedulerConfiguration.Validate` does (mirroring kube-scheduler's
//! `ValidatePodTopologySpreadArgs`): maxSkew > 0, a topologyKey that is a qualified name,
//! whenUnsatisfiable DoNotSchedule or ScheduleAnyway, no labelSelector and no matchLabelKeys
//! (the selector is deduced), no two constraints with the same key and whenUnsatisfiable.

use crate::error::InputError;
use serde::{Deserialize, Serialize};

/// `--scheduler-config`, as Karpenter decodes it (unknown fields refused).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SchedulerConfig {
    /// kube-scheduler's PodTopologySpread plugin arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_topology_spread: Option<PodTopologySpreadConfig>,
}

/// The PodTopologySpread plugin arguments Karpenter mirrors.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PodTopologySpreadConfig {
    /// Applied to pods that declare no topologySpreadConstraints.
    #[serde(default)]
    pub default_constraints: Vec<DefaultConstraint>,
}

/// One default constraint: a pod topologySpreadConstraint without a selector.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DefaultConstraint {
    /// At least 1.
    #[serde(default)]
    pub max_skew: i64,
    /// A qualified label name, e.g. `topology.kubernetes.io/zone`.
    #[serde(default)]
    pub topology_key: String,
    /// `DoNotSchedule` or `ScheduleAnyway` (required).
    #[serde(default)]
    pub when_unsatisfiable: String,
    /// As a pod's minDomains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_domains: Option<i64>,
    /// `Honor` (default) or `Ignore`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_affinity_policy: Option<String>,
    /// `Honor` or `Ignore` (default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_taints_policy: Option<String>,
    /// Refused: the selector is deduced for each pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<serde_json::Value>,
    /// Refused: it has no effect on default constraints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_label_keys: Vec<String>,
}

impl SchedulerConfig {
    /// The default constraints (empty: none configured, nothing is injected).
    pub fn default_constraints(&self) -> &[DefaultConstraint] {
        self.pod_topology_spread.as_ref().map_or(&[], |p| p.default_constraints.as_slice())
    }
}

/// Whether `key` is a Kubernetes qualified name: an optional DNS-1123 subdomain prefix and `/`,
/// then 1–63 alphanumerics, `-`, `_`, `.`, starting and ending alphanumeric.
fn qualified_name(key: &str) -> bool {
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    let name_ok = !name.is_empty()
        && name.len() <= 63
        && name.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        && name.as_bytes()[0].is_ascii_alphanumeric()
        && name.as_bytes()[name.len() - 1].is_ascii_alphanumeric();
    let prefix_ok = prefix.is_none_or(|p| {
        !p.is_empty()
            && p.len() <= 253
            && p.split('.').all(|l| {
                !l.is_empty()
                    && l.len() <= 63
                    && l.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
                    && l.as_bytes()[0].is_ascii_alphanumeric()
                    && l.as_bytes()[l.len() - 1].is_ascii_alphanumeric()
            })
    });
    name_ok && prefix_ok
}

/// The errors Karpenter's `ParseSchedulerConfiguration` reports, located at
/// `settings.schedulerConfig.podTopologySpread.defaultConstraints[i].<field>`.
pub fn check(c: &SchedulerConfig) -> Vec<InputError> {
    let mut errors = Vec::new();
    let list = c.default_constraints();
    for (i, d) in list.iter().enumerate() {
        let at = |field: &str| format!("settings.schedulerConfig.podTopologySpread.defaultConstraints[{i}].{field}");
        let mut err = |field: &str, code: &str, message: String, help: &str| {
            errors.push(InputError::new(code, message).path(at(field)).help(help.to_string()));
        };
        if d.max_skew <= 0 || d.max_skew > i64::from(i32::MAX) {
            err("maxSkew", "invalid-value", format!("maxSkew {} must be greater than 0 (int32)", d.max_skew), "maxSkew: 1");
        }
        if d.topology_key.is_empty() {
            err("topologyKey", "required", "topologyKey must be set".into(), "topologyKey: topology.kubernetes.io/zone");
        } else if !qualified_name(&d.topology_key) {
            err(
                "topologyKey",
                "invalid-label",
                format!("topologyKey {:?} is not a valid label name", d.topology_key),
                "a qualified label name",
            );
        }
        if !matches!(d.when_unsatisfiable.as_str(), "DoNotSchedule" | "ScheduleAnyway") {
            err(
                "whenUnsatisfiable",
                "invalid-value",
                format!("whenUnsatisfiable {:?} must be one of \"DoNotSchedule\" or \"ScheduleAnyway\"", d.when_unsatisfiable),
                "DoNotSchedule or ScheduleAnyway",
            );
        }
        if let Some(m) = d.min_domains {
            if m <= 0 || m > i64::from(i32::MAX) {
                err("minDomains", "invalid-value", format!("minDomains {m} must be greater than 0"), "minDomains: 3, or leave it out");
            }
        }
        for (field, v) in [("nodeAffinityPolicy", &d.node_affinity_policy), ("nodeTaintsPolicy", &d.node_taints_policy)] {
            if let Some(v) = v {
                if !matches!(v.as_str(), "Honor" | "Ignore") {
                    err(field, "invalid-value", format!("{field} {v:?} is not Honor or Ignore"), "Honor or Ignore");
                }
            }
        }
        if d.label_selector.is_some() {
            err(
                "labelSelector",
                "invalid-value",
                "labelSelector must not be set, as selectors are deduced for each pod".into(),
                "leave it out",
            );
        }
        if !d.match_label_keys.is_empty() {
            err(
                "matchLabelKeys",
                "invalid-value",
                "matchLabelKeys must not be set, as it has no effect on default constraints".into(),
                "leave it out",
            );
        }
        if let Some(j) = list[..i].iter().position(|o| o.topology_key == d.topology_key && o.when_unsatisfiable == d.when_unsatisfiable) {
            err(
                "topologyKey",
                "duplicate",
                format!("a duplicate of [{j}], {{{}, {}}}", d.topology_key, d.when_unsatisfiable),
                "one constraint per topologyKey and whenUnsatisfiable",
            );
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone() -> DefaultConstraint {
        DefaultConstraint {
            max_skew: 1,
            topology_key: "topology.kubernetes.io/zone".into(),
            when_unsatisfiable: "DoNotSchedule".into(),
            ..Default::default()
        }
    }

    fn config(list: Vec<DefaultConstraint>) -> SchedulerConfig {
        SchedulerConfig { pod_topology_spread: Some(PodTopologySpreadConfig { default_constraints: list }) }
    }

    #[test]
    fn karpenters_refusals_are_located() {
        assert!(check(&config(vec![zone()])).is_empty());
        let mut bad = zone();
        bad.max_skew = 0;
        bad.topology_key = "-bad".into();
        bad.when_unsatisfiable = String::new();
        bad.label_selector = Some(serde_json::json!({"matchLabels": {"app": "x"}}));
        bad.match_label_keys = vec!["pod-template-hash".into()];
        bad.min_domains = Some(0);
        let paths: Vec<String> = check(&config(vec![zone(), bad, zone()])).into_iter().filter_map(|e| e.path).collect();
        let at = |i: usize, f: &str| format!("settings.schedulerConfig.podTopologySpread.defaultConstraints[{i}].{f}");
        assert_eq!(
            paths,
            [
                at(1, "maxSkew"),
                at(1, "topologyKey"),
                at(1, "whenUnsatisfiable"),
                at(1, "minDomains"),
                at(1, "labelSelector"),
                at(1, "matchLabelKeys"),
                at(2, "topologyKey"),
            ]
        );
    }

    #[test]
    fn qualified_names() {
        for ok in ["topology.kubernetes.io/zone", "kubernetes.io/hostname", "zone", "a_b.c-d"] {
            assert!(qualified_name(ok), "{ok}");
        }
        for bad in ["", "/zone", "Bad.Prefix/zone", "zone-", "a/b/c", &"x".repeat(64)] {
            assert!(!qualified_name(bad), "{bad}");
        }
    }
}
