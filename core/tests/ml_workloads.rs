//! The ML workload kinds end to end: planned from the example manifests, and submitted in a
//! simulation trace (by reference and inline) with the same expansion. Answers are read as the
//! JSON wire format, which every front end sees.

use nodecast::{Input, Request};
use serde_json::Value;

fn file(path: &str) -> Input {
    let full = format!("{}/../examples/{path}", env!("CARGO_MANIFEST_DIR"));
    Input { name: Some(path.into()), text: std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}")) }
}

fn plan(inputs: Vec<Input>) -> Value {
    let req = Request { inputs, ..Default::default() };
    serde_json::from_str(&nodecast::plan(&req).to_json()).expect("JSON answer")
}

fn pods_of(answer: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for c in answer["nodeClaims"].as_array().expect("nodeClaims") {
        for p in c["pods"].as_array().expect("pods") {
            out.push((p.as_str().unwrap_or("").to_string(), c["instanceType"].as_str().unwrap_or("").to_string()));
        }
    }
    out.sort();
    out
}

#[test]
fn pytorchjob_example_plans_one_8_gpu_node_per_pod() {
    let a = plan(vec![file("nodepools/gpu-training.yaml"), file("workloads/pytorchjob-llama-finetune.yaml")]);
    assert_eq!(a["status"], "success", "{a}");
    assert_eq!(
        pods_of(&a),
        [
            ("ml/llama-finetune-master-0".to_string(), "g5.48xlarge".to_string()),
            ("ml/llama-finetune-worker-0".to_string(), "g5.48xlarge".to_string())
        ]
    );
    assert!(a["unschedulable"].as_array().is_none_or(|u| u.is_empty()), "{}", a["unschedulable"]);
}

#[test]
fn every_ml_example_plans_without_unschedulable_pods() {
    for (pools, workload, pods) in [
        ("nodepools/gpu-training.yaml", "workloads/jobset-multislice.yaml", 4),
        ("nodepools/gpu-inference.yaml", "workloads/leaderworkerset-vllm.yaml", 4),
        ("nodepools/gpu-training.yaml", "workloads/raycluster-gpu.yaml", 3),
        ("nodepools/gpu-training.yaml", "workloads/trainjob-torch.yaml", 2),
        ("nodepools/gpu-training.yaml", "workloads/volcano-job.yaml", 3),
    ] {
        let a = plan(vec![file("nodepools/gpu-general.yaml"), file(pools), file(workload)]);
        assert_eq!(a["status"], "success", "{workload}: {a}");
        assert_eq!(pods_of(&a).len(), pods, "{workload}: {a}");
        assert!(a["unschedulable"].as_array().is_none_or(|u| u.is_empty()), "{workload}: {}", a["unschedulable"]);
    }
}

fn simulate(trace: &str) -> Value {
    let req = Request {
        inputs: vec![
            file("nodepools/gpu-general.yaml"),
            file("nodepools/gpu-training.yaml"),
            file("workloads/pytorchjob-llama-finetune.yaml"),
        ],
        trace: Some(nodecast::simulate::TraceInput { name: Some("trace.yaml".into()), text: trace.into(), format: None }),
        ..Default::default()
    };
    serde_json::from_str(&nodecast::simulate(&req).to_json()).expect("JSON answer")
}

const RAY_INLINE: &str = "
  ray:
    manifest:
      apiVersion: ray.io/v1
      kind: RayCluster
      metadata: {name: rc, namespace: ml}
      spec:
        headGroupSpec:
          template:
            spec:
              containers: [{name: ray-head, image: rayproject/ray, resources: {requests: {cpu: '2', memory: 8Gi}}}]
        workerGroupSpecs:
          - groupName: gpu
            replicas: 2
            template:
              spec:
                nodeSelector: {workload-type: training}
                tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
                affinity:
                  podAntiAffinity:
                    requiredDuringSchedulingIgnoredDuringExecution:
                      - topologyKey: kubernetes.io/hostname
                        labelSelector: {matchLabels: {ray.io/cluster: ray, ray.io/node-type: worker}}
                containers: [{name: ray-worker, image: rayproject/ray, resources: {limits: {nvidia.com/gpu: 1}}}]
