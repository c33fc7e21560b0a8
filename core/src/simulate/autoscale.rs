//! The HPA controller on the simulated clock: every 15 s each HorizontalPodAutoscaler reads its
//! target's pods and the trace's demand, computes the replicas as Kubernetes' controller does
//! (hpa/), and scales the workload; the pods it adds go through Karpenter like any other.
//! Afterwards, the per-workload report (served demand, time short of capacity, scale-up times,
//! GPU cost) and the series (replicas, desired, ready, demand).

use super::hpa::calc::{self, PodSample};
use super::hpa::spec::Source;
use super::hpa::{Watched, SYNC_SECONDS};
use super::sim::Sim;
use super::state::{Ev, PodState};
use super::workloads::Kind;
use super::{Metric, Percentiles, Series};
use indexmap::IndexMap;
use serde::Serialize;

/// One workload an HPA scales, or one with a demand series (`autoscaling` of a Simulation).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AutoscaledWorkload {
    /// The workload, `Kind/namespace/name` (its trace instance name when it never ran).
    pub workload: String,
    /// Its HorizontalPodAutoscaler, `namespace/name`; absent when the trace's scale events drive it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hpa: Option<String>,
    /// The KEDA ScaledObject that generated the HPA, or the ScaledJob (then `workload` is
    /// `ScaledJob/namespace/name` and replicas count its unfinished Jobs), `Kind/namespace/name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keda: Option<String>,
    /// Times KEDA activated the workload from zero (or its idle count).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keda_activations: Option<usize>,
    /// Times KEDA deactivated it to zero (or its idle count) after the cooldown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keda_deactivations: Option<usize>,
    /// Jobs the ScaledJob created.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jobs_created: Option<usize>,
    /// Of those, Jobs that completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jobs_succeeded: Option<usize>,
    /// Of those, Jobs that failed (backoffLimit exceeded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jobs_failed: Option<usize>,
    /// The HPA's minReplicas.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_replicas: Option<i32>,
    /// The HPA's maxReplicas.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_replicas: Option<i32>,
    /// Most replicas at once.
    pub peak_replicas: i32,
    /// Times the HPA changed the replicas.
    pub rescales: usize,
    /// Σ replicas × time, in hours (every pod, pending or running).
    pub replica_hours: f64,
    /// Σ ready replicas × time, in hours.
    pub ready_replica_hours: f64,
    /// Seconds with fewer ready pods than the replicas asked for.
    pub seconds_below_desired: i64,
    /// Seconds from a pod's start to Ready (the trace's readinessDelay or the readinessProbe's initialDelaySeconds).
    pub readiness_delay_seconds: i64,
    /// Demand units one ready replica serves (the series' capacityPerReplica); the figures below need it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity_per_replica: Option<f64>,
    /// Σ demand × time, in unit-hours.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demand_unit_hours: Option<f64>,
    /// Σ min(demand, ready × capacity) × time, in unit-hours.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub served_unit_hours: Option<f64>,
    /// Σ max(0, demand − ready × capacity) × time, in unit-hours.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unserved_unit_hours: Option<f64>,
    /// `100 × served ÷ demand`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub served_percent: Option<f64>,
    /// Seconds when the demand was above the ready capacity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds_short: Option<i64>,
    /// Per rise of the demand: seconds until the ready capacity covered it (rises never covered are left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_up_seconds: Option<Percentiles>,
    /// Demand rises the ready capacity covered before the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rises_covered: Option<usize>,
    /// Demand rises it never covered before the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rises_uncovered: Option<usize>,
    /// Σ pod GPUs × running time, in hours.
    pub gpu_hours: f64,
    /// The pods' share of their nodes' price (pod GPUs ÷ node GPUs × $/h × running time), USD.
    pub gpu_cost_usd: f64,
}

impl Sim {
    /// One sync of the HPA controller (and a sample of every watched workload).
    pub fn hpa_sync(&mut self) {
        let mut watched = std::mem::take(&mut self.watched);
        for w in &mut watched {
            let Some(inst) = self.watched_instance(w) else { continue };
            w.instance = Some(inst);
            let live: Vec<usize> = self.instances[inst].pods.iter().copied().filter(|&p| self.is_live(p)).collect();
            let current = live.len() as i32;
            let delay = w.readiness.unwrap_or(0);
            let ready = live.iter().filter(|&&p| self.pod_ready(p, delay)).count() as i32;
            let mut desired = current;
            if let Some(h) = &mut w.hpa {
                let now = self.now;
                let sim: &Sim = self;
                let (spec, series, tol) = (&h.spec, &h.series, h.tolerances);
                let proposal = || sim.hpa_proposal(spec, series, tol, &live, (current, ready), delay, inst);
                let d = h.ctl.sync(&h.spec, now, current, proposal);
                desired = d.desired;
            }
            w.samples.push((self.now, current, desired, ready));
            if desired != current {
                self.scale(inst, i64::from(desired));
            }
        }
        self.watched = watched;
        let next = self.now + SYNC_SECONDS;
        if next <= self.end {
            self.push(next, Ev::HpaSync);
        }
    }

