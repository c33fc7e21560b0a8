//! Hostile inputs: each one ends in a located error or a correct answer, in bounded time and
//! memory. Every test names the exact outcome (error code and location, or the answer's shape),
//! because "did not panic" alone would also pass when input is silently dropped.

mod common;
use nodecast::{Input, Request};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn request(text: String) -> Request {
    Request { inputs: vec![Input { name: Some("hostile.yaml".into()), text }], ..Default::default() }
}

fn answer(json: String) -> Value {
    serde_json::from_str(&json).expect("answers are JSON")
}

fn plan(req: &Request) -> Value {
    answer(nodecast::plan(req).to_json())
}

/// Runs `f`, failing when it takes longer than `limit` (release build, shared machine).
fn timed<T>(what: &str, limit: Duration, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    eprintln!("{what}: {took:?}");
    assert!(took < limit, "{what} took {took:?}, more than {limit:?}");
    out
}

fn only_error(v: &Value) -> &Value {
    assert_eq!(v["status"], "failure", "{v}");
    &v["errors"][0]
}

const POOL: &str = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n";

fn pod_doc(name: &str, cpu: &str) -> String {
    format!("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  containers:\n  - {{name: c, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}\n")
}

fn placed(v: &Value) -> usize {
    v["nodeClaims"].as_array().expect("nodeClaims").iter().map(|c| c["pods"].as_array().expect("pods").len()).sum()
}

fn with_catalog(text: String, catalog: Value) -> Request {
    Request { catalog: Some(catalog), ..request(text) }
}

// ---- YAML structure -------------------------------------------------------------------------

#[test]
fn billion_laughs_is_refused_as_too_complex() {
    let mut text = String::from("lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let p = i - 1;
        text.push_str(&format!("lol{i}: &l{i} [*l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}]\n"));
    }
    let v = timed("billion laughs", Duration::from_secs(10), || plan(&request(text)));
    let e = only_error(&v);
    assert_eq!(e["code"], "input-too-complex", "{e}");
    assert_eq!(e["source"], "hostile.yaml");
    assert!(e["line"].as_u64().is_some_and(|l| l > 1), "{e}");
    assert!(e["message"].as_str().unwrap().contains("alias"), "{e}");
}

#[test]
fn anchors_within_a_document_are_fine() {
    // Anchors are legitimate YAML: one request block shared by two containers.
    let text = format!(
        "{POOL}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: a}}\nspec:\n  containers:\n  - name: c\n    resources: &r {{requests: {{cpu: \"1\"}}}}\n  - name: d\n    resources: *r\n"
    );
    let v = plan(&request(text));
    assert_eq!(v["status"], "success", "{v}");
    assert_eq!(placed(&v), 1);
    assert_eq!(v["nodeClaims"][0]["requests"]["cpu"], "2", "both containers count");
}

#[test]
fn deep_nesting_is_refused_with_a_location() {
    let json = "[".repeat(10_000);
    let v = timed("deep JSON", Duration::from_secs(5), || plan(&request(json)));
    let e = only_error(&v);
    assert_eq!(e["code"], "json-syntax", "{e}");
    assert!(e["message"].as_str().unwrap().contains("recursion limit"), "{e}");
    assert_eq!(e["line"], 1);
    let flow = format!("a: {}", "[".repeat(10_000));
    let v = timed("deep YAML flow", Duration::from_secs(5), || plan(&request(flow)));
    let e = only_error(&v);
    assert!(["input-too-complex", "yaml-syntax"].contains(&e["code"].as_str().unwrap()), "{e}");
    assert_eq!(e["line"], 1, "{e}");
    let block: String = (0..200).map(|i| format!("{}k{i}:\n", " ".repeat(i))).collect();
    let v = timed("deep YAML block", Duration::from_secs(5), || plan(&request(block)));
    let e = only_error(&v);
    assert_eq!(e["code"], "input-too-complex", "{e}");
    assert!(e["message"].as_str().unwrap().contains("levels deep"), "{e}");
    assert!(e["line"].as_u64().is_some_and(|l| l > 60), "{e}");
}

