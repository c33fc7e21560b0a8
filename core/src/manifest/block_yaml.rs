//! A fast path for the plain block YAML that `kubectl get -o yaml` and generators write:
//! mappings and sequences by indentation, plain, simply quoted and empty-flow (`{}`, `[]`)
//! scalars, documents separated by `---` lines.
//!
//! It reads such text straight into `serde_json::Value` in one pass over the lines, without the
//! full parser's event stream (that stream was ~60 % of a 20,000-pod plan's CPU time). It is a
//! pure accelerator: anything outside the subset — comments, anchors, aliases, tags, block or
//! multi-line scalars, escapes, flow collections with content, directives, duplicate keys,
//! numbers other than plain decimal integers, YAML 1.1 booleans, empty documents — makes it
//! answer `None`, and the caller decodes the whole text with serde-saphyr, which also produces
//! every error with its location. When it answers `Some`, the values are exactly serde-saphyr's
//! for the same text (tests compare both on every example and conformance input).

use serde_json::{Map, Value};

/// Deepest nesting the fast path follows; serde-saphyr's budget refuses 64 levels, so anything
/// near that is left to it (and to its error).
const MAX_DEPTH: usize = 40;

/// Bytes that may start YAML syntax outside the subset (comments, anchors, aliases, tags,
/// block scalars, directives, escapes, merge keys, complex keys, reserved indicators), or line
/// ends and indentation the subset does not handle. Their presence anywhere sends the whole text
/// to the full parser — even inside a string, where they would be harmless: being fast on
/// common input is the goal, not covering every spelling.
const OUTSIDE: [bool; 256] = {
    let mut t = [false; 256];
    let bytes = b"#&*!|>%\\<?@`\t\r";
    let mut i = 0;
    while i < bytes.len() {
        t[bytes[i] as usize] = true;
        i += 1;
    }
    t
};

/// The documents of `text`, or `None` when it is not (entirely) in the subset.
pub fn decode(text: &str) -> Option<Vec<Value>> {
    if !may_take(text) {
        return None;
    }
    let mut docs = Vec::new();
    decode_each(text, &mut |v| docs.push(v))?;
    Some(docs)
}

/// Whether `text` passes the byte-level checks of the subset: no byte outside it, no BOM, and
/// few enough documents and lines that the parser's budgets (at most `MAX_DOCUMENTS` documents,
/// half a node per byte) are out of reach. One pass, no allocation; a text that passes may still
/// leave the subset in a later document, which `decode_each` finds.
pub fn may_take(text: &str) -> bool {
    if text.starts_with('\u{feff}') {
        return false;
    }
    // Non-empty lines (separators counted too: an upper bound of the lines the parser makes
    // nodes of) and separator lines (an upper bound of the documents, less one).
    let (mut lines, mut separators) = (0usize, 0usize);
    let mut line_start = true;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if OUTSIDE[b as usize] {
            return false;
        }
        if line_start && b != b'\n' {
            lines += 1;
            if b == b'-' && bytes[i..].starts_with(b"---") {
                separators += 1;
            }
        }
        line_start = b == b'\n';
    }
    separators < super::MAX_DOCUMENTS && lines.saturating_mul(6) <= text.len()
}

/// Reads the documents of `text` one by one, handing each to `each` as soon as it is complete,
/// so a caller can use and drop a document before the next is built (memory stays one
/// document's, not the input's). `None` when a document leaves the subset: the documents already
/// handed over are then not the whole story, and the caller must start over with the parser.
/// Callers check `may_take` first.
pub fn decode_each(text: &str, each: &mut dyn FnMut(Value)) -> Option<()> {
    debug_assert!(may_take(text));
    let mut count = 0usize;
    let mut lines: Vec<Line> = Vec::new();
    let mut explicit = false;
    let mut emit = |lines: &mut Vec<Line>| -> Option<()> {
        each(document(lines)?);
        count += 1;
        Some(())
    };
    for raw in text.split('\n') {
        if raw == "---" {
            if explicit || !lines.is_empty() {
                emit(&mut lines)?;
            }
            explicit = true;
            continue;
        }
        if raw.starts_with("---") || raw.starts_with("...") {
            return None;
        }
        let content = raw.trim_start_matches(' ');
        if content.is_empty() {
            if !raw.is_empty() {
                // Whitespace-only lines: fine in YAML, but rare enough to leave to the parser.
                return None;
            }
            continue;
        }
        if content.ends_with(' ') {
            return None;
        }
        lines.push(Line { indent: raw.len() - content.len(), content });
    }
    if explicit || !lines.is_empty() {
        emit(&mut lines)?;
    }
    // No documents at all: the parser decides what an empty text is.
    (count > 0).then_some(())
}

