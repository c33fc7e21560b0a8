use super::*;
use serde_json::json;

const TRAINING: &str = include_str!("../../../examples/nodepools/gpu-training.yaml");
const INFERENCE: &str = include_str!("../../../examples/nodepools/gpu-inference.yaml");
const GENERAL: &str = include_str!("../../../examples/nodepools/gpu-general.yaml");
const JOB: &str = include_str!("../../../examples/workloads/training-job-4gpu.yaml");
const VLLM: &str = include_str!("../../../examples/workloads/vllm-inference.yaml");
const DAY: &str = include_str!("../../../examples/simulate/day.yaml");
const HPA: &str = include_str!("../../../examples/simulate/hpa-vllm.yaml");
const HPA_DAY: &str = include_str!("../../../examples/simulate/hpa-day.yaml");
const KEDA: &str = include_str!("../../../examples/simulate/keda-batch.yaml");
const KEDA_QUEUE: &str = include_str!("../../../examples/simulate/keda-queue.yaml");

fn files() -> IndexMap<String, String> {
    [
        ("gpu-training.yaml", TRAINING),
        ("gpu-inference.yaml", INFERENCE),
        ("gpu-general.yaml", GENERAL),
        ("job.yaml", JOB),
        ("vllm.yaml", VLLM),
        ("day.yaml", DAY),
        ("hpa.yaml", HPA),
        ("hpa-day.yaml", HPA_DAY),
        ("keda.yaml", KEDA),
        ("keda-queue.yaml", KEDA_QUEUE),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

fn sweep(spec: Value) -> Result<Sweep, Vec<InputError>> {
    load(&spec.to_string(), Some("sweep.yaml"), &files())
}

fn paths(spec: Value) -> Vec<String> {
    sweep(spec).unwrap_err().iter().map(|e| format!("{}: {}", e.path.clone().unwrap_or_default(), e.code)).collect()
}

const FAMILY: &str = "spec.template.spec.requirements[key=karpenter.k8s.aws/instance-gpu-name].values";

fn plan_spec() -> Value {
    json!({
        "apiVersion": "nodecast/v1", "kind": "Sweep", "operation": "plan",
        "inputs": ["gpu-general.yaml", "gpu-training.yaml", "job.yaml"],
        "grid": [
            {"name": "gpu_names", "target": "NodePool/gpu-training", "path": FAMILY, "values": [["a100", "h100", "a10g"], ["a100"], ["h100"]]},
            {"name": "capacity", "target": "NodePool/gpu-training",
             "path": "spec.template.spec.requirements[key=karpenter.sh/capacity-type].values", "values": [["on-demand"], ["spot", "on-demand"]]}
        ]
    })
}

#[test]
fn the_grid_expands_variant_first_and_last_dimension_fastest() {
    let s = sweep(plan_spec()).unwrap();
    assert_eq!(s.len(), 6);
    assert_eq!(&s.columns()[..6], ["index", "variant", "gpu_names", "capacity", "status", "error"]);
    let p: Vec<Value> = (0..6).map(|i| s.parameters(i)[3].clone()).collect();
    let want: Vec<Value> = [json!("[\"on-demand\"]"), json!("[\"spot\",\"on-demand\"]")].iter().cycle().take(6).cloned().collect();
    assert_eq!(p, want);
    assert_eq!(s.parameters(5)[2], json!("[\"h100\"]"));
    assert_eq!(s.parameters(5)[1], json!("base"));
}

#[test]
fn edits_change_the_answer_and_untouched_inputs_stay_byte_identical() {
    let s = sweep(plan_spec()).unwrap();
    let req = s.request(0).unwrap();
    assert_eq!(req.inputs[0].text, GENERAL, "an input no edit touches is passed unchanged");
    assert_eq!(req.inputs[2].text, JOB);
    let type_of = |i: usize| {
        let (row, answer) = s.run(i, true);
        assert_eq!(row[4], "success", "{row:?}");
        let a: Value = serde_json::from_str(&answer.unwrap()).unwrap();
        a["nodeClaims"][0]["instanceType"].as_str().unwrap().to_string()
    };
    assert_eq!(type_of(0), "g5.12xlarge");
    assert!(type_of(2).starts_with("p4d"), "a100 only: {}", type_of(2));
    assert!(type_of(4).starts_with("p5"), "h100 only: {}", type_of(4));
    // The base combination is exactly `plan` on the base files.
    let direct = crate::plan(&Request {
        inputs: ["gpu-general.yaml", "gpu-training.yaml", "job.yaml"]
            .iter()
            .map(|f| Input { name: Some(f.to_string()), text: files()[*f].clone() })
            .collect(),
        ..Default::default()
    });
    let mut plain = plan_spec();
    plain.as_object_mut().unwrap().remove("grid");
    let one = sweep(plain).unwrap();
    assert_eq!(one.run(0, true).1.unwrap(), direct.to_json());
}

#[test]
fn a_value_the_api_server_would_refuse_is_a_failed_row_not_a_lost_sweep() {
    let spec = json!({
        "operation": "plan", "inputs": ["gpu-training.yaml", "job.yaml"],
        "grid": [{"name": "weight", "target": "NodePool/gpu-training", "path": "spec.weight", "values": [10, 1000]}]
    });
    let s = sweep(spec).unwrap();
    let (ok, _) = s.run(0, false);
    let (bad, _) = s.run(1, false);
    assert_eq!(ok[3], "success");
    assert_eq!(bad[3], "failure");
    let msg = bad[4].as_str().unwrap();
    assert!(msg.contains("spec.weight") && msg.contains("gpu-training.yaml"), "{msg}");
    assert!(bad[5..].iter().all(Value::is_null));
}

#[test]
fn spec_errors_are_located() {
    let mut s = plan_spec();
    s["grid"][0]["path"] = json!("spec.template..requirements");
    s["grid"][1]["target"] = json!("NodePool/nope");
    s["frobnicate"] = json!(1);
    let errs = paths(s);
    assert!(errs.contains(&"grid[0].path: invalid-path".to_string()), "{errs:?}");
    assert!(errs.contains(&"frobnicate: unknown-field".to_string()), "{errs:?}");

    let mut s = plan_spec();
    s["grid"][1]["target"] = json!("NodePool/nope");
    assert_eq!(paths(s), ["grid[1].target: invalid-edit"]);

    let mut s = plan_spec();
    s["grid"][0]["path"] = json!("spec.template.spec.requirements[key=nope].values");
    assert_eq!(paths(s), ["grid[0].values[0]: invalid-edit", "grid[0].values[1]: invalid-edit", "grid[0].values[2]: invalid-edit"]);

    let mut s = plan_spec();
    s["grid"][0]["values"] = json!([]);
    s["grid"][1]["name"] = json!("cost_usd");
    s["traces"] = json!(["day.yaml"]);
    let errs = paths(s);
    for want in ["grid[0].values: required", "grid[1].name: reserved-name", "traces: not-allowed"] {
        assert!(errs.contains(&want.to_string()), "{want} not in {errs:?}");
    }
    let e = sweep(json!({"operation": "simulate", "inputs": ["missing.yaml"], "traces": ["day.yaml"], "seeds": [1, 1]})).unwrap_err();
    let codes: Vec<_> = e.iter().map(|e| (e.path.clone().unwrap_or_default(), e.code.clone())).collect();
    assert!(codes.contains(&("inputs[0]".into(), "file-not-read".into())), "{codes:?}");
    assert!(codes.contains(&("seeds".into(), "duplicate".into())), "{codes:?}");
    assert!(e.iter().all(|e| e.source.as_deref() == Some("sweep.yaml")));
    let e = sweep(json!({"operation": "consolidate", "inputs": ["gpu-training.yaml"]})).unwrap_err();
    assert_eq!(e[0].path.as_deref(), Some("now"));
    let e = sweep(json!({"operation": "simulate", "inputs": ["gpu-training.yaml"], "traces": ["day.yaml"],
        "grid": [{"target": "simulation", "path": "spotInterruptionRatePerHour", "values": [0.01, -1]}]}))
    .unwrap_err();
    assert_eq!(e[0].path.as_deref(), Some("grid[0].values[1]"), "{e:?}");
}

#[test]
fn combinations_are_bounded_before_anything_is_built() {
    let values: Vec<i64> = (0..1000).collect();
    let spec = json!({"operation": "plan", "inputs": ["gpu-training.yaml"], "grid": [
        {"name": "a", "target": "NodePool/gpu-training", "path": "spec.weight", "values": values},
        {"name": "b", "target": "NodePool/gpu-training", "path": "spec.weight", "values": values},
        {"name": "c", "target": "NodePool/gpu-training", "path": "spec.weight", "values": [1, 2]}]});
    assert!(paths(spec).contains(&"grid: too-many-combinations".to_string()));
}

#[test]
fn simulate_sweeps_vary_trace_and_seed_and_match_plain_simulate() {
    let spec = json!({
        "operation": "simulate",
        "inputs": ["gpu-training.yaml", "gpu-inference.yaml", "job.yaml", "vllm.yaml"],
        "traces": ["day.yaml"], "seeds": {"from": 7, "count": 2},
        "simulation": {"spotInterruptionRatePerHour": 0.01},
        "variants": [
            {"name": "as-is"},
            {"name": "fast-consolidation", "edits": [{"target": "NodePool/gpu-training", "path": "spec.disruption.consolidateAfter", "value": "1m"}]}
        ]
    });
    let s = sweep(spec).unwrap();
    assert_eq!(s.len(), 4);
    let cols = s.columns();
    let at = |name: &str| cols.iter().position(|c| c == name).unwrap();
    let rows: Vec<Vec<Value>> = (0..4).map(|i| s.run(i, false).0).collect();
    assert_eq!(rows.iter().map(|r| r[at("seed")].as_u64().unwrap()).collect::<Vec<_>>(), [7, 8, 7, 8]);
    assert!(rows.iter().all(|r| r[at("status")] == "success" && r[at("trace")] == "day.yaml"));
    // Shorter consolidateAfter: less money on empty nodes.
    assert!(rows[2][at("empty_node_cost_usd")].as_f64() < rows[0][at("empty_node_cost_usd")].as_f64(), "{rows:?}");
    let direct = crate::simulate(&Request {
        inputs: ["gpu-training.yaml", "gpu-inference.yaml", "job.yaml", "vllm.yaml"]
            .iter()
            .map(|f| Input { name: Some(f.to_string()), text: files()[*f].clone() })
            .collect(),
        trace: Some(crate::simulate::TraceInput { name: Some("day.yaml".into()), text: DAY.into(), format: None }),
        simulation: Some(SimSettings { seed: 8, spot_interruption_rate_per_hour: 0.01, ..Default::default() }),
        ..Default::default()
    });
    assert_eq!(s.run(1, true).1.unwrap(), direct.to_json());
    let crate::json::Outcome::Success(sim) = &direct.outcome else { panic!() };
    assert_eq!(rows[1][at("cost_usd")], json!(sim.summary.cost_usd));
    assert_eq!(rows[1][at("pending_p95_s")], json!(sim.summary.pending_seconds.p95));
}

#[test]
fn variant_manifests_replace_documents_by_identity() {
    let only_a100 = TRAINING.replace("values: [\"a100\", \"h100\", \"a10g\"]", "values: [\"a100\"]");
    assert_ne!(only_a100, TRAINING, "the example's requirement line changed; update this test");
    let spec = json!({"operation": "plan", "inputs": ["gpu-training.yaml", "job.yaml"],
        "variants": [{"name": "base"}, {"name": "a100", "inputs": [{"name": "a100.yaml", "text": only_a100}]}]});
    let s = sweep(spec).unwrap();
    let req = s.request(1).unwrap();
    assert_eq!(req.inputs.len(), 2, "the replacing document took the base one's place");
    let (row, answer) = s.run(1, true);
    assert_eq!(row[2], "success");
    assert!(answer.unwrap().contains("p4d."));
}

#[test]
fn the_json_entry_points_agree_with_the_library() {
    let text = plan_spec().to_string();
    let files = files();
    let listed = call("sweep-files", &json!({"text": text}).to_string());
    let v: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(v["files"], json!(["gpu-general.yaml", "gpu-training.yaml", "job.yaml"]));
    let expanded: Value = serde_json::from_str(&call("sweep-expand", &json!({"text": text, "files": files}).to_string())).unwrap();
    assert_eq!(expanded["count"], 6);
    let run = call("sweep-run", &json!({"text": text, "files": files, "indices": [4, 1]}).to_string());
    let s = sweep(plan_spec()).unwrap();
    assert_eq!(rows_of(&run).unwrap(), vec![s.run(4, false).0, s.run(1, false).0]);
    let bad = call("sweep-run", &json!({"text": text, "files": files, "indices": [6]}).to_string());
    assert!(bad.contains("combination 6 does not exist"), "{bad}");
    let csv = call("sweep-csv", &json!({"columns": ["a", "b"], "rows": [[1.5, "x,y"], [null, "say \"hi\""]]}).to_string());
    assert_eq!(csv, "a,b\n1.5,\"x,y\"\n,\"say \"\"hi\"\"\"\n");
}

#[test]
fn consolidate_sweeps_give_one_decision_per_combination() {
    let mut files = files();
    files.insert("pool.yaml".into(), include_str!("../../../examples/disruption/pool-underutilized.yaml").into());
    files.insert("state.yaml".into(), include_str!("../../../examples/disruption/cluster-state.yaml").into());
    let spec = json!({"operation": "consolidate", "inputs": ["pool.yaml", "state.yaml"], "now": "2025-03-05T12:00:00Z",
        "grid": [{"name": "policy", "target": "NodePool/gpu-training", "path": "spec.disruption.consolidationPolicy",
                  "values": ["WhenEmptyOrUnderutilized", "WhenEmpty"]}]});
    let s = load(&spec.to_string(), None, &files).unwrap();
    assert_eq!(&s.columns()[..5], ["index", "variant", "policy", "status", "error"]);
    let (replace, _) = s.run(0, false);
    let (none, _) = s.run(1, false);
    assert_eq!((&replace[5], &replace[6]), (&json!("replace"), &json!("underutilized")), "{replace:?}");
    assert!(replace[10].as_f64().unwrap() > 0.0, "a replacement saves money: {replace:?}");
    assert_eq!(none[5], "none");
    assert_eq!(none[10], 0.0);
}

#[test]
fn a_huge_combination_count_is_printed_exactly() {
    // 2^70 combinations: before, the count saturated and printed as 18446744073709551615.
    let values: Vec<i64> = (0..1024).collect();
    let axes: Vec<Value> = (0..7)
        .map(|k| json!({"name": format!("a{k}"), "target": "NodePool/gpu-training", "path": "spec.weight", "values": values}))
        .collect();
    let e = sweep(json!({"operation": "plan", "inputs": ["gpu-training.yaml"], "grid": axes})).unwrap_err();
    let e = e.iter().find(|e| e.code == "too-many-combinations").expect("refused");
    assert!(e.message.contains(&(1u128 << 70).to_string()), "{}", e.message);
}

#[test]
fn a_grid_path_of_thousands_of_segments_is_refused_not_a_stack_overflow() {
    let path = vec!["spec"; 30_000].join(".");
    let e = sweep(json!({"operation": "plan", "inputs": ["gpu-training.yaml"], "grid": [
        {"target": "NodePool/gpu-training", "path": path, "values": [1]}]}))
    .unwrap_err();
    assert_eq!(e[0].path.as_deref(), Some("grid[0].path"), "{e:?}");
    assert!(e[0].message.contains("more than 100 segments"), "{}", e[0].message);
}

/// The JSON type of a cell, as a typed table sees it: bool, integer, float, or text.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "float",
        _ => "text",
    }
}

