//! Fix hints for unschedulable pods are checked by re-planning (issue 18 part 2): each case
//! builds a cluster where one change lets the pod schedule, checks the hint names that change
//! and says "verified", then applies the hinted change to the manifests by hand and plans again
//! to confirm the pod schedules.

use nodecast::{Input, Request};
use serde_json::Value;

fn plan(text: &str) -> Value {
    let req = Request { inputs: vec![Input { name: Some("in.yaml".into()), text: text.into() }], ..Default::default() };
    let v: Value = serde_json::from_str(&nodecast::plan(&req).to_json()).unwrap();
    assert_eq!(v["status"], "success", "{v}");
    v
}

const CLASS: &str = "---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\nspec:\n  role: r\n  amiSelectorTerms: [{alias: al2023@latest}]\n  subnetSelectorTerms: [{tags: {a: b}}]\n  securityGroupSelectorTerms: [{tags: {a: b}}]\n";

fn pool(name: &str, extra_spec: &str, requirements: &str, limits: &str) -> String {
    format!(
        "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: {name}}}\nspec:\n{limits}  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n{extra_spec}      requirements:\n{requirements}"
    )
}

fn pod(name: &str, requests: &str, extra: &str) -> String {
    format!("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\nspec:\n{extra}  containers:\n  - {{name: c, image: x, resources: {{requests: {requests}}}}}\n")
}

fn unschedulable<'a>(v: &'a Value, pod: &str) -> Option<&'a Value> {
    v["unschedulable"].as_array().unwrap().iter().find(|u| u["pod"] == pod)
}

fn only_hint(v: &Value, pod: &str) -> Value {
    let u = unschedulable(v, pod).unwrap_or_else(|| panic!("{pod} schedules: {v}"));
    let hints = u["hints"].as_array().unwrap_or_else(|| panic!("no hints: {u}"));
    assert_eq!(hints.len(), 1, "{u}");
    hints[0].clone()
}

const ON_DEMAND_C: &str = "        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c]}\n";

#[test]
fn taint_hint_names_the_toleration_and_is_verified() {
    let taints = "      taints: [{key: dedicated, value: ml, effect: NoSchedule}]\n";
    let input = format!("{CLASS}{}{}", pool("ml", taints, ON_DEMAND_C, ""), pod("p", "{cpu: 1}", ""));
    let h = only_hint(&plan(&input), "default/p");
    assert_eq!(h["code"], "taint-not-tolerated");
    assert_eq!(h["nodePool"], "ml");
    assert_eq!(h["verified"], true, "{h}");
    assert!(h["change"].as_str().unwrap().contains("{key: dedicated, operator: Equal, value: ml, effect: NoSchedule}"), "{h}");
    assert!(h["check"].as_str().unwrap().starts_with("verified:"), "{h}");
    // The hinted toleration, written into the manifest, schedules the pod.
    let tol = "  tolerations: [{key: dedicated, operator: Equal, value: ml, effect: NoSchedule}]\n";
    let fixed = format!("{CLASS}{}{}", pool("ml", taints, ON_DEMAND_C, ""), pod("p", "{cpu: 1}", tol));
    assert!(unschedulable(&plan(&fixed), "default/p").is_none());
}

#[test]
fn limit_reason_has_numbers_and_a_verified_limit() {
    let limits = "  limits: {cpu: \"4\"}\n";
    let input = format!("{CLASS}{}{}", pool("small", "", ON_DEMAND_C, limits), pod("big", "{cpu: \"7\"}", ""));
    let v = plan(&input);
    let u = unschedulable(&v, "default/big").unwrap();
    assert_eq!(u["code"], "limit-exceeded");
    let msg = u["reasons"][0]["message"].as_str().unwrap();
    // 7 CPUs need an 8-vCPU type (c*.2xlarge); 4 remain.
    assert!(msg.contains("cpu 4 remaining"), "{msg}");
    assert!(msg.contains("needs cpu 8"), "{msg}");
    let h = only_hint(&v, "default/big");
    assert_eq!(h["verified"], true, "{h}");
    assert_eq!(h["change"], "raise NodePool small spec.limits: cpu 4 → 8");
    let fixed = format!("{CLASS}{}{}", pool("small", "", ON_DEMAND_C, "  limits: {cpu: \"8\"}\n"), pod("big", "{cpu: \"7\"}", ""));
    assert!(unschedulable(&plan(&fixed), "default/big").is_none());
}

