//! The front door: YAML/JSON text (many documents, `kind: List` wrappers) into located documents.
//!
//! Design note: instead of a layer of serde structs mirroring every Kubernetes type, documents
//! are decoded to a JSON tree once and lowered by a path-tracking reader (`reader`). That gives
//! every error its exact field path and lets lowering accept what the API server accepts
//! (numbers where strings are expected, `null` for absent) without a second validation pass.
//!
//! The trees are built one document at a time where the text allows it ([`decode_streamed`]:
//! plain block YAML through `block_yaml`, JSON through `json_stream`, a List's items one by
//! one), and `load::model` validates, lowers and drops each before the next is built. Holding
//! every tree until lowering ended was most of the peak memory of a large input (20,000 pods:
//! 223 MB → 107 MB) and allocating fresh memory for each was most of decoding's time; a reused,
//! still-cached tree costs a quarter as much (issue 21, benches/README.md "Third round").
//! Plain Pods, the bulk of a large input, skip the tree where they can (issue 35): `typed` holds
//! their borrowed, typed shape, which a JSON List's items are decoded into straight from their
//! text ([`decode_streamed_typed`]) and already-decoded documents (YAML, the front ends'
//! `objects`) are read into without a walk; `lower::typed_pod` lowers that shape. It is a fast
//! path only: a document of any other shape, or one the tree way would report anything about,
//! goes the tree way, which keeps every error and its path. Texts outside the fast subset, and
//! every error, still go through [`decode`] (serde-saphyr, serde_json) whole.

mod block_yaml;
mod json_stream;
#[cfg(test)]
mod stream_tests;

/// The repository's input files for the readers' equality tests: examples/, the shared
/// conformance cases and tests/, with one of `extensions`, in a stable order.
#[cfg(test)]
pub(crate) fn test_input_files(extensions: &[&str]) -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, extensions: &[&str], out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, extensions, out);
            } else if p.extension().and_then(|e| e.to_str()).is_some_and(|e| extensions.contains(&e)) {
                out.push(p);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["examples", "../shared/conformance/cases", "tests"] {
        walk(&root.join(dir), extensions, &mut files);
    }
    files
}
pub mod reader;
mod strict_json;
pub mod typed;

use crate::error::{ErrorKind, InputError};
use serde_json::Value;
use std::borrow::Cow;

/// Largest input accepted, in bytes. Bigger inputs are refused up front instead of exhausting
/// memory (a 1,000,000-pod cluster dump is ~300 MB of YAML, beyond what this tool is for).
pub const MAX_INPUT_BYTES: usize = 256 * 1024 * 1024;

/// One object of the input and where it came from. The value is borrowed when it comes from a
/// request's already-decoded `objects`: copying 20,000 pod trees only to read and drop them was
/// half of the time of building a model.
#[derive(Debug, Clone)]
pub struct Document<'a> {
    /// Name of the input it came from (file name, `<stdin>`), if given.
    pub source: Option<String>,
    /// 0-based index of the document within its source.
    pub index: usize,
    /// Path prefix inside the document: empty, or `items[3]` for members of a `kind: List`.
    pub prefix: String,
    /// The document's value.
    pub value: Cow<'a, Value>,
}

impl Document<'_> {
    /// `kind`, or empty.
    pub fn kind(&self) -> &str {
        self.value.get("kind").and_then(Value::as_str).unwrap_or("")
    }

    /// `apiVersion`, or empty.
    pub fn api_version(&self) -> &str {
        self.value.get("apiVersion").and_then(Value::as_str).unwrap_or("")
    }

    /// `metadata.name` (`get` twice, not `pointer`, which allocates while parsing its path).
    pub fn name(&self) -> &str {
        self.value.get("metadata").and_then(|m| m.get("name")).and_then(Value::as_str).unwrap_or("")
    }

    /// `metadata.namespace`, if given.
    pub fn namespace(&self) -> Option<&str> {
        self.value.get("metadata").and_then(|m| m.get("namespace")).and_then(Value::as_str)
    }

    /// `Kind/name` or `Kind/namespace/name` for messages.
    pub fn object(&self) -> String {
        match self.namespace() {
            Some(ns) => format!("{}/{}/{}", self.kind(), ns, self.name()),
            None => format!("{}/{}", self.kind(), self.name()),
        }
    }
}