#[test]
fn ten_level_nesting_repeated_is_an_answer() {
    // 20,000 ten-level-deep mappings spread over 200 pods: deep and wide, but legitimate (under
    // `status`, which an export from a newer server may fill with anything; under `spec` they
    // would be unknown fields, SF-01).
    let mut text = String::from(POOL);
    let open: String = "abcdefghij".chars().map(|c| format!("{{{c}: ")).collect();
    for p in 0..200 {
        text.push_str(&format!("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p{p}\nspec:\n  containers:\n  - {{name: c, resources: {{requests: {{cpu: 10m}}}}}}\nstatus:\n  extra:\n"));
        for i in 0..100 {
            text.push_str(&format!("    k{i}: {open}{i}{}\n", "}".repeat(10)));
        }
    }
    let v = timed("10-level nesting x 20,000", Duration::from_secs(30), || plan(&request(text)));
    assert_eq!(v["status"], "success", "{}", v["errors"]);
    assert_eq!(placed(&v), 200);
}

#[test]
fn thousands_of_documents_are_all_read() {
    // More documents than serde-saphyr's default budget (1,024): none may be refused or dropped.
    let mut text = String::from(POOL);
    for i in 0..5_000 {
        text.push_str(&pod_doc(&format!("p{i}"), "10m"));
    }
    let v = timed("5,000 documents", Duration::from_secs(60), || plan(&request(text)));
    assert_eq!(v["status"], "success", "{}", v["errors"]);
    assert_eq!(placed(&v), 5_000);
}

#[test]
fn a_separator_storm_is_bounded() {
    let text = "---\n".repeat(nodecast::internal::manifest::MAX_DOCUMENTS + 1);
    let v = timed("--- storm", Duration::from_secs(60), || plan(&request(text)));
    let e = only_error(&v);
    assert_eq!(e["code"], "input-too-complex", "{e}");
    assert!(e["message"].as_str().unwrap().contains("documents"), "{e}");
}

#[test]
fn a_100_mb_scalar_is_read_whole() {
    let big = "x".repeat(100 * 1024 * 1024);
    let text = format!("{POOL}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: big\n  annotations: {{note: {big}}}\nspec:\n  containers:\n  - {{name: c, resources: {{requests: {{cpu: 1}}}}}}\n");
    let v = timed("100 MB scalar", Duration::from_secs(60), || plan(&request(text)));
    assert_eq!(v["status"], "success", "{}", v["errors"]);
    assert_eq!(v["nodeClaims"][0]["pods"][0], "default/big");
}

/// A pod of a `kubectl get pods -o json` dump with a big spec (120 environment variables).
fn dump_pod(i: usize) -> Value {
    let env: Vec<Value> =
        (0..120).map(|e| json!({"name": format!("VARIABLE_NUMBER_{e}"), "value": format!("some configuration value {e}")})).collect();
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": format!("p{i}"), "namespace": "default", "labels": {"app": "web"}},
           "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}, "env": env}]}})
}

#[test]
fn a_100_mb_json_list_is_an_answer() {
    // `kubectl get pods -A -o json` shape: one List document of 100 MB.
    let first = serde_json::to_string(&dump_pod(0)).unwrap();
    let pods = 100 * 1024 * 1024 / first.len() + 1;
    let items: Vec<String> = (0..pods).map(|i| serde_json::to_string(&dump_pod(i)).unwrap()).collect();
    let list = format!("{{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [{}]}}", items.join(","));
    assert!(list.len() >= 100 * 1024 * 1024);
    let pool = Input { name: Some("pool.yaml".into()), text: POOL.into() };
    let req = Request { inputs: vec![pool, Input { name: Some("dump.json".into()), text: list }], ..Default::default() };
    let v = timed("100 MB JSON list", Duration::from_secs(120), || plan(&req));
    assert_eq!(v["status"], "success", "{}", v["errors"]);
    assert_eq!(placed(&v), pods);
}