    /// The running instance a watched workload names: same name, a Deployment-like kind (the
    /// HPA's kind and namespace when it has one), not deleted.
    pub(super) fn watched_instance(&self, w: &Watched) -> Option<usize> {
        let i = *self.instance_names.get(&w.name)?;
        let inst = &self.instances[i];
        let t = &self.templates[inst.tpl];
        let ok = !inst.deleted
            && t.kind == Kind::Service
            && t.members.is_empty()
            && (w.kind.is_empty() || t.kind_name == w.kind)
            && w.namespace.as_ref().is_none_or(|ns| *ns == t.pod.namespace);
        ok.then_some(i)
    }

    fn pod_ready(&self, p: usize, delay: i64) -> bool {
        let pod = &self.pods[p];
        pod.state == PodState::Running && self.now - pod.run_since >= delay
    }

    /// The metrics' inputs at this sync: per metric, the pods with the per-pod share of its
    /// demand (ready pods only) and the demand itself; then the controller's proposal.
    #[allow(clippy::too_many_arguments)]
    fn hpa_proposal(
        &self,
        spec: &super::hpa::spec::HpaSpec,
        series: &[Option<usize>],
        tol: calc::Tolerances,
        live: &[usize],
        (current, ready): (i32, i32),
        delay: i64,
        inst: usize,
    ) -> Option<i32> {
        let tpl = &self.templates[self.instances[inst].tpl].pod;
        let inputs: Vec<super::hpa::MetricInput> = spec
            .metrics
            .iter()
            .zip(series)
            .map(|(m, s)| {
                let total = (self.demand[(*s)?].at(self.now) * 1000.0).round() as i64;
                let per_pod = if ready > 0 { total / i64::from(ready) } else { 0 };
                let request = match &m.source {
                    Source::Resource { resource } => self.m.resources.get(resource).map_or(0, |id| tpl.requests.get(id)),
                    _ => 0,
                };
                let pods = live
                    .iter()
                    .map(|&p| {
                        let sample = match self.pods[p].state {
                            PodState::Running if self.pod_ready(p, delay) => PodSample::Value(per_pod),
                            PodState::Running => PodSample::Missing,
                            _ => PodSample::Pending,
                        };
                        (sample, request)
                    })
                    .collect();
                Some((pods, total))
            })
            .collect();
        super::hpa::propose(spec, tol, &inputs, current)
    }

