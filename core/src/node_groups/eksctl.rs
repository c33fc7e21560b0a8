//! eksctl's `ClusterConfig` (`eksctl.io/v1alpha5`): `managedNodeGroups` (EKS managed node
//! groups) and `nodeGroups` (self-managed Auto Scaling groups). Field names follow eksctl's
//! `pkg/apis/eksctl.io/v1alpha5/types.go`. Fields that do not change what the Cluster
//! Autoscaler decides (IAM, SSH, AMIs, volumes, networking) are read by eksctl, not here;
//! fields that would change it and are not modelled (`instanceSelector`) are refused.

use super::{parse_effect, Location, NodeGroup};
use crate::error::InputError;
use crate::manifest::reader::{At, Sink};
use crate::manifest::Document;
use crate::taints::Taint;

pub fn is_cluster_config(d: &Document) -> bool {
    d.kind() == "ClusterConfig" && d.api_version().starts_with("eksctl.io/")
}

/// eksctl's default node count when a group gives none of min/max/desired (`DefaultNodeCount`).
const DEFAULT_NODE_COUNT: i64 = 2;

pub fn read(d: &Document, groups: &mut Vec<NodeGroup>, errors: &mut Vec<InputError>) {
    let object_name = d.object();
    let object = || object_name.clone();
    let mut sink = Sink { document: d.index, object: &object, errors };
    let root = At::root(&d.value, "");
    if d.api_version() != "eksctl.io/v1alpha5" {
        let at = root.get("apiVersion").unwrap_or(root);
        sink.error(
            &at,
            "unsupported-api-version",
            format!("ClusterConfig apiVersion {:?} is not read", d.api_version()),
            "eksctl.io/v1alpha5",
        );
        return;
    }
    let cluster = d.name().to_string();
    if cluster.is_empty() {
        sink.error(&root, "required", "ClusterConfig needs metadata.name (the EKS cluster's name)", "metadata.name");
    }
    let cluster_zones = root.get("availabilityZones").map(|a| sink.string_list(&a)).unwrap_or_default();
    for (field, managed) in [("managedNodeGroups", true), ("nodeGroups", false)] {
        let Some(list) = root.get(field) else { continue };
        for item in sink.list(&list) {
            let path = item.path();
            if let Some(g) = group(&mut sink, &item, managed, &cluster, &cluster_zones) {
                let location = Location { source: d.source.clone(), document: d.index, object: object_name.clone(), path };
                groups.push(NodeGroup { location, ..g });
            }
        }
    }
}