/// Every non-null cell of `row` has a type one of its column's samples has: a typed writer that
/// fixed its columns from `column_samples` can write the row.
fn assert_conforms(s: &Sweep, row: &[Value]) {
    let samples = s.column_samples();
    assert_eq!(samples.len(), s.columns().len());
    for (k, cell) in row.iter().enumerate().filter(|(_, c)| !c.is_null()) {
        let types: Vec<&str> = samples[k].iter().map(json_type).collect();
        assert!(types.contains(&json_type(cell)), "column {} cell {cell} is not among {types:?}", s.columns()[k]);
    }
}

#[test]
fn metric_cells_have_the_sample_types() {
    let plan = sweep(plan_spec()).unwrap();
    let row = plan.run(0, false).0;
    assert_eq!(row[4], "success");
    assert_conforms(&plan, &row);
    let sim = sweep(json!({"operation": "simulate", "inputs": ["gpu-training.yaml", "gpu-inference.yaml", "job.yaml", "vllm.yaml"], "traces": ["day.yaml"],
        "seeds": [18446744073709551615u64]}))
    .unwrap();
    let row = sim.run(0, false).0;
    assert_eq!(row[sim.columns().iter().position(|c| c == "status").unwrap()], "success", "{row:?}");
    assert_eq!(row[3], json!(u64::MAX), "the seed stays exact");
    assert_conforms(&sim, &row);
    let mut files = files();
    files.insert("pool.yaml".into(), include_str!("../../../examples/disruption/pool-underutilized.yaml").into());
    files.insert("state.yaml".into(), include_str!("../../../examples/disruption/cluster-state.yaml").into());
    let spec = json!({"operation": "consolidate", "inputs": ["pool.yaml", "state.yaml"], "now": "2025-03-05T12:00:00Z"});
    let con = load(&spec.to_string(), None, &files).unwrap();
    let row = con.run(0, false).0;
    assert_eq!(row[2], "success");
    assert_conforms(&con, &row);
}

