//! Fields the API server requires of kinds that `plan` reads leniently: a NodeClaim's
//! `nodeClassRef` and `requirements` (Karpenter's CRD marks both required); an `apps/v1`
//! Deployment's, ReplicaSet's or StatefulSet's `selector`, which must select the pod template's
//! own labels (apps validation: `ValidateDeploymentSpec` and its siblings); and a container's
//! limit for each extended resource it requests (`nvidia.com/gpu`: such resources cannot be
//! overcommitted, so core validation wants the limit set and equal to the request). Hand-written
//! inputs often leave them out and the answer does not depend on them, so `plan` takes such
//! objects as given; `validate` says the API server would refuse them (`make e2e` applies
//! examples to a real API server, which refused three).

use super::{get, Ctx};
use crate::error::InputError;
use serde_json::{Map, Value};

/// The admission errors of one decoded document for these kinds (other kinds: none).
pub fn check(document: usize, value: &Value) -> Vec<InputError> {
    let Some(root) = value.as_object() else { return Vec::new() };
    let kind = root.get("kind").and_then(Value::as_str).unwrap_or("");
    let api_version = root.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let name = root.get("metadata").and_then(|m| m.get("name")).and_then(Value::as_str).unwrap_or("");
    let spec = get(root, "spec").and_then(Value::as_object);
    let mut cx = Ctx::new(document, format!("{kind}/{name}"));
    match (api_version, kind) {
        ("karpenter.sh/v1", "NodeClaim") => node_claim(&mut cx, spec),
        ("apps/v1", "Deployment" | "ReplicaSet" | "StatefulSet") => {
            named_in_namespace(&mut cx, root, kind, name);
            selector(&mut cx, kind, spec);
            template_limits(&mut cx, spec, "spec.template");
        }
        ("apps/v1", "DaemonSet") | ("batch/v1", "Job") => {
            named_in_namespace(&mut cx, root, kind, name);
            template_limits(&mut cx, spec, "spec.template");
        }
        ("batch/v1", "CronJob") => {
            named_in_namespace(&mut cx, root, kind, name);
            let job =
                spec.and_then(|s| get(s, "jobTemplate")).and_then(Value::as_object).and_then(|j| get(j, "spec")).and_then(Value::as_object);
            template_limits(&mut cx, job, "spec.jobTemplate.spec.template");
        }
        ("v1", "Pod") => {
            named_in_namespace(&mut cx, root, kind, name);
            extended_limits(&mut cx, spec, "spec");
        }
        _ => {}
    }
    cx.errors.into_iter().map(|(_, e)| e).collect()
}

fn named_in_namespace(cx: &mut Ctx, root: &Map<String, Value>, kind: &str, name: &str) {
    if let Some(ns) = root.get("metadata").and_then(|m| m.get("namespace")).and_then(Value::as_str) {
        cx.object = format!("{kind}/{ns}/{name}");
    }
}

fn template_limits(cx: &mut Ctx, spec: Option<&Map<String, Value>>, at: &str) {
    let pod = spec.and_then(|s| get(s, "template")).and_then(Value::as_object).and_then(|t| get(t, "spec")).and_then(Value::as_object);
    extended_limits(cx, pod, &format!("{at}.spec"));
}

/// An extended resource: a name outside the `kubernetes.io` namespace with a domain prefix
/// (`nvidia.com/gpu`, `aws.amazon.com/neuron`), which the kubelet cannot overcommit.
fn extended(resource: &str) -> bool {
    match resource.split_once('/') {
        Some((domain, _)) => domain != "kubernetes.io" && !domain.ends_with(".kubernetes.io"),
        None => false,
    }
}

/// A quantity's value, for comparing a request with its limit (`1` = `"1"` = `1000m`).
fn milli(v: &Value) -> Option<i64> {
    match v {
        Value::String(s) => crate::quantity::parse_milli(s).ok(),
        Value::Number(n) => crate::quantity::parse_milli(&n.to_string()).ok(),
        _ => None,
    }
}

