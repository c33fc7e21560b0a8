use super::*;
use crate::manifest::decode;

fn read_text(text: &str) -> Result<NodeGroupInput, Vec<InputError>> {
    let docs = decode(text, Some("in.yaml")).expect("decodes");
    read(&docs)
}

const EKSCTL: &str = r#"
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: c1, region: us-east-1}
availabilityZones: [us-east-1b, us-east-1c]
managedNodeGroups:
- name: gpu
  instanceTypes: [g5.xlarge, g5.2xlarge]
  spot: true
  minSize: 0
  maxSize: 50
  labels: {workload-type: training}
  taints: [{key: nvidia.com/gpu, value: "true", effect: NoSchedule}]
  tags: {team: ml}
- name: plain
  instanceType: m5.large
nodeGroups:
- name: self
  instanceType: mixed
  instancesDistribution: {instanceTypes: [c5.large], onDemandBaseCapacity: 0, onDemandPercentageAboveBaseCapacity: 0}
  minSize: 1
  maxSize: 3
  propagateASGTags: true
  labels: {role: batch}
  availabilityZones: [us-east-1a]
"#;

#[test]
fn eksctl_groups_with_eksctl_defaults() {
    let input = read_text(EKSCTL).unwrap();
    assert_eq!(input.groups.len(), 3);
    let gpu = &input.groups[0];
    assert!(gpu.managed && gpu.spot);
    assert_eq!(gpu.instance_types, vec!["g5.xlarge", "g5.2xlarge"]);
    assert_eq!((gpu.min_size, gpu.max_size, gpu.desired), (0, 50, 0), "desired defaults to minSize");
    assert_eq!(gpu.zones, vec!["us-east-1b", "us-east-1c"], "the cluster's zones");
    assert_eq!(gpu.taints[0].to_string(), "nvidia.com/gpu=true:NoSchedule");
    assert!(gpu.asg_tags.is_empty(), "a managed group's tags stay on the EKS node group without propagateASGTags");
    assert_eq!(gpu.group_tags, vec![("team".to_string(), "ml".to_string())]);
    assert_eq!(gpu.location.path, "managedNodeGroups[0]");
    let plain = &input.groups[1];
    assert_eq!((plain.min_size, plain.max_size, plain.desired), (2, 2, 2), "eksctl's default node count");
    let selfm = &input.groups[2];
    assert!(!selfm.managed && selfm.spot, "0 on-demand above a base of 0: all spot");
    assert_eq!(selfm.instance_types, vec!["c5.large"]);
    assert_eq!(selfm.desired, 1);
    assert!(selfm.asg_tags.contains(&("k8s.io/cluster-autoscaler/node-template/label/role".into(), "batch".into())));
}

#[test]
fn eksctl_errors_are_located() {
    let text = r#"
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: c1}
managedNodeGroups:
- name: a
  instanceType: g5.xlarge
  minSize: 5
  maxSize: 2
- name: b
  instanceType: g5.xlarge
  taints: [{key: k, effect: Sometimes}]
- name: c
  instanceSelector: {vCPUs: 4}
  instanceType: m5.large
- name: d
"#;
    let errs = read_text(text).unwrap_err();
    let find = |code: &str| errs.iter().find(|e| e.code == code).unwrap_or_else(|| panic!("{code} in {errs:?}"));
    assert_eq!(find("invalid-size").path.as_deref(), Some("managedNodeGroups[0]"));
    assert_eq!(find("invalid-taint-effect").path.as_deref(), Some("managedNodeGroups[1].taints[0].effect"));
    assert_eq!(find("not-modelled").path.as_deref(), Some("managedNodeGroups[2].instanceSelector"));
    let req = find("required");
    assert_eq!(req.path.as_deref(), Some("managedNodeGroups[3]"));
    assert_eq!(req.object.as_deref(), Some("ClusterConfig/c1"));
    assert_eq!(req.source.as_deref(), Some("in.yaml"));
}

#[test]
fn terraform_show_json_node_groups_in_child_modules() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/node-groups/terraform-show.json")).unwrap();
    let input = read_text(&text).unwrap();
    let g = &input.groups[0];
    assert_eq!(g.name, "gpu-20261128");
    assert_eq!(g.cluster, "ephemeral-gpu");
    assert!(g.managed && g.spot);
    assert_eq!((g.min_size, g.max_size, g.desired), (0, 50, 0));
    assert_eq!(g.taints[0].to_string(), "nvidia.com/gpu=true:NoSchedule", "NO_SCHEDULE is EKS's spelling");
    assert!(g.location.object.starts_with("terraform/module.eks.module.eks_managed_node_group"));
    let bad = text.replace("\"SPOT\"", "\"CHEAP\"");
    let errs = read_text(&bad).unwrap_err();
    assert_eq!(errs[0].code, "invalid-capacity-type");
    assert!(errs[0].path.as_deref().unwrap().ends_with("values.capacity_type"), "{:?}", errs[0].path);
}

#[test]
fn settings_and_priorities() {
    let text = r#"
apiVersion: nodecast/v1
kind: ClusterAutoscalerSettings
expander: priority,least-waste
maxNodesPerScaleUp: 10
scaleDownUnneededTime: 5m
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cluster-autoscaler-priority-expander, namespace: kube-system}
data:
  priorities: |-
    10:
      - .*
    50:
      - ^gpu-.*
"#;
    let input = read_text(text).unwrap();
    let s = &input.settings;
    assert_eq!(s.expanders, vec![Expander::Priority, Expander::LeastWaste]);
    assert_eq!(s.max_nodes_per_scale_up, 10);
    assert_eq!(s.scale_down_unneeded_time, 300);
    assert!(s.scale_down_given);
    let p = s.priorities.as_ref().unwrap();
    assert_eq!(p.iter().map(|r| r.priority).collect::<Vec<_>>(), vec![50, 10], "highest first");
    assert!(p[0].patterns[0].is_match("gpu-a"));
}

#[test]
fn settings_errors() {
    let text = r#"
apiVersion: nodecast/v1
kind: ClusterAutoscalerSettings
expander: price
maxNodesPerScaleUp: 0
scaleDownGpuUtilizationThreshold: 2
colour: blue
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cluster-autoscaler-priority-expander}
data:
  priorities: |-
    10: ["(unclosed"]
"#;
    let errs = read_text(text).unwrap_err();
    let codes: Vec<&str> = errs.iter().map(|e| e.code.as_str()).collect();
    for c in ["not-available", "out-of-range", "unknown-field", "invalid-regex"] {
        assert!(codes.contains(&c), "{c} in {codes:?}");
    }
    assert!(errs.iter().any(|e| e.path.as_deref() == Some("colour")));
    assert!(errs.iter().any(|e| e.path.as_deref() == Some("data.priorities") && e.document == Some(1)));
}
