//! Karpenter's default topology spread constraints (`--scheduler-config`,
//! crate::scheduler_config) applied to the pods of the input.
//!
//! Source: sigs.k8s.io/karpenter@v1.15.0 pkg/controllers/provisioning/scheduling/
//! defaultconstraints.go (`DefaultTopologySpreadInjector`), called by `Provisioner.NewScheduler`
//! on every pod it schedules — pending pods and, in disruption's simulation, the candidates'
//! pods. A pod with no topologySpreadConstraints of its own gets every default constraint, with
//! one label selector deduced for it the way kube-scheduler's `helper.DefaultSelector` does:
//! - the `spec.selector` of every Service in the pod's namespace that selects the pod (a nil
//!   selector selects nothing; an empty one selects every pod but adds no label), merged as
//!   equality matches, a later Service (the API server lists by name) winning a shared key;
//! - then the selector of the pod's controller: a ReplicationController's (`v1`) labels
//!   overwrite those keys; a ReplicaSet's or StatefulSet's (`apps/v1`) selector is ANDed on as
//!   expressions. Any other controller (a Job, a DaemonSet) adds nothing, and so does a controller
//!   the input does not hold (Karpenter cannot get it either).
//!
//! An empty result means no selector: the pod is left without constraints.
//!
//! nodecast's own workloads stand in for their controllers: the replicas of a Deployment take the
//! Deployment's selector (the ReplicaSet Kubernetes makes has that selector plus its
//! `pod-template-hash`, which every replica of one revision carries, so the same pods match),
//! those of a ReplicaSet or StatefulSet its own. DaemonSet pods are never scheduled by Karpenter
//! and get nothing.

use super::*;
use crate::labels::{KeyId, ValueId};
use crate::model::pod::SelectorOp;
use crate::scheduler_config::DefaultConstraint;
use smallvec::SmallVec;
use std::collections::{BTreeMap, HashMap};

/// A label selector as written: matchLabels and matchExpressions (key, operator, values).
#[derive(Debug, Clone, Default)]
pub(super) struct RawSelector {
    labels: Vec<(String, String)>,
    exprs: Vec<(String, String, Vec<String>)>,
}

/// A Service: (namespace, name, selector); None: no selector.
type Service = (String, String, Option<Vec<(String, String)>>);
/// A controller reference: (apiVersion, kind, name).
type ControllerRef = (String, String, String);
/// The deduction's inputs per pod: namespace, controller, labels.
type ShapeKey = (String, Option<ControllerRef>, Vec<(KeyId, ValueId)>);

/// What the documents say that the deduction reads, collected whatever the settings (cheap).
#[derive(Debug, Default)]
pub(super) struct Collected {
    /// (namespace, name, selector) of every Service; None: no selector.
    services: Vec<Service>,
    /// (namespace, kind, name) → selector of a Deployment / ReplicaSet / StatefulSet /
    /// ReplicationController.
    owners: HashMap<(String, String, String), RawSelector>,
    /// Explicit pods (by index into the pods): their controller reference (apiVersion, kind, name).
    controllers: HashMap<usize, ControllerRef>,
}

fn raw_selector(at: &At, sink: &mut Sink) -> RawSelector {
    let mut s = RawSelector::default();
    if let Some(ml) = at.get("matchLabels") {
        s.labels = sink.string_map(&ml);
    }
    if let Some(me) = at.get("matchExpressions") {
        for e in sink.list(&me) {
            let key = sink.opt_scalar(&e, "key").unwrap_or_default();
            let op = sink.opt_scalar(&e, "operator").unwrap_or_default();
            let values = e.get("values").map(|v| sink.string_list(&v)).unwrap_or_default();
            s.exprs.push((key, op, values));
        }
    }
    s
}

impl Collected {
    /// A `v1 Service`: its `spec.selector`.
    pub(super) fn service(&mut self, root: &At, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let spec = root.get("spec");
        let selector = spec.as_ref().and_then(|s| s.get("selector")).map(|s| sink.string_map(&s));
        self.services.push((meta.namespace, meta.name, selector));
    }

    /// A workload's `spec.selector` (a ReplicationController's is a plain label map).
    pub(super) fn owner(&mut self, root: &At, kind: &str, namespace: &str, name: &str, sink: &mut Sink) {
        let spec = root.get("spec");
        let Some(sel) = spec.as_ref().and_then(|s| s.get("selector")) else { return };
        let raw = if kind == "ReplicationController" {
            RawSelector { labels: sink.string_map(&sel), exprs: Vec::new() }
        } else {
            raw_selector(&sel, sink)
        };
        self.owners.insert((namespace.to_string(), kind.to_string(), name.to_string()), raw);
    }

    /// The controller reference of explicit pod `pod`, read from its typed shape (`typed_pod`).
    pub(super) fn controller_of(&mut self, pod: usize, reference: ControllerRef) {
        self.controllers.insert(pod, reference);
    }

    /// An explicit pod's controller reference (`controller: true`), by pod index.
    pub(super) fn controller(&mut self, pod: usize, root: &At, sink: &mut Sink) {
        let meta = root.get("metadata");
        let Some(refs) = meta.as_ref().and_then(|m| m.get("ownerReferences")) else { return };
        for r in sink.list(&refs) {
            if r.get("controller").is_some_and(|c| c.v.as_bool() == Some(true)) {
                let api = sink.opt_scalar(&r, "apiVersion").unwrap_or_default();
                let kind = sink.opt_scalar(&r, "kind").unwrap_or_default();
                let name = sink.opt_scalar(&r, "name").unwrap_or_default();
                self.controllers.insert(pod, (api, kind, name));
                return;
            }
        }
    }
}

