//! NodePool minValues inside the model: an optimised NodeClaim keeps at least minValues
//! instance types among those that hold its pods, as Karpenter requires before it launches.

use super::solved;
use crate::json::{Input, Request};
use crate::model::MinValuesPolicy;
use crate::optimize::*;

fn request(min_values: Option<u32>, policy: Option<MinValuesPolicy>) -> Request {
    let mv = min_values.map_or(String::new(), |n| format!(", minValues: {n}"));
    let text = format!(
        r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: gpu}}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements:
      - {{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}}
      - {{key: node.kubernetes.io/instance-type, operator: Exists{mv}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: eval, namespace: ml}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: eval}}}}
  template:
    metadata: {{labels: {{app: eval}}}}
    spec:
      containers:
      - {{name: c, image: c, resources: {{requests: {{cpu: "6", memory: 12Gi}}, limits: {{nvidia.com/gpu: "1"}}}}}}
"#
    );
    let mut req =
        Request { inputs: vec![Input { name: Some("t.yaml".into()), text }], catalog: Some(gen::catalog()), ..Default::default() };
    if let Some(p) = policy {
        req.settings.min_values_policy = p;
    }
    req
}

#[test]
fn min_values_keeps_each_claim_flexible_enough() {
    // Two 1-GPU pods of 6 vCPU: together they fit a 2-GPU node ($2.10/h), but only three types
    // (2x, 4x, 8x) hold both, below minValues 4; alone, four types hold one (1x-big, 2x, 4x,
    // 8x). So each pod gets its own NodeClaim, the cheapest a 1x-big ($1.60/h): $3.20/h, as
    // Karpenter plans it. (Before, the optimum answered the 2-GPU node, which Karpenter would
    // refuse to launch.)
    let o = solved(&request(Some(4), None));
    assert_eq!(o.kept_pods, 0, "{:?}", o.not_optimised);
    assert!((o.optimum_price_per_hour - 3.2).abs() < 1e-9, "{o:?}");
    assert!(o.node_claims.iter().all(|c| c.pods.len() == 1), "{o:?}");
    assert_eq!(o.certificate, "optimal");
    assert!(o.not_optimised.iter().all(|n| !n.contains("minValues")), "{:?}", o.not_optimised);
}

#[test]
fn without_min_values_or_under_best_effort_the_pods_share_a_node() {
    for req in [request(None, None), request(Some(4), Some(MinValuesPolicy::BestEffort))] {
        let o = solved(&req);
        assert!((o.optimum_price_per_hour - 2.1).abs() < 1e-9, "{o:?}");
        assert_eq!(o.node_claims.len(), 1);
    }
}

#[test]
fn min_values_three_lets_two_pods_share() {
    // minValues 3: the 2x, 4x and 8x types hold both pods, enough; one 2-GPU node.
    let o = solved(&request(Some(3), None));
    assert!((o.optimum_price_per_hour - 2.1).abs() < 1e-9, "{o:?}");
    assert_eq!(o.certificate, "optimal");
}
