//! Issue 38, reservations on a clock: in the simulator (offered between StartDate and EndDate,
//! counts tracked through the run, capacity blocks deleting their NodeClaims 40 minutes before
//! the end, ODCR nodes turning on-demand at its end, utilisation and committed cost), in
//! `consolidate --now` / `explain --node`, and as a sweep axis.
//!
//! Latencies are fixed so times are computable by hand: batch 1 s, GPU start-up 240 s, device
//! plugin 75 s. The trace starts at 2026-12-07T00:00:00Z (time 0).

mod common;
use common::{fixed, NODE_CLASS, PLUGIN, STARTUP};
use nodecast::simulate::{SimSettings, Simulation};
use nodecast::{Input, Outcome, Request};
use serde_json::{json, Value};

const START: &str = "2026-12-07T00:00:00Z";

fn pool(capacity_types: &str) -> String {
    format!(
        r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: p5}}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}}
      requirements:
      - {{key: karpenter.sh/capacity-type, operator: In, values: [{capacity_types}]}}
      - {{key: node.kubernetes.io/instance-type, operator: In, values: [p5.48xlarge]}}
  disruption: {{consolidationPolicy: WhenEmpty, consolidateAfter: 0s}}
"#
    )
}

fn job(name: &str, annotations: &str) -> String {
    format!(
        r#"
apiVersion: batch/v1
kind: Job
metadata: {{name: {name}, namespace: ml}}
spec:
  template:
    metadata: {{annotations: {{{annotations}}}}}
    spec:
      containers:
      - name: t
        image: trainer
        resources: {{requests: {{cpu: "100", nvidia.com/gpu: "8"}}, limits: {{nvidia.com/gpu: "8"}}}}
"#
    )
}

/// Seconds after the trace start, as the AWS CLI prints a date.
fn at(seconds: i64) -> String {
    let t = START.parse::<jiff::Timestamp>().unwrap().as_second() + seconds;
    jiff::Timestamp::from_second(t).unwrap().to_string()
}

fn reservation(id: &str, kind: &str, total: i64, state: &str, start: Option<i64>, end: Option<i64>) -> Value {
    let mut r = json!({
        "CapacityReservationId": id, "OwnerId": "123456789012", "InstanceType": "p5.48xlarge",
        "AvailabilityZone": "us-east-1a", "TotalInstanceCount": total, "AvailableInstanceCount": total,
        "State": state, "InstanceMatchCriteria": "targeted", "ReservationType": kind,
        "Tags": [{"Key": "team", "Value": "ml"}],
    });
    if let Some(s) = start {
        r["StartDate"] = json!(at(s));
    }
    if let Some(e) = end {
        r["EndDate"] = json!(at(e));
    }
    r
}

fn request(yaml: &[String], reservations: Value, events: &str, end: &str, s: SimSettings) -> Request {
    let trace = format!("kind: Trace\nstart: \"{START}\"\nend: {end}\nevents:\n{events}");
    Request {
        inputs: vec![
            Input { name: Some("cluster.yaml".into()), text: yaml.join("---\n") },
            Input { name: Some("reservations.json".into()), text: json!({"CapacityReservations": reservations}).to_string() },
        ],
        catalog: Some(json!({"source": "aws-us-east-1", "zones": ["us-east-1a"]})),
        trace: Some(nodecast::simulate::TraceInput { name: Some("trace.yaml".into()), text: trace, format: None }),
        simulation: Some(s),
        ..Default::default()
    }
}

fn run(req: &Request) -> Simulation {
    match nodecast::simulate(req).outcome {
        Outcome::Success(s) => s,
        Outcome::Failure { errors } => panic!("{errors:?}"),
    }
}

fn events<'a>(s: &'a Simulation, event: &str) -> Vec<&'a nodecast::simulate::TimelineEntry> {
    s.timeline.iter().filter(|e| e.event.as_str() == event).collect()
}

fn launch_detail(s: &Simulation, node: &str) -> String {
    events(s, "nodeclaim-launched").iter().find(|e| e.object == node).and_then(|e| e.detail.clone()).unwrap_or_default()
}

