//! NodePool rules: admission NP-01..NP-58 (§3.1–3.6) and runtime RT-01..RT-07 (§3.7).
//! This file walks the object and holds the spec-level, disruption and nodeClassRef rules;
//! labels, taints and requirements have their own files.
//! NP-03, NP-55 and NP-56 are transition rules (they need the stored object) and are skipped.

use super::patterns as p;
use super::{get, q, Ctx, Layer, Provider};
use serde_json::{Map, Value};

const QUANTITY_RE: &str =
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";
const NILLABLE_DURATION_RE: &str = "^(([0-9]+(s|m|h))+|Never)$";
const DURATION_RE: &str = "^([0-9]+(s|m|h))+$";
const BUDGET_DURATION_RE: &str = "^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$";
const NODES_RE: &str = "^((100|[0-9]{1,2})%|[0-9]+)$";
const SCHEDULE_RE: &str = r"^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$";

pub(super) fn validate(cx: &mut Ctx, root: &Map<String, Value>, provider: Provider) {
    let Some(spec_v) = get(root, "spec") else {
        cx.required("spec", "NP-01", "a spec with template.spec.requirements and template.spec.nodeClassRef");
        return;
    };
    let Some(spec) = cx.obj(Some(spec_v), "spec") else {
        return;
    };

    // NP-06 / NP-07 / NP-05.
    let is_static = get(spec, "replicas").is_some();
    if let Some(r) = cx.int(get(spec, "replicas"), "spec.replicas") {
        cx.range("spec.replicas", r, Some(0), None, "NP-06");
    }
    if let Some(w) = cx.int(get(spec, "weight"), "spec.weight") {
        cx.range("spec.weight", w, Some(1), Some(100), "NP-07");
    }
    if is_static && get(spec, "weight").is_some() {
        let msg = "'weight' is not supported on static NodePools (NP-05)".to_string();
        cx.adm("static-nodepool", "spec.weight", msg, "no weight when replicas is set");
    }
    limits(cx, get(spec, "limits"), is_static);
    disruption(cx, get(spec, "disruption"), provider);

    let Some(tmpl_v) = get(spec, "template") else {
        cx.required("spec.template", "NP-02", "a template with spec.requirements and spec.nodeClassRef");
        return;
    };
    let Some(tmpl) = cx.obj(Some(tmpl_v), "spec.template") else {
        return;
    };
    if let Some(meta) = cx.obj(get(tmpl, "metadata"), "spec.template.metadata") {
        super::labels::labels(cx, get(meta, "labels"), provider);
        // NP-26: annotations are unconstrained beyond being a map of strings.
        cx.str_map(get(meta, "annotations"), "spec.template.metadata.annotations");
    }
    let Some(ts_v) = get(tmpl, "spec") else {
        cx.required("spec.template.spec", "NP-02", "a template spec with requirements and nodeClassRef");
        return;
    };
    let Some(ts) = cx.obj(Some(ts_v), "spec.template.spec") else {
        return;
    };
    let req_path = "spec.template.spec.requirements";
    match get(ts, "requirements") {
        None => cx.required(req_path, "NP-02", "a list of requirements (an empty list [] is allowed)"),
        Some(v) => {
            if let Some(a) = cx.arr(Some(v), req_path) {
                super::requirements::requirements(cx, a, provider);
            }
        }
    }
    let mut seen_taints = Vec::new();
    for field in ["taints", "startupTaints"] {
        let path = format!("spec.template.spec.{field}");
        if let Some(a) = cx.arr(get(ts, field), &path) {
            super::taints::taints(cx, a, field, &path, &mut seen_taints);
        }
    }
    node_class_ref(cx, get(ts, "nodeClassRef"));
    crd_duration(cx, get(ts, "expireAfter"), "spec.template.spec.expireAfter", "NP-57", true);
    crd_duration(cx, get(ts, "terminationGracePeriod"), "spec.template.spec.terminationGracePeriod", "NP-58", false);
}

