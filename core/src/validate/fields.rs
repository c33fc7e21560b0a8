//! Unknown fields (SF-01): a field the kind's schema does not have.
//!
//! kubectl refuses such an object (strict field validation, its default since 1.27:
//! `strict decoding error: unknown field "spec.nodeSelecter"`), and an API server that is not asked
//! for strict validation drops the field with a warning. Either way the field does nothing; read
//! as absent, a misspelt `resources.request` or `spec.nodeSelecter` used to give an answer that
//! looked right and was not. So nodecast refuses it too, and says what was probably meant.
//!
//! The schemas are `fields.txt`, generated from the real sources by `oracle/envtest/fields`
//! (`make fields-check` checks it is current): the Go types of k8s.io/api v0.36.1 for built-in
//! kinds (Kubernetes 1.36, Karpenter v1.15.0's), the OpenAPI schemas of Karpenter v1.15.0's CRDs.
//! Names are matched case-sensitively, as the API server decodes them. `status` is never walked
//! (exports carry whatever the server filled in), nor is what a schema leaves open (a
//! Quantity, `spec.kubelet`, a RawExtension). The walk follows the table, so its depth is the
//! table's, whatever the input's nesting; the work is one lookup per key of the input.

use super::q;
use serde_json::{Map, Value};
use std::sync::OnceLock;

const TEXT: &str = include_str!("fields.txt");

/// What a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Not walked: a scalar, or anything the type's own decoder takes.
    Open,
    /// An object of the type with this index.
    Object(usize),
    /// `depth` levels of lists and maps (bit i of `kinds` set: level i is a map), then `inner`.
    Nested { kinds: u32, depth: u8, inner: Inner },
}

/// The innermost shape of a list or map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inner {
    Open,
    Object(usize),
}

struct Type {
    name: &'static str,
    /// Sorted by length, then name (`by_length`): a lookup compares lengths, integers, and
    /// bytes only among names of the key's length (validating 5,000 pods: 45.1 M instructions
    /// for the walk with byte-wise order, see benches/README.md).
    fields: Vec<(&'static str, Shape)>,
}

/// The order of a type's fields: length first, then the bytes.
fn by_length(name: &str) -> (usize, &str) {
    (name.len(), name)
}

struct Table {
    /// (apiVersion, kind, root type), sorted.
    kinds: Vec<(&'static str, &'static str, usize)>,
    types: Vec<Type>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| parse(TEXT))
}

/// Parses the generated table. It is embedded and checked by the tests, so a malformed line is a
/// build defect: it panics in the tests (`the_table_parses`), never on user input.
fn parse(text: &'static str) -> Table {
    let lines = || text.lines().filter(|l| !l.starts_with('#') && !l.is_empty());
    let mut names: Vec<&'static str> = lines().filter_map(|l| l.strip_prefix("type ")).collect();
    names.sort_unstable();
    let index = |name: &str| names.binary_search(&name).unwrap_or_else(|_| panic!("fields.txt: no type {name}"));
    let mut types: Vec<Type> = names.iter().map(|&name| Type { name, fields: Vec::new() }).collect();
    let mut kinds = Vec::new();
    let mut current = None;
    for line in lines() {
        if let Some(rest) = line.strip_prefix("kind ") {
            let f: Vec<&'static str> = rest.split(' ').collect();
            assert_eq!(f.len(), 3, "fields.txt: {line}");
            kinds.push((f[0], f[1], index(f[2])));
        } else if let Some(name) = line.strip_prefix("type ") {
            current = Some(index(name));
        } else if let (Some(t), Some(rest)) = (current, line.strip_prefix("  ")) {
            let (field, shape) = rest.split_once(' ').unwrap_or_else(|| panic!("fields.txt: {line}"));
            let shape = parse_shape(shape, &index);
            types[t].fields.push((field, shape));
        } else {
            panic!("fields.txt: {line}");
        }
    }
    for t in &mut types {
        t.fields.sort_unstable_by_key(|f| by_length(f.0));
    }
    kinds.sort_unstable();
    Table { kinds, types }
}

/// `-`, `TYPE`, or `[]`/`{}` prefixes (bit i of `kinds` set: level i is a map) before either.
fn parse_shape(s: &str, index: &dyn Fn(&str) -> usize) -> Shape {
    let (mut rest, mut kinds, mut depth) = (s, 0u32, 0u8);
    loop {
        if let Some(r) = rest.strip_prefix("[]") {
            rest = r;
        } else if let Some(r) = rest.strip_prefix("{}") {
            kinds |= 1 << depth;
            rest = r;
        } else {
            break;
        }
        depth += 1;
        assert!(depth < 8, "fields.txt: {s} nests too deep");
    }
    let inner = if rest == "-" { Inner::Open } else { Inner::Object(index(rest)) };
    match (depth, inner) {
        (0, Inner::Open) => Shape::Open,
        (0, Inner::Object(t)) => Shape::Object(t),
        _ => Shape::Nested { kinds, depth, inner },
    }
}