#[test]
fn gpu_pod_on_cpu_pool_gets_the_pool_requirement_to_widen() {
    let input = format!(
        "{CLASS}{}{}",
        pool("cpu", "", ON_DEMAND_C, ""),
        pod("gpu", "{cpu: 1}", "").replace("requests: {cpu: 1}", "requests: {cpu: 1}, limits: {nvidia.com/gpu: 1}")
    );
    let v = plan(&input);
    let u = unschedulable(&v, "default/gpu").unwrap();
    assert!(u["reasons"][0]["message"].as_str().unwrap().contains("no instance type this NodePool allows has nvidia.com/gpu"), "{u}");
    let h = only_hint(&v, "default/gpu");
    assert_eq!(h["verified"], true, "{h}");
    let change = h["change"].as_str().unwrap();
    assert!(change.starts_with("widen NodePool cpu requirements: karpenter.k8s.aws/instance-category In [c] → In [c "), "{change}");
}

#[test]
fn pod_requirement_that_excludes_every_fitting_type_is_widened() {
    // The pod asks for c5.large (2 vCPU) but requests 3 CPUs: the smallest edit admits one type.
    let sel = "  nodeSelector: {node.kubernetes.io/instance-type: c5.large}\n";
    let input = format!("{CLASS}{}{}", pool("c", "", ON_DEMAND_C, ""), pod("p", "{cpu: \"3\"}", sel));
    let v = plan(&input);
    let h = only_hint(&v, "default/p");
    assert_eq!(h["code"], "requirement-conflict");
    assert_eq!(h["verified"], true, "{h}");
    let change = h["change"].as_str().unwrap();
    assert!(
        change.starts_with("widen the pod's node requirements: node.kubernetes.io/instance-type In [c5.large] → In [c5.large "),
        "{change}"
    );
}

#[test]
fn a_change_that_is_not_enough_says_so() {
    // Tolerating the taint is needed but the 2-CPU limit still blocks the 3-CPU pod: the taint
    // hint is checked and reported as not enough alone.
    let taints = "      taints: [{key: dedicated, effect: NoSchedule}]\n";
    let input = format!("{CLASS}{}{}", pool("ml", taints, ON_DEMAND_C, "  limits: {cpu: \"2\"}\n"), pod("p", "{cpu: \"3\"}", ""));
    let v = plan(&input);
    let u = unschedulable(&v, "default/p").unwrap();
    let taint = u["hints"].as_array().unwrap().iter().find(|h| h["code"] == "taint-not-tolerated").cloned();
    let h = taint.unwrap_or_else(|| panic!("{u}"));
    assert_eq!(h["verified"], false, "{h}");
    assert!(h["check"].as_str().unwrap().contains("still stays pending (limit-exceeded)"), "{h}");
    assert!(h["change"].as_str().unwrap().contains("operator: Exists"), "{h}");
}

#[test]
fn replicas_share_one_replan() {
    // 40 replicas of one Deployment, each blocked by the same taint: every replica carries the
    // hint, checked once (bounded by the re-plan budget, which 40 separate checks would exceed).
    let taints = "      taints: [{key: dedicated, value: ml, effect: NoSchedule}]\n";
    let deploy = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  replicas: 40\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - {name: c, image: x, resources: {requests: {cpu: 100m}}}\n";
    let input = format!("{CLASS}{}{deploy}", pool("ml", taints, ON_DEMAND_C, ""));
    let v = plan(&input);
    let u = v["unschedulable"].as_array().unwrap();
    assert_eq!(u.len(), 40);
    assert!(u.iter().all(|u| u["hints"][0]["verified"] == true), "{v}");
}

fn hints_of(v: &Value, pod: &str) -> Vec<Value> {
    let u = unschedulable(v, pod).unwrap_or_else(|| panic!("{pod} schedules: {v}"));
    u["hints"].as_array().cloned().unwrap_or_default()
}

fn deployment(name: &str, replicas: u32, requests: &str, spec_extra: &str) -> String {
    format!(
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n    spec:\n{spec_extra}      containers:\n      - {{name: c, image: x, resources: {{requests: {requests}}}}}\n"
    )
}

fn pending(v: &Value) -> usize {
    v["unschedulable"].as_array().unwrap().len()
}

