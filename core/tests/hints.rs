//! Fix hints for unschedulable pods are checked by re-planning (issue 18 part 2): each case
//! builds a cluster where one change lets the pod schedule, checks the hint names that change
//! and says "verified", then applies the hinted change to the manifests by hand and plans again
//! to confirm the pod schedules.

use nodecast::{Input, Request};
use serde_json::Value;

fn plan(text: &str) -> Value {
    let req = Request { inputs: vec![Input { name: Some("in.yaml".into()), text: text.into() }], ..Default::default() };
    let v: Value = serde_json::from_str(&nodecast::plan(&req).to_json()).unwrap();
    assert_eq!(v["status"], "success", "{v}");
    v
}

const CLASS: &str = "---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\nspec:\n  role: r\n  amiSelectorTerms: [{alias: al2023@latest}]\n  subnetSelectorTerms: [{tags: {a: b}}]\n  securityGroupSelectorTerms: [{tags: {a: b}}]\n";

fn pool(name: &str, extra_spec: &str, requirements: &str, limits: &str) -> String {
    format!(
        "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: {name}}}\nspec:\n{limits}  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n{extra_spec}      requirements:\n{requirements}"
    )
}

fn pod(name: &str, requests: &str, extra: &str) -> String {
    format!("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\nspec:\n{extra}  containers:\n  - {{name: c, image: x, resources: {{requests: {requests}}}}}\n")
}

fn unschedulable<'a>(v: &'a Value, pod: &str) -> Option<&'a Value> {
    v["unschedulable"].as_array().unwrap().iter().find(|u| u["pod"] == pod)
}

fn only_hint(v: &Value, pod: &str) -> Value {
    let u = unschedulable(v, pod).unwrap_or_else(|| panic!("{pod} schedules: {v}"));
    let hints = u["hints"].as_array().unwrap_or_else(|| panic!("no hints: {u}"));
    assert_eq!(hints.len(), 1, "{u}");
    hints[0].clone()
}

const ON_DEMAND_C: &str = "        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c]}\n";

#[test]
fn taint_hint_names_the_toleration_and_is_verified() {
    let taints = "      taints: [{key: dedicated, value: ml, effect: NoSchedule}]\n";
    let input = format!("{CLASS}{}{}", pool("ml", taints, ON_DEMAND_C, ""), pod("p", "{cpu: 1}", ""));
    let h = only_hint(&plan(&input), "default/p");
    assert_eq!(h["code"], "taint-not-tolerated");
    assert_eq!(h["nodePool"], "ml");
    assert_eq!(h["verified"], true, "{h}");
    assert!(h["change"].as_str().unwrap().contains("{key: dedicated, operator: Equal, value: ml, effect: NoSchedule}"), "{h}");
    assert!(h["check"].as_str().unwrap().starts_with("verified:"), "{h}");
    // The hinted toleration, written into the manifest, schedules the pod.
    let tol = "  tolerations: [{key: dedicated, operator: Equal, value: ml, effect: NoSchedule}]\n";
    let fixed = format!("{CLASS}{}{}", pool("ml", taints, ON_DEMAND_C, ""), pod("p", "{cpu: 1}", tol));
    assert!(unschedulable(&plan(&fixed), "default/p").is_none());
}

#[test]
fn limit_reason_has_numbers_and_a_verified_limit() {
    let limits = "  limits: {cpu: \"4\"}\n";
    let input = format!("{CLASS}{}{}", pool("small", "", ON_DEMAND_C, limits), pod("big", "{cpu: \"7\"}", ""));
    let v = plan(&input);
    let u = unschedulable(&v, "default/big").unwrap();
    assert_eq!(u["code"], "limit-exceeded");
    let msg = u["reasons"][0]["message"].as_str().unwrap();
    // 7 CPUs need an 8-vCPU type (c*.2xlarge); 4 remain.
    assert!(msg.contains("cpu 4 remaining"), "{msg}");
    assert!(msg.contains("needs cpu 8"), "{msg}");
    let h = only_hint(&v, "default/big");
    assert_eq!(h["verified"], true, "{h}");
    assert_eq!(h["change"], "raise NodePool small spec.limits: cpu 4 → 8");
    let fixed = format!("{CLASS}{}{}", pool("small", "", ON_DEMAND_C, "  limits: {cpu: \"8\"}\n"), pod("big", "{cpu: \"7\"}", ""));
    assert!(unschedulable(&plan(&fixed), "default/big").is_none());
}

