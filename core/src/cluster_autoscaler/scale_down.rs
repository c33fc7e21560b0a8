//! The Cluster Autoscaler's scale-down over the nodes of the node groups, at one time `now`, in
//! nodecast's words from kubernetes/autoscaler's cluster-autoscaler (core/scaledown/planner,
//! core/scaledown/eligibility, simulator/cluster.go's removal simulation, simulator/utilization,
//! simulator/drainability/rules, FAQ "How does scale-down work?"):
//!
//! - A node belongs to the node group its `eks.amazonaws.com/nodegroup` (managed) or
//!   `alpha.eksctl.io/nodegroup-name` (eksctl self-managed) label names; other nodes are not
//!   the Cluster Autoscaler's to remove, but take moved pods.
//! - Eligibility: a `cluster-autoscaler.kubernetes.io/scale-down-disabled: "true"` node stays.
//!   Utilisation is the requests of every pod on the node (DaemonSet and mirror pods included,
//!   the flags' defaults) over its allocatable: on a node with GPUs the GPU fraction alone
//!   (`--scale-down-gpu-utilization-threshold`), else the larger of the CPU and memory
//!   fractions (`--scale-down-utilization-threshold`); at or above the threshold it stays.
//! - Drainability of each pod, rules in the autoscaler's order: DaemonSet and mirror pods are
//!   left; `safe-to-evict: "true"` and terminal pods move without further checks; then a pod
//!   blocks when it has no controller, is a kube-system pod no PDB covers, is annotated
//!   `safe-to-evict: "false"`, has local storage (hostPath, emptyDir not in memory) not listed in
//!   `safe-to-evict-local-volumes`, or a PDB covering it has no disruption left.
//! - Removal simulation: candidates in input order; each movable pod must fit another node that
//!   is not itself removed (first fit in node order: resources, taints, node selector and
//!   required node affinity, host ports, hostname anti-affinity); a removed node's pods stay
//!   counted where they moved, and PDBs' remaining disruptions go down.
//! - A group never goes below its min size (its size: the larger of desiredCapacity and the
//!   nodes of the input in it).
//! - A node is removed once it has been unneeded for `--scale-down-unneeded-time` (10 min; an
//!   unready node 20 min). A snapshot holds no history, so it is taken to have been unneeded
//!   since its last change: its creation or the latest start of a pod on it. No node is removed
//!   within `--scale-down-delay-after-add` (10 min) of the last scale-up, taken to be the newest
//!   node of any group.
//! - One scan loop removes the empty nodes (up to 10, `--max-scale-down-parallelism`) and drains
//!   one non-empty node (`--max-drain-parallelism` 1); later loops, 10 s apart, take the rest.

use super::estimator::{self, SimNode};
use super::template::Template;
use crate::api::Warning;
use crate::error::InputError;
use crate::manifest::Document;
use crate::model::{Model, Pdb};
use crate::node_groups::{NodeGroup, NodeGroupInput};
use crate::resources::{Resources, CPU, MEMORY};
use serde::Serialize;
use std::collections::HashMap;

const MANAGED_GROUP_LABEL: &str = "eks.amazonaws.com/nodegroup";
/// The label eksctl gives every node of its self-managed groups (kubelet `--node-labels`).
pub(crate) const EKSCTL_GROUP_LABEL: &str = "alpha.eksctl.io/nodegroup-name";
const SCALE_DOWN_DISABLED: &str = "cluster-autoscaler.kubernetes.io/scale-down-disabled";
const SAFE_TO_EVICT: &str = "cluster-autoscaler.kubernetes.io/safe-to-evict";
const SAFE_LOCAL_VOLUMES: &str = "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes";
/// `--scale-down-unready-time`.
const UNREADY_TIME: i64 = 20 * 60;
/// `--max-scale-down-parallelism`: empty nodes removed in one loop.
const MAX_EMPTY_PER_LOOP: usize = 10;

