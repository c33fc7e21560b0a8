//! Building the embedded AWS catalogs (`nodecast::internal::catalog::build`), which every request without
//! an inline catalog pays once: the default us-east-1 (1345 types) and the largest other
//! embedded region, us-gov-west-1 (750 types; its base is built on first use like us-east-1's).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use serde_json::json;
use std::time::Duration;

fn catalog_load(c: &mut Criterion) {
    let gov = json!("aws-us-gov-west-1");
    // The first call of each region decodes the embedded tables (once per process, shared by the
    // regions) and builds that region's base: what a fresh CLI or wasm instance pays once. It
    // cannot be repeated in one process (the bases are `OnceLock`s), so it is timed once here,
    // and the measured loop below is the per-request cost every later call pays.
    for spec in [None, Some(&gov)] {
        let start = std::time::Instant::now();
        let (cat, _) = nodecast::internal::catalog::build(spec).expect("embedded catalog");
        let first = start.elapsed();
        eprintln!(
            "[setup] catalog_load: {}: {} instance types; first call (decode + base) {:.2} ms",
            cat.source,
            cat.types.len(),
            first.as_secs_f64() * 1e3
        );
    }
    let mut group = c.benchmark_group("catalog_load");
    group.sample_size(20).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    group.bench_function("aws-us-east-1", |b| b.iter(|| nodecast::internal::catalog::build(black_box(None))));
    group.bench_function("aws-us-gov-west-1", |b| b.iter(|| nodecast::internal::catalog::build(black_box(Some(&gov)))));
    group.finish();
}

criterion_group!(benches, catalog_load);
criterion_main!(benches);
