use super::*;
use crate::json::{call, migrate, validate, Outcome, Request};

fn req(texts: &[&str]) -> Request {
    Request {
        inputs: texts.iter().enumerate().map(|(i, t)| Input { name: Some(format!("in{i}.yaml")), text: t.to_string() }).collect(),
        ..Default::default()
    }
}

fn ok(texts: &[&str]) -> Migration {
    match migrate(&req(texts)).outcome {
        Outcome::Success(m) => m,
        Outcome::Failure { errors } => panic!("{errors:?}"),
    }
}

fn example(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn seed() -> Vec<String> {
    vec![example("node-groups/eksctl-gpu.yaml"), example("workloads/eval-jobs-1gpu.yaml"), example("workloads/training-job-4gpu.yaml")]
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn seed_groups_become_valid_node_pools_that_place_every_pod() {
    let texts = seed();
    let m = ok(&refs(&texts));
    let names: Vec<&str> = m.node_pools.iter().map(|p| p.node_pool.as_str()).collect();
    assert_eq!(names, ["gpu-p3dn-24xlarge", "gpu-g5-xlarge", "gpu-g5-2xlarge", "gpu-p4d-24xlarge"]);
    let p4d = &m.node_pools[3];
    assert_eq!(p4d.instance_types, ["p4d.24xlarge"]);
    assert_eq!(p4d.capacity_type, "spot");
    assert_eq!(p4d.zones, ["us-east-1a", "us-east-1b", "us-east-1c"]);
    // 50 nodes of 96 vCPUs and 8 GPUs.
    assert_eq!(p4d.limits["cpu"], "4800");
    assert_eq!(p4d.limits["nvidia.com/gpu"], "400");
    assert_eq!(p4d.weight, None);
    assert_eq!(m.node_classes, ["gpu-cluster"]);
    assert!(m.manifests.contains("      - key: nvidia.com/gpu\n        value: \"true\"\n        effect: NoSchedule\n"), "{}", m.manifests);
    assert!(m.manifests.contains("        workload-type: training\n"));
    assert!(m.manifests.contains("    consolidateAfter: 10m\n"));
    // The proposal validates beside the workloads, as a user would apply it.
    let mut with = texts.clone();
    with.push(m.manifests.clone());
    match validate(&req(&refs(&with))).outcome {
        Outcome::Success(v) => assert_eq!(v.node_pools.len(), 4),
        Outcome::Failure { errors } => panic!("the proposal does not validate: {errors:?}"),
    }
    // Both autoscalers place the six pods: the Cluster Autoscaler in two loops (five
    // g5.2xlarge by least-waste, then p3dn.24xlarge for the training job); Karpenter, with
    // four NodePools of one weight, packs them onto p4d.24xlarge NodeClaims — dearer here.
    assert!(m.cluster_autoscaler.pending.is_empty() && m.karpenter.pending.is_empty());
    assert_eq!((m.cluster_autoscaler.pods_placed, m.karpenter.pods_placed), (6, 6));
    assert_eq!(m.cluster_autoscaler.nodes, 6);
    assert!(m.cluster_autoscaler.instance_types.iter().any(|t| t.instance_type == "p3dn.24xlarge"));
    assert_eq!(m.karpenter.nodes, 2);
    assert!(m.karpenter.instance_types.iter().all(|t| t.instance_type == "p4d.24xlarge"), "{:?}", m.karpenter);
    assert!(m.price_difference_per_hour > 0.0, "{m:?}");
    assert_eq!(m.price_difference_per_hour, crate::price::round_price(m.karpenter.price_per_hour - m.cluster_autoscaler.price_per_hour));
}

#[test]
fn priority_expander_becomes_weights() {
    let mut texts = seed();
    texts.push(example("node-groups/ca-settings.yaml"));
    let m = ok(&refs(&texts));
    let weights: Vec<(Option<i64>, Option<i64>)> = m.node_pools.iter().map(|p| (p.weight, p.priority)).collect();
    // p3dn matches only `.*` (10), the g5 groups `^gpu-g5-` (20), p4d `^gpu-p4d-` (50).
    assert_eq!(weights, [(Some(10), Some(10)), (Some(20), Some(20)), (Some(20), Some(20)), (Some(50), Some(50))]);
    assert!(m.manifests.contains("  weight: 50\n"));
    // Karpenter tries the heaviest NodePool first, as the expander prefers p4d.
    assert!(m.karpenter.instance_types.iter().all(|t| t.instance_type == "p4d.24xlarge"), "{:?}", m.karpenter);
}

#[test]
fn priorities_outside_karpenter_weights_become_ranks() {
    let cm = "apiVersion: nodecast/v1\nkind: ClusterAutoscalerSettings\nexpander: priority\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-autoscaler-priority-expander, namespace: kube-system}\ndata:\n  priorities: |-\n    1000:\n      - p4d\n    -5:\n      - g5\n";
    let mut texts = seed();
    texts.push(cm.into());
    let m = ok(&refs(&texts));
    let weights: Vec<Option<i64>> = m.node_pools.iter().map(|p| p.weight).collect();
    assert_eq!(weights, [None, Some(1), Some(1), Some(2)]);
    assert!(m.node_pools[0].notes.iter().any(|n| n.contains("no priority")));
    assert!(m.notes.iter().any(|n| n.contains("ranks")));
}

#[test]
fn what_is_not_carried_over_is_said() {
    let groups = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: My_Cluster}\nmanagedNodeGroups:\n- name: CPU_Workers\n  instanceTypes: [m5.large, m5.xlarge]\n  minSize: 2\n  maxSize: 10\n  desiredCapacity: 3\n  maxPodsPerNode: 58\n  labels: {team: ml, karpenter.sh/nodepool: x}\n";
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]}\n";
    let m = ok(&[groups, pod]);
    let p = &m.node_pools[0];
    assert_eq!(p.node_pool, "cpu-workers");
    assert_eq!(p.node_class, "my-cluster-max-pods-58");
    assert_eq!(p.capacity_type, "on-demand");
    // 10 nodes of m5.xlarge (4 vCPUs), the larger of the two types.
    assert_eq!(p.limits["cpu"], "40");
    assert!(!p.limits.contains_key("nvidia.com/gpu"));
    for needle in ["karpenter.sh/nodepool is not carried over", "minSize 2", "3 running node(s)", "first type"] {
        assert!(p.notes.iter().any(|n| n.contains(needle)), "{needle}: {:?}", p.notes);
    }
    assert!(m.manifests.contains("    maxPods: 58\n") && m.manifests.contains("        team: ml\n"));
    assert!(!m.manifests.contains("karpenter.sh/nodepool: x"));
    // The pod lands on a running node of the group for the Cluster Autoscaler, on a new
    // NodeClaim for Karpenter (it does not adopt the group's nodes).
    assert_eq!((m.cluster_autoscaler.nodes, m.karpenter.nodes), (0, 1));
    assert_eq!(m.cluster_autoscaler.pods_placed, 1);
}

