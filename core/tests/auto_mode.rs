//! EKS Auto Mode (issue 31): NodePools on `eks.amazonaws.com/v1` NodeClasses, the built-in
//! `general-purpose` and `system` NodePools a cluster document enables, Auto Mode's instance
//! restrictions, its labels and its node facts (110 pods, ephemeral storage).

use nodecast::api::Plan;
use nodecast::error::InputError;
use nodecast::{Input, Outcome, Request};

const CLUSTER_BOTH: &str = r#"{"cluster": {"name": "c", "computeConfig": {"enabled": true, "nodePools": ["general-purpose", "system"]}}}"#;

fn request(texts: &[&str]) -> Request {
    let inputs = texts.iter().enumerate().map(|(i, t)| Input { name: Some(format!("in-{i}.yaml")), text: t.to_string() }).collect();
    Request { inputs, ..Default::default() }
}

fn plan(texts: &[&str]) -> Plan {
    match nodecast::plan(&request(texts)).outcome {
        Outcome::Success(p) => p,
        Outcome::Failure { errors } => panic!("plan failed: {errors:#?}"),
    }
}

fn errors(texts: &[&str]) -> Vec<InputError> {
    match nodecast::plan(&request(texts)).outcome {
        Outcome::Success(p) => panic!("expected errors, planned {:?}", p.node_claims),
        Outcome::Failure { errors } => errors,
    }
}

fn pod(name: &str, cpu: &str, extra: &str) -> String {
    format!(
        "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n{extra}  containers:\n  - {{name: c, image: x, resources: {{requests: {{cpu: \"{cpu}\", memory: 1Gi}}}}}}\n"
    )
}

fn auto_pool(name: &str, class: &str, reqs: &str) -> String {
    format!(
        "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: {name}}}\nspec:\n  template:\n    spec:\n      nodeClassRef: {{group: eks.amazonaws.com, kind: NodeClass, name: {class}}}\n      requirements: {reqs}\n"
    )
}

fn auto_class(name: &str, size: &str) -> String {
    format!(
        "---\napiVersion: eks.amazonaws.com/v1\nkind: NodeClass\nmetadata: {{name: {name}}}\nspec:\n  role: R\n  subnetSelectorTerms: [{{tags: {{a: b}}}}]\n  securityGroupSelectorTerms: [{{tags: {{a: b}}}}]\n  ephemeralStorage: {{size: {size}}}\n"
    )
}

fn label<'a>(p: &'a Plan, i: usize, key: &str) -> Option<&'a str> {
    p.node_claims[i].labels.get(key).map(String::as_str)
}

#[test]
fn built_in_general_purpose_pool_launches_c_m_r_gen5_on_demand_amd64() {
    let p = plan(&[CLUSTER_BOTH, &pod("web", "1", "")]);
    assert_eq!(p.node_claims.len(), 1);
    let c = &p.node_claims[0];
    assert_eq!(c.node_pool, "general-purpose");
    assert_eq!(c.capacity_type.as_deref(), Some("on-demand"));
    assert_eq!(label(&p, 0, "eks.amazonaws.com/compute-type"), Some("auto"));
    assert_eq!(label(&p, 0, "eks.amazonaws.com/nodeclass"), Some("default"));
    assert_eq!(label(&p, 0, "kubernetes.io/arch"), Some("amd64"));
    let it = c.instance_type.as_deref().unwrap();
    assert!(matches!(&it[..1], "c" | "m" | "r"), "{it}");
    let generation: u32 = label(&p, 0, "karpenter.k8s.aws/instance-generation").unwrap().parse().unwrap();
    assert!(generation >= 5, "{it}");
    // Every option of the NodeClaim obeys the same rules.
    for o in c.instance_type_options.iter() {
        assert!(matches!(&o[..1], "c" | "m" | "r") && !o.contains(".nano") && !o.contains(".micro"), "{o}");
    }
    assert!(p.warnings.iter().any(|w| w.code == "auto-mode-fee-not-included"), "{:?}", p.warnings);
}

#[test]
fn system_pool_takes_critical_addons_on_arm64_too() {
    let tolerate = "  tolerations: [{key: CriticalAddonsOnly, operator: Exists}]\n  nodeSelector: {kubernetes.io/arch: arm64}\n";
    let p = plan(&[CLUSTER_BOTH, &pod("coredns", "1", tolerate)]);
    assert_eq!(p.node_claims[0].node_pool, "system");
    assert_eq!(label(&p, 0, "kubernetes.io/arch"), Some("arm64"));
    // Only general-purpose enabled: no pool takes arm64.
    let gp = r#"{"computeConfig": {"enabled": true, "nodePools": ["general-purpose"]}}"#;
    let p = plan(&[gp, &pod("coredns", "1", tolerate)]);
    assert!(p.node_claims.is_empty());
    assert_eq!(p.unschedulable.len(), 1);
}

