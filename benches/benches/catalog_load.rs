//! Building the embedded AWS us-east-1 catalog (`nodecast::catalog::build(None)`), which every
//! request without an inline catalog pays once.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::time::Duration;

fn catalog_load(c: &mut Criterion) {
    let (cat, _) = nodecast::catalog::build(None).expect("embedded catalog");
    eprintln!("[setup] catalog_load: {} instance types", cat.types.len());
    let mut group = c.benchmark_group("catalog_load");
    group.sample_size(20).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    group.bench_function("aws-us-east-1", |b| b.iter(|| nodecast::catalog::build(black_box(None))));
    group.finish();
}

criterion_group!(benches, catalog_load);
criterion_main!(benches);
