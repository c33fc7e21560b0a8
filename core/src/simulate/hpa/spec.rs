//! A HorizontalPodAutoscaler (autoscaling/v2, or v1 converted as the apiserver does) read from
//! the cluster inputs and checked as the apiserver checks it (Kubernetes
//! pkg/apis/autoscaling/validation/validation.go), with the apiserver's defaults filled in
//! (pkg/apis/autoscaling/v2/defaults.go). Errors are located by document, object and field path.

use crate::error::{ErrorKind, InputError};
use serde_json::{Map, Value};

/// Longest policy period and stabilization window the apiserver accepts (validation.go).
pub const MAX_PERIOD_SECONDS: i64 = 1800;
pub const MAX_STABILIZATION_SECONDS: i64 = 3600;
/// The kube-controller-manager's default `--horizontal-pod-autoscaler-downscale-stabilization`.
pub const DEFAULT_DOWNSCALE_WINDOW: i64 = 300;
/// The default `--horizontal-pod-autoscaler-tolerance`.
pub const DEFAULT_TOLERANCE: f64 = 0.1;

/// Which metric source feeds one `spec.metrics[i]`.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// `Resource` (or `ContainerResource`): the pods' usage of a resource against their requests.
    Resource { resource: String },
    /// `Pods`: a per-pod custom metric.
    Pods,
    /// `Object`: one value describing another object.
    Object,
    /// `External`: a value from outside the cluster.
    External,
}

/// The target the controller uses: which of value / averageValue / averageUtilization is set
/// decides it (the controller reads the fields, not `target.type`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// Milli-units.
    Value(i64),
    /// Milli-units per pod.
    AverageValue(i64),
    /// Percent of the pods' requests.
    Utilization(i32),
}

#[derive(Debug, Clone, PartialEq)]
pub struct MetricSpec {
    pub source: Source,
    /// The metric name (the resource name for Resource metrics): the demand series it reads.
    pub name: String,
    pub target: Target,
    /// `spec.metrics[i]`, for messages.
    pub path: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Select {
    Max,
    Min,
    Disabled,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyKind {
    Pods,
    Percent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    pub kind: PolicyKind,
    pub value: i32,
    pub period: i32,
}

/// One direction of `behavior`, defaults filled in. `window` None: the controller's downscale
/// default (only scaleDown leaves it unset).
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    pub window: Option<i64>,
    pub select: Select,
    pub policies: Vec<Policy>,
    pub tolerance: Option<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Behavior {
    pub up: Rules,
    pub down: Rules,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HpaSpec {
    pub namespace: String,
    pub name: String,
    /// `scaleTargetRef`: kind and name (its namespace is the HPA's).
    pub target_kind: String,
    pub target_name: String,
    pub min_replicas: i32,
    pub max_replicas: i32,
    pub metrics: Vec<MetricSpec>,
    /// None: the HPA has no `behavior` (the controller's older rules apply).
    pub behavior: Option<Behavior>,
    /// Where it came from, for errors found later (a metric without a demand series).
    pub source: Option<String>,
    pub document: usize,
}

impl HpaSpec {
    pub fn object(&self) -> String {
        format!("HorizontalPodAutoscaler/{}/{}", self.namespace, self.name)
    }
}

/// The apiserver's scale-up rules default: 4 pods or 100 % per 15 s, whichever is more, no window.
pub fn default_up() -> Rules {
    Rules {
        window: Some(0),
        select: Select::Max,
        policies: vec![
            Policy { kind: PolicyKind::Pods, value: 4, period: 15 },
            Policy { kind: PolicyKind::Percent, value: 100, period: 15 },
        ],
        tolerance: None,
    }
}

/// The scale-down default: 100 % per 15 s, the controller's downscale window.
pub fn default_down() -> Rules {
    Rules {
        window: None,
        select: Select::Max,
        policies: vec![Policy { kind: PolicyKind::Percent, value: 100, period: 15 }],
        tolerance: None,
    }
}

struct Ctx<'a> {
    errors: Vec<InputError>,
    source: Option<&'a str>,
    document: usize,
    object: String,
}

impl Ctx<'_> {
    fn err(&mut self, path: &str, code: &str, msg: impl Into<String>, help: &str) {
        let mut e = InputError::new(code, msg).at_document(self.document).object(self.object.clone()).path(path).help(help);
        e.source = self.source.map(str::to_string);
        e.kind = ErrorKind::Admission;
        self.errors.push(e);
    }

    fn int(&mut self, v: Option<&Value>, path: &str) -> Option<i64> {
        let v = v?;
        match v.as_i64() {
            Some(n) if i32::try_from(n).is_ok() => Some(n),
            _ => {
                self.err(
                    path,
                    "wrong-type",
                    format!("expected a 32-bit integer, found {}", crate::manifest::reader::render_short(v)),
                    "e.g. 2",
                );
                None
            }
        }
    }

    fn string<'v>(&mut self, v: Option<&'v Value>, path: &str, required: bool) -> Option<&'v str> {
        match v {
            Some(Value::String(s)) if !s.is_empty() => Some(s),
            None | Some(Value::Null) if !required => None,
            Some(Value::String(_)) | None | Some(Value::Null) => {
                self.err(path, "required", "must be set", "a non-empty string");
                None
            }
            Some(v) => {
                self.err(path, "wrong-type", format!("expected a string, found {}", crate::manifest::reader::render_short(v)), "a string");
                None
            }
        }
    }

    /// A quantity in milli-units (`resource.Quantity.MilliValue`, rounded up).
    fn quantity(&mut self, v: &Value, path: &str) -> Option<i64> {
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => {
                self.err(path, "wrong-type", "expected a quantity", crate::quantity::QUANTITY_HELP);
                return None;
            }
        };
        match crate::quantity::parse_milli(&text) {
            Ok(m) => Some(m),
            Err(e) => {
                self.err(path, "invalid-quantity", e.to_string(), crate::quantity::QUANTITY_HELP);
                None
            }
        }
    }

    fn unknown(&mut self, o: &Map<String, Value>, path: &str, known: &[&str]) {
        for k in o.keys() {
            if !known.contains(&k.as_str()) {
                self.err(&format!("{path}.{k}"), "unknown-field", format!("unknown field {k:?}"), &known.join(", "));
            }
        }
    }
}

