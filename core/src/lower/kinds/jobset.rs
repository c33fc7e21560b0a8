//! JobSet (`jobset.x-k8s.io/v1alpha2`, JobSet v0.12).
//!
//! Facts the expansion follows:
//! - each `replicatedJobs[r]` (`replicas` default 1) becomes Jobs `<jobset>-<r.name>-<j>`; each Job
//!   runs `min(parallelism (default 1), completions (if set))` pods at once, Indexed by default, so
//!   pod `k` of Job `J` is named `J-<k>` here (the Job controller appends five random characters);
//! - pods carry the JobSet labels `jobset.sigs.k8s.io/jobset-name`, `…/replicatedjob-name`,
//!   `…/replicatedjob-replicas`, `…/global-replicas`, `…/job-index`, `…/job-global-index`,
//!   `…/job-key` (hex SHA-1 of `<namespace>/<job name>`), `…/restart-attempt` (`0`),
//!   `…/group-name` (`groupName`, default `default`), `…/group-replicas`, `…/job-group-index`,
//!   `…/jobset-uid` (when the input carries `metadata.uid`), and the Job controller's
//!   `batch.kubernetes.io/job-name`, `job-name` and `batch.kubernetes.io/job-completion-index`;
//! - `alpha.jobset.sigs.k8s.io/exclusive-topology: <key>` on the JobSet, or on a replicated job's
//!   template (which wins), places each Job alone in one domain of `<key>`: the pod webhook gives
//!   the Job's index-0 pod a required pod affinity to its own `job-key` and a required
//!   anti-affinity to any other `job-key` of the same priority (`jobset.sigs.k8s.io/priority`,
//!   the pod's priority), both over all namespaces; the other pods get a node selector on the
//!   leader's domain, expressed here as the same affinity (they must share its domain);
//! - with `alpha.jobset.sigs.k8s.io/node-selector` as well, pods instead get the node selector
//!   `alpha.jobset.sigs.k8s.io/namespaced-job: <namespace>_<job>` and a toleration of the
//!   `alpha.jobset.sigs.k8s.io/no-schedule` taint (nodes must be labelled beforehand);
//! - `spec.suspend: true` creates no pods.

use super::{count, emit, flag, sha1_key, Exclusive, Out, Owner, PodPlan};
use crate::manifest::reader::{At, Sink};
use serde_json::Value;

pub const EXCLUSIVE: &str = "alpha.jobset.sigs.k8s.io/exclusive-topology";
const NODE_SELECTOR_STRATEGY: &str = "alpha.jobset.sigs.k8s.io/node-selector";
const JOB_KEY: &str = "jobset.sigs.k8s.io/job-key";
const PRIORITY: &str = "jobset.sigs.k8s.io/priority";

struct Replicated<'a> {
    name: String,
    group: String,
    replicas: i64,
    at: At<'a>,
}

