//! The ML workload kinds (Kubeflow training jobs, TrainJob, JobSet, LeaderWorkerSet, KubeRay,
//! Volcano Job) expanded into the pods their controllers create: the same names (a fixed stand-in
//! where a controller appends random characters), the labels the controllers add (which spread
//! constraints and pod affinities select on), per-role templates and counts, and the pod
//! affinity the exclusive-placement annotations inject. One file per family; this module holds
//! what they share: the table of kinds and versions, the per-pod emission, and count checks.

mod jobset;
mod kubeflow;
mod lws;
mod ray;
mod trainjob;
mod volcano;

pub use trainjob::Runtime;

use super::lower_pod::{self, read_meta, Ctx, Meta};
use super::pod::{AffinityTerm, LabelSet, Pod, Selector, SelectorOp};
use super::Skipped;
use crate::error::{ErrorKind, InputError};
use crate::manifest::reader::{At, Sink};
use serde_json::Value;
use smallvec::SmallVec;

/// Pods one object (and all ML objects of a request together) may expand to. Each pod of these kinds carries its own labels (index labels),
/// so each costs a spec of its own; this bounds time and memory by a figure no real job reaches.
pub const MAX_PODS: i64 = 200_000;

/// (API group, kind, served versions) of every kind expanded here.
const EXPANDED: [(&str, &str, &[&str]); 13] = [
    ("kubeflow.org", "PyTorchJob", &["v1"]),
    ("kubeflow.org", "TFJob", &["v1"]),
    ("kubeflow.org", "MPIJob", &["v1", "v2beta1"]),
    ("kubeflow.org", "XGBoostJob", &["v1"]),
    ("kubeflow.org", "PaddleJob", &["v1"]),
    ("kubeflow.org", "JAXJob", &["v1"]),
    ("trainer.kubeflow.org", "TrainJob", &["v1alpha1"]),
    ("jobset.x-k8s.io", "JobSet", &["v1alpha2"]),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet", &["v1"]),
    ("ray.io", "RayCluster", &["v1"]),
    ("ray.io", "RayJob", &["v1"]),
    ("ray.io", "RayService", &["v1"]),
    ("batch.volcano.sh", "Job", &["v1alpha1"]),
];

/// Served versions of a kind expanded here (None: not one of ours). The header check uses it.
pub fn served_versions(group: &str, kind: &str) -> Option<&'static [&'static str]> {
    // Runtimes create no pods themselves; the TrainJobs that reference them do.
    let runtime = group == "trainer.kubeflow.org" && (kind == "TrainingRuntime" || kind == "ClusterTrainingRuntime");
    EXPANDED.iter().find(|(g, k, _)| *g == group && *k == kind).map(|(_, _, v)| *v).or(runtime.then_some(&["v1alpha1"][..]))
}

/// Kinds that create pods through a controller nodecast does not model. They are reported as
/// such, never as objects that do not matter to provisioning.
const NOT_EXPANDED: [(&str, &str); 14] = [
    ("argoproj.io", "Workflow"),
    ("argoproj.io", "CronWorkflow"),
    ("sparkoperator.k8s.io", "SparkApplication"),
    ("sparkoperator.k8s.io", "ScheduledSparkApplication"),
    ("kubeflow.org", "MXJob"),
    ("kubeflow.org", "Notebook"),
    ("ray.io", "RayCronJob"),
    ("serving.kserve.io", "InferenceService"),
    ("serving.kserve.io", "ServingRuntime"),
    ("serving.knative.dev", "Service"),
    ("flink.apache.org", "FlinkDeployment"),
    ("apps.kruise.io", "CloneSet"),
    ("", "ReplicationController"),
    ("workload.codeflare.dev", "AppWrapper"),
];