/// A path segment name as the apiserver requires of names in references (`IsPathSegmentName`).
fn path_segment_ok(s: &str) -> bool {
    s != "." && s != ".." && !s.contains('/') && !s.contains('%')
}

/// Read one HorizontalPodAutoscaler document. `api`: its apiVersion (autoscaling/v1 or v2).
pub fn parse(doc: &Value, api: &str, source: Option<&str>, document: usize) -> Result<HpaSpec, Vec<InputError>> {
    let name = doc.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
    let namespace = doc.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default").to_string();
    let mut c = Ctx { errors: Vec::new(), source, document, object: format!("HorizontalPodAutoscaler/{namespace}/{name}") };
    if name.is_empty() {
        c.err("metadata.name", "required", "a HorizontalPodAutoscaler needs a name", "metadata: {name: vllm}");
    }
    let empty = Map::new();
    let spec = match doc.get("spec") {
        Some(Value::Object(o)) => o,
        _ => {
            c.err("spec", "required", "a HorizontalPodAutoscaler needs a spec", "spec: {scaleTargetRef: {...}, maxReplicas: 10}");
            &empty
        }
    };
    let v1 = api == "autoscaling/v1";
    let known: &[&str] = if v1 {
        &["scaleTargetRef", "minReplicas", "maxReplicas", "targetCPUUtilizationPercentage"]
    } else {
        &["scaleTargetRef", "minReplicas", "maxReplicas", "metrics", "behavior"]
    };
    c.unknown(spec, "spec", known);
    let min = match spec.get("minReplicas") {
        None | Some(Value::Null) => 1,
        v => c.int(v, "spec.minReplicas").unwrap_or(1),
    };
    // HPAScaleToZero is alpha and off by default in Kubernetes 1.36: minReplicas ≥ 1.
    if min < 1 {
        c.err(
            "spec.minReplicas",
            "out-of-range",
            format!("minReplicas {min} must be greater than or equal to 1"),
            "minReplicas ≥ 1 (scaling to zero needs the alpha HPAScaleToZero gate)",
        );
    }
    let max = match spec.get("maxReplicas") {
        None | Some(Value::Null) => {
            c.err("spec.maxReplicas", "required", "must be set and greater than 0", "maxReplicas: 10");
            1
        }
        v => c.int(v, "spec.maxReplicas").unwrap_or(1),
    };
    if max < 1 {
        c.err("spec.maxReplicas", "out-of-range", format!("maxReplicas {max} must be greater than or equal to 1"), "maxReplicas ≥ 1");
    } else if max < min {
        c.err(
            "spec.maxReplicas",
            "out-of-range",
            format!("maxReplicas {max} must be greater than or equal to minReplicas {min}"),
            "maxReplicas ≥ minReplicas",
        );
    }
    let (mut target_kind, mut target_name) = (String::new(), String::new());
    match spec.get("scaleTargetRef") {
        Some(Value::Object(r)) => {
            c.unknown(r, "spec.scaleTargetRef", &["apiVersion", "kind", "name"]);
            target_kind = c.string(r.get("kind"), "spec.scaleTargetRef.kind", true).unwrap_or("").to_string();
            target_name = c.string(r.get("name"), "spec.scaleTargetRef.name", true).unwrap_or("").to_string();
            for (f, s) in [("kind", &target_kind), ("name", &target_name)] {
                if !s.is_empty() && !path_segment_ok(s) {
                    c.err(
                        &format!("spec.scaleTargetRef.{f}"),
                        "invalid-value",
                        format!("{s:?} may not be '.' or '..' nor contain '/' or '%'"),
                        "a name",
                    );
                }
            }
            if let Some(a) = c.string(r.get("apiVersion"), "spec.scaleTargetRef.apiVersion", false) {
                let group = a.split_once('/').map_or("", |(g, _)| g);
                if a.matches('/').count() > 1 || a.ends_with('/') {
                    c.err("spec.scaleTargetRef.apiVersion", "invalid-value", format!("{a:?} is not a group/version"), "apps/v1");
                } else if group.is_empty() && a.contains('/') {
                    c.err("spec.scaleTargetRef.apiVersion", "invalid-value", format!("{a:?}: the group is empty"), "apps/v1");
                }
            }
        }
        _ => c.err(
            "spec.scaleTargetRef",
            "required",
            "a HorizontalPodAutoscaler needs scaleTargetRef",
            "scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: vllm}",
        ),
    }
    let metrics = if v1 {
        let util = match spec.get("targetCPUUtilizationPercentage") {
            None | Some(Value::Null) => 80,
            v => c.int(v, "spec.targetCPUUtilizationPercentage").unwrap_or(80),
        };
        if util < 1 {
            c.err("spec.targetCPUUtilizationPercentage", "out-of-range", "must be greater than 0", "e.g. 80");
        }
        vec![MetricSpec {
            source: Source::Resource { resource: "cpu".into() },
            name: "cpu".into(),
            target: Target::Utilization(util as i32),
            path: "spec.targetCPUUtilizationPercentage".into(),
        }]
    } else {
        match spec.get("metrics") {
            None | Some(Value::Null) => {
                // The apiserver's default: CPU at 80 % of requests.
                vec![MetricSpec {
                    source: Source::Resource { resource: "cpu".into() },
                    name: "cpu".into(),
                    target: Target::Utilization(80),
                    path: "spec.metrics".into(),
                }]
            }
            Some(Value::Array(a)) if a.is_empty() => {
                vec![MetricSpec {
                    source: Source::Resource { resource: "cpu".into() },
                    name: "cpu".into(),
                    target: Target::Utilization(80),
                    path: "spec.metrics".into(),
                }]
            }
            Some(Value::Array(a)) => a.iter().enumerate().filter_map(|(i, m)| metric(&mut c, m, &format!("spec.metrics[{i}]"))).collect(),
            Some(_) => {
                c.err("spec.metrics", "wrong-type", "metrics is a list", "metrics: [{type: Pods, pods: {...}}]");
                Vec::new()
            }
        }
    };
    let behavior = match spec.get("behavior") {
        None | Some(Value::Null) => None,
        Some(Value::Object(b)) => {
            c.unknown(b, "spec.behavior", &["scaleUp", "scaleDown"]);
            let up = rules(&mut c, b.get("scaleUp"), "spec.behavior.scaleUp", default_up());
            let down = rules(&mut c, b.get("scaleDown"), "spec.behavior.scaleDown", default_down());
            Some(Behavior { up, down })
        }
        Some(_) => {
            c.err("spec.behavior", "wrong-type", "behavior is a mapping", "behavior: {scaleUp: {...}, scaleDown: {...}}");
            None
        }
    };
    if !c.errors.is_empty() {
        return Err(c.errors);
    }
    Ok(HpaSpec {
        namespace,
        name,
        target_kind,
        target_name,
        min_replicas: min as i32,
        max_replicas: max as i32,
        metrics,
        behavior,
        source: source.map(str::to_string),
        document,
    })
}

