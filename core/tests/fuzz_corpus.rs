//! Replays the fuzz inputs that matter on stable Rust, through the very checks the fuzz targets
//! run (fuzz/src/checks.rs and fuzz/src/cluster.rs, included by path):
//! - `fuzz/regressions/<target>/`: every input a fuzz target ever failed on, kept after the fix;
//! - `fuzz/seeds/<target>/`: a small minimised selection of each target's corpus, so the
//!   interesting shapes the fuzzer found (and the coverage they stand for) stay tested in
//!   `make test` without nightly.
//!
//! A failing input panics with its file name; the checks' own assertion says what went wrong.

#[path = "../../fuzz/src/checks.rs"]
mod checks;
#[path = "../../fuzz/src/cluster.rs"]
mod cluster;

use std::path::{Path, PathBuf};

type Check = fn(&[u8]);

/// Every target with the check its fuzz binary runs.
const TARGETS: &[(&str, Check)] = &[
    ("front_door", checks::front_door),
    ("quantity", checks::quantity),
    ("requirements", checks::requirements),
    ("facade_plan", checks::facade_plan),
    ("facade_consolidate", checks::facade_consolidate),
];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// The files of `fuzz/<kind>/<target>/`, sorted by name (none when the folder is absent).
fn inputs(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = fuzz_dir().join(kind).join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_file()).collect();
    files.sort();
    files
}

/// Runs `check` on every input of `kind`; returns how many ran.
fn replay(kind: &str) -> usize {
    let mut count = 0;
    for (target, check) in TARGETS {
        for file in inputs(kind, target) {
            let data = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let outcome = std::panic::catch_unwind(|| check(&data));
            assert!(outcome.is_ok(), "{target}: {} fails its check (see the panic above)", file.display());
            count += 1;
        }
    }
    count
}

#[test]
fn regressions_still_pass() {
    let n = replay("regressions");
    // The zero-mantissa quantity finding is always there; the count only grows.
    assert!(n >= 1, "no regression inputs found under {}", fuzz_dir().join("regressions").display());
}

#[test]
fn seeds_pass_every_check() {
    let n = replay("seeds");
    for (target, _) in TARGETS {
        assert!(!inputs("seeds", target).is_empty(), "fuzz/seeds/{target} is empty");
    }
    assert!(n >= TARGETS.len());
}

#[test]
fn every_target_has_its_folders_named_after_a_target() {
    // A regression saved under a misspelled folder would silently never run.
    for kind in ["regressions", "seeds"] {
        let Ok(entries) = std::fs::read_dir(fuzz_dir().join(kind)) else { continue };
        for e in entries.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(TARGETS.iter().any(|(t, _)| *t == name), "fuzz/{kind}/{name} is not a fuzz target");
        }
    }
}

#[test]
fn the_checks_reject_a_bad_answer() {
    // The replay is only as good as its checks: an unlocated error must fail them.
    let bad = r#"{"apiVersion": "nodecast/v1", "status": "failure", "errors": [{"code": "x", "message": "m"}]}"#;
    assert!(std::panic::catch_unwind(|| checks::check_answer(bad)).is_err());
    let good = r#"{"apiVersion": "nodecast/v1", "status": "failure", "errors": [{"code": "x", "message": "m", "path": "spec"}]}"#;
    assert_eq!(checks::check_answer(good)["status"], "failure");
}
