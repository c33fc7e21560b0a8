//! Replays the fuzz inputs that matter on stable Rust, through the very checks the fuzz targets
//! run (fuzz/src/checks.rs and fuzz/src/cluster.rs, included by path):
//! - `fuzz/regressions/<target>/`: every input a fuzz target ever failed on, kept after the fix;
//! - `fuzz/seeds/<target>/`: a small minimised selection of each target's corpus, so the
//!   interesting shapes the fuzzer found (and the coverage they stand for) stay tested in
//!   `make test` without nightly.
//!
//! A failing input panics with its file name; the checks' own assertion says what went wrong.

#[path = "../../fuzz/src/capacity.rs"]
mod capacity;
#[path = "../../fuzz/src/checks.rs"]
mod checks;
#[path = "../../fuzz/src/cluster.rs"]
mod cluster;
#[path = "../../fuzz/src/groups.rs"]
mod groups;

use std::path::{Path, PathBuf};

type Check = fn(&[u8]);

/// Every target with the check its fuzz binary runs.
const TARGETS: &[(&str, Check)] = &[
    ("front_door", checks::front_door),
    ("quantity", checks::quantity),
    ("requirements", checks::requirements),
    ("facade_plan", checks::facade_plan),
    ("facade_consolidate", checks::facade_consolidate),
    ("facade_simulate", |data| {
        checks::facade_simulate(data);
    }),
    ("facade_node_groups", |data| {
        groups::facade_node_groups(data);
    }),
    ("trace_text", checks::trace_text),
    ("sweep_spec", checks::sweep_spec),
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

/// Inputs for `check` from a fixed pseudo-random stream (SplitMix64), `count` of them with
/// lengths up to 320 bytes: the stable stand-in for a fuzz campaign where cargo-fuzz is absent
/// (blind, not coverage-guided; `cargo test -- --ignored simulate_campaign` runs a long one).
/// Returns how many inputs `check` reported as a success (an answer it checked in full).
fn random_inputs(seed: u64, count: usize, check: impl Fn(&[u8]) -> bool + std::panic::RefUnwindSafe) -> usize {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut succeeded = 0;
    for i in 0..count {
        let len = (next() % 320) as usize;
        let data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if std::env::var_os("NODECAST_FUZZ_PROGRESS").is_some() {
            eprintln!("input {i} of seed {seed}: {data:?}");
        }
        let outcome = std::panic::catch_unwind(|| check(&data));
        assert!(outcome.is_ok(), "random input {i} of seed {seed} fails its check: {data:?}");
        succeeded += usize::from(outcome.unwrap_or(false));
    }
    eprintln!("{count} inputs, {succeeded} successful answers checked in full");
    succeeded
}

#[test]
fn simulate_target_on_random_inputs() {
    let succeeded = random_inputs(1, 120, checks::facade_simulate);
    // Not only refusals: the physical checks must have run on real simulations.
    assert!(succeeded >= 12, "only {succeeded} of 120 random inputs simulated successfully");
}

#[test]
fn node_groups_target_on_random_inputs() {
    let succeeded = random_inputs(4, 120, groups::facade_node_groups);
    // The side by side must have run and been checked on some of them, not only refused.
    assert!(succeeded >= 6, "only {succeeded} of 120 random inputs compared successfully");
}

/// A longer blind campaign of the simulator target (fuzz/README.md, "Campaigns").
/// `NODECAST_SIM_CAMPAIGN=<inputs>` sets its size.
#[test]
#[ignore]
fn simulate_campaign() {
    let count = std::env::var("NODECAST_SIM_CAMPAIGN").ok().and_then(|s| s.parse().ok()).unwrap_or(20_000);
    random_inputs(2, count, checks::facade_simulate);
}

/// A blind campaign of any target on stable, for machines where a cargo-fuzz build does not fit
/// (fuzz/README.md, "Campaigns"): `NODECAST_CAMPAIGN_TARGETS=trace_text,sweep_spec` (default
/// every target), `NODECAST_CAMPAIGN=<inputs per target>` (default 20,000).
#[test]
#[ignore]
fn blind_campaign() {
    let count = std::env::var("NODECAST_CAMPAIGN").ok().and_then(|s| s.parse().ok()).unwrap_or(20_000);
    let chosen = std::env::var("NODECAST_CAMPAIGN_TARGETS").unwrap_or_default();
    let mut ran = 0;
    for (i, (name, check)) in TARGETS.iter().enumerate() {
        if chosen.is_empty() || chosen.split(',').any(|c| c.trim() == *name) {
            let start = std::time::Instant::now();
            let check = *check;
            random_inputs(3 + i as u64, count, move |data| {
                check(data);
                true
            });
            eprintln!("{name}: {count} inputs in {:.0} s, no finding", start.elapsed().as_secs_f64());
            ran += 1;
        }
    }
    assert!(ran > 0, "no target named in NODECAST_CAMPAIGN_TARGETS={chosen}");
}