/// Why an object that is not lowered is skipped, when that is not "does not influence".
pub fn skip_reason(group: &str, api: &str, kind: &str) -> Option<String> {
    if group == "trainer.kubeflow.org" && (kind == "ClusterTrainingRuntime" || kind == "TrainingRuntime") {
        return Some(format!("{api} {kind} creates no pods itself; the TrainJobs that reference it are expanded with it"));
    }
    // Kinds Karpenter (or the apiserver) does act on, in ways nodecast does not model: the
    // skipped list says what is not followed rather than "does not influence".
    match (group, kind) {
        ("", "PersistentVolumeClaim" | "PersistentVolume") | ("storage.k8s.io", "StorageClass" | "CSINode" | "VolumeAttachment") => {
            return Some(format!(
                "{api} {kind}: Karpenter uses volumes for volume topology (a zonal volume pins its pod's zone) and CSI attach limits, which nodecast does not model"
            ))
        }
        // `simulate` runs HPAs against a trace's demand (simulate/hpa) and drops them from
        // this list; a plan is one instant, planned with the replicas the spec names.
        ("autoscaling", "HorizontalPodAutoscaler") => {
            return Some(format!(
                "{api} {kind} changes replicas over time: a plan uses the replicas the workload's spec names; simulate runs the HPA against a trace's demand (docs/simulate.md)"
            ))
        }
        ("keda.sh", "ScaledObject" | "ScaledJob") => {
            return Some(format!(
                "{api} {kind} changes replicas over time: a plan uses the replicas the workload's spec names; simulate runs it against a trace's demand (docs/simulate.md, KEDA)"
            ))
        }
        ("", "LimitRange") => {
            return Some(format!(
                "{api} {kind}: the apiserver fills in default container requests from it when pods are created, which nodecast does not model: containers without requests are planned with none"
            ))
        }
        _ => {}
    }
    NOT_EXPANDED
        .iter()
        .any(|(g, k)| *g == group && *k == kind)
        .then(|| format!("{api} {kind} creates pods nodecast does not expand (plan them as Pods, Jobs or Deployments)"))
}

/// How the simulator runs a workload of an expanded kind: `Some(true)` like a Deployment
/// (clusters and serving groups run until deleted), `Some(false)` like a Job (training and batch
/// jobs run for their run time). Volcano's `Job` shares its kind name with `batch/v1` Job and is
/// run as a Job either way.
pub fn runs_as_service(kind: &str) -> Option<bool> {
    match kind {
        "RayCluster" | "RayService" | "LeaderWorkerSet" => Some(true),
        "PyTorchJob" | "TFJob" | "MPIJob" | "XGBoostJob" | "PaddleJob" | "JAXJob" | "TrainJob" | "JobSet" | "RayJob" => Some(false),
        _ => None,
    }
}

/// Whether `expand` handles this kind.
pub fn expands(group: &str, kind: &str) -> bool {
    EXPANDED.iter().any(|(g, k, _)| *g == group && *k == kind)
}

/// Where expansion writes: the lowering's interner and resource names, its pods and skipped list.
pub struct Out<'a> {
    pub ctx: Ctx<'a>,
    pub pods: &'a mut Vec<Pod>,
    pub skipped: &'a mut Vec<Skipped>,
    pub runtimes: &'a [Runtime],
    pub budget: Budget,
}

/// The request's pods before this object: the bounds are on the whole request, so twelve
/// TrainJobs sharing one large runtime cannot add up to what one of them may not hold.
#[derive(Clone, Copy)]
pub struct Budget {
    /// Pods earlier ML objects expanded to (against [`MAX_PODS`]).
    pub expanded: i64,
    /// Pods of every kind so far (against `MAX_REQUEST_PODS`).
    pub request: i64,
}

