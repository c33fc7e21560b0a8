//! Issue 30 through the CLI on examples/team: validate warns about NodePools that can launch
//! nothing, plan groups alike pending pods, and an advised edit applied with `--apply` is a patch
//! the real `patch -p0` and `git apply -p0` accept against the user's own file (comments kept),
//! or edited files with `--write`.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_nodecast");
const TEAM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/team");

fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let o = Command::new(BIN).current_dir(dir).args(args).output().expect("run nodecast");
    (o.status.code().expect("exit code"), String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap())
}

/// A scratch copy of examples/team under `team/`, so relative paths name the files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nodecast-team-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("team")).unwrap();
    for f in ["nodepools.yaml", "workloads.yaml"] {
        std::fs::copy(Path::new(TEAM).join(f), dir.join("team").join(f)).unwrap();
    }
    dir
}

const FILES: [&str; 2] = ["team/nodepools.yaml", "team/workloads.yaml"];

#[test]
fn validate_warns_about_pools_that_launch_nothing() {
    let dir = scratch("validate");
    let (code, out, _) = run_in(&dir, &["validate", FILES[0], FILES[1]]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("warning: NodePool/training-p5-reserved: NodePool training-p5-reserved can launch nothing: requirement karpenter.sh/capacity-type In [reserved]"), "{out}");
    assert!(
        out.contains(
            "warning: NodePool/batch-west: NodePool batch-west can launch nothing: requirement topology.kubernetes.io/zone In [us-west-2a]"
        ),
        "{out}"
    );
}

#[test]
fn twenty_eval_replicas_read_as_blocks_not_a_hundred_lines() {
    let dir = scratch("plan");
    let (code, out, _) = run_in(&dir, &["plan", FILES[0], FILES[1]]);
    assert_eq!(code, 0, "{out}");
    let section: Vec<&str> = out.split("Unschedulable pods\n").nth(1).unwrap().split("\n\n").next().unwrap().lines().collect();
    assert!(section.len() < 40, "{} lines:\n{}", section.len(), section.join("\n"));
    assert!(section[0].starts_with("  ml/eval-0 and 7 more pods alike"), "{}", section[0]);
    assert!(out.contains("    took no part: requirement karpenter.sh/capacity-type In [reserved]"), "{out}");
    assert!(!out.contains("instance-type In [p5.48xlarge] →"), "an instance-type widening for a label selector:\n{out}");
}

#[test]
fn an_applied_edit_is_a_patch_patch_and_git_accept_with_comments_kept() {
    let dir = scratch("patch");
    let (code, diff, err) = run_in(&dir, &["advise", FILES[0], FILES[1], "--time-budget", "5", "--apply", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(diff.starts_with("--- team/nodepools.yaml\n+++ team/nodepools.yaml\n"), "{diff}");
    std::fs::write(dir.join("edit.diff"), &diff).unwrap();
    let git = Command::new("git").current_dir(&dir).args(["init", "-q", "."]).status().expect("git");
    assert!(git.success());
    let check = Command::new("git").current_dir(&dir).args(["apply", "-p0", "--check", "edit.diff"]).output().expect("git apply");
    assert!(check.status.success(), "git apply refused it: {}", String::from_utf8_lossy(&check.stderr));
    let patched = Command::new("patch").current_dir(&dir).args(["-p0", "-i", "edit.diff"]).output().expect("patch");
    assert!(patched.status.success(), "patch refused it: {}", String::from_utf8_lossy(&patched.stdout));
    let text = std::fs::read_to_string(dir.join(FILES[0])).unwrap();
    let original = std::fs::read_to_string(Path::new(TEAM).join("nodepools.yaml")).unwrap();
    assert_ne!(text, original);
    for line in original.lines().filter(|l| l.trim_start().starts_with('#')) {
        assert!(text.contains(line), "comment lost: {line}");
    }
    // The patched files plan as advise said: the allow-spot edit on training-p5.
    let (code, out, _) = run_in(&dir, &["plan", FILES[0], FILES[1], "-o", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["nodeClaims"].as_array().unwrap().iter().any(|c| c["nodePool"] == "training-p5" && c["capacityType"] == "spot"), "{out}");
}

#[test]
fn write_puts_the_edited_files_under_a_directory_and_exclusions_hold() {
    let dir = scratch("write");
    let (code, out, err) = run_in(&dir, &["advise", FILES[0], FILES[1], "--time-budget", "5", "--apply", "1", "--write", "out"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "wrote out/team/nodepools.yaml (advised edit #1)\n");
    let written = std::fs::read_to_string(dir.join("out/team/nodepools.yaml")).unwrap();
    assert!(written.contains("values: [\"spot\", \"on-demand\"]"), "{written}");
    // The only edit found is spot for a do-not-disrupt PyTorchJob: high risk, and gone when
    // spot edits or that NodePool are excluded.
    let (_, table, _) = run_in(&dir, &["advise", FILES[0], FILES[1], "--time-budget", "5"]);
    assert!(table.contains("allow-spot  high"), "{table}");
    assert!(table.contains("marked karpenter.sh/do-not-disrupt would run on spot"), "{table}");
    for flag in [["--exclude-kind", "allow-spot"], ["--exclude-nodepool", "training-p5"], ["--max-risk", "medium"]] {
        let (code, table, _) = run_in(&dir, &["advise", FILES[0], FILES[1], "--time-budget", "5", flag[0], flag[1]]);
        assert_eq!(code, 0);
        assert!(table.contains("No NodePool edit makes Karpenter's plan cheaper"), "{flag:?}: {table}");
    }
    let (code, _, err) = run_in(&dir, &["advise", FILES[0], FILES[1], "--exclude-kind", "spot"]);
    assert_ne!(code, 0);
    assert!(err.contains("advise.excludeKinds[0]") && err.contains("allow-spot"), "{err}");
}
