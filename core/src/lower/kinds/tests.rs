//! Expansion tests with the shapes the projects' own docs and examples use.

use crate::error::InputError;
use crate::json::{Input, Request};
use crate::model::{Model, Pod};

fn model(yaml: &str) -> Model {
    let req = Request { inputs: vec![Input { name: Some("ml.yaml".into()), text: yaml.to_string() }], ..Default::default() };
    match crate::load::model(&req.sources()) {
        Ok((m, _)) => m,
        Err(e) => panic!("unexpected errors: {e:#?}"),
    }
}

fn errors(yaml: &str) -> Vec<InputError> {
    let req = Request { inputs: vec![Input { name: Some("ml.yaml".into()), text: yaml.to_string() }], ..Default::default() };
    match crate::load::model(&req.sources()) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e,
    }
}

fn names(m: &Model) -> Vec<&str> {
    m.pods.iter().map(|p| p.name.as_str()).collect()
}

fn pod<'a>(m: &'a Model, name: &str) -> &'a Pod {
    m.pods.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no pod {name} in {:?}", names(m)))
}

fn label<'a>(m: &'a Model, p: &Pod, key: &str) -> Option<&'a str> {
    let k = m.interner.get(key)?;
    p.labels.get(k).map(|v| m.interner.str(v))
}

fn request(m: &Model, p: &Pod, resource: &str) -> i64 {
    m.resources.get(resource).map_or(0, |r| p.requests.get(r))
}

const CONTAINER: &str = "
          containers:
            - name: pytorch
              image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
              resources:
                limits: {nvidia.com/gpu: 1}
                requests: {cpu: 10m, memory: 5Mi}";

fn pytorch(master: Option<i64>, workers: i64) -> String {
    let mut s = String::from(
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: mnist, namespace: kubeflow}\nspec:\n  pytorchReplicaSpecs:\n",
    );
    if let Some(n) = master {
        s += &format!("    Master:\n      replicas: {n}\n      restartPolicy: OnFailure\n      template:\n        spec:{CONTAINER}\n");
    }
    s += &format!("    Worker:\n      replicas: {workers}\n      restartPolicy: OnFailure\n      template:\n        metadata:\n          labels: {{team: vision}}\n        spec:{CONTAINER}\n");
    s
}

#[test]
fn pytorchjob_master_and_workers() {
    let m = model(&pytorch(Some(1), 2));
    assert_eq!(names(&m), ["mnist-master-0", "mnist-worker-0", "mnist-worker-1"]);
    let master = pod(&m, "mnist-master-0");
    assert_eq!(master.namespace, "kubeflow");
    assert_eq!(label(&m, master, "training.kubeflow.org/job-name"), Some("mnist"));
    assert_eq!(label(&m, master, "training.kubeflow.org/operator-name"), Some("pytorchjob-controller"));
    assert_eq!(label(&m, master, "training.kubeflow.org/replica-type"), Some("master"));
    assert_eq!(label(&m, master, "training.kubeflow.org/replica-index"), Some("0"));
    assert_eq!(label(&m, master, "training.kubeflow.org/job-role"), Some("master"));
    let w1 = pod(&m, "mnist-worker-1");
    assert_eq!(label(&m, w1, "training.kubeflow.org/replica-type"), Some("worker"));
    assert_eq!(label(&m, w1, "training.kubeflow.org/replica-index"), Some("1"));
    assert_eq!(label(&m, w1, "training.kubeflow.org/job-role"), None);
    assert_eq!(label(&m, w1, "team"), Some("vision"), "template labels are kept");
    assert_eq!(w1.workload.as_deref(), Some("PyTorchJob/mnist"));
    assert_eq!(w1.owner, Some(("PyTorchJob".into(), "mnist".into())));
    // The GPU limit counts as a request; the worker's init-pytorch container (50m, 10Mi) is
    // larger than its 10m / 5Mi container, the master has none.
    assert_eq!(request(&m, w1, "nvidia.com/gpu"), 1000);
    assert_eq!(request(&m, w1, "cpu"), 50);
    assert_eq!(request(&m, w1, "memory"), 10 * 1024 * 1024 * 1000);
    assert_eq!(request(&m, master, "cpu"), 10);
}

