//! `nodecast::plan` end to end over the embedded AWS catalog with the example GPU NodePools
//! (gpu-inference, gpu-training, gpu-general) and mixed 1/2/4/8-GPU pods.
//!
//! `limits/N` uses the example files verbatim: their limits (8 GPUs for gpu-inference, 16 for
//! gpu-training) leave almost every pod unschedulable, so it mostly measures the failure path
//! and the unschedulable diagnostics. `no-limits/N` removes `spec.limits` so that the pods are
//! actually packed onto GPU nodes.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use nodecast::api::Request;
use std::time::Duration;

fn bench(c: &mut Criterion, label: &str, sizes: &[usize], make: fn(usize) -> Request) {
    let mut group = c.benchmark_group("provision_gpu");
    group.warm_up_time(Duration::from_secs(1));
    for &n in sizes {
        let req = make(n);
        nodecast_benches::report(&format!("provision_gpu/{label}/{n}"), &req);
        if n >= 1000 {
            group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(if n >= 10_000 { 12 } else { 8 }));
        } else {
            group.sample_size(20).sampling_mode(SamplingMode::Auto).measurement_time(Duration::from_secs(4));
        }
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new(label, n), &req, |b, req| b.iter(|| nodecast::plan(black_box(req))));
    }
    group.finish();
}

fn provision_gpu(c: &mut Criterion) {
    // 10k with limits: one iteration is well under 3 s. 10k without limits is not: the solve
    // alone takes several seconds (about 4,900 NodeClaims), so it is left out.
    bench(c, "limits", &[100, 1000, 10_000], nodecast_benches::gpu_request);
    bench(c, "no-limits", &[100, 1000], nodecast_benches::gpu_request_unlimited);
}

criterion_group!(benches, provision_gpu);
criterion_main!(benches);
