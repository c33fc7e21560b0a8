use super::*;
mod scale_down;
use crate::json::{call, plan_node_groups, Input, Outcome, Request};

fn req(texts: &[&str]) -> Request {
    Request {
        inputs: texts.iter().enumerate().map(|(i, t)| Input { name: Some(format!("in{i}.yaml")), text: t.to_string() }).collect(),
        ..Default::default()
    }
}

fn ok(texts: &[&str]) -> NodeGroupPlan {
    match plan_node_groups(&req(texts)).outcome {
        Outcome::Success(p) => p,
        Outcome::Failure { errors } => panic!("{errors:?}"),
    }
}

fn example(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn group(name: &str, ty: &str, extra: &str) -> String {
    format!(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {{name: c}}\nmanagedNodeGroups:\n- name: {name}\n  instanceType: {ty}\n  minSize: 0\n  maxSize: 50\n  desiredCapacity: 0\n{extra}"
    )
}

fn pods(name: &str, n: usize, requests: &str, spec_extra: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  replicas: {n}\n  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n    spec:\n{spec_extra}      containers:\n      - name: c\n        image: x\n        resources: {{requests: {requests}}}\n"
    )
}

#[test]
fn seed_gpu_groups_least_waste_then_the_big_job() {
    let p = ok(&[
        &example("node-groups/eksctl-gpu.yaml"),
        &example("workloads/eval-jobs-1gpu.yaml"),
        &example("workloads/training-job-4gpu.yaml"),
    ]);
    assert_eq!(p.scale_ups.len(), 2);
    assert_eq!((p.scale_ups[0].node_group.as_str(), p.scale_ups[0].nodes), ("gpu-g5-2xlarge", 5));
    assert_eq!(p.scale_ups[0].decided_by, "least-waste");
    // g5.xlarge (4 vCPU) cannot take a 6-CPU eval pod: it is no option.
    assert!(!p.scale_ups[0].options.iter().any(|o| o.node_group == "gpu-g5-xlarge"));
    assert_eq!(p.scale_ups[1].pods, vec!["ml/train-llm-0"]);
    assert!(p.unschedulable.is_empty());
    let g5 = p.node_groups.iter().find(|g| g.name == "gpu-g5-2xlarge").unwrap();
    assert_eq!(g5.capacity["cpu"], "8");
    assert_eq!(g5.capacity["memory"], "32Gi", "the instance's full memory, not Karpenter's capacity");
    assert_eq!(g5.capacity["pods"], "110");
    assert_eq!(g5.labels["eks.amazonaws.com/capacityType"], "SPOT");
    assert_eq!(g5.labels["nodegroup-name"], "gpu-g5-2xlarge", "the ASG's eks: tag as a label");
    assert_eq!(g5.taints, vec!["nvidia.com/gpu=true:NoSchedule"]);
}

#[test]
fn max_size_and_reasons_per_group() {
    let g = group("small", "m5.large", "").replace("maxSize: 50", "maxSize: 2");
    let d = pods("web", 5, "{cpu: 1500m, memory: 1Gi}", "");
    let p = ok(&[&g, &d]);
    assert_eq!(p.node_groups[0].new_nodes, 2);
    assert_eq!(p.unschedulable.len(), 3);
    assert_eq!(p.unschedulable[0].reasons[0].code, CaReason::MaxSizeReached);
}

#[test]
fn ephemeral_storage_fits_no_template_without_a_tag() {
    let d = pods("scratch", 1, "{cpu: 100m, ephemeral-storage: 1Gi}", "");
    let p = ok(&[&group("g", "m5.large", ""), &d]);
    let r = &p.unschedulable[0].reasons[0];
    assert_eq!(r.code, CaReason::InsufficientResources);
    assert!(r.message.contains("ephemeral-storage"), "{}", r.message);
    // With propagateASGTags and a resources tag, the template has it.
    let tagged = group(
        "g",
        "m5.large",
        "  propagateASGTags: true\n  tags: {k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage: 100Gi}\n",
    );
    let p = ok(&[&tagged, &d]);
    assert!(p.unschedulable.is_empty());
    assert_eq!(p.node_groups[0].capacity["ephemeral-storage"], "100Gi");
}

