//! NodePool and EC2NodeClass validation (`spec/validation.md`).
//!
//! Both layers of the real system are reported in one pass:
//! - **admission** rules (OpenAPI keywords + CEL of the CRDs: NP-*, EC-*) — the API server would
//!   reject the object;
//! - **runtime** rules (`RuntimeValidate`: RT-*, and the EC2NodeClass kubelet checks KC-*) — the
//!   object is stored but its `ValidationSucceeded` condition is false, so it never becomes Ready.
//!
//! The layer is visible in every error: `help` starts with `rejected at admission; ` or
//! `fails at runtime (NodePool not Ready); ` (`(EC2NodeClass not Ready)` for KC-*), and the
//! message ends with the rule ID in parentheses. When one fact breaks an admission rule and the
//! matching runtime rule (NP-23/RT-01, NP-21/RT-03, NP-38/RT-06g, ...), only the admission error
//! is reported.
//!
//! Not implemented: the transition rules NP-03 (static/dynamic switch), NP-55 and NP-56
//! (`nodeClassRef.group`/`kind` immutable) — they compare with the previously stored object,
//! which a single-document validator does not have.
//!
//! Paths use `.field`, `[index]` for list items and `[key]` for map entries
//! (`spec.template.metadata.labels[kubernetes.io/arch]`). Absent and `null` are the same (the API
//! server prunes nulls before validating). Only known fields are walked, so hostile nesting cannot
//! make the walk recurse without bound, and nothing here panics on unexpected types: a value of
//! the wrong JSON type yields a `wrong-type` error and its subtree is skipped.

use crate::error::{ErrorKind, InputError};
use serde_json::{Map, Value};

mod ec2nodeclass;
mod eks_nodeclass;
mod fields;
pub use eks_nodeclass::ephemeral_bytes;
pub use fields::{unknown_in_pod_template, Unknown};
mod kubelet;
mod labels;
mod nodepool;
mod patterns;
mod required;
pub use required::check as required_fields;
mod requirements;
mod selectors;
mod taints;
#[cfg(test)]
mod tests;

/// Which provider's CRD variant applies (AWS adds the karpenter.k8s.aws allow-list rules NP-25/NP-35 and AWS well-known labels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Provider {
    #[default]
    Aws,
    /// The core CRDs alone: every front end validates with the AWS variant; the validation
    /// tests check that the AWS-only rules stay out of this one.
    #[cfg_attr(not(test), allow(dead_code))]
    Core,
}

/// Validate one decoded document. `document` is its 0-based index in the input stream. Every kind nodecast has the schema of is checked for unknown fields (`fields`, SF-01); NodePools and NodeClasses also against their rules; other kinds return an empty Vec.
/// Every returned error has document, object (`NodePool/<name>` or `EC2NodeClass/<name>`), path (e.g. `spec.template.spec.requirements[1].operator`, `spec.disruption.budgets[0].nodes`), a stable kebab-case code, the spec's error message text, and help (what would be accepted).
#[cfg(test)]
pub fn validate_document(document: usize, value: &serde_json::Value, provider: Provider) -> Vec<InputError> {
    validate_layered(document, value, provider).into_iter().map(|(_, e)| e).collect()
}

/// [`validate_document`] with each error's [`Layer`]: what the caller does with a finding (reject
/// the input, skip a NodePool, block disruption) is decided by the layer, never by the words.
pub fn validate_layered(document: usize, value: &serde_json::Value, provider: Provider) -> Vec<(Layer, InputError)> {
    let Some(root) = value.as_object() else {
        return Vec::new();
    };
    let kind = root.get("kind").and_then(Value::as_str);
    // The rules are v1's; an object of another version is refused by lowering as not served.
    let group = root.get("apiVersion").and_then(Value::as_str).and_then(|a| a.split_once('/')).filter(|(_, v)| *v == "v1").map(|(g, _)| g);
    let name = root.get("metadata").and_then(|m| m.get("name")).and_then(Value::as_str).unwrap_or("");
    let mut errors = unknown_fields(document, root, kind, name);
    errors.extend(rules(document, root, kind, group, name, provider));
    errors
}

