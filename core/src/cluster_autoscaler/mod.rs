//! The Cluster Autoscaler as a second engine beside Karpenter: what its scale-up does with the
//! pending pods over the node groups of the input (`node_groups`), from kubernetes/autoscaler's
//! cluster-autoscaler (core/scaleup/orchestrator, estimator, expander, cloudprovider/aws).
//!
//! One answer replays successive scan loops (10 s apart in the real controller): each loop
//! first lets the pending pods land on the nodes already there or coming (filter out
//! schedulable), then estimates, for every node group below its max size, how many template
//! nodes its pods need (`estimator`), lets the expanders pick one option (`expander`) and
//! scales that one group. Loops end when no pod is left or no group can take one. Scale-down,
//! over the nodes of the groups at a given time, is `scale_down`.
//!
//! It uses the same model as Karpenter's side (pods, DaemonSets, the catalog) and imports
//! neither disruption nor optimize.

mod estimator;
mod expander;
mod scale_down;
pub(crate) mod stepper;
mod template;
#[cfg(test)]
mod tests;

use crate::api::Warning;
use crate::error::InputError;
use crate::model::Model;
use crate::node_groups::{CaSettings, Expander, NodeGroup, NodeGroupInput};
use crate::resources::{Resources, CPU, MEMORY};
use estimator::{EquivalenceGroup, Limits, Misfit, SimNode};
use indexmap::IndexMap;
use serde::Serialize;
use template::Template;

pub(crate) use scale_down::EKSCTL_GROUP_LABEL;
pub use scale_down::{
    scale_down_request, NodeGroupScaleDown, PodMoveOut, ScaleDownCode, ScaleDownNode, ScaleDownSettings, ScaleDownVerdict,
};

/// What the Cluster Autoscaler's scale-up does with the pending pods.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct NodeGroupPlan {
    /// Every node group, in input order, with its template and its size before and after.
    pub node_groups: Vec<NodeGroupOut>,
    /// The scale-ups, one per scan loop, in order.
    pub scale_ups: Vec<ScaleUpOut>,
    /// Nodes that receive pending pods: the groups' current nodes and the new ones.
    pub nodes: Vec<NodeOut>,
    /// Pods no node group can take, with one reason per node group.
    pub unschedulable: Vec<PendingPodOut>,
    /// Pending pods below `expendablePodsPriorityCutoff`: the Cluster Autoscaler does not scale
    /// up for them (they wait for room or preempt nothing).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expendable: Vec<String>,
    /// Hourly price of the new nodes.
    pub new_price_per_hour: f64,
    /// The settings the decisions were made with.
    pub settings: SettingsOut,
    /// Where the Cluster Autoscaler is random or timing-dependent, and what nodecast does then.
    pub disclosures: Vec<String>,
    /// Findings about the input and what this engine does not simulate.
    pub warnings: Vec<Warning>,
}

/// One node group and its template node.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", schemars(rename = "NodeGroup"))]
pub struct NodeGroupOut {
    /// The node group's name.
    pub name: String,
    /// An EKS managed node group (labels and taints read from EKS).
    pub managed: bool,
    /// The type the template is built from (the first of `instanceTypes`).
    pub instance_type: String,
    /// Every instance type the group may launch, in the order written.
    pub instance_types: Vec<String>,
    /// `spot` or `on-demand`.
    pub capacity_type: String,
    /// The template's zone (the group's first).
    pub zone: String,
    /// The group's minimum size.
    pub min_size: i64,
    /// The group's maximum size.
    pub max_size: i64,
    /// Its size before this answer (desired capacity).
    pub current_size: i64,
    /// Nodes this answer's scale-ups add.
    pub new_nodes: i64,
    /// Its size after them.
    pub target_size: i64,
    /// Price of one node per hour.
    pub price_per_hour: f64,
    /// The template's capacity (= allocatable), before DaemonSets.
    pub capacity: IndexMap<String, String>,
    /// DaemonSet pods the template runs (namespace/name).
    pub daemon_sets: Vec<String>,
    /// The template's labels.
    pub labels: IndexMap<String, String>,
    /// The template's taints (`key=value:Effect`).
    pub taints: Vec<String>,
}

