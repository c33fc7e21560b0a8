//! SF-01: unknown fields, against the schemas of `validate/fields.txt`.

use super::{expect, expect_ok, nodeclass, nodepool, run, set};
use crate::validate::Provider::Aws;
use serde_json::json;

#[test]
fn valid_objects_have_no_unknown_fields() {
    expect_ok(&nodepool(), Aws);
    expect_ok(&nodeclass(), Aws);
    // Every field Karpenter v1.15's NodePool CRD has, and an export's metadata and status.
    let full = json!({
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool",
        "metadata": {"name": "default", "uid": "u", "resourceVersion": "1", "generation": 2,
                     "creationTimestamp": "2026-01-01T00:00:00Z", "annotations": {"a": "b"},
                     "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}]},
        "spec": {
            "weight": 10, "limits": {"cpu": "100", "nvidia.com/gpu": 8},
            "disruption": {"consolidateAfter": "30s", "consolidationPolicy": "WhenEmpty",
                           "budgets": [{"nodes": "10%", "reasons": ["Empty"], "schedule": "@daily", "duration": "1h"}]},
            "template": {
                "metadata": {"labels": {"team": "ml"}, "annotations": {"x": "y"}},
                "spec": {
                    "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"], "minValues": 1}],
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                    "taints": [{"key": "gpu", "effect": "NoSchedule"}],
                    "startupTaints": [{"key": "init", "value": "1", "effect": "NoExecute"}],
                    "expireAfter": "720h", "terminationGracePeriod": "1h"
                }
            }
        },
        "status": {"anything": {"a newer server": "may add"}}
    });
    expect_ok(&full, Aws);
}

#[test]
fn unknown_nodepool_fields_are_located() {
    // A field of another kind, a misspelling deep in the template, a v1beta1 leftover.
    let v = set(nodepool(), "spec/parallelism", json!(3));
    let v = set(v, "spec/template/spec/requirements/0/minValue", json!(2));
    let v = set(v, "spec/disruption/expireAfter", json!("720h"));
    let errs = expect(
        &v,
        Aws,
        &[
            ("unknown-field", "spec.disruption.expireAfter"),
            ("unknown-field", "spec.parallelism"),
            ("unknown-field", "spec.template.spec.requirements[0].minValue"),
        ],
    );
    assert_eq!(errs[2].message, "strict decoding error: unknown field \"spec.template.spec.requirements[0].minValue\" (SF-01)");
    let help = errs[2].help.as_deref().unwrap();
    assert!(help.contains("did you mean \"minValues\"?"), "{help}");
    assert!(help.contains("key, minValues, operator, values"), "{help}");
    // template.metadata has only labels and annotations in the CRD.
    expect(&set(nodepool(), "spec/template/metadata/name", json!("x")), Aws, &[("unknown-field", "spec.template.metadata.name")]);
}

#[test]
fn open_schemas_are_not_walked() {
    // spec.kubelet preserves unknown fields (Karpenter checks them at runtime: KC-01), limits and
    // tags are maps, status is never walked.
    let v = set(nodeclass(), "spec/tags/anything", json!("x"));
    let v = set(v, "status/whatever", json!({"deep": [1]}));
    expect_ok(&v, Aws);
    let v = set(nodepool(), "spec/limits/example.com~1widgets", json!("5"));
    expect_ok(&v, Aws);
    let v = set(nodeclass(), "spec/kubeletz", json!({}));
    expect(&v, Aws, &[("unknown-field", "spec.kubeletz")]);
}

