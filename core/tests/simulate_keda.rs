//! KEDA in `simulate` (issue 33): a ScaledObject scales its Deployment from zero on a queue and
//! back to zero after the cooldown, through the HPA it generates; a ScaledJob creates Jobs from
//! its queue length; their located errors. Fixed start-up latencies of tests/common (GPU node
//! ready 240 + 75 s after launch, + 1 s batch).

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
metadata: {name: worker, namespace: ml}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: w
        image: worker
        resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}
"#;

const SCALED_OBJECT: &str = r#"
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: worker, namespace: ml}
spec:
  scaleTargetRef: {name: worker}
  minReplicaCount: 0
  maxReplicaCount: 4
  cooldownPeriod: 600
  triggers:
  - type: aws-sqs-queue
    metadata: {queueURL: "https://sqs.us-east-1.amazonaws.com/1/jobs", queueLength: "10", activationQueueLength: "2"}
"#;

const TRACE: &str = r#"
kind: Trace
end: 3h
events:
- {at: 0s, submit: {ref: Deployment/ml/worker}}
demand:
- workload: worker
  metric: aws-sqs-queue
  steps: [{at: 0s, value: 0}, {at: 30m, value: 35}, {at: 90m, value: 1}]
"#;

const SCALED_JOB: &str = r#"
apiVersion: keda.sh/v1alpha1
kind: ScaledJob
metadata: {name: render, namespace: ml}
spec:
  pollingInterval: 60
  maxReplicaCount: 3
  jobTargetRef:
    template:
      spec:
        containers:
        - name: r
          image: render
          resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}
  triggers:
  - type: redis
    metadata: {address: "redis:6379", listName: frames, listLength: "1"}
"#;

const JOB_TRACE: &str = r#"
kind: Trace
end: 2h
demand:
- workload: render
  metric: redis
  runTime: 20m
  steps: [{at: 0s, value: 0}, {at: 10m, value: 5}, {at: 70m, value: 0}]
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

fn replicas_at(s: &Simulation, name: &str, t: i64) -> f64 {
    let m = s.series.metrics.iter().find(|m| m.name == name).unwrap();
    let k = s.series.times_seconds.partition_point(|&x| x <= t) - 1;
    m.values[k]
}

#[test]
fn a_scaled_object_scales_from_zero_and_back_after_the_cooldown() {
    let s = answer(&format!("{CLUSTER}---{SCALED_OBJECT}"), TRACE).unwrap();
    assert!(s.skipped.iter().all(|k| k.kind != "ScaledObject"), "{:?}", s.skipped);
    let a = &s.autoscaling[0];
    assert_eq!(a.workload, "Deployment/ml/worker");
    assert_eq!(a.hpa.as_deref(), Some("ml/keda-hpa-worker"));
    assert_eq!(a.keda.as_deref(), Some("ScaledObject/ml/worker"));
    assert_eq!((a.min_replicas, a.max_replicas), (Some(1), Some(4)));
    // The queue is 0 (not above the activation 2): no lastActiveTime, the initial cooldown (0 s)
    // has passed by the second poll (30 s), which deactivates 2 → 0.
    assert_eq!(replicas_at(&s, "nodecast_workload_replicas", 300), 0.0);
    // 35 messages at 30 m: the poll at 1800 s activates 0 → 1; the HPA then asks ceil(35/10) = 4.
    assert_eq!(a.keda_activations, Some(1));
    assert_eq!(a.peak_replicas, 4);
    // Back to 1 message at 90 m (inactive): deactivated once lastActiveTime (5370 s, the last
    // active poll) + 600 s has passed, at the poll of 6000 s.
    assert_eq!(a.keda_deactivations, Some(2));
    assert!(replicas_at(&s, "nodecast_workload_replicas", 5990) > 0.0);
    assert_eq!(replicas_at(&s, "nodecast_workload_replicas", 6300), 0.0);
    assert!(a.gpu_hours > 0.0);
}

