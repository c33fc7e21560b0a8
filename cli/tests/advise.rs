//! `nodecast advise` on the README's worked GPU example: the table, `--top`, and `-o json` being
//! the facade's answer.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_nodecast");
const GPU_TRAINING: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/nodepools/gpu-training.yaml");
const EVAL_1GPU: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/workloads/eval-jobs-1gpu.yaml");

fn run(args: &[&str]) -> (i32, String) {
    let o = Command::new(BIN).args(args).output().expect("run nodecast");
    (o.status.code().expect("exit code"), String::from_utf8(o.stdout).expect("UTF-8"))
}

#[test]
fn advise_table_ranks_verified_edits() {
    let (code, out) = run(&["advise", GPU_TRAINING, EVAL_1GPU]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("Karpenter $16.288/h; optimum $6.06/h (optimal); gap $10.228/h"), "{out}");
    // Risk first: the safe GPU bound ranks above the cheaper edits that move the Job to spot.
    assert!(out.contains("1  gpu-count-bound  none         $6.06    $10.228   $7466.44        100.0 %"), "{out}");
    assert!(out.contains("2  combined         high"), "{out}");
    assert!(out.contains("+      - key: karpenter.k8s.aws/instance-gpu-count"), "{out}");
}

#[test]
fn advise_json_and_top() {
    let (code, out) = run(&["advise", GPU_TRAINING, EVAL_1GPU, "-o", "json", "--top", "1"]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["kind"], "Advice");
    assert_eq!(v["advice"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["stats"]["candidateLimit"], 48);
    let (code, _) = run(&["advise", GPU_TRAINING, EVAL_1GPU, "--top", "0"]);
    assert_ne!(code, 0);
}
