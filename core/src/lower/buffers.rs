//! CapacityBuffers (`autoscaling.x-k8s.io/v1beta1`, Karpenter's alpha CapacityBuffer gate):
//! spare capacity Karpenter provisions for as if pods of a given shape were pending.
//!
//! Karpenter v1.15 (sigs.k8s.io/karpenter@v1.15.0):
//! - the CRD (pkg/apis/crds/autoscaling.x-k8s.io_capacitybuffers.yaml) refuses a buffer with
//!   both `podTemplateRef` and `scalableRef`, a `podTemplateRef` without `replicas` or
//!   `limits`, and negative `replicas` / `percentage` (int32);
//! - the controller (pkg/controllers/capacitybuffer/controller.go) resolves the pod shape from
//!   a PodTemplate of the buffer's namespace, or from the template of a Deployment,
//!   StatefulSet or ReplicaSet (`scalableRef`, group `apps` or empty; pkg/utils/apps/resolve.go);
//!   an unresolvable reference leaves the buffer not ReadyForProvisioning, so it adds nothing;
//! - the replica count (`computeReplicas`, helpers.go): the larger of `replicas` and
//!   `ceil(percentage × workload replicas / 100)` (at least 1; scalableRef only), capped by
//!   `limits` (per resource the pod requests, `floor(limit / request)`, the smallest); with
//!   neither `replicas` nor `percentage`, `limits` alone decide. The CRD's description says
//!   "the minimum of" replicas and percentage; the code takes the maximum, and the code wins;
//! - with the gate on the provisioner appends the buffers' virtual pods to the pending pods of
//!   every pass (`GetPendingPods`, provisioner.go; pkg/state/virtualpods): named
//!   `capacity-buffer-<buffer>-<i>` (i from 1) in the buffer's namespace, with the template's
//!   labels, no owner, created when the buffer was reconciled (after the real pods).
//!
//! With the gate off (v1.15's default) the controller does not run and a buffer changes
//! nothing: it is listed in `skipped` with the gate that would make it count.

use super::lower_pod::{self, read_meta, Meta};
use super::Lowering;
use crate::manifest::reader::{At, Sink};
use crate::model::{BufferInfo, Pod, Settings, Skipped};

/// The most virtual pods the buffers of one input may ask for (the same bound as a workload's
/// pods in lowering).
pub const MAX_BUFFER_PODS: i64 = 2_000_000;

/// What lowering keeps for the buffers until every document was seen (a buffer may come
/// before the PodTemplate or Deployment it refers to).
#[derive(Debug, Default)]
pub(super) struct Collected {
    buffers: Vec<BufferDoc>,
    /// PodTemplates: (namespace, name, document, source, the `template` value).
    templates: Vec<(String, String, usize, Option<String>, serde_json::Value)>,
    /// Deployments, StatefulSets and ReplicaSets: (namespace, kind, name, replicas, a pod of
    /// their template).
    workloads: Vec<(String, String, String, i64, Option<Pod>)>,
}

#[derive(Debug)]
struct BufferDoc {
    namespace: String,
    name: String,
    uid: String,
    document: usize,
    source: Option<String>,
    pod_template: Option<String>,
    /// (kind, name); the group was checked to be `apps` (or empty).
    scalable: Option<(String, String)>,
    replicas: Option<i64>,
    percentage: Option<i64>,
    /// (resource name, milli-units).
    limits: Vec<(String, i64)>,
}

impl Collected {
    /// A PodTemplate: kept for the buffers that may name it.
    pub(super) fn pod_template(&mut self, root: &At, source: Option<String>, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        if let Some(t) = root.get("template") {
            self.templates.push((meta.namespace, meta.name, sink.document, source, t.v.clone()));
        }
    }

    /// A Deployment, StatefulSet or ReplicaSet and a pod of its template (None when it has no
    /// replicas to copy one from: its template is lowered then, if a buffer needs it).
    pub(super) fn workload(&mut self, namespace: &str, kind: &str, name: &str, replicas: i64, base: Option<&Pod>) {
        self.workloads.push((namespace.to_string(), kind.to_string(), name.to_string(), replicas, base.cloned()));
    }