#[test]
fn a_scaled_job_creates_jobs_from_its_queue() {
    let s = answer(&format!("{CLUSTER}---{SCALED_JOB}"), JOB_TRACE).unwrap();
    assert!(s.skipped.iter().all(|k| k.kind != "ScaledJob"), "{:?}", s.skipped);
    let a = s.autoscaling.iter().find(|a| a.workload == "ScaledJob/ml/render").unwrap();
    // Polls every 60 s; 5 messages from 600 s, at most 3 Jobs at once (default strategy: 3 −
    // running). Each Job runs 20 m once its node is up: 3 at 600 s; when they finish, 3 more,
    // and so on until the queue empties at 70 m.
    assert_eq!(a.peak_replicas, 3);
    let created = a.jobs_created.unwrap();
    assert_eq!(created, 9, "{a:?}");
    assert_eq!(a.jobs_failed, Some(0));
    assert!(a.jobs_succeeded.unwrap() >= 3, "{a:?}");
    let pods_created = s.summary.pods.submitted;
    assert_eq!(pods_created, created, "one pod per Job");
    assert!(a.gpu_hours >= 3.0, "{a:?}");
}

#[test]
fn same_request_same_bytes() {
    let c = format!("{CLUSTER}---{SCALED_JOB}");
    let a = serde_json::to_string(&answer(&c, JOB_TRACE).unwrap()).unwrap();
    let b = serde_json::to_string(&answer(&c, JOB_TRACE).unwrap()).unwrap();
    assert_eq!(a, b);
}

#[test]
fn invalid_scaled_objects_and_jobs_are_located_errors() {
    let bad = SCALED_OBJECT
        .replace("maxReplicaCount: 4", "maxReplicaCount: 4\n  idleReplicaCount: 0")
        .replace("minReplicaCount: 0", "minReplicaCount: 0\n  pollingInterval: 0");
    let e = answer(&format!("{CLUSTER}---{bad}"), TRACE).unwrap_err();
    let at: Vec<(&str, Option<usize>, &str)> =
        e.iter().map(|e| (e.path.as_deref().unwrap_or(""), e.document, e.object.as_deref().unwrap_or(""))).collect();
    assert_eq!(at, [("spec.pollingInterval", Some(3), "ScaledObject/ml/worker")]);
    let e = answer(&format!("{CLUSTER}---{}", SCALED_OBJECT.replace("aws-sqs-queue", "cron")), TRACE).unwrap_err();
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("unsupported-value", Some("spec.triggers[0].type")));
    // A behavior the apiserver refuses on the generated HPA is located in the ScaledObject.
    let behavior = SCALED_OBJECT.to_string()
        + "  advanced: {horizontalPodAutoscalerConfig: {behavior: {scaleUp: {stabilizationWindowSeconds: 9999}}}}\n";
    let e = answer(&format!("{CLUSTER}---{behavior}"), TRACE).unwrap_err();
    assert_eq!(e[0].path.as_deref(), Some("spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleUp.stabilizationWindowSeconds"));
    // No series for the trigger.
    let e = answer(&format!("{CLUSTER}---{SCALED_OBJECT}"), &TRACE.replace("metric: aws-sqs-queue", "metric: other")).unwrap_err();
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("no-demand", Some("spec.triggers[0]")));
    // An HPA on the same workload.
    let hpa = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: w, namespace: ml}\nspec: {scaleTargetRef: {kind: Deployment, name: worker}, maxReplicas: 3}\n";
    let e = answer(&format!("{CLUSTER}---{SCALED_OBJECT}---\n{hpa}"), TRACE).unwrap_err();
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("conflict", Some("spec.scaleTargetRef")));
    // A ScaledJob without a run time for its Jobs, and with an unknown strategy.
    let e = answer(&format!("{CLUSTER}---{SCALED_JOB}"), &JOB_TRACE.replace("  runTime: 20m\n", "")).unwrap_err();
    assert_eq!((e[0].code.as_str(), e[0].object.as_deref()), ("no-run-time", Some("ScaledJob/ml/render")));
    let e = answer(
        &format!("{CLUSTER}---{}", SCALED_JOB.replace("pollingInterval: 60", "pollingInterval: 60\n  scalingStrategy: {strategy: fast}")),
        JOB_TRACE,
    )
    .unwrap_err();
    assert_eq!(e[0].path.as_deref(), Some("spec.scalingStrategy.strategy"));
    // Bounded like a request's pods before any poll.
    let huge = SCALED_OBJECT.replace("maxReplicaCount: 4", "maxReplicaCount: 2147483647");
    let e = answer(&format!("{CLUSTER}---{huge}"), TRACE).unwrap_err();
    assert_eq!(
        (e[0].code.as_str(), e[0].path.as_deref(), e[0].object.as_deref()),
        ("too-many-pods", Some("spec.maxReplicaCount"), Some("ScaledObject/ml/worker"))
    );
}
