//! EC2NodeClass selector terms: subnets (EC-20..23), security groups (EC-24..28), capacity
//! reservations (EC-29..32), AMIs (EC-33..41), their tags (EC-42) and the amiFamily/alias rules
//! (EC-06..EC-10).

use super::patterns as p;
use super::{get, q, Ctx};
use serde_json::{Map, Value};

const ALIAS_FAMILIES: [&str; 6] = ["al2", "al2023", "bottlerocket", "windows2019", "windows2022", "windows2025"];

/// Exclusivity rule of a selector list: `field` may not be combined with any of `others`.
/// `every` = the CEL is `!self.all(...)` (rejects only when EVERY term violates, including the
/// vacuous case of an empty list); otherwise `!self.exists(...)` (rejects when ANY term violates).
pub(super) struct Excl {
    field: &'static str,
    others: &'static [&'static str],
    msg: &'static str,
    id: &'static str,
    every: bool,
}

pub(super) struct TermList {
    field: &'static str,
    required: bool,
    max_id: &'static str,
    /// Message of the non-empty rule (EC-20/EC-24); AMI terms use minItems (EC-33) instead.
    empty_msg: Option<&'static str>,
    one_of: &'static [&'static str],
    one_of_id: &'static str,
    id_pattern: (&'static str, bool, &'static str, &'static str), // (prefix, anchored, regex, rule)
    excl: &'static [Excl],
}

pub(super) const SUBNETS: TermList = TermList {
    field: "subnetSelectorTerms",
    required: true,
    max_id: "EC-20",
    empty_msg: Some("subnetSelectorTerms cannot be empty (EC-20)"),
    one_of: &["tags", "id"],
    one_of_id: "EC-21",
    id_pattern: ("subnet-", false, "subnet-[0-9a-z]+", "EC-23"),
    excl: &[Excl {
        field: "id",
        others: &["tags"],
        msg: "'id' is mutually exclusive, cannot be set with a combination of other fields in a subnet selector term",
        id: "EC-22",
        every: true,
    }],
};

pub(super) const SECURITY_GROUPS: TermList = TermList {
    field: "securityGroupSelectorTerms",
    required: true,
    max_id: "EC-24",
    empty_msg: Some("securityGroupSelectorTerms cannot be empty (EC-24)"),
    one_of: &["tags", "id", "name"],
    one_of_id: "EC-25",
    id_pattern: ("sg-", false, "sg-[0-9a-z]+", "EC-28"),
    excl: &[
        Excl {
            field: "id",
            others: &["tags", "name"],
            msg: "'id' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term",
            id: "EC-26",
            every: true,
        },
        Excl {
            field: "name",
            others: &["tags", "id"],
            msg: "'name' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term",
            id: "EC-27",
            every: true,
        },
    ],
};

pub(super) const CAPACITY_RESERVATIONS: TermList = TermList {
    field: "capacityReservationSelectorTerms",
    required: false,
    max_id: "EC-29",
    empty_msg: None,
    one_of: &["tags", "id", "instanceMatchCriteria"],
    one_of_id: "EC-30",
    id_pattern: ("cr-", true, "^cr-[0-9a-z]+$", "EC-32"),
    excl: &[Excl {
        field: "id",
        others: &["tags", "ownerID", "instanceMatchCriteria"],
        msg: "'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term",
        id: "EC-31",
        every: true,
    }],
};

pub(super) const AMIS: TermList = TermList {
    field: "amiSelectorTerms",
    required: true,
    max_id: "EC-33",
    empty_msg: None,
    one_of: &["tags", "id", "name", "alias", "ssmParameter"],
    one_of_id: "EC-34",
    id_pattern: ("ami-", false, "ami-[0-9a-z]+", "EC-41"),
    excl: &[
        Excl {
            field: "id",
            others: &["alias", "tags", "name", "owner"],
            msg: "'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms",
            id: "EC-35",
            every: false,
        },
        Excl {
            field: "alias",
            others: &["id", "tags", "name", "owner"],
            msg: "'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms",
            id: "EC-36",
            every: false,
        },
    ],
};

