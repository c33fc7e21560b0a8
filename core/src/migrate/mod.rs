//! `nodecast migrate`: the NodePools and EC2NodeClass skeletons that replace the node groups of
//! the input (`node_groups`), and what each autoscaler does with the input's pending pods —
//! the Cluster Autoscaler over the groups (`cluster_autoscaler::plan`), Karpenter over the
//! proposed NodePools (`Cluster::plan`, the proposal loaded beside the other inputs as a user
//! would apply it).
//!
//! One NodePool per node group (docs/cluster-autoscaler.md, "Migration"):
//! - requirements: `node.kubernetes.io/instance-type In` the group's types (all of them: the
//!   Cluster Autoscaler's template uses the first, the group launches any), `karpenter.sh/
//!   capacity-type In` spot or on-demand, `topology.kubernetes.io/zone In` the group's zones;
//! - the group's labels (those Karpenter lets a NodePool set) and taints on the template;
//! - limits: `maxSize` nodes of the group's largest type (cpu, memory, GPUs), so the NodePool
//!   can never hold more than the group could, whichever of its types Karpenter launches;
//! - weights from the priority expander: Karpenter tries NodePools by weight, highest first, as
//!   the expander keeps the highest-priority options (priorities within 1..100 are the weights,
//!   others are replaced by their rank);
//! - disruption: `WhenEmptyOrUnderutilized` after `scaleDownUnneededTime` (10 min by default),
//!   the nearest Karpenter setting to the Cluster Autoscaler's scale-down.
//!
//! EC2NodeClasses: one per cluster and `maxPodsPerNode` (kubelet.maxPods), with the AL2023 alias
//! and discovery-tag selectors the Karpenter getting-started guide uses: skeletons whose role
//! and tags the user fills in.

use crate::api::{Plan, Warning};
use crate::cluster::Cluster;
use crate::cluster_autoscaler::NodeGroupPlan;
use crate::error::InputError;
use crate::load::{Input, Sources};
use crate::node_groups::{Expander, NodeGroup, NodeGroupInput};
use crate::resources::{CPU, MEMORY};
use indexmap::IndexMap;
use serde::Serialize;

/// The proposal and the two plans.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Migration {
    /// One NodePool per node group, in the groups' order.
    pub node_pools: Vec<MigratedNodePool>,
    /// The EC2NodeClasses the NodePools refer to.
    pub node_classes: Vec<String>,
    /// The NodePools and EC2NodeClasses as YAML documents (what `kubectl apply -f` takes).
    pub manifests: String,
    /// The Cluster Autoscaler's scale-up over the node groups for the pending pods.
    pub cluster_autoscaler: PlanSide,
    /// Karpenter's provisioning pass over the proposed NodePools for the same pods.
    pub karpenter: PlanSide,
    /// Karpenter's new nodes' $/h less the Cluster Autoscaler's (negative: Karpenter is cheaper).
    pub price_difference_per_hour: f64,
    /// The same × 730 h.
    pub price_difference_per_month: f64,
    /// What the proposal does not carry over, and what differs by design.
    pub notes: Vec<String>,
    /// Findings of both plans about the input.
    pub warnings: Vec<Warning>,
}

/// The NodePool proposed for one node group.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MigratedNodePool {
    /// The node group.
    pub node_group: String,
    /// The NodePool's name.
    pub node_pool: String,
    /// The EC2NodeClass it refers to.
    pub node_class: String,
    /// `spec.weight`, from the priority expander; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<i64>,
    /// The priority of the ConfigMap the weight comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i64>,
    /// `node.kubernetes.io/instance-type In`.
    pub instance_types: Vec<String>,
    /// `karpenter.sh/capacity-type In` (one value).
    pub capacity_type: String,
    /// `topology.kubernetes.io/zone In` (empty: no zone requirement).
    pub zones: Vec<String>,
    /// `spec.limits`: the group's max size of its largest type.
    pub limits: IndexMap<String, String>,
    /// What of this group the NodePool does not carry over.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// What one autoscaler does with the pending pods.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct PlanSide {
    /// New nodes.
    pub nodes: usize,
    /// New nodes by instance type and capacity type, most first.
    pub instance_types: Vec<TypeCount>,
    /// Pods placed (on new or current nodes).
    pub pods_placed: usize,
    /// Pods left pending (`namespace/name`).
    pub pending: Vec<String>,
    /// $/h of the new nodes.
    pub price_per_hour: f64,
    /// The same × 730 h.
    pub price_per_month: f64,
}

