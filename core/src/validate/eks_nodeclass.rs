//! EKS Auto Mode's NodeClass (`eks.amazonaws.com/v1`, kind NodeClass): the fields the EKS user
//! guide documents ("Create a Node Class for Amazon EKS", Node Class Specification), rules AM-01..
//! AM-12. The subnet and security-group selector terms have the EC2NodeClass's shape and rules
//! (EC-20..EC-28, `selectors.rs`). Auto Mode's CRD is not public: the bounds here are the ones
//! the guide states; a field the guide does not list is refused (kubectl's strict field
//! validation, the default since Kubernetes 1.27, would refuse it too).

use super::selectors::{term_list, SECURITY_GROUPS, SUBNETS};
use super::{get, q, Ctx};
use serde_json::{Map, Value};

/// `spec` fields of the guide's Node Class Specification.
const FIELDS: [&str; 10] = [
    "role",
    "subnetSelectorTerms",
    "securityGroupSelectorTerms",
    "snatPolicy",
    "networkPolicy",
    "networkPolicyEventLogs",
    "ephemeralStorage",
    "advancedNetworking",
    "certificateBundles",
    "tags",
];

/// Ephemeral storage bounds of the guide: 1G .. 64000G (= 59000Gi, 58Ti, 64T, all about 64 TB).
pub const EPHEMERAL_MIN_BYTES: i64 = 1_000_000_000;
pub const EPHEMERAL_MAX_BYTES: i64 = 64_000_000_000_000;

/// Tag keys Auto Mode sets itself (the guide's list of restricted tags).
const RESTRICTED_TAGS: [&str; 5] = [
    "karpenter.sh/provisioner-name",
    "karpenter.sh/nodepool",
    "karpenter.sh/nodeclaim",
    "karpenter.sh/managed-by",
    "eks.amazonaws.com/nodeclass",
];

pub(super) fn validate(cx: &mut Ctx, root: &Map<String, Value>) {
    let Some(spec_v) = get(root, "spec") else {
        cx.required("spec", "AM-01", "a spec with role, subnetSelectorTerms and securityGroupSelectorTerms");
        return;
    };
    let Some(spec) = cx.obj(Some(spec_v), "spec") else {
        return;
    };
    for key in spec.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
        let path = format!("spec.{key}");
        let msg = format!("unknown field {} in an EKS Auto Mode NodeClass (AM-02)", q(key));
        cx.adm("unknown-field", &path, msg, &format!("one of {}", FIELDS.join(", ")));
    }
    match cx.str_(get(spec, "role"), "spec.role") {
        None if get(spec, "role").is_none() => cx.required("spec.role", "AM-03", "the name of the nodes' IAM role"),
        Some("") => cx.adm("empty-value", "spec.role", "role cannot be empty (AM-03)".into(), "the name of the nodes' IAM role"),
        _ => {}
    }
    term_list(cx, spec, &SUBNETS);
    term_list(cx, spec, &SECURITY_GROUPS);
    cx.enum_field(get(spec, "snatPolicy"), "spec.snatPolicy", &["Random", "Disabled"], "AM-04");
    cx.enum_field(get(spec, "networkPolicy"), "spec.networkPolicy", &["DefaultAllow", "DefaultDeny"], "AM-05");
    cx.enum_field(get(spec, "networkPolicyEventLogs"), "spec.networkPolicyEventLogs", &["Enabled", "Disabled"], "AM-06");
    ephemeral_storage(cx, get(spec, "ephemeralStorage"));
    advanced_networking(cx, get(spec, "advancedNetworking"));
    certificate_bundles(cx, get(spec, "certificateBundles"));
    for (k, _) in cx.str_map(get(spec, "tags"), "spec.tags") {
        let path = format!("spec.tags[{k}]");
        if k.is_empty() {
            cx.adm("invalid-tag", &path, "empty tag keys aren't supported (AM-12)".into(), "a non-empty tag key");
        } else if k.starts_with("kubernetes.io/cluster/") || RESTRICTED_TAGS.contains(&k) {
            let msg = format!("tag {} is one EKS Auto Mode sets itself (AM-12)", q(k));
            cx.adm(
                "restricted-tag",
                &path,
                msg,
                "a tag key other than kubernetes.io/cluster/*, karpenter.sh/* and eks.amazonaws.com/nodeclass",
            );
        }
    }
}

/// The size of `spec.ephemeralStorage.size` in bytes, when it is a valid quantity (lowering uses
/// the same reading).
pub fn ephemeral_bytes(s: &str) -> Option<i64> {
    crate::quantity::parse_milli(s).ok().map(|m| m / 1000)
}