#[test]
fn a_20_mb_yaml_list_is_an_answer() {
    // The same dump as YAML: about 600,000 YAML nodes, beyond serde-saphyr's default budget
    // (250,000) that nodecast raises in proportion to the input. (YAML decodes at a few MB/s,
    // so the YAML case is smaller than the JSON one to keep the test quick.)
    let mut text = String::from(POOL);
    text.push_str("---\napiVersion: v1\nkind: List\nitems:\n");
    let mut pods = 0;
    while text.len() < 20 * 1024 * 1024 {
        let pod = serde_json::to_string(&dump_pod(pods)).unwrap();
        text.push_str("- ");
        text.push_str(&pod);
        text.push('\n');
        pods += 1;
    }
    let v = timed("20 MB YAML list", Duration::from_secs(120), || plan(&request(text)));
    assert_eq!(v["status"], "success", "{}", v["errors"]);
    assert_eq!(placed(&v), pods);
}

#[test]
fn too_large_an_input_is_refused_up_front() {
    let text = " ".repeat(nodecast::MAX_INPUT_BYTES + 1);
    let v = timed("256 MB + 1", Duration::from_secs(10), || plan(&request(text)));
    let e = only_error(&v);
    assert_eq!(e["code"], "input-too-large");
    assert_eq!(e["source"], "hostile.yaml");
}

// ---- Scale ----------------------------------------------------------------------------------

#[test]
fn a_million_replicas_are_all_placed() {
    let text = format!("{POOL}---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\nspec:\n  replicas: 1000000\n  template:\n    spec:\n      containers:\n      - {{name: c, resources: {{requests: {{cpu: 1m, memory: 1Mi}}}}}}\n");
    let v = timed("1,000,000 replicas", Duration::from_secs(300), || plan(&request(text)));
    assert_eq!(v["status"], "success", "{}", v["errors"]);
    assert_eq!(placed(&v), 1_000_000);
    assert_eq!(v["unschedulable"].as_array().unwrap().len(), 0);
}

#[test]
fn replica_counts_beyond_the_limit_are_located() {
    for replicas in ["2000001", "9223372036854775807", "18446744073709551616", "-1", "1e19"] {
        let text = format!("{POOL}---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\nspec:\n  replicas: {replicas}\n  template:\n    spec:\n      containers: []\n");
        let v = plan(&request(text));
        let e = only_error(&v);
        let want = match replicas {
            "2000001" | "9223372036854775807" => "too-many-pods",
            "-1" => "out-of-range",
            _ => "wrong-type",
        };
        assert_eq!(e["code"], want, "{replicas}: {e}");
        assert_eq!(e["object"], "Deployment/d", "{replicas}: {e}");
        assert_eq!(e["document"], 1);
    }
}

// ---- Numbers --------------------------------------------------------------------------------

#[test]
fn quantities_at_the_integer_edges() {
    for (q, code) in [("-1", "invalid-quantity"), ("-9223372036854775808", "invalid-quantity"), ("-1e400", "invalid-quantity")] {
        let v = plan(&request(format!("{POOL}{}", pod_doc("p", q))));
        let e = only_error(&v);
        assert_eq!(e["code"], code, "{q}: {e}");
        assert_eq!(e["path"], "spec.containers[0].resources.requests.cpu", "{q}");
        assert_eq!(e["object"], "Pod/p", "{q}");
        assert_eq!(e["document"], 1, "{q}");
    }
    // The largest milli-quantity is representable, and larger ones are valid Kubernetes
    // quantities (apimachinery caps binary-SI ones at 2^63−1 units and keeps decimal ones):
    // an answer saying no instance type fits.
    for q in ["9223372036854775807m", "9223372036854775807", "18446744073709551616", "1e19", "8Ei", "1e400"] {
        let v = plan(&request(format!("{POOL}{}", pod_doc("p", q))));
        assert_eq!(v["status"], "success", "{q}: {v}");
        assert_eq!(v["unschedulable"][0]["pod"], "default/p", "{q}");
        assert_eq!(v["unschedulable"][0]["code"], "no-instance-type-fits", "{q}");
    }
}

