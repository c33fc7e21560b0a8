//! Kubeflow Training Operator v1 jobs (PyTorchJob, TFJob, MPIJob, XGBoostJob, PaddleJob, JAXJob)
//! and the MPI Operator's MPIJob v2beta1.
//!
//! Facts the expansion follows (training-operator v1.9, mpi-operator v0.6):
//! - each replica type `T` with `replicas: n` (default 1) becomes pods `<job>-<t>-0` … `<job>-<t>-(n-1)`
//!   (`t` = T in lower case), in the job's namespace, from that type's template;
//! - the controller labels each pod `training.kubeflow.org/operator-name` (`pytorchjob-controller`,
//!   `tfjob-controller`, …), `training.kubeflow.org/job-name`, `training.kubeflow.org/replica-type`
//!   (lower case) and `training.kubeflow.org/replica-index`, and marks the master role with
//!   `training.kubeflow.org/job-role: master` (PyTorch: Master, else Worker 0; TF: Chief/Master,
//!   else Worker 0; XGBoost/Paddle: Master; JAX: index 0 of each type; MPI: the launcher);
//! - replica-type keys are matched case-insensitively (the defaulter camel-cases them);
//! - PyTorch workers of a job with a Master get the `init-pytorch` init container (requests 50m
//!   CPU, 10Mi memory; limits 100m, 20Mi); the v1 MPI launcher gets `kubectl-delivery` (100m CPU,
//!   512Mi memory, 5Gi ephemeral storage) and is named `<job>-launcher`, workers `<job>-worker-<i>`;
//! - MPIJob v2beta1 (mpi-operator): workers `<job>-worker-<i>`, the launcher is a Job
//!   `<job>-launcher` whose pod nodecast names `<job>-launcher-0` (the Job controller appends
//!   random characters); labels `operator-name: mpi-operator`, `job-name`, `job-role`
//!   (launcher/worker) and, on workers, `replica-index` (shifted by one, and 0 on the launcher, with
//!   `runLauncherAsWorker`);
//! - `spec.runPolicy.suspend: true` creates no pods.
//!
//! The admission webhooks' rules are checked with their field paths: known replica types, at
//! least one container, an image on each, a container with the framework's name (`pytorch`,
//! `tensorflow`, `xgboost`, `paddle`, `jax`; MPI asks for none), PyTorch/XGBoost Master `replicas: 1`, PyTorch
//! Workers at least 1, at most one TF Chief/Master, XGBoost's Master and MPI's Launcher present.

use super::{count, emit, flag, resourced_container, with_init_container, Out, Owner, PodPlan};
use crate::manifest::reader::{At, Sink};

struct Framework {
    kind: &'static str,
    specs_field: &'static str,
    /// Replica types in the order pods are emitted; None for TFJob's open set (the controller
    /// reconciles whatever types are written).
    types: &'static [&'static str],
    open_types: bool,
    container: &'static str,
    controller: &'static str,
}

const FRAMEWORKS: [Framework; 6] = [
    Framework {
        kind: "PyTorchJob",
        specs_field: "pytorchReplicaSpecs",
        types: &["Master", "Worker"],
        open_types: false,
        container: "pytorch",
        controller: "pytorchjob-controller",
    },
    Framework {
        kind: "TFJob",
        specs_field: "tfReplicaSpecs",
        types: &["Chief", "Master", "PS", "Worker", "Evaluator"],
        open_types: true,
        container: "tensorflow",
        controller: "tfjob-controller",
    },
    Framework {
        kind: "MPIJob",
        specs_field: "mpiReplicaSpecs",
        types: &["Launcher", "Worker"],
        open_types: false,
        // The MPI validation asks for images, not for a container name.
        container: "",
        controller: "mpijob-controller",
    },
    Framework {
        kind: "XGBoostJob",
        specs_field: "xgbReplicaSpecs",
        types: &["Master", "Worker"],
        open_types: false,
        container: "xgboost",
        controller: "xgboostjob-controller",
    },
    Framework {
        kind: "PaddleJob",
        specs_field: "paddleReplicaSpecs",
        types: &["Master", "Worker"],
        open_types: false,
        container: "paddle",
        controller: "paddlejob-controller",
    },
    Framework {
        kind: "JAXJob",
        specs_field: "jaxReplicaSpecs",
        types: &["Worker"],
        open_types: false,
        container: "jax",
        controller: "jaxjob-controller",
    },
];

const JOB_NAME: &str = "training.kubeflow.org/job-name";
const OPERATOR: &str = "training.kubeflow.org/operator-name";
const REPLICA_TYPE: &str = "training.kubeflow.org/replica-type";
const REPLICA_INDEX: &str = "training.kubeflow.org/replica-index";
const JOB_ROLE: &str = "training.kubeflow.org/job-role";

