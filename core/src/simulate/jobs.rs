//! Jobs as the Job controller runs them (Kubernetes pkg/controller/job/job_controller.go):
//! it keeps `min(parallelism, completions − succeeded)` pods active, so a Job with
//! `completions: 40, parallelism: 6` runs waves of up to 6 pods until 40 have succeeded.
//! A pod that does not succeed counts as a failure: in the simulator, a pod evicted by a
//! disruption, an expiration or a spot interruption (Karpenter evicts through the Eviction API,
//! and without a `podFailurePolicy` the Job controller counts such a pod as failed). Once
//! failures exceed `backoffLimit`, the Job has failed: its remaining pods are deleted and no
//! more are created. (The controller's exponential back-off before re-creating a failed pod
//! is not modelled: the pod is re-created at once, as every evicted pod is.)

use super::sim::Sim;
use super::state::JobProgress;
use crate::model::JobRun;

impl JobProgress {
    /// `pods`: the pods the trace asks for at once (its `replicas`, else the manifest's first wave).
    pub fn new(j: &JobRun, pods: i64) -> JobProgress {
        JobProgress {
            parallelism: pods.max(0),
            completions: j.completions,
            backoff_limit: j.backoff_limit,
            succeeded: 0,
            failed: 0,
            job_failed: false,
        }
    }

    /// How many more pods the controller creates while `active` pods are live.
    pub fn wanted(&self, active: i64) -> i64 {
        if self.job_failed {
            return 0;
        }
        let target = match self.completions {
            Some(c) => self.parallelism.min(c - self.succeeded),
            None if self.succeeded > 0 => 0,
            None => self.parallelism,
        };
        (target - active).max(0)
    }
}

impl Sim {
    fn job_of(&self, p: usize) -> Option<usize> {
        let i = self.pods[p].instance;
        (i != usize::MAX && self.instances[i].job.is_some() && !self.instances[i].deleted).then_some(i)
    }

    fn live_pods(&self, inst: usize) -> i64 {
        self.instances[inst].pods.iter().filter(|&&p| self.is_live(p)).count() as i64
    }

    /// A Job's pod ran to completion: the next wave's pod, if completions are not reached.
    pub fn job_pod_succeeded(&mut self, p: usize) {
        let Some(inst) = self.job_of(p) else { return };
        let active = self.live_pods(inst);
        let Some(job) = self.instances[inst].job.as_mut() else { return };
        job.succeeded += 1;
        for _ in 0..job.wanted(active) {
            self.new_pod(inst);
        }
    }

    /// A Job's pod was evicted (it is already pending again): one more failure; past the
    /// backoff limit the Job fails and its pods are deleted.
    pub fn job_pod_failed(&mut self, p: usize, reason: &str) {
        let Some(inst) = self.job_of(p) else { return };
        let Some(job) = self.instances[inst].job.as_mut() else { return };
        job.failed += 1;
        if job.failed <= job.backoff_limit {
            return;
        }
        job.job_failed = true;
        let (failed, limit) = (job.failed, job.backoff_limit);
        let workload = self.pods[p].workload.clone();
        let at = self.now;
        self.warnings.push(crate::api::Warning {
            code: "job-failed".into(),
            message: format!(
                "{workload} failed at {at}s: {failed} of its pods failed (the last evicted: {reason}), more than its backoffLimit {limit}; the Job controller deletes its pods and creates no more"
            ),
            object: Some(workload),
        });
        for q in self.instances[inst].pods.clone() {
            if self.is_live(q) {
                self.delete_pod(q);
            }
        }
    }
}