/// Decode one text (YAML or JSON, one or many documents) into documents; `kind: List` items
/// become documents of their own. Empty documents are skipped.
pub fn decode(text: &str, source: Option<&str>) -> Result<Vec<Document<'static>>, Vec<InputError>> {
    // Everything decoding refuses is a syntax error (of the text or of the document's shape).
    let located = |e: InputError| match source {
        Some(s) => InputError { source: Some(s.to_string()), kind: ErrorKind::Syntax, ..e },
        None => e.kind(ErrorKind::Syntax),
    };
    if text.len() > MAX_INPUT_BYTES {
        return Err(vec![located(
            InputError::new("input-too-large", format!("input is {} bytes; the limit is {MAX_INPUT_BYTES}", text.len()))
                .help("split the input or remove objects nodecast does not need"),
        )]);
    }
    let trimmed = text.trim_start();
    let values: Vec<Value> = if trimmed.starts_with('{') || trimmed.starts_with('[') {
        // JSON first (fast); a flow-style YAML document (`{apiVersion: v1, kind: Pod}`) starts
        // the same way, so when JSON fails on text whose keys are not quoted, it is read as YAML
        // (and a failure is reported as YAML's).
        // Only text whose first key or item is a bare word (`{apiVersion: v1`) is flow YAML, or
        // JSON documents between YAML's `---` separators (a YAML stream kubectl accepts);
        // anything else (`{"`, `[[[`) is JSON however it fails.
        let first = trimmed.trim_start_matches(|c: char| c == '{' || c == '[' || c.is_whitespace()).chars().next();
        let bare_word = first.is_some_and(char::is_alphabetic);
        match decode_json(text) {
            Ok(v) => v,
            Err(json_error) if !bare_word && !has_document_separator(text) => return Err(vec![located(json_error)]),
            Err(_) => decode_yaml(text).map_err(|e| vec![located(e)])?,
        }
    } else {
        decode_yaml(text).map_err(|e| vec![located(e)])?
    };
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    for (index, value) in values.into_iter().enumerate() {
        split(Cow::Owned(value), source, index, &mut docs, &mut errors);
    }
    if errors.is_empty() {
        Ok(docs)
    } else {
        Err(errors)
    }
}

/// Whether `text` can be read by [`decode_streamed`]: JSON, or YAML that passes the fast
/// reader's byte checks, within the size bound. Cheap (one pass over the bytes, no allocation),
/// so a caller can decide before starting work it would have to throw away.
pub fn streamable(text: &str) -> bool {
    text.len() <= MAX_INPUT_BYTES && (is_json(text) || block_yaml::may_take(text))
}

/// Text `decode` reads as JSON first.
fn is_json(text: &str) -> bool {
    text.trim_start().starts_with(['{', '['])
}

/// The documents of a [`streamable`] text handed to `each` one at a time, each dropped before
/// the next is built: the same documents, in the same order, as [`decode`] returns. `false`
/// when the text turns out to need the full parser (or holds a document `decode` would refuse):
/// the documents handed over so far are then only part of the text, and the caller starts over
/// with [`decode`], which also reports any error.
pub fn decode_streamed(text: &str, source: Option<&str>, each: &mut dyn FnMut(&Document<'_>)) -> bool {
    decode_streamed_typed(text, source, false, &mut |next| {
        if let Next::Document(d) = next {
            each(d);
        }
        true
    })
}

/// What [`decode_streamed_typed`] hands over.
pub enum Next<'x, 't> {
    /// A document, as [`decode_streamed`] hands it over.
    Document(&'x Document<'x>),
    /// A List item of JSON text that is a plain Pod of the typed shape (`typed`), with the
    /// place [`Document`] would give it: no tree was built. The caller returns `false` to have
    /// it handed over again as a [`Next::Document`].
    Pod { pod: &'x typed::PodDoc<'t>, source: Option<&'x str>, index: usize, prefix: &'x str },
}

/// [`decode_streamed`], handing over the items of a JSON List that are plain Pods in their typed
/// shape (`typed` true) instead of as trees when `each` takes them (returns `true`; its return
/// value for a [`Next::Document`] is not read). The same documents in the same order either way.
pub fn decode_streamed_typed<'t>(text: &'t str, source: Option<&str>, typed: bool, each: &mut dyn FnMut(Next<'_, 't>) -> bool) -> bool {
    debug_assert!(streamable(text));
    let mut index = 0;
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    if is_json(text) {
        let mut refused = false;
        let mut part = |part| match part {
            json_stream::Part::Item(i, value) => {
                each(Next::Document(&Document {
                    source: source.map(str::to_string),
                    index,
                    prefix: format!("items[{i}]"),
                    value: Cow::Owned(value),
                }));
            }
            json_stream::Part::Pod(i, pod, item) => {
                let prefix = format!("items[{i}]");
                if !each(Next::Pod { pod: &pod, source, index, prefix: &prefix }) {
                    // Declined: the same item as a tree (its text was read strictly already,
                    // so this cannot fail; if it did, the caller starts over).
                    match serde_json::from_str::<strict_json::Strict>(item) {
                        Ok(v) => {
                            each(Next::Document(&Document { source: source.map(str::to_string), index, prefix, value: Cow::Owned(v.0) }));
                        }
                        Err(_) => refused = true,
                    }
                }
            }
            json_stream::Part::Whole(value) => {
                split(Cow::Owned(value), source, index, &mut docs, &mut errors);
                for d in docs.drain(..) {
                    each(Next::Document(&d));
                }
                index += 1;
            }
            json_stream::Part::ListEnd => index += 1,
        };
        let read = json_stream::decode_each(text, typed, &mut part).is_ok();
        return read && !refused && errors.is_empty();
    }
    let complete = block_yaml::decode_each(text, &mut |value| {
        if !errors.is_empty() {
            return;
        }
        split(Cow::Owned(value), source, index, &mut docs, &mut errors);
        index += 1;
        for d in docs.drain(..) {
            each(Next::Document(&d));
        }
    });
    complete.is_some() && errors.is_empty()
}

