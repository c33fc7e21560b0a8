//! Table-driven tests of the spec's accept/reject examples and worked examples VX-01..VX-26
//! (VX-18 is a transition rule and is not implemented).

use super::{validate_document, Provider};
use crate::error::InputError;
use serde_json::{json, Value};

mod disruption;
mod ec2nodeclass;
mod eks_nodeclass;
mod fields;
mod nodepool;
mod worked;

/// Sets `x` at a `/`-separated path below the root, creating objects on the way
/// (`null` = remove, since the validator treats null as absent).
fn set(mut v: Value, path: &str, x: Value) -> Value {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let (last, parents) = segs.split_last().expect("non-empty path");
    let mut cur = &mut v;
    for seg in parents {
        cur = match cur {
            Value::Array(a) => &mut a[seg.parse::<usize>().expect("index")],
            Value::Object(m) => m.entry((*seg).to_string()).or_insert_with(|| json!({})),
            other => panic!("not a container at {seg}: {other}"),
        };
    }
    match cur {
        Value::Array(a) => a[last.parse::<usize>().expect("index")] = x,
        Value::Object(m) => {
            m.insert((*last).to_string(), x);
        }
        other => panic!("not a container at {last}: {other}"),
    }
    v
}

/// A valid NodePool (also valid for the AWS CRD, which requires consolidateAfter).
fn nodepool() -> Value {
    json!({
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "default"},
        "spec": {
            "disruption": {"consolidateAfter": "0s"},
            "template": {"spec": {
                "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}],
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}
            }}
        }
    })
}

/// A valid EC2NodeClass.
fn nodeclass() -> Value {
    json!({
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": "default"},
        "spec": {
            "role": "KarpenterNodeRole-demo",
            "amiSelectorTerms": [{"alias": "al2023@latest"}],
            "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "demo"}}],
            "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "demo"}}]
        }
    })
}

fn run(v: &Value, provider: Provider) -> Vec<InputError> {
    validate_document(3, v, provider)
}

fn summary(errs: &[InputError]) -> Vec<(String, String)> {
    errs.iter().map(|e| (e.code.clone(), e.path.clone().unwrap_or_default())).collect()
}

/// Asserts the exact (code, path) list and that every message names its rule.
#[track_caller]
fn expect(v: &Value, provider: Provider, want: &[(&str, &str)]) -> Vec<InputError> {
    let errs = run(v, provider);
    let got = summary(&errs);
    let want: Vec<(String, String)> = want.iter().map(|(c, p)| (c.to_string(), p.to_string())).collect();
    assert_eq!(got, want, "errors: {errs:#?}");
    for e in &errs {
        assert_eq!(e.document, Some(3));
        assert!(e.object.as_deref().is_some_and(|o| o.ends_with("/default")), "{e:?}");
        let help = e.help.as_deref().unwrap_or("");
        assert!(help.starts_with("rejected at admission; ") || help.starts_with("fails at runtime ("), "{e:?}");
        assert!(e.message.ends_with(')'), "{e:?}");
    }
    errs
}

#[track_caller]
fn expect_ok(v: &Value, provider: Provider) {
    expect(v, provider, &[]);
}

fn is_runtime(e: &InputError) -> bool {
    e.help.as_deref().is_some_and(|h| h.starts_with("fails at runtime"))
}

#[test]
fn other_documents_are_ignored() {
    for v in [
        json!({"apiVersion": "v1", "kind": "Pod", "spec": 1}),
        json!({"apiVersion": "example.com/v1", "kind": "NodePool", "spec": 1}),
        json!({"kind": "EC2NodeClass"}),
        json!("NodePool"),
        json!([1, 2]),
        Value::Null,
    ] {
        assert!(run(&v, Provider::Aws).is_empty(), "{v}");
    }
}

#[test]
fn valid_objects_pass() {
    expect_ok(&nodepool(), Provider::Aws);
    expect_ok(&nodepool(), Provider::Core);
    expect_ok(&nodeclass(), Provider::Aws);
}

