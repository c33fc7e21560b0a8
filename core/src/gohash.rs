//! Karpenter's NodePool template hash (`NodePool.Hash`, pkg/apis/v1/nodepool.go), which it
//! stamps on every NodeClaim as `karpenter.sh/nodepool-hash` (version `v3`) and compares
//! with the NodePool's to find static drift (nodeclaim/disruption/drift.go).
//!
//! Karpenter hashes the Go value `spec.template` (a `NodeClaimTemplate`) with the library
//! github.com/mitchellh/hashstructure/v2, format V2, with the options SlicesAsSets,
//! IgnoreZeroValue and ZeroNil. That algorithm, described in our words and reproduced here:
//! - every hash is 64-bit FNV-1 (Go's `fnv.New64`: multiply, then XOR the byte; not FNV-1a);
//!   integers are hashed as their 8 little-endian bytes, strings as their bytes;
//! - "ordered(a, b)" is FNV-1 of the 16 little-endian bytes of a then b; "finish(h)" is FNV-1
//!   of the 8 bytes of h;
//! - a struct starts from the hash of its Go type name; for each exported field in
//!   declaration order that is not tagged `hash:"ignore"` and not the zero value, it XORs in
//!   ordered(hash(field name), hash(value)) and then replaces the running value by finish(it)
//!   (so field order matters);
//! - a map XORs ordered(hash(key), hash(value)) over its entries and finishes once;
//! - a slice (as a set) XORs its elements' hashes, without finishing;
//! - a pointer is hashed as what it points to.
//!
//! The Go structs this walks are `NodeClaimTemplate{ObjectMeta{Labels, Annotations},
//! Spec NodeClaimTemplateSpec{Taints, StartupTaints, Requirements (ignored), NodeClassRef
//! *NodeClassReference{Kind, Name, Group}, TerminationGracePeriod *metav1.Duration{Duration},
//! ExpireAfter NillableDuration{*time.Duration, Raw (ignored)}}}` and `corev1.Taint{Key,
//! Value, Effect, TimeAdded}`. Checked against Karpenter's own `Hash()` by
//! oracle/cmd/nodepool-hash (core/tests/drift.rs holds its answers).

use serde_json::Value;

/// The hash version Karpenter v1.15 writes next to the hash (`NodePoolHashVersion`).
pub const NODEPOOL_HASH_VERSION: &str = "v3";

/// A Go value, as far as the walk above needs one. `Nil` is a nil pointer, map or slice (the
/// API server drops empty maps and lists, `omitempty`, so an empty one arrives as nil too).
enum Go {
    Nil,
    Str(String),
    Int(i64),
    Ptr(Box<Go>),
    Struct(&'static str, Vec<(&'static str, Go)>),
    Map(Vec<(String, String)>),
    Set(Vec<Go>),
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET, |h, &b| h.wrapping_mul(FNV_PRIME) ^ u64::from(b))
}

fn ordered(a: u64, b: u64) -> u64 {
    let mut buf = [0u8; 16];
    buf[..8].copy_from_slice(&a.to_le_bytes());
    buf[8..].copy_from_slice(&b.to_le_bytes());
    fnv(&buf)
}

fn finish(h: u64) -> u64 {
    fnv(&h.to_le_bytes())
}

impl Go {
    /// Go's `reflect.Value.IsZero`, with empty maps and slices already made nil.
    fn is_zero(&self) -> bool {
        match self {
            Go::Nil => true,
            Go::Str(s) => s.is_empty(),
            Go::Int(i) => *i == 0,
            Go::Ptr(_) | Go::Map(_) | Go::Set(_) => false,
            Go::Struct(_, fields) => fields.iter().all(|(_, v)| v.is_zero()),
        }
    }

    fn hash(&self) -> u64 {
        match self {
            // Only reached for a nil value inside a set, which the templates never hold; ZeroNil
            // hashes it as the zero of its type, an empty struct name for our purposes.
            Go::Nil => 0,
            Go::Str(s) => fnv(s.as_bytes()),
            Go::Int(i) => fnv(&i.to_le_bytes()),
            Go::Ptr(inner) => inner.hash(),
            Go::Struct(name, fields) => {
                let mut h = fnv(name.as_bytes());
                for (field, value) in fields.iter().filter(|(_, v)| !v.is_zero()) {
                    h ^= ordered(fnv(field.as_bytes()), value.hash());
                    h = finish(h);
                }
                h
            }
            Go::Map(entries) => finish(entries.iter().fold(0, |h, (k, v)| h ^ ordered(fnv(k.as_bytes()), fnv(v.as_bytes())))),
            Go::Set(items) => items.iter().fold(0, |h, v| h ^ v.hash()),
        }
    }
}

fn string_map(v: Option<&Value>) -> Go {
    match v.and_then(Value::as_object) {
        Some(o) if !o.is_empty() => Go::Map(o.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect()),
        _ => Go::Nil,
    }
}

fn string_field(v: &Value, key: &str) -> Go {
    Go::Str(v.get(key).and_then(Value::as_str).unwrap_or_default().to_string())
}

/// Why a template cannot be hashed here (it holds what nodecast does not reproduce).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unhashable(pub String);

fn taints(v: Option<&Value>) -> Result<Go, Unhashable> {
    let Some(list) = v.and_then(Value::as_array).filter(|l| !l.is_empty()) else { return Ok(Go::Nil) };
    let mut out = Vec::new();
    for t in list {
        // metav1.Time hashes through time.Time.MarshalBinary, which depends on the time zone
        // Karpenter's process runs in: not reproducible from the input alone.
        if t.get("timeAdded").is_some_and(|x| !x.is_null()) {
            return Err(Unhashable("a template taint sets timeAdded".into()));
        }
        out.push(Go::Struct(
            "Taint",
            vec![
                ("Key", string_field(t, "key")),
                ("Value", string_field(t, "value")),
                ("Effect", string_field(t, "effect")),
                ("TimeAdded", Go::Nil),
            ],
        ));
    }
    Ok(Go::Set(out))
}