/// One scale-up: the option the expanders chose in one scan loop.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", schemars(rename = "ScaleUp"))]
pub struct ScaleUpOut {
    /// The scan loop (1-based).
    #[serde(rename = "loop")]
    pub loop_: u32,
    /// The node group.
    pub node_group: String,
    /// Nodes added.
    pub nodes: i64,
    /// Pods placed.
    pub pods: Vec<String>,
    /// The expander that chose, or `random` when several options were left.
    pub decided_by: String,
    /// The options the random fallback chose among (nodecast takes the first by name).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tied_with: Vec<String>,
    /// Every option of the loop.
    pub options: Vec<OptionOut>,
}

/// One scale-up option of a loop: a node group and what its estimate places.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", schemars(rename = "ScaleUpOption"))]
pub struct OptionOut {
    /// The node group.
    pub node_group: String,
    /// Nodes added.
    pub nodes: i64,
    /// Pods placed.
    pub pods: usize,
    /// least-waste's score: unused CPU fraction + unused memory fraction of the new nodes.
    pub waste: f64,
    /// The estimate stopped at a limit (max-nodes-per-scaleup, max size, max-nodes-total).
    pub limited: bool,
}

/// A node that receives pending pods.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", schemars(rename = "NodeGroupNode"))]
pub struct NodeOut {
    /// The node group's name.
    pub name: String,
    /// The node group.
    pub node_group: String,
    /// Its instance type.
    pub instance_type: String,
    /// Added by this answer's scale-ups (false: one of the group's current nodes).
    pub new: bool,
    /// The scan loop that added it.
    #[serde(rename = "loop", skip_serializing_if = "Option::is_none")]
    pub loop_: Option<u32>,
    /// Pods placed.
    pub pods: Vec<String>,
}

/// A pod no node group can take.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", schemars(rename = "NodeGroupPendingPod"))]
pub struct PendingPodOut {
    /// The pod (`namespace/name`).
    pub pod: String,
    /// One reason per node group.
    pub reasons: Vec<ReasonOut>,
}

/// Why a node group cannot take a pod.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaReason {
    /// The group is at its max size.
    MaxSizeReached,
    /// The cluster is at `maxNodesTotal`.
    MaxNodesTotalReached,
    /// The template node lacks a resource the pod requests.
    InsufficientResources,
    /// The template has a NoSchedule/NoExecute taint the pod does not tolerate.
    UntoleratedTaint,
    /// The pod's node selector or required node affinity excludes the template's labels.
    NodeSelectorMismatch,
    /// A DaemonSet of the template (or a pod placed there) holds the pod's host port.
    HostPortConflict,
    /// Required pod anti-affinity on the hostname.
    PodAntiAffinity,
    /// The pod asks for something this engine does not simulate (DRA claims).
    NotModelled,
}

/// Why one node group cannot take a pod.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", schemars(rename = "NodeGroupReason"))]
pub struct ReasonOut {
    /// The node group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_group: Option<String>,
    /// The reason, as a stable code.
    pub code: CaReason,
    /// The reason for people.
    pub message: String,
}

/// The Cluster Autoscaler settings an answer was made with.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", schemars(rename = "ClusterAutoscalerSettings"))]
pub struct SettingsOut {
    /// The `--expander` chain.
    pub expander: Vec<Expander>,
    /// `--max-nodes-per-scaleup`.
    pub max_nodes_per_scale_up: i64,
    /// `--max-nodes-total` (0: no limit).
    pub max_nodes_total: i64,
    /// The priority ConfigMap's rules (priority → patterns), highest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub priorities: Vec<(i64, Vec<String>)>,
    /// `--expendable-pods-priority-cutoff`.
    pub expendable_pods_priority_cutoff: i64,
}

/// The Cluster Autoscaler's answer for a request: its node groups and settings are read from
/// the same inputs as the pods (`node_groups`), the pods and DaemonSets lowered as for
/// Karpenter (`load`).
pub fn plan_request(sources: &crate::load::Sources) -> Result<NodeGroupPlan, Vec<InputError>> {
    let docs = crate::load::documents(sources)?;
    let input = crate::node_groups::read(&docs)?;
    drop(docs);
    let (model, warnings) = crate::load::model(sources)?;
    plan(&model, &input, &warnings)
}