#[test]
fn untolerated_taint_and_unmanaged_labels() {
    let tainted = group("gpu", "g5.xlarge", "  taints: [{key: nvidia.com/gpu, value: \"true\", effect: NoSchedule}]\n");
    let d = pods("p", 1, "{cpu: 100m}", "");
    let p = ok(&[&tainted, &d]);
    assert_eq!(p.unschedulable[0].reasons[0].code, CaReason::UntoleratedTaint);
    // A self-managed group's labels reach the template only as ASG tags.
    let unmanaged = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c}\nnodeGroups:\n- name: batch\n  instanceType: m5.large\n  minSize: 0\n  maxSize: 5\n  labels: {role: batch}\n";
    let sel = pods("b", 1, "{cpu: 100m}", "      nodeSelector: {role: batch}\n");
    let p = ok(&[unmanaged, &sel]);
    assert_eq!(p.unschedulable[0].reasons[0].code, CaReason::NodeSelectorMismatch);
    assert!(p.warnings.iter().any(|w| w.code == "ca-labels-not-visible"));
    let p = ok(&[&unmanaged.replace("labels:", "propagateASGTags: true\n  labels:"), &sel]);
    assert!(p.unschedulable.is_empty());
}

#[test]
fn current_nodes_take_pods_before_any_scale_up() {
    let g = group("g", "m5.xlarge", "").replace("desiredCapacity: 0", "desiredCapacity: 1");
    let p = ok(&[&g, &pods("w", 2, "{cpu: 1}", "")]);
    assert!(p.scale_ups.is_empty());
    assert_eq!(p.nodes.len(), 1);
    assert!(!p.nodes[0].new);
    assert_eq!(p.nodes[0].pods.len(), 2);
}

#[test]
fn daemonsets_take_template_capacity() {
    let ds = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: kube-system}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers:\n      - {name: c, image: x, resources: {requests: {cpu: 1}}}\n";
    // m5.large: 2 vCPU. Without the DaemonSet two 1-CPU pods share a node; with it, one each.
    let d = pods("w", 2, "{cpu: 1}", "");
    assert_eq!(ok(&[&group("g", "m5.large", ""), &d]).node_groups[0].new_nodes, 1);
    let p = ok(&[&group("g", "m5.large", ""), &d, ds]);
    assert_eq!(p.node_groups[0].new_nodes, 2);
    assert_eq!(p.node_groups[0].daemon_sets, vec!["kube-system/agent"]);
}

#[test]
fn priority_expander_and_its_configmap() {
    let groups =
        format!("{}{}", group("a-small", "m5.large", ""), "- name: z-big\n  instanceType: m5.4xlarge\n  minSize: 0\n  maxSize: 5\n");
    let d = pods("w", 1, "{cpu: 1}", "");
    let least = ok(&[&groups, &d]);
    assert_eq!(least.scale_ups[0].node_group, "a-small");
    let settings = "apiVersion: nodecast/v1\nkind: ClusterAutoscalerSettings\nexpander: priority\n";
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-autoscaler-priority-expander}\ndata:\n  priorities: |-\n    20: [big]\n    1: [.*]\n";
    let p = ok(&[&groups, &d, settings, cm]);
    assert_eq!(p.scale_ups[0].node_group, "z-big");
    assert_eq!(p.scale_ups[0].decided_by, "priority");
    let missing = match plan_node_groups(&req(&[&groups, &d, settings])).outcome {
        Outcome::Failure { errors } => errors,
        Outcome::Success(_) => panic!("the priority expander needs its ConfigMap"),
    };
    assert_eq!(missing[0].code, "missing-priorities");
    // Located where the chain names the expander (found by fuzzing: it had no location).
    assert_eq!(missing[0].path.as_deref(), Some("expander"));
    assert!(missing[0].source.is_some() && missing[0].document == Some(0), "{:?}", missing[0]);
}

