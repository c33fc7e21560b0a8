//! Issue 33's bound: a simulated week with HPA-driven replicas for 10 Deployments stays within 2×
//! the time of the same week with explicit scale events (`benches/src/hpa.rs` builds both: the
//! explicit week replays the replicas the HPA week asked for, so both launch about the same nodes).

use criterion::{black_box, criterion_group, criterion_main, Criterion, SamplingMode};
use nodecast::{Outcome, Request};
use nodecast_benches::hpa::{hpa_week_explicit_request, hpa_week_request};
use std::time::Duration;

const SERVICES: usize = 10;

fn setup(id: &str, req: &Request) {
    match &nodecast::simulate(req).outcome {
        Outcome::Success(s) => {
            let rescales: usize = s.autoscaling.iter().map(|w| w.rescales).sum();
            println!(
                "[setup] simulate_hpa/{id}: {} pods, {} NodeClaims launched, {} disruptions, {} autoscaled workloads, {} rescales, ${:.2}",
                s.summary.pods.submitted,
                s.summary.launches.total,
                s.summary.disruptions.total,
                s.autoscaling.len(),
                rescales,
                s.summary.cost_usd
            );
        }
        Outcome::Failure { errors } => panic!("benchmark request rejected: {errors:?}"),
    }
}

fn simulate_hpa(c: &mut Criterion) {
    let hpa = hpa_week_request(SERVICES, 7);
    let explicit = hpa_week_explicit_request(SERVICES, 7);
    setup("week-10-deployments-hpa", &hpa);
    setup("week-10-deployments-scale-events", &explicit);
    let mut group = c.benchmark_group("simulate_hpa");
    group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(20)).warm_up_time(Duration::from_secs(1));
    group.bench_function("week-10-deployments-hpa", |b| b.iter(|| nodecast::simulate(black_box(&hpa))));
    group.bench_function("week-10-deployments-scale-events", |b| b.iter(|| nodecast::simulate(black_box(&explicit))));
    group.finish();
}

criterion_group!(benches, simulate_hpa);
criterion_main!(benches);
