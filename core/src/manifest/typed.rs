//! Typed, borrowed shapes of the plain Pod objects that dominate large inputs (100,000 separate
//! Pods; Karpenter's benchmark pods), decoded straight from JSON text or from an already-decoded
//! `Value` without building or walking a tree (issue 35).
//!
//! The shapes are deliberately narrow: every struct refuses unknown fields, every string is
//! borrowed (an escaped JSON string cannot be), and a list item or value of another type fails
//! the decode. A document that does not fit is simply not a [`PodDoc`]: the caller lowers it the
//! tree way (`reader`), which accepts everything the API server does and reports every error
//! with its path. So the typed path never has to say anything about a bad document; it only has
//! to give the same `Pod` for the documents it takes (`lower::typed_pod` checks the values the
//! tree way would refuse before it lowers anything).

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// A Pod object the typed path takes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PodDoc<'a> {
    #[serde(rename = "apiVersion", borrow)]
    pub api_version: &'a str,
    #[serde(borrow)]
    pub kind: &'a str,
    #[serde(borrow)]
    pub metadata: Meta<'a>,
    #[serde(default, borrow)]
    pub spec: Option<PodSpec<'a>>,
    #[serde(default, borrow)]
    pub status: Option<Status<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta<'a> {
    #[serde(borrow)]
    pub name: &'a str,
    #[serde(default, borrow)]
    pub namespace: Option<&'a str>,
    #[serde(default, borrow)]
    pub labels: Option<Pairs<'a>>,
    #[serde(default, borrow)]
    pub annotations: Option<Pairs<'a>>,
    #[serde(default, borrow)]
    pub uid: Option<&'a str>,
    #[serde(default, rename = "creationTimestamp", borrow)]
    pub creation_timestamp: Option<&'a str>,
    /// Read by nothing (the tree way ignores it); a number here, so that nothing unread
    /// (a repeated key inside it) passes that the strict reader would refuse.
    #[serde(default)]
    #[allow(dead_code)]
    pub generation: Option<serde_json::Number>,
    /// Pods of a ReplicaSet, a StatefulSet or a Job carry these (every bound pod of an
    /// existing cluster does: consolidation's input, issue 35).
    #[serde(default, rename = "ownerReferences", borrow)]
    pub owner_references: Option<Vec<OwnerRef<'a>>>,
}

