//! Hand-computed lifecycle scenarios (issue #7), determinism, and property tests of `simulate`.
//!
//! Start-up latencies are fixed (min == max) so every expected number is computable by hand:
//! batch 1 s, GPU start-up 240 s, device plugin 75 s. g5.xlarge costs $1.006/h on demand in the
//! embedded AWS catalog.

mod common;
use common::{fixed, PLUGIN, STARTUP};
use nodecast::simulate::{SimSettings, Simulation};
use nodecast::{Input, Outcome, Request};
use proptest::prelude::*;

const PRICE: f64 = 1.006;
const BATCH: i64 = 1;
/// Karpenter validates an emptiness or consolidation command 15 s after deciding it and carries
/// it out then (disruption/validation.go, fidelity note 57).
const VALIDATION: i64 = 15;

fn pool(extra_disruption: &str, expire: &str, capacity: &str) -> String {
    format!(
        r#"
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {{name: gpu}}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{{alias: al2023@latest}}]
  subnetSelectorTerms: [{{tags: {{karpenter.sh/discovery: c}}}}]
  securityGroupSelectorTerms: [{{tags: {{karpenter.sh/discovery: c}}}}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: gpu}}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}}
      expireAfter: {expire}
      terminationGracePeriod: 10m
      requirements:
      - {{key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge]}}
      - {{key: karpenter.sh/capacity-type, operator: In, values: [{capacity}]}}
      - {{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}}
  limits:
    nvidia.com/gpu: "4"
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 5m
{extra_disruption}
---
apiVersion: batch/v1
kind: Job
metadata: {{name: train, namespace: ml}}
spec:
  template:
    spec:
      containers:
      - name: t
        image: pytorch
        resources: {{requests: {{cpu: "2", memory: 8Gi, nvidia.com/gpu: "1"}}, limits: {{nvidia.com/gpu: "1"}}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: serve, namespace: ml}}
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: s
        image: vllm
        resources: {{requests: {{cpu: "2", memory: 8Gi, nvidia.com/gpu: "1"}}, limits: {{nvidia.com/gpu: "1"}}}}
"#
    )
}

fn request(cluster: &str, trace: &str, settings: SimSettings) -> Request {
    Request {
        inputs: vec![Input { name: Some("cluster.yaml".into()), text: cluster.into() }],
        trace: Some(nodecast::simulate::TraceInput { name: Some("trace.yaml".into()), text: trace.into(), format: None }),
        simulation: Some(settings),
        ..Default::default()
    }
}

fn run(cluster: &str, trace: &str, settings: SimSettings) -> Simulation {
    let answer = nodecast::simulate(&request(cluster, trace, settings));
    match answer.outcome {
        Outcome::Success(s) => s,
        Outcome::Failure { errors } => panic!("{errors:?}"),
    }
}

