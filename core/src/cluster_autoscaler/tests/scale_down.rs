//! Scale-down over the node groups' nodes: the seed's cluster state and one rule per test.

use crate::cluster_autoscaler::{NodeGroupScaleDown, PodMoveOut, ScaleDownCode, ScaleDownNode, ScaleDownVerdict};
use crate::json::{scale_down_node_groups, Input, Outcome, Request};

const NOW: &str = "2025-03-05T12:00:00Z";

fn example(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn run(texts: &[String], now: &str) -> Result<NodeGroupScaleDown, Vec<crate::error::InputError>> {
    let req = Request {
        inputs: texts.iter().enumerate().map(|(i, t)| Input { name: Some(format!("in{i}.yaml")), text: t.clone() }).collect(),
        now: Some(now.into()),
        ..Default::default()
    };
    match scale_down_node_groups(&req).outcome {
        Outcome::Success(d) => Ok(d),
        Outcome::Failure { errors } => Err(errors),
    }
}

fn ok(texts: &[String]) -> NodeGroupScaleDown {
    run(texts, NOW).unwrap_or_else(|e| panic!("{e:?}"))
}

/// One managed group `g` (m5.xlarge, min `min`) and its nodes with the pods given.
fn group(min: i64) -> String {
    format!("apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {{name: c}}\nmanagedNodeGroups:\n- name: g\n  instanceType: m5.xlarge\n  minSize: {min}\n  maxSize: 10\n  desiredCapacity: 2\n")
}

fn node(name: &str, created: &str, annotations: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  creationTimestamp: \"{created}\"\n  annotations: {{{annotations}}}\n  labels: {{eks.amazonaws.com/nodegroup: g, node.kubernetes.io/instance-type: m5.xlarge}}\nstatus:\n  allocatable: {{cpu: \"4\", memory: 16Gi, pods: \"58\"}}\n"
    )
}

