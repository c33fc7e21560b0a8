//! Most of the core's integration tests, as modules of one test binary: one release compile and
//! link instead of one per file (`make test` built and linked 45 test binaries). A file that needs
//! a process of its own is a `[[test]]` of its own in Cargo.toml (`ALONE` below): the peak-heap
//! tests (a process-wide counting allocator), the tests with tight wall-clock bounds, the schema
//! check (its own feature), the fuzz corpus replay (the fuzz/src modules it includes name each
//! other by `crate::` paths) and the oracle replays `make oracle-hpa`/`oracle-keda` run by name.
//! `every_test_file_runs` fails when a new file in tests/ is in neither list.

// Several test files include the benches' input generators (`#[path = "../../benches/src/..."]`)
// as they did when each was a binary of its own; as modules of one binary those are the same
// file loaded more than once, on purpose: each module keeps its own private copy.
#![allow(clippy::duplicate_mod)]

#[path = "auto_mode.rs"]
mod auto_mode;
#[path = "auto_mode_fee.rs"]
mod auto_mode_fee;
#[path = "bad_input.rs"]
mod bad_input;
#[path = "buffers_simulate.rs"]
mod buffers_simulate;
#[path = "capped_limits.rs"]
mod capped_limits;
#[path = "consolidate_until.rs"]
mod consolidate_until;
#[path = "constraint_invariants.rs"]
mod constraint_invariants;
#[path = "default_spread.rs"]
mod default_spread;
#[path = "disruption_invariants.rs"]
mod disruption_invariants;
#[path = "dra.rs"]
mod dra;
#[path = "dra_disruption.rs"]
mod dra_disruption;
#[path = "drift.rs"]
mod drift;
#[path = "gates.rs"]
mod gates;
#[path = "hints.rs"]
mod hints;
#[path = "hostname_scan.rs"]
mod hostname_scan;
#[path = "inflight.rs"]
mod inflight;
#[path = "invariants.rs"]
mod invariants;
#[path = "karpenter_ties.rs"]
mod karpenter_ties;
#[path = "live_export.rs"]
mod live_export;
#[path = "ml_workloads.rs"]
mod ml_workloads;
#[path = "module_graph.rs"]
mod module_graph;
#[path = "objects.rs"]
mod objects;
#[path = "plan_identity.rs"]
mod plan_identity;
#[path = "pod_deletion_cost.rs"]
mod pod_deletion_cost;
#[path = "prices.rs"]
mod prices;
#[path = "repair.rs"]
mod repair;
#[path = "request_bounds.rs"]
mod request_bounds;
#[path = "reservations.rs"]
mod reservations;
#[path = "simulate.rs"]
mod simulate;
#[path = "simulate_digest.rs"]
mod simulate_digest;
#[path = "simulate_drift.rs"]
mod simulate_drift;
#[path = "simulate_hpa.rs"]
mod simulate_hpa;
#[path = "simulate_jobs.rs"]
mod simulate_jobs;
#[path = "simulate_keda.rs"]
mod simulate_keda;
#[path = "simulate_nominated.rs"]
mod simulate_nominated;
#[path = "simulate_repair.rs"]
mod simulate_repair;
#[path = "simulate_requeue.rs"]
mod simulate_requeue;
#[path = "simulate_reservations.rs"]
mod simulate_reservations;
#[path = "team.rs"]
mod team;
#[path = "write_json.rs"]
mod write_json;

/// Files in tests/ that are test binaries of their own (Cargo.toml `[[test]]`).
const ALONE: &[&str] =
    &["bounds", "bounds_memory", "bounds_memory_exclusive", "fuzz_corpus", "hostile", "schema", "hpa_oracle", "keda_oracle"];

/// Files in tests/ compiled into this binary (the `mod` lines above).
const MERGED: &[&str] = &[
    "auto_mode",
    "auto_mode_fee",
    "bad_input",
    "buffers_simulate",
    "capped_limits",
    "consolidate_until",
    "constraint_invariants",
    "default_spread",
    "disruption_invariants",
    "dra",
    "dra_disruption",
    "drift",
    "gates",
    "hints",
    "hostname_scan",
    "inflight",
    "invariants",
    "karpenter_ties",
    "live_export",
    "ml_workloads",
    "module_graph",
    "objects",
    "plan_identity",
    "pod_deletion_cost",
    "prices",
    "repair",
    "request_bounds",
    "reservations",
    "simulate",
    "simulate_digest",
    "simulate_drift",
    "simulate_hpa",
    "simulate_jobs",
    "simulate_keda",
    "simulate_nominated",
    "simulate_repair",
    "simulate_requeue",
    "simulate_reservations",
    "team",
    "write_json",
];

#[test]
fn every_test_file_runs() {
    // Cargo.toml sets `autotests = false`: a file added to tests/ runs only when it is listed.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let manifest = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let this = std::fs::read_to_string(dir.join("integration.rs")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".rs") else { continue };
        if stem == "integration" {
            continue;
        }
        if ALONE.contains(&stem) {
            assert!(manifest.contains(&format!("path = \"tests/{name}\"")), "tests/{name} is not a [[test]] of core/Cargo.toml");
        } else {
            assert!(MERGED.contains(&stem), "tests/{name} runs nowhere: add it to core/tests/integration.rs (or a [[test]] of its own)");
            assert!(this.contains(&format!("mod {stem};")), "tests/{name} is in MERGED but has no `mod {stem};`");
        }
    }
}