/// One decoded value into documents: an object is one document, the items of a `kind: *List` or
/// of a bare array are documents of their own (paths prefixed `items[i]` / `[i]`), null is an
/// empty document. Shared by text inputs and the request's already-decoded `objects`, so a List
/// dict from a notebook or a JS object behaves exactly like the same List in YAML.
pub fn split<'a>(value: Cow<'a, Value>, source: Option<&str>, index: usize, docs: &mut Vec<Document<'a>>, errors: &mut Vec<InputError>) {
    let located = |e: InputError| InputError { source: source.map(str::to_string), kind: ErrorKind::Syntax, ..e };
    let doc = |prefix: String, value: Cow<'a, Value>| Document { source: source.map(str::to_string), index, prefix, value };
    match &*value {
        Value::Null => {}
        Value::Object(_)
            if value.get("kind").and_then(Value::as_str).is_some_and(|k| k.ends_with("List")) && value.get("items").is_some() =>
        {
            match value.get("items") {
                Some(Value::Array(_)) => {
                    for (i, item) in members(value, Some("items")).into_iter().enumerate() {
                        docs.push(doc(format!("items[{i}]"), item));
                    }
                }
                Some(Value::Null) => {}
                _ => {
                    errors.push(located(InputError::new("wrong-type", "`items` of a List must be a list").at_document(index).path("items")))
                }
            }
        }
        Value::Object(_) => docs.push(doc(String::new(), value)),
        Value::Array(_) => {
            // A bare JSON/YAML array of objects: treat like a List.
            for (i, item) in members(value, None).into_iter().enumerate() {
                docs.push(doc(format!("[{i}]"), item));
            }
        }
        other => errors.push(located(
            InputError::new(
                "wrong-type",
                format!("a document must be a mapping (a Kubernetes object), got {}", reader::render_short(other)),
            )
            .at_document(index),
        )),
    }
}

/// The elements of the array `value[key]` (or of `value` itself), borrowed or moved out.
fn members<'a>(value: Cow<'a, Value>, key: Option<&str>) -> Vec<Cow<'a, Value>> {
    match value {
        Cow::Borrowed(v) => {
            let array = match key {
                Some(k) => v.get(k),
                None => Some(v),
            };
            array.and_then(Value::as_array).map(|a| a.iter().map(Cow::Borrowed).collect()).unwrap_or_default()
        }
        Cow::Owned(mut v) => {
            let array = match key {
                Some(k) => v.get_mut(k).map(Value::take),
                None => Some(v),
            };
            match array {
                Some(Value::Array(a)) => a.into_iter().map(Cow::Owned).collect(),
                _ => Vec::new(),
            }
        }
    }
}

// One error, returned once per input: its size does not matter.
/// Whether a line of `text` is YAML's document separator (`---`, alone or before content).
fn has_document_separator(text: &str) -> bool {
    text.lines().any(|l| l.trim_end() == "---" || l.starts_with("--- "))
}