#[test]
fn limit_hint_lets_every_held_pod_schedule_and_says_how_many() {
    // Five 3-CPU replicas against a 4-CPU limit: one schedules, four wait. The hint's limit is
    // checked for all four (not for one), and the hint says so.
    let input =
        format!("{CLASS}{}{}", pool("small", "", ON_DEMAND_C, "  limits: {cpu: \"4\"}\n"), deployment("web", 5, "{cpu: \"3\"}", ""));
    let v = plan(&input);
    let waiting: Vec<&Value> = v["unschedulable"].as_array().unwrap().iter().collect();
    assert_eq!(waiting.len(), 4, "{v}");
    let mut changes = std::collections::BTreeSet::new();
    for u in &waiting {
        let pod = u["pod"].as_str().unwrap();
        let h = only_hint(&v, pod);
        assert_eq!(h["code"], "limit-exceeded");
        assert_eq!(h["verified"], true, "{h}");
        let check = h["check"].as_str().unwrap();
        assert!(check.contains(&format!("{pod} goes on a new NodeClaim of NodePool small")), "{check}");
        assert!(check.ends_with("4 of the 4 pending pods held back only by this NodePool's limits schedule"), "{check}");
        changes.insert(h["change"].as_str().unwrap().to_string());
    }
    // One limit for the NodePool, the same in every pod's hint.
    assert_eq!(changes.len(), 1, "{changes:?}");
    let change = changes.into_iter().next().unwrap();
    let new = change.strip_prefix("raise NodePool small spec.limits: cpu 4 → ").unwrap_or_else(|| panic!("{change}"));
    // Written into the manifest, the hinted limit schedules all five.
    let fixed = format!(
        "{CLASS}{}{}",
        pool("small", "", ON_DEMAND_C, &format!("  limits: {{cpu: \"{new}\"}}\n")),
        deployment("web", 5, "{cpu: \"3\"}", "")
    );
    assert_eq!(pending(&plan(&fixed)), 0, "limit {new}");
}

#[test]
fn no_limit_hint_when_lifting_the_limit_would_not_help() {
    // The limit is exhausted, so it is the reason reported, but the GPU pod fits no type of this
    // CPU-only NodePool anyway: no limit value schedules it, and no limit hint is given.
    let input = format!(
        "{CLASS}{}{}",
        pool("cpu", "", ON_DEMAND_C, "  limits: {cpu: \"0\"}\n"),
        pod("gpu", "{cpu: 1}", "").replace("requests: {cpu: 1}", "requests: {cpu: 1}, limits: {nvidia.com/gpu: 1}")
    );
    let v = plan(&input);
    assert_eq!(unschedulable(&v, "default/gpu").unwrap()["code"], "limit-exceeded", "{v}");
    assert!(hints_of(&v, "default/gpu").iter().all(|h| h["code"] != "limit-exceeded"), "{v}");
}

const ZONE_A: &str = "        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c]}\n        - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}\n";

#[test]
fn zone_the_nodepool_excludes_is_admitted() {
    let sel = "  nodeSelector: {topology.kubernetes.io/zone: us-east-1b}\n";
    let input = format!("{CLASS}{}{}", pool("a", "", ZONE_A, ""), pod("p", "{cpu: 1}", sel));
    let v = plan(&input);
    let h = only_hint(&v, "default/p");
    assert_eq!(h["code"], "requirement-conflict");
    assert_eq!(h["verified"], true, "{h}");
    let change = h["change"].as_str().unwrap();
    // One value on either side; the pod's side is preferred at equal size.
    assert_eq!(
        change,
        "widen the pod's node requirements: topology.kubernetes.io/zone In [us-east-1b] → In [us-east-1a us-east-1b] (admits us-east-1a)"
    );
    let fixed = format!(
        "{CLASS}{}{}",
        pool("a", "", ZONE_A, ""),
        pod("p", "{cpu: 1}", "  nodeSelector: {topology.kubernetes.io/zone: us-east-1a}\n")
    );
    assert_eq!(pending(&plan(&fixed)), 0);
}

