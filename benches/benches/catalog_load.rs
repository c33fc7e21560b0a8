//! Building the embedded AWS catalogs (`nodecast::catalog::build`), which every request without
//! an inline catalog pays once: the default us-east-1 (1345 types) and the largest other
//! embedded region, us-gov-west-1 (750 types; its base is built on first use like us-east-1's).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use serde_json::json;
use std::time::Duration;

fn catalog_load(c: &mut Criterion) {
    let gov = json!("aws-us-gov-west-1");
    for spec in [None, Some(&gov)] {
        let (cat, _) = nodecast::catalog::build(spec).expect("embedded catalog");
        eprintln!("[setup] catalog_load: {}: {} instance types", cat.source, cat.types.len());
    }
    let mut group = c.benchmark_group("catalog_load");
    group.sample_size(20).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    group.bench_function("aws-us-east-1", |b| b.iter(|| nodecast::catalog::build(black_box(None))));
    group.bench_function("aws-us-gov-west-1", |b| b.iter(|| nodecast::catalog::build(black_box(Some(&gov)))));
    group.finish();
}

criterion_group!(benches, catalog_load);
criterion_main!(benches);
