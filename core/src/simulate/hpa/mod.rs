//! HorizontalPodAutoscalers in the simulation: their specs read from the cluster inputs
//! (spec.rs), the controller's replica calculation (calc.rs) and its memory between syncs
//! (behavior.rs), and `prepare`, which pairs each HPA with the trace's demand series. The
//! simulator drives them every 15 s (autoscale.rs).

pub mod behavior;
pub mod calc;
pub mod spec;

use super::demand::Demand;
use crate::error::{ErrorKind, InputError};
use crate::load::Sources;
use serde_json::Value;

/// The kube-controller-manager's `--horizontal-pod-autoscaler-sync-period` default.
pub const SYNC_SECONDS: i64 = 15;

/// One HPA of the run.
#[derive(Debug, Clone)]
pub struct HpaRun {
    pub spec: spec::HpaSpec,
    pub ctl: behavior::Controller,
    /// Per `spec.metrics` entry: the demand series it reads (index into the trace's demand).
    pub series: Vec<Option<usize>>,
    pub tolerances: calc::Tolerances,
}

/// A workload the report follows: one with an HPA or a demand series, by its trace instance
/// name and kind.
#[derive(Debug, Clone)]
pub struct Watched {
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub hpa: Option<HpaRun>,
    /// The series with `capacityPerReplica` (served vs unserved demand).
    pub capacity: Option<usize>,
    /// Seconds from a pod's start until it is Ready (None: read from the template later).
    pub readiness: Option<i64>,
    /// Per sync: (time, replicas before, replicas after, ready pods).
    pub samples: Vec<(i64, i32, i32, i32)>,
    /// The instance it matched last (trace instance index).
    pub instance: Option<usize>,
}

