//! Where real Karpenter is not deterministic, the answer says so (`nodeClaims[].ties`).
//!
//! Karpenter v1.15.0 picks the zone of a topology spread among the zones with the least count
//! by walking a Go map (topologygroup.go `nextDomainTopologySpread`), and the first zone of a
//! self-selecting pod affinity the same way (`nextDomainAffinity`); Go randomises map order.
//! nodecast takes the likeliest of Karpenter's outcomes, the value the NodePool lists first
//! (else the first by name), and lists the others (docs/karpenter-fidelity.md section 56).

use nodecast::{Input, Request};
use serde_json::{json, Value};

const POOL: &str = r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
"#;

fn plan(workload: &str) -> Value {
    let catalog = json!({"instanceTypes": [
        {"name": "standard-4", "allocatable": {"cpu": "3900m", "memory": "7300Mi", "pods": "40"}, "onDemandPrice": 0.2}]});
    plan_with(POOL, workload, catalog)
}

fn plan_with(pool: &str, workload: &str, catalog: Value) -> Value {
    let text = format!("{pool}---\n{workload}");
    let req = Request { inputs: vec![Input { name: None, text }], catalog: Some(catalog), ..Default::default() };
    let v: Value = serde_json::from_str(&nodecast::plan(&req).to_json()).unwrap();
    assert_eq!(v["status"], "success", "{v}");
    v
}

fn deployment(replicas: u32, constraint: &str) -> String {
    format!(
        r#"
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
{constraint}
      containers: [{{name: c, resources: {{requests: {{cpu: "3", memory: 1Gi}}}}}}]
"#
    )
}

const SPREAD: &str = "      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}";

#[test]
fn a_zone_spread_discloses_each_tie() {
    let v = plan(&deployment(3, SPREAD));
    let claims = v["nodeClaims"].as_array().unwrap();
    assert_eq!(claims.len(), 3);
    // First replica: all three zones are empty; second: the two still empty; third: forced.
    let expected: [&[&str]; 3] = [&["test-zone-a", "test-zone-b", "test-zone-c"], &["test-zone-b", "test-zone-c"], &[]];
    for (claim, want) in claims.iter().zip(expected) {
        let ties = claim["ties"].as_array().cloned().unwrap_or_default();
        if want.is_empty() {
            assert!(claim.get("ties").is_none(), "no tie, no field: {claim}");
            continue;
        }
        assert_eq!(ties.len(), 1, "{claim}");
        let tie = &ties[0];
        assert_eq!(tie["key"], "topology.kubernetes.io/zone");
        assert_eq!(tie["candidates"], json!(want));
        assert_eq!(tie["value"], claim["zone"], "nodecast's value is the launched zone");
        assert!(want.contains(&tie["value"].as_str().unwrap()), "nodecast's value is one Karpenter can pick");
        let message = tie["message"].as_str().unwrap();
        assert!(message.starts_with(&format!("the zone is a tie among {}", want.join(", "))), "{message}");
    }
}

#[test]
fn a_first_pod_affinity_zone_is_a_tie() {
    let affinity = "      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: web}}}";
    let v = plan(&deployment(2, affinity));
    let claims = v["nodeClaims"].as_array().unwrap();
    assert_eq!(claims.len(), 2);
    assert_eq!(claims[0]["ties"][0]["candidates"], json!(["test-zone-a", "test-zone-b", "test-zone-c"]));
    // The second replica must follow the first: no choice left.
    assert!(claims[1].get("ties").is_none(), "{}", claims[1]);
    assert_eq!(claims[1]["zone"], claims[0]["zone"]);
}

#[test]
fn a_pinned_zone_is_no_tie() {
    let pinned = "      nodeSelector: {topology.kubernetes.io/zone: test-zone-b}\n".to_string() + SPREAD;
    let v = plan(&deployment(2, &pinned));
    let claims = v["nodeClaims"].as_array().unwrap();
    assert_eq!(claims.len(), 2, "{v}");
    assert!(claims.iter().all(|c| c.get("ties").is_none() && c["zone"] == "test-zone-b"), "{v}");
}

