//! Drift (spec disruption.md §10.1–§10.2): which NodeClaims Karpenter calls drifted, and the
//! Drift disruption method that replaces them one at a time.
//!
//! Detection follows pkg/controllers/nodeclaim/disruption/drift.go (isDrifted), first match:
//! 1. NodePoolDrifted: the NodeClaim and its NodePool both carry a template hash of the same
//!    version, and the hashes differ. The NodePool's hash is the one Karpenter's hash
//!    controller writes from the current template (`gohash`), whatever annotation the input has.
//! 2. RequirementsDrifted: the NodeClaim's labels, as requirements, are not compatible with the
//!    NodePool's `spec.template.spec.requirements` (Requirements.Compatible, no key allowed
//!    undefined). A NodeClaim carries its instance type's labels (the provider copies them at
//!    launch); a Node given without them gets them from the catalog here.
//! 3. InstanceTypeNotFound, checked only for a NodeClaim created more than an hour before `now`:
//!    it has no instance-type label, its instance type is not in the catalog (the cloud
//!    provider's instance types), or none of that type's offerings, available or not, has its
//!    zone and capacity type (a `reserved` NodeClaim also matches an on-demand offering, as it
//!    may have been demoted; drift.go instanceTypeNotFound).
//! 4. A `Drifted=True` condition the input reports with any other reason (the provider's: AMI,
//!    subnet, security group, capacity reservation, placement group, EC2NodeClass hash) is taken
//!    as is: those need the provider's live view, which nodecast does not have.
//!
//! A `Drifted` condition with a reason nodecast computes (NodePoolDrifted, RequirementsDrifted,
//! InstanceTypeNotFound) that it does not find any more is dropped, as Karpenter's next drift
//! check would clear it.

use super::*;
use crate::requirements::{Requirement, Requirements};
use crate::scheduling;

/// Why a NodeClaim is drifted.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Drifted {
    /// Karpenter's drift reason: `NodePoolDrifted`, `RequirementsDrifted`, or the one reported.
    pub reason: String,
    pub message: String,
    /// When it drifted (the condition's lastTransitionTime; `now` when nodecast finds it).
    pub since: i64,
}

/// The requirements a NodeClaim's labels make: the node's labels, plus the labels of its
/// instance type the node does not have (what the provider stamps on the NodeClaim), on the
/// keys of `keys` only. Compatible(labels, keys) reads no other key (the undefined check asks
/// the incoming keys, the intersection the shared ones), so the answer is the one the full
/// label set gives; this runs for every node in every disruption pass, and the full set was
/// dozens of inserted requirements and a scan of the catalog per node (issue 35).
fn claim_requirements(m: &Model, n: &ExistingNode, keys: &Requirements) -> Requirements {
    let mut it_labels = None;
    let mut r = Requirements::new();
    for (k, _) in keys.iter() {
        let v = n.labels.get(k).or_else(|| {
            it_labels
                .get_or_insert_with(|| {
                    n.instance_type.as_deref().and_then(|t| m.catalog.types.iter().find(|x| x.name == t)).map(|it| &it.labels)
                })
                .and_then(|l| l.get(k))
        });
        if let Some(v) = v {
            r.set(k, Requirement::in_values([v]));
        }
    }
    r
}

/// Karpenter computes these drift reasons itself; a condition with one of them is re-checked.
const COMPUTED: [&str; 3] = ["NodePoolDrifted", "RequirementsDrifted", "InstanceTypeNotFound"];

