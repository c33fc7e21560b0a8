//! Lowering the ML workload kinds: each expanded pod carries its own index labels, so it costs a
//! spec of its own where a Deployment's replicas share one. `plan::model` (decode, validate,
//! lower) on one object of 8,000 pods: a Deployment (the baseline), a JobSet of 1,000 Jobs × 8
//! pods with exclusive placement, and a PyTorchJob of 1 Master + 7,999 Workers.

use criterion::{black_box, criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use nodecast::{Input, Request};
use std::time::Duration;

const PODS: usize = 8000;

const POD_SPEC: &str =
    "containers: [{name: pytorch, image: img, resources: {requests: {cpu: '4', memory: 16Gi}, limits: {nvidia.com/gpu: 1}}}]";

fn request(text: String) -> Request {
    Request { inputs: vec![Input { name: Some("ml.yaml".into()), text }], ..Default::default() }
}

fn inputs() -> Vec<(&'static str, Request)> {
    let deployment = format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\nspec:\n  replicas: {PODS}\n  template:\n    spec: {{{POD_SPEC}}}\n"
    );
    let jobset = format!(
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: js\n  annotations: {{alpha.jobset.sigs.k8s.io/exclusive-topology: kubernetes.io/hostname}}\nspec:\n  replicatedJobs:\n    - name: w\n      replicas: {}\n      template:\n        spec:\n          parallelism: 8\n          template:\n            spec: {{{POD_SPEC}}}\n",
        PODS / 8
    );
    let pytorch = format!(
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {{name: pt}}\nspec:\n  pytorchReplicaSpecs:\n    Master:\n      replicas: 1\n      template:\n        spec: {{{POD_SPEC}}}\n    Worker:\n      replicas: {}\n      template:\n        spec: {{{POD_SPEC}}}\n",
        PODS - 1
    );
    vec![("deployment", request(deployment)), ("jobset_exclusive", request(jobset)), ("pytorchjob", request(pytorch))]
}

fn expand(c: &mut Criterion) {
    let mut group = c.benchmark_group(format!("ml_expand_{PODS}"));
    group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(PODS as u64));
    for (name, req) in inputs() {
        let (model, _) = nodecast::internal::load::model(&req.sources()).expect("benchmark request rejected");
        assert_eq!(model.pods.len(), PODS, "{name}");
        group.bench_function(name, |b| b.iter(|| nodecast::internal::load::model(&black_box(&req).sources())));
    }
    group.finish();
}

criterion_group!(benches, expand);
criterion_main!(benches);
