//! Capacity-planning sweeps: one base cluster, variants of it (an explicit list of edited
//! manifests and/or a grid of field edits), traces and seeds; `plan`, `consolidate` or `simulate`
//! for every combination, each answer reduced to one row of metrics.
//!
//! Everything a front end needs to agree on lives here: reading and validating the spec
//! (`spec`), expanding it into numbered combinations in a fixed order, building each
//! combination's request, the row of each answer (`metrics`) and the CSV rendering. Front ends
//! only read files and decide where combinations run (the CLI's threads, Python's process pool or
//! Ray); the rows are the same bytes whichever ran them, because combination `i` is a pure
//! function of the spec.
//!
//! Order: the variant varies slowest, then the grid dimensions in the order given, then the
//! trace, and the seed fastest.

pub(crate) use crate::edit;
pub(crate) mod metrics;
pub(crate) mod spec;
mod table;
#[cfg(test)]
mod tests;

pub(crate) use spec::Spec;
pub use spec::{Operation, MAX_COMBINATIONS};
pub use table::{call, csv_line, render_csv, rows_of, FUNCTIONS};

use crate::error::InputError;
use crate::json::{Input, Request};
use crate::manifest;
use crate::simulate::SimSettings;
use edit::FieldPath;
use indexmap::IndexMap;
use serde_json::{json, Map, Value};
use spec::{Edit, Target};
use std::sync::Arc;

/// One input text of the cluster, with its documents decoded once. Documents are kept by their
/// index in the text (a `kind: List` is one entry), so an edited input is written back with the
/// same document numbers and error locations still point at the user's file.
#[derive(Debug, Clone)]
struct Slot {
    name: Option<String>,
    text: String,
    docs: Arc<Vec<Value>>,
    edited: bool,
}

/// The documents of one variant: the input texts and the already-decoded objects.
#[derive(Debug, Clone)]
struct DocSet {
    slots: Vec<Slot>,
    objects: Arc<Vec<Value>>,
}

/// Where a target document sits: the slot (or the objects, `None`), the top-level document and,
/// inside a List, the item.
#[derive(Debug, Clone, Copy)]
struct Loc {
    slot: Option<usize>,
    doc: usize,
    item: Option<usize>,
    /// In a `describe-capacity-reservations` document: the `CapacityReservations` entry.
    entry: Option<usize>,
}

/// The target kind naming one entry of a `describe-capacity-reservations` document by its
/// CapacityReservationId (`CapacityReservation/cr-...`).
pub const RESERVATION_TARGET: &str = "CapacityReservation";

/// A pseudo-field of a reservation target: sets TotalInstanceCount and AvailableInstanceCount
/// together, keeping the instances already running in it (the reservation resized).
pub const INSTANCE_COUNT: &str = "InstanceCount";

/// The `CapacityReservations` entries of a top-level document with id `id`.
fn reservation_entries(doc: &Value, id: &str) -> Vec<usize> {
    let list = doc.get(crate::catalog::reservations::DOCUMENT_KEY).and_then(Value::as_array);
    list.into_iter()
        .flatten()
        .enumerate()
        .filter(|(_, e)| e.get("CapacityReservationId").and_then(Value::as_str) == Some(id))
        .map(|(i, _)| i)
        .collect()
}

fn is_reservation_target(target: &Target) -> Option<&str> {
    match target {
        Target::Object { kind, namespace: None, name } if kind == RESERVATION_TARGET => Some(name),
        _ => None,
    }
}

/// `InstanceCount: N` on a reservation entry: TotalInstanceCount N, AvailableInstanceCount N
/// less the instances in use (TotalInstanceCount − AvailableInstanceCount before), at least 0.
fn set_instance_count(entry: &mut Value, value: &Value) -> Result<(), String> {
    let n = value
        .as_i64()
        .filter(|n| *n >= 0)
        .ok_or_else(|| format!("{INSTANCE_COUNT} {value} is not an instance count (a whole number ≥ 0)"))?;
    let count = |f: &str| entry.get(f).and_then(Value::as_i64).unwrap_or(0);
    let used = (count("TotalInstanceCount") - count("AvailableInstanceCount")).max(0);
    let map = entry.as_object_mut().ok_or("the reservation entry is not a mapping")?;
    map.insert("TotalInstanceCount".into(), json!(n));
    map.insert("AvailableInstanceCount".into(), json!((n - used).max(0)));
    Ok(())
}