/// A duration field as the API server hands it over: Ok(None) for absent, Ok(Some(ns)).
fn duration(v: Option<&Value>, what: &str) -> Result<Option<i64>, Unhashable> {
    let Some(s) = v.and_then(Value::as_str) else { return Ok(None) };
    crate::golang::duration_nanos(s)
        .and_then(|d| i64::try_from(d).ok())
        .map(Some)
        .ok_or_else(|| Unhashable(format!("{what} {s:?} is not a Go duration")))
}

/// Karpenter's hash of a NodePool's `spec.template` (JSON as the input gives it), as the
/// decimal string it writes in `karpenter.sh/nodepool-hash`. An absent `expireAfter` takes the
/// CRD default (720h) the API server fills in; `Never` is Go's nil duration.
pub fn nodepool_template_hash(template: Option<&Value>) -> Result<String, Unhashable> {
    let null = Value::Null;
    let t = template.unwrap_or(&null);
    let meta = t.get("metadata").unwrap_or(&null);
    let spec = t.get("spec").unwrap_or(&null);
    let object_meta =
        Go::Struct("ObjectMeta", vec![("Labels", string_map(meta.get("labels"))), ("Annotations", string_map(meta.get("annotations")))]);
    let node_class_ref = match spec.get("nodeClassRef").filter(|v| v.is_object()) {
        Some(r) => Go::Ptr(Box::new(Go::Struct(
            "NodeClassReference",
            vec![("Kind", string_field(r, "kind")), ("Name", string_field(r, "name")), ("Group", string_field(r, "group"))],
        ))),
        None => Go::Nil,
    };
    let tgp = match duration(spec.get("terminationGracePeriod"), "terminationGracePeriod")? {
        Some(d) => Go::Ptr(Box::new(Go::Struct("Duration", vec![("Duration", Go::Int(d))]))),
        None => Go::Nil,
    };
    let expire = match spec.get("expireAfter").and_then(Value::as_str) {
        Some("Never") => None,
        Some(_) => duration(spec.get("expireAfter"), "expireAfter")?,
        None => Some(720 * 3_600_000_000_000),
    };
    let expire_after = Go::Struct("NillableDuration", vec![("Duration", expire.map_or(Go::Nil, |d| Go::Ptr(Box::new(Go::Int(d)))))]);
    let template_spec = Go::Struct(
        "NodeClaimTemplateSpec",
        vec![
            ("Taints", taints(spec.get("taints"))?),
            ("StartupTaints", taints(spec.get("startupTaints"))?),
            ("NodeClassRef", node_class_ref),
            ("TerminationGracePeriod", tgp),
            ("ExpireAfter", expire_after),
        ],
    );
    let root = Go::Struct("NodeClaimTemplate", vec![("ObjectMeta", object_meta), ("Spec", template_spec)]);
    Ok(root.hash().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_the_reference_vectors() {
        // FNV-1 64 test vectors (draft-eastlake-fnv): "" and "a".
        assert_eq!(fnv(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv(b"a"), 0xaf63_bd4c_8601_b7be);
    }

    #[test]
    fn field_order_and_zero_values_matter_as_in_go() {
        let a = Go::Struct("S", vec![("A", Go::Str("x".into())), ("B", Go::Str("y".into()))]);
        let b = Go::Struct("S", vec![("B", Go::Str("y".into())), ("A", Go::Str("x".into()))]);
        assert_ne!(a.hash(), b.hash(), "finishing after every field makes the order count");
        let with_zero = Go::Struct("S", vec![("A", Go::Str("x".into())), ("C", Go::Str(String::new()))]);
        let without = Go::Struct("S", vec![("A", Go::Str("x".into()))]);
        assert_eq!(with_zero.hash(), without.hash(), "IgnoreZeroValue skips empty fields");
        let set1 = Go::Set(vec![Go::Str("p".into()), Go::Str("q".into())]);
        let set2 = Go::Set(vec![Go::Str("q".into()), Go::Str("p".into())]);
        assert_eq!(set1.hash(), set2.hash(), "SlicesAsSets ignores order");
    }

    #[test]
    fn empty_lists_and_maps_hash_like_absent_ones() {
        let a = serde_json::json!({"metadata": {"labels": {}}, "spec": {"taints": [], "nodeClassRef": {"group": "g", "kind": "K", "name": "n"}}});
        let b = serde_json::json!({"spec": {"nodeClassRef": {"group": "g", "kind": "K", "name": "n"}}});
        assert_eq!(nodepool_template_hash(Some(&a)), nodepool_template_hash(Some(&b)));
        let c = serde_json::json!({"spec": {"expireAfter": "720h", "nodeClassRef": {"group": "g", "kind": "K", "name": "n"}}});
        assert_eq!(nodepool_template_hash(Some(&b)), nodepool_template_hash(Some(&c)), "720h is the default");
        let d = serde_json::json!({"spec": {"expireAfter": "Never", "nodeClassRef": {"group": "g", "kind": "K", "name": "n"}}});
        assert_ne!(nodepool_template_hash(Some(&b)), nodepool_template_hash(Some(&d)));
    }

    #[test]
    fn taints_with_time_added_are_not_hashed() {
        let t = serde_json::json!({"spec": {"taints": [{"key": "k", "effect": "NoSchedule", "timeAdded": "2025-01-01T00:00:00Z"}]}});
        assert!(nodepool_template_hash(Some(&t)).is_err());
    }
}