#[allow(clippy::result_large_err)]
fn decode_json(text: &str) -> Result<Vec<Value>, InputError> {
    let mut out = Vec::new();
    let stream = serde_json::Deserializer::from_str(text).into_iter::<strict_json::Strict>();
    for (i, item) in stream.enumerate() {
        match item {
            Ok(v) => out.push(v.0),
            Err(e) => {
                let mut err = InputError::new("json-syntax", format!("invalid JSON: {e}")).at_document(i);
                err.line = Some(e.line());
                err.column = Some(e.column());
                return Err(err);
            }
        }
    }
    Ok(out)
}

/// YAML decoding limits, scaled to the input. Without aliases a node takes at least about two
/// bytes of text, so these never refuse plain YAML below `MAX_INPUT_BYTES`; they stop alias
/// expansion (billion laughs) from growing a document beyond the size of its own text, and keep
/// memory proportional to the input.
fn yaml_budget(len: usize) -> serde_saphyr::Budget {
    let mut b = serde_saphyr::Budget::default();
    b.max_reader_input_bytes = Some(MAX_INPUT_BYTES);
    b.max_nodes = b.max_nodes.max(len / 2);
    b.max_events = b.max_events.max(len);
    b.max_total_scalar_bytes = b.max_total_scalar_bytes.max(len);
    // One document per pod at most: the workload expansion limit.
    b.max_documents = MAX_DOCUMENTS;
    // Kubernetes objects nest about 20 levels deep; the default (64) stays.
    b
}

/// Most documents in one input (a `---` storm of empty documents would otherwise cost memory
/// per separator).
pub const MAX_DOCUMENTS: usize = 2_000_000;

/// What tripped a YAML decoding limit, in words.
fn describe_breach(breach: &serde_saphyr::budget::BudgetBreach) -> String {
    use serde_saphyr::budget::BudgetBreach as B;
    match breach {
        B::Nodes { nodes } => format!("more than {} nodes after alias expansion ({nodes} reached)", nodes - 1),
        B::Events { events } => format!("more than {} parser events ({events} reached)", events - 1),
        B::Aliases { aliases } => format!("too many aliases ({aliases})"),
        B::Anchors { anchors } => format!("too many anchors ({anchors})"),
        B::AliasAnchorRatio { aliases, anchors } => format!("{aliases} aliases for only {anchors} anchors (alias expansion)"),
        B::Depth { depth } => format!("nesting {depth} levels deep"),
        B::Documents { documents } => format!("more than {MAX_DOCUMENTS} documents ({documents} reached)"),
        B::ScalarBytes { total_scalar_bytes } => format!("{total_scalar_bytes} bytes of scalars after alias expansion"),
        other => format!("{other:?}"),
    }
}

/// The budget breach behind a YAML error, if that is what it is.
fn budget_breach(mut e: &serde_saphyr::Error) -> Option<&serde_saphyr::budget::BudgetBreach> {
    loop {
        match e {
            serde_saphyr::Error::WithSnippet { error, .. } | serde_saphyr::Error::AliasError { error, .. } => e = error,
            serde_saphyr::Error::Budget { breach, .. } => return Some(breach),
            _ => return None,
        }
    }
}

/// The key a YAML error reports twice in one mapping, if that is what it is (`Some(None)`: the
/// parser did not name the key).
fn duplicate_key(mut e: &serde_saphyr::Error) -> Option<Option<&str>> {
    loop {
        match e {
            serde_saphyr::Error::WithSnippet { error, .. } | serde_saphyr::Error::AliasError { error, .. } => e = error,
            serde_saphyr::Error::DuplicateMappingKey { key, .. } => return Some(key.as_deref()),
            _ => return None,
        }
    }
}

#[allow(clippy::result_large_err)]
fn decode_yaml(text: &str) -> Result<Vec<Value>, InputError> {
    // Plain block YAML (what kubectl and generators write) is read in one pass; anything else,
    // and every error, comes from the full parser below.
    if let Some(values) = block_yaml::decode(text) {
        return Ok(values);
    }
    decode_yaml_with_parser(text)
}