pub fn expand(root: &At, owner: &Owner, out: &mut Out, sink: &mut Sink) {
    let Some(spec) = super::required(root, "spec", "JobSet", "spec.replicatedJobs", sink) else { return };
    let Some(rjobs_at) =
        super::required(&spec, "replicatedJobs", "JobSet", "replicatedJobs: [{name: workers, replicas: 1, template: {spec: ...}}]", sink)
    else {
        return;
    };
    let suspended = flag(&spec, "suspend", sink);
    let annotations = |at: &At| at.v.pointer("/metadata/annotations").and_then(Value::as_object).cloned().unwrap_or_default();
    let set_annotations = annotations(root);
    let before = sink.errors.len();
    let mut rjobs: Vec<Replicated> = Vec::new();
    for r in sink.list(&rjobs_at) {
        let Some(name) = sink.opt_scalar(&r, "name").filter(|n| !n.is_empty()) else {
            sink.error(&r, "required", "replicated job without `name`", "name: workers");
            continue;
        };
        if rjobs.iter().any(|x| x.name == name) {
            let at = r.get("name").unwrap_or(r);
            sink.error(&at, "duplicate-name", format!("two replicated jobs are named {name:?}"), "unique names");
            continue;
        }
        let group = sink.opt_scalar(&r, "groupName").unwrap_or_else(|| "default".into());
        let Some(replicas) = count(&r, "replicas", 1, 0, sink) else { continue };
        if r.v.pointer("/template/spec/template").is_none_or(Value::is_null) {
            sink.error(
                &r,
                "required",
                format!("replicated job {name:?} without template.spec.template"),
                "template: {spec: {template: {spec: ...}}}",
            );
            continue;
        }
        rjobs.push(Replicated { name, group, replicas, at: r });
    }
    if sink.errors.len() > before {
        return;
    }
    if suspended {
        owner.suspended(out, "JobSet (spec.suspend)");
        return;
    }
    let global_replicas: i64 = rjobs.iter().map(|r| r.replicas).sum();
    let mut total = 0;
    let mut global_index = 0;
    for (ri, rj) in rjobs.iter().enumerate() {
        let Some(job_template) = rj.at.get("template") else { continue };
        let Some(job_spec) = job_template.get("spec") else { continue };
        let Some(parallelism) = count(&job_spec, "parallelism", 1, 0, sink) else { continue };
        let completions = match job_spec.get("completions") {
            Some(_) => match count(&job_spec, "completions", 0, 0, sink) {
                Some(c) => Some(c),
                None => continue,
            },
            None => None,
        };
        let per_job = completions.map_or(parallelism, |c| parallelism.min(c));
        if !out.budget.add(&mut total, rj.replicas.saturating_mul(per_job), &rj.at, "JobSet", sink) {
            return;
        }
        let job_annotations = annotations(&job_template);
        let exclusive = job_annotations.get(EXCLUSIVE).or(set_annotations.get(EXCLUSIVE)).and_then(Value::as_str).map(str::to_string);
        let node_selector_strategy = exclusive.is_some()
            && (job_annotations.contains_key(NODE_SELECTOR_STRATEGY) || set_annotations.contains_key(NODE_SELECTOR_STRATEGY));
        let Some(pod_template) = job_spec.get("template") else { continue };
        let priority = priority_label(&pod_template);
        let group_replicas: i64 = rjobs.iter().filter(|x| x.group == rj.group).map(|x| x.replicas).sum();
        let group_offset: i64 = rjobs[..ri].iter().filter(|x| x.group == rj.group).map(|x| x.replicas).sum();
        for j in 0..rj.replicas {
            let job_name = format!("{}-{}-{j}", owner.name, rj.name);
            let key = sha1_key(&owner.namespace, &job_name);
            let mut base = vec![
                ("jobset.sigs.k8s.io/jobset-name".to_string(), owner.name.clone()),
                ("jobset.sigs.k8s.io/replicatedjob-name".to_string(), rj.name.clone()),
                ("jobset.sigs.k8s.io/restart-attempt".to_string(), "0".to_string()),
                ("jobset.sigs.k8s.io/replicatedjob-replicas".to_string(), rj.replicas.to_string()),
                ("jobset.sigs.k8s.io/global-replicas".to_string(), global_replicas.to_string()),
                ("jobset.sigs.k8s.io/job-index".to_string(), j.to_string()),
                (JOB_KEY.to_string(), key.clone()),
                ("jobset.sigs.k8s.io/job-global-index".to_string(), (global_index + j).to_string()),
                ("jobset.sigs.k8s.io/group-name".to_string(), rj.group.clone()),
                ("jobset.sigs.k8s.io/group-replicas".to_string(), group_replicas.to_string()),
                ("jobset.sigs.k8s.io/job-group-index".to_string(), (group_offset + j).to_string()),
                ("batch.kubernetes.io/job-name".to_string(), job_name.clone()),
                ("job-name".to_string(), job_name.clone()),
            ];
            if !owner.uid.is_empty() {
                base.push(("jobset.sigs.k8s.io/jobset-uid".to_string(), owner.uid.clone()));
            }
            if exclusive.is_some() && !node_selector_strategy {
                base.push((PRIORITY.to_string(), priority.clone()));
            }
            let plans: Vec<PodPlan> = (0..per_job)
                .map(|k| {
                    let mut labels = base.clone();
                    labels.push(("batch.kubernetes.io/job-completion-index".to_string(), k.to_string()));
                    let exclusive = exclusive.as_ref().filter(|_| !node_selector_strategy).map(|topology| Exclusive {
                        topology_key: topology.clone(),
                        label: JOB_KEY,
                        value: key.clone(),
                        leader: k == 0,
                        anti_extra: Some((PRIORITY, priority.clone())),
                        all_namespaces: true,
                    });
                    PodPlan { name: format!("{job_name}-{k}"), labels, exclusive }
                })
                .collect();
            if node_selector_strategy {
                let copy = with_namespaced_job_selector(pod_template.v, &format!("{}_{job_name}", owner.namespace));
                let at = job_spec.field_at("template", &copy);
                emit(out, owner, &at, &plans, sink);
            } else {
                emit(out, owner, &pod_template, &plans, sink);
            }
        }
        global_index += rj.replicas;
    }
}

/// The value of `jobset.sigs.k8s.io/priority`: the pod's resolved priority. A literal
/// `spec.priority` is used as is; a `priorityClassName` nodecast cannot resolve stands in by
/// name (pods of one class still compare equal); no class means the default priority 0.
fn priority_label(template: &At) -> String {
    let spec = template.v.get("spec");
    if let Some(p) = spec.and_then(|s| s.get("priority")).and_then(Value::as_i64) {
        return p.to_string();
    }
    match spec.and_then(|s| s.get("priorityClassName")).and_then(Value::as_str) {
        Some(class) if !class.is_empty() => class.to_string(),
        _ => "0".to_string(),
    }
}

fn with_namespaced_job_selector(template: &Value, value: &str) -> Value {
    let mut t = template.clone();
    if let Some(spec) = t.get_mut("spec").and_then(Value::as_object_mut) {
        let selector = spec.entry("nodeSelector").or_insert_with(|| Value::Object(Default::default()));
        if let Some(m) = selector.as_object_mut() {
            m.insert("alpha.jobset.sigs.k8s.io/namespaced-job".into(), Value::String(value.to_string()));
        }
        let tolerations = spec.entry("tolerations").or_insert_with(|| Value::Array(Vec::new()));
        if let Some(list) = tolerations.as_array_mut() {
            list.push(serde_json::json!({"key": "alpha.jobset.sigs.k8s.io/no-schedule", "operator": "Exists", "effect": "NoSchedule"}));
        }
    }
    t
}