/// AM-07..AM-09.
fn ephemeral_storage(cx: &mut Ctx, v: Option<&Value>) {
    let base = "spec.ephemeralStorage";
    let Some(m) = cx.obj(v, base) else { return };
    for key in m.keys().filter(|k| !["size", "iops", "throughput", "kmsKeyID"].contains(&k.as_str())) {
        let msg = format!("unknown field {} (AM-02)", q(key));
        cx.adm("unknown-field", &format!("{base}.{key}"), msg, "one of size, iops, throughput, kmsKeyID");
    }
    let size_path = format!("{base}.size");
    // A quantity may be written as a number in YAML (`size: 80` is 80 bytes).
    let size = match get(m, "size") {
        Some(Value::String(s)) => Some((s.clone(), ephemeral_bytes(s))),
        Some(Value::Number(n)) => Some((n.to_string(), n.as_i64())),
        Some(other) => {
            cx.wrong_type(&size_path, other, "string");
            None
        }
        None => None,
    };
    match size {
        Some((text, None)) => {
            let msg = format!("Invalid value: {}: not a quantity (AM-07)", q(&text));
            cx.adm("invalid-quantity", &size_path, msg, "a size such as 80Gi, 160G or 2Ti");
        }
        Some((text, Some(b))) if !(EPHEMERAL_MIN_BYTES..=EPHEMERAL_MAX_BYTES).contains(&b) => {
            let msg = format!("Invalid value: {}: ephemeral storage must be from 1G to 64000G (AM-07)", q(&text));
            cx.adm("out-of-range", &size_path, msg, "a size from 1G to 64000G (59000Gi, 58Ti, 64T)");
        }
        _ => {}
    }
    if let Some(n) = cx.int(get(m, "iops"), &format!("{base}.iops")) {
        cx.range(&format!("{base}.iops"), n, Some(3000), Some(16000), "AM-08");
    }
    if let Some(n) = cx.int(get(m, "throughput"), &format!("{base}.throughput")) {
        cx.range(&format!("{base}.throughput"), n, Some(125), Some(1000), "AM-09");
    }
    if cx.str_(get(m, "kmsKeyID"), &format!("{base}.kmsKeyID")) == Some("") {
        let msg = "kmsKeyID cannot be empty (AM-09)".to_string();
        cx.adm("empty-value", &format!("{base}.kmsKeyID"), msg, "a KMS key ID, key ARN, alias name or alias ARN");
    }
}

/// AM-10: a proxy URL and its exclusions, at most 255 characters each, at most 50 exclusions.
fn advanced_networking(cx: &mut Ctx, v: Option<&Value>) {
    let base = "spec.advancedNetworking";
    let Some(m) = cx.obj(v, base) else { return };
    for key in m.keys().filter(|k| !["httpsProxy", "noProxy"].contains(&k.as_str())) {
        let msg = format!("unknown field {} (AM-02)", q(key));
        cx.adm("unknown-field", &format!("{base}.{key}"), msg, "httpsProxy or noProxy");
    }
    let long = |s: &str| s.chars().count() > 255;
    if let Some(p) = cx.str_(get(m, "httpsProxy"), &format!("{base}.httpsProxy")) {
        if long(p) || !(p.starts_with("http://") || p.starts_with("https://")) {
            let msg = format!("Invalid value: {}: httpsProxy must be an http(s) URL of at most 255 characters (AM-10)", q(p));
            cx.adm("invalid-value", &format!("{base}.httpsProxy"), msg, "a URL such as http://192.0.2.4:3128");
        }
    }
    let np = format!("{base}.noProxy");
    if let Some(list) = cx.arr(get(m, "noProxy"), &np) {
        if cx.max_items(&np, list.len(), 50, "AM-10", "noProxy entries") {
            for (i, e) in list.iter().enumerate() {
                let ep = format!("{np}[{i}]");
                if let Some(s) = cx.item_str(e, &ep) {
                    if s.is_empty() || long(s) {
                        let msg = format!("Invalid value: {}: a noProxy entry has 1 to 255 characters (AM-10)", q(s));
                        cx.adm("invalid-value", &ep, msg, "a host, address or domain suffix such as .internal");
                    }
                }
            }
        }
    }
}

/// AM-11: each bundle has a non-empty name and data.
fn certificate_bundles(cx: &mut Ctx, v: Option<&Value>) {
    let base = "spec.certificateBundles";
    let Some(list) = cx.arr(v, base) else { return };
    for (i, b) in list.iter().enumerate() {
        let bp = format!("{base}[{i}]");
        let Some(b) = cx.item_obj(b, &bp) else { continue };
        for field in ["name", "data"] {
            let fp = format!("{bp}.{field}");
            match cx.str_(get(b, field), &fp) {
                None if get(b, field).is_none() => cx.required(&fp, "AM-11", &format!("the bundle's {field}")),
                Some("") => cx.adm("empty-value", &fp, format!("{field} cannot be empty (AM-11)"), &format!("the bundle's {field}")),
                _ => {}
            }
        }
    }
}
