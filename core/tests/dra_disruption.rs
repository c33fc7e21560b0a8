//! Consolidation and a candidate's DRA claims (issue 28): Karpenter v1.15.0 treats the pods it
//! moves off a candidate as deleting, so a claim reserved only by them is allocated again on
//! the replacement capacity and the devices it held are free (disruption/helpers.go
//! `SimulateScheduling` → provisioning/dra.go `gatherAllocatedDevices`,
//! scheduling/dynamicresources/allocator.go `ClassifyClaims`). A claim also reserved by a pod
//! that stays keeps its device, but pins no pod: Karpenter reads an allocation's topology from
//! its nodeSelector's matchExpressions only (types.go `nodeSelectorsToRequirements`), and the
//! scheduler's `matchFields: metadata.name` has none, so the moved pod needs no device.

use nodecast::json::{Input, Request};
use serde_json::Value;

const CATALOG: &str = r#"{"instanceTypes": [
  {"name": "s-8", "allocatable": {"cpu": "7900m", "memory": "15000Mi", "pods": "80"}, "onDemandPrice": 0.40, "spotPrice": 0.16}],
  "capacityTypes": ["on-demand"]}"#;

const POOL: &str = "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default}\nspec:\n  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s, budgets: [{nodes: \"100%\"}]}\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements:\n      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.nvidia.com}\nspec:\n  selectors:\n  - cel: {expression: 'device.driver == \"gpu.nvidia.com\"'}\n";

/// Node `name` with its NodeClaim and a ResourceSlice publishing one GPU on it.
fn node(name: &str) -> String {
    format!(
        "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  creationTimestamp: \"2025-03-05T08:00:00Z\"\n  labels: {{karpenter.sh/nodepool: default, karpenter.sh/initialized: \"true\", karpenter.sh/capacity-type: on-demand, node.kubernetes.io/instance-type: s-8, topology.kubernetes.io/zone: test-zone-a}}\nstatus:\n  allocatable: {{cpu: 7900m, memory: 15000Mi, pods: \"80\"}}\n---\napiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata:\n  name: {name}-claim\n  creationTimestamp: \"2025-03-05T08:00:00Z\"\n  labels: {{karpenter.sh/nodepool: default}}\nspec:\n  nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\nstatus:\n  nodeName: {name}\n  conditions:\n  - {{type: Initialized, status: \"True\", lastTransitionTime: \"2025-03-05T08:05:00Z\"}}\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {{name: {name}-gpu}}\nspec:\n  driver: gpu.nvidia.com\n  nodeName: {name}\n  pool: {{name: {name}, generation: 1, resourceSliceCount: 1}}\n  devices:\n  - name: gpu-0\n"
    )
}

