//! KubeRay (`ray.io/v1`, KubeRay v1.5): RayCluster, and the cluster a RayJob or RayService
//! embeds.
//!
//! Facts the expansion follows:
//! - a RayCluster is one head pod and, per `workerGroupSpecs[g]`, `replicas` clamped to
//!   [`minReplicas` (default 0), `maxReplicas` (default 2³¹-1)] (absent → `minReplicas`; 0 when the
//!   group or the cluster is suspended) replicas of `numOfHosts` (default 1) pods each;
//! - names: the head `<cluster>-head` (KubeRay's deterministic head name; by default it appends
//!   five random characters), workers `<cluster>-<group>-worker-<nnnnn>` where nodecast writes
//!   the pod's index in its group, zero-padded to five digits, in place of KubeRay's five random
//!   characters; name prefixes are cut to 50 characters and lower-cased as KubeRay does;
//! - labels: `ray.io/cluster`, `ray.io/node-type` (`head`/`worker`), `ray.io/group`
//!   (`headgroup`/the group name), which a template cannot override, and `ray.io/is-ray-node:
//!   yes`, `ray.io/identifier` (`<cluster>-head`/`<cluster>-worker`), `app.kubernetes.io/name:
//!   kuberay`, `app.kubernetes.io/created-by: kuberay-operator`, which it can; the group's
//!   `labels` field merges into the template's; workers carry
//!   `ray.io/worker-group-replica-index`, and in multi-host groups `ray.io/worker-group-replica-name`
//!   (`<group>-<nnnnn>`, the replica index in place of random characters) and
//!   `ray.io/replica-host-index`;
//! - workers get the `wait-gcs-ready` init container (200m CPU, 256Mi memory); with
//!   `enableInTreeAutoscaling` the head gets the autoscaler container (500m CPU, 512Mi memory unless
//!   `autoscalerOptions.resources` says otherwise);
//! - a RayJob's cluster (`spec.rayClusterSpec`) is named `<rayjob>-<5 chars>` and a RayService's
//!   (`spec.rayClusterConfig`) `<service>-<5 chars>`; nodecast writes `00000` (a suffix KubeRay
//!   never generates); a RayJob with `clusterSelector` uses an existing cluster and creates
//!   none; in `K8sJobMode` (the default) it also runs a submitter Job `<rayjob>` whose pod nodecast
//!   names `<rayjob>-0`, from `submitterPodTemplate` or the default submitter container (requests
//!   500m CPU, 200Mi memory; limits 1 CPU, 1Gi); in `SidecarMode` that container joins the head.

use super::{count, emit, flag, resourced_container, with_init_container, Out, Owner, PodPlan};
use crate::manifest::reader::{At, Sink};
use serde_json::Value;

/// The default submitter container's requests and limits.
const SUBMITTER_REQUESTS: [(&str, &str); 2] = [("cpu", "500m"), ("memory", "200Mi")];
const SUBMITTER_LIMITS: [(&str, &str); 2] = [("cpu", "1"), ("memory", "1Gi")];

pub fn expand(root: &At, owner: &Owner, out: &mut Out, sink: &mut Sink) {
    let kind = owner.kind.as_str();
    let Some(spec) = super::required(root, "spec", kind, "spec", sink) else { return };
    match kind {
        "RayCluster" => {
            if flag(&spec, "suspend", sink) {
                owner.suspended(out, "RayCluster (spec.suspend)");
                return;
            }
            cluster(&spec, &owner.name, false, owner, out, sink);
        }
        "RayJob" => {
            if flag(&spec, "suspend", sink) {
                owner.suspended(out, "RayJob (spec.suspend)");
                return;
            }
            let mode = sink.opt_scalar(&spec, "submissionMode").unwrap_or_else(|| "K8sJobMode".into());
            if !["K8sJobMode", "HTTPMode", "InteractiveMode", "SidecarMode"].contains(&mode.as_str()) {
                let at = spec.get("submissionMode").unwrap_or(spec);
                sink.error(
                    &at,
                    "unsupported-value",
                    format!("unknown submissionMode {mode:?}"),
                    "K8sJobMode, HTTPMode, InteractiveMode or SidecarMode",
                );
                return;
            }
            let Some(cluster_spec) = spec.get("rayClusterSpec") else {
                if spec.get("clusterSelector").is_some() {
                    submitter(&spec, &mode, owner, out, sink);
                    return;
                }
                sink.error(
                    &spec,
                    "required",
                    "RayJob without rayClusterSpec or clusterSelector",
                    "rayClusterSpec: {headGroupSpec: ..., workerGroupSpecs: [...]}",
                );
                return;
            };
            let name = format!("{}-00000", owner.name);
            cluster(&cluster_spec, &name, mode == "SidecarMode", owner, out, sink);
            submitter(&spec, &mode, owner, out, sink);
        }
        "RayService" => {
            let Some(cluster_spec) = super::required(
                &spec,
                "rayClusterConfig",
                "RayService",
                "rayClusterConfig: {headGroupSpec: ..., workerGroupSpecs: [...]}",
                sink,
            ) else {
                return;
            };
            cluster(&cluster_spec, &format!("{}-00000", owner.name), false, owner, out, sink);
        }
        _ => {}
    }
}

