//! Karpenter and the Cluster Autoscaler side by side over one trace (docs/cluster-autoscaler.md,
//! "Side by side"): the same trace simulated twice with the one simulator (`simulate`), once
//! with the node groups of the inputs under the Cluster Autoscaler's scan loop
//! (`simulate::simulate_node_groups`), once with NodePools under Karpenter — the NodePools of
//! the inputs, or `migrate`'s proposal for the node groups when the inputs have none — and the
//! two runs' totals and node counts over time in one answer.

use crate::api::Warning;
use crate::error::InputError;
use crate::load::{Input, Sources};
use crate::migrate::Migration;
use crate::simulate::{SimSettings, Simulation, TraceInput};
use serde::Serialize;

/// The answer of `simulate` with `compare: cluster-autoscaler` (`kind: Comparison`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    /// Where Karpenter's NodePools come from: the inputs (`given`) or `migrate`'s proposal.
    pub node_pools: NodePoolsFrom,
    /// The proposal (NodePools, EC2NodeClasses, manifests) when Karpenter ran over it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub migration: Option<Migration>,
    /// One row per autoscaler: the Cluster Autoscaler first, then Karpenter.
    pub sides: Vec<ComparisonSide>,
    /// Karpenter's cost less the Cluster Autoscaler's, USD (negative: Karpenter is cheaper).
    pub cost_difference_usd: f64,
    /// Both runs on one time axis.
    pub series: ComparisonSeries,
    /// The Cluster Autoscaler's scale-ups, in order.
    pub scale_ups: Vec<CaScaleUp>,
    /// Where the Cluster Autoscaler is random or timing-dependent, and what nodecast does then.
    pub disclosures: Vec<String>,
    /// Findings of both runs about the input (each once).
    pub warnings: Vec<Warning>,
    /// The Cluster Autoscaler's run in full (nodes are the node groups' instances).
    pub cluster_autoscaler: Simulation,
    /// Karpenter's run in full.
    pub karpenter: Simulation,
}

/// Where the Karpenter side's NodePools come from.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodePoolsFrom {
    /// The NodePools of the inputs.
    Given,
    /// `nodecast migrate`'s proposal for the node groups.
    Migrate,
}

/// The node autoscaler of one side.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    /// The Cluster Autoscaler over the node groups.
    ClusterAutoscaler,
    /// Karpenter over the NodePools.
    Karpenter,
}

impl Side {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::ClusterAutoscaler => "cluster-autoscaler",
            Side::Karpenter => "karpenter",
        }
    }
}

/// One run's totals.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ComparisonSide {
    /// The autoscaler.
    pub autoscaler: Side,
    /// What every node cost over its life, USD.
    pub cost_usd: f64,
    /// Nodes launched over the run (the groups' current nodes not included).
    pub nodes_launched: usize,
    /// The most nodes alive at one sample.
    pub peak_nodes: usize,
    /// Nodes the autoscaler removed (scale-down, consolidation).
    pub nodes_removed: usize,
    /// Σ over pods of the time they were pending, in minutes.
    pub pending_pod_minutes: f64,
    /// p95 of the pods' wait before they started, seconds.
    pub pending_p95_seconds: i64,
    /// Pods whose run time completed.
    pub pods_finished: usize,
    /// Pods still pending at the end of the run.
    pub pods_pending_at_end: usize,
    /// GPU-hours paid for (node GPUs × node lifetime).
    pub gpu_hours_paid: f64,
    /// GPU-hours paid for and not used by a pod (`gpuHoursPaid − gpuHoursUsed`).
    pub idle_gpu_hours: f64,
    /// `gpuHoursUsed ÷ gpuHoursPaid`.
    pub gpu_utilization: f64,
    /// Simulated seconds until the run ended.
    pub duration_seconds: i64,
}

