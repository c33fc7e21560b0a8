//! One schema of the answers, generated from the Rust answer types (feature `schema`).
//!
//! [`answers_schema`] is the JSON Schema (draft 2020-12) of every `nodecast/v1` answer, derived
//! with schemars from the same types the JSON layer serialises; [`typescript`] turns that schema
//! into the TypeScript declarations of the npm package. The checked-in copies
//! (`schema/answers.schema.json`, `bindings-wasm/js/answers.d.ts`) are written by
//! `make schema` (`cargo run -p nodecast --features schema --example gen_schema`), and
//! `core/tests/schema.rs` fails when they differ from a fresh generation, so the Rust types,
//! the schema, the TypeScript types and (through its pytest) the Python classes cannot drift.

mod ts;

use schemars::generate::SchemaSettings;
use serde_json::{json, Map, Value};

pub use ts::typescript;

/// Every answer: its `kind`, the facade functions that give it, and its body's definition.
/// The body of a failure is `errors` (the same for every kind).
pub const ANSWERS: [(&str, &str); 12] = [
    ("Plan", "Plan"),
    ("Decision", "Decision"),
    ("Explanation", "Explanation"),
    ("Validation", "ValidationReport"),
    ("CatalogQuery", "CatalogAnswer"),
    ("Simulation", "Simulation"),
    ("Optimization", "Optimization"),
    ("Advice", "Advice"),
    ("NodeGroupPlan", "NodeGroupPlan"),
    ("NodeGroupScaleDown", "NodeGroupScaleDown"),
    ("Migration", "Migration"),
    ("Comparison", "Comparison"),
];

/// The public names of answer types whose Rust names say how they are built (`...Out`).
/// The schema's `$defs` and the TypeScript declarations use the public name.
const RENAMES: [(&str, &str); 16] = [
    ("NodeClaimOut", "NodeClaim"),
    ("DomainTieOut", "DomainTie"),
    ("ExistingNodeOut", "ExistingNode"),
    ("UnschedulableOut", "Unschedulable"),
    ("NodePoolOut", "NodePoolUsage"),
    ("LimitOut", "LimitUsage"),
    ("TieOut", "Tie"),
    ("PoolBudgetOut", "PoolBudget"),
    ("Summary", "SimulationSummary"),
    ("NodeOut", "SimulatedNode"),
    ("PodOut", "SimulatedPod"),
    ("SimSettings", "ResolvedSimulationSettings"),
    ("Action", "DecisionAction"),
    ("StaticNodeClaimOut", "StaticNodeClaim"),
    ("StaticDeprovisionOut", "StaticDeprovision"),
    ("CapacityBufferOut", "CapacityBuffer"),
];

fn public_name(rust: &str) -> &str {
    RENAMES.iter().find(|(r, _)| *r == rust).map_or(rust, |(_, p)| p)
}

