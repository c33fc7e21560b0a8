//! The workload trace: YAML/JSON (`kind: Trace`) or CSV, parsed into time-ordered actions with
//! located errors (`events[3].submit.runTime`, or the CSV line).

use super::duration::{parse_duration, DURATION_HELP};
use super::settings::MAX_SECONDS;
use crate::error::{more_errors, ErrorKind, InputError, MAX_REPORTED_ERRORS};
use serde_json::Value;

/// Per-pod run time.
#[derive(Debug, Clone, PartialEq)]
pub enum RunTime {
    Fixed(i64),
    Uniform(i64, i64),
    Exponential(f64),
    Normal(f64, f64),
}

/// Where a workload's manifest comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A workload document of the cluster inputs: kind, optional namespace, name.
    Ref { kind: String, namespace: Option<String>, name: String },
    /// An inline manifest, shared by every repeat of its event (a repeat of 100,000 must not
    /// copy a large manifest 100,000 times).
    Manifest(std::sync::Arc<Value>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadDef {
    pub source: Source,
    pub replicas: Option<i64>,
    pub run_time: Option<RunTime>,
    pub checkpoint: Option<i64>,
    /// Field path of the definition, for errors found later (unknown reference, ...).
    pub path: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Submit {
        def: WorkloadDef,
        name: Option<String>,
    },
    Scale {
        instance: String,
        replicas: i64,
    },
    Delete {
        instance: String,
    },
    Interrupt {
        node: String,
    },
    /// A Node condition from `at` on (conditions.rs).
    Condition(super::conditions::ConditionEvent),
    /// Interruption notices for instances of an interruptible ODCR (res_notice.rs).
    ReservationInterrupt(super::res_notice::Notice),
    /// The NodePool of the manifest's name is replaced by the manifest (docs/drift.md): its
    /// nodes made from the old template drift.
    EditNodePool {
        manifest: std::sync::Arc<Value>,
    },
    /// A CSV row: submit (Job/Pod) or scale (Deployment-like) the referenced workload.
    Row {
        def: WorkloadDef,
        replicas: i64,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct TraceEvent {
    /// Seconds from the trace start.
    pub at: i64,
    pub action: Action,
    pub path: String,
    /// CSV line (1-based), when the trace is CSV.
    pub line: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trace {
    /// Unix seconds of the start, when given.
    pub start: Option<i64>,
    pub end: Option<i64>,
    /// Sorted by time (stable: equal times keep trace order).
    pub events: Vec<TraceEvent>,
    /// Demand series the HPAs' metrics are computed from (demand.rs).
    pub demand: Vec<super::demand::Demand>,
}

/// The default clock origin when the trace gives none: Monday 2025-01-06T00:00:00Z, so budget
/// cron windows (`mon-fri`) behave as in an ordinary week.
pub const DEFAULT_START: i64 = 1_736_121_600;

/// Most pods one event may create.
pub const MAX_REPLICAS: i64 = 100_000;

pub const CSV_HEADER: &str = "time,workload,replicas,runTime";

fn parse_rfc3339(s: &str) -> Option<i64> {
    s.parse::<jiff::Timestamp>().ok().map(|t| t.as_second())
}

struct P<'a> {
    source: Option<&'a str>,
    errors: Vec<InputError>,
    /// Errors past [`MAX_REPORTED_ERRORS`], counted and not kept: an 8 MB CSV of empty rows
    /// printed 877 MB of errors before.
    dropped: usize,
    /// The CSV line being read, given to every error found on it.
    line: Option<usize>,
}

impl<'a> P<'a> {
    fn new(source: Option<&'a str>) -> Self {
        P { source, errors: Vec::new(), dropped: 0, line: None }
    }

    fn err(&mut self, path: &str, code: &str, msg: impl Into<String>, help: &str) {
        if self.errors.len() >= MAX_REPORTED_ERRORS {
            self.dropped += 1;
            return;
        }
        let mut e = InputError::new(code, msg).help(help.to_string());
        // A CSV row as a whole has no field path: its line locates it ("t.csv, , line 9" before).
        if !path.is_empty() {
            e = e.path(path.to_string());
        }
        e.source = self.source.map(str::to_string);
        e.line = self.line;
        self.errors.push(e);
    }

    /// The nodecast bound `what` is past (unusable input, not invalid): one error, located.
    fn limit(&mut self, path: &str, msg: String, help: &str) {
        self.err(path, "too-many-events", msg, help);
        if let Some(e) = self.errors.last_mut().filter(|_| self.dropped == 0) {
            e.kind = ErrorKind::Limit;
        }
    }

    fn failed(&self) -> bool {
        !self.errors.is_empty()
    }

    /// The errors, with one entry for those left out.
    fn into_errors(mut self) -> Vec<InputError> {
        if self.dropped > 0 {
            let kind = self.errors.last().map_or(ErrorKind::Request, |e| e.kind);
            self.errors.push(more_errors(self.dropped, kind));
        }
        self.errors
    }

    fn duration(&mut self, v: &Value, path: &str) -> Option<i64> {
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) if n.as_i64().is_some() => n.to_string(),
            _ => {
                self.err(path, "wrong-type", "expected a duration", DURATION_HELP);
                return None;
            }
        };
        match parse_duration(&text) {
            Ok(d) => Some(d),
            Err(e) => {
                self.err(path, "invalid-duration", e, DURATION_HELP);
                None
            }
        }
    }

    fn str<'v>(&mut self, v: &'v Value, path: &str) -> Option<&'v str> {
        let s = v.as_str();
        if s.is_none() {
            self.err(path, "wrong-type", format!("expected a string, found {}", crate::manifest::reader::render_short(v)), "a string");
        }
        s
    }

    fn int(&mut self, v: &Value, path: &str) -> Option<i64> {
        let n = v.as_i64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()));
        match n {
            Some(n) if n >= 0 => Some(n),
            _ => {
                self.err(
                    path,
                    "wrong-type",
                    format!("expected an integer ≥ 0, found {}", crate::manifest::reader::render_short(v)),
                    "e.g. 4",
                );
                None
            }
        }
    }

    /// A replica count, capped so one event cannot ask for more pods than a simulation can hold.
    fn replicas(&mut self, v: &Value, path: &str) -> Option<i64> {
        let n = self.int(v, path)?;
        if n > MAX_REPLICAS {
            self.err(path, "out-of-range", format!("{n} replicas; at most {MAX_REPLICAS} per event"), "fewer replicas");
            return None;
        }
        Some(n)
    }

    /// `at`: a duration from the start or an RFC 3339 time (needs `start`).
    fn at(&mut self, v: &Value, path: &str, start: Option<i64>) -> Option<i64> {
        if let Some(s) = v.as_str() {
            if s.contains('T') {
                let Some(t) = parse_rfc3339(s) else {
                    self.err(path, "invalid-timestamp", format!("{s:?} is not an RFC 3339 time"), "e.g. 2025-03-03T09:00:00Z");
                    return None;
                };
                let Some(start) = start else {
                    self.err(
                        path,
                        "required",
                        "an RFC 3339 event time needs the trace's `start`",
                        "start: 2025-03-03T00:00:00Z in a YAML trace; a `# start: 2025-03-03T00:00:00Z` line before a CSV header",
                    );
                    return None;
                };
                if t < start {
                    self.err(path, "out-of-range", format!("{s} is before the trace start"), "a time at or after `start`");
                    return None;
                }
                if t - start > MAX_SECONDS {
                    self.err(
                        path,
                        "out-of-range",
                        format!("{s} is more than ten years after the trace start"),
                        "a time within ten years of `start`",
                    );
                    return None;
                }
                return Some(t - start);
            }
        }
        self.duration(v, path)
    }

    fn run_time(&mut self, v: &Value, path: &str) -> Option<RunTime> {
        let Value::Object(o) = v else {
            return self.duration(v, path).map(RunTime::Fixed);
        };
        for k in o.keys() {
            if !["distribution", "min", "max", "mean", "stddev"].contains(&k.as_str()) {
                self.err(&format!("{path}.{k}"), "unknown-field", format!("unknown field {k:?}"), "distribution, min, max, mean, stddev");
            }
        }
        let dist = o.get("distribution").and_then(Value::as_str).unwrap_or("");
        let field = |p: &mut Self, name: &str| match o.get(name) {
            Some(x) => p.duration(x, &format!("{path}.{name}")),
            None => {
                p.err(&format!("{path}.{name}"), "required", format!("distribution {dist} needs {name}"), DURATION_HELP);
                None
            }
        };
        match dist {
            "uniform" => {
                let (lo, hi) = (field(self, "min")?, field(self, "max")?);
                if hi < lo {
                    self.err(&format!("{path}.max"), "out-of-range", "max is below min", "max ≥ min");
                    return None;
                }
                Some(RunTime::Uniform(lo, hi))
            }
            "exponential" => Some(RunTime::Exponential(field(self, "mean")? as f64)),
            "normal" => Some(RunTime::Normal(field(self, "mean")? as f64, field(self, "stddev")? as f64)),
            other => {
                self.err(
                    &format!("{path}.distribution"),
                    "invalid-distribution",
                    format!("unknown distribution {other:?}"),
                    "uniform {min, max}, exponential {mean}, normal {mean, stddev}, or a fixed duration",
                );
                None
            }
        }
    }

    fn reference(&mut self, s: &str, path: &str) -> Option<Source> {
        let parts: Vec<&str> = s.split('/').collect();
        match parts.as_slice() {
            [kind, name] if !kind.is_empty() && !name.is_empty() => {
                Some(Source::Ref { kind: kind.to_string(), namespace: None, name: name.to_string() })
            }
            [kind, ns, name] if !kind.is_empty() && !ns.is_empty() && !name.is_empty() => {
                Some(Source::Ref { kind: kind.to_string(), namespace: Some(ns.to_string()), name: name.to_string() })
            }
            _ => {
                self.err(
                    path,
                    "invalid-reference",
                    format!("{s:?} is not a workload reference"),
                    "Kind/name or Kind/namespace/name, e.g. Job/ml/train-llm",
                );
                None
            }
        }
    }

    /// A workload definition mapping: ref | manifest, replicas, runTime, checkpointInterval.
    fn def(&mut self, v: &Value, path: &str, extra: &[&str]) -> Option<WorkloadDef> {
        let Value::Object(o) = v else {
            self.err(path, "wrong-type", "expected a workload definition mapping", "{ref: Job/ml/train, runTime: 1h} or {manifest: {...}}");
            return None;
        };
        for k in o.keys() {
            if !["ref", "manifest", "replicas", "runTime", "checkpointInterval"].contains(&k.as_str()) && !extra.contains(&k.as_str()) {
                self.err(
                    &format!("{path}.{k}"),
                    "unknown-field",
                    format!("unknown field {k:?}"),
                    "ref, manifest, replicas, runTime, checkpointInterval",
                );
            }
        }
        let source = match (o.get("ref"), o.get("manifest")) {
            (Some(r), None) => {
                let p = format!("{path}.ref");
                let s = self.str(r, &p)?;
                self.reference(s, &p)?
            }
            (None, Some(m @ Value::Object(_))) => Source::Manifest(std::sync::Arc::new(m.clone())),
            (None, Some(_)) => {
                self.err(
                    &format!("{path}.manifest"),
                    "wrong-type",
                    "manifest must be a Kubernetes object",
                    "a mapping with apiVersion, kind, metadata, spec",
                );
                return None;
            }
            _ => {
                self.err(path, "required", "a workload needs exactly one of ref and manifest", "ref: Job/ml/train-llm, or manifest: {...}");
                return None;
            }
        };
        let replicas = match o.get("replicas") {
            Some(r) => Some(self.replicas(r, &format!("{path}.replicas"))?),
            None => None,
        };
        let run_time = match o.get("runTime") {
            Some(Value::Null) | None => None,
            Some(r) => Some(self.run_time(r, &format!("{path}.runTime"))?),
        };
        let checkpoint = match o.get("checkpointInterval") {
            Some(c) => {
                let p = format!("{path}.checkpointInterval");
                let d = self.duration(c, &p)?;
                if d == 0 {
                    self.err(&p, "out-of-range", "checkpointInterval must be > 0", "e.g. 15m");
                    return None;
                }
                Some(d)
            }
            None => None,
        };
        Some(WorkloadDef { source, replicas, run_time, checkpoint, path: path.to_string() })
    }
}