/// New nodes of one instance type and capacity type.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TypeCount {
    /// The instance type.
    pub instance_type: String,
    /// `spot` or `on-demand`.
    pub capacity_type: String,
    /// How many.
    pub count: usize,
}

/// The migration of the node groups of `sources`, and both plans for its pending pods.
pub fn migrate_request(sources: &Sources) -> Result<Migration, Vec<InputError>> {
    let docs = crate::load::documents(sources)?;
    if let Some(d) = docs.iter().find(|d| d.kind() == "NodePool") {
        let mut e = InputError::new("node-pools-given", "the inputs already hold a NodePool; migrate proposes NodePools for node groups")
            .at_document(d.index)
            .object(d.object())
            .help("give the node groups (eksctl or terraform show -json) and the workloads, without NodePools");
        e.source = d.source.clone();
        return Err(vec![e]);
    }
    let input = crate::node_groups::read(&docs)?;
    drop(docs);
    let (model, warnings) = crate::load::model(sources)?;
    let ca = crate::cluster_autoscaler::plan(&model, &input, &warnings)?;
    let proposal = propose(&model, &input);
    let manifests = render(&proposal, &input);
    // Karpenter over the proposal: the manifests read back as one more input, the way a user
    // applies them beside the workloads (the node-group documents are skipped by its loader).
    let mut inputs: Vec<Input> = sources.inputs.to_vec();
    inputs.push(Input { name: Some("migrated-node-pools.yaml".into()), text: manifests.clone() });
    let migrated = Sources { inputs: &inputs, objects: sources.objects, catalog: sources.catalog, settings: sources.settings };
    let plan = Cluster::load(&migrated)?.plan();
    let cluster_autoscaler = ca_side(&ca);
    let karpenter = karpenter_side(&plan);
    let diff = crate::price::round_price(karpenter.price_per_hour - cluster_autoscaler.price_per_hour);
    let mut warnings = ca.warnings.clone();
    for w in plan.warnings {
        if !warnings.contains(&w) {
            warnings.push(w);
        }
    }
    Ok(Migration {
        node_classes: proposal.classes.iter().map(|c| c.name.clone()).collect(),
        node_pools: proposal.pools,
        manifests,
        cluster_autoscaler,
        karpenter,
        price_difference_per_hour: diff,
        price_difference_per_month: crate::price::round_price(diff * crate::figures::HOURS_PER_MONTH),
        notes: proposal.notes,
        warnings,
    })
}

struct Class {
    name: String,
    cluster: String,
    max_pods: Option<i64>,
}

/// A pool's node template: its labels (`key`, `value`) and taints.
type NodeTemplate = (Vec<(String, String)>, Vec<crate::taints::Taint>);

struct Proposal {
    pools: Vec<MigratedNodePool>,
    /// Per pool: its labels and taints (`key`, `value`, `effect`).
    templates: Vec<NodeTemplate>,
    classes: Vec<Class>,
    consolidate_after: i64,
    notes: Vec<String>,
}