#[test]
fn equal_options_are_a_disclosed_tie() {
    let groups = format!("{}{}", group("b", "m5.large", ""), "- name: a\n  instanceType: m5.large\n  minSize: 0\n  maxSize: 5\n");
    let p = ok(&[&groups, &pods("w", 1, "{cpu: 1}", "")]);
    assert_eq!(p.scale_ups[0].node_group, "a");
    assert_eq!(p.scale_ups[0].decided_by, "random");
    assert_eq!(p.scale_ups[0].tied_with, vec!["a", "b"]);
    assert!(p.disclosures.iter().any(|d| d.contains("at random")));
}

#[test]
fn unknown_instance_type_is_located() {
    let errs = match plan_node_groups(&req(&[&group("g", "p3.2xlarge", ""), &pods("w", 1, "{cpu: 1}", "")])).outcome {
        Outcome::Failure { errors } => errors,
        Outcome::Success(_) => panic!("p3.2xlarge is not in the embedded catalog"),
    };
    assert_eq!(errs[0].code, "unknown-instance-type");
    assert_eq!(errs[0].path.as_deref(), Some("managedNodeGroups[0].instanceType"));
    assert_eq!(errs[0].source.as_deref(), Some("in0.yaml"));
}

#[test]
fn plan_is_chosen_by_the_documents_and_deterministic() {
    let mut r = req(&[&group("g", "m5.large", ""), &pods("w", 3, "{cpu: 1}", "")]);
    assert!(crate::json::wants_cluster_autoscaler(&r), "node groups and no NodePool");
    // The facade answers with the Cluster Autoscaler only when asked.
    assert!(call("plan", &serde_json::to_string(&r).unwrap()).contains("\"kind\": \"Plan\""));
    r.autoscaler = Some(crate::json::Autoscaler::ClusterAutoscaler);
    let json = serde_json::to_string(&r).unwrap();
    let a = call("plan", &json);
    assert!(a.contains("\"kind\": \"NodeGroupPlan\""), "{a}");
    assert_eq!(a, call("plan", &json), "same bytes");
    // With a NodePool in the inputs, Karpenter answers unless asked otherwise.
    let np = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}\n      requirements: []\n";
    let mut both = req(&[&group("g", "m5.large", ""), np]);
    assert!(!crate::json::wants_cluster_autoscaler(&both));
    both.autoscaler = Some(crate::json::Autoscaler::ClusterAutoscaler);
    assert!(crate::json::wants_cluster_autoscaler(&both));
}

#[test]
fn max_nodes_per_scale_up_splits_into_loops() {
    let settings = "apiVersion: nodecast/v1\nkind: ClusterAutoscalerSettings\nmaxNodesPerScaleUp: 2\n";
    let p = ok(&[&group("g", "m5.large", ""), &pods("w", 5, "{cpu: 1500m}", ""), settings]);
    let sizes: Vec<i64> = p.scale_ups.iter().map(|s| s.nodes).collect();
    assert_eq!(sizes, vec![2, 2, 1]);
    assert!(p.scale_ups[0].options[0].limited);
}

#[test]
fn a_few_bytes_cannot_ask_for_billions_of_current_nodes() {
    let a = group("a", "m5.xlarge", "").replace("maxSize: 50\n  desiredCapacity: 0", "maxSize: 2147483647\n  desiredCapacity: 2147483647");
    let errors = match plan_node_groups(&req(&[&a])).outcome {
        Outcome::Failure { errors } => errors,
        Outcome::Success(_) => panic!("2^31 current nodes were simulated"),
    };
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].code, "too-many-nodes");
    assert!(errors[0].path.as_deref().is_some_and(|p| p.ends_with("desiredCapacity")), "{errors:?}");
    // Two groups under the bound each, over it together: the sum is what is bounded.
    let half = MAX_CURRENT_NODES / 2 + 1;
    let two = format!(
        "{}- name: b\n  instanceType: m5.xlarge\n  minSize: 0\n  maxSize: {half}\n  desiredCapacity: {half}\n",
        group("a", "m5.xlarge", "").replace("maxSize: 50\n  desiredCapacity: 0", &format!("maxSize: {half}\n  desiredCapacity: {half}"))
    );
    match plan_node_groups(&req(&[&two])).outcome {
        Outcome::Failure { errors } => assert_eq!(errors[0].code, "too-many-nodes", "{errors:?}"),
        Outcome::Success(_) => panic!("the sum was not bounded"),
    }
}