/// One owner reference. The tree way reads `apiVersion`, `kind`, `name` and `controller`; `uid`
/// and `blockOwnerDeletion` are here so that real references fit (read by nothing).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnerRef<'a> {
    #[serde(default, rename = "apiVersion", borrow)]
    pub api_version: Option<&'a str>,
    #[serde(default, borrow)]
    pub kind: Option<&'a str>,
    #[serde(default, borrow)]
    pub name: Option<&'a str>,
    #[serde(default, borrow)]
    #[allow(dead_code)]
    pub uid: Option<&'a str>,
    #[serde(default)]
    pub controller: Option<bool>,
    #[serde(default, rename = "blockOwnerDeletion")]
    #[allow(dead_code)]
    pub block_owner_deletion: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PodSpec<'a> {
    #[serde(default, borrow)]
    pub containers: Option<Vec<Container<'a>>>,
    #[serde(default, rename = "nodeName", borrow)]
    pub node_name: Option<&'a str>,
    #[serde(default, rename = "nodeSelector", borrow)]
    pub node_selector: Option<Pairs<'a>>,
    #[serde(default, borrow)]
    pub affinity: Option<Affinity<'a>>,
    #[serde(default, borrow)]
    pub tolerations: Option<Vec<Toleration<'a>>>,
    /// Pod-level resources.
    #[serde(default, borrow)]
    pub resources: Option<Resources<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Container<'a> {
    /// Read by nothing; strings here, as the API server requires.
    #[serde(default, borrow)]
    #[allow(dead_code)]
    pub name: Option<&'a str>,
    #[serde(default, borrow)]
    #[allow(dead_code)]
    pub image: Option<&'a str>,
    #[serde(default, borrow)]
    pub resources: Option<Resources<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resources<'a> {
    #[serde(default, borrow)]
    pub requests: Option<Pairs<'a>>,
    #[serde(default, borrow)]
    pub limits: Option<Pairs<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Affinity<'a> {
    #[serde(default, rename = "nodeAffinity", borrow)]
    pub node_affinity: Option<NodeAffinity<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeAffinity<'a> {
    #[serde(default, rename = "requiredDuringSchedulingIgnoredDuringExecution", borrow)]
    pub required: Option<NodeSelector<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSelector<'a> {
    #[serde(default, rename = "nodeSelectorTerms", borrow)]
    pub terms: Option<Vec<Term<'a>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Term<'a> {
    #[serde(default, rename = "matchExpressions", borrow)]
    pub match_expressions: Option<Vec<Expression<'a>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expression<'a> {
    #[serde(default, borrow)]
    pub key: Option<&'a str>,
    #[serde(default, borrow)]
    pub operator: Option<&'a str>,
    #[serde(default, borrow)]
    pub values: Option<Vec<&'a str>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Toleration<'a> {
    #[serde(default, borrow)]
    pub key: Option<&'a str>,
    #[serde(default, borrow)]
    pub operator: Option<&'a str>,
    #[serde(default, borrow)]
    pub value: Option<&'a str>,
    #[serde(default, borrow)]
    pub effect: Option<&'a str>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Status<'a> {
    #[serde(default, borrow)]
    pub phase: Option<&'a str>,
}

/// A mapping of strings to strings (labels, annotations, nodeSelector, resource quantities) in
/// the order the tree way iterates its mapping: serde_json's `Map` is sorted by key unless its
/// `preserve_order` feature is on (then it is the input's order), so the pairs are put in the
/// same order here; the interner's numbering, and so every later order, follows from it. A
/// repeated key fails the decode (the strict JSON reader refuses it too).
#[derive(Debug, Default)]
pub struct Pairs<'a>(pub Vec<(&'a str, &'a str)>);

/// Whether serde_json's `Map` iterates in key order (its default) rather than input order.
fn maps_sorted() -> bool {
    static SORTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SORTED.get_or_init(|| {
        let mut m = serde_json::Map::new();
        m.insert("b".into(), serde_json::Value::Null);
        m.insert("a".into(), serde_json::Value::Null);
        m.keys().next().map(String::as_str) == Some("a")
    })
}

impl<'de: 'a, 'a> Deserialize<'de> for Pairs<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Pairs<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping of strings")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Pairs<'a>, A::Error> {
                let mut out: Vec<(&'a str, &'a str)> = Vec::new();
                while let Some((k, v)) = map.next_entry::<&'de str, &'de str>()? {
                    out.push((k, v));
                }
                if has_repeated_key(&out) {
                    return Err(de::Error::custom("repeated key"));
                }
                if maps_sorted() {
                    out.sort_unstable_by(|a, b| a.0.cmp(b.0));
                }
                Ok(Pairs(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// Whether two pairs share a key. Pairwise for the few keys of most maps; sorted beyond, so
/// that 40,000 annotations cost n log n, not the 3 s a pairwise scan took.
fn has_repeated_key(pairs: &[(&str, &str)]) -> bool {
    if pairs.len() <= 16 {
        return pairs.iter().enumerate().any(|(i, (k, _))| pairs[..i].iter().any(|(seen, _)| seen == k));
    }
    let mut keys: Vec<&str> = pairs.iter().map(|p| p.0).collect();
    keys.sort_unstable();
    keys.windows(2).any(|w| w[0] == w[1])
}

impl<'a> PodDoc<'a> {
    /// The typed shape of an already-decoded object (a YAML document, a Python or JavaScript
    /// object), borrowing its strings; `None` when it is not a plain Pod of this shape.
    pub fn of_value(v: &'a serde_json::Value) -> Option<PodDoc<'a>> {
        if v.get("kind").and_then(serde_json::Value::as_str) != Some("Pod") {
            return None;
        }
        PodDoc::deserialize(v).ok().filter(PodDoc::is_pod)
    }

    /// The typed shape of one JSON object's text (no tree is built); `None` when it is not a
    /// plain Pod of this shape, or any string in it is escaped.
    pub fn of_json(text: &'a str) -> Option<PodDoc<'a>> {
        serde_json::from_str::<PodDoc>(text).ok().filter(PodDoc::is_pod)
    }

    fn is_pod(&self) -> bool {
        self.api_version == "v1" && self.kind == "Pod"
    }
}
