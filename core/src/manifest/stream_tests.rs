//! `decode_streamed` hands over exactly the documents `decode` returns (source, index, path
//! prefix, value, order), for YAML and JSON, or refuses so that the caller starts over.

use super::{decode, decode_streamed, streamable};
use serde_json::{json, Value};

type Flat = Vec<(Option<String>, usize, String, Value)>;

fn streamed(text: &str) -> Option<Flat> {
    assert!(streamable(text), "{text:?}");
    let mut out = Vec::new();
    let complete = decode_streamed(text, Some("f"), &mut |d| {
        out.push((d.source.clone(), d.index, d.prefix.clone(), d.value.as_ref().clone()));
    });
    complete.then_some(out)
}

fn whole(text: &str) -> Flat {
    decode(text, Some("f")).expect("valid").into_iter().map(|d| (d.source, d.index, d.prefix, d.value.into_owned())).collect()
}

fn inputs() -> Vec<(std::path::PathBuf, String)> {
    let files = super::test_input_files(&["yaml", "yml", "json"]);
    files.into_iter().filter_map(|f| Some((f.clone(), std::fs::read_to_string(&f).ok()?))).collect()
}

/// Every example, conformance and scenario input, as written, without comments, and as JSON
/// (a `kind: List` in kubectl's key order, and a stream of objects): streamed or refused, never
/// different.
#[test]
fn every_input_streams_to_the_same_documents_or_is_refused() {
    let files = inputs();
    assert!(files.len() > 40, "{} files", files.len());
    let (mut yaml_streamed, mut json_streamed) = (0, 0);
    for (f, text) in &files {
        let Ok(docs) = decode(text, Some("f")) else { continue };
        let stripped: String = text.lines().filter(|l| !l.trim_start().starts_with('#')).map(|l| format!("{}\n", l.trim_end())).collect();
        let values: Vec<Value> = docs.into_iter().map(|d| d.value.into_owned()).collect();
        let list = serde_json::to_string(&json!({"apiVersion": "v1", "items": values, "kind": "List", "metadata": {}})).unwrap();
        let stream: String = values.iter().map(|v| format!("{v}\n")).collect();
        for (t, is_json) in [(text, false), (&stripped, false), (&list, true), (&stream, true)] {
            if !streamable(t) || decode(t, Some("f")).is_err() {
                continue;
            }
            if let Some(s) = streamed(t) {
                assert_eq!(s, whole(t), "{}", f.display());
                *if is_json { &mut json_streamed } else { &mut yaml_streamed } += 1;
            }
        }
    }
    // Every JSON form streams (none is refused) and some YAML does.
    assert!(yaml_streamed >= 3, "{yaml_streamed}");
    assert!(json_streamed >= files.len(), "{json_streamed} of {}", files.len());
}

#[test]
fn lists_and_streams_keep_indexes_and_prefixes() {
    let pod = |n: &str| json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": n}});
    for text in [
        // kubectl's order (items before kind), kind first, a stream with a List in the middle.
        json!({"apiVersion": "v1", "items": [pod("a"), pod("b")], "kind": "List"}).to_string(),
        format!(r#"{{"kind": "PodList", "items": [{}, null, {}]}}"#, pod("a"), pod("b")),
        format!("{}\n{}\n  {}", pod("x"), json!({"items": [pod("a")], "kind": "List"}), pod("y")),
        format!("[{}, {}]", pod("a"), pod("b")),
        format!("{}{}", pod("a"), pod("b")),
        "kind: List\nitems:\n- kind: Pod\n- kind: Node\n---\nkind: Pod\n".to_string(),
    ] {
        assert_eq!(streamed(&text).as_ref(), Some(&whole(&text)), "{text}");
    }
    let s = streamed(&format!("{}\n{}", json!({"items": [pod("a")], "kind": "List"}), pod("y"))).unwrap();
    assert_eq!((s[0].1, s[0].2.as_str(), s[1].1, s[1].2.as_str()), (0, "items[0]", 1, ""));
}

/// Shapes the streamed reader refuses (the caller then decodes the whole text, which reports
/// errors or reads them its own way).
#[test]
fn refused_shapes_fall_back_to_the_whole_decoder() {
    for text in [
        // `items` of an object that is not a List: one document, not items.
        r#"{"items": [{"kind": "Pod"}], "kind": "Pod"}"#,
        r#"{"items": [{"kind": "Pod"}]}"#,
        // A List without a list of items, duplicate keys at the top and inside.
        r#"{"kind": "List", "items": null}"#,
        r#"{"kind": "List", "items": [], "items": []}"#,
        r#"{"items": [], "kind": "List", "kind": "List"}"#,
        r#"{"kind": "Pod", "spec": {"a": 1, "a": 2}}"#,
        // JSON documents between YAML separators, flow YAML, broken JSON, a scalar document.
        "{\"kind\": \"Pod\"}\n---\n{\"kind\": \"Pod\"}\n",
        "{kind: Pod, metadata: {name: a}}\n",
        r#"{"kind": }"#,
        r#"{"kind": "Pod"} 5"#,
        // YAML leaving the subset after the first document, a scalar YAML document.
        "kind: Pod\n---\nkind: Pod\nx: 1.5\n",
        "kind: List\nitems: 3\n",
    ] {
        assert!(streamable(text), "{text:?}");
        assert_eq!(streamed(text), None, "{text:?}");
    }
    // Outside the fast YAML reader's bytes: not streamable at all.
    assert!(!streamable("kind: Pod # comment\n"));
    assert!(!streamable("just a string\n") || streamed("just a string\n").is_none());
}