/// Both runs sampled at the same times.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ComparisonSeries {
    /// Sample times, simulated seconds (the simulation's metrics interval).
    pub times_seconds: Vec<i64>,
    /// Nodes alive (launched, not terminated): Cluster Autoscaler, Karpenter.
    pub nodes: [Vec<usize>; 2],
    /// GPUs of the nodes alive.
    pub gpus: [Vec<i64>; 2],
    /// Pods pending.
    pub pending_pods: [Vec<usize>; 2],
    /// $/h of the nodes alive.
    pub price_per_hour: [Vec<f64>; 2],
}

/// One scale-up of the Cluster Autoscaler's run.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaScaleUp {
    /// Simulated second of the scan loop.
    pub time_seconds: i64,
    /// The node group.
    pub node_group: String,
    /// Nodes added.
    pub nodes: i64,
    /// The expander that chose, or `random` when options tied after the chain.
    pub decided_by: String,
    /// The options the random fallback chose among (nodecast takes the first by name).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tied_with: Vec<String>,
}

/// Most samples the comparison's series hold (each side's own series are bounded likewise).
const MAX_SAMPLES: usize = 600_001;

/// The side-by-side answer for `req` over `trace` with `settings` (defaults when `None`).
pub fn compare(req: &Sources, trace: Option<&TraceInput>, settings: Option<&SimSettings>) -> Result<Comparison, Vec<InputError>> {
    let Some(t) = trace else {
        return Err(vec![InputError::new("required", "a side-by-side simulation needs a workload trace")
            .path("trace")
            .help("{\"trace\": {\"name\": \"week.yaml\", \"text\": \"...\"}} (--trace on the CLI); docs/simulate.md")]);
    };
    let settings = settings.cloned().unwrap_or_default();
    let docs = crate::load::documents(req)?;
    let given = docs.iter().any(|d| d.kind() == "NodePool");
    let groups = crate::node_groups::read(&docs)?;
    drop(docs);
    if groups.groups.is_empty() {
        return Err(vec![InputError::new("no-node-groups", "the inputs describe no node group to compare Karpenter with").help(
            "an eksctl ClusterConfig with managedNodeGroups/nodeGroups, or terraform show -json output with aws_eks_node_group resources",
        )]);
    }
    let (ca, log) = crate::simulate::simulate_node_groups(req, t, &settings)?;
    let (karpenter, migration) = if given {
        (crate::simulate::simulate(req, Some(t), Some(&settings))?, None)
    } else {
        let migration = crate::migrate::migrate_request(req)?;
        let mut inputs: Vec<Input> = req.inputs.to_vec();
        inputs.push(Input { name: Some("migrated-node-pools.yaml".into()), text: migration.manifests.clone() });
        let migrated = Sources { inputs: &inputs, objects: req.objects, catalog: req.catalog, settings: req.settings };
        (crate::simulate::simulate(&migrated, Some(t), Some(&settings))?, Some(migration))
    };
    let sides = vec![summary(Side::ClusterAutoscaler, &ca), summary(Side::Karpenter, &karpenter)];
    let series = series(&ca, &karpenter);
    let mut warnings: Vec<Warning> = Vec::new();
    for w in ca.warnings.iter().chain(&karpenter.warnings) {
        if !warnings.contains(w) {
            warnings.push(w.clone());
        }
    }
    let mut disclosures = vec![
        "the Cluster Autoscaler's scan loop runs every 10 s: nodecast runs it on that grid when the cluster changed or a timer (unneeded time, delay after add or delete) ran out; a real controller's loops start at an arbitrary phase, so each decision may come up to 10 s later".to_string(),
        "kube-scheduler binds a pending pod to the first ready node with room, in node order; the real scheduler scores nodes (LeastAllocated by default) and may spread pods otherwise, which changes which nodes become unneeded".to_string(),
        "a node group launches its first instance type in its first zone; the Auto Scaling group's own choice among several types and zones is not simulated".to_string(),
        "scale-down moves a removed node's pods to the first other node that fits, in node order; the Cluster Autoscaler's removal simulation starts from a rotating node".to_string(),
        "scale-down counts the requests of the pods bound to a node; DaemonSet pods the simulator does not create (on the nodes it launches) are not in its utilisation".to_string(),
        "a simulated node deletion never fails, so --scale-down-delay-after-failure (3 min) never applies".to_string(),
    ];
    if log.random_ties {
        disclosures.push("some scale-up options tied after the expanders: the Cluster Autoscaler picks one at random; nodecast takes the first by node group name (scaleUps[].tiedWith)".into());
    }
    let cost_difference_usd = crate::price::round_price(karpenter.summary.cost_usd - ca.summary.cost_usd);
    let scale_ups = log
        .scale_ups
        .into_iter()
        .map(|(time_seconds, node_group, nodes, decided_by, tied_with)| CaScaleUp {
            time_seconds,
            node_group,
            nodes,
            decided_by,
            tied_with,
        })
        .collect();
    Ok(Comparison {
        node_pools: if given { NodePoolsFrom::Given } else { NodePoolsFrom::Migrate },
        migration,
        sides,
        cost_difference_usd,
        series,
        scale_ups,
        disclosures,
        warnings,
        cluster_autoscaler: ca,
        karpenter,
    })
}