impl Budget {
    /// Adds `n` pods to this object's running `total`, refusing (before any pod is made) an
    /// object past [`MAX_PODS`], or a request whose ML objects together pass it, or a request
    /// past `MAX_REQUEST_PODS`. Errors are nodecast's limits (unusable), not admission's.
    pub fn add(&self, total: &mut i64, n: i64, at: &At, kind: &str, sink: &mut Sink) -> bool {
        *total = total.saturating_add(n);
        if *total > MAX_PODS {
            sink.limit(at, "too-many-pods", format!("{kind} expands to more than {MAX_PODS} pods"), "fewer replicas");
            return false;
        }
        let together = self.expanded.saturating_add(*total);
        if together > MAX_PODS {
            let msg = format!(
                "{kind} brings the request's ML workloads to {together} pods (with the {} of earlier objects); nodecast expands at most {MAX_PODS} per request",
                self.expanded
            );
            sink.limit(at, "too-many-pods", msg, "fewer replicas or fewer jobs per request (README: Bounds)");
            return false;
        }
        let all = self.request.saturating_add(*total);
        if all > super::MAX_REQUEST_PODS {
            let msg =
                format!("{kind} brings the request to {all} pods; nodecast answers at most {} pods per request", super::MAX_REQUEST_PODS);
            sink.limit(at, "too-many-pods", msg, "fewer replicas or fewer workloads per request (README: Bounds)");
            return false;
        }
        true
    }
}

/// The object being expanded.
pub struct Owner {
    pub kind: String,
    pub name: String,
    pub namespace: String,
    pub created: Option<i64>,
    pub uid: String,
    pub document: usize,
    pub source: Option<String>,
}

impl Owner {
    fn workload(&self) -> String {
        format!("{}/{}", self.kind, self.name)
    }

    /// A suspended object exists but creates no pods until resumed: say so rather than plan
    /// nothing silently.
    fn suspended(&self, out: &mut Out, what: &str) {
        out.skipped.push(Skipped {
            source: self.source.clone(),
            document: self.document,
            kind: self.kind.clone(),
            name: self.name.clone(),
            reason: format!("{what} {SUSPENDED}"),
        });
    }
}

/// How every suspended object (batch/v1 Job, CronJob and each ML kind) is listed in `skipped`:
/// planned as not running, the same for all of them.
pub const SUSPENDED: &str =
    "is suspended: it creates no pods until resumed, and Kueue (which admits a queued workload by clearing suspend) or the user decides when it resumes";

/// One pod a controller creates from a template.
pub struct PodPlan {
    pub name: String,
    /// Labels the controller sets, applied over the template's.
    pub labels: Vec<(String, String)>,
    pub exclusive: Option<Exclusive>,
}

/// The pod (anti-)affinity an exclusive-placement annotation injects: every pod of the group
/// requires a domain of `topology_key` holding its group (`label` = `value`), and the group's
/// first pod (the one the controller patches; the others follow it through a node selector on
/// its domain, which the affinity to the group expresses) keeps every other group away.
pub struct Exclusive {
    pub topology_key: String,
    pub label: &'static str,
    pub value: String,
    /// The first pod of the group carries the anti-affinity too.
    pub leader: bool,
    /// Extra `In` requirement of the anti-affinity (JobSet: same priority only).
    pub anti_extra: Option<(&'static str, String)>,
    /// The terms select in every namespace (JobSet's empty namespace selector) or the pod's own.
    pub all_namespaces: bool,
}

/// Does this value (a pod spec) use `matchLabelKeys` anywhere? Then each pod's labels change
/// its selectors and it is lowered on its own; otherwise replicas share one lowering.
fn uses_match_label_keys(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.iter().any(|(k, v)| k == "matchLabelKeys" || uses_match_label_keys(v)),
        Value::Array(a) => a.iter().any(uses_match_label_keys),
        _ => false,
    }
}

