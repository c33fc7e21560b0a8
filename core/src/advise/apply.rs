//! Applying an advised edit to the user's own YAML text, line by line, so the rest of the
//! file — comments, key order, quoting, other documents — stays as written. The result is
//! checked: the edited text must decode to exactly the documents advise verified, or the edit is
//! reported as not patchable rather than patched wrongly. A unified patch of the texts (paths as
//! given, so `patch -p0` and `git apply -p0` take it) is what the answer carries.

use super::Change;
use crate::edit::Segment;
use serde_json::Value;

/// Where a decoded document came from: its input (index into the request's inputs) and its
/// index among that input's documents; None for an object of the request or a `kind: List`
/// member, which have no text of their own to edit.
pub(super) type Origin = Option<(usize, usize)>;

/// One edited input file.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditedFile {
    /// The input's name, as given (a file path for the CLI).
    pub name: String,
    /// The whole text with the edit applied; everything else as written.
    pub text: String,
}

/// A content line of a YAML text: its indentation and what follows it.
struct Line<'a> {
    indent: usize,
    body: &'a str,
}

fn content(line: &str) -> Option<Line<'_>> {
    let body = line.trim_start_matches(' ');
    if body.is_empty() || body.starts_with('#') || body.trim().is_empty() {
        return None;
    }
    Some(Line { indent: line.len() - body.len(), body })
}

/// The mapping key a line starts (`key:` or `key: value`), if it starts one.
fn key_of(body: &str) -> Option<&str> {
    let (k, rest) = body.split_once(':')?;
    let k = k.trim();
    let plain = !k.is_empty() && !k.starts_with(['-', '{', '[', '"', '\'', '&', '*', '!', '?', '|', '>']);
    (plain && (rest.is_empty() || rest.starts_with([' ', '\t']))).then_some(k)
}

/// The document line ranges of a multi-document YAML text (between `---` lines), skipping
/// documents with no content, in order.
fn documents(lines: &[&str]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let push = |s: usize, e: usize, out: &mut Vec<(usize, usize)>| {
        if lines[s..e].iter().any(|l| content(l).is_some()) {
            out.push((s, e));
        }
    };
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_end();
        if t == "---" || t.starts_with("--- ") || t.starts_with("---\t") {
            push(start, i, &mut out);
            start = i + 1;
        }
    }
    push(start, lines.len(), &mut out);
    out
}

/// The line of the block-mapping key at `path` within lines `range` (keys only, no list
/// elements on the way), found by following indentation.
fn find(lines: &[&str], range: (usize, usize), path: &[&str]) -> Option<usize> {
    let mut stack: Vec<(usize, String)> = Vec::new();
    for (i, line) in lines.iter().enumerate().take(range.1).skip(range.0) {
        let Some(l) = content(line) else { continue };
        while stack.last().is_some_and(|(ind, _)| *ind >= l.indent) {
            stack.pop();
        }
        let key = if l.body.starts_with("- ") || l.body == "-" { "-".to_string() } else { key_of(l.body)?.to_string() };
        stack.push((l.indent, key));
        if stack.len() == path.len() && stack.iter().zip(path).all(|((_, k), p)| k == p) {
            return Some(i);
        }
    }
    None
}

/// The end (exclusive) of the block under the key on line `at`: the next content line indented
/// no deeper, except list items at the key's own indentation (YAML lets a list sit there).
fn block_end(lines: &[&str], at: usize, end: usize) -> usize {
    let own = content(lines[at]).map_or(0, |l| l.indent);
    let mut last = at + 1;
    for (i, line) in lines.iter().enumerate().take(end).skip(at + 1) {
        let Some(l) = content(line) else { continue };
        if l.indent < own || (l.indent == own && !l.body.starts_with('-')) {
            break;
        }
        last = i + 1;
    }
    last
}