/// Why the NodeClaim's instance type is no longer one the provider offers (drift.go,
/// instanceTypeNotFound), or None when it is. Availability does not matter: a type whose
/// offerings are all unavailable is still there.
fn instance_type_not_found(m: &Model, n: &ExistingNode) -> Option<String> {
    let Some(name) = n.instance_type.as_deref() else {
        return Some("the NodeClaim has no label node.kubernetes.io/instance-type".into());
    };
    let Some(it) = m.catalog.types.iter().find(|t| t.name == name) else {
        return Some(format!("instance type {name} is no longer among the cloud provider's instance types"));
    };
    let zone = n.zone.as_deref().map(|z| m.interner.get(z));
    let ct = n.capacity_type.as_deref().map(|c| m.interner.get(c));
    let ct_ok = |o: crate::labels::ValueId| match ct {
        None => true,
        Some(c) if c == Some(m.keys.reserved) => o == m.keys.reserved || o == m.keys.on_demand,
        Some(c) => c == Some(o),
    };
    // drift.go drops only the provider's `ReservedCapacityLabels` from a reserved NodeClaim's
    // labels: the AWS provider registers the reservation id and type (apis/v1/doc.go), not
    // `capacity-reservation-interruptible`. So that label still has to match: on-demand and spot
    // offerings have it as DoesNotExist (offering/base_resolver.go), a reserved offering has its
    // reservation's value. A reserved NodeClaim whose reservation is no longer offered to its
    // NodePool is then not found, even with an on-demand offering in its zone.
    let interruptible =
        (ct == Some(Some(m.keys.reserved)) && m.catalog.is_aws()).then(|| n.labels.get(m.keys.reservation_interruptible)).flatten();
    let interruptible_ok = |o: &crate::catalog::Offering| match (interruptible, o.reservation) {
        (None, _) => true,
        (Some(v), Some(r)) => m.reservations[r as usize].interruptible_value == v,
        (Some(_), None) => false,
    };
    // Karpenter looks the type up among the instance types of the NodeClaim's own NodePool
    // (drift.go `GetInstanceTypes(nodePool)`), whose reserved offerings are only those of
    // reservations its EC2NodeClass selected: a reservation only another class selects is no
    // offering of this node's type. (Without the NodePool in the input, every class counts.)
    let class = n
        .nodepool
        .as_deref()
        .and_then(|p| m.node_pools.iter().find(|np| np.name == p))
        .map(|np| np.node_class.as_deref().and_then(|c| m.interner.get(c)));
    let selected_ok = |o: &crate::catalog::Offering| match (o.reservation, class) {
        (Some(r), Some(c)) => c.is_some_and(|c| m.reservations[r as usize].classes.contains(&c)),
        _ => true,
    };
    // A NodeClaim that is not reserved keeps every label in the check, so one carrying a
    // reservation label at all (even with an empty value) matches none of the AWS provider's
    // on-demand and spot offerings, which require those labels absent, and no reserved offering
    // has its capacity type.
    if ct != Some(Some(m.keys.reserved)) && m.catalog.is_aws() && m.keys.reservation_keys().into_iter().any(|k| n.labels.get(k).is_some()) {
        return Some(format!(
            "the NodeClaim is not reserved but has a karpenter.k8s.aws/capacity-reservation-* label, which no {name} offering it could run on allows"
        ));
    }
    if it
        .offerings
        .iter()
        .any(|o| zone.is_none_or(|z| z == Some(o.zone)) && ct_ok(o.capacity_type) && interruptible_ok(o) && selected_ok(o))
    {
        return None;
    }
    Some(format!(
        "instance type {name} has no offering in zone {} with capacity type {} any more",
        n.zone.as_deref().unwrap_or("(any)"),
        n.capacity_type.as_deref().unwrap_or("(any)")
    ))
}

