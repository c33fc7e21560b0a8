//! Demand in the trace (`demand:`): one series per workload and metric, the load an HPA's
//! metrics are computed from (docs/simulate.md, "Demand and autoscaling"). A series is steps
//! (each value holds until the next), points (linear between them) or CSV text `time,value`.

use super::duration::{parse_duration, DURATION_HELP};
use super::settings::MAX_SECONDS;
use serde_json::{Map, Value};

/// Largest demand value accepted: 10^12 units keeps every milli-unit sum inside an `i64`.
pub const MAX_VALUE: f64 = 1e12;

/// (path, code, message, help) of one error; trace.rs locates it in the trace.
pub type Problem = (String, &'static str, String, String);

#[derive(Debug, Clone, PartialEq)]
pub struct Demand {
    /// The trace instance name of the workload (the HPA's `scaleTargetRef.name`).
    pub workload: String,
    /// The metric it feeds: a Pods/Object/External metric name, or a resource name.
    pub metric: String,
    /// Demand units one ready replica serves (served vs unserved demand); None: not reported.
    pub capacity: Option<f64>,
    /// Seconds from a pod's start to Ready; None: the template's readinessProbe decides.
    pub readiness: Option<i64>,
    /// Seconds each Job of a ScaledJob runs (the ScaledJob's series only).
    pub run_time: Option<i64>,
    /// Linear between points (else steps).
    pub linear: bool,
    /// (second, value), sorted by time; the value before the first point is the first value.
    pub points: Vec<(i64, f64)>,
    pub path: String,
}

impl Demand {
    /// The demand at simulated second `t`.
    pub fn at(&self, t: i64) -> f64 {
        let i = self.points.partition_point(|p| p.0 <= t);
        if i == 0 {
            return self.points.first().map_or(0.0, |p| p.1);
        }
        let (t0, v0) = self.points[i - 1];
        match self.points.get(i) {
            Some(&(t1, v1)) if self.linear && t1 > t0 => v0 + (v1 - v0) * (t - t0) as f64 / (t1 - t0) as f64,
            _ => v0,
        }
    }

    /// The times the demand rises in a step (steps series) or starts rising (points series).
    pub fn rises(&self) -> Vec<i64> {
        self.points.windows(2).filter(|w| w[1].1 > w[0].1).map(|w| if self.linear { w[0].0 } else { w[1].0 }).collect()
    }
}

struct Ctx {
    problems: Vec<Problem>,
    start: Option<i64>,
}

impl Ctx {
    fn err(&mut self, path: &str, code: &'static str, msg: impl Into<String>, help: &str) {
        self.problems.push((path.to_string(), code, msg.into(), help.to_string()));
    }

    fn time(&mut self, v: &Value, path: &str) -> Option<i64> {
        let text = match v {
            Value::String(s) => s.trim().to_string(),
            Value::Number(n) if n.as_i64().is_some() => n.to_string(),
            _ => {
                self.err(path, "wrong-type", "expected a duration or an RFC 3339 time", DURATION_HELP);
                return None;
            }
        };
        if text.contains('T') {
            let Ok(t) = text.parse::<jiff::Timestamp>() else {
                self.err(path, "invalid-timestamp", format!("{text:?} is not an RFC 3339 time"), "e.g. 2025-03-03T09:00:00Z");
                return None;
            };
            let Some(start) = self.start else {
                self.err(path, "required", "an RFC 3339 time needs the trace's `start`", "start: 2025-03-03T00:00:00Z");
                return None;
            };
            let d = t.as_second() - start;
            if !(0..=MAX_SECONDS).contains(&d) {
                self.err(path, "out-of-range", format!("{text} is not within ten years after the trace start"), "a time after `start`");
                return None;
            }
            return Some(d);
        }
        match parse_duration(&text) {
            Ok(d) => Some(d),
            Err(e) => {
                self.err(path, "invalid-duration", e, DURATION_HELP);
                None
            }
        }
    }

    fn value(&mut self, v: &Value, path: &str) -> Option<f64> {
        let x = v.as_f64().or_else(|| v.as_str().and_then(|s| s.trim().parse::<f64>().ok()));
        match x {
            Some(x) if x.is_finite() && (0.0..=MAX_VALUE).contains(&x) => Some(x),
            _ => {
                self.err(
                    path,
                    "out-of-range",
                    format!("expected a number from 0 to 10^12, found {}", crate::manifest::reader::render_short(v)),
                    "e.g. 120",
                );
                None
            }
        }
    }
}

/// Parse the trace's `demand:` list. `budget`: series points it may hold in all (the
/// simulation's maxEvents less the trace's events), so a series is bounded like the events.
pub fn parse(v: &Value, start: Option<i64>, budget: u64) -> Result<Vec<Demand>, Vec<Problem>> {
    let mut c = Ctx { problems: Vec::new(), start };
    let Value::Array(list) = v else {
        c.err("demand", "wrong-type", "demand is a list of series", "demand: [{workload: vllm, metric: gpu_utilization, steps: [...]}]");
        return Err(c.problems);
    };
    let mut out: Vec<Demand> = Vec::new();
    let mut total: u64 = 0;
    for (i, d) in list.iter().enumerate() {
        let path = format!("demand[{i}]");
        let Value::Object(o) = d else {
            c.err(&path, "wrong-type", "a demand series is a mapping", "{workload: vllm, metric: gpu_utilization, steps: [...]}");
            continue;
        };
        if let Some(d) = series(&mut c, o, &path) {
            total += d.points.len() as u64;
            if total > budget {
                c.err(
                    &path,
                    "too-many-events",
                    format!("the demand series hold more than {budget} points; each point counts against the simulation's maxEvents"),
                    "fewer points, or a larger simulation.maxEvents",
                );
                break;
            }
            if out.iter().any(|e| e.workload == d.workload && e.metric == d.metric) {
                c.err(
                    &format!("{path}.metric"),
                    "duplicate-field",
                    format!("{:?} already has a series for metric {:?}", d.workload, d.metric),
                    "one series per workload and metric",
                );
                continue;
            }
            if let Some(other) = out
                .iter()
                .find(|e| e.workload == d.workload && e.readiness.is_some() && d.readiness.is_some() && e.readiness != d.readiness)
            {
                c.err(
                    &format!("{path}.readinessDelay"),
                    "conflict",
                    format!("{} gives {:?} another readinessDelay", other.path, d.workload),
                    "one readinessDelay per workload",
                );
                continue;
            }
            out.push(d);
        }
    }
    if c.problems.is_empty() {
        Ok(out)
    } else {
        Err(c.problems)
    }
}

const FIELDS: [&str; 9] =
    ["workload", "metric", "capacityPerReplica", "readinessDelay", "runTime", "steps", "points", "csv", "description"];

fn series(c: &mut Ctx, o: &Map<String, Value>, path: &str) -> Option<Demand> {
    for k in o.keys() {
        if !FIELDS.contains(&k.as_str()) {
            c.err(&format!("{path}.{k}"), "unknown-field", format!("unknown field {k:?}"), &FIELDS.join(", "));
        }
    }
    let mut text = |f: &str| match o.get(f) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
        _ => {
            c.err(&format!("{path}.{f}"), "required", format!("a demand series needs {f}"), "a non-empty string");
            None
        }
    };
    let workload = text("workload");
    let metric = text("metric");
    let capacity = match o.get("capacityPerReplica") {
        None | Some(Value::Null) => None,
        Some(v) => match c.value(v, &format!("{path}.capacityPerReplica")) {
            Some(x) if x > 0.0 => Some(x),
            Some(_) => {
                c.err(&format!("{path}.capacityPerReplica"), "out-of-range", "capacityPerReplica must be > 0", "e.g. 100");
                None
            }
            None => None,
        },
    };
    let readiness = match o.get("readinessDelay") {
        None | Some(Value::Null) => None,
        Some(v) => match v {
            Value::String(_) | Value::Number(_) => match parse_duration(&v.as_str().map_or_else(|| v.to_string(), str::to_string)) {
                Ok(d) => Some(d),
                Err(e) => {
                    c.err(&format!("{path}.readinessDelay"), "invalid-duration", e, DURATION_HELP);
                    None
                }
            },
            _ => {
                c.err(&format!("{path}.readinessDelay"), "wrong-type", "expected a duration", DURATION_HELP);
                None
            }
        },
    };
    let run_time = match o.get("runTime") {
        None | Some(Value::Null) => None,
        Some(v @ (Value::String(_) | Value::Number(_))) => {
            match parse_duration(&v.as_str().map_or_else(|| v.to_string(), str::to_string)) {
                Ok(d) if d > 0 => Some(d),
                Ok(_) => {
                    c.err(&format!("{path}.runTime"), "out-of-range", "runTime must be longer than 0s", "e.g. 20m");
                    None
                }
                Err(e) => {
                    c.err(&format!("{path}.runTime"), "invalid-duration", e, DURATION_HELP);
                    None
                }
            }
        }
        Some(_) => {
            c.err(&format!("{path}.runTime"), "wrong-type", "expected a duration", DURATION_HELP);
            None
        }
    };
    let forms: Vec<&str> = ["steps", "points", "csv"].into_iter().filter(|k| o.contains_key(*k)).collect();
    if forms.len() != 1 {
        c.err(
            path,
            "invalid-demand",
            format!("a demand series has exactly one of steps, points, csv; found {}", forms.len()),
            "steps: [{at: 0s, value: 100}, {at: 8h, value: 400}]",
        );
        return None;
    }
    let form = forms[0];
    let fp = format!("{path}.{form}");
    let mut points: Vec<(i64, f64)> = Vec::new();
    match (form, &o[form]) {
        ("csv", Value::String(s)) => csv(c, s, &fp, &mut points),
        ("csv", _) => c.err(&fp, "wrong-type", "csv is CSV text with the header time,value", "csv: \"time,value\\n0s,100\\n8h,400\""),
        (_, Value::Array(a)) => {
            for (j, p) in a.iter().enumerate() {
                let pp = format!("{fp}[{j}]");
                match p {
                    Value::Object(po) => {
                        for k in po.keys() {
                            if k != "at" && k != "value" {
                                c.err(&format!("{pp}.{k}"), "unknown-field", format!("unknown field {k:?}"), "at, value");
                            }
                        }
                        let at = po.get("at").and_then(|v| c.time(v, &format!("{pp}.at")));
                        let val = po.get("value").and_then(|v| c.value(v, &format!("{pp}.value")));
                        if !po.contains_key("at") || !po.contains_key("value") {
                            c.err(&pp, "required", "a point needs at and value", "{at: 8h, value: 400}");
                        }
                        if let (Some(at), Some(val)) = (at, val) {
                            points.push((at, val));
                        }
                    }
                    _ => c.err(&pp, "wrong-type", "a point is {at, value}", "{at: 8h, value: 400}"),
                }
            }
        }
        _ => c.err(&fp, "wrong-type", format!("{form} is a list of {{at, value}}"), "[{at: 0s, value: 100}, {at: 8h, value: 400}]"),
    }
    if points.is_empty() {
        c.err(&fp, "required", "a demand series needs at least one point", "[{at: 0s, value: 100}]");
        return None;
    }
    for w in points.windows(2) {
        if w[1].0 <= w[0].0 {
            c.err(
                &fp,
                "unsorted",
                format!("times must increase: {} s is not after {} s", w[1].0, w[0].0),
                "points in time order, one per time",
            );
            return None;
        }
    }
    Some(Demand {
        workload: workload?,
        metric: metric?,
        capacity,
        readiness,
        run_time,
        linear: form == "points",
        points,
        path: path.to_string(),
    })
}

