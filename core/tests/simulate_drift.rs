//! The simulator's `nodePool` trace event (docs/drift.md): a NodePool replaced mid-run makes the
//! nodes launched from its old template drift (nodeclaim/disruption/drift.go, NodePoolDrifted /
//! RequirementsDrifted), and the Drift method replaces them one at a time within the pool's
//! `Drifted` budget (pkg/controllers/disruption/drift.go).

mod common;
use nodecast::simulate::{SecondsRange, SimSettings, Simulation};
use nodecast::{Input, Outcome, Request};

const CLASS: &str = "apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: gpu}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
";

const SERVE: &str = "apiVersion: apps/v1
kind: Deployment
metadata: {name: serve, namespace: ml}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: s
        image: vllm
        resources: {requests: {cpu: '2', memory: 8Gi, nvidia.com/gpu: '1'}, limits: {nvidia.com/gpu: '1'}}
";

/// The `gpu` NodePool as a one-line flow mapping (it also goes into the trace):
/// `labels` under the template's metadata, the capacity types it allows.
fn pool(labels: &str, capacity: &str) -> String {
    format!(
        "{{apiVersion: karpenter.sh/v1, kind: NodePool, metadata: {{name: gpu}}, spec: {{template: {{metadata: {{labels: {{{labels}}}}}, spec: {{nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}}, requirements: [{{key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge]}}, {{key: karpenter.sh/capacity-type, operator: In, values: [{capacity}]}}, {{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}}]}}}}, disruption: {{consolidationPolicy: WhenEmpty, consolidateAfter: 5m, budgets: [{{nodes: '1'}}]}}}}}}"
    )
}

fn run(trace: &str) -> Simulation {
    run_on(&pool("team: a", "on-demand, spot"), trace)
}

/// [`run`] with NodePool `nodepool` in the cluster.
fn run_on(nodepool: &str, trace: &str) -> Simulation {
    let cluster = format!("{CLASS}---\n{nodepool}\n---\n{SERVE}");
    let settings = SimSettings {
        gpu_startup_seconds: SecondsRange { min: 240, max: 240 },
        device_plugin_seconds: SecondsRange { min: 75, max: 75 },
        spot_interruption_rate_per_hour: 0.0,
        end_seconds: Some(6 * 3600),
        ..Default::default()
    };
    common::simulate(&cluster, trace, settings)
}

fn drifted(s: &Simulation) -> Vec<(i64, Option<i64>)> {
    s.nodes
        .iter()
        .filter(|n| n.termination_reason.map(|r| r.as_str()) == Some("drifted"))
        .map(|n| (n.launched_seconds, n.terminated_seconds))
        .collect()
}

const SUBMIT: &str = "kind: Trace\nevents:\n- {at: 0s, submit: {ref: Deployment/ml/serve}}\n";

#[test]
fn a_template_edit_drifts_and_replaces_the_pools_nodes_one_at_a_time() {
    let s = run(&format!("{SUBMIT}- {{at: 2h, nodePool: {}}}\n", pool("team: b", "on-demand, spot")));
    let gone = drifted(&s);
    assert_eq!(gone.len(), 2, "both nodes of the old template drift: {:?}", s.nodes);
    // Both were launched before the edit and terminated after it, not at once: the budget
    // (1 node) lets the second go only when the first's replacement has taken over.
    assert!(gone.iter().all(|&(l, t)| l < 7200 && t.is_some_and(|t| t > 7200)), "{gone:?}");
    assert_ne!(gone[0].1, gone[1].1, "{gone:?}");
    // Their replacements, launched after the edit, are made from the new template: not drifted.
    let later: Vec<_> = s.nodes.iter().filter(|n| n.launched_seconds >= 7200).collect();
    assert_eq!(later.len(), 2, "{:?}", s.nodes);
    assert!(later.iter().all(|n| n.termination_reason.map(|r| r.as_str()) != Some("drifted")));
    assert_eq!(s.summary.pods.submitted, 2);
}

#[test]
fn a_requirements_edit_drifts_only_the_nodes_it_excludes() {
    // Spot is preferred when allowed (cheaper): both nodes are spot, and the edit allows on-demand only.
    let s = run(&format!("{SUBMIT}- {{at: 2h, nodePool: {}}}\n", pool("team: a", "on-demand")));
    assert_eq!(drifted(&s).len(), 2, "{:?}", s.nodes);
    // The same NodePool again changes nothing.
    let s = run(&format!("{SUBMIT}- {{at: 2h, nodePool: {}}}\n", pool("team: a", "on-demand, spot")));
    assert!(drifted(&s).is_empty(), "{:?}", s.nodes);
    assert_eq!(s.nodes.len(), 2);
}

