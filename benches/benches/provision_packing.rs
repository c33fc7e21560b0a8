//! `nodecast::plan` end to end on an existing cluster: 5000 initialized nodes (synthetic types of
//! 2–16 vCPUs over three zones, 1–3 bound pods each) and 10,000 pending pods of the diverse mix
//! (generic, zone and hostname spread, zone affinity, hostname anti-affinity). Every pod is tried
//! against the existing nodes first, as Karpenter does, so this times that path.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use std::time::Duration;

const NODES: usize = 5000;
const PODS: usize = 10_000;

fn provision_packing(c: &mut Criterion) {
    let req = nodecast_benches::packing_request(NODES, PODS);
    nodecast_benches::report(&format!("provision_packing/{PODS}-onto-{NODES}"), &req);
    let mut group = c.benchmark_group("provision_packing");
    group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(PODS as u64));
    group.bench_with_input(BenchmarkId::new(format!("onto-{NODES}-nodes"), PODS), &req, |b, req| b.iter(|| nodecast::plan(black_box(req))));
    group.finish();
}

criterion_group!(benches, provision_packing);
criterion_main!(benches);