fn metric(c: &mut Ctx, m: &Value, path: &str) -> Option<MetricSpec> {
    let Value::Object(o) = m else {
        c.err(path, "wrong-type", "a metric is a mapping", "{type: Pods, pods: {metric: {name: ...}, target: {...}}}");
        return None;
    };
    c.unknown(o, path, &["type", "resource", "containerResource", "pods", "object", "external"]);
    let ty = c.string(o.get("type"), &format!("{path}.type"), true)?;
    let field = match ty {
        "Resource" => "resource",
        "ContainerResource" => "containerResource",
        "Pods" => "pods",
        "Object" => "object",
        "External" => "external",
        other => {
            c.err(
                &format!("{path}.type"),
                "unsupported-value",
                format!("unsupported metric source type {other:?}"),
                "ContainerResource, External, Object, Pods, Resource",
            );
            return None;
        }
    };
    for other in ["resource", "containerResource", "pods", "object", "external"] {
        if other != field && o.contains_key(other) {
            c.err(&format!("{path}.{other}"), "forbidden", "must populate the given metric source only", field);
        }
    }
    let Some(Value::Object(src)) = o.get(field) else {
        c.err(&format!("{path}.{field}"), "required", "must populate information for the given metric source", field);
        return None;
    };
    let sp = format!("{path}.{field}");
    let (source, name) = match field {
        "resource" | "containerResource" => {
            let known: &[&str] = if field == "resource" { &["name", "target"] } else { &["name", "container", "target"] };
            c.unknown(src, &sp, known);
            if field == "containerResource" {
                c.string(src.get("container"), &format!("{sp}.container"), true);
            }
            let r = c.string(src.get("name"), &format!("{sp}.name"), true)?.to_string();
            (Source::Resource { resource: r.clone() }, r)
        }
        _ => {
            let known: &[&str] = if field == "object" { &["describedObject", "metric", "target"] } else { &["metric", "target"] };
            c.unknown(src, &sp, known);
            if field == "object" {
                match src.get("describedObject") {
                    Some(Value::Object(d)) => {
                        c.string(d.get("kind"), &format!("{sp}.describedObject.kind"), true);
                        c.string(d.get("name"), &format!("{sp}.describedObject.name"), true);
                    }
                    _ => c.err(
                        &format!("{sp}.describedObject"),
                        "required",
                        "an Object metric names the object it describes",
                        "describedObject: {apiVersion: v1, kind: Service, name: vllm}",
                    ),
                }
            }
            let mp = format!("{sp}.metric");
            let n = match src.get("metric") {
                Some(Value::Object(mo)) => {
                    c.unknown(mo, &mp, &["name", "selector"]);
                    c.string(mo.get("name"), &format!("{mp}.name"), true)?.to_string()
                }
                _ => {
                    c.err(&format!("{mp}.name"), "required", "must specify a metric name", "metric: {name: gpu_utilization}");
                    return None;
                }
            };
            if !path_segment_ok(&n) {
                c.err(
                    &format!("{mp}.name"),
                    "invalid-value",
                    format!("{n:?} may not be '.' or '..' nor contain '/' or '%'"),
                    "a metric name",
                );
            }
            let s = match field {
                "pods" => Source::Pods,
                "object" => Source::Object,
                _ => Source::External,
            };
            (s, n)
        }
    };
    let tp = format!("{sp}.target");
    let Some(Value::Object(t)) = src.get("target") else {
        c.err(&tp, "required", "a metric needs a target", "target: {type: AverageValue, averageValue: 70}");
        return None;
    };
    c.unknown(t, &tp, &["type", "value", "averageValue", "averageUtilization"]);
    match t.get("type").and_then(Value::as_str) {
        Some("Utilization" | "Value" | "AverageValue") => {}
        Some(x) => c.err(
            &format!("{tp}.type"),
            "invalid-value",
            format!("{x:?} must be either Utilization, Value, or AverageValue"),
            "Utilization, Value or AverageValue",
        ),
        None => c.err(&format!("{tp}.type"), "required", "must specify a metric target type", "Utilization, Value or AverageValue"),
    }
    let value = t.get("value").and_then(|v| c.quantity(v, &format!("{tp}.value")));
    let avg = t.get("averageValue").and_then(|v| c.quantity(v, &format!("{tp}.averageValue")));
    let util = c.int(t.get("averageUtilization"), &format!("{tp}.averageUtilization"));
    for (f, v) in [("value", value), ("averageValue", avg)] {
        if v.is_some_and(|v| v <= 0) {
            c.err(&format!("{tp}.{f}"), "out-of-range", "must be positive", "a quantity > 0");
        }
    }
    if util.is_some_and(|u| u < 1) {
        c.err(&format!("{tp}.averageUtilization"), "out-of-range", "must be greater than 0", "e.g. 70");
    }
    // What each source accepts, and which field the controller then reads (horizontal.go).
    let target = match &source {
        Source::Resource { .. } => match (avg, util) {
            (Some(_), Some(_)) => {
                c.err(
                    &format!("{tp}.averageValue"),
                    "forbidden",
                    "may not set both a target raw value and a target utilization",
                    "averageValue or averageUtilization",
                );
                None
            }
            (Some(a), None) => Some(Target::AverageValue(a)),
            (None, Some(u)) => Some(Target::Utilization(u as i32)),
            (None, None) => {
                c.err(
                    &format!("{tp}.averageUtilization"),
                    "required",
                    "must set either a target raw value or a target utilization",
                    "averageUtilization: 70",
                );
                None
            }
        },
        Source::Pods => match avg {
            Some(a) => Some(Target::AverageValue(a)),
            None => {
                c.err(&format!("{tp}.averageValue"), "required", "must specify a positive target averageValue", "averageValue: 70");
                None
            }
        },
        Source::Object => match (value, avg) {
            // The controller prefers a Value target when target.type says Value.
            (Some(v), _) if t.get("type").and_then(Value::as_str) == Some("Value") => Some(Target::Value(v)),
            (_, Some(a)) if t.get("type").and_then(Value::as_str) == Some("AverageValue") => Some(Target::AverageValue(a)),
            (None, None) => {
                c.err(&format!("{tp}.averageValue"), "required", "must set either a target value or averageValue", "value: 10");
                None
            }
            _ => {
                c.err(
                    &format!("{tp}.type"),
                    "invalid-value",
                    "an Object metric's target.type names the field it sets (Value or AverageValue)",
                    "type: Value, value: 10",
                );
                None
            }
        },
        Source::External => match (value, avg) {
            (Some(_), Some(_)) => {
                c.err(
                    &format!("{tp}.value"),
                    "forbidden",
                    "may not set both a target value for metric and a per-pod target",
                    "value or averageValue",
                );
                None
            }
            (None, Some(a)) => Some(Target::AverageValue(a)),
            (Some(v), None) => Some(Target::Value(v)),
            (None, None) => {
                c.err(
                    &format!("{tp}.averageValue"),
                    "required",
                    "must set either a target value for metric or a per-pod target",
                    "averageValue: 30",
                );
                None
            }
        },
    };
    Some(MetricSpec { source, name, target: target?, path: path.to_string() })
}