/// EC-42: selector-term tags.
fn term_tags(cx: &mut Ctx, t: &Map<String, Value>, tp: &str) {
    let path = format!("{tp}.tags");
    let Some(m) = cx.obj(get(t, "tags"), &path) else {
        return;
    };
    if !cx.max_items(&path, m.len(), 20, "EC-42", "tags") {
        return;
    }
    for (k, v) in m {
        let ep = format!("{path}[{k}]");
        if let Some(s) = cx.item_str(v, &ep) {
            if k.is_empty() || s.is_empty() {
                let msg = "empty tag keys or values aren't supported (EC-42)".to_string();
                cx.adm("invalid-tag", &ep, msg, "non-empty tag keys and values (\"*\" matches any value)");
            }
        }
    }
}

/// The rules every selector list shares. Returns the (path, term) pairs that are objects.
pub(super) fn term_list<'v>(cx: &mut Ctx, spec: &'v Map<String, Value>, cfg: &TermList) -> Option<Vec<(String, &'v Map<String, Value>)>> {
    let path = format!("spec.{}", cfg.field);
    let Some(v) = get(spec, cfg.field) else {
        if cfg.required {
            cx.required(&path, "EC-01", "a list of selector terms");
        }
        return None;
    };
    let list = cx.arr(Some(v), &path)?;
    if !cx.max_items(&path, list.len(), 30, cfg.max_id, "terms") {
        return None;
    }
    if list.is_empty() {
        if let Some(msg) = cfg.empty_msg {
            // The `!self.all(...)` exclusivity rules are vacuously violated by [] too; reporting
            // them as well would only be noise, so only the emptiness rule is shown.
            cx.adm("too-few-items", &path, msg.to_string(), &format!("at least one term with one of {}", cfg.one_of.join(", ")));
            return None;
        }
        if cfg.field == AMIS.field {
            let msg = format!("Invalid value: 0: {path} in body should have at least 1 items (EC-33)");
            cx.adm("too-few-items", &path, msg, "at least one term, e.g. {alias: al2023@latest}");
            return None;
        }
    }
    let mut terms = Vec::new();
    let mut all_violate = vec![true; cfg.excl.len()];
    for (i, t) in list.iter().enumerate() {
        let tp = format!("{path}[{i}]");
        let Some(t) = cx.item_obj(t, &tp) else {
            all_violate.iter_mut().for_each(|a| *a = false);
            continue;
        };
        term_tags(cx, t, &tp);
        for f in ["id", "name", "owner", "ssmParameter"] {
            if cfg.one_of.contains(&f) || (f == "owner" && cfg.field == AMIS.field) {
                let fp = format!("{tp}.{f}");
                let s = cx.str_(get(t, f), &fp);
                let (prefix, anchored, re, id) = cfg.id_pattern;
                if let Some(s) = s.filter(|_| f == "id") {
                    let ok = if anchored { p::exact_id(s, prefix) } else { p::contains_id(s, prefix) };
                    if !ok {
                        cx.pattern("invalid-pattern", &fp, s, re, id, &format!("an ID such as {prefix}0123456789abcdef0"));
                    }
                }
            }
        }
        let has = |f: &str| get(t, f).is_some();
        if !cfg.one_of.iter().any(|f| has(f)) {
            let fields = cfg.one_of.iter().map(|f| format!("'{f}'")).collect::<Vec<_>>().join(", ");
            let msg = format!("expected at least one, got none, [{fields}] ({})", cfg.one_of_id);
            cx.adm("required", &tp, msg, &format!("one of {} in every term", cfg.one_of.join(", ")));
        }
        for (k, e) in cfg.excl.iter().enumerate() {
            let violates = has(e.field) && e.others.iter().any(|o| has(o));
            if !violates {
                all_violate[k] = false;
            } else if !e.every {
                cx.adm("mutually-exclusive", &tp, format!("{} ({})", e.msg, e.id), &format!("'{}' alone in its term", e.field));
            }
        }
        terms.push((tp, t));
    }
    for (k, e) in cfg.excl.iter().enumerate() {
        if e.every && all_violate[k] {
            // NOTE: `!self.all(...)`: rejected only because EVERY term combines the fields; a
            // list where just some terms do is admitted (and [] is rejected, vacuously).
            let expected = if list.is_empty() {
                format!("omit {} rather than writing an empty list", cfg.field)
            } else {
                format!("'{}' alone in its term", e.field)
            };
            cx.adm("mutually-exclusive", &path, format!("{} ({})", e.msg, e.id), &expected);
        }
    }
    Some(terms)
}

