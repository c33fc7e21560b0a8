//! The DRA allocator (`--ignore-dra-requests=false`, issue 28).

use super::*;

/// `pods` pods over `templates` ResourceClaimTemplates (round robin), each template 8
/// one-device requests over an `allNodes` ResourceSlice of 7 devices, one NodePool open to the
/// whole embedded catalog: every device search fails after 95,900 steps (the worst input under
/// the per-search bound), and every instance type is a candidate of every new NodeClaim.
pub fn dra_hostile_request(pods: usize, templates: usize) -> Request {
    let devices: String = (0..7).map(|i| format!("  - name: nic-{i}\n")).collect();
    let requests: String = (0..8).map(|i| format!("      - name: r{i}\n        exactly: {{deviceClassName: nic}}\n")).collect();
    let mut text = format!(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: general}}\nspec:\n  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n      requirements: []\n---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: nic}}\nspec:\n  selectors:\n  - cel: {{expression: 'device.driver == \"example.com\"'}}\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {{name: shared}}\nspec:\n  driver: example.com\n  pool: {{name: shared, generation: 1, resourceSliceCount: 1}}\n  allNodes: true\n  devices:\n{devices}"
    );
    for t in 0..templates {
        text += &format!("---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {{name: t{t}, namespace: default}}\nspec:\n  spec:\n    devices:\n      requests:\n{requests}");
    }
    for p in 0..pods {
        text += &format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{p}, namespace: default}}\nspec:\n  resourceClaims: [{{name: nics, resourceClaimTemplateName: t{}}}]\n  containers:\n  - {{name: c, image: x, resources: {{requests: {{cpu: \"1\"}}, claims: [{{name: nics}}]}}}}\n",
            p % templates.max(1)
        );
    }
    let mut req = Request { inputs: vec![nodecast::Input { name: Some("dra-hostile.yaml".into()), text }], ..Default::default() };
    req.settings.ignore_dra_requests = false;
    req
}

/// `pods` copies of examples/dra/gpu-dra.yaml's pod (one A10G with 20Gi through a claim
/// template) on examples/nodepools/gpu-inference.yaml without its limits, with the AWS
/// provider's DRANVIDIAGPU gate: the allocator's ordinary path (each NodeClaim's GPUs taken
/// pod by pod).
pub fn dra_gpu_request(pods: usize) -> Request {
    let example = include_str!("../../examples/dra/gpu-dra.yaml");
    let cut = example.find("# Pod \"dra-inference\"").expect("the example's pod");
    let (objects, pod) = example.split_at(cut);
    let mut text = objects.to_string();
    for p in 0..pods {
        text += &pod.replace("name: dra-inference", &format!("name: dra-inference-{p}"));
        text += "\n---\n";
    }
    let pool = without_limits(include_str!("../../examples/nodepools/gpu-inference.yaml"));
    let mut req = Request {
        inputs: vec![
            nodecast::Input { name: Some("gpu-inference.yaml".into()), text: pool },
            nodecast::Input { name: Some("gpu-dra.yaml".into()), text },
        ],
        ..Default::default()
    };
    req.settings.ignore_dra_requests = false;
    req.settings.aws_feature_gates.apply("DRANVIDIAGPU=true").expect("a known gate");
    req
}