/// The documents of one variant on one catalog of the axis (the variant's own without an axis).
#[derive(Debug, Clone)]
struct Variant {
    name: String,
    docs: DocSet,
    simulation: Map<String, Value>,
}

/// A loaded sweep: validated, with every base and variant document decoded.
#[derive(Debug, Clone)]
pub struct Sweep {
    spec: Spec,
    /// Variant-major: variant `v` on catalog `c` of the axis is `variants[v * catalogs + c]`.
    variants: Vec<Variant>,
    /// The length of the catalog axis, 1 without one.
    catalogs: usize,
    columns: Vec<String>,
    radices: Vec<usize>,
    len: usize,
}

/// Decode the spec text (YAML or JSON, one mapping).
fn decode_spec(text: &str, name: Option<&str>) -> Result<Value, Vec<InputError>> {
    let docs = manifest::decode(text, name)?;
    match docs.as_slice() {
        [one] if one.prefix.is_empty() => Ok(one.value.clone().into_owned()),
        _ => {
            // Located in the spec's file (an empty spec had no location at all: a finding of the
            // blind sweep_spec campaign, fuzz/regressions/sweep_spec/empty-spec).
            let mut e = InputError::new("invalid-sweep", format!("a sweep spec is one mapping; found {} documents", docs.len()))
                .help("apiVersion: nodecast/v1, kind: Sweep, operation, inputs, grid, ...");
            e.source = Some(name.unwrap_or("<sweep>").to_string());
            Err(vec![e])
        }
    }
}

/// The file paths a spec names (`inputs`, `traces`, `variants[].inputs`, `catalog[].inputs`), in order, each once.
/// Front ends read them (relative to the spec's directory) and pass their texts to [`load`].
pub fn referenced_files(text: &str, name: Option<&str>) -> Result<Vec<String>, Vec<InputError>> {
    let root = decode_spec(text, name)?;
    let mut out: Vec<String> = Vec::new();
    let mut add = |v: Option<&Value>| {
        for s in v.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
            if !out.iter().any(|o| o == s) {
                out.push(s.to_string());
            }
        }
    };
    add(root.get("inputs"));
    add(root.get("traces"));
    for v in root.get("variants").and_then(Value::as_array).into_iter().flatten() {
        add(v.get("inputs"));
    }
    for c in root.get("catalog").and_then(Value::as_array).into_iter().flatten() {
        add(c.get("inputs"));
    }
    Ok(out)
}

/// Read, validate and prepare a sweep. `files` maps the paths of [`referenced_files`] to their
/// texts.
pub fn load(text: &str, name: Option<&str>, files: &IndexMap<String, String>) -> Result<Sweep, Vec<InputError>> {
    let root = decode_spec(text, name)?;
    let spec = spec::read(&root, name, files)?;
    Sweep::new(spec)
}

fn located(e: InputError, spec: &Spec, at: &str) -> InputError {
    let mut e = e.object("Sweep");
    if e.source.is_none() {
        e.source = spec.source.clone();
    }
    if e.path.is_none() && !at.is_empty() {
        e = e.path(at);
    }
    e
}

