//! Reserved capacity (issue 38): the describe-capacity-reservations input, selection by
//! EC2NodeClass, reserved offerings in the pass, the pass time, and consolidation prices.

mod common;
use common::NODE_CLASS;
use nodecast::api::Plan;
use nodecast::{Input, Outcome, Request};
use serde_json::json;

fn pool(name: &str, weight: i32, capacity_types: &str) -> String {
    format!(
        r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: {name}}}
spec:
  weight: {weight}
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}}
      requirements:
      - {{key: karpenter.sh/capacity-type, operator: In, values: [{capacity_types}]}}
      - {{key: node.kubernetes.io/instance-type, operator: In, values: [p5.48xlarge]}}
"#
    )
}

fn pods(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                r#"
apiVersion: v1
kind: Pod
metadata: {{name: train-{i}}}
spec:
  containers:
  - name: c
    image: trainer
    resources: {{requests: {{cpu: "100", nvidia.com/gpu: "8"}}, limits: {{nvidia.com/gpu: "8"}}}}
"#
            )
        })
        .collect::<Vec<_>>()
        .join("---\n")
}

/// A p5 reservation entry as the AWS CLI prints it (plus a field nodecast does not read).
fn reservation(id: &str, zone: &str, kind: &str, available: i64, end: Option<&str>) -> serde_json::Value {
    let mut r = json!({
        "CapacityReservationId": id, "OwnerId": "123456789012", "InstanceType": "p5.48xlarge",
        "AvailabilityZone": zone, "TotalInstanceCount": 2, "AvailableInstanceCount": available,
        "State": "active", "InstanceMatchCriteria": "targeted", "ReservationType": kind,
        "Tags": [{"Key": "team", "Value": "ml"}], "CapacityReservationArn": "arn:aws:ec2:us-east-1:1:capacity-reservation/x",
    });
    if let Some(e) = end {
        r["EndDate"] = json!(e);
    }
    r
}

fn request(yaml: &[String], reservations: serde_json::Value, now: Option<&str>) -> Request {
    let text = yaml.join("---\n");
    Request {
        inputs: vec![
            Input { name: Some("cluster.yaml".into()), text },
            Input { name: Some("reservations.json".into()), text: json!({"CapacityReservations": reservations}).to_string() },
        ],
        catalog: Some(json!({"source": "aws-us-east-1", "zones": ["us-east-1a", "us-east-1b"]})),
        now: now.map(str::to_string),
        ..Default::default()
    }
}

fn plan(req: &Request) -> Plan {
    match nodecast::plan(req).outcome {
        Outcome::Success(p) => p,
        Outcome::Failure { errors } => panic!("plan failed: {errors:?}"),
    }
}

#[test]
fn reservation_is_preferred_and_its_count_is_tracked_in_strict_mode() {
    let yaml = vec![NODE_CLASS.to_string(), pool("p5", 1, "reserved, on-demand"), pods(3)];
    let p = plan(&request(&yaml, json!([reservation("cr-a", "us-east-1a", "default", 1, None)]), None));
    // One NodeClaim launches into the reservation, at on-demand / 10,000,000.
    assert_eq!(p.node_claims.len(), 1, "{:#?}", p.unschedulable);
    let c = &p.node_claims[0];
    assert_eq!(c.capacity_type.as_deref(), Some("reserved"));
    assert_eq!(c.reservation_id.as_deref(), Some("cr-a"));
    assert_eq!(c.reservation_type.as_deref(), Some("default"));
    assert_eq!(c.labels.get("karpenter.k8s.aws/capacity-reservation-id").map(String::as_str), Some("cr-a"));
    assert!(c.requirements.iter().any(|r| r == "karpenter.sh/capacity-type In [reserved]"), "{:?}", c.requirements);
    assert!(c.price_per_hour.unwrap() < 0.001);
    // The other two pods are compatible with cr-a, which the first NodeClaim holds: strict
    // mode defers them (no on-demand launch in this pass).
    assert_eq!(p.unschedulable.len(), 2);
    assert!(p.unschedulable.iter().all(|u| u.code.as_str() == "reserved-offering-unavailable"));
    let r = &p.reservations[0];
    assert_eq!((r.used, r.remaining, r.total), (1, 0, 2));
    // An ODCR commits on-demand price × TotalInstanceCount.
    let od = 55.04;
    assert!((r.committed_price_per_hour.unwrap() - 2.0 * od).abs() < 10.0, "{:?}", r.committed_price_per_hour);
    assert_eq!(p.reserved_committed_price_per_hour, r.committed_price_per_hour);
}