/// The JSON Schema of every `nodecast/v1` answer: a `oneOf` over the answer kinds, each a
/// `oneOf` of its success (`status: success` and the body's fields) and its failure
/// (`status: failure` and `errors`). Deterministic: the same bytes on every run.
pub fn answers_schema() -> Value {
    let mut generator = SchemaSettings::draft2020_12().for_serialize().into_generator();
    generator.subschema_for::<crate::error::InputError>();
    generator.subschema_for::<crate::api::Plan>();
    generator.subschema_for::<crate::api::Decision>();
    generator.subschema_for::<crate::explain::Explanation>();
    generator.subschema_for::<crate::explain::ValidationReport>();
    generator.subschema_for::<crate::query::CatalogAnswer>();
    generator.subschema_for::<crate::simulate::Simulation>();
    generator.subschema_for::<crate::optimize::Optimization>();
    generator.subschema_for::<crate::advise::Advice>();
    generator.subschema_for::<crate::cluster_autoscaler::NodeGroupPlan>();
    generator.subschema_for::<crate::cluster_autoscaler::NodeGroupScaleDown>();
    generator.subschema_for::<crate::migrate::Migration>();
    generator.subschema_for::<crate::compare::Comparison>();
    let mut defs: Map<String, Value> = Map::new();
    for (name, schema) in generator.take_definitions(true) {
        defs.insert(public_name(&name).to_string(), schema);
    }
    let mut defs = Value::Object(defs);
    rename_refs(&mut defs);
    let Value::Object(mut defs) = defs else { unreachable!("built as an object") };
    defs.values_mut().for_each(absent_is_not_null);
    split_launch(&mut defs, "NodeClaim");
    split_launch(&mut defs, "Replacement");

    let envelope = |kind: &str, status: &str| {
        json!({
            "apiVersion": {"const": crate::json::API_VERSION},
            "kind": {"const": kind},
            "status": {"const": status},
        })
    };
    let mut answers = Vec::new();
    for (kind, body) in ANSWERS {
        defs.insert(
            format!("{kind}Answer"),
            json!({
                "description": format!("The answer of kind `{kind}`: a success with the `{body}` fields, or a failure."),
                "oneOf": [
                    {
                        "allOf": [{"$ref": format!("#/$defs/{body}")}],
                        "type": "object",
                        "properties": envelope(kind, "success"),
                        "required": ["apiVersion", "kind", "status"],
                    },
                    {"$ref": format!("#/$defs/{kind}Failure")},
                ],
            }),
        );
        answers.push(json!({"$ref": format!("#/$defs/{kind}Answer")}));
    }
    for kind in ANSWERS.iter().map(|(k, _)| *k).chain(["Error"]) {
        let mut properties = envelope(kind, "failure");
        use crate::error::ErrorClass;
        properties["errorClass"] = json!({
            "description": "`invalid`: Kubernetes or Karpenter would reject the input (CLI exit 1, Python `ValidationError`); `unusable`: nodecast cannot read or answer it (exit 2, `InputError`).",
            "type": "string",
            "enum": [ErrorClass::Invalid.as_str(), ErrorClass::Unusable.as_str()],
        });
        properties["errors"] = json!({"type": "array", "items": {"$ref": "#/$defs/InputError"}});
        defs.insert(
            format!("{kind}Failure"),
            json!({
                "description": "No answer: every problem found, located.",
                "type": "object",
                "properties": properties,
                "required": ["apiVersion", "kind", "status", "errorClass", "errors"],
                "additionalProperties": false,
            }),
        );
    }
    answers.push(json!({"$ref": "#/$defs/ErrorFailure"}));
    defs.sort_keys();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/nodecast/nodecast/schema/answers.schema.json",
        "title": "nodecast/v1 answers",
        "description": "Every answer of nodecast (CLI -o json, Python, wasm): generated from the Rust answer types by `make schema`; do not edit.",
        "oneOf": answers,
        "$defs": defs,
    })
}

/// The launch fields of a NodeClaim (and of a replacement) are set together or not at all:
/// `provision::claim_out` and the consolidation's replacement fill all four from one
/// `scheduling::launch::Launch`, or leave all four null when no offering can launch. The
/// derived schema sees four independent `Option`s; this states the invariant, so a launched
/// claim's `instanceType`, `zone` and `pricePerHour` are not nullable once one of them is
/// known not to be (`{name}Fields & ({name}Launch | {name}NoLaunch)` in TypeScript).
/// `core/tests/schema.rs` checks the goldens' claims against it.
pub const LAUNCH_FIELDS: [&str; 4] = ["instanceType", "capacityType", "zone", "pricePerHour"];

