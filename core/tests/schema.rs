//! The generated schema is checked in and true (`cargo test -p nodecast --features schema --test
//! schema`, `make schema-check`):
//! - `schema/answers.schema.json` and `bindings-wasm/js/answers.d.ts` are what `make schema`
//!   writes from today's Rust answer types, so a field added in Rust without regenerating fails;
//! - real answers of every kind (the repository's examples) are valid against the schema, so its
//!   closed sets (capacity types, methods, outcomes, events, ...) and the launch invariant
//!   (a NodeClaim's four launch fields all set or all null) hold for what the core writes.
#![cfg(feature = "schema")]

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn checked_in(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e} (run `make schema`)"))
}

#[test]
fn checked_in_schema_is_fresh() {
    assert!(
        checked_in("schema/answers.schema.json") == nodecast::schema::answers_schema_text(),
        "schema/answers.schema.json differs from the Rust answer types: run `make schema` and commit it"
    );
    assert!(
        checked_in("bindings-py/python/nodecast/answers.schema.json") == nodecast::schema::answers_schema_text(),
        "the Python package's answers.schema.json differs: run `make schema` and commit it"
    );
}

#[test]
fn checked_in_typescript_is_fresh() {
    let fresh = nodecast::schema::typescript(&nodecast::schema::answers_schema());
    assert!(
        checked_in("bindings-wasm/js/answers.d.ts") == fresh,
        "bindings-wasm/js/answers.d.ts differs from the Rust answer types: run `make schema` and commit it"
    );
}

#[test]
fn typescript_has_the_precise_types() {
    let ts = nodecast::schema::typescript(&nodecast::schema::answers_schema());
    for line in [
        "export type CapacityType = 'on-demand' | 'spot' | 'reserved';",
        "export type NodeClaim = NodeClaimFields & (NodeClaimLaunch | NodeClaimNoLaunch);",
        "export type PlanAnswer = (Plan & { apiVersion: 'nodecast/v1'; kind: 'Plan'; status: 'success'; }) | PlanFailure;",
        "export type DecisionAction = 'none' | 'delete' | 'replace';",
    ] {
        assert!(ts.lines().any(|l| l == line), "answers.d.ts lacks {line:?}");
    }
    let launch = ts.split("export interface NodeClaimLaunch {").nth(1).expect("NodeClaimLaunch").split('}').next().unwrap();
    for field in ["instanceType: string;", "zone: string;", "pricePerHour: number;", "capacityType: CapacityType;"] {
        assert!(launch.contains(field), "NodeClaimLaunch lacks {field:?}: {launch}");
    }
}

// ---- A validator for the subset of JSON Schema the generator writes ---------------------------

struct Validator<'a> {
    defs: &'a serde_json::Map<String, Value>,
}

impl Validator<'_> {
    /// `Err(where: why)` for the first mismatch.
    fn check(&self, schema: &Value, v: &Value, at: &str) -> Result<(), String> {
        let m = match schema {
            Value::Bool(true) => return Ok(()),
            Value::Object(m) => m,
            other => return Err(format!("{at}: unsupported schema {other}")),
        };
        if let Some(r) = m.get("$ref").and_then(Value::as_str) {
            let name = r.strip_prefix("#/$defs/").ok_or(format!("{at}: non-local $ref {r}"))?;
            self.check(self.defs.get(name).ok_or(format!("{at}: no definition {name}"))?, v, at)?;
        }
        if let Some(c) = m.get("const") {
            if c != v {
                return Err(format!("{at}: {v} is not {c}"));
            }
        }
        if let Some(e) = m.get("enum").and_then(Value::as_array) {
            if !e.contains(v) {
                return Err(format!("{at}: {v} is not one of {}", Value::Array(e.clone())));
            }
        }
        if let Some(all) = m.get("allOf").and_then(Value::as_array) {
            for s in all {
                self.check(s, v, at)?;
            }
        }
        if let Some(any) = m.get("anyOf").and_then(Value::as_array) {
            let errs: Vec<String> = any.iter().filter_map(|s| self.check(s, v, at).err()).collect();
            if errs.len() == any.len() {
                return Err(format!("{at}: no anyOf alternative matches: {}", errs.join("; ")));
            }
        }
        if let Some(one) = m.get("oneOf").and_then(Value::as_array) {
            let errs: Vec<String> = one.iter().filter_map(|s| self.check(s, v, at).err()).collect();
            if errs.len() != one.len() - 1 {
                return Err(format!("{at}: {} of {} oneOf alternatives match: {}", one.len() - errs.len(), one.len(), errs.join("; ")));
            }
        }
        if let Some(t) = m.get("type") {
            let types: Vec<&str> = match t {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => return Err(format!("{at}: bad type {t}")),
            };
            let ok = types.iter().any(|t| match *t {
                "string" => v.is_string(),
                "number" => v.is_number(),
                "integer" => v.is_i64() || v.is_u64(),
                "boolean" => v.is_boolean(),
                "null" => v.is_null(),
                "array" => v.is_array(),
                "object" => v.is_object(),
                _ => false,
            });
            if !ok {
                return Err(format!("{at}: {} is not of type {t}", short(v)));
            }
        }
        if let Value::Object(obj) = v {
            let props = m.get("properties").and_then(Value::as_object);
            for r in m.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
                if !obj.contains_key(r) {
                    return Err(format!("{at}: required field {r} is missing"));
                }
            }
            for (k, x) in obj {
                match (props.and_then(|p| p.get(k)), m.get("additionalProperties")) {
                    (Some(s), _) => self.check(s, x, &format!("{at}.{k}"))?,
                    (None, Some(Value::Bool(false))) => return Err(format!("{at}: field {k} is not in the schema")),
                    (None, Some(s @ Value::Object(_))) => self.check(s, x, &format!("{at}.{k}"))?,
                    (None, _) => {}
                }
            }
        }
        if let (Value::Array(items), Some(s)) = (v, m.get("items")) {
            for (i, x) in items.iter().enumerate() {
                self.check(s, x, &format!("{at}[{i}]"))?;
            }
        }
        Ok(())
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 80 {
        format!("{}…", &s[..80])
    } else {
        s
    }
}

