//! HorizontalPodAutoscalers in `simulate` (issue 33): demand → HPA → pods → Karpenter → ready
//! pods, computed by hand with the fixed start-up latencies of tests/common (GPU node ready
//! 240 + 75 s after launch, + 1 s batch), and the located errors of HPAs and demand series.

mod common;
use common::fixed;
use nodecast::simulate::Simulation;
use nodecast::{Input, InputError, Outcome, Request};

const CLUSTER: &str = r#"
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: gpu}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}
  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 5m}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: serve, namespace: ml}
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: s
        image: vllm
        readinessProbe: {httpGet: {path: /health, port: 8000}, initialDelaySeconds: 45}
        resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}
"#;

const HPA: &str = r#"
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: serve, namespace: ml}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: serve}
  minReplicas: 1
  maxReplicas: 4
  metrics:
  - type: Pods
    pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: "10"}}
"#;

const TRACE: &str = r#"
kind: Trace
end: 2h
events:
- {at: 0s, submit: {ref: Deployment/ml/serve}}
demand:
- workload: serve
  metric: rps
  capacityPerReplica: 12
  steps: [{at: 0s, value: 8}, {at: 30m, value: 35}, {at: 90m, value: 8}]
"#;

fn answer(cluster: &str, trace: &str) -> Result<Simulation, Vec<InputError>> {
    let req = Request {
        inputs: vec![Input { name: Some("cluster.yaml".into()), text: cluster.into() }],
        trace: Some(nodecast::simulate::TraceInput { name: Some("trace.yaml".into()), text: trace.into(), format: None }),
        simulation: Some(fixed()),
        ..Default::default()
    };
    match nodecast::simulate(&req).outcome {
        Outcome::Success(s) => Ok(s),
        Outcome::Failure { errors } => Err(errors),
    }
}

#[test]
fn a_demand_step_scales_the_deployment_through_new_nodes() {
    let s = answer(&format!("{CLUSTER}---{HPA}"), TRACE).unwrap();
    assert!(s.skipped.iter().all(|k| k.kind != "HorizontalPodAutoscaler"), "{:?}", s.skipped);
    let a = &s.autoscaling[0];
    assert_eq!(a.workload, "Deployment/ml/serve");
    assert_eq!(a.hpa.as_deref(), Some("ml/serve"));
    assert_eq!(a.readiness_delay_seconds, 45);
    // 35 rps over one ready pod: 35 against 10 → ceil(3.5) = 4, but without behavior the first
    // scale-up may at most reach max(2 × 1, 4) = 4: 4 replicas at the 30 m sync.
    assert_eq!(a.peak_replicas, 4);
    let launched: Vec<i64> = s.nodes.iter().map(|n| n.launched_seconds).collect();
    // The three new pods arrive at 1800 s; one batch (1 s) later Karpenter launches 3 nodes.
    assert_eq!(launched.iter().filter(|&&t| t == 1801).count(), 3, "{launched:?}");
    // Ready capacity 4 × 12 = 48 ≥ 35 once the last pod is Ready: node ready at 1801 + 240 + 75,
    // then the 45 s readiness delay; seen by the next 15 s sync → 2175 s, 375 s after the rise.
    let p = a.scale_up_seconds.as_ref().unwrap();
    assert_eq!(p.max, 375);
    assert_eq!(a.rises_uncovered, Some(0));
    // Demand back at 8 at 90 m: the 5-minute downscale window, then down to 1 replica.
    let replicas = s.series.metrics.iter().find(|m| m.name == "nodecast_workload_replicas").unwrap();
    assert_eq!(*replicas.values.last().unwrap(), 1.0);
    assert!(a.served_percent.unwrap() < 100.0 && a.served_percent.unwrap() > 90.0, "{a:?}");
    assert!(a.gpu_cost_usd > 0.0 && a.gpu_hours > 0.0);
}

#[test]
fn same_request_same_bytes() {
    let a = serde_json::to_string(&answer(&format!("{CLUSTER}---{HPA}"), TRACE).unwrap()).unwrap();
    let b = serde_json::to_string(&answer(&format!("{CLUSTER}---{HPA}"), TRACE).unwrap()).unwrap();
    assert_eq!(a, b);
}

#[test]
fn without_an_hpa_the_demand_is_reported_against_the_trace_replicas() {
    let s = answer(CLUSTER, TRACE).unwrap();
    let a = &s.autoscaling[0];
    assert_eq!((a.hpa.as_deref(), a.peak_replicas, a.rescales), (None, 1, 0));
    // One replica (12) never covers 35: the rise is covered only when the demand falls at 90 m.
    assert_eq!(a.scale_up_seconds.as_ref().map(|p| p.max), Some(3600));
}

#[test]
fn invalid_hpas_and_series_are_located_errors() {
    let bad = HPA.replace("maxReplicas: 4", "maxReplicas: 0").replace("averageValue: \"10\"", "averageValue: \"-1\"");
    let e = answer(&format!("{CLUSTER}---{bad}"), TRACE).unwrap_err();
    let at: Vec<(&str, Option<usize>, &str)> =
        e.iter().map(|e| (e.path.as_deref().unwrap_or(""), e.document, e.object.as_deref().unwrap_or(""))).collect();
    assert!(at.contains(&("spec.maxReplicas", Some(3), "HorizontalPodAutoscaler/ml/serve")), "{at:?}");
    assert!(at.iter().any(|a| a.0 == "spec.metrics[0].pods.target.averageValue"), "{at:?}");
    let policy = HPA.to_string() + "  behavior: {scaleUp: {policies: [{type: Pods, value: 2, periodSeconds: 2000}]}}\n";
    let e = answer(&format!("{CLUSTER}---{policy}"), TRACE).unwrap_err();
    assert_eq!(e[0].path.as_deref(), Some("spec.behavior.scaleUp.policies[0].periodSeconds"));
    // A series for the workload that misses the HPA's metric.
    let e = answer(&format!("{CLUSTER}---{HPA}"), &TRACE.replace("metric: rps", "metric: qps")).unwrap_err();
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("no-demand", Some("spec.metrics[0]")));
    let e = answer(CLUSTER, &TRACE.replace("{at: 90m, value: 8}", "{at: 20m, value: 8}")).unwrap_err();
    assert_eq!(e[0].path.as_deref(), Some("demand[0].steps"));
    assert_eq!(e[0].source.as_deref(), Some("trace.yaml"));
}

#[test]
fn a_few_bytes_cannot_ask_for_billions_of_autoscaled_pods() {
    // Kubernetes accepts maxReplicas up to 2^31 − 1; the HPAs' sum is bounded before any sync.
    let huge = HPA.replace("maxReplicas: 4", "maxReplicas: 2147483647");
    let e = answer(&format!("{CLUSTER}---{huge}"), TRACE).unwrap_err();
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].code, "too-many-pods");
    assert_eq!((e[0].path.as_deref(), e[0].object.as_deref()), (Some("spec.maxReplicas"), Some("HorizontalPodAutoscaler/ml/serve")));
}
