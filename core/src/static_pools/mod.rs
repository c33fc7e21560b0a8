//! Static NodePools (`spec.replicas`, Karpenter's alpha StaticCapacity gate): the NodeClaims
//! Karpenter keeps for them whatever the demand.
//!
//! Karpenter v1.15 (sigs.k8s.io/karpenter@v1.15.0):
//! - dynamic provisioning never uses a static NodePool, gate on or off
//!   (`Provisioner.NewScheduler` in pkg/controllers/provisioning/provisioner.go drops every
//!   NodePool with `replicas`); nodecast's `Model::provisionable` already has that rule;
//! - consolidation and emptiness never disrupt a static pool's nodes, gate on or off
//!   (`ShouldDisrupt` in pkg/controllers/disruption/consolidation.go and emptiness.go);
//! - only with the gate on do the static controllers run (pkg/controllers/controllers.go):
//!   pkg/controllers/static/provisioning creates `replicas − active` NodeClaims when the pool
//!   has fewer than `replicas` active or pending-disruption ones, each one reserved against
//!   `limits.nodes` (`NodePoolState.ReserveNodeCount` in pkg/controllers/state/statenodepool.go:
//!   `limit − (active + deleting + pending disruption)`, nothing when that is negative); the
//!   pool must be Ready and not being deleted. A static NodeClaim carries the pool's template
//!   and no instance-type list of its own (`NodeClaimTemplate.ToNodeClaim` in
//!   scheduling/nodeclaimtemplate.go), so the cloud provider picks from every type the
//!   template allows, with no pod requests to fit: nodecast's launch choice over those types.
//!
//! What this module does: with the gate on, every static NodeClaim Karpenter would create
//! now is added to the model as an in-flight NodeClaim (so a provisioning pass places pending
//! pods on it, as Karpenter's scheduler does with in-flight capacity) and listed in
//! [`Model::static_launches`] for the answers; with the gate off, a static pool gets a
//! warning that names the gate, since Karpenter then launches nothing for it.
//!
//! Scale-down of a pool above its replicas is `deprovision`'s (applied by `plan`); with no
//! dynamic NodePool at all the provisioner runs no pass (`scheduling::solve`); drifted static
//! nodes are StaticDrift's (`disruption/static_drift.rs`).

use crate::api::{StaticNodeClaimOut, Warning};
use crate::error::InputError;
use crate::model::pod::LabelSet;
use crate::model::{ExistingNode, LimitKey, Model};
use crate::price::round_price;
use crate::resources::Resources;
use crate::scheduling::claim::build_template;
use crate::scheduling::launch::{choose_launch, sort_by_price, Launch};
use crate::scheduling::Solution;

pub use crate::model::StaticLaunch;

pub(crate) mod deprovision;

/// How many NodeClaims the static provisioning controller creates for a pool now.
/// `active` counts the pool's NodeClaims that are neither deleting nor pending disruption,
/// `deleting` those being deleted; `limit` is `limits.nodes` (None: no limit).
pub fn to_launch(replicas: i64, active: i64, deleting: i64, limit: Option<i64>) -> i64 {
    // Karpenter counts pending-disruption NodeClaims as present too; nodecast's inputs have
    // none (a disruption in progress is not an input), so they are 0 here.
    if active >= replicas {
        return 0;
    }
    let wanted = replicas - active;
    let remaining = limit.map_or(i64::MAX, |l| l - (active + deleting));
    if remaining < 0 {
        return 0;
    }
    wanted.min(remaining)
}

/// `limits.nodes` as Karpenter reads it (`Quantity.Value()`, rounded up), from milli-units.
pub(crate) fn node_limit(limits: &[(LimitKey, i64)]) -> Option<i64> {
    limits.iter().find(|(k, _)| *k == LimitKey::Nodes).map(|(_, milli)| milli.div_euclid(1000) + i64::from(milli.rem_euclid(1000) != 0))
}

/// The most static NodeClaims one answer creates (all static pools together): `spec.replicas`
/// is an int64, and a typo must not make nodecast build billions of nodes.
pub const MAX_STATIC_NODES: i64 = 100_000;