#[test]
fn capacity_type_the_nodepool_excludes_is_admitted() {
    let sel = "  nodeSelector: {karpenter.sh/capacity-type: spot}\n  tolerations: [{key: x, operator: Exists}]\n";
    let input = format!("{CLASS}{}{}", pool("od", "", ON_DEMAND_C, ""), pod("p", "{cpu: 1}", sel));
    let v = plan(&input);
    let h = only_hint(&v, "default/p");
    assert_eq!(h["verified"], true, "{h}");
    let change = h["change"].as_str().unwrap();
    assert!(change.contains("karpenter.sh/capacity-type") && change.contains("(admits "), "{change}");
    // The NodePool admitting spot schedules the pod as it is.
    let spot = ON_DEMAND_C.replace("[on-demand]", "[on-demand, spot]");
    assert_eq!(pending(&plan(&format!("{CLASS}{}{}", pool("od", "", &spot, ""), pod("p", "{cpu: 1}", sel)))), 0);
}

const THREE_TYPES: &str = "        - {key: node.kubernetes.io/instance-type, operator: In, values: [c5.large, c5.xlarge, c5.2xlarge], minValues: 3}\n        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n";

#[test]
fn min_values_the_fitting_types_cannot_meet_is_lowered() {
    // 3 CPUs fit c5.xlarge and c5.2xlarge only: 2 of the 3 instance types minValues asks for.
    let input = format!("{CLASS}{}{}", pool("mv", "", THREE_TYPES, ""), pod("p", "{cpu: \"3\"}", ""));
    let v = plan(&input);
    assert_eq!(unschedulable(&v, "default/p").unwrap()["code"], "min-values-not-met", "{v}");
    let h = only_hint(&v, "default/p");
    assert_eq!(h["code"], "min-values-not-met");
    assert_eq!(h["verified"], true, "{h}");
    assert!(
        h["change"].as_str().unwrap().starts_with("lower NodePool mv minValues of node.kubernetes.io/instance-type from 3 to 2"),
        "{h}"
    );
    let fixed =
        format!("{CLASS}{}{}", pool("mv", "", &THREE_TYPES.replace("minValues: 3", "minValues: 2"), ""), pod("p", "{cpu: \"3\"}", ""));
    assert_eq!(pending(&plan(&fixed)), 0);
}

#[test]
fn no_min_values_hint_when_no_type_fits_at_all() {
    let input = format!("{CLASS}{}{}", pool("mv", "", THREE_TYPES, ""), pod("p", "{cpu: \"30\"}", ""));
    let v = plan(&input);
    assert!(hints_of(&v, "default/p").iter().all(|h| h["code"] != "min-values-not-met"), "{v}");
}

const SPREAD: &str = "      topologySpreadConstraints:\n      - {maxSkew: 1, minDomains: 3, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}\n";

#[test]
fn zone_spread_on_a_one_zone_nodepool_admits_the_zones() {
    let input = format!("{CLASS}{}{}", pool("a", "", ZONE_A, ""), deployment("web", 3, "{cpu: 1}", SPREAD));
    let v = plan(&input);
    let u = v["unschedulable"].as_array().unwrap();
    assert!(!u.is_empty(), "{v}");
    for u in u {
        assert_eq!(u["code"], "topology-unsatisfiable", "{u}");
        let h = only_hint(&v, u["pod"].as_str().unwrap());
        assert_eq!(h["code"], "topology-unsatisfiable");
        assert_eq!(h["verified"], true, "{h}");
        assert!(
            h["change"]
                .as_str()
                .unwrap()
                .starts_with("widen NodePool a requirements: topology.kubernetes.io/zone In [us-east-1a] → In [us-east-1a us-east-1b"),
            "{h}"
        );
    }
}

#[test]
fn anti_affinity_beyond_the_zones_is_made_soft() {
    // Seven replicas, one per zone required, on a NodePool that allows every zone: the replicas
    // that wait have no zone to add, and the edit left is to make the rule a preference.
    let anti = "      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n          - {topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: web}}}\n";
    let input = format!("{CLASS}{}{}", pool("c", "", ON_DEMAND_C, ""), deployment("web", 7, "{cpu: 1}", anti));
    let v = plan(&input);
    let u = v["unschedulable"].as_array().unwrap();
    assert!(!u.is_empty(), "{v}");
    for u in u {
        let h = only_hint(&v, u["pod"].as_str().unwrap());
        assert_eq!(h["code"], "topology-unsatisfiable");
        assert_eq!(h["verified"], true, "{h}");
        assert_eq!(
            h["change"],
            "move the pod's required podAntiAffinity terms with topologyKey topology.kubernetes.io/zone to preferredDuringSchedulingIgnoredDuringExecution (weight 100)"
        );
    }
}