#[test]
fn karpenter_benchmark_nodepool_limits_are_accepted() {
    // Karpenter's scheduling benchmark NodePool: `cpu: 10M`, `memory: 10000000Gi` (1.07e16
    // bytes, a valid quantity past the i64 milli-unit range); the limits bound nothing here.
    let pool = POOL.replace("spec:\n  template:", "spec:\n  limits: {cpu: 10M, memory: 10000000Gi}\n  template:");
    let v = plan(&request(format!("{pool}{}", pod_doc("p", "1"))));
    assert_eq!(v["status"], "success", "{v}");
    assert_eq!(v["nodeClaims"].as_array().map(Vec::len), Some(1), "{v}");
    assert!(v["unschedulable"].as_array().is_some_and(Vec::is_empty), "{v}");
}

#[test]
fn non_finite_negative_and_absurd_prices_are_located() {
    for (price, field) in [
        (json!("NaN"), "onDemandPrice"),
        (json!("inf"), "onDemandPrice"),
        (json!("-inf"), "spotPrice"),
        (json!(-1.0), "onDemandPrice"),
        (json!(-0.01), "spotPrice"),
        (json!(1e308), "onDemandPrice"),
    ] {
        let catalog = json!({"instanceTypes": [{"name": "t", "allocatable": {"cpu": "4", "memory": "8Gi"}, field: price}]});
        let v = plan(&with_catalog(format!("{POOL}{}", pod_doc("p", "1")), catalog));
        let e = only_error(&v);
        assert_eq!(e["code"], "invalid-number", "{price}: {e}");
        assert_eq!(e["path"], format!("catalog.instanceTypes[0].{field}"), "{price}");
    }
    for factor in [json!(-1), json!(1e300), json!("NaN")] {
        let v = plan(&with_catalog(POOL.into(), json!({"source": "aws-us-east-1", "spotPriceFactor": factor})));
        assert_eq!(only_error(&v)["path"], "catalog.spotPriceFactor", "{factor}");
    }
    // Zero and the largest accepted price are answers with finite totals.
    for price in [0.0, nodecast::internal::catalog::MAX_PRICE] {
        let catalog = json!({"instanceTypes": [{"name": "t", "allocatable": {"cpu": "4", "memory": "8Gi"}, "onDemandPrice": price}], "capacityTypes": ["on-demand"]});
        let mut text = String::from(POOL);
        for i in 0..3 {
            text.push_str(&pod_doc(&format!("p{i}"), "3"));
        }
        let v = plan(&with_catalog(text, catalog));
        assert_eq!(v["status"], "success", "{v}");
        assert_eq!(v["totalPricePerHour"].as_f64(), Some(3.0 * price), "{v}");
    }
}

// ---- Names and references -------------------------------------------------------------------

#[test]
fn duplicate_names_are_located() {
    let v = plan(&request(format!("{POOL}---\n{POOL}")));
    let e = only_error(&v);
    assert_eq!(e["code"], "duplicate-name");
    assert_eq!(e["object"], "NodePool/default");
    assert_eq!(e["document"], 1);
    let v = plan(&request(format!("{POOL}{}{}", pod_doc("same", "1"), pod_doc("same", "2"))));
    let e = only_error(&v);
    assert_eq!(e["code"], "duplicate-name");
    assert_eq!(e["object"], "Pod/default/same", "{e}");
    assert_eq!(e["document"], 2);
    // The same name in two namespaces is two pods.
    let other_ns = pod_doc("same", "1").replace("name: same", "name: same, namespace: ml");
    let v = plan(&request(format!("{POOL}{}{other_ns}", pod_doc("same", "1"))));
    assert_eq!(v["status"], "success", "{v}");
    assert_eq!(placed(&v), 2);
}