/// The deduced selector of one pod, as (matchLabels, matchExpressions); None: nothing deduced.
fn deduce(c: &Collected, namespace: &str, labels: &BTreeMap<&str, &str>, controller: Option<(&str, &str, &str)>) -> Option<Selector0> {
    let mut match_labels: BTreeMap<String, String> = BTreeMap::new();
    let mut services: Vec<&Service> = c.services.iter().filter(|s| s.0 == namespace).collect();
    services.sort_by(|a, b| a.1.cmp(&b.1));
    for (_, _, sel) in services {
        let Some(sel) = sel else { continue };
        if sel.iter().all(|(k, v)| labels.get(k.as_str()) == Some(&v.as_str())) {
            for (k, v) in sel {
                match_labels.insert(k.clone(), v.clone());
            }
        }
    }
    let mut exprs: Vec<(String, String, Vec<String>)> = Vec::new();
    if let Some((api, kind, name)) = controller {
        let owner = c.owners.get(&(namespace.to_string(), kind.to_string(), name.to_string()));
        match (api, kind, owner) {
            ("v1", "ReplicationController", Some(o)) => {
                for (k, v) in &o.labels {
                    match_labels.insert(k.clone(), v.clone());
                }
            }
            ("apps/v1", "ReplicaSet" | "StatefulSet" | "Deployment", Some(o)) => {
                for (k, v) in &o.labels {
                    exprs.push((k.clone(), "In".into(), vec![v.clone()]));
                }
                exprs.extend(o.exprs.iter().cloned());
            }
            _ => {}
        }
    }
    if match_labels.is_empty() && exprs.is_empty() {
        return None;
    }
    Some((match_labels, exprs))
}

type Selector0 = (BTreeMap<String, String>, Vec<(String, String, Vec<String>)>);

fn intern_selector(s: &Selector0, interner: &mut Interner) -> Selector {
    let mut out = Selector::default();
    for (k, v) in &s.0 {
        out.exprs.push((interner.intern(k), SelectorOp::In, SmallVec::from_elem(interner.intern(v), 1)));
    }
    for (k, op, values) in &s.1 {
        let op = match op.as_str() {
            "In" => SelectorOp::In,
            "NotIn" => SelectorOp::NotIn,
            "Exists" => SelectorOp::Exists,
            "DoesNotExist" => SelectorOp::DoesNotExist,
            // An invalid operator: the workload's own lowering reports it; select nothing.
            _ => return Selector::nothing(),
        };
        out.exprs.push((interner.intern(k), op, values.iter().map(|v| interner.intern(v)).collect()));
    }
    out
}

/// Gives every pod without spreads of its own the default constraints with its deduced selector.
pub(super) fn inject(pods: &mut [Pod], c: &Collected, defaults: &[DefaultConstraint], interner: &mut Interner) {
    if defaults.is_empty() {
        return;
    }
    // Pods of one workload share their labels and controller: one deduction each.
    let mut cache: HashMap<ShapeKey, Option<Selector>> = HashMap::new();
    for (i, pod) in pods.iter_mut().enumerate() {
        if !pod.spread.is_empty() || pod.owned_by_daemonset {
            continue;
        }
        let controller: Option<ControllerRef> = match (&pod.workload, &pod.owner) {
            (Some(_), Some((kind, name))) if matches!(kind.as_str(), "Deployment" | "ReplicaSet" | "StatefulSet") => {
                Some(("apps/v1".into(), kind.clone(), name.clone()))
            }
            (Some(_), _) => None,
            (None, _) => c.controllers.get(&i).cloned(),
        };
        let key = (pod.namespace.clone(), controller.clone(), pod.labels.0.to_vec());
        let selector = cache
            .entry(key)
            .or_insert_with(|| {
                let strings: Vec<(String, String)> =
                    pod.labels.0.iter().map(|(k, v)| (interner.str(*k).to_string(), interner.str(*v).to_string())).collect();
                let labels: BTreeMap<&str, &str> = strings.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                let deduced =
                    deduce(c, &pod.namespace, &labels, controller.as_ref().map(|(a, k, n)| (a.as_str(), k.as_str(), n.as_str())))?;
                Some(intern_selector(&deduced, interner))
            })
            .clone();
        let Some(selector) = selector else { continue };
        let spread: Vec<SpreadConstraint> = defaults
            .iter()
            .map(|d| SpreadConstraint {
                max_skew: d.max_skew as i32,
                key: interner.intern(labels::normalize_key(&d.topology_key)),
                when_unsatisfiable: if d.when_unsatisfiable == "ScheduleAnyway" {
                    Unsatisfiable::ScheduleAnyway
                } else {
                    Unsatisfiable::DoNotSchedule
                },
                selector: selector.clone(),
                min_domains: d.min_domains.map(|m| m as i32),
                honor_node_affinity: d.node_affinity_policy.as_deref() != Some("Ignore"),
                honor_node_taints: d.node_taints_policy.as_deref() == Some("Honor"),
            })
            .collect();
        pod.spread = spread;
    }
}
