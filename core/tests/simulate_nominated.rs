//! A pod nominated to a NodeClaim still in flight is unbound, so Karpenter's pod controller keeps
//! requeuing it (provisioning/controller.go) and every provisioning pass nominates its node
//! again, which renews the node's nomination window (`Results.Record` → `StateNode.Nominate`;
//! docs/karpenter-fidelity.md, section 59; simulate/requeue.rs).

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

fn job(name: &str, cpu: &str) -> String {
    format!(
        "---\napiVersion: batch/v1\nkind: Job\nmetadata: {{name: {name}, namespace: web}}\nspec:\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n    spec:\n      containers: [{{name: c, image: x, resources: {{requests: {{cpu: \"{cpu}\", memory: 1Gi}}}}}}]\n"
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
    let cluster = format!("{POOL}{}", job("batch", "1"));
    let trace = "kind: Trace\nend: 1h\nevents:\n- {at: 0s, submit: {ref: Job/web/batch, runTime: 5s}}\n";
    let s = run(&cluster, trace, 35);
    assert_eq!(events(&s, "nodeclaim-launched", "default-1"), [(1, None)], "{:#?}", s.timeline);
    assert_eq!(events(&s, "pod-finished", "web/batch"), [(41, Some("default-1".into()))], "{:#?}", s.timeline);
    // Without the renewals (the simulator before section 59) nothing held the node once it was
    // initialized: the empty node was decided at the disruption pass after it emptied, 50 s.
    assert_eq!(events(&s, "disruption-decided", "default-1"), [(51, None)], "{:#?}", s.timeline);
    assert_eq!(events(&s, "nodeclaim-disrupted", "default-1").first().map(|e| e.0), Some(66), "{:#?}", s.timeline);
}