fn root(api_version: &str, kind: &str) -> Option<usize> {
    let t = table();
    t.kinds.iter().find(|(a, k, _)| *a == api_version && *k == kind).map(|k| k.2)
}

/// A field its type does not have.
pub struct Unknown {
    /// Where, relative to the object (or template) walked.
    pub path: String,
    /// What was probably meant and what the type has.
    pub help: String,
}

impl Unknown {
    /// The API server's words, for the field at `full_path`.
    pub fn message(full_path: &str) -> String {
        format!("strict decoding error: unknown field {} (SF-01)", q(full_path))
    }
}

/// Every field of `obj` (a whole object of `apiVersion` `kind`) that its schema does not have;
/// nothing for a kind nodecast has no schema of. One allocation (the path buffer) when there is
/// nothing to say.
pub(super) fn unknown_in(api_version: &str, kind: &str, obj: &Map<String, Value>) -> Vec<Unknown> {
    let mut found = Vec::new();
    if let Some(t) = root(api_version, kind) {
        // One allocation per object: paths are rarely longer.
        object(&mut found, table(), t, obj, &mut String::with_capacity(128));
    }
    found
}

/// [`unknown_in`] for a pod template (a `PodTemplateSpec`) inside another kind: the workload
/// CRDs nodecast expands (PyTorchJob, RayCluster, JobSet, ...) embed Kubernetes' own schema there.
pub fn unknown_in_pod_template(template: &Map<String, Value>) -> Vec<Unknown> {
    let mut found = Vec::new();
    let t = table();
    if let Ok(i) = t.types.binary_search_by_key(&"core/v1.PodTemplateSpec", |t| t.name) {
        object(&mut found, t, i, template, &mut String::with_capacity(128));
    }
    found
}

/// The kinds whose fields are checked, as `apiVersion kind` (for the tests).
#[cfg(test)]
pub(super) fn kinds() -> Vec<(&'static str, &'static str)> {
    table().kinds.iter().map(|k| (k.0, k.1)).collect()
}

fn object(found: &mut Vec<Unknown>, table: &Table, t: usize, obj: &Map<String, Value>, path: &mut String) {
    let ty = &table.types[t];
    for (key, value) in obj {
        let len = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
        match ty.fields.binary_search_by_key(&by_length(key), |f| by_length(f.0)) {
            Ok(i) => value_of(found, table, ty.fields[i].1, value, path),
            Err(_) => found.push(Unknown { path: path.clone(), help: help(ty, key) }),
        }
        path.truncate(len);
    }
}

fn value_of(found: &mut Vec<Unknown>, table: &Table, shape: Shape, value: &Value, path: &mut String) {
    match shape {
        Shape::Open => {}
        Shape::Object(t) => {
            // A value of another type is the type checks' to report (or lowering's).
            if let Value::Object(m) = value {
                object(found, table, t, m, path);
            }
        }
        // Lists and maps of scalars (labels, requests, args) have nothing to walk.
        Shape::Nested { inner: Inner::Open, .. } => {}
        Shape::Nested { kinds, depth, inner } => nested(found, table, (kinds, depth, inner), 0, value, path),
    }
}