/// KubeRay's pod-name prefix: at most 50 characters of the prefix, lower-cased with the type.
fn pod_prefix(prefix: &str, node_type: &str) -> String {
    let cut: String = prefix.chars().take(50).collect();
    format!("{cut}-{node_type}").to_lowercase()
}

/// Labels KubeRay sets on a Ray pod; the overridable ones yield to the template's.
fn ray_labels(template: &Value, cluster: &str, node_type: &str, group: &str) -> Vec<(String, String)> {
    let written = |k: &str| template.pointer("/metadata/labels").and_then(Value::as_object).is_some_and(|m| m.contains_key(k));
    let identifier: String = {
        let id = format!("{cluster}-{node_type}");
        let skip = id.chars().count().saturating_sub(63);
        id.chars().skip(skip).collect()
    };
    let mut labels = Vec::new();
    for (k, v) in [
        ("ray.io/is-ray-node", "yes".to_string()),
        ("ray.io/identifier", identifier),
        ("app.kubernetes.io/name", "kuberay".to_string()),
        ("app.kubernetes.io/created-by", "kuberay-operator".to_string()),
    ] {
        if !written(k) {
            labels.push((k.to_string(), v));
        }
    }
    labels.push(("ray.io/cluster".to_string(), cluster.to_string()));
    labels.push(("ray.io/node-type".to_string(), node_type.to_string()));
    labels.push(("ray.io/group".to_string(), group.to_string()));
    labels
}

/// The group's `labels` field merged into its template's labels (a copy of the template).
fn merged_template(group: &At) -> Option<Value> {
    let template = group.get("template")?;
    let extra = group.v.get("labels").and_then(Value::as_object).filter(|m| !m.is_empty())?;
    let mut t = template.v.clone();
    let meta = t.as_object_mut()?.entry("metadata").or_insert_with(|| Value::Object(Default::default()));
    let labels = meta.as_object_mut()?.entry("labels").or_insert_with(|| Value::Object(Default::default()));
    if let Some(m) = labels.as_object_mut() {
        for (k, v) in extra {
            m.insert(k.clone(), v.clone());
        }
    }
    Some(t)
}

fn check_containers(template: &At, what: &str, sink: &mut Sink) -> bool {
    let containers = template.get("spec").and_then(|s| s.get("containers").map(|c| c.v.as_array().is_some_and(|a| !a.is_empty())));
    if containers != Some(true) {
        sink.error(
            template,
            "required",
            format!("{what} template without containers"),
            "spec.containers: [{name: ray-head, image: rayproject/ray:2.9.0, ...}]",
        );
        return false;
    }
    true
}

