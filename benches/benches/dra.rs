//! Karpenter's DRA allocator inside a provisioning pass (`--ignore-dra-requests=false`, issue
//! 28): `hostile/N` is N pods whose claims' device search fails after 95,900 steps on every
//! instance type of the catalog (one claim template; `hostile-distinct/N` gives each pod its own
//! template, so no search is shared and the pass's step budget decides); `gpu/N` is N one-A10G
//! pods under the provider's DRANVIDIAGPU gate.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use std::time::Duration;

fn dra(c: &mut Criterion) {
    let mut group = c.benchmark_group("dra");
    group.warm_up_time(Duration::from_secs(1)).sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(5));
    let cases: [(&str, usize, fn(usize) -> nodecast::Request); 4] = [
        ("hostile", 20, |n| nodecast_benches::dra_hostile_request(n, 1)),
        ("hostile", 1000, |n| nodecast_benches::dra_hostile_request(n, 1)),
        ("hostile-distinct", 300, |n| nodecast_benches::dra_hostile_request(n, n)),
        ("gpu", 200, nodecast_benches::dra_gpu_request),
    ];
    for (label, n, make) in cases {
        let req = make(n);
        nodecast_benches::report(&format!("dra/{label}/{n}"), &req);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new(label, n), &req, |b, req| b.iter(|| nodecast::plan(black_box(req))));
    }
    group.finish();
}

criterion_group!(benches, dra);
criterion_main!(benches);
