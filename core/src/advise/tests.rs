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
        if let Some(class) = &e.node_class {
            // An EC2NodeClass edit: the value is the whole field at the path.
            assert!(e.node_pool.is_empty());
            let doc =
                docs.iter().position(|d| d["kind"] == "EC2NodeClass" && d["metadata"]["name"] == class.as_str()).expect("the class exists");
            let change = Change::Set { doc, path: edit::parse(&e.path).expect("answered paths parse"), value: e.value.clone() };
            change.apply(&mut docs).expect("answered edits apply");
            continue;
        }
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
    let again = Request { objects: docs, catalog: req.catalog.clone(), now: req.now.clone(), ..Default::default() };
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
        let prefix = match adv.kind.as_str() {
            "split" => "--- /dev/null",
            "select-reservation" => "--- ec2nodeclass/",
            _ => "--- nodepool/",
        };
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

/// Issue 29: `timeBudgetSeconds` bounds the whole call, not only its `optimize`: with a clock
/// lent that reads 1 s further at every look, a 4 s budget verifies a few edits and answers
/// the best of those, saying how many were left; without a clock every edit is verified.
#[test]
fn the_time_budget_bounds_the_whole_call_with_an_honest_partial_answer() {
    let mut req = Request {
        inputs: vec![
            example("examples/nodepools/gpu-training.yaml"),
            example("examples/workloads/eval-jobs-1gpu.yaml"),
            example("examples/workloads/training-job-8gpu.yaml"),
        ],
        ..Default::default()
    };
    req.advise = Some(AdviseSettings { time_budget_seconds: Some(4.0), ..Default::default() });
    let whole = advised(&req);
    assert_eq!(whole.stats.unverified, 0, "no clock: only the optimize half binds");
    assert!(whole.stats.candidates > 4);
    let mut t = 0.0;
    let clock = move || {
        t += 1.0;
        t
    };
    let answer = crate::interrupt::with_clock(clock, || advise(&req));
    let Outcome::Success(part) = &answer.outcome else { panic!("{}", answer.to_json()) };
    let verified = part.stats.cheaper + part.stats.not_cheaper + part.stats.invalid + part.stats.leave_pods_pending + part.stats.duplicates;
    assert!(part.stats.unverified > 0 && verified < whole.stats.candidates, "{:?}", part.stats);
    // The optimize half reads the same clock now (its budget bounds its whole call, issue 35),
    // so with a clock this fast it may stop sooner and list fewer candidates, never more.
    assert!(part.stats.candidates > 0 && part.stats.candidates <= whole.stats.candidates, "{:?} vs {:?}", part.stats, whole.stats);
    assert!(part.notes.iter().any(|n| n.contains("time budget") && n.contains("unverified")), "{:?}", part.notes);
    assert!(answer.to_json().contains("\"unverified\""));
    assert!(!advise(&req).to_json().contains("\"unverified\""), "absent when every edit was verified");
    // Every edit answered is still verified.
    check_all(&req, part);
}

#[test]
fn a_bad_time_budget_is_located_at_advise() {
    for bad in [0.0, -1.0, 3601.0, f64::NAN] {
        let req = Request { advise: Some(AdviseSettings { time_budget_seconds: Some(bad), ..Default::default() }), ..Default::default() };
        match advise(&req).outcome {
            Outcome::Failure { errors } => assert_eq!(errors[0].path.as_deref(), Some("advise.timeBudgetSeconds"), "{bad}"),
            Outcome::Success(_) => panic!("timeBudgetSeconds {bad} accepted"),
        }
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
    assert_eq!(
        added.value["spec"]["template"]["spec"]["taints"],
        json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}])
    );
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

/// One 8-GPU training pod, an on-demand-only p5 NodePool of EC2NodeClass `gpu` (with `terms`
/// as its capacityReservationSelectorTerms), and one idle p5.48xlarge capacity block.
fn idle_block(terms: &str) -> Request {
    let cluster = format!(
        r#"apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {{name: gpu}}
spec:
  amiSelectorTerms: [{{alias: al2023@latest}}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{{tags: {{karpenter.sh/discovery: ml}}}}]
  securityGroupSelectorTerms: [{{tags: {{karpenter.sh/discovery: ml}}}}]
{terms}---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: p5}}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}}
      requirements:
      - {{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}}
      - {{key: node.kubernetes.io/instance-type, operator: In, values: [p5.48xlarge]}}
---
apiVersion: batch/v1
kind: Job
metadata: {{name: train, namespace: ml}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {{name: t, image: t, resources: {{requests: {{cpu: "150", memory: 1500Gi}}, limits: {{nvidia.com/gpu: "8"}}}}}}
"#
    );
    let reservations = r#"{"CapacityReservations": [{"CapacityReservationId": "cr-0000000000000001", "OwnerId": "123456789012",
        "InstanceType": "p5.48xlarge", "AvailabilityZone": "us-east-1a", "TotalInstanceCount": 1, "AvailableInstanceCount": 1,
        "State": "active", "InstanceMatchCriteria": "targeted", "ReservationType": "capacity-block",
        "EndDate": "2026-12-08T11:30:00+00:00", "Tags": [{"Key": "team", "Value": "ml"}]}]}"#;
    Request {
        inputs: vec![
            Input { name: Some("cluster.yaml".into()), text: cluster },
            Input { name: Some("reservations.json".into()), text: reservations.into() },
        ],
        now: Some("2026-12-01T12:00:00Z".into()),
        ..Default::default()
    }
}