fn propose(m: &crate::model::Model, input: &NodeGroupInput) -> Proposal {
    let s = &input.settings;
    let priorities = priorities(input);
    let mut pools = Vec::new();
    let mut templates = Vec::new();
    let mut classes: Vec<Class> = Vec::new();
    let mut used_names: Vec<String> = Vec::new();
    for (g, group) in input.groups.iter().enumerate() {
        let mut notes = Vec::new();
        let class = class_for(&mut classes, group);
        let name = unique(dns_name(&group.name, g), &mut used_names);
        let mut labels = Vec::new();
        for (k, v) in &group.labels {
            if crate::labels::is_restricted(k) || crate::labels::is_well_known(k) {
                notes.push(format!("label {k} is not carried over: Karpenter does not let a NodePool set it"));
            } else {
                labels.push((k.clone(), v.clone()));
            }
        }
        if group.min_size > 0 {
            notes.push(format!(
                "minSize {} is not carried over: a NodePool has no minimum (a static NodePool's replicas, or pods that hold the capacity, keep nodes up)",
                group.min_size
            ));
        }
        if group.desired > group.min_size.max(0) {
            notes.push(format!("the group's {} running node(s) stay until drained; Karpenter does not adopt them", group.desired));
        }
        if group.instance_types.len() > 1 {
            notes.push(
                "the Cluster Autoscaler sizes the group by its first type; Karpenter chooses among all of them, cheapest first".into(),
            );
        }
        let (weight, priority) = match &priorities {
            Some((by_group, direct)) => match by_group[g] {
                Some(p) => (Some(if *direct { p } else { rank(by_group, p) }), Some(p)),
                None => {
                    notes.push(
                        "no priority of the ConfigMap matches the group: the NodePool has no weight (Karpenter tries it last)".into(),
                    );
                    (None, None)
                }
            },
            None => (None, None),
        };
        pools.push(MigratedNodePool {
            node_group: group.name.clone(),
            node_pool: name,
            node_class: classes[class].name.clone(),
            weight,
            priority,
            instance_types: group.instance_types.clone(),
            capacity_type: if group.spot { "spot" } else { "on-demand" }.into(),
            zones: group.zones.clone(),
            limits: limits(m, group),
            notes,
        });
        templates.push((labels, group.taints.clone()));
    }
    let mut notes = vec![
        "Karpenter chooses the cheapest instance type and zone its NodePools allow; the Cluster Autoscaler's expanders (least-waste by default) do not weigh price".to_string(),
        format!(
            "consolidation: WhenEmptyOrUnderutilized after {}s (scaleDownUnneededTime); Karpenter replaces underutilised nodes by cheaper ones too, where the Cluster Autoscaler only removes them",
            s.scale_down_unneeded_time
        ),
        "pods selecting eks.amazonaws.com/nodegroup or eks.amazonaws.com/capacityType labels do not schedule on Karpenter's nodes: select karpenter.sh/nodepool or karpenter.sh/capacity-type instead".into(),
        "the EC2NodeClasses are skeletons: set the node IAM role and tag the subnets and security groups karpenter.sh/discovery: <cluster> (or edit the selectors)".into(),
    ];
    if let Some((_, direct)) = &priorities {
        notes.push(if *direct {
            "weights are the priority expander's priorities (all within 1..100)".into()
        } else {
            "weights are the ranks of the priority expander's priorities (some are outside Karpenter's 1..100)".into()
        });
    }
    if s.expanders.iter().any(|e| matches!(e, Expander::Random)) {
        notes.push("the random expander has no Karpenter counterpart: Karpenter's choice is by price".into());
    }
    if templates.windows(2).any(|w| w[0] == w[1]) || same_shape(&pools, &templates) {
        notes.push("several NodePools differ only in their types: `nodecast advise` can merge them into fewer, cheaper ones".into());
    }
    Proposal { pools, templates, classes, consolidate_after: s.scale_down_unneeded_time, notes }
}

/// Two NodePools with the same labels, taints, capacity type and class.
fn same_shape(pools: &[MigratedNodePool], templates: &[NodeTemplate]) -> bool {
    (0..pools.len()).any(|i| {
        (0..i).any(|j| {
            templates[i] == templates[j]
                && pools[i].capacity_type == pools[j].capacity_type
                && pools[i].node_class == pools[j].node_class
                && pools[i].zones == pools[j].zones
        })
    })
}

/// Per group, the highest priority whose pattern matches its name (the priority expander's
/// reading), and whether every matched priority is a valid weight. None: no priority expander.
fn priorities(input: &NodeGroupInput) -> Option<(Vec<Option<i64>>, bool)> {
    if !input.settings.expanders.contains(&Expander::Priority) {
        return None;
    }
    let rules = input.settings.priorities.as_ref()?;
    let by_group: Vec<Option<i64>> = input
        .groups
        .iter()
        .map(|g| rules.iter().filter(|r| r.patterns.iter().any(|p| p.is_match(&g.name))).map(|r| r.priority).max())
        .collect();
    let direct = by_group.iter().flatten().all(|p| (1..=100).contains(p));
    Some((by_group, direct))
}

/// `p`'s rank among the distinct priorities of `by_group`, lowest 1 (at most 100 distinct:
/// more groups than that share the top weight).
fn rank(by_group: &[Option<i64>], p: i64) -> i64 {
    let mut distinct: Vec<i64> = by_group.iter().flatten().copied().collect();
    distinct.sort_unstable();
    distinct.dedup();
    (distinct.iter().position(|&x| x == p).unwrap_or(0) as i64 + 1).min(100)
}

fn class_for(classes: &mut Vec<Class>, g: &NodeGroup) -> usize {
    if let Some(i) = classes.iter().position(|c| c.cluster == g.cluster && c.max_pods == g.max_pods) {
        return i;
    }
    let base = if g.cluster.is_empty() { "default".to_string() } else { dns_name(&g.cluster, 0) };
    let name = match g.max_pods {
        Some(n) => format!("{base}-max-pods-{n}"),
        None => base,
    };
    classes.push(Class { name, cluster: g.cluster.clone(), max_pods: g.max_pods });
    classes.len() - 1
}