/// Parse a trace text. `format`: `auto`, `yaml`, `json` or `csv`.
/// Parse a trace. `max_events`: the simulation's `maxEvents`; a trace whose events (repeats
/// expanded) pass it is refused here, before they are made, since each is at least one event
/// of the simulation.
pub fn parse(text: &str, name: Option<&str>, format: &str, max_events: u64) -> Result<Trace, Vec<InputError>> {
    // Spreadsheets (Excel's "CSV UTF-8") start their files with a byte order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let csv = match format {
        "csv" => true,
        "yaml" | "json" => false,
        // Comment lines (a CSV's `# start:`, a YAML comment) do not decide the format.
        "auto" | "" => text.lines().find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#')).is_some_and(|l| {
            let l = l.trim();
            l.starts_with("time,") || l.starts_with("\"time\",")
        }),
        other => {
            return Err(vec![InputError::new("invalid-format", format!("unknown trace format {other:?}"))
                .path("trace.format")
                .help("auto, yaml, json or csv")])
        }
    };
    if csv {
        parse_csv(text, name, max_events)
    } else {
        parse_yaml(text, name, max_events)
    }
}

fn parse_yaml(text: &str, name: Option<&str>, max_events: u64) -> Result<Trace, Vec<InputError>> {
    let docs = crate::manifest::decode(text, name)?;
    let mut p = P::new(name);
    let [doc] = docs.as_slice() else {
        p.err(
            "",
            "invalid-trace",
            format!("a trace is one document; found {}", docs.len()),
            "apiVersion: nodecast/v1, kind: Trace, events: [...]",
        );
        return Err(p.into_errors());
    };
    let Value::Object(root) = &*doc.value else {
        p.err("", "invalid-trace", "a trace is a mapping", "apiVersion: nodecast/v1, kind: Trace, events: [...]");
        return Err(p.into_errors());
    };
    for k in root.keys() {
        if !["apiVersion", "kind", "start", "end", "workloads", "events", "demand", "metadata"].contains(&k.as_str()) {
            p.err(k, "unknown-field", format!("unknown field {k:?}"), "apiVersion, kind, start, end, workloads, events, demand");
        }
    }
    if let Some(k) = root.get("kind").and_then(Value::as_str) {
        if k != "Trace" {
            p.err("kind", "invalid-trace", format!("kind {k:?} is not a trace"), "kind: Trace");
        }
    }
    let mut trace = Trace::default();
    if let Some(s) = root.get("start") {
        if let Some(text) = p.str(s, "start") {
            match parse_rfc3339(text) {
                Some(t) => trace.start = Some(t),
                None => p.err("start", "invalid-timestamp", format!("{text:?} is not an RFC 3339 time"), "e.g. 2025-03-03T00:00:00Z"),
            }
        }
    }
    if let Some(e) = root.get("end") {
        trace.end = p.at(e, "end", trace.start);
        if trace.end == Some(0) {
            p.err("end", "out-of-range", "end must be after the start", "e.g. 7d");
        }
    }
    let mut defs: Vec<(String, WorkloadDef)> = Vec::new();
    match root.get("workloads") {
        None | Some(Value::Null) => {}
        Some(Value::Object(w)) => {
            for (k, v) in w {
                if let Some(d) = p.def(v, &format!("workloads.{k}"), &[]) {
                    defs.push((k.clone(), d));
                }
            }
        }
        Some(_) => p.err(
            "workloads",
            "wrong-type",
            "workloads must be a mapping of name → definition",
            "workloads: {train: {ref: Job/ml/train, runTime: 1h}}",
        ),
    }
    let events = match root.get("events") {
        Some(Value::Array(a)) => a.as_slice(),
        None | Some(Value::Null) => &[],
        Some(_) => {
            p.err("events", "wrong-type", "events must be a list", "events: [{at: 0s, submit: train}]");
            &[]
        }
    };
    for (i, ev) in events.iter().enumerate() {
        let path = format!("events[{i}]");
        let Value::Object(o) = ev else {
            p.err(&path, "wrong-type", "an event is a mapping", "{at: 1h, submit: train}");
            continue;
        };
        for k in o.keys() {
            if !["at", "submit", "scale", "delete", "interrupt", "reservationInterrupt", "condition", "nodePool", "name", "repeat"]
                .contains(&k.as_str())
            {
                p.err(
                    &format!("{path}.{k}"),
                    "unknown-field",
                    format!("unknown field {k:?}"),
                    "at, submit, scale, delete, interrupt, reservationInterrupt, condition, nodePool, name, repeat",
                );
            }
        }
        let Some(at) = o.get("at").and_then(|v| p.at(v, &format!("{path}.at"), trace.start)) else {
            if !o.contains_key("at") {
                p.err(&format!("{path}.at"), "required", "an event needs `at`", DURATION_HELP);
            }
            continue;
        };
        let actions: Vec<&str> = ["submit", "scale", "delete", "interrupt", "reservationInterrupt", "condition", "nodePool"]
            .into_iter()
            .filter(|k| o.contains_key(*k))
            .collect();
        if actions.len() != 1 {
            p.err(
                &path,
                "invalid-event",
                format!(
                    "an event has exactly one of submit, scale, delete, interrupt, reservationInterrupt, condition, nodePool; found {}",
                    actions.len()
                ),
                "e.g. {at: 1h, submit: train}",
            );
            continue;
        }
        let name = o.get("name").and_then(|n| p.str(n, &format!("{path}.name"))).map(str::to_string);
        let action = match actions[0] {
            "submit" => {
                let sp = format!("{path}.submit");
                let def = match &o["submit"] {
                    Value::String(s) => match defs.iter().find(|(k, _)| k == s) {
                        Some((_, d)) => Some(d.clone()),
                        None => {
                            let known: Vec<&str> = defs.iter().map(|(k, _)| k.as_str()).collect();
                            p.err(
                                &sp,
                                "unknown-workload",
                                format!("no workload definition named {s:?}"),
                                &format!("one of the trace's workloads: {}", known.join(", ")),
                            );
                            None
                        }
                    },
                    v => p.def(v, &sp, &[]),
                };
                let Some(def) = def else { continue };
                Action::Submit { def, name }
            }
            "scale" => {
                let sp = format!("{path}.scale");
                let Value::Object(s) = &o["scale"] else {
                    p.err(&sp, "wrong-type", "scale is {workload, replicas}", "scale: {workload: vllm, replicas: 4}");
                    continue;
                };
                let w = s.get("workload").and_then(|w| p.str(w, &format!("{sp}.workload")));
                let r = s.get("replicas").and_then(|r| p.replicas(r, &format!("{sp}.replicas")));
                match (w, r) {
                    (Some(w), Some(r)) => Action::Scale { instance: w.to_string(), replicas: r },
                    _ => {
                        p.err(&sp, "required", "scale needs workload and replicas", "scale: {workload: vllm, replicas: 4}");
                        continue;
                    }
                }
            }
            "delete" => match p.str(&o["delete"], &format!("{path}.delete")) {
                Some(w) => Action::Delete { instance: w.to_string() },
                None => continue,
            },
            "nodePool" => match &o["nodePool"] {
                m @ Value::Object(_) => Action::EditNodePool { manifest: std::sync::Arc::new(m.clone()) },
                _ => {
                    p.err(
                        &format!("{path}.nodePool"),
                        "wrong-type",
                        "nodePool is the NodePool manifest that replaces the one of its name",
                        "nodePool: {apiVersion: karpenter.sh/v1, kind: NodePool, metadata: {name: default}, spec: {...}}",
                    );
                    continue;
                }
            },
            "reservationInterrupt" => match super::res_notice::parse(&o["reservationInterrupt"], &format!("{path}.reservationInterrupt")) {
                Ok(n) => Action::ReservationInterrupt(n),
                Err(errors) => {
                    for (at, code, msg, help) in errors {
                        p.err(&at, code, msg, help);
                    }
                    continue;
                }
            },
            "condition" => match super::conditions::parse(&o["condition"], &format!("{path}.condition")) {
                Ok(c) => Action::Condition(c),
                Err(errors) => {
                    for (at, code, msg, help) in errors {
                        p.err(&at, code, msg, help);
                    }
                    continue;
                }
            },
            _ => match p.str(&o["interrupt"], &format!("{path}.interrupt")) {
                Some(n) => Action::Interrupt { node: n.to_string() },
                None => continue,
            },
        };
        let (mut every, mut times) = (0, 1);
        if let Some(r) = o.get("repeat") {
            let rp = format!("{path}.repeat");
            match (r.get("every"), r.get("times")) {
                (Some(e), Some(t)) => {
                    every = p.duration(e, &format!("{rp}.every")).unwrap_or(0);
                    times = p.int(t, &format!("{rp}.times")).unwrap_or(1);
                    if every == 0 || !(1..=100_000).contains(&times) {
                        p.err(&rp, "out-of-range", "repeat needs every > 0 and 1 ≤ times ≤ 100000", "repeat: {every: 24h, times: 7}");
                        continue;
                    }
                    // Both factors are bounded, so the product cannot overflow; the last repeat
                    // must still fall inside the simulator's time bound.
                    if at + every * (times - 1) > MAX_SECONDS {
                        p.err(
                            &rp,
                            "out-of-range",
                            format!("the last repeat would be more than {MAX_SECONDS} s (ten years) after the start"),
                            "fewer times or a shorter every",
                        );
                        continue;
                    }
                    if !matches!(action, Action::Submit { .. }) {
                        p.err(&rp, "invalid-event", "only submit events repeat", "move repeat to a submit event");
                        continue;
                    }
                }
                _ => {
                    p.err(&rp, "required", "repeat needs every and times", "repeat: {every: 24h, times: 7}");
                    continue;
                }
            }
        }
        // Bounded before the repeats are made: each factor is capped, their product is not.
        let total = (trace.events.len() as u64).saturating_add(times as u64);
        if total > max_events {
            let msg = format!(
                "the trace has {total} events by this one ({times} repeats); the simulation's maxEvents is {max_events}, and each trace event is one"
            );
            p.limit(&path, msg, "fewer repeats or events, or a larger simulation.maxEvents");
            break;
        }
        for k in 0..times {
            let mut action = action.clone();
            if times > 1 {
                if let Action::Submit { name, def } = &mut action {
                    let base = name.clone().unwrap_or_else(|| default_name(def));
                    *name = Some(format!("{base}-r{}", k + 1));
                }
            }
            trace.events.push(TraceEvent { at: at + every * k, action, path: path.clone(), line: None });
        }
    }
    if let Some(d) = root.get("demand").filter(|d| !d.is_null()) {
        // Each series point counts as an event against maxEvents, as the events above do.
        let budget = max_events.saturating_sub(trace.events.len() as u64);
        match super::demand::parse(d, trace.start, budget) {
            Ok(d) => trace.demand = d,
            Err(problems) => {
                for (path, code, msg, help) in problems {
                    if code == "too-many-events" {
                        p.limit(&path, msg, &help);
                    } else {
                        p.err(&path, code, msg, &help);
                    }
                }
            }
        }
    }
    if p.failed() {
        return Err(p.into_errors());
    }
    trace.events.sort_by_key(|e| e.at);
    Ok(trace)
}

