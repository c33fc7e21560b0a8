//! Plain Pod objects lowered from their typed, borrowed shape (`manifest::typed`) instead of a
//! walk over a `serde_json::Value` (issue 35: lowering 100,000 separate Pods was the largest part
//! of the GPU case).
//!
//! The typed path is a fast path only: it takes a Pod when the typed shape holds it and the tree
//! way (`lower_pod::lower_pod`, `Lowering::pod`) would report nothing about it, and it then makes
//! the same `Pod` by the same steps in the same order (the interner numbers strings in the order
//! they are first seen, and later orders follow from those numbers). Everything the tree way
//! could refuse is checked first, before anything is interned, and any doubt returns `false`:
//! the document then goes the tree way, which gives the located errors and the notes.
//! `typed_tests` compares both ways on every example, conformance and test input.

use super::lower_pod::{self, Meta};
use super::*;
use crate::manifest::typed::{self, Pairs, PodDoc};
use crate::requirements::Requirements;

impl Lowering {
    /// Lower `doc` the typed way; `false` (nothing changed) when it must go the tree way.
    pub(super) fn typed_pod(&mut self, doc: &PodDoc, document: usize) -> bool {
        #[cfg(test)]
        if super::typed_tests::TREE_ONLY.with(|c| c.get()) {
            return false;
        }
        if !takes(doc) || self.pods.len() as i64 >= MAX_REQUEST_PODS {
            return false;
        }
        let created = doc.metadata.creation_timestamp.and_then(|t| t.parse::<jiff::Timestamp>().ok()).map(|t| t.as_second());
        let owned =
            |p: &Option<Pairs>| p.as_ref().map(|p| p.0.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()).unwrap_or_default();
        let mut meta = Meta {
            name: doc.metadata.name.to_string(),
            namespace: doc.metadata.namespace.unwrap_or("default").to_string(),
            labels: owned(&doc.metadata.labels),
            annotations: owned(&doc.metadata.annotations),
            created,
            uid: doc.metadata.uid.unwrap_or_default().to_string(),
            owner: None,
            deleting: false,
            statefulset_owned: false,
        };
        // `read_meta`'s reading of the references: the managing controller is the one with
        // `controller: true`, else the first stands for the owner.
        let refs: &[typed::OwnerRef] = doc.metadata.owner_references.as_deref().unwrap_or_default();
        let controller = refs.iter().find(|r| r.controller == Some(true));
        meta.statefulset_owned = refs.iter().any(|r| r.kind == Some("StatefulSet") && r.api_version == Some("apps/v1"));
        meta.owner = controller.or(refs.first()).map(|r| (r.kind.unwrap_or_default().to_string(), r.name.unwrap_or_default().to_string()));
        let mut pod = lower_pod::pod_of_meta(&meta, &mut self.interner, document);
        // No priority, class or policy of its own (the typed shape has none): the global
        // default class's, as admission gives it.
        let (priority, class_never) = self.priority_classes.default_class().map_or((None, false), |(v, never)| (Some(v), never));
        lower_pod::set_priority(&mut pod, &meta, priority, class_never, None);
        if let Some(spec) = &doc.spec {
            self.typed_spec(spec, &mut pod);
        }
        let phase = doc.status.as_ref().and_then(|s| s.phase).unwrap_or("");
        pod.terminal = phase == "Succeeded" || phase == "Failed";
        let phase = match phase {
            "Succeeded" => owners::Phase::Succeeded,
            "Failed" => owners::Phase::Failed,
            _ => owners::Phase::Active,
        };
        self.explicit.push((self.pods.len(), phase));
        if let Some(r) = controller {
            let text = |s: Option<&str>| s.unwrap_or_default().to_string();
            self.default_spread.controller_of(self.pods.len(), (text(r.api_version), text(r.kind), text(r.name)));
        }
        self.pods.push(pod);
        true
    }