#[allow(clippy::result_large_err)]
fn decode_yaml_with_parser(text: &str) -> Result<Vec<Value>, InputError> {
    // serde-saphyr enforces the budget (anchors, aliases, depth, nodes), so alias bombs and
    // pathological nesting end in an error, never in unbounded memory or a stack overflow.
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(yaml_budget(text.len()));
    match serde_saphyr::from_multiple_with_options::<Value>(text, options) {
        Ok(values) => Ok(values),
        Err(e) => {
            let mut err = match (budget_breach(&e), duplicate_key(&e)) {
                (Some(breach), _) => {
                    InputError::new("input-too-complex", format!("the YAML exceeds a decoding limit: {}", describe_breach(breach)))
                        .help("plain YAML without alias expansion, nested less than 64 levels deep")
                }
                // Kubernetes refuses a manifest with a key twice (strict decoding); say so in its
                // terms, not the parser's (whose message suggests an option of its own API).
                (None, Some(key)) => InputError::new(
                    "yaml-syntax",
                    match key {
                        Some(k) => format!("invalid YAML: the key {k:?} appears twice in one mapping"),
                        None => "invalid YAML: a key appears twice in one mapping".to_string(),
                    },
                )
                .help("each key once per mapping; Kubernetes refuses duplicate fields"),
                (None, None) => {
                    let mut message = e.to_string();
                    if let Some(first) = message.lines().next() {
                        message = first.to_string();
                    }
                    // The location is reported in its own fields; drop serde-saphyr's prefix.
                    let mut rest = message.trim_start_matches("error: ");
                    if rest.starts_with("line ") {
                        if let Some((_, tail)) = rest.split_once(": ") {
                            rest = tail;
                        }
                    }
                    InputError::new("yaml-syntax", format!("invalid YAML: {rest}"))
                        .help("well-formed YAML or JSON; documents separated by ---")
                }
            };
            if let Some(loc) = e.location() {
                err.line = Some(loc.line() as usize);
                err.column = Some(loc.column() as usize);
            }
            Err(err)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_document_and_lists() {
        let text = "kind: A\nmetadata: {name: a}\n---\nkind: List\nitems:\n- kind: B\n- kind: C\n---\n";
        let docs = decode(text, Some("f.yaml")).unwrap();
        assert_eq!(docs.len(), 3);
        assert_eq!(docs[0].kind(), "A");
        assert_eq!(docs[2].prefix, "items[1]");
        assert_eq!(docs[2].index, 1);
    }

    #[test]
    fn json_documents_between_yaml_separators() {
        let pod = |n: &str| format!(r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{n}"}}}}"#);
        let docs = decode(&format!("{}\n---\n{}\n", pod("a"), pod("b")), None).unwrap();
        assert_eq!(docs.iter().map(|d| d.name()).collect::<Vec<_>>(), ["a", "b"]);
        // Without a separator, broken JSON stays a JSON error.
        let err = decode(&format!("{}\n{{\"x\": ]", pod("a")), None).unwrap_err();
        assert_eq!(err[0].code, "json-syntax");
    }

    #[test]
    fn json_input() {
        let docs = decode(r#"{"kind":"Pod","metadata":{"name":"p"}}"#, None).unwrap();
        assert_eq!(docs[0].object(), "Pod/p");
    }

    #[test]
    fn syntax_errors_are_located() {
        let err = decode("kind: A\n  bad: [\n", Some("x.yaml")).unwrap_err();
        assert_eq!(err[0].code, "yaml-syntax");
        assert_eq!(err[0].source.as_deref(), Some("x.yaml"));
        assert!(err[0].line.is_some());
        let err = decode("{\"kind\": }", None).unwrap_err();
        assert_eq!(err[0].code, "json-syntax");
    }

    #[test]
    fn duplicate_keys_are_named_without_the_parser_options() {
        let err = decode("kind: Pod\nmetadata:\n  name: a\n  name: b\n", Some("d.yaml")).unwrap_err();
        assert_eq!(err[0].code, "yaml-syntax");
        assert!(err[0].message.contains("\"name\" appears twice"), "{}", err[0].message);
        assert!(!err[0].message.contains("DuplicateKeyPolicy"), "{}", err[0].message);
        assert_eq!(err[0].line, Some(4));
    }

    #[test]
    fn alias_bomb_is_refused() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..30 {
            let p = i - 1;
            text.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
        }
        let err = decode(&text, None).unwrap_err();
        assert_eq!(err[0].code, "input-too-complex");
        assert!(err[0].line.is_some());
    }

    #[test]
    fn scalar_document_is_an_error() {
        let err = decode("just a string\n", None).unwrap_err();
        assert_eq!(err[0].code, "wrong-type");
    }
}
