//! Worked NodePool examples VX-01..VX-20 of §7 (VX-18 is a transition rule: not implemented).

use super::{expect, expect_ok, is_runtime, nodepool, set};
use crate::validate::Provider::{Aws, Core};
use serde_json::{json, Value};

const REQ: &str = "spec.template.spec.requirements[0]";

fn with_requirement(r: Value) -> Value {
    set(nodepool(), "spec/template/spec/requirements", json!([r]))
}

fn with_budget(b: Value) -> Value {
    set(nodepool(), "spec/disruption/budgets", json!([b]))
}

#[test]
fn worked_examples_nodepool() {
    // VX-01: no disruption at all is admitted (defaults apply).
    expect_ok(&set(nodepool(), "spec/disruption", Value::Null), Aws);
    // VX-02..06
    let e = expect(&with_budget(json!({"nodes": "10", "schedule": "* * * * *"})), Aws, &[("invalid-budget", "spec.disruption.budgets[0]")]);
    assert_eq!(e[0].message, "'schedule' must be set with 'duration' (NP-13)");
    expect(
        &with_budget(json!({"nodes": "10", "schedule": "* * * * *", "duration": "30s"})),
        Aws,
        &[("invalid-duration", "spec.disruption.budgets[0].duration")],
    );
    expect_ok(&with_budget(json!({"nodes": "10", "schedule": "@annually", "duration": "20m"})), Aws);
    expect(&with_budget(json!({"nodes": "1000%"})), Aws, &[("invalid-budget", "spec.disruption.budgets[0].nodes")]);
    let vx06 = json!({"budgets": [{"reasons": ["Drifted"], "schedule": "0 9 * * mon-fri", "duration": "8h"}]});
    expect_ok(&set(nodepool(), "spec/disruption", vx06.clone()), Core);
    expect_ok(&set(set(nodepool(), "spec/disruption", vx06), "spec/disruption/consolidateAfter", json!("0s")), Aws);
    // VX-07..11
    let e = expect(
        &with_requirement(json!({"key": "topology.kubernetes.io/zone", "operator": "Gt", "values": ["-1"]})),
        Aws,
        &[("invalid-requirement", "spec.template.spec.requirements[0].values")],
    );
    assert_eq!(e[0].message, "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value (NP-39)");
    let e = expect(
        &with_requirement(json!({"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["a"], "minValues": 2})),
        Aws,
        &[("invalid-requirement", "spec.template.spec.requirements[0].values")],
    );
    assert!(e[0].message.starts_with("requirements with 'minValues' must have at least that many values"));
    let e = expect(
        &with_requirement(json!({"key": "node.kubernetes.io/instance-type", "operator": "Exists", "minValues": 51})),
        Aws,
        &[("out-of-range", "spec.template.spec.requirements[0].minValues")],
    );
    assert!(e[0].message.contains("less than or equal to 50"));
    let e = expect(
        &with_requirement(json!({"key": "karpenter.sh/nodepool", "operator": "In", "values": ["x"]})),
        Aws,
        &[("restricted-label", &format!("{REQ}.key"))],
    );
    assert_eq!(e[0].message, "label \"karpenter.sh/nodepool\" is restricted (NP-33)");
    let e = expect(
        &with_requirement(json!({"key": "karpenter.sh/test", "operator": "Exists"})),
        Aws,
        &[("restricted-label", &format!("{REQ}.key"))],
    );
    assert_eq!(e[0].message, "label domain \"karpenter.sh\" is restricted (NP-32)");
    // VX-12, VX-13
    let e = expect(
        &set(nodepool(), "spec/template/metadata/labels", json!({"spaces are not allowed": "x"})),
        Aws,
        &[("invalid-label", "spec.template.metadata.labels[spaces are not allowed]")],
    );
    assert!(is_runtime(&e[0]) && e[0].message.starts_with("invalid key name \"spaces are not allowed\" in labels, "));
    let e = expect(
        &set(nodepool(), "spec/template/metadata/labels", json!({"foo": "/ is not allowed"})),
        Aws,
        &[("invalid-label", "spec.template.metadata.labels[foo]")],
    );
    assert!(!is_runtime(&e[0]) && e[0].message.ends_with("(NP-21)"));
    // VX-14, VX-15
    expect_ok(
        &set(nodepool(), "spec/template/spec/taints", json!([{"key": "a", "effect": "NoSchedule"}, {"key": "a", "effect": "NoExecute"}])),
        Aws,
    );
    let v = set(nodepool(), "spec/template/spec/taints", json!([{"key": "a", "effect": "NoSchedule"}]));
    let v = set(v, "spec/template/spec/startupTaints", json!([{"key": "a", "effect": "NoSchedule"}]));
    let e = expect(&v, Aws, &[("duplicate-taint", "spec.template.spec.startupTaints[0]")]);
    assert!(is_runtime(&e[0]));
    assert_eq!(e[0].message, "duplicate taint Key/Effect pair a=NoSchedule (RT-05)");
    // VX-16, VX-17
    let v = set(set(nodepool(), "spec/replicas", json!(10)), "spec/limits", json!({"cpu": 1000}));
    let e = expect(&v, Aws, &[("static-nodepool", "spec.limits")]);
    assert_eq!(e[0].message, "only 'limits.nodes' is supported on static NodePools (NP-04)");
    let v = set(set(nodepool(), "spec/replicas", json!(10)), "spec/weight", json!(25));
    let e = expect(&v, Aws, &[("static-nodepool", "spec.weight")]);
    assert_eq!(e[0].message, "'weight' is not supported on static NodePools (NP-05)");
    // VX-19
    expect(
        &set(nodepool(), "spec/template/spec/terminationGracePeriod", json!("Never")),
        Aws,
        &[("invalid-duration", "spec.template.spec.terminationGracePeriod")],
    );
    // VX-20
    let e = expect(
        &with_requirement(json!({"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["xspot"]})),
        Aws,
        &[("invalid-requirement", "spec.template.spec.requirements[0].values")],
    );
    assert!(is_runtime(&e[0]));
    assert!(e[0].message.starts_with("invalid value: no valid values found in [xspot] for karpenter.sh/capacity-type, expected one of: [on-demand reserved spot], got: [xspot]"), "{}", e[0].message);
    expect_ok(&with_requirement(json!({"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand", "xspot"]})), Aws);
}