/// The name a submitted workload gets when the event does not name it: the manifest's name.
pub fn default_name(def: &WorkloadDef) -> String {
    match &def.source {
        Source::Ref { name, .. } => name.clone(),
        Source::Manifest(m) => m.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("workload").to_string(),
    }
}

fn parse_csv(text: &str, name: Option<&str>, max_events: u64) -> Result<Trace, Vec<InputError>> {
    let mut p = P::new(name);
    let mut trace = Trace::default();
    let mut header_seen = false;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        p.line = Some(line);
        let l = raw.trim();
        if !header_seen && l.starts_with('#') {
            csv_directive(&mut p, &mut trace, l);
            continue;
        }
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let Some(cols) = csv_fields(l) else {
            p.err("", "invalid-csv", "a quoted field is not closed", CSV_HEADER);
            continue;
        };
        let cols: Vec<&str> = cols.iter().map(|c| c.trim()).collect();
        if !header_seen {
            header_seen = true;
            if cols != ["time", "workload", "replicas", "runTime"] {
                p.err("", "invalid-csv", format!("the header must be {CSV_HEADER:?}, found {}", shown(l)), CSV_HEADER);
                return Err(p.into_errors());
            }
            continue;
        }
        if cols.len() != 4 {
            p.err("", "invalid-csv", format!("expected 4 columns, found {}", cols.len()), CSV_HEADER);
            continue;
        }
        // Checked before the row is kept: a 10^7-row CSV under the input cap must not be
        // held whole before the simulation finds it is past maxEvents.
        if trace.events.len() as u64 >= max_events {
            let msg =
                format!("the trace has more than {max_events} rows; the simulation's maxEvents is {max_events}, and each row is one event");
            p.limit("", msg, "fewer rows, or a larger simulation.maxEvents");
            break;
        }
        let at = p.at(&Value::String(cols[0].into()), "time", trace.start);
        let source = p.reference(cols[1], "workload");
        let replicas = p.replicas(&Value::String(cols[2].into()), "replicas");
        let run = if cols[3].is_empty() {
            Some(None)
        } else {
            p.duration(&Value::String(cols[3].into()), "runTime").map(|d| Some(RunTime::Fixed(d)))
        };
        if let (Some(at), Some(source), Some(replicas), Some(run_time)) = (at, source, replicas, run) {
            let def = WorkloadDef { source, replicas: Some(replicas), run_time, checkpoint: None, path: "workload".into() };
            trace.events.push(TraceEvent { at, action: Action::Row { def, replicas }, path: "workload".into(), line: Some(line) });
        }
    }
    if !header_seen {
        p.line = None;
        p.err("", "invalid-csv", "the CSV trace is empty", CSV_HEADER);
    }
    if p.failed() {
        return Err(p.into_errors());
    }
    trace.events.sort_by_key(|e| e.at);
    Ok(trace)
}

