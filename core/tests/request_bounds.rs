//! Issue 29: bounds on the whole request, not only on each object — pods across every object,
//! trace events across `repeat.times` × `replicas`, errors reported — each refused with a located
//! error of class `unusable` (nodecast's own bound, CLI exit 2) before the work is allocated.

use nodecast::simulate::TraceInput;
use nodecast::{Input, Request};
use serde_json::Value;
use std::time::{Duration, Instant};

const POOL: &str = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n";

fn request(text: String) -> Request {
    Request { inputs: vec![Input { name: Some("in.yaml".into()), text }], ..Default::default() }
}

fn answer(json: String) -> Value {
    serde_json::from_str(&json).unwrap()
}

fn failure(v: &Value) -> &Vec<Value> {
    assert_eq!(v["status"], "failure", "{}", &v.to_string()[..v.to_string().len().min(600)]);
    v["errors"].as_array().unwrap()
}

fn deployment(name: &str, replicas: i64) -> String {
    format!("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n    spec: {{containers: [{{name: c, resources: {{requests: {{cpu: 1m}}}}}}]}}\n")
}

#[test]
fn pods_are_bounded_across_objects_before_they_are_made() {
    // One bare pod, then a Deployment exactly at the old per-object cap: before, each object was
    // checked alone, so twenty such Deployments made 40,000,000 pods (4 GB abort).
    let text = format!(
        "{POOL}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: solo}}\nspec: {{containers: [{{name: c}}]}}\n{}{}",
        deployment("big", 2_000_000),
        deployment("next", 5)
    );
    let start = Instant::now();
    let v = answer(nodecast::validate(&request(text)).to_json());
    let e = failure(&v);
    assert_eq!(v["errorClass"], "unusable", "a bound of nodecast's is not an invalid object");
    assert_eq!(e.len(), 1, "one error for the request, not one per later object: {e:?}");
    assert_eq!(e[0]["code"], "too-many-pods");
    assert_eq!(e[0]["object"], "Deployment/big");
    assert_eq!(e[0]["source"], "in.yaml");
    assert!(e[0]["message"].as_str().unwrap().contains("2000001 pods"), "{}", e[0]);
    assert!(start.elapsed() < Duration::from_secs(5), "refused before the pods are made: {:?}", start.elapsed());
}

const RUNTIME: &str = "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: shared}\nspec:\n  mlPolicy: {numNodes: 1, torch: {numProcPerNode: auto}}\n  template:\n    spec:\n      replicatedJobs:\n      - name: node\n        template:\n          spec:\n            template:\n              spec:\n                containers: [{name: node, resources: {requests: {cpu: 1m}}}]\n";

fn trainjob(i: usize, nodes: i64) -> String {
    format!("---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {{name: t{i}}}\nspec: {{runtimeRef: {{name: shared}}, trainer: {{numNodes: {nodes}}}}}\n")
}

#[test]
fn trainjobs_sharing_one_runtime_are_bounded_together() {
    // Each TrainJob is under the per-object cap of 200,000 pods; three of them are not.
    let text = format!("{POOL}{RUNTIME}{}{}{}", trainjob(0, 90_000), trainjob(1, 90_000), trainjob(2, 90_000));
    let v = answer(nodecast::validate(&request(text)).to_json());
    let e = failure(&v);
    assert_eq!(v["errorClass"], "unusable");
    assert_eq!(e[0]["code"], "too-many-pods", "{e:?}");
    assert_eq!(e[0]["object"], "TrainJob/t2");
    assert!(e[0]["message"].as_str().unwrap().contains("270000 pods (with the 180000 of earlier objects)"), "{}", e[0]);
}

#[test]
fn the_per_object_caps_are_unusable_not_invalid() {
    let v = answer(nodecast::validate(&request(format!("{POOL}{}", deployment("huge", 3_000_000)))).to_json());
    assert_eq!(failure(&v)[0]["code"], "too-many-pods");
    assert_eq!(v["errorClass"], "unusable");
}

