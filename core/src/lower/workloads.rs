//! Lowering pods and what makes pods: workloads (Deployments, Jobs, the ML kinds), DaemonSets
//! and PodDisruptionBudgets.

use super::*;

impl Lowering {
    pub(super) fn pod(&mut self, root: &At, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let spec = root.get("spec");
        let mut pod = lower_pod::lower_pod(&meta, spec.as_ref(), &mut self.ctx(), sink);
        let phase = root.get("status").and_then(|s| sink.opt_scalar(&s, "phase")).unwrap_or_default();
        if let Some(status) = root.get("status") {
            if let Some(t) = status.get("startTime") {
                pod.started = lower_pod::timestamp(&t, sink);
            }
            if let Some(conds) = status.get("conditions") {
                for c in sink.list(&conds) {
                    if sink.opt_scalar(&c, "type").as_deref() == Some("Ready") {
                        pod.not_ready = sink.opt_scalar(&c, "status").as_deref() == Some("False");
                    }
                }
            }
        }
        pod.terminal = phase == "Succeeded" || phase == "Failed";
        if meta.deleting {
            // Terminating: not active, so it blocks nothing and counts in no topology; a
            // StatefulSet's terminating pod is still reschedulable (its replacement cannot start
            // before it is gone; utils/pod/scheduling.go, IsReschedulable).
            pod.terminal = true;
            pod.terminating_statefulset = meta.statefulset_owned;
        }
        if !self.room_for(1, root, "Pod", sink) {
            return;
        }
        let phase = match phase.as_str() {
            "Succeeded" => owners::Phase::Succeeded,
            "Failed" => owners::Phase::Failed,
            _ => owners::Phase::Active,
        };
        self.explicit.push((self.pods.len(), phase));
        self.default_spread.controller(self.pods.len(), root, sink);
        self.pods.push(pod);
    }

    /// Deployments, StatefulSets, ReplicaSets, Jobs and CronJobs expand into pending pods
    /// named `<name>-<i>` (FORMAT §3.4).
    pub(super) fn workload(&mut self, root: &At, kind: &str, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        if matches!(kind, "Deployment" | "ReplicaSet" | "StatefulSet") {
            self.default_spread.owner(root, kind, &meta.namespace, &meta.name, sink);
        }
        let Some(spec) = root.get("spec") else {
            sink.error(root, "required", format!("{kind} without spec"), "spec.template");
            return;
        };
        let job_spec_holder;
        let job_template = spec.get("jobTemplate");
        let job_spec = if kind == "CronJob" {
            match job_template.as_ref().and_then(|j| j.get("spec")) {
                Some(js) => {
                    job_spec_holder = js;
                    &job_spec_holder
                }
                None => {
                    sink.error(&spec, "required", "CronJob without jobTemplate.spec", "spec.jobTemplate.spec.template");
                    return;
                }
            }
        } else {
            &spec
        };
        let mut job = None;
        let count = if kind == "Job" || kind == "CronJob" {
            let parallelism = sink.opt_int(job_spec, "parallelism", "an integer ≥ 0").unwrap_or(1);
            let completions = sink.opt_int(job_spec, "completions", "an integer ≥ 0");
            let backoff_limit = sink.opt_int(job_spec, "backoffLimit", "an integer ≥ 0").unwrap_or(6);
            for (field, v) in [("parallelism", Some(parallelism)), ("completions", completions), ("backoffLimit", Some(backoff_limit))] {
                if let Some(v) = v.filter(|v| *v < 0) {
                    let msg = format!("{kind} {field} is {v}");
                    match job_spec.get(field) {
                        Some(at) => sink.error(&at, "out-of-range", msg, "an integer ≥ 0"),
                        None => sink.error(job_spec, "out-of-range", msg, "an integer ≥ 0"),
                    }
                    return;
                }
            }
            // A suspended Job (or CronJob) creates no pods until it is resumed: how Kueue queues
            // Jobs (it admits one by setting suspend: false). Listed, as every suspended kind is.
            let cron_suspended = kind == "CronJob" && kinds::flag(&spec, "suspend", sink);
            let job_suspended = kinds::flag(job_spec, "suspend", sink);
            if cron_suspended || job_suspended {
                let field = if kind == "CronJob" && !cron_suspended { "spec.jobTemplate.spec.suspend" } else { "spec.suspend" };
                self.skipped.push(Skipped {
                    source: None,
                    document: sink.document,
                    kind: kind.to_string(),
                    name: meta.name.clone(),
                    reason: format!("{kind} ({field}) {}", kinds::SUSPENDED),
                });
                return;
            }
            let status = root.get("status");
            let status_count =
                |field: &str, sink: &mut Sink| status.as_ref().and_then(|s| sink.opt_int(s, field, "an integer ≥ 0")).unwrap_or(0).max(0);
            job = Some(owners::JobSpec {
                parallelism,
                completions,
                backoff_limit,
                status_succeeded: status_count("succeeded", sink),
                status_failed: status_count("failed", sink),
            });
            completions.map_or(parallelism, |c| parallelism.min(c))
        } else {
            sink.opt_int(job_spec, "replicas", "an integer ≥ 0").unwrap_or(1)
        };
        if count < 0 {
            sink.error(job_spec, "out-of-range", format!("{kind} asks for {count} pods"), "a count ≥ 0");
            return;
        }
        if count > MAX_REQUEST_PODS {
            sink.limit(
                job_spec,
                "too-many-pods",
                format!("{kind} expands to {count} pods; the limit is {MAX_REQUEST_PODS}"),
                "fewer replicas",
            );
            return;
        }
        // The bound is on the whole request, checked before the pods are made: twenty
        // Deployments each under the cap must not add up to 40,000,000 pods.
        if !self.room_for(count, job_spec, kind, sink) {
            return;
        }
        let Some(template) = job_spec.get("template") else {
            sink.error(job_spec, "required", format!("{kind} without a pod template"), "spec.template");
            return;
        };
        let mut tmeta = read_meta(&template, sink);
        tmeta.namespace = meta.namespace.clone();
        tmeta.created = meta.created;
        tmeta.owner = Some((kind.to_string(), meta.name.clone()));
        let tspec = template.get("spec");
        let base = lower_pod::lower_pod(&tmeta, tspec.as_ref(), &mut self.ctx(), sink);
        if matches!(kind, "Deployment" | "StatefulSet" | "ReplicaSet") {
            self.buffers.workload(&meta.namespace, kind, &meta.name, count, Some(&base));
        }
        // Replicas share `base`'s spec (an `Arc` clone each); only names differ.
        let workload = format!("{kind}/{}", meta.name);
        self.expansions.push(owners::Expansion {
            kind: kind.to_string(),
            namespace: meta.namespace.clone(),
            name: meta.name.clone(),
            owner: meta.owner.clone(),
            first: self.pods.len(),
            count: count as usize,
            job,
            document: sink.document,
            source: None,
        });
        self.pods.reserve(count as usize);
        for i in 0..count {
            let mut p = base.clone();
            p.name = format!("{}-{i}", meta.name);
            p.uid = format!("{}/{}", meta.namespace, p.name);
            p.workload = Some(workload.clone());
            self.pods.push(p);
        }
    }