#[test]
fn a_scheduled_capacity_block_is_offered_from_its_start_date() {
    // Reserved-only pool; the block starts at 1 h: the pod submitted at 0 waits for it.
    let yaml = vec![NODE_CLASS.to_string(), pool("reserved"), job("a", "")];
    let res = json!([reservation("cr-block", "capacity-block", 1, "scheduled", Some(3600), Some(20 * 3600))]);
    let s = run(&request(&yaml, res, "- {at: 0s, submit: {ref: Job/ml/a, runTime: 1h}}\n", "10h", fixed()));
    let active = events(&s, "reservation-active");
    assert_eq!(active.len(), 1, "{:?}", s.timeline);
    assert_eq!((active[0].time_seconds, active[0].object.as_str()), (3600, "cr-block"));
    let launched = events(&s, "nodeclaim-launched");
    assert_eq!(launched.len(), 1);
    assert!(launched[0].time_seconds >= 3600, "launched at {} before the block starts", launched[0].time_seconds);
    assert!(launch_detail(&s, "p5-1").contains("capacity reservation cr-block"), "{}", launch_detail(&s, "p5-1"));
    assert_eq!(s.nodes[0].capacity_type.as_deref(), Some("reserved"));
    let pod = &s.pods[0];
    assert!(pod.pending_seconds >= 3600, "the pod waited for the block: {}", pod.pending_seconds);
    assert_eq!(s.reservations[0].launches, 1);
    assert_eq!(s.reservations[0].active_from_seconds, Some(3600));
}

#[test]
fn a_launch_takes_a_slot_and_a_terminated_nodeclaim_gives_it_back() {
    // One-instance ODCR, pool [reserved, on-demand]: a at 0 takes the slot, b at 10 min finds
    // it used and goes on-demand, c at 3 h (a finished at about 1 h) gets the slot back.
    let yaml = vec![NODE_CLASS.to_string(), pool("reserved, on-demand"), job("a", ""), job("b", ""), job("c", "")];
    let res = json!([reservation("cr-odcr", "default", 1, "active", None, None)]);
    let events_text =
        "- {at: 0s, submit: {ref: Job/ml/a, runTime: 1h}}\n- {at: 10m, submit: {ref: Job/ml/b, runTime: 1h}}\n- {at: 3h, submit: {ref: Job/ml/c, runTime: 1h}}\n";
    let s = run(&request(&yaml, res, events_text, "6h", fixed()));
    let types: Vec<(&str, &str)> = s.nodes.iter().map(|n| (n.name.as_str(), n.capacity_type.as_deref().unwrap_or(""))).collect();
    assert_eq!(types, [("p5-1", "reserved"), ("p5-2", "on-demand"), ("p5-3", "reserved")]);
    let r = &s.reservations[0];
    assert_eq!((r.launches, r.peak_used), (2, 1));
    // Used while a NodeClaim held the slot: p5-1 (launch to its termination) and p5-3.
    let held: i64 = s.nodes.iter().filter(|n| n.capacity_type.as_deref() == Some("reserved")).map(|n| n.lifetime_seconds).sum();
    assert!((r.used_instance_hours - held as f64 / 3600.0).abs() < 1e-5, "{} vs {held} s", r.used_instance_hours);
    let hours = s.summary.duration_seconds as f64 / 3600.0;
    assert!((r.utilization - r.used_instance_hours / hours).abs() < 1e-4, "{} over {hours} h", r.utilization);
    // An ODCR bills the on-demand price of every instance for the whole run.
    let od = s.nodes[1].price_per_hour_usd;
    assert_eq!(r.committed_price_per_hour_usd, Some(od));
    assert!((r.committed_cost_usd.unwrap() - od * hours).abs() < 1e-4);
    assert_eq!(s.summary.reserved_committed_cost_usd, r.committed_cost_usd);
    let by_type = &s.summary.cost_by_capacity_type;
    assert!(by_type["on-demand"] > 10.0 && by_type["reserved"] < 0.001, "{by_type:?}");
    assert!((s.summary.total_cost_with_reservations_usd.unwrap() - (s.summary.cost_usd + od * hours)).abs() < 1e-4);
}