/// Lower `template` once and emit one pod per plan, with the plan's name and labels and the
/// injected affinity. Template errors are reported once, through `sink`.
pub fn emit(out: &mut Out, owner: &Owner, template: &At, plans: &[PodPlan], sink: &mut Sink) {
    if plans.is_empty() {
        return;
    }
    // An object an API server stored (it has a UID) was taken by it: a field it has that the
    // schema lacks is a newer server's, which lowering reads the object without.
    if owner.uid.is_empty() {
        unknown_template_fields(template, sink);
    }
    let tmeta = read_meta(template, sink);
    let spec = template.get("spec");
    let relower = spec.as_ref().is_some_and(|s| uses_match_label_keys(s.v));
    let meta_for = |plan: &PodPlan| {
        let mut labels = tmeta.labels.clone();
        labels.extend(plan.labels.iter().cloned());
        Meta {
            name: plan.name.clone(),
            namespace: owner.namespace.clone(),
            labels,
            annotations: tmeta.annotations.clone(),
            created: owner.created,
            uid: String::new(),
            owner: Some((owner.kind.clone(), owner.name.clone())),
            deleting: false,
            statefulset_owned: false,
        }
    };
    let base = lower_pod::lower_pod(&meta_for(&plans[0]), spec.as_ref(), &mut out.ctx, sink);
    let workload = owner.workload();
    out.pods.reserve(plans.len());
    for (i, plan) in plans.iter().enumerate() {
        let meta = meta_for(plan);
        let mut pod = if relower && i > 0 {
            // Same template, same errors: already reported for the first pod.
            let mut scratch = Vec::new();
            let object = || String::new();
            let mut quiet = Sink { document: sink.document, object: &object, errors: &mut scratch };
            lower_pod::lower_pod(&meta, spec.as_ref(), &mut out.ctx, &mut quiet)
        } else {
            let mut p = base.clone();
            if i > 0 {
                let interner = &mut *out.ctx.interner;
                p.labels = LabelSet::from_pairs(meta.labels.iter().map(|(k, v)| (interner.intern(k), interner.intern(v))).collect());
            }
            p
        };
        pod.name = plan.name.clone();
        pod.uid = format!("{}/{}", owner.namespace, plan.name);
        pod.workload = Some(workload.clone());
        pod.document = owner.document;
        if let Some(x) = &plan.exclusive {
            inject_exclusive(&mut pod, x, out);
        }
        out.pods.push(pod);
    }
}

/// SF-01 in a workload CRD's pod template: its schema there is Kubernetes' `PodTemplateSpec`
/// (the built-in kinds are checked whole, in validation).
fn unknown_template_fields(template: &At, sink: &mut Sink) {
    let Value::Object(m) = template.v else { return };
    let found = crate::validate::unknown_in_pod_template(m);
    if found.is_empty() {
        return;
    }
    let base = template.path();
    for u in found {
        let full = if base.is_empty() { u.path } else { format!("{base}.{}", u.path) };
        let mut e = InputError::new("unknown-field", crate::validate::Unknown::message(&full))
            .at_document(sink.document)
            .object((sink.object)())
            .path(full)
            .help(format!("rejected at admission; {}", u.help));
        e.kind = ErrorKind::Admission;
        sink.errors.push(e);
    }
}

fn inject_exclusive(pod: &mut Pod, x: &Exclusive, out: &mut Out) {
    let interner = &mut *out.ctx.interner;
    let key = interner.intern(crate::labels::normalize_key(&x.topology_key));
    let label = interner.intern(x.label);
    let value = interner.intern(&x.value);
    let namespaces = if x.all_namespaces { None } else { Some(SmallVec::from_elem(pod.namespace_id, 1)) };
    let same_group = Selector { exprs: vec![(label, SelectorOp::In, SmallVec::from_elem(value, 1))], matches_nothing: false };
    pod.affinity.push(AffinityTerm { key, selector: same_group, namespaces: namespaces.clone() });
    if x.leader {
        let mut exprs = vec![(label, SelectorOp::Exists, SmallVec::new()), (label, SelectorOp::NotIn, SmallVec::from_elem(value, 1))];
        if let Some((k, v)) = &x.anti_extra {
            exprs.push((interner.intern(k), SelectorOp::In, SmallVec::from_elem(interner.intern(v), 1)));
        }
        pod.anti_affinity.push(AffinityTerm { key, selector: Selector { exprs, matches_nothing: false }, namespaces });
    }
}