#[derive(Clone, Copy)]
struct Line<'a> {
    indent: usize,
    content: &'a str,
}

/// One document's lines into its value (a mapping or a sequence), consuming them.
fn document(lines: &mut Vec<Line>) -> Option<Value> {
    // An empty document and a scalar document are left to the parser (the first is null there,
    // the second an error of the caller).
    let first = *lines.first()?;
    if first.indent != 0 {
        return None;
    }
    let mut at = 0;
    let value = node(lines, &mut at, 0)?;
    if at != lines.len() || !(value.is_object() || value.is_array()) {
        return None;
    }
    lines.clear();
    Some(value)
}

fn is_item(content: &str) -> bool {
    content == "-" || content.starts_with("- ")
}

/// The block node starting at `lines[*at]` (a mapping or a sequence at that line's indent).
fn node(lines: &mut [Line], at: &mut usize, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    let line = lines[*at];
    if is_item(line.content) {
        sequence(lines, at, line.indent, depth)
    } else {
        mapping(lines, at, line.indent, depth)
    }
}

/// `key: value` / `key:` lines at exactly `indent`.
fn mapping(lines: &mut [Line], at: &mut usize, indent: usize, depth: usize) -> Option<Value> {
    let mut map = Map::new();
    while let Some(&line) = lines.get(*at) {
        if line.indent < indent {
            break;
        }
        if line.indent > indent || is_item(line.content) {
            return None;
        }
        let (key, rest) = match line.content.strip_suffix(':') {
            Some(key) if !key.contains(": ") => (key, None),
            _ => {
                let (key, value) = line.content.split_once(": ")?;
                (key, Some(value.trim_start_matches(' ')))
            }
        };
        if !is_plain_key(key) {
            return None;
        }
        *at += 1;
        let value = match rest {
            Some(text) => scalar(text)?,
            None => match lines.get(*at) {
                // A sequence may sit at its key's own indent (`containers:` / `- name: x`).
                Some(next) if next.indent > indent || (next.indent == indent && is_item(next.content)) => node(lines, at, depth + 1)?,
                _ => Value::Null,
            },
        };
        if map.insert(key.to_string(), value).is_some() {
            // Duplicate keys are an error of the parser's; let it say so.
            return None;
        }
    }
    Some(Value::Object(map))
}

/// `- item` lines at exactly `indent`. An item that starts a mapping (`- name: x`) continues at
/// the column of its first key.
fn sequence(lines: &mut [Line], at: &mut usize, indent: usize, depth: usize) -> Option<Value> {
    let mut items = Vec::new();
    while let Some(&line) = lines.get(*at) {
        if line.indent < indent {
            break;
        }
        if line.indent > indent {
            return None;
        }
        if !is_item(line.content) {
            // The next key of a mapping whose value this sequence was, at the key's own
            // indent; anywhere else the caller finds a line it cannot place and gives up.
            break;
        }
        let after = &line.content[1..];
        let rest = after.trim_start_matches(' ');
        if rest.is_empty() {
            *at += 1;
            items.push(match lines.get(*at) {
                Some(next) if next.indent > indent => node(lines, at, depth + 1)?,
                _ => Value::Null,
            });
        } else if is_item(rest) {
            // `- - x`: a sequence in a sequence on one line.
            return None;
        } else if is_mapping_entry(rest) {
            // Read the rest of this line as the first line of a mapping at its own column.
            lines[*at] = Line { indent: indent + 1 + (after.len() - rest.len()), content: rest };
            items.push(node(lines, at, depth + 1)?);
        } else {
            *at += 1;
            items.push(scalar(rest)?);
        }
    }
    Some(Value::Array(items))
}

