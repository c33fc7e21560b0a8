//! `spec.template.spec.requirements`: admission NP-30..NP-41 and runtime RT-06 / RT-07.
//!
//! Runtime sub-rules that test the same fact as an admission rule are not reported a second time:
//! RT-06b (operator) = NP-36, RT-06c when NP-32..35 fired, RT-06e when NP-31 fired,
//! RT-06g = NP-38 / NP-40, RT-06h = NP-39, RT-07 = NP-33.

use super::labels::{admission_key_rules, restricted_sentence, runtime_restricted, QNAME_RE};
use super::patterns as p;
use super::{get, q, Ctx, Layer, Provider};
use serde_json::Value;

const BASE: &str = "spec.template.spec.requirements";
const OPERATORS: [&str; 8] = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"];

/// RT-06a: deprecated keys are normalised before the runtime checks.
fn normalize(key: &str) -> &str {
    match key {
        "failure-domain.beta.kubernetes.io/zone" => "topology.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/region" => "topology.kubernetes.io/region",
        "beta.kubernetes.io/arch" => "kubernetes.io/arch",
        "beta.kubernetes.io/os" => "kubernetes.io/os",
        "beta.kubernetes.io/instance-type" => "node.kubernetes.io/instance-type",
        other => other,
    }
}

/// RT-06d: keys whose `In` values are checked against a known set.
fn known_values(key: &str, provider: Provider) -> Option<&'static [&'static str]> {
    match key {
        "karpenter.sh/capacity-type" => Some(&["on-demand", "reserved", "spot"]),
        "karpenter.k8s.aws/instance-tenancy" if provider == Provider::Aws => Some(&["dedicated", "default"]),
        _ => None,
    }
}

/// Go's `%v` of a string slice: `[a b c]`.
fn go_list<S: AsRef<str>>(items: &[S]) -> String {
    format!("[{}]", items.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(" "))
}

fn runtime(cx: &mut Ctx, path: &str, sub: &str, detail: String, expected: &str) {
    let msg = format!("invalid value: {detail} in requirements, restricted (RT-06{sub})");
    cx.push(Layer::NodePoolRuntime, "invalid-requirement", path, msg, expected);
}

pub(super) fn requirements(cx: &mut Ctx, list: &[Value], provider: Provider) {
    if !cx.max_items(BASE, list.len(), 100, "NP-30", "requirements") {
        return;
    }
    for (i, item) in list.iter().enumerate() {
        let path = format!("{BASE}[{i}]");
        if let Some(r) = cx.item_obj(item, &path) {
            requirement(cx, r, &path, provider);
        }
    }
}