/// A comment line before the CSV header: `# start: <RFC 3339>` gives the trace its start (what
/// `start:` is in a YAML trace), so rows may use RFC 3339 times; other comments are ignored.
fn csv_directive(p: &mut P, trace: &mut Trace, line: &str) {
    let Some(value) = line.trim_start_matches('#').trim().strip_prefix("start:") else { return };
    let value = value.trim().trim_matches('"');
    if trace.start.is_some() {
        p.err("start", "duplicate-field", "the trace's start is given twice", "one `# start: <RFC 3339>` line before the header");
        return;
    }
    match parse_rfc3339(value) {
        Some(t) => trace.start = Some(t),
        None => p.err("start", "invalid-timestamp", format!("{} is not an RFC 3339 time", shown(value)), "# start: 2025-03-03T00:00:00Z"),
    }
}

/// Text of the input quoted in a message: escaped (no control characters reach a terminal)
/// and at most 80 characters, however long the line.
fn shown(text: &str) -> String {
    let mut out: String = text.chars().take(80).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    format!("{out:?}")
}

/// One CSV record's fields (RFC 4180 quoting within a line: `"a,b"` is one field, `""` inside
/// quotes is a quote). None when a quote is not closed.
fn csv_fields(line: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.trim().is_empty() => {
                field.clear();
                quoted = true;
            }
            (false, ',') => fields.push(std::mem::take(&mut field)),
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return None;
    }
    fields.push(field);
    Some(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90"), Ok(90));
        assert_eq!(parse_duration("1h30m"), Ok(5400));
        assert_eq!(parse_duration("7d"), Ok(604_800));
        assert!(parse_duration("1h30").is_err());
        assert!(parse_duration("-5").is_err());
        assert!(parse_duration("5x").is_err());
        // Every duration is bounded, so sums of a few of them never overflow the clock.
        assert_eq!(parse_duration(&MAX_SECONDS.to_string()), Ok(MAX_SECONDS));
        assert!(parse_duration(&(MAX_SECONDS + 1).to_string()).unwrap_err().contains("ten years"));
        assert!(parse_duration("9223372036854775807").is_err());
        assert!(parse_duration("106751991167300d").is_err());
    }

    #[test]
    fn times_and_repeats_past_the_bound_are_located_errors() {
        let e = parse(
            "kind: Trace\nstart: 2025-03-03T00:00:00Z\nevents:\n- {at: 2040-01-01T00:00:00Z, submit: {ref: Job/x}}\n",
            None,
            "yaml",
            u64::MAX,
        )
        .unwrap_err();
        assert_eq!(e[0].path.as_deref(), Some("events[0].at"));
        let e = parse("kind: Trace\nevents:\n- {at: 1h, submit: {ref: Job/x}, repeat: {every: 3000d, times: 5}}\n", None, "yaml", u64::MAX)
            .unwrap_err();
        assert_eq!(e[0].path.as_deref(), Some("events[0].repeat"));
        assert!(e[0].message.contains("ten years"), "{}", e[0].message);
    }

    #[test]
    fn yaml_errors_are_located() {
        let e = parse(
            "kind: Trace\nevents:\n- {at: 1h, submit: {ref: Job/x, runTime: {distribution: gamma}}}\n",
            Some("t.yaml"),
            "auto",
            u64::MAX,
        )
        .unwrap_err();
        assert_eq!(e[0].path.as_deref(), Some("events[0].submit.runTime.distribution"));
        assert_eq!(e[0].source.as_deref(), Some("t.yaml"));
    }

    #[test]
    fn csv_rows_and_errors() {
        let t = parse("time,workload,replicas,runTime\n2h,Job/ml/a,1,1h\n0s,Deployment/web,3,\n", None, "auto", u64::MAX).unwrap();
        assert_eq!(t.events.len(), 2);
        assert_eq!(t.events[0].at, 0);
        let e = parse("time,workload,replicas,runTime\n1h,Job,1,1h\n", None, "csv", u64::MAX).unwrap_err();
        assert_eq!(e[0].line, Some(2));
        assert_eq!(e[0].path.as_deref(), Some("workload"));
    }

    #[test]
    fn csv_from_spreadsheets() {
        let t =
            parse("\u{feff}\"time\",\"workload\",\"replicas\",\"runTime\"\r\n\"2h\",\"Job/ml/a\",\"1\",\"1h\"\r\n", None, "auto", u64::MAX)
                .unwrap();
        assert_eq!(t.events.len(), 1);
        assert_eq!(t.events[0].at, 7200);
        assert_eq!(csv_fields(r#"a,"b,c","d""e""#), Some(vec!["a".to_string(), "b,c".into(), "d\"e".into()]));
        let e = parse("time,workload,replicas,runTime\n\"2h,Job/ml/a,1,1h\n", None, "csv", u64::MAX).unwrap_err();
        assert_eq!(e[0].line, Some(2));
    }

    #[test]
    fn repeat_expands() {
        let t = parse(
            "kind: Trace\nevents:\n- {at: 22h, submit: {ref: Job/train, runTime: 1h}, repeat: {every: 1d, times: 3}}\n",
            None,
            "yaml",
            u64::MAX,
        )
        .unwrap();
        assert_eq!(t.events.iter().map(|e| e.at).collect::<Vec<_>>(), vec![79_200, 165_600, 252_000]);
        assert!(matches!(&t.events[2].action, Action::Submit { name: Some(n), .. } if n == "train-r3"));
    }
}