#[test]
fn eks_labels_select_like_the_aws_provider_labels() {
    let reqs = "[{key: eks.amazonaws.com/instance-gpu-name, operator: In, values: [l4]}, {key: eks.amazonaws.com/instance-gpu-count, operator: In, values: [\"1\"]}]";
    let gpu = "  tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n  nodeSelector: {eks.amazonaws.com/compute-type: auto}\n";
    let text = format!("{}{}", auto_pool("gpu", "gpu", reqs), auto_class("gpu", "200Gi"));
    let p = plan(&[&text, &pod("infer", "2", gpu).replace("memory: 1Gi", "memory: 1Gi, nvidia.com/gpu: \"1\"")]);
    let c = &p.node_claims[0];
    assert!(c.instance_type.as_deref().unwrap().starts_with("g6."), "{:?}", c.instance_type);
    assert_eq!(label(&p, 0, "karpenter.k8s.aws/instance-gpu-name"), Some("l4"));
    // g6.xlarge's 250 GB of local NVMe is more than the NodeClass's 200Gi: Auto Mode uses it
    // (size − 1Gi kube-reserved − 10 % eviction, in bytes).
    assert_eq!(c.instance_type.as_deref(), Some("g6.xlarge"));
    let (gi, nvme) = (1u64 << 30, 250_000_000_000u64);
    let ephemeral = |p: &Plan| p.node_claims[0].allocatable.get("ephemeral-storage").cloned();
    assert_eq!(ephemeral(&p), Some((nvme - gi - nvme.div_ceil(10)).to_string()), "{:?}", c.allocatable);
    // 300Gi is more than the NVMe: the EBS volume of the NodeClass's size.
    let text = format!("{}{}", auto_pool("gpu", "gpu", reqs), auto_class("gpu", "300Gi"));
    let p = plan(&[&text, &pod("infer", "2", gpu).replace("memory: 1Gi", "memory: 1Gi, nvidia.com/gpu: \"1\"")]);
    assert_eq!(ephemeral(&p).as_deref(), Some("269Gi"), "300Gi − 1Gi − 30Gi");
    // A pod selecting an Auto Mode label key is placed by it too.
    let sel = "  nodeSelector: {eks.amazonaws.com/instance-category: m}\n";
    let p = plan(&[CLUSTER_BOTH, &pod("m-only", "1", sel)]);
    assert!(p.node_claims[0].instance_type.as_deref().unwrap().starts_with('m'), "{:?}", p.node_claims[0].instance_type);
}

#[test]
fn auto_mode_restrictions_and_pod_cap() {
    // t3.micro has 2 vCPUs but a micro size: Auto Mode launches t3.medium where Karpenter with an
    // EC2NodeClass takes the cheaper t3.micro.
    let types = "[{key: node.kubernetes.io/instance-type, operator: In, values: [t3.micro, t3.medium]}, {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]";
    let small = pod("small", "100m", "").replace("memory: 1Gi", "memory: 100Mi");
    let p = plan(&[&auto_pool("a", "x", types), &small]);
    assert_eq!(p.node_claims[0].instance_type.as_deref(), Some("t3.medium"));
    let oss =
        auto_pool("o", "x", types).replace("group: eks.amazonaws.com, kind: NodeClass", "group: karpenter.k8s.aws, kind: EC2NodeClass");
    let p = plan(&[&oss, &small]);
    assert_eq!(p.node_claims[0].instance_type.as_deref(), Some("t3.micro"));
    assert!(p.warnings.iter().all(|w| w.code != "auto-mode-fee-not-included"));
    // A family outside Auto Mode's list (a1) leaves the pool nothing to launch.
    let a1 = "[{key: karpenter.k8s.aws/instance-family, operator: In, values: [a1]}]";
    let p = plan(&[&auto_pool("a", "x", a1), &pod("small", "100m", "")]);
    assert!(p.node_claims.is_empty());
    // At most 110 pods a node on an Auto Mode NodeClass (m5.24xlarge's ENI limit is 737).
    let big = "[{key: node.kubernetes.io/instance-type, operator: In, values: [m5.24xlarge]}]";
    let text = format!("{}{}", auto_pool("big", "big", big), auto_class("big", "80Gi"));
    let p = plan(&[&text, &pod("w", "1", "")]);
    assert_eq!(p.node_claims[0].allocatable.get("pods").map(String::as_str), Some("110"));
}

#[test]
fn node_classes_of_both_kinds_bind_by_kind() {
    // An Auto Mode NodeClass "x" does not satisfy an EC2NodeClass reference of the same name.
    let ec2 = "---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: ec2}\nspec:\n  role: R\n  amiSelectorTerms: [{alias: al2023@latest}]\n  subnetSelectorTerms: [{tags: {a: b}}]\n  securityGroupSelectorTerms: [{tags: {a: b}}]\n";
    let oss =
        auto_pool("o", "x", "[]").replace("group: eks.amazonaws.com, kind: NodeClass", "group: karpenter.k8s.aws, kind: EC2NodeClass");
    let p = plan(&[&oss, ec2, &auto_class("x", "80Gi"), &pod("w", "1", "")]);
    assert!(p.node_claims.is_empty());
    assert!(p.warnings.iter().any(|w| w.code == "node-class-not-found" && w.message.contains("EC2NodeClass \"x\"")), "{:?}", p.warnings);
}

#[test]
fn bad_cluster_and_node_class_documents_are_located() {
    let e = errors(&[r#"{"cluster": {"computeConfig": {"enabled": true, "nodePools": ["gpu"]}}}"#]);
    assert_eq!(e[0].code, "unknown-builtin-nodepool");
    assert_eq!(e[0].path.as_deref(), Some("cluster.computeConfig.nodePools[0]"));
    assert_eq!(e[0].source.as_deref(), Some("in-0.yaml"));
    let e = errors(&[r#"{"computeConfig": {"enabled": false, "nodePools": ["system"]}}"#]);
    assert_eq!(e[0].code, "auto-mode-disabled");
    let e = errors(&[&auto_class("x", "100T")]);
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("out-of-range", Some("spec.ephemeralStorage.size")));
    assert_eq!(e[0].object.as_deref(), Some("NodeClass/x"));
    // A user NodePool named like a built-in one is a duplicate.
    let e = errors(&[CLUSTER_BOTH, &auto_pool("system", "default", "[]")]);
    assert!(e.iter().any(|e| e.code.contains("duplicate")), "{e:?}");
}