/// A pod on `node` requesting `cpu`, owned by a ReplicaSet unless `meta_extra` says otherwise.
fn pod(name: &str, ns: &str, node: &str, cpu: &str, meta_extra: &str, spec_extra: &str) -> String {
    let owner = if meta_extra.contains("ownerReferences") || meta_extra.contains("NO-OWNER") {
        String::new()
    } else {
        "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u1, controller: true}]\n".into()
    };
    let meta_extra = meta_extra.replace("NO-OWNER", "");
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: {ns}\n  labels: {{app: {name}}}\n{owner}{meta_extra}spec:\n  nodeName: {node}\n{spec_extra}  containers: [{{name: c, image: x, resources: {{requests: {{cpu: \"{cpu}\", memory: 1Gi}}}}}}]\nstatus: {{phase: Running, startTime: \"2025-03-05T09:00:00Z\"}}\n"
    )
}

fn verdict<'a>(d: &'a NodeGroupScaleDown, name: &str) -> &'a ScaleDownNode {
    d.nodes.iter().find(|n| n.name == name).unwrap_or_else(|| panic!("no node {name}"))
}

const OLD: &str = "2025-03-05T08:00:00Z";

#[test]
fn seed_cluster_state() {
    let d = ok(&[example("node-groups/eksctl-gpu.yaml"), example("node-groups/cluster-state.yaml")]);
    let v = |n: &str| {
        let x = verdict(&d, n);
        (x.verdict, x.code)
    };
    assert_eq!(v("ip-10-0-1-10.ec2.internal"), (ScaleDownVerdict::Keep, ScaleDownCode::NotUnderutilized));
    assert_eq!(v("ip-10-0-1-11.ec2.internal"), (ScaleDownVerdict::Remove, ScaleDownCode::Empty));
    assert_eq!(v("ip-10-0-2-20.ec2.internal"), (ScaleDownVerdict::Remove, ScaleDownCode::Underutilized));
    assert_eq!(v("ip-10-0-2-21.ec2.internal"), (ScaleDownVerdict::Keep, ScaleDownCode::NoPlaceToMovePods));
    assert_eq!(v("ip-10-0-3-30.ec2.internal"), (ScaleDownVerdict::Keep, ScaleDownCode::NotReplicated));
    assert_eq!(v("ip-10-0-3-31.ec2.internal"), (ScaleDownVerdict::Keep, ScaleDownCode::NotSafeToEvict));
    let p4d = verdict(&d, "ip-10-0-2-20.ec2.internal");
    assert_eq!(p4d.utilization, Some(0.25), "GPU nodes are measured by GPU alone");
    assert_eq!(p4d.utilization_resource.as_deref(), Some("nvidia.com/gpu"));
    assert!(p4d.moves.iter().all(|m| m.to == "ip-10-0-2-21.ec2.internal"), "{:?}", p4d.moves);
    assert_eq!(p4d.moves.len(), 2);
    // Empty nodes go in the first loop with the first drain.
    assert_eq!((verdict(&d, "ip-10-0-1-11.ec2.internal").loop_, p4d.loop_), (Some(1), Some(1)));
    assert!(d.removed_price_per_hour > 6.0, "a p4d.24xlarge and a g5.2xlarge at spot: {}", d.removed_price_per_hour);
}

#[test]
fn utilization_threshold_is_the_larger_of_cpu_and_memory_and_at_threshold_stays() {
    // 2 of 4 CPUs: exactly 0.5, not below the threshold.
    let d = ok(&[group(0), node("a", OLD, ""), node("b", OLD, ""), pod("p", "default", "a", "2", "", "")]);
    assert_eq!(verdict(&d, "a").code, ScaleDownCode::NotUnderutilized);
    assert_eq!(verdict(&d, "a").utilization_resource.as_deref(), Some("cpu"));
    assert_eq!(verdict(&d, "b").code, ScaleDownCode::Empty);
    // 1.9 CPUs: below the threshold. Empty candidates are simulated first, so b goes and a's
    // pod has no node left: a stays.
    let d = ok(&[group(0), node("a", OLD, ""), node("b", OLD, ""), pod("p", "default", "a", "1900m", "", "")]);
    let a = verdict(&d, "a");
    assert_eq!((a.verdict, a.code), (ScaleDownVerdict::Keep, ScaleDownCode::NoPlaceToMovePods));
    let b = verdict(&d, "b");
    assert_eq!((b.verdict, b.code, b.utilization), (ScaleDownVerdict::Remove, ScaleDownCode::Empty, Some(0.0)));
    // With b holding a pod that keeps it (no controller), a's pod moves there and a goes.
    let d = ok(&[
        group(0),
        node("a", OLD, ""),
        node("b", OLD, ""),
        pod("p", "default", "a", "1900m", "", ""),
        pod("q", "default", "b", "100m", "NO-OWNER", ""),
    ]);
    let a = verdict(&d, "a");
    assert_eq!((a.verdict, a.code), (ScaleDownVerdict::Remove, ScaleDownCode::Underutilized));
    assert_eq!(a.moves, vec![PodMoveOut { pod: "default/p".into(), to: "b".into() }]);
    assert_eq!(verdict(&d, "b").code, ScaleDownCode::NotReplicated);
}

#[test]
fn min_size_keeps_the_last_nodes() {
    let d = ok(&[group(1), node("a", OLD, ""), node("b", OLD, "")]);
    assert_eq!(verdict(&d, "a").verdict, ScaleDownVerdict::Remove);
    assert_eq!(verdict(&d, "b").code, ScaleDownCode::MinSizeReached);
}

#[test]
fn scale_down_disabled_annotation() {
    let d = ok(&[group(0), node("a", OLD, "cluster-autoscaler.kubernetes.io/scale-down-disabled: \"true\""), node("b", OLD, "")]);
    assert_eq!(verdict(&d, "a").code, ScaleDownCode::ScaleDownDisabled);
    assert_eq!(verdict(&d, "b").code, ScaleDownCode::Empty);
}

#[test]
fn drainability_rules() {
    // b holds a pod that keeps it (no controller): a non-empty destination for a's pods.
    let base = || vec![group(0), node("a", OLD, ""), node("b", OLD, ""), pod("q", "default", "b", "100m", "NO-OWNER", "")];
    let code = |extra: Vec<String>| {
        let mut t = base();
        t.extend(extra);
        verdict(&ok(&t), "a").code
    };
    assert_eq!(code(vec![pod("p", "default", "a", "1", "NO-OWNER", "")]), ScaleDownCode::NotReplicated);
    // safe-to-evict "true" lets an unreplicated pod go.
    let safe = "  annotations: {cluster-autoscaler.kubernetes.io/safe-to-evict: \"true\"}\nNO-OWNER";
    assert_eq!(code(vec![pod("p", "default", "a", "1", safe, "")]), ScaleDownCode::Underutilized);
    assert_eq!(code(vec![pod("p", "kube-system", "a", "1", "", "")]), ScaleDownCode::UnmovableKubeSystemPod);
    let pdb = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b, namespace: kube-system}\nspec: {maxUnavailable: 1, selector: {matchLabels: {app: p}}}\n".to_string();
    assert_eq!(code(vec![pod("p", "kube-system", "a", "1", "", ""), pdb]), ScaleDownCode::Underutilized);
    let unsafe_ = "  annotations: {cluster-autoscaler.kubernetes.io/safe-to-evict: \"false\"}\n";
    assert_eq!(code(vec![pod("p", "default", "a", "1", unsafe_, "")]), ScaleDownCode::NotSafeToEvict);
    let vols = "  volumes: [{name: scratch, emptyDir: {}}]\n";
    assert_eq!(code(vec![pod("p", "default", "a", "1", "", vols)]), ScaleDownCode::LocalStorage);
    let listed = "  annotations: {cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes: scratch}\n";
    assert_eq!(code(vec![pod("p", "default", "a", "1", listed, vols)]), ScaleDownCode::Underutilized);
    let mem = "  volumes: [{name: shm, emptyDir: {medium: Memory}}]\n";
    assert_eq!(
        code(vec![pod("p", "default", "a", "1", "", mem)]),
        ScaleDownCode::Underutilized,
        "an in-memory emptyDir is not local storage"
    );
    let zero = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: z, namespace: default}\nspec: {maxUnavailable: 0, selector: {matchLabels: {app: p}}}\n".to_string();
    assert_eq!(code(vec![pod("p", "default", "a", "1", "", ""), zero]), ScaleDownCode::NotEnoughPdb);
}

#[test]
fn pods_that_fit_nowhere_keep_the_node() {
    // 1.9 CPUs on each: each is under the threshold; a's pod moves to b, then b's pod has no
    // node left (a is removed).
    let d = ok(&[
        group(0),
        node("a", OLD, ""),
        node("b", OLD, ""),
        pod("p", "default", "a", "1900m", "", ""),
        pod("q", "default", "b", "1900m", "", ""),
    ]);
    assert_eq!(verdict(&d, "a").verdict, ScaleDownVerdict::Remove);
    let b = verdict(&d, "b");
    assert_eq!((b.verdict, b.code), (ScaleDownVerdict::Keep, ScaleDownCode::NoPlaceToMovePods));
}

#[test]
fn unneeded_time_and_delay_after_add() {
    // A node that changed 5 minutes ago waits until 10 minutes have passed.
    let d = ok(&[group(0), node("a", "2025-03-05T11:55:00Z", ""), node("b", OLD, "")]);
    let a = verdict(&d, "a");
    assert_eq!((a.verdict, a.code), (ScaleDownVerdict::Unneeded, ScaleDownCode::UnneededTooShort));
    assert_eq!(a.removable_at.as_deref(), Some("2025-03-05T12:05:00Z"));
    // ...and the newest node is the last scale-up: b, unneeded for hours, waits for the cool-down.
    let b = verdict(&d, "b");
    assert_eq!((b.verdict, b.code), (ScaleDownVerdict::Unneeded, ScaleDownCode::ScaleDownInCooldown));
    assert_eq!(d.cooldown_until.as_deref(), Some("2025-03-05T12:05:00Z"));
    // Twenty minutes later both go.
    let d = run(&[group(0), node("a", "2025-03-05T11:55:00Z", ""), node("b", OLD, "")], "2025-03-05T12:20:00Z").unwrap();
    assert!(d.nodes.iter().all(|n| n.verdict == ScaleDownVerdict::Remove));
    // Settings change both times.
    let settings =
        "apiVersion: nodecast/v1\nkind: ClusterAutoscalerSettings\nscaleDownUnneededTime: 2m\nscaleDownDelayAfterAdd: 1m\n".to_string();
    let d = ok(&[group(0), node("a", "2025-03-05T11:55:00Z", ""), node("b", OLD, ""), settings]);
    assert!(d.nodes.iter().all(|n| n.verdict == ScaleDownVerdict::Remove), "{:?}", d.nodes);
    assert_eq!(d.settings.unneeded_time_seconds, 120);
}

#[test]
fn nodes_outside_the_groups_stay_and_take_pods() {
    let other = "apiVersion: v1\nkind: Node\nmetadata: {name: o, creationTimestamp: \"2025-03-05T08:00:00Z\"}\nstatus: {allocatable: {cpu: \"4\", memory: 16Gi, pods: \"58\"}}\n".to_string();
    let d = ok(&[group(0), node("a", OLD, ""), other, pod("p", "default", "a", "1", "", "")]);
    assert_eq!(verdict(&d, "o").code, ScaleDownCode::NotInNodeGroup);
    assert_eq!(verdict(&d, "a").moves, vec![PodMoveOut { pod: "default/p".into(), to: "o".into() }]);
}

#[test]
fn now_is_required_and_located() {
    let req = Request { inputs: vec![Input { name: None, text: group(0) }], ..Default::default() };
    match scale_down_node_groups(&req).outcome {
        Outcome::Failure { errors } => assert!(!errors.is_empty()),
        Outcome::Success(_) => panic!("scale-down needs now"),
    }
    let e = run(&[group(0).replace("m5.xlarge", "m5.nonexistent")], NOW).unwrap_err();
    assert_eq!(e[0].code, "unknown-instance-type");
}

#[test]
fn expendable_pods_neither_count_nor_block() {
    // A 3-CPU pod of priority -20 (below the default cutoff -10), without a controller: the
    // Cluster Autoscaler's snapshot has no expendable pod, so the node is empty to it.
    let low = pod("batch", "default", "a", "3", "NO-OWNER", "  priority: -20\n");
    let d = ok(&[group(0), node("a", OLD, ""), node("b", OLD, ""), low.clone()]);
    assert_eq!((verdict(&d, "a").verdict, verdict(&d, "a").code), (ScaleDownVerdict::Remove, ScaleDownCode::Empty));
    // At the cutoff it is an ordinary pod: 0.75 utilisation keeps the node.
    let at = pod("batch", "default", "a", "3", "NO-OWNER", "  priority: -10\n");
    assert_eq!(verdict(&ok(&[group(0), node("a", OLD, ""), node("b", OLD, ""), at]), "a").code, ScaleDownCode::NotUnderutilized);
    // preemptionPolicy: Never makes it non-expendable whatever its priority (utils/pod
    // IsExpendablePod, kubernetes/autoscaler cluster-autoscaler/utils/pod/pod_test.go).
    let never = pod("batch", "default", "a", "3", "NO-OWNER", "  priority: -20\n  preemptionPolicy: Never\n");
    assert_eq!(verdict(&ok(&[group(0), node("a", OLD, ""), node("b", OLD, ""), never]), "a").code, ScaleDownCode::NotUnderutilized);
    // A settings document moves the cutoff.
    let settings = "apiVersion: nodecast/v1\nkind: ClusterAutoscalerSettings\nexpendablePodsPriorityCutoff: -30\n".to_string();
    assert_eq!(verdict(&ok(&[group(0), node("a", OLD, ""), node("b", OLD, ""), low, settings]), "a").code, ScaleDownCode::NotUnderutilized);
}

#[test]
fn empty_candidates_are_simulated_first() {
    // a (input first) holds a pod that fits b; b is empty. Empty nodes go first in the Cluster
    // Autoscaler's candidate order, so b is removed before a's pod could move onto it, and a
    // (min size 0, nothing else left) keeps its pod.
    let d = ok(&[group(0), node("a", OLD, ""), node("b", OLD, ""), pod("p", "default", "a", "1", "", "")]);
    assert_eq!((verdict(&d, "b").verdict, verdict(&d, "b").code), (ScaleDownVerdict::Remove, ScaleDownCode::Empty));
    assert_eq!(verdict(&d, "a").code, ScaleDownCode::NoPlaceToMovePods);
    // The answer lists nodes in input order whatever the simulation order.
    assert_eq!(d.nodes.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
}