const EU_ON_DEMAND: &str = include_str!("../../../examples/prices/eu-west-1-on-demand.yaml");
const EU_SPOT: &str = include_str!("../../../examples/prices/eu-west-1-spot-price-history.json");
const US_SPOT: &str = include_str!("../../../examples/prices/us-east-1-spot-price-history.json");

fn region_files() -> IndexMap<String, String> {
    let mut f = files();
    for (k, v) in [("eu-od.yaml", EU_ON_DEMAND), ("eu-spot.json", EU_SPOT), ("us-spot.json", US_SPOT)] {
        f.insert(k.to_string(), v.to_string());
    }
    f
}

fn region_spec() -> Value {
    json!({
        "operation": "plan",
        "inputs": ["gpu-inference.yaml", "vllm.yaml"],
        "catalog": [
            {"catalog": "aws-us-east-1", "inputs": ["us-spot.json"]},
            {"catalog": "aws-eu-west-1", "label": "eu-west-1", "inputs": ["eu-od.yaml", "eu-spot.json"]},
            "aws-us-gov-west-1"
        ],
        "grid": [{"name": "capacity", "target": "NodePool/gpu-inference",
                  "path": "spec.template.spec.requirements[key=karpenter.sh/capacity-type].values", "values": [["spot"], ["on-demand"]]}]
    })
}

