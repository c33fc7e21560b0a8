use super::*;
use crate::json::{call, compare as compare_json, Autoscaler, Outcome, Request};

fn example(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn req(texts: &[String], trace: &str) -> Request {
    Request {
        inputs: texts.iter().enumerate().map(|(i, t)| Input { name: Some(format!("in{i}.yaml")), text: t.clone() }).collect(),
        trace: Some(TraceInput { name: Some("trace.yaml".into()), text: trace.into(), format: None }),
        compare: Some(Autoscaler::ClusterAutoscaler),
        ..Default::default()
    }
}

fn ok(r: &Request) -> Comparison {
    match compare_json(r).outcome {
        Outcome::Success(c) => c,
        Outcome::Failure { errors } => panic!("{errors:?}"),
    }
}

fn errors(r: &Request) -> Vec<InputError> {
    match compare_json(r).outcome {
        Outcome::Success(_) => panic!("expected a failure"),
        Outcome::Failure { errors } => errors,
    }
}

fn seed() -> Vec<String> {
    vec![example("node-groups/eksctl-gpu.yaml"), example("workloads/eval-jobs-1gpu.yaml"), example("workloads/training-job-4gpu.yaml")]
}

/// One group of `ty`, spot, min 0, max 10.
fn group(ty: &str, extra: &str) -> String {
    format!(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {{name: c, region: us-east-1}}\navailabilityZones: [us-east-1a]\nmanagedNodeGroups:\n- name: ng\n  instanceType: {ty}\n  spot: true\n  minSize: 0\n  maxSize: 10\n  desiredCapacity: 0\n{extra}"
    )
}

fn job(cpu: &str, gpus: u32) -> String {
    let gpu = if gpus > 0 { format!(", nvidia.com/gpu: \"{gpus}\"") } else { String::new() };
    format!(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: j, namespace: default}}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n        resources: {{requests: {{cpu: \"{cpu}\", memory: 1Gi{gpu}}}}}\n"
    )
}

const ONE_RUN: &str =
    "apiVersion: nodecast/v1\nkind: Trace\nend: 2h\nworkloads:\n  j: {ref: Job/default/j, runTime: 10m}\nevents:\n- {at: 0s, submit: j}\n";

#[test]
fn seed_groups_side_by_side_over_a_day() {
    let r = req(&seed(), &example("node-groups/gpu-day.yaml"));
    let c = ok(&r);
    assert_eq!(c.node_pools, NodePoolsFrom::Migrate);
    assert_eq!(c.migration.as_ref().map(|m| m.node_pools.len()), Some(4));
    assert_eq!(c.sides[0].autoscaler, Side::ClusterAutoscaler);
    assert_eq!(c.sides[1].autoscaler, Side::Karpenter);
    // Every pod of the trace (two training runs, three times five evaluation pods) finishes
    // under both autoscalers.
    for s in &c.sides {
        assert_eq!(s.pods_finished, 17, "{s:?}");
        assert_eq!(s.pods_pending_at_end, 0);
        assert!(s.cost_usd > 0.0 && s.gpu_hours_paid > 0.0);
    }
    // The Cluster Autoscaler's nodes are the groups' instances; its first scale-up is the
    // training job's, onto p3dn.24xlarge (least-waste: the options p3dn and p4d, and p3dn
    // wastes less CPU and memory); the evaluation pods go to g5.2xlarge (5 nodes).
    assert!(c.cluster_autoscaler.nodes.iter().all(|n| n.node_pool.as_deref().is_some_and(|g| g.starts_with("gpu-"))));
    let first = &c.scale_ups[0];
    assert_eq!((first.time_seconds % 10, first.node_group.as_str(), first.nodes), (0, "gpu-p3dn-24xlarge", 1));
    assert_eq!(first.decided_by, "least-waste");
    assert!(c.scale_ups.iter().any(|u| u.node_group == "gpu-g5-2xlarge" && u.nodes == 5), "{:?}", c.scale_ups);
    // Karpenter's side ran over migrate's proposal: its nodes are NodeClaims of the NodePools.
    assert!(c.karpenter.nodes.iter().all(|n| n.node_pool.is_some()));
    // The series share one time axis, and each side's node count there agrees with its run.
    let n = c.series.times_seconds.len();
    assert!(n > 10 && c.series.nodes.iter().all(|v| v.len() == n) && c.series.pending_pods.iter().all(|v| v.len() == n));
    assert_eq!(c.sides[0].peak_nodes, *c.series.nodes[0].iter().max().unwrap());
    assert_eq!(c.cost_difference_usd, crate::price::round_price(c.sides[1].cost_usd - c.sides[0].cost_usd));
    // Deterministic: the same request answers the same bytes.
    let json = serde_json::to_string(&r).unwrap();
    assert_eq!(call("simulate", &json), call("simulate", &json));
    let answer: serde_json::Value = serde_json::from_str(&call("simulate", &json)).unwrap();
    assert_eq!((&answer["kind"], &answer["status"]), (&"Comparison".into(), &"success".into()));
}

#[test]
fn scale_down_waits_for_unneeded_time_after_the_pod_finishes() {
    // A 10-minute pod on a fresh node: scale-up at 0 s, the pod finishes ~10 min after the
    // node is ready; the node is then unneeded and removed 10 min (scale-down-unneeded-time)
    // later, on the 10 s scan grid.
    let c = ok(&req(&[group("m5.xlarge", ""), job("1", 0)], ONE_RUN));
    let ca = &c.cluster_autoscaler;
    assert_eq!(ca.nodes.len(), 1, "{:?}", ca.nodes);
    let node = &ca.nodes[0];
    assert_eq!(node.node_pool.as_deref(), Some("ng"));
    assert_eq!(node.instance_type.as_deref(), Some("m5.xlarge"));
    let finished = ca.pods[0].finished_seconds.expect("the pod finishes");
    let gone = node.terminated_seconds.expect("scale-down removes the node");
    assert!(gone >= finished + 600 && gone < finished + 610, "finished {finished}, removed {gone}");
    assert_eq!(gone % 10, 0);
    assert_eq!(node.termination_reason, Some(crate::vocab::TerminationReason::Empty));
    assert_eq!(c.sides[0].nodes_removed, 1);
    // Karpenter over the proposal (consolidateAfter 10m) removes its node too.
    assert!(c.karpenter.nodes.iter().all(|n| n.terminated_seconds.is_some()));
}

#[test]
fn delay_after_add_holds_scale_down() {
    // With scaleDownUnneededTime 1m and the default delay after add (10 min), the node the
    // pod left after 10 s is removed only 10 min after its scale-up.
    let settings = "---\napiVersion: nodecast/v1\nkind: ClusterAutoscalerSettings\nscaleDownUnneededTime: 1m\n";
    let trace = "apiVersion: nodecast/v1\nkind: Trace\nend: 2h\nworkloads:\n  j: {ref: Job/default/j, runTime: 10s}\nevents:\n- {at: 0s, submit: j}\n";
    let c = ok(&req(&[group("m5.xlarge", "") + settings, job("1", 0)], trace));
    let node = &c.cluster_autoscaler.nodes[0];
    let gone = node.terminated_seconds.expect("removed");
    assert!(gone >= node.launched_seconds + 600 && gone < node.launched_seconds + 610, "{node:?}");
}

#[test]
fn a_pod_that_fits_the_template_but_not_the_node_causes_one_scale_up() {
    // m5.large: the AWS template says 2 vCPUs (capacity), the kubelet allocates less. The pod
    // asking for 2 vCPUs makes one scale-up; once the node is ready the Cluster Autoscaler
    // uses its allocatable (node-info cache) and stops, and the pod stays pending.
    let c = ok(&req(&[group("m5.large", ""), job("2", 0)], ONE_RUN));
    assert_eq!(c.scale_ups.len(), 1, "{:?}", c.scale_ups);
    assert_eq!(c.sides[0].nodes_launched, 1);
    assert_eq!(c.sides[0].pods_pending_at_end, 1);
}

#[test]
fn a_self_managed_groups_nodes_count_against_its_max_size() {
    // Found by fuzzing (fuzz/src/groups.rs): the nodes of an eksctl self-managed group were of
    // no group, so the pod above made a scale-up every 10 s loop (361 nodes in 2 h, maxSize 5)
    // and the run grew quadratically. Now it behaves as the managed group above.
    let ng = group("m5.large", "")
        .replace("managedNodeGroups:", "nodeGroups:")
        .replace(
            "  instanceType: m5.large\n  spot: true\n",
            "  instancesDistribution: {instanceTypes: [m5.large], onDemandPercentageAboveBaseCapacity: 0}\n",
        )
        .replace("maxSize: 10", "maxSize: 5");
    let c = ok(&req(&[ng.clone(), job("2", 0)], ONE_RUN));
    assert_eq!(c.scale_ups.len(), 1, "{:?}", c.scale_ups);
    assert_eq!(c.sides[0].nodes_launched, 1);
    assert_eq!(c.sides[0].peak_nodes, 1);
    assert_eq!(c.sides[0].pods_pending_at_end, 1);
    // Its empty node is scaled down like a managed group's (unneeded 10 min after it is ready).
    assert_eq!(c.sides[0].nodes_removed, 1, "{ng}");
}

#[test]
fn current_nodes_and_min_size_stay() {
    // desiredCapacity 2, minSize 1: both nodes are up at 0 s; scale-down removes one (empty)
    // and keeps the other at the group's min size.
    let ng = group("m5.xlarge", "").replace("minSize: 0", "minSize: 1").replace("desiredCapacity: 0", "desiredCapacity: 2");
    let c = ok(&req(&[ng, job("1", 0)], ONE_RUN));
    let ca = &c.cluster_autoscaler;
    assert_eq!(ca.nodes.len(), 2, "the pod fits a current node: no scale-up");
    assert!(c.scale_ups.is_empty());
    assert_eq!(ca.nodes.iter().filter(|n| n.terminated_seconds.is_some()).count(), 1);
    assert_eq!(c.sides[0].nodes_launched, 0);
}

#[test]
fn located_errors() {
    // No node group.
    let e = errors(&req(&[job("1", 0)], ONE_RUN));
    assert_eq!(e[0].code, "no-node-groups");
    // No trace.
    let mut r = req(&seed(), ONE_RUN);
    r.trace = None;
    let e = errors(&r);
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("required", Some("trace")));
    // A group of a type the catalog lacks: located at the group.
    let e = errors(&req(&[group("p3.2xlarge", ""), job("1", 0)], ONE_RUN));
    assert_eq!(e[0].code, "unknown-instance-type");
    assert_eq!(e[0].path.as_deref(), Some("managedNodeGroups[0].instanceType"));
    // compare: karpenter is refused at the field.
    let mut r = req(&seed(), ONE_RUN);
    r.compare = Some(Autoscaler::Karpenter);
    assert_eq!(errors(&r)[0].path.as_deref(), Some("compare"));
    // The CSV rendering has one run's series: refused.
    let json = serde_json::to_string(&req(&seed(), ONE_RUN)).unwrap();
    let csv: serde_json::Value = serde_json::from_str(&call("simulate-csv", &json)).unwrap();
    assert_eq!(csv["errors"][0]["code"], "not-available");
}
