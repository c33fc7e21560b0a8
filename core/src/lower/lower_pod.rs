//! Lowering of pod specs (Pods, workload templates, DaemonSet templates) into `Pod`.

use crate::labels::{self, Interner, KeyId};
use crate::manifest::reader::{At, Sink};
use crate::model::pod::*;
use crate::requirements::{Operator, Requirement, Requirements};
use crate::resources::{ResourceNames, Resources, PODS};
use crate::taints::{Effect, Toleration, TolerationOp};
use smallvec::SmallVec;

pub struct Ctx<'a> {
    pub interner: &'a mut Interner,
    pub resources: &'a mut ResourceNames,
    /// The input's PriorityClasses, for pods naming one (priority.rs).
    pub priority_classes: &'a super::priority::PriorityClasses,
}

/// Metadata fields shared by every object.
pub struct Meta {
    pub name: String,
    pub namespace: String,
    pub labels: Vec<(String, String)>,
    pub annotations: Vec<(String, String)>,
    pub created: Option<i64>,
    pub uid: String,
    pub owner: Option<(String, String)>,
    pub deleting: bool,
    /// Some owner reference is `apps/v1` `StatefulSet` (any reference, controller or not:
    /// Karpenter's `IsOwnedByStatefulSet`, utils/pod/scheduling.go).
    pub statefulset_owned: bool,
}

pub fn read_meta(obj: &At, sink: &mut Sink) -> Meta {
    let mut m = Meta {
        name: String::new(),
        namespace: "default".into(),
        labels: vec![],
        annotations: vec![],
        created: None,
        uid: String::new(),
        owner: None,
        deleting: false,
        statefulset_owned: false,
    };
    let Some(meta) = obj.get("metadata") else { return m };
    m.name = sink.opt_scalar(&meta, "name").unwrap_or_default();
    if let Some(ns) = sink.opt_scalar(&meta, "namespace") {
        m.namespace = ns;
    }
    if let Some(l) = meta.get("labels") {
        m.labels = sink.string_map(&l);
    }
    if let Some(a) = meta.get("annotations") {
        m.annotations = sink.string_map(&a);
    }
    if let Some(t) = meta.get("creationTimestamp") {
        m.created = timestamp(&t, sink);
    }
    m.deleting = meta.get("deletionTimestamp").is_some();
    m.uid = sink.opt_scalar(&meta, "uid").unwrap_or_default();
    if let Some(refs) = meta.get("ownerReferences") {
        // The managing controller is the reference with `controller: true` (at most one, by
        // API validation); without one, the first reference stands for the owner.
        let list = sink.list(&refs);
        m.statefulset_owned = list.iter().any(|r| {
            sink.opt_scalar(r, "kind").as_deref() == Some("StatefulSet") && sink.opt_scalar(r, "apiVersion").as_deref() == Some("apps/v1")
        });
        let controller = list.iter().position(|r| r.get("controller").is_some_and(|c| c.v.as_bool() == Some(true)));
        if let Some(r) = list.get(controller.unwrap_or(0)) {
            let kind = sink.opt_scalar(r, "kind").unwrap_or_default();
            let name = sink.opt_scalar(r, "name").unwrap_or_default();
            m.owner = Some((kind, name));
        }
    }
    m
}

/// RFC 3339 timestamp → unix seconds.
pub fn timestamp(at: &At, sink: &mut Sink) -> Option<i64> {
    let s = sink.scalar(at)?;
    match s.parse::<jiff::Timestamp>() {
        Ok(t) => Some(t.as_second()),
        Err(_) => {
            sink.error(at, "invalid-timestamp", format!("{s:?} is not an RFC 3339 timestamp"), "e.g. 2025-03-01T08:00:00Z");
            None
        }
    }
}

/// A pod's `karpenter.sh/do-not-disrupt` value other than "true": Ok(nanoseconds) for a
/// positive Go duration, Err(the value) for anything else; None when absent or "true".
pub fn do_not_disrupt_duration(annotations: &[(String, String)]) -> Option<Result<i64, String>> {
    let (_, v) = annotations.iter().find(|(k, _)| k == labels::DO_NOT_DISRUPT)?;
    if v == "true" {
        return None;
    }
    Some(crate::golang::duration_nanos(v).filter(|d| *d > 0 && *d <= i64::MAX as i128).map(|d| d as i64).ok_or_else(|| v.clone()))
}

