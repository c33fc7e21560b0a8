//! Static scale-down: the NodeClaims Karpenter's static deprovisioning controller deletes when
//! a static NodePool has more of them than `spec.replicas` (StaticCapacity gate on).
//!
//! Karpenter v1.15 (pkg/controllers/static/deprovisioning/controller.go, `Reconcile` and
//! `getDeprovisioningCandidates`), for a managed static pool that is not being deleted (Ready
//! or not):
//! - the excess is the pool's running NodeClaims (cluster state's `GetNodeCount`: neither
//!   deleting nor pending disruption) minus `replicas`; nothing happens at or below it;
//! - first the unlaunched NodeClaims (no `status.providerID`, not deleting), in list order;
//! - then, among the pool's nodes with a NodeClaim that are not marked for deletion, the
//!   *empty* ones: no pod bound at all, or only DaemonSet pods none of which has an active
//!   `karpenter.sh/do-not-disrupt` (the pods listed by `spec.nodeName`, terminal ones
//!   included), in cluster-state order (a Go map: any of them);
//! - then the others, those without an active do-not-disrupt pod first, each group by
//!   `ReschedulingCost(every pod on the node) × LifetimeRemaining` ascending (the eviction cost
//!   as consolidation reads it; the fraction of `expireAfter` left, 1 without one);
//! - each chosen NodeClaim is deleted (no budget, no replacement): its pods go pending and the
//!   next provisioning pass provisions for them, as for any deleting node.
//!
//! Where Karpenter's choice among equals is a map order or an unstable sort, nodecast takes
//! names in order and lists the equals it could have taken (`ties`).

use crate::model::Model;

/// Why the controller picked a NodeClaim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// Not launched yet (no providerID).
    Unlaunched,
    /// No pods but DaemonSet ones without an active do-not-disrupt.
    Empty,
    /// The lowest rescheduling cost × lifetime remaining of the pool's other nodes.
    Cost,
}

impl Why {
    /// The words of the answer.
    pub fn as_str(self) -> &'static str {
        match self {
            Why::Unlaunched => "not launched yet",
            Why::Empty => "empty",
            Why::Cost => "lowest disruption cost",
        }
    }
}

/// One NodeClaim deleted to bring a static pool down to its replicas.
#[derive(Debug, Clone, PartialEq)]
pub struct Deprovision {
    /// Index into `Model::nodes`.
    pub node: usize,
    /// Index into `Model::node_pools`.
    pub pool: usize,
    /// Which of the controller's three groups it came from.
    pub why: Why,
    /// The other nodes Karpenter could have picked in its place (equal rank).
    pub ties: Vec<usize>,
}

