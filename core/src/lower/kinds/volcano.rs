//! Volcano Job (`batch.volcano.sh/v1alpha1`, Volcano v1.12).
//!
//! Facts the expansion follows:
//! - each `tasks[t]` with `replicas: n` becomes pods `<job>-<task>-0` … `<job>-<task>-(n-1)` from the
//!   task's template; a task without a name is named `default<t>` by the admission webhook;
//! - the controller labels each pod `volcano.sh/job-name`, `volcano.sh/job-namespace`,
//!   `volcano.sh/queue-name` (`spec.queue`, default `default`), `volcano.sh/task-spec` (the task
//!   name) and `volcano.sh/task-index`;
//! - the pods use `spec.schedulerName` (default `volcano`); Karpenter provisions for them like for
//!   any pod the scheduler marks unschedulable.
//!
//! The webhook's rules are checked: unique task names, `replicas` ≥ 0, a template per task, and
//! `minAvailable` no larger than the total replicas.

use super::{count, emit, Out, Owner, PodPlan};
use crate::manifest::reader::{At, Sink};

pub fn expand(root: &At, owner: &Owner, out: &mut Out, sink: &mut Sink) {
    let Some(spec) = super::required(root, "spec", "Volcano Job", "spec.tasks", sink) else { return };
    let Some(tasks_at) = super::required(&spec, "tasks", "Volcano Job", "tasks: [{name: worker, replicas: 2, template: ...}]", sink) else {
        return;
    };
    let queue = sink.opt_scalar(&spec, "queue").filter(|q| !q.is_empty()).unwrap_or_else(|| "default".into());
    let before = sink.errors.len();
    let tasks = sink.list(&tasks_at);
    let mut planned: Vec<(At, String, i64)> = Vec::new();
    for (t, task) in tasks.iter().enumerate() {
        let name = sink.opt_scalar(task, "name").filter(|n| !n.is_empty()).unwrap_or_else(|| format!("default{t}"));
        if planned.iter().any(|(_, n, _)| *n == name) {
            let at = task.get("name").unwrap_or(*task);
            sink.error(&at, "duplicate-name", format!("two tasks are named {name:?}"), "unique task names");
            continue;
        }
        let Some(replicas) = count(task, "replicas", 0, 0, sink) else { continue };
        if task.get("template").is_none() {
            sink.error(task, "required", format!("task {name:?} without template"), "template: {spec: {containers: [...]}}");
            continue;
        }
        planned.push((*task, name, replicas));
    }
    let total_replicas: i64 = planned.iter().map(|(_, _, r)| r).sum();
    if let Some(min_at) = spec.get("minAvailable") {
        if let Some(min) = sink.int_in(&min_at, 0, i32::MAX.into(), "an integer ≥ 0") {
            if min > total_replicas {
                sink.error(
                    &min_at,
                    "out-of-range",
                    format!("minAvailable {min} exceeds the tasks' {total_replicas} replicas"),
                    "minAvailable ≤ the sum of task replicas",
                );
            }
        }
    }
    if sink.errors.len() > before {
        return;
    }
    let mut total = 0;
    for (task, name, replicas) in &planned {
        if !out.budget.add(&mut total, *replicas, task, "Volcano Job", sink) {
            return;
        }
        let Some(template) = task.get("template") else { continue };
        let plans: Vec<PodPlan> = (0..*replicas)
            .map(|i| PodPlan {
                name: format!("{}-{name}-{i}", owner.name),
                labels: vec![
                    ("volcano.sh/task-index".to_string(), i.to_string()),
                    ("volcano.sh/job-name".to_string(), owner.name.clone()),
                    ("volcano.sh/task-spec".to_string(), name.clone()),
                    ("volcano.sh/job-namespace".to_string(), owner.namespace.clone()),
                    ("volcano.sh/queue-name".to_string(), queue.clone()),
                ],
                exclusive: None,
            })
            .collect();
        emit(out, owner, &template, &plans, sink);
    }
}
