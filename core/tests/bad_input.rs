//! Bad input gets a clear, located error — never a panic — and bounded time and memory.

use nodecast::{Input, Request};
use serde_json::Value;

fn plan(text: &str) -> Value {
    let req = Request { inputs: vec![Input { name: Some("in.yaml".into()), text: text.into() }], ..Default::default() };
    serde_json::from_str(&nodecast::plan(&req).to_json()).unwrap()
}

fn first_error(v: &Value) -> &Value {
    assert_eq!(v["status"], "failure", "{v}");
    &v["errors"][0]
}

const POOL: &str = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n";

fn pod(requests: &str) -> String {
    format!("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers:\n  - {{name: c, resources: {{requests: {requests}}}}}\n")
}

#[test]
fn malformed_yaml_is_located() {
    let v = plan("apiVersion: v1\nkind: Pod\nmetadata: {name: [unclosed\n");
    let e = first_error(&v);
    assert_eq!(e["code"], "yaml-syntax");
    assert_eq!(e["source"], "in.yaml");
    assert!(e["line"].as_u64().is_some());
}

#[test]
fn malformed_json_is_located() {
    let v = plan("{\"apiVersion\": \"v1\", \"kind\": }");
    assert_eq!(first_error(&v)["code"], "json-syntax");
}

#[test]
fn bad_quantities() {
    for (q, code) in [("\"1.5.0\"", "invalid-quantity"), ("\"-1\"", "invalid-quantity"), ("\"12XB\"", "invalid-quantity")] {
        let v = plan(&format!("{POOL}{}", pod(&format!("{{cpu: {q}}}"))));
        let e = first_error(&v);
        assert_eq!(e["code"], code, "{q}: {e}");
        assert_eq!(e["object"], "Pod/p");
        assert_eq!(e["path"], "spec.containers[0].resources.requests.cpu");
        assert_eq!(e["document"], 1);
    }
}

#[test]
fn wrong_types_are_located() {
    let v = plan(&format!("{POOL}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers: notalist\n"));
    let e = first_error(&v);
    assert_eq!(e["code"], "wrong-type");
    assert_eq!(e["path"], "spec.containers");
    let v = plan(&format!("{POOL}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  tolerations: [{{key: a, operator: Sometimes}}]\n  containers: []\n"));
    let e = first_error(&v);
    assert_eq!(e["code"], "invalid-operator");
    assert_eq!(e["path"], "spec.tolerations[0].operator");
}

#[test]
fn unknown_operator_in_nodepool_is_a_validation_error() {
    let text = POOL.replace("requirements: []", "requirements:\n      - {key: kubernetes.io/arch, operator: Within, values: [amd64]}");
    let v = plan(&text);
    let e = first_error(&v);
    assert_eq!(e["object"], "NodePool/default");
    assert_eq!(e["path"], "spec.template.spec.requirements[0].operator");
}

#[test]
fn unknown_operator_in_pod_affinity() {
    let text = format!("{POOL}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{{key: a, operator: Like, values: [b]}}]\n  containers: []\n");
    let e = first_error(&plan(&text)).clone();
    assert_eq!(e["code"], "invalid-operator");
    assert_eq!(
        e["path"],
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator"
    );
}

#[test]
fn contradictory_requirements_are_an_answer_not_a_crash() {
    let text = format!("{POOL}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  nodeSelector: {{kubernetes.io/arch: arm64}}\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{{key: kubernetes.io/arch, operator: In, values: [amd64]}}]\n  containers: []\n");
    let v = plan(&text);
    assert_eq!(v["status"], "success");
    assert_eq!(v["unschedulable"][0]["code"], "requirement-conflict");
}

#[test]
fn alias_bomb_is_refused_quickly() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..40 {
        let p = i - 1;
        text.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
    }
    let start = std::time::Instant::now();
    let v = plan(&text);
    assert_eq!(first_error(&v)["code"], "input-too-complex");
    assert!(start.elapsed().as_secs() < 10);
}

#[test]
fn deep_nesting_is_refused() {
    let depth = 100_000;
    let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let v = plan(&text);
    assert_eq!(v["status"], "failure");
}

#[test]
fn huge_replica_counts_are_refused() {
    let text = format!("{POOL}---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\nspec:\n  replicas: 9223372036854775807\n  template:\n    spec:\n      containers: []\n");
    let e = first_error(&plan(&text)).clone();
    assert_eq!(e["code"], "too-many-pods");
    assert_eq!(e["object"], "Deployment/d");
}