const NODE_EXPORTER: &str = "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: node-exporter, namespace: monitoring}\nspec:\n  selector: {matchLabels: {app: ne}}\n  template:\n    metadata: {labels: {app: ne}}\n    spec:\n      containers:\n      - {name: c, image: x, ports: [{containerPort: 9100, hostPort: 9100}], resources: {requests: {cpu: 10m}}}\n";

#[test]
fn host_port_a_daemonset_holds_is_given_up() {
    let ports = "  containers:\n  - {name: c, image: x, ports: [{containerPort: 9100, hostPort: 9100}], resources: {requests: {cpu: 1}}}\n";
    let p = format!("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: default}}\nspec:\n{ports}");
    let input = format!("{CLASS}{}{NODE_EXPORTER}{p}", pool("c", "", ON_DEMAND_C, ""));
    let v = plan(&input);
    assert_eq!(unschedulable(&v, "default/p").unwrap()["code"], "host-port-conflict", "{v}");
    let h = only_hint(&v, "default/p");
    assert_eq!(h["code"], "host-port-conflict");
    assert_eq!(h["verified"], true, "{h}");
    assert!(h["change"].as_str().unwrap().starts_with("remove hostPort 9100/TCP from the pod's containers"), "{h}");
    let fixed = format!("{CLASS}{}{NODE_EXPORTER}{}", pool("c", "", ON_DEMAND_C, ""), pod("p", "{cpu: 1}", ""));
    assert_eq!(pending(&plan(&fixed)), 0);
}

#[test]
fn hints_are_deterministic() {
    let taints = "      taints: [{key: dedicated, value: ml, effect: NoSchedule}]\n";
    let input = format!(
        "{CLASS}{}{}{}{}",
        pool("small", "", ON_DEMAND_C, "  limits: {cpu: \"4\"}\n"),
        pool("ml", taints, ZONE_A, ""),
        deployment("web", 5, "{cpu: \"3\"}", ""),
        pod("z", "{cpu: 1}", "  nodeSelector: {topology.kubernetes.io/zone: us-east-1b}\n")
    );
    let req = Request { inputs: vec![Input { name: Some("in.yaml".into()), text: input }], ..Default::default() };
    let first = nodecast::plan(&req).to_json();
    let v: Value = serde_json::from_str(&first).unwrap();
    let hints: Vec<&Value> = v["unschedulable"].as_array().unwrap().iter().flat_map(|u| u["hints"].as_array().unwrap()).collect();
    assert!(hints.iter().any(|h| h["code"] == "limit-exceeded" && h["verified"] == true), "{first}");
    assert!(hints.iter().any(|h| h["code"] == "taint-not-tolerated"), "{first}");
    for _ in 0..3 {
        assert_eq!(nodecast::plan(&req).to_json(), first);
    }
}

#[test]
fn another_pods_anti_affinity_is_not_the_pods_to_soften() {
    // `guard` (larger, scheduled first) keeps every app=web pod out of its zone; the NodePool
    // allows only that zone. The web pod carries no constraint to soften, so the only edit is the
    // zones to allow — and the re-plan shows it is not enough: with more zones allowed, guard's
    // new NodeClaim may still land in any of them, so Karpenter keeps web out of all of them.
    let anti = "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - {topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: web}}}\n";
    let web = pod("web", "{cpu: 1}", "")
        .replace("metadata: {name: web, namespace: default}", "metadata: {name: web, namespace: default, labels: {app: web}}");
    let input = format!("{CLASS}{}{}{web}", pool("a", "", ZONE_A, ""), pod("guard", "{cpu: \"4\"}", anti));
    let v = plan(&input);
    assert!(unschedulable(&v, "default/guard").is_none(), "{v}");
    let u = unschedulable(&v, "default/web").unwrap_or_else(|| panic!("{v}"));
    assert_eq!(u["code"], "topology-unsatisfiable", "{u}");
    let hints = hints_of(&v, "default/web");
    assert!(hints.iter().all(|h| !h["change"].as_str().unwrap().starts_with("move the pod's")), "{u}");
    let h = only_hint(&v, "default/web");
    assert!(h["change"].as_str().unwrap().starts_with("widen NodePool a requirements: topology.kubernetes.io/zone"), "{h}");
    assert_eq!(h["verified"], false, "{h}");
    assert!(h["check"].as_str().unwrap().contains("default/web still stays pending (topology-unsatisfiable)"), "{h}");
}