fn slot_of(input: &Input) -> Result<Slot, Vec<InputError>> {
    let docs = manifest::decode(&input.text, input.name.as_deref())?;
    let mut top: Vec<Value> = Vec::new();
    for d in docs {
        if top.len() <= d.index {
            top.resize(d.index + 1, Value::Null);
        }
        let v = d.value.into_owned();
        if d.prefix.starts_with("items[") {
            if top[d.index].is_null() {
                top[d.index] = json!({"apiVersion": "v1", "kind": "List", "items": []});
            }
            top[d.index]["items"].as_array_mut().expect("built as a list").push(v);
        } else if d.prefix.starts_with('[') {
            if top[d.index].is_null() {
                top[d.index] = json!([]);
            }
            top[d.index].as_array_mut().expect("built as an array").push(v);
        } else {
            top[d.index] = v;
        }
    }
    Ok(Slot { name: input.name.clone(), text: input.text.clone(), docs: Arc::new(top), edited: false })
}

fn matches(doc: &Value, target: &Target) -> bool {
    let Target::Object { kind, namespace, name } = target else { return false };
    let meta = doc.get("metadata");
    doc.get("kind").and_then(Value::as_str) == Some(kind.as_str())
        && meta.and_then(|m| m.get("name")).and_then(Value::as_str) == Some(name.as_str())
        && namespace.as_ref().is_none_or(|ns| meta.and_then(|m| m.get("namespace")).and_then(Value::as_str).unwrap_or("default") == ns)
}

/// The identity a replacing document is matched by.
fn identity(doc: &Value) -> Option<Target> {
    let kind = doc.get("kind")?.as_str()?.to_string();
    let meta = doc.get("metadata")?;
    let name = meta.get("name")?.as_str()?.to_string();
    let namespace = Some(meta.get("namespace").and_then(Value::as_str).unwrap_or("default").to_string());
    Some(Target::Object { kind, namespace, name })
}

/// The items of a top-level document: itself, or the members of a List / bare array.
fn items(doc: &Value) -> Vec<(Option<usize>, &Value)> {
    match doc {
        Value::Array(a) => a.iter().enumerate().map(|(i, v)| (Some(i), v)).collect(),
        Value::Object(_)
            if doc.get("items").is_some_and(Value::is_array)
                && doc.get("kind").and_then(Value::as_str).is_some_and(|k| k.ends_with("List")) =>
        {
            doc["items"].as_array().expect("checked").iter().enumerate().map(|(i, v)| (Some(i), v)).collect()
        }
        Value::Object(_) => vec![(None, doc)],
        _ => Vec::new(),
    }
}

impl DocSet {
    fn find(&self, target: &Target) -> Result<Loc, String> {
        let mut found = Vec::new();
        let tops = self.slots.iter().enumerate().flat_map(|(s, slot)| slot.docs.iter().enumerate().map(move |(d, v)| (Some(s), d, v)));
        let tops = tops.chain(self.objects.iter().enumerate().map(|(d, v)| (None, d, v)));
        for (slot, doc, v) in tops {
            if let Some(id) = is_reservation_target(target) {
                found.extend(reservation_entries(v, id).into_iter().map(|e| Loc { slot, doc, item: None, entry: Some(e) }));
                continue;
            }
            for (item, it) in items(v) {
                if matches(it, target) {
                    found.push(Loc { slot, doc, item, entry: None });
                }
            }
        }
        match found.as_slice() {
            [one] => Ok(*one),
            [] if is_reservation_target(target).is_some() => Err(format!(
                "no {} among the inputs (a CapacityReservationId of a describe-capacity-reservations document)",
                target.describe()
            )),
            [] => Err(format!("no {} among the inputs", target.describe())),
            many => Err(format!("{} documents are {}; name the namespace (Kind/namespace/name)", many.len(), target.describe())),
        }
    }

    fn get(&self, loc: Loc) -> &Value {
        let top = match loc.slot {
            Some(s) => &self.slots[s].docs[loc.doc],
            None => &self.objects[loc.doc],
        };
        match (loc.entry, loc.item, top) {
            (Some(e), _, v) => &v[crate::catalog::reservations::DOCUMENT_KEY][e],
            (None, None, v) => v,
            (None, Some(i), Value::Array(a)) => &a[i],
            (None, Some(i), v) => &v["items"][i],
        }
    }