#[test]
fn pytorchjob_without_master_makes_worker_zero_the_master() {
    let m = model(&pytorch(None, 2));
    assert_eq!(names(&m), ["mnist-worker-0", "mnist-worker-1"]);
    assert_eq!(label(&m, pod(&m, "mnist-worker-0"), "training.kubeflow.org/job-role"), Some("master"));
    assert_eq!(label(&m, pod(&m, "mnist-worker-1"), "training.kubeflow.org/job-role"), None);
    // No master to wait for: no init container.
    assert_eq!(request(&m, pod(&m, "mnist-worker-0"), "cpu"), 10);
}

#[test]
fn pytorchjob_webhook_rules_are_located() {
    let e = errors(&pytorch(Some(2), 0));
    let paths: Vec<_> = e.iter().map(|e| (e.code.as_str(), e.path.as_deref().unwrap_or(""))).collect();
    assert!(paths.contains(&("out-of-range", "spec.pytorchReplicaSpecs.Master.replicas")), "{paths:?}");
    assert!(paths.contains(&("out-of-range", "spec.pytorchReplicaSpecs.Worker.replicas")), "{paths:?}");
    let wrong_name = pytorch(Some(1), 1).replace("- name: pytorch", "- name: trainer");
    let e = errors(&wrong_name);
    assert_eq!(e[0].path.as_deref(), Some("spec.pytorchReplicaSpecs.Master.template.spec.containers"));
    assert!(e[0].message.contains("\"pytorch\""), "{}", e[0].message);
    let e = errors(&pytorch(Some(1), 1).replace("    Worker:", "    Chief:"));
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("unsupported-value", Some("spec.pytorchReplicaSpecs.Chief")));
    let e = errors(&pytorch(Some(1), 1).replace("kubeflow.org/v1", "kubeflow.org/v1beta1"));
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("unsupported-api-version", Some("apiVersion")));
}

#[test]
fn pytorchjob_suspended_is_reported_not_planned() {
    let m =
        model(&pytorch(Some(1), 1).replace("spec:\n  pytorchReplicaSpecs:", "spec:\n  runPolicy: {suspend: true}\n  pytorchReplicaSpecs:"));
    assert!(m.pods.is_empty());
    assert!(m.skipped[0].reason.contains("suspended"), "{:?}", m.skipped);
}

fn tf_role(role: &str, n: i64) -> String {
    format!("    {role}:\n      replicas: {n}\n      template:\n        spec:\n          containers: [{{name: tensorflow, image: tensorflow/tensorflow:2.16.1-gpu}}]\n")
}

#[test]
fn tfjob_roles_in_order_with_chief_as_master() {
    let yaml = format!(
        "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {{name: dist-mnist}}\nspec:\n  tfReplicaSpecs:\n{}{}{}",
        tf_role("Worker", 2),
        tf_role("PS", 1),
        tf_role("chief", 1)
    );
    let m = model(&yaml);
    assert_eq!(names(&m), ["dist-mnist-chief-0", "dist-mnist-ps-0", "dist-mnist-worker-0", "dist-mnist-worker-1"]);
    assert_eq!(label(&m, pod(&m, "dist-mnist-chief-0"), "training.kubeflow.org/job-role"), Some("master"));
    assert_eq!(label(&m, pod(&m, "dist-mnist-worker-0"), "training.kubeflow.org/job-role"), None);
    assert_eq!(label(&m, pod(&m, "dist-mnist-ps-0"), "training.kubeflow.org/operator-name"), Some("tfjob-controller"));
    let both = format!(
        "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {{name: x}}\nspec:\n  tfReplicaSpecs:\n{}{}",
        tf_role("Chief", 1),
        tf_role("Master", 1)
    );
    assert_eq!(errors(&both)[0].path.as_deref(), Some("spec.tfReplicaSpecs"));
}