/// What the Cluster Autoscaler's scale-down does with the nodes of the node groups at `now`.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct NodeGroupScaleDown {
    /// The time of the decision (RFC 3339).
    pub now: String,
    /// Every node of the input, in input order, with its verdict.
    pub nodes: Vec<ScaleDownNode>,
    /// Hourly price of the nodes removed (`remove`), at the node groups' prices.
    pub removed_price_per_hour: f64,
    /// The settings the decision was made with.
    pub settings: ScaleDownSettings,
    /// When scale-down resumes after the last scale-up (RFC 3339), when that is after `now`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cooldown_until: Option<String>,
    /// Where the Cluster Autoscaler is timing-dependent, and what nodecast assumes.
    pub disclosures: Vec<String>,
    /// Findings about the input.
    pub warnings: Vec<Warning>,
}

/// One node and what scale-down does with it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleDownNode {
    /// The node's name.
    pub name: String,
    /// Its node group (absent: in none of the input's groups).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_group: Option<String>,
    /// Its instance type, when labelled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_type: Option<String>,
    /// `remove`, `unneeded` (removable later) or `keep`.
    pub verdict: ScaleDownVerdict,
    /// Why, as a stable code.
    pub code: ScaleDownCode,
    /// Why, for people.
    pub message: String,
    /// Requests over allocatable of the resource that decides (see `utilizationResource`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utilization: Option<f64>,
    /// `nvidia.com/gpu` on a GPU node, else `cpu` or `memory` (the larger).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utilization_resource: Option<String>,
    /// Where its pods go when it is removed (or would go, for `unneeded`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<PodMoveOut>,
    /// When it becomes removable (RFC 3339), for `unneeded`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removable_at: Option<String>,
    /// The scan loop (1-based, 10 s apart) that removes it, for `remove`.
    #[serde(rename = "loop", skip_serializing_if = "Option::is_none")]
    pub loop_: Option<u32>,
}

/// What scale-down does with a node.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScaleDownVerdict {
    /// Removed now (its pods evicted and re-placed as `moves` says).
    Remove,
    /// Removable, but not yet: unneeded for less than the unneeded time, or in the cool-down
    /// after a scale-up.
    Unneeded,
    /// Stays.
    Keep,
}

/// Why a node is removed, waits or stays.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScaleDownCode {
    /// Only DaemonSet or mirror pods run on it.
    Empty,
    /// Under the threshold, and every pod can move.
    Underutilized,
    /// Unneeded for less than the unneeded time.
    UnneededTooShort,
    /// Within scale-down-delay-after-add of the last scale-up.
    ScaleDownInCooldown,
    /// In no node group of the input.
    NotInNodeGroup,
    /// Annotated `cluster-autoscaler.kubernetes.io/scale-down-disabled: "true"`.
    ScaleDownDisabled,
    /// Deleting, or a NodeClaim not registered yet.
    NotReadyForScaleDown,
    /// Utilisation at or above the threshold.
    NotUnderutilized,
    /// Its group would go below its min size.
    MinSizeReached,
    /// A pod without a controller.
    NotReplicated,
    /// A kube-system pod no PodDisruptionBudget covers.
    UnmovableKubeSystemPod,
    /// A pod annotated `safe-to-evict: "false"`.
    NotSafeToEvict,
    /// A pod with local storage (hostPath or emptyDir).
    LocalStorage,
    /// A PodDisruptionBudget of a pod allows no more disruption.
    NotEnoughPdb,
    /// A pod fits no other node.
    NoPlaceToMovePods,
}

/// A pod of a removed node and the node it goes to.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "ScaleDownMove"))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodMoveOut {
    /// The pod (`namespace/name`).
    pub pod: String,
    /// The node it is re-placed on.
    pub to: String,
}

/// The scale-down settings an answer was made with.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ScaleDownSettings {
    /// `--scale-down-utilization-threshold`.
    pub utilization_threshold: f64,
    /// `--scale-down-gpu-utilization-threshold`.
    pub gpu_utilization_threshold: f64,
    /// `--scale-down-unneeded-time`, seconds.
    pub unneeded_time_seconds: i64,
    /// `--scale-down-delay-after-add`, seconds.
    pub delay_after_add_seconds: i64,
}

