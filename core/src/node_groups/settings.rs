//! The Cluster Autoscaler's own settings: a small nodecast document carrying the flags that
//! change scale-up decisions (named as the flags are, camelCased), and the priority expander's
//! ConfigMap exactly as the Cluster Autoscaler reads it
//! (cluster-autoscaler/expander/priority/priority.go: ConfigMap
//! `cluster-autoscaler-priority-expander`, key `priorities`, a YAML mapping of integer priority
//! to a list of regular expressions matched against node group names).
//!
//! ```yaml
//! apiVersion: nodecast/v1
//! kind: ClusterAutoscalerSettings
//! expander: priority,least-waste     # --expander
//! maxNodesPerScaleUp: 1000           # --max-nodes-per-scaleup
//! maxNodesTotal: 0                   # --max-nodes-total (0: no limit)
//! scaleDownUtilizationThreshold: 0.5 # read for scale-down (not modelled yet)
//! ```

use crate::error::InputError;
use crate::manifest::reader::{At, Sink};
use crate::manifest::Document;

/// One expander of the `--expander` chain (cluster-autoscaler/expander/expander.go names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Expander {
    /// The default: the option wasting the least CPU and memory of its new nodes.
    LeastWaste,
    /// The node groups the priority ConfigMap ranks highest.
    Priority,
    /// The option scheduling the most pods.
    MostPods,
    /// The option adding the fewest nodes.
    LeastNodes,
    /// Any option, at random.
    Random,
}

impl Expander {
    /// The name `--expander` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Expander::LeastWaste => "least-waste",
            Expander::Priority => "priority",
            Expander::MostPods => "most-pods",
            Expander::LeastNodes => "least-nodes",
            Expander::Random => "random",
        }
    }
}

/// One priority of the ConfigMap: node groups whose name any pattern matches (Go's
/// `FindStringIndex`: a match anywhere in the name).
#[derive(Debug, Clone)]
pub struct PriorityRule {
    /// The priority (higher wins).
    pub priority: i64,
    /// Node group name patterns.
    pub patterns: Vec<regex_lite::Regex>,
}

/// The Cluster Autoscaler's settings that change its scale-up, with its defaults
/// (cluster-autoscaler/config/flags: expander least-waste, max-nodes-per-scaleup 1000,
/// max-nodes-total 0, scale-down-utilization-threshold 0.5, scale-down-gpu-utilization-threshold
/// 0.5, scale-down-unneeded-time 10m, scale-down-delay-after-add 10m).
#[derive(Debug, Clone)]
pub struct CaSettings {
    /// The `--expander` chain, in order.
    pub expanders: Vec<Expander>,
    /// `--max-nodes-per-scaleup`.
    pub max_nodes_per_scale_up: i64,
    /// 0: no limit.
    pub max_nodes_total: i64,
    /// Read for scale-down, which nodecast does not model for node groups yet.
    pub scale_down_utilization_threshold: f64,
    /// `--scale-down-gpu-utilization-threshold`.
    pub scale_down_gpu_utilization_threshold: f64,
    /// Seconds.
    pub scale_down_unneeded_time: i64,
    /// `--scale-down-delay-after-add`, seconds.
    pub scale_down_delay_after_add: i64,
    /// Whether the input set any scale-down setting (the answer says it is not used yet).
    pub scale_down_given: bool,
    /// The priority ConfigMap's rules, highest first; None when no ConfigMap was given.
    pub priorities: Option<Vec<PriorityRule>>,
    /// `--expendable-pods-priority-cutoff` (-10): pods of a lower priority are invisible to the
    /// Cluster Autoscaler (no scale-up for them; they neither count nor block in scale-down).
    pub expendable_pods_priority_cutoff: i64,
}

impl Default for CaSettings {
    fn default() -> Self {
        CaSettings {
            expanders: vec![Expander::LeastWaste],
            max_nodes_per_scale_up: 1000,
            max_nodes_total: 0,
            scale_down_utilization_threshold: 0.5,
            scale_down_gpu_utilization_threshold: 0.5,
            scale_down_unneeded_time: 600,
            scale_down_delay_after_add: 600,
            scale_down_given: false,
            priorities: None,
            expendable_pods_priority_cutoff: -10,
        }
    }
}