fn rules(c: &mut Ctx, v: Option<&Value>, path: &str, mut out: Rules) -> Rules {
    let Some(v) = v.filter(|v| !v.is_null()) else { return out };
    let Value::Object(o) = v else {
        c.err(path, "wrong-type", "scaling rules are a mapping", "{stabilizationWindowSeconds: 60, policies: [...]}");
        return out;
    };
    c.unknown(o, path, &["stabilizationWindowSeconds", "selectPolicy", "policies", "tolerance"]);
    if let Some(w) = c.int(o.get("stabilizationWindowSeconds").filter(|v| !v.is_null()), &format!("{path}.stabilizationWindowSeconds")) {
        if !(0..=MAX_STABILIZATION_SECONDS).contains(&w) {
            c.err(
                &format!("{path}.stabilizationWindowSeconds"),
                "out-of-range",
                format!("{w} must be between 0 and {MAX_STABILIZATION_SECONDS}"),
                "0 to 3600",
            );
        }
        out.window = Some(w);
    }
    if let Some(s) = o.get("selectPolicy").filter(|v| !v.is_null()) {
        out.select = match s.as_str() {
            Some("Max") => Select::Max,
            Some("Min") => Select::Min,
            Some("Disabled") => Select::Disabled,
            _ => {
                c.err(
                    &format!("{path}.selectPolicy"),
                    "unsupported-value",
                    format!("unsupported value {}", crate::manifest::reader::render_short(s)),
                    "Disabled, Max, Min",
                );
                out.select
            }
        };
    }
    if let Some(t) = o.get("tolerance").filter(|v| !v.is_null()) {
        if let Some(m) = c.quantity(t, &format!("{path}.tolerance")) {
            if m < 0 {
                c.err(&format!("{path}.tolerance"), "out-of-range", "must be greater than or equal to 0", "e.g. 0.05");
            }
            out.tolerance = Some(m as f64 / 1000.0);
        }
    }
    if let Some(p) = o.get("policies").filter(|v| !v.is_null()) {
        let pp = format!("{path}.policies");
        let Value::Array(list) = p else {
            c.err(&pp, "wrong-type", "policies is a list", "[{type: Pods, value: 2, periodSeconds: 60}]");
            return out;
        };
        if list.is_empty() {
            c.err(&pp, "required", "must specify at least one Policy", "[{type: Pods, value: 2, periodSeconds: 60}]");
        }
        let mut policies = Vec::new();
        for (i, pol) in list.iter().enumerate() {
            let ip = format!("{pp}[{i}]");
            let Value::Object(po) = pol else {
                c.err(&ip, "wrong-type", "a policy is a mapping", "{type: Pods, value: 2, periodSeconds: 60}");
                continue;
            };
            c.unknown(po, &ip, &["type", "value", "periodSeconds"]);
            let kind = match po.get("type").and_then(Value::as_str) {
                Some("Pods") => Some(PolicyKind::Pods),
                Some("Percent") => Some(PolicyKind::Percent),
                _ => {
                    c.err(&format!("{ip}.type"), "unsupported-value", "a policy's type is Pods or Percent", "Percent, Pods");
                    None
                }
            };
            let value = c.int(po.get("value").or(Some(&Value::Null)).filter(|v| !v.is_null()), &format!("{ip}.value")).unwrap_or(0);
            if value <= 0 {
                c.err(&format!("{ip}.value"), "out-of-range", "must be greater than zero", "e.g. 2");
            }
            let period = c.int(po.get("periodSeconds").filter(|v| !v.is_null()), &format!("{ip}.periodSeconds")).unwrap_or(0);
            if period <= 0 {
                c.err(&format!("{ip}.periodSeconds"), "out-of-range", "must be greater than zero", "e.g. 60");
            } else if period > MAX_PERIOD_SECONDS {
                c.err(
                    &format!("{ip}.periodSeconds"),
                    "out-of-range",
                    format!("must be less than or equal to {MAX_PERIOD_SECONDS}"),
                    "at most 1800",
                );
            }
            if let Some(kind) = kind {
                policies.push(Policy { kind, value: value as i32, period: period as i32 });
            }
        }
        out.policies = policies;
    }
    out
}