fn mpi(version: &str, extra: &str) -> String {
    format!(
        "apiVersion: kubeflow.org/{version}\nkind: MPIJob\nmetadata: {{name: tf-bench}}\nspec:\n{extra}  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers: [{{name: launcher, image: mpioperator/tensorflow-benchmarks, resources: {{requests: {{cpu: 50m, memory: 64Mi}}}}}}]
    Worker:
      replicas: 2
      template:
        spec:
          containers: [{{name: worker, image: mpioperator/tensorflow-benchmarks, resources: {{limits: {{nvidia.com/gpu: 1}}}}}}]
"
    )
}

#[test]
fn mpijob_v1_launcher_and_workers() {
    let m = model(&mpi("v1", ""));
    assert_eq!(names(&m), ["tf-bench-launcher", "tf-bench-worker-0", "tf-bench-worker-1"]);
    let l = pod(&m, "tf-bench-launcher");
    assert_eq!(label(&m, l, "training.kubeflow.org/job-role"), Some("master"));
    assert_eq!(label(&m, l, "training.kubeflow.org/replica-index"), None);
    assert_eq!(label(&m, l, "training.kubeflow.org/operator-name"), Some("mpijob-controller"));
    // kubectl-delivery: 100m, 512Mi, 5Gi ephemeral storage.
    assert_eq!(request(&m, l, "cpu"), 100);
    assert_eq!(request(&m, l, "ephemeral-storage"), 5 * 1024 * 1024 * 1024 * 1000);
    assert_eq!(label(&m, pod(&m, "tf-bench-worker-1"), "training.kubeflow.org/replica-index"), Some("1"));
}

#[test]
fn mpijob_v2beta1_names_and_launcher_as_worker() {
    let m = model(&mpi("v2beta1", ""));
    assert_eq!(names(&m), ["tf-bench-launcher-0", "tf-bench-worker-0", "tf-bench-worker-1"]);
    let l = pod(&m, "tf-bench-launcher-0");
    assert_eq!(label(&m, l, "training.kubeflow.org/job-role"), Some("launcher"));
    assert_eq!(label(&m, l, "training.kubeflow.org/operator-name"), Some("mpi-operator"));
    assert_eq!(request(&m, l, "cpu"), 50, "no kubectl-delivery in v2");
    let m = model(&mpi("v2beta1", "  runLauncherAsWorker: true\n"));
    assert_eq!(label(&m, pod(&m, "tf-bench-launcher-0"), "training.kubeflow.org/replica-index"), Some("0"));
    assert_eq!(label(&m, pod(&m, "tf-bench-worker-0"), "training.kubeflow.org/replica-index"), Some("1"));
    let e = errors(&mpi("v2beta1", "").replace("    Launcher:\n      replicas: 1", "    Launcher:\n      replicas: 2"));
    assert_eq!(e[0].path.as_deref(), Some("spec.mpiReplicaSpecs.Launcher.replicas"));
}

#[test]
fn xgboost_paddle_jax() {
    let role = |r: &str, c: &str, n: i64| {
        format!("    {r}:\n      replicas: {n}\n      template:\n        spec:\n          containers: [{{name: {c}, image: img}}]\n")
    };
    let e = errors(&format!(
        "apiVersion: kubeflow.org/v1\nkind: XGBoostJob\nmetadata: {{name: x}}\nspec:\n  xgbReplicaSpecs:\n{}",
        role("Worker", "xgboost", 2)
    ));
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("required", Some("spec.xgbReplicaSpecs")));
    let m = model(&format!(
        "apiVersion: kubeflow.org/v1\nkind: PaddleJob\nmetadata: {{name: p}}\nspec:\n  paddleReplicaSpecs:\n{}",
        role("Worker", "paddle", 2)
    ));
    assert_eq!(names(&m), ["p-worker-0", "p-worker-1"]);
    assert_eq!(label(&m, pod(&m, "p-worker-0"), "training.kubeflow.org/job-role"), None, "Paddle's master role is Master only");
    let m = model(&format!(
        "apiVersion: kubeflow.org/v1\nkind: JAXJob\nmetadata: {{name: j}}\nspec:\n  jaxReplicaSpecs:\n{}",
        role("Worker", "jax", 2)
    ));
    assert_eq!(label(&m, pod(&m, "j-worker-0"), "training.kubeflow.org/job-role"), Some("master"));
    assert_eq!(label(&m, pod(&m, "j-worker-0"), "training.kubeflow.org/operator-name"), Some("jaxjob-controller"));
}