/// One plan of the same request a user would make for one region.
fn plan_price(catalog: &str, inputs: &[(&str, &str)], capacity: &str) -> f64 {
    let mut req = Request { catalog: Some(json!(catalog)), ..Default::default() };
    for (name, text) in inputs {
        let text = if *name == "gpu-inference.yaml" {
            assert!(text.contains("values: [\"spot\", \"on-demand\"]"));
            text.replace("values: [\"spot\", \"on-demand\"]", &format!("values: [\"{capacity}\"]"))
        } else {
            text.to_string()
        };
        req.inputs.push(Input { name: Some(name.to_string()), text });
    }
    match crate::plan(&req).outcome {
        crate::json::Outcome::Success(p) => p.total_price_per_hour,
        other => panic!("{catalog}: {other:?}"),
    }
}

#[test]
fn a_catalog_list_is_an_axis_and_each_row_is_planned_on_its_region_with_its_own_documents() {
    let s = load(&region_spec().to_string(), Some("sweep.yaml"), &region_files()).unwrap();
    assert_eq!(s.len(), 6);
    assert_eq!(&s.columns()[..6], ["index", "variant", "catalog", "capacity", "status", "error"]);
    let cells: Vec<Value> = (0..6).map(|i| s.parameters(i)[2].clone()).collect();
    assert_eq!(
        cells,
        [
            json!("aws-us-east-1"),
            json!("aws-us-east-1"),
            json!("eu-west-1"),
            json!("eu-west-1"),
            json!("aws-us-gov-west-1"),
            json!("aws-us-gov-west-1")
        ]
    );
    // Only the eu-west-1 rows get the eu-west-1 documents (elsewhere they are invalid-region).
    let names = |i: usize| s.request(i).unwrap().inputs.iter().map(|x| x.name.clone().unwrap()).collect::<Vec<_>>();
    assert_eq!(names(0), ["gpu-inference.yaml", "vllm.yaml", "us-spot.json"]);
    assert_eq!(names(2), ["gpu-inference.yaml", "vllm.yaml", "eu-od.yaml", "eu-spot.json"]);
    assert_eq!(names(4), ["gpu-inference.yaml", "vllm.yaml"]);
    assert_eq!(s.request(3).unwrap().catalog, Some(json!("aws-eu-west-1")));
    let price = s.columns().iter().position(|c| c == "price_per_hour_usd").unwrap();
    let rows: Vec<Vec<Value>> = (0..6).map(|i| s.run(i, false).0).collect();
    for r in &rows {
        assert_eq!(r[4], "success", "{r:?}");
    }
    // Every row's price is what plan gives for that region alone.
    let base = [("gpu-inference.yaml", INFERENCE), ("vllm.yaml", VLLM)];
    let with = |extra: &[(&'static str, &'static str)]| base.iter().chain(extra).copied().collect::<Vec<_>>();
    let expect = [
        plan_price("aws-us-east-1", &with(&[("us-spot.json", US_SPOT)]), "spot"),
        plan_price("aws-us-east-1", &with(&[("us-spot.json", US_SPOT)]), "on-demand"),
        plan_price("aws-eu-west-1", &with(&[("eu-od.yaml", EU_ON_DEMAND), ("eu-spot.json", EU_SPOT)]), "spot"),
        plan_price("aws-eu-west-1", &with(&[("eu-od.yaml", EU_ON_DEMAND), ("eu-spot.json", EU_SPOT)]), "on-demand"),
        plan_price("aws-us-gov-west-1", &base, "spot"),
        plan_price("aws-us-gov-west-1", &base, "on-demand"),
    ];
    for (r, e) in rows.iter().zip(expect) {
        assert_eq!(r[price].as_f64().unwrap(), e, "{r:?}");
    }
    // The regions price differently: the axis is not one catalog repeated.
    assert_ne!(rows[1][price], rows[3][price]);
    assert_ne!(rows[1][price], rows[5][price]);
    // Parquet's column types see the catalog cells.
    assert_eq!(s.column_samples()[2], [json!("aws-us-east-1"), json!("eu-west-1"), json!("aws-us-gov-west-1")]);
}