/// What the Cluster Autoscaler reads from the objects that nodecast's model does not keep:
/// its own annotations and the pods' local volumes, by `namespace/name` (pods) and name (nodes).
#[derive(Default)]
pub struct Facts {
    disabled_nodes: Vec<String>,
    pods: HashMap<String, PodFacts>,
}

#[derive(Default)]
struct PodFacts {
    safe_to_evict: Option<bool>,
    /// hostPath and non-memory emptyDir volumes not listed in safe-to-evict-local-volumes.
    unlisted_local_volumes: Vec<String>,
}

/// The annotations and volumes scale-down reads from the input documents.
pub fn facts(docs: &[Document]) -> Facts {
    let mut f = Facts::default();
    for d in docs {
        let meta = d.value.get("metadata");
        let annotation =
            |k: &str| meta.and_then(|m| m.get("annotations")).and_then(|a| a.get(k)).and_then(|v| v.as_str()).map(str::to_string);
        match d.kind() {
            "Node" if annotation(SCALE_DOWN_DISABLED).as_deref() == Some("true") => {
                f.disabled_nodes.push(d.name().to_string());
            }
            "Pod" => {
                let ns = meta.and_then(|m| m.get("namespace")).and_then(|v| v.as_str()).unwrap_or("default");
                let listed: Vec<String> = annotation(SAFE_LOCAL_VOLUMES)
                    .map(|s| s.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect())
                    .unwrap_or_default();
                let volumes = d.value.get("spec").and_then(|s| s.get("volumes")).and_then(|v| v.as_array());
                let unlisted_local_volumes = volumes
                    .into_iter()
                    .flatten()
                    .filter(|v| {
                        v.get("hostPath").is_some()
                            || v.get("emptyDir").is_some_and(|e| e.get("medium").and_then(|m| m.as_str()) != Some("Memory"))
                    })
                    .filter_map(|v| v.get("name").and_then(|n| n.as_str()))
                    .filter(|n| !listed.iter().any(|l| l == n))
                    .map(str::to_string)
                    .collect();
                let safe_to_evict = match annotation(SAFE_TO_EVICT).as_deref() {
                    Some("true") => Some(true),
                    Some("false") => Some(false),
                    _ => None,
                };
                f.pods.insert(format!("{ns}/{}", d.name()), PodFacts { safe_to_evict, unlisted_local_volumes });
            }
            _ => {}
        }
    }
    f
}

/// The scale-down answer for a request at `now` (Unix seconds).
pub fn scale_down_request(sources: &crate::load::Sources, now: i64) -> Result<NodeGroupScaleDown, Vec<InputError>> {
    let docs = crate::load::documents(sources)?;
    let input = crate::node_groups::read(&docs)?;
    let facts = facts(&docs);
    drop(docs);
    let (model, warnings) = crate::load::model(sources)?;
    scale_down(&model, &input, &facts, &warnings, now, None)
}

/// What a simulation knows and a snapshot does not (the simulator's scan loops,
/// `cluster_autoscaler::stepper`): the groups' templates, built once, and per node of the
/// model since when the Cluster Autoscaler has found it unneeded (`None`: not unneeded at the
/// previous scan, so from now), as its `unneededNodes` tracker keeps it across loops.
pub(super) struct History<'a> {
    pub templates: &'a [Template],
    pub since: &'a [Option<i64>],
}

struct Dest {
    node: SimNode,
    template: Template,
    removed: bool,
}