#[test]
fn gpu_pod_on_cpu_pool_gets_the_pool_requirement_to_widen() {
    let input = format!(
        "{CLASS}{}{}",
        pool("cpu", "", ON_DEMAND_C, ""),
        pod("gpu", "{cpu: 1}", "").replace("requests: {cpu: 1}", "requests: {cpu: 1}, limits: {nvidia.com/gpu: 1}")
    );
    let v = plan(&input);
    let u = unschedulable(&v, "default/gpu").unwrap();
    assert!(u["reasons"][0]["message"].as_str().unwrap().contains("no instance type this NodePool allows has nvidia.com/gpu"), "{u}");
    let h = only_hint(&v, "default/gpu");
    assert_eq!(h["verified"], true, "{h}");
    let change = h["change"].as_str().unwrap();
    assert!(change.starts_with("widen NodePool cpu requirements: karpenter.k8s.aws/instance-category In [c] → In [c "), "{change}");
}

#[test]
fn pod_requirement_that_excludes_every_fitting_type_is_widened() {
    // The pod asks for c5.large (2 vCPU) but requests 3 CPUs: the smallest edit admits one type.
    let sel = "  nodeSelector: {node.kubernetes.io/instance-type: c5.large}\n";
    let input = format!("{CLASS}{}{}", pool("c", "", ON_DEMAND_C, ""), pod("p", "{cpu: \"3\"}", sel));
    let v = plan(&input);
    let h = only_hint(&v, "default/p");
    assert_eq!(h["code"], "requirement-conflict");
    assert_eq!(h["verified"], true, "{h}");
    let change = h["change"].as_str().unwrap();
    assert!(
        change.starts_with("widen the pod's node requirements: node.kubernetes.io/instance-type In [c5.large] → In [c5.large "),
        "{change}"
    );
}

#[test]
fn a_change_that_is_not_enough_says_so() {
    // Tolerating the taint is needed but the 2-CPU limit still blocks the 3-CPU pod: the taint
    // hint is checked and reported as not enough alone.
    let taints = "      taints: [{key: dedicated, effect: NoSchedule}]\n";
    let input = format!("{CLASS}{}{}", pool("ml", taints, ON_DEMAND_C, "  limits: {cpu: \"2\"}\n"), pod("p", "{cpu: \"3\"}", ""));
    let v = plan(&input);
    let u = unschedulable(&v, "default/p").unwrap();
    let taint = u["hints"].as_array().unwrap().iter().find(|h| h["code"] == "taint-not-tolerated").cloned();
    let h = taint.unwrap_or_else(|| panic!("{u}"));
    assert_eq!(h["verified"], false, "{h}");
    assert!(h["check"].as_str().unwrap().contains("still stays pending (limit-exceeded)"), "{h}");
    assert!(h["change"].as_str().unwrap().contains("operator: Exists"), "{h}");
}

#[test]
fn replicas_share_one_replan() {
    // 40 replicas of one Deployment, each blocked by the same taint: every replica carries the
    // hint, checked once (bounded by the re-plan budget, which 40 separate checks would exceed).
    let taints = "      taints: [{key: dedicated, value: ml, effect: NoSchedule}]\n";
    let deploy = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  replicas: 40\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - {name: c, image: x, resources: {requests: {cpu: 100m}}}\n";
    let input = format!("{CLASS}{}{deploy}", pool("ml", taints, ON_DEMAND_C, ""));
    let v = plan(&input);
    let u = v["unschedulable"].as_array().unwrap();
    assert_eq!(u.len(), 40);
    assert!(u.iter().all(|u| u["hints"][0]["verified"] == true), "{v}");
}
