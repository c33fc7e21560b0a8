//! The HPA week (issue 33): 10 GPU inference Deployments, each driven by the seed guide's
//! `autoscaling/v2` HPA (Pods metric `gpu_utilization`, target 70 per pod, 2–10 replicas, up 2
//! pods per 60 s after a 60 s window, down 1 pod per 120 s after a 300 s window) over a 7-day
//! diurnal demand in half-hour steps, on the example `gpu-inference` NodePool without limits.
//!
//! The baseline is the same week with the replicas given as explicit `scale` events: the HPA
//! run's own replica counts (its `nodecast_workload_replicas` series), so both simulations launch
//! and consolidate about the same nodes and the difference is the HPA (and KEDA-free demand)
//! machinery: a sync of every HPA every 15 s, metrics per Ready pod, the behavior windows.

use super::{without_limits, SplitMix64, GPU_NODEPOOLS};
use nodecast::{Outcome, Request};
use serde_json::{json, Value};

/// A week in seconds.
pub const WEEK: i64 = 7 * 86_400;
const STEP: i64 = 1_800;

/// The Deployment and HPA of service `i` (1 GPU, 4 vCPU, 16Gi; Ready 60 s after start).
fn service(i: usize) -> String {
    format!(
        r#"apiVersion: apps/v1
kind: Deployment
metadata: {{name: svc-{i}, namespace: inference}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: svc-{i}}}}}
  template:
    metadata: {{labels: {{app: svc-{i}}}}}
    spec:
      nodeSelector: {{workload-type: inference}}
      tolerations: [{{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}]
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.3
          readinessProbe: {{httpGet: {{path: /health, port: 8000}}, initialDelaySeconds: 60}}
          resources: {{requests: {{cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}}, limits: {{nvidia.com/gpu: "1"}}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {{name: svc-{i}, namespace: inference}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: svc-{i}}}
  minReplicas: 2
  maxReplicas: 10
  metrics:
    - type: Pods
      pods: {{metric: {{name: gpu_utilization}}, target: {{type: AverageValue, averageValue: "70"}}}}
  behavior:
    scaleUp: {{stabilizationWindowSeconds: 60, policies: [{{type: Pods, value: 2, periodSeconds: 60}}]}}
    scaleDown: {{stabilizationWindowSeconds: 300, policies: [{{type: Pods, value: 1, periodSeconds: 120}}]}}
"#
    )
}

/// Service `i`'s demand (GPU busy-percent summed over its pods) every half hour of the week:
/// a night floor, a daily peak at a per-service hour, ±5 % noise.
fn demand(i: usize, g: &mut SplitMix64) -> Vec<Value> {
    let floor = 80.0 + 10.0 * i as f64;
    let peak = 300.0 + 40.0 * i as f64;
    let peak_hour = 12.0 + (i % 6) as f64;
    (0..WEEK / STEP)
        .map(|k| {
            let t = k * STEP;
            let hour = (t % 86_400) as f64 / 3600.0;
            let d = ((hour - peak_hour) / 4.0).powi(2);
            let noise = 0.95 + 0.1 * (g.below(1001) as f64 / 1000.0);
            let v = ((floor + (peak - floor) * (-d).exp()) * noise).round();
            json!({"at": format!("{t}s"), "value": v})
        })
        .collect()
}

fn request(services: usize, seed: u64, events: Vec<Value>, with_hpas: bool) -> Request {
    let mut g = SplitMix64::new(seed);
    let demand: Vec<Value> = (0..services)
        .map(
            |i| json!({"workload": format!("svc-{i}"), "metric": "gpu_utilization", "capacityPerReplica": 100, "steps": demand(i, &mut g)}),
        )
        .collect();
    let mut docs: Vec<String> = (0..services).map(service).collect();
    if !with_hpas {
        // Only the Deployments: the HPAs are the second document of each service.
        docs = docs.into_iter().map(|d| d.split("---\n").next().unwrap_or_default().to_string()).collect();
    }
    let trace = json!({"apiVersion": "nodecast/v1", "kind": "Trace", "start": "2025-03-03T00:00:00Z", "end": "7d", "events": events, "demand": demand});
    Request {
        inputs: vec![
            nodecast::Input { name: Some(GPU_NODEPOOLS[0].0.into()), text: without_limits(GPU_NODEPOOLS[0].1) },
            nodecast::Input { name: Some("services.yaml".into()), text: docs.join("---\n") },
        ],
        trace: Some(nodecast::simulate::TraceInput { name: Some("hpa-week.json".into()), text: trace.to_string(), format: None }),
        simulation: Some(nodecast::simulate::SimSettings { seed, end_seconds: Some(WEEK), ..Default::default() }),
        ..Default::default()
    }
}

fn submits(services: usize) -> Vec<Value> {
    (0..services).map(|i| json!({"at": "0s", "submit": {"ref": format!("Deployment/inference/svc-{i}")}})).collect()
}

/// `services` Deployments with their HPAs over the week's demand.
pub fn hpa_week_request(services: usize, seed: u64) -> Request {
    request(services, seed, submits(services), true)
}

/// The same Deployments and demand without HPAs: the replicas the HPA run asked for, as `scale`
/// events at every change of its `nodecast_workload_replicas` series.
pub fn hpa_week_explicit_request(services: usize, seed: u64) -> Request {
    let sim = match nodecast::simulate(&hpa_week_request(services, seed)).outcome {
        Outcome::Success(s) => s,
        Outcome::Failure { errors } => panic!("the HPA week was rejected: {errors:?}"),
    };
    let mut events = submits(services);
    for i in 0..services {
        let workload = format!("Deployment/inference/svc-{i}");
        let Some(m) =
            sim.series.metrics.iter().find(|m| m.name == "nodecast_workload_replicas" && m.labels.get("workload") == Some(&workload))
        else {
            panic!("the HPA week has no replicas series for {workload}")
        };
        let mut last = 2.0;
        for (&t, &v) in sim.series.times_seconds.iter().zip(&m.values) {
            if v != last && t > 0 {
                events.push(json!({"at": format!("{t}s"), "scale": {"workload": format!("svc-{i}"), "replicas": v as i64}}));
                last = v;
            }
        }
    }
    request(services, seed, events, false)
}