#[test]
fn an_idle_selected_reservation_gets_reserved_allowed() {
    let req = idle_block("  capacityReservationSelectorTerms: [{tags: {team: ml}}]\n");
    let a = advised(&req);
    check_all(&req, &a);
    let adv = a.advice.iter().find(|x| x.kind == "allow-reserved").expect("allow-reserved is advised");
    assert_eq!(adv.edits.len(), 1);
    assert_eq!(adv.edits[0].node_pool, "p5");
    assert_eq!(adv.edits[0].value, json!({"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["reserved", "on-demand"]}));
    assert_eq!(adv.plan.launches, vec!["1 × p5.48xlarge reserved (p5)"]);
    assert!(adv.savings_per_hour > 50.0, "{adv:?}");
    // A capacity block ends: the pod newly in it is a risk to weigh.
    assert_eq!(adv.risk.level, RiskLevel::Medium);
    assert!(adv.risk.reasons[0].contains("capacity block cr-0000000000000001 (ends 2026-12-08T11:30:00Z)"), "{:?}", adv.risk);
    let patch = adv.patch.as_deref().expect("a patch of cluster.yaml");
    assert!(patch.contains("+      - {key: karpenter.sh/capacity-type, operator: In, values: [\"reserved\", \"on-demand\"]}"), "{patch}");
    // At 11:00 on the block's last day it is expiring: nothing idle to offer.
    let mut late = req.clone();
    late.now = Some("2026-12-08T11:00:00Z".into());
    assert!(advised(&late).advice.iter().all(|x| x.kind != "allow-reserved"));
}

#[test]
fn an_unselected_active_reservation_gets_a_selector_term() {
    let req = idle_block("");
    let a = advised(&req);
    check_all(&req, &a);
    let adv = a.advice.iter().find(|x| x.kind == "select-reservation").expect("select-reservation is advised");
    // The term, and reserved allowed in the NodePool (the term alone launches nothing there).
    assert_eq!(adv.edits.len(), 2, "{:?}", adv.edits);
    assert_eq!(adv.edits[0].node_class.as_deref(), Some("gpu"));
    assert_eq!(adv.edits[0].path, "spec.capacityReservationSelectorTerms");
    assert_eq!(adv.edits[0].value, json!([{"id": "cr-0000000000000001"}]));
    assert_eq!(adv.edits[1].node_pool, "p5");
    assert_eq!(adv.plan.launches, vec!["1 × p5.48xlarge reserved (p5)"]);
    let patch = adv.patch.as_deref().expect("a patch of cluster.yaml");
    assert!(patch.contains("+  capacityReservationSelectorTerms:\n+  - id: \"cr-0000000000000001\""), "{patch}");
    assert!(adv.diff.contains("ec2nodeclass/gpu (advised)") && adv.diff.contains("nodepool/p5 (advised)"), "{}", adv.diff);
    // A reservation that is not active is never proposed.
    let mut cancelled = req.clone();
    cancelled.inputs[1].text = cancelled.inputs[1].text.replace("\"active\"", "\"cancelled\"");
    assert!(advised(&cancelled).advice.iter().all(|x| x.kind != "select-reservation"));
}

#[test]
fn splits_are_proposed_by_vcpu_and_memory_shape_too() {
    // The mixed GPU example: the pods differ in GPUs, vCPUs and memory, so the splits are by
    // each shape, each bounded below Karpenter's largest instance by a size the optimum uses.
    let req = Request {
        inputs: vec![
            example("examples/nodepools/gpu-training.yaml"),
            example("examples/workloads/eval-jobs-1gpu.yaml"),
            example("examples/workloads/training-job-8gpu.yaml"),
        ],
        ..Default::default()
    };
    let (m, _) = crate::load::model(&req.sources()).expect("loads");
    let (docs, _) = documents(&req.sources()).expect("documents");
    let base = crate::provision::render_with(&m, &crate::scheduling::solve(&m), Vec::new(), NO_HINTS);
    let opt = crate::optimize::optimize(&m, &[], &OptimizeSettings::default(), None).expect("optimum");
    let splits = split::generate(&m, &docs, &base, &opt);
    let key_of = |c: &candidates::Candidate| match &c.changes[0] {
        Change::AddNodePool { document, .. } => document["spec"]["template"]["spec"]["requirements"]
            .as_array()
            .and_then(|r| r.last())
            .map(|r| (r["key"].as_str().unwrap_or_default().to_string(), r["values"][0].as_str().unwrap_or_default().to_string())),
        _ => None,
    };
    let keys: Vec<(String, String)> = splits.iter().filter_map(key_of).collect();
    // g5.2xlarge (1 GPU, 8 vCPUs, 32 GiB) holds an eval pod and not the training pod.
    assert!(keys.contains(&("karpenter.k8s.aws/instance-gpu-count".into(), "2".into())), "{keys:?}");
    assert!(keys.contains(&("karpenter.k8s.aws/instance-cpu".into(), "9".into())), "{keys:?}");
    assert!(keys.contains(&("karpenter.k8s.aws/instance-memory".into(), "32769".into())), "{keys:?}");
    let names: Vec<&str> = splits.iter().map(|c| c.title.as_str()).collect();
    assert!(names.iter().any(|t| t.contains("gpu-training-upto-8cpu") && t.contains("vCPU(s)")), "{names:?}");
    // Advise verifies each by planning again: the vCPU and memory splits launch the same five
    // g5.2xlarge as the GPU split, so they count as duplicates of it and it alone is answered.
    let a = advised(&req);
    check_all(&req, &a);
    assert_eq!(a.stats.duplicates, 2, "{:?}", a.stats);
    assert_eq!(a.advice.iter().filter(|x| x.kind == "split").count(), 1);
    assert!(a.advice[0].title.contains("GPU(s)"), "{}", a.advice[0].title);
}