/// SF-01 for every kind nodecast has the schema of (`fields`).
fn unknown_fields(document: usize, root: &Map<String, Value>, kind: Option<&str>, name: &str) -> Vec<(Layer, InputError)> {
    let (Some(kind), Some(api)) = (kind, root.get("apiVersion").and_then(Value::as_str)) else {
        return Vec::new();
    };
    let found = fields::unknown_in(api, kind, root);
    if found.is_empty() {
        return Vec::new();
    }
    let namespace = root.get("metadata").and_then(|m| m.get("namespace")).and_then(Value::as_str);
    let object = match namespace {
        Some(ns) => format!("{kind}/{ns}/{name}"),
        None => format!("{kind}/{name}"),
    };
    // An object read back from an API server (it set the UID or resource version) was taken by
    // it: what it has that the schema lacks is a newer server's, not a misspelling.
    let meta = root.get("metadata");
    let stored = ["uid", "resourceVersion"].iter().any(|k| meta.and_then(|m| m.get(*k)).is_some_and(|v| !v.is_null()));
    let layer = if stored { Layer::Stored } else { Layer::Admission };
    let mut cx = Ctx::new(document, object);
    for u in found {
        let message = if stored {
            format!("unknown field {} (SF-01): an API server stored it, so it is a newer Kubernetes' field; read without it, as Karpenter v1.15 decodes it", q(&u.path))
        } else {
            fields::Unknown::message(&u.path)
        };
        cx.push(layer, "unknown-field", &u.path, message, &u.help);
    }
    cx.errors
}

/// The rules of NodePools and NodeClasses.
fn rules(
    document: usize,
    root: &Map<String, Value>,
    kind: Option<&str>,
    group: Option<&str>,
    name: &str,
    provider: Provider,
) -> Vec<(Layer, InputError)> {
    match (kind, group) {
        (Some("NodePool"), Some("karpenter.sh")) => {
            let mut cx = Ctx::new(document, format!("NodePool/{name}"));
            nodepool::validate(&mut cx, root, provider);
            cx.errors
        }
        (Some("EC2NodeClass"), Some("karpenter.k8s.aws")) => {
            let mut cx = Ctx::new(document, format!("EC2NodeClass/{name}"));
            ec2nodeclass::validate(&mut cx, root);
            cx.errors
        }
        (Some("NodeClass"), Some("eks.amazonaws.com")) => {
            let mut cx = Ctx::new(document, format!("NodeClass/{name}"));
            eks_nodeclass::validate(&mut cx, root);
            cx.errors
        }
        _ => Vec::new(),
    }
}

/// Which layer a rule belongs to: what Kubernetes and Karpenter do with a finding, and the `help`
/// prefix that says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Layer {
    /// OpenAPI / CEL in the CRD: the API server rejects the object.
    Admission,
    /// `NodePool.RuntimeValidate` (RT-*) and duration decoding.
    NodePoolRuntime,
    /// EC2NodeClass `spec.kubelet` checks (KC-*).
    NodeClassRuntime,
    /// A budget schedule that the cron parser rejects: the pool's disruptions are blocked.
    BudgetRuntime,
    /// A field an API server stored that Kubernetes 1.36 (or Karpenter v1.15's CRD) lacks
    /// (SF-01 on an object read back from a cluster: `metadata.uid` or `resourceVersion` set).
    /// The server took it, so it is a newer version's field, not a typo: a warning, and the
    /// object is read without it, as Karpenter v1.15 (built on k8s.io/api v0.36) decodes it.
    Stored,
}

impl Layer {
    fn prefix(self) -> &'static str {
        match self {
            Layer::Admission => "rejected at admission; ",
            Layer::NodePoolRuntime => "fails at runtime (NodePool not Ready); ",
            Layer::NodeClassRuntime => "fails at runtime (EC2NodeClass not Ready); ",
            Layer::BudgetRuntime => "fails at runtime (the NodePool allows no disruptions at all); ",
            Layer::Stored => "a warning (the object was stored by a newer API server); ",
        }
    }
}

