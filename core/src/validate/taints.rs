//! Taints and startup taints: admission NP-45..NP-48 and runtime RT-05.

use super::labels::QNAME_RE;
use super::patterns as p;
use super::{get, q, Ctx, Layer};
use serde_json::Value;

const EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// NP-45..48 (admission) and RT-05 (runtime: over-long names, duplicate key/effect pairs across
/// `taints` and `startupTaints`). `seen` carries the pairs from the first list into the second.
pub(super) fn taints(cx: &mut Ctx, list: &[Value], field: &str, base: &str, seen: &mut Vec<(String, String)>) {
    let qname_expected = "a qualified name such as key-only or example.com/Key (lower-case prefix)";
    for (i, t) in list.iter().enumerate() {
        let path = format!("{base}[{i}]");
        let Some(t) = cx.item_obj(t, &path) else {
            continue;
        };
        let kpath = format!("{path}.key");
        let key = match get(t, "key") {
            None => {
                cx.required(&kpath, "NP-45", "a taint key");
                None
            }
            Some(v) => cx.str_(Some(v), &kpath),
        };
        if let Some(k) = key {
            if k.is_empty() {
                let msg = format!("Invalid value: \"\": {kpath} in body should be at least 1 chars long (NP-45)");
                cx.adm("invalid-taint", &kpath, msg, qname_expected);
            } else if !p::crd_qualified_name(k) {
                cx.pattern("invalid-taint", &kpath, k, QNAME_RE, "NP-45", qname_expected);
            } else {
                for d in p::qualified_name_errors(k) {
                    let msg = format!("invalid value: {d} in {field} (RT-05)");
                    cx.push(
                        Layer::NodePoolRuntime,
                        "invalid-taint",
                        &kpath,
                        msg,
                        "a prefix of at most 253 and a name of at most 63 characters",
                    );
                }
            }
        }
        let vpath = format!("{path}.value");
        if let Some(v) = cx.str_(get(t, "value"), &vpath) {
            // The CRD pattern also applies to "", which therefore is rejected (runtime would accept it).
            if !p::crd_qualified_name(v) {
                cx.pattern(
                    "invalid-taint",
                    &vpath,
                    v,
                    QNAME_RE,
                    "NP-46",
                    "omit the value, or a qualified name such as true or example.com/Value",
                );
            } else {
                for d in p::qualified_name_errors(v) {
                    let msg = format!("invalid value: {d} in {field} (RT-05)");
                    cx.push(
                        Layer::NodePoolRuntime,
                        "invalid-taint",
                        &vpath,
                        msg,
                        "a prefix of at most 253 and a name of at most 63 characters",
                    );
                }
            }
        }
        let epath = format!("{path}.effect");
        let effect = match get(t, "effect") {
            None => {
                cx.required(&epath, "NP-47", "one of NoSchedule, PreferNoSchedule, NoExecute");
                None
            }
            Some(v) => {
                let s = cx.str_(Some(v), &epath);
                if let Some(e) = s.filter(|e| !EFFECTS.contains(e)) {
                    cx.unsupported("invalid-taint", &epath, e, &EFFECTS, "NP-47");
                }
                s
            }
        };
        let tpath = format!("{path}.timeAdded");
        if let Some(ts) = cx.str_(get(t, "timeAdded"), &tpath) {
            if !p::rfc3339(ts) {
                let msg = format!("Invalid value: {}: {tpath} in body must be of type date-time (NP-48)", q(ts));
                cx.adm("invalid-taint", &tpath, msg, "an RFC 3339 date-time such as 2024-01-02T15:04:05Z");
            }
        }
        if let (Some(k), Some(e)) = (key, effect) {
            if seen.iter().any(|(sk, se)| sk == k && se == e) {
                let msg = format!("duplicate taint Key/Effect pair {k}={e} (RT-05)");
                cx.push(Layer::NodePoolRuntime, "duplicate-taint", &path, msg, "each key/effect pair once across taints and startupTaints");
            } else {
                seen.push((k.to_string(), e.to_string()));
            }
        }
    }
}
