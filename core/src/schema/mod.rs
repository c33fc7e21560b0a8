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
pub mod vocab;

use schemars::generate::SchemaSettings;
use serde_json::{json, Map, Value};

pub use ts::typescript;

/// Every answer: its `kind`, the facade functions that give it, and its body's definition.
/// The body of a failure is `errors` (the same for every kind).
pub const ANSWERS: [(&str, &str); 7] = [
    ("Plan", "Plan"),
    ("Decision", "Decision"),
    ("Explanation", "Explanation"),
    ("Validation", "ValidationReport"),
    ("CatalogQuery", "CatalogAnswer"),
    ("Simulation", "Simulation"),
    ("Optimization", "Optimization"),
];

/// The public names of answer types whose Rust names say how they are built (`...Out`).
/// The schema's `$defs` and the TypeScript declarations use the public name.
const RENAMES: [(&str, &str); 13] = [
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
    ("SimSettings", "SimulationSettings"),
    ("Action", "DecisionAction"),
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
    let mut defs: Map<String, Value> = Map::new();
    for (name, schema) in generator.take_definitions(true) {
        defs.insert(public_name(&name).to_string(), schema);
    }
    let mut defs = Value::Object(defs);
    rename_refs(&mut defs);
    let Value::Object(mut defs) = defs else { unreachable!("built as an object") };

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
        properties["errors"] = json!({"type": "array", "items": {"$ref": "#/$defs/InputError"}});
        defs.insert(
            format!("{kind}Failure"),
            json!({
                "description": "No answer: every problem found, located.",
                "type": "object",
                "properties": properties,
                "required": ["apiVersion", "kind", "status", "errors"],
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