pub fn has_true_annotation(annotations: &[(String, String)], key: &str) -> bool {
    annotations.iter().any(|(k, v)| k == key && v == "true")
}

/// A pod of `meta` before anything of its spec: labels, namespace, owner, do-not-disrupt, and a
/// request of one pod. Shared with the typed Pod path (`typed_pod`): the labels and the namespace
/// are interned first, in this order, whichever way the pod is read.
pub(super) fn pod_of_meta(meta: &Meta, interner: &mut Interner, document: usize) -> Pod {
    let labels = LabelSet::from_pairs(meta.labels.iter().map(|(k, v)| (interner.intern(k), interner.intern(v))).collect());
    let dnd = do_not_disrupt_duration(&meta.annotations);
    let spec_part = PodSpec {
        namespace: meta.namespace.clone(),
        namespace_id: interner.intern(&meta.namespace),
        labels,
        do_not_disrupt: has_true_annotation(&meta.annotations, labels::DO_NOT_DISRUPT),
        do_not_disrupt_for: dnd.clone().and_then(Result::ok),
        do_not_disrupt_invalid: dnd.and_then(Result::err),
        owner: meta.owner.clone(),
        requests: Resources::new(),
        node_selector: Requirements::new(),
        required_terms: Vec::new(),
        preferred_terms: Vec::new(),
        tolerations: Vec::new(),
        spread: Vec::new(),
        affinity: Vec::new(),
        anti_affinity: Vec::new(),
        preferred_affinity: Vec::new(),
        preferred_anti_affinity: Vec::new(),
        host_ports: Vec::new(),
        terminal: false,
        terminating_statefulset: false,
        owned_by_daemonset: meta.owner.as_ref().is_some_and(|(k, _)| k == "DaemonSet"),
        mirror: meta.owner.as_ref().is_some_and(|(k, _)| k == "Node"),
        eviction_cost: 1.0,
        priority: None,
        preemption_never: false,
        eviction_cost_managed: 1.0,
        ignored: None,
        resource_claims: false,
        dra_claims: Vec::new(),
        volumes: false,
    };
    let mut pod = Pod::new(meta.name.clone(), meta.uid.clone(), meta.created.unwrap_or(0), document, spec_part);
    let mut requests = Resources::new();
    requests.set(PODS, 1000);
    pod.requests = requests;
    pod
}

