//! Exclusive placement (issue 29): `nodecast::plan` on a JobSet whose Jobs each need a
//! hostname to themselves (`alpha.jobset.sigs.k8s.io/exclusive-topology:
//! kubernetes.io/hostname`, one pod per Job) over one m5 NodePool. Every Job brings a pod
//! affinity group and an inverse anti-affinity group that selects every other Job's pods, the
//! shape that was cubic in Jobs (2026-11-28: 1,000 Jobs 28.9 s from a 560-byte input).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use nodecast::Outcome;
use nodecast_benches::exclusive_request;
use std::time::Duration;

fn exclusive(c: &mut Criterion) {
    let mut group = c.benchmark_group("exclusive_jobset");
    group.sample_size(10).sampling_mode(SamplingMode::Flat).warm_up_time(Duration::from_secs(1));
    let sizes: Vec<usize> = std::env::var("NODECAST_EXCLUSIVE_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![100, 1000]);
    for jobs in sizes {
        let req = exclusive_request(false, jobs, 1, "kubernetes.io/hostname");
        let answer = nodecast::plan(&req);
        let Outcome::Success(plan) = &answer.outcome else { panic!("plan failed: {}", answer.to_json()) };
        assert_eq!(plan.node_claims.len(), jobs, "one NodeClaim per exclusive Job");
        group.throughput(Throughput::Elements(jobs as u64));
        group.measurement_time(Duration::from_secs(if jobs >= 1000 { 40 } else { 5 }));
        group.bench_with_input(BenchmarkId::from_parameter(jobs), &req, |b, req| b.iter(|| nodecast::plan(black_box(req))));
    }
    group.finish();
}

criterion_group!(benches, exclusive);
criterion_main!(benches);