#[test]
fn node_pools_in_the_input_are_refused_located() {
    let mut texts = seed();
    texts.push("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\nspec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}, requirements: []}}}\n".into());
    match migrate(&req(&refs(&texts))).outcome {
        Outcome::Failure { errors } => {
            assert_eq!(errors[0].code, "node-pools-given");
            assert_eq!(errors[0].object.as_deref(), Some("NodePool/x"));
        }
        Outcome::Success(_) => panic!("accepted"),
    }
    // No node groups at all: the Cluster Autoscaler's own error.
    match migrate(&req(&[&example("workloads/eval-jobs-1gpu.yaml")])).outcome {
        Outcome::Failure { errors } => assert_eq!(errors[0].code, "no-node-groups"),
        Outcome::Success(_) => panic!("accepted"),
    }
}

#[test]
fn names_scalars_and_durations() {
    assert_eq!(dns_name("--GPU_Pool.A--", 0), "gpu-pool-a");
    assert_eq!(dns_name("___", 2), "node-group-3");
    assert_eq!(dns_name(&"a".repeat(80), 0).len(), 63);
    let mut used = vec![];
    assert_eq!(unique("a".into(), &mut used), "a");
    assert_eq!(unique("a".into(), &mut used), "a-2");
    assert_eq!(unique("a".into(), &mut used), "a-3");
    assert_eq!(scalar("true"), "\"true\"");
    assert_eq!(scalar("50"), "\"50\"");
    assert_eq!(scalar("nvidia.com/gpu"), "nvidia.com/gpu");
    assert_eq!(scalar("a: b"), "\"a: b\"");
    assert_eq!(duration(600), "10m");
    assert_eq!(duration(5430), "1h30m30s");
    assert_eq!(duration(0), "0s");
}

#[test]
fn json_call_is_deterministic_and_names_the_kind() {
    let texts = seed();
    let body = serde_json::json!({"inputs": texts.iter().map(|t| serde_json::json!({"text": t})).collect::<Vec<_>>()}).to_string();
    let a = call("migrate", &body);
    assert_eq!(a, call("migrate", &body));
    let v: serde_json::Value = serde_json::from_str(&a).unwrap();
    assert_eq!((v["kind"].as_str(), v["status"].as_str()), (Some("Migration"), Some("success")), "{a}");
}