/// NP-08 and NP-04.
fn limits(cx: &mut Ctx, v: Option<&Value>, is_static: bool) {
    let Some(m) = cx.obj(v, "spec.limits") else {
        return;
    };
    for (k, v) in m {
        let path = format!("spec.limits[{k}]");
        match v {
            Value::String(s) if !p::quantity(s) => {
                cx.pattern(
                    "invalid-quantity",
                    &path,
                    s,
                    QUANTITY_RE,
                    "NP-08",
                    "an integer or a quantity string such as \"1000\", \"500m\", \"1000Gi\"",
                );
            }
            Value::String(_) | Value::Null => {}
            Value::Number(_) if super::as_int(v).is_none() => {
                // `x-kubernetes-int-or-string`: a YAML float is neither; quoting it makes it a quantity.
                let msg = format!("Invalid value: \"number\": {path} in body must be of type integer,string (NP-08)");
                cx.adm("wrong-type", &path, msg, "an integer or a quoted quantity such as \"0.5\"");
            }
            Value::Number(_) => {}
            other => cx.wrong_type(&path, other, "integer,string"),
        }
    }
    if is_static && !(m.is_empty() || (m.len() == 1 && m.contains_key("nodes"))) {
        let msg = "only 'limits.nodes' is supported on static NodePools (NP-04)".to_string();
        cx.adm("static-nodepool", "spec.limits", msg, "no limits, or only limits.nodes, when replicas is set");
    }
}

/// NP-10, NP-57, NP-58 (and NP-16 via `budget`): pattern at admission, then Go's duration range
/// at runtime (§3.9: values above ~2562047h pass the pattern but cannot be decoded; treated as
/// invalid, UNSURE how the controller reacts).
fn crd_duration(cx: &mut Ctx, v: Option<&Value>, path: &str, id: &str, never: bool) {
    let Some(s) = cx.str_(v, path) else { return };
    let (ok, re, expected) = if never {
        (p::nillable_duration(s), NILLABLE_DURATION_RE, "a duration made of [0-9]+(s|m|h) groups such as 30s, 1h30m5s, 0s, or Never")
    } else {
        (p::unit_durations(s), DURATION_RE, "a duration made of [0-9]+(s|m|h) groups such as 30s or 1h30m (Never is not allowed)")
    };
    if !ok {
        cx.pattern("invalid-duration", path, s, re, id, expected);
    } else {
        go_range(cx, s, path, id);
    }
}

fn go_range(cx: &mut Ctx, s: &str, path: &str, id: &str) {
    if s != "Never" && p::go_duration_nanos(s).is_none() {
        let msg = format!("time: invalid duration {}: out of range for a Go duration ({id}, §3.9)", q(s));
        cx.push(Layer::NodePoolRuntime, "invalid-duration", path, msg, "a duration of at most 2562047h47m16s");
    }
}

fn disruption(cx: &mut Ctx, v: Option<&Value>, provider: Provider) {
    let base = "spec.disruption";
    let Some(d) = cx.obj(v, base) else { return };
    let ca_path = format!("{base}.consolidateAfter");
    // §5: the AWS-packaged CRD (core v1.14.0) has no default and requires consolidateAfter
    // whenever `disruption` is written; core HEAD (which nodecast models, like the conformance
    // FORMAT) defaults it to 0s. Users expect the default, so an absent value is not an error.
    let _ = provider;
    crd_duration(cx, get(d, "consolidateAfter"), &ca_path, "NP-10", true);
    cx.enum_field(
        get(d, "consolidationPolicy"),
        &format!("{base}.consolidationPolicy"),
        &["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"],
        "NP-11",
    );
    let bpath = format!("{base}.budgets");
    let Some(budgets) = cx.arr(get(d, "budgets"), &bpath) else {
        return;
    };
    if !cx.max_items(&bpath, budgets.len(), 50, "NP-12", "budgets") {
        return;
    }
    for (i, b) in budgets.iter().enumerate() {
        let path = format!("{bpath}[{i}]");
        if let Some(b) = cx.item_obj(b, &path) {
            budget(cx, b, &path);
        }
    }
}