#[test]
fn a_region_without_its_prices_fails_its_rows_only() {
    let mut spec = region_spec();
    spec["catalog"] = json!(["aws-us-east-1", "aws-eu-west-1"]);
    let s = load(&spec.to_string(), Some("sweep.yaml"), &region_files()).unwrap();
    let rows: Vec<Vec<Value>> = (0..4).map(|i| s.run(i, false).0).collect();
    assert_eq!(rows.iter().map(|r| r[4].clone()).collect::<Vec<_>>(), ["success", "success", "failure", "failure"]);
    assert!(rows[2][5].as_str().unwrap().contains("no embedded price table for eu-west-1"), "{:?}", rows[2][5]);
}

#[test]
fn catalog_axis_errors_are_located_before_anything_runs() {
    let mut spec = region_spec();
    spec["catalog"] = json!(["aws-us-east-1", "aws-mars", {"catalog": "aws-us-east-1", "lable": "x"}, 7, {"source": "aws-us-east-1", "zones": ["eu-west-1a"]}]);
    let errs = load(&spec.to_string(), Some("sweep.yaml"), &region_files()).unwrap_err();
    let got: Vec<String> = errs.iter().map(|e| format!("{}: {}", e.path.clone().unwrap_or_default(), e.code)).collect();
    assert!(got.contains(&"catalog[2].lable: unknown-field".to_string()), "{got:?}");
    assert!(got.contains(&"catalog[3]: wrong-type".to_string()), "{got:?}");
    assert!(got.contains(&"catalog[2]: duplicate".to_string()), "{got:?}");
    assert!(errs.iter().all(|e| e.object.as_deref() == Some("Sweep") && e.source.as_deref() == Some("sweep.yaml")), "{errs:?}");
    // With the spec's own fields right, the catalogs are built: an unknown one is located.
    spec["catalog"] = json!(["aws-us-east-1", "aws-mars", {"source": "aws-us-gov-west-1", "zones": ["eu-west-1a"]}]);
    let got: Vec<String> = load(&spec.to_string(), Some("sweep.yaml"), &region_files())
        .unwrap_err()
        .iter()
        .map(|e| format!("{}: {}", e.path.clone().unwrap_or_default(), e.code))
        .collect();
    assert!(got.contains(&"catalog[1]: unknown-catalog".to_string()), "{got:?}");
    assert!(got.iter().any(|g| g.starts_with("catalog[2].zones")), "{got:?}");
    // An empty axis, a grid column named catalog.
    spec["catalog"] = json!([]);
    assert!(paths(spec.clone()).contains(&"catalog: required".to_string()));
    // A list longer than the bound is refused before any catalog is built.
    let many: Vec<Value> = (0..=super::spec::MAX_CATALOGS).map(|i| json!({"catalog": "aws-us-east-1", "label": format!("c{i}")})).collect();
    spec["catalog"] = Value::Array(many);
    assert!(paths(spec.clone()).contains(&"catalog: too-many-catalogs".to_string()));
    spec["catalog"] = json!(["aws-us-east-1"]);
    spec["grid"][0]["name"] = json!("catalog");
    assert!(paths(spec).contains(&"grid[0].name: reserved-name".to_string()));
}