#[test]
fn an_expiring_capacity_block_deletes_its_nodeclaims_and_their_pods_run_again_on_demand() {
    let end = 4 * 3600;
    let yaml = vec![NODE_CLASS.to_string(), pool("reserved, on-demand"), job("a", "")];
    let res = json!([reservation("cr-block", "capacity-block", 1, "active", Some(-3600), Some(end))]);
    let s = run(&request(&yaml, res, "- {at: 0s, submit: {ref: Job/ml/a, runTime: 10h}}\n", "12h", fixed()));
    let deleted = events(&s, "nodeclaim-disrupted");
    assert_eq!(deleted.len(), 1, "{deleted:?}");
    assert_eq!(deleted[0].time_seconds, end - 40 * 60, "Karpenter deletes 40 minutes before the end");
    assert_eq!(deleted[0].reason.as_deref(), Some("capacity-block-expiring"));
    let block_node = &s.nodes[0];
    assert_eq!(block_node.capacity_type.as_deref(), Some("reserved"));
    assert_eq!(block_node.termination_reason.map(|r| r.as_str()), Some("capacity-block-expiring"));
    assert_eq!(block_node.terminated_seconds, Some(end - 40 * 60));
    // The pod is provisioned again: the block is expiring, so on demand.
    let pod = &s.pods[0];
    assert_eq!(pod.restarts, 1);
    assert_eq!(pod.nodes.len(), 2, "{:?}", pod.nodes);
    assert_eq!(s.nodes[1].capacity_type.as_deref(), Some("on-demand"));
    assert!(s.nodes[1].launched_seconds >= end - 40 * 60 && s.nodes[1].launched_seconds <= end - 40 * 60 + 2);
    // Replacement cost and pending time are counted.
    assert!(pod.pending_seconds >= 2 * (STARTUP + PLUGIN), "{}", pod.pending_seconds);
    assert!(s.summary.cost_usd > 50.0);
    assert_eq!(s.summary.disruptions.by_reason.get("capacity-block-expiring"), Some(&1));
    let r = &s.reservations[0];
    assert_eq!((r.nodes_deleted, r.active_until_seconds), (1, Some(end)));
    assert!(events(&s, "reservation-expiring").iter().any(|e| e.time_seconds == end - 40 * 60));
    // No price given: unknown committed cost, said so.
    assert_eq!(r.committed_cost_usd, None);
    assert!(r.note.as_deref().unwrap_or("").contains("capacityBlockPrices"));
    assert!(s.warnings.iter().any(|w| w.code == "reservation-price-unknown"));
    // The series show the block used, then not active.
    let used = s.series.metrics.iter().find(|m| m.name == "nodecast_capacity_reservation_used_instances").expect("series");
    assert_eq!(used.labels["reservation_id"], "cr-block");
    let sample = |t: i64| used.values[s.series.times_seconds.iter().position(|&x| x == t).unwrap()];
    assert_eq!((sample(3600), sample(5 * 3600)), (1.0, 0.0));
}

#[test]
fn a_do_not_disrupt_pod_on_an_expiring_block_runs_until_ec2_reclaims_the_instance() {
    let end = 4 * 3600;
    let yaml = vec![NODE_CLASS.to_string(), pool("reserved, on-demand"), job("a", "karpenter.sh/do-not-disrupt: \"true\"")];
    let res = json!([reservation("cr-block", "capacity-block", 1, "active", None, Some(end))]);
    let mut st = fixed();
    st.capacity_block_prices.insert("cr-block".into(), 30.0);
    let s = run(&request(&yaml, res, "- {at: 0s, submit: {ref: Job/ml/a, runTime: 10h}}\n", "12h", st));
    assert_eq!(s.nodes[0].terminated_seconds, Some(end - 30 * 60), "EC2 reclaims 30 minutes before the end");
    // The given price: 30 $/instance-hour over the 4 h the block was active in the run.
    let r = &s.reservations[0];
    assert_eq!(r.committed_cost_usd, Some(120.0));
    assert_eq!(r.committed_price_per_hour_usd, Some(30.0));
    assert!(!s.warnings.iter().any(|w| w.code == "reservation-price-unknown"));
}