#[test]
fn expendable_pending_pods_get_no_scale_up() {
    // Priority -11 is below the default cutoff (-10): no scale-up, listed as expendable; at
    // -10 the pod is an ordinary one (utils/pod IsExpendablePod: strictly below).
    let low = pods("low", 2, "{cpu: '1'}", "      priority: -11\n");
    let p = ok(&[&group("g", "m5.xlarge", ""), &low]);
    assert!(p.scale_ups.is_empty() && p.unschedulable.is_empty(), "{p:?}");
    assert_eq!(p.expendable, ["default/low-0", "default/low-1"]);
    assert_eq!(p.settings.expendable_pods_priority_cutoff, -10);
    let at = pods("at", 2, "{cpu: '1'}", "      priority: -10\n");
    let p = ok(&[&group("g", "m5.xlarge", ""), &at]);
    assert_eq!((p.scale_ups.len(), p.expendable.len()), (1, 0));
    let settings = "apiVersion: nodecast/v1\nkind: ClusterAutoscalerSettings\nexpendablePodsPriorityCutoff: -20\n";
    let p = ok(&[&group("g", "m5.xlarge", ""), &low, settings]);
    assert_eq!((p.scale_ups.len(), p.expendable.len()), (1, 0));
}

#[test]
fn priority_class_names_resolve_for_expendable_pods() {
    // spec.priorityClassName resolves through the inputs' PriorityClass (Kubernetes' Priority
    // admission): value -11 is below the cutoff, so the pods are expendable; the class may come
    // after the pods in the input.
    let low = pods("low", 2, "{cpu: '1'}", "      priorityClassName: batch-low\n");
    let class = |name: &str, value: &str, extra: &str| {
        format!("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {{name: {name}}}\nvalue: {value}\n{extra}")
    };
    let p = ok(&[&group("g", "m5.xlarge", ""), &low, &class("batch-low", "-11", "")]);
    assert_eq!(p.expendable, ["default/low-0", "default/low-1"], "{p:?}");
    // A class whose preemptionPolicy is Never makes its pods ordinary (IsExpendablePod).
    let p = ok(&[&group("g", "m5.xlarge", ""), &low, &class("batch-low", "-11", "preemptionPolicy: Never\n")]);
    assert_eq!((p.scale_ups.len(), p.expendable.len()), (1, 0));
    // A pod naming no class gets the global default class.
    let plain = pods("plain", 1, "{cpu: '1'}", "");
    let p = ok(&[&group("g", "m5.xlarge", ""), &plain, &class("default-low", "-50", "globalDefault: true\n")]);
    assert_eq!(p.expendable, ["default/plain-0"]);
    // The built-in classes need no object; an unknown name is refused where it is written.
    let critical = pods("crit", 1, "{cpu: '1'}", "      priorityClassName: system-cluster-critical\n");
    assert_eq!(ok(&[&group("g", "m5.xlarge", ""), &critical]).scale_ups.len(), 1);
    match plan_node_groups(&req(&[&group("g", "m5.xlarge", ""), &low])).outcome {
        Outcome::Failure { errors } => {
            assert_eq!(errors[0].code, "unknown-priority-class");
            assert_eq!(errors[0].path.as_deref(), Some("spec.template.spec.priorityClassName"));
        }
        Outcome::Success(p) => panic!("an unknown PriorityClass is refused: {p:?}"),
    }
    // A PriorityClass without an integer value is refused.
    match plan_node_groups(&req(&[&group("g", "m5.xlarge", ""), &low, &class("batch-low", "high", "")])).outcome {
        Outcome::Failure { errors } => assert!(errors.iter().any(|e| e.path.as_deref() == Some("value")), "{errors:?}"),
        Outcome::Success(p) => panic!("{p:?}"),
    }
}
