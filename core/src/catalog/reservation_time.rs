//! Reservations on a clock: what the AWS provider does to running NodeClaims when the
//! reservation they run in ends. Used by `plan`/`consolidate`/`explain --node` at `now` and by
//! the simulator as its clock passes a reservation's end.
//!
//! Rules (AWS provider v1.15.0):
//! - pkg/controllers/capacityreservation/expiration/controller.go: every minute, the NodeClaims
//!   labelled with the id of a capacity block that is `expiring` (40 minutes or less before its
//!   EndDate, `CapacityReservationFromEC2` in pkg/apis/v1/ec2nodeclass_status.go) are deleted —
//!   a plain NodeClaim delete, so the termination controller drains them as it drains any
//!   deleted NodeClaim (do-not-disrupt pods wait until the terminationGracePeriod), and the
//!   provisioner re-places their pods. EC2 reclaims the instances 30 minutes before the end
//!   ("10 minutes before EC2 begins reclaiming", the controller's comment).
//! - pkg/controllers/capacityreservation/capacitytype/controller.go: an instance whose ODCR
//!   expired or was cancelled keeps running as on-demand (EC2 detaches it; `capacityTypeFromInstance`
//!   in pkg/providers/instance/types.go then says on-demand), so every minute the controller
//!   rewrites the NodeClaim's and Node's `karpenter.sh/capacity-type` from `reserved` to
//!   `on-demand` and deletes the `karpenter.k8s.aws/capacity-reservation-{id,type,interruptible}`
//!   labels. Nothing else happens to it: Karpenter's drift rules then apply as to any node (a
//!   NodePool that allows only `reserved` no longer admits the label: RequirementsDrifted,
//!   pkg/controllers/nodeclaim/disruption/drift.go), and consolidation prices it on demand.

use crate::model::reservation::{Reservation, ReservationKind};
use crate::model::{ExistingNode, Model};

/// What happens to a running NodeClaim of a reservation at a given time: `Deleted` (its
/// capacity block is expiring: the expiration controller deletes the NodeClaim) or `OnDemand`
/// (its ODCR ended: it is an on-demand NodeClaim now). The answer's vocabulary, built here.
pub use crate::vocab::ReservationChange as NodeChange;

/// States in which EC2 has let the reservation go (its instances no longer run in it).
const GONE_STATES: [&str; 2] = ["expired", "cancelled"];

/// Has reservation `r` ended at `now` (its EndDate passed, or EC2 says it expired or was
/// cancelled)?
pub fn ended(r: &Reservation, now: i64) -> bool {
    GONE_STATES.contains(&r.state.as_str()) || r.end.is_some_and(|e| e <= now)
}

/// The reservation (index into `m.reservations`) node `n` runs in: a `reserved` node with a
/// capacity-reservation-id label naming a reservation of the input.
pub fn node_reservation(m: &Model, n: &ExistingNode) -> Option<usize> {
    if n.capacity_type.as_deref() != Some(crate::labels::RESERVED) {
        return None;
    }
    let id = n.labels.get(m.keys.reservation_id)?;
    let id = m.interner.str(id);
    m.reservations.iter().position(|r| r.id == id)
}

/// What happens at `now` to node `n` because of its reservation, if anything: a capacity
/// block that is expiring (or gone) deletes it, an ODCR that ended makes it on-demand.
pub fn change_at(m: &Model, n: &ExistingNode, now: i64) -> Option<(usize, NodeChange)> {
    if !n.managed || n.marked_for_deletion {
        return None;
    }
    let i = node_reservation(m, n)?;
    let r = &m.reservations[i];
    match r.kind? {
        ReservationKind::CapacityBlock => {
            (ended(r, now) || crate::catalog::resolve::expiring(r, Some(now))).then_some((i, NodeChange::Deleted))
        }
        ReservationKind::Default => ended(r, now).then_some((i, NodeChange::OnDemand)),
    }
}

/// Every node `change_at` concerns at `now`: (node index, reservation index, change).
pub fn changes(m: &Model, now: i64) -> Vec<(usize, usize, NodeChange)> {
    if m.reservations.is_empty() {
        return Vec::new();
    }
    m.nodes.iter().enumerate().filter_map(|(k, n)| change_at(m, n, now).map(|(r, c)| (k, r, c))).collect()
}

/// Node `k` runs on demand from now: capacity type `on-demand`, reservation labels gone.
pub fn demote(m: &mut Model, k: usize) {
    let keys = m.keys;
    let n = &mut m.nodes[k];
    n.capacity_type = Some(crate::labels::ON_DEMAND.to_string());
    n.labels.set(keys.capacity_type, keys.on_demand);
    n.labels.0.retain(|(key, _)| !keys.is_reservation_key(*key));
}

/// Apply `changes` to the model: deleted NodeClaims are marked for deletion (the disruption
/// controller passes over them), demoted ones relabelled.
pub fn apply(m: &mut Model, changes: &[(usize, usize, NodeChange)]) {
    for &(k, _, c) in changes {
        match c {
            NodeChange::Deleted => m.nodes[k].marked_for_deletion = true,
            NodeChange::OnDemand => demote(m, k),
        }
    }
}

