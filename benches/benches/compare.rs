//! Issue 34: the side by side (`nodecast simulate --compare cluster-autoscaler`) on the README's
//! worked example: the seed's four GPU node groups (eksctl) and half a day of training and
//! evaluation Jobs (examples/node-groups/gpu-day.yaml), simulated under the Cluster Autoscaler's
//! scan loop and under `migrate`'s NodePools with Karpenter. The comparison is both runs plus the
//! migration proposal, so it is timed beside Karpenter's run alone over the same NodePools.

use criterion::{black_box, criterion_group, criterion_main, Criterion, SamplingMode};
use nodecast::json::Autoscaler;
use nodecast::{Input, Outcome, Request};
use std::time::Duration;

const FILES: [(&str, &str); 3] = [
    ("eksctl-gpu.yaml", include_str!("../../examples/node-groups/eksctl-gpu.yaml")),
    ("eval-jobs-1gpu.yaml", include_str!("../../examples/workloads/eval-jobs-1gpu.yaml")),
    ("training-job-4gpu.yaml", include_str!("../../examples/workloads/training-job-4gpu.yaml")),
];
const TRACE: &str = include_str!("../../examples/node-groups/gpu-day.yaml");

fn request(inputs: Vec<Input>, compare: Option<Autoscaler>) -> Request {
    Request {
        inputs,
        trace: Some(nodecast::simulate::TraceInput { name: Some("gpu-day.yaml".into()), text: TRACE.into(), format: None }),
        compare,
        ..Default::default()
    }
}

fn compare(c: &mut Criterion) {
    let groups: Vec<Input> = FILES.iter().map(|(name, text)| Input { name: Some(name.to_string()), text: text.to_string() }).collect();
    let side_by_side = request(groups.clone(), Some(Autoscaler::ClusterAutoscaler));
    // Karpenter alone over migrate's NodePools (the Comparison's own proposal) and the workloads.
    let (karpenter_alone, summary) = match &nodecast::json::compare(&side_by_side).outcome {
        Outcome::Success(cmp) => {
            let migration = cmp.migration.as_ref().expect("no NodePools in the inputs: Karpenter runs migrate's");
            let mut inputs = vec![Input { name: Some("migrated.yaml".into()), text: migration.manifests.clone() }];
            inputs.extend(groups.iter().skip(1).cloned());
            let sides: Vec<String> =
                cmp.sides.iter().map(|s| format!("{} ${:.2} ({} launched)", s.autoscaler.as_str(), s.cost_usd, s.nodes_launched)).collect();
            (request(inputs, None), sides.join(", "))
        }
        Outcome::Failure { errors } => panic!("benchmark request rejected: {errors:?}"),
    };
    match &nodecast::simulate(&karpenter_alone).outcome {
        Outcome::Success(s) => println!(
            "[setup] compare/gpu-day: {summary}; Karpenter alone ${:.2} ({} launched)",
            s.summary.cost_usd, s.summary.launches.total
        ),
        Outcome::Failure { errors } => panic!("Karpenter-alone request rejected: {errors:?}"),
    }
    let mut group = c.benchmark_group("compare");
    group.sample_size(10).sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(10)).warm_up_time(Duration::from_secs(1));
    group.bench_function("gpu-day-side-by-side", |b| b.iter(|| nodecast::json::compare(black_box(&side_by_side))));
    group.bench_function("gpu-day-karpenter-alone", |b| b.iter(|| nodecast::simulate(black_box(&karpenter_alone))));
    group.finish();
}

criterion_group!(benches, compare);
criterion_main!(benches);