#[test]
fn nodes_limit_hint_counts_one_node_per_held_pod() {
    // One node per replica (hostname anti-affinity) against `nodes: 1`: two replicas wait, and
    // the hinted node limit lets both schedule.
    let anti = "      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n          - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}\n";
    let input = format!("{CLASS}{}{}", pool("one", "", ON_DEMAND_C, "  limits: {nodes: \"1\"}\n"), deployment("web", 3, "{cpu: 1}", anti));
    let v = plan(&input);
    let u = v["unschedulable"].as_array().unwrap();
    assert_eq!(u.len(), 2, "{v}");
    for u in u {
        assert_eq!(u["code"], "limit-exceeded", "{u}");
        let h = only_hint(&v, u["pod"].as_str().unwrap());
        assert_eq!(h["change"], "raise NodePool one spec.limits: nodes 1 → 3", "{h}");
        assert_eq!(h["verified"], true, "{h}");
        assert!(h["check"].as_str().unwrap().ends_with("2 of the 2 pending pods held back only by this NodePool's limits schedule"), "{h}");
    }
}

#[test]
fn a_plan_without_hints_differs_only_in_the_hints() {
    // Internal callers (advise, sweep rows) render without hints: the same plan, no re-plans.
    let taints = "      taints: [{key: dedicated, value: ml, effect: NoSchedule}]\n";
    let input =
        format!("{CLASS}{}{}", pool("ml", taints, ON_DEMAND_C, "  limits: {cpu: \"4\"}\n"), deployment("web", 3, "{cpu: \"3\"}", ""));
    let cluster = nodecast::Cluster::from_texts(&[Input { name: None, text: input }], &Default::default()).unwrap();
    let m = cluster.model();
    let sol = nodecast::internal::scheduling::solve(m);
    let with = nodecast::internal::provision::render(m, &sol, Vec::new());
    let mut without =
        nodecast::internal::provision::render_with(m, &sol, Vec::new(), nodecast::internal::provision::RenderOptions { hints: false });
    assert!(with.unschedulable.iter().all(|u| !u.hints.is_empty()), "{:?}", with.unschedulable);
    assert!(without.unschedulable.iter().all(|u| u.hints.is_empty()));
    for (w, wo) in with.unschedulable.iter().zip(without.unschedulable.iter_mut()) {
        wo.hints = w.hints.clone();
    }
    assert_eq!(serde_json::to_string(&with).unwrap(), serde_json::to_string(&without).unwrap());
}

#[test]
fn hints_past_the_replan_budget_are_left_out_and_counted_in_a_warning() {
    // 40 separate pods (40 specs), each blocked by the same taint: each needs its own re-plan,
    // the answer affords 16, so 24 pods get no hint and a warning says so.
    assert_eq!(nodecast::hints::replan_budget(40), nodecast::hints::MAX_REPLANS);
    let taints = "      taints: [{key: dedicated, value: ml, effect: NoSchedule}]\n";
    let pods: String = (0..40).map(|i| pod(&format!("p{i:02}"), &format!("{{cpu: {}m}}", 100 + i), "")).collect();
    let v = plan(&format!("{CLASS}{}{pods}", pool("ml", taints, ON_DEMAND_C, "")));
    let with_hint = v["unschedulable"].as_array().unwrap().iter().filter(|u| u["hints"].as_array().is_some_and(|h| !h.is_empty())).count();
    assert_eq!(with_hint, 16, "{v}");
    let w = v["warnings"].as_array().unwrap().iter().find(|w| w["code"] == "hints-not-checked").unwrap_or_else(|| panic!("{v}"));
    assert!(w["message"].as_str().unwrap().starts_with("24 of 40 pending pods got no fix hint"), "{w}");
    // The budget shrinks with the input: past 64,000 pods no re-plan is spent on hints.
    assert_eq!(nodecast::hints::replan_budget(20_000), 3);
    assert_eq!(nodecast::hints::replan_budget(100_000), 0);
}