fn split_launch(defs: &mut Map<String, Value>, name: &str) {
    let mut fields = defs.remove(name).unwrap_or_else(|| panic!("{name} is an answer type"));
    let props = fields["properties"].as_object_mut().expect("an object type");
    let mut launch = Map::new();
    let mut none = Map::new();
    for key in LAUNCH_FIELDS {
        let mut schema = props.remove(key).unwrap_or_else(|| panic!("{name} has {key}"));
        none.insert(key.into(), json!({"type": "null"}));
        // `["string", "null"]` → `"string"`; `anyOf: [X, null]` → X.
        if let Some(Value::Array(types)) = schema.get("type") {
            let one: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
            schema["type"] = one[0].clone();
        } else if let Some(Value::Array(alts)) = schema.get("anyOf") {
            schema = alts.iter().find(|a| a.get("type") != Some(&Value::from("null"))).expect("a non-null alternative").clone();
        }
        launch.insert(key.into(), schema);
    }
    if let Some(Value::Array(required)) = fields.get_mut("required") {
        required.retain(|r| !LAUNCH_FIELDS.contains(&r.as_str().unwrap_or_default()));
    }
    let object = |props: Map<String, Value>, description: String| json!({"description": description, "type": "object", "properties": props, "required": LAUNCH_FIELDS});
    defs.insert(format!("{name}Launch"), object(launch, "What is launched: every launch field set.".into()));
    defs.insert(
        format!("{name}NoLaunch"),
        object(none, "No offering can launch (none available or compatible): every launch field null.".into()),
    );
    let description = fields.get("description").cloned().unwrap_or(Value::Null);
    defs.insert(format!("{name}Fields"), fields);
    defs.insert(
        format!("Launched{name}"),
        json!({
            "description": format!("A {name} that launches: its launch fields are not null."),
            "allOf": [{"$ref": format!("#/$defs/{name}Fields")}, {"$ref": format!("#/$defs/{name}Launch")}],
        }),
    );
    let mut whole = json!({
        "allOf": [
            {"$ref": format!("#/$defs/{name}Fields")},
            {"oneOf": [{"$ref": format!("#/$defs/{name}Launch")}, {"$ref": format!("#/$defs/{name}NoLaunch")}]},
        ],
    });
    if !description.is_null() {
        whole["description"] = description;
    }
    defs.insert(name.into(), whole);
}

/// A field the answer leaves out when it has no value (`skip_serializing_if`, so not in
/// `required`) is never `null`: schemars' serialize contract still allows null for an
/// `Option`, which would make TypeScript say `field?: T | null` where `field?: T` is the truth.
fn absent_is_not_null(v: &mut Value) {
    match v {
        Value::Object(m) => {
            let required: Vec<String> = m
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(|s| s.as_str().map(String::from)).collect())
                .unwrap_or_default();
            if let Some(Value::Object(props)) = m.get_mut("properties") {
                for (key, schema) in props.iter_mut().filter(|(k, _)| !required.contains(k)) {
                    drop_null(schema).unwrap_or_else(|| panic!("optional field {key} has a non-null type"));
                }
            }
            m.values_mut().for_each(absent_is_not_null);
        }
        Value::Array(a) => a.iter_mut().for_each(absent_is_not_null),
        _ => {}
    }
}

/// `["T", "null"]` → `"T"`, `anyOf: [X, {type: null}]` → X; `None` when nothing non-null is left.
fn drop_null(schema: &mut Value) -> Option<()> {
    if let Some(Value::Array(types)) = schema.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let one = types[0].clone();
            schema["type"] = one;
        }
        return (!schema["type"].as_array().is_some_and(Vec::is_empty)).then_some(());
    }
    if let Some(Value::Array(alts)) = schema.get("anyOf") {
        let rest: Vec<Value> = alts.iter().filter(|a| a.get("type") != Some(&Value::from("null"))).cloned().collect();
        let description = schema.get("description").cloned();
        match rest.len() {
            0 => return None,
            1 => {
                *schema = rest[0].clone();
                if let (Some(d), Value::Object(m)) = (description, &mut *schema) {
                    m.entry("description").or_insert(d);
                }
            }
            _ => schema["anyOf"] = Value::Array(rest),
        }
    }
    Some(())
}

/// `#/$defs/NodeClaimOut` → `#/$defs/NodeClaim`, everywhere.
fn rename_refs(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get_mut("$ref") {
                if let Some(name) = r.strip_prefix("#/$defs/") {
                    *r = format!("#/$defs/{}", public_name(name));
                }
            }
            m.values_mut().for_each(rename_refs);
        }
        Value::Array(a) => a.iter_mut().for_each(rename_refs),
        _ => {}
    }
}

/// The schema as the checked-in file holds it: pretty JSON and a final newline.
pub fn answers_schema_text() -> String {
    let mut s = serde_json::to_string_pretty(&answers_schema()).expect("a JSON value always serialises");
    s.push('\n');
    s
}