#[test]
fn an_ended_odcr_turns_its_nodes_on_demand_and_they_are_priced_so() {
    let end = 2 * 3600;
    let yaml = vec![NODE_CLASS.to_string(), pool("reserved, on-demand"), job("a", "")];
    let res = json!([reservation("cr-odcr", "default", 1, "active", None, Some(end))]);
    let s = run(&request(&yaml, res, "- {at: 0s, submit: {ref: Job/ml/a, runTime: 5h}}\n", "8h", fixed()));
    let relabeled = events(&s, "nodeclaim-relabeled");
    assert_eq!(relabeled.len(), 1);
    assert_eq!((relabeled[0].time_seconds, relabeled[0].reason.as_deref()), (end, Some("on-demand")));
    let n = &s.nodes[0];
    assert_eq!(n.capacity_type.as_deref(), Some("on-demand"));
    assert_eq!(s.pods[0].restarts, 0, "the instance keeps running");
    // Priced reserved (on-demand / 10^7) until the end, on demand after.
    let od_hours = (n.terminated_seconds.unwrap() - end) as f64 / 3600.0;
    assert!((n.cost_usd - n.price_per_hour_usd * od_hours).abs() < 0.01, "{} vs {}", n.cost_usd, n.price_per_hour_usd * od_hours);
    assert_eq!(s.reservations[0].nodes_on_demand, 1);
    // Committed only while the ODCR lasted.
    assert!((s.reservations[0].committed_cost_usd.unwrap() - n.price_per_hour_usd * 2.0).abs() < 1e-4);
}

#[test]
fn capacity_block_prices_must_name_a_capacity_block() {
    let yaml = vec![NODE_CLASS.to_string(), pool("reserved, on-demand"), job("a", "")];
    let res = json!([reservation("cr-odcr", "default", 1, "active", None, None)]);
    let mut st = fixed();
    st.capacity_block_prices.insert("cr-odcr".into(), 30.0);
    let Outcome::Failure { errors } =
        nodecast::simulate(&request(&yaml, res, "- {at: 0s, submit: {ref: Job/ml/a, runTime: 1h}}\n", "2h", st)).outcome
    else {
        panic!("an ODCR's id is not a capacity block")
    };
    assert_eq!(errors[0].path.as_deref(), Some("simulation.capacityBlockPrices[\"cr-odcr\"]"));
    let mut st = fixed();
    st.capacity_block_prices.insert("cr-x".into(), f64::NAN);
    assert!(st.check().is_err());
}

fn node(name: &str, reservation: &str) -> String {
    format!(
        r#"
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels:
    karpenter.sh/nodepool: p5
    node.kubernetes.io/instance-type: p5.48xlarge
    topology.kubernetes.io/zone: us-east-1a
    karpenter.sh/capacity-type: reserved
    karpenter.k8s.aws/capacity-reservation-id: {reservation}
    karpenter.sh/initialized: "true"
    karpenter.sh/registered: "true"
  creationTimestamp: "2026-12-01T00:00:00Z"
status:
  capacity: {{cpu: "192", memory: 2048Gi, pods: "100", nvidia.com/gpu: "8"}}
  allocatable: {{cpu: "191", memory: 2000Gi, pods: "100", nvidia.com/gpu: "8"}}
  conditions: [{{type: Ready, status: "True"}}]
"#
    )
}

fn consolidate_request(yaml: &[String], reservations: Value, now: &str) -> Request {
    Request {
        inputs: vec![
            Input { name: Some("cluster.yaml".into()), text: yaml.join("---\n") },
            Input { name: Some("reservations.json".into()), text: json!({"CapacityReservations": reservations}).to_string() },
        ],
        catalog: Some(json!({"source": "aws-us-east-1", "zones": ["us-east-1a"]})),
        now: Some(now.into()),
        ..Default::default()
    }
}