/// Error collector for one object.
pub(crate) struct Ctx {
    document: usize,
    object: String,
    pub(crate) errors: Vec<(Layer, InputError)>,
}

/// A field's value, treating `null` as absent.
pub(crate) fn get<'v>(m: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    m.get(key).filter(|v| !v.is_null())
}

/// Shows a user value inside a message: quoted, escaped, and cut to a sane length.
pub(crate) fn q(s: &str) -> String {
    const MAX: usize = 100;
    match s.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}...", quote(&s[..cut])),
        None => quote(s),
    }
}

/// Go-style `%q`: double quotes, with `"`, `\` and control characters escaped.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// JSON type name as the API server says it.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// An integer JSON value (also `5.0`), widened so that u64 values do not wrap.
pub(crate) fn as_int(v: &Value) -> Option<i128> {
    let n = v.as_number()?;
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    let f = n.as_f64()?;
    // Integral floats within i64 range are integers for the OpenAPI `integer` type.
    (f.fract() == 0.0 && f.abs() < 9.2e18).then_some(f as i128)
}

/// `"a", "b", "c"` — the API server's list of supported enum values.
pub(crate) fn quoted_list(items: &[&str]) -> String {
    items.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", ")
}

impl Ctx {
    fn new(document: usize, object: String) -> Self {
        Ctx { document, object, errors: Vec::new() }
    }

    /// Records one error. `message` must already end with the rule ID, `expected` says what is accepted.
    pub(crate) fn push(&mut self, layer: Layer, code: &str, path: &str, message: String, expected: &str) {
        self.errors.push((
            layer,
            InputError::new(code, message)
                .kind(if layer == Layer::Admission { ErrorKind::Admission } else { ErrorKind::Runtime })
                .help(format!("{}{expected}", layer.prefix()))
                .at_document(self.document)
                .object(self.object.clone())
                .path(path),
        ));
    }

    /// An admission error.
    pub(crate) fn adm(&mut self, code: &str, path: &str, message: String, expected: &str) {
        self.push(Layer::Admission, code, path, message, expected);
    }

    pub(crate) fn wrong_type(&mut self, path: &str, v: &Value, want: &str) {
        let msg = format!("Invalid value: \"{}\": {path} in body must be of type {want} (OpenAPI type)", type_name(v));
        self.adm("wrong-type", path, msg, &format!("a value of JSON type {want}"));
    }

    pub(crate) fn required(&mut self, path: &str, id: &str, expected: &str) {
        self.adm("required", path, format!("Required value ({id})"), expected);
    }

    /// OpenAPI `pattern` failure.
    pub(crate) fn pattern(&mut self, code: &str, path: &str, v: &str, regex: &str, id: &str, expected: &str) {
        let msg = format!("Invalid value: {}: {path} in body should match '{regex}' ({id})", q(v));
        self.adm(code, path, msg, expected);
    }

    /// OpenAPI `enum` failure.
    pub(crate) fn unsupported(&mut self, code: &str, path: &str, v: &str, allowed: &[&str], id: &str) {
        let list = quoted_list(allowed);
        let msg = format!("Unsupported value: {}: supported values: {list} ({id})", q(v));
        self.adm(code, path, msg, &format!("one of {list} (case-sensitive)"));
    }