/// Each container's requests of extended resources need a limit, equal to the request (a limit
/// alone is copied to the request by defaulting, so only requests are checked).
fn extended_limits(cx: &mut Ctx, pod: Option<&Map<String, Value>>, at: &str) {
    let Some(pod) = pod else { return };
    for list in ["initContainers", "containers"] {
        for (i, c) in get(pod, list).and_then(Value::as_array).into_iter().flatten().enumerate() {
            let resources = c.get("resources").and_then(Value::as_object);
            let requests = resources.and_then(|r| get(r, "requests")).and_then(Value::as_object);
            let limits = resources.and_then(|r| get(r, "limits")).and_then(Value::as_object);
            for (resource, request) in requests.into_iter().flatten().filter(|(r, _)| extended(r)) {
                let path = format!("{at}.{list}[{i}].resources.limits[{resource}]");
                match limits.and_then(|l| get(l, resource)) {
                    None => cx.adm(
                        "required",
                        &path,
                        "Required value: Limit must be set for non overcommitable resources (Pod validation)".into(),
                        &format!("limits: {{{resource}: <the request>}} beside the request"),
                    ),
                    Some(limit) if milli(limit) != milli(request) => cx.adm(
                        "invalid-value",
                        &path,
                        format!("Invalid value: must be equal to {resource} request (Pod validation)"),
                        "the limit of an extended resource equal to its request",
                    ),
                    Some(_) => {}
                }
            }
        }
    }
}

fn node_claim(cx: &mut Ctx, spec: Option<&Map<String, Value>>) {
    let Some(spec) = spec else {
        cx.required("spec", "NodeClaim CRD", "spec with nodeClassRef {group, kind, name} and requirements");
        return;
    };
    match get(spec, "nodeClassRef").and_then(Value::as_object) {
        None => cx.required(
            "spec.nodeClassRef",
            "NodeClaim CRD",
            "the EC2NodeClass the NodeClaim was launched from: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: ...}",
        ),
        Some(r) => {
            for field in ["group", "kind", "name"] {
                if get(r, field).is_none() {
                    cx.required(&format!("spec.nodeClassRef.{field}"), "NodeClaim CRD", "group, kind and name");
                }
            }
        }
    }
    if get(spec, "requirements").is_none() {
        cx.required(
            "spec.requirements",
            "NodeClaim CRD",
            "the requirements Karpenter launched it with (its NodePool's, e.g. karpenter.sh/nodepool In [<pool>])",
        );
    }
}

