#![no_main]
//! See fuzz/README.md; the checks live in fuzz/src/checks.rs (shared with core/tests/fuzz_corpus.rs).

libfuzzer_sys::fuzz_target!(|data: &[u8]| nodecast_fuzz::checks::trace_text(data));