pub(super) fn scale_down(
    m: &Model,
    input: &NodeGroupInput,
    facts: &Facts,
    load_warnings: &[Warning],
    now: i64,
    history: Option<&History>,
) -> Result<NodeGroupScaleDown, Vec<InputError>> {
    let s = &input.settings;
    if input.groups.is_empty() {
        return Err(vec![InputError::new("no-node-groups", "the inputs describe no node group").help(
            "an eksctl ClusterConfig with managedNodeGroups/nodeGroups, or terraform show -json output with aws_eks_node_group resources",
        )]);
    }
    let (interner, group_templates) = match history {
        Some(h) => (std::borrow::Cow::Borrowed(&m.interner), std::borrow::Cow::Borrowed(h.templates)),
        None => {
            let mut interner = m.interner.clone();
            let mut built = Vec::new();
            let mut errors = Vec::new();
            for g in &input.groups {
                match super::template::build(m, &mut interner, g) {
                    Ok(t) => built.push(t),
                    Err(e) => errors.push(e),
                }
            }
            if !errors.is_empty() {
                return Err(errors);
            }
            (std::borrow::Cow::Owned(interner), std::borrow::Cow::Owned(built))
        }
    };
    let group_of = |n: &crate::model::ExistingNode| group_of(m, &interner, input, n);
    // Every node as a destination: its allocatable, its labels and taints, what runs on it.
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut dests: Vec<Dest> = Vec::new();
    let mut groups: Vec<Option<usize>> = Vec::new();
    for (i, n) in m.nodes.iter().enumerate() {
        index.insert(n.name.as_str(), i);
        let g = group_of(n);
        groups.push(g);
        let template = Template::of_node(n, g.map_or(0.0, |g| group_templates[g].price));
        dests.push(Dest {
            node: SimNode { group: g.unwrap_or(usize::MAX), used: Resources::new(), pods: Vec::new() },
            template,
            removed: false,
        });
    }
    let mut last_change: Vec<Option<i64>> = m.nodes.iter().map(|n| n.created).collect();
    for (p, pod) in m.pods.iter().enumerate() {
        let Some(&i) = pod.node_name.as_deref().and_then(|n| index.get(n)) else { continue };
        // The Cluster Autoscaler's snapshot holds no expendable pod (static_autoscaler.go
        // filters them out): they neither count in utilisation nor block a removal.
        if pod.terminal || super::is_expendable(pod, s.expendable_pods_priority_cutoff) {
            continue;
        }
        dests[i].node.used.add(&pod.requests);
        dests[i].node.pods.push(p);
        let t = pod.started.unwrap_or(pod.created);
        last_change[i] = Some(last_change[i].map_or(t, |c| c.max(t)));
    }
    if let Some(h) = history {
        last_change = h.since.to_vec();
    }
    // Group sizes: desiredCapacity, or the nodes seen when more.
    let mut size: Vec<i64> = input.groups.iter().map(|g| g.desired).collect();
    for g in groups.iter().flatten() {
        let seen = groups.iter().filter(|h| **h == Some(*g)).count() as i64;
        size[*g] = size[*g].max(seen);
    }
    let last_scale_up = m.nodes.iter().zip(&groups).filter(|(_, g)| g.is_some()).filter_map(|(n, _)| n.created).max();
    let cooldown_until = last_scale_up.map(|t| t + s.scale_down_delay_after_add).filter(|&t| t > now);
    let mut pdb_left: Vec<i64> = m.pdbs.iter().map(|p| pdb_allows(m, p)).collect();
    let gpu = m.resources.get("nvidia.com/gpu");
    // Utilisation is measured on the cluster as it is, before any removal is simulated.
    let utils: Vec<(f64, String, f64)> =
        m.nodes.iter().enumerate().map(|(i, n)| utilization(m, &dests[i].node.used, &n.allocatable, gpu, s)).collect();
    let mut out = NodeGroupScaleDown { now: rfc3339(now), warnings: load_warnings.to_vec(), ..Default::default() };
    let mut removable: Vec<(usize, bool)> = Vec::new(); // (node, empty)
    let mut verdicts: Vec<Option<ScaleDownNode>> = vec![None; m.nodes.len()];
    // Candidates are simulated empty ones first, then the rest in input order (the default
    // scale-down candidates sorting: processors/scaledowncandidates/emptycandidates ahead of
    // previouscandidates, whose history a snapshot lacks): a pod moved off a node never lands
    // on an empty node that is going anyway.
    let empty = |i: usize| dests[i].node.pods.iter().all(|&p| m.pods[p].owned_by_daemonset || m.pods[p].mirror);
    let order: Vec<usize> = (0..m.nodes.len()).filter(|&i| empty(i)).chain((0..m.nodes.len()).filter(|&i| !empty(i))).collect();
    for i in order {
        let n = &m.nodes[i];
        let mut v = ScaleDownNode {
            name: n.name.clone(),
            node_group: groups[i].map(|g| input.groups[g].name.clone()),
            instance_type: n.instance_type.clone(),
            verdict: ScaleDownVerdict::Keep,
            code: ScaleDownCode::NotInNodeGroup,
            message: String::new(),
            utilization: None,
            utilization_resource: None,
            moves: Vec::new(),
            removable_at: None,
            loop_: None,
        };
        let keep = |v: &mut ScaleDownNode, code, message: String| {
            v.code = code;
            v.message = message;
        };
        let Some(g) = groups[i] else {
            keep(
                &mut v,
                ScaleDownCode::NotInNodeGroup,
                "no node group of the input has this node (labels eks.amazonaws.com/nodegroup, alpha.eksctl.io/nodegroup-name)".into(),
            );
            verdicts[i] = Some(v);
            continue;
        };
        if n.in_flight || n.marked_for_deletion {
            keep(&mut v, ScaleDownCode::NotReadyForScaleDown, "the node is being deleted or not registered yet".into());
            verdicts[i] = Some(v);
            continue;
        }
        if facts.disabled_nodes.contains(&n.name) {
            keep(&mut v, ScaleDownCode::ScaleDownDisabled, format!("annotated {SCALE_DOWN_DISABLED}: \"true\""));
            verdicts[i] = Some(v);
            continue;
        }
        let (util, resource, threshold) = utils[i].clone();
        v.utilization = Some(round4(util));
        v.utilization_resource = Some(resource.clone());
        if util >= threshold {
            keep(
                &mut v,
                ScaleDownCode::NotUnderutilized,
                format!("{resource} utilization {:.3} is not below the threshold {threshold}", util),
            );
            verdicts[i] = Some(v);
            continue;
        }
        // The rest of the group stays at or above its min size.
        if size[g] <= input.groups[g].min_size {
            keep(
                &mut v,
                ScaleDownCode::MinSizeReached,
                format!("node group {} is at its min size ({})", input.groups[g].name, input.groups[g].min_size),
            );
            verdicts[i] = Some(v);
            continue;
        }
        let movable: Vec<usize> =
            dests[i].node.pods.iter().copied().filter(|&p| !m.pods[p].owned_by_daemonset && !m.pods[p].mirror).collect();
        if let Some((code, message)) = movable.iter().find_map(|&p| blocker(m, p, facts, &pdb_left)) {
            keep(&mut v, code, message);
            verdicts[i] = Some(v);
            continue;
        }
        // Re-place the pods on the other nodes not removed.
        dests[i].removed = true;
        let mut placed: Vec<(usize, usize)> = Vec::new();
        let mut misfit = None;
        for &p in &movable {
            let to = (0..dests.len()).find(|&j| {
                !dests[j].removed
                    && estimator::static_misfit(&m.pods[p], &dests[j].template, &interner).is_none()
                    && estimator::fits_node(m, p, &dests[j].node, &dests[j].template, &[]).is_ok()
            });
            match to {
                Some(j) => {
                    dests[j].node.used.add(&m.pods[p].requests);
                    dests[j].node.pods.push(p);
                    placed.push((p, j));
                }
                None => {
                    misfit = Some(p);
                    break;
                }
            }
        }
        if let Some(p) = misfit {
            // Undo: the node stays, its pods where they were.
            for &(q, j) in &placed {
                dests[j].node.used.sub(&m.pods[q].requests);
                dests[j].node.pods.retain(|&x| x != q);
            }
            dests[i].removed = false;
            keep(&mut v, ScaleDownCode::NoPlaceToMovePods, format!("pod {} fits no other node", m.pods[p].key()));
            verdicts[i] = Some(v);
            continue;
        }
        for &p in &movable {
            for (k, pdb) in m.pdbs.iter().enumerate() {
                if covers(pdb, &m.pods[p]) {
                    pdb_left[k] -= 1;
                }
            }
        }
        size[g] -= 1;
        v.moves = placed.iter().map(|&(p, j)| PodMoveOut { pod: m.pods[p].key(), to: m.nodes[j].name.clone() }).collect();
        let unneeded_for = if n.ready { s.scale_down_unneeded_time } else { UNREADY_TIME };
        let since = last_change[i].unwrap_or(now);
        let at = (since + unneeded_for).max(cooldown_until.unwrap_or(i64::MIN));
        if at > now {
            v.verdict = ScaleDownVerdict::Unneeded;
            v.removable_at = Some(rfc3339(at));
            if since + unneeded_for > now {
                keep(
                    &mut v,
                    ScaleDownCode::UnneededTooShort,
                    format!("unneeded since {} (its last change); removed after {}s unneeded", rfc3339(since), unneeded_for),
                );
            } else {
                keep(
                    &mut v,
                    ScaleDownCode::ScaleDownInCooldown,
                    format!(
                        "the last scale-up (the newest group node, {}) was less than {}s ago",
                        rfc3339(last_scale_up.unwrap_or(now)),
                        s.scale_down_delay_after_add
                    ),
                );
            }
        } else {
            removable.push((i, movable.is_empty()));
            v.verdict = ScaleDownVerdict::Remove;
            if movable.is_empty() {
                keep(&mut v, ScaleDownCode::Empty, "only DaemonSet or mirror pods run on it".into());
            } else {
                keep(
                    &mut v,
                    ScaleDownCode::Underutilized,
                    format!("{resource} utilization {util:.3} is below {threshold} and its pods fit elsewhere"),
                );
            }
        }
        verdicts[i] = Some(v);
    }
    // Loops: the empty nodes in bulk, one drain per loop.
    let (mut empty_loop, mut empty_in_loop, mut drain_loop) = (1u32, 0usize, 0u32);
    for &(i, empty) in &removable {
        let v = verdicts[i].as_mut().expect("every node has a verdict");
        let l = if empty {
            if empty_in_loop == MAX_EMPTY_PER_LOOP {
                empty_loop += 1;
                empty_in_loop = 0;
            }
            empty_in_loop += 1;
            empty_loop
        } else {
            drain_loop += 1;
            drain_loop
        };
        v.loop_ = Some(l);
        if l > 1 {
            v.message.push_str(&format!(" (scan loop {l}: {}s after now)", (l - 1) * 10));
        }
    }
    for (i, v) in verdicts.into_iter().enumerate() {
        let v = v.expect("every node has a verdict");
        if v.verdict == ScaleDownVerdict::Remove {
            out.removed_price_per_hour += dests[i].template.price;
        }
        out.nodes.push(v);
    }
    out.removed_price_per_hour = crate::price::round_price(out.removed_price_per_hour);
    out.settings = ScaleDownSettings {
        utilization_threshold: s.scale_down_utilization_threshold,
        gpu_utilization_threshold: s.scale_down_gpu_utilization_threshold,
        unneeded_time_seconds: s.scale_down_unneeded_time,
        delay_after_add_seconds: s.scale_down_delay_after_add,
    };
    out.cooldown_until = cooldown_until.map(rfc3339);
    out.disclosures = vec![
        "a snapshot has no history: a node is taken to be unneeded since its last change (creation or the latest pod start on it), and the last scale-up to be the newest node of any group".into(),
        "moved pods go to the first node that fits, in input order; the Cluster Autoscaler's scheduler simulation starts from a rotating node, so its destinations can differ".into(),
        "one non-empty node is drained per scan loop (10 s apart) and up to 10 empty nodes are removed at once; each later loop re-checks, as assumed here, with the earlier removals done".into(),
    ];
    if m.nodes.is_empty() {
        out.warnings.push(Warning {
            code: "ca-no-nodes".into(),
            message:
                "the inputs hold no Node objects: scale-down has nothing to remove (give the cluster's Nodes and the pods bound to them)"
                    .into(),
            object: None,
        });
    }
    Ok(out)
}