#[test]
fn a_string_in_an_int32_field_is_refused() {
    // `replicas: "3"`: the apiserver cannot unmarshal a string into an int32 field.
    let text = format!("{POOL}{}", deployment("web", 3).replace("replicas: 3", "replicas: \"3\""));
    let v = answer(nodecast::validate(&request(text)).to_json());
    let e = failure(&v);
    assert_eq!(e[0]["code"], "wrong-type", "{e:?}");
    assert_eq!(e[0]["path"], "spec.replicas");
    assert_eq!(v["errorClass"], "invalid");
}

#[test]
fn errors_reported_are_capped_with_a_count_of_the_rest() {
    let mut text = POOL.to_string();
    for i in 0..1500 {
        text += &format!("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec: {{containers: [{{name: c, resources: {{requests: {{cpu: lots}}}}}}]}}\n");
    }
    let v = answer(nodecast::plan(&request(text)).to_json());
    let e = failure(&v);
    assert_eq!(e.len(), nodecast::error::MAX_REPORTED_ERRORS + 1);
    let last = e.last().unwrap();
    assert_eq!(last["code"], "too-many-errors");
    assert!(last["message"].as_str().unwrap().starts_with("500 more errors"), "{last}");
    assert_eq!(v["errorClass"], "invalid", "the class is of every error, the shown and the counted");
}

// ---- simulate: traces ----

const JOB: &str = "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: train}\nspec:\n  template:\n    spec: {containers: [{name: c, resources: {requests: {cpu: 1m}}}]}\n";

fn simulate(cluster: &str, trace: &str) -> Value {
    let mut req = request(cluster.to_string());
    req.trace = Some(TraceInput { name: Some("trace.yaml".into()), text: trace.to_string(), format: None });
    answer(nodecast::simulate(&req).to_json())
}

