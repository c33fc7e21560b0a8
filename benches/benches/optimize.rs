//! `optimize` on the random GPU generator (`nodecast::optimize::gen`): 50, 200 and 10,000 pods,
//! and 200 and 10,000 with hostname rules (`gen::constrained_cluster`).
//! Also `advise` at 30 and 200 pods. Whole facade calls (decode, lower, Karpenter's plan, bound, patterns, integer program, check).

use criterion::{criterion_group, criterion_main, Criterion};
use nodecast::optimize::gen;
use nodecast::Request;

fn request(seed: u64, pods: usize) -> Request {
    Request { objects: gen::cluster(seed, pods), catalog: Some(gen::catalog()), ..Default::default() }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("optimize");
    g.sample_size(10);
    for (id, pods) in [("gpu-50", 50), ("gpu-200", 200), ("gpu-10000", 10_000)] {
        let req = request(7, pods);
        assert!(nodecast::optimize(&req).is_success());
        g.bench_function(id, |b| b.iter(|| nodecast::optimize(&req)));
    }
    // With hostname rules (anti-affinity within and across workloads, hostname spreads).
    for (id, pods) in [("gpu-rules-200", 200), ("gpu-rules-10000", 10_000)] {
        let req = Request { objects: gen::constrained_cluster(7, pods), catalog: Some(gen::catalog()), ..Default::default() };
        assert!(nodecast::optimize(&req).is_success());
        g.bench_function(id, |b| b.iter(|| nodecast::optimize(&req)));
    }
    g.finish();
    // `advise`: optimize once, then one load and one plan per candidate edit.
    let mut g = c.benchmark_group("advise");
    g.sample_size(10);
    for (id, pods) in [("gpu-30", 30), ("gpu-200", 200)] {
        let req = request(7, pods);
        assert!(nodecast::advise(&req).is_success());
        g.bench_function(id, |b| b.iter(|| nodecast::advise(&req)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
