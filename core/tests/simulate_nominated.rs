//! A pod nominated to a NodeClaim still in flight is unbound, so Karpenter's pod controller keeps
//! requeuing it and every provisioning pass packs it again with the other pending pods
//! (provisioning/controller.go, `Provisioner.Schedule`: cluster state counts only bound pods as
//! a node's usage). Each pass that places it on that node renews the node's nomination window
//! (`Results.Record` → `StateNode.Nominate`), and a pass may move it to another node
//! (docs/karpenter-fidelity.md, section 59; simulate/engine.rs `run_batch`, requeue.rs).

mod common;
use nodecast::simulate::{SecondsRange, SimSettings, Simulation};

/// One NodePool of m6i.large (1930m allocatable CPU), empty nodes consolidated at once.
const POOL: &str = r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s}
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [m6i.large]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
"#;

fn workload(kind: &str, name: &str, cpu: &str) -> String {
    let api = if kind == "Job" { "batch/v1" } else { "apps/v1" };
    let replicas = if kind == "Job" { "" } else { "  replicas: 1\n" };
    format!(
        "---\napiVersion: {api}\nkind: {kind}\nmetadata: {{name: {name}, namespace: web}}\nspec:\n{replicas}  template:\n    metadata: {{labels: {{app: {name}}}}}\n    spec:\n      containers: [{{name: c, image: x, resources: {{requests: {{cpu: \"{cpu}\", memory: 1Gi}}}}}}]\n"
    )
}

fn run(cluster: &str, trace: &str, startup: i64) -> Simulation {
    let settings = SimSettings {
        batch_idle_seconds: 1,
        startup_seconds: SecondsRange { min: startup, max: startup },
        spot_interruption_rate_per_hour: 0.0,
        ..SimSettings::default()
    };
    common::simulate(cluster, trace, settings)
}

fn events(s: &Simulation, event: &str, object: &str) -> Vec<(i64, Option<String>)> {
    s.timeline
        .iter()
        .filter(|e| e.event.as_str() == event && e.object.starts_with(object))
        .map(|e| (e.time_seconds, e.node.clone()))
        .collect()
}

#[test]
fn later_passes_renew_an_in_flight_nodes_nomination_window() {
    // The Job's pod appears at 0 s; the pass at 1 s launches default-1 for it (a NodeClaim the
    // pass creates is not nominated). The pod stays unbound until default-1 registers at 36 s,
    // so it is requeued at 10, 20 and 30 s: each requeue's pass (1 s later) packs it onto the
    // in-flight default-1 again and renews its window to that pass + 20 s: 51 s after the pass
    // at 31 s. The pod runs 36–41 s; the empty node is held until 51 s, then decided, and the
    // emptiness command goes ahead after its 15 s validation, at 66 s.
    let cluster = format!("{POOL}{}", workload("Job", "batch", "1"));
    let trace = "kind: Trace\nend: 1h\nevents:\n- {at: 0s, submit: {ref: Job/web/batch, runTime: 5s}}\n";
    let s = run(&cluster, trace, 35);
    assert_eq!(events(&s, "nodeclaim-launched", "default-1"), [(1, None)], "{:#?}", s.timeline);
    assert_eq!(events(&s, "pod-finished", "web/batch"), [(41, Some("default-1".into()))], "{:#?}", s.timeline);
    // Without the renewals (the simulator before section 59) nothing held the node once it was
    // initialized: the empty node was decided at the disruption pass after it emptied, 50 s.
    assert_eq!(events(&s, "disruption-decided", "default-1"), [(51, None)], "{:#?}", s.timeline);
    assert_eq!(events(&s, "nodeclaim-disrupted", "default-1").first().map(|e| e.0), Some(66), "{:#?}", s.timeline);
}

#[test]
fn a_later_pass_moves_a_nominated_pod_to_another_node() {
    // `small` (1 CPU) is nominated to the new default-1 at 1 s. `large` (1.5 CPU) comes at 5 s;
    // the pass at 6 s packs both, larger first, existing and in-flight nodes first: `large`
    // takes default-1 (its 1930m holds 1.5 CPU but not 2.5), and `small` goes to a new
    // NodeClaim, default-2. The simulator kept `small` on default-1 and launched default-2 for
    // `large`.
    let cluster = format!("{POOL}{}{}", workload("Deployment", "small", "1"), workload("Deployment", "large", "1500m"));
    let trace = "kind: Trace\nend: 10m\nevents:\n- {at: 0s, submit: {ref: Deployment/web/small}}\n- {at: 5s, submit: {ref: Deployment/web/large}}\n";
    let s = run(&cluster, trace, 60);
    assert_eq!(
        events(&s, "pod-nominated", "web/small"),
        [(1, Some("default-1".into())), (6, Some("default-2".into()))],
        "{:#?}",
        s.timeline
    );
    assert_eq!(events(&s, "pod-nominated", "web/large"), [(6, Some("default-1".into()))], "{:#?}", s.timeline);
    // Bound where the last pass nominated it; the nodes a pod lists are the ones it was bound to.
    assert_eq!(events(&s, "pod-bound", "web/small"), [(66, Some("default-2".into()))], "{:#?}", s.timeline);
    let small = s.pods.iter().find(|p| p.name.starts_with("web/small")).expect("small");
    assert_eq!(small.nodes, ["default-2"]);
    let pods_on = |n: &str| s.nodes.iter().find(|x| x.name == n).map(|x| x.pods);
    assert_eq!((pods_on("default-1"), pods_on("default-2")), (Some(1), Some(1)), "{:#?}", s.nodes);
}