/// The group of `input` whose name node `n`'s node-group label holds.
pub(super) fn group_of(
    _m: &Model,
    interner: &crate::labels::Interner,
    input: &NodeGroupInput,
    n: &crate::model::ExistingNode,
) -> Option<usize> {
    let name = [MANAGED_GROUP_LABEL, EKSCTL_GROUP_LABEL]
        .iter()
        .find_map(|k| interner.get(k).and_then(|kid| n.labels.get(kid)).map(|v| interner.str(v).to_string()))?;
    input.groups.iter().position(|g: &NodeGroup| g.name == name)
}

/// The utilisation that decides, its resource, and the threshold it is compared with.
fn utilization(
    m: &Model,
    used: &Resources,
    alloc: &Resources,
    gpu: Option<crate::resources::ResourceId>,
    s: &crate::node_groups::CaSettings,
) -> (f64, String, f64) {
    let frac = |id| {
        let a = alloc.get(id);
        if a <= 0 {
            0.0
        } else {
            used.get(id) as f64 / a as f64
        }
    };
    if let Some(g) = gpu.filter(|&g| alloc.get(g) > 0) {
        return (frac(g), m.resources.name(g).to_string(), s.scale_down_gpu_utilization_threshold);
    }
    let (c, mem) = (frac(CPU), frac(MEMORY));
    if mem > c {
        (mem, "memory".into(), s.scale_down_utilization_threshold)
    } else {
        (c, "cpu".into(), s.scale_down_utilization_threshold)
    }
}

