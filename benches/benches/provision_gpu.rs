//! `nodecast::plan` end to end over the embedded AWS catalog with the example GPU NodePools
//! (gpu-inference, gpu-training, gpu-general) and mixed 1/2/4/8-GPU pods, each with a required
//! `karpenter.k8s.aws/instance-gpu-name` node affinity and a toleration for the pools'
//! `nvidia.com/gpu` taint.
//!
//! `pods/N`: N individual Pod objects, the pools without `spec.limits` (so every pod is placed).
//! `deployments/N`: the same mix as Deployments of 5–100 identical replicas, N pods in all.
//! `limits/1000`: the example files verbatim; their GPU limits leave almost every pod
//! unschedulable, so this times the failure path and its diagnostics.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use nodecast::Request;
use std::time::Duration;

fn bench(c: &mut Criterion, label: &str, sizes: &[usize], make: fn(usize) -> Request) {
    let mut group = c.benchmark_group("provision_gpu");
    group.warm_up_time(Duration::from_secs(1));
    for &n in sizes {
        let req = make(n);
        nodecast_benches::report(&format!("provision_gpu/{label}/{n}"), &req);
        if n >= 1000 {
            // Criterion's minimum of 10 samples, one pass each.
            group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(if n >= 100_000 {
                15
            } else {
                5
            }));
        } else {
            group.sample_size(20).sampling_mode(SamplingMode::Auto).measurement_time(Duration::from_secs(4));
        }
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new(label, n), &req, |b, req| b.iter(|| nodecast::plan(black_box(req))));
        drop(req);
    }
    group.finish();
}

fn provision_gpu(c: &mut Criterion) {
    bench(c, "pods", &[1000, 10_000, 100_000], nodecast_benches::gpu_request_unlimited);
    bench(c, "deployments", &[1000, 10_000, 100_000], nodecast_benches::gpu_request_deployments);
    bench(c, "limits", &[1000], nodecast_benches::gpu_request);
}

criterion_group!(benches, provision_gpu);
criterion_main!(benches);
