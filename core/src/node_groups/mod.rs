//! Node groups as teams describe them today, read into one shape for the Cluster Autoscaler
//! engine (`cluster_autoscaler`): eksctl's `ClusterConfig` (`eksctl`), `terraform show -json`
//! output (`terraform`), the Cluster Autoscaler's settings and its priority-expander ConfigMap
//! (`settings`).
//!
//! Nothing here knows the catalog: an instance type the catalog lacks is found when the engine
//! builds the group's node template, and reported at the path kept in [`NodeGroup::path`].

mod eksctl;
mod settings;
mod terraform;

pub use settings::{CaSettings, Expander, PriorityRule};

use crate::error::InputError;
use crate::manifest::Document;
use crate::taints::Taint;

/// One node group (an EKS managed node group, an eksctl self-managed node group or a Terraform
/// `aws_eks_node_group`): the Auto Scaling group the Cluster Autoscaler resizes.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeGroup {
    /// The node group's name.
    pub name: String,
    /// The EKS cluster it belongs to (`metadata.name` of the ClusterConfig, `cluster_name`).
    pub cluster: String,
    /// An EKS managed node group: the Cluster Autoscaler reads its labels and taints from EKS
    /// (DescribeNodegroup), whatever the Auto Scaling group's tags say.
    pub managed: bool,
    /// In the order written; the Cluster Autoscaler's template is built from the first.
    pub instance_types: Vec<String>,
    /// Spot instances (else on-demand).
    pub spot: bool,
    /// The group's minimum size.
    pub min_size: i64,
    /// The group's maximum size.
    pub max_size: i64,
    /// The group's current size (`desiredCapacity`), its nodes already running.
    pub desired: i64,
    /// Kubernetes labels the group's nodes get.
    pub labels: Vec<(String, String)>,
    /// The template's taints (`key=value:Effect`).
    pub taints: Vec<Taint>,
    /// Tags on the Auto Scaling group (what the Cluster Autoscaler reads for scale-from-zero:
    /// `k8s.io/cluster-autoscaler/node-template/{label,taint,resources}/...`).
    pub asg_tags: Vec<(String, String)>,
    /// Tags on the EKS managed node group resource (the Cluster Autoscaler reads their
    /// `node-template/resources/` entries only).
    pub group_tags: Vec<(String, String)>,
    /// `maxPodsPerNode`: what the kubelet allows; the Cluster Autoscaler's template assumes 110.
    pub max_pods: Option<i64>,
    /// Availability zones, in order; the template is in the first.
    pub zones: Vec<String>,
    /// Where the group was written, for errors found later (the catalog lacks a type).
    pub location: Location,
}

/// A node group's place in the input.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    /// The input it came from.
    pub source: Option<String>,
    /// Its document index.
    pub document: usize,
    /// `ClusterConfig/<cluster>` or `terraform/<address>`.
    pub object: String,
    /// Path of the group inside its document (`managedNodeGroups[1]`).
    pub path: String,
}

impl Location {
    /// A located error about field `field` of the group (`instanceType`, or empty for the
    /// group itself).
    pub fn error(&self, code: &str, message: impl Into<String>, field: &str) -> InputError {
        let path = if field.is_empty() { self.path.clone() } else { format!("{}.{field}", self.path) };
        let mut e = InputError::new(code, message).at_document(self.document).object(self.object.clone()).path(path);
        e.source = self.source.clone();
        e.kind = crate::error::ErrorKind::Admission;
        e
    }
}

/// What the inputs say about node groups and the Cluster Autoscaler.
#[derive(Debug, Clone, Default)]
pub struct NodeGroupInput {
    /// The node groups, in input order.
    pub groups: Vec<NodeGroup>,
    /// The Cluster Autoscaler's settings.
    pub settings: CaSettings,
    /// Documents read here (index, kind, name), which the Karpenter side lists as skipped.
    pub consumed: Vec<(Option<String>, usize)>,
}