#[test]
fn unknown_kinds_are_skipped_not_errors() {
    let text = format!("{POOL}---\napiVersion: v1\nkind: Service\nmetadata: {{name: web}}\n");
    let v = plan(&text);
    assert_eq!(v["status"], "success");
    assert_eq!(v["skipped"][0]["kind"], "Service");
    assert_eq!(v["skipped"][0]["name"], "web");
}

#[test]
fn duplicate_names_are_errors() {
    let text = format!("{POOL}{}{}", pod("{cpu: 1}"), pod("{cpu: 1}"));
    assert_eq!(first_error(&plan(&text))["code"], "duplicate-name");
}

#[test]
fn pods_bound_to_unknown_nodes_are_errors() {
    let text = format!("{POOL}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  nodeName: ghost\n  containers: []\n");
    let e = first_error(&plan(&text)).clone();
    assert_eq!(e["code"], "unknown-node");
    assert_eq!(e["path"], "spec.nodeName");
}

#[test]
fn bad_catalogs_are_located() {
    let req = Request {
        catalog: Some(serde_json::json!({"instanceTypes": [{"name": "x", "allocatable": {"cpu": "lots"}}]})),
        ..Default::default()
    };
    let v: Value = serde_json::from_str(&nodecast::plan(&req).to_json()).unwrap();
    let e = first_error(&v);
    assert_eq!(e["path"], "catalog.instanceTypes[0].allocatable.cpu");
    let req = Request { catalog: Some(serde_json::json!({"source": "aws-us-east-1", "spotPriceFactor": "NaN"})), ..Default::default() };
    let v: Value = serde_json::from_str(&nodecast::plan(&req).to_json()).unwrap();
    assert_eq!(first_error(&v)["path"], "catalog.spotPriceFactor");
}

fn consolidate(text: &str, now: Option<&str>) -> Value {
    let req = Request {
        inputs: vec![Input { name: Some("in.yaml".into()), text: text.into() }],
        now: now.map(str::to_string),
        ..Default::default()
    };
    serde_json::from_str(&nodecast::consolidate(&req).to_json()).unwrap()
}

const NODE: &str = "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: {karpenter.sh/nodepool: default, node.kubernetes.io/instance-type: m5.large, karpenter.sh/capacity-type: on-demand}\nstatus:\n  allocatable: {cpu: 1930m, memory: 6903Mi, pods: \"29\"}\n";

#[test]
fn consolidate_bad_input_is_located() {
    // A NodePool node without its zone label is no input error: Karpenter passes it over as a
    // consolidation candidate (consolidation.go, ShouldDisrupt) and decides for the rest; an
    // empty one can still go by emptiness.
    let v = consolidate(&format!("{POOL}{NODE}"), Some("2025-03-05T12:00:00Z"));
    assert_eq!(v["status"], "success", "{v}");
    // No clock, or a bad one.
    assert_eq!(first_error(&consolidate(POOL, None))["code"], "required");
    assert_eq!(first_error(&consolidate(POOL, Some("noon")))["code"], "invalid-timestamp");
    // Budgets over 100% and bad durations are rejected like the API server would.
    let over = POOL.replace("spec:\n  template:", "spec:\n  disruption:\n    budgets: [{nodes: \"150%\"}]\n  template:");
    assert_eq!(first_error(&consolidate(&over, Some("2025-03-05T12:00:00Z")))["path"], "spec.disruption.budgets[0].nodes");
    let dur = POOL.replace("spec:\n  template:", "spec:\n  disruption:\n    consolidateAfter: 1d\n  template:");
    assert_eq!(first_error(&consolidate(&dur, Some("2025-03-05T12:00:00Z")))["path"], "spec.disruption.consolidateAfter");
}

#[test]
fn an_unparsable_cron_fails_closed_with_a_located_warning() {
    // `0 0 * * tue-mon` passes the CRD pattern but not the cron parser: Karpenter keeps the
    // NodePool and allows no disruptions at all (D-7.2.2, D-7.3.2).
    let pool = POOL.replace(
        "spec:\n  template:",
        "spec:\n  disruption:\n    budgets: [{nodes: \"1\", schedule: \"0 0 * * tue-mon\", duration: 1h}]\n  template:",
    );
    let v = consolidate(&pool, Some("2025-03-05T12:00:00Z"));
    assert_eq!(v["status"], "success");
    assert_eq!(v["warnings"][0]["code"], "invalid-schedule");
    assert!(v["warnings"][0]["message"].as_str().unwrap().contains("spec.disruption.budgets[0].schedule"));
    assert_eq!(v["nodePools"][0]["allowed"]["Empty"], 0);
}

