//! Karpenter's `--scheduler-config` default topology spreads (`settings.schedulerConfig`,
//! pkg/controllers/provisioning/scheduling/defaultconstraints.go): a pod without spreads of its
//! own gets the defaults, with a selector deduced from the Services selecting it and its
//! controller; a pod with its own, or with nothing to deduce a selector from, is left alone.

mod common;
use common::NODE_CLASS;
use nodecast::{Input, Request};
use serde_json::{json, Value};
use std::collections::BTreeSet;

const POOL: &str = r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.2xlarge]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
"#;

fn deployment(spread: &str) -> String {
    format!(
        r#"
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  replicas: 4
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web, tier: front}}}}
    spec:{spread}
      containers:
      - {{name: c, image: web, resources: {{requests: {{cpu: 500m, memory: 1Gi}}}}}}
"#
    )
}

fn bare_pods(n: usize, labels: &str) -> Vec<String> {
    (0..n)
        .map(|i| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: solo-{i}, labels: {{{labels}}}}}\nspec:\n  containers:\n  - {{name: c, image: x, resources: {{requests: {{cpu: 500m, memory: 1Gi}}}}}}\n"
            )
        })
        .collect()
}

const ZONE_DEFAULT: &str = r#"{"podTopologySpread": {"defaultConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"}]}}"#;

fn request(docs: &[String], scheduler_config: Option<&str>) -> Request {
    let mut all = vec![NODE_CLASS.to_string(), POOL.to_string()];
    all.extend(docs.iter().cloned());
    let mut req = Request {
        inputs: vec![Input { name: Some("cluster.yaml".into()), text: all.join("---\n") }],
        catalog: Some(json!({"source": "aws-us-east-1", "zones": ["us-east-1a", "us-east-1b", "us-east-1c"]})),
        ..Default::default()
    };
    req.settings.scheduler_config = scheduler_config.map(|c| serde_json::from_str(c).expect("config"));
    req
}

fn plan(docs: &[String], scheduler_config: Option<&str>) -> Value {
    let v: Value = serde_json::from_str(&nodecast::plan(&request(docs, scheduler_config)).to_json()).expect("json");
    assert_eq!(v["status"], "success", "{v}");
    v
}

/// The zones of the new NodeClaims.
fn zones(v: &Value) -> BTreeSet<String> {
    v["nodeClaims"].as_array().expect("claims").iter().map(|c| c["zone"].as_str().unwrap_or_default().to_string()).collect()
}

#[test]
fn a_deployments_pods_take_the_default_zone_spread_with_its_selector() {
    // Without defaults all four fit one m5.2xlarge.
    let packed = plan(&[deployment("")], None);
    assert_eq!(packed["nodeClaims"].as_array().unwrap().len(), 1, "{packed}");
    let spread = plan(&[deployment("")], Some(ZONE_DEFAULT));
    assert_eq!(zones(&spread).len(), 3, "{spread}");
}

#[test]
fn a_pod_with_spreads_of_its_own_keeps_them() {
    // Its own hostname spread with maxSkew 4 lets all four share one node; the default zone
    // spread is not added.
    let own = "\n      topologySpreadConstraints:\n      - {maxSkew: 4, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}";
    let v = plan(&[deployment(own)], Some(ZONE_DEFAULT));
    assert_eq!(v["nodeClaims"].as_array().unwrap().len(), 1, "{v}");
}

#[test]
fn a_bare_pod_is_spread_only_when_a_service_selects_it() {
    // No controller and no Service: no selector is deduced, nothing is injected.
    let v = plan(&bare_pods(3, "app: solo"), Some(ZONE_DEFAULT));
    assert_eq!(zones(&v).len(), 1, "{v}");
    // A Service selecting them gives the selector app=solo; one selecting nothing, or another
    // namespace's, adds nothing.
    let mut docs = bare_pods(3, "app: solo");
    docs.push("apiVersion: v1\nkind: Service\nmetadata: {name: solo}\nspec: {selector: {app: solo}}\n".into());
    docs.push("apiVersion: v1\nkind: Service\nmetadata: {name: other, namespace: elsewhere}\nspec: {selector: {app: solo, x: y}}\n".into());
    let v = plan(&docs, Some(ZONE_DEFAULT));
    assert_eq!(zones(&v).len(), 3, "{v}");
    // The Service is read, so it is not listed as skipped.
    assert!(v["skipped"].as_array().unwrap().iter().all(|s| s["kind"] != "Service" || s["name"] == "other"), "{v}");
    // Without the setting a Service is skipped as before.
    let v = plan(&docs, None);
    assert!(v["skipped"].as_array().unwrap().iter().any(|s| s["kind"] == "Service"), "{v}");
}

#[test]
fn an_invalid_default_constraint_is_a_located_error() {
    let bad = r#"{"podTopologySpread": {"defaultConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}]}}"#;
    let v: Value = serde_json::from_str(&nodecast::plan(&request(&[deployment("")], Some(bad))).to_json()).expect("json");
    assert_eq!(v["status"], "failure", "{v}");
    assert!(v.to_string().contains("settings.schedulerConfig.podTopologySpread.defaultConstraints[0].labelSelector"), "{v}");
}