fn usd(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

const ON_DEMAND: &str = "on-demand";

#[test]
fn one_gpu_job_costs_latency_plus_run_plus_consolidate_after() {
    let s = run(&pool("", "720h", ON_DEMAND), "kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/ml/train, runTime: 60m}}\n", fixed());
    assert_eq!(s.nodes.len(), 1);
    let n = &s.nodes[0];
    assert_eq!(n.launched_seconds, BATCH);
    assert_eq!(n.registered_seconds, Some(BATCH + STARTUP));
    assert_eq!(n.initialized_seconds, Some(BATCH + STARTUP + PLUGIN));
    let lifetime = STARTUP + PLUGIN + 3600 + 300 + VALIDATION;
    assert_eq!(n.lifetime_seconds, lifetime);
    assert_eq!(n.termination_reason.map(|r| r.as_str()), Some("empty"));
    assert_eq!(n.cost_usd, usd(lifetime as f64 * PRICE / 3600.0));
    assert_eq!(s.summary.cost_usd, n.cost_usd);
    // The 5 minutes of consolidateAfter and the 15 s validation are the empty-node cost.
    assert_eq!(s.summary.empty_node_seconds, 300 + VALIDATION);
    assert_eq!(s.summary.empty_node_cost_usd, usd((300 + VALIDATION) as f64 * PRICE / 3600.0));
    let p = &s.pods[0];
    assert_eq!(p.pending_seconds, BATCH + STARTUP + PLUGIN);
    assert_eq!(p.running_seconds, 3600);
    assert_eq!(s.summary.gpu_hours_used, 1.0);
    let events: Vec<&str> = s.timeline.iter().map(|e| e.event.as_str()).collect();
    for e in
        ["pod-pending", "nodeclaim-launched", "pod-nominated", "nodeclaim-registered", "pod-bound", "nodeclaim-initialized", "pod-started"]
    {
        assert!(events.contains(&e), "{e} missing from {events:?}");
    }
}

#[test]
fn a_job_arriving_inside_consolidate_after_reuses_the_node() {
    // The first job finishes at 1 + 240 + 75 + 3600 = 3916; the second arrives 2 minutes later.
    let trace = "kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/ml/train, runTime: 60m}}\n- {at: 4036s, submit: {ref: Job/ml/train, runTime: 10m}, name: second}\n";
    let s = run(&pool("", "720h", ON_DEMAND), trace, fixed());
    assert_eq!(s.summary.launches.total, 1, "{:?}", s.nodes);
    let second = s.pods.iter().find(|p| p.name == "ml/second-0").unwrap();
    assert_eq!(second.pending_seconds, BATCH);
    assert_eq!(second.nodes, vec!["gpu-1".to_string()]);
    // The node then empties again at 4037 + 600 and goes 5 minutes (and the validation) later.
    assert_eq!(s.nodes[0].terminated_seconds, Some(4036 + BATCH + 600 + 300 + VALIDATION));
}

#[test]
fn a_spot_interruption_at_40_minutes_with_15_minute_checkpoints_loses_10_minutes() {
    let start = BATCH + STARTUP + PLUGIN; // 316
    let trace = format!(
        "kind: Trace\nevents:\n- {{at: 0s, submit: {{ref: Job/ml/train, runTime: 2h, checkpointInterval: 15m}}}}\n- {{at: {}s, interrupt: gpu-1}}\n",
        start + 40 * 60
    );
    let s = run(&pool("", "720h", "spot"), &trace, fixed());
    let p = &s.pods[0];
    assert_eq!(p.work_lost_seconds, 600);
    assert_eq!(p.restarts, 1);
    assert_eq!(p.state.as_str(), "finished");
    assert_eq!(p.running_seconds, 7200 + 600, "finished pods run their run time plus the lost work");
    assert_eq!(s.summary.launches.total, 2, "a replacement is launched");
    assert_eq!(s.summary.disruptions.by_reason["interrupted"], 1);
    let first = &s.nodes[0];
    assert_eq!(first.termination_reason.map(|r| r.as_str()), Some("interrupted"));
    assert_eq!(first.terminated_seconds, Some(start + 2400 + 120), "the instance goes when the 2-minute notice ends");
    // Replacement: launched one batch after the eviction; the pod resumes from the 30-minute checkpoint.
    let second = &s.nodes[1];
    assert_eq!(second.launched_seconds, start + 2400 + BATCH);
    assert_eq!(p.finished_seconds, Some(start + 2400 + BATCH + STARTUP + PLUGIN + (7200 - 1800)));
}

#[test]
fn a_budget_window_with_zero_nodes_holds_empty_nodes_until_it_ends() {
    let budgets = "    budgets:\n    - {nodes: \"0\", schedule: \"0 0 * * *\", duration: 2h}\n";
    let trace = "kind: Trace\nstart: \"2025-03-03T00:00:00Z\"\nevents:\n- {at: 0s, submit: {ref: Job/ml/train, runTime: 30m}}\n";
    let s = run(&pool(budgets, "720h", ON_DEMAND), trace, fixed());
    let n = &s.nodes[0];
    // Empty (and consolidatable) from 316 + 1800 + 300 = 2416, but the window lasts until 02:00;
    // the pass then decides, and the command is carried out after its validation.
    assert_eq!(n.terminated_seconds, Some(7200 + VALIDATION));
    assert_eq!(n.termination_reason.map(|r| r.as_str()), Some("empty"));
    assert_eq!(s.summary.empty_node_seconds, 7200 + VALIDATION - (BATCH + STARTUP + PLUGIN + 1800));
    assert!(s.timeline[0].time.as_deref() == Some("2025-03-03T00:00:00Z"));
}

#[test]
fn expire_after_ends_a_long_lived_node() {
    let trace = "kind: Trace\nend: 3h\nevents:\n- {at: 0s, submit: {ref: Deployment/ml/serve}}\n";
    let s = run(&pool("", "2h", ON_DEMAND), trace, fixed());
    let first = &s.nodes[0];
    assert_eq!(first.termination_reason.map(|r| r.as_str()), Some("expired"));
    assert_eq!(first.terminated_seconds, Some(BATCH + 7200));
    assert_eq!(s.summary.disruptions.by_reason["expired"], 1);
    // The evicted replica is re-created and lands on a new node.
    let second = &s.nodes[1];
    assert_eq!(second.launched_seconds, BATCH + 7200 + BATCH);
    assert_eq!(second.terminated_seconds, None);
    assert_eq!(s.summary.duration_seconds, 3 * 3600);
    assert_eq!(s.pods[0].restarts, 1);
}

#[test]
fn same_seed_same_bytes_and_call_matches_the_facade() {
    let trace = "kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/ml/train, replicas: 3, runTime: {distribution: exponential, mean: 1h}, checkpointInterval: 10m}, repeat: {every: 3h, times: 4}}\n";
    let settings = SimSettings { seed: 42, spot_interruption_rate_per_hour: 0.5, ..Default::default() };
    let req = request(&pool("", "720h", "spot"), trace, settings);
    let a = nodecast::simulate(&req).to_json();
    let b = nodecast::simulate(&req).to_json();
    assert_eq!(a, b);
    let via_call = nodecast::call("simulate", &serde_json::to_string(&req).unwrap());
    assert_eq!(a, via_call);
    let mut other = req.clone();
    other.simulation.as_mut().unwrap().seed = 43;
    assert_ne!(a, nodecast::simulate(&other).to_json());
    let prom = nodecast::call("simulate-prom", &serde_json::to_string(&req).unwrap());
    assert!(prom.starts_with("# HELP karpenter_nodepool_usage"));
    let csv = nodecast::call("simulate-csv", &serde_json::to_string(&req).unwrap());
    assert!(csv.starts_with("timeSeconds,metric,labels,value\n"));
}

#[test]
fn trace_errors_are_located_failures() {
    let answer = nodecast::simulate(&request(
        &pool("", "720h", ON_DEMAND),
        "kind: Trace\nevents:\n- {at: 1h, submit: {ref: Job/ml/nope}}\n",
        fixed(),
    ));
    let Outcome::Failure { errors } = &answer.outcome else { panic!("expected a failure") };
    assert_eq!(errors[0].code, "unknown-workload");
    assert_eq!(errors[0].path.as_deref(), Some("events[0].submit.ref"));
    assert_eq!(errors[0].source.as_deref(), Some("trace.yaml"));
    let json = nodecast::call("simulate", r#"{"inputs": []}"#);
    assert!(json.contains("\"code\": \"required\"") && json.contains("\"path\": \"trace\""), "{json}");
    let bad = nodecast::call("simulate-csv", r#"{"inputs": [], "trace": {"text": "time,workload,replicas,runTime\n1h,Job/x,1,zz\n"}}"#);
    assert!(bad.starts_with('{') && bad.contains("invalid-duration") && bad.contains("\"line\": 2"), "{bad}");
}

#[test]
fn csv_traces_scale_deployments_and_submit_jobs() {
    let csv = "time,workload,replicas,runTime\n0s,Deployment/ml/serve,2,\n1h,Deployment/ml/serve,1,\n30m,Job/ml/train,1,20m\n2h,Deployment/ml/serve,0,\n";
    let s = run(&pool("", "720h", ON_DEMAND), csv, fixed());
    assert_eq!(s.summary.pods.submitted, 3);
    assert_eq!(s.summary.pods.deleted, 2);
    assert_eq!(s.summary.pods.finished, 1);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn invariants_hold_on_random_traces(
        jobs in prop::collection::vec((0i64..20_000, 60i64..10_000, prop::option::of(300i64..3_000), 1i64..3), 1..12),
        spot in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mut trace = String::from("kind: Trace\nevents:\n");
        for (at, run, ckpt, replicas) in &jobs {
            let c = ckpt.map(|c| format!(", checkpointInterval: {c}s")).unwrap_or_default();
            trace.push_str(&format!("- {{at: {at}s, submit: {{ref: Job/ml/train, replicas: {replicas}, runTime: {run}s{c}}}}}\n"));
        }
        let settings = SimSettings { seed, spot_interruption_rate_per_hour: if spot { 1.0 } else { 0.0 }, ..Default::default() };
        let s = run(&pool("", "3h", if spot { "spot" } else { ON_DEMAND }), &trace, settings);
        prop_assert!(s.summary.cost_usd >= 0.0);
        for n in &s.nodes {
            prop_assert!(n.cost_usd >= 0.0 && n.empty_cost_usd >= 0.0);
            // expireAfter 3h + terminationGracePeriod 10m (+ a spot notice already running).
            prop_assert!(n.lifetime_seconds <= 3 * 3600 + 600 + 120, "{} lived {}s", n.name, n.lifetime_seconds);
        }
        for p in s.pods.iter().filter(|p| p.state.as_str() == "finished") {
            prop_assert_eq!(p.running_seconds, p.run_time_seconds.unwrap() + p.work_lost_seconds, "{}", p.name);
        }
        // The pool's 4-GPU limit: count GPUs of nodes not yet told to go, at every launch.
        for n in &s.nodes {
            let t = n.launched_seconds;
            let live: i64 = s
                .nodes
                .iter()
                .filter(|o| o.launched_seconds <= t && o.terminated_seconds.is_none_or(|e| e > t))
                .filter(|o| !s.timeline.iter().any(|e| e.object == o.name && e.time_seconds <= t && (e.event.as_str() == "nodeclaim-interrupted" || e.event.as_str() == "nodeclaim-disrupted")))
                .map(|o| o.gpus)
                .sum();
            prop_assert!(live <= 4, "{live} GPUs live at {t}s");
        }
    }
}

#[test]
fn hostile_inputs_fail_cleanly() {
    let cluster = pool("", "720h", ON_DEMAND);
    let cases = [
        ("kind: Trace\nend: 100000d\nevents: []\n", "invalid-duration"),
        ("kind: Trace\nend: 3000d\nevents: []\n", "simulation-too-long"),
        ("kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/ml/train, replicas: 100000000}}\n", "out-of-range"),
        ("kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/ml/train}, repeat: {every: 9223372036854775807s, times: 3}}\n", ""),
        ("kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/ml/train, runTime: 9223372036854775807s}}\n", ""),
        ("kind: Trace\nevents: 3\n", "wrong-type"),
        ("[1, 2]", "invalid-trace"),
        ("kind: Trace\nevents:\n- {at: 0s, submit: {manifest: {kind: Service, metadata: {name: x}}}}\n", "unsupported-kind"),
        ("kind: Trace\nevents:\n- {at: 0s, submit: {manifest: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: c, resources: {requests: {cpu: 1.5.0}}}]}}}}\n", "invalid-quantity"),
        ("time,workload,replicas,runTime\n", ""),
        ("kind: Trace\nevents:\n- {at: 1h, scale: {workload: nothing, replicas: 2}}\n- {at: 2h, delete: nothing}\n- {at: 3h, interrupt: nothing}\n", ""),
    ];
    for (trace, code) in cases {
        let answer = nodecast::simulate(&request(&cluster, trace, fixed()));
        match (&answer.outcome, code) {
            (Outcome::Failure { errors }, "") => assert!(!errors.is_empty()),
            (Outcome::Failure { errors }, c) => assert_eq!(errors[0].code, c, "{trace}: {errors:?}"),
            (Outcome::Success(s), "") => assert!(s.summary.cost_usd >= 0.0),
            (Outcome::Success(_), c) => panic!("{trace}: expected {c}"),
        }
    }
    // An inline manifest's error points into the trace.
    let answer = nodecast::simulate(&request(&cluster, cases[8].0, fixed()));
    let Outcome::Failure { errors } = &answer.outcome else { panic!() };
    assert_eq!(errors[0].source.as_deref(), Some("trace.yaml"));
    assert!(errors[0].path.as_deref().unwrap().starts_with("events[0].submit.manifest.spec.containers[0]"), "{errors:?}");
}

#[test]
fn an_underutilized_node_is_replaced_by_a_cheaper_one() {
    let cluster = pool("", "720h", ON_DEMAND)
        .replace("consolidationPolicy: WhenEmpty\n", "consolidationPolicy: WhenEmptyOrUnderutilized\n")
        .replace("values: [g5.xlarge]", "values: [g5.xlarge, g5.12xlarge]")
        .replace("nvidia.com/gpu: \"4\"\n  disruption", "nvidia.com/gpu: \"16\"\n  disruption");
    let trace = "kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/ml/train, runTime: 3h}, name: small}\n- {at: 0s, submit: {ref: Job/ml/train, replicas: 3, runTime: 30m}, name: big}\n";
    let s = run(&cluster, trace, fixed());
    let first = &s.nodes[0];
    assert_eq!(first.instance_type.as_deref(), Some("g5.12xlarge"), "{:?}", s.nodes);
    assert_eq!(first.termination_reason.map(|r| r.as_str()), Some("underutilized"), "{:?}", s.nodes);
    let second = &s.nodes[1];
    assert_eq!(second.instance_type.as_deref(), Some("g5.xlarge"));
    // Decided once the big pods left (316 + 1800) and consolidateAfter ran out; the old node goes
    // when the replacement is initialized.
    assert!(second.launched_seconds >= BATCH + STARTUP + PLUGIN + 1800 + 300);
    assert_eq!(first.terminated_seconds, second.initialized_seconds);
    let small = s.pods.iter().find(|p| p.name == "ml/small-0").unwrap();
    assert_eq!(small.restarts, 1);
    assert_eq!(small.state.as_str(), "finished");
    assert_eq!(small.running_seconds, 3 * 3600 + small.work_lost_seconds);
    assert_eq!(s.summary.disruptions.by_reason["underutilized"], 1);
}

/// Pods queued behind a NodePool limit are re-scheduled in every provisioning pass (as Karpenter
/// does), so the work is the queue's length squared; maxPodAttempts bounds it with a located
/// failure instead of minutes of work.
#[test]
fn a_queue_behind_a_limit_is_bounded_by_max_pod_attempts() {
    let cluster = pool("", "720h", ON_DEMAND);
    // 400 one-GPU jobs a minute apart; the pool's limit of 4 GPUs keeps most of them waiting.
    let trace = "kind: Trace\nend: 2d\nevents:\n- {at: 0s, submit: {ref: Job/ml/train, runTime: 1d}, repeat: {every: 1m, times: 400}}\n";
    let small = SimSettings { max_pod_attempts: 5_000, ..fixed() };
    let answer = nodecast::simulate(&request(&cluster, trace, small));
    let Outcome::Failure { errors } = &answer.outcome else { panic!("expected a failure") };
    assert_eq!(errors[0].code, "simulation-too-long");
    assert_eq!(errors[0].path.as_deref(), Some("simulation.maxPodAttempts"));
    // The default bound lets the same trace finish (the pending pods sum to about 80,000).
    let s = run(&cluster, trace, fixed());
    assert!(s.summary.cost_usd > 0.0);
}

/// Karpenter keeps a node it nominated a pending pod to out of disruption for
/// max(2 × batchMaxSeconds, 10 s) (fidelity note 54). A g5.12xlarge left with one 1-GPU pod
/// is replaced by a g5.xlarge; the pod arrived on it 4 s before the poll that would have
/// replaced it, so the replacement waits for the window's end.
#[test]
fn a_node_nominated_to_is_not_disrupted_until_its_nomination_window_ends() {
    let cluster = pool("", "720h", ON_DEMAND)
        .replace("consolidationPolicy: WhenEmpty\n", "consolidationPolicy: WhenEmptyOrUnderutilized\n")
        .replace("consolidateAfter: 5m", "consolidateAfter: 0s")
        .replace("values: [g5.xlarge]", "values: [g5.xlarge, g5.12xlarge]")
        .replace("nvidia.com/gpu: \"4\"\n  disruption", "nvidia.com/gpu: \"16\"\n  disruption");
    // The three 30-minute pods run on gpu-1 (a g5.12xlarge) from 316 s to 2116 s; the small
    // pod submitted then is nominated to gpu-1 when its batch closes, at 2117 s.
    let running_out = BATCH + STARTUP + PLUGIN + 1800;
    let trace = format!(
        "kind: Trace\nevents:\n- {{at: 0s, submit: {{ref: Job/ml/train, replicas: 3, runTime: 30m}}, name: big}}\n- {{at: {running_out}s, submit: {{ref: Job/ml/train, runTime: 1h}}, name: small}}\n"
    );
    let nominated = running_out + BATCH;
    let disrupted_at = |batch_max: i64| {
        let s = run(&cluster, &trace, SimSettings { batch_max_seconds: batch_max, ..fixed() });
        let small = s.pods.iter().find(|p| p.name == "ml/small-0").unwrap();
        assert_eq!(small.nodes.first().map(String::as_str), Some("gpu-1"), "{:?}", s.timeline);
        let nomination = s.timeline.iter().find(|e| e.event.as_str() == "pod-nominated" && e.object == "ml/small-0").unwrap();
        assert_eq!(nomination.time_seconds, nominated);
        // gpu-1 is disrupted once; its replacement gpu-2 goes empty when the small pod is done.
        let disrupted: Vec<_> = s.timeline.iter().filter(|e| e.event.as_str() == "nodeclaim-disrupted").collect();
        assert_eq!(disrupted.len(), 2, "{disrupted:?}");
        assert_eq!((disrupted[0].object.as_str(), disrupted[0].reason.as_deref()), ("gpu-1", Some("underutilized")));
        assert_eq!((disrupted[1].object.as_str(), disrupted[1].reason.as_deref()), ("gpu-2", Some("empty")));
        // The replacement is launched when the command is carried out, after its validation.
        let replacement = &s.nodes[1];
        assert_eq!(replacement.instance_type.as_deref(), Some("g5.xlarge"));
        assert_eq!(replacement.launched_seconds, disrupted[0].time_seconds);
        let decided = s.timeline.iter().find(|e| e.event.as_str() == "disruption-decided").unwrap();
        assert_eq!(decided.object, "gpu-1");
        assert_eq!(disrupted[0].time_seconds, decided.time_seconds + VALIDATION);
        decided.time_seconds
    };
    // At the defaults the window is 2 × 10 s: the poll at 2120 s passes gpu-1 over, and the pass
    // at the window's end (2137 s) decides its replacement (carried out at 2152 s); without the
    // window it was decided at 2120 s.
    assert_eq!(disrupted_at(10), nominated + 20);
    // 2 × 15 s.
    assert_eq!(disrupted_at(15), nominated + 30);
    // 2 × 3 s is below the 10 s floor.
    assert_eq!(disrupted_at(3), nominated + 10);
}

/// The cluster of the nomination test above: one g5.12xlarge takes four 1-GPU pods, and a node
/// left with one of them is replaced by a g5.xlarge as soon as a pass sees it (consolidateAfter
/// 0s).
fn underutilized_cluster() -> String {
    pool("", "720h", ON_DEMAND)
        .replace("consolidationPolicy: WhenEmpty\n", "consolidationPolicy: WhenEmptyOrUnderutilized\n")
        .replace("consolidateAfter: 5m", "consolidateAfter: 0s")
        .replace("values: [g5.xlarge]", "values: [g5.xlarge, g5.12xlarge]")
        .replace("nvidia.com/gpu: \"4\"\n  disruption", "nvidia.com/gpu: \"16\"\n  disruption")
}

/// The times of the timeline entries of `event` for `object`.
fn times(s: &Simulation, event: &str, object: &str) -> Vec<i64> {
    s.timeline.iter().filter(|e| e.event.as_str() == event && e.object == object).map(|e| e.time_seconds).collect()
}

/// Karpenter validates an emptiness or consolidation command 15 s after computing it, inside
/// the same pass, and carries it out only then (disruption/validation.go, fidelity note 57).
/// The big pods leave gpu-1 at 2116 s; the pass at 2120 s decides its replacement, which is
/// carried out (and the g5.xlarge launched) at 2135 s.
#[test]
fn a_consolidation_is_carried_out_15_s_after_the_pass_that_decided_it() {
    let trace = "kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/ml/train, runTime: 3h}, name: small}\n- {at: 0s, submit: {ref: Job/ml/train, replicas: 3, runTime: 30m}, name: big}\n";
    let s = run(&underutilized_cluster(), trace, fixed());
    let freed = BATCH + STARTUP + PLUGIN + 1800;
    assert_eq!(times(&s, "disruption-decided", "gpu-1"), vec![freed + 4], "{:?}", s.timeline);
    assert_eq!(times(&s, "nodeclaim-disrupted", "gpu-1"), vec![freed + 4 + 15]);
    let decided = s.timeline.iter().find(|e| e.event.as_str() == "disruption-decided").unwrap();
    assert_eq!(decided.reason.as_deref(), Some("underutilized"));
    assert!(decided.detail.as_deref().unwrap().starts_with("replace 1 node (gpu-1)"), "{decided:?}");
    // The replacement is launched when the command is carried out, not when it was decided.
    assert_eq!(s.nodes[1].instance_type.as_deref(), Some("g5.xlarge"));
    assert_eq!(s.nodes[1].launched_seconds, freed + 4 + 15);
    assert!(times(&s, "disruption-rejected", "gpu-1").is_empty());
}

/// A pod that arrives during the 15 s wait and is nominated to the candidate makes the
/// validation drop the command: the candidate is no candidate any more (`GetCandidates` refuses
/// a nominated node), a `churn` rejection in Karpenter's words. gpu-1 stays and runs the pods.
#[test]
fn a_pod_nominated_to_the_candidate_during_the_wait_abandons_the_command() {
    let freed = BATCH + STARTUP + PLUGIN + 1800;
    let late = freed + 4 + 5;
    let trace = format!(
        "kind: Trace\nend: 3h\nevents:\n- {{at: 0s, submit: {{ref: Job/ml/train, runTime: 3h}}, name: small}}\n- {{at: 0s, submit: {{ref: Job/ml/train, replicas: 3, runTime: 30m}}, name: big}}\n- {{at: {late}s, submit: {{ref: Job/ml/train, replicas: 3, runTime: 1h}}, name: late}}\n"
    );
    let s = run(&underutilized_cluster(), &trace, fixed());
    assert_eq!(times(&s, "disruption-decided", "gpu-1").first(), Some(&(freed + 4)), "{:?}", s.timeline);
    let rejected: Vec<_> = s.timeline.iter().filter(|e| e.event.as_str() == "disruption-rejected").collect();
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert_eq!((rejected[0].object.as_str(), rejected[0].time_seconds), ("gpu-1", freed + 4 + 15));
    assert_eq!(rejected[0].reason.as_deref(), Some("churn"));
    assert!(rejected[0].detail.as_deref().unwrap().contains("nominated"), "{rejected:?}");
    // gpu-1 survives: full again, it is no longer worth replacing until the late pods are done,
    // and they run on it.
    let late_done = late + BATCH + 3600;
    assert!(times(&s, "nodeclaim-disrupted", "gpu-1").iter().all(|&t| t > late_done), "{:?}", s.timeline);
    assert!(s.nodes.iter().skip(1).all(|n| n.launched_seconds > late_done), "{:?}", s.nodes);
    for k in 0..3 {
        let p = s.pods.iter().find(|p| p.name == format!("ml/late-{k}")).unwrap();
        assert_eq!((p.nodes.clone(), p.restarts), (vec!["gpu-1".to_string()], 0));
    }
}

/// Emptiness validation keeps the command's nodes that are still empty candidates: of two empty
/// nodes decided together, the one a new pod is nominated to during the wait stays, and the
/// other goes at the validation time.
#[test]
fn emptiness_goes_ahead_with_the_nodes_that_stay_empty_during_the_wait() {
    let budgets = "    budgets:\n    - {nodes: \"100%\"}\n";
    let empty_from = BATCH + STARTUP + PLUGIN + 1800;
    let consolidatable = empty_from + 300;
    let late = consolidatable + 4;
    let trace = format!(
        "kind: Trace\nend: 3h\nevents:\n- {{at: 0s, submit: {{ref: Job/ml/train, replicas: 2, runTime: 30m}}}}\n- {{at: {late}s, submit: {{ref: Job/ml/train, runTime: 1h}}, name: late}}\n"
    );
    let s = run(&pool(budgets, "720h", ON_DEMAND), &trace, fixed());
    assert_eq!(s.nodes.len(), 2, "{:?}", s.nodes);
    for n in ["gpu-1", "gpu-2"] {
        assert_eq!(times(&s, "disruption-decided", n).first(), Some(&consolidatable), "{n}: {:?}", s.timeline);
    }
    let late_pod = s.pods.iter().find(|p| p.name == "ml/late-0").unwrap();
    assert_eq!(late_pod.restarts, 0);
    let kept = late_pod.nodes[0].clone();
    let gone = if kept == "gpu-1" { "gpu-2" } else { "gpu-1" };
    assert_eq!(times(&s, "nodeclaim-disrupted", gone).first(), Some(&(consolidatable + 15)), "{:?}", s.timeline);
    assert_eq!(times(&s, "disruption-rejected", &kept), vec![consolidatable + 15]);
    let rejected = s.timeline.iter().find(|e| e.event.as_str() == "disruption-rejected").unwrap();
    assert_eq!(rejected.reason.as_deref(), Some("churn"));
    // The command carried out names only the node that went.
    let disrupted = s.timeline.iter().find(|e| e.event.as_str() == "nodeclaim-disrupted").unwrap();
    assert_eq!(disrupted.detail.as_deref(), Some(format!("delete 1 node ({gone}), reason empty").as_str()));
    // The kept node is not disrupted before the late pod is done.
    assert!(times(&s, "nodeclaim-disrupted", &kept).iter().all(|&t| t >= late + BATCH + 3600), "{:?}", s.timeline);
}