pub fn is_settings(d: &Document) -> bool {
    d.kind() == "ClusterAutoscalerSettings"
}

pub fn is_priority_config_map(d: &Document) -> bool {
    d.kind() == "ConfigMap" && d.name() == "cluster-autoscaler-priority-expander"
}

pub fn duplicate(d: &Document, what: &str) -> InputError {
    InputError::new("duplicate-settings", format!("{what}; give one")).at_document(d.index).object(d.object())
}

pub fn read(d: &Document, s: &mut CaSettings, errors: &mut Vec<InputError>) {
    let object = || d.object();
    let mut sink = Sink { document: d.index, object: &object, errors };
    let root = At::root(&d.value, "");
    if d.api_version() != "nodecast/v1" {
        let at = root.get("apiVersion").unwrap_or(root);
        sink.error(&at, "unsupported-api-version", format!("apiVersion {:?}", d.api_version()), "nodecast/v1");
    }
    let known = [
        "apiVersion",
        "kind",
        "metadata",
        "expander",
        "maxNodesPerScaleUp",
        "maxNodesTotal",
        "balanceSimilarNodeGroups",
        "scaleDownUtilizationThreshold",
        "scaleDownGpuUtilizationThreshold",
        "scaleDownUnneededTime",
        "scaleDownDelayAfterAdd",
        "expendablePodsPriorityCutoff",
    ];
    for (k, at) in sink.map(&root) {
        if !known.contains(&k) {
            sink.error(&at, "unknown-field", format!("unknown Cluster Autoscaler setting {k:?}"), known[3..].join(", "));
        }
    }
    if let Some(at) = root.get("expander") {
        if let Some(text) = sink.scalar(&at) {
            let mut chain = Vec::new();
            for name in text.split(',') {
                let e = match name.trim() {
                    "least-waste" => Expander::LeastWaste,
                    "priority" => Expander::Priority,
                    "most-pods" => Expander::MostPods,
                    "least-nodes" => Expander::LeastNodes,
                    "random" => Expander::Random,
                    "price" => {
                        sink.error(
                            &at,
                            "not-available",
                            "the price expander is not available on AWS (the provider has no pricing model)",
                            "least-waste, priority, most-pods, least-nodes, random",
                        );
                        continue;
                    }
                    other => {
                        sink.error(
                            &at,
                            "invalid-expander",
                            format!("unknown expander {other:?}"),
                            "least-waste, priority, most-pods, least-nodes, random",
                        );
                        continue;
                    }
                };
                if chain.contains(&e) {
                    sink.error(&at, "invalid-expander", format!("expander {} is listed twice", e.as_str()), "each expander once");
                }
                chain.push(e);
            }
            if !chain.is_empty() {
                s.expanders = chain;
            }
        }
    }
    if let Some(at) = root.get("maxNodesPerScaleUp") {
        s.max_nodes_per_scale_up = sink.int_in(&at, 1, i32::MAX as i64, "a positive integer").unwrap_or(s.max_nodes_per_scale_up);
    }
    if let Some(at) = root.get("maxNodesTotal") {
        s.max_nodes_total = sink.int_in(&at, 0, i32::MAX as i64, "a non-negative integer").unwrap_or(0);
    }
    if let Some(at) = root.get("expendablePodsPriorityCutoff") {
        // A pod's priority is an int32.
        s.expendable_pods_priority_cutoff =
            sink.int_in(&at, i32::MIN as i64, i32::MAX as i64, "an integer priority").unwrap_or(s.expendable_pods_priority_cutoff);
    }
    if let Some(at) = root.get("balanceSimilarNodeGroups") {
        if sink.bool(&at) == Some(true) {
            sink.error(&at, "not-modelled", "balancing similar node groups is not modelled yet", "false (the default)");
        }
    }
    for (field, gpu) in [("scaleDownUtilizationThreshold", false), ("scaleDownGpuUtilizationThreshold", true)] {
        if let Some(at) = root.get(field) {
            s.scale_down_given = true;
            match sink.f64(&at, "a fraction between 0 and 1") {
                Some(x) if (0.0..=1.0).contains(&x) => {
                    if gpu {
                        s.scale_down_gpu_utilization_threshold = x;
                    } else {
                        s.scale_down_utilization_threshold = x;
                    }
                }
                Some(x) => sink.error(&at, "out-of-range", format!("{x} is not between 0 and 1"), "a fraction between 0 and 1"),
                None => {}
            }
        }
    }
    for (field, unneeded) in [("scaleDownUnneededTime", true), ("scaleDownDelayAfterAdd", false)] {
        if let Some(at) = root.get(field) {
            s.scale_down_given = true;
            if let Some(text) = sink.scalar(&at) {
                match crate::golang::duration_nanos(&text) {
                    Some(ns) if ns >= 0 => {
                        let secs = i64::try_from(ns / 1_000_000_000).unwrap_or(i64::MAX);
                        if unneeded {
                            s.scale_down_unneeded_time = secs;
                        } else {
                            s.scale_down_delay_after_add = secs;
                        }
                    }
                    _ => sink.error(&at, "invalid-duration", format!("{text:?} is not a duration"), "a Go duration such as 10m"),
                }
            }
        }
    }
}