/// A running pod on `node` (uid `uid-<name>`) using claim `claim`, or none; `annotations`.
fn pod(name: &str, node: &str, claim: Option<&str>, annotations: &str) -> String {
    let (rc, cc) = match claim {
        Some(c) => (format!("  resourceClaims: [{{name: gpu, resourceClaimName: {c}}}]\n"), ", claims: [{name: gpu}]"),
        None => (String::new(), ""),
    };
    format!(
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: default\n  uid: uid-{name}\n  annotations: {{{annotations}}}\nspec:\n  nodeName: {node}\n{rc}  containers: [{{name: c, image: x, resources: {{requests: {{cpu: \"1\", memory: 128Mi}}{cc}}}}}]\nstatus:\n  phase: Running\n  startTime: \"2025-03-05T11:59:00Z\"\n"
    )
}

/// Claim `name` allocated on node `node` (its gpu-0), reserved for the pods `reserved`.
fn claim(name: &str, node: &str, reserved: &[&str]) -> String {
    let reserved_for = if reserved.is_empty() {
        String::new()
    } else {
        let entries: Vec<String> = reserved.iter().map(|p| format!("{{resource: pods, name: {p}, uid: uid-{p}}}")).collect();
        format!("  reservedFor: [{}]\n", entries.join(", "))
    };
    format!(
        "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  devices:\n    requests:\n    - name: gpu\n      exactly: {{deviceClassName: gpu.nvidia.com}}\nstatus:\n  allocation:\n    devices:\n      results: [{{request: gpu, driver: gpu.nvidia.com, pool: {node}, device: gpu-0}}]\n    nodeSelector:\n      nodeSelectorTerms: [{{matchFields: [{{key: metadata.name, operator: In, values: [{node}]}}]}}]\n{reserved_for}"
    )
}

fn consolidate(docs: &[String]) -> Value {
    let mut req = Request {
        inputs: vec![Input { name: Some("t.yaml".into()), text: docs.concat() }],
        catalog: Some(serde_json::from_str(CATALOG).expect("catalog")),
        now: Some("2025-03-05T12:00:00Z".into()),
        ..Default::default()
    };
    req.settings.ignore_dra_requests = false;
    let v: Value = serde_json::from_str(&nodecast::consolidate(&req).to_json()).expect("json");
    assert_eq!(v["status"], "success", "{v}");
    v
}

/// Node `a` runs `pa` with claim `held` on a's GPU; node `b` runs a pod that may not be
/// disrupted and has a free GPU. Consolidation can only remove `a`, by moving `pa` to `b`.
fn cluster(held_reserved_for: &[&str], extra: &str) -> Vec<String> {
    vec![
        POOL.to_string(),
        node("a"),
        node("b"),
        claim("held", "a", held_reserved_for),
        pod("pa", "a", Some("held"), ""),
        pod("pb", "b", None, "karpenter.sh/do-not-disrupt: \"true\""),
        extra.to_string(),
    ]
}

fn removes_a(v: &Value) -> bool {
    v["decision"] == "delete" && v["disruptedNodes"] == serde_json::json!(["a"])
}

#[test]
fn a_claim_reserved_only_by_the_candidates_pods_moves_with_them() {
    let v = consolidate(&cluster(&["pa"], ""));
    assert!(removes_a(&v), "a's pod takes b's free GPU once its claim is released: {v}");
}

#[test]
fn a_claim_a_staying_pod_also_reserves_stays_allocated_but_pins_nothing() {
    // pb (on b, not disrupted) reserves the claim too: it stays allocated on a's GPU, and pa may
    // still move to b, where the committed claim asks no device (before this matched Karpenter's
    // code, nodecast kept a, pinning pa to the claim's node).
    let v = consolidate(&cluster(&["pa", "pb"], ""));
    assert!(removes_a(&v), "{v}");
    // Not reserved at all (nothing says who uses it): committed in place, as Karpenter keeps it,
    // and again no pin.
    let v = consolidate(&cluster(&[], ""));
    assert!(removes_a(&v), "{v}");
    // b's GPU is not needed for that: with b's GPU held by another claim too, pa still moves.
    let held_b = claim("held-b", "b", &[]);
    let v = consolidate(&cluster(&["pa", "pb"], &held_b));
    assert!(removes_a(&v), "{v}");
}

#[test]
fn reserved_for_is_validated_as_the_apiserver_does() {
    let bad = "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: bad, namespace: default}\nspec:\n  devices:\n    requests:\n    - name: gpu\n      exactly: {deviceClassName: gpu.nvidia.com}\nstatus:\n  reservedFor: [{resource: pods, name: pa}]\n";
    let mut req = Request {
        inputs: vec![Input { name: Some("t.yaml".into()), text: format!("{POOL}{bad}") }],
        catalog: Some(serde_json::from_str(CATALOG).expect("catalog")),
        ..Default::default()
    };
    req.settings.ignore_dra_requests = false;
    let v: Value = serde_json::from_str(&nodecast::plan(&req).to_json()).expect("json");
    let errors = v["errors"].as_array().unwrap_or_else(|| panic!("{v}"));
    let at = |path: &str, words: &str| errors.iter().any(|e| e["path"] == path && e["message"].as_str().unwrap_or("").contains(words));
    assert!(at("status.reservedFor", "not allocated"), "no allocation: {v}");
    assert!(at("status.reservedFor[0]", "`uid` is required"), "uid required: {v}");
}

#[test]
fn a_released_claim_two_moving_pods_share_moves_only_the_first() {
    // pa and pa2 on a share `held`, reserved by both: the move frees it. Karpenter v1.15.0
    // allocates such a claim again for each pod sharing it (ClassifyClaims tests "reserved
    // entirely by deleting pods" before the pass's own allocation), so pa takes b's only free
    // GPU and pa2 finds none: a stays. (With a second free device Karpenter's allocator panics
    // committing the claim twice; either way pa2 does not move.) nodecast used to let pa2
    // follow pa's fresh allocation and removed a.
    let mut docs = cluster(&["pa", "pa2"], "");
    docs.push(pod("pa2", "a", Some("held"), ""));
    let v = consolidate(&docs);
    assert!(!removes_a(&v), "{v}");
    let nodes = v["nodes"].as_array().unwrap_or_else(|| panic!("{v}"));
    let a = nodes.iter().find(|n| n["name"] == "a").unwrap_or_else(|| panic!("{v}"));
    assert_eq!(a["reasons"][0]["code"], "pods-do-not-fit", "{a}");
    assert!(a["reasons"][0]["message"].as_str().is_some_and(|m| m.contains("default/pa2")), "{a}");
    // Reserved also by pb, which stays: the claim is not freed, both pods move needing no device.
    let mut docs = cluster(&["pa", "pa2", "pb"], "");
    docs.push(pod("pa2", "a", Some("held"), ""));
    assert!(removes_a(&consolidate(&docs)));
}
