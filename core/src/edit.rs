//! Field edits of Kubernetes documents, shared by `sweep` (its grid axes) and `advise` (the
//! NodePool edits it verifies): a path into one document (or the simulation settings) and the
//! value to put there.
//!
//! Path grammar (dots separate segments):
//! - `spec.weight` — a mapping field; missing intermediate mappings are created;
//! - `spec.limits["nvidia.com/gpu"]` — a field whose name holds dots or slashes;
//! - `requirements[2]` — an existing list element;
//! - `requirements[key=karpenter.k8s.aws/instance-family]` — the list element (a mapping) whose
//!   `key` field is that value. Requirements and budgets are lists, and positions differ
//!   between NodePools, so selecting by a field is what keeps an edit meaningful.
//!
//! Setting a selected element that does not exist appends it (that is how a sweep adds a
//! GPU-count bound to a NodePool without one); setting `null` removes the field or the element,
//! as absent and null mean the same to the API server.

use serde_json::{Map, Value};
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Segment {
    Field(String),
    Index(usize),
    Select { key: String, value: String },
}

/// A parsed edit path.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldPath(pub Vec<Segment>);

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            match s {
                Segment::Field(name) if name.contains(['.', '[', ']', '"']) => write!(f, "[{}]", Value::String(name.clone()))?,
                Segment::Field(name) => write!(f, "{}{name}", if i > 0 { "." } else { "" })?,
                Segment::Index(n) => write!(f, "[{n}]")?,
                Segment::Select { key, value } => write!(f, "[{key}={value}]")?,
            }
        }
        Ok(())
    }
}

pub const PATH_HELP: &str =
    "dot-separated fields, [N] for a list element, [key=value] for the element whose field has that value, [\"a.b/c\"] for a field with dots, e.g. spec.template.spec.requirements[key=karpenter.sh/capacity-type].values";

/// Segments one path may have. A Kubernetes object is a few dozen levels deep at most; a path
/// of 30,000 segments built as deep a document, which overflowed the stack when dropped or
/// written (issue 29).
pub const MAX_SEGMENTS: usize = 100;

/// Parse `text` into segments; the error is a sentence for the `path` field of the spec.
pub fn parse(text: &str) -> Result<FieldPath, String> {
    let mut segs = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    let mut expect_field = true;
    if text.trim().is_empty() {
        return Err("the path is empty".into());
    }
    while i < b.len() {
        if segs.len() > MAX_SEGMENTS {
            return Err(format!("the path has more than {MAX_SEGMENTS} segments"));
        }
        match b[i] {
            b'.' => {
                if expect_field || i + 1 == b.len() {
                    return Err(format!("empty field name at offset {i}"));
                }
                expect_field = true;
                i += 1;
            }
            b'[' => {
                let close = text[i..].find(']').map(|o| i + o).ok_or_else(|| format!("unclosed [ at offset {i}"))?;
                let inner = &text[i + 1..close];
                if inner.starts_with('"') {
                    // A quoted field name: JSON string syntax, which may itself hold `]`.
                    let mut de = serde_json::Deserializer::from_str(&text[i + 1..]).into_iter::<String>();
                    let name = match de.next() {
                        Some(Ok(s)) => s,
                        _ => return Err(format!("bad quoted field name at offset {}", i + 1)),
                    };
                    let end = i + 1 + de.byte_offset();
                    if b.get(end) != Some(&b']') {
                        return Err(format!("expected ] after the quoted field name at offset {end}"));
                    }
                    segs.push(Segment::Field(name));
                    i = end + 1;
                } else if let Some((k, v)) = inner.split_once('=') {
                    if k.trim().is_empty() || v.trim().is_empty() {
                        return Err(format!("[{inner}]: a selector is [field=value]"));
                    }
                    segs.push(Segment::Select { key: k.trim().to_string(), value: v.trim().to_string() });
                    i = close + 1;
                } else {
                    let n = inner
                        .trim()
                        .parse::<usize>()
                        .map_err(|_| format!("[{inner}] is neither an index, [field=value] nor a quoted name"))?;
                    segs.push(Segment::Index(n));
                    i = close + 1;
                }
                expect_field = false;
            }
            b']' => return Err(format!("unexpected ] at offset {i}")),
            _ => {
                if !expect_field {
                    return Err(format!("expected . or [ at offset {i}"));
                }
                let end = text[i..].find(['.', '[', ']']).map(|o| i + o).unwrap_or(b.len());
                segs.push(Segment::Field(text[i..end].to_string()));
                i = end;
                expect_field = false;
            }
        }
    }
    if segs.len() > MAX_SEGMENTS {
        return Err(format!("the path has more than {MAX_SEGMENTS} segments"));
    }
    Ok(FieldPath(segs))
}

/// A scalar as the text a selector compares with (`5` and `"5"` select the same element).
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn selected(list: &[Value], key: &str, value: &str) -> Option<usize> {
    list.iter().position(|e| e.get(key).and_then(scalar_text).as_deref() == Some(value))
}

