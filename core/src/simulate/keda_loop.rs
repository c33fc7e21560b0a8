//! KEDA's scale loop on the simulated clock: each ScaledObject and ScaledJob is polled every
//! pollingInterval from the start (pkg/scaling/scale_handler.go startScaleLoop: a poll at once,
//! then one per interval). A ScaledObject's poll activates or deactivates its workload
//! (keda/object.rs), its generated HPA syncs with the other HPAs (autoscale.rs); a ScaledJob's
//! poll creates Jobs (keda/job.rs), which run as the trace's Jobs do (jobs.rs).

use super::keda::{job, object, Run};
use super::sim::Sim;
use super::state::{Ev, PodState};

impl Sim {
    /// One poll of KEDA's scale loop for run `k`, and the next poll queued.
    pub fn keda_poll(&mut self, k: usize) {
        // Taken out while polled, as hpa_sync takes the watched list: the poll reads the Sim.
        let mut runs = std::mem::take(&mut self.keda);
        match &mut runs[k] {
            Run::Object(o) => self.poll_object(o),
            Run::Job(j) => self.poll_job(j),
        }
        let next = self.now + runs[k].polling();
        self.keda = runs;
        if next <= self.end {
            self.push(next, Ev::KedaPoll(k));
        }
    }

    fn poll_object(&mut self, o: &mut super::keda::ObjectRun) {
        let w = &self.watched[o.watched];
        let Some(inst) = self.watched_instance(w) else { return };
        let current = self.instances[inst].pods.iter().filter(|&&p| self.is_live(p)).count() as i32;
        let values: Vec<f64> = o.series.iter().map(|s| s.map_or(0.0, |i| self.demand[i].at(self.now))).collect();
        let active = object::is_active(&o.spec, &values);
        // The ScaledObject exists from the start of the run (its creationTimestamp).
        let action = object::request_scale(&o.spec, &mut o.state, active, current, self.now, 0);
        match action {
            object::Action::Activate(_) => o.activations += 1,
            object::Action::Deactivate(_) => o.deactivations += 1,
            _ => {}
        }
        if let Some(n) = action.replicas() {
            if n != current {
                self.scale(inst, i64::from(n));
            }
        }
    }

    /// Whether Job instance `i` has finished (Complete or Failed, isJobFinished).
    fn job_finished(&self, i: usize) -> bool {
        let inst = &self.instances[i];
        match &inst.job {
            Some(j) => j.job_failed || j.completions.map_or(j.succeeded > 0, |c| j.succeeded >= c) || inst.deleted,
            None => inst.deleted,
        }
    }

    /// Whether unfinished Job `i` counts as pending (getPendingJobCount).
    fn job_pending(&self, i: usize, conditions: &[job::PodCondition]) -> bool {
        let pods = &self.instances[i].pods;
        if conditions.is_empty() {
            // isAnyPodRunningOrCompleted (a succeeded pod is Finished here; deleted pods are gone).
            return !pods.iter().any(|&p| matches!(self.pods[p].state, PodState::Running | PodState::Finished));
        }
        // areAllPendingPodConditionsFulfilled: some pod with every listed condition true.
        !pods.iter().any(|&p| {
            let s = self.pods[p].state;
            conditions.iter().all(|c| match c {
                job::PodCondition::Scheduled => matches!(s, PodState::Bound | PodState::Running),
                job::PodCondition::Started => s == PodState::Running,
            })
        })
    }

    fn poll_job(&mut self, j: &mut super::keda::JobRun) {
        let Some(tpl) = j.template else { return };
        let unfinished: Vec<usize> = j.jobs.iter().copied().filter(|&i| !self.job_finished(i)).collect();
        let running = unfinished.len() as i64;
        let pending = unfinished.iter().filter(|&&i| self.job_pending(i, &j.spec.pending_conditions)).count() as i64;
        let max_rc = j.spec.max_replica_count();
        let metrics: Vec<job::ScalerMetrics> =
            j.spec.triggers.iter().zip(&j.series).map(|(t, &s)| job::scaler_metrics(t, self.demand[s].at(self.now), max_rc)).collect();
        let (active, scale_to, max_scale) = job::is_active(&metrics, j.spec.calc, j.spec.min_replica_count(), max_rc);
        let (effective, scale_to) = job::scaling_decision(&j.spec, running, pending, scale_to, max_scale);
        let n = job::jobs_to_create(active, effective.max(0), scale_to);
        let pods = self.templates[tpl].default_replicas;
        for _ in 0..n {
            let name = format!("{}-{}", j.spec.name, j.jobs.len() + 1);
            let id = self.instances.len();
            self.submit(tpl, Some(name), pods, Some(super::trace::RunTime::Fixed(j.run_time)), None);
            j.jobs.push(id);
        }
        j.polls.push((self.now, running, pending, n));
    }
}