    fn get_mut(&mut self, loc: Loc) -> &mut Value {
        let top = match loc.slot {
            Some(s) => {
                let slot = &mut self.slots[s];
                slot.edited = true;
                &mut Arc::make_mut(&mut slot.docs)[loc.doc]
            }
            None => &mut Arc::make_mut(&mut self.objects)[loc.doc],
        };
        match (loc.entry, loc.item, top) {
            (Some(e), _, v) => &mut v[crate::catalog::reservations::DOCUMENT_KEY][e],
            (None, None, v) => v,
            (None, Some(i), Value::Array(a)) => &mut a[i],
            (None, Some(i), v) => &mut v["items"][i],
        }
    }

    /// Replace the base documents a variant redefines, and add the others.
    fn merge(&mut self, inputs: &[Input], objects: &[Value]) -> Result<(), Vec<InputError>> {
        for input in inputs {
            let slot = slot_of(input)?;
            let mut added = Vec::new();
            for top in slot.docs.iter() {
                for (_, doc) in items(top) {
                    match identity(doc).map(|t| self.find(&t)) {
                        Some(Ok(loc)) => *self.get_mut(loc) = doc.clone(),
                        _ => added.push(doc.clone()),
                    }
                }
            }
            if !added.is_empty() {
                self.slots.push(Slot { name: input.name.clone(), text: String::new(), docs: Arc::new(added), edited: true });
            }
        }
        for doc in objects {
            for (_, item) in items(doc) {
                match identity(item).map(|t| self.find(&t)) {
                    Some(Ok(loc)) => *self.get_mut(loc) = item.clone(),
                    _ => Arc::make_mut(&mut self.objects).push(item.clone()),
                }
            }
        }
        Ok(())
    }

    fn apply(&mut self, simulation: &mut Map<String, Value>, target: &Target, path: &FieldPath, value: &Value) -> Result<(), String> {
        match target {
            Target::Simulation => {
                let mut root = Value::Object(std::mem::take(simulation));
                let r = edit::apply(&mut root, path, value);
                if let Value::Object(m) = root {
                    *simulation = m;
                }
                r
            }
            object => {
                let loc = self.find(object)?;
                let pseudo = loc.entry.is_some() && path.0 == [edit::Segment::Field(INSTANCE_COUNT.into())];
                let doc = self.get_mut(loc);
                let r = if pseudo { set_instance_count(doc, value) } else { edit::apply(doc, path, value) };
                r.map_err(|e| format!("{}: {e}", object.describe()))
            }
        }
    }

    /// The request's inputs: untouched texts as they were; edited ones written back as a JSON
    /// stream with one value per original document (`null` where the text had an empty one).
    fn inputs(&self) -> Vec<Input> {
        self.slots
            .iter()
            .map(|s| {
                let text = if s.edited { s.docs.iter().map(Value::to_string).collect::<Vec<_>>().join("\n") } else { s.text.clone() };
                Input { name: s.name.clone(), text }
            })
            .collect()
    }
}

/// A catalog of the axis must be one a request accepts (an unknown name, a bad zone list):
/// refused at load, located at its entry, not as a failed row per combination. A region
/// without an embedded price table passes here; its rows need its prices among their inputs.
fn check_catalog(entry: &spec::CatalogEntry, spec: &Spec) -> Vec<InputError> {
    match crate::catalog::build(Some(&entry.catalog)) {
        Ok(_) => Vec::new(),
        Err(errors) => errors
            .into_iter()
            .map(|mut e| {
                // The catalog's own paths start with `catalog`: rooted at the entry instead.
                e.path = Some(match e.path.take() {
                    Some(p) => p.replacen("catalog", &entry.catalog_at, 1),
                    None => entry.catalog_at.clone(),
                });
                e.document = None;
                located(e, spec, "")
            })
            .collect(),
    }
}

/// The simulation settings of a mapping, checked.
fn sim_settings(map: &Map<String, Value>) -> Result<SimSettings, Vec<InputError>> {
    let s: SimSettings = serde_json::from_value(Value::Object(map.clone())).map_err(|e| {
        vec![InputError::new("invalid-settings", format!("simulation: {e}")).help("the fields of docs/simulate.md, in camelCase")]
    })?;
    s.check()?;
    Ok(s)
}

