//! Pods a controller already runs (live-cluster exports, docs/live-export.md).
//!
//! `kubectl get deploy,rs,job,sts,pods -o yaml` exports both a workload and the pods its
//! controller created. The controllers count those pods before creating more, and so does the
//! lowering: each workload expands only the pods its controller would still create.
//! - ReplicaSet controller (k8s pkg/controller/replicaset): creates `replicas − active` pods,
//!   active = its non-terminal pods (the pods whose controller ownerReference names it).
//! - Deployment controller (pkg/controller/deployment): scales its ReplicaSets (named
//!   `<deployment>-<pod-template-hash>`) to `replicas` in total; a ReplicaSet owned by a
//!   Deployment of the input is counted as part of that Deployment, not expanded again, and a
//!   pod whose ReplicaSet is not in the export is recognised by `<deployment>-<its
//!   pod-template-hash label>`.
//! - StatefulSet controller (pkg/controller/statefulset): creates the missing ordinals
//!   `<name>-<i>`, i < replicas.
//! - Job controller (pkg/controller/job): active = min(parallelism, completions − succeeded);
//!   nothing more once completions are reached, or once failures exceed `backoffLimit`.
//! - A CronJob with one of its Jobs in the input runs that Job (lowered on its own); its job
//!   template is not expanded a second time.
//!
//! Generated pods keep their `<name>-<i>` names unless a pod of the input already has that name
//! (a StatefulSet's ordinal, or a pod named like one): then the next free index is used, so a
//! live export never fails with `duplicate-name` for a name nodecast made up.

use crate::model::{JobRun, Pod, Skipped};
use std::collections::{HashMap, HashSet};

/// The pods one workload object expanded to (`pods[first..first + count]`).
#[derive(Debug, Clone)]
pub(super) struct Expansion {
    pub kind: String,
    pub namespace: String,
    pub name: String,
    /// The workload object's own controller (a ReplicaSet's Deployment, a Job's CronJob).
    pub owner: Option<(String, String)>,
    pub first: usize,
    pub count: usize,
    pub job: Option<JobSpec>,
    pub document: usize,
    pub source: Option<String>,
}

/// A Job's counts as written (spec and status).
#[derive(Debug, Clone, Copy)]
pub(super) struct JobSpec {
    pub parallelism: i64,
    pub completions: Option<i64>,
    pub backoff_limit: i64,
    pub status_succeeded: i64,
    pub status_failed: i64,
}

/// How an input Pod object ended, from `status.phase`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    Active,
    Succeeded,
    Failed,
}

#[derive(Default, Clone, Copy)]
struct Count {
    active: i64,
    succeeded: i64,
    failed: i64,
}