    /// A CapacityBuffer: its spec, checked as the CRD does.
    pub(super) fn buffer(&mut self, root: &At, source: Option<String>, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let Some(spec) = root.get("spec") else {
            sink.error(root, "required", "CapacityBuffer without spec", "spec.podTemplateRef or spec.scalableRef");
            return;
        };
        let int32 = |sink: &mut Sink, field: &str| {
            spec.get(field).and_then(|at| sink.int_in(&at, 0, i64::from(i32::MAX), "an integer 0..2147483647"))
        };
        let replicas = int32(sink, "replicas");
        let percentage = int32(sink, "percentage");
        let mut limits = Vec::new();
        if let Some(l) = spec.get("limits") {
            for (k, v) in sink.map(&l) {
                if let Some(q) = sink.quantity(&v) {
                    limits.push((k.to_string(), q));
                }
            }
        }
        let pod_template = spec.get("podTemplateRef").and_then(|r| {
            let name = sink.opt_scalar(&r, "name").unwrap_or_default();
            if name.is_empty() {
                sink.error(&r, "required", "podTemplateRef without name", "the name of a PodTemplate in the buffer's namespace");
                return None;
            }
            Some(name)
        });
        let scalable = spec.get("scalableRef").and_then(|r| {
            let kind = sink.opt_scalar(&r, "kind").unwrap_or_default();
            let name = sink.opt_scalar(&r, "name").unwrap_or_default();
            if kind.is_empty() || name.is_empty() {
                sink.error(&r, "required", "scalableRef needs kind and name", "e.g. {kind: Deployment, name: web}");
                return None;
            }
            let group = sink.opt_scalar(&r, "apiGroup").unwrap_or_default();
            Some((group, kind, name))
        });
        if spec.get("podTemplateRef").is_some() && spec.get("scalableRef").is_some() {
            sink.error(
                &spec,
                "invalid-value",
                "You must define either PodTemplateRef or ScalableRef, but not both",
                "one of podTemplateRef, scalableRef",
            );
            return;
        }
        if spec.get("podTemplateRef").is_some() && spec.get("replicas").is_none() && spec.get("limits").is_none() {
            sink.error(&spec, "required", "If podTemplateRef is set, replicas or limits must also be set", "spec.replicas or spec.limits");
            return;
        }
        // The CRD accepts any group and kind; the controller resolves only apps' three kinds.
        let scalable = scalable.and_then(|(group, kind, name)| {
            (group.is_empty() || group == "apps").then_some(())?;
            matches!(kind.as_str(), "Deployment" | "StatefulSet" | "ReplicaSet").then_some((kind, name))
        });
        self.buffers.push(BufferDoc {
            namespace: meta.namespace,
            name: meta.name,
            uid: meta.uid,
            document: sink.document,
            source,
            pod_template,
            scalable,
            replicas,
            percentage,
            limits,
        });
    }
}

/// How many virtual pods a buffer asks for (`computeReplicas`): `requests` are the pod's
/// requests by resource name (milli-units), `scalable_replicas` the workload's replicas when
/// the shape comes from a `scalableRef`.
pub fn buffer_replicas(
    replicas: Option<i64>,
    percentage: Option<i64>,
    scalable_replicas: Option<i64>,
    limits: &[(String, i64)],
    requests: &[(String, i64)],
) -> i64 {
    let mut candidates = Vec::new();
    if let (Some(p), Some(n)) = (percentage, scalable_replicas) {
        if n > 0 {
            // ceil(n × p / 100), at least 1 when both are positive.
            let c = (n * p + 99) / 100;
            candidates.push(if c < 1 && p > 0 { 1 } else { c });
        }
    }
    candidates.extend(replicas);
    let desired = candidates.iter().copied().max();
    let fit = limits
        .iter()
        .filter_map(|(name, limit)| {
            let request = requests.iter().find(|(r, _)| r == name).map(|(_, q)| *q).filter(|q| *q != 0)?;
            Some((limit.div_euclid(request)).min(i64::from(i32::MAX)))
        })
        .min();
    match (desired, fit) {
        (Some(d), Some(f)) => d.min(f),
        (None, Some(f)) => f,
        (Some(d), None) => d,
        (None, None) => 0,
    }
}

impl Lowering {
    /// The buffers' virtual pods (gate on), or their `skipped` entries (gate off).
    pub(super) fn expand_buffers(&mut self, settings: &Settings) -> Vec<BufferInfo> {
        let collected = std::mem::take(&mut self.buffers);
        let mut infos = Vec::new();
        if !settings.feature_gates.capacity_buffer {
            for b in &collected.buffers {
                self.skipped.push(Skipped {
                    source: b.source.clone(),
                    document: b.document,
                    kind: "CapacityBuffer".into(),
                    name: b.name.clone(),
                    reason: "autoscaling.x-k8s.io/v1beta1 CapacityBuffer: Karpenter provisions for it only with the CapacityBuffer feature gate on (off by default in v1.15; --feature-gates CapacityBuffer=true)".into(),
                });
            }
            return infos;
        }
        // Created when the buffer was reconciled: after every real pod.
        let created = self.pods.iter().map(|p| p.created).max().unwrap_or(0).saturating_add(1);
        let mut total = 0i64;
        for b in &collected.buffers {
            let key = format!("{}/{}", b.namespace, b.name);
            let object = || format!("CapacityBuffer/{key}");
            let mut errors = std::mem::take(&mut self.errors);
            let mut sink = Sink { document: b.document, object: &object, errors: &mut errors };
            let resolved = self.buffer_shape(&collected, b, &mut sink);
            self.errors = errors;
            let (base, scalable_replicas) = match resolved {
                Ok(r) => r,
                Err(why) => {
                    infos.push(BufferInfo { key, replicas: 0, pods: 0..0, not_ready: Some(why), follows_workload: false });
                    continue;
                }
            };
            let requests: Vec<(String, i64)> = base
                .requests
                .iter_nonzero()
                .filter(|(r, _)| *r != crate::resources::PODS)
                .map(|(r, q)| (self.resources.name(r).to_string(), q))
                .collect();
            let n = buffer_replicas(b.replicas, b.percentage, scalable_replicas, &b.limits, &requests);
            total = total.saturating_add(n);
            if total > MAX_BUFFER_PODS {
                let mut e = crate::error::InputError::new(
                    "too-many-pods",
                    format!(
                        "CapacityBuffer {key} asks for {n} virtual pods; the buffers of one input may ask for at most {MAX_BUFFER_PODS}"
                    ),
                )
                .help("fewer spec.replicas, a smaller percentage or smaller limits")
                .at_document(b.document)
                .object(object())
                .path("spec");
                e.source = b.source.clone();
                self.errors.push(e);
                return infos;
            }
            let first = self.pods.len();
            let mut spec = base;
            spec.owner = None;
            spec.workload = Some(format!("CapacityBuffer/{}", b.name));
            spec.created = created;
            spec.node_name = None;
            spec.document = b.document;
            self.pods.reserve(n.max(0) as usize);
            for i in 1..=n {
                let mut p = spec.clone();
                p.name = format!("capacity-buffer-{}-{i}", b.name);
                p.uid = format!("{}-{i}", b.uid);
                self.pods.push(p);
            }
            self.pod_sources.push((first, b.source.clone()));
            let follows_workload = b.percentage.is_some() && scalable_replicas.is_some();
            infos.push(BufferInfo { key, replicas: n, pods: first..self.pods.len(), not_ready: None, follows_workload });
        }
        infos
    }

