//! `spec.disruption`: NP-10..NP-17 accept/reject examples of §3.2.

use super::{expect, expect_ok, is_runtime, nodepool, set};
use crate::validate::Provider::{Aws, Core};
use serde_json::{json, Value};

fn with_budget(b: Value) -> Value {
    set(nodepool(), "spec/disruption/budgets", json!([b]))
}

#[test]
fn consolidate_after_and_expire_after() {
    let accept = ["30s", "1h30m5s", "0s", "90m", "Never"];
    let reject = ["-1s", "1hr", "FooNever", "never", "1.5h", "500ms", "1d", ""];
    for (ptr, path) in [
        ("spec/disruption/consolidateAfter", "spec.disruption.consolidateAfter"),
        ("spec/template/spec/expireAfter", "spec.template.spec.expireAfter"),
    ] {
        for ok in accept {
            expect_ok(&set(nodepool(), ptr, json!(ok)), Aws);
        }
        for bad in reject {
            expect(&set(nodepool(), ptr, json!(bad)), Aws, &[("invalid-duration", path)]);
        }
    }
    // §3.9: beyond Go's duration range the pattern passes but decoding fails (runtime).
    let errs = expect(
        &set(nodepool(), "spec/disruption/consolidateAfter", json!("9999999h")),
        Aws,
        &[("invalid-duration", "spec.disruption.consolidateAfter")],
    );
    assert!(is_runtime(&errs[0]));
}

#[test]
fn consolidate_after_defaults_to_zero_like_core_head() {
    // The AWS-packaged v1.14.0 CRD would require it; nodecast models core HEAD's 0s default.
    let v = set(nodepool(), "spec/disruption", json!({"consolidationPolicy": "WhenEmpty"}));
    expect_ok(&v, Aws);
    expect_ok(&v, Core);
}

#[test]
fn consolidation_policy() {
    for ok in ["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"] {
        expect_ok(&set(nodepool(), "spec/disruption/consolidationPolicy", json!(ok)), Aws);
    }
    for bad in ["1", "2", "3", "0", "4", "10", "balanced", "whenempty", "", "WhenUnderutilized", "foo"] {
        let errs = expect(
            &set(nodepool(), "spec/disruption/consolidationPolicy", json!(bad)),
            Aws,
            &[("unsupported-value", "spec.disruption.consolidationPolicy")],
        );
        assert!(errs[0].message.starts_with("Unsupported value: "), "{}", errs[0].message);
        assert!(errs[0].message.ends_with("(NP-11)"));
    }
    expect(
        &set(nodepool(), "spec/disruption/consolidationPolicy", json!(1)),
        Aws,
        &[("wrong-type", "spec.disruption.consolidationPolicy")],
    );
}

#[test]
fn budget_nodes() {
    for ok in ["0", "10", "007", "0%", "5%", "05%", "99%", "100%"] {
        expect_ok(&with_budget(json!({"nodes": ok})), Aws);
    }
    for bad in ["-10", "-10%", "1000%", "101%", "10.5%", "1000a%"] {
        expect(&with_budget(json!({"nodes": bad})), Aws, &[("invalid-budget", "spec.disruption.budgets[0].nodes")]);
    }
    // A YAML integer is not a string.
    expect(&with_budget(json!({"nodes": 10})), Aws, &[("wrong-type", "spec.disruption.budgets[0].nodes")]);
}

#[test]
fn budget_schedule() {
    for ok in ["* * * * *", "0 9 * * mon-fri", "@annually", "@weekly"] {
        expect_ok(&with_budget(json!({"nodes": "1", "schedule": ok, "duration": "1h"})), Aws);
    }
    for bad in ["*", "* * * * ", "@every 1h"] {
        expect(
            &with_budget(json!({"nodes": "1", "schedule": bad, "duration": "1h"})),
            Aws,
            &[("invalid-budget", "spec.disruption.budgets[0].schedule")],
        );
    }
    // Regex precedence NOTE: these pass admission but the cron parser rejects them (fail closed).
    for (admitted, why) in [
        ("0 0 * * tue-mon", "beginning of range (2) beyond end of range (1)"),
        ("@dailyX", "unrecognized descriptor"),
        ("a b c d e", "failed to parse int"),
    ] {
        let errs = expect(
            &with_budget(json!({"nodes": "1", "schedule": admitted, "duration": "1h"})),
            Aws,
            &[("invalid-schedule", "spec.disruption.budgets[0].schedule")],
        );
        assert!(is_runtime(&errs[0]) && errs[0].message.contains(why), "{:?}", errs[0]);
    }
}

#[test]
fn budget_duration() {
    for ok in ["20m", "2h", "2h20m", "20m0s", "1h0m0s", "0m"] {
        expect_ok(&with_budget(json!({"nodes": "1", "schedule": "@daily", "duration": ok})), Aws);
    }
    for bad in ["30s", "-20m", "1h30m15s"] {
        expect(
            &with_budget(json!({"nodes": "1", "schedule": "@daily", "duration": bad})),
            Aws,
            &[("invalid-duration", "spec.disruption.budgets[0].duration")],
        );
    }
}

#[test]
fn budget_reasons() {
    for bad in ["invalid", "expired", "Expired", ""] {
        expect(
            &with_budget(json!({"nodes": "1", "reasons": [bad]})),
            Aws,
            &[("unsupported-value", "spec.disruption.budgets[0].reasons[0]")],
        );
    }
    expect_ok(&with_budget(json!({"nodes": "1", "reasons": ["Drifted", "Empty"]})), Aws);
    expect(
        &with_budget(json!({"nodes": "1", "reasons": ["Empty", "Empty"]})),
        Aws,
        &[("duplicate-value", "spec.disruption.budgets[0].reasons[1]")],
    );
}

#[test]
fn budgets_list_rules() {
    // A list where one budget has duration without schedule is rejected as a whole.
    let v = set(nodepool(), "spec/disruption/budgets", json!([{"nodes": "1"}, {"nodes": "2", "duration": "1h"}]));
    expect(&v, Aws, &[("invalid-budget", "spec.disruption.budgets[1]")]);
    let many: Vec<Value> = (0..51).map(|_| json!({"nodes": "1"})).collect();
    expect(&set(nodepool(), "spec/disruption/budgets", json!(many)), Aws, &[("too-many-items", "spec.disruption.budgets")]);
    expect_ok(&set(nodepool(), "spec/disruption/budgets", json!([])), Aws);
}
