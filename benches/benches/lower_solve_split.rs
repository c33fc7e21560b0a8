//! Where the time of the 1000-pod diverse case goes: `load::model` (decode, validate, catalog,
//! lower) versus `scheduling::solve` (one provisioning pass over the lowered model) versus
//! `provision::render` (launch decisions, NodeClaim output, diagnostics). The three add up to
//! `provision_diverse/1000`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use std::time::Duration;

const PODS: usize = 1000;

fn split(c: &mut Criterion) {
    let req = nodecast_benches::diverse_request(PODS);
    nodecast_benches::report(&format!("split_diverse_{PODS}"), &req);
    let (model, _warnings) = nodecast::internal::load::model(&req.sources()).expect("benchmark request rejected");

    let mut group = c.benchmark_group(format!("split_diverse_{PODS}"));
    group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(6)).warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(PODS as u64));
    group.bench_function("lower_only", |b| b.iter(|| nodecast::internal::load::model(black_box(&req.sources()))));
    group.bench_function("solve_only", |b| b.iter(|| nodecast::internal::scheduling::solve(black_box(&model))));
    let solution = nodecast::internal::scheduling::solve(&model);
    group.bench_function("render_only", |b| {
        b.iter(|| nodecast::internal::provision::render(black_box(&model), black_box(&solution), Vec::new()))
    });
    group.finish();
}

criterion_group!(benches, split);
criterion_main!(benches);
