//! Runs the built `nodecast` binary on the example manifests.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_nodecast");
const GPU_GENERAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/nodepools/gpu-general.yaml");
const GPU_TRAINING: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/nodepools/gpu-training.yaml");
const GPU_INFERENCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/nodepools/gpu-inference.yaml");
const SPOT_TIERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/nodepools/spot-tiers.yaml");
const TRAINING_4GPU: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/workloads/training-job-4gpu.yaml");
const TRAINING_16GPU: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/workloads/training-job-16gpu.yaml");
const VLLM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/workloads/vllm-inference.yaml");
const BATCH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/workloads/batch-workers.yaml");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run nodecast")
}

fn run_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child =
        Command::new(BIN).args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn nodecast");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().expect("wait nodecast")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exit code")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(o)))
}

/// A temporary file under the target directory, removed on drop.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str, text: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("nodecast-cli-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        TempFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn version() {
    let o = run(&["--version"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).starts_with("nodecast "), "{}", stdout(&o));
}

#[test]
fn plan_training_json() {
    let o = run(&["plan", GPU_GENERAL, GPU_TRAINING, TRAINING_4GPU, "-o", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["apiVersion"], "nodecast/v1");
    assert_eq!(v["kind"], "Plan");
    assert_eq!(v["status"], "success");
    let claims = v["nodeClaims"].as_array().unwrap();
    assert_eq!(claims.len(), 1);
    assert_eq!(claims[0]["instanceType"], "g5.12xlarge");
    assert_eq!(claims[0]["capacityType"], "on-demand");
    assert_eq!(claims[0]["nodePool"], "gpu-training");
    assert!(stdout(&o).ends_with("}\n"));
}

#[test]
fn plan_training_table() {
    let o = run(&["plan", GPU_GENERAL, GPU_TRAINING, TRAINING_4GPU]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("g5.12xlarge"), "{out}");
    assert!(out.contains("gpu-training-1"), "{out}");
    assert!(out.contains("on-demand"), "{out}");
    assert!(out.contains("gpu 100%"), "{out}");
    assert!(out.contains("ml/train-llm-0"), "{out}");
    assert!(out.contains("$5.672/h"), "{out}");
    assert!(out.contains("$4140.56/month"), "{out}");
    // NodePool limits: 16 GPUs, 4 used.
    assert!(out.lines().any(|l| l.contains("nvidia.com/gpu") && l.contains("16") && l.contains("12")), "{out}");
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

#[test]
fn json_is_the_facade_answer_byte_for_byte() {
    let files = [GPU_GENERAL, GPU_INFERENCE, GPU_TRAINING, TRAINING_4GPU, VLLM];
    let texts: Vec<nodecast::Input> =
        files.iter().map(|f| nodecast::Input { name: Some(f.to_string()), text: std::fs::read_to_string(f).unwrap() }).collect();
    let req = nodecast::Request { inputs: texts, ..Default::default() };
    let expected = nodecast::plan(&req).to_json() + "\n";
    let mut args = vec!["plan", "-o", "json"];
    args.extend(files);
    let a = run(&args);
    let b = run(&args);
    assert_eq!(code(&a), 0, "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout, "two runs differ");
    assert_eq!(stdout(&a), expected);
}

#[test]
fn unschedulable_is_an_answer() {
    let o = run(&["plan", GPU_TRAINING, TRAINING_16GPU]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("ml/train-70b-0"), "{out}");
    assert!(out.contains("no-instance-type-fits"), "{out}");
    assert!(out.contains("gpu-training:"), "per-NodePool reason: {out}");
    assert!(out.contains("$0.00/h"), "{out}");
    let j = json(&run(&["plan", GPU_TRAINING, TRAINING_16GPU, "-o", "json"]));
    assert_eq!(j["unschedulable"][0]["code"], "no-instance-type-fits");
}

#[test]
fn stdin_dash() {
    let workload = std::fs::read_to_string(TRAINING_4GPU).unwrap();
    let o = run_stdin(&["plan", GPU_TRAINING, "-", "-o", "json"], &workload);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(json(&o)["nodeClaims"][0]["instanceType"], "g5.12xlarge");
    // Errors in stdin are located as <stdin>.
    let o = run_stdin(&["plan", "-"], "kind: Pod\nmetadata:\n  name: [x\n");
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("<stdin>"), "{}", stderr(&o));
}

#[test]
fn malformed_yaml_is_unusable_input() {
    let bad = TempFile::new("bad.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: [x\n");
    for cmd in ["plan", "validate"] {
        let o = run(&[cmd, bad.path()]);
        assert_eq!(code(&o), 2, "{cmd}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(bad.path()), "{cmd}: {err}");
        assert!(err.contains("line "), "{cmd}: {err}");
        assert!(err.contains("[yaml-syntax]"), "{cmd}: {err}");
        assert!(stdout(&o).is_empty(), "{cmd}: {}", stdout(&o));
    }
    // -o json prints the failure answer unchanged.
    let o = run(&["plan", bad.path(), "-o", "json"]);
    assert_eq!(code(&o), 2);
    let v = json(&o);
    assert_eq!(v["status"], "failure");
    assert_eq!(v["errors"][0]["code"], "yaml-syntax");
}

#[test]
fn unreadable_file_is_unusable_input() {
    let o = run(&["plan", "/nonexistent/nodecast/input.yaml"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("/nonexistent/nodecast/input.yaml"), "{}", stderr(&o));
}

#[test]
fn validate_invalid_operator_exits_1() {
    let text = std::fs::read_to_string(GPU_TRAINING).unwrap().replacen("operator: In", "operator: Inn", 1);
    let bad = TempFile::new("bad-operator.yaml", &text);
    let o = run(&["validate", bad.path()]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("[invalid-operator]"), "{err}");
    assert!(err.contains("NodePool/gpu-training"), "{err}");
    assert!(err.contains("spec.template.spec.requirements[0].operator"), "{err}");
    let o = run(&["validate", bad.path(), "-o", "json"]);
    assert_eq!(code(&o), 1);
    assert_eq!(json(&o)["status"], "failure");
    // plan cannot use it, and says so with the same exit code as validate (README).
    assert_eq!(code(&run(&["plan", bad.path()])), 1);
}

/// A misspelt field (`consolidateAfterr`, SF-01): kubectl refuses it, so validate and plan do
/// too, located and with the field that was meant.
#[test]
fn an_unknown_field_exits_1_with_what_was_meant() {
    let text = std::fs::read_to_string(GPU_TRAINING).unwrap();
    assert!(text.contains("consolidateAfter:"), "the example sets consolidateAfter");
    let bad = TempFile::new("misspelt.yaml", &text.replacen("consolidateAfter:", "consolidateAfterr:", 1));
    let o = run(&["validate", bad.path()]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("NodePool/gpu-training, spec.disruption.consolidateAfterr: strict decoding error"), "{err}");
    assert!(err.contains("[unknown-field]") && err.contains("did you mean \"consolidateAfter\"?"), "{err}");
    assert_eq!(code(&run(&["plan", bad.path(), TRAINING_4GPU])), 1);
}

/// The exit code follows the answer's `errorClass`, which the core computes once from the
/// errors' kinds: the same rule for every subcommand (README "Exit codes").
#[test]
fn exit_code_is_the_answers_error_class() {
    let invalid =
        TempFile::new("class-invalid.yaml", &std::fs::read_to_string(GPU_TRAINING).unwrap().replacen("operator: In", "operator: Inn", 1));
    let syntax = TempFile::new("class-syntax.yaml", "kind: Pod\n  bad: [\n");
    let check = |args: &[&str], want_code: i32, want_class: &str| {
        let o = run(&[args, &["-o", "json"]].concat());
        assert_eq!(code(&o), want_code, "{args:?}: {}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["status"], "failure", "{args:?}");
        assert_eq!(v["errorClass"], want_class, "{args:?}");
        // Table output exits the same way.
        assert_eq!(code(&run(args)), want_code, "{args:?} (table)");
    };
    // Admission errors of an input object: invalid, from every subcommand that loads input.
    check(&["validate", invalid.path()], 1, "invalid");
    check(&["plan", invalid.path()], 1, "invalid");
    check(&["consolidate", invalid.path(), "--now", "2025-03-05T12:00:00Z"], 1, "invalid");
    check(&["explain", invalid.path(), TRAINING_4GPU, "--pod", "train-llm-0"], 1, "invalid");
    // Syntax: unusable, even next to an invalid object.
    check(&["validate", syntax.path()], 2, "unusable");
    check(&["plan", syntax.path(), invalid.path()], 2, "unusable");
    // The question, not the input: an unknown pod, a bad clock.
    check(&["explain", GPU_TRAINING, TRAINING_4GPU, "--pod", "no-such-pod"], 2, "unusable");
    check(&["consolidate", GPU_TRAINING, "--now", "yesterday"], 2, "unusable");
    // A success has no class.
    let ok = json(&run(&["plan", GPU_TRAINING, TRAINING_4GPU, "-o", "json"]));
    assert!(ok.get("errorClass").is_none(), "{ok}");
}

#[test]
fn validate_success_summary() {
    let o = run(&["validate", GPU_GENERAL, GPU_INFERENCE, VLLM]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("valid: "), "{out}");
    assert!(out.contains("2 NodePools (general, gpu-inference)"), "{out}");
    assert!(out.contains("2 pods"), "{out}");
    assert!(out.contains("skipped 1 Service"), "{out}");
}

#[test]
fn explain_pod() {
    let o = run(&["explain", GPU_GENERAL, GPU_TRAINING, TRAINING_4GPU, "--pod", "train-llm-0", "--instance-type", "g5.48xlarge"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Pod ml/train-llm-0: new-node-claim"), "{out}");
    assert!(out.contains("ok  gpu-training"), "{out}");
    assert!(out.contains("no  general"), "{out}");
    assert!(out.contains("g5.12xlarge"), "{out}");
    assert!(out.contains("Instance type g5.48xlarge: option"), "{out}");
    let j = json(&run(&["explain", GPU_GENERAL, GPU_TRAINING, TRAINING_4GPU, "--pod", "ml/train-llm-0", "-o", "json"]));
    assert_eq!(j["pod"]["outcome"], "new-node-claim");
}

#[test]
fn explain_options_are_cut_at_ten() {
    let o = run(&["explain", SPOT_TIERS, BATCH, "--pod", "render-batch-0"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("12 instance-type options"), "{out}");
    assert!(out.contains("and 2 more"), "{out}");
}

#[test]
fn explain_unknown_pod_and_node() {
    let o = run(&["explain", GPU_TRAINING, TRAINING_4GPU, "--pod", "nope"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("[unknown-pod]"), "{}", stderr(&o));
    let o = run(&["explain", GPU_TRAINING, TRAINING_4GPU, "--node", "ip-10-0-0-1"]);
    assert_eq!(code(&o), 2);
    assert!(stdout(&o).is_empty());
    assert!(stderr(&o).contains("--now"), "{}", stderr(&o));
    let o = run(&["explain", POOL_UNDERUTILIZED, CLUSTER_STATE, "--node", "ip-10-0-0-1", "--now", NOW]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("[unknown-node]"), "{}", stderr(&o));
}

const CLUSTER_STATE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/disruption/cluster-state.yaml");
const POOL_UNDERUTILIZED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/disruption/pool-underutilized.yaml");
const POOL_WHEN_EMPTY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/disruption/pool-when-empty.yaml");
const NOW: &str = "2025-03-05T12:00:00Z";
const GPU_NODE: &str = "ip-10-0-3-41.ec2.internal";

#[test]
fn consolidate_replaces_the_half_used_gpu_node() {
    let o = run(&["consolidate", POOL_UNDERUTILIZED, CLUSTER_STATE, "--now", NOW, "-o", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["kind"], "Decision");
    assert_eq!(v["decision"], "replace");
    assert_eq!(v["disruptedNodes"][0], GPU_NODE);
    assert_eq!(v["replacement"]["instanceType"], "g5.2xlarge");
    let o = run(&["consolidate", POOL_UNDERUTILIZED, CLUSTER_STATE, "--now", NOW]);
    assert!(stdout(&o).contains("replace 1 node"), "{}", stdout(&o));
    assert_eq!(run(&["consolidate", POOL_UNDERUTILIZED, CLUSTER_STATE, "--now", NOW, "-o", "json"]).stdout, o_json_again());
}

fn o_json_again() -> Vec<u8> {
    run(&["consolidate", POOL_UNDERUTILIZED, CLUSTER_STATE, "--now", NOW, "-o", "json"]).stdout
}

#[test]
fn consolidate_needs_a_valid_clock() {
    let o = run(&["consolidate", POOL_UNDERUTILIZED, CLUSTER_STATE, "--now", "yesterday"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("[invalid-timestamp]"), "{}", stderr(&o));
}

#[test]
fn explain_node_says_why_it_stays() {
    let o = run(&["explain", POOL_WHEN_EMPTY, CLUSTER_STATE, "--node", GPU_NODE, "--now", NOW]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("policy-when-empty"), "{out}");
    assert!(out.contains("stays"), "{out}");
}

#[test]
fn catalog_gpu_h100_json() {
    let o = run(&["catalog", "--gpu", "--requirement", "karpenter.k8s.aws/instance-gpu-name In h100", "-o", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["kind"], "CatalogQuery");
    let rows = v["instanceTypes"].as_array().unwrap();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r["gpuName"] == "h100"), "{v}");
    assert!(rows.iter().any(|r| r["name"] == "p5.48xlarge"), "{v}");
    assert_eq!(v["count"], rows.len());
}

#[test]
fn catalog_table_and_limit() {
    let o = run(&["catalog", "--gpu", "-r", "karpenter.k8s.aws/instance-gpu-name In h100"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("p5.48xlarge"), "{out}");
    assert!(out.contains("h100 x8 (80Gi each)"), "{out}");
    let o = run(&["catalog", "-r", "kubernetes.io/arch In arm64", "--limit", "3", "-o", "json"]);
    let v = json(&o);
    assert_eq!(v["count"], 3);
    assert!(v["instanceTypes"].as_array().unwrap().iter().all(|r| r["arch"] == "arm64"));
}

#[test]
fn catalog_bad_requirement_exits_2() {
    let o = run(&["catalog", "--requirement", "kubernetes.io/arch Bogus arm64"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("[invalid-requirement]"), "{}", stderr(&o));
}

#[test]
fn catalog_options_compose() {
    // No file: --zones and --spot-price-factor build {"source": "aws-us-east-1", ...}.
    let o = run(&["plan", GPU_TRAINING, TRAINING_4GPU, "--zones", "us-east-1c", "-o", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(json(&o)["nodeClaims"][0]["zone"], "us-east-1c");
    let o = run(&["catalog", "-r", "node.kubernetes.io/instance-type In m5.large", "--spot-price-factor", "0.5", "-o", "json"]);
    let v = json(&o);
    let row = &v["instanceTypes"][0];
    let (spot, od) = (row["spotPricePerHour"].as_f64().unwrap(), row["onDemandPricePerHour"].as_f64().unwrap());
    assert!((spot - od * 0.5).abs() < 1e-6, "{row}");
    // A file: the flags are merged into its mapping.
    let cat = TempFile::new("catalog.yaml", "source: aws-us-east-1\ncapacityTypes: [on-demand]\n");
    let o = run(&["plan", SPOT_TIERS, BATCH, "--catalog", cat.path(), "--zones", "us-east-1b", "-o", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = json(&o);
    for c in v["nodeClaims"].as_array().unwrap() {
        assert_eq!(c["capacityType"], "on-demand");
        assert_eq!(c["zone"], "us-east-1b");
    }
    // A name.
    assert_eq!(code(&run(&["catalog", "--catalog", "aws-us-east-1", "--limit", "1"])), 0);
    let o = run(&["catalog", "--catalog", "no-such-catalog"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("[unknown-catalog]"), "{}", stderr(&o));
    assert_eq!(code(&run(&["catalog", "--catalog", "/nonexistent/catalog.yaml"])), 2);
}

#[test]
fn catalog_file_in_the_readme_form_under_a_catalog_key() {
    // The README writes `catalog: {source: ...}`: the same file works for --catalog.
    let cat = TempFile::new("readme-catalog.yaml", "catalog: {source: aws-us-east-1, zones: [us-east-1b], capacityTypes: [on-demand]}\n");
    let o = run(&["plan", GPU_TRAINING, TRAINING_4GPU, "--catalog", cat.path(), "-o", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(json(&o)["nodeClaims"][0]["zone"], "us-east-1b");
    // `catalog:` beside other keys is a request file, not a catalog: said so.
    let mixed = TempFile::new("request.yaml", "catalog: aws-us-east-1\nnow: \"2025-03-05T12:00:00Z\"\n");
    let o = run(&["plan", GPU_TRAINING, "--catalog", mixed.path()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("beside other keys (now)"), "{}", stderr(&o));
}

#[test]
fn consolidate_until_prints_the_sequence() {
    let files = [
        concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/disruption/pool-underutilized.yaml"),
        concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/disruption/cluster-state.yaml"),
    ];
    let o = run(&["consolidate", files[0], files[1], "--now", "2025-03-05T12:00:00Z", "--until", "2025-03-06T12:00:00Z"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Sequence until 2025-03-06T12:00:00Z"), "{out}");
    assert!(out.contains("At 2025-03-06T12:00:00Z:"), "{out}");
    let o = run(&["consolidate", files[0], files[1], "--now", "2025-03-05T12:00:00Z", "--until", "yesterday"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("until: until \"yesterday\" is not an RFC 3339 time"), "{}", stderr(&o));
}

#[test]
fn settings_flags() {
    let o = run(&["plan", GPU_TRAINING, TRAINING_4GPU, "--min-values-policy", "BestEffort", "--preference-policy", "Ignore"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(code(&run(&["plan", GPU_TRAINING, "--min-values-policy", "Sometimes"])), 2);
}

const SIM_WORKLOADS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/simulate/workloads.yaml");
const SIM_WEEK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/simulate/week.yaml");
const SIM_SETTINGS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/simulate/settings.yaml");

#[test]
fn simulate_the_week_of_a_training_team() {
    let args = [GPU_TRAINING, GPU_INFERENCE, VLLM, SIM_WORKLOADS, "--trace", SIM_WEEK, "--settings", SIM_SETTINGS];
    let o = run(&[&["simulate"], &args[..]].concat());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("Simulated 7d 0h00m from 2025-03-03T00:00:00Z: $"), "{text}");
    assert!(text.contains("Static cluster sized for the peak") && text.contains("g5.48xlarge"), "{text}");
    let j = run(&[&["simulate"], &args[..], &["-o", "json"]].concat());
    let v = json(&j);
    assert_eq!(v["kind"], "Simulation");
    assert_eq!(v["status"], "success");
    assert_eq!(v["seed"], 7);
    assert!(v["summary"]["savingsPercent"].as_f64().unwrap() > 0.0);
    // Same input, same bytes.
    assert_eq!(stdout(&j), stdout(&run(&[&["simulate"], &args[..], &["-o", "json"]].concat())));
    let prom = stdout(&run(&[&["simulate"], &args[..], &["-o", "prom"]].concat()));
    assert!(prom.contains("# TYPE karpenter_nodeclaims_launched_total counter"));
    assert!(prom.contains("karpenter_nodepool_usage{nodepool=\"gpu-training\",resource_type=\"nvidia.com/gpu\"}"));
    let csv = stdout(&run(&[&["simulate"], &args[..], &["-o", "csv"]].concat()));
    assert!(csv.starts_with("timeSeconds,metric,labels,value\n0,karpenter_nodepool_usage,"));
    // --seed overrides the settings file.
    let other = json(&run(&[&["simulate"], &args[..], &["-o", "json", "--seed", "8"]].concat()));
    assert_eq!(other["seed"], 8);
}

#[test]
fn simulate_reports_located_trace_errors() {
    let trace = TempFile::new("bad-trace.yaml", "kind: Trace\nevents:\n- {at: soon, submit: {ref: Job/ml/train-llm}}\n");
    let o = run(&["simulate", GPU_TRAINING, TRAINING_4GPU, "--trace", trace.path()]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(err.contains("events[0].at") && err.contains("invalid-duration"), "{err}");
    let j = run(&["simulate", GPU_TRAINING, TRAINING_4GPU, "--trace", trace.path(), "-o", "json"]);
    assert_eq!(json(&j)["status"], "failure");
}

/// An endless input is refused once the size limit has been read, not after memory runs out.
#[test]
fn endless_input_is_refused_at_the_size_limit() {
    if !std::path::Path::new("/dev/zero").exists() {
        return;
    }
    let o = run(&["plan", "/dev/zero"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("/dev/zero: input is larger than the limit of 268435456 bytes"), "{}", stderr(&o));
    let o = run(&["simulate", GPU_TRAINING, "--trace", "/dev/zero"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("larger than the limit"), "{}", stderr(&o));
}

/// Settings past the simulator's bounds are located errors before any work, never overflow.
#[test]
fn simulate_settings_near_i64_max_are_refused() {
    let dir = std::env::temp_dir().join(format!("nodecast-cli-settings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let settings = dir.join("settings.yaml");
    std::fs::write(&settings, "metricsIntervalSeconds: 9223372036854775800\nspotInterruptionRatePerHour: 1000000\n").unwrap();
    let trace = dir.join("trace.yaml");
    std::fs::write(&trace, "kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/ml/train-llm, runTime: 1h}}\n").unwrap();
    let o = run(&["simulate", GPU_TRAINING, TRAINING_4GPU, "--trace", trace.to_str().unwrap(), "--settings", settings.to_str().unwrap()]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("simulation.metricsIntervalSeconds") && err.contains("simulation.spotInterruptionRatePerHour"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Errors are located where the user wrote the value: a flag by its name, a CSV row by its line.
#[test]
fn errors_are_located_at_flags_and_csv_lines() {
    let o = run(&["plan", "--zones", "us-east-1a,eu-west-1a", GPU_GENERAL]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).starts_with("error: --zones[1]: zone \"eu-west-1a\" is not in us-east-1"), "{}", stderr(&o));
    let o = run(&["plan", "--spot-price-factor", "-3", GPU_GENERAL]);
    assert!(stderr(&o).starts_with("error: --spot-price-factor: "), "{}", stderr(&o));
    let dir = std::env::temp_dir().join(format!("nodecast-cli-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.csv");
    std::fs::write(&trace, "time,workload,replicas,runTime\n1h,Job,1,1h\n").unwrap();
    let o = run(&["simulate", GPU_TRAINING, TRAINING_4GPU, "--trace", trace.to_str().unwrap()]);
    assert!(stderr(&o).contains("t.csv, workload, line 2: "), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

const POOL_BALANCED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/disruption/pool-balanced.yaml");
const POOL_SPOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/disruption/pool-spot.yaml");
const CLUSTER_SPOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/disruption/cluster-state-spot.yaml");

#[test]
fn feature_gates_turn_on_spot_to_spot_consolidation() {
    let off = run(&["consolidate", POOL_SPOT, CLUSTER_SPOT, "--now", NOW, "-o", "json"]);
    assert_eq!(code(&off), 0, "{}", stderr(&off));
    assert_eq!(json(&off)["decision"], "none");
    assert_eq!(json(&off)["nodes"][0]["reasons"][0]["code"], "spot-to-spot-disabled");
    let on = run(&["consolidate", POOL_SPOT, CLUSTER_SPOT, "--now", NOW, "--feature-gates", "SpotToSpotConsolidation=true", "-o", "json"]);
    let v = json(&on);
    assert_eq!(v["decision"], "replace");
    assert_eq!(v["replacement"]["capacityType"], "spot");
    assert_eq!(v["replacement"]["instanceTypeOptions"].as_array().map(Vec::len), Some(15));
    // Explicitly false is the default; other gates and malformed values are unusable input.
    let f = run(&["consolidate", POOL_SPOT, CLUSTER_SPOT, "--now", NOW, "--feature-gates", "SpotToSpotConsolidation=false", "-o", "json"]);
    assert_eq!(f.stdout, off.stdout);
    for bad in ["Spot=true", "SpotToSpotConsolidation", "SpotToSpotConsolidation=yes"] {
        let o = run(&["consolidate", POOL_SPOT, CLUSTER_SPOT, "--now", NOW, "--feature-gates", bad]);
        assert_eq!(code(&o), 2, "{bad}");
        assert!(stderr(&o).contains("--feature-gates"), "{}", stderr(&o));
    }
    // Go's strconv.ParseBool spellings, as Karpenter reads the flag.
    let t = run(&["consolidate", POOL_SPOT, CLUSTER_SPOT, "--now", NOW, "--feature-gates", "SpotToSpotConsolidation=True", "-o", "json"]);
    assert_eq!(t.stdout, on.stdout);
    // Every Karpenter v1.15 gate is modelled now (NodeRepair: disruption/repair.rs) ...
    let o = run(&["consolidate", POOL_SPOT, CLUSTER_SPOT, "--now", NOW, "--feature-gates", "NodeRepair=true", "-o", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // ... an AWS provider gate nodecast does not model, moved from its default, is refused by
    // the core, located.
    let o = run(&["consolidate", POOL_SPOT, CLUSTER_SPOT, "--now", NOW, "--aws-feature-gates", "RebootForRepair=true", "-o", "json"]);
    assert_eq!(code(&o), 2);
    assert_eq!(json(&o)["errors"][0]["path"], "settings.awsFeatureGates.RebootForRepair", "{}", stdout(&o));
    assert_eq!(json(&o)["errors"][0]["code"], "unsupported-feature-gate");
}

#[test]
fn balanced_score_in_consolidate_and_explain() {
    let o = run(&["consolidate", POOL_BALANCED, CLUSTER_STATE, "--now", NOW]);
    let out = stdout(&o);
    assert!(out.contains("Balanced score"), "{out}");
    assert!(out.contains("gpu-training: replace scores 0.79 >= threshold 0.50 (k 2)"), "{out}");
    assert!(out.contains("cluster-cost tracker"), "{out}");
    let v = json(&run(&["consolidate", POOL_BALANCED, CLUSTER_STATE, "--now", NOW, "-o", "json"]));
    assert_eq!(v["scores"][0]["approved"], true);
    assert_eq!(v["scores"][0]["threshold"], 0.5);
    let e = stdout(&run(&["explain", POOL_BALANCED, CLUSTER_STATE, "--node", GPU_NODE, "--now", NOW]));
    assert!(e.contains("Balanced score of the replace 0.79 >= threshold 0.50"), "{e}");
}

#[test]
fn ties_are_disclosed_in_text_and_json() {
    let nodes: String = ["gpu-a", "gpu-b", "gpu-c"]
        .iter()
        .map(|n| {
            format!(
                "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {n}\n  creationTimestamp: \"2025-03-05T08:00:00Z\"\n  labels: {{karpenter.sh/nodepool: gpu-training, node.kubernetes.io/instance-type: g5.12xlarge, karpenter.sh/capacity-type: on-demand, topology.kubernetes.io/zone: us-east-1a}}\nstatus:\n  allocatable: {{cpu: 47810m, memory: 173400Mi, pods: \"234\", nvidia.com/gpu: \"4\"}}\n"
            )
        })
        .collect();
    let o = run_stdin(&["consolidate", POOL_WHEN_EMPTY, "-", "--now", NOW], &nodes);
    let out = stdout(&o);
    assert!(out.contains("Ties (Karpenter's pick is not determined)"), "{out}");
    assert!(out.contains("Karpenter may pick any of: gpu-a, gpu-b, gpu-c"), "{out}");
    let v = json(&run_stdin(&["consolidate", POOL_WHEN_EMPTY, "-", "--now", NOW, "-o", "json"], &nodes));
    assert_eq!(v["ties"][0]["count"], 1);
    assert_eq!(v["ties"][0]["nodes"], serde_json::json!(["gpu-a", "gpu-b", "gpu-c"]));
    let e = stdout(&run_stdin(&["explain", POOL_WHEN_EMPTY, "-", "--node", "gpu-b", "--now", NOW], &nodes));
    assert!(e.contains("Karpenter may pick any of: gpu-a, gpu-b, gpu-c"), "{e}");
}

#[test]
fn help_offers_only_options_a_subcommand_uses() {
    let help = |cmd: &str| stdout(&run(&[cmd, "--help"]));
    for cmd in ["catalog", "validate"] {
        let h = help(cmd);
        assert!(!h.contains("--feature-gates") && !h.contains("--min-values-policy") && !h.contains("--preference-policy"), "{cmd}: {h}");
    }
    // optimize and advise plan with the same gates as plan (NodeOverlay changes the catalog).
    let h = help("optimize");
    assert!(h.contains("--min-values-policy") && h.contains("--feature-gates"), "optimize: {h}");
    // plan reads ReservedCapacity (docs/reservations.md), StaticCapacity and CapacityBuffer.
    let h = help("plan");
    assert!(h.contains("--min-values-policy") && h.contains("--feature-gates") && h.contains("--now"), "plan: {h}");
    assert!(help("consolidate").contains("--feature-gates"));
    // explain reads manifests or a cluster, and needs one of --pod / --node: the usage line says so.
    let h = help("explain");
    assert!(h.contains("[FILE]...") && h.contains("<--pod <NAME>|--node <NAME>>") && h.contains("--context <NAME>"), "{h}");
    // The commands that read a running cluster (README "Live cluster"); the others do not offer it.
    for cmd in ["plan", "explain", "consolidate", "simulate", "validate"] {
        let h = help(cmd);
        assert!(
            h.contains("--context") && h.contains("--kubeconfig") && h.contains("--in-cluster") && h.contains("--snapshot"),
            "{cmd}: {h}"
        );
    }
    for cmd in ["catalog", "optimize", "advise", "migrate"] {
        assert!(!help(cmd).contains("--kubeconfig"), "{cmd}");
    }
    assert_eq!(code(&run(&["plan", GPU_TRAINING, TRAINING_4GPU, "--feature-gates", "ReservedCapacity=false"])), 0);
    assert_eq!(code(&run(&["plan", GPU_TRAINING, TRAINING_4GPU, "--feature-gates", "Nope=true"])), 2);
}

#[test]
fn no_files_and_no_cluster_is_a_clear_error() {
    let out = run(&["plan"]);
    assert_eq!(code(&out), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no input: give FILE...") && err.contains("--context NAME"), "{err}");
    // Files alone still need the clock for consolidate; only a cluster read live defaults it.
    let out = run(&["consolidate", GPU_TRAINING]);
    assert_eq!(code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--now RFC3339 is required with files"));
}

#[test]
fn plan_keeps_static_replicas_and_buffers_with_their_gates() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/");
    let (pools, class) = (format!("{root}capacity/static-gpu-pool.yaml"), format!("{root}nodepools/gpu-inference.yaml"));
    let (vllm, buffer) = (format!("{root}workloads/vllm-inference.yaml"), format!("{root}capacity/inference-buffer.yaml"));
    let off = stdout(&run(&["plan", &class, &pools, &vllm, &buffer, "-o", "json"]));
    assert!(off.contains("static-capacity-gate-off") && !off.contains("staticNodeClaims"), "{off}");
    let gates = "StaticCapacity=true,CapacityBuffer=true";
    let on = run(&["plan", &class, &pools, &vllm, &buffer, "--feature-gates", gates, "-o", "json"]);
    assert_eq!(code(&on), 0);
    let a: serde_json::Value = serde_json::from_str(&stdout(&on)).expect("json");
    assert_eq!(a["staticNodeClaims"].as_array().map(Vec::len), Some(2), "{a}");
    assert_eq!(a["capacityBuffers"][0]["name"], "inference/vllm-spare", "{a}");
    assert_eq!(a["capacityBuffers"][0]["replicas"], 1, "{a}");
    let table = stdout(&run(&["plan", &class, &pools, &vllm, &buffer, "--feature-gates", gates]));
    assert!(table.contains("Static NodeClaims"), "{table}");
}

#[test]
fn unschedulable_pods_print_their_checked_fix() {
    let notebook = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/workloads/gpu-notebook.yaml");
    let out = stdout(&run(&["plan", GPU_INFERENCE, notebook]));
    assert!(out.contains("fix (verified) for gpu-inference: add to the pod's tolerations: {key: nvidia.com/gpu, operator: Equal, value: true, effect: NoSchedule}"), "{out}");
    assert!(
        out.contains("verified: re-planned with this change, research/notebook-gpu goes on a new NodeClaim of NodePool gpu-inference"),
        "{out}"
    );
}

#[test]
fn optimize_under_a_memory_limit_is_solved_not_answered_with_karpenters_plan() {
    // gpu-general's memory limit (4000Gi): the limit row's coefficients, bytes × 1000 per node,
    // reach 1e15 on large types, which HiGHS refused ("error while building model"), and optimize
    // answered Karpenter's plan. The row is scaled now (optimize/solve.rs `scale`).
    let o = run(&["optimize", GPU_GENERAL, BATCH, "-o", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["certificate"], "optimal", "{v}");
    assert!(v["optimumPricePerHour"].as_f64().unwrap() < v["karpenterPricePerHour"].as_f64().unwrap(), "{v}");
}

#[test]
fn simulate_compare_cluster_autoscaler() {
    // The seed's node groups over the half-day trace: both sides in one table, and the JSON
    // answer of kind Comparison; a CSV rendering is refused (two runs' series).
    let ex = |p: &str| format!("{}/../examples/{p}", env!("CARGO_MANIFEST_DIR"));
    let (groups, eval, trace) = (ex("node-groups/eksctl-gpu.yaml"), ex("workloads/eval-jobs-1gpu.yaml"), ex("node-groups/gpu-day.yaml"));
    let args = ["simulate", "--compare", "cluster-autoscaler", "--trace", &trace, &groups, &eval, TRAINING_4GPU];
    let o = run(&args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("Side by side: Cluster Autoscaler $"), "{out}");
    assert!(out.contains("\n  cluster-autoscaler ") && out.contains("\n  karpenter "), "{out}");
    assert!(out.contains("gpu-p3dn-24xlarge      1  least-waste"), "{out}");
    let o = run(&[&args[..], &["-o", "json"]].concat());
    let j = json(&o);
    assert_eq!((j["kind"].as_str(), j["status"].as_str()), (Some("Comparison"), Some("success")));
    assert_eq!(j["sides"][0]["autoscaler"], "cluster-autoscaler");
    assert_eq!(j["nodePools"], "migrate");
    let o = run(&[&args[..], &["-o", "csv"]].concat());
    assert_ne!(code(&o), 0);
    assert!(stderr(&o).contains("--compare"), "{}", stderr(&o));
    // Without node groups: the located error, exit 2.
    let o = run(&["simulate", "--compare", "cluster-autoscaler", "--trace", &trace, &eval, TRAINING_4GPU]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no-node-groups"), "{}", stderr(&o));
}

/// An object read back from a cluster (it has a UID) with a field Kubernetes 1.36 lacks: a newer
/// server stored it, so plan and validate warn and read the object without it.
#[test]
fn a_stored_objects_unknown_field_is_a_warning() {
    let pod = TempFile::new(
        "stored.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml, uid: 0f0e, resourceVersion: \"12\"}\nspec:\n  futureField: {x: 1}\n  containers:\n  - {name: c, image: x, resources: {requests: {cpu: \"1\"}}}\n",
    );
    let o = run(&["validate", pod.path()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("unknown field \"spec.futureField\" (SF-01): an API server stored it"), "{}", stdout(&o));
    let v = json(&run(&["plan", GPU_GENERAL, pod.path(), "-o", "json"]));
    assert_eq!(v["status"], "success", "{v}");
    assert!(v["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "unknown-field" && w["object"] == "Pod/ml/p"), "{v}");
}