#[test]
fn consolidate_now_sees_an_expiring_block_delete_its_node_and_an_ended_odcr_demote_its_node() {
    let yaml = vec![NODE_CLASS.to_string(), pool("reserved"), node("block-node", "cr-block"), node("odcr-node", "cr-odcr")];
    let res = json!([
        reservation("cr-block", "capacity-block", 1, "active", None, Some(3600)),
        reservation("cr-odcr", "default", 1, "active", None, Some(-60)),
    ]);
    // 30 minutes before the block's end: expiring.
    let req = consolidate_request(&yaml, res.clone(), &at(1800));
    let Outcome::Success(d) = nodecast::consolidate(&req).outcome else { panic!("consolidate failed") };
    let changes: Vec<(&str, &str)> = d.reservation_changes.iter().map(|c| (c.node.as_str(), c.change.as_str())).collect();
    assert_eq!(changes, [("block-node", "deleted"), ("odcr-node", "on-demand")]);
    let block = d.nodes.iter().find(|n| n.name == "block-node").unwrap();
    assert_eq!(block.reasons[0].code.as_str(), "deleting");
    assert!(block.reasons[0].message.contains("capacityreservation.expiration"), "{}", block.reasons[0].message);
    // The ODCR's node runs on as on-demand: priced so, and drifted (the pool allows reserved only).
    let odcr = d.nodes.iter().find(|n| n.name == "odcr-node").unwrap();
    assert_eq!(odcr.capacity_type.as_deref(), Some("on-demand"));
    assert!(odcr.price_per_hour.unwrap() > 50.0);
    assert_eq!(odcr.drift.as_ref().map(|d| d.reason.as_str()), Some("RequirementsDrifted"));
    // explain --node says so.
    let mut ex = req.clone();
    ex.node = Some("odcr-node".into());
    let Outcome::Success(e) = nodecast::explain(&ex).outcome else { panic!("explain failed") };
    let summary = e.node.unwrap().summary;
    assert!(summary.contains("keeps running as on-demand"), "{summary}");
    // An hour before, nothing has ended: no change, the block node is an ordinary reserved node.
    let early = consolidate_request(&yaml, json!([reservation("cr-block", "capacity-block", 1, "active", None, Some(3600))]), &at(-3600));
    let Outcome::Success(d) = nodecast::consolidate(&early).outcome else { panic!("consolidate failed") };
    assert!(d.reservation_changes.is_empty());
}

#[test]
fn a_sweep_varies_a_reservations_instance_count() {
    let files: indexmap::IndexMap<String, String> = [
        ("cluster.yaml".to_string(), [NODE_CLASS.to_string(), pool("reserved, on-demand"), job("a", "")].join("---\n")),
        (
            "reservations.json".to_string(),
            json!({"CapacityReservations": [{
                "CapacityReservationId": "cr-block", "OwnerId": "1", "InstanceType": "p5.48xlarge",
                "AvailabilityZone": "us-east-1a", "TotalInstanceCount": 3, "AvailableInstanceCount": 2,
                "State": "active", "InstanceMatchCriteria": "targeted", "ReservationType": "capacity-block",
                "Tags": [{"Key": "team", "Value": "ml"}]}]})
            .to_string(),
        ),
        ("trace.yaml".to_string(), "kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/ml/a, runTime: 1h}}\n".to_string()),
    ]
    .into_iter()
    .collect();
    let spec = "operation: simulate\ninputs: [cluster.yaml, reservations.json]\ntraces: [trace.yaml]\ncatalog: {source: aws-us-east-1, zones: [us-east-1a]}\ngrid:\n- {name: instances, target: CapacityReservation/cr-block, path: InstanceCount, values: [0, 4]}\n";
    let sweep = nodecast::sweep::load(spec, Some("s.yaml"), &files).expect("spec loads");
    // One instance runs outside the cluster (3 total, 2 available): resizing keeps it.
    for (i, (total, available)) in [(0, 0), (4, 3)].into_iter().enumerate() {
        let req = sweep.request(i).unwrap();
        let doc: Value = serde_json::from_str(&req.inputs[1].text).unwrap();
        let e = &doc["CapacityReservations"][0];
        assert_eq!((e["TotalInstanceCount"].as_i64(), e["AvailableInstanceCount"].as_i64()), (Some(total), Some(available)));
    }
    let (row, _) = sweep.run(0, false);
    let cols = sweep.columns();
    let status = cols.iter().position(|c| c == "status").unwrap();
    assert_eq!(row[status], "success");
    // A reservation the inputs do not have is a located spec error.
    let bad = spec.replace("CapacityReservation/cr-block", "CapacityReservation/cr-nope");
    let errors = nodecast::sweep::load(&bad, Some("s.yaml"), &files).unwrap_err();
    assert!(errors.iter().any(|e| e.path.as_deref() == Some("grid[0].target") && e.message.contains("cr-nope")), "{errors:?}");
}