const JOBSET: &str = "apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: train
  annotations:
    alpha.jobset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool
spec:
  replicatedJobs:
    - name: workers
      replicas: 2
      template:
        spec:
          parallelism: 3
          completions: 3
          backoffLimit: 0
          template:
            spec:
              containers: [{name: main, image: python:3.10, resources: {limits: {nvidia.com/gpu: 8}}}]
";

#[test]
fn jobset_jobs_pods_labels_and_exclusive_placement() {
    let m = model(JOBSET);
    assert_eq!(
        names(&m),
        ["train-workers-0-0", "train-workers-0-1", "train-workers-0-2", "train-workers-1-0", "train-workers-1-1", "train-workers-1-2"]
    );
    let p = pod(&m, "train-workers-1-2");
    assert_eq!(label(&m, p, "jobset.sigs.k8s.io/jobset-name"), Some("train"));
    assert_eq!(label(&m, p, "jobset.sigs.k8s.io/replicatedjob-name"), Some("workers"));
    assert_eq!(label(&m, p, "jobset.sigs.k8s.io/job-index"), Some("1"));
    assert_eq!(label(&m, p, "jobset.sigs.k8s.io/job-global-index"), Some("1"));
    assert_eq!(label(&m, p, "jobset.sigs.k8s.io/replicatedjob-replicas"), Some("2"));
    assert_eq!(label(&m, p, "jobset.sigs.k8s.io/job-key"), Some("f7cd59a344a70b9510e91bf1b6f8a70533d949ef"));
    assert_eq!(label(&m, p, "batch.kubernetes.io/job-completion-index"), Some("2"));
    assert_eq!(label(&m, p, "job-name"), Some("train-workers-1"));
    assert_eq!(label(&m, p, "jobset.sigs.k8s.io/priority"), Some("0"));
    // The leader of each Job carries affinity and anti-affinity, followers the affinity only.
    let leader = pod(&m, "train-workers-0-0");
    assert_eq!((leader.affinity.len(), leader.anti_affinity.len()), (1, 1));
    assert_eq!(m.interner.str(leader.affinity[0].key), "cloud.google.com/gke-nodepool");
    assert!(leader.affinity[0].namespaces.is_none(), "JobSet's terms select in every namespace");
    let key = m.interner.get("jobset.sigs.k8s.io/job-key").expect("interned");
    let own = m.interner.get("bfcf5ebea76efcf5a9add9af4c26c7d637c630a1").expect("interned");
    assert_eq!(leader.affinity[0].selector.exprs[0].0, key);
    assert_eq!(leader.affinity[0].selector.exprs[0].2.as_slice(), [own]);
    assert_eq!(leader.anti_affinity[0].selector.exprs.len(), 3);
    let follower = pod(&m, "train-workers-0-1");
    assert_eq!((follower.affinity.len(), follower.anti_affinity.len()), (1, 0));
    // The selector the anti-affinity uses matches the other Job's pods, not its own.
    assert!(leader.anti_affinity[0].selector.matches(&pod(&m, "train-workers-1-0").labels));
    assert!(!leader.anti_affinity[0].selector.matches(&follower.labels));
}