fn selector(cx: &mut Ctx, kind: &str, spec: Option<&Map<String, Value>>) {
    let Some(spec) = spec else { return };
    let Some(sel) = get(spec, "selector").and_then(Value::as_object) else {
        cx.required("spec.selector", &format!("apps/v1 {kind}"), "a selector of the pod template's labels, e.g. matchLabels: {app: web}");
        return;
    };
    let match_labels = get(sel, "matchLabels").and_then(Value::as_object);
    let exprs = get(sel, "matchExpressions").and_then(Value::as_array);
    if match_labels.is_none_or(Map::is_empty) && exprs.is_none_or(Vec::is_empty) {
        cx.adm(
            "invalid-selector",
            "spec.selector",
            format!("Invalid value: empty selector is invalid for {} (apps/v1 {kind})", kind.to_lowercase()),
            "a selector of the pod template's labels",
        );
        return;
    }
    let labels = get(spec, "template").and_then(|t| t.get("metadata")).and_then(|m| m.get("labels")).and_then(Value::as_object);
    let label = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
    let mut selects = match_labels.into_iter().flatten().all(|(k, v)| v.as_str().is_some_and(|v| label(k) == Some(v)));
    for e in exprs.into_iter().flatten() {
        let key = e.get("key").and_then(Value::as_str).unwrap_or("");
        let values: Vec<&str> = e.get("values").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        selects &= match e.get("operator").and_then(Value::as_str) {
            Some("In") => label(key).is_some_and(|v| values.contains(&v)),
            Some("NotIn") => label(key).is_none_or(|v| !values.contains(&v)),
            Some("Exists") => label(key).is_some(),
            Some("DoesNotExist") => label(key).is_none(),
            // Another operator is the selector's own error, reported where selectors are read.
            _ => true,
        };
    }
    if !selects {
        cx.adm(
            "selector-mismatch",
            "spec.template.metadata.labels",
            format!("Invalid value: `selector` does not match template `labels` (apps/v1 {kind})"),
            "template labels that the selector selects",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::check;
    use serde_json::json;

    fn codes(v: serde_json::Value) -> Vec<(String, String)> {
        check(0, &v).into_iter().map(|e| (e.code.clone(), e.path.clone().unwrap_or_default())).collect()
    }

    #[test]
    fn a_nodeclaim_needs_its_class_and_requirements() {
        let bare = codes(
            json!({"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": {"name": "c"}, "spec": {"expireAfter": "720h"}}),
        );
        assert_eq!(
            bare,
            [("required".to_string(), "spec.nodeClassRef".to_string()), ("required".to_string(), "spec.requirements".to_string())]
        );
        let ok = json!({"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": {"name": "c"},
            "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "d"}, "requirements": []}});
        assert!(codes(ok).is_empty());
    }

    #[test]
    fn an_apps_v1_workload_needs_a_selector_of_its_template() {
        let dep = |sel: serde_json::Value| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w", "namespace": "n"},
                "spec": {"selector": sel, "template": {"metadata": {"labels": {"app": "w"}}, "spec": {"containers": []}}}})
        };
        assert_eq!(codes(dep(serde_json::Value::Null)), [("required".to_string(), "spec.selector".to_string())]);
        assert_eq!(codes(dep(json!({}))), [("invalid-selector".to_string(), "spec.selector".to_string())]);
        assert_eq!(
            codes(dep(json!({"matchLabels": {"app": "x"}}))),
            [("selector-mismatch".to_string(), "spec.template.metadata.labels".to_string())]
        );
        assert!(codes(dep(json!({"matchLabels": {"app": "w"}}))).is_empty());
        assert!(codes(dep(json!({"matchExpressions": [{"key": "app", "operator": "In", "values": ["w", "v"]}]}))).is_empty());
        let errs = check(0, &dep(serde_json::Value::Null));
        assert_eq!(errs[0].object.as_deref(), Some("Deployment/n/w"));
        // A Job's selector is generated: none needed.
        assert!(codes(json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"template": {"spec": {}}}}))
            .is_empty());
    }

    #[test]
    fn an_extended_resource_request_needs_an_equal_limit() {
        let pod = |resources: serde_json::Value| {
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                "spec": {"containers": [{"name": "c", "resources": resources}]}})
        };
        let path = "spec.containers[0].resources.limits[nvidia.com/gpu]".to_string();
        assert_eq!(codes(pod(json!({"requests": {"cpu": "1", "nvidia.com/gpu": "1"}}))), [("required".to_string(), path.clone())]);
        assert_eq!(
            codes(pod(json!({"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": 2}}))),
            [("invalid-value".to_string(), path)]
        );
        assert!(codes(pod(json!({"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": 1}}))).is_empty());
        // CPU, memory and kubernetes.io resources can be overcommitted.
        assert!(codes(pod(json!({"requests": {"cpu": "1", "memory": "1Gi", "hugepages.kubernetes.io/x": "1"}}))).is_empty());
        let cron = json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"}, "spec": {"jobTemplate": {"spec": {"template": {"spec":
            {"containers": [{"name": "c", "resources": {"requests": {"aws.amazon.com/neuron": "1"}}}]}}}}}});
        assert_eq!(
            codes(cron),
            [(
                "required".to_string(),
                "spec.jobTemplate.spec.template.spec.containers[0].resources.limits[aws.amazon.com/neuron]".to_string()
            )]
        );
    }
}
