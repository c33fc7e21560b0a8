//! EKS Auto Mode NodeClass rules AM-01..AM-12.

use super::{expect, expect_ok, set};
use crate::validate::Provider::Aws;
use serde_json::{json, Value};

/// A valid Auto Mode NodeClass (the guide's Node Class Specification, every optional field set).
fn auto_class() -> Value {
    json!({
        "apiVersion": "eks.amazonaws.com/v1",
        "kind": "NodeClass",
        "metadata": {"name": "default"},
        "spec": {
            "role": "AmazonEKSAutoNodeRole",
            "subnetSelectorTerms": [{"tags": {"kubernetes.io/role/internal-elb": "1"}}],
            "securityGroupSelectorTerms": [{"id": "sg-0123456789abcdef0"}],
            "snatPolicy": "Random",
            "networkPolicy": "DefaultDeny",
            "networkPolicyEventLogs": "Enabled",
            "ephemeralStorage": {"size": "160Gi", "iops": 3000, "throughput": 125, "kmsKeyID": "alias/nodes"},
            "advancedNetworking": {"httpsProxy": "http://192.0.2.4:3128", "noProxy": ["localhost", ".internal"]},
            "certificateBundles": [{"name": "corp", "data": "LS0t"}],
            "tags": {"team": "ml"}
        }
    })
}

#[test]
fn valid_auto_mode_node_class() {
    expect_ok(&auto_class(), Aws);
    // Sizes the guide names as the upper bounds.
    for size in ["64000G", "59000Gi", "58Ti", "64T", "1G"] {
        expect_ok(&set(auto_class(), "spec/ephemeralStorage/size", json!(size)), Aws);
    }
}

#[test]
fn bad_fields_are_located() {
    type Case = (&'static str, Value, Vec<(&'static str, &'static str)>);
    let cases: Vec<Case> = vec![
        ("spec/role", Value::Null, vec![("required", "spec.role")]),
        ("spec/role", json!(""), vec![("empty-value", "spec.role")]),
        ("spec/subnetSelectorTerms", Value::Null, vec![("required", "spec.subnetSelectorTerms")]),
        ("spec/snatPolicy", json!("random"), vec![("unsupported-value", "spec.snatPolicy")]),
        ("spec/networkPolicy", json!("Deny"), vec![("unsupported-value", "spec.networkPolicy")]),
        ("spec/networkPolicyEventLogs", json!(true), vec![("wrong-type", "spec.networkPolicyEventLogs")]),
        ("spec/ephemeralStorage/size", json!("65T"), vec![("out-of-range", "spec.ephemeralStorage.size")]),
        ("spec/ephemeralStorage/size", json!("lots"), vec![("invalid-quantity", "spec.ephemeralStorage.size")]),
        ("spec/ephemeralStorage/iops", json!(2000), vec![("out-of-range", "spec.ephemeralStorage.iops")]),
        ("spec/ephemeralStorage/throughput", json!(1001), vec![("out-of-range", "spec.ephemeralStorage.throughput")]),
        ("spec/ephemeralStorage/volumeType", json!("gp3"), vec![("unknown-field", "spec.ephemeralStorage.volumeType")]),
        ("spec/advancedNetworking/httpsProxy", json!("192.0.2.4:3128"), vec![("invalid-value", "spec.advancedNetworking.httpsProxy")]),
        ("spec/certificateBundles", json!([{"name": "x"}]), vec![("required", "spec.certificateBundles[0].data")]),
        ("spec/tags", json!({"eks.amazonaws.com/nodeclass": "x"}), vec![("restricted-tag", "spec.tags[eks.amazonaws.com/nodeclass]")]),
        ("spec/tags", json!({"kubernetes.io/cluster/a": "owned"}), vec![("restricted-tag", "spec.tags[kubernetes.io/cluster/a]")]),
        // An EC2NodeClass field is not an Auto Mode one: the AMI is AWS's choice.
        ("spec/amiSelectorTerms", json!([{"alias": "al2023@latest"}]), vec![("unknown-field", "spec.amiSelectorTerms")]),
    ];
    for (path, value, want) in cases {
        let errs = expect(&set(auto_class(), path, value), Aws, &want);
        assert!(errs.iter().all(|e| e.object.as_deref() == Some("NodeClass/default")), "{errs:?}");
    }
    let many: Vec<String> = (0..51).map(|i| format!("h{i}.internal")).collect();
    expect(
        &set(auto_class(), "spec/advancedNetworking/noProxy", json!(many)),
        Aws,
        &[("too-many-items", "spec.advancedNetworking.noProxy")],
    );
}