/// Every property a definition declares, for the strictness check below.
fn declared(schema: &Value, defs: &serde_json::Map<String, Value>, out: &mut Vec<String>) {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        declared(&defs[r.trim_start_matches("#/$defs/")], defs, out);
    }
    if let Some(p) = schema.get("properties").and_then(Value::as_object) {
        out.extend(p.keys().cloned());
    }
    for k in ["allOf", "oneOf", "anyOf"] {
        for s in schema.get(k).and_then(Value::as_array).into_iter().flatten() {
            declared(s, defs, out);
        }
    }
}

fn text(rel: &str) -> Value {
    json!({"name": rel, "text": checked_in(rel)})
}

fn answer(function: &str, request: Value) -> Value {
    let a: Value = serde_json::from_str(&nodecast::call(function, &request.to_string())).expect("answers are JSON");
    assert_eq!(a["status"], "success", "{function}: {a}");
    a
}

#[test]
fn real_answers_are_valid_against_the_schema() {
    let schema = nodecast::schema::answers_schema();
    let defs = schema["$defs"].as_object().unwrap();
    let v = Validator { defs };
    let gpu = ["examples/nodepools/gpu-training.yaml", "examples/nodepools/gpu-inference.yaml"];
    let work = ["examples/workloads/training-job-4gpu.yaml", "examples/workloads/vllm-inference.yaml"];
    let inputs: Vec<Value> = gpu.iter().chain(&work).map(|f| text(f)).collect();
    let spot: Vec<Value> =
        ["examples/nodepools/spot-tiers.yaml", "examples/workloads/mixed-cluster.yaml"].iter().map(|f| text(f)).collect();
    let disruption: Vec<Value> =
        ["examples/disruption/pool-balanced.yaml", "examples/disruption/cluster-state.yaml"].iter().map(|f| text(f)).collect();
    let answers = [
        answer("plan", json!({"inputs": inputs})),
        answer("plan", json!({"inputs": spot})),
        answer("consolidate", json!({"inputs": disruption, "now": "2025-03-05T12:00:00Z"})),
        answer("validate", json!({"inputs": inputs})),
        answer("explain", json!({"inputs": inputs, "pod": "ml/train-llm-0", "instanceType": "p4d.24xlarge"})),
        answer("catalog", json!({"query": {"gpu": true, "limit": 5}})),
        answer(
            "simulate",
            json!({"inputs": inputs, "trace": {"name": "day.yaml", "text": checked_in("examples/simulate/day.yaml")}, "simulation": {"seed": 7}}),
        ),
        answer("optimize", json!({"inputs": inputs})),
        answer("advise", json!({"inputs": inputs})),
        answer(
            "plan",
            json!({"inputs": [
                text("examples/node-groups/eksctl-gpu.yaml"),
                text("examples/node-groups/ca-settings.yaml"),
                text("examples/workloads/eval-jobs-1gpu.yaml"),
                text("examples/workloads/training-job-4gpu.yaml"),
            ], "autoscaler": "cluster-autoscaler"}),
        ),
        answer(
            "consolidate",
            json!({"inputs": [
                text("examples/node-groups/eksctl-gpu.yaml"),
                text("examples/node-groups/cluster-state.yaml"),
            ], "autoscaler": "cluster-autoscaler", "now": "2025-03-05T12:00:00Z"}),
        ),
        answer(
            "migrate",
            json!({"inputs": [
                text("examples/node-groups/eksctl-gpu.yaml"),
                text("examples/node-groups/ca-settings.yaml"),
                text("examples/workloads/eval-jobs-1gpu.yaml"),
                text("examples/workloads/training-job-4gpu.yaml"),
            ]}),
        ),
    ];
    let mut claims = 0;
    for a in &answers {
        let kind = a["kind"].as_str().unwrap();
        v.check(&schema, a, kind).unwrap_or_else(|e| panic!("{e}"));
        v.check(&json!({"$ref": format!("#/$defs/{kind}Answer")}), a, kind).unwrap_or_else(|e| panic!("{e}"));
        claims += a["nodeClaims"].as_array().map_or(0, Vec::len);
    }
    assert!(claims > 0, "the examples launch NodeClaims");
    // The validator itself: a capacity type outside the set, a half-launched claim and an
    // unknown field of a failure are all rejected.
    let mut bad = answers[0].clone();
    bad["nodeClaims"][0]["capacityType"] = json!("preemptible");
    assert!(v.check(&schema, &bad, "bad").is_err());
    let mut half = answers[0].clone();
    half["nodeClaims"][0]["zone"] = Value::Null;
    assert!(v.check(&schema, &half, "half").is_err());
    let failure: Value = serde_json::from_str(&nodecast::call("plan", "{\"bogus\": 1}")).unwrap();
    v.check(&schema, &failure, "failure").unwrap_or_else(|e| panic!("{e}"));
    let mut extra = failure.clone();
    extra["nodeClaims"] = json!([]);
    assert!(v.check(&schema, &extra, "extra").is_err());
    // Every field of every answer is declared (the derived schemas allow extra fields, so the
    // validator alone would not notice one the schema lacks).
    for a in &answers {
        let kind = a["kind"].as_str().unwrap();
        let body = ANSWER_BODIES.iter().find(|(k, _)| *k == kind).unwrap().1;
        let mut names = vec!["apiVersion".to_string(), "kind".into(), "status".into()];
        declared(&defs[body], defs, &mut names);
        for k in a.as_object().unwrap().keys() {
            assert!(names.contains(k), "{kind}: field {k} is not in the schema");
        }
    }
}