    pub(super) fn daemonset(&mut self, root: &At, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let spec = root.get("spec");
        let Some(template) = spec.as_ref().and_then(|s| s.get("template")) else {
            sink.error(root, "required", "DaemonSet without spec.template", "spec.template");
            return;
        };
        let mut tmeta: Meta = read_meta(&template, sink);
        tmeta.namespace = meta.namespace.clone();
        tmeta.name = meta.name.clone();
        tmeta.owner = Some(("DaemonSet".into(), meta.name.clone()));
        let tspec = template.get("spec");
        let pod = lower_pod::lower_pod(&tmeta, tspec.as_ref(), &mut self.ctx(), sink);
        self.daemonsets.push(DaemonSet { name: meta.name, namespace: meta.namespace, pod });
    }

    pub(super) fn pdb(&mut self, root: &At, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let spec = root.get("spec");
        let selector = spec
            .as_ref()
            .and_then(|s| s.get("selector"))
            .map(|s| lower_pod::label_selector(&s, &mut self.interner, sink))
            .unwrap_or_else(Selector::nothing);
        let iop = |name: &str, sink: &mut Sink| {
            let at = spec.as_ref()?.get(name)?;
            let s = sink.scalar(&at)?;
            match s.strip_suffix('%') {
                Some(p) => p.parse().ok().map(IntOrPercent::Percent),
                None => s.parse().ok().map(IntOrPercent::Int),
            }
            .or_else(|| {
                sink.error(&at, "invalid-value", format!("{s:?} is neither an integer nor a percentage"), "e.g. 1 or 50%");
                None
            })
        };
        let min_available = iop("minAvailable", sink);
        let max_unavailable = iop("maxUnavailable", sink);
        let disruptions_allowed = root.get("status").and_then(|s| sink.opt_int(&s, "disruptionsAllowed", "an integer"));
        // The API server accepts only these two policies (policy/v1 validation).
        let mut always_allow_unhealthy = false;
        if let Some(at) = spec.as_ref().and_then(|s| s.get("unhealthyPodEvictionPolicy")) {
            match sink.scalar(&at).as_deref() {
                Some("AlwaysAllow") => always_allow_unhealthy = true,
                Some("IfHealthyBudget") => {}
                Some(other) => sink.error(
                    &at,
                    "unsupported-value",
                    format!("unhealthyPodEvictionPolicy {other:?} is not supported"),
                    "IfHealthyBudget or AlwaysAllow",
                ),
                None => {}
            }
        }
        self.pdbs.push(Pdb {
            name: meta.name,
            namespace: meta.namespace,
            selector,
            min_available,
            max_unavailable,
            disruptions_allowed,
            always_allow_unhealthy,
        });
    }
}