/// Every known field set to every JSON type: errors, never a panic.
#[test]
fn hostile_values_never_panic() {
    let values = [
        Value::Null,
        json!(true),
        json!(-1),
        json!(1.5),
        json!(18446744073709551615u64),
        json!(""),
        json!("x".repeat(5000)),
        json!([]),
        json!([null, 1, "a", {}]),
        json!({}),
        json!({"": null, "a": [[[]]]}),
    ];
    let nodepool_ptrs = [
        "spec",
        "spec/replicas",
        "spec/weight",
        "spec/limits",
        "spec/limits/cpu",
        "spec/disruption",
        "spec/disruption/consolidateAfter",
        "spec/disruption/consolidationPolicy",
        "spec/disruption/budgets",
        "spec/template",
        "spec/template/metadata",
        "spec/template/metadata/labels",
        "spec/template/metadata/annotations",
        "spec/template/spec",
        "spec/template/spec/requirements",
        "spec/template/spec/requirements/0",
        "spec/template/spec/requirements/0/key",
        "spec/template/spec/requirements/0/operator",
        "spec/template/spec/requirements/0/values",
        "spec/template/spec/requirements/0/minValues",
        "spec/template/spec/taints",
        "spec/template/spec/startupTaints",
        "spec/template/spec/nodeClassRef",
        "spec/template/spec/nodeClassRef/group",
        "spec/template/spec/expireAfter",
        "spec/template/spec/terminationGracePeriod",
        "metadata",
        "metadata/name",
    ];
    let nodeclass_ptrs = [
        "spec",
        "spec/role",
        "spec/instanceProfile",
        "spec/amiFamily",
        "spec/amiSelectorTerms",
        "spec/amiSelectorTerms/0",
        "spec/amiSelectorTerms/0/alias",
        "spec/subnetSelectorTerms",
        "spec/subnetSelectorTerms/0",
        "spec/subnetSelectorTerms/0/tags",
        "spec/securityGroupSelectorTerms",
        "spec/capacityReservationSelectorTerms",
        "spec/ipPrefixCount",
        "spec/cpuOptions",
        "spec/tags",
        "spec/blockDeviceMappings",
        "spec/metadataOptions",
        "spec/networkInterfaces",
        "spec/connectionTracking",
        "spec/placementGroupSelector",
        "spec/kubelet",
        "spec/kubelet/maxPods",
        "spec/kubelet/logging",
        "spec/kubelet/evictionHard",
        "spec/kubelet/reservedMemory",
        "spec/kubelet/imageGCHighThresholdPercent",
    ];
    for (base, ptrs) in [(nodepool(), &nodepool_ptrs[..]), (nodeclass(), &nodeclass_ptrs[..])] {
        for ptr in ptrs {
            for v in &values {
                let doc = set(base.clone(), ptr, v.clone());
                for provider in [Provider::Aws, Provider::Core] {
                    for e in run(&doc, provider) {
                        assert!(!e.code.is_empty() && e.path.is_some() && e.help.is_some(), "{e:?}");
                    }
                }
            }
        }
    }
    // Nested list items of every type.
    for v in &values {
        for (ptr, item) in [
            ("spec/disruption/budgets", json!([v, {"nodes": v, "schedule": v, "duration": v, "reasons": [v]}])),
            ("spec/template/spec/taints", json!([v, {"key": v, "value": v, "effect": v, "timeAdded": v}])),
        ] {
            run(&set(nodepool(), ptr, item), Provider::Aws);
        }
        let nc = set(
            nodeclass(),
            "spec/blockDeviceMappings",
            json!([v, {"rootVolume": v, "ebs": {"volumeSize": v, "volumeInitializationRate": v, "snapshotID": v}}]),
        );
        let nc = set(nc, "spec/networkInterfaces", json!([v, {"networkCardIndex": v, "deviceIndex": v, "interfaceType": v}]));
        let nc = set(
            nc,
            "spec/kubelet",
            json!({"logging": {"vmodule": [v], "options": {"text": v}}, "evictionSoft": {"memory.available": v}, "kubeReserved": {"cpu": v}}),
        );
        run(&nc, Provider::Aws);
    }
}