/// A pod bound to `node`, holding all eight of its GPUs; `annotations` as YAML flow mapping
/// entries.
fn bound_pod(name: &str, node: &str, annotations: &str) -> String {
    format!(
        r#"
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: ml, annotations: {{{annotations}}}}}
spec:
  nodeName: {node}
  containers:
  - name: t
    image: trainer
    resources: {{requests: {{cpu: "100", nvidia.com/gpu: "8"}}, limits: {{nvidia.com/gpu: "8"}}}}
status: {{phase: Running}}
"#
    )
}

#[test]
fn plan_now_deletes_an_expiring_blocks_nodes_re_pends_their_pods_and_demotes_an_ended_odcrs_nodes() {
    let yaml = vec![
        NODE_CLASS.to_string(),
        pool("reserved, on-demand"),
        node("block-node", "cr-block"),
        node("odcr-node", "cr-odcr"),
        bound_pod("train", "block-node", ""),
        bound_pod("infer", "odcr-node", ""),
    ];
    let res = json!([
        reservation("cr-block", "capacity-block", 1, "active", None, Some(3600)),
        reservation("cr-odcr", "default", 1, "active", None, Some(-60)),
    ]);
    // 30 minutes before the block's end: expiring, so the expiration controller deleted its
    // NodeClaim before this pass, and the provisioner places its pod again.
    let req = consolidate_request(&yaml, res.clone(), &at(1800));
    let Outcome::Success(p) = nodecast::plan(&req).outcome else { panic!("plan failed") };
    let changes: Vec<(&str, &str, &str)> =
        p.reservation_changes.iter().map(|c| (c.node.as_str(), c.reservation_id.as_str(), c.change.as_str())).collect();
    assert_eq!(changes, [("block-node", "cr-block", "deleted"), ("odcr-node", "cr-odcr", "on-demand")]);
    assert!(p.reservation_changes[0].message.contains("capacityreservation.expiration"), "{}", p.reservation_changes[0].message);
    // The block is no longer offered and the ODCR has ended: the pod launches on demand (the
    // demoted ODCR node is full).
    assert_eq!(p.node_claims.len(), 1, "{:?}", p.unschedulable);
    assert_eq!(p.node_claims[0].pods, ["ml/train"]);
    assert_eq!(p.node_claims[0].capacity_type.as_deref(), Some("on-demand"));
    assert!(p.existing_nodes.iter().all(|n| n.name != "block-node"));
    // The JSON facade (Python, wasm) carries the changes.
    let json = nodecast::plan(&req).to_json();
    assert!(json.contains("\"reservationChanges\""), "{json}");

    // A do-not-disrupt pod is not currently reschedulable: Karpenter does not provision for it
    // (it waits on the deleting node until its terminationGracePeriod).
    let mut pinned = yaml.clone();
    pinned[4] = bound_pod("train", "block-node", "karpenter.sh/do-not-disrupt: \"true\"");
    let Outcome::Success(p) = nodecast::plan(&consolidate_request(&pinned, res.clone(), &at(1800))).outcome else { panic!("plan failed") };
    assert_eq!(p.reservation_changes.len(), 2);
    assert!(p.node_claims.is_empty(), "{:?}", p.node_claims);

    // An hour before the end nothing has ended, and without a pass time nothing is applied.
    for now in [Some(at(-3600)), None] {
        let mut early = consolidate_request(&yaml, json!([reservation("cr-block", "capacity-block", 1, "active", None, Some(3600))]), "x");
        early.now = now;
        let Outcome::Success(p) = nodecast::plan(&early).outcome else { panic!("plan failed") };
        assert!(p.reservation_changes.is_empty());
        assert!(p.node_claims.is_empty() && p.unschedulable.is_empty(), "{:?} {:?}", p.node_claims, p.unschedulable);
        assert!(!nodecast::plan(&early).to_json().contains("reservationChanges"));
    }
}