/// Drop (and rename) generated pods as the controllers would; returns the keep mask over
/// `pods` and the Jobs' remaining work. `explicit`: (pod index, phase) of the input's Pod objects.
pub(super) fn reconcile(
    pods: &mut [Pod],
    expansions: &[Expansion],
    explicit: &[(usize, Phase)],
    hash_key: Option<u32>,
    interner: &crate::labels::Interner,
    skipped: &mut Vec<Skipped>,
) -> (Vec<bool>, Vec<JobRun>) {
    let mut keep = vec![true; pods.len()];
    // Deployments and CronJobs of the input, and which ReplicaSets / Jobs they own.
    let deployments: HashSet<(&str, &str)> =
        expansions.iter().filter(|e| e.kind == "Deployment").map(|e| (e.namespace.as_str(), e.name.as_str())).collect();
    let cronjobs: HashSet<(&str, &str)> =
        expansions.iter().filter(|e| e.kind == "CronJob").map(|e| (e.namespace.as_str(), e.name.as_str())).collect();
    let owned_by = |e: &Expansion, kind: &str, set: &HashSet<(&str, &str)>| {
        e.owner.as_ref().is_some_and(|(k, n)| k == kind && set.contains(&(e.namespace.as_str(), n.as_str())))
    };
    // ReplicaSet (ns, name) → its Deployment, when that Deployment is in the input.
    let rs_to_deploy: HashMap<(&str, &str), &str> = expansions
        .iter()
        .filter(|e| e.kind == "ReplicaSet" && owned_by(e, "Deployment", &deployments))
        .filter_map(|e| Some(((e.namespace.as_str(), e.name.as_str()), e.owner.as_ref()?.1.as_str())))
        .collect();
    let cron_with_jobs: HashSet<(&str, &str)> = expansions
        .iter()
        .filter(|e| e.kind == "Job" && owned_by(e, "CronJob", &cronjobs))
        .filter_map(|e| Some((e.namespace.as_str(), e.owner.as_ref()?.1.as_str())))
        .collect();

    // Count the input's pods per controller (kind, namespace, name) it counts toward.
    let mut counts: HashMap<(String, String, String), Count> = HashMap::new();
    for &(i, phase) in explicit {
        let p = &pods[i];
        let Some((kind, owner)) = p.owner.clone() else { continue };
        let ns = p.namespace.clone();
        let target = match kind.as_str() {
            "ReplicaSet" => match rs_to_deploy.get(&(ns.as_str(), owner.as_str())) {
                Some(d) => ("Deployment".to_string(), d.to_string()),
                None => {
                    // The ReplicaSet is not in the export: `<deployment>-<pod-template-hash>`.
                    let hash = hash_key.and_then(|k| p.labels.get(k)).map(|v| interner.str(v).to_string());
                    let deploy = hash.and_then(|h| owner.strip_suffix(&format!("-{h}")).map(str::to_string));
                    match deploy.filter(|d| deployments.contains(&(ns.as_str(), d.as_str()))) {
                        Some(d) => ("Deployment".to_string(), d),
                        None => (kind.clone(), owner.clone()),
                    }
                }
            },
            _ => (kind.clone(), owner.clone()),
        };
        let c = counts.entry((target.0, ns, target.1)).or_default();
        match phase {
            Phase::Active if !p.terminal => c.active += 1,
            Phase::Active => {}
            Phase::Succeeded => c.succeeded += 1,
            Phase::Failed => c.failed += 1,
        }
    }

    // Names of the input's own pods: a generated pod never takes one (two generated pods with one
    // name are still an error of check_duplicates).
    let mut taken: HashSet<(String, String)> = explicit.iter().map(|&(i, _)| (pods[i].namespace.clone(), pods[i].name.clone())).collect();
    let mut jobs = Vec::new();
    for e in expansions {
        let run = e.first..e.first + e.count;
        let c = counts.get(&(e.kind.clone(), e.namespace.clone(), e.name.clone())).copied().unwrap_or_default();
        let drop_all = (e.kind == "ReplicaSet" && rs_to_deploy.contains_key(&(e.namespace.as_str(), e.name.as_str())))
            || (e.kind == "CronJob" && cron_with_jobs.contains(&(e.namespace.as_str(), e.name.as_str())));
        let need = if drop_all {
            0
        } else if let Some(j) = e.job {
            let succeeded = c.succeeded.max(j.status_succeeded);
            let failed = c.failed.max(j.status_failed);
            let done = match j.completions {
                Some(n) => succeeded >= n,
                None => succeeded > 0,
            };
            if failed > j.backoff_limit {
                skipped.push(Skipped {
                    source: e.source.clone(),
                    document: e.document,
                    kind: e.kind.clone(),
                    name: e.name.clone(),
                    reason: format!(
                        "{} has failed: {failed} failed pods exceed its backoffLimit {}; the Job controller creates no more pods",
                        e.kind, j.backoff_limit
                    ),
                });
                0
            } else if done {
                0
            } else {
                let left = j.completions.map(|n| n - succeeded);
                let want = left.map_or(j.parallelism, |l| j.parallelism.min(l));
                jobs.push(JobRun {
                    namespace: e.namespace.clone(),
                    workload: format!("{}/{}", e.kind, e.name),
                    parallelism: (j.parallelism - c.active).max(0),
                    completions: left.map(|l| (l - c.active).max(0)),
                    backoff_limit: j.backoff_limit - failed,
                });
                (want - c.active).max(0)
            }
        } else if e.kind == "StatefulSet" {
            // The missing ordinals: generated pods whose name no input pod has.
            run.clone().filter(|&i| !taken.contains(&(pods[i].namespace.clone(), pods[i].name.clone()))).count() as i64
        } else {
            (e.count as i64 - c.active).max(0)
        };
        let mut kept = 0;
        let mut next = e.count;
        for i in run {
            let key = (pods[i].namespace.clone(), pods[i].name.clone());
            if e.kind == "StatefulSet" && taken.contains(&key) {
                keep[i] = false;
                continue;
            }
            if kept >= need {
                keep[i] = false;
                continue;
            }
            kept += 1;
            if taken.contains(&key) {
                // A pod of the input already has this made-up name: use the next free index.
                let name = loop {
                    let n = format!("{}-{next}", e.name);
                    next += 1;
                    if !taken.contains(&(key.0.clone(), n.clone())) {
                        break n;
                    }
                };
                pods[i].uid = format!("{}/{name}", key.0);
                taken.insert((key.0, name.clone()));
                pods[i].name = name;
            }
        }
    }
    (keep, jobs)
}

