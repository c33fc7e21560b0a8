//! KEDA in the simulation: ScaledObjects (object.rs) drive their workload through the HPA they
//! generate (run by hpa/ like any HPA) and through their own activation and deactivation every
//! pollingInterval; ScaledJobs (job.rs) create Jobs from their queue length. Their triggers
//! (triggers.rs) read the trace's demand series: `workload` the ScaledObject's scale target (or
//! the ScaledJob's name), `metric` the trigger's name, else its type. The simulator polls them
//! (keda_loop.rs); this file reads and checks them.

pub mod job;
pub mod kind;
pub mod object;
pub mod rabbitmq;
pub mod triggers;

use super::demand::Demand;
use super::hpa::{behavior, calc, spec as hspec, HpaRun, Watched};
use crate::error::{ErrorKind, InputError};
use crate::load::Sources;
use serde_json::Value;

/// One ScaledObject of the run, with the watched workload (index into the simulation's
/// `watched`) its HPA drives.
#[derive(Debug, Clone)]
pub struct ObjectRun {
    pub spec: object::ObjectSpec,
    pub state: object::ObjectState,
    pub watched: usize,
    /// Per trigger: the demand series it reads (None: a cpu/memory trigger without one).
    pub series: Vec<Option<usize>>,
    pub activations: usize,
    pub deactivations: usize,
}

/// One ScaledJob of the run.
#[derive(Debug, Clone)]
pub struct JobRun {
    pub spec: job::JobSpec,
    /// Per trigger: the demand series it reads.
    pub series: Vec<usize>,
    /// Each Job's pods run this long (the series' `runTime`).
    pub run_time: i64,
    /// The Job template (set once the simulation's workloads are prepared).
    pub template: Option<usize>,
    /// The Jobs it created (trace instance indices).
    pub jobs: Vec<usize>,
    /// Per poll: (time, unfinished Jobs, pending Jobs, Jobs created).
    pub polls: Vec<(i64, i64, i64, i64)>,
}

#[derive(Debug, Clone)]
pub enum Run {
    Object(ObjectRun),
    Job(JobRun),
}

impl Run {
    pub fn polling(&self) -> i64 {
        match self {
            Run::Object(o) => o.spec.polling,
            Run::Job(j) => j.spec.polling,
        }
    }
}

/// What `prepare` found: the runs, the workloads the ScaledObjects' HPAs drive (their
/// `watched` indices count from 0 here; the caller offsets them), and the ScaledJobs' Job
/// manifests (inline workloads the simulation makes templates of), by ScaledJob.
#[derive(Debug, Default)]
pub struct Prepared {
    pub runs: Vec<Run>,
    pub watched: Vec<Watched>,
    pub job_manifests: Vec<(String, Value)>,
}

impl Prepared {
    /// The workloads KEDA scales (ScaledObject targets by kind/namespace/name) and the
    /// ScaledJobs' names: the HPA step refuses a second autoscaler on them.
    pub fn claimed(&self) -> Vec<(String, String, String)> {
        self.runs
            .iter()
            .map(|r| match r {
                Run::Object(o) => (o.spec.target_kind.clone(), o.spec.namespace.clone(), o.spec.target_name.clone()),
                Run::Job(j) => ("ScaledJob".into(), j.spec.namespace.clone(), j.spec.name.clone()),
            })
            .collect()
    }
}

fn located(doc: &crate::manifest::Document, object: &str, (path, code, msg, help): triggers::Problem) -> InputError {
    let mut e =
        InputError::new(code, msg).at_document(doc.index).object(object.to_string()).path(path).help(help).kind(ErrorKind::Admission);
    e.source = doc.source.clone();
    e
}

/// A Deployment-like document: kind, namespace, name, readiness delay, and its (container,
/// resource) pairs without a cpu / memory request.
type Target = (String, String, String, i64, Vec<(String, String)>);

