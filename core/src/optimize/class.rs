//! A kind of node the optimiser may open (a `Class`: one offering of one instance type in one
//! NodePool) and whether a pod may run on it. Its own file because the instance (which builds
//! classes) and the minValues rule (`flex`, which the instance holds) both need it.

use super::group::Group;
use crate::labels::{KeyId, ValueId};
use crate::model::{Model, Pod};
use crate::scheduling::claim::Template;
use crate::scheduling::{it_labels_compatible, offering_compatible};
use crate::taints::first_untolerated;

/// A kind of node the optimiser may open: one offering of one instance type in one NodePool.
#[derive(Debug, Clone)]
pub struct Class {
    /// Index into the templates (pool order).
    pub template: usize,
    pub pool: usize,
    pub it: u32,
    pub zone: ValueId,
    pub capacity_type: ValueId,
    /// The reservation a `reserved` offering launches into (index into `Model::reservations`):
    /// its nodes count against that reservation's row of the limits.
    pub reservation: Option<u32>,
    pub price: f64,
    /// What pods may request per resource (allocatable − DaemonSet overhead).
    pub room: Vec<i64>,
    /// Per group: may the group run here?
    pub admits: Vec<bool>,
    /// Per limit row: what one node of this class uses of it.
    pub limit_use: Vec<i64>,
    /// An existing node's free room (index into `Instance::bins`), not an offering: price 0,
    /// and `template`, `pool` and `it` are `MAX` (no NodeClaim is launched for it).
    pub existing: Option<usize>,
}

impl Class {
    /// How many pods of group `gi` (`g`) fit alone on an empty node of this class.
    pub fn max_of(&self, gi: usize, g: &Group) -> u32 {
        if !self.admits[gi] || !self.admits_group(g) {
            return 0;
        }
        let mut n = g.per_node.min(g.count()) as i64;
        for (need, room) in g.requests.iter().zip(&self.room) {
            if *need > 0 {
                n = n.min(room / need);
            }
        }
        n.max(0) as u32
    }

    fn admits_group(&self, g: &Group) -> bool {
        g.requests.iter().zip(&self.room).all(|(need, room)| need <= room)
    }
}

/// Does a pod's required node constraints, tolerations and requests allow it on offering
/// `(it, zone, capacity type)` of template `t`? Requests are checked against the room row.
/// `reservation` picks the reserved offering among several of one type and zone.
pub fn pod_admits(pod: &Pod, t: &Template, it: u32, zone: ValueId, capacity_type: ValueId, reservation: Option<u32>, m: &Model) -> bool {
    let np = &m.node_pools[t.pool];
    if first_untolerated(&np.taints, &pod.tolerations).is_some() {
        return false;
    }
    let room = t.room.of(it);
    if !(0..m.resources.len()).all(|r| pod.requests.get(r as u16) <= room.get(r).copied().unwrap_or(0)) {
        return false;
    }
    let it_ref = &m.catalog.types[it as usize];
    let Some(offering) =
        it_ref.offerings.iter().find(|o| o.available && o.zone == zone && o.capacity_type == capacity_type && o.reservation == reservation)
    else {
        return false;
    };
    let allow = |k: KeyId| m.is_well_known(k);
    pod.strict_alternatives(&m.interner).iter().any(|strict| {
        if t.requirements.compatible(strict, allow, &m.interner).is_err() {
            return false;
        }
        let mut merged = t.requirements.clone();
        merged.add_all(strict, &m.interner);
        it_labels_compatible(it_ref, &merged, m) && offering_compatible(offering, &merged, m)
    })
}