#[test]
fn full_reservation_in_a_mixed_pool_launches_on_demand() {
    let yaml = vec![NODE_CLASS.to_string(), pool("p5", 1, "reserved, on-demand"), pods(1)];
    let p = plan(&request(&yaml, json!([reservation("cr-a", "us-east-1a", "default", 0, None)]), None));
    assert_eq!(p.node_claims.len(), 1);
    assert_eq!(p.node_claims[0].capacity_type.as_deref(), Some("on-demand"));
    assert_eq!(p.node_claims[0].reservation_id, None);
}

#[test]
fn full_reservation_in_a_reserved_only_pool_blocks_lower_pools() {
    let yaml = vec![NODE_CLASS.to_string(), pool("reserved", 100, "reserved"), pool("od", 10, "on-demand"), pods(1)];
    let p = plan(&request(&yaml, json!([reservation("cr-a", "us-east-1a", "default", 0, None)]), None));
    assert!(p.node_claims.is_empty(), "{:?}", p.node_claims);
    assert_eq!(p.unschedulable[0].code.as_str(), "reserved-offering-unavailable");
    // Without the reservation the same input launches on-demand from the lower pool.
    let p = plan(&request(&yaml, json!([]), None));
    assert_eq!(p.node_claims.len(), 1);
    assert_eq!(p.node_claims[0].node_pool, "od");
}

#[test]
fn capacity_block_is_not_offered_within_40_minutes_of_its_end() {
    let yaml = vec![NODE_CLASS.to_string(), pool("p5", 1, "reserved, on-demand"), pods(1)];
    let blocks = json!([reservation("cr-b", "us-east-1a", "capacity-block", 1, Some("2026-12-01T12:30:00+00:00"))]);
    // 11:49: 41 minutes before the end, still offered.
    let p = plan(&request(&yaml, blocks.clone(), Some("2026-12-01T11:49:00Z")));
    assert_eq!(p.node_claims[0].capacity_type.as_deref(), Some("reserved"));
    assert!(!p.reservations[0].depends_on_time);
    // 11:50: expiring.
    let p = plan(&request(&yaml, blocks.clone(), Some("2026-12-01T11:50:00Z")));
    assert_eq!(p.node_claims[0].capacity_type.as_deref(), Some("on-demand"));
    assert!(!p.reservations[0].offered);
    assert_eq!(p.node_class_reservations[0].not_selected[0].reason, "expiring");
    // A capacity block's price is prepaid and not in the AWS output: no committed price.
    assert_eq!(p.reservations[0].committed_price_per_hour, None);
    // Without a time the answer says the reservation's use depends on it.
    let p = plan(&request(&yaml, blocks, None));
    assert!(p.reservations[0].depends_on_time);
    assert!(p.warnings.iter().any(|w| w.code == "reservation-time-unknown"));
}