/// `time,value` CSV text (a header line, then one row per step; `#` comments and blank lines
/// are skipped). Errors name the row as `csv:LINE`.
fn csv(c: &mut Ctx, text: &str, path: &str, out: &mut Vec<(i64, f64)>) {
    let mut header = false;
    for (i, raw) in text.lines().enumerate() {
        let l = raw.trim().trim_start_matches('\u{feff}');
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let lp = format!("{path}:{}", i + 1);
        let cols: Vec<&str> = l.split(',').map(|s| s.trim().trim_matches('"')).collect();
        if !header {
            header = true;
            if cols != ["time", "value"] {
                c.err(&lp, "invalid-csv", format!("the header must be \"time,value\", found {l:?}"), "time,value");
                return;
            }
            continue;
        }
        if cols.len() != 2 {
            c.err(&lp, "invalid-csv", format!("expected 2 columns, found {}", cols.len()), "time,value");
            continue;
        }
        let at = c.time(&Value::String(cols[0].into()), &lp);
        let v = c.value(&Value::String(cols[1].into()), &lp);
        if let (Some(at), Some(v)) = (at, v) {
            out.push((at, v));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn steps_points_and_csv() {
        let d = parse(
            &json!([{"workload": "w", "metric": "m", "steps": [{"at": "0s", "value": 100}, {"at": "1h", "value": 400}]}]),
            None,
            1000,
        )
        .unwrap();
        assert_eq!((d[0].at(0), d[0].at(3599), d[0].at(3600)), (100.0, 100.0, 400.0));
        assert_eq!(d[0].rises(), vec![3600]);
        let d =
            parse(&json!([{"workload": "w", "metric": "m", "points": [{"at": 0, "value": 0}, {"at": "100s", "value": 100}]}]), None, 1000)
                .unwrap();
        assert_eq!((d[0].at(50), d[0].at(500)), (50.0, 100.0));
        let d = parse(&json!([{"workload": "w", "metric": "m", "csv": "time,value\n0s,5\n2h,7\n"}]), None, 1000).unwrap();
        assert_eq!(d[0].points, vec![(0, 5.0), (7200, 7.0)]);
    }

    #[test]
    fn errors_are_located_and_series_bounded() {
        let e =
            parse(&json!([{"workload": "w", "metric": "m", "steps": [{"at": "1h", "value": 1}, {"at": "0s", "value": 2}]}]), None, 1000)
                .unwrap_err();
        assert_eq!(e[0].0, "demand[0].steps");
        let e = parse(&json!([{"workload": "w", "metric": "m", "steps": [{"at": "0s", "value": -1}]}]), None, 1000).unwrap_err();
        assert_eq!(e[0].0, "demand[0].steps[0].value");
        let e = parse(&json!([{"workload": "w", "metric": "m", "csv": "time,value\n0s,x\n"}]), None, 1000).unwrap_err();
        assert_eq!(e[0].0, "demand[0].csv:2");
        let e = parse(&json!([{"workload": "w", "metric": "m", "steps": [{"at": 0, "value": 1}, {"at": 1, "value": 2}]}]), None, 1)
            .unwrap_err();
        assert_eq!(e[0].1, "too-many-events");
        let e = parse(&json!([{"workload": "w", "steps": [{"at": 0, "value": 1}], "extra": 1}]), None, 10).unwrap_err();
        assert!(e.iter().any(|p| p.0 == "demand[0].extra") && e.iter().any(|p| p.0 == "demand[0].metric"), "{e:?}");
    }
}
