//! `Answer::write_json` (the CLI's streamed output) writes exactly `Answer::to_json`'s bytes.

#[path = "../../benches/src/lib.rs"]
#[allow(dead_code, unused_imports)]
mod gen;

fn same_bytes<T: serde::Serialize>(answer: &nodecast::Answer<T>) {
    let mut out = Vec::new();
    answer.write_json(&mut out).expect("writing to a Vec cannot fail");
    assert_eq!(String::from_utf8(out).expect("utf-8"), answer.to_json());
}

#[test]
fn streamed_json_equals_to_json() {
    same_bytes(&nodecast::plan(&gen::diverse_request(300)));
    same_bytes(&nodecast::plan(&gen::gpu_request(50)));
    same_bytes(&nodecast::consolidate(&gen::consolidation_request(20, 300, "10%")));
    let failed = nodecast::plan(&nodecast::Request { objects: vec![serde_json::json!({"kind": "Pod"})], ..Default::default() });
    assert!(!failed.is_success());
    same_bytes(&failed);
}
