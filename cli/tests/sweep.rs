//! `nodecast sweep`: the built binary on small sweep specs over the examples.

use std::path::PathBuf;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_nodecast");
const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");

/// The specs here live in a temporary directory and name examples/ by absolute path, outside
/// both their own directory and the working directory: they need `--allow-any-file`.
fn run(args: &[&str]) -> Output {
    let mut args = args.to_vec();
    if args.first() == Some(&"sweep") {
        args.push("--allow-any-file");
    }
    Command::new(BIN).args(args).output().expect("run nodecast")
}

/// A spec written under the temp directory, with absolute paths into examples/.
fn spec(name: &str, body: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nodecast-sweep-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, body.replace("EX", EXAMPLES)).unwrap();
    path
}

const WEEK: &str = r#"
operation: simulate
inputs: [EX/nodepools/gpu-training.yaml, EX/nodepools/gpu-inference.yaml, EX/workloads/vllm-inference.yaml, EX/simulate/workloads.yaml]
traces: [EX/simulate/week.yaml]
simulation: {spotInterruptionRatePerHour: 0.01}
seeds: [7, 8]
grid:
  - name: consolidate_after
    target: NodePool/gpu-training
    path: spec.disruption.consolidateAfter
    values: [30m, 0s]
"#;

#[test]
fn rows_are_in_combination_order_whatever_the_thread_count() {
    let path = spec("week.yaml", WEEK);
    let p = path.to_str().unwrap();
    let one = run(&["sweep", p, "-j", "1"]);
    let two = run(&["sweep", p, "-j", "2"]);
    assert_eq!(one.status.code(), Some(0), "{}", String::from_utf8_lossy(&one.stderr));
    assert_eq!(one.stdout, two.stdout);
    let csv = String::from_utf8(one.stdout).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 5);
    assert!(lines[0].starts_with("index,variant,consolidate_after,trace,seed,status,error,cost_usd,"), "{}", lines[0]);
    let cells = |l: &str| l.split(',').map(str::to_string).collect::<Vec<_>>();
    let seeds: Vec<String> = lines[1..].iter().map(|l| cells(l)[4].clone()).collect();
    assert_eq!(seeds, ["7", "8", "7", "8"]);
    assert!(String::from_utf8_lossy(&one.stderr).contains("4 combinations (simulate), 0 failed"));

    // Row 0 is `nodecast simulate` of the base files with seed 7: the README's $713.57 week.
    let ex = |f: &str| format!("{EXAMPLES}/{f}");
    let sim = run(&[
        "simulate",
        &ex("nodepools/gpu-training.yaml"),
        &ex("nodepools/gpu-inference.yaml"),
        &ex("workloads/vllm-inference.yaml"),
        &ex("simulate/workloads.yaml"),
        "--trace",
        &ex("simulate/week.yaml"),
        "--settings",
        &ex("simulate/settings.yaml"),
        "-o",
        "json",
    ]);
    let answer: serde_json::Value = serde_json::from_slice(&sim.stdout).unwrap();
    let row0 = cells(lines[1]);
    assert_eq!(row0[7], answer["summary"]["costUsd"].to_string());
    assert_eq!(row0[16], answer["summary"]["pendingSeconds"]["p95"].to_string());
    // consolidateAfter 0s leaves less money on empty nodes than 30m, for the same seed.
    let empty = |l: &str| cells(l)[14].parse::<f64>().unwrap();
    assert!(empty(lines[3]) < empty(lines[1]), "{csv}");
}

#[test]
fn json_output_and_dry_run() {
    let path = spec("week-json.yaml", WEEK);
    let p = path.to_str().unwrap();
    let dry = run(&["sweep", p, "--dry-run"]);
    assert_eq!(dry.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&dry.stdout).starts_with("4 combinations (simulate); columns: index,variant,consolidate_after,"));
    let out = path.with_extension("json.out");
    let j = run(&["sweep", p, "-o", "json", "--out", out.to_str().unwrap()]);
    assert_eq!(j.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["rows"].as_array().unwrap().len(), 4);
    assert_eq!(v["columns"][0], "index");
}