#[test]
fn selection_follows_the_selector_terms_and_says_why_not() {
    let mut expired = reservation("cr-c", "us-east-1a", "default", 1, None);
    expired["State"] = json!("expired");
    let mut untagged = reservation("cr-d", "us-east-1a", "default", 1, None);
    untagged["Tags"] = json!([]);
    let mut open = reservation("cr-e", "us-east-1a", "default", 1, None);
    open["InstanceMatchCriteria"] = json!("unknown-criteria");
    let yaml = vec![NODE_CLASS.to_string(), pool("p5", 1, "reserved, on-demand"), pods(1)];
    let p = plan(&request(&yaml, json!([expired, untagged, open, reservation("cr-f", "us-east-1c", "default", 1, None)]), None));
    let s = &p.node_class_reservations[0];
    assert_eq!(s.node_class, "gpu");
    assert_eq!(s.selected, vec!["cr-f"]);
    let reasons: Vec<(&str, &str)> = s.not_selected.iter().map(|n| (n.id.as_str(), n.reason.as_str())).collect();
    assert_eq!(
        reasons,
        vec![("cr-c", "not-active"), ("cr-d", "no-term-matches"), ("cr-e", "unsupported-match-criteria"), ("cr-f", "zone-not-offered")]
    );
    assert_eq!(p.node_claims[0].capacity_type.as_deref(), Some("on-demand"));
}

#[test]
fn bad_entries_get_located_errors_and_unknown_fields_are_tolerated() {
    let mut bad = reservation("cr-a", "us-east-1a", "default", 1, None);
    bad.as_object_mut().unwrap().remove("InstanceType");
    bad["AvailableInstanceCount"] = json!(-1);
    let yaml = vec![NODE_CLASS.to_string(), pool("p5", 1, "reserved"), pods(1)];
    let Outcome::Failure { errors } =
        nodecast::plan(&request(&yaml, json!([reservation("cr-x", "us-east-1a", "default", 1, None), bad]), None)).outcome
    else {
        panic!("accepted a reservation without InstanceType");
    };
    let located: Vec<(Option<&str>, Option<&str>, &str)> =
        errors.iter().map(|e| (e.source.as_deref(), e.path.as_deref(), e.code.as_str())).collect();
    assert!(located.contains(&(Some("reservations.json"), Some("CapacityReservations[1]"), "required")), "{located:?}");
    assert!(
        located.contains(&(Some("reservations.json"), Some("CapacityReservations[1].AvailableInstanceCount"), "out-of-range")),
        "{located:?}"
    );
    assert!(errors.iter().all(|e| e.object.as_deref() == Some("CapacityReservations")));
    // A duplicated id is refused too.
    let dup = json!([reservation("cr-a", "us-east-1a", "default", 1, None), reservation("cr-a", "us-east-1b", "default", 1, None)]);
    assert!(matches!(nodecast::plan(&request(&yaml, dup, None)).outcome, Outcome::Failure { .. }));
}

#[test]
fn reserved_node_is_priced_by_its_reservation() {
    let node = r#"
apiVersion: v1
kind: Node
metadata:
  name: p5-node
  labels:
    karpenter.sh/nodepool: p5
    node.kubernetes.io/instance-type: p5.48xlarge
    topology.kubernetes.io/zone: us-east-1a
    karpenter.sh/capacity-type: reserved
    karpenter.k8s.aws/capacity-reservation-id: cr-a
    karpenter.sh/initialized: "true"
    karpenter.sh/registered: "true"
  creationTimestamp: "2026-12-01T00:00:00Z"
status:
  capacity: {cpu: "192", memory: 2048Gi, pods: "100", nvidia.com/gpu: "8"}
  allocatable: {cpu: "191", memory: 2000Gi, pods: "100", nvidia.com/gpu: "8"}
  conditions: [{type: Ready, status: "True"}]
"#;
    let yaml = vec![NODE_CLASS.to_string(), pool("p5", 1, "reserved, on-demand"), node.to_string()];
    let mut req = request(&yaml, json!([reservation("cr-a", "us-east-1a", "default", 1, None)]), None);
    req.now = Some("2026-12-01T12:00:00Z".into());
    let Outcome::Success(d) = nodecast::consolidate(&req).outcome else { panic!("consolidate failed") };
    let n = d.nodes.iter().find(|n| n.name == "p5-node").expect("node in the answer");
    let price = n.price_per_hour.expect("a reserved node has a price");
    assert!(price > 0.0 && price < 0.001, "{price}");
}