    /// The per-workload report, and the workloads' series appended to `series`.
    pub fn autoscale_report(&self, series: &mut Series, duration: i64) -> Vec<AutoscaledWorkload> {
        let mut out = Vec::new();
        for (wi, w) in self.watched.iter().enumerate() {
            let so = self.keda.iter().find_map(|r| match r {
                super::keda::Run::Object(o) if o.watched == wi => Some(o),
                _ => None,
            });
            let workload = match w.instance {
                Some(i) => {
                    let t = &self.templates[self.instances[i].tpl];
                    format!("{}/{}/{}", t.kind_name, t.pod.namespace, self.instances[i].name)
                }
                None => w.name.clone(),
            };
            let spec = w.hpa.as_ref().map(|h| &h.spec);
            let cap = w.capacity.map(|i| (&self.demand[i], self.demand[i].capacity.unwrap_or(1.0)));
            let (mut rh, mut rrh, mut below, mut dem, mut served, mut short) = (0.0, 0.0, 0i64, 0.0, 0.0, 0i64);
            for (k, &(t, _, desired, ready)) in w.samples.iter().enumerate() {
                let until = w.samples.get(k + 1).map_or(duration, |s| s.0).min(duration);
                let dt = (until - t).max(0);
                rh += f64::from(desired) * dt as f64;
                rrh += f64::from(ready) * dt as f64;
                if ready < desired {
                    below += dt;
                }
                if let Some((d, c)) = cap {
                    let want = d.at(t);
                    let have = f64::from(ready) * c;
                    dem += want * dt as f64;
                    served += want.min(have) * dt as f64;
                    if want > have {
                        short += dt;
                    }
                }
            }
            let (mut covered, mut uncovered) = (Vec::new(), 0usize);
            if let Some((d, c)) = cap {
                for rise in d.rises().into_iter().filter(|&r| r < duration) {
                    let first = w.samples.iter().find(|s| s.0 >= rise && f64::from(s.3) * c >= d.at(s.0));
                    match first {
                        Some(s) => covered.push(s.0 - rise),
                        None => uncovered += 1,
                    }
                }
                covered.sort_unstable();
            }
            let (gpu_hours, gpu_cost) = self.gpu_use(w.instance, duration);
            let h = |x: f64| (x / 3600.0 * 1e4).round() / 1e4;
            out.push(AutoscaledWorkload {
                workload: workload.clone(),
                hpa: spec.map(|s| format!("{}/{}", s.namespace, s.name)),
                keda: so.map(|o| format!("ScaledObject/{}/{}", o.spec.namespace, o.spec.name)),
                keda_activations: so.map(|o| o.activations),
                keda_deactivations: so.map(|o| o.deactivations),
                jobs_created: None,
                jobs_succeeded: None,
                jobs_failed: None,
                min_replicas: spec.map(|s| s.min_replicas),
                max_replicas: spec.map(|s| s.max_replicas),
                peak_replicas: w.samples.iter().map(|s| s.2.max(s.1)).max().unwrap_or(0),
                rescales: w.samples.iter().filter(|s| s.2 != s.1).count(),
                replica_hours: h(rh),
                ready_replica_hours: h(rrh),
                seconds_below_desired: below,
                readiness_delay_seconds: w.readiness.unwrap_or(0),
                capacity_per_replica: cap.map(|c| c.1),
                demand_unit_hours: cap.map(|_| h(dem)),
                served_unit_hours: cap.map(|_| h(served)),
                unserved_unit_hours: cap.map(|_| h(dem - served)),
                served_percent: cap.map(|_| if dem > 0.0 { (served / dem * 1e4).round() / 100.0 } else { 100.0 }),
                seconds_short: cap.map(|_| short),
                scale_up_seconds: cap.map(|_| Percentiles {
                    p50: super::summary::percentile(&covered, 0.5),
                    p95: super::summary::percentile(&covered, 0.95),
                    max: covered.last().copied().unwrap_or(0),
                }),
                rises_covered: cap.map(|_| covered.len()),
                rises_uncovered: cap.map(|_| uncovered),
                gpu_hours: (gpu_hours * 1e4).round() / 1e4,
                gpu_cost_usd: (gpu_cost * 1e4).round() / 1e4,
            });
            self.watched_series(w, &workload, series);
        }
        for r in &self.keda {
            if let super::keda::Run::Job(j) = r {
                out.push(self.scaled_job_report(j, series, duration));
            }
        }
        out
    }

