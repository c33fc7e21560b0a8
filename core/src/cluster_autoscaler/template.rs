//! Node templates as the Cluster Autoscaler's AWS provider builds them for a group with no
//! node to copy (scale from zero): cluster-autoscaler/cloudprovider/aws/aws_manager.go,
//! `buildNodeFromTemplate`, and aws_wrapper.go, `getManagedNodegroupInfo`.
//!
//! - Capacity: the first instance type's vCPUs, memory (the full MiB of the instance, not
//!   Karpenter's capacity less VM overhead), GPUs as `nvidia.com/gpu`, and `pods: 110` whatever
//!   the kubelet's max-pods; `k8s.io/cluster-autoscaler/node-template/resources/<name>` tags set
//!   any resource (the managed node group's own tags win over the ASG's). No
//!   `ephemeral-storage`: a pod requesting it fits no template unless a tag gives it.
//! - Allocatable is the capacity (no kube-reserved, no eviction threshold).
//! - Labels: arch, os `linux`, instance type, region, zone (the group's first zone) and the EBS
//!   CSI zone label, the node's hostname; `node-template/label/` tags; the ASG's `eks:` tags as
//!   labels without the prefix (`nodegroup-name`, `cluster-name`); for an EKS managed group, the
//!   DescribeNodegroup labels: `eks.amazonaws.com/capacityType`, `eks.amazonaws.com/nodegroup`
//!   and the group's labels (these win).
//! - Taints: `node-template/taint/<key>` tags valued `<value>:<effect>`, then a managed group's
//!   taints.

use crate::labels::Interner;
use crate::model::{LabelSet, Model};
use crate::node_groups::NodeGroup;
use crate::resources::{Resources, CPU, MEMORY, PODS};
use crate::taints::{Effect, Taint};

/// The Cluster Autoscaler's hard-coded pod capacity of an AWS template node.
pub const TEMPLATE_PODS: i64 = 110;

const LABEL_TAG: &str = "k8s.io/cluster-autoscaler/node-template/label/";
const TAINT_TAG: &str = "k8s.io/cluster-autoscaler/node-template/taint/";
const RESOURCE_TAG: &str = "k8s.io/cluster-autoscaler/node-template/resources/";

/// One node group's template node.
#[derive(Debug, Clone)]
pub struct Template {
    pub instance_type: String,
    pub zone: String,
    /// Labels by name, sorted (for the answer) and interned (for matching).
    pub label_pairs: Vec<(String, String)>,
    pub labels: LabelSet,
    pub taints: Vec<Taint>,
    pub capacity: Resources,
    /// Resources named by tags that no pod of the input asks for (shown, never matched).
    pub other_resources: Vec<(String, String)>,
    /// Per node per hour: the catalog's offering of the group's capacity type in its zone.
    pub price: f64,
}

impl Template {
    /// A running node as the autoscaler's node info sees it (its allocatable, labels and taints;
    /// no label pairs or other resources to show): what scale-down re-places pods onto.
    pub fn of_node(n: &crate::model::ExistingNode, price: f64) -> Template {
        Template {
            instance_type: n.instance_type.clone().unwrap_or_default(),
            zone: n.zone.clone().unwrap_or_default(),
            label_pairs: Vec::new(),
            labels: n.labels.clone(),
            taints: n.taints.clone(),
            capacity: n.allocatable.clone(),
            other_resources: Vec::new(),
            price,
        }
    }
}

