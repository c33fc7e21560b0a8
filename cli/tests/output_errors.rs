//! Issue 29: output that cannot be written is an error, never a silent exit 0 or a panic.
//! A full disk (`/dev/full`), `/dev/null` read-write and a pipe whose reader is gone, on every
//! subcommand; and the sweep's `--out` checks, file confinement and escaped control characters.

use std::io::pipe;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_nodecast");
const EX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");

fn ex(f: &str) -> String {
    format!("{EX}/{f}")
}

/// Every subcommand, each with a small input that answers successfully.
fn commands() -> Vec<Vec<String>> {
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let (pool, job) = (ex("nodepools/gpu-training.yaml"), ex("workloads/training-job-4gpu.yaml"));
    vec![
        s(&["plan", &pool, &job]),
        s(&["plan", &pool, &job, "-o", "json"]),
        s(&["validate", &pool, &job]),
        s(&["catalog", "--gpu", "--limit", "3"]),
        s(&["explain", &pool, &job, "--pod", "train-llm-0"]),
        s(&[
            "consolidate",
            &ex("disruption/pool-underutilized.yaml"),
            &ex("disruption/cluster-state.yaml"),
            "--now",
            "2025-03-05T12:00:00Z",
        ]),
        s(&[
            "simulate",
            &pool,
            &ex("nodepools/gpu-inference.yaml"),
            &job,
            &ex("workloads/vllm-inference.yaml"),
            "--trace",
            &ex("simulate/day.yaml"),
            "-o",
            "csv",
        ]),
        s(&["optimize", &pool, &job]),
        s(&["advise", &pool, &job]),
        s(&["--help"]),
    ]
}