fn group(sink: &mut Sink, at: &At, managed: bool, cluster: &str, cluster_zones: &[String]) -> Option<NodeGroup> {
    let Some(name) = sink.opt_scalar(at, "name") else {
        sink.error(at, "required", "a node group needs a name", "name");
        return None;
    };
    if let Some(sel) = at.get("instanceSelector") {
        sink.error(
            &sel,
            "not-modelled",
            "instanceSelector (eksctl chooses the instance types) is not modelled",
            "list the types in instanceTypes",
        );
    }
    let mut instance_types = Vec::new();
    if let Some(t) = sink.opt_scalar(at, "instanceType") {
        // eksctl's placeholder for "decided by instancesDistribution".
        if t != "mixed" {
            instance_types.push(t);
        }
    }
    let mut spot = false;
    if let Some(list) = at.get("instanceTypes") {
        if !managed {
            sink.error(
                &list,
                "unknown-field",
                "self-managed nodeGroups take instancesDistribution.instanceTypes",
                "instancesDistribution.instanceTypes",
            );
        }
        instance_types.extend(sink.string_list(&list));
    }
    if let Some(dist) = at.get("instancesDistribution") {
        if managed {
            sink.error(
                &dist,
                "unknown-field",
                "managedNodeGroups take instanceTypes and spot, not instancesDistribution",
                "instanceTypes, spot",
            );
        }
        if let Some(list) = dist.get("instanceTypes") {
            instance_types.extend(sink.string_list(&list));
        }
        // All-spot when nothing is kept on demand (the common GPU setup); a mix of both is
        // one ASG launching both, which one template cannot describe.
        let base = sink.opt_int(&dist, "onDemandBaseCapacity", "an integer").unwrap_or(0);
        let pct = sink.opt_int(&dist, "onDemandPercentageAboveBaseCapacity", "an integer").unwrap_or(100);
        spot = base == 0 && pct == 0;
        if !spot && pct != 100 {
            sink.error(
                &dist,
                "not-modelled",
                format!("a group mixing on-demand ({pct}% above {base}) and spot instances is not modelled"),
                "onDemandPercentageAboveBaseCapacity 0 (all spot) or 100 (all on-demand)",
            );
        }
    }
    if let Some(s) = at.get("spot") {
        if !managed {
            sink.error(&s, "unknown-field", "self-managed nodeGroups choose spot with instancesDistribution", "instancesDistribution");
        } else {
            spot = sink.bool(&s).unwrap_or(false);
        }
    }
    if instance_types.is_empty() {
        sink.error(at, "required", format!("node group {name:?} names no instance type"), "instanceType or instanceTypes");
        return None;
    }
    let min = at.get("minSize").and_then(|a| sink.int_in(&a, 0, i32::MAX as i64, "a non-negative integer"));
    let max = at.get("maxSize").and_then(|a| sink.int_in(&a, 0, i32::MAX as i64, "a non-negative integer"));
    let desired_at = at.get("desiredCapacity");
    let desired = desired_at.and_then(|a| sink.int_in(&a, 0, i32::MAX as i64, "a non-negative integer"));
    let desired = desired.or(min).unwrap_or_else(|| max.map_or(DEFAULT_NODE_COUNT, |m| m.min(DEFAULT_NODE_COUNT)));
    let (min, max) = (min.unwrap_or(desired), max.unwrap_or(desired));
    if min > max {
        sink.error(at, "invalid-size", format!("minSize {min} is above maxSize {max}"), "minSize <= desiredCapacity <= maxSize");
    } else if desired < min || desired > max {
        let a = desired_at.unwrap_or(*at);
        sink.error(
            &a,
            "invalid-size",
            format!("desiredCapacity {desired} is outside [{min}, {max}]"),
            "minSize <= desiredCapacity <= maxSize",
        );
    }
    let labels = at.get("labels").map(|a| sink.string_map(&a)).unwrap_or_default();
    let taints = at.get("taints").map(|a| taints(sink, &a)).unwrap_or_default();
    let tags = at.get("tags").map(|a| sink.string_map(&a)).unwrap_or_default();
    let propagate = at.get("propagateASGTags").and_then(|a| sink.bool(&a)).unwrap_or(false);
    let max_pods = at.get("maxPodsPerNode").and_then(|a| sink.int_in(&a, 1, i32::MAX as i64, "a positive integer"));
    let zones = at.get("availabilityZones").map(|a| sink.string_list(&a)).unwrap_or_else(|| cluster_zones.to_vec());
    // What reaches the Auto Scaling group's tags. A managed group's tags stay on the EKS node
    // group unless propagateASGTags copies them; with it eksctl also writes the labels and
    // taints as node-template tags. A self-managed group's tags are the ASG's own.
    let mut asg_tags = Vec::new();
    let mut group_tags = Vec::new();
    if managed {
        group_tags = tags.clone();
        if propagate {
            asg_tags = tags;
        }
    } else {
        asg_tags = tags;
    }
    if propagate {
        for (k, v) in &labels {
            asg_tags.push((format!("k8s.io/cluster-autoscaler/node-template/label/{k}"), v.clone()));
        }
        for t in &taints {
            asg_tags
                .push((format!("k8s.io/cluster-autoscaler/node-template/taint/{}", t.key), format!("{}:{}", t.value, t.effect.as_str())));
        }
    }
    Some(NodeGroup {
        name,
        cluster: cluster.to_string(),
        managed,
        instance_types,
        spot,
        min_size: min,
        max_size: max,
        desired,
        labels,
        taints,
        asg_tags,
        group_tags,
        max_pods,
        zones,
        location: Location::default(),
    })
}

/// eksctl's taints: a list of `{key, value, effect}`, or (older spelling) a mapping of key to
/// `value:effect`.
fn taints(sink: &mut Sink, at: &At) -> Vec<Taint> {
    let mut out = Vec::new();
    match at.v {
        serde_json::Value::Array(_) => {
            for item in sink.list(at) {
                let Some(key) = sink.opt_scalar(&item, "key") else {
                    sink.error(&item, "required", "a taint needs a key", "key");
                    continue;
                };
                let value = sink.opt_scalar(&item, "value").unwrap_or_default();
                let Some(eff_at) = item.get("effect") else {
                    sink.error(&item, "required", "a taint needs an effect", "NoSchedule, PreferNoSchedule or NoExecute");
                    continue;
                };
                let Some(effect) = sink.scalar(&eff_at).and_then(|e| parse_effect(&e)) else {
                    sink.error(&eff_at, "invalid-taint-effect", "unknown taint effect", "NoSchedule, PreferNoSchedule or NoExecute");
                    continue;
                };
                out.push(Taint { key, value, effect });
            }
        }
        _ => {
            for (key, v) in sink.string_map(at) {
                let (value, effect) = v.rsplit_once(':').unwrap_or(("", v.as_str()));
                match parse_effect(effect) {
                    Some(effect) => out.push(Taint { key, value: value.to_string(), effect }),
                    None => {
                        let child = at.field_at("taints", at.v);
                        sink.error(&child, "invalid-taint-effect", format!("taint {key}: {v:?} has no effect"), "value:NoSchedule");
                    }
                }
            }
        }
    }
    out
}
