//! Sweeps (issue 20): what the core adds around each simulation of a sweep. `load` is what every
//! process-pool or Ray task pays once per batch (decode and validate the spec, every base and
//! variant document, every grid value); `request` builds one combination's edited request;
//! `run` is one whole combination (the week simulated, reduced to its row). The spec is
//! examples/sweeps/week-capacity.yaml (108 combinations).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use indexmap::IndexMap;
use nodecast::sweep;
use std::time::Duration;

const SPEC: &str = include_str!("../../examples/sweeps/week-capacity.yaml");

fn files() -> IndexMap<String, String> {
    [
        ("../nodepools/gpu-training.yaml", include_str!("../../examples/nodepools/gpu-training.yaml")),
        ("../nodepools/gpu-inference.yaml", include_str!("../../examples/nodepools/gpu-inference.yaml")),
        ("../workloads/vllm-inference.yaml", include_str!("../../examples/workloads/vllm-inference.yaml")),
        ("../simulate/workloads.yaml", include_str!("../../examples/simulate/workloads.yaml")),
        ("../simulate/week.yaml", include_str!("../../examples/simulate/week.yaml")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

fn bench(c: &mut Criterion) {
    let files = files();
    let sw = sweep::load(SPEC, Some("week-capacity.yaml"), &files).expect("the example spec loads");
    assert_eq!(sw.len(), 108);
    let mut group = c.benchmark_group("sweep");
    group.sample_size(20).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    group.bench_function("load-week-capacity", |b| {
        b.iter(|| sweep::load(black_box(SPEC), Some("week-capacity.yaml"), &files).map(|s| s.len()))
    });
    group.bench_function("request-one-combination", |b| b.iter(|| sw.request(black_box(77)).map(|r| r.inputs.len())));
    group.bench_function("run-one-week", |b| b.iter(|| sw.run(black_box(77), false).0.len()));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
