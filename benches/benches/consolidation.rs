//! Multi-node consolidation over an existing cluster: 1000 Karpenter-managed on-demand nodes
//! running 20,000 ReplicaSet pods, 30 % of the nodes under 25 % used, over the 400-type
//! synthetic catalog. One NodePool, `default`, WhenEmptyOrUnderutilized with consolidateAfter 0s.
//!
//! `consolidation/budget-10pct`: one budget of `nodes: "10%"` (100 nodes may be disrupted).
//! `consolidation/budget-100pct`: `nodes: "100%"` (every node is a candidate; multi-node
//! consolidation still tries at most 100).
//! `consolidation/split-10pct/{lower_only,decide_only}`: `load::model` versus
//! `disruption::decide` on the 10 % input; together they make up `nodecast::consolidate`.
//!
//! `consolidation/large/5000-nodes-100000-pods`: the same shape at 5,000 nodes running 100,000
//! pods, budget 10 % (issue 35's target: ≤ 1 s).
//!
//! No node is empty, so emptiness finds nothing and the pass runs multi-node consolidation.

use criterion::{black_box, criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use nodecast_benches::{consolidation_request, report_decision, CONSOLIDATION_NODES as NODES, CONSOLIDATION_PODS as PODS};
use std::time::Duration;

fn consolidation(c: &mut Criterion) {
    let cases = [("budget-10pct", "10%"), ("budget-100pct", "100%")];
    let requests: Vec<_> = cases
        .iter()
        .map(|&(id, budget)| {
            let req = consolidation_request(NODES, PODS, budget);
            report_decision(&format!("consolidation/{id}"), &req);
            (id, req)
        })
        .collect();

    let mut group = c.benchmark_group("consolidation");
    group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(15)).warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(PODS as u64));
    for (id, req) in &requests {
        group.bench_function(*id, |b| b.iter(|| nodecast::consolidate(black_box(req))));
    }
    group.finish();

    // Issue 35's size: 5,000 nodes / 100,000 pods, the 10 % budget.
    let (large_nodes, large_pods) = (5_000, 100_000);
    let large = consolidation_request(large_nodes, large_pods, "10%");
    let id = format!("{large_nodes}-nodes-{large_pods}-pods");
    report_decision(&format!("consolidation/large/{id}"), &large);
    let mut group = c.benchmark_group("consolidation/large");
    group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(20)).warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(large_pods as u64));
    group.bench_function(&id, |b| b.iter(|| nodecast::consolidate(black_box(&large))));
    group.finish();
    drop(large);

    let req = &requests[0].1;
    let (model, _warnings) = nodecast::internal::load::model(&req.sources()).expect("benchmark request rejected");
    let now = nodecast::internal::disruption::parse_now(req.now.as_deref()).expect("bad now");
    let mut group = c.benchmark_group("consolidation/split-10pct");
    group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(15)).warm_up_time(Duration::from_secs(1));
    group.bench_function("lower_only", |b| b.iter(|| nodecast::internal::load::model(black_box(&req.sources()))));
    group.bench_function("decide_only", |b| b.iter(|| nodecast::internal::disruption::decide(black_box(&model), now)));
    group.finish();
}

criterion_group!(benches, consolidation);
criterion_main!(benches);