fn interruptible(id: &str, total: i64) -> Value {
    let mut r = reservation(id, "default", total, "active", None, None);
    r["Interruptible"] = json!(true);
    r
}

fn node_entry<'a>(s: &'a Simulation, name: &str) -> &'a nodecast::simulate::NodeOut {
    s.nodes.iter().find(|n| n.name == name).unwrap_or_else(|| panic!("no node {name}: {:?}", s.nodes))
}

#[test]
fn an_interruption_notice_deletes_the_nodeclaim_and_hides_the_reservation_for_three_minutes() {
    // Interruptible ODCR with 2 instances, pool [reserved, on-demand]. `a` takes one slot at 0;
    // at 1 h the owner reclaims its instance. Karpenter deletes the NodeClaim and marks the
    // reservation's offering unavailable for 3 minutes, so `a`'s replacement goes on demand
    // although a slot is free; `b` at 2 h finds the offering back, with the slot left.
    let yaml = vec![NODE_CLASS.to_string(), pool("reserved, on-demand"), job("a", ""), job("b", "")];
    let res = json!([interruptible("cr-int", 2)]);
    let ev = "- {at: 0s, submit: {ref: Job/ml/a, runTime: 10h}}\n- {at: 1h, reservationInterrupt: {reservation: cr-int}}\n- {at: 2h, submit: {ref: Job/ml/b, runTime: 1h}}\n";
    let s = run(&request(&yaml, res, ev, "12h", fixed()));
    let notices = events(&s, "nodeclaim-interrupted");
    assert_eq!(notices.len(), 1, "{:?}", s.timeline);
    assert_eq!((notices[0].time_seconds, notices[0].object.as_str()), (3600, "p5-1"));
    assert_eq!(notices[0].reason.as_deref(), Some("reservation-interrupted"));
    assert!(notices[0].detail.as_deref().unwrap_or("").contains("cr-int"), "{:?}", notices[0].detail);
    let first = node_entry(&s, "p5-1");
    assert_eq!(first.capacity_type.as_deref(), Some("reserved"));
    // EC2 terminates the instance two minutes after the warning.
    assert_eq!(
        (first.terminated_seconds, first.termination_reason.map(|r| r.as_str())),
        (Some(3600 + 120), Some("reservation-interrupted"))
    );
    // The replacement for `a` is on demand: the offering is hidden, the free slot unused.
    let replacement = node_entry(&s, "p5-2");
    assert!(replacement.launched_seconds >= 3600 && replacement.launched_seconds < 3600 + 180, "{}", replacement.launched_seconds);
    assert_eq!(replacement.capacity_type.as_deref(), Some("on-demand"), "{:?}", s.timeline);
    let hidden = events(&s, "reservation-offering-unavailable");
    let back = events(&s, "reservation-offering-available");
    assert_eq!((hidden.len(), back.len()), (1, 1));
    assert_eq!((hidden[0].time_seconds, back[0].time_seconds), (3600, 3600 + 180));
    // `b` launches into the reservation again: its one slot left (the reclaimed one is gone).
    let third = node_entry(&s, "p5-3");
    assert_eq!(third.capacity_type.as_deref(), Some("reserved"));
    assert!(launch_detail(&s, "p5-3").contains("cr-int"), "{}", launch_detail(&s, "p5-3"));
    let pod_a = s.pods.iter().find(|p| p.workload.ends_with("/a")).expect("pod a");
    assert_eq!(pod_a.restarts, 1);
    assert_eq!(s.summary.disruptions.by_reason.get("reservation-interrupted"), Some(&1));
    let r = &s.reservations[0];
    assert_eq!((r.total, r.launches, r.nodes_interrupted), (2, 2, 1));
    // The reclaimed instance stops being committed when it leaves (at 1 h 2 min).
    let od = replacement.price_per_hour_usd;
    let hours = s.summary.duration_seconds as f64 / 3600.0;
    let expected = od * (2.0 * hours - (hours - 3720.0 / 3600.0));
    assert!((r.committed_cost_usd.unwrap() - expected).abs() < 1e-3, "{:?} vs {expected}", r.committed_cost_usd);
    let instances = s.series.metrics.iter().find(|m| m.name == "nodecast_capacity_reservation_instances").expect("series");
    let sample = |t: i64| instances.values[s.series.times_seconds.iter().position(|&x| x == t).unwrap()];
    assert_eq!((sample(1800), sample(3 * 3600)), (2.0, 1.0));
}

