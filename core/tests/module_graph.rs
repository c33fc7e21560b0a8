//! The house rules of the core crate, checked on its source: no two top-level modules import
//! each other, directly or around a circle, and the arrows the design forbids are absent (the
//! model knows no manifests, scheduling knows no disruption, nothing below the JSON layer
//! knows it). Paths are read as text: every `crate::module` outside comments and test code.
//! Inside every module directory the files import each other in one direction too (a file may
//! name its parent `mod.rs`, which declares it; siblings form no circle).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read core/src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            // Unit-test folders may use anything.
            if path.file_name().is_some_and(|n| n != "tests") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") && path.file_name().is_some_and(|n| n != "tests.rs") {
            out.push(path);
        }
    }
}

/// The text without comments and without `#[cfg(test)]` items (brace-matched).
fn code(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect();
    let joined = lines.join("\n");
    let mut out = String::new();
    let mut rest = joined.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        // A `mod x;` declaration ends at `;`; an inline item at its matching brace.
        let semi = after.find(';').unwrap_or(after.len());
        let brace = after.find('{').unwrap_or(after.len());
        if semi < brace {
            rest = &after[(semi + 1).min(after.len())..];
            continue;
        }
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, c) in after.char_indices().skip(brace) {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Top-level module → the top-level modules it names.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).expect("under src");
        let first = rel.components().next().expect("a component").as_os_str().to_string_lossy().to_string();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "lib" {
            continue;
        }
        let text = code(&std::fs::read_to_string(&f).expect("read source"));
        let deps = g.entry(module.clone()).or_default();
        for (i, _) in text.match_indices("crate::") {
            let name: String = text[i + 7..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() && name != module && name.chars().next().is_some_and(|c| c.is_lowercase()) {
                deps.insert(name);
            }
        }
        for (i, _) in text.match_indices("use crate::{") {
            let list: String = text[i + 12..].chars().take_while(|c| *c != '}').collect();
            for name in list.split(',').map(|s| s.trim().split("::").next().unwrap_or("").to_string()) {
                if !name.is_empty() && name != module && name != "self" {
                    deps.insert(name);
                }
            }
        }
    }
    g
}

/// Every directory of core/src (except unit-test folders) → file stem (or subdirectory) → the
/// siblings it names, as `super::x` or `crate::<dir>::x`. `mod.rs` is the directory's root: it
/// declares its files and is not a node.
fn file_graphs() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut dirs: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut siblings: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src");
        let Some(parent) = rel.parent().filter(|p| !p.as_os_str().is_empty()) else { continue };
        let dir = parent.to_string_lossy().replace('\\', "/");
        let stem = rel.file_stem().expect("a file name").to_string_lossy().to_string();
        if stem != "mod" {
            siblings.entry(dir.clone()).or_default().insert(stem);
        }
        // A subdirectory is a sibling of the files next to it.
        if let Some(grand) = parent.parent().filter(|p| !p.as_os_str().is_empty()) {
            let name = parent.file_name().expect("a directory name").to_string_lossy().to_string();
            siblings.entry(grand.to_string_lossy().replace('\\', "/")).or_default().insert(name);
        }
    }
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src");
        let Some(parent) = rel.parent().filter(|p| !p.as_os_str().is_empty()) else { continue };
        let dir = parent.to_string_lossy().replace('\\', "/");
        let stem = rel.file_stem().expect("a file name").to_string_lossy().to_string();
        if stem == "mod" {
            continue;
        }
        let names = &siblings[&dir];
        let text = code(&std::fs::read_to_string(f).expect("read source"));
        let mut deps = BTreeSet::new();
        let mut add = |name: &str| {
            if name != stem && names.contains(name) {
                deps.insert(name.to_string());
            }
        };
        let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
        let absolute = format!("crate::{}::", dir.replace('/', "::"));
        for prefix in ["super::", absolute.as_str()] {
            for (i, _) in text.match_indices(prefix) {
                let rest = &text[i + prefix.len()..];
                if let Some(list) = rest.strip_prefix('{') {
                    let list: String = list.chars().take_while(|c| *c != '}').collect();
                    for item in list.split(',') {
                        add(&ident(item.trim()));
                    }
                } else {
                    add(&ident(rest));
                }
            }
        }
        dirs.entry(dir).or_default().insert(stem, deps);
    }
    dirs
}