impl super::Lowering {
    /// Reconcile the workloads with the pods the input shows their controllers run, then drop
    /// the pods no controller would create (keeping `pod_sources` in step).
    pub(super) fn reconcile_owners(&mut self) -> Vec<JobRun> {
        let hash_key = self.interner.get("pod-template-hash");
        let (keep, jobs) = reconcile(&mut self.pods, &self.expansions, &self.explicit, hash_key, &self.interner, &mut self.skipped);
        if keep.iter().all(|&k| k) {
            return jobs;
        }
        // Kept pods before each index: a source run starting at pod i now starts there.
        let mut before = Vec::with_capacity(keep.len() + 1);
        before.push(0usize);
        for &k in &keep {
            before.push(before[before.len() - 1] + usize::from(k));
        }
        let remap = |runs: &[(usize, Option<String>)]| -> Vec<(usize, Option<String>)> {
            let mut out: Vec<(usize, Option<String>)> = runs.iter().map(|(first, src)| (before[*first], src.clone())).collect();
            // Runs that lost all their pods collapse onto the next run's start; the last wins.
            out.dedup_by(|later, earlier| {
                if later.0 == earlier.0 {
                    earlier.1 = later.1.clone();
                    true
                } else {
                    false
                }
            });
            out
        };
        self.pod_sources = remap(&self.pod_sources);
        self.pod_items = remap(&self.pod_items);
        let mut i = 0;
        self.pods.retain(|_| {
            i += 1;
            keep[i - 1]
        });
        jobs
    }
}

impl super::Lowering {
    /// A DaemonSet's overhead comes from its newest pod in the input when there is one, not
    /// from its template (Karpenter's cluster state keeps the newest pod the DaemonSet controls,
    /// state/cluster.go UpdateDaemonSet, and the provisioner prefers it, provisioner.go
    /// getDaemonSetPods: a LimitRange or a webhook may have changed its requests). The template's
    /// required node affinity, when it has one, replaces the pod's: the DaemonSet controller
    /// pins each pod to its node by a `metadata.name` matchFields term. Newest by creation time;
    /// of equally new pods the first by name (the API server lists by name; Karpenter replaces
    /// only on a strictly newer one). Pods are matched by namespace and their controller
    /// reference's kind and name (inputs rarely carry UIDs).
    pub(super) fn daemonset_pods(&mut self) {
        for ds in self.daemonsets.iter_mut() {
            let mut newest: Option<&Pod> = None;
            for p in &self.pods {
                let owned = p.namespace == ds.namespace && p.owner.as_ref().is_some_and(|(k, n)| k == "DaemonSet" && n == &ds.name);
                let newer = newest.is_none_or(|q| p.created > q.created || p.created == q.created && p.name < q.name);
                if owned && newer {
                    newest = Some(p);
                }
            }
            let Some(pod) = newest else { continue };
            let mut spec: crate::model::pod::PodSpec = (**pod).clone();
            if !ds.pod.required_terms.is_empty() {
                spec.required_terms = ds.pod.required_terms.clone();
            }
            ds.pod.set_spec(std::sync::Arc::new(spec));
        }
    }
}