/// A count field (`replicas`, `parallelism`, ...): an int32 ≥ `min`, `default` when absent.
pub fn count(parent: &At, field: &str, default: i64, min: i64, sink: &mut Sink) -> Option<i64> {
    match parent.get(field) {
        None => Some(default),
        Some(at) => {
            let help = format!("an integer ≥ {min}");
            sink.int_in(&at, min, i32::MAX.into(), &help)
        }
    }
}

/// `true` when the field holds the boolean true (a wrong type is reported).
pub fn flag(parent: &At, field: &str, sink: &mut Sink) -> bool {
    parent.get(field).and_then(|at| sink.bool(&at)).unwrap_or(false)
}

/// Hex SHA-1 of `namespace/name`: the group keys JobSet and LeaderWorkerSet label pods with.
pub fn sha1_key(namespace: &str, name: &str) -> String {
    sha1_smol::Sha1::from(format!("{namespace}/{name}")).digest().to_string()
}

/// Reads the owner of an expansion from the object's metadata.
pub fn owner(root: &At, kind: &str, source: Option<String>, sink: &mut Sink) -> Owner {
    let meta = read_meta(root, sink);
    Owner {
        kind: kind.to_string(),
        name: meta.name,
        namespace: meta.namespace,
        created: meta.created,
        uid: meta.uid,
        document: sink.document,
        source,
    }
}

/// A required child, or a located `required` error.
pub fn required<'a>(parent: &'a At<'a>, field: &'a str, kind: &str, help: &str, sink: &mut Sink) -> Option<At<'a>> {
    let at = parent.get(field);
    if at.is_none() {
        sink.error(parent, "required", format!("{kind} without `{field}`"), help);
    }
    at
}

/// Expand one object of a kind `expands` accepts.
pub fn expand(root: &At, group: &str, api: &str, kind: &str, source: Option<String>, out: &mut Out, sink: &mut Sink) {
    let owner = owner(root, kind, source, sink);
    let version = api.rsplit_once('/').map_or(api, |(_, v)| v);
    match (group, kind) {
        ("kubeflow.org", _) => kubeflow::expand(root, &owner, version, out, sink),
        ("trainer.kubeflow.org", _) => trainjob::expand(root, &owner, out, sink),
        ("jobset.x-k8s.io", _) => jobset::expand(root, &owner, out, sink),
        ("leaderworkerset.x-k8s.io", _) => lws::expand(root, &owner, out, sink),
        ("ray.io", _) => ray::expand(root, &owner, out, sink),
        ("batch.volcano.sh", _) => volcano::expand(root, &owner, out, sink),
        _ => {}
    }
}

/// A copy of a pod template with one more init container: the ones controllers add (their
/// requests count toward the pod's effective requests like any init container's).
pub fn with_init_container(template: &Value, container: Value) -> Value {
    let mut t = template.clone();
    if let Some(spec) = t.get_mut("spec").and_then(Value::as_object_mut) {
        match spec.get_mut("initContainers") {
            Some(Value::Array(list)) => list.push(container),
            None | Some(Value::Null) => {
                spec.insert("initContainers".into(), Value::Array(vec![container]));
            }
            // A wrong type is reported when the template is lowered.
            Some(_) => {}
        }
    }
    t
}

/// A container with the given requests and limits, as controllers write the ones they add.
pub fn resourced_container(name: &str, requests: &[(&str, &str)], limits: &[(&str, &str)]) -> Value {
    let map = |pairs: &[(&str, &str)]| Value::Object(pairs.iter().map(|(k, v)| (k.to_string(), Value::String(v.to_string()))).collect());
    serde_json::json!({"name": name, "resources": {"requests": map(requests), "limits": map(limits)}})
}

#[cfg(test)]
mod tests;
