//! NodePool field rules: taints, labels, requirements, static pools, wrong types.

use super::{expect, expect_ok, is_runtime, nodepool, run, set};
use crate::validate::Provider::{self, Aws, Core};
use serde_json::{json, Value};

fn with_requirement(r: Value) -> Value {
    set(nodepool(), "spec/template/spec/requirements", json!([r]))
}

#[test]
fn taint_keys_and_values() {
    let taint = |t: Value| set(nodepool(), "spec/template/spec/taints", json!([t]));
    for ok in ["a", "Test", "test.com/Test", "test.com.com/test", "key-only"] {
        expect_ok(&taint(json!({"key": ok, "effect": "NoSchedule"})), Aws);
    }
    for bad in ["test.com.com}", "Test.com/test", "test/test/test", "test/", "/test", ""] {
        expect(&taint(json!({"key": bad, "effect": "NoSchedule"})), Aws, &[("invalid-taint", "spec.template.spec.taints[0].key")]);
    }
    expect(
        &taint(json!({"key": "a", "value": "???", "effect": "NoSchedule"})),
        Aws,
        &[("invalid-taint", "spec.template.spec.taints[0].value")],
    );
    expect(&taint(json!({"key": "a", "effect": "NoScheduleX"})), Aws, &[("invalid-taint", "spec.template.spec.taints[0].effect")]);
    expect(&taint(json!({"key": "a"})), Aws, &[("required", "spec.template.spec.taints[0].effect")]);
    expect(
        &taint(json!({"key": "a", "effect": "NoSchedule", "timeAdded": "yesterday"})),
        Aws,
        &[("invalid-taint", "spec.template.spec.taints[0].timeAdded")],
    );
    // Over-long name: admitted, fails RT-05.
    let errs = expect(
        &taint(json!({"key": "n".repeat(64), "effect": "NoSchedule"})),
        Aws,
        &[("invalid-taint", "spec.template.spec.taints[0].key")],
    );
    assert!(is_runtime(&errs[0]) && errs[0].message.ends_with("in taints (RT-05)"));
}

#[test]
fn label_keys() {
    let label = |k: &str, p: Provider, want: &[(&str, &str)]| {
        let v = set(nodepool(), "spec/template/metadata/labels", json!({ k: "v" }));
        let path = format!("spec.template.metadata.labels[{k}]");
        let pairs: Vec<(&str, &str)> = want.iter().map(|(c, _)| (*c, path.as_str())).collect();
        let errs = expect(&v, p, &pairs);
        for (e, (_, id)) in errs.iter().zip(want) {
            assert!(e.message.ends_with(&format!("({id})")), "{}", e.message);
        }
        errs
    };
    for ok in [
        "kubernetes.io/team",
        "k8s.io/x",
        "subdomain.kubernetes.io/x",
        "kubernetes.io",
        "kops.k8s.io/x",
        "karpenter.sh/capacity-type",
        "karpenter.k8s.aws/instance-family",
    ] {
        label(ok, Aws, &[]);
    }
    label("karpenter.sh/nodepool", Aws, &[("restricted-label", "NP-23")]);
    label("kubernetes.io/hostname", Aws, &[("restricted-label", "NP-24")]);
    label("karpenter.sh/custom", Aws, &[("restricted-label", "NP-22")]);
    // CEL rejects, runtime would accept.
    label("notkarpenter.sh/x", Aws, &[("restricted-label", "NP-22")]);
    label("mykarpenter.sh", Aws, &[("restricted-label", "NP-22")]);
    // AWS allow-list; ec2nodeclass passes CEL but is not a Go well-known label (RT-04).
    label("karpenter.k8s.aws/foo", Aws, &[("restricted-label", "NP-25")]);
    label("karpenter.k8s.aws/foo", Core, &[]);
    let errs = label("karpenter.k8s.aws/ec2nodeclass", Aws, &[("restricted-label", "RT-04")]);
    assert!(is_runtime(&errs[0]) && errs[0].message.ends_with("(RT-04)"));
    assert!(errs[0].message.contains("restricted domain: [karpenter.sh karpenter.k8s.aws]"));
}

