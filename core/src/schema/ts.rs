//! TypeScript declarations from the answers' JSON Schema: one `export` per definition, an
//! `interface` for an object with named fields, a `type` for everything else. It reads only the
//! subset of JSON Schema that schemars writes for serde types (`$ref`, `const`, `enum`,
//! `oneOf`/`anyOf`/`allOf`, `type` lists, `properties`/`required`, `additionalProperties`,
//! `items`/`prefixItems`), and fails loudly on anything else, so a new kind of field cannot
//! silently become `unknown`.

use serde_json::{Map, Value};
use std::fmt::Write;

/// The declarations for every `$defs` entry of `schema`, sorted by name, in one module text.
pub fn typescript(schema: &Value) -> String {
    let mut out = String::from(
        "// Generated from the Rust answer types by `make schema` (core/src/schema): do not edit.\n\
         // The same definitions as schema/answers.schema.json (`apiVersion: nodecast/v1`).\n",
    );
    let defs = schema.get("$defs").and_then(Value::as_object).expect("the answers schema has $defs");
    for (name, def) in defs {
        out.push('\n');
        doc(&mut out, "", def.get("description"));
        let def = def.as_object().expect("a definition is an object");
        if is_plain_object(def) {
            let _ = writeln!(out, "export interface {name} {{");
            fields(&mut out, "  ", def);
            out.push_str("}\n");
        } else {
            let _ = writeln!(out, "export type {name} = {};", expr(def));
        }
    }
    out
}

/// An object with named fields and nothing else: an `interface`.
fn is_plain_object(def: &Map<String, Value>) -> bool {
    def.get("type") == Some(&Value::from("object"))
        && def.contains_key("properties")
        && !def.contains_key("allOf")
        && !def.contains_key("oneOf")
        && !def.contains_key("anyOf")
        && def.get("additionalProperties").is_none_or(|a| a == &Value::Bool(false))
}

fn fields(out: &mut String, indent: &str, def: &Map<String, Value>) {
    let required: Vec<&str> =
        def.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let props = def.get("properties").and_then(Value::as_object).expect("an object with properties");
    for (field, schema) in props {
        doc(out, indent, schema.get("description"));
        let optional = if required.contains(&field.as_str()) { "" } else { "?" };
        let _ = writeln!(out, "{indent}{field}{optional}: {};", expr_of(schema));
    }
}

fn doc(out: &mut String, indent: &str, description: Option<&Value>) {
    let Some(text) = description.and_then(Value::as_str) else { return };
    let text = text.replace("*/", "*\\/");
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() == 1 {
        let _ = writeln!(out, "{indent}/** {} */", lines[0]);
    } else {
        let _ = writeln!(out, "{indent}/**");
        for l in lines {
            let _ = writeln!(out, "{indent} *{}{l}", if l.is_empty() { "" } else { " " });
        }
        let _ = writeln!(out, "{indent} */");
    }
}

fn expr_of(schema: &Value) -> String {
    match schema {
        Value::Bool(true) => "unknown".into(),
        Value::Object(m) => expr(m),
        other => panic!("unsupported schema {other}"),
    }
}

/// The TypeScript type of one schema.
fn expr(m: &Map<String, Value>) -> String {
    if let Some(r) = m.get("$ref").and_then(Value::as_str) {
        return r.strip_prefix("#/$defs/").expect("local references only").to_string();
    }
    if let Some(c) = m.get("const") {
        return literal(c);
    }
    if let Some(values) = m.get("enum").and_then(Value::as_array) {
        return values.iter().map(literal).collect::<Vec<_>>().join(" | ");
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(alts) = m.get(key).and_then(Value::as_array) {
            let own = own_object(m);
            let union = alts.iter().map(|a| paren(expr_of(a))).collect::<Vec<_>>().join(" | ");
            return match own {
                Some(o) => format!("{o} & ({union})"),
                None => union,
            };
        }
    }
    if let Some(parts) = m.get("allOf").and_then(Value::as_array) {
        let mut all: Vec<String> = parts.iter().map(|p| paren(expr_of(p))).collect();
        all.extend(own_object(m));
        return all.join(" & ");
    }
    match m.get("type") {
        Some(Value::Array(types)) => types
            .iter()
            .map(|t| {
                let mut one = m.clone();
                one.insert("type".into(), t.clone());
                paren(expr(&one))
            })
            .collect::<Vec<_>>()
            .join(" | "),
        Some(Value::String(t)) => match t.as_str() {
            "string" => "string".into(),
            "integer" | "number" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "array" => array(m),
            "object" => object(m),
            other => panic!("unsupported JSON Schema type {other}"),
        },
        Some(other) => panic!("unsupported JSON Schema type {other}"),
        None if m.keys().all(|k| k == "description" || k == "title") => "unknown".into(),
        None => panic!("unsupported schema {}", Value::Object(m.clone())),
    }
}

/// The fields a schema with `allOf`/`oneOf` adds itself, as an inline object type.
fn own_object(m: &Map<String, Value>) -> Option<String> {
    m.get("properties")?;
    let mut own = m.clone();
    for k in ["allOf", "oneOf", "anyOf"] {
        own.remove(k);
    }
    own.insert("type".into(), "object".into());
    Some(object(&own))
}

fn array(m: &Map<String, Value>) -> String {
    if let Some(items) = m.get("prefixItems").and_then(Value::as_array) {
        return format!("[{}]", items.iter().map(expr_of).collect::<Vec<_>>().join(", "));
    }
    match m.get("items") {
        Some(items) => format!("{}[]", paren(expr_of(items))),
        None => "unknown[]".into(),
    }
}

fn object(m: &Map<String, Value>) -> String {
    if m.contains_key("properties") {
        let mut s = String::from("{\n");
        fields(&mut s, "  ", m);
        // Inline objects are one level deep in practice; flatten their layout to one line.
        let inner: Vec<String> = s.lines().skip(1).map(|l| l.trim().to_string()).filter(|l| !l.starts_with("/**")).collect();
        return format!("{{ {} }}", inner.join(" "));
    }
    match m.get("additionalProperties") {
        Some(Value::Bool(false)) => "Record<string, never>".into(),
        Some(v @ Value::Object(_)) => format!("Record<string, {}>", expr_of(v)),
        _ => "{ [key: string]: unknown }".into(),
    }
}

fn literal(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
        other => other.to_string(),
    }
}

/// Parentheses around a union or intersection, so `T[]` and `A & (B | C)` mean what they say.
fn paren(s: String) -> String {
    if s.contains(" | ") || s.contains(" & ") {
        format!("({s})")
    } else {
        s
    }
}