    /// OpenAPI `minimum`/`maximum` check on an integer; returns whether it was in range.
    pub(crate) fn range(&mut self, path: &str, v: i128, min: Option<i128>, max: Option<i128>, id: &str) -> bool {
        let expected = match (min, max) {
            (Some(a), Some(b)) => format!("an integer from {a} to {b}"),
            (Some(a), None) => format!("an integer >= {a}"),
            (None, Some(b)) => format!("an integer <= {b}"),
            (None, None) => return true,
        };
        if let Some(a) = min.filter(|&a| v < a) {
            let msg = format!("Invalid value: {v}: {path} in body should be greater than or equal to {a} ({id})");
            self.adm("out-of-range", path, msg, &expected);
            return false;
        }
        if let Some(b) = max.filter(|&b| v > b) {
            let msg = format!("Invalid value: {v}: {path} in body should be less than or equal to {b} ({id})");
            self.adm("out-of-range", path, msg, &expected);
            return false;
        }
        true
    }

    /// OpenAPI `maxItems` / `maxProperties`.
    /// A list or map over its `maxItems`/`maxProperties` is reported once, and the caller
    /// examines none of its items (returns false): the apiserver refuses the object either way,
    /// and per-item checks would make a huge list cost time in proportion to its length times
    /// whatever each item's rules cost.
    #[must_use]
    pub(crate) fn max_items(&mut self, path: &str, n: usize, max: usize, id: &str, what: &str) -> bool {
        if n > max {
            let msg = format!("Too many: {n}: must have at most {max} items ({id})");
            self.adm("too-many-items", path, msg, &format!("at most {max} {what}"));
            return false;
        }
        true
    }

    // ---- typed access; each reports `wrong-type` and returns None on a mismatch ----

    pub(crate) fn obj<'v>(&mut self, v: Option<&'v Value>, path: &str) -> Option<&'v Map<String, Value>> {
        match v? {
            Value::Object(m) => Some(m),
            other => {
                self.wrong_type(path, other, "object");
                None
            }
        }
    }

    /// A list item: `null` is a type error here, not an absent value.
    pub(crate) fn item_obj<'v>(&mut self, v: &'v Value, path: &str) -> Option<&'v Map<String, Value>> {
        match v {
            Value::Object(m) => Some(m),
            other => {
                self.wrong_type(path, other, "object");
                None
            }
        }
    }

    pub(crate) fn item_str<'v>(&mut self, v: &'v Value, path: &str) -> Option<&'v str> {
        match v {
            Value::String(s) => Some(s),
            other => {
                self.wrong_type(path, other, "string");
                None
            }
        }
    }

    pub(crate) fn str_<'v>(&mut self, v: Option<&'v Value>, path: &str) -> Option<&'v str> {
        self.item_str(v?, path)
    }

    pub(crate) fn arr<'v>(&mut self, v: Option<&'v Value>, path: &str) -> Option<&'v Vec<Value>> {
        match v? {
            Value::Array(a) => Some(a),
            other => {
                self.wrong_type(path, other, "array");
                None
            }
        }
    }

    pub(crate) fn int(&mut self, v: Option<&Value>, path: &str) -> Option<i128> {
        let v = v?;
        let i = as_int(v);
        if i.is_none() {
            self.wrong_type(path, v, "integer");
        }
        i
    }

    pub(crate) fn bool_(&mut self, v: Option<&Value>, path: &str) -> Option<bool> {
        match v? {
            Value::Bool(b) => Some(*b),
            other => {
                self.wrong_type(path, other, "boolean");
                None
            }
        }
    }

    /// A string enum field; returns the value only when it is one of `allowed`.
    pub(crate) fn enum_field<'v>(&mut self, v: Option<&'v Value>, path: &str, allowed: &[&str], id: &str) -> Option<&'v str> {
        let s = self.str_(v, path)?;
        if allowed.contains(&s) {
            Some(s)
        } else {
            self.unsupported("unsupported-value", path, s, allowed, id);
            None
        }
    }

    /// A map whose values must all be strings (labels, annotations, tags).
    pub(crate) fn str_map<'v>(&mut self, v: Option<&'v Value>, path: &str) -> Vec<(&'v str, &'v str)> {
        let Some(m) = self.obj(v, path) else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(m.len());
        for (k, v) in m {
            if let Some(s) = self.item_str(v, &format!("{path}[{k}]")) {
                out.push((k.as_str(), s));
            }
        }
        out
    }
}