/// Whether a request without an explicit autoscaler is about node groups: some input
/// describes node groups and none a NodePool. Texts are decoded only when they mention a
/// node-group format.
pub fn chosen_by_documents(sources: &crate::load::Sources) -> bool {
    let mentions = |t: &str| ["eksctl.io/", "aws_eks_node_group", "ClusterAutoscalerSettings"].iter().any(|k| t.contains(k));
    if !sources.inputs.iter().any(|i| mentions(&i.text)) && !sources.objects.iter().any(|o| mentions(&o.to_string())) {
        return false;
    }
    let Ok(docs) = crate::load::documents(sources) else { return false };
    docs.iter().any(crate::node_groups::recognises) && !docs.iter().any(|d| d.kind() == "NodePool")
}

/// Current nodes (the sum of the groups' `desiredCapacity`) one request may hold: each is
/// simulated, so memory and every scan loop grow with it.
pub const MAX_CURRENT_NODES: i64 = 100_000;

/// The checks every use of the node groups starts with (at least one group, the current nodes
/// bounded before any is made) and the groups' scale-from-zero templates, their labels interned
/// into a copy of `m`'s interner (the caller keeps it or not).
pub(crate) fn checked_templates(m: &Model, input: &NodeGroupInput) -> Result<(Vec<Template>, crate::labels::Interner), Vec<InputError>> {
    if input.groups.is_empty() {
        return Err(vec![InputError::new("no-node-groups", "the inputs describe no node group").path("inputs").help(
            "an eksctl ClusterConfig with managedNodeGroups/nodeGroups, or terraform show -json output with aws_eks_node_group resources",
        )]);
    }
    // Each group's current nodes are simulated one by one, so their sum is bounded before any is
    // made: `desiredCapacity` alone accepts up to 2^31 per group from a few bytes of input.
    let mut current = 0i64;
    for g in &input.groups {
        current = current.saturating_add(g.desired);
        if current > MAX_CURRENT_NODES {
            return Err(vec![g
                .location
                .error(
                    "too-many-nodes",
                    format!("the node groups' desiredCapacity add up to more than {MAX_CURRENT_NODES} current nodes"),
                    "desiredCapacity",
                )
                .kind(crate::error::ErrorKind::Limit)
                .help("nodecast simulates each current node; give the groups' real sizes")]);
        }
    }
    let mut interner = m.interner.clone();
    let mut templates = Vec::new();
    let mut errors = Vec::new();
    for g in &input.groups {
        match template::build(m, &mut interner, g) {
            Ok(t) => templates.push(t),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok((templates, interner))
}

/// The decision for the pending pods of `m` over the node groups of `input`.
pub(crate) fn plan(m: &Model, input: &NodeGroupInput, load_warnings: &[Warning]) -> Result<NodeGroupPlan, Vec<InputError>> {
    let s = &input.settings;
    let (templates, interner) = checked_templates(m, input)?;
    let engine = Engine::new(m, &input.groups, &templates, &interner, s);
    Ok(engine.run(load_warnings))
}

struct Engine<'a> {
    m: &'a Model,
    groups: &'a [NodeGroup],
    templates: &'a [Template],
    interner: &'a crate::labels::Interner,
    s: &'a CaSettings,
    /// Per group: DaemonSets (indices) whose pod runs on its template, and their requests.
    daemons: Vec<Vec<usize>>,
    overhead: Vec<Resources>,
}

impl<'a> Engine<'a> {
    fn new(
        m: &'a Model,
        groups: &'a [NodeGroup],
        templates: &'a [Template],
        interner: &'a crate::labels::Interner,
        s: &'a CaSettings,
    ) -> Self {
        let mut daemons = Vec::new();
        let mut overhead = Vec::new();
        for t in templates {
            let ds: Vec<usize> =
                (0..m.daemonsets.len()).filter(|&d| estimator::static_misfit(&m.daemonsets[d].pod, t, interner).is_none()).collect();
            let mut o = Resources::new();
            for &d in &ds {
                o.add(&m.daemonsets[d].pod.requests);
            }
            daemons.push(ds);
            overhead.push(o);
        }
        Engine { m, groups, templates, interner, s, daemons, overhead }
    }

    fn fresh(&self, g: usize) -> SimNode {
        SimNode { group: g, used: self.overhead[g].clone(), pods: Vec::new() }
    }

    /// Why `p` cannot go on an empty node of group `g`, if it cannot.
    fn template_misfit(&self, p: usize, g: usize) -> Option<Misfit> {
        let t = &self.templates[g];
        estimator::static_misfit(&self.m.pods[p], t, self.interner)
            .or_else(|| estimator::fits_node(self.m, p, &self.fresh(g), t, &self.daemons[g]).err())
    }

    /// One scan loop's scale-up options: for every group below its max size (its current size
    /// is `desired + added`), the estimate for the pending pods its template takes; and whether
    /// the estimator's pod order had ties.
    fn options(&self, pending: &[usize], added: &[i64], total: i64) -> (Vec<(usize, estimator::Estimate)>, bool) {
        let m = self.m;
        let mut options = Vec::new();
        let mut order_ties = false;
        for (g, group) in self.groups.iter().enumerate() {
            let target = group.desired + added[g];
            let mut room = (group.max_size - target).min(self.s.max_nodes_per_scale_up);
            if self.s.max_nodes_total > 0 {
                room = room.min(self.s.max_nodes_total - total);
            }
            if room <= 0 {
                continue;
            }
            let fitting: Vec<usize> = pending.iter().copied().filter(|&p| self.template_misfit(p, g).is_none()).collect();
            if fitting.is_empty() {
                continue;
            }
            let eq = equivalence_groups(m, &fitting);
            let est =
                estimator::estimate(m, &eq, &self.templates[g], g, &self.daemons[g], &self.overhead[g], &Limits { max_new_nodes: room });
            if !est.nodes.is_empty() {
                order_ties |= est.order_tie;
                options.push((g, est));
            }
        }
        (options, order_ties)
    }

    fn run(&self, load_warnings: &[Warning]) -> NodeGroupPlan {
        let m = self.m;
        let mut out = NodeGroupPlan { warnings: load_warnings.to_vec(), ..Default::default() };
        let mut pending = Vec::new();
        for (p, pod) in m.pods.iter().enumerate() {
            if !pod.is_pending() || pod.ignored.is_some() {
                continue;
            }
            if is_expendable(pod, self.s.expendable_pods_priority_cutoff) {
                out.expendable.push(pod.key());
                continue;
            }
            if pod.resource_claims {
                out.unschedulable.push(PendingPodOut {
                    pod: pod.key(),
                    reasons: vec![ReasonOut {
                        node_group: None,
                        code: CaReason::NotModelled,
                        message: "DRA resource claims are not simulated by nodecast's Cluster Autoscaler engine".into(),
                    }],
                });
                continue;
            }
            pending.push(p);
        }
        self.warn_unmodelled(&pending, &mut out.warnings);
        // The groups' current nodes (their desired capacity), empty but for DaemonSets.
        let mut nodes: Vec<(SimNode, String, Option<u32>)> = Vec::new();
        for (g, group) in self.groups.iter().enumerate() {
            for i in 0..group.desired {
                nodes.push((self.fresh(g), format!("{}-{}", group.name, i + 1), None));
            }
        }
        let mut added = vec![0i64; self.groups.len()];
        let mut loop_no = 0u32;
        let mut random_ties = false;
        let mut order_ties = false;
        loop {
            // Filter out schedulable: pods that fit a node already there or coming.
            pending.retain(|&p| {
                let hit = nodes.iter().position(|(n, _, _)| {
                    let t = &self.templates[n.group];
                    estimator::static_misfit(&m.pods[p], t, self.interner).is_none()
                        && estimator::fits_node(m, p, n, t, &self.daemons[n.group]).is_ok()
                });
                match hit {
                    Some(i) => {
                        nodes[i].0.used.add(&m.pods[p].requests);
                        nodes[i].0.pods.push(p);
                        false
                    }
                    None => true,
                }
            });
            if pending.is_empty() {
                break;
            }
            let (options, ties) = self.options(&pending, &added, nodes.len() as i64);
            order_ties |= ties;
            if options.is_empty() {
                break;
            }
            loop_no += 1;
            let views: Vec<expander::OptionView> = options.iter().map(|(g, e)| self.view(*g, e)).collect();
            let choice = expander::choose(&views, self.s);
            random_ties |= !choice.tied.is_empty();
            let (g, est) = &options[choice.chosen];
            let name = &self.groups[*g].name;
            let decided_by = match choice.decided_by {
                expander::Decider::Expander(e) => e.as_str().to_string(),
                expander::Decider::Random => "random".to_string(),
            };
            out.scale_ups.push(ScaleUpOut {
                loop_: loop_no,
                node_group: name.clone(),
                nodes: est.nodes.len() as i64,
                pods: est.pods.iter().map(|&p| m.pods[p].key()).collect(),
                decided_by,
                tied_with: choice.tied.iter().map(|&i| self.groups[options[i].0].name.clone()).collect(),
                options: options
                    .iter()
                    .zip(&views)
                    .map(|((g, e), v)| OptionOut {
                        node_group: self.groups[*g].name.clone(),
                        nodes: v.nodes,
                        pods: v.pods,
                        waste: round4(v.waste()),
                        limited: e.limited,
                    })
                    .collect(),
            });
            if choice.priority_matched_none {
                out.warnings.push(Warning {
                    code: "priority-matched-no-group".into(),
                    message: format!("loop {loop_no}: no priority of the ConfigMap matches any option; the Cluster Autoscaler chooses among all of them at random"),
                    object: Some("ConfigMap/cluster-autoscaler-priority-expander".into()),
                });
            }
            let placed: std::collections::HashSet<usize> = est.pods.iter().copied().collect();
            pending.retain(|p| !placed.contains(p));
            for n in &est.nodes {
                added[*g] += 1;
                let current = self.groups[*g].desired;
                nodes.push((n.clone(), format!("{}-{}", name, current + added[*g]), Some(loop_no)));
            }
        }
        for &p in &pending {
            out.unschedulable.push(PendingPodOut { pod: m.pods[p].key(), reasons: self.reasons(p, &added, nodes.len() as i64) });
        }
        out.unschedulable.sort_by(|a, b| a.pod.cmp(&b.pod));
        for (n, name, loop_) in &nodes {
            if n.pods.is_empty() {
                continue;
            }
            out.nodes.push(NodeOut {
                name: name.clone(),
                node_group: self.groups[n.group].name.clone(),
                instance_type: self.templates[n.group].instance_type.clone(),
                new: loop_.is_some(),
                loop_: *loop_,
                pods: n.pods.iter().map(|&p| m.pods[p].key()).collect(),
            });
        }
        for (g, group) in self.groups.iter().enumerate() {
            out.node_groups.push(self.group_out(g, group, added[g]));
            out.new_price_per_hour += self.templates[g].price * added[g] as f64;
        }
        out.new_price_per_hour = crate::price::round_price(out.new_price_per_hour);
        out.settings = SettingsOut {
            expander: self.s.expanders.clone(),
            max_nodes_per_scale_up: self.s.max_nodes_per_scale_up,
            max_nodes_total: self.s.max_nodes_total,
            expendable_pods_priority_cutoff: self.s.expendable_pods_priority_cutoff,
            priorities: self
                .s
                .priorities
                .iter()
                .flatten()
                .map(|r| (r.priority, r.patterns.iter().map(|p| p.as_str().to_string()).collect()))
                .collect(),
        };
        out.disclosures = self.disclosures(random_ties, order_ties);
        out
    }

    fn view(&self, g: usize, e: &estimator::Estimate) -> expander::OptionView<'a> {
        let t = &self.templates[g];
        let (mut cpu, mut mem) = (0, 0);
        for &p in &e.pods {
            cpu += self.m.pods[p].requests.get(CPU);
            mem += self.m.pods[p].requests.get(MEMORY);
        }
        expander::OptionView {
            group: &self.groups[g].name,
            nodes: e.nodes.len() as i64,
            pods: e.pods.len(),
            requested_cpu: cpu,
            requested_memory: mem,
            node_cpu: t.capacity.get(CPU),
            node_memory: t.capacity.get(MEMORY),
        }
    }

    /// One reason per node group for a pod left pending.
    fn reasons(&self, p: usize, added: &[i64], total: i64) -> Vec<ReasonOut> {
        let m = self.m;
        let mut out = Vec::new();
        for (g, group) in self.groups.iter().enumerate() {
            let target = group.desired + added[g];
            let (code, message) = match self.template_misfit(p, g) {
                Some(Misfit::Resources(short)) => {
                    let parts: Vec<String> = short
                        .iter()
                        .map(|(r, need, have)| {
                            let unit = m.resources.get(r).map(|id| m.resources.unit(id)).unwrap_or(crate::quantity::Unit::Decimal);
                            format!(
                                "{r}: needs {}, a {} template node has {} free",
                                crate::quantity::format_milli(*need, unit),
                                self.templates[g].instance_type,
                                crate::quantity::format_milli(*have, unit)
                            )
                        })
                        .collect();
                    let mut msg = parts.join("; ");
                    if short.iter().any(|(r, _, _)| r == "ephemeral-storage") {
                        msg.push_str(
                            " (the AWS provider's template has no ephemeral-storage unless a node-template/resources tag gives it)",
                        );
                    }
                    (CaReason::InsufficientResources, msg)
                }
                Some(Misfit::Taint(t)) => {
                    (CaReason::UntoleratedTaint, format!("the template has taint {t}, which the pod does not tolerate"))
                }
                Some(Misfit::NodeSelector) => (
                    CaReason::NodeSelectorMismatch,
                    "the pod's node selector or required node affinity does not match the template's labels".into(),
                ),
                Some(Misfit::HostPort) => (CaReason::HostPortConflict, "a DaemonSet of the template holds the pod's host port".into()),
                Some(Misfit::AntiAffinity) => (CaReason::PodAntiAffinity, "pod anti-affinity".into()),
                None if target >= group.max_size => {
                    (CaReason::MaxSizeReached, format!("the group is at its max size ({})", group.max_size))
                }
                None => {
                    let _ = total;
                    (CaReason::MaxNodesTotalReached, format!("the cluster is at maxNodesTotal ({})", self.s.max_nodes_total))
                }
            };
            out.push(ReasonOut { node_group: Some(group.name.clone()), code, message });
        }
        out
    }

    fn group_out(&self, g: usize, group: &NodeGroup, added: i64) -> NodeGroupOut {
        let t = &self.templates[g];
        let m = self.m;
        let mut capacity = IndexMap::new();
        for (id, v) in t.capacity.iter_nonzero() {
            capacity.insert(m.resources.name(id).to_string(), crate::quantity::format_milli(v, m.resources.unit(id)));
        }
        for (k, v) in &t.other_resources {
            capacity.insert(k.clone(), v.clone());
        }
        NodeGroupOut {
            name: group.name.clone(),
            managed: group.managed,
            instance_type: t.instance_type.clone(),
            instance_types: group.instance_types.clone(),
            capacity_type: if group.spot { "spot" } else { "on-demand" }.into(),
            zone: t.zone.clone(),
            min_size: group.min_size,
            max_size: group.max_size,
            current_size: group.desired,
            new_nodes: added,
            target_size: group.desired + added,
            price_per_hour: crate::price::round_price(t.price),
            capacity,
            daemon_sets: self.daemons[g].iter().map(|&d| format!("{}/{}", m.daemonsets[d].namespace, m.daemonsets[d].name)).collect(),
            labels: t.label_pairs.iter().cloned().collect(),
            taints: t.taints.iter().map(|x| x.to_string()).collect(),
        }
    }

    /// Pod features the kube-scheduler would weigh on the new nodes and this engine does not.
    fn warn_unmodelled(&self, pending: &[usize], warnings: &mut Vec<Warning>) {
        let m = self.m;
        let hostname = m.keys.hostname;
        let skipped: Vec<String> = pending
            .iter()
            .map(|&p| &m.pods[p])
            .filter(|pod| {
                !pod.affinity.is_empty()
                    || pod.anti_affinity.iter().any(|t| t.key != hostname)
                    || pod.spread.iter().any(|s| s.when_unsatisfiable == crate::model::Unsatisfiable::DoNotSchedule)
            })
            .map(|pod| pod.key())
            .collect();
        if !skipped.is_empty() {
            warnings.push(Warning {
                code: "ca-constraints-not-modelled".into(),
                message: format!(
                    "pod affinity, zone anti-affinity and topology spread constraints are not simulated on node-group templates; planned without them: {}",
                    list_some(&skipped, 5)
                ),
                object: None,
            });
        }
        if !m.nodes.is_empty() {
            warnings.push(Warning {
                code: "ca-existing-nodes-not-used".into(),
                message: format!("{} Node/NodeClaim object(s) of the input are not used by the Cluster Autoscaler plan; each group's current nodes are its desiredCapacity, empty but for DaemonSets", m.nodes.len()),
                object: None,
            });
        }
        for g in self.groups {
            if let Some(mp) = g.max_pods.filter(|&mp| mp < template::TEMPLATE_PODS) {
                warnings.push(Warning {
                    code: "ca-template-pods".into(),
                    message: format!("maxPodsPerNode is {mp}, but the Cluster Autoscaler's template assumes {} pods per node: it may add too few nodes for many small pods", template::TEMPLATE_PODS),
                    object: Some(format!("NodeGroup/{}", g.name)),
                });
            }
            if !g.managed
                && (!g.labels.is_empty() || !g.taints.is_empty())
                && !g.asg_tags.iter().any(|(k, _)| k.starts_with("k8s.io/cluster-autoscaler/node-template/"))
            {
                warnings.push(Warning {
                    code: "ca-labels-not-visible".into(),
                    message: "the self-managed group's labels and taints are not tagged on its Auto Scaling group (propagateASGTags), so the Cluster Autoscaler's scale-from-zero template does not have them".into(),
                    object: Some(format!("NodeGroup/{}", g.name)),
                });
            }
        }
    }

    fn disclosures(&self, random_ties: bool, order_ties: bool) -> Vec<String> {
        let mut d = vec![
            "successive scan loops (every 10 s by default) each scale one node group; the loops are replayed back to back".to_string(),
            "the price expander is not available on AWS (the provider has no pricing model); prices shown are nodecast's catalog's"
                .to_string(),
        ];
        if random_ties {
            d.push("where options tie after the expanders, the Cluster Autoscaler picks one at random; nodecast takes the first by node group name and lists the tie".into());
        }
        if order_ties {
            d.push("pod groups of equal size are ordered by Go's unstable sort in the estimator; nodecast keeps input order".into());
        }
        d
    }
}