/// Lower the `spec` of a pod (or pod template) with its metadata.
pub fn lower_pod(meta: &Meta, spec: Option<&At>, ctx: &mut Ctx, sink: &mut Sink) -> Pod {
    let mut pod = pod_of_meta(meta, ctx.interner, sink.document);
    let stated = spec.and_then(|s| sink.opt_int(s, "priority", "an integer priority"));
    let policy = spec.and_then(|s| s.get("preemptionPolicy")).and_then(|at| sink.scalar(&at));
    // Priority admission: a stated priority stands; else the named class's, else the global
    // default class's (priority.rs).
    let class = spec.and_then(|s| s.get("priorityClassName").map(|at| (sink.scalar(&at), at)));
    let (priority, class_never) = match (stated, class) {
        (Some(p), _) => (Some(p), false),
        (None, Some((Some(name), at))) if !name.is_empty() => match ctx.priority_classes.named(&name) {
            super::priority::Resolved::Class(v, never) => (Some(v), never),
            super::priority::Resolved::Unknown => {
                sink.error(
                    &at,
                    "unknown-priority-class",
                    format!("no PriorityClass with name {name:?} was found (the API server's Priority admission rejects the pod)"),
                    format!(
                        "a PriorityClass of the inputs (kubectl get priorityclass {name} -o yaml), or one of: {}",
                        ctx.priority_classes.names().join(", ")
                    ),
                );
                (None, false)
            }
        },
        _ => ctx.priority_classes.default_class().map_or((None, false), |(v, never)| (Some(v), never)),
    };
    set_priority(&mut pod, meta, priority, class_never, policy.as_deref());
    let Some(spec) = spec else { return pod };
    pod.node_name = sink.opt_scalar(spec, "nodeName").filter(|s| !s.is_empty());
    pod.requests = effective_requests(spec, ctx, sink);
    pod.dra_claims = super::claims::resource_claims(spec, sink);
    pod.resource_claims = !pod.dra_claims.is_empty();
    pod.volumes = spec
        .get("volumes")
        .is_some_and(|vs| sink.list(&vs).iter().any(|v| v.get("persistentVolumeClaim").is_some() || v.get("ephemeral").is_some()));
    let interner = &mut *ctx.interner;
    if let Some(ns) = spec.get("nodeSelector") {
        for (k, v) in sink.string_map(&ns) {
            let key = labels::normalize_key(&k);
            if labels::is_restricted(key) {
                pod.ignored.get_or_insert(format!("nodeSelector uses restricted label {key:?}"));
            }
            let kid = interner.intern(key);
            let vid = interner.intern(&v);
            pod.node_selector.add(kid, Requirement::in_values([vid]), interner);
        }
    }
    if let Some(aff) = spec.get("affinity") {
        lower_affinity(&aff, &mut pod, interner, sink);
    }
    if let Some(tols) = spec.get("tolerations") {
        for t in sink.list(&tols) {
            if let Some(tol) = toleration(&t, sink) {
                pod.tolerations.push(tol);
            }
        }
    }
    if let Some(tsc) = spec.get("topologySpreadConstraints") {
        for c in sink.list(&tsc) {
            if let Some(sc) = spread(&c, &pod.labels, interner, sink) {
                pod.spread.push(sc);
            }
        }
    }
    if let Some(cs) = spec.get("containers") {
        for c in sink.list(&cs) {
            if let Some(ports) = c.get("ports") {
                for p in sink.list(&ports) {
                    let Some(hp) = p.get("hostPort").and_then(|h| sink.int_in(&h, 0, 65_535, "a port number 1..65535")) else { continue };
                    if hp == 0 {
                        continue;
                    }
                    let proto = sink.opt_scalar(&p, "protocol").unwrap_or_else(|| "TCP".into());
                    let ip = sink.opt_scalar(&p, "hostIP").filter(|ip| ip != "0.0.0.0" && ip != "::" && !ip.is_empty());
                    pod.host_ports.push(HostPort {
                        port: hp as i32,
                        protocol: interner.intern(&proto),
                        ip: ip.map(|i| interner.intern(&i)),
                    });
                }
            }
        }
    }
    mark_opt_out(&mut pod, interner);
    pod
}

/// A pod's priority, preemption policy and the eviction costs they decide.
pub(super) fn set_priority(pod: &mut Pod, meta: &Meta, priority: Option<i64>, class_never: bool, policy: Option<&str>) {
    let annotation = |key: &str| meta.annotations.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
    pod.eviction_cost = eviction_cost(annotation(labels::DISRUPTION_COST), annotation(labels::POD_DELETION_COST), priority);
    pod.eviction_cost_managed = eviction_cost(annotation(labels::DISRUPTION_COST), None, priority);
    pod.priority = priority;
    pod.preemption_never = match policy {
        Some(p) => p == "Never",
        None => class_never,
    };
}

/// Opt-out (R5.2.3a): the full requirements ask for `karpenter.sh/nodepool DoesNotExist`.
pub(super) fn mark_opt_out(pod: &mut Pod, interner: &mut Interner) {
    let np = interner.intern(labels::NODEPOOL);
    let first_term = pod.required_terms.first();
    let heaviest = pod.preferred_terms.first().map(|(_, r)| r);
    let opt_out = [Some(&pod.node_selector), first_term, heaviest]
        .into_iter()
        .flatten()
        .any(|r| r.get(np).is_some_and(|r| r.derived_op() == Operator::DoesNotExist));
    if opt_out {
        pod.ignored = Some("the pod opts out of Karpenter (karpenter.sh/nodepool DoesNotExist)".into());
    }
}

