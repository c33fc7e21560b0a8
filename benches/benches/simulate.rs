//! Lifecycle simulation: a 7-day CSV trace of 10,000 GPU jobs (55 % 1-GPU batch jobs on
//! `gpu-inference`, 20/15/10 % 2/4/8-GPU training jobs on `gpu-training`, run times 5 min – 6 h)
//! over the example GPU NodePools without limits, default settings (seed 7). Every provisioning
//! batch and every disruption pass of the week is a real `plan` / `consolidate` pass.
//!
//! `week-10000-jobs` runs the jobs with `karpenter.sh/do-not-disrupt` (as the GPU guides
//! recommend); `week-10000-jobs-disruptable` runs the same trace without it, so every busy
//! `gpu-inference` node is a consolidation candidate in every disruption pass.

use criterion::{black_box, criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use nodecast::Outcome;
use nodecast::Request;
use nodecast_benches::{simulate_week_request, simulate_week_request_disruptable};
use std::time::Duration;

const JOBS: usize = 10_000;

fn setup(id: &str, req: &Request) {
    match &nodecast::simulate(req).outcome {
        Outcome::Success(s) => println!(
            "[setup] simulate/{id}: {} pods, {} NodeClaims launched, {} disruptions, {} timeline events, ${:.2} vs ${:.2} static",
            s.summary.pods.submitted,
            s.summary.launches.total,
            s.summary.disruptions.total,
            s.timeline.len(),
            s.summary.cost_usd,
            s.summary.static_cost_usd
        ),
        Outcome::Failure { errors } => panic!("benchmark request rejected: {errors:?}"),
    }
}

fn simulate(c: &mut Criterion) {
    let req = simulate_week_request(JOBS, 7);
    setup("week-10000-jobs", &req);
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(20)).warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(JOBS as u64));
    group.bench_function("week-10000-jobs", |b| b.iter(|| nodecast::simulate(black_box(&req))));
    group.finish();
}

/// Ten samples of one run each (a run takes seconds); the measurement time only has to cover them.
fn simulate_disruptable(c: &mut Criterion) {
    let req = simulate_week_request_disruptable(JOBS, 7);
    setup("week-10000-jobs-disruptable", &req);
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(60)).warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(JOBS as u64));
    group.bench_function("week-10000-jobs-disruptable", |b| b.iter(|| nodecast::simulate(black_box(&req))));
    group.finish();
}

criterion_group!(benches, simulate, simulate_disruptable);
criterion_main!(benches);