fn pool_listing(key: &str, values: &str) -> String {
    format!(
        r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: default}}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements: [{{key: {key}, operator: In, values: {values}}}]
"#
    )
}

#[test]
fn a_tie_goes_to_the_value_the_nodepool_lists_first() {
    // Go walks the NodeClaim's [spot, on-demand] set from a random one of 8 slots: spot comes
    // first 7 times in 8, so it is Karpenter's likeliest pick (by name it would be on-demand).
    let catalog = json!({"instanceTypes": [
        {"name": "standard-4", "allocatable": {"cpu": "3900m", "memory": "7300Mi", "pods": "40"}, "onDemandPrice": 0.2,
         "offerings": [{"zone": "test-zone-a", "capacityType": "spot", "price": 0.08},
                       {"zone": "test-zone-a", "capacityType": "on-demand", "price": 0.2}]}]});
    let spread = "      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: karpenter.sh/capacity-type, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}";
    let v = plan_with(&pool_listing("karpenter.sh/capacity-type", "[spot, on-demand]"), &deployment(3, spread), catalog.clone());
    let types: Vec<&str> = v["nodeClaims"].as_array().unwrap().iter().map(|c| c["capacityType"].as_str().unwrap()).collect();
    assert_eq!(types, ["spot", "on-demand", "spot"], "{v}");
    let tie = &v["nodeClaims"][0]["ties"][0];
    assert_eq!(tie["value"], "spot");
    assert_eq!(tie["candidates"], json!(["on-demand", "spot"]));
    let message = tie["message"].as_str().unwrap();
    assert!(
        message.ends_with("nodecast shows spot, Karpenter's likeliest pick from the order NodePool default lists them in"),
        "{message}"
    );
    // Listed the other way round, on-demand is the likeliest.
    let v = plan_with(&pool_listing("karpenter.sh/capacity-type", "[on-demand, spot]"), &deployment(3, spread), catalog);
    let types: Vec<&str> = v["nodeClaims"].as_array().unwrap().iter().map(|c| c["capacityType"].as_str().unwrap()).collect();
    assert_eq!(types, ["on-demand", "spot", "on-demand"], "{v}");
}

#[test]
fn a_zone_tie_follows_the_listed_zones() {
    let catalog = json!({"instanceTypes": [
        {"name": "standard-4", "allocatable": {"cpu": "3900m", "memory": "7300Mi", "pods": "40"}, "onDemandPrice": 0.2}]});
    let pool = pool_listing("topology.kubernetes.io/zone", "[test-zone-c, test-zone-a, test-zone-b]");
    let v = plan_with(&pool, &deployment(3, SPREAD), catalog);
    let zones: Vec<&str> = v["nodeClaims"].as_array().unwrap().iter().map(|c| c["zone"].as_str().unwrap()).collect();
    assert_eq!(zones, ["test-zone-c", "test-zone-a", "test-zone-b"], "{v}");
}

#[test]
fn a_tied_pick_that_cannot_launch_says_karpenter_may_leave_the_pod_pending() {
    // test-zone-a has no available offering: a run whose map walk picks it first for the
    // affinity's bootstrap finds no instance type there.
    let catalog = json!({"instanceTypes": [
        {"name": "standard-4", "allocatable": {"cpu": "3900m", "memory": "7300Mi", "pods": "40"}, "onDemandPrice": 0.2,
         "offerings": [{"zone": "test-zone-a", "capacityType": "on-demand", "price": 0.2, "available": false},
                       {"zone": "test-zone-b", "capacityType": "on-demand", "price": 0.2},
                       {"zone": "test-zone-c", "capacityType": "on-demand", "price": 0.2}]}]});
    let affinity = "      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: web}}}";
    let v = plan_with(POOL, &deployment(1, affinity), catalog);
    let tie = &v["nodeClaims"][0]["ties"][0];
    assert_eq!(tie["value"], "test-zone-b", "{v}");
    let message = tie["message"].as_str().unwrap();
    assert!(
        message.ends_with("nodecast shows test-zone-b; a run that picks test-zone-a first cannot place the pod on this NodePool there: it tries the next NodePool or leaves the pod pending for a later pass"),
        "{message}"
    );
}
