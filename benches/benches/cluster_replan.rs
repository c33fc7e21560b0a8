//! Load once, ask many: re-planning a loaded 10,000-pod cluster (`Cluster::plan`, no decoding,
//! validation or lowering) against the JSON facade that loads on every call (`nodecast::plan`).

use criterion::{criterion_group, criterion_main, Criterion};
use nodecast::Cluster;
use nodecast_benches::diverse_request;
use std::hint::black_box;

fn replan(c: &mut Criterion) {
    let req = diverse_request(10_000);
    let cluster = Cluster::load(&req.sources()).expect("benchmark request rejected");
    let mut group = c.benchmark_group("cluster_replan/10000-pods");
    group.sample_size(10);
    group.bench_function("load_and_plan", |b| b.iter(|| nodecast::plan(black_box(&req))));
    group.bench_function("replan_loaded", |b| b.iter(|| black_box(&cluster).plan()));
    group.finish();
}

criterion_group!(benches, replan);
criterion_main!(benches);