/// Apply `changes` before a provisioning pass at `now`: [`apply`], and the pods of each deleted
/// NodeClaim that Karpenter's provisioner counts as currently reschedulable
/// (`CurrentlyReschedulablePods` of the deleting nodes, provisioner.go: not DaemonSet or
/// mirror pods, not terminal unless a StatefulSet's terminating pod, not protected by `karpenter.sh/do-not-disrupt` at `now`, not
/// behind a PDB that allows no eviction) are pending again, so the pass provisions for them.
/// The others stay bound to the deleting node, which takes no pods.
pub fn apply_for_pass(m: &mut Model, changes: &[(usize, usize, NodeChange)], now: i64, fully_blocked: impl Fn(&Model, usize) -> bool) {
    apply(m, changes);
    let deleted: Vec<usize> = changes.iter().filter(|c| c.2 == NodeChange::Deleted).map(|&(k, _, _)| k).collect();
    pend_pods_of_deleting(m, &deleted, Some(now), fully_blocked);
}

/// The pods of the deleting nodes `nodes` that Karpenter's provisioner provisions for again in
/// a pass at `now` (provisioner.go `Schedule`: `nodes.Deleting().CurrentlyReschedulablePods`;
/// pdb.go `IsCurrentlyReschedulable`: reschedulable — not DaemonSet, mirror or terminal — not
/// protected by `karpenter.sh/do-not-disrupt` at `now`, not behind a PDB that allows no
/// eviction) are unbound, so the pass schedules them as pending pods; the others stay on the
/// deleting node, which takes no pods. Without `now`, a do-not-disrupt duration cannot be
/// evaluated: such pods stay, and are returned so the caller can say their move depends on
/// the time.
pub fn pend_pods_of_deleting(
    m: &mut Model,
    nodes: &[usize],
    now: Option<i64>,
    fully_blocked: impl Fn(&Model, usize) -> bool,
) -> Vec<usize> {
    let (moved, undecided) = reschedulable_of_deleting(m, nodes, now, fully_blocked);
    for p in moved {
        m.pods[p].node_name = None;
        // A StatefulSet's terminating pod is rescheduled too (IsReschedulable): pending again.
        if m.pods[p].terminal {
            m.pods[p].terminal = false;
        }
    }
    undecided
}

/// The pods of the deleting nodes `nodes` Karpenter counts as currently reschedulable at `now`
/// (`StateNodes.CurrentlyReschedulablePods`; see [`pend_pods_of_deleting`]), in index order,
/// and those whose do-not-disrupt duration needs `now` to decide (without it).
pub fn reschedulable_of_deleting(
    m: &Model,
    nodes: &[usize],
    now: Option<i64>,
    fully_blocked: impl Fn(&Model, usize) -> bool,
) -> (Vec<usize>, Vec<usize>) {
    let mut moved = Vec::new();
    let mut undecided = Vec::new();
    if nodes.is_empty() {
        return (moved, undecided);
    }
    let names: Vec<&str> = nodes.iter().map(|&k| m.nodes[k].name.as_str()).collect();
    for p in 0..m.pods.len() {
        let pod = &m.pods[p];
        if !pod.node_name.as_deref().is_some_and(|n| names.contains(&n)) || !pod.is_reschedulable() {
            continue;
        }
        // A terminating pod is not active: no annotation or PDB holds it (IsDisruptable,
        // pdb.go isEvictable).
        if pod.terminal {
            moved.push(p);
            continue;
        }
        if fully_blocked(m, p) {
            continue;
        }
        match now {
            Some(t) if pod.do_not_disrupt_at(t) => {}
            Some(_) => moved.push(p),
            // Protected at any time ("true", or a duration without a start time).
            None if pod.do_not_disrupt_at(i64::MAX) => {}
            None if pod.do_not_disrupt_for.is_some() => undecided.push(p),
            None => moved.push(p),
        }
    }
    (moved, undecided)
}

/// One sentence on a change, for answers.
pub fn describe(m: &Model, r: usize, c: NodeChange) -> String {
    let r = &m.reservations[r];
    let end = r.end.map(|t| jiff::Timestamp::from_second(t).map(|t| t.to_string()).unwrap_or_default());
    match c {
        NodeChange::Deleted => format!(
            "capacity block {} {}: Karpenter's capacityreservation.expiration controller deletes the NodeClaim from 40 minutes before the end (EC2 reclaims the instance from 30 minutes before); its pods are drained and provisioned again",
            r.id,
            end.map_or_else(|| format!("is {}", r.state), |e| format!("ends at {e}"))
        ),
        NodeChange::OnDemand => format!(
            "capacity reservation {} {}: the instance keeps running as on-demand; Karpenter's capacityreservation.capacitytype controller relabels it karpenter.sh/capacity-type=on-demand and removes the capacity-reservation labels (drift rules then apply; it is priced on demand)",
            r.id,
            end.map_or_else(|| format!("is {}", r.state), |e| format!("ended at {e}"))
        ),
    }
}