impl Sweep {
    fn new(spec: Spec) -> Result<Sweep, Vec<InputError>> {
        let mut errors = Vec::new();
        let mut base = DocSet { slots: Vec::new(), objects: Arc::new(spec.objects.clone()) };
        for input in &spec.inputs {
            match slot_of(input) {
                Ok(s) => base.slots.push(s),
                Err(e) => errors.extend(e),
            }
        }
        if let Err(e) = sim_settings(&spec.simulation) {
            errors.extend(e.into_iter().map(|e| located(e, &spec, "simulation")));
        }
        if spec.simulation.contains_key("seed") && spec.seeds.len() > 1 {
            errors.push(
                located(InputError::new("conflict", "simulation.seed and a list of seeds"), &spec, "simulation.seed")
                    .help("give the seeds in seeds:"),
            );
        }
        for (k, axis) in spec.grid.iter().enumerate() {
            if axis.target == Target::Simulation && axis.path.0.first() == Some(&edit::Segment::Field("seed".into())) {
                errors.push(located(
                    InputError::new("not-allowed", "the seed is swept with seeds:, not a grid dimension"),
                    &spec,
                    &format!("grid[{k}].path"),
                ));
            }
        }
        for entry in &spec.catalogs {
            errors.extend(check_catalog(entry, &spec));
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let no_axis = [spec::CatalogEntry {
            catalog: Value::Null,
            cell: Value::Null,
            inputs: Vec::new(),
            objects: Vec::new(),
            at: String::new(),
            catalog_at: String::new(),
        }];
        let catalogs = if spec.catalogs.is_empty() { &no_axis[..] } else { &spec.catalogs[..] };
        let mut variants = Vec::new();
        let plain = [spec::VariantSpec { name: "base".into(), inputs: Vec::new(), objects: Vec::new(), edits: Vec::new() }];
        let list = if spec.variants.is_empty() { &plain[..] } else { &spec.variants[..] };
        for (i, v) in list.iter().enumerate() {
            let mut docs = base.clone();
            let mut simulation = spec.simulation.clone();
            if let Err(e) = docs.merge(&v.inputs, &v.objects) {
                errors.extend(e);
                continue;
            }
            for Edit { target, path, value, at } in &v.edits {
                if let Err(msg) = docs.apply(&mut simulation, target, path, value) {
                    errors.push(located(InputError::new("invalid-edit", msg), &spec, at));
                }
            }
            for entry in catalogs {
                let mut docs = docs.clone();
                if let Err(e) = docs.merge(&entry.inputs, &entry.objects) {
                    // The entry's own texts do not decode: the same errors for every variant.
                    if i == 0 {
                        errors.extend(e);
                    }
                    continue;
                }
                let who = match &entry.cell {
                    Value::Null => format!("variant {:?}", v.name),
                    c => format!("variant {:?}, catalog {}", v.name, spec::cell(c)),
                };
                // Every grid value must be applicable to this variant: found now, not as a failed
                // row per combination.
                for (k, axis) in spec.grid.iter().enumerate() {
                    for (j, value) in axis.values.iter().enumerate() {
                        let at = format!("grid[{k}].values[{j}]");
                        let mut sim = simulation.clone();
                        let mut check = match &axis.target {
                            Target::Simulation => DocSet { slots: Vec::new(), objects: Arc::new(Vec::new()) },
                            t => match docs.find(t) {
                                // A reservation entry is found again inside a document of its own.
                                Ok(loc) if loc.entry.is_some() => DocSet {
                                    slots: Vec::new(),
                                    objects: Arc::new(vec![json!({(crate::catalog::reservations::DOCUMENT_KEY): [docs.get(loc).clone()]})]),
                                },
                                Ok(loc) => DocSet { slots: Vec::new(), objects: Arc::new(vec![docs.get(loc).clone()]) },
                                Err(msg) => {
                                    let e = InputError::new("invalid-edit", format!("{who}: {msg}"));
                                    errors.push(located(e, &spec, &format!("grid[{k}].target")));
                                    break;
                                }
                            },
                        };
                        if let Err(msg) = check.apply(&mut sim, &axis.target, &axis.path, value) {
                            errors.push(located(InputError::new("invalid-edit", format!("{who}: {msg}")), &spec, &at));
                        } else if axis.target == Target::Simulation {
                            if let Err(e) = sim_settings(&sim) {
                                errors.extend(e.into_iter().map(|e| located(InputError { path: None, ..e }, &spec, &at)));
                            }
                        }
                    }
                }
                variants.push(Variant { name: v.name.clone(), docs, simulation: simulation.clone() });
            }
            // A mistake repeated for every variant says nothing new after a while.
            if errors.len() > 100 && i + 1 < list.len() {
                break;
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let simulate = spec.operation == Operation::Simulate;
        let axis = !spec.catalogs.is_empty();
        let mut columns: Vec<String> = vec!["index".into(), "variant".into()];
        if axis {
            columns.push(spec::CATALOG_COLUMN.into());
        }
        columns.extend(spec.grid.iter().map(|a| a.name.clone()));
        if simulate {
            columns.extend(["trace".into(), "seed".into()]);
        }
        columns.extend(["status".into(), "error".into()]);
        columns.extend(metrics::columns(spec.operation).iter().map(|c| c.to_string()));
        let catalogs = catalogs.len();
        let mut radices = vec![variants.len() / catalogs];
        if axis {
            radices.push(catalogs);
        }
        radices.extend(spec.grid.iter().map(|a| a.values.len()));
        if simulate {
            radices.extend([spec.traces.len(), spec.seeds.len()]);
        }
        let len = radices.iter().product();
        Ok(Sweep { spec, variants, catalogs, columns, radices, len })
    }

    /// The function every combination runs.
    pub fn operation(&self) -> Operation {
        self.spec.operation
    }

    /// How many combinations.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the sweep expands to no combination at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The result table's column names: parameters (variant, grid axes, trace, seed), then the metrics.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// For every column, cells of each JSON type it can hold: every value of a parameter column
    /// (variant names, grid cells, trace names, seeds; the first and last index), both statuses,
    /// a message, and one sample per metric (`metrics::samples`). Null is always possible too (a
    /// failed combination). A front end that writes typed columns as the rows are computed (the
    /// CLI's Parquet) fixes each column's type from these before the first row.
    pub fn column_samples(&self) -> Vec<Vec<Value>> {
        let names = self.variants.iter().step_by(self.catalogs).map(|v| json!(v.name)).collect();
        let mut out = vec![vec![json!(0), json!(self.len.saturating_sub(1))], names];
        if self.has_axis() {
            out.push(self.spec.catalogs.iter().map(|c| c.cell.clone()).collect());
        }
        out.extend(self.spec.grid.iter().map(|a| a.cells.clone()));
        if self.spec.operation == Operation::Simulate {
            out.push(self.spec.traces.iter().map(|t| json!(t.name)).collect());
            out.push(self.spec.seeds.iter().map(|s| json!(s)).collect());
        }
        out.push(vec![json!("success"), json!("failure")]);
        out.push(vec![json!("")]);
        out.extend(metrics::samples(self.spec.operation).into_iter().map(|v| vec![v]));
        debug_assert_eq!(out.len(), self.columns.len());
        out
    }

    fn has_axis(&self) -> bool {
        !self.spec.catalogs.is_empty()
    }

    /// The first grid digit of a combination (after the variant and the catalog axis).
    fn grid_start(&self) -> usize {
        1 + usize::from(self.has_axis())
    }

    /// The variant-on-catalog of digits `d`, and the catalog entry (None without an axis).
    fn variant_of(&self, d: &[usize]) -> (&Variant, Option<&spec::CatalogEntry>) {
        let c = if self.has_axis() { d[1] } else { 0 };
        (&self.variants[d[0] * self.catalogs + c], self.spec.catalogs.get(c))
    }

    /// Combination `i` as digits: variant, the catalog (with an axis), one per grid dimension,
    /// then trace and seed.
    fn digits(&self, mut i: usize) -> Vec<usize> {
        let mut d = vec![0; self.radices.len()];
        for (k, r) in self.radices.iter().enumerate().rev() {
            d[k] = i % r;
            i /= r;
        }
        d
    }

    /// The cells naming combination `i`: index, variant, grid values, trace, seed.
    pub fn parameters(&self, i: usize) -> Vec<Value> {
        let d = self.digits(i);
        let (variant, catalog) = self.variant_of(&d);
        let mut cells = vec![json!(i), json!(variant.name)];
        cells.extend(catalog.map(|c| c.cell.clone()));
        let g0 = self.grid_start();
        for (k, axis) in self.spec.grid.iter().enumerate() {
            cells.push(axis.cells[d[g0 + k]].clone());
        }
        if self.spec.operation == Operation::Simulate {
            let g = g0 + self.spec.grid.len();
            cells.push(json!(self.spec.traces[d[g]].name));
            cells.push(json!(self.spec.seeds[d[g + 1]]));
        }
        cells
    }

    /// The request of combination `i` (what `nodecast <operation>` would be given). Fails only
    /// when a grid edit cannot be applied together with the others.
    pub fn request(&self, i: usize) -> Result<Request, String> {
        assert!(i < self.len, "combination {i} of {}", self.len);
        let d = self.digits(i);
        let (v, entry) = self.variant_of(&d);
        let mut docs = v.docs.clone();
        let mut simulation = v.simulation.clone();
        let g0 = self.grid_start();
        for (k, axis) in self.spec.grid.iter().enumerate() {
            let value = &axis.values[d[g0 + k]];
            docs.apply(&mut simulation, &axis.target, &axis.path, value)
                .map_err(|e| format!("grid[{k}] {} = {}: {e}", axis.name, spec::cell(value)))?;
        }
        let mut req = Request {
            inputs: docs.inputs(),
            objects: docs.objects.to_vec(),
            catalog: entry.map_or_else(|| self.spec.catalog.clone(), |e| Some(e.catalog.clone())),
            settings: self.spec.settings.clone(),
            now: self.spec.now.clone(),
            ..Default::default()
        };
        if self.spec.operation == Operation::Simulate {
            let g = g0 + self.spec.grid.len();
            let mut settings = sim_settings(&simulation).map_err(|e| e.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))?;
            settings.seed = self.spec.seeds[d[g + 1]];
            req.simulation = Some(settings);
            req.trace = Some(self.spec.traces[d[g]].clone());
        }
        Ok(req)
    }

    /// Run combination `i`: its row, and the full answer JSON when `keep_answer`.
    pub fn run(&self, i: usize, keep_answer: bool) -> (Vec<Value>, Option<String>) {
        let mut row = self.parameters(i);
        let n = metrics::columns(self.spec.operation).len();
        let req = match self.request(i) {
            Ok(r) => r,
            Err(msg) => {
                row.extend(metrics::failure(&msg, n));
                return (row, None);
            }
        };
        let answer = match self.spec.operation {
            Operation::Plan => {
                // A row keeps only figures; the fix hints' re-plans are paid only for the
                // answers kept whole.
                let a = if keep_answer { crate::plan(&req) } else { crate::json::plan_without_hints(&req) };
                row.extend(metrics::cells(&a, metrics::plan, n));
                keep_answer.then(|| a.to_json())
            }
            Operation::Consolidate => {
                let a = crate::consolidate(&req);
                row.extend(metrics::cells(&a, metrics::decision, n));
                keep_answer.then(|| a.to_json())
            }
            Operation::Simulate => {
                let a = crate::simulate(&req);
                row.extend(metrics::cells(&a, metrics::simulation, n));
                keep_answer.then(|| a.to_json())
            }
        };
        (row, answer)
    }
}