/// Whether the Cluster Autoscaler ignores `pod` (utils/pod's `IsExpendablePod`): a priority
/// below the cutoff, unless its preemption policy is `Never` (such a pod cannot wait for
/// preemption, so it is treated as any other).
pub(crate) fn is_expendable(pod: &crate::model::Pod, cutoff: i64) -> bool {
    pod.priority.is_some_and(|p| p < cutoff) && !pod.preemption_never
}

/// Pods of one controller and one spec, in order of first appearance (the Cluster
/// Autoscaler's equivalence groups; a pod without a controller is a group of its own).
fn equivalence_groups(m: &Model, pods: &[usize]) -> Vec<EquivalenceGroup> {
    let mut groups: Vec<EquivalenceGroup> = Vec::new();
    let mut index: std::collections::HashMap<(String, usize), usize> = std::collections::HashMap::new();
    for &p in pods {
        let pod = &m.pods[p];
        match &pod.workload {
            Some(w) => {
                let key = (format!("{}/{w}", pod.namespace), pod.spec_id());
                match index.get(&key) {
                    Some(&i) => groups[i].push(p),
                    None => {
                        index.insert(key, groups.len());
                        groups.push(vec![p]);
                    }
                }
            }
            None => groups.push(vec![p]),
        }
    }
    groups
}

/// The first `n` of `items`, and how many more.
fn list_some(items: &[String], n: usize) -> String {
    let mut s = items.iter().take(n).cloned().collect::<Vec<_>>().join(", ");
    if items.len() > n {
        s.push_str(&format!(" and {} more", items.len() - n));
    }
    s
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