#[test]
fn jobset_parallelism_completions_suspend_and_node_selector_strategy() {
    let m = model(&JOBSET.replace("completions: 3", "completions: 2"));
    assert_eq!(m.pods.len(), 4, "min(parallelism, completions) per Job");
    let m = model(&JOBSET.replace("spec:\n  replicatedJobs:", "spec:\n  suspend: true\n  replicatedJobs:"));
    assert!(m.pods.is_empty() && m.skipped.len() == 1);
    let m = model(&JOBSET.replace(
        "    alpha.jobset.sigs.k8s.io/exclusive-topology",
        "    alpha.jobset.sigs.k8s.io/node-selector: \"true\"\n    alpha.jobset.sigs.k8s.io/exclusive-topology",
    ));
    let p = pod(&m, "train-workers-0-0");
    assert!(p.affinity.is_empty());
    assert_eq!(p.tolerations.len(), 1);
    let k = m.interner.get("alpha.jobset.sigs.k8s.io/namespaced-job").expect("selector key");
    assert!(p.node_selector.get(k).is_some());
    let e = errors(&JOBSET.replace("parallelism: 3", "parallelism: -1"));
    assert_eq!(e[0].path.as_deref(), Some("spec.replicatedJobs[0].template.spec.parallelism"));
}

const LWS: &str = "apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: serve
  namespace: ml
  annotations:
    leaderworkerset.sigs.k8s.io/exclusive-topology: topology.kubernetes.io/zone
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 3
    leaderTemplate:
      spec:
        containers: [{name: leader, image: vllm/vllm-openai, resources: {limits: {nvidia.com/gpu: 1}}}]
    workerTemplate:
      spec:
        containers: [{name: worker, image: vllm/vllm-openai, resources: {limits: {nvidia.com/gpu: 4}}}]
";

#[test]
fn leaderworkerset_groups() {
    let m = model(LWS);
    assert_eq!(names(&m), ["serve-0", "serve-1", "serve-0-1", "serve-0-2", "serve-1-1", "serve-1-2"]);
    let leader = pod(&m, "serve-1");
    assert_eq!(request(&m, leader, "nvidia.com/gpu"), 1000, "leaders use leaderTemplate");
    assert_eq!(request(&m, pod(&m, "serve-1-2"), "nvidia.com/gpu"), 4000);
    assert_eq!(label(&m, leader, "leaderworkerset.sigs.k8s.io/worker-index"), Some("0"));
    assert_eq!(label(&m, leader, "leaderworkerset.sigs.k8s.io/group-index"), Some("1"));
    assert_eq!(label(&m, leader, "leaderworkerset.sigs.k8s.io/group-key"), Some("45a78d96f41b593882c6844d323a2c52bc7b57ad"));
    let w = pod(&m, "serve-1-2");
    assert_eq!(label(&m, w, "leaderworkerset.sigs.k8s.io/worker-index"), Some("2"));
    assert_eq!(label(&m, w, "leaderworkerset.sigs.k8s.io/group-key"), Some("45a78d96f41b593882c6844d323a2c52bc7b57ad"));
    assert_eq!(label(&m, w, "statefulset.kubernetes.io/pod-name"), Some("serve-1-2"));
    assert_eq!((leader.affinity.len(), leader.anti_affinity.len(), w.affinity.len(), w.anti_affinity.len()), (1, 1, 1, 0));
    assert!(leader.affinity[0].namespaces.is_some(), "LWS terms stay in the pod's namespace");
    // Without leaderTemplate the leader uses the worker template; size defaults to 1.
    let m = model(&LWS.replace("    size: 3\n", "").replace("    leaderTemplate:\n      spec:\n        containers: [{name: leader, image: vllm/vllm-openai, resources: {limits: {nvidia.com/gpu: 1}}}]\n", ""));
    assert_eq!(names(&m), ["serve-0", "serve-1"]);
    assert_eq!(request(&m, pod(&m, "serve-0"), "nvidia.com/gpu"), 4000);
    let e = errors(&LWS.replace("size: 3", "size: 0"));
    assert_eq!(e[0].path.as_deref(), Some("spec.leaderWorkerTemplate.size"));
}