/// A name Kubernetes takes for a NodePool (a DNS label: lowercase letters, digits and `-`,
/// at most 63, starting and ending alphanumeric).
fn dns_name(s: &str, index: usize) -> String {
    let mapped: String = s.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    let trimmed: String = mapped.trim_matches('-').chars().take(63).collect();
    let trimmed = trimmed.trim_end_matches('-').to_string();
    if trimmed.is_empty() {
        format!("node-group-{}", index + 1)
    } else {
        trimmed
    }
}

fn unique(name: String, used: &mut Vec<String>) -> String {
    let mut out = name.clone();
    let mut n = 2;
    while used.contains(&out) {
        let suffix = format!("-{n}");
        let keep: String = name.chars().take(63 - suffix.len()).collect();
        out = format!("{}{suffix}", keep.trim_end_matches('-'));
        n += 1;
    }
    used.push(out.clone());
    out
}

/// `maxSize` nodes of the group's largest type, per resource: whole cores, GiB rounded up,
/// GPUs. Types the catalog lacks count for nothing (the Cluster Autoscaler's plan has already
/// refused a first type it lacks).
fn limits(m: &crate::model::Model, g: &NodeGroup) -> IndexMap<String, String> {
    let max_size = g.max_size.max(0);
    let gpu = m.resources.get("nvidia.com/gpu");
    let (mut cpu, mut mem, mut gpus) = (0i64, 0i64, 0i64);
    for t in g.instance_types.iter().filter_map(|t| m.catalog.find(t)).map(|i| &m.catalog.types[i]) {
        cpu = cpu.max(t.capacity.get(CPU));
        mem = mem.max(t.capacity.get(MEMORY));
        gpus = gpus.max(gpu.map(|id| t.capacity.get(id)).unwrap_or(0));
    }
    let cores = (cpu + 999) / 1000;
    let gib = (mem / 1000 + (1 << 30) - 1) >> 30;
    let mut out = IndexMap::new();
    out.insert("cpu".to_string(), cores.saturating_mul(max_size).to_string());
    out.insert("memory".to_string(), format!("{}Gi", gib.saturating_mul(max_size)));
    if gpus > 0 {
        out.insert("nvidia.com/gpu".to_string(), ((gpus + 999) / 1000).saturating_mul(max_size).to_string());
    }
    out
}

/// A YAML scalar: plain when YAML reads it back as the same string, else double-quoted (a JSON
/// string is a valid YAML double-quoted scalar).
fn scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
        && s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && !["true", "false", "yes", "no", "on", "off", "null", "y", "n"].contains(&s.to_ascii_lowercase().as_str());
    if plain {
        s.to_string()
    } else {
        serde_json::Value::String(s.to_string()).to_string()
    }
}

fn list(items: &[String]) -> String {
    format!("[{}]", items.iter().map(|s| scalar(s)).collect::<Vec<_>>().join(", "))
}

fn render(p: &Proposal, input: &NodeGroupInput) -> String {
    let mut out = String::new();
    let after = duration(p.consolidate_after);
    for (i, (pool, (labels, taints))) in p.pools.iter().zip(&p.templates).enumerate() {
        let g = &input.groups[i];
        out.push_str(&format!("# from node group {} ({}, {})\n", g.name, g.location.object, g.location.path));
        out.push_str("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n");
        out.push_str(&format!("  name: {}\nspec:\n", scalar(&pool.node_pool)));
        if let Some(w) = pool.weight {
            out.push_str(&format!("  weight: {w}\n"));
        }
        out.push_str("  template:\n");
        if !labels.is_empty() {
            out.push_str("    metadata:\n      labels:\n");
            for (k, v) in labels {
                out.push_str(&format!("        {}: {}\n", scalar(k), scalar(v)));
            }
        }
        out.push_str("    spec:\n      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n");
        out.push_str(&format!("        name: {}\n      requirements:\n", scalar(&pool.node_class)));
        let mut req = |key: &str, values: &[String]| {
            out.push_str(&format!("      - key: {key}\n        operator: In\n        values: {}\n", list(values)));
        };
        req("node.kubernetes.io/instance-type", &pool.instance_types);
        req("karpenter.sh/capacity-type", std::slice::from_ref(&pool.capacity_type));
        if !pool.zones.is_empty() {
            req("topology.kubernetes.io/zone", &pool.zones);
        }
        if !taints.is_empty() {
            out.push_str("      taints:\n");
            for t in taints {
                out.push_str(&format!("      - key: {}\n", scalar(&t.key)));
                if !t.value.is_empty() {
                    out.push_str(&format!("        value: {}\n", scalar(&t.value)));
                }
                out.push_str(&format!("        effect: {}\n", t.effect.as_str()));
            }
        }
        out.push_str("  limits:\n");
        for (k, v) in &pool.limits {
            out.push_str(&format!("    {}: {}\n", scalar(k), scalar(v)));
        }
        out.push_str(&format!("  disruption:\n    consolidationPolicy: WhenEmptyOrUnderutilized\n    consolidateAfter: {after}\n---\n"));
    }
    for (i, c) in p.classes.iter().enumerate() {
        let cluster = if c.cluster.is_empty() { "my-cluster" } else { c.cluster.as_str() };
        out.push_str("# a skeleton: set the role and the discovery tags of your cluster\n");
        out.push_str(&format!("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: {}\nspec:\n", scalar(&c.name)));
        out.push_str(&format!("  role: {}\n", scalar(&format!("KarpenterNodeRole-{cluster}"))));
        out.push_str("  amiSelectorTerms:\n  - alias: al2023@latest\n");
        for field in ["subnetSelectorTerms", "securityGroupSelectorTerms"] {
            out.push_str(&format!("  {field}:\n  - tags:\n      karpenter.sh/discovery: {}\n", scalar(cluster)));
        }
        if let Some(n) = c.max_pods {
            out.push_str(&format!("  kubelet:\n    maxPods: {n}\n"));
        }
        if i + 1 < p.classes.len() {
            out.push_str("---\n");
        }
    }
    out
}