#[test]
fn reserved_capacity_gate_off_switches_reservations_off() {
    let yaml = vec![NODE_CLASS.to_string(), pool("p5", 1, "reserved, on-demand"), pods(1)];
    let mut req = request(&yaml, json!([reservation("cr-a", "us-east-1a", "default", 1, None)]), None);
    req.settings.feature_gates.reserved_capacity = false;
    let p = plan(&req);
    assert_eq!(p.node_claims[0].capacity_type.as_deref(), Some("on-demand"));
    assert_eq!(p.node_class_reservations[0].not_selected[0].reason, "gate-off");
    assert!(!p.reservations[0].offered);
}

#[test]
fn explain_pod_says_which_reservation_and_why_not() {
    let yaml = vec![NODE_CLASS.to_string(), pool("p5", 1, "reserved, on-demand"), pods(1)];
    let mut req = request(&yaml, json!([reservation("cr-a", "us-east-1a", "default", 1, None)]), None);
    req.pod = Some("train-0".into());
    let Outcome::Success(e) = nodecast::explain(&req).outcome else { panic!("explain failed") };
    let summary = e.pod.expect("a pod explanation").summary;
    assert!(summary.contains("launches into capacity reservation cr-a"), "{summary}");
    let mut req = request(&yaml, json!([reservation("cr-a", "us-east-1a", "default", 0, None)]), None);
    req.pod = Some("train-0".into());
    let Outcome::Success(e) = nodecast::explain(&req).outcome else { panic!("explain failed") };
    let summary = e.pod.expect("a pod explanation").summary;
    assert!(summary.contains("not in a capacity reservation: cr-a: no instance left"), "{summary}");
}

/// A pod pinned to one reservation by its id.
fn pinned_pod(id: &str) -> String {
    format!(
        r#"
apiVersion: v1
kind: Pod
metadata: {{name: pinned}}
spec:
  nodeSelector: {{karpenter.k8s.aws/capacity-reservation-id: {id}}}
  containers:
  - name: c
    image: trainer
    resources: {{requests: {{cpu: "100", nvidia.com/gpu: "8"}}, limits: {{nvidia.com/gpu: "8"}}}}
"#
    )
}

/// The AWS provider's on-demand and spot offerings carry the reservation labels as DoesNotExist
/// (offering/base_resolver.go), so a pod that requires a reservation id never launches on them
/// (oracle seed reserved-30: nodecast had launched such pods on-demand).
#[test]
fn pod_pinned_to_a_reservation_never_launches_on_demand() {
    // An on-demand-only pool: no offering is compatible, the pod cannot schedule.
    let yaml = vec![NODE_CLASS.to_string(), pool("od", 10, "on-demand"), pinned_pod("cr-a")];
    let p = plan(&request(&yaml, json!([reservation("cr-a", "us-east-1a", "default", 1, None)]), None));
    assert!(p.node_claims.is_empty(), "{:?}", p.node_claims);
    assert_eq!(p.unschedulable.len(), 1);
    assert_ne!(p.unschedulable[0].code.as_str(), "reserved-offering-unavailable");
    // A mixed pool with the reservation full: on-demand is no fallback for this pod, so its only
    // option is a full reservation and strict mode defers it.
    let yaml = vec![NODE_CLASS.to_string(), pool("mixed", 10, "reserved, on-demand"), pinned_pod("cr-a")];
    let p = plan(&request(&yaml, json!([reservation("cr-a", "us-east-1a", "default", 0, None)]), None));
    assert!(p.node_claims.is_empty(), "{:?}", p.node_claims);
    assert_eq!(p.unschedulable[0].code.as_str(), "reserved-offering-unavailable");
    // With a free slot it launches into the reservation.
    let p = plan(&request(&yaml, json!([reservation("cr-a", "us-east-1a", "default", 1, None)]), None));
    assert_eq!(p.node_claims.len(), 1);
    assert_eq!(p.node_claims[0].reservation_id.as_deref(), Some("cr-a"));
}