";

#[test]
fn a_trace_submits_training_jobs_and_ray_clusters_with_their_expansion() {
    let trace = format!(
        "kind: Trace\nstart: '2025-03-04T00:00:00Z'\nend: 12h\nworkloads:\n  finetune:\n    ref: PyTorchJob/ml/llama-finetune\n    runTime: 3h\n{RAY_INLINE}events:\n  - {{at: 1h, submit: finetune, name: ft-a}}\n  - {{at: 2h, submit: ray, name: ray}}\n  - {{at: 5h, delete: ray}}\n"
    );
    let s = simulate(&trace);
    assert_eq!(s["status"], "success", "{s}");
    let pods: Vec<(&str, &str)> = s["pods"]
        .as_array()
        .expect("pods")
        .iter()
        .map(|p| (p["name"].as_str().unwrap_or(""), p["workload"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(
        pods,
        [
            ("ml/ft-a-master-0", "PyTorchJob/ml/ft-a"),
            ("ml/ft-a-worker-0", "PyTorchJob/ml/ft-a"),
            ("ml/ray-head", "RayCluster/ml/ray"),
            ("ml/ray-gpu-worker-00000", "RayCluster/ml/ray"),
            ("ml/ray-gpu-worker-00001", "RayCluster/ml/ray"),
        ]
    );
    // The Ray workers' anti-affinity selects `ray.io/cluster: ray`, the name the trace gives the
    // inline cluster: each 1-GPU worker lands on its own node, as it would in the cluster.
    let nodes: Vec<Vec<&str>> = s["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| n["pods"].as_array().map(|p| p.iter().filter_map(Value::as_str).collect()).unwrap_or_default())
        .collect();
    let worker_nodes: Vec<&Vec<&str>> = nodes.iter().filter(|n| n.iter().any(|p| p.contains("gpu-worker"))).collect();
    assert!(worker_nodes.iter().all(|n| n.iter().filter(|p| p.contains("gpu-worker")).count() == 1), "{nodes:?}");
}

#[test]
fn a_gang_cannot_be_resized_from_the_trace() {
    let s = simulate("kind: Trace\nevents:\n  - {at: 0s, submit: {ref: PyTorchJob/ml/llama-finetune, replicas: 3, runTime: 1h}}\n");
    assert_eq!(s["status"], "failure");
    assert_eq!(s["errors"][0]["path"], "events[0].submit.replicas", "{s}");
    let s = simulate(&format!("kind: Trace\nworkloads:{RAY_INLINE}events:\n  - {{at: 0s, submit: ray, name: ray}}\n  - {{at: 1h, scale: {{workload: ray, replicas: 5}}}}\n"));
    assert_eq!(s["status"], "success", "{s}");
    assert!(s["warnings"].as_array().expect("warnings").iter().any(|w| w["code"] == "not-scalable"), "{}", s["warnings"]);
}

#[test]
fn a_gpu_pod_on_a_cpu_only_pool_says_no_type_has_the_gpu() {
    let pod = Input {
        name: Some("pod.yaml".into()),
        text: "apiVersion: v1\nkind: Pod\nmetadata: {name: cuda-test}\nspec:\n  containers: [{name: c, image: nvidia/cuda, resources: {limits: {nvidia.com/gpu: 1}}}]\n".into(),
    };
    let a = plan(vec![file("nodepools/gpu-general.yaml"), pod]);
    let reasons = a["unschedulable"][0]["reasons"].as_array().expect("reasons");
    let general = reasons.iter().find(|r| r["nodePool"] == "general").expect("general's reason");
    assert_eq!(general["code"], "no-instance-type-fits");
    assert_eq!(general["message"], "needs nvidia.com/gpu 1; no instance type this NodePool allows has nvidia.com/gpu");
}