#[test]
fn requirement_rules() {
    let req = |r: Value| with_requirement(r);
    expect_ok(&req(json!({"key": "kubernetes.io/arch", "operator": "NotIn", "values": []})), Aws);
    expect_ok(&req(json!({"key": "kubernetes.io/arch", "operator": "Exists", "values": ["x"], "minValues": 16})), Aws);
    expect_ok(&req(json!({"key": "example.com/gen", "operator": "Gte", "values": ["0"]})), Aws);
    expect(
        &req(json!({"key": "kubernetes.io/arch", "operator": "in", "values": ["x"]})),
        Aws,
        &[("invalid-operator", "spec.template.spec.requirements[0].operator")],
    );
    expect(&req(json!({"key": "kubernetes.io/arch"})), Aws, &[("required", "spec.template.spec.requirements[0].operator")]);
    expect(
        &req(json!({"key": "kubernetes.io/arch", "operator": "In", "values": []})),
        Aws,
        &[("invalid-requirement", "spec.template.spec.requirements[0].values")],
    );
    for values in [json!(["a"]), json!(["1", "2"]), json!([])] {
        expect(
            &req(json!({"key": "example.com/gen", "operator": "Lt", "values": values})),
            Aws,
            &[("invalid-requirement", "spec.template.spec.requirements[0].values")],
        );
    }
    expect(
        &req(json!({"key": "Bad Key", "operator": "Exists"})),
        Aws,
        &[("invalid-requirement", "spec.template.spec.requirements[0].key")],
    );
    // Over-long prefix: passes the CRD pattern, fails RT-06e.
    let long = format!("{}.com/x", "a".repeat(250));
    let errs =
        expect(&req(json!({"key": long, "operator": "Exists"})), Aws, &[("invalid-requirement", "spec.template.spec.requirements[0].key")]);
    assert!(is_runtime(&errs[0]) && errs[0].message.contains("(RT-06e)"));
    // Invalid label value in values: admitted (NP-41 UNSURE), runtime RT-06f.
    let errs = expect(
        &req(json!({"key": "example.com/x", "operator": "In", "values": ["ok", "not ok"]})),
        Aws,
        &[("invalid-requirement", "spec.template.spec.requirements[0].values[1]")],
    );
    assert!(is_runtime(&errs[0]) && errs[0].message.contains("(RT-06f)"));
    // AWS: admitted by the CEL allow-list, but not a Go well-known label (RT-06c).
    let errs = expect(
        &req(json!({"key": "karpenter.k8s.aws/ec2nodeclass", "operator": "Exists"})),
        Aws,
        &[("invalid-requirement", "spec.template.spec.requirements[0].key")],
    );
    assert!(is_runtime(&errs[0]) && errs[0].message.contains("(RT-06c)"));
    expect_ok(&req(json!({"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["m5"]})), Aws);
    expect(
        &req(json!({"key": "karpenter.k8s.aws/bogus", "operator": "Exists"})),
        Aws,
        &[("restricted-label", "spec.template.spec.requirements[0].key")],
    );
    expect_ok(&req(json!({"key": "karpenter.k8s.aws/bogus", "operator": "Exists"})), Core);
    // Deprecated key is normalised at runtime: fine.
    expect_ok(&req(json!({"key": "beta.kubernetes.io/arch", "operator": "In", "values": ["amd64"]})), Aws);
    let many: Vec<Value> = (0..101).map(|_| json!({"key": "a", "operator": "Exists"})).collect();
    expect(&set(nodepool(), "spec/template/spec/requirements", json!(many)), Aws, &[("too-many-items", "spec.template.spec.requirements")]);
}

#[test]
fn static_and_top_level() {
    for ok in [0, 5, 1000] {
        expect_ok(&set(nodepool(), "spec/replicas", json!(ok)), Aws);
    }
    expect(&set(nodepool(), "spec/replicas", json!(-100)), Aws, &[("out-of-range", "spec.replicas")]);
    expect(&set(nodepool(), "spec/weight", json!(0)), Aws, &[("out-of-range", "spec.weight")]);
    expect(&set(nodepool(), "spec/weight", json!(101)), Aws, &[("out-of-range", "spec.weight")]);
    expect_ok(&set(set(nodepool(), "spec/replicas", json!(3)), "spec/limits", json!({"nodes": 10})), Aws);
    expect(&set(nodepool(), "spec/limits", json!({"cpu": "1x"})), Aws, &[("invalid-quantity", "spec.limits[cpu]")]);
    expect(&set(nodepool(), "spec/limits", json!({"cpu": 0.5})), Aws, &[("wrong-type", "spec.limits[cpu]")]);
    expect_ok(&set(nodepool(), "spec/limits", json!({"cpu": "1000", "memory": "1000Gi", "nvidia.com/gpu": 2})), Aws);
    expect(&set(nodepool(), "spec", Value::Null), Aws, &[("required", "spec")]);
    expect(&set(nodepool(), "spec/template/spec/requirements", Value::Null), Aws, &[("required", "spec.template.spec.requirements")]);
    expect(
        &set(nodepool(), "spec/template/spec/nodeClassRef", json!({"group": "a/b", "kind": "", "name": null})),
        Aws,
        &[
            ("invalid-pattern", "spec.template.spec.nodeClassRef.group"),
            ("empty-value", "spec.template.spec.nodeClassRef.kind"),
            ("required", "spec.template.spec.nodeClassRef.name"),
        ],
    );
}

#[test]
fn wrong_types_never_panic() {
    let cases = [
        ("spec", json!("x"), "spec"),
        ("spec/template", json!([]), "spec.template"),
        ("spec/template/spec/requirements", json!("x"), "spec.template.spec.requirements"),
        ("spec/template/spec/requirements", json!([1]), "spec.template.spec.requirements[0]"),
        ("spec/template/spec/requirements/0/values", json!("amd64"), "spec.template.spec.requirements[0].values"),
        ("spec/template/spec/requirements/0/values", json!([1]), "spec.template.spec.requirements[0].values[0]"),
        ("spec/template/spec/requirements/0/minValues", json!("2"), "spec.template.spec.requirements[0].minValues"),
        ("spec/template/metadata/labels", json!(["a"]), "spec.template.metadata.labels"),
        ("spec/template/metadata/labels", json!({"a": true}), "spec.template.metadata.labels[a]"),
        ("spec/disruption", json!(7), "spec.disruption"),
        ("spec/disruption/budgets", json!({"nodes": "1"}), "spec.disruption.budgets"),
        ("spec/disruption/budgets", json!([null]), "spec.disruption.budgets[0]"),
        ("spec/template/spec/taints", json!([{"key": {}, "effect": []}]), "spec.template.spec.taints[0].key"),
        ("spec/weight", json!(1.5), "spec.weight"),
        ("spec/template/spec/expireAfter", json!(720), "spec.template.spec.expireAfter"),
    ];
    for (ptr, x, path) in cases {
        let errs = run(&set(nodepool(), ptr, x.clone()), Aws);
        assert!(errs.iter().any(|e| e.code == "wrong-type" && e.path.as_deref() == Some(path)), "{ptr}={x}: {errs:#?}");
    }
}

#[test]
fn wide_nodepool_lists_are_refused_once() {
    let reqs: Vec<Value> = (0..101).map(|i| json!({"key": format!("bad key {i}"), "operator": "Inn"})).collect();
    expect(
        &set(nodepool(), "spec/template/spec/requirements", Value::Array(reqs)),
        Core,
        &[("too-many-items", "spec.template.spec.requirements")],
    );
    let labels: serde_json::Map<String, Value> = (0..101).map(|i| (format!("bad key {i}"), json!(i))).collect();
    expect(
        &set(nodepool(), "spec/template/metadata/labels", Value::Object(labels)),
        Core,
        &[("too-many-items", "spec.template.metadata.labels")],
    );
}