/// The template of `g`, or why there is none (an instance type the catalog lacks).
// One error per node group, collected by the caller: its size does not matter.
#[allow(clippy::result_large_err)]
pub fn build(m: &Model, interner: &mut Interner, g: &NodeGroup) -> Result<Template, crate::error::InputError> {
    let first = &g.instance_types[0];
    let Some(it) = m.catalog.find(first) else {
        let field = if g.location.object.starts_with("terraform/") { "instance_types[0]" } else { "instanceType" };
        return Err(g
            .location
            .error("unknown-instance-type", format!("instance type {first:?} is not in the {} catalog", m.catalog.source), field)
            .help("an instance type of the catalog (nodecast catalog), or a catalog that has it")
            .kind(crate::error::ErrorKind::Catalog));
    };
    let t = &m.catalog.types[it];
    let label = |key: &str| interner.get(key).and_then(|k| t.labels.get(k)).map(|v| interner.str(v).to_string());
    let vcpu = label("karpenter.k8s.aws/instance-cpu").and_then(|v| v.parse::<i64>().ok()).map(|c| c * 1000);
    let mem_mib = label("karpenter.k8s.aws/instance-memory").and_then(|v| v.parse::<i64>().ok());
    let gpus = label("karpenter.k8s.aws/instance-gpu-count").and_then(|v| v.parse::<i64>().ok());
    let arch = label("kubernetes.io/arch").unwrap_or_else(|| "amd64".into());
    let mut capacity = Resources::new();
    capacity.set(CPU, vcpu.unwrap_or_else(|| t.capacity.get(CPU)));
    capacity.set(MEMORY, mem_mib.map(|m| m * 1024 * 1024 * 1000).unwrap_or_else(|| t.capacity.get(MEMORY)));
    capacity.set(PODS, TEMPLATE_PODS * 1000);
    if let Some(gpu) = m.resources.get("nvidia.com/gpu") {
        capacity.set(gpu, gpus.map(|n| n * 1000).unwrap_or_else(|| t.capacity.get(gpu)));
    }
    let mut other_resources = Vec::new();
    for (k, v) in g.asg_tags.iter().chain(g.group_tags.iter()) {
        let Some(name) = k.strip_prefix(RESOURCE_TAG).filter(|n| !n.is_empty()) else { continue };
        // The Cluster Autoscaler skips a tag whose value is not a quantity.
        let Ok(milli) = crate::quantity::parse_milli(v) else { continue };
        match m.resources.get(name) {
            Some(id) => capacity.set(id, milli),
            None => {
                other_resources.retain(|(n, _): &(String, String)| n != name);
                other_resources.push((name.to_string(), v.clone()));
            }
        }
    }
    let zone = g.zones.first().cloned().or_else(|| m.catalog.zones.first().map(|z| interner.str(*z).to_string())).unwrap_or_default();
    let region = m.catalog.region.clone().unwrap_or_else(|| zone.trim_end_matches(|c: char| c.is_ascii_alphabetic()).to_string());
    let hostname = format!("{}-template", g.name);
    let mut pairs: Vec<(String, String)> = vec![
        ("kubernetes.io/arch".into(), arch),
        ("kubernetes.io/os".into(), "linux".into()),
        ("node.kubernetes.io/instance-type".into(), first.clone()),
        ("topology.kubernetes.io/region".into(), region),
        ("topology.kubernetes.io/zone".into(), zone.clone()),
        ("topology.ebs.csi.aws.com/zone".into(), zone.clone()),
        ("kubernetes.io/hostname".into(), hostname),
    ];
    let set = |pairs: &mut Vec<(String, String)>, k: &str, v: &str| match pairs.iter_mut().find(|(pk, _)| pk == k) {
        Some(p) => p.1 = v.to_string(),
        None => pairs.push((k.to_string(), v.to_string())),
    };
    let mut asg_tags = g.asg_tags.clone();
    if g.managed {
        // EKS tags a managed group's Auto Scaling group with these two.
        asg_tags.push(("eks:cluster-name".into(), g.cluster.clone()));
        asg_tags.push(("eks:nodegroup-name".into(), g.name.clone()));
    }
    for (k, v) in &asg_tags {
        let label = k.strip_prefix(LABEL_TAG).or_else(|| k.split_once("eks:").map(|(_, rest)| rest));
        if let Some(l) = label.filter(|l| !l.is_empty()) {
            set(&mut pairs, l, v);
        }
    }
    let mut taints = Vec::new();
    for (k, v) in &asg_tags {
        let Some(key) = k.strip_prefix(TAINT_TAG) else { continue };
        let Some((value, effect)) = v.split_once(':') else { continue };
        if let Some(effect) = Effect::parse(effect) {
            taints.push(Taint { key: key.to_string(), value: value.to_string(), effect });
        }
    }
    if g.managed {
        set(&mut pairs, "eks.amazonaws.com/capacityType", if g.spot { "SPOT" } else { "ON_DEMAND" });
        set(&mut pairs, "eks.amazonaws.com/nodegroup", &g.name);
        for (k, v) in &g.labels {
            set(&mut pairs, k, v);
        }
        taints.extend(g.taints.iter().cloned());
    }
    pairs.sort();
    let labels = LabelSet::from_pairs(pairs.iter().map(|(k, v)| (interner.intern(k), interner.intern(v))).collect());
    let price = price_of(m, interner, it, &zone, g.spot);
    Ok(Template { instance_type: first.clone(), zone, label_pairs: pairs, labels, taints, capacity, other_resources, price })
}

/// The hourly price of one node: the catalog's offering in `zone` when it has one, else the
/// type's price for the capacity type.
fn price_of(m: &Model, interner: &Interner, it: usize, zone: &str, spot: bool) -> f64 {
    let t = &m.catalog.types[it];
    let ct = if spot { m.keys.spot } else { m.keys.on_demand };
    let zone_id = interner.get(zone);
    t.offerings
        .iter()
        .find(|o| o.capacity_type == ct && Some(o.zone) == zone_id)
        .or_else(|| t.offerings.iter().find(|o| o.capacity_type == ct))
        .map(|o| o.price)
        .unwrap_or(if spot { t.spot_price.unwrap_or(t.on_demand_price * m.catalog.spot_price_factor) } else { t.on_demand_price })
}