fn summary(side: Side, s: &Simulation) -> ComparisonSide {
    let sum = &s.summary;
    let pending_seconds: i64 = s.pods.iter().map(|p| p.pending_seconds).sum();
    let mut peak = 0;
    for &t in &s.series.times_seconds {
        peak = peak.max(alive(s, t).0);
    }
    let r = |x: f64| (x * 1000.0).round() / 1000.0 + 0.0;
    ComparisonSide {
        autoscaler: side,
        cost_usd: crate::price::round_price(sum.cost_usd),
        nodes_launched: sum.launches.total,
        peak_nodes: peak,
        nodes_removed: sum.disruptions.total,
        pending_pod_minutes: r(pending_seconds as f64 / 60.0),
        pending_p95_seconds: sum.pending_seconds.p95,
        pods_finished: sum.pods.finished,
        pods_pending_at_end: sum.pods.pending,
        gpu_hours_paid: r(sum.gpu_hours_paid),
        idle_gpu_hours: r((sum.gpu_hours_paid - sum.gpu_hours_used).max(0.0)),
        gpu_utilization: r(sum.gpu_utilization),
        duration_seconds: sum.duration_seconds,
    }
}

/// (nodes, GPUs, $/h) of the nodes alive at `t`.
fn alive(s: &Simulation, t: i64) -> (usize, i64, f64) {
    let (mut n, mut g, mut p) = (0, 0, 0.0);
    for node in &s.nodes {
        if node.launched_seconds <= t && node.terminated_seconds.is_none_or(|e| e > t) {
            n += 1;
            g += node.gpus;
            p += node.price_per_hour_usd;
        }
    }
    (n, g, p)
}

/// Pods pending at `t`: the run's queue-depth samples, 0 after a run that ended early (it ends
/// only when nothing is pending).
fn pending_at(s: &Simulation, t: i64) -> usize {
    let Some(m) = s.series.metrics.iter().find(|m| m.name == "karpenter_scheduler_queue_depth") else { return 0 };
    match s.series.times_seconds.binary_search(&t) {
        Ok(i) => m.values.get(i).copied().unwrap_or(0.0) as usize,
        Err(_) => 0,
    }
}

fn series(ca: &Simulation, k: &Simulation) -> ComparisonSeries {
    let longer = if ca.series.times_seconds.len() >= k.series.times_seconds.len() { ca } else { k };
    let times: Vec<i64> = longer.series.times_seconds.iter().copied().take(MAX_SAMPLES).collect();
    let mut out = ComparisonSeries { times_seconds: times.clone(), ..Default::default() };
    for (i, s) in [ca, k].into_iter().enumerate() {
        for &t in &times {
            let (n, g, p) = alive(s, t);
            out.nodes[i].push(n);
            out.gpus[i].push(g);
            out.price_per_hour[i].push((p * 1e6).round() / 1e6 + 0.0);
            out.pending_pods[i].push(pending_at(s, t));
        }
    }
    out
}

#[cfg(test)]
mod tests;
