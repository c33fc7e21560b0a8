//! A path-tracking reader over one decoded document.
//!
//! Lowering walks the JSON tree of each object through `At`, which knows its own field path
//! (as a chain of parent links on the stack, so nothing is allocated unless an error is
//! reported). Every wrong type, bad quantity or unknown enum value becomes an `InputError` with
//! the document index, the object and the exact path; lowering then carries on, so one pass
//! reports every problem.

use crate::error::InputError;
use crate::quantity::{parse_milli, QuantityError, QUANTITY_HELP};
use serde_json::Value;

#[derive(Clone, Copy)]
enum Seg<'a> {
    Root(&'a str),
    Field(&'a str),
    Index(usize),
}

/// A value and where it sits in its document.
#[derive(Clone, Copy)]
pub struct At<'a> {
    pub v: &'a Value,
    parent: Option<&'a At<'a>>,
    seg: Seg<'a>,
}

impl<'a> At<'a> {
    /// The root of an object; `prefix` is a path prefix such as `items[3]` (or empty).
    pub fn root(v: &'a Value, prefix: &'a str) -> At<'a> {
        At { v, parent: None, seg: Seg::Root(prefix) }
    }

    pub fn path(&self) -> String {
        let mut segs = Vec::new();
        let mut cur = Some(self);
        while let Some(a) = cur {
            segs.push(a.seg);
            cur = a.parent;
        }
        let mut s = String::new();
        for seg in segs.iter().rev() {
            match seg {
                Seg::Root(p) => s.push_str(p),
                Seg::Field(f) => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(f);
                }
                Seg::Index(i) => {
                    s.push('[');
                    s.push_str(&i.to_string());
                    s.push(']');
                }
            }
        }
        s
    }

    /// A field, if present and not null.
    pub fn get(&'a self, name: &'a str) -> Option<At<'a>> {
        match self.v.get(name) {
            None | Some(Value::Null) => None,
            Some(v) => Some(At { v, parent: Some(self), seg: Seg::Field(name) }),
        }
    }

    pub fn index(&'a self, i: usize, v: &'a Value) -> At<'a> {
        At { v, parent: Some(self), seg: Seg::Index(i) }
    }

    pub fn field_at(&'a self, name: &'a str, v: &'a Value) -> At<'a> {
        At { v, parent: Some(self), seg: Seg::Field(name) }
    }
}

/// Collects errors for one object.
pub struct Sink<'e> {
    pub document: usize,
    /// The object's `Kind/[namespace/]name`, formatted only when an error names it: formatting
    /// it for every object was a tenth of lowering 20,000 pods.
    pub object: &'e dyn Fn() -> String,
    pub errors: &'e mut Vec<InputError>,
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