const ANSWER_BODIES: [(&str, &str); 12] = nodecast::schema::ANSWERS;

/// The vocabularies are the enums the core builds (core/src/vocab.rs), so the schema lists
/// every string the core writes, including the six the old schema-only lists lacked; and an
/// answer carrying one (an explained pod that already runs: `bound`) is valid.
#[test]
fn the_schema_lists_every_string_the_core_builds() {
    let schema = nodecast::schema::answers_schema();
    let defs = schema["$defs"].as_object().unwrap();
    let members = |name: &str| -> Vec<String> {
        let def = &defs[name];
        let values: Vec<&Value> = match def.get("enum") {
            Some(e) => e.as_array().unwrap().iter().collect(),
            None => def["oneOf"].as_array().unwrap().iter().flat_map(|o| o.get("enum").or(o.get("const")).into_iter()).collect(),
        };
        values
            .iter()
            .flat_map(|v| v.as_array().cloned().unwrap_or_else(|| vec![(*v).clone()]))
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    assert!(members("PodOutcome").contains(&"bound".to_string()), "{:?}", members("PodOutcome"));
    for r in ["reservation-interrupted", "unhealthy"] {
        assert!(members("TerminationReason").contains(&r.to_string()), "{r}: {:?}", members("TerminationReason"));
    }
    for e in [
        "node-condition",
        "reservation-offering-unavailable",
        "reservation-offering-available",
        "disruption-decided",
        "disruption-rejected",
    ] {
        assert!(members("TimelineEvent").contains(&e.to_string()), "{e}: {:?}", members("TimelineEvent"));
    }
    let v = Validator { defs };
    let inputs: Vec<Value> =
        ["examples/disruption/pool-balanced.yaml", "examples/disruption/cluster-state.yaml"].iter().map(|f| text(f)).collect();
    let a = answer("explain", json!({"inputs": inputs, "pod": "ml/train-llm-0"}));
    assert_eq!(a["pod"]["outcome"], "bound", "{a}");
    v.check(&schema, &a, "Explanation").unwrap_or_else(|e| panic!("{e}"));
}
