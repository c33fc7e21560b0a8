//! The sweep specification (`kind: Sweep`), read from its decoded mapping with every error
//! located at its field path in the spec. The same document serves the CLI (`nodecast sweep
//! SWEEP.yaml`, where inputs and traces are file paths the CLI reads) and Python (which passes
//! texts and objects inline).

use crate::edit::{self, FieldPath};
use crate::error::InputError;
use crate::json::Input;
use crate::model::Settings;
use crate::simulate::TraceInput;
use indexmap::IndexMap;
use serde_json::{Map, Value};

/// Most combinations one sweep may expand to: a bound on the rows kept in memory (a row is
/// about a kilobyte), far above the thousands a capacity question needs.
pub const MAX_COMBINATIONS: u64 = 1_000_000;

/// At most this many entries in the catalog axis (`catalog: [...]`).
pub const MAX_CATALOGS: usize = 256;

/// Which nodecast function every combination of a sweep runs (the spec's `operation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// One provisioning pass per combination (`plan`).
    Plan,
    /// One disruption decision per combination at the spec's `now` (`consolidate`).
    Consolidate,
    /// One trace replay per combination, trace and seed (`simulate`).
    Simulate,
}

impl Operation {
    /// The wire name: `plan`, `consolidate` or `simulate`.
    pub fn name(self) -> &'static str {
        match self {
            Operation::Plan => "plan",
            Operation::Consolidate => "consolidate",
            Operation::Simulate => "simulate",
        }
    }
}

/// What an edit changes: one document of the inputs, or the simulation settings.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Object { kind: String, namespace: Option<String>, name: String },
    Simulation,
}