#[test]
fn duplicate_instance_types_in_an_inline_catalog_are_located() {
    let t = json!({"name": "t", "allocatable": {"cpu": "4", "memory": "8Gi"}, "onDemandPrice": 0.1});
    let v = plan(&with_catalog(format!("{POOL}{}", pod_doc("p", "1")), json!({"instanceTypes": [t, t]})));
    let e = only_error(&v);
    assert_eq!(e["code"], "duplicate-name", "{e}");
    assert_eq!(e["path"], "catalog.instanceTypes[1].name", "{e}");
}

#[test]
fn owner_reference_cycles_terminate() {
    // Two pods owning each other, a pod owning itself and a ReplicaSet owned by its own pod:
    // owners are read one level deep, so each is still a plain pending pod (and pod c, active
    // and owned by rs, is the ReplicaSet's one replica: rs creates no rs-0, lower/owners.rs).
    let owned = |name: &str, kind: &str, owner: &str| {
        format!("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  ownerReferences: [{{apiVersion: v1, kind: {kind}, name: {owner}, uid: u-{owner}, controller: true}}]\n  uid: u-{name}\nspec:\n  containers:\n  - {{name: c, resources: {{requests: {{cpu: 100m}}}}}}\n")
    };
    let rs = "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: rs\n  uid: u-rs\n  ownerReferences: [{apiVersion: v1, kind: Pod, name: c, uid: u-c}]\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - {name: c, resources: {requests: {cpu: 100m}}}\n";
    let text = format!(
        "{POOL}{}{}{}{}{rs}",
        owned("a", "Pod", "b"),
        owned("b", "Pod", "a"),
        owned("self", "Pod", "self"),
        owned("c", "ReplicaSet", "rs")
    );
    let v = timed("ownerReferences cycles", Duration::from_secs(10), || plan(&request(text)));
    assert_eq!(v["status"], "success", "{v}");
    let mut pods: Vec<&str> =
        v["nodeClaims"].as_array().unwrap().iter().flat_map(|c| c["pods"].as_array().unwrap()).map(|p| p.as_str().unwrap()).collect();
    pods.sort_unstable();
    assert_eq!(pods, ["default/a", "default/b", "default/c", "default/self"]);
    // The same cycle around bound pods in consolidate: an answer, not a hang.
    let node = "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  creationTimestamp: \"2026-11-20T00:00:00Z\"\n  labels: {karpenter.sh/nodepool: default, node.kubernetes.io/instance-type: m5.large, karpenter.sh/capacity-type: on-demand, topology.kubernetes.io/zone: us-east-1a}\nstatus:\n  allocatable: {cpu: 1930m, memory: 6903Mi, pods: \"29\"}\n";
    let bound = format!("{}{}", owned("a", "Pod", "b"), owned("b", "Pod", "a")).replace("spec:\n", "spec:\n  nodeName: n1\n");
    let req = Request { now: Some("2026-11-25T12:00:00Z".into()), ..request(format!("{POOL}{node}{bound}")) };
    let d = timed("consolidate with cycles", Duration::from_secs(10), || answer(nodecast::consolidate(&req).to_json()));
    assert_eq!(d["status"], "success", "{d}");
    assert_eq!(d["nodes"][0]["name"], "n1");
    assert_eq!(d["nodes"][0]["pods"], 2);
}

#[test]
fn a_requirement_of_a_million_values_twice_is_linear() {
    // Two `In` requirements on one key, a million values each (about 16 MB): lowering keeps
    // their Go set order (NodePool::listed_order) with hashed membership, not a scan per value,
    // which took minutes at this size.
    let values: Vec<String> = (0..1_000_000).map(|i| format!("v{i}")).collect();
    let list = values.join(", ");
    let text = format!(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: default}}\nspec:\n  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n      requirements:\n      - {{key: example.com/team, operator: In, values: [{list}]}}\n      - {{key: example.com/team, operator: In, values: [{list}]}}\n{}",
        pod_doc("p", "1")
    );
    let v = timed("2 x 1,000,000 requirement values", Duration::from_secs(60), || plan(&request(text)));
    assert_eq!(v["status"], "success", "{}", v["errors"]);
    assert_eq!(placed(&v), 1);
}

