//! Issue 30 on an ML team's setup (examples/team/): a NodePool that can launch nothing is named
//! in every answer, hints address the binding constraint and are verified on their own NodePool,
//! and advise ranks a spot edit for a do-not-disrupt PyTorchJob as high risk.

use nodecast::{Input, Request};
use serde_json::Value;

fn example(path: &str) -> Input {
    let full = format!("{}/../examples/team/{path}", env!("CARGO_MANIFEST_DIR"));
    Input { name: Some(format!("examples/team/{path}")), text: std::fs::read_to_string(full).expect("example file") }
}

fn team() -> Request {
    Request { inputs: vec![example("nodepools.yaml"), example("workloads.yaml")], ..Default::default() }
}

fn json(s: String) -> Value {
    let v: Value = serde_json::from_str(&s).unwrap();
    assert_eq!(v["status"], "success", "{v}");
    v
}

fn pool<'a>(plan: &'a Value, name: &str) -> &'a Value {
    plan["nodePools"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("{name} missing"))
}

#[test]
fn a_pool_that_launches_nothing_is_named_with_its_cause_in_the_plan() {
    let plan = json(nodecast::plan(&team()).to_json());
    let reserved = pool(&plan, "training-p5-reserved")["unusable"].as_str().expect("reserved pool is unusable");
    assert!(reserved.contains("karpenter.sh/capacity-type In [reserved]"), "{reserved}");
    assert!(reserved.contains("admits no capacity type"), "{reserved}");
    let west = pool(&plan, "batch-west")["unusable"].as_str().expect("west pool is unusable");
    assert!(west.contains("topology.kubernetes.io/zone In [us-west-2a]") && west.contains("us-east-1a"), "{west}");
    assert!(pool(&plan, "training-p5").get("unusable").is_none());
    let warned: Vec<&str> = plan["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["code"] == "nodepool-launches-nothing")
        .map(|w| w["object"].as_str().unwrap())
        .collect();
    assert_eq!(warned, ["NodePool/training-p5-reserved", "NodePool/batch-west"]);
    // A pending pod's reasons name the excluded pools too, and the top code is unchanged.
    let eval = plan["unschedulable"].as_array().unwrap().iter().find(|u| u["pod"] == "ml/eval-0").expect("eval-0 pending");
    let excluded: Vec<&str> = eval["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["code"] == "nodepool-unusable")
        .map(|r| r["nodePool"].as_str().unwrap())
        .collect();
    assert_eq!(excluded, ["training-p5-reserved", "batch-west"]);
    assert_ne!(eval["code"], "nodepool-unusable", "{eval}");
}

#[test]
fn every_answer_carries_the_warning_and_validate_warns() {
    let mut req = team();
    let v = json(nodecast::validate(&req).to_json());
    let objects: Vec<&str> = v["warnings"].as_array().expect("validate warns").iter().map(|w| w["object"].as_str().unwrap()).collect();
    assert_eq!(objects, ["NodePool/training-p5-reserved", "NodePool/batch-west"]);
    req.now = Some("2026-01-01T00:00:00Z".into());
    let d = json(nodecast::consolidate(&req).to_json());
    assert!(d["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "nodepool-launches-nothing"), "{d}");
}

#[test]
fn why_not_p5_names_the_pool_that_names_it() {
    let mut req = team();
    req.pod = Some("serving/vllm-0".into());
    req.instance_type = Some("p5.48xlarge".into());
    let e = json(nodecast::explain(&req).to_json());
    let reasons: Vec<&str> =
        e["instanceType"]["reasons"].as_array().map(|r| r.iter().map(|x| x.as_str().unwrap()).collect()).unwrap_or_default();
    assert!(
        reasons.iter().any(|r| r.starts_with("NodePool training-p5-reserved: allows p5.48xlarge but takes no part in provisioning")),
        "{e}"
    );
}

#[test]
fn a_label_selector_gets_a_label_fix_not_an_instance_type_widening() {
    let plan = json(nodecast::plan(&team()).to_json());
    let eval = plan["unschedulable"].as_array().unwrap().iter().find(|u| u["pod"] == "ml/eval-0").unwrap();
    let hints = eval["hints"].as_array().expect("hints");
    for h in hints {
        let change = h["change"].as_str().unwrap();
        assert!(!change.contains("instance-type"), "a widening that leaves the selector failing: {h}");
        assert!(change.contains("queue"), "{h}");
    }
    // The eval pool's own label, admitted by the pod, lands it on that pool.
    let own = hints.iter().find(|h| h["nodePool"] == "eval-1gpu").expect("a hint for eval-1gpu");
    assert_eq!(own["outcome"], "verified", "{eval}");
    assert!(own["change"].as_str().unwrap().contains("queue In [eval-a100] → In [eval eval-a100]"), "{eval}");
    assert_eq!(hints[0]["outcome"], "verified", "best first: {eval}");
    // Verified means on the hint's own pool.
    for h in hints.iter().filter(|h| h["verified"] == true) {
        let pool = h["nodePool"].as_str().unwrap();
        assert!(h["check"].as_str().unwrap().contains(&format!("NodePool {pool}")), "{h}");
    }
}

const CLASS: &str = "---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\nspec:\n  role: r\n  amiSelectorTerms: [{alias: al2023@latest}]\n  subnetSelectorTerms: [{tags: {a: b}}]\n  securityGroupSelectorTerms: [{tags: {a: b}}]\n";

fn tainted_pool(name: &str, weight: i32, taints: &str) -> String {
    format!(
        "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: {name}}}\nspec:\n  weight: {weight}\n  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n      taints: {taints}\n      requirements:\n        - {{key: karpenter.k8s.aws/instance-category, operator: In, values: [c]}}\n"
    )
}

#[test]
fn a_hint_that_sends_the_pod_to_another_pool_is_not_verified_for_its_own() {
    // Both pools carry dedicated=ml; `b` also other=x. Tolerating dedicated=ml is `b`'s first
    // untolerated taint, but with it the pod goes to `a` (higher weight), not to `b`.
    let input = format!(
        "{CLASS}{}{}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: default}}\nspec:\n  containers:\n  - {{name: c, image: x, resources: {{requests: {{cpu: 1}}}}}}\n",
        tainted_pool("a", 50, "[{key: dedicated, value: ml, effect: NoSchedule}]"),
        tainted_pool("b", 10, "[{key: dedicated, value: ml, effect: NoSchedule}, {key: other, value: x, effect: NoSchedule}]"),
    );
    let req = Request { inputs: vec![Input { name: Some("in.yaml".into()), text: input }], ..Default::default() };
    let plan = json(nodecast::plan(&req).to_json());
    let hints = plan["unschedulable"][0]["hints"].as_array().expect("hints").clone();
    let for_pool = |p: &str| hints.iter().find(|h| h["nodePool"] == p).unwrap_or_else(|| panic!("no hint for {p}: {hints:?}")).clone();
    let a = for_pool("a");
    assert_eq!(a["outcome"], "verified", "{a}");
    assert_eq!(a["verified"], true);
    let b = for_pool("b");
    assert_eq!(b["outcome"], "lands-elsewhere", "{b}");
    assert_eq!(b["verified"], false, "{b}");
    assert!(b["check"].as_str().unwrap().contains("NodePool a, not on NodePool b"), "{b}");
    // Best first.
    assert_eq!(hints[0]["nodePool"], "a");
}