/// Put `value` at `path` inside `root`. The error says which segment could not be followed.
pub fn apply(root: &mut Value, path: &FieldPath, value: &Value) -> Result<(), String> {
    let segs = &path.0;
    let Some((last, parents)) = segs.split_last() else {
        return Err("the path is empty".into());
    };
    let mut cur = root;
    for (n, seg) in parents.iter().enumerate() {
        let here = || FieldPath(segs[..=n].to_vec()).to_string();
        cur = match seg {
            Segment::Field(name) => {
                let Value::Object(map) = cur else {
                    return Err(format!("{} is not a mapping", FieldPath(segs[..n].to_vec())));
                };
                let creatable = matches!(segs[n + 1], Segment::Field(_));
                if map.get(name).is_none_or(|v| v.is_null()) {
                    if !creatable {
                        return Err(format!("{} does not exist (a list is needed to select an element in)", here()));
                    }
                    map.insert(name.clone(), Value::Object(Map::new()));
                }
                map.get_mut(name).expect("present or just inserted")
            }
            Segment::Index(i) => match cur {
                Value::Array(list) => {
                    let len = list.len();
                    list.get_mut(*i).ok_or_else(|| format!("{} is out of range (the list has {len} elements)", here()))?
                }
                _ => return Err(format!("{} is not a list", FieldPath(segs[..n].to_vec()))),
            },
            Segment::Select { key, value: want } => match cur {
                Value::Array(list) => match selected(list, key, want) {
                    Some(i) => &mut list[i],
                    None => return Err(format!("{}: no element has {key}={want}", here())),
                },
                _ => return Err(format!("{} is not a list", FieldPath(segs[..n].to_vec()))),
            },
        };
    }
    let parent = FieldPath(parents.to_vec());
    match last {
        Segment::Field(name) => {
            let Value::Object(map) = cur else {
                return Err(format!("{parent} is not a mapping"));
            };
            if value.is_null() {
                map.remove(name);
            } else {
                map.insert(name.clone(), value.clone());
            }
        }
        Segment::Index(i) => match cur {
            Value::Array(list) if *i < list.len() => {
                if value.is_null() {
                    list.remove(*i);
                } else {
                    list[*i] = value.clone();
                }
            }
            Value::Array(list) => return Err(format!("{path} is out of range (the list has {} elements)", list.len())),
            _ => return Err(format!("{parent} is not a list")),
        },
        Segment::Select { key, value: want } => {
            let Value::Array(list) = cur else {
                return Err(format!("{parent} is not a list"));
            };
            if !value.is_null() && value.get(key).and_then(scalar_text).as_deref() != Some(want.as_str()) {
                return Err(format!("the new element of {path} must be a mapping with {key}: {want}"));
            }
            match (selected(list, key, want), value.is_null()) {
                (Some(i), true) => {
                    list.remove(i);
                }
                (Some(i), false) => list[i] = value.clone(),
                (None, true) => {}
                (None, false) => list.push(value.clone()),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set(mut doc: Value, path: &str, v: Value) -> Result<Value, String> {
        apply(&mut doc, &parse(path)?, &v)?;
        Ok(doc)
    }

    #[test]
    fn paths_round_trip_through_display() {
        for p in [
            "spec.weight",
            "spec.limits[\"nvidia.com/gpu\"]",
            "a[2].b",
            "spec.template.spec.requirements[key=karpenter.sh/capacity-type].values",
        ] {
            assert_eq!(parse(p).unwrap().to_string(), p);
        }
    }

    #[test]
    fn paths_are_bounded_in_depth() {
        let deep = vec!["a"; MAX_SEGMENTS + 1].join(".");
        assert!(parse(&deep).unwrap_err().contains("more than 100 segments"));
        assert!(parse(&vec!["a"; 30_000].join(".")).is_err());
        assert_eq!(parse(&vec!["a"; MAX_SEGMENTS].join(".")).map(|p| p.0.len()), Ok(MAX_SEGMENTS));
    }

    #[test]
    fn bad_paths_are_refused() {
        for p in ["", "a..b", "a.", ".a", "a[", "a[x]", "a]b", "a[=v]", "a[\"x\"", "a[0]b"] {
            assert!(parse(p).is_err(), "{p:?} parsed");
        }
    }

    #[test]
    fn fields_are_set_and_created() {
        let d = set(json!({"spec": {}}), "spec.disruption.consolidateAfter", json!("5m")).unwrap();
        assert_eq!(d, json!({"spec": {"disruption": {"consolidateAfter": "5m"}}}));
        let d = set(d, "spec.limits[\"nvidia.com/gpu\"]", json!(16)).unwrap();
        assert_eq!(d["spec"]["limits"]["nvidia.com/gpu"], 16);
        let d = set(d, "spec.disruption", Value::Null).unwrap();
        assert!(d["spec"].get("disruption").is_none());
    }

    #[test]
    fn selectors_replace_append_and_remove() {
        let reqs = json!({"r": [{"key": "a", "operator": "In", "values": ["1"]}]});
        let d = set(reqs.clone(), "r[key=a].values", json!(["2", "3"])).unwrap();
        assert_eq!(d["r"][0]["values"], json!(["2", "3"]));
        let d = set(d, "r[key=b]", json!({"key": "b", "operator": "Lt", "values": ["5"]})).unwrap();
        assert_eq!(d["r"].as_array().unwrap().len(), 2);
        let d = set(d, "r[key=a]", Value::Null).unwrap();
        assert_eq!(d["r"], json!([{"key": "b", "operator": "Lt", "values": ["5"]}]));
        assert!(set(reqs.clone(), "r[key=zz].values", json!([])).unwrap_err().contains("no element has key=zz"));
        assert!(set(reqs.clone(), "r[key=c]", json!({"key": "d"})).unwrap_err().contains("must be a mapping with key: c"));
        assert!(set(reqs, "r[3]", json!(1)).unwrap_err().contains("out of range"));
        assert!(set(json!({"a": 1}), "a.b", json!(1)).unwrap_err().contains("a is not a mapping"));
    }
}