/// One replica spec as written: canonical type name, its node and its count.
struct Role<'a> {
    name: String,
    at: At<'a>,
    replicas: i64,
}

pub fn expand(root: &At, owner: &Owner, version: &str, out: &mut Out, sink: &mut Sink) {
    let Some(fw) = FRAMEWORKS.iter().find(|f| f.kind == owner.kind) else { return };
    let Some(spec) = super::required(root, "spec", fw.kind, &format!("spec.{}", fw.specs_field), sink) else { return };
    let suspended = spec.get("runPolicy").is_some_and(|rp| flag(&rp, "suspend", sink));
    let Some(specs) =
        super::required(&spec, fw.specs_field, fw.kind, &format!("{}: {{Worker: {{replicas: 1, template: ...}}}}", fw.specs_field), sink)
    else {
        return;
    };
    let mpi_v2 = fw.kind == "MPIJob" && version == "v2beta1";
    let entries = sink.map(&specs);
    let mut roles: Vec<Role> = Vec::new();
    let before = sink.errors.len();
    for (key, at) in &entries {
        let canonical = fw.types.iter().find(|t| t.eq_ignore_ascii_case(key)).map(|t| t.to_string());
        let name = match canonical {
            Some(n) => n,
            None if fw.open_types => key.to_string(),
            None => {
                sink.error(at, "unsupported-value", format!("{} replica type {key:?} is not supported", fw.kind), fw.types.join(", "));
                continue;
            }
        };
        if roles.iter().any(|r| r.name == name) {
            sink.error(
                at,
                "duplicate-name",
                format!("replica type {name} is written twice (keys match case-insensitively)"),
                "one entry per replica type",
            );
            continue;
        }
        let Some(replicas) = count(at, "replicas", 1, 0, sink) else { continue };
        check_role(fw, &name, at, replicas, sink);
        roles.push(Role { name, at: *at, replicas });
    }
    check_job(fw, mpi_v2, &specs, &roles, sink);
    if sink.errors.len() > before {
        return;
    }
    if suspended {
        owner.suspended(out, &format!("{} (spec.runPolicy.suspend)", fw.kind));
        return;
    }
    // Deterministic order: the framework's own order, then TFJob's other types as written.
    roles.sort_by_key(|r| fw.types.iter().position(|t| *t == r.name).unwrap_or(fw.types.len()));
    let has_master = |names: &[&str]| roles.iter().any(|r| names.contains(&r.name.as_str()));
    let run_launcher_as_worker = mpi_v2 && flag(&spec, "runLauncherAsWorker", sink);
    let mut total = 0;
    for role in &roles {
        if !out.budget.add(&mut total, role.replicas, &role.at, fw.kind, sink) {
            return;
        }
        let Some(template) = role.at.get("template") else { continue };
        let lower = role.name.to_ascii_lowercase();
        let mut plans = Vec::with_capacity(role.replicas as usize);
        for i in 0..role.replicas {
            let master = match fw.kind {
                "PyTorchJob" => role.name == "Master" || (!has_master(&["Master"]) && role.name == "Worker" && i == 0),
                "TFJob" => {
                    role.name == "Chief" || role.name == "Master" || (!has_master(&["Chief", "Master"]) && role.name == "Worker" && i == 0)
                }
                "MPIJob" => role.name == "Launcher",
                "JAXJob" => i == 0,
                _ => role.name == "Master",
            };
            let (name, labels) = if mpi_v2 {
                mpi_v2_pod(owner, &role.name, i, run_launcher_as_worker)
            } else {
                let name = match (fw.kind, role.name.as_str()) {
                    ("MPIJob", "Launcher") => format!("{}-launcher", owner.name),
                    _ => format!("{}-{lower}-{i}", owner.name),
                };
                let mut labels = vec![
                    (OPERATOR.to_string(), fw.controller.to_string()),
                    (JOB_NAME.to_string(), owner.name.replace('/', "-")),
                    (REPLICA_TYPE.to_string(), lower.clone()),
                ];
                if !(fw.kind == "MPIJob" && role.name == "Launcher") {
                    labels.push((REPLICA_INDEX.to_string(), i.to_string()));
                }
                if master {
                    labels.push((JOB_ROLE.to_string(), "master".to_string()));
                }
                (name, labels)
            };
            plans.push(PodPlan { name, labels, exclusive: None });
        }
        let injected = match (fw.kind, role.name.as_str(), mpi_v2) {
            ("PyTorchJob", "Worker", _) if has_master(&["Master"]) => {
                Some(resourced_container("init-pytorch", &[("cpu", "50m"), ("memory", "10Mi")], &[("cpu", "100m"), ("memory", "20Mi")]))
            }
            ("MPIJob", "Launcher", false) => {
                let r = [("cpu", "100m"), ("memory", "512Mi"), ("ephemeral-storage", "5Gi")];
                Some(resourced_container("kubectl-delivery", &r, &r))
            }
            _ => None,
        };
        match injected {
            Some(c) => {
                let copy = with_init_container(template.v, c);
                let at = role.at.field_at("template", &copy);
                emit(out, owner, &at, &plans, sink);
            }
            None => emit(out, owner, &template, &plans, sink),
        }
    }
}