const RAY: &str = "apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: raycluster-kuberay
spec:
  enableInTreeAutoscaling: true
  headGroupSpec:
    rayStartParams: {}
    template:
      spec:
        containers: [{name: ray-head, image: rayproject/ray:2.41.0, resources: {requests: {cpu: '1', memory: 2Gi}}}]
  workerGroupSpecs:
    - groupName: gpu-group
      replicas: 5
      minReplicas: 1
      maxReplicas: 3
      rayStartParams: {}
      template:
        metadata:
          labels: {ray.io/is-ray-node: custom}
        spec:
          containers: [{name: ray-worker, image: rayproject/ray:2.41.0-gpu, resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {nvidia.com/gpu: 1}}}]
    - groupName: tpu
      numOfHosts: 2
      replicas: 1
      rayStartParams: {}
      template:
        spec:
          containers: [{name: ray-worker, image: rayproject/ray:2.41.0, resources: {requests: {cpu: '4'}}}]
";

#[test]
fn raycluster_head_and_clamped_groups() {
    let m = model(RAY);
    assert_eq!(
        names(&m),
        [
            "raycluster-kuberay-head",
            "raycluster-kuberay-gpu-group-worker-00000",
            "raycluster-kuberay-gpu-group-worker-00001",
            "raycluster-kuberay-gpu-group-worker-00002",
            "raycluster-kuberay-tpu-worker-00000",
            "raycluster-kuberay-tpu-worker-00001",
        ]
    );
    let head = pod(&m, "raycluster-kuberay-head");
    assert_eq!(label(&m, head, "ray.io/node-type"), Some("head"));
    assert_eq!(label(&m, head, "ray.io/group"), Some("headgroup"));
    assert_eq!(label(&m, head, "ray.io/identifier"), Some("raycluster-kuberay-head"));
    assert_eq!(label(&m, head, "app.kubernetes.io/created-by"), Some("kuberay-operator"));
    // The autoscaler sidecar: 1 CPU + 500m.
    assert_eq!(request(&m, head, "cpu"), 1500);
    let w = pod(&m, "raycluster-kuberay-gpu-group-worker-00002");
    assert_eq!(label(&m, w, "ray.io/cluster"), Some("raycluster-kuberay"));
    assert_eq!(label(&m, w, "ray.io/group"), Some("gpu-group"));
    assert_eq!(label(&m, w, "ray.io/is-ray-node"), Some("custom"), "a template may override is-ray-node");
    // wait-gcs-ready (200m, 256Mi) outweighs the 100m / 128Mi worker.
    assert_eq!(request(&m, w, "cpu"), 200);
    assert_eq!(request(&m, w, "nvidia.com/gpu"), 1000);
    let t = pod(&m, "raycluster-kuberay-tpu-worker-00001");
    assert_eq!(label(&m, t, "ray.io/worker-group-replica-name"), Some("tpu-00000"));
    assert_eq!(label(&m, t, "ray.io/replica-host-index"), Some("1"));
    // Absent replicas start at minReplicas; min > max is refused.
    let m = model(&RAY.replace("      replicas: 5\n", ""));
    assert_eq!(m.pods.iter().filter(|p| p.name.contains("gpu-group")).count(), 1);
    let e = errors(&RAY.replace("minReplicas: 1", "minReplicas: 4"));
    assert_eq!(e[0].path.as_deref(), Some("spec.workerGroupSpecs[0].minReplicas"));
}