fn cluster(spec: &At, cluster: &str, sidecar_submitter: bool, owner: &Owner, out: &mut Out, sink: &mut Sink) {
    let Some(head) = super::required(spec, "headGroupSpec", &owner.kind, "headGroupSpec: {template: {spec: {containers: [...]}}}", sink)
    else {
        return;
    };
    let Some(head_template) = super::required(&head, "template", "headGroupSpec", "template: {spec: {containers: [...]}}", sink) else {
        return;
    };
    let before = sink.errors.len();
    check_containers(&head_template, "headGroupSpec", sink);
    // Worker groups: validate every group before emitting anything.
    let groups_at = spec.get("workerGroupSpecs");
    let groups = groups_at.as_ref().map(|g| sink.list(g)).unwrap_or_default();
    let mut plan: Vec<(At, String, i64, i64)> = Vec::new();
    for g in &groups {
        let Some(name) = sink.opt_scalar(g, "groupName").filter(|n| !n.is_empty()) else {
            sink.error(g, "required", "worker group without groupName", "groupName: gpu-workers");
            continue;
        };
        if plan.iter().any(|(_, n, _, _)| *n == name) {
            let at = g.get("groupName").unwrap_or(*g);
            sink.error(&at, "duplicate-name", format!("two worker groups are named {name:?}"), "unique groupName values");
            continue;
        }
        let (Some(min), Some(max), Some(hosts)) =
            (count(g, "minReplicas", 0, 0, sink), count(g, "maxReplicas", i32::MAX.into(), 0, sink), count(g, "numOfHosts", 1, 1, sink))
        else {
            continue;
        };
        if min > max {
            let at = g.get("minReplicas").unwrap_or(*g);
            sink.error(
                &at,
                "out-of-range",
                format!("worker group {name:?}: minReplicas {min} exceeds maxReplicas {max}"),
                "minReplicas ≤ maxReplicas",
            );
            continue;
        }
        let replicas = match g.get("replicas") {
            None => min,
            Some(_) => match count(g, "replicas", 0, 0, sink) {
                Some(r) => r.clamp(min, max),
                None => continue,
            },
        };
        let Some(template) = super::required(g, "template", "worker group", "template: {spec: {containers: [...]}}", sink) else {
            continue;
        };
        check_containers(&template, &format!("worker group {name:?}"), sink);
        let replicas = if flag(g, "suspend", sink) { 0 } else { replicas };
        plan.push((*g, name, replicas, hosts));
    }
    if sink.errors.len() > before {
        return;
    }
    let mut total = 1;
    for (g, _, replicas, hosts) in &plan {
        if !out.budget.add(&mut total, replicas.saturating_mul(*hosts), g, &owner.kind, sink) {
            return;
        }
    }
    // The head: KubeRay's containers joined to the template's.
    let mut head_value = merged_template(&head).unwrap_or_else(|| head_template.v.clone());
    if flag(spec, "enableInTreeAutoscaling", sink) {
        let resources = spec.v.pointer("/autoscalerOptions/resources").cloned().unwrap_or_else(
            || serde_json::json!({"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"cpu": "500m", "memory": "512Mi"}}),
        );
        push_container(&mut head_value, serde_json::json!({"name": "autoscaler", "resources": resources}));
    }
    if sidecar_submitter {
        let c = resourced_container("ray-job-submitter", &SUBMITTER_REQUESTS, &SUBMITTER_LIMITS);
        push_container(&mut head_value, c);
    }
    let head_at = head.field_at("template", &head_value);
    let head_plan =
        PodPlan { name: pod_prefix(cluster, "head"), labels: ray_labels(&head_value, cluster, "head", "headgroup"), exclusive: None };
    emit(out, owner, &head_at, &[head_plan], sink);
    for (g, name, replicas, hosts) in &plan {
        let Some(template) = g.get("template") else { continue };
        let merged = merged_template(g).unwrap_or_else(|| template.v.clone());
        let with_init = with_init_container(
            &merged,
            resourced_container("wait-gcs-ready", &[("cpu", "200m"), ("memory", "256Mi")], &[("cpu", "200m"), ("memory", "256Mi")]),
        );
        let at = g.field_at("template", &with_init);
        let prefix = pod_prefix(&format!("{cluster}-{name}"), "worker");
        let base = ray_labels(&merged, cluster, "worker", name);
        let mut plans = Vec::with_capacity((replicas * hosts) as usize);
        for r in 0..*replicas {
            for h in 0..*hosts {
                let index = r * hosts + h;
                let mut labels = base.clone();
                labels.push(("ray.io/worker-group-replica-index".to_string(), r.to_string()));
                if *hosts > 1 {
                    labels.push(("ray.io/worker-group-replica-name".to_string(), format!("{name}-{r:05}")));
                    labels.push(("ray.io/replica-host-index".to_string(), h.to_string()));
                }
                plans.push(PodPlan { name: format!("{prefix}-{index:05}"), labels, exclusive: None });
            }
        }
        emit(out, owner, &at, &plans, sink);
    }
}

fn push_container(template: &mut Value, container: Value) {
    if let Some(list) = template.pointer_mut("/spec/containers").and_then(Value::as_array_mut) {
        list.push(container);
    }
}

/// The K8sJobMode submitter: a Job named after the RayJob, one pod.
fn submitter(spec: &At, mode: &str, owner: &Owner, out: &mut Out, sink: &mut Sink) {
    if mode != "K8sJobMode" {
        return;
    }
    let plan = PodPlan {
        name: format!("{}-0", owner.name),
        labels: vec![("batch.kubernetes.io/job-name".to_string(), owner.name.clone()), ("job-name".to_string(), owner.name.clone())],
        exclusive: None,
    };
    match spec.get("submitterPodTemplate") {
        Some(t) => emit(out, owner, &t, &[plan], sink),
        None => {
            let default = serde_json::json!({"spec": {"restartPolicy": "Never", "containers": [
                resourced_container("ray-job-submitter", &SUBMITTER_REQUESTS, &SUBMITTER_LIMITS)
            ]}});
            let at = spec.field_at("submitterPodTemplate", &default);
            emit(out, owner, &at, &[plan], sink);
        }
    }
}