/// Apply the static NodePools to a freshly lowered model: launches with the gate on, a
/// warning per static pool with it off. Cost: one template build per static pool plus one
/// node per launched replica, at most [`MAX_STATIC_NODES`] (beyond it, a located error).
pub(crate) fn apply(m: &mut Model, warnings: &mut Vec<Warning>) -> Result<(), Vec<InputError>> {
    let mut total = 0i64;
    let gate = m.settings.feature_gates.static_capacity;
    for pool in 0..m.node_pools.len() {
        let Some(replicas) = m.node_pools[pool].replicas else { continue };
        let name = m.node_pools[pool].name.clone();
        if !gate {
            warnings.push(Warning {
                code: "static-capacity-gate-off".into(),
                message: format!(
                    "NodePool {name} is static (spec.replicas {replicas}): with the StaticCapacity feature gate off (Karpenter v1.15's default) Karpenter neither launches its replicas nor deletes its NodeClaims above them, and dynamic provisioning never uses a static NodePool; --feature-gates StaticCapacity=true models the static controllers"
                ),
                object: Some(format!("NodePool/{name}")),
            });
            continue;
        }
        if !m.node_pools[pool].ready {
            // The not-Ready warning is already there; static provisioning skips such a pool.
            continue;
        }
        let mine = |n: &ExistingNode| n.managed && n.nodepool.as_deref() == Some(name.as_str());
        let active = m.nodes.iter().filter(|n| mine(n) && !n.marked_for_deletion).count() as i64;
        let deleting = m.nodes.iter().filter(|n| mine(n) && n.marked_for_deletion).count() as i64;
        let limit = node_limit(&m.node_pools[pool].limits);
        let count = to_launch(replicas, active, deleting, limit);
        if count < replicas - active {
            warnings.push(Warning {
                code: "static-node-limit".into(),
                message: format!(
                    "NodePool {name} wants {replicas} replicas and has {active}; limits.nodes {} lets Karpenter create {count} more",
                    limit.unwrap_or_default()
                ),
                object: Some(format!("NodePool/{name}")),
            });
        }
        if count <= 0 {
            continue;
        }
        total = total.saturating_add(count);
        if total > MAX_STATIC_NODES {
            let np = &m.node_pools[pool];
            let mut e = InputError::new(
                "too-many-nodes",
                format!("NodePool {name} asks for {replicas} static replicas; nodecast models at most {MAX_STATIC_NODES} static NodeClaims per answer"),
            )
            .help("fewer spec.replicas")
            .at_document(np.document)
            .object(format!("NodePool/{name}"))
            .path("spec.replicas");
            if !np.prefix.is_empty() {
                e = e.under(&np.prefix);
            }
            e.source = np.source.clone();
            return Err(vec![e]);
        }
        let chosen = launch_choice(pool, m);
        if chosen.is_none() {
            warnings.push(Warning {
                code: "static-no-instance-type".into(),
                message: format!(
                    "NodePool {name} is static (spec.replicas {replicas}) but its requirements leave no launchable instance type: Karpenter's {count} NodeClaim(s) fail to launch and are retried"
                ),
                object: Some(format!("NodePool/{name}")),
            });
        }
        let mut next = 0;
        for _ in 0..count {
            let claim = loop {
                next += 1;
                let candidate = format!("{name}-{next}");
                if !m.nodes.iter().any(|n| n.name == candidate || n.nodeclaim_name.as_deref() == Some(candidate.as_str())) {
                    break candidate;
                }
            };
            let node = chosen.as_ref().map(|(l, alloc)| {
                let node = in_flight_node(m, pool, &claim, l, alloc.clone());
                m.nodes.push(node);
                m.nodes.len() - 1
            });
            m.static_launches.push(StaticLaunch { pool, name: claim, node, launch: chosen.as_ref().map(|(l, _)| l.clone()) });
        }
    }
    Ok(())
}

/// What the cloud provider launches for a static NodeClaim of `pool` and its allocatable:
/// every type the template allows (no pod requests to fit), cheapest launch; None when the
/// requirements leave no launchable offering.
pub(crate) fn launch_choice(pool: usize, m: &Model) -> Option<(Launch, Resources)> {
    let t = build_template(pool, m)?;
    let mut options = t.its.clone();
    sort_by_price(&mut options, &t.requirements, m);
    let l = choose_launch(&options, &t.requirements, m)?;
    let alloc = t.alloc(l.it, m).clone();
    Some((l, alloc))
}