fn mpi_v2_pod(owner: &Owner, role: &str, i: i64, launcher_as_worker: bool) -> (String, Vec<(String, String)>) {
    let mut labels = vec![(OPERATOR.to_string(), "mpi-operator".to_string()), (JOB_NAME.to_string(), owner.name.clone())];
    if role == "Launcher" {
        labels.push((JOB_ROLE.to_string(), "launcher".to_string()));
        if launcher_as_worker {
            labels.push((REPLICA_INDEX.to_string(), "0".to_string()));
        }
        (format!("{}-launcher-{i}", owner.name), labels)
    } else {
        labels.push((JOB_ROLE.to_string(), "worker".to_string()));
        let index = if launcher_as_worker { i + 1 } else { i };
        labels.push((REPLICA_INDEX.to_string(), index.to_string()));
        (format!("{}-worker-{i}", owner.name), labels)
    }
}

/// The webhook's per-role checks.
fn check_role(fw: &Framework, role: &str, at: &At, replicas: i64, sink: &mut Sink) {
    let template = at.get("template");
    let tspec = template.as_ref().and_then(|t| t.get("spec"));
    let containers = tspec.as_ref().and_then(|s| s.get("containers"));
    let Some(containers) = containers else {
        let anchor = tspec.or(template).unwrap_or(*at);
        sink.error(&anchor, "required", format!("{} {role} without template.spec.containers", fw.kind), "at least one container");
        return;
    };
    let list = sink.list(&containers);
    if list.is_empty() {
        sink.error(&containers, "required", format!("{} {role} has no containers", fw.kind), "at least one container");
    }
    let mut named = false;
    for c in &list {
        if c.get("image").is_none() {
            sink.error(c, "required", format!("{} {role} container without an image", fw.kind), "image: <registry>/<image>:<tag>");
        }
        named |= c.get("name").is_some_and(|n| n.v.as_str() == Some(fw.container));
    }
    if !list.is_empty() && !named && !fw.container.is_empty() {
        sink.error(
            &containers,
            "required",
            format!("{} {role} needs a container named {:?}", fw.kind, fw.container),
            format!("name: {}", fw.container),
        );
    }
    let replicas_at = at.get("replicas").unwrap_or(*at);
    let must_be_one = match fw.kind {
        "PyTorchJob" | "XGBoostJob" => role == "Master",
        "MPIJob" => role == "Launcher",
        _ => false,
    };
    if must_be_one && replicas != 1 {
        sink.error(&replicas_at, "out-of-range", format!("{} {role} replicas must be 1, got {replicas}", fw.kind), "replicas: 1");
    }
    if fw.kind == "PyTorchJob" && role == "Worker" && replicas < 1 {
        sink.error(&replicas_at, "out-of-range", "PyTorchJob Worker replicas must be at least 1", "replicas: 1 or more");
    }
}

/// The webhook's whole-job checks.
fn check_job(fw: &Framework, mpi_v2: bool, specs: &At, roles: &[Role], sink: &mut Sink) {
    let has = |n: &str| roles.iter().any(|r| r.name == n);
    match fw.kind {
        "TFJob" if has("Chief") && has("Master") => {
            sink.error(specs, "invalid-value", "TFJob must not have both a Chief and a Master", "one of Chief or Master");
        }
        "XGBoostJob" if !has("Master") => {
            sink.error(specs, "required", "XGBoostJob without a Master replica spec", "Master: {replicas: 1, template: ...}");
        }
        "MPIJob" if !has("Launcher") => {
            let v = if mpi_v2 { "v2beta1" } else { "v1" };
            sink.error(
                specs,
                "required",
                format!("MPIJob ({v}) without a Launcher replica spec"),
                "Launcher: {replicas: 1, template: ...}",
            );
        }
        _ if roles.is_empty() && specs.v.as_object().is_some_and(|m| m.is_empty()) => {
            sink.error(specs, "required", format!("{} without replica specs", fw.kind), fw.types.join(", "));
        }
        _ => {}
    }
}