impl Sink<'_> {
    pub fn error(&mut self, at: &At, code: &str, message: impl Into<String>, help: impl Into<String>) {
        let help: String = help.into();
        let mut e = InputError::new(code, message).at_document(self.document).object((self.object)());
        let path = at.path();
        if !path.is_empty() {
            e = e.path(path);
        }
        if !help.is_empty() {
            e = e.help(help);
        }
        self.errors.push(e);
    }

    /// An error of nodecast's own bounds (README "Bounds"): unusable input, not invalid.
    pub fn limit(&mut self, at: &At, code: &str, message: impl Into<String>, help: impl Into<String>) {
        self.error(at, code, message, help);
        if let Some(e) = self.errors.last_mut() {
            e.kind = crate::error::ErrorKind::Limit;
        }
    }

    pub fn wrong_type(&mut self, at: &At, expected: &str) {
        let msg = format!("expected {expected}, got {}", type_name(at.v));
        self.error(at, "wrong-type", msg, expected.to_string());
    }

    /// A string-like scalar. Numbers and booleans are accepted and printed back, because YAML
    /// turns unquoted `5` or `true` into non-strings and Kubernetes users write those freely.
    pub fn scalar(&mut self, at: &At) -> Option<String> {
        match at.v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => {
                self.wrong_type(at, "a string");
                None
            }
        }
    }

    pub fn opt_scalar(&mut self, parent: &At, name: &str) -> Option<String> {
        let at = parent.get(name)?;
        self.scalar(&at)
    }

    pub fn int(&mut self, at: &At, expected: &str) -> Option<i64> {
        match at.v {
            // Not a string holding digits: the apiserver decodes integer fields strictly and
            // refuses `replicas: "3"` (cannot unmarshal string into an int32 field).
            Value::Number(n) if n.as_i64().is_some() => n.as_i64(),
            _ => {
                self.wrong_type(at, expected);
                None
            }
        }
    }

    /// An integer the apiserver bounds (int32 fields, ports, weights): out of `lo..=hi` is a
    /// located `out-of-range` error, never a silent truncation to the field's Go type.
    pub fn int_in(&mut self, at: &At, lo: i64, hi: i64, expected: &str) -> Option<i64> {
        let n = self.int(at, expected)?;
        if !(lo..=hi).contains(&n) {
            self.error(at, "out-of-range", format!("{n} is out of range: must be between {lo} and {hi}, inclusive"), expected.to_string());
            return None;
        }
        Some(n)
    }

    pub fn opt_int(&mut self, parent: &At, name: &str, expected: &str) -> Option<i64> {
        let at = parent.get(name)?;
        self.int(&at, expected)
    }

    pub fn bool(&mut self, at: &At) -> Option<bool> {
        match at.v {
            Value::Bool(b) => Some(*b),
            Value::String(s) if s == "true" || s == "false" => Some(s == "true"),
            _ => {
                self.wrong_type(at, "true or false");
                None
            }
        }
    }

    pub fn f64(&mut self, at: &At, expected: &str) -> Option<f64> {
        let v = match at.v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        };
        match v {
            Some(x) if x.is_finite() => Some(x),
            _ => {
                let msg = format!("expected {expected}, got {}", render_short(at.v));
                self.error(at, "invalid-number", msg, expected.to_string());
                None
            }
        }
    }

    /// A Kubernetes quantity in milli-units; negative values are rejected (`what` names the field).
    pub fn quantity(&mut self, at: &At) -> Option<i64> {
        let text: std::borrow::Cow<str> = match at.v {
            Value::String(s) => s.as_str().into(),
            Value::Number(n) => n.to_string().into(),
            _ => {
                self.wrong_type(at, "a quantity string");
                return None;
            }
        };
        if let Some(v) = quantity_milli(&text) {
            return Some(v);
        }
        match parse_milli(&text) {
            Ok(v) if v < 0 => {
                self.error(at, "invalid-quantity", format!("quantity {text:?} is negative"), "a non-negative quantity");
                None
            }
            Ok(v) => Some(v),
            // Kubernetes accepts a quantity of any magnitude (binary-SI ones capped at 2^63−1
            // units, decimal ones exact; `ParseQuantity` in apimachinery), so the benchmark's
            // `memory: 10000000Gi` limit is valid. Milli-units in an i64 end at about 9.2e15
            // units (8 PiB of memory, 9.2e15 cores); beyond that the value is held as that
            // maximum, which no sum of a plan reaches: a request that large fits nothing, an
            // allocatable or a limit that large bounds nothing, as with the exact value.
            Err(QuantityError::TooLarge(_)) if !text.trim_start().starts_with('-') => Some(i64::MAX),
            Err(QuantityError::TooLarge(_)) => {
                self.error(at, "invalid-quantity", format!("quantity {text:?} is negative"), "a non-negative quantity");
                None
            }
            Err(e) => {
                self.error(at, "invalid-quantity", e.to_string(), QUANTITY_HELP);
                None
            }
        }
    }

    /// Iterate a list field; a non-list is reported and yields nothing.
    pub fn list<'a>(&mut self, at: &'a At<'a>) -> Vec<At<'a>> {
        match at.v {
            Value::Array(items) => items.iter().enumerate().map(|(i, v)| at.index(i, v)).collect(),
            _ => {
                self.wrong_type(at, "a list");
                Vec::new()
            }
        }
    }

    /// Iterate a mapping field as (key, child); a non-mapping is reported and yields nothing.
    pub fn map<'a>(&mut self, at: &'a At<'a>) -> Vec<(&'a str, At<'a>)> {
        match at.v {
            Value::Object(m) => m.iter().map(|(k, v)| (k.as_str(), at.field_at(k.as_str(), v))).collect(),
            _ => {
                self.wrong_type(at, "a mapping");
                Vec::new()
            }
        }
    }

    /// A mapping of string to string-like scalars (labels, annotations, nodeSelector).
    pub fn string_map(&mut self, at: &At) -> Vec<(String, String)> {
        let mut out = Vec::new();
        match at.v {
            Value::Object(m) => {
                for (k, v) in m {
                    let child = at.field_at(k, v);
                    if let Some(s) = self.scalar(&child) {
                        out.push((k.clone(), s));
                    }
                }
            }
            _ => self.wrong_type(at, "a mapping of strings"),
        }
        out
    }

    pub fn string_list(&mut self, at: &At) -> Vec<String> {
        match at.v {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    let child = at.index(i, v);
                    self.scalar(&child)
                })
                .collect(),
            _ => {
                self.wrong_type(at, "a list of strings");
                Vec::new()
            }
        }
    }
}

/// A quantity's text in milli-units as [`Sink::quantity`] takes it; `None` where that reports
/// an error. Shared with the typed Pod path (`lower::typed_pod`), which must take exactly the
/// quantities the tree way takes.
pub fn quantity_milli(text: &str) -> Option<i64> {
    match parse_milli(text) {
        Ok(v) if v < 0 => None,
        Ok(v) => Some(v),
        // Beyond an i64 of milli-units: held as the maximum (see `Sink::quantity`).
        Err(QuantityError::TooLarge(_)) if !text.trim_start().starts_with('-') => Some(i64::MAX),
        Err(_) => None,
    }
}

/// A short rendering of a value for messages.
pub fn render_short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 60 {
        format!("{}...", &s[..s.char_indices().nth(57).map(|(i, _)| i).unwrap_or(s.len())])
    } else {
        s
    }
}