/// A reservation selected by one EC2NodeClass is no offering of a NodePool of another class, also
/// when a pod that requires reserved capacity joins a NodeClaim already open in that NodePool
/// (oracle seed reserved-65: nodecast's type-compatibility cache left the class out of its key,
/// and the pod joined a NodeClaim that then had no offering to launch).
#[test]
fn reserved_pod_does_not_join_a_claim_whose_class_selected_no_reservation() {
    let other_class = NODE_CLASS.replace("name: gpu", "name: other").replace("tags: {team: ml}", "tags: {team: web}");
    let pool_other = pool("other", 10, "reserved, spot, on-demand").replace("name: gpu}", "name: other}");
    let pod = |name: &str, cpu: &str, gpus: u32, selector: &str| {
        format!(
            r#"
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  nodeSelector: {{{selector}}}
  containers:
  - name: c
    image: trainer
    resources: {{requests: {{cpu: "{cpu}", nvidia.com/gpu: "{gpus}"}}, limits: {{nvidia.com/gpu: "{gpus}"}}}}
"#
        )
    };
    let yaml = vec![
        NODE_CLASS.to_string(),
        other_class,
        pool_other,
        pod("big", "50", 4, ""),
        pod("wants-reserved", "1", 1, "karpenter.sh/capacity-type: reserved"),
    ];
    // cr-a is selected by class `gpu` only; NodePool `other` (class `other`) cannot launch it.
    let p = plan(&request(&yaml, json!([reservation("cr-a", "us-east-1a", "default", 1, None)]), None));
    assert!(p.node_claims.iter().all(|c| c.capacity_type.is_some()), "{:#?}", p.node_claims);
    assert!(p.node_claims.iter().all(|c| !c.pods.iter().any(|q| q.ends_with("wants-reserved"))), "{:#?}", p.node_claims);
    assert!(p.unschedulable.iter().any(|u| u.pod.ends_with("wants-reserved")), "{:?}", p.unschedulable);
}

#[test]
fn a_pod_deferred_on_a_held_reservation_gets_no_fix_hint() {
    // The heavier pool taints its nodes; the pods do not tolerate it, so each fails there
    // first (a hint would propose the toleration) and then on the reservation pool.
    let tainted = pool("tainted", 100, "on-demand")
        .replace("      requirements:", "      taints: [{key: team, value: other, effect: NoSchedule}]\n      requirements:");
    let yaml = vec![NODE_CLASS.to_string(), tainted, pool("p5", 1, "reserved, on-demand"), pods(3)];
    let p = plan(&request(&yaml, json!([reservation("cr-a", "us-east-1a", "default", 1, None)]), None));
    assert_eq!(p.node_claims.len(), 1);
    assert_eq!(p.unschedulable.len(), 2);
    for u in &p.unschedulable {
        assert_eq!(u.code.as_str(), "reserved-offering-unavailable");
        assert!(u.reasons.iter().any(|r| r.code.as_str() == "taint-not-tolerated"), "{:?}", u.reasons);
        // Deferred to the next pass, not stuck: no change is needed, so none is proposed.
        assert!(u.hints.is_empty(), "{:?}", u.hints);
    }
    assert!(!p.warnings.iter().any(|w| w.code == "hints-not-checked"), "{:?}", p.warnings);
    // Without the reservation the same pods fail nowhere: the pass is otherwise the same.
    let p = plan(&request(&yaml, json!([]), None));
    assert!(p.unschedulable.is_empty());
}