impl Target {
    pub fn describe(&self) -> String {
        match self {
            Target::Object { kind, namespace: Some(ns), name } => format!("{kind}/{ns}/{name}"),
            Target::Object { kind, namespace: None, name } => format!("{kind}/{name}"),
            Target::Simulation => "simulation".into(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Edit {
    pub target: Target,
    pub path: FieldPath,
    pub value: Value,
    /// Where the edit sits in the spec (`variants[1].edits[0]`), for errors.
    pub at: String,
}

#[derive(Debug, Clone)]
pub struct VariantSpec {
    pub name: String,
    /// Documents that replace the base document of the same kind, namespace and name, or are
    /// added when there is none.
    pub inputs: Vec<Input>,
    pub objects: Vec<Value>,
    pub edits: Vec<Edit>,
}

/// One grid dimension: every value is tried with every value of the other dimensions.
#[derive(Debug, Clone)]
pub struct Axis {
    /// The column name in the result table.
    pub name: String,
    pub target: Target,
    pub path: FieldPath,
    pub values: Vec<Value>,
    /// The cell shown for each value (its label, or the value itself).
    pub cells: Vec<Value>,
}

/// One value of the catalog axis (`catalog: [...]`): the request's catalog for its
/// combinations, the cell shown in the `catalog` column, and documents only its combinations get
/// (that region's price, offering and reservation documents).
#[derive(Debug, Clone)]
pub struct CatalogEntry {
    pub catalog: Value,
    pub cell: Value,
    pub inputs: Vec<Input>,
    pub objects: Vec<Value>,
    /// Where the entry sits in the spec (`catalog[1]`), for errors.
    pub at: String,
    /// Where its catalog sits (`catalog[1]`, or `catalog[1].catalog` in the `{catalog, ...}` form).
    pub catalog_at: String,
}

#[derive(Debug, Clone)]
pub struct Spec {
    pub source: Option<String>,
    pub operation: Operation,
    pub inputs: Vec<Input>,
    pub objects: Vec<Value>,
    /// The one catalog of every combination (`catalog: aws-eu-west-1`); `None` with an axis.
    pub catalog: Option<Value>,
    /// The catalog axis (`catalog: [aws-us-east-1, aws-eu-west-1]`); empty without one.
    pub catalogs: Vec<CatalogEntry>,
    pub settings: Settings,
    pub now: Option<String>,
    /// The base `simulation` settings mapping; grid edits of `target: simulation` apply to it.
    pub simulation: Map<String, Value>,
    pub traces: Vec<TraceInput>,
    pub seeds: Vec<u64>,
    pub variants: Vec<VariantSpec>,
    pub grid: Vec<Axis>,
}

struct Reader<'a> {
    source: Option<&'a str>,
    files: &'a IndexMap<String, String>,
    errors: Vec<InputError>,
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

impl Reader<'_> {
    fn error(&mut self, path: &str, code: &str, message: impl Into<String>, help: &str) {
        let mut e = InputError::new(code, message).object("Sweep");
        e.source = self.source.map(str::to_string);
        if !path.is_empty() {
            e = e.path(path);
        }
        if !help.is_empty() {
            e = e.help(help);
        }
        self.errors.push(e);
    }

    fn wrong_type(&mut self, path: &str, v: &Value, expected: &str) {
        self.error(path, "wrong-type", format!("expected {expected}, got {}", type_name(v)), expected);
    }

    fn string(&mut self, path: &str, v: &Value) -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            other => {
                self.wrong_type(path, other, "a string");
                None
            }
        }
    }

    fn list<'v>(&mut self, path: &str, v: Option<&'v Value>) -> &'v [Value] {
        match v {
            None | Some(Value::Null) => &[],
            Some(Value::Array(a)) => a,
            Some(other) => {
                self.wrong_type(path, other, "a list");
                &[]
            }
        }
    }

    fn text_of(&mut self, path: &str, file: &str) -> Option<String> {
        match self.files.get(file) {
            Some(t) => Some(t.clone()),
            None => {
                self.error(
                    path,
                    "file-not-read",
                    format!("{file} was not read"),
                    "front ends read every path sweep::referenced_files lists",
                );
                None
            }
        }
    }

    /// `inputs`: file paths or `{name, text}` mappings.
    fn inputs(&mut self, path: &str, v: Option<&Value>) -> Vec<Input> {
        let mut out = Vec::new();
        for (i, item) in self.list(path, v).iter().enumerate() {
            let at = format!("{path}[{i}]");
            match item {
                Value::String(file) => {
                    if let Some(text) = self.text_of(&at, file) {
                        out.push(Input { name: Some(file.clone()), text });
                    }
                }
                Value::Object(_) => match serde_json::from_value::<Input>(item.clone()) {
                    Ok(input) => out.push(input),
                    Err(e) => self.error(&at, "invalid-input", format!("not an input: {e}"), "a file path or {name, text}"),
                },
                other => self.wrong_type(&at, other, "a file path or {name, text}"),
            }
        }
        out
    }

    fn objects(&mut self, path: &str, v: Option<&Value>) -> Vec<Value> {
        self.list(path, v).to_vec()
    }

    fn target(&mut self, path: &str, v: Option<&Value>) -> Option<Target> {
        let help = "Kind/name, Kind/namespace/name (a document of the inputs) or simulation";
        let Some(v) = v else {
            self.error(path, "required", "an edit needs a target", help);
            return None;
        };
        let s = self.string(path, v)?;
        if s == "simulation" {
            return Some(Target::Simulation);
        }
        let parts: Vec<&str> = s.split('/').collect();
        match parts.as_slice() {
            [kind, name] if !kind.is_empty() && !name.is_empty() => {
                Some(Target::Object { kind: kind.to_string(), namespace: None, name: name.to_string() })
            }
            [kind, ns, name] if !kind.is_empty() && !ns.is_empty() && !name.is_empty() => {
                Some(Target::Object { kind: kind.to_string(), namespace: Some(ns.to_string()), name: name.to_string() })
            }
            _ => {
                self.error(path, "invalid-target", format!("{s:?} names no document"), help);
                None
            }
        }
    }

    fn path(&mut self, at: &str, v: Option<&Value>) -> Option<FieldPath> {
        let Some(v) = v else {
            self.error(at, "required", "an edit needs a path", edit::PATH_HELP);
            return None;
        };
        let s = self.string(at, v)?;
        match edit::parse(&s) {
            Ok(p) => Some(p),
            Err(msg) => {
                self.error(at, "invalid-path", format!("{s:?}: {msg}"), edit::PATH_HELP);
                None
            }
        }
    }

    fn only_fields(&mut self, path: &str, map: &Map<String, Value>, allowed: &[&str]) {
        for k in map.keys() {
            if !allowed.contains(&k.as_str()) {
                let at = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                self.error(&at, "unknown-field", format!("unknown field {k:?}"), &allowed.join(", "));
            }
        }
    }

    fn mapping<'v>(&mut self, path: &str, v: &'v Value) -> Option<&'v Map<String, Value>> {
        match v {
            Value::Object(m) => Some(m),
            other => {
                self.wrong_type(path, other, "a mapping");
                None
            }
        }
    }
}