/// Effective requests (R4.1): max(sum of containers + sidecars, init peaks) + overhead,
/// pod-level requests replacing aggregated cpu/memory, and `pods: 1`.
fn effective_requests(spec: &At, ctx: &mut Ctx, sink: &mut Sink) -> Resources {
    let mut regular = Resources::new();
    if let Some(cs) = spec.get("containers") {
        for c in sink.list(&cs) {
            regular.add(&container_requests(&c, ctx, sink));
        }
    }
    let mut sidecars = Resources::new();
    let mut init_peak = Resources::new();
    if let Some(ics) = spec.get("initContainers") {
        for c in sink.list(&ics) {
            let r = container_requests(&c, ctx, sink);
            let restart_always = sink.opt_scalar(&c, "restartPolicy").as_deref() == Some("Always");
            if restart_always {
                regular.add(&r);
                sidecars.add(&r);
                init_peak.max_with(&sidecars);
            } else {
                init_peak.max_with(&r.plus(&sidecars));
            }
        }
    }
    let mut total = regular;
    total.max_with(&init_peak);
    let pod_resources = spec.get("resources");
    if let Some(pr) = pod_resources.as_ref().and_then(|r| r.get("requests")) {
        for (k, v) in sink.map(&pr) {
            if k == "cpu" || k == "memory" {
                if let Some(q) = sink.quantity(&v) {
                    total.set(ctx.resources.intern(k), q);
                }
            }
        }
    }
    if let Some(ov) = spec.get("overhead") {
        for (k, v) in sink.map(&ov) {
            if let Some(q) = sink.quantity(&v) {
                total.add_to(ctx.resources.intern(k), q);
            }
        }
    }
    total.set(PODS, 1000);
    total
}

/// A container's requests; a resource with only a limit requests its limit (R1.4.2).
fn container_requests(c: &At, ctx: &mut Ctx, sink: &mut Sink) -> Resources {
    let mut r = Resources::new();
    let Some(res) = c.get("resources") else { return r };
    let req = res.get("requests");
    let requested = req.as_ref().map(|req| sink.map(req)).unwrap_or_default();
    for (k, v) in &requested {
        if let Some(q) = sink.quantity(v).filter(|&q| whole_if_extended(k, q, v, sink)) {
            r.set(ctx.resources.intern(k), q);
        }
    }
    if let Some(lim) = res.get("limits") {
        for (k, v) in sink.map(&lim) {
            if let Some(q) = sink.quantity(&v).filter(|&q| whole_if_extended(k, q, &v, sink)) {
                if !requested.iter().any(|(s, _)| *s == k) {
                    r.set(ctx.resources.intern(k), q);
                }
            }
        }
    }
    r
}

/// Extended resources (a domain-prefixed name outside `kubernetes.io`, e.g. `nvidia.com/gpu`)
/// are counted in whole devices: the apiserver refuses `nvidia.com/gpu: "0.5"` ("must be an
/// integer"), so a fraction is a located error, not a plan for half a GPU.
fn whole_if_extended(name: &str, milli: i64, at: &At, sink: &mut Sink) -> bool {
    if !whole_or_not_extended(name, milli) {
        sink.error(
            at,
            "invalid-quantity",
            format!("{name}: {} must be an integer (an extended resource counts whole devices)", render_quantity(at)),
            "a whole number, e.g. \"1\"",
        );
        return false;
    }
    true
}

/// False for a fraction of an extended resource (what [`whole_if_extended`] reports).
pub(super) fn whole_or_not_extended(name: &str, milli: i64) -> bool {
    let extended = name.split_once('/').is_some_and(|(domain, _)| domain != "kubernetes.io" && !domain.ends_with(".kubernetes.io"));
    !extended || milli % 1000 == 0
}

