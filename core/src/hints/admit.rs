//! The smallest requirement change that admits an instance type holding the pod: which values
//! to add on the pod's side or on the NodePool's side, for instance-type labels and for the
//! zone and capacity type an offering needs.

use super::edit::pod_only_requirements;
use crate::labels::{KeyId, ValueId};
use crate::model::Model;
use crate::requirements::Requirements;
use crate::resources::Resources;
use crate::scheduling::claim::Template;

/// An admitting edit: (keys changed, cheapest price it admits, that type, the (key, value)s).
type Candidate = (usize, f64, u32, Vec<(KeyId, ValueId)>);

#[derive(Clone, Copy, PartialEq)]
pub enum Side {
    Pod,
    Pool,
}

/// The values of `edited` that an offering in `zone` with `capacity_type` needs admitted; None
/// when `fixed` (the side not edited) excludes the offering.
fn offering_edit(m: &Model, edited: &Requirements, fixed: &Requirements, zone: ValueId, ct: ValueId) -> Option<Vec<(KeyId, ValueId)>> {
    let mut keys = Vec::new();
    for (k, v) in [(m.keys.zone, zone), (m.keys.capacity_type, ct)] {
        if fixed.get(k).is_some_and(|r| !r.has(v, &m.interner)) {
            return None;
        }
        if edited.get(k).is_some_and(|r| !r.has(v, &m.interner)) {
            keys.push((k, v));
        }
    }
    Some(keys)
}

/// The fewest requirement values to admit — on the pod's side (types the NodePool allows) or on
/// the NodePool's side (any catalog type) — so that some type fitting the pod's requests, in
/// one of its available offerings, becomes allowed; among equally small edits, the one
/// admitting the cheapest offering. Instance-type label keys are widened to the type's value;
/// the zone and capacity type to the offering's.
pub fn admitting_edit(m: &Model, t: &Template, p: usize, side: Side) -> Option<Vec<(KeyId, ValueId)>> {
    let pod = &m.pods[p];
    let pod_req = pod_only_requirements(m, p);
    let pool_req = &t.requirements;
    let (edited, fixed) = match side {
        Side::Pod => (&pod_req, pool_req),
        Side::Pool => (pool_req, &pod_req),
    };
    let none = Resources::new();
    let candidates: Box<dyn Iterator<Item = u32>> = match side {
        Side::Pod => Box::new(t.its.iter().copied()),
        Side::Pool => Box::new(0..m.catalog.types.len() as u32),
    };
    let mut best: Option<Candidate> = None;
    for i in candidates {
        let it = &m.catalog.types[i as usize];
        let overhead = if t.group_of[i as usize] == usize::MAX { &none } else { t.overhead(i) };
        if !pod.requests.fits_with(overhead, t.alloc(i, m)) || !crate::scheduling::it_labels_compatible(it, fixed, m) {
            continue;
        }
        let mut keys = Vec::new();
        let mut fixable = true;
        for (k, req) in edited.iter() {
            if k == m.keys.zone || k == m.keys.capacity_type || !m.catalog.is_label_key(k) {
                continue;
            }
            match it.labels.get(k) {
                Some(v) if req.has(v, &m.interner) => {}
                Some(v) => keys.push((k, v)),
                None if req.allows_absent() => {}
                None => fixable = false,
            }
        }
        if !fixable {
            continue;
        }
        // The offering needing the fewest further values, then the cheapest.
        let Some((more, price)) = it
            .offerings
            .iter()
            .filter(|o| o.available)
            .filter_map(|o| offering_edit(m, edited, fixed, o.zone, o.capacity_type).map(|k| (k, o.price)))
            .min_by(|a, b| a.0.len().cmp(&b.0.len()).then(a.1.total_cmp(&b.1)).then_with(|| a.0.cmp(&b.0)))
        else {
            continue;
        };
        keys.extend(more);
        if keys.is_empty() {
            continue;
        }
        let better = best.as_ref().is_none_or(|(n, bp, bi, _)| {
            (keys.len(), price).partial_cmp(&(*n, *bp)).is_some_and(|o| o.is_lt())
                || (keys.len() == *n && price == *bp && it.name < m.catalog.types[*bi as usize].name)
        });
        if better {
            best = Some((keys.len(), price, i, keys));
        }
    }
    best.map(|b| b.3)
}
