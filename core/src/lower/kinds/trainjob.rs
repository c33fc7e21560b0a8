//! Kubeflow Trainer v2 `TrainJob` (`trainer.kubeflow.org/v1alpha1`), expanded through the
//! runtime it references when the input carries that runtime.
//!
//! Facts the expansion follows (Trainer v2.1):
//! - `spec.runtimeRef` names a `ClusterTrainingRuntime` (the default kind) or a `TrainingRuntime`
//!   in the TrainJob's namespace; the runtime's `spec.template` is a JobSet template, and the
//!   TrainJob becomes a JobSet with the TrainJob's name and namespace;
//! - the trainer's replicated job (the one whose job template is labelled
//!   `trainer.kubeflow.org/trainjob-ancestor-step: trainer`, or is named `node` in runtimes
//!   without the label) runs one Job of `numNodes` pods (`spec.trainer.numNodes`, else the
//!   runtime's `mlPolicy.numNodes`, else 1; with MPI's `runLauncherAsNode` one fewer, at least 1);
//!   `spec.trainer.resourcesPerNode` replaces the resources of its `node` container;
//! - the JobSet then expands as JobSet does (names `<trainjob>-<replicated job>-<j>-<k>`, JobSet
//!   labels, exclusive placement);
//! - `spec.suspend: true` creates no pods.
//!
//! Not modelled, and refused with a located error rather than planned without: `podSpecOverrides`
//! / `podTemplateOverrides` (they can change node selectors, affinity and tolerations).

use super::{Out, Owner};
use crate::manifest::reader::{At, Sink};
use crate::manifest::Document;
use serde_json::Value;

const ANCESTOR: &str = "trainer.kubeflow.org/trainjob-ancestor-step";

/// A TrainingRuntime or ClusterTrainingRuntime of the input.
#[derive(Debug, Clone)]
pub struct Runtime {
    pub kind: String,
    pub name: String,
    /// None for a ClusterTrainingRuntime.
    pub namespace: Option<String>,
    pub document: usize,
    pub prefix: String,
    pub source: Option<String>,
    pub value: Value,
}