#[test]
fn repeats_times_replicas_is_bounded_before_the_events_are_made() {
    // Each factor is under its cap; their product is 10^10 pods. Before: a 4 GB abort.
    let trace =
        "kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/train, replicas: 100000, runTime: 1h}, repeat: {every: 1m, times: 100000}}\n";
    let start = Instant::now();
    let v = simulate(&format!("{POOL}{JOB}"), trace);
    let e = failure(&v);
    assert_eq!(v["errorClass"], "unusable");
    assert_eq!(e[0]["code"], "too-many-pods", "{e:?}");
    assert_eq!(e[0]["path"], "events[0]");
    assert_eq!(e[0]["source"], "trace.yaml");
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    // Events (repeats expanded) past maxEvents are refused in the trace, located.
    let trace = "kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/train, runTime: 1h}, repeat: {every: 1m, times: 60000}}\n- {at: 0s, submit: {ref: Job/train, runTime: 1h}, repeat: {every: 1m, times: 60000}}\n";
    let mut req = request(format!("{POOL}{JOB}"));
    req.trace = Some(TraceInput { name: Some("trace.yaml".into()), text: trace.into(), format: None });
    req.simulation = Some(serde_json::from_str(r#"{"maxEvents": 100000}"#).unwrap());
    let v = answer(nodecast::simulate(&req).to_json());
    let e = failure(&v);
    assert_eq!((e[0]["code"].as_str(), e[0]["path"].as_str()), (Some("too-many-events"), Some("events[1]")), "{e:?}");
    assert_eq!(v["errorClass"], "unusable");
}

#[test]
fn csv_rows_past_max_events_are_refused_while_reading() {
    let mut csv = String::from("time,workload,replicas,runTime\n");
    for i in 0..2000 {
        csv += &format!("{i}s,Job/train,1,1m\n");
    }
    let mut req = request(format!("{POOL}{JOB}"));
    req.trace = Some(TraceInput { name: Some("t.csv".into()), text: csv, format: None });
    req.simulation = Some(serde_json::from_str(r#"{"maxEvents": 1000}"#).unwrap());
    let v = answer(nodecast::simulate(&req).to_json());
    let e = failure(&v);
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!((e[0]["code"].as_str(), e[0]["line"].as_i64()), (Some("too-many-events"), Some(1002)));
    assert!(e[0].get("path").is_none_or(Value::is_null), "a row has no field path: {}", e[0]);
}

#[test]
fn csv_errors_are_capped_while_reading() {
    // 100,000 rows of empty fields: three errors each before, all kept and printed.
    let csv = format!("time,workload,replicas,runTime\n{}", ",,,\n".repeat(100_000));
    let mut req = request(format!("{POOL}{JOB}"));
    req.trace = Some(TraceInput { name: Some("t.csv".into()), text: csv, format: None });
    let v = answer(nodecast::simulate(&req).to_json());
    let e = failure(&v);
    assert_eq!(e.len(), nodecast::error::MAX_REPORTED_ERRORS + 1);
    assert_eq!(e[0]["line"], 2);
    let last = e.last().unwrap();
    assert_eq!(last["code"], "too-many-errors");
    assert!(last["message"].as_str().unwrap().starts_with("299000 more errors"), "{last}");
}

#[test]
fn csv_traces_take_a_start_for_rfc3339_times() {
    let cluster = format!("{POOL}{JOB}");
    let csv = "# start: 2025-03-03T00:00:00Z\ntime,workload,replicas,runTime\n2025-03-03T01:00:00Z,Job/train,1,30m\n";
    let v = simulate(&cluster, csv);
    assert_eq!(v["status"], "success", "{v}");
    let submitted = v["timeline"].as_array().unwrap().iter().find(|t| t["event"] == "pod-pending").expect("a submit");
    assert_eq!(submitted["timeSeconds"], 3600);
    assert_eq!(submitted["time"], "2025-03-03T01:00:00Z");
    // Without it, the row's RFC 3339 time is a located error that says how to give one.
    let v = simulate(&cluster, &csv.replace("# start: 2025-03-03T00:00:00Z\n", ""));
    let e = failure(&v);
    assert_eq!((e[0]["line"].as_i64(), e[0]["path"].as_str()), (Some(2), Some("time")));
    assert!(e[0]["help"].as_str().unwrap().contains("# start:"), "{}", e[0]);
    // A bad start is located on its line.
    let v = simulate(&cluster, &csv.replace("2025-03-03T00:00:00Z\n", "yesterday\n"));
    let e = failure(&v);
    assert_eq!((e[0]["code"].as_str(), e[0]["line"].as_i64()), (Some("invalid-timestamp"), Some(1)));
}

#[test]
fn many_distinct_workloads_in_a_trace_each_resolve_to_their_own_pods() {
    // 20,000 one-pod Jobs, one row each: resolving each reference scanned every pending pod, so
    // time grew with rows × Jobs (10^6 Jobs: 58 s).
    let n = 20_000;
    let mut cluster = POOL.to_string();
    let mut csv = String::from("time,workload,replicas,runTime\n");
    for i in 0..n {
        cluster += &JOB.replace("name: train", &format!("name: j{i}"));
        csv += &format!("{}s,Job/j{i},1,1m\n", i * 60);
    }
    let mut req = request(cluster);
    req.trace = Some(TraceInput { name: Some("t.csv".into()), text: csv, format: None });
    let v = answer(nodecast::simulate(&req).to_json());
    assert_eq!(v["status"], "success");
    assert_eq!(v["pods"].as_array().unwrap().len(), n);
}

// ---- optimize ----

#[test]
fn optimize_answers_karpenters_plan_when_the_solver_has_nothing_better() {
    // 200 ordinary Deployment shapes and a budget too short for the solver to find a packing:
    // before, "the solver gave no packing … report this input", though Karpenter's plan is a
    // feasible answer.
    let mut text = POOL.to_string();
    for i in 0..200 {
        text += &deployment(&format!("d{i}"), 3).replace("cpu: 1m", &format!("cpu: {}m, memory: {}Mi", 100 + 37 * i, 128 + 53 * i));
    }
    let mut req = request(text);
    req.optimize = Some(serde_json::from_str(r#"{"timeBudgetSeconds": 0.000001}"#).unwrap());
    let v = answer(nodecast::optimize(&req).to_json());
    assert_eq!(v["status"], "success", "{}", &v.to_string()[..v.to_string().len().min(600)]);
    let certificate = v["certificate"].as_str().unwrap();
    assert!(certificate.starts_with("Karpenter's plan") || certificate.contains("optimal"), "{certificate}");
    let (k, o) = (v["karpenterPricePerHour"].as_f64().unwrap(), v["optimumPricePerHour"].as_f64().unwrap());
    assert!(o <= k + 1e-9, "the answer is never dearer than Karpenter's plan: {o} > {k}");
    if certificate.starts_with("Karpenter's plan") {
        assert!((o - k).abs() < 1e-9, "Karpenter's plan is answered as is: {o} vs {k}");
    }
}

/// A Job of `completions` run one pod at a time.
fn job_with_completions(completions: i64) -> String {
    format!("---\napiVersion: batch/v1\nkind: Job\nmetadata: {{name: waves}}\nspec:\n  completions: {completions}\n  parallelism: 1\n  template:\n    spec: {{containers: [{{name: c, resources: {{requests: {{cpu: 1m}}}}}}]}}\n")
}

#[test]
fn a_jobs_completions_count_against_the_pod_bound() {
    // One submit of a one-pod-wide Job whose waves make 2^31-1 pods: before, only the first
    // wave was counted and the simulation ran pod after pod.
    let trace = "kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/waves, runTime: 1m}}\n";
    let start = Instant::now();
    let v = simulate(&format!("{POOL}{}", job_with_completions(2_147_483_647)), trace);
    let e = failure(&v);
    assert_eq!(v["errorClass"], "unusable");
    assert_eq!((e[0]["code"].as_str(), e[0]["path"].as_str()), (Some("too-many-pods"), Some("events[0]")), "{e:?}");
    assert!(e[0]["message"].as_str().unwrap().contains("2147483647 pods"), "{e:?}");
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    // Under the bound the same Job answers, every completion a pod of its own.
    let v = simulate(&format!("{POOL}{}", job_with_completions(3)), trace);
    assert_eq!(v["status"], "success", "{v}");
    assert_eq!(v["summary"]["pods"]["submitted"], 3, "{}", v["summary"]["pods"]);
}

/// The trace's `nodePool` events are lowered as NodePools with the cluster's: each adds a
/// NodePool × catalog of work, so together they count against the NodePool–instance type bound
/// (a 680 kB trace of 3,100 one-line edits), located at the event that crosses it.
#[test]
fn nodepool_edit_events_count_against_the_nodepool_bound() {
    let edit = "{apiVersion: karpenter.sh/v1, kind: NodePool, metadata: {name: default}, spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}, requirements: []}}}}";
    let events: String = (1..=3100).map(|i| format!("- {{at: {i}, nodePool: {edit}}}\n")).collect();
    let v = simulate(POOL, &format!("kind: Trace\nevents:\n{events}"));
    let e = failure(&v);
    assert_eq!(v["errorClass"], "unusable");
    assert_eq!(e[0]["code"], "too-many-nodepools", "{e:?}");
    let path = e[0]["path"].as_str().unwrap();
    assert!(path.starts_with("events[") && path.ends_with("].nodePool"), "{path}");
    // A few edits are an ordinary answer.
    let events: String = (1..=3).map(|i| format!("- {{at: {i}, nodePool: {edit}}}\n")).collect();
    let v = simulate(POOL, &format!("kind: Trace\nevents:\n{events}"));
    assert_eq!(v["status"], "success", "{v}");
}