fn nested(found: &mut Vec<Unknown>, table: &Table, shape: (u32, u8, Inner), level: u8, value: &Value, path: &mut String) {
    let (kinds, depth, inner) = shape;
    if level == depth {
        if let (Inner::Object(t), Value::Object(m)) = (inner, value) {
            object(found, table, t, m, path);
        }
        return;
    }
    let is_map = kinds & (1 << level) != 0;
    let len = path.len();
    match value {
        Value::Object(m) if is_map => {
            for (k, v) in m {
                path.push('[');
                path.push_str(k);
                path.push(']');
                nested(found, table, shape, level + 1, v, path);
                path.truncate(len);
            }
        }
        Value::Array(a) if !is_map => {
            for (i, v) in a.iter().enumerate() {
                use std::fmt::Write;
                let _ = write!(path, "[{i}]");
                nested(found, table, shape, level + 1, v, path);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

fn help(ty: &Type, key: &str) -> String {
    let mut help = String::new();
    if let Some(near) = nearest(key, ty) {
        help.push_str(&format!("did you mean {}? ", q(near)));
    }
    let what = display_name(ty.name);
    let mut names: Vec<&str> = ty.fields.iter().map(|f| f.0).collect();
    names.sort_unstable();
    if names.len() <= 16 {
        help.push_str(&format!("{what} has {}", names.join(", ")));
    } else {
        help.push_str(&format!("{what} has {} fields (`kubectl explain` lists them)", names.len()));
    }
    help.push_str("; kubectl refuses an unknown field, and an API server not asked to drops it");
    help
}

/// `core/v1.ResourceRequirements` -> `ResourceRequirements (Kubernetes 1.36)`;
/// `karpenter.sh/v1.NodePool.spec.disruption` -> `NodePool spec.disruption (Karpenter v1.15's CRD)`.
fn display_name(name: &str) -> String {
    let rest = name.split_once('.').map_or(name, |(_, r)| r);
    let Some(slash) = name.find('/').filter(|&i| name[..i].contains('.')) else {
        // A built-in type: `core/v1.Name`.
        return format!("{rest} (Kubernetes 1.36)");
    };
    // A CRD's type: `group/version.Kind.path`, the group itself dotted.
    let after = &name[slash + 1..];
    let after = after.split_once('.').map_or(after, |(_, r)| r);
    let (kind, path) = after.split_once('.').map_or((after, ""), |(k, p)| (k, p));
    let path = path.replace("[]", "[*]");
    if path.is_empty() {
        format!("{kind} (Karpenter v1.15's CRD)")
    } else {
        format!("{kind} {path} (Karpenter v1.15's CRD)")
    }
}

/// The field `key` most likely meant: the same name in another case, a plural or singular, or
/// one at most two edits away (three for long names).
fn nearest<'t>(key: &str, ty: &'t Type) -> Option<&'t str> {
    let lower = key.to_ascii_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for &(name, _) in &ty.fields {
        let n = name.to_ascii_lowercase();
        let d = if n == lower {
            0
        } else if n.strip_suffix('s') == Some(&lower) || lower.strip_suffix('s') == Some(&n) {
            1
        } else {
            edit_distance(&lower, &n, 3)
        };
        let limit = match key.len() {
            0..=3 => 1,
            4..=11 => 2,
            _ => 3,
        };
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, name));
        }
    }
    best.map(|b| b.1)
}

/// Levenshtein distance, or `cap + 1` once it is known to exceed `cap` (bounded work: field
/// names are short, and a long key is cut off by the length difference first).
fn edit_distance(a: &str, b: &str, cap: usize) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len().abs_diff(b.len()) > cap || a.len() > 64 || b.len() > 64 {
        return cap + 1;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let sub = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()].min(cap + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_has_the_kinds_nodecast_reads() {
        let t = table();
        assert!(t.types.len() > 100, "{} types", t.types.len());
        for (api, kind) in
            [("v1", "Pod"), ("apps/v1", "Deployment"), ("karpenter.sh/v1", "NodePool"), ("karpenter.k8s.aws/v1", "EC2NodeClass")]
        {
            assert!(root(api, kind).is_some(), "{api} {kind}");
        }
        assert!(root("karpenter.sh/v1beta1", "NodePool").is_none());
    }

    #[test]
    fn near_names() {
        let t = &table().types[table().types.binary_search_by_key(&"core/v1.ResourceRequirements", |t| t.name).unwrap()];
        assert_eq!(nearest("request", t), Some("requests"));
        assert_eq!(nearest("Limits", t), Some("limits"));
        assert_eq!(nearest("gpu", t), None);
        assert_eq!(edit_distance("nodeselecter", "nodeselector", 3), 1);
        assert_eq!(edit_distance(&"x".repeat(1000), "y", 3), 4);
    }

    #[test]
    fn display_names() {
        assert_eq!(display_name("core/v1.ResourceRequirements"), "ResourceRequirements (Kubernetes 1.36)");
        assert_eq!(display_name("karpenter.sh/v1.NodePool.spec.disruption"), "NodePool spec.disruption (Karpenter v1.15's CRD)");
        assert_eq!(display_name("autoscaling.x-k8s.io/v1beta1.CapacityBuffer.spec"), "CapacityBuffer spec (Karpenter v1.15's CRD)");
        assert_eq!(display_name("karpenter.sh/v1.NodePool"), "NodePool (Karpenter v1.15's CRD)");
        assert_eq!(
            display_name("karpenter.sh/v1.NodePool.spec.disruption.budgets[]"),
            "NodePool spec.disruption.budgets[*] (Karpenter v1.15's CRD)"
        );
    }
}