/// A pod bound to `node`, running since 11:30, with extra metadata lines.
fn bound_pod(name: &str, node: &str, meta: &str) -> String {
    format!(
        r#"
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  {meta}
spec:
  nodeName: {node}
  containers:
  - name: c
    image: trainer
    resources: {{requests: {{cpu: "100", nvidia.com/gpu: "8"}}, limits: {{nvidia.com/gpu: "8"}}}}
status:
  phase: Running
  startTime: "2026-12-01T11:30:00Z"
"#
    )
}

#[test]
fn pods_of_a_node_already_deleting_pend_again_in_the_pass() {
    // An on-demand p5 whose NodeClaim is being deleted (deletionTimestamp in the input): the
    // provisioner provisions for its currently reschedulable pods (provisioner.go Schedule,
    // nodes.Deleting().CurrentlyReschedulablePods), not for a do-not-disrupt one, nor for one
    // whose do-not-disrupt duration (1h from 11:30) has not run out at the pass time.
    let node = r#"
apiVersion: v1
kind: Node
metadata:
  name: old-p5
  deletionTimestamp: "2026-12-01T11:55:00Z"
  finalizers: [karpenter.sh/termination]
  labels:
    karpenter.sh/nodepool: p5
    node.kubernetes.io/instance-type: p5.48xlarge
    topology.kubernetes.io/zone: us-east-1a
    karpenter.sh/capacity-type: on-demand
    karpenter.sh/initialized: "true"
    karpenter.sh/registered: "true"
  creationTimestamp: "2026-12-01T00:00:00Z"
status:
  capacity: {cpu: "192", memory: 2048Gi, pods: "100", nvidia.com/gpu: "24"}
  allocatable: {cpu: "191", memory: 2000Gi, pods: "100", nvidia.com/gpu: "24"}
  conditions: [{type: Ready, status: "True"}]
"#;
    let yaml = vec![
        NODE_CLASS.to_string(),
        pool("p5", 1, "reserved, on-demand"),
        node.to_string(),
        bound_pod("train-0", "old-p5", ""),
        bound_pod("train-1", "old-p5", "annotations: {karpenter.sh/do-not-disrupt: \"true\"}"),
        bound_pod("train-2", "old-p5", "annotations: {karpenter.sh/do-not-disrupt: 1h}"),
    ];
    let res = json!([reservation("cr-a", "us-east-1a", "default", 2, None)]);
    let placed = |p: &Plan| {
        let mut v: Vec<String> = p.node_claims.iter().flat_map(|c| c.pods.iter().cloned()).collect();
        v.sort();
        v
    };
    // 12:00: train-2 is still protected; train-0 launches into the reservation.
    let p = plan(&request(&yaml, res.clone(), Some("2026-12-01T12:00:00Z")));
    assert_eq!(placed(&p), ["default/train-0"], "{:?}", p.unschedulable);
    assert_eq!(p.node_claims[0].reservation_id.as_deref(), Some("cr-a"));
    assert!(p.warnings.iter().all(|w| w.code != "deleting-node-pods-need-now"));
    // 12:31: its hour is over, so it pends too (the reservation's second slot is deferred to
    // the next pass by pessimistic reservation, or taken by the same NodeClaim: either way it
    // is provisioned for).
    let p = plan(&request(&yaml, res.clone(), Some("2026-12-01T12:31:00Z")));
    let provisioned: Vec<String> = placed(&p).into_iter().chain(p.unschedulable.iter().map(|u| u.pod.clone())).collect();
    assert!(provisioned.contains(&"default/train-2".to_string()), "{provisioned:?}");
    assert!(!provisioned.contains(&"default/train-1".to_string()), "{provisioned:?}");
    // Without a pass time the duration cannot be evaluated: train-2 stays, and a warning says so.
    let p = plan(&request(&yaml, res, None));
    assert_eq!(placed(&p), ["default/train-0"]);
    let w = p.warnings.iter().find(|w| w.code == "deleting-node-pods-need-now").expect("a warning on the time-dependent pod");
    assert!(w.message.contains("default/train-2"), "{}", w.message);
}