fn budget(cx: &mut Ctx, b: &Map<String, Value>, path: &str) {
    // NP-14 (absent = defaulted to 10%).
    let npath = format!("{path}.nodes");
    if let Some(s) = cx.str_(get(b, "nodes"), &npath) {
        if !p::budget_nodes(s) {
            cx.pattern(
                "invalid-budget",
                &npath,
                s,
                NODES_RE,
                "NP-14",
                "a node count such as \"10\" or a percentage from \"0%\" to \"100%\"",
            );
        }
    }
    let spath = format!("{path}.schedule");
    if let Some(s) = cx.str_(get(b, "schedule"), &spath) {
        if !p::schedule_admission(s) {
            cx.pattern(
                "invalid-budget",
                &spath,
                s,
                SCHEDULE_RE,
                "NP-15",
                "a 5-field cron expression such as \"0 9 * * mon-fri\" or @annually/@yearly/@monthly/@weekly/@daily/@midnight/@hourly",
            );
        } else if let Err(e) = crate::cron::Schedule::parse(s) {
            // Passed the (loose) pattern but the cron parser rejects it: fail closed (§3.2 NOTE).
            let msg = format!("invalid budget schedule {}: {e}; the budget and the whole NodePool allow 0 disruptions (NP-15 NOTE)", q(s));
            cx.push(
                Layer::BudgetRuntime,
                "invalid-schedule",
                &spath,
                msg,
                "a standard 5-field cron expression (UTC) or a descriptor such as @daily",
            );
        }
    }
    let dpath = format!("{path}.duration");
    if let Some(s) = cx.str_(get(b, "duration"), &dpath) {
        if !p::budget_duration(s) {
            cx.pattern(
                "invalid-duration",
                &dpath,
                s,
                BUDGET_DURATION_RE,
                "NP-16",
                "hours and/or minutes such as 20m, 2h, 2h20m, 1h0m0s (no seconds)",
            );
        } else {
            go_range(cx, s, &dpath, "NP-16");
        }
    }
    let rpath = format!("{path}.reasons");
    if let Some(reasons) = cx.arr(get(b, "reasons"), &rpath) {
        let within = cx.max_items(&rpath, reasons.len(), 50, "NP-17", "reasons");
        let reasons = if within { &reasons[..] } else { &[][..] };
        let mut seen: Vec<&str> = Vec::new();
        for (j, r) in reasons.iter().enumerate() {
            let ipath = format!("{rpath}[{j}]");
            let Some(s) = cx.item_str(r, &ipath) else {
                continue;
            };
            // v1.15's enum adds Unhealthy (repair's budget reason; apis/v1/nodepool.go).
            if !["Underutilized", "Empty", "Drifted", "Unhealthy"].contains(&s) {
                cx.unsupported("unsupported-value", &ipath, s, &["Underutilized", "Empty", "Drifted", "Unhealthy"], "NP-17");
            } else if seen.contains(&s) {
                let msg = format!("Duplicate value: {} (NP-17)", q(s));
                cx.adm("duplicate-value", &ipath, msg, "each reason at most once");
            }
            seen.push(s);
        }
    }
    // NP-13: `self.all(x, has(x.schedule) == has(x.duration))`; reported on each offending budget.
    if get(b, "schedule").is_some() != get(b, "duration").is_some() {
        let msg = "'schedule' must be set with 'duration' (NP-13)".to_string();
        cx.adm("invalid-budget", path, msg, "both schedule and duration, or neither");
    }
}

/// NP-02, NP-50..54.
fn node_class_ref(cx: &mut Ctx, v: Option<&Value>) {
    let base = "spec.template.spec.nodeClassRef";
    let Some(v) = v else {
        cx.required(base, "NP-02", "a nodeClassRef {group, kind, name}, e.g. group karpenter.k8s.aws, kind EC2NodeClass");
        return;
    };
    let Some(r) = cx.obj(Some(v), base) else {
        return;
    };
    for (field, empty_id) in [("group", "NP-51"), ("kind", "NP-52"), ("name", "NP-53")] {
        let path = format!("{base}.{field}");
        let Some(fv) = get(r, field) else {
            cx.required(&path, "NP-50", &format!("a non-empty {field}"));
            continue;
        };
        let Some(s) = cx.str_(Some(fv), &path) else {
            continue;
        };
        if s.is_empty() {
            cx.adm("empty-value", &path, format!("{field} may not be empty ({empty_id})"), &format!("a non-empty {field}"));
        } else if field == "group" && s.contains('/') {
            cx.pattern("invalid-pattern", &path, s, "^[^/]*$", "NP-54", "an API group without '/', e.g. karpenter.k8s.aws");
        }
    }
}