#[test]
fn the_catalog_axis_files_are_referenced_and_a_single_catalog_adds_no_column() {
    let text = region_spec().to_string();
    let files = referenced_files(&text, None).unwrap();
    assert_eq!(files, ["gpu-inference.yaml", "vllm.yaml", "us-spot.json", "eu-od.yaml", "eu-spot.json"]);
    let mut spec = region_spec();
    spec["catalog"] = json!("aws-us-gov-west-1");
    let s = sweep(spec).unwrap();
    assert_eq!(&s.columns()[..3], ["index", "variant", "capacity"]);
    assert_eq!(s.request(0).unwrap().catalog, Some(json!("aws-us-gov-west-1")));
}

/// The cell of column `name` in `row`.
fn cell<'a>(s: &Sweep, row: &'a [Value], name: &str) -> &'a Value {
    &row[s.columns().iter().position(|c| c == name).unwrap_or_else(|| panic!("no column {name}"))]
}

#[test]
fn a_grid_over_hpa_settings_changes_the_autoscaling_metrics() {
    let s = sweep(json!({"operation": "simulate", "inputs": ["gpu-inference.yaml", "vllm.yaml", "hpa.yaml"], "traces": ["hpa-day.yaml"], "seeds": [7],
        "grid": [
            {"name": "max_replicas", "target": "HorizontalPodAutoscaler/inference/vllm-mistral-7b", "path": "spec.maxReplicas", "values": [3, 10]},
            {"name": "target", "target": "HorizontalPodAutoscaler/inference/vllm-mistral-7b", "path": "spec.metrics[0].pods.target.averageValue", "values": ["70", "95"]}
        ]}))
    .unwrap();
    assert_eq!(s.len(), 4);
    let rows: Vec<Vec<Value>> = (0..4).map(|i| s.run(i, false).0).collect();
    for row in &rows {
        assert_eq!(cell(&s, row, "status"), "success", "{row:?}");
        assert_eq!(cell(&s, row, "autoscaled_workloads"), 1);
        assert_conforms(&s, row);
    }
    let served = |i: usize| cell(&s, &rows[i], "served_percent").as_f64().unwrap();
    let unserved = |i: usize| cell(&s, &rows[i], "unserved_unit_hours").as_f64().unwrap();
    // At most 3 replicas serve 300 of a 560 peak: less is served than with 10, and more is missing.
    assert!(served(0) < served(2) && unserved(0) > unserved(2), "{} vs {}", served(0), served(2));
    // A higher target per pod runs fewer replicas: fewer replica-hours, less GPU cost.
    let hours = |i: usize| cell(&s, &rows[i], "autoscaled_replica_hours").as_f64().unwrap();
    assert!(hours(3) < hours(2), "{} vs {}", hours(3), hours(2));
    assert!(cell(&s, &rows[2], "scale_up_max_s").is_i64());
    // The cells are the answer's own rows, summed.
    let answer = match crate::simulate(&s.request(2).unwrap()).outcome {
        crate::json::Outcome::Success(sim) => sim,
        crate::json::Outcome::Failure { errors } => panic!("{errors:?}"),
    };
    // From the rounded unit-hours: within a tenth of the row's own percent.
    assert!(
        (served(2) - answer.autoscaling[0].served_percent.unwrap()).abs() <= 0.1,
        "{} vs {:?}",
        served(2),
        answer.autoscaling[0].served_percent
    );
    assert_eq!(cell(&s, &rows[2], "seconds_short"), &json!(answer.autoscaling[0].seconds_short.unwrap()));
}