/// The drainability rules, in the autoscaler's order, for one non-DaemonSet, non-mirror pod.
fn blocker(m: &Model, p: usize, facts: &Facts, pdb_left: &[i64]) -> Option<(ScaleDownCode, String)> {
    let pod = &m.pods[p];
    let f = facts.pods.get(&pod.key());
    if f.and_then(|f| f.safe_to_evict) == Some(true) {
        return None;
    }
    if pod.owner.is_none() {
        return Some((ScaleDownCode::NotReplicated, format!("pod {} has no controller", pod.key())));
    }
    if pod.namespace == "kube-system" && !m.pdbs.iter().any(|b| covers(b, pod)) {
        return Some((ScaleDownCode::UnmovableKubeSystemPod, format!("kube-system pod {} has no PodDisruptionBudget", pod.key())));
    }
    if f.and_then(|f| f.safe_to_evict) == Some(false) {
        return Some((ScaleDownCode::NotSafeToEvict, format!("pod {} is annotated {SAFE_TO_EVICT}: \"false\"", pod.key())));
    }
    if let Some(v) = f.and_then(|f| f.unlisted_local_volumes.first()) {
        return Some((ScaleDownCode::LocalStorage, format!("pod {} has local volume {v:?} (not in {SAFE_LOCAL_VOLUMES})", pod.key())));
    }
    if let Some((_, b)) = m.pdbs.iter().enumerate().find(|(k, b)| covers(b, pod) && pdb_left[*k] < 1) {
        return Some((
            ScaleDownCode::NotEnoughPdb,
            format!("PodDisruptionBudget {}/{} allows no more disruption of pod {}", b.namespace, b.name, pod.key()),
        ));
    }
    None
}

fn covers(pdb: &Pdb, pod: &crate::model::Pod) -> bool {
    pdb.namespace == pod.namespace && pdb.selector.matches(&pod.labels)
}

/// Disruptions a PDB allows now: its status when given, else from its spec over the bound pods.
fn pdb_allows(m: &Model, pdb: &Pdb) -> i64 {
    use crate::model::IntOrPercent;
    if let Some(a) = pdb.disruptions_allowed {
        return a.max(0);
    }
    let healthy = m.pods.iter().filter(|p| p.node_name.is_some() && !p.terminal && covers(pdb, p)).count() as i64;
    let pct = |p: i64| (p * healthy + 99) / 100;
    let v = match (pdb.min_available, pdb.max_unavailable) {
        (Some(IntOrPercent::Int(n)), _) => healthy - n,
        (Some(IntOrPercent::Percent(p)), _) => healthy - pct(p),
        (None, Some(IntOrPercent::Int(n))) => n,
        (None, Some(IntOrPercent::Percent(p))) => pct(p),
        (None, None) => healthy,
    };
    v.max(0)
}

fn rfc3339(unix: i64) -> String {
    jiff::Timestamp::from_second(unix).map(|t| t.to_string()).unwrap_or_else(|_| unix.to_string())
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