    /// The pod a buffer copies and the workload's replicas (scalableRef), or why the buffer is
    /// not ReadyForProvisioning (Karpenter's condition message, in words).
    fn buffer_shape(&mut self, c: &Collected, b: &BufferDoc, sink: &mut Sink) -> Result<(Pod, Option<i64>), String> {
        if let Some(name) = &b.pod_template {
            let Some((_, _, document, source, value)) = c.templates.iter().find(|(ns, n, _, _, _)| ns == &b.namespace && n == name) else {
                return Err(format!("PodTemplate {}/{name} is not in the input (PodTemplateNotFound)", b.namespace));
            };
            let root = At::root(value, "template");
            let mut meta: Meta = read_meta(&root, sink);
            meta.namespace = b.namespace.clone();
            meta.owner = None;
            let before = sink.document;
            sink.document = *document;
            let spec = root.get("spec");
            let pod = lower_pod::lower_pod(&meta, spec.as_ref(), &mut self.ctx(), sink);
            sink.document = before;
            // The template now decides a plan: it is no longer "skipped".
            self.skipped.retain(|s| !(s.kind == "PodTemplate" && s.document == *document && s.source == *source));
            return Ok((pod, None));
        }
        let Some((kind, name)) = &b.scalable else {
            return Err("neither podTemplateRef nor a scalableRef to a Deployment, StatefulSet or ReplicaSet of group apps".into());
        };
        match c.workloads.iter().find(|(ns, k, n, _, _)| ns == &b.namespace && k == kind && n == name) {
            Some((_, _, _, replicas, Some(pod))) => Ok((pod.clone(), Some(*replicas))),
            Some((_, _, _, _, None)) => Err(format!("{kind} {}/{name} has no pod to copy the shape from (replicas 0)", b.namespace)),
            None => Err(format!("{kind} {}/{name} is not in the input (ScalableRefNotFound)", b.namespace)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::buffer_replicas;

    #[test]
    fn replicas_follow_compute_replicas() {
        let gpu = |n: i64| vec![("nvidia.com/gpu".to_string(), n * 1000)];
        // replicas alone; limits alone; the larger of replicas and percentage; limits cap both.
        assert_eq!(buffer_replicas(Some(2), None, None, &[], &gpu(1)), 2);
        assert_eq!(buffer_replicas(None, None, None, &gpu(5), &gpu(2)), 2);
        assert_eq!(buffer_replicas(Some(1), Some(20), Some(10), &[], &gpu(1)), 2);
        assert_eq!(buffer_replicas(Some(3), Some(20), Some(10), &[], &gpu(1)), 3);
        assert_eq!(buffer_replicas(Some(3), Some(20), Some(10), &gpu(2), &gpu(1)), 2);
        // ceil, at least 1 for any positive percentage of a running workload.
        assert_eq!(buffer_replicas(None, Some(1), Some(3), &[], &gpu(1)), 1);
        assert_eq!(buffer_replicas(None, Some(50), Some(3), &[], &gpu(1)), 2);
        assert_eq!(buffer_replicas(None, Some(0), Some(3), &[], &gpu(1)), 0);
        // percentage of a workload with no replicas adds nothing.
        assert_eq!(buffer_replicas(None, Some(50), Some(0), &[], &gpu(1)), 0);
        // a limit on a resource the pod does not request does not constrain.
        assert_eq!(buffer_replicas(Some(4), None, None, &[("memory".into(), 1)], &gpu(1)), 4);
        assert_eq!(buffer_replicas(None, None, None, &[("memory".into(), 1)], &gpu(1)), 0);
    }
}