#[test]
fn built_in_kinds_are_checked_too() {
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "default", "namespace": "ml", "labelz": {"a": "b"}},
        "spec": {
            "nodeSelecter": {"karpenter.sh/capacity-type": "spot"},
            "containers": [{"name": "c", "image": "i", "resources": {"request": {"cpu": "1"}, "limits": {"nvidia.com/gpu": 1}}}],
            "tolerations": [{"key": "gpu", "operator": "Exists", "effects": "NoSchedule"}]
        },
        "status": {"phase": "Running", "fromANewerServer": true}
    });
    let errs = run(&pod, Aws);
    let got: Vec<_> = errs.iter().map(|e| (e.path.clone().unwrap(), e.object.clone().unwrap())).collect();
    assert_eq!(
        got,
        [
            ("metadata.labelz".to_string(), "Pod/ml/default".to_string()),
            ("spec.containers[0].resources.request".into(), "Pod/ml/default".into()),
            ("spec.nodeSelecter".into(), "Pod/ml/default".into()),
            ("spec.tolerations[0].effects".into(), "Pod/ml/default".into()),
        ]
    );
    let near: Vec<_> = errs.iter().map(|e| e.help.as_deref().unwrap().split('?').next().unwrap().to_string()).collect();
    assert_eq!(
        near,
        [
            "rejected at admission; did you mean \"labels\"",
            "rejected at admission; did you mean \"requests\"",
            "rejected at admission; did you mean \"nodeSelector\"",
            "rejected at admission; did you mean \"effect\"",
        ]
    );
    // A Deployment's pod template, and a kind nodecast has no schema of is left alone.
    let deploy = json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "default"},
        "spec": {"replica": 2, "template": {"spec": {"containers": [{"name": "c", "Resources": {}}]}}}
    });
    let paths: Vec<_> = run(&deploy, Aws).into_iter().map(|e| e.path.unwrap()).collect();
    assert_eq!(paths, ["spec.replica", "spec.template.spec.containers[0].Resources"]);
    assert!(run(&json!({"apiVersion": "example.com/v1", "kind": "Pod", "spec": {"x": 1}}), Aws).is_empty());
    assert!(run(&json!({"apiVersion": "apps/v1beta1", "kind": "Deployment", "spec": {"x": 1}}), Aws).is_empty());
}

#[test]
fn the_walk_follows_the_table_not_the_input() {
    // Deep nesting under an unknown field and under status: one finding, no walk into either.
    let mut deep = json!(1);
    for _ in 0..1_000 {
        deep = json!({ "a": deep });
    }
    let v = set(nodepool(), "spec/template/metadata/annotations/x", json!("y"));
    let v = set(v, "spec/deep", deep.clone());
    let v = set(v, "status/deep", deep);
    expect(&v, Aws, &[("unknown-field", "spec.deep")]);
}

#[test]
fn every_kind_has_its_metadata() {
    for (api, kind) in crate::validate::fields::kinds() {
        let v = json!({"apiVersion": api, "kind": kind, "metadata": {"name": "default", "bogus": 1}});
        let paths: Vec<_> = run(&v, Aws).into_iter().filter(|e| e.code == "unknown-field").map(|e| e.path.unwrap()).collect();
        assert_eq!(paths, ["metadata.bogus"], "{api} {kind}");
    }
}

#[test]
fn a_stored_objects_unknown_field_is_a_newer_servers_and_only_a_warning() {
    // Read back from a cluster (uid / resourceVersion set): the server took the field.
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "default", "namespace": "ml", "uid": "0f0e", "resourceVersion": "12"},
        "spec": {"futureField": {"x": 1}, "containers": [{"name": "c", "image": "i"}]}
    });
    let layered = crate::validate::validate_layered(3, &pod, Aws);
    assert_eq!(layered.len(), 1);
    let (layer, e) = &layered[0];
    assert_eq!(*layer, crate::validate::Layer::Stored);
    assert_eq!(e.path.as_deref(), Some("spec.futureField"));
    assert!(e.message.contains("newer Kubernetes' field; read without it"), "{}", e.message);
    // Without them it is the user's own text: refused.
    let mine = set(pod, "metadata/uid", json!(null));
    let mine = set(mine, "metadata/resourceVersion", json!(null));
    assert_eq!(crate::validate::validate_layered(3, &mine, Aws)[0].0, crate::validate::Layer::Admission);
}