#[test]
fn a_grid_over_keda_settings_and_a_simulation_without_autoscaling() {
    let s =
        sweep(json!({"operation": "simulate", "inputs": ["gpu-training.yaml", "keda.yaml"], "traces": ["keda-queue.yaml"], "seeds": [7],
        "grid": [{"name": "polling", "target": "ScaledJob/ml/embed-batches", "path": "spec.pollingInterval", "values": [30, 600, 0]}]}))
        .unwrap();
    let rows: Vec<Vec<Value>> = (0..3).map(|i| s.run(i, false).0).collect();
    assert_eq!(cell(&s, &rows[0], "status"), "success", "{:?}", rows[0]);
    assert_eq!(cell(&s, &rows[0], "autoscaled_workloads"), 1);
    // A ScaledJob has no capacityPerReplica: nothing served or short to report.
    assert!(cell(&s, &rows[0], "served_percent").is_null() && cell(&s, &rows[0], "seconds_short").is_null());
    assert_ne!(cell(&s, &rows[0], "autoscaled_replica_hours"), cell(&s, &rows[1], "autoscaled_replica_hours"));
    // pollingInterval 0 is refused as KEDA's CRD refuses it: that row fails, located.
    assert_eq!(cell(&s, &rows[2], "status"), "failure");
    assert!(cell(&s, &rows[2], "error").as_str().unwrap().contains("pollingInterval"), "{:?}", rows[2]);
    // Without autoscaling the row says 0 workloads and nothing else.
    let plain = sweep(json!({"operation": "simulate", "inputs": ["gpu-training.yaml", "gpu-inference.yaml", "job.yaml", "vllm.yaml"], "traces": ["day.yaml"], "seeds": [7]})).unwrap();
    let row = plain.run(0, false).0;
    assert_eq!(cell(&plain, &row, "autoscaled_workloads"), 0);
    assert!(cell(&plain, &row, "served_percent").is_null() && cell(&plain, &row, "scale_up_max_s").is_null());
}