#[test]
fn the_json_facade_never_panics_on_bad_requests() {
    let v: Value = serde_json::from_str(&nodecast::call("plan", "{not json")).unwrap();
    assert_eq!(v["status"], "failure");
    assert_eq!(v["errors"][0]["code"], "invalid-request");
    let v: Value = serde_json::from_str(&nodecast::call("plan", r#"{"inputs": 3}"#)).unwrap();
    assert_eq!(v["errors"][0]["code"], "invalid-request");
    let v: Value = serde_json::from_str(&nodecast::call("fly", "{}")).unwrap();
    assert_eq!(v["errors"][0]["code"], "unknown-function");
    let v: Value = serde_json::from_str(&nodecast::call("catalog", r#"{"query": {"gpu": true, "limit": 1}}"#)).unwrap();
    assert_eq!(v["status"], "success");
    assert_eq!(v["count"], 1);
}

/// int32 fields, ports and weights out of the apiserver's range are located errors, never
/// truncated (`maxSkew: 2147483648` used to wrap negative and make every pod unschedulable).
#[test]
fn integer_ranges_are_the_apiservers() {
    let cases = [
        ("topologySpreadConstraints: [{maxSkew: 2147483648, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule}]", "spec.topologySpreadConstraints[0].maxSkew"),
        ("topologySpreadConstraints: [{maxSkew: 1, minDomains: 4294967297, topologyKey: kubernetes.io/hostname}]", "spec.topologySpreadConstraints[0].minDomains"),
        ("affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 101, preference: {matchExpressions: [{key: a, operator: Exists}]}}]}}", "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight"),
    ];
    for (field, path) in cases {
        let v =
            plan(&format!("{POOL}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  {field}\n  containers: [{{name: c}}]\n"));
        let e = first_error(&v);
        assert_eq!(e["code"], "out-of-range", "{field}: {e}");
        assert_eq!(e["path"], path, "{field}: {e}");
    }
    // hostPort 65616 used to wrap to 80 and collide with a real port 80.
    let v = plan(&format!("{POOL}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers: [{{name: c, ports: [{{containerPort: 80, hostPort: 65616}}]}}]\n"));
    let e = first_error(&v);
    assert_eq!(e["code"], "out-of-range");
    assert_eq!(e["path"], "spec.containers[0].ports[0].hostPort");
}

/// Half a GPU is not a plan: extended resources must be whole numbers, as the apiserver says.
#[test]
fn extended_resources_are_whole_numbers() {
    for (res, path) in [
        ("requests: {nvidia.com/gpu: \"0.5\"}", "spec.containers[0].resources.requests.nvidia.com/gpu"),
        ("limits: {nvidia.com/gpu: 1500m}", "spec.containers[0].resources.limits.nvidia.com/gpu"),
        ("requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: \"1.5\"}", "spec.containers[0].resources.limits.nvidia.com/gpu"),
    ] {
        let v = plan(&format!(
            "{POOL}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers: [{{name: c, resources: {{{res}}}}}]\n"
        ));
        let e = first_error(&v);
        assert_eq!(e["code"], "invalid-quantity", "{res}: {e}");
        assert!(e["message"].as_str().unwrap().contains("must be an integer"), "{e}");
        assert_eq!(e["path"], path, "{res}: {e}");
    }
    // Fractions of native resources stay fine.
    let v = plan(&format!("{POOL}{}", pod("{cpu: 500m, memory: 1.5Gi}")));
    assert_eq!(v["status"], "success", "{v}");
}

/// Flow-style YAML starts with `{` like JSON and is still YAML; JSON with a duplicate key is
/// refused (strict field validation), as the apiserver does.
#[test]
fn json_and_flow_yaml_front_door() {
    let v = plan(&format!("{{apiVersion: v1, kind: Pod, metadata: {{name: p}}, spec: {{containers: [{{name: c}}]}}}}\n---\n{POOL}"));
    assert_eq!(v["status"], "success", "{v}");
    let v = plan(r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "name": "q"}}"#);
    let e = first_error(&v);
    assert_eq!(e["code"], "json-syntax");
    assert!(e["message"].as_str().unwrap().contains("duplicate field \"name\""), "{e}");
    let v = plan("{apiVersion: v1, kind: [}");
    assert_eq!(first_error(&v)["code"], "yaml-syntax");
}

/// Catalog inputs that would be answered wrongly without a word: another region's zone with
/// us-east-1 prices, an empty instance-type name, a query key without its prefix.
#[test]
fn catalog_inputs_answered_as_if_valid_are_refused() {
    let answer = |catalog: Value, query: Option<Vec<&str>>| -> Value {
        let req = Request {
            catalog: Some(catalog),
            query: query
                .map(|q| nodecast::query::CatalogQuery { requirements: q.iter().map(|s| s.to_string()).collect(), ..Default::default() }),
            ..Default::default()
        };
        serde_json::from_str(&nodecast::catalog(&req).to_json()).unwrap()
    };
    let v = answer(serde_json::json!({"source": "aws-us-east-1", "zones": ["us-east-1a", "us-west-2a"]}), None);
    let e = first_error(&v);
    assert_eq!((e["code"].as_str(), e["path"].as_str()), (Some("invalid-zone"), Some("catalog.zones[1]")), "{e}");
    let v = answer(serde_json::json!({"instanceTypes": [{"name": "", "allocatable": {"cpu": "1"}}]}), None);
    assert_eq!(first_error(&v)["path"], "catalog.instanceTypes[0].name");
    let v = answer(serde_json::json!("aws-us-east-1"), Some(vec!["instance-gpu-name In a100"]));
    let e = first_error(&v);
    assert_eq!(e["code"], "unknown-label-key");
    assert_eq!(e["help"], "did you mean karpenter.k8s.aws/instance-gpu-name?");
    let v = answer(serde_json::json!("aws-us-east-1"), Some(vec!["karpenter.k8s.aws/instance-gpu-name In a100"]));
    assert_eq!(v["status"], "success", "{v}");
    assert_eq!(v["count"], 2, "{v}");
}

/// The apiserver's first checks: apiVersion and kind together, a served version, a name.
#[test]
fn object_headers_are_the_apiservers() {
    for (text, code, path) in [
        ("kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n", "required", None),
        ("apiVersion: v1\nkind: Pod\nmetadata: {namespace: x}\nspec: {containers: [{name: c}]}\n", "required", Some("metadata")),
        (
            "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: old}\nspec: {}\n",
            "unsupported-api-version",
            Some("apiVersion"),
        ),
        ("apiVersion: apps/v1beta2\nkind: Deployment\nmetadata: {name: d}\nspec: {}\n", "unsupported-api-version", Some("apiVersion")),
    ] {
        let v = plan(&format!("{POOL}---\n{text}"));
        let e = first_error(&v);
        assert_eq!(e["code"], code, "{text}: {e}");
        assert_eq!(e["document"], 1, "{e}");
        if let Some(p) = path {
            assert_eq!(e["path"], p, "{text}: {e}");
        }
    }
}

/// A NodePool whose EC2NodeClass is missing (while the input has others) is not Ready: plan
/// does not launch from it and says so; validate reports it. Without any EC2NodeClass in the
/// input, node classes are not modelled and the NodePool stays Ready.
#[test]
fn a_missing_node_class_makes_the_nodepool_not_ready() {
    let orphan = POOL.replace("name: default}\n      requirements", "name: missing}\n      requirements");
    let class = "---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: other}\nspec: {role: r, amiSelectorTerms: [{alias: al2023@latest}], subnetSelectorTerms: [{tags: {a: b}}], securityGroupSelectorTerms: [{tags: {a: b}}]}\n";
    let text = format!("{orphan}{class}{}", pod("{cpu: 1}"));
    let v = plan(&text);
    assert_eq!(v["status"], "success", "{v}");
    assert_eq!(v["nodeClaims"].as_array().map(Vec::len), Some(0), "{v}");
    let warning = v["warnings"].as_array().unwrap().iter().find(|w| w["code"] == "node-class-not-found").expect("warning");
    // The warning says which file holds the NodePool to fix, not only its name.
    assert!(warning["message"].as_str().unwrap().contains("(in in.yaml, document 0)"), "{warning}");
    assert_eq!(warning["object"], "NodePool/default");
    let req = Request { inputs: vec![Input { name: Some("in.yaml".into()), text }], ..Default::default() };
    let v: Value = serde_json::from_str(&nodecast::validate(&req).to_json()).unwrap();
    assert_eq!(first_error(&v)["code"], "node-class-not-found");
    assert_eq!(first_error(&v)["source"], "in.yaml", "{v}");
    assert_eq!(first_error(&v)["document"], 0, "{v}");
    let v = plan(&format!("{orphan}{}", pod("{cpu: 1}")));
    assert_eq!(v["nodeClaims"].as_array().map(Vec::len), Some(1), "{v}");
}