pub fn read_priorities(d: &Document, s: &mut CaSettings, errors: &mut Vec<InputError>) {
    let object = || d.object();
    let mut sink = Sink { document: d.index, object: &object, errors };
    let root = At::root(&d.value, "");
    let Some(data) = root.get("data") else {
        sink.error(&root, "required", "the priority expander's ConfigMap has no data.priorities", "data.priorities");
        return;
    };
    let Some(at) = data.get("priorities") else {
        sink.error(&data, "required", "the priority expander's ConfigMap has no priorities key", "data.priorities");
        return;
    };
    let Some(text) = sink.scalar(&at) else { return };
    // Decoded with the manifests' bounded YAML reader (no alias bombs from a ConfigMap).
    let value: serde_json::Value = match crate::manifest::decode(&text, None) {
        Ok(docs) => docs.into_iter().next().map(|d| d.value.into_owned()).unwrap_or(serde_json::Value::Null),
        Err(e) => {
            let why = e.first().map(|e| e.message.clone()).unwrap_or_default();
            sink.error(
                &at,
                "yaml-syntax",
                format!("priorities is not YAML: {why}"),
                "a mapping of priority to a list of regular expressions",
            );
            return;
        }
    };
    let Some(map) = value.as_object() else {
        sink.error(&at, "wrong-type", "priorities must be a mapping of priority to a list of regular expressions", "10: [\".*\"]");
        return;
    };
    let mut rules: Vec<PriorityRule> = Vec::new();
    for (k, v) in map {
        let Ok(priority) = k.trim().parse::<i64>() else {
            sink.error(&at, "wrong-type", format!("priority {k:?} is not an integer"), "integer priorities");
            continue;
        };
        let list: Vec<String> = match v {
            serde_json::Value::Array(items) => {
                items.iter().map(|i| i.as_str().map(str::to_string).unwrap_or_else(|| i.to_string())).collect()
            }
            serde_json::Value::String(one) => vec![one.clone()],
            _ => {
                sink.error(&at, "wrong-type", format!("priority {priority}: expected a list of regular expressions"), "10: [\".*\"]");
                continue;
            }
        };
        let mut patterns = Vec::new();
        for p in list {
            match regex_lite::Regex::new(&p) {
                Ok(r) => patterns.push(r),
                Err(e) => {
                    sink.error(&at, "invalid-regex", format!("priority {priority}: {p:?} does not compile: {e}"), "a regular expression")
                }
            }
        }
        rules.push(PriorityRule { priority, patterns });
    }
    if rules.is_empty() && map.is_empty() {
        sink.error(&at, "required", "priorities is empty", "a mapping of priority to a list of regular expressions");
    }
    rules.sort_by_key(|r| std::cmp::Reverse(r.priority));
    s.priorities = Some(rules);
}