/// Read a decoded spec. `files` holds the texts of the paths it names (see
/// [`super::referenced_files`]).
pub fn read(root: &Value, source: Option<&str>, files: &IndexMap<String, String>) -> Result<Spec, Vec<InputError>> {
    let mut r = Reader { source, files, errors: Vec::new() };
    let Some(map) = r.mapping("", root) else {
        return Err(r.errors);
    };
    const FIELDS: [&str; 15] = [
        "apiVersion",
        "kind",
        "operation",
        "inputs",
        "objects",
        "catalog",
        "settings",
        "now",
        "simulation",
        "traces",
        "seeds",
        "variants",
        "grid",
        "name",
        "description",
    ];
    r.only_fields("", map, &FIELDS);
    if let Some(v) = map.get("apiVersion") {
        if v != "nodecast/v1" {
            r.error("apiVersion", "invalid-value", format!("apiVersion {v} is not nodecast/v1"), "nodecast/v1");
        }
    }
    if let Some(v) = map.get("kind") {
        if v != "Sweep" {
            r.error("kind", "invalid-value", format!("kind {v} is not Sweep"), "Sweep");
        }
    }
    let operation = match map.get("operation").and_then(Value::as_str) {
        Some("plan") => Some(Operation::Plan),
        Some("consolidate") => Some(Operation::Consolidate),
        Some("simulate") => Some(Operation::Simulate),
        _ => {
            r.error("operation", "invalid-value", "operation must be plan, consolidate or simulate", "plan, consolidate or simulate");
            None
        }
    };
    let inputs = r.inputs("inputs", map.get("inputs"));
    let objects = r.objects("objects", map.get("objects"));
    let (catalog, catalogs) = match map.get("catalog") {
        Some(Value::Array(list)) => (None, catalog_axis(&mut r, list)),
        other => (other.filter(|v| !v.is_null()).cloned(), Vec::new()),
    };
    let settings = match map.get("settings") {
        None | Some(Value::Null) => Settings::default(),
        Some(v) => serde_json::from_value(v.clone()).unwrap_or_else(|e| {
            r.error(
                "settings",
                "invalid-settings",
                format!("{e}"),
                "minValuesPolicy, preferencePolicy, featureGates, ignoreDraRequests, maxInstanceTypes",
            );
            Settings::default()
        }),
    };
    let now = match map.get("now") {
        None | Some(Value::Null) => None,
        Some(v) => r.string("now", v),
    };
    let simulation = match map.get("simulation") {
        None | Some(Value::Null) => Map::new(),
        Some(v) => r.mapping("simulation", v).cloned().unwrap_or_default(),
    };
    let traces = traces(&mut r, map.get("traces"));
    let seeds = seeds(&mut r, map.get("seeds"), &simulation);
    let variants = variants(&mut r, map.get("variants"));
    let grid = grid(&mut r, map.get("grid"));
    if !catalogs.is_empty() {
        for (i, axis) in grid.iter().enumerate() {
            if axis.name == CATALOG_COLUMN {
                let help = "another name (the catalog axis is the catalog column)";
                r.error(&format!("grid[{i}].name"), "reserved-name", "\"catalog\" is the column of the catalog axis", help);
            }
        }
    }

    if let Some(op) = operation {
        let simulate_only = [
            ("traces", !traces.is_empty()),
            ("seeds", map.get("seeds").is_some_and(|v| !v.is_null())),
            ("simulation", !simulation.is_empty()),
        ];
        if op == Operation::Simulate {
            if traces.is_empty() && !map.contains_key("traces") {
                r.error("traces", "required", "simulate sweeps need at least one trace", "traces: [week.yaml]");
            }
        } else {
            for (field, given) in simulate_only {
                if given {
                    r.error(field, "not-allowed", format!("{field} is for simulate sweeps, not {}", op.name()), "operation: simulate");
                }
            }
            let edits = grid.iter().map(|a| &a.target).chain(variants.iter().flat_map(|v| v.edits.iter().map(|e| &e.target)));
            if edits.into_iter().any(|t| *t == Target::Simulation) {
                r.error(
                    "grid",
                    "not-allowed",
                    format!("target: simulation is for simulate sweeps, not {}", op.name()),
                    "operation: simulate",
                );
            }
        }
        if op == Operation::Consolidate && now.is_none() {
            r.error("now", "required", "consolidate sweeps need the clock the decisions are made at", "now: 2025-03-05T12:00:00Z");
        }
    }
    if inputs.is_empty() && objects.is_empty() {
        r.error("inputs", "required", "a sweep needs base manifests", "inputs: [nodepools.yaml, workloads.yaml]");
    }
    // Counted exactly (no u64 wrap shown as 18446744073709551615), or said to be beyond u128.
    let mut count: Option<u128> = Some(1);
    for n in [variants.len().max(1), catalogs.len().max(1), traces.len().max(1), seeds.len().max(1)]
        .into_iter()
        .chain(grid.iter().map(|a| a.values.len()))
    {
        count = count.and_then(|c| c.checked_mul(n as u128));
    }
    if count.is_none_or(|c| c > MAX_COMBINATIONS as u128) {
        let count = count.map_or_else(|| format!("more than {}", u128::MAX), |c| c.to_string());
        r.error(
            "grid",
            "too-many-combinations",
            format!("the sweep expands to {count} combinations; the limit is {MAX_COMBINATIONS}"),
            "fewer variants, values, traces or seeds",
        );
    }
    match (operation, r.errors.is_empty()) {
        (Some(operation), true) => Ok(Spec {
            source: source.map(str::to_string),
            operation,
            inputs,
            objects,
            catalog,
            catalogs,
            settings,
            now,
            simulation,
            traces,
            seeds,
            variants,
            grid,
        }),
        _ => Err(r.errors),
    }
}