/// What the controller does now, and whether the choice depended on the time when `now` is
/// unknown (a do-not-disrupt duration or an `expireAfter` on a candidate: they were read as
/// active and as a full lifetime). Cost: one scan of the pods plus a sort per pool over scale.
pub fn choose(m: &Model, now: Option<i64>) -> (Vec<Deprovision>, bool) {
    let mut out = Vec::new();
    let mut needs_now = false;
    if !m.settings.feature_gates.static_capacity || !m.node_pools.iter().any(|p| p.replicas.is_some()) {
        return (out, needs_now);
    }
    let mut on_node: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for (i, p) in m.pods.iter().enumerate() {
        if let Some(n) = p.node_name.as_deref() {
            on_node.entry(n).or_default().push(i);
        }
    }
    for (pool, np) in m.node_pools.iter().enumerate() {
        let Some(replicas) = np.replicas else { continue };
        let mut running: Vec<usize> = (0..m.nodes.len())
            .filter(|&i| {
                let n = &m.nodes[i];
                n.managed && !n.marked_for_deletion && n.nodepool.as_deref() == Some(np.name.as_str())
            })
            .collect();
        let excess = running.len() as i64 - replicas;
        if excess <= 0 {
            continue;
        }
        let mut want = excess as usize;
        running.sort_by(|&a, &b| claim_name(m, a).cmp(claim_name(m, b)));
        let (unlaunched, launched): (Vec<usize>, Vec<usize>) = running.into_iter().partition(|&i| m.nodes[i].unlaunched);
        take(&mut out, &unlaunched, want, pool, Why::Unlaunched);
        want -= want.min(unlaunched.len());
        if want == 0 {
            continue;
        }
        let pods_of = |i: usize| on_node.get(m.nodes[i].name.as_str()).map(Vec::as_slice).unwrap_or(&[]);
        // Karpenter's IsDoNotDisruptActive; without `now` a duration counts as active.
        let dnd = |p: usize| -> (bool, bool) {
            let pod = &m.pods[p];
            match now {
                Some(t) => (pod.do_not_disrupt_at(t), false),
                None => (pod.do_not_disrupt || pod.do_not_disrupt_for.is_some(), pod.do_not_disrupt_for.is_some() && pod.started.is_some()),
            }
        };
        let (mut empty, mut busy) = (Vec::new(), Vec::new());
        for i in launched {
            let pods = pods_of(i);
            let mut blocked = false;
            for &p in pods {
                let (active, timed) = dnd(p);
                blocked |= active;
                needs_now |= timed;
            }
            if pods.iter().all(|&p| m.pods[p].owned_by_daemonset) && !blocked {
                empty.push(i);
            } else {
                let cost: f64 = pods.iter().map(|&p| m.pods[p].eviction_cost).sum();
                let (life, timed) = lifetime_remaining(m, i, now);
                needs_now |= timed;
                busy.push((i, blocked, cost * life));
            }
        }
        take(&mut out, &empty, want, pool, Why::Empty);
        want -= want.min(empty.len());
        if want == 0 {
            continue;
        }
        // slices.SortFunc: do-not-disrupt last, then cost × lifetime ascending.
        busy.sort_by(|a, b| a.1.cmp(&b.1).then(a.2.total_cmp(&b.2)));
        let cut = want.min(busy.len());
        let rank = |k: usize| (busy[k].1, busy[k].2);
        for k in 0..cut {
            let ties: Vec<usize> = (cut..busy.len()).filter(|&j| rank(j) == rank(k)).map(|j| busy[j].0).collect();
            out.push(Deprovision { node: busy[k].0, pool, why: Why::Cost, ties });
        }
    }
    (out, needs_now)
}

/// The first `want` of `list` (all equal in rank: any `want` of them is Karpenter's pick).
fn take(out: &mut Vec<Deprovision>, list: &[usize], want: usize, pool: usize, why: Why) {
    let cut = want.min(list.len());
    for &node in &list[..cut] {
        let ties = if list.len() > cut { list[cut..].to_vec() } else { Vec::new() };
        out.push(Deprovision { node, pool, why, ties });
    }
}

fn claim_name(m: &Model, i: usize) -> &str {
    let n = &m.nodes[i];
    n.nodeclaim_name.as_deref().unwrap_or(&n.name)
}

/// Karpenter's `LifetimeRemaining` (pkg/utils/disruption): the share of the NodeClaim's
/// `expireAfter` still ahead, clamped to [0, 1]; 1 without one. Without `now` it is 1, and
/// the second value says the time would have mattered.
fn lifetime_remaining(m: &Model, i: usize, now: Option<i64>) -> (f64, bool) {
    let n = &m.nodes[i];
    let expire = match n.expire_after {
        Some(e) => e,
        None => n.nodepool.as_deref().and_then(|p| m.node_pools.iter().find(|np| np.name == p)).and_then(|np| np.expire_after),
    };
    match (expire, n.created, now) {
        (Some(0), Some(_), Some(_)) => (0.0, false),
        (Some(total), Some(created), Some(t)) => (((total - (t - created)) as f64 / total as f64).clamp(0.0, 1.0), false),
        (Some(_), Some(_), None) => (1.0, true),
        _ => (1.0, false),
    }
}