/// Circles of a graph, each as its path (depth-first search; a back edge is a circle).
fn circles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    fn visit<'a>(
        n: &'a str,
        g: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, u8>,
        stack: &mut Vec<&'a str>,
        circles: &mut Vec<String>,
    ) {
        state.insert(n, 1);
        stack.push(n);
        for d in g.get(n).into_iter().flatten() {
            match state.get(d.as_str()) {
                Some(1) => {
                    let from = stack.iter().position(|s| *s == d).unwrap_or(0);
                    circles.push(format!("{} -> {d}", stack[from..].join(" -> ")));
                }
                Some(_) => {}
                None => visit(d, g, state, stack, circles),
            }
        }
        stack.pop();
        state.insert(n, 2);
    }
    let mut state = BTreeMap::new();
    let mut found = Vec::new();
    for n in g.keys() {
        if !state.contains_key(n.as_str()) {
            visit(n, g, &mut state, &mut Vec::new(), &mut found);
        }
    }
    found
}

#[test]
fn files_of_a_module_import_each_other_in_one_direction_only() {
    let dirs = file_graphs();
    let found: Vec<String> = dirs.iter().flat_map(|(dir, g)| circles(g).into_iter().map(move |c| format!("{dir}: {c}"))).collect();
    assert!(found.is_empty(), "import circles between files: {found:#?}");
    // The checker itself sees the arrows it should (and simulate/ is the directory that had one).
    let sim = &dirs["simulate"];
    assert!(sim["engine"].contains("sim") && sim["nodes"].contains("state") && sim["metrics"].contains("state"));
    assert!(!sim["nodes"].contains("engine") && sim["state"].is_empty());
    assert!(dirs["scheduling"]["launch"].contains("claim"));
    // A circle is reported.
    let looped: BTreeMap<String, BTreeSet<String>> =
        [("a", "b"), ("b", "a")].iter().map(|(x, y)| (x.to_string(), BTreeSet::from([y.to_string()]))).collect();
    assert_eq!(circles(&looped), ["a -> b -> a"]);
}

#[test]
fn core_modules_import_each_other_in_one_direction_only() {
    let g = graph();
    let found = circles(&g);
    assert!(found.is_empty(), "import circles in core: {found:#?}\ngraph: {g:#?}");
}

#[test]
fn forbidden_arrows_are_absent() {
    let g = graph();
    let forbidden: &[(&str, &[&str])] = &[
        ("model", &["manifest", "lower", "catalog", "validate", "scheduling", "disruption", "api", "json"]),
        ("scheduling", &["disruption", "simulate", "provision", "explain", "load", "json", "cluster"]),
        ("api", &["json", "cluster", "load", "provision", "disruption", "simulate", "query", "explain"]),
        ("diagnostics", &["provision", "disruption", "explain", "json"]),
        ("disruption", &["provision", "explain", "simulate", "load", "json", "cluster"]),
        ("simulate", &["json", "cluster", "explain"]),
        ("error", &["model", "manifest", "api", "json"]),
    ];
    let mut found = Vec::new();
    for (from, tos) in forbidden {
        for to in *tos {
            if g.get(*from).is_some_and(|d| d.contains(*to)) {
                found.push(format!("{from} -> {to}"));
            }
        }
    }
    assert!(found.is_empty(), "forbidden imports: {found:?}");
    // The checker itself sees the arrows it should.
    assert!(g["json"].contains("cluster") && g["lower"].contains("manifest") && g["lower"].contains("model"));
}