fn code(o: &Output) -> Option<i32> {
    o.status.code()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn every_subcommand_answers_normally_first() {
    for args in commands() {
        let o = Command::new(BIN).args(&args).output().unwrap();
        assert_eq!(code(&o), Some(0), "{args:?}: {}", stderr(&o));
        assert!(!o.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_full_disk_is_exit_3_with_a_message() {
    for args in commands() {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = Command::new(BIN).args(&args).stdout(Stdio::from(full)).output().unwrap();
        assert_eq!(code(&o), Some(3), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("nodecast: cannot write stdout: No space left on device"), "{args:?}: {}", stderr(&o));
    }
}

/// `/dev/null` opened read-write, as Node's `stdio: 'ignore'` and Python's `subprocess.DEVNULL`
/// give it (and as Rust's runtime reopens a descriptor closed before start): output discarded,
/// exit 0 — never taken for a write failure.
#[test]
fn stdout_on_read_write_dev_null_is_a_normal_answer() {
    for args in commands() {
        let null = std::fs::OpenOptions::new().read(true).write(true).open("/dev/null").unwrap();
        let o = Command::new(BIN).args(&args).stdout(Stdio::from(null)).output().unwrap();
        assert_eq!(code(&o), Some(0), "{args:?}: {}", stderr(&o));
        let o = Command::new("sh").arg("-c").arg("exec \"$0\" \"$@\" >&-").arg(BIN).args(&args).output().unwrap();
        assert_eq!(code(&o), Some(0), "{args:?} with stdout closed: {}", stderr(&o));
    }
}

/// A pipe whose reader is already gone: every write fails with EPIPE.
fn gone_reader() -> Stdio {
    let (reader, writer) = pipe().unwrap();
    drop(reader);
    Stdio::from(writer)
}

#[test]
fn a_pipe_closed_by_its_reader_is_a_quiet_exit_141() {
    for args in commands() {
        let o = Command::new(BIN).args(&args).stdout(gone_reader()).stderr(Stdio::piped()).output().unwrap();
        assert_eq!(code(&o), Some(141), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}: the reader chose to stop; nothing to say");
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nodecast-output-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A plan sweep of two combinations whose files sit beside the spec.
fn plan_sweep(name: &str) -> PathBuf {
    let dir = temp_dir(name);
    std::fs::copy(ex("nodepools/gpu-training.yaml"), dir.join("pool.yaml")).unwrap();
    std::fs::copy(ex("workloads/training-job-4gpu.yaml"), dir.join("job.yaml")).unwrap();
    let spec = dir.join("sweep.yaml");
    std::fs::write(
        &spec,
        "operation: plan\ninputs: [pool.yaml, job.yaml]\ngrid:\n- {name: cap, target: NodePool/gpu-training, path: 'spec.limits.cpu', values: ['1000', '2000']}\n",
    )
    .unwrap();
    spec
}

#[test]
fn sweep_write_failures_never_panic() {
    let spec = plan_sweep("pipes");
    let p = spec.to_str().unwrap();
    // --dry-run into a closed pipe: exit 101 (a panic) before.
    let o = Command::new(BIN).args(["sweep", p, "--dry-run"]).stdout(gone_reader()).output().unwrap();
    assert_eq!(code(&o), Some(141), "{}", stderr(&o));
    let o = Command::new(BIN).args(["sweep", p]).stdout(gone_reader()).output().unwrap();
    assert_eq!(code(&o), Some(141), "{}", stderr(&o));
    // A closed stderr: the table is written, the summary cannot be: exit 3, not 101.
    let o = Command::new(BIN).args(["sweep", p]).stderr(gone_reader()).output().unwrap();
    assert_eq!(code(&o), Some(3));
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 3);
    for out in [["-o", "csv"], ["-o", "json"], ["-o", "parquet"]] {
        let o = Command::new(BIN).args(["sweep", p, "--out", "/dev/full"]).args(out).output().unwrap();
        assert_eq!(code(&o), Some(3), "{out:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.starts_with("nodecast: cannot write --out /dev/full: ") && e.contains("No space left on device"), "{out:?}: {e}");
    }
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let o = Command::new(BIN).args(["sweep", p, "--dry-run"]).stdout(Stdio::from(full)).output().unwrap();
    assert_eq!(code(&o), Some(3), "{}", stderr(&o));
}

#[test]
fn sweep_out_is_checked_before_any_row() {
    let spec = plan_sweep("out");
    let dir = spec.parent().unwrap();
    let p = spec.to_str().unwrap();
    let cases = [
        (dir.join("no/such/dir/t.csv"), "the directory"),
        (dir.to_path_buf(), "is a directory"),
        (spec.clone(), "is the sweep spec; writing the table would overwrite it"),
        (dir.join("pool.yaml"), "is \"pool.yaml\", a file the spec names; writing the table would overwrite it"),
        (dir.join(".").join("job.yaml"), "is \"job.yaml\", a file the spec names"),
    ];
    for (out, want) in cases {
        let o = Command::new(BIN).args(["sweep", p, "--out", out.to_str().unwrap()]).output().unwrap();
        assert_eq!(code(&o), Some(2), "{out:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{out:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("combinations"), "refused before running: {}", stderr(&o));
    }
    // The inputs are untouched.
    assert_eq!(std::fs::read(dir.join("pool.yaml")).unwrap(), std::fs::read(ex("nodepools/gpu-training.yaml")).unwrap());
    let good = dir.join("table.csv");
    let o = Command::new(BIN).args(["sweep", p, "--out", good.to_str().unwrap()]).output().unwrap();
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&good).unwrap().lines().count(), 3);
}

#[test]
fn a_spec_reads_only_files_beside_it_unless_allowed() {
    let secret_dir = temp_dir("secret");
    let secret = secret_dir.join("id_rsa");
    std::fs::write(&secret, "-----BEGIN OPENSSH PRIVATE KEY----- s3cr3t\n").unwrap();
    let dir = temp_dir("confined");
    for (name, target) in [
        ("absolute", secret.to_str().unwrap().to_string()),
        ("dotdot", format!("../{}/id_rsa", secret_dir.file_name().unwrap().to_str().unwrap())),
    ] {
        let spec = dir.join(format!("{name}.yaml"));
        std::fs::write(&spec, format!("operation: plan\ninputs: [{target:?}]\n")).unwrap();
        let o = Command::new(BIN).args(["sweep", spec.to_str().unwrap()]).current_dir(&dir).output().unwrap();
        assert_eq!(code(&o), Some(2), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains("outside the spec's directory"), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains("--allow-any-file"), "{name}: {}", stderr(&o));
        assert!(!stderr(&o).contains("s3cr3t") && o.stdout.is_empty(), "{name}: the file was read: {}", stderr(&o));
    }
    // A symbolic link beside the spec that leads out is refused the same way.
    let link = dir.join("link.yaml");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&secret, &link).unwrap();
    let spec = dir.join("link-spec.yaml");
    std::fs::write(&spec, "operation: plan\ninputs: [link.yaml]\n").unwrap();
    let o = Command::new(BIN).args(["sweep", spec.to_str().unwrap()]).current_dir(&dir).output().unwrap();
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    assert!(!stderr(&o).contains("s3cr3t"), "{}", stderr(&o));
    // Allowed explicitly, the file is read (and is no manifest).
    let o = Command::new(BIN).args(["sweep", spec.to_str().unwrap(), "--allow-any-file"]).current_dir(&dir).output().unwrap();
    assert!(!stderr(&o).contains("outside the spec's directory"), "{}", stderr(&o));
}

#[test]
fn control_characters_from_a_spec_are_escaped_on_the_terminal_side() {
    let dir = temp_dir("controls");
    let spec = dir.join("sweep.yaml");
    // An unknown field whose name would retitle the terminal and erase the line.
    std::fs::write(&spec, "{\"operation\": \"plan\", \"inputs\": [], \"\\u001b]0;pwned\\u0007\\r\": 1}\n").unwrap();
    let o = Command::new(BIN).args(["sweep", spec.to_str().unwrap()]).output().unwrap();
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    assert!(!o.stderr.iter().any(|&b| b == 0x1b || b == 0x07 || b == b'\r'), "{:?}", stderr(&o));
    assert!(stderr(&o).contains("\\u{1b}]0;pwned\\u{7}\\u{d}"), "{}", stderr(&o));
}