/// EC-33..EC-41 specifics, then EC-06..EC-10 (amiFamily vs alias).
pub(super) fn ami_terms(cx: &mut Ctx, spec: &Map<String, Value>) {
    let Some(terms) = term_list(cx, spec, &AMIS) else {
        return;
    };
    let mut families: Vec<&str> = Vec::new();
    let mut any_alias = false;
    for (tp, t) in &terms {
        let ap = format!("{tp}.alias");
        let Some(alias) = cx.str_(get(t, "alias"), &ap) else {
            continue;
        };
        any_alias = true;
        if alias.len() > 30 {
            let msg = format!("Invalid value: {}: Too long: may not be more than 30 bytes (EC-38)", q(alias));
            cx.adm("invalid-alias", &ap, msg, "family@version of at most 30 characters, e.g. al2023@latest");
            continue;
        }
        if !p::alias_format(alias) {
            let msg = "'alias' is improperly formatted, must match the format 'family@version' (EC-38)".to_string();
            cx.adm("invalid-alias", &ap, msg, "family@version, e.g. al2023@latest or bottlerocket@1.10.0");
            continue;
        }
        // CEL `self.split('@')`: family = first part, version = second part.
        let mut parts = alias.split('@');
        let fam = parts.next().unwrap_or("");
        let ver = parts.next().unwrap_or("");
        if !ALIAS_FAMILIES.contains(&fam) {
            let msg = "family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025' (EC-39)".to_string();
            cx.adm("invalid-alias", &ap, msg, "one of al2, al2023, bottlerocket, windows2019, windows2022, windows2025 (lower-case)");
        } else if fam.starts_with("windows") && ver != "latest" {
            let msg = "windows families may only specify version 'latest' (EC-40)".to_string();
            cx.adm("invalid-alias", &ap, msg, &format!("{fam}@latest"));
        }
        families.push(fam);
    }
    if any_alias && terms.len() != 1 {
        let msg = "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms (EC-37)".to_string();
        cx.adm("mutually-exclusive", "spec.amiSelectorTerms", msg, "a single term when an alias is used");
    }
    let family = get(spec, "amiFamily").and_then(Value::as_str);
    match family {
        Some(af) => {
            for fam in families {
                let (want, article, id) = match fam {
                    "al2" => ("AL2", "an AL2", "EC-06"),
                    "al2023" => ("AL2023", "an AL2023", "EC-07"),
                    "bottlerocket" => ("Bottlerocket", "a Bottlerocket", "EC-08"),
                    "windows2019" => ("Windows2019", "a Windows2019", "EC-09"),
                    "windows2022" => ("Windows2022", "a Windows2022", "EC-09"),
                    "windows2025" => ("Windows2025", "a Windows2025", "EC-09"),
                    _ => continue,
                };
                if af != want && af != "Custom" {
                    let msg = format!("if set, amiFamily must be '{want}' or 'Custom' when using {article} alias ({id})");
                    cx.adm("incompatible-ami-family", "spec.amiFamily", msg, &format!("amiFamily {want} or Custom, or no amiFamily"));
                }
            }
        }
        None if !any_alias && !terms.is_empty() && get(spec, "amiFamily").is_none() => {
            let msg = "must specify amiFamily if amiSelectorTerms does not contain an alias (EC-10)".to_string();
            cx.adm(
                "required",
                "spec.amiFamily",
                msg,
                "an amiFamily (AL2, AL2023, Bottlerocket, Custom, Windows2019/2022/2025) or an alias term",
            );
        }
        None => {}
    }
}