/// Seconds as a Go duration (`10m`, `90s`, `1h30m`).
fn duration(s: i64) -> String {
    let (h, m, sec) = (s / 3600, s % 3600 / 60, s % 60);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 {
        out.push_str(&format!("{m}m"));
    }
    if sec > 0 || out.is_empty() {
        out.push_str(&format!("{sec}s"));
    }
    out
}

fn count_types(items: impl Iterator<Item = (String, String)>) -> Vec<TypeCount> {
    let mut out: Vec<TypeCount> = Vec::new();
    for (t, c) in items {
        match out.iter_mut().find(|x| x.instance_type == t && x.capacity_type == c) {
            Some(x) => x.count += 1,
            None => out.push(TypeCount { instance_type: t, capacity_type: c, count: 1 }),
        }
    }
    out.sort_by(|a, b| {
        b.count.cmp(&a.count).then_with(|| a.instance_type.cmp(&b.instance_type)).then_with(|| a.capacity_type.cmp(&b.capacity_type))
    });
    out
}

fn ca_side(p: &NodeGroupPlan) -> PlanSide {
    let capacity = |g: &str| p.node_groups.iter().find(|x| x.name == g).map(|x| x.capacity_type.clone()).unwrap_or_default();
    let new: Vec<&crate::cluster_autoscaler::NodeOut> = p.nodes.iter().filter(|n| n.new).collect();
    // Nodes of a scale-up that the estimate made and no pod was left for are not in `nodes`;
    // the groups' counts are the truth for how many are added.
    let nodes: i64 = p.node_groups.iter().map(|g| g.new_nodes).sum();
    let mut types: Vec<(String, String)> = new.iter().map(|n| (n.instance_type.clone(), capacity(&n.node_group))).collect();
    for g in &p.node_groups {
        let listed = new.iter().filter(|n| n.node_group == g.name).count() as i64;
        for _ in listed..g.new_nodes {
            types.push((g.instance_type.clone(), g.capacity_type.clone()));
        }
    }
    PlanSide {
        nodes: nodes.max(0) as usize,
        instance_types: count_types(types.into_iter()),
        pods_placed: p.nodes.iter().map(|n| n.pods.len()).sum(),
        pending: p.unschedulable.iter().map(|u| u.pod.clone()).collect(),
        price_per_hour: p.new_price_per_hour,
        price_per_month: crate::price::round_price(p.new_price_per_hour * crate::figures::HOURS_PER_MONTH),
    }
}

fn karpenter_side(p: &Plan) -> PlanSide {
    let placed = p.node_claims.iter().map(|c| c.pods.len()).sum::<usize>() + p.existing_nodes.iter().map(|n| n.pods.len()).sum::<usize>();
    PlanSide {
        nodes: p.node_claims.len(),
        instance_types: count_types(
            p.node_claims
                .iter()
                .map(|c| (c.instance_type.clone().unwrap_or_else(|| "-".into()), c.capacity_type.clone().unwrap_or_else(|| "-".into()))),
        ),
        pods_placed: placed,
        pending: p.unschedulable.iter().map(|u| u.pod.clone()).collect(),
        price_per_hour: p.total_price_per_hour,
        price_per_month: p.total_price_per_month,
    }
}

#[cfg(test)]
mod tests;