#[test]
fn a_bad_spec_is_refused_with_located_errors() {
    let path = spec(
        "bad.yaml",
        "operation: simulate\ninputs: [EX/nodepools/gpu-training.yaml]\ntraces: [EX/simulate/week.yaml]\ngrid:\n  - {name: w, target: NodePool/gpu-trainin, path: spec.weight, values: [1]}\n  - {name: x, target: NodePool/gpu-training, path: 'spec..weight', values: [1]}\n",
    );
    let o = run(&["sweep", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.yaml, Sweep, grid[1].path: \"spec..weight\": empty field name"), "{err}");
    assert!(o.stdout.is_empty());
    let missing = spec("missing.yaml", "operation: plan\ninputs: [no-such-file.yaml]\n");
    let o = run(&["sweep", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no-such-file.yaml: cannot read"));
}

#[test]
fn a_sweep_whose_every_combination_fails_exits_1() {
    let path = spec(
        "all-bad.yaml",
        "operation: plan\ninputs: [EX/nodepools/gpu-training.yaml, EX/workloads/training-job-4gpu.yaml]\ngrid:\n  - {name: weight, target: NodePool/gpu-training, path: spec.weight, values: [1000, 2000]}\n",
    );
    let o = run(&["sweep", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let csv = String::from_utf8(o.stdout).unwrap();
    assert_eq!(csv.lines().filter(|l| l.contains(",failure,")).count(), 2, "{csv}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("every combination failed"));
}

#[test]
fn failed_combinations_are_rows_with_their_error() {
    let path = spec(
        "weights.yaml",
        "operation: plan\ninputs: [EX/nodepools/gpu-training.yaml, EX/workloads/training-job-4gpu.yaml]\ngrid:\n  - {name: weight, target: NodePool/gpu-training, path: spec.weight, values: [10, 1000]}\n",
    );
    let o = run(&["sweep", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let csv = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[1].starts_with("0,base,10,success,,5.672,1,4,1,0,0,0"), "{csv}");
    assert!(lines[2].starts_with("1,base,1000,failure,\""), "{csv}");
    assert!(lines[2].contains("spec.weight"), "{csv}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("2 combinations (plan), 1 failed"));
}

/// A Parquet cell back as the JSON cell it was written from.
fn cell(f: &parquet::record::Field) -> serde_json::Value {
    use parquet::record::Field;
    match f {
        Field::Null => serde_json::Value::Null,
        Field::Bool(b) => (*b).into(),
        Field::Long(i) => (*i).into(),
        Field::Double(x) => (*x).into(),
        Field::Str(s) => s.clone().into(),
        other => panic!("a sweep column of an unexpected type: {other:?}"),
    }
}

#[test]
fn parquet_output_reads_back_as_the_csv_rows_with_numeric_types() {
    use parquet::basic::Type as Physical;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let path = spec(
        "weights-parquet.yaml",
        "operation: plan\ninputs: [EX/nodepools/gpu-training.yaml, EX/workloads/training-job-4gpu.yaml]\ngrid:\n  - {name: weight, target: NodePool/gpu-training, path: spec.weight, values: [10, 1000]}\n",
    );
    let p = path.to_str().unwrap();
    let csv = run(&["sweep", p]);
    assert_eq!(csv.status.code(), Some(0));
    let out = path.with_extension("parquet");
    let o = run(&["sweep", p, "-o", "parquet", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.is_empty());

    let reader = SerializedFileReader::new(std::fs::File::open(&out).unwrap()).unwrap();
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    let columns: Vec<String> = schema.columns().iter().map(|c| c.name().to_string()).collect();
    let physical = |name: &str| schema.columns().iter().find(|c| c.name() == name).unwrap().physical_type();
    assert_eq!(physical("index"), Physical::INT64);
    assert_eq!(physical("weight"), Physical::INT64);
    assert_eq!(physical("price_per_hour_usd"), Physical::DOUBLE);
    assert_eq!(physical("node_claims"), Physical::INT64);
    assert_eq!(physical("status"), Physical::BYTE_ARRAY);
    let rows: Vec<Vec<serde_json::Value>> =
        reader.get_row_iter(None).unwrap().map(|r| r.unwrap().get_column_iter().map(|(_, f)| cell(f)).collect()).collect();
    assert_eq!(rows.len(), 2);
    // The failed combination's metrics are nulls, not zeros.
    let k = columns.iter().position(|c| c == "price_per_hour_usd").unwrap();
    assert!(rows[1][k].is_null(), "{:?}", rows[1]);
    // Every cell is the CSV's: same columns, same numbers, same strings.
    assert_eq!(nodecast::sweep::render_csv(&columns, &rows), String::from_utf8(csv.stdout).unwrap());
    // The same rows give the same bytes.
    let again = path.with_extension("again.parquet");
    assert_eq!(run(&["sweep", p, "-o", "parquet", "--out", again.to_str().unwrap(), "-j", "1"]).status.code(), Some(0));
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());

    // Binary output needs a file.
    let o = run(&["sweep", p, "-o", "parquet"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--out FILE"), "{}", String::from_utf8_lossy(&o.stderr));
}
