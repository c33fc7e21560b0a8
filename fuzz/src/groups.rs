//! The `facade_node_groups` target: EKS node groups (an eksctl ClusterConfig), the Cluster
//! Autoscaler's settings and priority ConfigMap, nodes of the groups with pods bound, pending
//! workloads and a trace, decoded from the bytes, then through every function that reads node
//! groups: `plan` and `consolidate` with `autoscaler: cluster-autoscaler`, `migrate`, and
//! `simulate` with `compare: cluster-autoscaler` (the two autoscalers side by side).
//!
//! Depends only on nodecast, serde_json and std (core/tests/fuzz_corpus.rs includes this file).

use crate::checks::{self, NOW};
use crate::cluster::{self, Src};
use serde_json::{json, Value};

const GROUP_TYPES: &[&str] = &["g5.xlarge", "g5.2xlarge", "m5.large", "p4d.24xlarge", "c5.xlarge"];
const WILD_TYPES: &[&str] = &["p3.2xlarge", "", "mixed", "g5.xlarge"];
const GROUP_NAMES: &[&str] = &["gpu-a", "gpu-b", "cpu", "gpu-a"];
const AWS_ZONES: &[&str] = &["us-east-1a", "us-east-1b", "us-east-1c"];

/// (minSize, maxSize, desiredCapacity): ordered when calm, anything when wild.
fn sizes(src: &mut Src, wild: bool) -> (i64, i64, i64) {
    if wild {
        let edges = [0i64, 1, 5, 50, -1, 100_001, i64::MAX];
        (src.pick(&edges), src.pick(&edges), src.pick(&edges))
    } else {
        let min = src.pick(&[0i64, 0, 1]);
        let max = src.pick(&[2i64, 5, 50]);
        (min, max, min + src.below(2) as i64)
    }
}

/// An eksctl ClusterConfig with 1..3 managed (or self-managed) node groups; returns it and the
/// groups' (name, first instance type).
fn cluster_config(src: &mut Src, wild: bool) -> (Value, Vec<(String, String)>) {
    let mut groups = Vec::new();
    let mut named = Vec::new();
    let managed = !src.chance(40);
    for i in 0..1 + src.below(3) {
        let name = if wild { src.pick(GROUP_NAMES).to_string() } else { format!("{}-{i}", src.pick(GROUP_NAMES)) };
        let ty = if wild { src.pick(WILD_TYPES) } else { src.pick(GROUP_TYPES) };
        let (min, max, desired) = sizes(src, wild);
        let mut g = json!({"name": name, "minSize": min, "maxSize": max});
        if src.chance(60) {
            let types = json!([ty, src.pick(GROUP_TYPES)]);
            if managed || wild {
                g["instanceTypes"] = types;
            } else {
                g["instancesDistribution"] = json!({"instanceTypes": types, "onDemandPercentageAboveBaseCapacity": src.pick(&[0, 100])});
            }
        } else {
            g["instanceType"] = json!(ty);
        }
        if src.chance(80) {
            g["desiredCapacity"] = json!(desired);
        }
        if managed && src.chance(100) {
            g["spot"] = json!(true);
        }
        if src.chance(100) {
            g["labels"] = json!({"workload-type": src.pick(&["training", "inference"])});
        }
        if src.chance(100) {
            let effect = if wild { src.pick(&["NoSchedule", "Sometimes", ""]) } else { "NoSchedule" };
            g["taints"] = json!([{"key": "nvidia.com/gpu", "value": "true", "effect": effect}]);
        }
        if src.chance(40) {
            g["maxPodsPerNode"] = if wild { json!(src.pick(&[1i64, 0, -3, i64::MAX])) } else { json!(src.pick(&[8, 58, 110])) };
        }
        if src.chance(40) {
            g["availabilityZones"] = json!(&AWS_ZONES[..1 + src.below(3)]);
        }
        named.push((name, ty.to_string()));
        groups.push(g);
    }
    let field = if managed { "managedNodeGroups" } else { "nodeGroups" };
    let doc = json!({"apiVersion": "eksctl.io/v1alpha5", "kind": "ClusterConfig",
        "metadata": {"name": "fuzz", "region": "us-east-1"}, "availabilityZones": AWS_ZONES, field: groups});
    (doc, named)
}