/// 400 pods wait nominated to NodeClaims whose start-up the settings make ten years long. Each
/// requeue of such pods renews their nodes' nomination windows (docs/karpenter-fidelity.md,
/// section 59); one every 10 s for ten years was 31 million passes over 400 pods. Requeues that
/// could only renew are folded into the last one before the registration (simulate/requeue.rs),
/// so the run costs what a short start-up costs, and every pod still binds at registration.
#[test]
fn a_ten_year_start_up_does_not_requeue_every_ten_seconds() {
    use nodecast::simulate::{SecondsRange, SimSettings};
    let cluster = r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expireAfter: Never
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [m6i.large]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: web}
spec:
  parallelism: 400
  completions: 400
  template:
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "1", memory: 1Gi}}}]
"#;
    let trace = "apiVersion: nodecast/v1\nkind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/web/j, runTime: 60s}}\n";
    let ten_years = 315_000_000;
    let settings = SimSettings {
        startup_seconds: SecondsRange { min: ten_years, max: ten_years },
        spot_interruption_rate_per_hour: 0.0,
        end_seconds: Some(ten_years + 600),
        metrics_interval_seconds: ten_years,
        ..SimSettings::default()
    };
    let s = timed("ten-year start-up, 400 pods", Duration::from_secs(20), || common::simulate(cluster, trace, settings));
    let bound: Vec<i64> = s.timeline.iter().filter(|e| e.event.as_str() == "pod-bound").map(|e| e.time_seconds).collect();
    assert_eq!(bound.len(), 400, "every pod binds once");
    assert!(bound.iter().all(|&t| t >= ten_years), "bound only when their NodeClaims register: {:?}", bound.first());
}

#[test]
fn twenty_thousand_unknown_fields_are_located_in_bounded_time() {
    // Each is an error with its path (SF-01); the help's nearest-name search is bounded by the
    // type's field count and the names' lengths, not by the input.
    let mut text = String::from("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x}]\n");
    for i in 0..20_000 {
        text.push_str(&format!("  nodeSelecter{i}: {{a: b}}\n"));
    }
    let v = timed("20,000 unknown fields", Duration::from_secs(20), || plan(&request(text)));
    assert_eq!(v["status"], "failure");
    let errors = v["errors"].as_array().unwrap();
    // The answer's error list is bounded too: the first 1,000, then how many more.
    assert_eq!(errors.len(), 1_001);
    assert!(errors[..1_000].iter().all(|e| e["code"] == "unknown-field"), "{}", errors[0]);
    assert_eq!(errors[0]["path"], "spec.nodeSelecter0", "{}", errors[0]);
    assert_eq!(errors[1_000]["code"], "too-many-errors");
    assert!(errors[1_000]["message"].as_str().unwrap().starts_with("19000 more errors"), "{}", errors[1_000]);
}

#[test]
fn a_hundred_thousand_annotations_are_read_in_linear_time() {
    // The typed Pod reader checked each key against every earlier one: 150,000 annotations took
    // 44 s. A repeated key among many is still refused (the tree way then reports it).
    let mut text = String::from("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n");
    for i in 0..100_000 {
        text.push_str(&format!("    k{i}: \"1\"\n"));
    }
    text.push_str("spec:\n  containers: [{name: c, image: x, resources: {requests: {cpu: 10m}}}]\n");
    let v = timed("100,000 annotations", Duration::from_secs(10), || plan(&request(format!("{POOL}---\n{text}"))));
    assert_eq!(v["status"], "success", "{}", v["errors"]);
    let repeated = text.replacen("    k99999: \"1\"\n", "    k0: \"2\"\n", 1);
    let v = timed("100,000 annotations, one repeated", Duration::from_secs(10), || plan(&request(format!("{POOL}---\n{repeated}"))));
    assert_eq!(v["status"], "failure", "a repeated annotation key is refused");
}