fn traces(r: &mut Reader, v: Option<&Value>) -> Vec<TraceInput> {
    let mut out: Vec<TraceInput> = Vec::new();
    for (i, item) in r.list("traces", v).iter().enumerate() {
        let at = format!("traces[{i}]");
        let trace = match item {
            Value::String(file) => r.text_of(&at, file).map(|text| TraceInput { name: Some(file.clone()), text, format: None }),
            Value::Object(_) => match serde_json::from_value::<TraceInput>(item.clone()) {
                Ok(t) => Some(t),
                Err(e) => {
                    r.error(&at, "invalid-trace", format!("not a trace: {e}"), "a file path or {name, text, format}");
                    None
                }
            },
            other => {
                r.wrong_type(&at, other, "a file path or {name, text, format}");
                None
            }
        };
        if let Some(mut t) = trace {
            let label = t.name.clone().unwrap_or_else(|| format!("trace-{i}"));
            if out.iter().any(|o| o.name.as_deref() == Some(label.as_str())) {
                r.error(
                    &at,
                    "duplicate",
                    format!("a trace named {label:?} is listed twice"),
                    "unique trace names (the trace column tells them apart)",
                );
            }
            t.name = Some(label);
            out.push(t);
        }
    }
    out
}

fn seeds(r: &mut Reader, v: Option<&Value>, simulation: &Map<String, Value>) -> Vec<u64> {
    let help = "a list of seeds, or {from: 1, count: 20}";
    let seed = |r: &mut Reader, at: &str, v: &Value| match v.as_u64() {
        Some(s) => Some(s),
        None => {
            r.error(at, "invalid-seed", format!("{v} is not a seed (a whole number ≥ 0)"), help);
            None
        }
    };
    let out: Vec<u64> = match v {
        None | Some(Value::Null) => vec![simulation.get("seed").and_then(Value::as_u64).unwrap_or(0)],
        Some(Value::Array(list)) => list.iter().enumerate().filter_map(|(i, s)| seed(r, &format!("seeds[{i}]"), s)).collect(),
        Some(Value::Object(m)) => {
            r.only_fields("seeds", m, &["from", "count"]);
            let from = m.get("from").and_then(|f| seed(r, "seeds.from", f)).unwrap_or(0);
            let count = match m.get("count").map(|c| (c, c.as_u64())) {
                Some((_, Some(c))) if (1..=MAX_COMBINATIONS).contains(&c) => c,
                _ => {
                    r.error("seeds.count", "invalid-value", format!("count must be a whole number in 1..={MAX_COMBINATIONS}"), help);
                    0
                }
            };
            (0..count).map_while(|k| from.checked_add(k)).collect()
        }
        Some(other) => {
            r.wrong_type("seeds", other, help);
            Vec::new()
        }
    };
    if v.is_some_and(|v| v.is_array()) && out.is_empty() && r.errors.is_empty() {
        r.error("seeds", "required", "the seed list is empty", help);
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(dup) = out.iter().find(|s| !seen.insert(**s)) {
        r.error("seeds", "duplicate", format!("seed {dup} is listed twice (it would repeat the same simulation)"), help);
    }
    out
}

fn edit_list(r: &mut Reader, path: &str, v: Option<&Value>) -> Vec<Edit> {
    let mut out = Vec::new();
    for (i, item) in r.list(path, v).iter().enumerate() {
        let at = format!("{path}[{i}]");
        let Some(m) = r.mapping(&at, item) else { continue };
        r.only_fields(&at, m, &["target", "path", "value"]);
        let target = r.target(&format!("{at}.target"), m.get("target"));
        let fpath = r.path(&format!("{at}.path"), m.get("path"));
        if !m.contains_key("value") {
            r.error(&format!("{at}.value"), "required", "an edit needs a value (null removes the field)", "value: ...");
        }
        if let (Some(target), Some(path)) = (target, fpath) {
            out.push(Edit { target, path, value: m.get("value").cloned().unwrap_or(Value::Null), at: at.clone() });
        }
    }
    out
}

fn variants(r: &mut Reader, v: Option<&Value>) -> Vec<VariantSpec> {
    let mut out: Vec<VariantSpec> = Vec::new();
    for (i, item) in r.list("variants", v).iter().enumerate() {
        let at = format!("variants[{i}]");
        let Some(m) = r.mapping(&at, item) else { continue };
        r.only_fields(&at, m, &["name", "inputs", "objects", "edits"]);
        let name = match m.get("name") {
            Some(n) => r.string(&format!("{at}.name"), n).unwrap_or_default(),
            None => {
                r.error(&format!("{at}.name"), "required", "a variant needs a name (the variant column)", "name: a100-only");
                String::new()
            }
        };
        if !name.is_empty() && out.iter().any(|o| o.name == name) {
            r.error(&format!("{at}.name"), "duplicate", format!("variant {name:?} is listed twice"), "unique variant names");
        }
        let inputs = r.inputs(&format!("{at}.inputs"), m.get("inputs"));
        let objects = r.objects(&format!("{at}.objects"), m.get("objects"));
        let edits = edit_list(r, &format!("{at}.edits"), m.get("edits"));
        out.push(VariantSpec { name, inputs, objects, edits });
    }
    out
}

/// The column of the catalog axis.
pub const CATALOG_COLUMN: &str = "catalog";

/// `catalog: [...]`: each entry a catalog name, a catalog mapping, or `{catalog, label, inputs,
/// objects}`. Cells must tell the entries apart.
fn catalog_axis(r: &mut Reader, list: &[Value]) -> Vec<CatalogEntry> {
    let help = "catalog names (aws-eu-west-1), catalog mappings, or {catalog, label, inputs, objects}";
    if list.is_empty() {
        r.error("catalog", "required", "the catalog axis is an empty list", help);
    }
    // Each entry's catalog is built once at load (to locate a bad one) and cells are compared
    // pairwise: a bound on the list keeps both small whatever the spec's size. AWS has about
    // 35 regions; a few inline catalogs beside them fit too.
    if list.len() > MAX_CATALOGS {
        let message = format!("the catalog axis has {} entries; the limit is {MAX_CATALOGS}", list.len());
        r.error("catalog", "too-many-catalogs", message, "split the sweep into several specs");
        return Vec::new();
    }
    let mut out: Vec<CatalogEntry> = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let at = format!("catalog[{i}]");
        let entry = match item {
            Value::String(s) => Some(plain_entry(item, Value::String(s.clone()), at)),
            Value::Object(m) if m.contains_key("catalog") => {
                r.only_fields(&at, m, &["catalog", "label", "inputs", "objects"]);
                let catalog = m["catalog"].clone();
                if !(catalog.is_string() || catalog.is_object()) {
                    r.wrong_type(&format!("{at}.catalog"), &catalog, "a catalog name or mapping");
                }
                let cell = match m.get("label") {
                    None | Some(Value::Null) => default_cell(&catalog, i),
                    Some(l) => cell(l),
                };
                let inputs = r.inputs(&format!("{at}.inputs"), m.get("inputs"));
                let objects = r.objects(&format!("{at}.objects"), m.get("objects"));
                let catalog_at = format!("{at}.catalog");
                Some(CatalogEntry { catalog, cell, inputs, objects, at, catalog_at })
            }
            Value::Object(_) => Some(plain_entry(item, default_cell(item, i), at)),
            other => {
                r.wrong_type(&at, other, help);
                None
            }
        };
        if let Some(e) = entry {
            if out.iter().any(|o| o.cell == e.cell) {
                let message = format!("two catalogs are shown as {} in the catalog column", e.cell);
                r.error(&e.at, "duplicate", message, "a label: for each, or distinct catalogs");
            }
            out.push(e);
        }
    }
    out
}