/// The Cluster Autoscaler's settings document and the priority expander's ConfigMap, each when
/// the bytes choose them.
fn autoscaler_settings(src: &mut Src, wild: bool, out: &mut Vec<Value>) {
    if src.chance(100) {
        let expander = if wild {
            src.pick(&["least-waste", "priority", "random", "price", "priority,priority", "nope", ""])
        } else {
            src.pick(&["least-waste", "priority,least-waste", "random", "most-pods", "least-nodes"])
        };
        let mut s = json!({"apiVersion": "nodecast/v1", "kind": "ClusterAutoscalerSettings", "expander": expander});
        if src.chance(80) {
            s["maxNodesPerScaleUp"] = if wild { json!(src.pick(&[0i64, 1, -1, i64::MAX])) } else { json!(src.pick(&[1, 10, 1000])) };
        }
        if src.chance(80) {
            s["scaleDownUtilizationThreshold"] =
                if wild { json!(src.pick(&[0.0, 1.0, 1.5, -0.1])) } else { json!(src.pick(&[0.5, 0.3, 0.9])) };
        }
        if src.chance(80) {
            s["scaleDownUnneededTime"] =
                if wild { json!(src.pick(&["0s", "-1m", "9999999h"])) } else { json!(src.pick(&["10m", "1m", "1h"])) };
        }
        out.push(s);
    }
    if src.chance(60) {
        let priorities = if wild {
            src.pick(&["x:\n  - (\n", "5: [\"(\"]\n", "10: 7\n"])
        } else {
            src.pick(&["50:\n  - ^gpu-a\n10:\n  - .*\n", "10:\n  - .*\n", "5: [\"^cpu\"]\n"])
        };
        out.push(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cluster-autoscaler-priority-expander", "namespace": "kube-system"},
            "data": {"priorities": priorities}}));
    }
}

/// Nodes of the groups (as EKS labels them) with pods bound to them.
fn group_nodes(src: &mut Src, groups: &[(String, String)], out: &mut Vec<Value>) {
    for i in 0..src.below(4) {
        let (group, ty) = &groups[src.below(groups.len())];
        let name = format!("ip-10-0-0-{i}.ec2.internal");
        let gpus = if ty.starts_with('g') || ty.starts_with('p') { "1" } else { "0" };
        out.push(json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "creationTimestamp": src.pick(&["2026-11-25T08:00:00Z", "2026-11-25T11:55:00Z"]),
                "labels": {"eks.amazonaws.com/nodegroup": group, "node.kubernetes.io/instance-type": ty,
                           "topology.kubernetes.io/zone": src.pick(AWS_ZONES), "kubernetes.io/arch": "amd64",
                           "eks.amazonaws.com/capacityType": src.pick(&["ON_DEMAND", "SPOT"])}},
            "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "58", "nvidia.com/gpu": gpus}}}));
        for j in 0..src.below(3) {
            let mut pod = json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": format!("b-{i}-{j}"), "namespace": src.pick(&["default", "kube-system", "ml"])},
                "spec": {"nodeName": name, "containers": [{"name": "c", "resources": {"requests": {"cpu": src.pick(&["100m", "1", "3"])}}}]}});
            if src.chance(100) {
                pod["metadata"]["ownerReferences"] =
                    json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u", "controller": true}]);
            }
            if src.chance(40) {
                pod["metadata"]["annotations"] = json!({"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"});
            }
            out.push(pod);
        }
    }
}