/// `key: K` style of a YAML scalar that always reads back as the string (JSON quoting is YAML).
fn quoted(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// A requirement as list item lines at `indent`, in the style of the list (flow or block).
fn requirement_lines(req: &Value, indent: usize, flow: bool) -> Vec<String> {
    let pad = " ".repeat(indent);
    let key = req.get("key").and_then(Value::as_str).unwrap_or_default();
    let op = req.get("operator").and_then(Value::as_str).unwrap_or_default();
    let values: Vec<String> =
        req.get("values").and_then(Value::as_array).map(|v| v.iter().filter_map(Value::as_str).map(quoted).collect()).unwrap_or_default();
    let values = format!("[{}]", values.join(", "));
    if flow {
        vec![format!("{pad}- {{key: {key}, operator: {op}, values: {values}}}")]
    } else {
        vec![format!("{pad}- key: {key}"), format!("{pad}  operator: {op}"), format!("{pad}  values: {values}")]
    }
}

/// Replace (or append) the requirement selected by `same` in the NodePool document `range`.
fn set_requirement(lines: &mut Vec<String>, range: (usize, usize), req: &Value, same: &dyn Fn(&Value) -> bool) -> Option<()> {
    let view: Vec<&str> = lines.iter().map(String::as_str).collect();
    let at = find(&view, range, &["spec", "template", "spec", "requirements"])?;
    let end = block_end(&view, at, range.1);
    // Items: the lines starting `- ` at the first item's indentation.
    let starts: Vec<usize> = (at + 1..end).filter(|&i| content(view[i]).is_some_and(|l| l.body.starts_with('-'))).collect();
    let item_indent = content(view[*starts.first()?])?.indent;
    let starts: Vec<usize> = starts.into_iter().filter(|&i| content(view[i]).is_some_and(|l| l.indent == item_indent)).collect();
    let flow = content(view[starts[0]])?.body.trim_start_matches('-').trim_start().starts_with('{');
    for (n, &s) in starts.iter().enumerate() {
        let e = starts.get(n + 1).copied().unwrap_or(end);
        // The item's own lines (trailing comments and blank lines stay where they are).
        let e = (s + 1..e).rev().find(|&i| content(view[i]).is_some()).map_or(s + 1, |i| i + 1);
        let text: String = view[s..e].iter().map(|l| format!("{}\n", l.get(item_indent..).unwrap_or(l))).collect();
        let decoded: Value = serde_saphyr::from_str::<Vec<Value>>(&text).ok()?.into_iter().next()?;
        if same(&decoded) {
            let new = requirement_lines(req, item_indent, flow);
            lines.splice(s..e, new);
            return Some(());
        }
    }
    let last = *starts.last()?;
    let after = (last + 1..end).rev().find(|&i| content(view[i]).is_some()).map_or(last + 1, |i| i + 1);
    let new = requirement_lines(req, item_indent, flow);
    lines.splice(after..after, new);
    Some(())
}

/// Set a scalar mapping field `path` (under `spec`, e.g. `spec.weight`), adding it under its
/// parent when absent.
fn set_scalar(lines: &mut Vec<String>, range: (usize, usize), path: &[&str], value: &Value) -> Option<()> {
    let view: Vec<&str> = lines.iter().map(String::as_str).collect();
    let scalar = match value {
        Value::String(s) => quoted(s),
        Value::Number(_) | Value::Bool(_) => value.to_string(),
        _ => return None,
    };
    if let Some(at) = find(&view, range, path) {
        let line = view[at];
        let colon = line.find(':')?;
        let rest = &line[colon + 1..];
        // Keep a trailing comment (` # ...`) after the value.
        let comment = rest.find(" #").map(|c| rest[c..].to_string()).unwrap_or_default();
        lines[at] = format!("{}: {scalar}{comment}", &line[..colon]);
        return Some(());
    }
    let (parent, leaf) = path.split_at(path.len() - 1);
    let at = find(&view, range, parent)?;
    let own = content(view[at])?.indent;
    let child = (at + 1..range.1).find_map(|i| content(view[i])).filter(|l| l.indent > own).map_or(own + 2, |l| l.indent);
    lines.insert(at + 1, format!("{}{}: {scalar}", " ".repeat(child), leaf[0]));
    Some(())
}

/// Append the list item `{id: ID}` to `spec.capacityReservationSelectorTerms` of the
/// EC2NodeClass document `range`: after the last item of a block list, inside a flow list
/// (`[...]` on the key's line), or as a new key under `spec`.
fn add_term(lines: &mut Vec<String>, range: (usize, usize), id: &str) -> Option<()> {
    let view: Vec<&str> = lines.iter().map(String::as_str).collect();
    let id = quoted(id);
    if let Some(at) = find(&view, range, &["spec", "capacityReservationSelectorTerms"]) {
        let line = view[at];
        let colon = line.find(':')?;
        let rest = line[colon + 1..].trim_end();
        if let Some(open) = rest.trim_start().strip_prefix('[') {
            // A flow list on one line: add the item before its closing bracket.
            let inner = open.strip_suffix(']')?.trim();
            let items = if inner.is_empty() { format!("{{id: {id}}}") } else { format!("{inner}, {{id: {id}}}") };
            lines[at] = format!("{}: [{items}]", &line[..colon]);
            return Some(());
        }
        if !rest.trim().is_empty() {
            return None;
        }
        let end = block_end(&view, at, range.1);
        let first = (at + 1..end).find_map(|i| content(view[i]).filter(|l| l.body.starts_with('-')))?;
        let after = (at + 1..end).rev().find(|&i| content(view[i]).is_some()).map_or(at + 1, |i| i + 1);
        lines.insert(after, format!("{}- id: {id}", " ".repeat(first.indent)));
        return Some(());
    }
    let spec = find(&view, range, &["spec"])?;
    let own = content(view[spec])?.indent;
    let child = (spec + 1..range.1).find_map(|i| content(view[i])).filter(|l| l.indent > own).map_or(own + 2, |l| l.indent);
    let end = block_end(&view, spec, range.1);
    let after = (spec + 1..end).rev().find(|&i| content(view[i]).is_some()).map_or(spec + 1, |i| i + 1);
    let pad = " ".repeat(child);
    lines.splice(after..after, [format!("{pad}capacityReservationSelectorTerms:"), format!("{pad}- id: {id}")]);
    Some(())
}

/// The paths advise's `Set` changes use, as mapping keys (None for a path this patcher does not
/// write: the answer then has no patch for the edit).
fn plain_path(path: &crate::edit::FieldPath) -> Option<Vec<&str>> {
    path.0.iter().map(|s| if let Segment::Field(f) = s { Some(f.as_str()) } else { None }).collect()
}

/// Apply `changes` to the texts of the inputs (`texts`: name and text per input; `origins`: per
/// document of `docs`), returning the edited files; None when an edited document has no text of
/// its own (an object of the request, a `kind: List` member, JSON) or the text edit would not
/// read back as the verified documents `edited`.
pub(super) fn edit_texts(
    texts: &[(Option<&str>, &str)],
    origins: &[Origin],
    docs: &[Value],
    changes: &[Change],
    edited: &[Value],
) -> Option<Vec<EditedFile>> {
    let mut files: Vec<(usize, Vec<String>)> = Vec::new();
    let mut added: Vec<(usize, &Value)> = Vec::new();
    for ch in changes {
        let (input, index) = origins
            .get(match ch {
                Change::Set { doc, .. } | Change::Require { doc, .. } | Change::AddReservationTerm { doc, .. } => *doc,
                Change::AddNodePool { source, .. } => *source,
            })?
            .as_ref()
            .copied()?;
        let (name, text) = texts.get(input)?;
        name.as_ref()?;
        if text.trim_start().starts_with(['{', '[']) {
            return None;
        }
        if !files.iter().any(|(i, _)| *i == input) {
            files.push((input, text.lines().map(str::to_string).collect()));
        }
        let lines = &mut files.iter_mut().find(|(i, _)| *i == input)?.1;
        let view: Vec<&str> = lines.iter().map(String::as_str).collect();
        let range = *documents(&view).get(index)?;
        match ch {
            Change::Require { requirement, .. } => {
                let same = |r: &Value| r.get("key") == requirement.get("key") && r.get("operator") == requirement.get("operator");
                set_requirement(lines, range, requirement, &same)?;
            }
            Change::Set { path, value, .. } => match path.0.as_slice() {
                [Segment::Field(a), Segment::Field(b), Segment::Field(c), Segment::Field(d), Segment::Select { key, value: v }]
                    if [a, b, c, d] == ["spec", "template", "spec", "requirements"] && key == "key" =>
                {
                    let same = |r: &Value| r.get("key").and_then(Value::as_str) == Some(v.as_str());
                    set_requirement(lines, range, value, &same)?;
                }
                _ => set_scalar(lines, range, &plain_path(path)?, value)?,
            },
            Change::AddNodePool { document, .. } => added.push((input, document)),
            Change::AddReservationTerm { id, .. } => add_term(lines, range, id)?,
        }
    }
    for (input, document) in &added {
        let lines = &mut files.iter_mut().find(|(i, _)| i == input)?.1;
        lines.push("---".into());
        lines.extend(serde_saphyr::to_string(document).ok()?.lines().map(str::to_string));
    }
    let out: Vec<EditedFile> = files
        .iter()
        .map(|(input, lines)| {
            let mut text = lines.join("\n");
            if texts[*input].1.ends_with('\n') {
                text.push('\n');
            }
            EditedFile { name: texts[*input].0.unwrap_or_default().to_string(), text }
        })
        .collect();
    // The check: each edited file reads back as the documents advise verified, in order: its
    // own (edited) documents, then the NodePools added to it.
    for ((input, _), f) in files.iter().zip(&out) {
        let decoded = crate::manifest::decode(&f.text, Some(&f.name)).ok()?;
        let got: Vec<&Value> = decoded.iter().map(|d| d.value.as_ref()).collect();
        let mut want: Vec<&Value> = origins
            .iter()
            .enumerate()
            .filter(|(_, o)| o.is_some_and(|(i, _)| i == *input))
            .map(|(d, _)| edited.get(d))
            .collect::<Option<_>>()?;
        want.extend(added.iter().filter(|(i, _)| i == input).map(|(_, d)| *d));
        if got != want || docs.len() > edited.len() {
            return None;
        }
    }
    Some(out)
}

/// A unified patch of the edited files against the inputs, paths as given (`patch -p0`,
/// `git apply -p0`).
pub(super) fn patch(texts: &[(Option<&str>, &str)], files: &[EditedFile]) -> String {
    let mut out = String::new();
    for f in files {
        let Some((_, before)) = texts.iter().find(|(n, _)| *n == Some(f.name.as_str())) else { continue };
        let diff = similar::TextDiff::from_lines(*before, f.text.as_str());
        out.push_str(&diff.unified_diff().context_radius(3).header(&f.name, &f.name).to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# team pools\n---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: a # the main one\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}\n      requirements:\n        # GPUs only\n        - key: karpenter.k8s.aws/instance-gpu-count\n          operator: Gt\n          values: [\"0\"]\n        - key: karpenter.sh/capacity-type\n          operator: In\n          values: [on-demand]\n      # no taints\n  limits:\n    cpu: 100\n";

    fn run(changes: &[Change], edited_docs: Vec<Value>) -> Option<Vec<EditedFile>> {
        let docs: Vec<Value> = crate::manifest::decode(FILE, Some("f.yaml")).unwrap().into_iter().map(|d| d.value.into_owned()).collect();
        edit_texts(&[(Some("f.yaml"), FILE)], &[Some((0, 0))], &docs, changes, &edited_docs)
    }

    fn edited(f: impl Fn(&mut Value)) -> Vec<Value> {
        let mut d: Value = crate::manifest::decode(FILE, None).unwrap()[0].value.clone().into_owned();
        f(&mut d);
        vec![d]
    }

    #[test]
    fn a_replaced_requirement_keeps_every_comment() {
        let req = serde_json::json!({"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]});
        let path = crate::edit::parse("spec.template.spec.requirements[key=karpenter.sh/capacity-type]").unwrap();
        let want = edited(|d| d["spec"]["template"]["spec"]["requirements"][1] = req.clone());
        let out = run(&[Change::Set { doc: 0, path, value: req }], want).expect("patchable");
        let text = &out[0].text;
        for comment in ["# team pools", "# the main one", "# GPUs only", "# no taints"] {
            assert!(text.contains(comment), "{comment} lost:\n{text}");
        }
        assert!(text.contains("          values: [\"spot\", \"on-demand\"]"), "{text}");
        assert!(!text.contains("[on-demand]"), "{text}");
    }

    #[test]
    fn an_added_requirement_and_weight_go_where_they_belong() {
        let req = serde_json::json!({"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Lt", "values": ["2"]});
        let want = edited(|d| {
            d["spec"]["template"]["spec"]["requirements"].as_array_mut().unwrap().push(req.clone());
            d["spec"]["weight"] = serde_json::json!(7);
        });
        let changes = [
            Change::Require { doc: 0, requirement: req },
            Change::Set { doc: 0, path: crate::edit::parse("spec.weight").unwrap(), value: serde_json::json!(7) },
        ];
        let out = run(&changes, want).expect("patchable");
        assert!(out[0].text.contains("  weight: 7\n"), "{}", out[0].text);
        let p = patch(&[(Some("f.yaml"), FILE)], &out);
        assert!(p.starts_with("--- f.yaml\n+++ f.yaml\n"), "{p}");
        assert!(p.contains("+        - key: karpenter.k8s.aws/instance-gpu-count\n+          operator: Lt\n"), "{p}");
    }

    const CLASS: &str = "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: gpu}\nspec:\n  role: R # the node role\n  capacityReservationSelectorTerms:\n  - tags: {team: ml}\n";

    fn term_patch(text: &str) -> Option<String> {
        let docs: Vec<Value> = crate::manifest::decode(text, Some("c.yaml")).unwrap().into_iter().map(|d| d.value.into_owned()).collect();
        let mut want = docs.clone();
        super::super::reserved::add_term(&mut want[0], "cr-1").unwrap();
        let change = Change::AddReservationTerm { doc: 0, id: "cr-1".into() };
        edit_texts(&[(Some("c.yaml"), text)], &[Some((0, 0))], &docs, &[change], &want).map(|f| f[0].text.clone())
    }

    #[test]
    fn a_reservation_term_is_appended_in_every_list_style() {
        let block = term_patch(CLASS).expect("patchable");
        assert!(block.ends_with("  - tags: {team: ml}\n  - id: \"cr-1\"\n") && block.contains("# the node role"), "{block}");
        let flow = term_patch(&CLASS.replace(
            "\n  capacityReservationSelectorTerms:\n  - tags: {team: ml}",
            "\n  capacityReservationSelectorTerms: [{tags: {team: ml}}]",
        ))
        .expect("patchable");
        assert!(flow.contains("  capacityReservationSelectorTerms: [{tags: {team: ml}}, {id: \"cr-1\"}]"), "{flow}");
        let absent = term_patch(&CLASS.replace("\n  capacityReservationSelectorTerms:\n  - tags: {team: ml}", "")).expect("patchable");
        assert!(absent.ends_with("  role: R # the node role\n  capacityReservationSelectorTerms:\n  - id: \"cr-1\"\n"), "{absent}");
    }

    #[test]
    fn a_text_that_would_not_read_back_as_verified_is_not_patched() {
        let req = serde_json::json!({"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Lt", "values": ["2"]});
        // The verified documents say something else than the change: refused, not patched wrongly.
        let out = run(&[Change::Require { doc: 0, requirement: req }], edited(|_| {}));
        assert!(out.is_none());
    }
}