fn render_quantity(at: &At) -> String {
    match at.v {
        serde_json::Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// A toleration's operator; `None` for an unknown one.
pub(super) fn toleration_op(op: Option<&str>) -> Option<TolerationOp> {
    match op {
        None | Some("") | Some("Equal") => Some(TolerationOp::Equal),
        Some("Exists") => Some(TolerationOp::Exists),
        Some("Lt") => Some(TolerationOp::Lt),
        Some("Gt") => Some(TolerationOp::Gt),
        Some(_) => None,
    }
}

pub fn toleration(t: &At, sink: &mut Sink) -> Option<Toleration> {
    let key = sink.opt_scalar(t, "key").unwrap_or_default();
    let operator = sink.opt_scalar(t, "operator");
    let op = match toleration_op(operator.as_deref()) {
        Some(op) => op,
        None => {
            let other = operator.unwrap_or_default();
            let at = t.get("operator").unwrap_or(*t);
            sink.error(&at, "invalid-operator", format!("unknown toleration operator {other:?}"), "Equal, Exists, Lt or Gt");
            return None;
        }
    };
    let effect = match sink.opt_scalar(t, "effect").as_deref() {
        None | Some("") => None,
        Some(e) => match Effect::parse(e) {
            Some(e) => Some(e),
            None => {
                let at = t.get("effect").unwrap_or(*t);
                sink.error(&at, "invalid-effect", format!("unknown taint effect {e:?}"), "NoSchedule, PreferNoSchedule or NoExecute");
                return None;
            }
        },
    };
    let value = sink.opt_scalar(t, "value").unwrap_or_default();
    Some(Toleration { key, operator: op, value, effect })
}

/// One node-selector term's match expressions as requirements. Returns None (after reporting)
/// for malformed terms; sets `ignored` for terms Karpenter refuses (restricted keys, matchFields).
pub fn node_selector_term(term: &At, interner: &mut Interner, sink: &mut Sink, ignored: &mut Option<String>) -> Requirements {
    let mut reqs = Requirements::new();
    if term.get("matchFields").is_some_and(|m| m.v.as_array().is_some_and(|a| !a.is_empty())) {
        ignored.get_or_insert("required node affinity uses matchFields, which Karpenter does not support".into());
    }
    let Some(exprs) = term.get("matchExpressions") else { return reqs };
    for e in sink.list(&exprs) {
        if let Some((k, r)) = expression(&e, interner, sink, ignored) {
            reqs.add(k, r, interner);
        }
    }
    reqs
}

/// A `{key, operator, values}` node-selector requirement.
pub fn expression(e: &At, interner: &mut Interner, sink: &mut Sink, ignored: &mut Option<String>) -> Option<(KeyId, Requirement)> {
    let Some(key) = sink.opt_scalar(e, "key") else {
        sink.error(e, "required", "requirement without `key`", "key: <label key>");
        return None;
    };
    let key = labels::normalize_key(&key).to_string();
    let op_text = sink.opt_scalar(e, "operator").unwrap_or_default();
    let Some(op) = requirement_operator(&op_text) else {
        let at = e.get("operator").unwrap_or(*e);
        sink.error(
            &at,
            "invalid-operator",
            format!("unknown operator {op_text:?} for key {key:?}"),
            "one of In, NotIn, Exists, DoesNotExist, Gt, Lt",
        );
        return None;
    };
    let values = e.get("values").map(|v| sink.string_list(&v)).unwrap_or_default();
    if bad_bound(op, &values) {
        let at = e.get("values").unwrap_or(*e);
        sink.error(
            &at,
            "invalid-requirement",
            format!("operator {op_text} on {key:?} needs exactly one integer value ≥ 0"),
            "values: [\"4\"]",
        );
        return None;
    }
    Some(requirement_of(&key, op, &values, interner, ignored))
}

/// A node-selector requirement's operator; `None` for one the API server refuses.
pub(super) fn requirement_operator(op_text: &str) -> Option<Operator> {
    Operator::parse(op_text).filter(|o| !matches!(o, Operator::Gte | Operator::Lte))
}

/// `Gt`/`Lt` without exactly one integer value ≥ 0 (an error the API server reports).
pub(super) fn bad_bound<S: AsRef<str>>(op: Operator, values: &[S]) -> bool {
    matches!(op, Operator::Gt | Operator::Lt) && (values.len() != 1 || labels::parse_int(values[0].as_ref()).is_none_or(|n| n < 0))
}

/// A valid requirement (`key` normalized; checked by [`requirement_operator`] and [`bad_bound`])
/// with the notes of what Karpenter ignores, interned values first and the key last.
pub(super) fn requirement_of<S: AsRef<str> + std::fmt::Debug>(
    key: &str,
    op: Operator,
    values: &[S],
    interner: &mut Interner,
    ignored: &mut Option<String>,
) -> (KeyId, Requirement) {
    if labels::is_restricted(key) {
        ignored.get_or_insert(format!("node affinity uses restricted label {key:?}"));
    }
    if op == Operator::In && values.is_empty() {
        ignored.get_or_insert(format!("requirement on {key:?} uses In without values"));
    }
    if key == labels::CAPACITY_TYPE
        && op == Operator::In
        && !values.iter().any(|v| [labels::ON_DEMAND, labels::SPOT, labels::RESERVED].contains(&v.as_ref()))
    {
        ignored.get_or_insert(format!("karpenter.sh/capacity-type In {values:?} names no known capacity type"));
    }
    let ids: Vec<u32> = values.iter().map(|v| interner.intern(v.as_ref())).collect();
    let kid = interner.intern(key);
    (kid, Requirement::from_operator(op, &ids, interner))
}

fn lower_affinity(aff: &At, pod: &mut Pod, interner: &mut Interner, sink: &mut Sink) {
    if let Some(na) = aff.get("nodeAffinity") {
        if let Some(req) = na.get("requiredDuringSchedulingIgnoredDuringExecution") {
            if let Some(terms) = req.get("nodeSelectorTerms") {
                for t in sink.list(&terms) {
                    let r = node_selector_term(&t, interner, sink, &mut pod.ignored);
                    pod.required_terms.push(r);
                }
            }
        }
        if let Some(pref) = na.get("preferredDuringSchedulingIgnoredDuringExecution") {
            for p in sink.list(&pref) {
                let weight = p.get("weight").and_then(|w| sink.int_in(&w, 1, 100, "a weight 1..100")).unwrap_or(1) as i32;
                // Preferred terms are not validated by Karpenter (R5.2.3b): a restricted key only
                // makes the preference unsatisfiable, so it is relaxed away.
                let mut ignore = None;
                let r = p.get("preference").map(|t| node_selector_term(&t, interner, sink, &mut ignore)).unwrap_or_default();
                pod.preferred_terms.push((weight, r));
            }
            // Heaviest first; stable on ties (determinism recommendation R2.9.2).
            pod.preferred_terms.sort_by_key(|t| std::cmp::Reverse(t.0));
        }
    }
    for field in ["podAffinity", "podAntiAffinity"] {
        let Some(pa) = aff.get(field) else { continue };
        let anti = field == "podAntiAffinity";
        if let Some(req) = pa.get("requiredDuringSchedulingIgnoredDuringExecution") {
            for t in sink.list(&req) {
                if let Some(term) = affinity_term(&t, pod, interner, sink) {
                    if anti {
                        pod.anti_affinity.push(term)
                    } else {
                        pod.affinity.push(term)
                    }
                }
            }
        }
        if let Some(pref) = pa.get("preferredDuringSchedulingIgnoredDuringExecution") {
            for p in sink.list(&pref) {
                let weight = p.get("weight").and_then(|w| sink.int_in(&w, 1, 100, "a weight 1..100")).unwrap_or(1) as i32;
                let Some(t) = p.get("podAffinityTerm") else { continue };
                if let Some(term) = affinity_term(&t, pod, interner, sink) {
                    if anti {
                        pod.preferred_anti_affinity.push((weight, term))
                    } else {
                        pod.preferred_affinity.push((weight, term))
                    }
                }
            }
            let list = if anti { &mut pod.preferred_anti_affinity } else { &mut pod.preferred_affinity };
            list.sort_by_key(|t| std::cmp::Reverse(t.0));
        }
    }
}

fn affinity_term(t: &At, pod: &Pod, interner: &mut Interner, sink: &mut Sink) -> Option<AffinityTerm> {
    let Some(key) = sink.opt_scalar(t, "topologyKey") else {
        sink.error(
            t,
            "required",
            "pod affinity term without `topologyKey`",
            "topologyKey: kubernetes.io/hostname or topology.kubernetes.io/zone",
        );
        return None;
    };
    let key = interner.intern(labels::normalize_key(&key));
    let mut selector = t.get("labelSelector").map(|s| label_selector(&s, interner, sink)).unwrap_or_else(Selector::nothing);
    if let Some(mlk) = t.get("matchLabelKeys") {
        add_match_label_keys(&mut selector, &sink.string_list(&mlk), &pod.labels, interner);
    }
    let listed: Option<Vec<String>> = t.get("namespaces").map(|n| sink.string_list(&n));
    let ns_selector = t.get("namespaceSelector");
    let namespaces = match (listed, ns_selector) {
        (None, None) => Some(SmallVec::from_elem(pod.namespace_id, 1)),
        (Some(l), None) if l.is_empty() => Some(SmallVec::from_elem(pod.namespace_id, 1)),
        (Some(l), None) => Some(l.iter().map(|n| interner.intern(n)).collect()),
        // A namespace selector: without Namespace objects we cannot evaluate labels; an empty
        // selector selects every namespace, and so (conservatively) does any other.
        (_, Some(_)) => None,
    };
    Some(AffinityTerm { key, selector, namespaces })
}

fn add_match_label_keys(selector: &mut Selector, keys: &[String], labels: &LabelSet, interner: &mut Interner) {
    if selector.matches_nothing {
        return;
    }
    for k in keys {
        let kid = interner.intern(k);
        if let Some(v) = labels.get(kid) {
            selector.exprs.push((kid, SelectorOp::In, SmallVec::from_elem(v, 1)));
        }
    }
}

pub fn label_selector(s: &At, interner: &mut Interner, sink: &mut Sink) -> Selector {
    let mut sel = Selector::default();
    if let Some(ml) = s.get("matchLabels") {
        for (k, v) in sink.string_map(&ml) {
            sel.exprs.push((interner.intern(&k), SelectorOp::In, SmallVec::from_elem(interner.intern(&v), 1)));
        }
    }
    if let Some(me) = s.get("matchExpressions") {
        for e in sink.list(&me) {
            let key = sink.opt_scalar(&e, "key").unwrap_or_default();
            let op = match sink.opt_scalar(&e, "operator").as_deref() {
                Some("In") => SelectorOp::In,
                Some("NotIn") => SelectorOp::NotIn,
                Some("Exists") => SelectorOp::Exists,
                Some("DoesNotExist") => SelectorOp::DoesNotExist,
                other => {
                    let at = e.get("operator").unwrap_or(e);
                    sink.error(
                        &at,
                        "invalid-operator",
                        format!("unknown label selector operator {other:?}"),
                        "In, NotIn, Exists or DoesNotExist",
                    );
                    sel.matches_nothing = true;
                    continue;
                }
            };
            let values = e.get("values").map(|v| sink.string_list(&v)).unwrap_or_default();
            sel.exprs.push((interner.intern(&key), op, values.iter().map(|v| interner.intern(v)).collect()));
        }
    }
    sel
}

fn spread(c: &At, labels_of_pod: &LabelSet, interner: &mut Interner, sink: &mut Sink) -> Option<SpreadConstraint> {
    let max_skew = match c.get("maxSkew").map(|m| sink.int_in(&m, 1, i32::MAX.into(), "an integer maxSkew ≥ 1 (int32)")) {
        Some(Some(m)) => m as i32,
        Some(None) => return None,
        None => {
            sink.error(c, "required", "topology spread constraint without maxSkew", "maxSkew: 1");
            return None;
        }
    };
    let Some(key) = sink.opt_scalar(c, "topologyKey") else {
        sink.error(c, "required", "topology spread constraint without topologyKey", "topologyKey: topology.kubernetes.io/zone");
        return None;
    };
    let when = match sink.opt_scalar(c, "whenUnsatisfiable").as_deref() {
        None | Some("DoNotSchedule") => Unsatisfiable::DoNotSchedule,
        Some("ScheduleAnyway") => Unsatisfiable::ScheduleAnyway,
        Some(o) => {
            let at = c.get("whenUnsatisfiable").unwrap_or(*c);
            sink.error(&at, "unsupported-value", format!("unknown whenUnsatisfiable {o:?}"), "DoNotSchedule or ScheduleAnyway");
            return None;
        }
    };
    let mut selector = c.get("labelSelector").map(|s| label_selector(&s, interner, sink)).unwrap_or_else(Selector::nothing);
    if let Some(mlk) = c.get("matchLabelKeys") {
        add_match_label_keys(&mut selector, &sink.string_list(&mlk), labels_of_pod, interner);
    }
    let min_domains =
        c.get("minDomains").and_then(|m| sink.int_in(&m, 1, i32::MAX.into(), "an integer minDomains ≥ 1 (int32)")).map(|m| m as i32);
    let policy = |name: &str, default_honor: bool, sink: &mut Sink| match sink.opt_scalar(c, name).as_deref() {
        None => default_honor,
        Some("Honor") => true,
        Some("Ignore") => false,
        Some(o) => {
            let at = c.get(name).unwrap_or(*c);
            sink.error(&at, "unsupported-value", format!("unknown {name} {o:?}"), "Honor or Ignore");
            default_honor
        }
    };
    let honor_node_affinity = policy("nodeAffinityPolicy", true, sink);
    let honor_node_taints = policy("nodeTaintsPolicy", false, sink);
    Some(SpreadConstraint {
        max_skew,
        key: interner.intern(labels::normalize_key(&key)),
        when_unsatisfiable: when,
        selector,
        min_domains,
        honor_node_affinity,
        honor_node_taints,
    })
}