/// Valid pending work for the groups: Jobs, Deployments and Pods asking for CPU or GPUs,
/// tolerating the GPU taint and choosing a workload type, each when the bytes choose.
fn workloads(src: &mut Src, out: &mut Vec<Value>) {
    for i in 0..1 + src.below(4) {
        let mut requests = json!({"cpu": src.pick(&["500m", "2", "7", "40"]), "memory": src.pick(&["1Gi", "8Gi", "100Gi"])});
        if src.chance(160) {
            requests["nvidia.com/gpu"] = json!(src.pick(&["1", "1", "4", "8"]));
        }
        let mut spec = json!({"containers": [{"name": "c", "resources": {"requests": requests}}]});
        if src.chance(180) {
            spec["tolerations"] = json!([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]);
        }
        if src.chance(60) {
            spec["nodeSelector"] = json!({"workload-type": src.pick(&["training", "inference"])});
        }
        if src.chance(40) {
            spec["priorityClassName"] = json!("system-node-critical");
        }
        let app = format!("w{i}");
        let template = json!({"metadata": {"labels": {"app": app}}, "spec": spec});
        let ns = src.pick(&["ml", "default"]);
        out.push(match src.below(3) {
            0 => json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": format!("job-{i}"), "namespace": ns},
                "spec": {"parallelism": src.pick(&[1, 2, 5]), "completions": src.pick(&[1, 5]), "template": template}}),
            1 => json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": format!("dep-{i}"), "namespace": ns},
                "spec": {"replicas": src.pick(&[1, 3, 12]), "selector": {"matchLabels": {"app": app}}, "template": template}}),
            _ => {
                json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": format!("pod-{i}"), "namespace": ns, "labels": {"app": app}},
                "spec": template["spec"]})
            }
        });
    }
}

/// A Comparison's totals and series are finite, non-negative and aligned.
fn check_comparison(v: &Value) {
    let sides = v["sides"].as_array().expect("sides");
    assert_eq!(sides.len(), 2, "a comparison has two sides: {v}");
    for side in sides {
        for key in ["costUsd", "pendingPodMinutes", "gpuHoursPaid", "idleGpuHours"] {
            let x = side[key].as_f64().unwrap_or_else(|| panic!("{key} is not a number: {side}"));
            assert!(x.is_finite() && x >= 0.0, "{key} = {x}: {side}");
        }
        let idle = side["idleGpuHours"].as_f64().unwrap_or(0.0);
        let paid = side["gpuHoursPaid"].as_f64().unwrap_or(0.0);
        assert!(idle <= paid * (1.0 + 1e-9) + 1e-9, "idle GPU-hours above those paid: {side}");
    }
    let times = v["series"]["timesSeconds"].as_array().expect("timesSeconds").len();
    for key in ["nodes", "gpus", "pendingPods", "pricePerHour"] {
        for (i, run) in v["series"][key].as_array().expect("series").iter().enumerate() {
            assert_eq!(run.as_array().expect("a side's series").len(), times, "series {key}[{i}] is not aligned with the clock");
        }
    }
}

/// The whole target. Returns whether the side by side answered (and was checked in full).
pub fn facade_node_groups(data: &[u8]) -> bool {
    let mut src = Src::new(data);
    let wild = src.chance(48);
    let (config, groups) = cluster_config(&mut src, wild);
    let mut objects = vec![config];
    autoscaler_settings(&mut src, wild, &mut objects);
    if src.chance(128) {
        group_nodes(&mut src, &groups, &mut objects);
    }
    if wild {
        cluster::workloads(&mut src, &mut objects);
    } else {
        workloads(&mut src, &mut objects);
    }
    let trace = checks::sim_trace(&mut src, &objects, wild);
    let inputs = json!([{"name": "groups.yaml", "text": cluster::to_yaml(&objects)}]);
    for (function, extra) in [
        ("plan", json!({"autoscaler": "cluster-autoscaler"})),
        ("consolidate", json!({"autoscaler": "cluster-autoscaler", "now": NOW})),
        ("migrate", json!({})),
    ] {
        let mut request = json!({"inputs": inputs});
        for (k, x) in extra.as_object().expect("fields") {
            request[k] = x.clone();
        }
        checks::run(|| nodecast::call(function, &request.to_string()));
    }
    let request = json!({
        "inputs": inputs,
        "trace": {"name": "trace.yaml", "text": trace.to_string()},
        "simulation": {"seed": src.byte(), "maxEvents": 20_000, "maxPodAttempts": 20_000},
        "compare": "cluster-autoscaler",
    })
    .to_string();
    if std::env::var_os("NODECAST_SIM_DEBUG").is_some() {
        eprintln!("compare request: {request}");
    }
    let v = checks::run(|| nodecast::call("simulate", &request));
    if v["status"] != "success" {
        if std::env::var_os("NODECAST_SIM_DEBUG").is_some() {
            eprintln!("refused: {} {} {}", v["errors"][0]["code"], v["errors"][0]["path"], v["errors"][0]["message"]);
        }
        return false;
    }
    assert_eq!(v["kind"], "Comparison", "{v}");
    check_comparison(&v);
    true
}