    /// `lower_pod::lower_pod`'s steps after the priority, for a spec [`takes`] accepted.
    fn typed_spec(&mut self, spec: &typed::PodSpec, pod: &mut Pod) {
        pod.node_name = spec.node_name.filter(|s| !s.is_empty()).map(str::to_string);
        pod.requests = self.typed_requests(spec);
        let interner = &mut self.interner;
        if let Some(ns) = &spec.node_selector {
            for (k, v) in &ns.0 {
                let key = labels::normalize_key(k);
                if labels::is_restricted(key) {
                    pod.ignored.get_or_insert(format!("nodeSelector uses restricted label {key:?}"));
                }
                let kid = interner.intern(key);
                let vid = interner.intern(v);
                pod.node_selector.add(kid, Requirement::in_values([vid]), interner);
            }
        }
        let terms =
            spec.affinity.as_ref().and_then(|a| a.node_affinity.as_ref()).and_then(|n| n.required.as_ref()).and_then(|r| r.terms.as_ref());
        for term in terms.into_iter().flatten() {
            let mut reqs = Requirements::new();
            for e in term.match_expressions.iter().flatten() {
                let key = labels::normalize_key(e.key.unwrap_or_default());
                let op = lower_pod::requirement_operator(e.operator.unwrap_or_default()).expect("checked by `takes`");
                let values: &[&str] = e.values.as_deref().unwrap_or_default();
                let (k, r) = lower_pod::requirement_of(key, op, values, interner, &mut pod.ignored);
                reqs.add(k, r, interner);
            }
            pod.required_terms.push(reqs);
        }
        for t in spec.tolerations.iter().flatten() {
            pod.tolerations.push(crate::taints::Toleration {
                key: t.key.unwrap_or_default().to_string(),
                operator: lower_pod::toleration_op(t.operator).expect("checked by `takes`"),
                value: t.value.unwrap_or_default().to_string(),
                effect: t.effect.filter(|e| !e.is_empty()).and_then(crate::taints::Effect::parse),
            });
        }
        lower_pod::mark_opt_out(pod, interner);
    }

    /// `lower_pod::effective_requests` for the typed shape: no init containers and no overhead.
    fn typed_requests(&mut self, spec: &typed::PodSpec) -> Resources {
        let mut regular = Resources::new();
        for c in spec.containers.iter().flatten() {
            let mut r = Resources::new();
            if let Some(res) = &c.resources {
                let requested: &[(&str, &str)] = res.requests.as_ref().map_or(&[], |p| &p.0);
                for (k, v) in requested {
                    let q = crate::manifest::reader::quantity_milli(v).expect("checked by `takes`");
                    r.set(self.resources.intern(k), q);
                }
                for (k, v) in res.limits.iter().flat_map(|p| &p.0) {
                    let q = crate::manifest::reader::quantity_milli(v).expect("checked by `takes`");
                    if !requested.iter().any(|(s, _)| s == k) {
                        r.set(self.resources.intern(k), q);
                    }
                }
            }
            regular.add(&r);
        }
        let mut total = regular;
        total.max_with(&Resources::new());
        let pod_requests = spec.resources.as_ref().and_then(|r| r.requests.as_ref());
        for (k, v) in pod_requests.iter().flat_map(|p| &p.0) {
            if *k == "cpu" || *k == "memory" {
                let q = crate::manifest::reader::quantity_milli(v).expect("checked by `takes`");
                total.set(self.resources.intern(k), q);
            }
        }
        total.set(PODS, 1000);
        total
    }
}

/// Whether the tree way would lower `doc` without an error: a name (the object header), a valid
/// creation timestamp, valid
/// quantities (whole ones for extended resources), known toleration operators and effects, and
/// node-selector requirements with a key, a known operator and a valid bound.
pub(super) fn takes(doc: &PodDoc) -> bool {
    let quantity = |k: &str, v: &str| crate::manifest::reader::quantity_milli(v).is_some_and(|q| lower_pod::whole_or_not_extended(k, q));
    let pairs_ok = |p: &Option<Pairs>| p.iter().flat_map(|p| &p.0).all(|(k, v)| quantity(k, v));
    let timestamp_ok = doc.metadata.creation_timestamp.is_none_or(|t| t.parse::<jiff::Timestamp>().is_ok());
    if doc.metadata.name.is_empty() || !timestamp_ok {
        return false;
    }
    let Some(spec) = &doc.spec else { return true };
    let containers_ok =
        spec.containers.iter().flatten().all(|c| c.resources.as_ref().is_none_or(|r| pairs_ok(&r.requests) && pairs_ok(&r.limits)));
    let pod_level_ok = spec.resources.as_ref().and_then(|r| r.requests.as_ref()).is_none_or(|p| {
        p.0.iter().filter(|(k, _)| *k == "cpu" || *k == "memory").all(|(_, v)| crate::manifest::reader::quantity_milli(v).is_some())
    });
    let tolerations_ok = spec.tolerations.iter().flatten().all(|t| {
        lower_pod::toleration_op(t.operator).is_some() && t.effect.is_none_or(|e| e.is_empty() || crate::taints::Effect::parse(e).is_some())
    });
    let terms =
        spec.affinity.as_ref().and_then(|a| a.node_affinity.as_ref()).and_then(|n| n.required.as_ref()).and_then(|r| r.terms.as_ref());
    let expressions_ok = terms.into_iter().flatten().flat_map(|t| t.match_expressions.iter().flatten()).all(|e| {
        e.key.is_some()
            && lower_pod::requirement_operator(e.operator.unwrap_or_default())
                .is_some_and(|op| !lower_pod::bad_bound(op, e.values.as_deref().unwrap_or_default()))
    });
    containers_ok && pod_level_ok && tolerations_ok && expressions_ok
}