/// Whether (and why) the node's NodeClaim is drifted at `now`.
pub(crate) fn drifted(m: &Model, n: &ExistingNode, now: i64) -> Option<Drifted> {
    if !n.managed || n.in_flight {
        return None;
    }
    let np = &m.node_pools[pool_of(m, n)?];
    let since = n.drifted.as_ref().and_then(|(_, t)| *t).unwrap_or(now);
    if let (Some((hash, version)), Ok(pool_hash)) = (&n.nodepool_hash, &np.template_hash) {
        if version == crate::gohash::NODEPOOL_HASH_VERSION && hash != pool_hash {
            return Some(Drifted {
                reason: "NodePoolDrifted".into(),
                message: format!(
                    "NodePool {:?}'s template changed since the NodeClaim was created (karpenter.sh/nodepool-hash {hash} on the NodeClaim, {pool_hash} now)",
                    np.name
                ),
                since,
            });
        }
    }
    if let Err(e) = claim_requirements(m, n, &np.spec_requirements).compatible(&np.spec_requirements, |_| false, &m.interner) {
        let key = match e {
            crate::requirements::Incompatible::Undefined(k) => {
                format!("the node has no label {:?} the NodePool requires", m.interner.str(k))
            }
            crate::requirements::Incompatible::Conflict(k) => {
                let value = n.labels.get(k).map(|v| m.interner.str(v).to_string()).unwrap_or_default();
                format!("its label {}={value} is no longer allowed by the NodePool's requirements", m.interner.str(k))
            }
        };
        return Some(Drifted { reason: "RequirementsDrifted".into(), message: key, since });
    }
    // Checked from an hour after creation on (a NodeClaim without a creation time is old).
    if n.created.is_none_or(|c| now - c > 3600) {
        if let Some(message) = instance_type_not_found(m, n) {
            return Some(Drifted { reason: "InstanceTypeNotFound".into(), message, since });
        }
    }
    match &n.drifted {
        Some((reason, _)) if !COMPUTED.contains(&reason.as_str()) => Some(Drifted {
            reason: reason.clone(),
            message: format!(
                "the NodeClaim's Drifted condition says {reason:?} (checked by Karpenter against the cloud provider, taken as given)"
            ),
            since,
        }),
        _ => None,
    }
}

/// A PDB that blocks every eviction of its pods (D-3.3.5): maxUnavailable 0 or 0%, or
/// minAvailable 100%. Its pods are not "currently reschedulable" and are left out of the
/// simulation.
pub(crate) fn fully_blocked(m: &Model, p: usize) -> bool {
    let pod = &m.pods[p];
    m.pdbs.iter().filter(|b| b.namespace == pod.namespace && b.selector.matches(&pod.labels)).any(|b| {
        matches!(b.max_unavailable, Some(IntOrPercent::Int(0)) | Some(IntOrPercent::Percent(0)))
            || (b.max_unavailable.is_none() && b.min_available == Some(IntOrPercent::Percent(100)))
    })
}

/// A drift candidate: a Karpenter candidate (the method filters of consolidation do not apply,
/// D-10.2.5) that is drifted and not in a static NodePool. With a terminationGracePeriod on the
/// NodeClaim, do-not-disrupt pods and PDBs do not keep it from being a candidate (D-3.3.6).
fn is_candidate(m: &Model, info: &NodeInfo) -> bool {
    eventual_candidate(m, info) && info.pool.is_some_and(|p| !m.node_pools[p].is_static)
}

/// A candidate of Karpenter's Eventual disruption class (Drift's and StaticDrift's): with a
/// terminationGracePeriod on the NodeClaim, do-not-disrupt pods and PDBs do not keep it out.
pub(super) fn eventual_candidate(m: &Model, info: &NodeInfo) -> bool {
    let n = &m.nodes[info.node];
    let pod_blocked = matches!(&info.blocker, Some((ReasonCode::DoNotDisruptPod | ReasonCode::Pdb, _)));
    info.candidate || (pod_blocked && n.has_termination_grace_period)
}