    /// A ScaledJob's row: its unfinished Jobs per poll stand for replicas; GPU use over all its Jobs.
    fn scaled_job_report(&self, j: &super::keda::JobRun, series: &mut Series, duration: i64) -> AutoscaledWorkload {
        let (mut jh, mut pending, mut gh, mut cost) = (0.0, 0i64, 0.0, 0.0);
        for (k, &(t, running, pend, created)) in j.polls.iter().enumerate() {
            let until = j.polls.get(k + 1).map_or(duration, |p| p.0).min(duration);
            let dt = (until - t).max(0);
            jh += (running + created) as f64 * dt as f64;
            if pend > 0 || created > 0 {
                pending += dt;
            }
        }
        for &i in &j.jobs {
            let (h, c) = self.gpu_use(Some(i), duration);
            gh += h;
            cost += c;
        }
        let done = |failed: bool| {
            j.jobs
                .iter()
                .filter(|&&i| {
                    self.instances[i].job.as_ref().is_some_and(|p| {
                        if failed {
                            p.job_failed
                        } else {
                            !p.job_failed && p.completions.map_or(p.succeeded > 0, |c| p.succeeded >= c)
                        }
                    })
                })
                .count()
        };
        let workload = format!("ScaledJob/{}/{}", j.spec.namespace, j.spec.name);
        let labels: IndexMap<String, String> = [("workload".to_string(), workload.clone())].into_iter().collect();
        let at = |t: i64| j.polls.partition_point(|p| p.0 <= t).checked_sub(1).map(|k| j.polls[k]);
        series.metrics.push(Metric {
            name: "nodecast_scaledjob_jobs".into(),
            labels: labels.clone(),
            values: series.times_seconds.iter().map(|&t| at(t).map_or(0.0, |p| (p.1 + p.3) as f64)).collect(),
        });
        for d in self.demand.iter().filter(|d| d.workload == j.spec.name) {
            let mut l = labels.clone();
            l.insert("metric".into(), d.metric.clone());
            series.metrics.push(Metric {
                name: "nodecast_demand".into(),
                labels: l,
                values: series.times_seconds.iter().map(|&t| (d.at(t) * 1e6).round() / 1e6).collect(),
            });
        }
        let h = |x: f64| (x / 3600.0 * 1e4).round() / 1e4;
        AutoscaledWorkload {
            workload: workload.clone(),
            hpa: None,
            keda: Some(workload),
            keda_activations: None,
            keda_deactivations: None,
            jobs_created: Some(j.jobs.len()),
            jobs_succeeded: Some(done(false)),
            jobs_failed: Some(done(true)),
            min_replicas: Some(j.spec.min_replica_count() as i32),
            max_replicas: Some(j.spec.max.unwrap_or(super::keda::job::DEFAULT_MAX as i32)),
            peak_replicas: j.polls.iter().map(|p| (p.1 + p.3) as i32).max().unwrap_or(0),
            rescales: j.polls.iter().filter(|p| p.3 > 0).count(),
            replica_hours: h(jh),
            ready_replica_hours: h(jh),
            seconds_below_desired: pending,
            readiness_delay_seconds: 0,
            capacity_per_replica: None,
            demand_unit_hours: None,
            served_unit_hours: None,
            unserved_unit_hours: None,
            served_percent: None,
            seconds_short: None,
            scale_up_seconds: None,
            rises_covered: None,
            rises_uncovered: None,
            gpu_hours: (gh * 1e4).round() / 1e4,
            gpu_cost_usd: (cost * 1e4).round() / 1e4,
        }
    }

    /// Σ GPU-hours of the instance's pods and their share of their nodes' price (each pod's
    /// running time priced at the last node it ran on).
    fn gpu_use(&self, inst: Option<usize>, duration: i64) -> (f64, f64) {
        let Some(i) = inst else { return (0.0, 0.0) };
        let (mut hours, mut cost) = (0.0, 0.0);
        for &p in &self.instances[i].pods {
            let pod = &self.pods[p];
            let secs = pod.running_total + if pod.state == PodState::Running { (duration - pod.run_since).max(0) } else { 0 };
            let gh = pod.gpus as f64 * secs as f64 / 3600.0;
            hours += gh;
            if let Some(&n) = pod.nodes.last() {
                let node = &self.nodes[n];
                if node.gpus > 0 {
                    cost += gh / node.gpus as f64 * node.price;
                }
            }
        }
        (hours, cost)
    }

    /// Replicas, desired replicas, ready pods and demand at the series' sample times (the
    /// last sync at or before each).
    fn watched_series(&self, w: &Watched, workload: &str, series: &mut Series) {
        let at = |t: i64| w.samples.partition_point(|s| s.0 <= t).checked_sub(1).map(|k| w.samples[k]);
        let mut push = |name: &str, labels: &[(&str, &str)], f: &dyn Fn(i64) -> f64| {
            let labels: IndexMap<String, String> = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            series.metrics.push(Metric { name: name.into(), labels, values: series.times_seconds.iter().map(|&t| f(t)).collect() });
        };
        let wl = [("workload", workload)];
        push("nodecast_workload_replicas", &wl, &|t| at(t).map_or(0.0, |s| f64::from(s.2)));
        push("nodecast_workload_ready_replicas", &wl, &|t| at(t).map_or(0.0, |s| f64::from(s.3)));
        if let Some(h) = &w.hpa {
            let labels = [("namespace", h.spec.namespace.as_str()), ("horizontalpodautoscaler", h.spec.name.as_str())];
            push("kube_horizontalpodautoscaler_status_desired_replicas", &labels, &|t| at(t).map_or(0.0, |s| f64::from(s.2)));
        }
        for d in self.demand.iter().filter(|d| d.workload == w.name) {
            push("nodecast_demand", &[("workload", workload), ("metric", d.metric.as_str())], &|t| (d.at(t) * 1e6).round() / 1e6);
        }
    }
}