fn is_mapping_entry(content: &str) -> bool {
    !content.starts_with(['"', '\'']) && (content.ends_with(':') || content.contains(": "))
}

/// A key the parser reads as the same string: a word of letters, digits and `._/-` starting with
/// a letter, and not one of the words YAML reads as something else.
fn is_plain_key(key: &str) -> bool {
    key.as_bytes().first().is_some_and(u8::is_ascii_alphabetic)
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-'))
        && !is_special_word(key)
}

/// Words a YAML reader may take for a null, a boolean (YAML 1.1 spellings included) or a float.
fn is_special_word(s: &str) -> bool {
    ["null", "true", "false", "yes", "no", "y", "n", "on", "off", "inf", "infinity", "nan"].iter().any(|w| s.eq_ignore_ascii_case(w))
}

/// A scalar value after `key: ` or `- `, or `None` when it is outside the subset.
fn scalar(text: &str) -> Option<Value> {
    let bytes = text.as_bytes();
    match bytes[0] {
        b'"' | b'\'' => {
            let quote = bytes[0] as char;
            let inner = text[1..].strip_suffix(quote)?;
            // No escapes (`\` is already excluded), no doubled single quotes.
            if inner.contains(quote) {
                return None;
            }
            Some(Value::String(inner.to_string()))
        }
        _ if text == "{}" => Some(Value::Object(Map::new())),
        _ if text == "[]" => Some(Value::Array(Vec::new())),
        // Flow content, and text the parser would read as a nested mapping or an error.
        _ if text.contains(['[', ']', '{', '}']) || text.ends_with(':') || text.contains(": ") => None,
        b'a'..=b'z' | b'A'..=b'Z' => {
            // The YAML 1.2 core spellings Kubernetes output uses (`nodes: null` in a NodePool's
            // status, `available: true`), read as the parser reads them; other special words
            // (`yes`, `Null`, `.inf` starts with another byte) are left to it.
            match text {
                "null" => return Some(Value::Null),
                "true" => return Some(Value::Bool(true)),
                "false" => return Some(Value::Bool(false)),
                _ => {}
            }
            if is_special_word(text) {
                return None;
            }
            Some(Value::String(text.to_string()))
        }
        b'0'..=b'9' => {
            if bytes.iter().all(u8::is_ascii_digit) {
                // Plain decimal integers, as the parser reads them (no leading zeros: those
                // are left to it, like anything beyond u64).
                if bytes.len() > 1 && bytes[0] == b'0' {
                    return None;
                }
                return text.parse::<u64>().ok().map(Value::from);
            }
            // A quantity (`500m`, `512Mi`, `1.5Gi`): a letter no number spelling uses makes it
            // a string for any reader; `_`, `:` and the radix and exponent letters are left to
            // the parser.
            // So does a `-` after a digit (a UUID such as `34405275-4eeb-...`, a date): numbers
            // have a `-` only first or after an exponent's `e`.
            let telling = bytes.iter().any(|b| b.is_ascii_alphabetic() && !b"eExXoObB".contains(b))
                || bytes.windows(2).any(|w| w[0].is_ascii_digit() && w[1] == b'-');
            if telling && !text.contains(['_', ':']) {
                Some(Value::String(text.to_string()))
            } else {
                None
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn slow(text: &str) -> Vec<Value> {
        super::super::decode_yaml_with_parser(text).expect("valid YAML")
    }

    #[test]
    fn a_kubectl_pod_takes_the_fast_path_and_matches_the_parser() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  generation: 1\n  labels:\n    my-label: f\n    testing/cluster: unspecified\n  name: p-1\nspec:\n  containers:\n  - image: public.ecr.aws/eks-distro/kubernetes/pause:3.2\n    name: c\n    resources:\n      requests:\n        cpu: \"1\"\n        memory: 512Mi\n  resources: {}\n  tolerations: []\nstatus: {}\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p-2\n";
        let fast = decode(text).expect("in the subset");
        assert_eq!(fast, slow(text));
        assert_eq!(fast[0]["spec"]["containers"][0]["resources"]["requests"], json!({"cpu": "1", "memory": "512Mi"}));
        assert_eq!(fast[0]["metadata"]["generation"], json!(1));
    }

    #[test]
    fn nested_sequences_and_item_mappings_match_the_parser() {
        for text in [
            "a:\n- x\n- 2\n-   k: v\n    j: 'q'\n- - 1\n",
            "a:\n  - k: v\n    l:\n    - 1\n    - 2\n  - 3\n",
            "- a: 1\n  b:\n    c: [] \n",
            "- a: 1\n  b:\n    c: []\n-\n  d: e\n- \n",
            "k: v\nempty:\nnext: 1\n",
            "---\nk: v\n---\nk: w\n",
            "list:\n-\n- x\n",
            "quantity: 1.5Gi\nmilli: 250m\nint: 0\nbig: 18446744073709551615\n",
            "uid: 34405275-4eeb-47bb-9713-285589528612\ndate: 2026-11-26\n",
            "nodes: null\nok: true\nko: false\nlist:\n- null\n- true\n",
        ] {
            if let Some(fast) = decode(text) {
                assert_eq!(fast, slow(text), "{text:?}");
            }
        }
        assert!(decode("a:\n  - k: v\n    l:\n    - 1\n    - 2\n  - 3\n").is_some());
        assert!(decode("uid: 34405275-4eeb-47bb-9713-285589528612\n").is_some());
        assert_eq!(decode("a: 1e-3\n"), None);
        assert_eq!(decode("nodes: null\nok: true\nko: false\n"), Some(vec![json!({"nodes": null, "ok": true, "ko": false})]));
    }

    /// Every YAML file of the repository's examples and of the shared conformance cases (when
    /// present): where the fast path answers, it answers what the parser does.
    #[test]
    fn every_example_and_conformance_input_matches_the_parser() {
        let files = super::super::test_input_files(&["yaml", "yml"]);
        assert!(files.len() > 40, "{} files", files.len());
        let mut fast_files = 0;
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap();
            // Without comments many more files are in the subset: check those too.
            let stripped: String =
                text.lines().filter(|l| !l.trim_start().starts_with('#')).map(|l| format!("{}\n", l.trim_end())).collect();
            for t in [&text, &stripped] {
                if let Some(fast) = decode(t) {
                    fast_files += 1;
                    let slow = super::super::decode_yaml_with_parser(t).unwrap_or_else(|e| panic!("{}: {e:?}", f.display()));
                    assert_eq!(fast, slow, "{}", f.display());
                }
            }
        }
        // Hand-written examples carry comments and floats, so few take the fast path; some must.
        assert!(fast_files >= 3, "only {fast_files} of {} texts took the fast path", files.len() * 2);
    }

    #[test]
    fn spellings_outside_the_subset_go_to_the_parser() {
        for text in [
            "a: 1 # comment\n",
            "a: &x 1\nb: *x\n",
            "a: yes\n",
            "a: Null\n",
            "a: True\n",
            "a: FALSE\n",
            "a: NULL\n",
            "a: 1.5\n",
            "a: 0x10\n",
            "a: 012\n",
            "a: -1\n",
            "a: ~\n",
            "a: |\n  text\n",
            "a: \"x\\ty\"\n",
            "a: 1\na: 2\n",
            "a: [1, 2]\n",
            "a: 1\n---\n",
            "a: b\n  c\n",
            "just a string\n",
            "%YAML 1.2\n---\na: 1\n",
            "a: 1\n...\n",
            "a: 1e3\n",
            "a: 1_000\n",
            "a: 1:30\n",
            "NaN: x\n",
            "a: Infinity\n",
            "key with space: x\n",
            "a: 'it''s'\n",
        ] {
            assert_eq!(decode(text), None, "{text:?}");
        }
    }
}