/// The Drift method's command (§10.2): drifted candidates oldest first, empty ones (no
/// reschedulable pods) before the others; the first whose pool's `Drifted` budget allows a
/// disruption and whose pods all schedule elsewhere is replaced by every NodeClaim the
/// simulation opens (none: deleted). Candidates passed over record why, first: for a drifted
/// node that is what decided, whatever kept consolidation away from it.
pub(crate) fn drift(
    m: &Model,
    infos: &[NodeInfo],
    found: &IndexMap<usize, Drifted>,
    now: i64,
    verdicts: &mut IndexMap<usize, Vec<Reason>>,
) -> Option<(usize, Vec<Replacement>, Option<TerminateFirst>)> {
    let mut order: Vec<usize> = (0..infos.len()).filter(|&i| found.contains_key(&infos[i].node) && is_candidate(m, &infos[i])).collect();
    // Equal times keep the candidates' gathering order (see `super::map_order`).
    order.sort_by(|&a, &b| {
        let (x, y) = (&found[&infos[a].node], &found[&infos[b].node]);
        x.since.cmp(&y.since).then_with(|| super::map_order(&m.nodes[infos[a].node], &m.nodes[infos[b].node]))
    });
    let (empty, busy): (Vec<usize>, Vec<usize>) = order.into_iter().partition(|&i| infos[i].reschedulable.is_empty());
    let mut base = None;
    let mut deleting: Option<Vec<usize>> = None;
    for i in empty.into_iter().chain(busy) {
        let info = &infos[i];
        let pool = info.pool?;
        if pool_budget(m, pool, "Drifted", now) == Some(0) {
            verdicts.entry(info.node).or_default().insert(
                0,
                Reason {
                    code: ReasonCode::Budget,
                    node_pool: Some(m.node_pools[pool].name.clone()),
                    message: format!("NodePool {:?} allows no more disruptions for reason Drifted now", m.node_pools[pool].name),
                },
            );
            continue;
        }
        let base = base.get_or_insert_with(|| scheduling::Baseline::new(m));
        let pending: Vec<usize> = (0..m.pods.len()).filter(|&p| m.pods[p].is_pending() && m.pods[p].ignored.is_none()).collect();
        let mut pods: Vec<usize> =
            info.reschedulable.iter().copied().filter(|&p| !m.pods[p].do_not_disrupt_at(now) && !fully_blocked(m, p)).collect();
        let moved = pods.clone();
        pods.extend(pending.iter().copied());
        // The pods of nodes already deleting are re-placed too and must place (see
        // `deleting_node_pods`); `bound` is every pod whose failure refuses the command.
        let deleting = deleting.get_or_insert_with(|| super::deleting_node_pods(m, now));
        pods.extend(deleting.iter().copied());
        let bound: Vec<usize> = moved.iter().chain(deleting.iter()).copied().collect();
        // No destination gating for drift (D-5.9 is consolidation's). Pass 1 of Karpenter's
        // SimulateSchedulingWithReservedFallback (disruption/helpers.go) runs the scheduler in
        // fallback mode, not the provisioner's strict one: a NodeClaim holding reservations takes
        // a pod that leaves it none (tests/scenarios/r09). Strict mode is only the terminate-first
        // pass below (`fits_in_freed_slot`).
        let sol = scheduling::solve_with(m, base, Some(&pods), &[info.node], &[], scheduling::reserve::ReservedMode::Fallback, &[]);
        let mut failed: Vec<String> = sol.failures.iter().filter(|(p, _)| bound.contains(p)).map(|(p, _)| m.pods[*p].key()).collect();
        failed.extend(super::uninitialized_landings(m, &sol, |p| moved.contains(&p)));
        if !failed.is_empty()
            && m.settings.feature_gates.terminate_first_drift
            && super::repair::fits_in_freed_slot(m, base, info.node, &pods, &moved, deleting)
        {
            // TerminateFirstDrift (drift.go): delete the reserved node first; provisioning
            // refills its freed slot.
            return Some((i, Vec::new(), Some(TerminateFirst::NoReservedCapacity)));
        }
        if !failed.is_empty() {
            verdicts.entry(info.node).or_default().insert(
                0,
                Reason {
                    code: ReasonCode::PodsDoNotFit,
                    node_pool: Some(m.node_pools[pool].name.clone()),
                    message: format!("drifted, but not all pods would schedule: {}", failed.join(", ")),
                },
            );
            continue;
        }
        let (replacements, stranded) = replacements_of(m, &sol, &bound);
        if !stranded.is_empty() {
            verdicts.entry(info.node).or_default().insert(
                0,
                Reason {
                    code: ReasonCode::PodsDoNotFit,
                    node_pool: Some(m.node_pools[pool].name.clone()),
                    message: format!(
                        "drifted, but not all pods would schedule: {} (their NodeClaim cannot meet minValues)",
                        stranded.join(", ")
                    ),
                },
            );
            continue;
        }
        return Some((i, replacements, None));
    }
    None
}
