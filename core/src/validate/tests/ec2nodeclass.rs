use super::{expect, expect_ok, is_runtime, nodeclass, run, set};
use crate::validate::Provider::Aws;
use serde_json::{json, Value};

const AMI0: &str = "spec.amiSelectorTerms[0].alias";

/// (pointer to set, value, expected (code, path) list)
type Case = (&'static str, Value, Vec<(&'static str, &'static str)>);

fn with_alias(a: &str) -> Value {
    set(nodeclass(), "spec/amiSelectorTerms", json!([{ "alias": a }]))
}

#[test]
fn aliases() {
    for ok in ["al2@latest", "al2@v20240625", "al2023@latest", "bottlerocket@1.10.0", "windows2022@latest"] {
        expect_ok(&with_alias(ok), Aws);
    }
    let reject = [
        ("@latest", "EC-38"),
        ("al2023", "EC-38"),
        ("al2023@", "EC-38"),
        ("al2023-latest", "EC-38"),
        ("ubuntu@latest", "EC-39"),
        ("windows2019@v1.0.0", "EC-40"),
    ];
    for (bad, id) in reject {
        let e = expect(&with_alias(bad), Aws, &[("invalid-alias", AMI0)]);
        assert!(e[0].message.ends_with(&format!("({id})")), "{bad}: {}", e[0].message);
    }
    let long = format!("al2023@{}", "v".repeat(30));
    expect(&with_alias(&long), Aws, &[("invalid-alias", AMI0)]);
}

#[test]
fn worked_examples_nodeclass() {
    // VX-21
    let e = expect(&set(nodeclass(), "spec/instanceProfile", json!("p")), Aws, &[("mutually-exclusive", "spec")]);
    assert_eq!(e[0].message, "must specify exactly one of ['role', 'instanceProfile'] (EC-02)");
    expect(&set(nodeclass(), "spec/role", Value::Null), Aws, &[("required", "spec")]);
    // VX-22
    let v = set(nodeclass(), "spec/amiSelectorTerms", json!([{"alias": "al2023@latest"}, {"tags": {"a": "b"}}]));
    let e = expect(&v, Aws, &[("mutually-exclusive", "spec.amiSelectorTerms")]);
    assert_eq!(e[0].message, "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms (EC-37)");
    // VX-23
    let e = expect(&set(nodeclass(), "spec/amiFamily", json!("AL2")), Aws, &[("incompatible-ami-family", "spec.amiFamily")]);
    assert_eq!(e[0].message, "if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias (EC-07)");
    expect_ok(&set(nodeclass(), "spec/amiFamily", json!("Custom")), Aws);
    // VX-24
    let v = set(nodeclass(), "spec/amiSelectorTerms", json!([{"id": "ami-123"}]));
    let e = expect(&v, Aws, &[("required", "spec.amiFamily")]);
    assert_eq!(e[0].message, "must specify amiFamily if amiSelectorTerms does not contain an alias (EC-10)");
    expect_ok(&set(v, "spec/amiFamily", json!("AL2023")), Aws);
    // VX-25 (`!self.all` semantics)
    let alone = set(nodeclass(), "spec/subnetSelectorTerms", json!([{"id": "subnet-1", "tags": {"a": "b"}}]));
    let e = expect(&alone, Aws, &[("mutually-exclusive", "spec.subnetSelectorTerms")]);
    assert!(e[0].message.ends_with("in a subnet selector term (EC-22)"));
    expect_ok(&set(nodeclass(), "spec/subnetSelectorTerms", json!([{"id": "subnet-1", "tags": {"a": "b"}}, {"tags": {"a": "b"}}])), Aws);
    // VX-26
    let e = expect(&set(nodeclass(), "spec/connectionTracking", json!({})), Aws, &[("required", "spec.connectionTracking")]);
    assert_eq!(e[0].message, "at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set (EC-67)");
    expect(
        &set(nodeclass(), "spec/connectionTracking", json!({"udpTimeout": 61})),
        Aws,
        &[("out-of-range", "spec.connectionTracking.udpTimeout")],
    );
}

#[test]
fn selector_terms() {
    let cases: Vec<Case> = vec![
        ("spec/subnetSelectorTerms", json!([]), vec![("too-few-items", "spec.subnetSelectorTerms")]),
        ("spec/subnetSelectorTerms", Value::Null, vec![("required", "spec.subnetSelectorTerms")]),
        ("spec/subnetSelectorTerms", json!([{"id": "subnet-abc"}, {}]), vec![("required", "spec.subnetSelectorTerms[1]")]),
        ("spec/subnetSelectorTerms", json!([{"id": "xsubnet-0a"}]), vec![]),
        ("spec/subnetSelectorTerms", json!([{"id": "subnet-"}]), vec![("invalid-pattern", "spec.subnetSelectorTerms[0].id")]),
        ("spec/subnetSelectorTerms", json!([{"tags": {"": "x"}}]), vec![("invalid-tag", "spec.subnetSelectorTerms[0].tags[]")]),
        ("spec/securityGroupSelectorTerms", json!([]), vec![("too-few-items", "spec.securityGroupSelectorTerms")]),
        (
            "spec/securityGroupSelectorTerms",
            json!([{"name": "n", "tags": {"a": "b"}}]),
            vec![("mutually-exclusive", "spec.securityGroupSelectorTerms")],
        ),
        (
            "spec/securityGroupSelectorTerms",
            json!([{"id": "sg-1", "name": "n"}]),
            vec![("mutually-exclusive", "spec.securityGroupSelectorTerms"), ("mutually-exclusive", "spec.securityGroupSelectorTerms")],
        ),
        ("spec/securityGroupSelectorTerms", json!([{"id": "SG-1"}]), vec![("invalid-pattern", "spec.securityGroupSelectorTerms[0].id")]),
        (
            "spec/capacityReservationSelectorTerms",
            json!([{"ownerID": "123456789012"}]),
            vec![("required", "spec.capacityReservationSelectorTerms[0]")],
        ),
        (
            "spec/capacityReservationSelectorTerms",
            json!([{"id": "cr-1", "ownerID": "123"}]),
            vec![
                ("mutually-exclusive", "spec.capacityReservationSelectorTerms"),
                ("invalid-pattern", "spec.capacityReservationSelectorTerms[0].ownerID"),
            ],
        ),
        (
            "spec/capacityReservationSelectorTerms",
            json!([{"instanceMatchCriteria": "closed"}]),
            vec![("unsupported-value", "spec.capacityReservationSelectorTerms[0].instanceMatchCriteria")],
        ),
        ("spec/capacityReservationSelectorTerms", json!([{"id": "cr-0a"}, {"tags": {"a": "b"}}]), vec![]),
        // Literal `!self.all(...)`: an empty list is vacuously rejected (UNSURE, documented).
        ("spec/capacityReservationSelectorTerms", json!([]), vec![("mutually-exclusive", "spec.capacityReservationSelectorTerms")]),
        ("spec/amiSelectorTerms", json!([]), vec![("too-few-items", "spec.amiSelectorTerms")]),
        (
            "spec/amiSelectorTerms",
            json!([{"owner": "self"}]),
            vec![("required", "spec.amiSelectorTerms[0]"), ("required", "spec.amiFamily")],
        ),
        (
            "spec/amiSelectorTerms",
            json!([{"alias": "al2@latest", "owner": "self"}]),
            vec![("mutually-exclusive", "spec.amiSelectorTerms[0]")],
        ),
    ];
    for (ptr, x, want) in cases {
        expect(&set(nodeclass(), ptr, x.clone()), Aws, &want);
    }
}

#[test]
fn other_fields() {
    let cases: Vec<Case> = vec![
        ("spec/role", json!(""), vec![("empty-value", "spec.role")]),
        ("spec/amiFamily", json!("Ubuntu"), vec![("unsupported-value", "spec.amiFamily"), ("incompatible-ami-family", "spec.amiFamily")]),
        ("spec/ipPrefixCount", json!(-1), vec![("out-of-range", "spec.ipPrefixCount")]),
        ("spec/instanceStorePolicy", json!("RAID1"), vec![("unsupported-value", "spec.instanceStorePolicy")]),
        ("spec/cpuOptions", json!({}), vec![]),
        ("spec/cpuOptions", json!({"nestedVirtualization": "on"}), vec![("unsupported-value", "spec.cpuOptions.nestedVirtualization")]),
        ("spec/tags", json!({"": "x"}), vec![("invalid-tag", "spec.tags[]")]),
        (
            "spec/tags",
            json!({"kubernetes.io/cluster/foo": "owned", "eks:eks-cluster-name": "x", "team": "a"}),
            vec![("restricted-tag", "spec.tags[eks:eks-cluster-name]"), ("restricted-tag", "spec.tags[kubernetes.io/cluster/foo]")],
        ),
        (
            "spec/blockDeviceMappings",
            json!([{"rootVolume": true, "ebs": {"volumeSize": "20Gi"}}, {"rootVolume": true, "ebs": {"snapshotID": "snap-1"}}]),
            vec![("invalid-block-device-mapping", "spec.blockDeviceMappings")],
        ),
        (
            "spec/blockDeviceMappings",
            json!([{"ebs": {"volumeType": "gp4"}}]),
            vec![
                ("unsupported-value", "spec.blockDeviceMappings[0].ebs.volumeType"),
                ("invalid-block-device-mapping", "spec.blockDeviceMappings[0].ebs"),
            ],
        ),
        (
            "spec/blockDeviceMappings",
            json!([{"ebs": {"volumeSize": "100000Gi"}}]),
            vec![("invalid-pattern", "spec.blockDeviceMappings[0].ebs.volumeSize")],
        ),
        (
            "spec/blockDeviceMappings",
            json!([{"ebs": {"volumeSize": "20Gi", "volumeInitializationRate": 50}}]),
            vec![
                ("out-of-range", "spec.blockDeviceMappings[0].ebs.volumeInitializationRate"),
                ("invalid-block-device-mapping", "spec.blockDeviceMappings[0].ebs"),
            ],
        ),
        (
            "spec/metadataOptions",
            json!({"httpPutResponseHopLimit": 65, "httpTokens": "Required"}),
            vec![
                ("out-of-range", "spec.metadataOptions.httpPutResponseHopLimit"),
                ("unsupported-value", "spec.metadataOptions.httpTokens"),
            ],
        ),
        (
            "spec/networkInterfaces",
            json!([{"networkCardIndex": 0, "deviceIndex": 1, "interfaceType": "interface"}]),
            vec![("invalid-network-interfaces", "spec.networkInterfaces")],
        ),
        (
            "spec/networkInterfaces",
            json!([{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"}, {"networkCardIndex": 1, "deviceIndex": 0, "interfaceType": "efa-only"}, {"networkCardIndex": 1, "deviceIndex": 1, "interfaceType": "efa-only"}]),
            vec![("invalid-network-interfaces", "spec.networkInterfaces")],
        ),
        (
            "spec/networkInterfaces",
            json!([{"networkCardIndex": 0, "interfaceType": "interface"}]),
            vec![("required", "spec.networkInterfaces[0].deviceIndex")],
        ),
        ("spec/placementGroupSelector", json!({}), vec![("required", "spec.placementGroupSelector")]),
        ("spec/placementGroupSelector", json!({"name": "a", "id": "pg-1"}), vec![("mutually-exclusive", "spec.placementGroupSelector")]),
        ("spec/placementGroupSelector", json!({"id": "pg-"}), vec![("invalid-pattern", "spec.placementGroupSelector.id")]),
        ("spec/subnetSelectorTerms", json!("subnet-1"), vec![("wrong-type", "spec.subnetSelectorTerms")]),
        (
            "spec/amiSelectorTerms",
            json!([{"alias": 2023}]),
            vec![("wrong-type", "spec.amiSelectorTerms[0].alias"), ("required", "spec.amiFamily")],
        ),
        ("spec", json!([]), vec![("wrong-type", "spec")]),
    ];
    for (ptr, x, want) in cases {
        expect(&set(nodeclass(), ptr, x.clone()), Aws, &want);
    }
}

#[test]
fn kubelet_runtime_checks() {
    let kc = |k: Value| set(nodeclass(), "spec/kubelet", k);
    expect_ok(
        &kc(
            json!({"maxPods": 110, "podsPerCore": 2, "systemReserved": {"cpu": "100m"}, "evictionHard": {"memory.available": "5%"}, "evictionSoft": {"memory.available": "500Mi"}, "evictionSoftGracePeriod": {"memory.available": "1m"}, "imageGCHighThresholdPercent": 85, "imageGCLowThresholdPercent": 80, "clusterDNS": ["10.0.0.10"], "cpuCFSQuota": true}),
        ),
        Aws,
    );
    // A CEL expression for maxPods is type-checked as an int placeholder.
    expect_ok(&kc(json!({"maxPods": "self.cpu * 2"})), Aws);
    let cases: Vec<(Value, Vec<&str>, &str)> = vec![
        (json!({"maxpods": 1}), vec!["spec.kubelet.maxpods"], "unknown field \"maxpods\""),
        (json!({"logging": {"verbosityy": 1}}), vec!["spec.kubelet.logging.verbosityy"], "unknown field \"logging.verbosityy\""),
        (
            json!({"maxPods": 1.5}),
            vec!["spec.kubelet.maxPods"],
            "cannot unmarshal number 1.5 into Go struct field KubeletConfiguration.maxPods of type int32",
        ),
        (json!({"registerWithTaints": []}), vec!["spec.kubelet.registerWithTaints"], "(KC-02)"),
        (json!({"evictionHard": {"memory.free": "1Gi"}}), vec!["spec.kubelet.evictionHard[memory.free]"], "isn't a valid eviction signal"),
        (
            json!({"evictionHard": {"memory.available": "101%"}}),
            vec!["spec.kubelet.evictionHard[memory.available]"],
            "must be a percentage or a resource quantity",
        ),
        (
            json!({"evictionMinimumReclaim": {"memory.available": "-1Gi"}}),
            vec!["spec.kubelet.evictionMinimumReclaim[memory.available]"],
            "can't be a negative resource quantity",
        ),
        (
            json!({"evictionSoft": {"memory.available": "1Gi"}, "evictionSoftGracePeriod": {"memory.available": "-1s"}}),
            vec!["spec.kubelet.evictionSoftGracePeriod[memory.available]"],
            "can't be a negative duration",
        ),
        (
            json!({"evictionSoft": {"memory.available": "1Gi"}}),
            vec!["spec.kubelet.evictionSoft[memory.available]"],
            "has no matching evictionSoftGracePeriod",
        ),
        (
            json!({"kubeReserved": {"gpu": "1", "cpu": "-1"}}),
            vec!["spec.kubelet.kubeReserved[cpu]", "spec.kubelet.kubeReserved[gpu]"],
            "(KC-07)",
        ),
        (
            json!({"imageGCHighThresholdPercent": 50, "imageGCLowThresholdPercent": 60}),
            vec!["spec.kubelet.imageGCHighThresholdPercent"],
            "must be greater than imageGCLowThresholdPercent (60)",
        ),
        (json!({"imageGCHighThresholdPercent": 101}), vec!["spec.kubelet.imageGCHighThresholdPercent"], "101 must be between 0 and 100"),
        (json!({"podsPerCore": -1}), vec!["spec.kubelet.podsPerCore"], "-1 can't be negative (KC-09)"),
        (json!({"syncFrequency": "1d"}), vec!["spec.kubelet.syncFrequency"], "time: invalid duration \"1d\""),
    ];
    for (k, paths, needle) in cases {
        let errs = run(&kc(k.clone()), Aws);
        let got: Vec<&str> = errs.iter().filter_map(|e| e.path.as_deref()).collect();
        assert_eq!(got, paths, "{k}: {errs:#?}");
        assert!(errs.iter().all(|e| e.code == "invalid-kubelet" && is_runtime(e)), "{errs:#?}");
        assert!(errs.iter().any(|e| e.message.contains(needle)), "{k}: {errs:#?}");
        assert!(errs.iter().all(|e| e.help.as_deref().is_some_and(|h| h.starts_with("fails at runtime (EC2NodeClass not Ready); "))));
    }
    expect(&kc(json!("maxPods: 10")), Aws, &[("wrong-type", "spec.kubelet")]);
}

/// A list over its maxItems is one error and none of its items is examined (so time does not
/// grow with the length times each item's rules); wide eviction maps are matched by lookup.
#[test]
fn wide_lists_are_refused_once() {
    let ni: Vec<Value> = (0..5_000).map(|i| json!({"networkCardIndex": 0, "deviceIndex": i % 3, "interfaceType": "bogus"})).collect();
    expect(&set(nodeclass(), "spec/networkInterfaces", Value::Array(ni)), Aws, &[("too-many-items", "spec.networkInterfaces")]);
    let bd: Vec<Value> = (0..51).map(|_| json!({"deviceName": 7})).collect();
    expect(&set(nodeclass(), "spec/blockDeviceMappings", Value::Array(bd)), Aws, &[("too-many-items", "spec.blockDeviceMappings")]);
    let n = 20_000;
    let soft: serde_json::Map<String, Value> = (0..n).map(|i| (format!("memory.available{i}"), json!("5%"))).collect();
    let mut grace: serde_json::Map<String, Value> = (0..n).map(|i| (format!("memory.available{i}"), json!("1m"))).collect();
    grace.insert("nodefs.available".into(), json!("1m"));
    let errs = run(&set(nodeclass(), "spec/kubelet", json!({"evictionSoft": soft, "evictionSoftGracePeriod": grace})), Aws);
    // Every made-up signal is refused (KC-03) once per map; only the one unpaired key is KC-06.
    let kc06: Vec<_> = errs.iter().filter(|e| e.message.contains("KC-06")).map(|e| e.path.clone().unwrap_or_default()).collect();
    assert_eq!(kc06, ["spec.kubelet.evictionSoftGracePeriod[nodefs.available]"]);
    assert_eq!(errs.iter().filter(|e| e.message.contains("KC-03")).count(), 2 * n);
}
