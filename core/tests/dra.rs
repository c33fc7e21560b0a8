//! Karpenter v1.15's DRA allocator (`--ignore-dra-requests=false`, issue 28 item 1) with the AWS
//! provider's DRANVIDIAGPU / DRAEFA device templates: validation of the resource.k8s.io/v1
//! objects, the device search, and what the scheduler does with DRA pods.

use nodecast::{Input, Request};
use serde_json::Value;

const CLASS: &str = "---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\nspec:\n  role: r\n  amiSelectorTerms: [{alias: al2023@latest}]\n  subnetSelectorTerms: [{tags: {a: b}}]\n  securityGroupSelectorTerms: [{tags: {a: b}}]\n";

const POOL: &str = "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements:\n        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5, g6, m5]}\n";

const DEVICE_CLASS: &str = "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.nvidia.com}\nspec:\n  selectors:\n  - cel: {expression: 'device.driver == \"gpu.nvidia.com\"'}\n";

fn template(name: &str, count: u32, selector: Option<&str>) -> String {
    let sel = selector.map(|s| format!("\n          selectors:\n          - cel: {{expression: '{s}'}}")).unwrap_or_default();
    format!("---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  spec:\n    devices:\n      requests:\n      - name: gpu\n        exactly:\n          deviceClassName: gpu.nvidia.com\n          count: {count}{sel}\n")
}

fn claim(name: &str, extra: &str) -> String {
    format!("---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  devices:\n    requests:\n    - name: gpu\n      exactly: {{deviceClassName: gpu.nvidia.com}}\n{extra}")
}

fn pod(name: &str, source: &str) -> String {
    format!("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  resourceClaims: [{{name: gpu, {source}}}]\n  containers:\n  - {{name: c, image: x, resources: {{requests: {{cpu: \"1\"}}, claims: [{{name: gpu}}]}}}}\n")
}

fn run(text: &str, ignore: bool, aws: &str) -> Value {
    let mut req = Request { inputs: vec![Input { name: Some("in.yaml".into()), text: text.into() }], ..Default::default() };
    req.settings.ignore_dra_requests = ignore;
    req.settings.aws_feature_gates.apply(aws).unwrap();
    serde_json::from_str(&nodecast::plan(&req).to_json()).unwrap()
}

fn ok(text: &str, aws: &str) -> Value {
    let v = run(text, false, aws);
    assert_eq!(v["status"], "success", "{v}");
    v
}

fn claims(v: &Value) -> Vec<(String, Vec<String>)> {
    v["nodeClaims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["instanceType"].as_str().unwrap_or("").to_string(),
                c["pods"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect(),
            )
        })
        .collect()
}

