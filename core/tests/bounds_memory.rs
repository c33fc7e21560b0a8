//! Peak memory of the worst shape issue 17 found: 10,000 NodePools and 1,001 pods in one input
//! (a 3.9 MB file that peaked near 10 GB and aborted). The test binary counts every allocation
//! (its own global allocator), so the peak is measured, not estimated; the README states the
//! bound this test holds ("Bounds").
//!
//! One test per binary on purpose: the counter is process-wide.

use nodecast::{Cluster, Input, Settings};

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::peak_of;

fn pools(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: np{i}}}\nspec:\n  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n      requirements: []\n"
            )
        })
        .collect()
}

fn pods(n: usize) -> String {
    (0..n)
        .map(|i| format!("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec: {{containers: [{{name: c, resources: {{requests: {{cpu: {}m}}}}}}]}}\n", 100 + i))
        .collect()
}

const MB: usize = 1 << 20;

/// The stated bound (README, "Bounds"): peak heap ≤ 256 MB + 64 × input bytes + 128 bytes per
/// NodePool × catalog instance type, the product itself capped at
/// `nodecast::internal::lower::MAX_POOL_TYPE_PAIRS` (refused before any scheduling work).
fn stated_bound(input_bytes: usize, pools: usize, types: usize) -> usize {
    256 * MB + 64 * input_bytes + 128 * pools.min(nodecast::internal::lower::MAX_POOL_TYPE_PAIRS / types) * types
}

const AWS_TYPES: usize = 1345;

/// Plans `pools` NodePools with `pod_count` pods; returns (answer status, peak bytes, input bytes).
fn measure(pools_n: usize, pod_count: usize) -> (String, usize, usize) {
    let inputs = vec![
        Input { name: Some("pools.yaml".into()), text: pools(pools_n) },
        Input { name: Some("pods.yaml".into()), text: pods(pod_count) },
    ];
    let bytes: usize = inputs.iter().map(|i| i.text.len()).sum();
    let settings = Settings::default();
    let ((status, detail), peak) = peak_of(|| match Cluster::from_texts(&inputs, &settings) {
        Ok(cluster) => {
            let plan = cluster.plan();
            let placed: usize = plan.node_claims.iter().map(|c| c.pods.len()).sum();
            assert_eq!(placed + plan.unschedulable.len(), pod_count);
            ("planned".to_string(), String::new())
        }
        Err(errors) => (errors[0].code.clone(), format!("{:?}", errors[0])),
    });
    eprintln!("{pools_n} NodePools + {pod_count} pods ({bytes} input bytes): {status}, peak heap {} MB {detail}", peak / MB);
    (status, peak, bytes)
}

#[test]
fn nodepools_times_types_are_bounded_and_the_peak_stays_under_the_stated_bound() {
    // Before: 10,000 NodePools + 1,001 pods peaked near 10 GB (issue 17) and, on this code
    // before the bound, at 1.5 GB RSS after 25 s. Now: refused before scheduling, located.
    let (status, peak, bytes) = measure(10_000, 1001);
    assert_eq!(status, "too-many-nodepools");
    assert!(peak <= 256 * MB + 64 * bytes, "refusal peaked at {} MB", peak / MB);
    // The most the bound lets through on the AWS catalog plans, within the stated bound.
    let most = nodecast::internal::lower::MAX_POOL_TYPE_PAIRS / AWS_TYPES;
    let (status, peak, bytes) = measure(most, 1001);
    assert_eq!(status, "planned");
    let bound = stated_bound(bytes, most, AWS_TYPES);
    assert!(peak <= bound, "peak {} MB above the stated bound {} MB", peak / MB, bound / MB);
    // One more NodePool is refused.
    assert_eq!(measure(most + 1, 1).0, "too-many-nodepools");
}
