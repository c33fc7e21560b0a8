//! The checks behind every fuzz target. `checks.rs`, `cluster.rs`, `capacity.rs` and `groups.rs`
//! depend only on `nodecast`, `serde_json` and std, so core/tests/fuzz_corpus.rs includes the
//! very same files by path and replays the saved regressions on stable Rust.

pub mod capacity;
pub mod checks;
pub mod cluster;
pub mod groups;