/// The ScaledObjects and ScaledJobs of the inputs, checked, with the demand series they read.
pub fn prepare(req: &Sources, demand: &[Demand]) -> Result<Prepared, Vec<InputError>> {
    let mut out = Prepared::default();
    if !req.inputs.iter().any(|i| i.text.contains("keda.sh")) && req.objects.is_empty() {
        return Ok(out);
    }
    let mut errors = Vec::new();
    // Deployment-like documents: (kind, namespace, name, readiness delay, containers without a cpu / memory request).
    let mut targets: Vec<Target> = Vec::new();
    let mut found = Vec::new();
    for doc in crate::load::documents(req)? {
        let kind = doc.kind().to_string();
        if matches!(kind.as_str(), "Deployment" | "StatefulSet" | "ReplicaSet") {
            let ns = doc.value.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default").to_string();
            let mut missing = Vec::new();
            for c in doc.value.pointer("/spec/template/spec/containers").and_then(Value::as_array).into_iter().flatten() {
                for r in ["cpu", "memory"] {
                    if c.pointer(&format!("/resources/requests/{r}")).is_none() && c.pointer(&format!("/resources/limits/{r}")).is_none() {
                        missing.push((c.get("name").and_then(Value::as_str).unwrap_or("").to_string(), r.to_string()));
                    }
                }
            }
            targets.push((kind.clone(), ns, doc.name().to_string(), super::hpa::readiness_delay(&doc.value), missing));
        }
        if (kind == "ScaledObject" || kind == "ScaledJob") && doc.api_version().starts_with("keda.sh/") {
            if doc.api_version() != "keda.sh/v1alpha1" {
                let p = (
                    "apiVersion".to_string(),
                    "unsupported-version",
                    format!("{} {kind} is not served by KEDA v2.21", doc.api_version()),
                    "keda.sh/v1alpha1".to_string(),
                );
                errors.push(located(&doc, &format!("{kind}/{}", doc.name()), p));
                continue;
            }
            found.push(doc);
        }
    }
    for doc in &found {
        let shown = |ns: &str, n: &str| format!("{}/{ns}/{n}", doc.kind());
        let ns = doc.value.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default");
        let object = shown(ns, doc.name());
        let series_of = |workload: &str, ts: &[triggers::Trigger], errors: &mut Vec<InputError>| -> Vec<usize> {
            let mut v = Vec::new();
            for t in ts {
                match demand.iter().position(|d| d.workload == workload && d.metric == t.metric) {
                    Some(i) => v.push(i),
                    None if matches!(t.kind, triggers::Kind::Resource { .. }) => v.push(usize::MAX),
                    None => errors.push(located(
                        doc,
                        &object,
                        (
                            t.path.clone(),
                            "no-demand",
                            format!("the trace has no demand series for {workload:?} metric {:?}: the trigger reads nothing", t.metric),
                            format!("demand: [{{workload: {workload}, metric: {}, steps: [...]}}]", t.metric),
                        ),
                    )),
                }
            }
            v
        };
        if doc.kind() == "ScaledJob" {
            let spec = match job::parse(&doc.value) {
                Ok(s) => s,
                Err(ps) => {
                    errors.extend(ps.into_iter().map(|p| located(doc, &object, p)));
                    continue;
                }
            };
            let series = series_of(&spec.name, &spec.triggers, &mut errors);
            let run_time = demand.iter().filter(|d| d.workload == spec.name).find_map(|d| d.run_time);
            let Some(run_time) = run_time else {
                errors.push(located(
                    doc,
                    &object,
                    (
                        "spec.jobTargetRef".into(),
                        "no-run-time",
                        format!("the trace gives the Jobs of {object} no run time"),
                        format!("runTime on its demand series: {{workload: {}, metric: ..., runTime: 20m}}", spec.name),
                    ),
                ));
                continue;
            };
            out.job_manifests.push((format!("{object}.spec.jobTargetRef"), spec.job.clone()));
            out.runs.push(Run::Job(JobRun { spec, series, run_time, template: None, jobs: Vec::new(), polls: Vec::new() }));
        } else {
            let spec = match object::parse(&doc.value) {
                Ok(s) => s,
                Err(ps) => {
                    errors.extend(ps.into_iter().map(|p| located(doc, &object, p)));
                    continue;
                }
            };
            let hpa = match hspec::parse(&spec.hpa, "autoscaling/v2", doc.source.as_deref(), doc.index) {
                Ok(h) => h,
                Err(es) => {
                    for e in es {
                        let path = object::hpa_path(e.path.as_deref().unwrap_or(""));
                        errors.push(located(
                            doc,
                            &object,
                            (
                                path,
                                "invalid-value",
                                format!("the HorizontalPodAutoscaler KEDA generates is refused: {}", e.message),
                                e.help.clone().unwrap_or_default(),
                            ),
                        ));
                    }
                    continue;
                }
            };
            if !matches!(spec.target_kind.as_str(), "Deployment" | "StatefulSet" | "ReplicaSet") {
                let p = (
                    "spec.scaleTargetRef.kind".into(),
                    "unsupported-kind",
                    format!("the simulator scales Deployments, StatefulSets and ReplicaSets, not {:?}", spec.target_kind),
                    "kind: Deployment".into(),
                );
                errors.push(located(doc, &object, p));
                continue;
            }
            if let Some(other) = out.runs.iter().find_map(|r| match r {
                Run::Object(o)
                    if o.spec.namespace == spec.namespace
                        && o.spec.target_kind == spec.target_kind
                        && o.spec.target_name == spec.target_name =>
                {
                    Some(o.spec.name.clone())
                }
                _ => None,
            }) {
                let p = (
                    "spec.scaleTargetRef".into(),
                    "conflict",
                    format!(
                        "the workload '{}' of type '{}' is already managed by the ScaledObject '{other}'",
                        spec.target_name, spec.target_kind
                    ),
                    "one ScaledObject per workload".into(),
                );
                errors.push(located(doc, &object, p));
                continue;
            }
            let target = targets.iter().find(|t| t.0 == spec.target_kind && t.1 == spec.namespace && t.2 == spec.target_name);
            // verifyCPUMemoryScalers: a cpu/memory trigger needs the request on every container.
            for t in &spec.triggers {
                if let (triggers::Kind::Resource { resource, .. }, Some(tg)) = (&t.kind, target) {
                    if let Some((c, _)) = tg.4.iter().find(|(_, r)| r == resource) {
                        let p = (t.path.clone(), "missing-requests", format!("the scaledobject has a {resource} trigger but the container {c} doesn't have the {resource} request defined"), format!("resources: {{requests: {{{resource}: ...}}}}"));
                        errors.push(located(doc, &object, p));
                    }
                }
            }
            let series = series_of(&spec.target_name, &spec.triggers, &mut errors);
            let tol = |r: Option<&hspec::Rules>| r.and_then(|r| r.tolerance).unwrap_or(hspec::DEFAULT_TOLERANCE);
            let tolerances =
                calc::Tolerances { down: tol(hpa.behavior.as_ref().map(|b| &b.down)), up: tol(hpa.behavior.as_ref().map(|b| &b.up)) };
            let ours: Vec<usize> = (0..demand.len()).filter(|&i| demand[i].workload == spec.target_name).collect();
            let readiness = ours.iter().find_map(|&i| demand[i].readiness).or(target.map(|t| t.3));
            let series: Vec<Option<usize>> = series.iter().map(|&i| (i != usize::MAX).then_some(i)).collect();
            out.watched.push(Watched {
                kind: spec.target_kind.clone(),
                namespace: Some(spec.namespace.clone()),
                name: spec.target_name.clone(),
                capacity: ours.iter().copied().find(|&i| demand[i].capacity.is_some()),
                readiness,
                hpa: Some(HpaRun { spec: hpa, ctl: behavior::Controller::default(), series: series.clone(), tolerances }),
                samples: Vec::new(),
                instance: None,
            });
            let watched = out.watched.len() - 1;
            out.runs.push(Run::Object(ObjectRun {
                spec,
                state: object::ObjectState::default(),
                watched,
                series,
                activations: 0,
                deactivations: 0,
            }));
        }
    }
    // Pods KEDA may hold at once: every ScaledObject at its maxReplicas, every ScaledJob at
    // maxReplicaCount Jobs of `parallelism` pods; bounded as a request's pods are, before any poll.
    let mut most = 0i64;
    // With no error every document found made one run, in order.
    let runs = if errors.is_empty() { out.runs.as_slice() } else { &[] };
    for (r, doc) in runs.iter().zip(&found) {
        most += match r {
            Run::Object(o) => i64::from(o.spec.max.unwrap_or(object::DEFAULT_HPA_MAX)),
            Run::Job(j) => {
                (j.spec.min_replica_count() + j.spec.max_replica_count())
                    * j.spec.job.pointer("/spec/parallelism").and_then(Value::as_i64).unwrap_or(1).max(1)
            }
        };
        if most > crate::lower::MAX_REQUEST_PODS {
            let msg =
                format!("the ScaledObjects' and ScaledJobs' maximum replicas add up to more than {} pods", crate::lower::MAX_REQUEST_PODS);
            let ns = doc.value.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default");
            errors.push(
                located(
                    doc,
                    &format!("{}/{ns}/{}", doc.kind(), doc.name()),
                    ("spec.maxReplicaCount".into(), "too-many-pods", msg, "lower maxReplicaCount".into()),
                )
                .kind(ErrorKind::Limit),
            );
            break;
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(out)
}