#[test]
fn a_disruption_only_edit_drifts_nothing() {
    // Karpenter's NodePool hash covers spec.template only (pkg/apis/v1/nodepool.go, Hash), so a
    // new disruption block (policy, consolidateAfter, budgets) leaves the nodes undrifted: the
    // controller oracle edits budgets this way (oracle/README.md, simulate over the controller's
    // timings).
    let edited = pool("team: a", "on-demand, spot").replace(
        "consolidationPolicy: WhenEmpty, consolidateAfter: 5m, budgets: [{nodes: '1'}]",
        "consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s, budgets: [{nodes: '100%'}]",
    );
    assert_ne!(edited, pool("team: a", "on-demand, spot"));
    let s = run(&format!("{SUBMIT}- {{at: 2h, nodePool: {edited}}}\n"));
    assert!(drifted(&s).is_empty(), "{:?}", s.nodes);
    assert_eq!(s.nodes.len(), 2, "{:?}", s.nodes);
    assert!(s.nodes.iter().all(|n| n.terminated_seconds.is_none()), "{:?}", s.nodes);
}

#[test]
fn nodepool_events_are_checked() {
    let fail = |trace: &str| {
        let cluster = format!("{CLASS}---\n{}\n---\n{SERVE}", pool("team: a", "on-demand"));
        let req = Request {
            inputs: vec![Input { name: Some("cluster.yaml".into()), text: cluster }],
            trace: Some(nodecast::simulate::TraceInput { name: Some("trace.yaml".into()), text: trace.into(), format: None }),
            ..Default::default()
        };
        match nodecast::simulate(&req).outcome {
            Outcome::Failure { errors } => errors,
            Outcome::Success(_) => panic!("{trace} was accepted"),
        }
    };
    let e = fail(&format!("{SUBMIT}- {{at: 1h, nodePool: {}}}\n", pool("team: a", "on-demand").replace("name: gpu}", "name: cpu}")));
    assert_eq!(e[0].code, "unknown-nodepool");
    assert_eq!(e[0].path.as_deref(), Some("events[1].nodePool.metadata.name"));
    let e = fail(&format!("{SUBMIT}- {{at: 1h, nodePool: {}}}\n", pool("team: a", "on-demand").replace("NodePool", "Deployment")));
    assert_eq!(e[0].code, "unsupported-kind");
    let e = fail(&format!(
        "{SUBMIT}- {{at: 1h, nodePool: {}}}\n",
        pool("team: a", "on-demand").replace("operator: In, values: [on-demand]", "operator: Maybe, values: [on-demand]")
    ));
    assert_eq!(e[0].path.as_deref().map(|p| p.starts_with("events[1].nodePool.spec")), Some(true), "{e:?}");
    assert_eq!(e[0].source.as_deref(), Some("trace.yaml"), "{e:?}");
    let e = fail(&format!("{SUBMIT}- {{at: 1h, nodePool: 3}}\n"));
    assert_eq!(e[0].code, "wrong-type");
}

/// Drift is not validated (Karpenter's drift method computes its command and hands it to the
/// queue at once; only emptiness and consolidation wait 15 s, disruption/validation.go), and
/// after a command the controller requeues at once (controller.go, `RequeueImmediately`). With
/// a budget of two nodes, the pass after the edit (7210 s) replaces gpu-1 and the pass right
/// after it, at the same instant, gpu-2; nothing waits for a validation.
#[test]
fn drift_acts_at_once_and_the_next_pass_follows_immediately() {
    let two = |p: String| p.replace("budgets: [{nodes: '1'}]", "budgets: [{nodes: '2'}]");
    let s = run_on(
        &two(pool("team: a", "on-demand, spot")),
        &format!("{SUBMIT}- {{at: 2h, nodePool: {}}}\n", two(pool("team: b", "on-demand, spot"))),
    );
    let at: Vec<(String, i64, Option<String>)> = s
        .timeline
        .iter()
        .filter(|e| e.event.as_str() == "nodeclaim-disrupted")
        .map(|e| (e.object.clone(), e.time_seconds, e.reason.clone()))
        .collect();
    let drifted = Some("drifted".to_string());
    assert_eq!(at, vec![("gpu-1".into(), 7210, drifted.clone()), ("gpu-2".into(), 7210, drifted)], "{:?}", s.timeline);
    assert!(s.timeline.iter().all(|e| !e.event.as_str().starts_with("disruption-")), "{:?}", s.timeline);
}
