//! `nodecast::plan` end to end (decode, validate, lower, solve, render) on Karpenter's
//! scheduling-benchmark shape: 400 synthetic instance types, one NodePool, pods split into
//! generic / zone spread / hostname spread / zone self-affinity / hostname self anti-affinity.
//!
//! `provision_diverse/N`: the pods of each kind form apps of 10-50 replicas (one `app` label
//! per app, selected by that app's constraints).
//! `provision_diverse/one-app/N`: every pod of a kind shares one `app` label, as Karpenter's
//! own benchmark does for its anti-affinity pods: N/5 hostname anti-affinity pods then need N/5
//! NodeClaims, which is the expensive shape for the scheduler and the renderer.
//! `provision_diverse/hostname-{anti,spread}/N`: all N pods carry hostname self anti-affinity
//! (hostname spread, maxSkew 1) on one label, so each needs its own NodeClaim.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use nodecast::Request;
use std::time::Duration;

fn bench(c: &mut Criterion, label: Option<&str>, sizes: &[usize], make: fn(usize) -> Request) {
    let mut group = c.benchmark_group("provision_diverse");
    group.warm_up_time(Duration::from_secs(1));
    for &n in sizes {
        let req = make(n);
        let id = match label {
            Some(l) => BenchmarkId::new(l, n),
            None => BenchmarkId::from_parameter(n),
        };
        nodecast_benches::report(&format!("provision_diverse/{}{n}", label.map(|l| format!("{l}/")).unwrap_or_default()), &req);
        if n >= 10_000 {
            // Criterion's minimum of 10 samples, one pass each: these take tens to hundreds of ms.
            group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(5));
        } else if n >= 1000 {
            group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(8));
        } else {
            group.sample_size(20).sampling_mode(SamplingMode::Auto).measurement_time(Duration::from_secs(4));
        }
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(id, &req, |b, req| b.iter(|| nodecast::plan(black_box(req))));
    }
    group.finish();
}

fn provision_diverse(c: &mut Criterion) {
    // Karpenter's benchmark sizes (scheduling_benchmark_test.go) plus 20,000, the target.
    bench(c, None, &[1, 100, 1000, 5000, 10_000, 20_000], nodecast_benches::diverse_request);
    bench(c, Some("one-app"), &[1000, 5000], nodecast_benches::diverse_request_one_app);
    // Every pod with hostname self anti-affinity (or hostname spread) on one label: one
    // NodeClaim per pod, the case that was quadratic in the claim scan (issue 21).
    bench(c, Some("hostname-anti"), &[5000, 20_000], |n| nodecast_benches::hostname_request(n, true));
    bench(c, Some("hostname-spread"), &[5000, 20_000], |n| nodecast_benches::hostname_request(n, false));
}

criterion_group!(benches, provision_diverse);
criterion_main!(benches);
