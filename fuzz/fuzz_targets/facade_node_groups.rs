#![no_main]
//! See fuzz/README.md; the checks live in fuzz/src/groups.rs (shared with core/tests/fuzz_corpus.rs).

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    nodecast_fuzz::groups::facade_node_groups(data);
});
