use super::*;
use crate::json::{advise, plan, Input, Outcome, Request};
use serde_json::json;

fn advised(req: &Request) -> Advice {
    match advise(req).outcome {
        Outcome::Success(a) => a,
        Outcome::Failure { errors } => panic!("advise failed: {errors:?}"),
    }
}

fn example(path: &str) -> Input {
    let full = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    Input { name: Some(path.into()), text: std::fs::read_to_string(full).expect("example file") }
}

/// Apply an answered advice's edits to the request's objects as a user would (the edit list is
/// the contract, not advise's internal changes) and plan again.
fn replanned(req: &Request, a: &Advised) -> crate::api::Plan {
    let mut docs: Vec<Value> = crate::load::documents(&req.sources()).expect("valid").into_iter().map(|d| d.value.into_owned()).collect();
    for e in &a.edits {
        let found = docs.iter().position(|d| d["kind"] == "NodePool" && d["metadata"]["name"] == e.node_pool.as_str());
        if e.path.is_empty() {
            // A split: the edit's value is the whole new NodePool document, under a new name.
            assert!(found.is_none(), "a split adds a NodePool that does not exist yet");
            assert_eq!(e.value["kind"], "NodePool");
            assert_eq!(e.value["metadata"]["name"], e.node_pool.as_str());
            docs.push(e.value.clone());
            continue;
        }
        let doc = found.expect("the edited NodePool exists");
        let change = if e.path == REQUIREMENTS {
            Change::Require { doc, requirement: e.value.clone() }
        } else {
            Change::Set { doc, path: edit::parse(&e.path).expect("answered paths parse"), value: e.value.clone() }
        };
        change.apply(&mut docs).expect("answered edits apply");
    }
    let again = Request { objects: docs, catalog: req.catalog.clone(), ..Default::default() };
    match plan(&again).outcome {
        Outcome::Success(p) => p,
        Outcome::Failure { errors } => panic!("the advised manifests are refused: {errors:?}"),
    }
}

/// Every answered edit re-plans to the stated price, strictly below Karpenter's, with no new
/// pending pod; the list is ranked and within `top`.
fn check_all(req: &Request, a: &Advice) {
    let base = match plan(req).outcome {
        Outcome::Success(p) => p,
        Outcome::Failure { errors } => panic!("{errors:?}"),
    };
    assert_eq!(a.karpenter_price_per_hour, base.total_price_per_hour);
    assert!(a.advice.len() <= 5);
    assert!(a.stats.candidates <= MAX_CANDIDATES);
    for (i, adv) in a.advice.iter().enumerate() {
        assert_eq!(adv.rank, i + 1);
        let p = replanned(req, adv);
        assert_eq!(summary(&p), adv.plan, "advice {} does not re-plan as stated", adv.title);
        assert!(p.total_price_per_hour < base.total_price_per_hour, "advice {} is not cheaper", adv.title);
        assert!((adv.savings_per_hour - round_price(base.total_price_per_hour - p.total_price_per_hour)).abs() < 1e-9);
        assert!(p.unschedulable.len() <= base.unschedulable.len());
        // Ranked by risk first (docs/advise.md), then by savings within a risk level.
        if i > 0 {
            let prev = &a.advice[i - 1];
            assert!(prev.risk.level <= adv.risk.level, "{} ranked above a less risky edit", prev.title);
            assert!(prev.risk.level < adv.risk.level || adv.savings_per_hour <= prev.savings_per_hour);
        }
        let prefix = if adv.kind == "split" { "--- /dev/null" } else { "--- nodepool/" };
        assert!(adv.diff.starts_with(prefix), "{}", adv.diff);
    }
}

#[test]
fn five_one_gpu_pods_get_a_gpu_count_bound() {
    let req = Request {
        inputs: vec![example("examples/nodepools/gpu-training.yaml"), example("examples/workloads/eval-jobs-1gpu.yaml")],
        ..Default::default()
    };
    let a = advised(&req);
    check_all(&req, &a);
    assert_eq!(a.karpenter_price_per_hour, 16.288);
    assert_eq!(a.optimum_price_per_hour, 6.06);
    let bound = a.advice.iter().find(|x| x.kind == "gpu-count-bound").expect("a GPU-count bound is advised");
    assert_eq!(bound.edits[0].value, json!({"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Lt", "values": ["2"]}));
    assert!(bound.diff.contains("+      - key: karpenter.k8s.aws/instance-gpu-count"), "{}", bound.diff);
    // Determinism: the same bytes twice.
    assert_eq!(advise(&req).to_json(), advise(&req).to_json());
}

#[test]
fn random_gpu_clusters_every_advice_verifies() {
    let mut with_advice = 0;
    for seed in 0..12 {
        let objects = crate::optimize::gen::cluster(seed, 24);
        let req = Request { objects, catalog: Some(crate::optimize::gen::catalog()), ..Default::default() };
        let a = advised(&req);
        check_all(&req, &a);
        with_advice += usize::from(!a.advice.is_empty());
    }
    assert!(with_advice > 0, "no random cluster got any advice");
}

#[test]
fn bad_top_is_a_located_error() {
    let req = Request { advise: Some(AdviseSettings { top: Some(0), ..Default::default() }), ..Default::default() };
    match advise(&req).outcome {
        Outcome::Failure { errors } => assert_eq!(errors[0].path.as_deref(), Some("advise.top")),
        Outcome::Success(_) => panic!("top 0 accepted"),
    }
}

#[test]
fn mixed_gpu_shapes_get_a_split_nodepool() {
    let req = Request {
        inputs: vec![
            example("examples/nodepools/gpu-training.yaml"),
            example("examples/workloads/eval-jobs-1gpu.yaml"),
            example("examples/workloads/training-job-8gpu.yaml"),
        ],
        ..Default::default()
    };
    let a = advised(&req);
    check_all(&req, &a);
    // Karpenter packs the five 1-GPU pods onto a second g5.48xlarge.
    assert_eq!(a.karpenter_price_per_hour, 32.576);
    let split = a.advice.iter().find(|x| x.kind == "split").expect("a split is advised");
    assert_eq!(split.edits.len(), 1);
    let added = &split.edits[0];
    assert_eq!(added.node_pool, "gpu-training-upto-1gpu");
    assert_eq!(added.path, "");
    assert_eq!(added.value["spec"]["weight"], 1);
    let reqs = added.value["spec"]["template"]["spec"]["requirements"].as_array().expect("requirements");
    assert!(reqs.contains(&json!({"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Lt", "values": ["2"]})));
    // The workloads are untouched: the copy keeps the original's taints, no toleration is added.
    assert_eq!(added.value["spec"]["template"]["spec"]["taints"], json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]));
    assert_eq!(split.plan.price_per_hour, 22.348);
    assert_eq!(split.plan.launches, vec!["5 × g5.2xlarge on-demand (gpu-training-upto-1gpu)", "1 × g5.48xlarge on-demand (gpu-training)"]);
    assert!(split.also_changes.iter().any(|c| c.contains("counted apart")), "{:?}", split.also_changes);
    assert!(split.diff.contains("+  name: gpu-training-upto-1gpu"), "{}", split.diff);
    assert!(a.stats.candidates <= a.stats.candidate_limit);
}

#[test]
fn one_gpu_shape_gets_no_split() {
    let req = Request {
        inputs: vec![example("examples/nodepools/gpu-training.yaml"), example("examples/workloads/eval-jobs-1gpu.yaml")],
        ..Default::default()
    };
    assert!(advised(&req).advice.iter().all(|x| x.kind != "split"));
}