impl NodeGroupInput {
    /// Whether the inputs describe any node group or Cluster Autoscaler setting.
    pub fn is_empty(&self) -> bool {
        self.consumed.is_empty()
    }
}

/// Whether `doc` is one this module reads.
pub fn recognises(doc: &Document) -> bool {
    eksctl::is_cluster_config(doc) || terraform::is_plan(doc) || settings::is_settings(doc) || settings::is_priority_config_map(doc)
}

/// Read every node-group document of `docs`; every problem is reported, located.
pub fn read(docs: &[Document]) -> Result<NodeGroupInput, Vec<InputError>> {
    let mut out = NodeGroupInput::default();
    let mut errors = Vec::new();
    let mut settings_seen = false;
    let mut priorities_seen = false;
    // Where the expander chain was set: a `priority` there without the ConfigMap is refused at it.
    let mut expander_at = None;
    for d in docs {
        let before = errors.len();
        if eksctl::is_cluster_config(d) {
            eksctl::read(d, &mut out.groups, &mut errors);
        } else if terraform::is_plan(d) {
            terraform::read(d, &mut out.groups, &mut errors);
        } else if settings::is_settings(d) {
            if settings_seen {
                errors.push(settings::duplicate(d, "a second Cluster Autoscaler settings document"));
            }
            settings_seen = true;
            settings::read(d, &mut out.settings, &mut errors);
            expander_at = Some(d);
        } else if settings::is_priority_config_map(d) {
            if priorities_seen {
                errors.push(settings::duplicate(d, "a second cluster-autoscaler-priority-expander ConfigMap"));
            }
            priorities_seen = true;
            settings::read_priorities(d, &mut out.settings, &mut errors);
        } else {
            continue;
        }
        for e in &mut errors[before..] {
            if e.source.is_none() {
                e.source = d.source.clone();
            }
            if !d.prefix.is_empty() {
                e.path = Some(match e.path.take() {
                    Some(p) => format!("{}.{p}", d.prefix),
                    None => d.prefix.clone(),
                });
            }
        }
        out.consumed.push((d.source.clone(), d.index));
    }
    // Two groups of one name: the Cluster Autoscaler names groups by their ASG, and the
    // priority expander and the answer by that name, so a duplicate is ambiguous.
    for (i, g) in out.groups.iter().enumerate() {
        if out.groups[..i].iter().any(|h| h.name == g.name && h.cluster == g.cluster) {
            errors.push(g.location.error("duplicate-node-group", format!("node group {:?} is defined twice", g.name), "name"));
        }
    }
    // Without its ConfigMap the priority expander has no rules, and the Cluster Autoscaler does
    // not scale up at all (expander/priority: a missing ConfigMap is an error, not "no
    // preference"), so such an input is refused where it names the expander.
    if out.settings.expanders.contains(&Expander::Priority) && !priorities_seen {
        if let Some(d) = expander_at {
            let path = if d.prefix.is_empty() { "expander".to_string() } else { format!("{}.expander", d.prefix) };
            let mut e = InputError::new(
                "missing-priorities",
                "the priority expander needs its ConfigMap cluster-autoscaler-priority-expander; without it the Cluster \
                 Autoscaler does not scale up",
            )
            .at_document(d.index)
            .object(d.object())
            .path(path)
            .help("add the ConfigMap (kube-system/cluster-autoscaler-priority-expander, data.priorities) to the inputs");
            e.source = d.source.clone();
            e.kind = crate::error::ErrorKind::Admission;
            errors.push(e);
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// A taint effect as eksctl and Kubernetes write it, or as EKS's API does (`NO_SCHEDULE`).
pub(crate) fn parse_effect(s: &str) -> Option<crate::taints::Effect> {
    let k8s = match s {
        "NO_SCHEDULE" => "NoSchedule",
        "NO_EXECUTE" => "NoExecute",
        "PREFER_NO_SCHEDULE" => "PreferNoSchedule",
        other => other,
    };
    crate::taints::Effect::parse(k8s)
}

#[cfg(test)]
mod tests;
