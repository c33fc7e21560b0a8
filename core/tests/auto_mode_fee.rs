//! EKS Auto Mode's management fee as input (issue 31): a `{region, autoModeFee: {type: $/h}}`
//! document adds the fee to what Auto Mode nodes cost, never to what Karpenter decides by.

use nodecast::api::{Decision, Plan};
use nodecast::error::InputError;
use nodecast::{Input, Outcome, Request};

const CLUSTER: &str = r#"{"computeConfig": {"enabled": true, "nodePools": ["general-purpose"]}}"#;
const POD: &str = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - {name: c, image: x, resources: {requests: {cpu: \"1\", memory: 1Gi}}}\n";

fn request(texts: &[&str]) -> Request {
    let inputs = texts.iter().enumerate().map(|(i, t)| Input { name: Some(format!("in-{i}.yaml")), text: t.to_string() }).collect();
    Request { inputs, now: Some("2025-03-05T12:00:00Z".into()), ..Default::default() }
}

fn plan(texts: &[&str]) -> Plan {
    match nodecast::plan(&request(texts)).outcome {
        Outcome::Success(p) => p,
        Outcome::Failure { errors } => panic!("plan failed: {errors:#?}"),
    }
}

fn errors(texts: &[&str]) -> Vec<InputError> {
    match nodecast::plan(&request(texts)).outcome {
        Outcome::Success(p) => panic!("expected errors, planned {:?}", p.node_claims),
        Outcome::Failure { errors } => errors,
    }
}

fn fees(pairs: &[(&str, &str)]) -> String {
    let body: Vec<String> = pairs.iter().map(|(t, f)| format!("  {t}: {f}\n")).collect();
    format!("region: us-east-1\nautoModeFee:\n{}", body.concat())
}

#[test]
fn the_fee_is_added_to_auto_mode_costs_not_to_the_choice() {
    let without = plan(&[CLUSTER, POD]);
    let c = &without.node_claims[0];
    let it = c.instance_type.clone().unwrap();
    let ec2 = c.price_per_hour.unwrap();
    assert_eq!(c.auto_mode_fee_per_hour, None);
    assert!(without.warnings.iter().any(|w| w.code == "auto-mode-fee-not-included"));
    // A fee for the chosen type and a much larger one for every other option: the choice stays
    // Karpenter's by EC2 price.
    let mut table: Vec<(&str, &str)> = c.instance_type_options.iter().filter(|o| **o != it).map(|o| (o.as_str(), "0.001")).collect();
    table.push((it.as_str(), "0.0184"));
    let with = plan(&[CLUSTER, POD, &fees(&table)]);
    let w = &with.node_claims[0];
    assert_eq!(w.instance_type.as_deref(), Some(it.as_str()));
    assert_eq!(w.price_per_hour, Some(ec2));
    assert_eq!(w.auto_mode_fee_per_hour, Some(0.0184));
    assert_eq!(with.auto_mode_fee_per_hour, Some(0.0184));
    assert!((with.total_price_per_hour - (ec2 + 0.0184)).abs() < 1e-9, "{}", with.total_price_per_hour);
    assert!(with.summary.contains(&format!("{}", ec2 + 0.0184)) || with.total_price_per_month > without.total_price_per_month);
    assert!(
        with.warnings.iter().all(|w| w.code != "auto-mode-fee-not-included" && w.code != "auto-mode-fee-missing"),
        "{:?}",
        with.warnings
    );
}

#[test]
fn a_type_without_a_fee_is_said_and_ec2_nodepools_pay_none() {
    // The table prices only a type the NodeClaim does not launch.
    let p = plan(&[CLUSTER, POD, &fees(&[("p5.48xlarge", "3.1")])]);
    assert_eq!(p.node_claims[0].auto_mode_fee_per_hour, None);
    assert_eq!(p.auto_mode_fee_per_hour, Some(0.0));
    let w = p.warnings.iter().find(|w| w.code == "auto-mode-fee-missing").expect("auto-mode-fee-missing");
    assert!(w.message.contains(p.node_claims[0].instance_type.as_deref().unwrap()), "{}", w.message);
    // An EC2NodeClass NodePool pays no Auto Mode fee, whatever the table says.
    let oss = "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: oss}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]\n";
    let first = plan(&[oss, POD]);
    let it = first.node_claims[0].instance_type.clone().unwrap();
    let p = plan(&[oss, POD, &fees(&[(it.as_str(), "0.5")])]);
    assert_eq!(p.node_claims[0].auto_mode_fee_per_hour, None);
    assert_eq!(p.total_price_per_hour, first.total_price_per_hour);
}

#[test]
fn consolidation_costs_include_the_fee() {
    // An empty Auto Mode node: deleting it saves its EC2 price and its fee.
    let node = "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  creationTimestamp: \"2025-03-05T08:00:00Z\"\n  labels: {karpenter.sh/nodepool: general-purpose, karpenter.sh/capacity-type: on-demand, node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a, kubernetes.io/arch: amd64, kubernetes.io/os: linux, kubernetes.io/hostname: n1, eks.amazonaws.com/compute-type: auto}\nstatus:\n  capacity: {cpu: \"2\", memory: 8Gi, pods: \"110\"}\n  allocatable: {cpu: 1930m, memory: 7000Mi, pods: \"110\"}\n";
    let decide = |texts: &[&str]| -> Decision {
        match nodecast::consolidate(&request(texts)).outcome {
            Outcome::Success(d) => d,
            Outcome::Failure { errors } => panic!("consolidate failed: {errors:#?}"),
        }
    };
    let plain = decide(&[CLUSTER, node]);
    let fee = decide(&[CLUSTER, node, &fees(&[("m5.large", "0.0115")])]);
    assert_eq!(plain.disrupted_nodes, vec!["n1".to_string()], "{:?}", plain.decision);
    assert_eq!(fee.disrupted_nodes, plain.disrupted_nodes);
    assert!(
        (fee.price_per_hour_before - (plain.price_per_hour_before + 0.0115)).abs() < 1e-9,
        "{} {}",
        fee.price_per_hour_before,
        plain.price_per_hour_before
    );
    assert_eq!(fee.price_per_hour_after, 0.0);
}

#[test]
fn bad_fee_tables_are_located() {
    let e = errors(&[CLUSTER, POD, "region: us-east-1\nautoModeFee: {m5.large: cheap}\n"]);
    assert_eq!(
        (e[0].code.as_str(), e[0].path.as_deref(), e[0].object.as_deref()),
        ("invalid-number", Some("autoModeFee.m5.large"), Some("AutoModeFee"))
    );
    assert_eq!(e[0].source.as_deref(), Some("in-2.yaml"));
    let e = errors(&[CLUSTER, POD, "region: eu-west-1\nautoModeFee: {m5.large: 0.01}\n"]);
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("invalid-region", Some("region")));
    let e = errors(&[CLUSTER, POD, "autoModeFee: {m5.large: 0.01}\n"]);
    assert_eq!(e[0].code, "required");
    let e = errors(&[CLUSTER, POD, &fees(&[("m5.large", "0.01")]), &fees(&[("m5.large", "0.02")])]);
    assert_eq!(
        (e[0].code.as_str(), e[0].path.as_deref(), e[0].source.as_deref()),
        ("duplicate", Some("autoModeFee.m5.large"), Some("in-3.yaml"))
    );
    let e = errors(&[CLUSTER, POD, "region: us-east-1\nautoModeFee: {m5.large: -1}\n"]);
    assert_eq!(e[0].code, "invalid-number");
    // An inline catalog has no region to take fees for.
    let mut r = request(&[CLUSTER, POD, &fees(&[("m5.large", "0.01")])]);
    r.catalog = Some(
        serde_json::json!({"zones": ["z"], "instanceTypes": [{"name": "m5.large", "allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"}, "onDemandPrice": 0.1}]}),
    );
    match nodecast::plan(&r).outcome {
        Outcome::Failure { errors } => assert!(errors.iter().any(|e| e.code == "prices-need-aws-catalog"), "{errors:?}"),
        Outcome::Success(_) => panic!("an inline catalog with a fee table planned"),
    }
    // Unknown types are a note, not an error.
    let p = plan(&[CLUSTER, POD, &fees(&[("z9.huge", "1")])]);
    assert!(p.warnings.iter().any(|w| w.code == "unknown-instance-types" && w.message.contains("z9.huge")), "{:?}", p.warnings);
}

#[test]
fn the_simulator_costs_auto_mode_nodes_with_the_fee() {
    // One Job on the built-in pool; the same run with a fee for every type it may launch costs
    // each node's lifetime × (EC2 price + fee).
    let job = "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: work, namespace: ml}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: c, image: x, resources: {requests: {cpu: \"1\", memory: 1Gi}}}\n";
    let trace = "kind: Trace\nevents:\n- {at: 0s, submit: {ref: Job/ml/work, runTime: 60m}}\n";
    let run = |extra: &[&str]| {
        let mut texts = vec![CLUSTER, job];
        texts.extend_from_slice(extra);
        let mut r = request(&texts);
        r.now = None;
        r.trace = Some(nodecast::simulate::TraceInput { name: Some("trace.yaml".into()), text: trace.into(), format: None });
        match nodecast::simulate(&r).outcome {
            Outcome::Success(s) => s,
            Outcome::Failure { errors } => panic!("simulate failed: {errors:#?}"),
        }
    };
    let plain = run(&[]);
    let n = &plain.nodes[0];
    let it = n.instance_type.clone().unwrap();
    let with = run(&[&fees(&[(it.as_str(), "0.5")])]);
    let w = &with.nodes[0];
    assert_eq!(w.instance_type, n.instance_type);
    assert!((w.price_per_hour_usd - (n.price_per_hour_usd + 0.5)).abs() < 1e-9, "{} {}", w.price_per_hour_usd, n.price_per_hour_usd);
    let hours = n.lifetime_seconds as f64 / 3600.0;
    assert!(
        (with.summary.cost_usd - plain.summary.cost_usd - 0.5 * hours).abs() < 0.011,
        "{} {}",
        with.summary.cost_usd,
        plain.summary.cost_usd
    );
}