impl Runtime {
    /// The runtimes among the decoded documents, for the TrainJobs that reference them.
    pub fn collect(docs: &[Document]) -> Vec<Runtime> {
        docs.iter()
            .filter(|d| d.api_version().starts_with("trainer.kubeflow.org/"))
            .filter(|d| d.kind() == "TrainingRuntime" || d.kind() == "ClusterTrainingRuntime")
            .map(|d| Runtime {
                kind: d.kind().to_string(),
                name: d.name().to_string(),
                namespace: (d.kind() == "TrainingRuntime")
                    .then(|| d.value.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default").to_string()),
                document: d.index,
                prefix: d.prefix.clone(),
                source: d.source.clone(),
                value: d.value.as_ref().clone(),
            })
            .collect()
    }
}

pub fn expand(root: &At, owner: &Owner, out: &mut Out, sink: &mut Sink) {
    let Some(spec) = super::required(root, "spec", "TrainJob", "spec.runtimeRef", sink) else { return };
    for field in ["podSpecOverrides", "podTemplateOverrides"] {
        if let Some(at) = spec.get(field) {
            sink.error(
                &at,
                "unsupported-value",
                format!("TrainJob {field} is not modelled by nodecast"),
                "plan the TrainJob without it, or write the overrides into the runtime",
            );
            return;
        }
    }
    let Some(rref) = super::required(&spec, "runtimeRef", "TrainJob", "runtimeRef: {name: torch-distributed}", sink) else { return };
    let Some(name) = sink.opt_scalar(&rref, "name").filter(|n| !n.is_empty()) else {
        sink.error(&rref, "required", "runtimeRef without `name`", "name: torch-distributed");
        return;
    };
    let kind = sink.opt_scalar(&rref, "kind").unwrap_or_else(|| "ClusterTrainingRuntime".into());
    if kind != "ClusterTrainingRuntime" && kind != "TrainingRuntime" {
        let at = rref.get("kind").unwrap_or(rref);
        sink.error(&at, "unsupported-value", format!("runtimeRef kind {kind:?}"), "ClusterTrainingRuntime or TrainingRuntime");
        return;
    }
    let runtime =
        out.runtimes.iter().find(|r| r.kind == kind && r.name == name && r.namespace.as_ref().is_none_or(|ns| *ns == owner.namespace));
    let Some(runtime) = runtime.cloned() else {
        let at = rref.get("name").unwrap_or(rref);
        let scope = if kind == "TrainingRuntime" { format!(" in namespace {}", owner.namespace) } else { String::new() };
        sink.error(
            &at,
            "unknown-reference",
            format!(
                "TrainJob {} uses {kind} {name:?}{scope}, which is not in the input: its pods cannot be expanded without it",
                owner.name
            ),
            format!("add the {kind} manifest (e.g. `kubectl get {} {name} -o yaml`) to the input", kind.to_lowercase()),
        );
        return;
    };
    let trainer = spec.get("trainer");
    let num_nodes_at = trainer.as_ref().and_then(|t| t.get("numNodes"));
    let job_num_nodes = match &num_nodes_at {
        Some(at) => match sink.int_in(at, 1, i32::MAX.into(), "an integer ≥ 1") {
            Some(n) => Some(n),
            None => return,
        },
        None => None,
    };
    let resources = trainer.as_ref().and_then(|t| t.get("resourcesPerNode")).map(|r| r.v.clone());
    if super::flag(&spec, "suspend", sink) {
        owner.suspended(out, "TrainJob (spec.suspend)");
        return;
    }
    // The runtime's own errors name the runtime's document.
    let object = || format!("{}/{}", runtime.kind, runtime.name);
    let first = sink.errors.len();
    let mut rsink = Sink { document: runtime.document, object: &object, errors: &mut *sink.errors };
    let rroot = At::root(&runtime.value, &runtime.prefix);
    let Some(rspec) = super::required(&rroot, "spec", &runtime.kind, "spec.template", &mut rsink) else { return };
    let Some(template) = super::required(&rspec, "template", &runtime.kind, "template: {spec: {replicatedJobs: [...]}}", &mut rsink) else {
        return;
    };
    let policy_nodes = rspec.v.pointer("/mlPolicy/numNodes").and_then(Value::as_i64);
    let launcher_as_node = rspec.v.pointer("/mlPolicy/mpi/runLauncherAsNode").and_then(Value::as_bool).unwrap_or(false);
    let mut nodes = job_num_nodes.or(policy_nodes).unwrap_or(1);
    let jobs = template.v.pointer("/spec/replicatedJobs").and_then(Value::as_array);
    let has_launcher = jobs.is_some_and(|js| js.iter().any(|j| j.get("name").and_then(Value::as_str) == Some("launcher")));
    if launcher_as_node && has_launcher {
        nodes = (nodes - 1).max(1);
    }
    let jobset = jobset_of(template.v, nodes, resources.as_ref());
    let at = rspec.field_at("template", &jobset);
    super::jobset::expand(&at, owner, out, &mut rsink);
    let (document, object) = (sink.document, (sink.object)());
    let count_path = num_nodes_at.as_ref().map_or_else(|| spec.path(), |at| at.path());
    for e in sink.errors[first..].iter_mut() {
        if e.kind == crate::error::ErrorKind::Limit {
            // Too many pods is this TrainJob's doing (its numNodes, or the runtime's, on top of
            // what earlier objects made), not the shared runtime's: it is located here.
            e.document = Some(document);
            e.object = Some(object.clone());
            e.path = Some(count_path.clone());
            continue;
        }
        e.source = runtime.source.clone().or(e.source.take());
    }
}

/// The runtime's JobSet template with the TrainJob's settings applied.
fn jobset_of(template: &Value, nodes: i64, resources: Option<&Value>) -> Value {
    let mut t = template.clone();
    let Some(jobs) = t.pointer_mut("/spec/replicatedJobs").and_then(Value::as_array_mut) else { return t };
    let labelled = jobs
        .iter()
        .any(|j| j.pointer("/template/metadata/labels").and_then(|l| l.get(ANCESTOR)).and_then(Value::as_str) == Some("trainer"));
    for job in jobs.iter_mut() {
        let is_trainer = if labelled {
            job.pointer("/template/metadata/labels").and_then(|l| l.get(ANCESTOR)).and_then(Value::as_str) == Some("trainer")
        } else {
            job.get("name").and_then(Value::as_str) == Some("node")
        };
        if !is_trainer {
            continue;
        }
        if let Some(o) = job.as_object_mut() {
            o.insert("replicas".into(), Value::from(1));
        }
        if let Some(spec) = job.pointer_mut("/template/spec").and_then(Value::as_object_mut) {
            spec.insert("parallelism".into(), Value::from(nodes));
            spec.insert("completions".into(), Value::from(nodes));
        }
        if let (Some(res), Some(containers)) =
            (resources, job.pointer_mut("/template/spec/template/spec/containers").and_then(Value::as_array_mut))
        {
            for c in containers.iter_mut().filter(|c| c.get("name").and_then(Value::as_str) == Some("node")) {
                if let Some(o) = c.as_object_mut() {
                    o.insert("resources".into(), res.clone());
                }
            }
        }
    }
    t
}