/// The HPAs of the inputs (autoscaling/v2 and v1), checked, with the demand series they read.
/// `skipped`: the loader's list, from which the HPAs now simulated are removed.
pub fn prepare(
    req: &Sources,
    demand: &[Demand],
    claimed: &[(String, String, String)],
    skipped: &mut Vec<crate::model::Skipped>,
    warnings: &mut Vec<crate::api::Warning>,
) -> Result<Vec<Watched>, Vec<InputError>> {
    let mut specs = Vec::new();
    let mut errors = Vec::new();
    // (kind, namespace, name, readiness delay) of the Deployment-like documents.
    let mut delays: Vec<(String, String, String, i64)> = Vec::new();
    let mentions = req.inputs.iter().any(|i| i.text.contains("HorizontalPodAutoscaler")) || !req.objects.is_empty();
    if mentions || !demand.is_empty() {
        for doc in crate::load::documents(req)? {
            if matches!(doc.kind(), "Deployment" | "StatefulSet" | "ReplicaSet") {
                let ns = doc.value.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default").to_string();
                delays.push((doc.kind().to_string(), ns, doc.name().to_string(), readiness_delay(&doc.value)));
            }
            if doc.kind() != "HorizontalPodAutoscaler" {
                continue;
            }
            let api = doc.api_version().to_string();
            if api != "autoscaling/v2" && api != "autoscaling/v1" {
                let mut e =
                    InputError::new("unsupported-version", format!("HorizontalPodAutoscaler {api} is not served by Kubernetes 1.36"))
                        .at_document(doc.index)
                        .path("apiVersion")
                        .help("autoscaling/v2 (or autoscaling/v1)")
                        .kind(ErrorKind::Admission);
                e.source = doc.source.clone();
                errors.push(e);
                continue;
            }
            match spec::parse(&doc.value, &api, doc.source.as_deref(), doc.index) {
                Ok(s) => specs.push(s),
                Err(e) => errors.extend(e),
            }
        }
    }
    // HPAs create pods as the demand asks, up to their maxReplicas (Kubernetes accepts up to
    // 2^31 − 1 each): the sum is bounded as the request's pods are, before any sync runs.
    let mut most = 0i64;
    for s in &specs {
        most += i64::from(s.max_replicas);
        if most > crate::lower::MAX_REQUEST_PODS {
            let msg = format!("the HorizontalPodAutoscalers' maxReplicas add up to more than {} pods", crate::lower::MAX_REQUEST_PODS);
            errors.push(located(s, "spec.maxReplicas", "too-many-pods", msg, "lower maxReplicas").kind(ErrorKind::Limit));
            break;
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut watched: Vec<Watched> = Vec::new();
    for s in specs {
        if watched.iter().any(|w| {
            w.hpa.as_ref().is_some_and(|h| {
                h.spec.namespace == s.namespace && h.spec.target_kind == s.target_kind && h.spec.target_name == s.target_name
            })
        }) {
            // Kubernetes' controller refuses to act when two HPAs select the same pods (AmbiguousSelector).
            errors.push(located(
                &s,
                "spec.scaleTargetRef",
                "conflict",
                format!("another HorizontalPodAutoscaler already scales {}/{}", s.target_kind, s.target_name),
                "one HPA per workload",
            ));
            continue;
        }
        if claimed.iter().any(|(k, ns, n)| *k == s.target_kind && *ns == s.namespace && *n == s.target_name) {
            // KEDA's webhook refuses the converse (verifyHpas); two autoscalers on one workload fight.
            errors.push(located(
                &s,
                "spec.scaleTargetRef",
                "conflict",
                format!("{}/{} is already scaled by a KEDA ScaledObject (through the HPA it generates)", s.target_kind, s.target_name),
                "one autoscaler per workload",
            ));
            continue;
        }
        if !matches!(s.target_kind.as_str(), "Deployment" | "StatefulSet" | "ReplicaSet") {
            errors.push(located(
                &s,
                "spec.scaleTargetRef.kind",
                "unsupported-kind",
                format!("the simulator scales Deployments, StatefulSets and ReplicaSets, not {:?}", s.target_kind),
                "kind: Deployment",
            ));
            continue;
        }
        let ours: Vec<usize> = (0..demand.len()).filter(|&i| demand[i].workload == s.target_name).collect();
        let mut series = Vec::new();
        for m in &s.metrics {
            let found = ours.iter().copied().find(|&i| demand[i].metric == m.name);
            if found.is_none() && !ours.is_empty() {
                errors.push(located(
                    &s,
                    &m.path,
                    "no-demand",
                    format!("the trace has demand for {:?} but none for its metric {:?}", s.target_name, m.name),
                    &format!("demand: [{{workload: {}, metric: {}, steps: [...]}}]", s.target_name, m.name),
                ));
            }
            series.push(found);
        }
        for &i in &ours {
            if !s.metrics.iter().any(|m| m.name == demand[i].metric) && demand[i].capacity.is_none() {
                warnings.push(crate::api::Warning {
                    code: "unused-demand".into(),
                    message: format!(
                        "{}: no metric of {} is named {:?}; the series is not used",
                        demand[i].path,
                        s.object(),
                        demand[i].metric
                    ),
                    object: Some(s.object()),
                });
            }
        }
        if ours.is_empty() {
            warnings.push(crate::api::Warning {
                code: "hpa-without-demand".into(),
                message: format!("{} has no demand series in the trace: its metrics are unavailable, so it only holds {}/{} between minReplicas and maxReplicas", s.object(), s.target_kind, s.target_name),
                object: Some(s.object()),
            });
        }
        skipped.retain(|k| !(k.kind == "HorizontalPodAutoscaler" && (k.name == s.name || k.name == format!("{}/{}", s.namespace, s.name))));
        let tol = |r: Option<&spec::Rules>| r.and_then(|r| r.tolerance).unwrap_or(spec::DEFAULT_TOLERANCE);
        let tolerances = calc::Tolerances { down: tol(s.behavior.as_ref().map(|b| &b.down)), up: tol(s.behavior.as_ref().map(|b| &b.up)) };
        let capacity = ours.iter().copied().find(|&i| demand[i].capacity.is_some());
        let readiness = ours
            .iter()
            .find_map(|&i| demand[i].readiness)
            .or_else(|| delays.iter().find(|(k, ns, n, _)| *k == s.target_kind && *ns == s.namespace && *n == s.target_name).map(|d| d.3));
        watched.push(Watched {
            kind: s.target_kind.clone(),
            namespace: Some(s.namespace.clone()),
            name: s.target_name.clone(),
            capacity,
            readiness,
            hpa: Some(HpaRun { series, ctl: behavior::Controller::default(), tolerances, spec: s }),
            samples: Vec::new(),
            instance: None,
        });
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // Workloads with demand but no HPA: their replicas follow the trace's scale events; the
    // report still says how much of the demand they served.
    for (i, d) in demand.iter().enumerate() {
        if watched.iter().any(|w| w.name == d.workload) || claimed.iter().any(|c| c.2 == d.workload) {
            continue;
        }
        if d.capacity.is_none() {
            warnings.push(crate::api::Warning {
                code: "unused-demand".into(),
                message: format!(
                    "{}: no HorizontalPodAutoscaler scales {:?} and the series has no capacityPerReplica; it is not used",
                    d.path, d.workload
                ),
                object: None,
            });
            continue;
        }
        let readiness = demand
            .iter()
            .filter(|e| e.workload == d.workload)
            .find_map(|e| e.readiness)
            .or_else(|| delays.iter().find(|x| x.2 == d.workload).map(|x| x.3));
        watched.push(Watched {
            kind: String::new(),
            namespace: None,
            name: d.workload.clone(),
            hpa: None,
            capacity: Some(i),
            readiness,
            samples: Vec::new(),
            instance: None,
        });
    }
    Ok(watched)
}

fn located(s: &spec::HpaSpec, path: &str, code: &str, msg: String, help: &str) -> InputError {
    let mut e = InputError::new(code, msg).at_document(s.document).object(s.object()).path(path).help(help).kind(ErrorKind::Admission);
    e.source = s.source.clone();
    e
}

/// The longest `readinessProbe.initialDelaySeconds` of a pod template's containers: the
/// kubelet reports the pod Ready no earlier (a probe that then succeeds at once).
pub fn readiness_delay(manifest: &Value) -> i64 {
    let pod = manifest.pointer("/spec/template/spec").or_else(|| manifest.get("spec"));
    pod.and_then(|p| p.get("containers")).and_then(Value::as_array).map_or(0, |cs| {
        cs.iter()
            .filter_map(|c| c.pointer("/readinessProbe/initialDelaySeconds").and_then(Value::as_i64))
            .max()
            .unwrap_or(0)
            .clamp(0, super::settings::MAX_SECONDS)
    })
}

/// What one metric reads at a sync: its pods (state, value, request of the metric's resource)
/// and the Object/External total (milli-units); None when the metric has no data.
pub type MetricInput = Option<(Vec<(calc::PodSample, i64)>, i64)>;

/// computeReplicasForMetrics (horizontal.go): every metric's proposal, the largest wins; None
/// when all failed, or some failed and the others would scale down.
pub fn propose(spec: &spec::HpaSpec, tol: calc::Tolerances, inputs: &[MetricInput], current: i32) -> Option<i32> {
    use calc::PodSample;
    use spec::{Source, Target};
    let mut best: Option<i32> = None;
    let mut invalid = 0;
    for (m, input) in spec.metrics.iter().zip(inputs) {
        let Some((pods, total)) = input else {
            invalid += 1;
            continue;
        };
        let samples: Vec<PodSample> = pods.iter().map(|p| p.0).collect();
        let ready = samples.iter().filter(|s| matches!(s, PodSample::Value(_))).count() as i64;
        let r = match (&m.source, m.target) {
            (Source::Resource { .. }, Target::Utilization(u)) => calc::utilization(pods, current, u, tol),
            (Source::Resource { .. } | Source::Pods, Target::AverageValue(t)) => calc::plain(&samples, current, t, tol),
            (Source::Object | Source::External, Target::Value(t)) => calc::value(*total, t, current, ready, pods.len(), tol),
            (Source::Object | Source::External, Target::AverageValue(t)) => Ok(calc::average_value(*total, t, current, tol)),
            // spec.rs admits no other pairing.
            _ => Err(calc::CalcError::NoMetrics),
        };
        match r {
            Ok(n) if best.is_none_or(|b| b == 0 || n > b) => best = Some(n),
            Ok(_) => {}
            Err(_) => invalid += 1,
        }
    }
    let replicas = best.unwrap_or(0);
    if invalid >= spec.metrics.len() || (invalid > 0 && replicas < current) {
        return None;
    }
    Some(replicas)
}

/// One sync of a replayed series (the HPA oracle's format, oracle/hpa): the target's pods and
/// the Object/External metric's total.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct ReplaySync {
    /// The scale target's pods.
    pub pods: Vec<ReplayPod>,
    /// The Object/External metric's value, milli-units.
    #[serde(default)]
    pub total: i64,
}

/// One pod of a replayed sync: `pending`, `missing` or `value` (with `value` milli-units).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct ReplayPod {
    /// `pending`, `missing` or `value`.
    pub state: String,
    /// Its metric value, milli-units.
    #[serde(default)]
    pub value: i64,
    /// Its request of the Resource metric's resource, milli-units.
    #[serde(default)]
    pub request: i64,
}

/// Replays `syncs` (one every 15 s from 0) through the HPA `manifest`, the target starting at
/// `replicas`: the replicas after every sync. Every metric reads the same pods and total.
pub fn replay(manifest: &Value, replicas: i32, syncs: &[ReplaySync]) -> Result<Vec<i32>, Vec<InputError>> {
    let api = manifest.get("apiVersion").and_then(Value::as_str).unwrap_or("autoscaling/v2");
    let spec = spec::parse(manifest, api, None, 0)?;
    let tol = |r: Option<&spec::Rules>| r.and_then(|r| r.tolerance).unwrap_or(spec::DEFAULT_TOLERANCE);
    let tol = calc::Tolerances { down: tol(spec.behavior.as_ref().map(|b| &b.down)), up: tol(spec.behavior.as_ref().map(|b| &b.up)) };
    let mut ctl = behavior::Controller::default();
    let mut current = replicas;
    let mut out = Vec::with_capacity(syncs.len());
    for (k, s) in syncs.iter().enumerate() {
        let pods: Vec<(calc::PodSample, i64)> = s
            .pods
            .iter()
            .map(|p| {
                let sample = match p.state.as_str() {
                    "pending" => calc::PodSample::Pending,
                    "missing" => calc::PodSample::Missing,
                    _ => calc::PodSample::Value(p.value),
                };
                (sample, p.request)
            })
            .collect();
        let inputs: Vec<MetricInput> = spec.metrics.iter().map(|_| Some((pods.clone(), s.total))).collect();
        let d = ctl.sync(&spec, k as i64 * SYNC_SECONDS, current, || propose(&spec, tol, &inputs, current));
        current = d.desired;
        out.push(current);
    }
    Ok(out)
}