fn plain_entry(catalog: &Value, cell: Value, at: String) -> CatalogEntry {
    CatalogEntry { catalog: catalog.clone(), cell, inputs: Vec::new(), objects: Vec::new(), catalog_at: at.clone(), at }
}

/// The cell of a catalog without a label: its name, an `aws-<region>` mapping's source, or
/// `inline-<i>` for an inline catalog.
fn default_cell(catalog: &Value, i: usize) -> Value {
    match catalog {
        Value::String(s) => Value::String(s.clone()),
        _ => match catalog.get("source").and_then(Value::as_str) {
            Some(s) if catalog.get("instanceTypes").is_none() => Value::String(s.to_string()),
            _ => Value::String(format!("inline-{i}")),
        },
    }
}

/// Column names the table uses for itself.
pub const RESERVED_COLUMNS: [&str; 6] = ["index", "variant", "trace", "seed", "status", "error"];

fn grid(r: &mut Reader, v: Option<&Value>) -> Vec<Axis> {
    let mut out: Vec<Axis> = Vec::new();
    for (i, item) in r.list("grid", v).iter().enumerate() {
        let at = format!("grid[{i}]");
        let Some(m) = r.mapping(&at, item) else { continue };
        r.only_fields(&at, m, &["name", "target", "path", "values", "labels"]);
        let target = r.target(&format!("{at}.target"), m.get("target"));
        let path = r.path(&format!("{at}.path"), m.get("path"));
        let name = match m.get("name") {
            Some(n) => r.string(&format!("{at}.name"), n).unwrap_or_default(),
            None => path.as_ref().map(ToString::to_string).unwrap_or_default(),
        };
        if RESERVED_COLUMNS.contains(&name.as_str()) || super::metrics::is_metric(&name) {
            r.error(&format!("{at}.name"), "reserved-name", format!("{name:?} is a column of the result table already"), "another name");
        } else if !name.is_empty() && out.iter().any(|o| o.name == name) {
            r.error(
                &format!("{at}.name"),
                "duplicate",
                format!("two grid dimensions are named {name:?}"),
                "unique names (they are the column names)",
            );
        }
        let values = match m.get("values") {
            Some(Value::Array(a)) if !a.is_empty() => a.clone(),
            Some(Value::Array(_)) | None => {
                r.error(&format!("{at}.values"), "required", "a grid dimension needs at least one value", "values: [a, b]");
                Vec::new()
            }
            Some(other) => {
                r.wrong_type(&format!("{at}.values"), other, "a list of values");
                Vec::new()
            }
        };
        let cells = match m.get("labels") {
            None | Some(Value::Null) => values.iter().map(cell).collect(),
            Some(Value::Array(labels)) if labels.len() == values.len() => labels.iter().map(cell).collect(),
            Some(_) => {
                r.error(
                    &format!("{at}.labels"),
                    "invalid-value",
                    format!("labels must be a list of {} entries, one per value", values.len()),
                    "labels: [small, large]",
                );
                Vec::new()
            }
        };
        if let (Some(target), Some(path)) = (target, path) {
            out.push(Axis { name, target, path, values, cells });
        }
    }
    out
}

/// How a value shows in a table cell: scalars as they are, lists and mappings as compact JSON.
pub fn cell(v: &Value) -> Value {
    match v {
        Value::Array(_) | Value::Object(_) => Value::String(v.to_string()),
        other => other.clone(),
    }
}