#[test]
fn rayjob_and_rayservice_embed_a_cluster() {
    let spec = RAY.split_once("spec:\n").map(|(_, s)| s).expect("spec").replace("\n  ", "\n    ");
    let job = format!("apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {{name: sample}}\nspec:\n  entrypoint: python train.py\n  rayClusterSpec:\n  {spec}");
    let m = model(&job);
    assert_eq!(m.pods[0].name, "sample-00000-head");
    assert_eq!(m.pods.last().map(|p| p.name.as_str()), Some("sample-0"));
    let submitter = pod(&m, "sample-0");
    assert_eq!(request(&m, submitter, "cpu"), 500);
    assert_eq!(label(&m, submitter, "job-name"), Some("sample"));
    assert!(m.pods.iter().all(|p| p.workload.as_deref() == Some("RayJob/sample")));
    let http = model(&job.replace("  entrypoint:", "  submissionMode: HTTPMode\n  entrypoint:"));
    assert_eq!(http.pods.len(), m.pods.len() - 1, "no submitter pod in HTTPMode");
    let sidecar = model(&job.replace("  entrypoint:", "  submissionMode: SidecarMode\n  entrypoint:"));
    assert_eq!(request(&sidecar, pod(&sidecar, "sample-00000-head"), "cpu"), 2000, "the submitter joins the head");
    let selector = model("apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: s}\nspec:\n  clusterSelector: {ray.io/cluster: long-lived}\n  entrypoint: x\n");
    assert_eq!(names(&selector), ["s-0"]);
    let service = format!("apiVersion: ray.io/v1\nkind: RayService\nmetadata: {{name: llm}}\nspec:\n  rayClusterConfig:\n  {spec}");
    let m = model(&service);
    assert_eq!(m.pods[0].name, "llm-00000-head");
    assert_eq!(label(&m, &m.pods[0], "ray.io/cluster"), Some("llm-00000"));
}

#[test]
fn volcano_job_tasks() {
    let m = model(
        "apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: tf-dist, namespace: ai}
spec:
  minAvailable: 3
  schedulerName: volcano
  tasks:
    - name: ps
      replicas: 1
      template:
        spec:
          containers: [{name: tf, image: tf, resources: {requests: {cpu: '2'}}}]
    - replicas: 2
      template:
        spec:
          containers: [{name: tf, image: tf, resources: {limits: {nvidia.com/gpu: 1}}}]
",
    );
    assert_eq!(names(&m), ["tf-dist-ps-0", "tf-dist-default1-0", "tf-dist-default1-1"]);
    let p = pod(&m, "tf-dist-default1-1");
    assert_eq!(label(&m, p, "volcano.sh/job-name"), Some("tf-dist"));
    assert_eq!(label(&m, p, "volcano.sh/task-spec"), Some("default1"));
    assert_eq!(label(&m, p, "volcano.sh/task-index"), Some("1"));
    assert_eq!(label(&m, p, "volcano.sh/queue-name"), Some("default"));
    assert_eq!(label(&m, p, "volcano.sh/job-namespace"), Some("ai"));
    let e = errors("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: v}\nspec:\n  minAvailable: 5\n  tasks:\n    - {name: a, replicas: 1, template: {spec: {containers: [{name: c, image: i}]}}}\n");
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("out-of-range", Some("spec.minAvailable")));
}

const RUNTIME: &str = "apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch-distributed
spec:
  mlPolicy:
    numNodes: 1
    torch: {numProcPerNode: auto}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime
                      command: [torchrun, /workspace/train.py]
";