/// The in-flight NodeClaim a static launch is until its Node registers: the pool's labels
/// and a value for each custom requirement key (as Karpenter writes them on the NodeClaim),
/// the launched type's labels, zone, capacity type and hostname; the pool's taints.
fn in_flight_node(m: &mut Model, pool: usize, claim: &str, l: &Launch, allocatable: Resources) -> ExistingNode {
    let np = &m.node_pools[pool];
    let mut pairs: Vec<(u32, u32)> = np.labels.iter().collect();
    let custom = m.custom_requirement_values(np, &np.requirements);
    let t = &m.catalog.types[l.it as usize];
    pairs.extend(t.labels.iter());
    pairs.push((m.keys.zone, l.zone));
    pairs.push((m.keys.capacity_type, l.capacity_type));
    let (taints, startup_taints, pool_name) = (np.taints.clone(), np.startup_taints.clone(), np.name.clone());
    let (it_name, capacity) = (t.name.clone(), t.capacity.clone());
    let document = np.document;
    let np_hash = np.template_hash.clone().ok().map(|h| (h, crate::gohash::NODEPOOL_HASH_VERSION.to_string()));
    for (k, v) in custom {
        let v = m.interner.intern(&v);
        pairs.push((k, v));
    }
    let host = m.interner.intern(claim);
    pairs.push((m.keys.hostname, host));
    ExistingNode {
        name: claim.to_string(),
        labels: LabelSet::from_pairs(pairs),
        taints,
        allocatable,
        capacity,
        nodepool: Some(pool_name),
        instance_type: Some(it_name),
        zone: Some(m.interner.str(l.zone).to_string()),
        capacity_type: Some(m.interner.str(l.capacity_type).to_string()),
        created: None,
        initialized: false,
        initialized_condition: None,
        ready: true,
        managed: true,
        in_flight: true,
        // Created by this answer: no instance (providerID) yet.
        unlaunched: true,
        do_not_disrupt: false,
        marked_for_deletion: false,
        nodeclaim_name: Some(claim.to_string()),
        expire_after: None,
        last_pod_event: None,
        initialized_at: None,
        startup_taints,
        // Launched now from the pool's current template, so it carries that template's hash
        // and has not drifted.
        nodepool_hash: np_hash,
        drifted: None,
        has_termination_grace_period: false,
        conditions: Vec::new(),
        termination_grace_period: None,
        do_not_repair: false,
        registered: false,
        rebooting: false,
        reboot_finished: None,
        nominated_until: None,
        document,
        source: None,
    }
}

/// Whether node `n` of the model is a static launch of this answer. `apply` appends the
/// launched nodes one after another, so they are one range of `Model::nodes`.
pub(crate) fn is_static_launch(m: &Model, n: usize) -> bool {
    let mut nodes = m.static_launches.iter().filter_map(|s| s.node);
    match (nodes.next(), m.static_launches.iter().rev().find_map(|s| s.node)) {
        (Some(first), Some(last)) => (first..=last).contains(&n),
        _ => false,
    }
}

/// The static NodeClaims of a plan, with the pending pods the pass `sol` placed on them.
pub(crate) fn render(m: &Model, sol: &Solution) -> Vec<StaticNodeClaimOut> {
    if m.static_launches.is_empty() {
        return Vec::new();
    }
    let placed: std::collections::HashMap<usize, &[usize]> = sol.existing.iter().map(|e| (e.node, &e.pods[..])).collect();
    m.static_launches
        .iter()
        .map(|s| {
            let mut pods: Vec<String> =
                s.node.and_then(|n| placed.get(&n)).map(|ps| ps.iter().map(|&p| m.pods[p].key()).collect()).unwrap_or_default();
            pods.sort();
            let launch = s.launch.as_ref();
            StaticNodeClaimOut {
                name: s.name.clone(),
                node_pool: m.node_pools[s.pool].name.clone(),
                instance_type: launch.map(|l| m.catalog.types[l.it as usize].name.clone()),
                capacity_type: launch.map(|l| m.interner.str(l.capacity_type).to_string()),
                zone: launch.map(|l| m.interner.str(l.zone).to_string()),
                price_per_hour: launch.map(|l| round_price(l.price)),
                pods,
            }
        })
        .collect()
}

/// The answer's lines for the NodeClaims static scale-down deletes (`deprovision::choose`),
/// read before their pods are made pending.
pub(crate) fn deprovision_out(m: &Model, chosen: &[deprovision::Deprovision]) -> Vec<crate::api::StaticDeprovisionOut> {
    chosen
        .iter()
        .map(|d| {
            let n = &m.nodes[d.node];
            let mut pods: Vec<String> = m
                .pods
                .iter()
                .filter(|p| p.node_name.as_deref() == Some(n.name.as_str()) && p.is_reschedulable())
                .map(|p| p.key())
                .collect();
            pods.sort();
            let mut tied_with: Vec<String> = d.ties.iter().map(|&t| m.nodes[t].name.clone()).collect();
            tied_with.sort();
            crate::api::StaticDeprovisionOut {
                name: n.name.clone(),
                node_pool: m.node_pools[d.pool].name.clone(),
                why: d.why.as_str().into(),
                pods,
                tied_with,
            }
        })
        .collect()
}

/// What a simulation does not follow of the CapacityBuffers, said in its warnings rather
/// than ignored: a count that follows a workload's replicas (`percentage` of a `scalableRef`)
/// keeps the value the input's replicas give, however the trace scales the workload.
pub(crate) fn simulation_gaps(m: &Model) -> Vec<Warning> {
    let mut out = Vec::new();
    for b in m.capacity_buffers.iter().filter(|b| b.follows_workload) {
        out.push(Warning {
            code: "capacity-buffer-count-fixed".into(),
            message: format!(
                "CapacityBuffer {}: its {} virtual pods are a percentage of the workload's replicas in the input; Karpenter recomputes the count as the workload scales, the simulation keeps it",
                b.key, b.replicas
            ),
            object: Some(format!("CapacityBuffer/{}", b.key)),
        });
    }
    out
}

#[cfg(test)]
mod tests;