fn options(v: &Value, i: usize) -> Vec<String> {
    v["nodeClaims"][i]["instanceTypeOptions"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

fn reason(v: &Value, pod: &str) -> String {
    let u =
        v["unschedulable"].as_array().unwrap().iter().find(|u| u["pod"] == pod).unwrap_or_else(|| panic!("{pod} not unschedulable: {v}"));
    assert_eq!(u["code"], "dynamic-resources", "{u}");
    u["reasons"][0]["message"].as_str().unwrap().to_string()
}

fn base() -> String {
    format!("{CLASS}{POOL}{DEVICE_CLASS}")
}

#[test]
fn a_template_claim_gets_a_gpu_instance_type_under_dranvidiagpu() {
    let text = format!("{}{}{}", base(), template("single-gpu", 1, None), pod("p", "resourceClaimTemplateName: single-gpu"));
    let v = ok(&text, "DRANVIDIAGPU=true");
    let c = claims(&v);
    assert_eq!(c.len(), 1, "{v}");
    // Only types the provider templates GPUs for survive: no m5, every option a g5/g6.
    let opts = options(&v, 0);
    assert!(!opts.is_empty() && opts.iter().all(|t| t.starts_with("g5.") || t.starts_with("g6.")), "{opts:?}");
    assert!(v["skipped"].as_array().is_none_or(|s| s.iter().all(|x| x["kind"] != "ResourceClaimTemplate")), "the template counts: {v}");
}

#[test]
fn without_the_provider_gates_no_new_node_offers_devices() {
    let text = format!("{}{}{}", base(), template("single-gpu", 1, None), pod("p", "resourceClaimTemplateName: single-gpu"));
    let v = ok(&text, "");
    let r = reason(&v, "default/p");
    assert!(r.contains("no instance type can satisfy the allocation") && r.contains("DRANVIDIAGPU"), "{r}");
}

#[test]
fn the_default_still_refuses_dra_pods_and_lists_the_objects_as_skipped() {
    let text = format!("{}{}{}", base(), template("single-gpu", 1, None), pod("p", "resourceClaimTemplateName: single-gpu"));
    let v = run(&text, true, "DRANVIDIAGPU=true");
    assert_eq!(v["status"], "success");
    assert!(reason(&v, "default/p").contains("not yet supported by Karpenter"));
    assert!(v["skipped"].as_array().unwrap().iter().any(|s| s["kind"] == "ResourceClaimTemplate"));
}

#[test]
fn count_and_selectors_narrow_the_instance_types() {
    // Four GPUs: a g5.12xlarge (4 × A10G) or larger; a g5.2xlarge (1 GPU) is no option.
    let text = format!("{}{}{}", base(), template("four", 4, None), pod("p", "resourceClaimTemplateName: four"));
    let v = ok(&text, "DRANVIDIAGPU=true");
    let opts = options(&v, 0);
    assert!(opts.contains(&"g5.12xlarge".to_string()) && !opts.contains(&"g5.2xlarge".to_string()), "{opts:?}");
    // An L4 (g6) by product name.
    let sel = r#"device.attributes["gpu.nvidia.com"].productName == "NVIDIA L4""#;
    let text = format!("{}{}{}", base(), template("l4", 1, Some(sel)), pod("p", "resourceClaimTemplateName: l4"));
    let v = ok(&text, "DRANVIDIAGPU=true");
    let opts = options(&v, 0);
    assert!(!opts.is_empty() && opts.iter().all(|t| t.starts_with("g6.")), "{opts:?}");
    // Memory: at least 22Gi of GPU memory rules nothing of g5/g6 out, 40Gi rules all out.
    let big = r#"device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0"#;
    let text = format!("{}{}{}", base(), template("big", 1, Some(big)), pod("p", "resourceClaimTemplateName: big"));
    let v = ok(&text, "DRANVIDIAGPU=true");
    assert!(reason(&v, "default/p").contains("no instance type can satisfy"));
}

#[test]
fn generated_claims_take_devices_of_the_nodeclaim() {
    // Two pods of one GPU each: one NodeClaim may hold both only with two GPUs left, so the
    // second pod's types are those with at least two GPUs; a third pod needs three.
    let text = format!(
        "{}{}{}{}",
        base(),
        template("single-gpu", 1, None),
        pod("a", "resourceClaimTemplateName: single-gpu"),
        pod("b", "resourceClaimTemplateName: single-gpu")
    );
    let v = ok(&text, "DRANVIDIAGPU=true");
    let c = claims(&v);
    assert_eq!(c.len(), 1, "{v}");
    assert_eq!(c[0].1.len(), 2);
    let opts = options(&v, 0);
    assert!(!opts.contains(&"g5.2xlarge".to_string()) && opts.contains(&"g5.12xlarge".to_string()), "{opts:?}");
}

#[test]
fn a_shared_claim_binds_its_pods_to_one_nodeclaim() {
    let text =
        format!("{}{}{}{}", base(), claim("shared", ""), pod("a", "resourceClaimName: shared"), pod("b", "resourceClaimName: shared"));
    let v = ok(&text, "DRANVIDIAGPU=true");
    let c = claims(&v);
    assert_eq!(c.len(), 1, "{v}");
    assert_eq!(c[0].1.len(), 2, "both pods on the claim's NodeClaim: {v}");
    // A claim that does not exist: Karpenter's "not found", no node.
    let text = format!("{}{}", base(), pod("a", "resourceClaimName: nope"));
    let v = ok(&text, "DRANVIDIAGPU=true");
    assert!(reason(&v, "default/a").contains("resourceclaim \"default/nope\" not found"));
    // A missing DeviceClass.
    let text = format!("{CLASS}{POOL}{}{}", template("single-gpu", 1, None), pod("a", "resourceClaimTemplateName: single-gpu"));
    let v = ok(&text, "DRANVIDIAGPU=true");
    assert!(reason(&v, "default/a").contains("DeviceClass \"gpu.nvidia.com\" not found"));
}

const NODE: &str = "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: {karpenter.sh/nodepool: gpu, node.kubernetes.io/instance-type: g5.2xlarge, karpenter.sh/capacity-type: on-demand, topology.kubernetes.io/zone: us-east-1a, karpenter.sh/registered: \"true\", karpenter.sh/initialized: \"true\", kubernetes.io/arch: amd64, kubernetes.io/os: linux}\nstatus:\n  capacity: {cpu: \"8\", memory: 32Gi, pods: \"58\"}\n  allocatable: {cpu: \"7\", memory: 30Gi, pods: \"58\"}\n";

const SLICE: &str = "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: n1-gpu}\nspec:\n  driver: gpu.nvidia.com\n  nodeName: n1\n  pool: {name: n1, generation: 1, resourceSliceCount: 1}\n  devices:\n  - name: gpu-0\n    attributes: {productName: {string: NVIDIA A10G}}\n    capacity: {memory: {value: 23028Mi}}\n";

#[test]
fn existing_nodes_offer_their_published_devices_once() {
    // The node's one GPU takes the first pod; the second needs a new NodeClaim.
    let text = format!(
        "{}{NODE}{SLICE}{}{}{}",
        base(),
        template("single-gpu", 1, None),
        pod("a", "resourceClaimTemplateName: single-gpu"),
        pod("b", "resourceClaimTemplateName: single-gpu")
    );
    let v = ok(&text, "DRANVIDIAGPU=true");
    let on_node: Vec<&Value> = v["existingNodes"].as_array().unwrap().iter().filter(|n| n["name"] == "n1").collect();
    assert_eq!(on_node[0]["pods"], serde_json::json!(["default/a"]), "{v}");
    assert_eq!(claims(&v).len(), 1);
    assert_eq!(claims(&v)[0].1, vec!["default/b".to_string()]);
    // A claim the input already allocated holds the node's GPU: both pods go to new capacity.
    let held = claim(
        "held",
        "status:\n  allocation:\n    devices:\n      results: [{request: gpu, driver: gpu.nvidia.com, pool: n1, device: gpu-0}]\n    nodeSelector:\n      nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]\n",
    );
    let text =
        format!("{}{NODE}{SLICE}{held}{}{}", base(), template("single-gpu", 1, None), pod("a", "resourceClaimTemplateName: single-gpu"));
    let v = ok(&text, "DRANVIDIAGPU=true");
    assert!(v["existingNodes"].as_array().unwrap().iter().all(|n| n["pods"].as_array().is_none_or(|p| p.is_empty())), "{v}");
    assert_eq!(claims(&v).len(), 1);
    // A shared claim allocated during the pass on a node's published device does not pin the
    // other pods that share it (Karpenter pins only allocations from template devices,
    // `UsedTemplateDevices`; a `nodeName` slice gives the allocation no topology): the pod that
    // does not fit on n1 goes to a new NodeClaim, needing no device of its own.
    let big = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: default}\nspec:\n  resourceClaims: [{name: gpu, resourceClaimName: shared}]\n  containers:\n  - {name: c, image: x, resources: {requests: {cpu: \"7\"}, claims: [{name: gpu}]}}\n";
    let text = format!("{}{NODE}{SLICE}{}{big}{}", base(), claim("shared", ""), pod("a", "resourceClaimName: shared"));
    let v = ok(&text, "");
    assert_eq!(v["unschedulable"].as_array().map_or(0, |u| u.len()), 0, "{v}");
    let on_node: Vec<&Value> = v["existingNodes"].as_array().unwrap().iter().filter(|n| n["name"] == "n1").collect();
    assert_eq!(on_node[0]["pods"], serde_json::json!(["default/big"]), "{v}");
    assert_eq!(claims(&v).len(), 1, "{v}");
    assert_eq!(claims(&v)[0].1, vec!["default/a".to_string()]);
    // A pod using the allocated claim fits on its node and goes there.
    let text = format!("{}{NODE}{SLICE}{held}{}", base(), pod("c", "resourceClaimName: held"));
    let v = ok(&text, "DRANVIDIAGPU=true");
    assert_eq!(claims(&v).len(), 0, "{v}");
    // One that cannot go to that node (another zone) is not pinned to it: Karpenter reads an
    // allocation's topology from its nodeSelector's matchExpressions only
    // (dynamicresources/types.go nodeSelectorsToRequirements), and `matchFields: metadata.name`
    // has none, so the claim counts as satisfied on a new NodeClaim in us-east-1b, which needs
    // no device (before: unschedulable, "allocated on node n1"). Without the provider's DRA
    // gates too, since it asks no device.
    let far = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: far, namespace: default}\nspec:\n  nodeSelector: {topology.kubernetes.io/zone: us-east-1b}\n  resourceClaims: [{name: gpu, resourceClaimName: held}]\n  containers:\n  - {name: c, image: x, resources: {requests: {cpu: \"1\"}, claims: [{name: gpu}]}}\n";
    for gates in ["DRANVIDIAGPU=true", ""] {
        let text = format!("{}{NODE}{SLICE}{held}{far}", base());
        let v = ok(&text, gates);
        assert_eq!(v["unschedulable"].as_array().map_or(0, |u| u.len()), 0, "{v}");
        assert_eq!(claims(&v).len(), 1, "{v}");
        assert_eq!(claims(&v)[0].1, vec!["default/far".to_string()]);
    }
}

#[test]
fn invalid_objects_are_located_errors() {
    let bad_cel = "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: odd}\nspec:\n  selectors:\n  - cel: {expression: 'device.attributes[\"gpu.nvidia.com\"].productName.startsWith(\"NVIDIA\")'}\n";
    let v = run(&format!("{}{bad_cel}", base()), false, "");
    assert_eq!(v["status"], "failure", "{v}");
    let e = &v["errors"][0];
    assert!(e["message"].as_str().unwrap().contains("CEL expression not supported"), "{e}");
    assert_eq!(e["path"], "spec.selectors[0].cel.expression", "{e}");
    // Not modelled, but valid: accepted while the objects do not count.
    assert_eq!(run(&format!("{}{bad_cel}", base()), true, "")["status"], "success");
    // What the apiserver refuses is refused whatever the flag.
    let no_pool = "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: gpu.nvidia.com\n  nodeName: n1\n  devices: []\n";
    for ignore in [true, false] {
        let v = run(&format!("{}{no_pool}", base()), ignore, "");
        assert_eq!(v["status"], "failure", "{v}");
        assert!(v["errors"].to_string().contains("`pool` is required"), "{v}");
    }
    let two_modes = "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: default}\nspec:\n  devices:\n    requests:\n    - name: gpu\n      exactly: {deviceClassName: gpu.nvidia.com, allocationMode: All, count: 2}\n";
    let v = run(&format!("{}{two_modes}", base()), false, "");
    assert!(v["errors"].to_string().contains("count must not be set with allocationMode All"), "{v}");
    let first = "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: default}\nspec:\n  devices:\n    requests:\n    - name: gpu\n      firstAvailable: [{name: a, deviceClassName: gpu.nvidia.com}]\n";
    let v = run(&format!("{}{first}", base()), false, "");
    assert!(v["errors"].to_string().contains("firstAvailable (prioritized alternatives) is not modelled"), "{v}");
    let v = run(&base(), false, "RebootForRepair=true");
    assert!(v["errors"].to_string().contains("settings.awsFeatureGates.RebootForRepair"), "{v}");
}

#[test]
fn an_incomplete_or_old_pool_offers_nothing() {
    // The pool says two slices and only one is there: Karpenter skips the pool (pool.go).
    let incomplete = SLICE.replace("resourceSliceCount: 1", "resourceSliceCount: 2");
    let text =
        format!("{}{NODE}{incomplete}{}{}", base(), template("single-gpu", 1, None), pod("a", "resourceClaimTemplateName: single-gpu"));
    let v = ok(&text, "DRANVIDIAGPU=true");
    assert_eq!(claims(&v).len(), 1, "the node's GPU is not usable: {v}");
    // A slice of an older generation than another slice of its pool does not count either.
    let old = SLICE.replace("generation: 1", "generation: 0");
    let newer =
        SLICE.replace("name: n1-gpu", "name: n1-gpu-2").replace("name: gpu-0", "name: gpu-9").replace("generation: 1", "generation: 2");
    let text = format!(
        "{}{NODE}{old}{newer}{}{}{}",
        base(),
        template("single-gpu", 1, None),
        pod("a", "resourceClaimTemplateName: single-gpu"),
        pod("b", "resourceClaimTemplateName: single-gpu")
    );
    let v = ok(&text, "DRANVIDIAGPU=true");
    let on_node: Vec<&Value> = v["existingNodes"].as_array().unwrap().iter().filter(|n| n["name"] == "n1").collect();
    assert_eq!(on_node[0]["pods"].as_array().unwrap().len(), 1, "one device of the newest generation: {v}");
}

/// An `allNodes` ResourceSlice of 7 devices and `templates` claim templates of 8 one-device
/// requests each over them: every search fails, after 95,900 steps (dra::search's own test).
fn hostile(templates: usize, pods_per_template: usize) -> String {
    let devices: String = (0..7).map(|i| format!("  - name: nic-{i}\n")).collect();
    let mut text = format!(
        "{CLASS}---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: general}}\nspec:\n  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n      requirements: []\n---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: nic}}\nspec:\n  selectors:\n  - cel: {{expression: 'device.driver == \"example.com\"'}}\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {{name: shared}}\nspec:\n  driver: example.com\n  pool: {{name: shared, generation: 1, resourceSliceCount: 1}}\n  allNodes: true\n  devices:\n{devices}"
    );
    let requests: String = (0..8).map(|i| format!("      - name: r{i}\n        exactly: {{deviceClassName: nic}}\n")).collect();
    for t in 0..templates {
        text += &format!("---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {{name: t{t}, namespace: default}}\nspec:\n  spec:\n    devices:\n      requests:\n{requests}");
        for p in 0..pods_per_template {
            text += &pod(&format!("p{t}-{p}"), &format!("resourceClaimTemplateName: t{t}"));
        }
    }
    text
}

#[test]
fn a_search_is_run_once_per_claim_and_device_profile() {
    // 40 pods × every instance type of the catalog, each search 95,900 steps: 21 s of CPU for
    // 20 such pods before the searches were memoised (one search per template and profile now).
    // All types without provider templates have the same devices (the allNodes ones): one search.
    let v = ok(&hostile(1, 40), "");
    assert_eq!(v["unschedulable"].as_array().unwrap().len(), 40, "{v}");
    for p in 0..40 {
        assert!(reason(&v, &format!("default/p0-{p}")).contains("no instance type can satisfy the allocation"), "{v}");
    }
}

#[test]
fn the_pass_step_budget_refuses_further_searches_with_a_located_reason() {
    // 240 distinct templates: 240 distinct searches of 95,900 steps, past the pass's budget of
    // 20,000,000 (208 searches fit). The pods searched first get the allocator's answer, the
    // rest a reason naming the pod, its document, its claim and the bound.
    let v = ok(&hostile(240, 1), "");
    let u = v["unschedulable"].as_array().unwrap();
    assert_eq!(u.len(), 240, "{v}");
    let messages: Vec<String> = (0..240).map(|t| reason(&v, &format!("default/p{t}-0"))).collect();
    let refused = messages.iter().filter(|m| m.contains("device-search steps per scheduling pass ran out")).count();
    let answered = messages.iter().filter(|m| m.contains("no instance type can satisfy the allocation")).count();
    assert_eq!((answered, refused), (208, 32), "{messages:?}");
    let last = messages.iter().find(|m| m.contains("ran out")).unwrap();
    assert!(last.contains("claims [\"gpu\"]") && last.contains("(document ") && last.contains("20000000"), "{last}");
}