#[test]
fn trainjob_through_its_runtime() {
    let yaml = format!(
        "{RUNTIME}---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {{name: fine-tune, namespace: team-a}}
spec:
  runtimeRef: {{name: torch-distributed}}
  trainer:
    numNodes: 3
    resourcesPerNode:
      limits: {{nvidia.com/gpu: 4}}
"
    );
    let m = model(&yaml);
    assert_eq!(names(&m), ["fine-tune-node-0-0", "fine-tune-node-0-1", "fine-tune-node-0-2"]);
    let p = pod(&m, "fine-tune-node-0-2");
    assert_eq!(p.namespace, "team-a");
    assert_eq!(request(&m, p, "nvidia.com/gpu"), 4000);
    assert_eq!(label(&m, p, "jobset.sigs.k8s.io/jobset-name"), Some("fine-tune"));
    assert_eq!(p.workload.as_deref(), Some("TrainJob/fine-tune"));
    assert!(m.skipped.iter().any(|s| s.kind == "ClusterTrainingRuntime" && s.reason.contains("TrainJobs that reference it")));
    // The runtime's own numNodes applies when the TrainJob says none.
    let m = model(&yaml.replace("    numNodes: 3\n", ""));
    assert_eq!(m.pods.len(), 1);
    // Without its runtime the TrainJob is a located error.
    let e = errors(yaml.split_once("---\n").map(|(_, t)| t).expect("two documents"));
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("unknown-reference", Some("spec.runtimeRef.name")));
    assert!(e[0].message.contains("torch-distributed"));
    // A runtime error names the runtime's document.
    let e = errors(&yaml.replace(
        "                  containers:\n",
        "                  tolerations: [{key: a, effect: Sometimes}]\n                  containers:\n",
    ));
    assert_eq!(e[0].path.as_deref(), Some("spec.template.spec.replicatedJobs[0].template.spec.template.spec.tolerations[0].effect"));
    assert_eq!(e[0].object.as_deref(), Some("ClusterTrainingRuntime/torch-distributed"));
}

#[test]
fn unexpanded_pod_creators_are_reported_as_such() {
    let m = model("apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {name: wf}\nspec: {entrypoint: main}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\n");
    assert!(m.skipped[0].reason.contains("creates pods nodecast does not expand"), "{}", m.skipped[0].reason);
    assert!(m.skipped[1].reason.contains("does not influence provisioning"));
}

#[test]
fn expansion_is_bounded() {
    let e = errors(
        &JOBSET
            .replace("replicas: 2", "replicas: 100000")
            .replace("parallelism: 3", "parallelism: 100")
            .replace("completions: 3", "completions: 100"),
    );
    assert_eq!(e[0].code, "too-many-pods");
}

/// Separate Pod objects written alike share a content class (`intern_specs`), while each keeps
/// its own spec (`spec_id`, the replica identity hint re-plans edit by); a different spec, or an
/// edit after lowering, leaves the class.
#[test]
fn identical_separate_pods_share_a_content_class() {
    let manifest = |name: &str, cpu: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: ml\n  labels:\n    app: gpu\nspec:\n  containers:\n    - name: app\n      image: app:1\n      resources:\n        requests:\n          cpu: \"{cpu}\"\n          memory: 1Gi\n"
        )
    };
    let yaml = [manifest("a", "2"), manifest("b", "2"), manifest("c", "3")].join("---\n")
        + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: ml\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n        - name: app\n          image: app:1\n";
    let m = model(&yaml);
    let (a, b, c) = (pod(&m, "a"), pod(&m, "b"), pod(&m, "c"));
    assert_eq!(a.content_id(), b.content_id(), "identical separate pods share a class");
    assert_ne!(a.spec_id(), b.spec_id(), "but not a spec: they are not replicas");
    assert!(a.content_shared() && b.content_shared());
    assert_ne!(a.content_id(), c.content_id(), "a different request is a different class");
    assert!(!c.content_shared(), "a spec of its own is not interned");
    let web: Vec<&Pod> = m.pods.iter().filter(|p| p.name.starts_with("web-")).collect();
    assert_eq!(web.len(), 2);
    assert_eq!(web[0].spec_id(), web[1].spec_id());
    assert_eq!(web[0].content_id(), web[1].content_id());
    assert_ne!(web[0].content_id(), a.content_id());
    // An edit after lowering leaves the class: the edited spec may differ from it.
    let mut edited = a.clone();
    edited.requests = c.requests.clone();
    assert_ne!(edited.content_id(), b.content_id());
    let mut untouched = a.clone();
    untouched.name = "a2".into();
    assert_eq!(untouched.content_id(), b.content_id(), "names are not part of the spec");
}