fn requirement(cx: &mut Ctx, r: &serde_json::Map<String, Value>, path: &str, provider: Provider) {
    // ---- key: NP-31..35 ----
    let kpath = format!("{path}.key");
    let key = match get(r, "key") {
        None => {
            cx.required(&kpath, "NP-31", "a label key such as node.kubernetes.io/instance-type");
            None
        }
        Some(v) => cx.str_(Some(v), &kpath),
    };
    let mut key_rejected = false;
    let mut key_restricted = false;
    if let Some(k) = key {
        if k.len() > 316 {
            let msg = format!("Invalid value: {}: Too long: may not be more than 316 bytes (NP-31)", q(k));
            cx.adm("invalid-requirement", &kpath, msg, "a key of at most 316 characters");
            key_rejected = true;
        }
        if !p::crd_qualified_name(k) {
            cx.pattern(
                "invalid-requirement",
                &kpath,
                k,
                QNAME_RE,
                "NP-31",
                "a qualified name such as example.com/team or kubernetes.io/arch",
            );
            key_rejected = true;
        }
        key_restricted = admission_key_rules(cx, k, &kpath, provider, ["NP-32", "NP-33", "NP-34", "NP-35"]);
    }

    // ---- operator: NP-36 ----
    let opath = format!("{path}.operator");
    let op = match get(r, "operator") {
        None => {
            cx.required(&opath, "NP-36", "one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte");
            None
        }
        Some(v) => cx.str_(Some(v), &opath),
    };
    let op = match op {
        Some(o) if !OPERATORS.contains(&o) => {
            cx.unsupported("invalid-operator", &opath, o, &OPERATORS, "NP-36");
            None
        }
        other => other,
    };

    // ---- values (strings) and minValues: NP-37, NP-41 ----
    let vpath = format!("{path}.values");
    let raw_values = cx.arr(get(r, "values"), &vpath);
    let n_values = raw_values.map_or(0, Vec::len);
    let mut values: Vec<(usize, &str)> = Vec::new();
    for (j, v) in raw_values.into_iter().flatten().enumerate() {
        if let Some(s) = cx.item_str(v, &format!("{vpath}[{j}]")) {
            values.push((j, s));
        }
    }
    let mpath = format!("{path}.minValues");
    let min_values = cx.int(get(r, "minValues"), &mpath).filter(|&m| cx.range(&mpath, m, Some(1), Some(50), "NP-37"));

    // ---- list-level CEL rules NP-38..40, reported on the offending item ----
    let mut numeric_rejected = false;
    let mut min_values_rejected = false;
    match op {
        Some("In") => {
            // A missing `values` makes `x.values.size()` fail to evaluate: the request is rejected
            // either way (UNSURE: possibly with a CEL evaluation error instead of this message).
            if n_values == 0 {
                let msg = "requirements with operator 'In' must have a value defined (NP-38)".to_string();
                cx.adm("invalid-requirement", &vpath, msg, "at least one value for operator In");
            }
            if let Some(m) = min_values.filter(|&m| (n_values as i128) < m) {
                let msg =
                    "requirements with 'minValues' must have at least that many values specified in the 'values' field (NP-40)".to_string();
                cx.adm("invalid-requirement", &vpath, msg, &format!("at least {m} values (minValues; duplicates count)"));
                min_values_rejected = true;
            }
        }
        Some("Gt" | "Lt" | "Gte" | "Lte") => {
            // `x.values.size() == 1 && int(x.values[0]) >= 0`: 0 passes despite "positive".
            let ok = n_values == 1 && values.first().and_then(|(_, v)| p::parse_int64(v)).is_some_and(|n| n >= 0);
            if !ok {
                let msg = "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value (NP-39)".to_string();
                cx.adm("invalid-requirement", &vpath, msg, "exactly one value holding an integer >= 0, e.g. [\"3\"]");
                numeric_rejected = true;
            }
        }
        _ => {}
    }
    // NP-41 (maxLength/pattern declared on the array node) is most likely ignored by the API
    // server (UNSURE); bad values are reported by RT-06f below instead.

    // ---- runtime RT-06 (RT-06b/g/h and RT-07 duplicate admission rules and are not repeated) ----
    let Some(k) = key else { return };
    let nk = normalize(k);
    if !key_restricted && runtime_restricted(nk, provider) {
        runtime(cx, &kpath, "c", restricted_sentence(nk, provider), "a well-known label or a custom label outside the restricted domains");
    }
    if op == Some("In") && n_values > 0 {
        if let Some(known) = known_values(nk, provider) {
            let strs: Vec<&str> = values.iter().map(|(_, v)| *v).collect();
            let valid: Vec<&str> = strs.iter().copied().filter(|v| known.contains(v)).collect();
            let invalid: Vec<&str> = strs.iter().copied().filter(|v| !known.contains(v)).collect();
            let expected = format!("at least one of {}", known.join(", "));
            if valid.is_empty() {
                let d = format!(
                    "no valid values found in {} for {nk}, expected one of: {}, got: {}",
                    go_list(&strs),
                    go_list(known),
                    go_list(&invalid)
                );
                runtime(cx, &vpath, "d", d, &expected);
            } else if let Some(m) = min_values.filter(|&m| (valid.len() as i128) < m && !min_values_rejected) {
                // Only when some values are known (else the line above already says it all) and
                // NP-40 did not already reject the total count.
                let d = format!(
                    "not enough valid values found in {} for {nk}, expected at least {m} valid values from: {}, got: {}",
                    go_list(&strs),
                    go_list(known),
                    go_list(&valid)
                );
                runtime(cx, &vpath, "d", d, &format!("at least {m} values from {}", known.join(", ")));
            }
        }
    }
    if !key_rejected {
        for d in p::qualified_name_errors(nk) {
            runtime(
                cx,
                &kpath,
                "e",
                format!("key {nk} is not a qualified name, {d}"),
                "a prefix of at most 253 and a name of at most 63 characters",
            );
        }
    }
    if !numeric_rejected {
        for (j, v) in &values {
            for d in p::label_value_errors(v) {
                runtime(
                    cx,
                    &format!("{vpath}[{j}]"),
                    "f",
                    format!("invalid value {v} for key {nk}, {d}"),
                    "a label value: at most 63 alphanumerics, '-', '_', '.', starting and ending with an alphanumeric",
                );
            }
        }
    }
}
