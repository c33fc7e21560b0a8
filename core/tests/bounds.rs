//! Issue 17's remaining classes, each in the layer that owns it: a duplicate name is located in
//! its file (not only by document index), and a long call stops at its cancellation hook
//! (`nodecast::interrupt`, what Python's Ctrl-C and wasm's `deadlineMs` use).

use nodecast::{Input, Request};
use serde_json::Value;
use std::time::{Duration, Instant};

fn input(name: &str, text: String) -> Input {
    Input { name: Some(name.into()), text }
}

fn pod(name: &str) -> String {
    format!("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec: {{containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]}}\n")
}

fn pool(name: &str) -> String {
    format!(
        "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: {name}}}\nspec:\n  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n      requirements: []\n"
    )
}

fn errors(req: &Request) -> Vec<Value> {
    let v: Value = serde_json::from_str(&nodecast::plan(req).to_json()).unwrap();
    assert_eq!(v["status"], "failure", "{v}");
    v["errors"].as_array().unwrap().clone()
}

#[test]
fn a_duplicate_pod_names_its_file_and_the_first_ones() {
    // Before: {code: duplicate-name, document: 1, object: Pod/default/web} and no file at all,
    // although the two pods are in different files.
    let req = Request {
        inputs: vec![input("a.yaml", pool("default") + &pod("web")), input("b.yaml", pod("db") + &pod("web"))],
        ..Default::default()
    };
    let e = errors(&req);
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0]["code"], "duplicate-name");
    assert_eq!(e[0]["source"], "b.yaml");
    assert_eq!(e[0]["document"], 1);
    assert_eq!(e[0]["object"], "Pod/default/web");
    assert!(e[0]["message"].as_str().unwrap().contains("the first in a.yaml, document 1"), "{}", e[0]);
}

#[test]
fn a_bare_pod_named_like_a_replica_does_not_clash_with_the_workload() {
    // A Deployment's pods are really named <replicaset>-<random>; nodecast's stand-in names
    // <workload>-<i> skip a name a bare pod of the input already has (lower/owners.rs), so the
    // export of a live cluster never fails on a name nodecast made up.
    let deployment = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: w}}\n  template:\n    metadata: {labels: {app: w}}\n    spec: {containers: [{name: c}]}\n";
    let req = Request { inputs: vec![input("pods.yaml", pod("web-1")), input("deploy.yaml", deployment.into())], ..Default::default() };
    let a: Value = serde_json::from_str(&nodecast::plan(&req).to_json()).unwrap();
    assert_eq!(a["status"], "success", "{a}");
    let mut pods: Vec<&str> = a["unschedulable"].as_array().unwrap().iter().map(|u| u["pod"].as_str().unwrap()).collect();
    pods.sort();
    assert_eq!(pods, ["default/web-0", "default/web-1", "default/web-2"], "{a}");
}

#[test]
fn a_duplicate_nodepool_names_its_file() {
    let req = Request { inputs: vec![input("a.yaml", pool("np")), input("b.yaml", pool("np"))], ..Default::default() };
    let e = errors(&req);
    assert_eq!(e[0]["code"], "duplicate-name", "{e:?}");
    assert_eq!(e[0]["source"], "b.yaml");
    assert_eq!(e[0]["object"], "NodePool/np");
    assert!(e[0]["message"].as_str().unwrap().contains("the first in a.yaml, document 0"), "{}", e[0]);
}

/// A plan that takes seconds: many pods of distinct shapes over many NodePools.
fn slow_plan() -> Request {
    let mut pools = String::new();
    for i in 0..40 {
        pools += &pool(&format!("np{i}"));
    }
    let mut pods = String::new();
    for i in 0..6000 {
        pods += &format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec: {{containers: [{{name: c, resources: {{requests: {{cpu: {}m, memory: {}Mi}}}}}}]}}\n",
            100 + i % 997,
            128 + i % 1013
        );
    }
    Request { inputs: vec![input("pools.yaml", pools), input("pods.yaml", pods)], ..Default::default() }
}

#[test]
fn a_long_plan_stops_soon_after_its_hook_says_stop() {
    let req = slow_plan();
    let start = Instant::now();
    let whole = nodecast::plan(&req).to_json();
    let full = start.elapsed();
    assert!(whole.contains("\"status\": \"success\"") || whole.contains("\"status\":\"success\""), "{}", &whole[..400.min(whole.len())]);
    // Stop at a quarter of the full time: the call must return within 100 ms of that.
    let stop_at = full / 4;
    let start = Instant::now();
    let stopped_at = std::rc::Rc::new(std::cell::Cell::new(None));
    let seen = stopped_at.clone();
    let r = nodecast::interrupt::run(
        move || {
            let late = start.elapsed() >= stop_at;
            if late && seen.get().is_none() {
                seen.set(Some(Instant::now()));
            }
            late
        },
        || nodecast::plan(&req).to_json(),
    );
    let returned = Instant::now();
    assert_eq!(r.err(), Some(nodecast::interrupt::Interrupted));
    let latency = returned - stopped_at.get().expect("the hook said stop");
    eprintln!("full plan {full:?}; stopped at {stop_at:?}, returned {latency:?} after the stop");
    assert!(latency < Duration::from_millis(100), "returned {latency:?} after the stop");
}
