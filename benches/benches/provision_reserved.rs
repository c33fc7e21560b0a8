//! The provisioning pass with 100 capacity reservations vs none (issue 38): the GPU input of
//! `provision_gpu` (`pods/N`: the example GPU NodePools without limits, N GPU pods), its
//! EC2NodeClasses selecting reservations by tag. The same pods and pools in both cases; only the
//! reservations document differs.
//!
//! `none/N`: no reservations. `reserved100/N`: 100 ODCRs and capacity blocks over ten GPU types
//! and three zones, 0–3 instances free each, the NodePools allowing `reserved` (so pods launch
//! into them and Karpenter's pessimistic reservation defers the pods whose reservations other
//! NodeClaims hold). `offered-unused100/N`: the same reservations selected and offered, the
//! NodePools not allowing `reserved` (the cost of the offerings alone). `ample100/N`: the same
//! 100 reservations with 100,000 free instances each, so no pod is deferred and every pod is
//! placed as in `none` (the comparable case for launching into reservations).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use nodecast::Request;
use std::time::Duration;

fn provision_reserved(c: &mut Criterion) {
    let mut group = c.benchmark_group("provision_reserved");
    group.warm_up_time(Duration::from_secs(1)).sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(6));
    let cases: [(&str, fn(usize) -> Request); 5] = [
        ("none", |n| nodecast_benches::reserved_request(n, 0, true)),
        ("reserved100", |n| nodecast_benches::reserved_request(n, 100, true)),
        ("ample100", |n| nodecast_benches::reserved_request_sized(n, 100, true, Some(nodecast_benches::AMPLE_RESERVATION))),
        ("none-unreserved", |n| nodecast_benches::reserved_request(n, 0, false)),
        ("offered-unused100", |n| nodecast_benches::reserved_request(n, 100, false)),
    ];
    for n in [1000, 10_000] {
        for (label, make) in cases {
            let req = make(n);
            nodecast_benches::report(&format!("provision_reserved/{label}/{n}"), &req);
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::new(label, n), &req, |b, req| b.iter(|| nodecast::plan(black_box(req))));
        }
    }
    group.finish();
}

/// `ample100` against `none` for the 10 % target, interleaved: on the shared machine the load
/// moves within a run, so the two cases alternate, several rounds each
/// (`provision_reserved_interleaved/{none,ample100}-rN/{1000,10000}`); compare each round's pair.
fn provision_reserved_interleaved(c: &mut Criterion) {
    let mut group = c.benchmark_group("provision_reserved_interleaved");
    group.warm_up_time(Duration::from_secs(1)).sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(4));
    for (n, rounds) in [(1000, 5), (10_000, 3)] {
        let none = nodecast_benches::reserved_request(n, 0, true);
        let ample = nodecast_benches::reserved_request_sized(n, 100, true, Some(nodecast_benches::AMPLE_RESERVATION));
        for round in 1..=rounds {
            for (label, req) in [("none", &none), ("ample100", &ample)] {
                group.throughput(Throughput::Elements(n as u64));
                group.bench_with_input(BenchmarkId::new(format!("{label}-r{round}"), n), req, |b, req| {
                    b.iter(|| nodecast::plan(black_box(req)))
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, provision_reserved, provision_reserved_interleaved);
criterion_main!(benches);