#[test]
fn a_reserved_only_pool_waits_out_the_hidden_offering() {
    // Reserved-only pool: the evicted pod has nowhere to go until the 3 minutes are over, then
    // it launches into the reservation's remaining slot.
    let yaml = vec![NODE_CLASS.to_string(), pool("reserved"), job("a", "")];
    let res = json!([interruptible("cr-int", 2)]);
    let ev = "- {at: 0s, submit: {ref: Job/ml/a, runTime: 10h}}\n- {at: 1h, reservationInterrupt: {reservation: cr-int, node: p5-1}}\n";
    let s = run(&request(&yaml, res, ev, "12h", fixed()));
    let second = node_entry(&s, "p5-2");
    assert!(
        second.launched_seconds >= 3600 + 180 && second.launched_seconds <= 3600 + 190,
        "launched at {} (the offering is hidden until {})",
        second.launched_seconds,
        3600 + 180
    );
    assert_eq!(second.capacity_type.as_deref(), Some("reserved"));
    assert!(s.pods[0].pending_seconds >= 180, "{}", s.pods[0].pending_seconds);
    assert_eq!(s.reservations[0].nodes_interrupted, 1);
}

#[test]
fn an_interruption_notice_must_name_an_interruptible_reservation() {
    let yaml = vec![NODE_CLASS.to_string(), pool("reserved, on-demand"), job("a", "")];
    let res = json!([reservation("cr-odcr", "default", 1, "active", None, None), interruptible("cr-int", 1)]);
    for (event, code) in [("cr-odcr", "not-interruptible"), ("cr-nope", "unknown-reservation")] {
        let ev = format!("- {{at: 0s, submit: {{ref: Job/ml/a, runTime: 1h}}}}\n- {{at: 1h, reservationInterrupt: {event}}}\n");
        let Outcome::Failure { errors } = nodecast::simulate(&request(&yaml, res.clone(), &ev, "2h", fixed())).outcome else {
            panic!("{event} is refused")
        };
        assert_eq!(errors[0].code, code, "{errors:?}");
        assert_eq!(errors[0].path.as_deref(), Some("events[1].reservationInterrupt"));
        assert_eq!(errors[0].source.as_deref(), Some("trace.yaml"));
    }
    // A NodeClaim that is not in the reservation gets no notice: a warning, nothing happens.
    let ev = "- {at: 0s, submit: {ref: Job/ml/a, runTime: 3h}}\n- {at: 1h, reservationInterrupt: {reservation: cr-int, node: p5-9}}\n";
    let s = run(&request(&yaml, res, ev, "4h", fixed()));
    assert!(s.warnings.iter().any(|w| w.code == "reservation-interrupt-unmatched"), "{:?}", s.warnings);
    assert!(events(&s, "nodeclaim-interrupted").is_empty());
    assert_eq!(s.reservations[1].nodes_interrupted, 0);
}
