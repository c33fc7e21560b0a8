//! `terraform show -json` output (a state or a saved plan): every `aws_eks_node_group` resource
//! of the root module and of every child module — which is where the terraform-aws-modules/eks
//! module's `eks_managed_node_groups` end up (`module.eks.module.eks_managed_node_group["gpu"]`).
//! Attribute names follow the AWS provider's `aws_eks_node_group` (`node_group_name`,
//! `instance_types`, `capacity_type`, `scaling_config`, `labels`, `taint`, `tags`). HCL as
//! written is not read: evaluating it (variables, `for_each`, module defaults) is Terraform's
//! job, and `terraform show -json` gives its result.

use super::{parse_effect, Location, NodeGroup};
use crate::error::InputError;
use crate::manifest::reader::{At, Sink};
use crate::manifest::Document;
use crate::taints::Taint;

pub fn is_plan(d: &Document) -> bool {
    d.value.get("format_version").is_some() && (d.value.get("values").is_some() || d.value.get("planned_values").is_some())
}

pub fn read(d: &Document, groups: &mut Vec<NodeGroup>, errors: &mut Vec<InputError>) {
    let object = || "terraform".to_string();
    let mut sink = Sink { document: d.index, object: &object, errors };
    let root = At::root(&d.value, "");
    // A saved plan carries what apply would create under planned_values; a state under values.
    let Some(values) = root.get("planned_values").or_else(|| root.get("values")) else { return };
    if let Some(m) = values.get("root_module") {
        module(&mut sink, &m, d, groups, 0);
    }
}

/// Modules nest (module.eks.module.eks_managed_node_group[...]); a few levels is all Terraform
/// configurations use, the bound keeps a hostile document from recursing without end.
const MAX_MODULE_DEPTH: usize = 32;

fn module(sink: &mut Sink, at: &At, d: &Document, groups: &mut Vec<NodeGroup>, depth: usize) {
    if depth > MAX_MODULE_DEPTH {
        sink.limit(at, "input-too-deep", format!("modules nest deeper than {MAX_MODULE_DEPTH} levels"), "");
        return;
    }
    if let Some(list) = at.get("resources") {
        for r in sink.list(&list) {
            if r.v.get("type").and_then(|t| t.as_str()) != Some("aws_eks_node_group")
                || r.v.get("mode").and_then(|m| m.as_str()) == Some("data")
            {
                continue;
            }
            let address = r.v.get("address").and_then(|a| a.as_str()).unwrap_or("aws_eks_node_group").to_string();
            let Some(values) = r.get("values") else {
                sink.error(&r, "required", format!("{address} has no values"), "terraform show -json output");
                continue;
            };
            if let Some(g) = node_group(sink, &values, &address) {
                let location =
                    Location { source: d.source.clone(), document: d.index, object: format!("terraform/{address}"), path: values.path() };
                groups.push(NodeGroup { location, ..g });
            }
        }
    }
    if let Some(list) = at.get("child_modules") {
        for m in sink.list(&list) {
            module(sink, &m, d, groups, depth + 1);
        }
    }
}

fn node_group(sink: &mut Sink, at: &At, address: &str) -> Option<NodeGroup> {
    // The name is known after apply only when Terraform generates it (node_group_name_prefix);
    // the resource's own name then stands in.
    let name = sink
        .opt_scalar(at, "node_group_name")
        .filter(|n| !n.is_empty())
        .or_else(|| sink.opt_scalar(at, "node_group_name_prefix"))
        .unwrap_or_else(|| address.rsplit('.').next().unwrap_or(address).to_string());
    let cluster = sink.opt_scalar(at, "cluster_name").unwrap_or_default();
    let instance_types = at.get("instance_types").map(|a| sink.string_list(&a)).unwrap_or_default();
    if instance_types.is_empty() {
        // EKS's default for a managed node group without instance types or a launch template.
        sink.error(at, "required", format!("{address} names no instance_types"), "instance_types = [\"g5.xlarge\"]");
        return None;
    }
    let spot = match sink.opt_scalar(at, "capacity_type").as_deref() {
        None | Some("ON_DEMAND") => false,
        Some("SPOT") => true,
        Some(other) => {
            let c = at.get("capacity_type").unwrap_or(*at);
            sink.error(&c, "invalid-capacity-type", format!("capacity_type {other:?}"), "ON_DEMAND or SPOT");
            false
        }
    };
    let (mut min, mut max, mut desired) = (1, 1, 1);
    match at.get("scaling_config") {
        Some(sc) => {
            // A block list of one element in the JSON.
            let items = sink.list(&sc);
            if let Some(first) = items.first() {
                min = first.get("min_size").and_then(|a| sink.int_in(&a, 0, i32::MAX as i64, "a non-negative integer")).unwrap_or(min);
                max = first.get("max_size").and_then(|a| sink.int_in(&a, 1, i32::MAX as i64, "a positive integer")).unwrap_or(max);
                desired = first
                    .get("desired_size")
                    .and_then(|a| sink.int_in(&a, 0, i32::MAX as i64, "a non-negative integer"))
                    .unwrap_or(desired);
                if min > max || desired < min || desired > max {
                    sink.error(
                        first,
                        "invalid-size",
                        format!("min_size {min} <= desired_size {desired} <= max_size {max} does not hold"),
                        "min_size <= desired_size <= max_size",
                    );
                }
            }
        }
        None => {
            sink.error(at, "required", format!("{address} has no scaling_config"), "scaling_config { min_size, max_size, desired_size }")
        }
    }
    let labels = at.get("labels").map(|a| sink.string_map(&a)).unwrap_or_default();
    let mut taints = Vec::new();
    if let Some(list) = at.get("taint") {
        for t in sink.list(&list) {
            let key = sink.opt_scalar(&t, "key").unwrap_or_default();
            let value = sink.opt_scalar(&t, "value").unwrap_or_default();
            let eff = sink.opt_scalar(&t, "effect").unwrap_or_default();
            match parse_effect(&eff) {
                Some(effect) if !key.is_empty() => taints.push(Taint { key, value, effect }),
                _ => sink.error(
                    &t,
                    "invalid-taint",
                    format!("taint {key:?} with effect {eff:?}"),
                    "key and effect NO_SCHEDULE, NO_EXECUTE or PREFER_NO_SCHEDULE",
                ),
            }
        }
    }
    // `tags_all` includes the provider's default tags; both stay on the EKS node group (EKS
    // does not copy them to the Auto Scaling group).
    let group_tags = at.get("tags_all").or_else(|| at.get("tags")).map(|a| sink.string_map(&a)).unwrap_or_default();
    Some(NodeGroup {
        name,
        cluster,
        managed: true,
        instance_types,
        spot,
        min_size: min,
        max_size: max,
        desired,
        labels,
        taints,
        asg_tags: Vec::new(),
        group_tags,
        max_pods: None,
        zones: Vec::new(),
        location: Location::default(),
    })
}
