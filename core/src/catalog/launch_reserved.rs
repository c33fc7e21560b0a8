//! The AWS provider's launch into reserved capacity (pkg/providers/instance/instance.go and
//! pkg/providers/instance/filter/filter.go, v1.15.0), applied to a NodeClaim's candidate
//! offerings by `scheduling::launch::choose_launch` when reserved capacity is launchable.

use super::Offering;
use crate::model::reservation::ReservationKind;
use crate::model::Model;
use crate::requirements::{Requirement, Requirements};

/// CreateFleet takes one market type: the capacity-reservation-type filter keeps the partition
/// (reservation type × interruptible) holding the cheapest launchable reserved offering, ties
/// broken default < capacity-block < interruptible default, and drops every other offering of
/// the kept types (and the types without one). For capacity blocks CreateFleet takes a single
/// block: the capacity-block filter keeps, per type, its cheapest block offering (the first in
/// the EC2NodeClass status's id order on a tie: it replaces only a strictly dearer one), and
/// of the types the first whose block is cheapest. Then the reserved-offering filter keeps, per
/// type and zone, the reserved offering with the most instances left (the first in id order
/// on a tie).
pub fn filter(cands: &mut Vec<(u32, Vec<Offering>)>, m: &Model) {
    let key = |o: &Offering| {
        let r = &m.reservations[o.reservation.unwrap_or_default() as usize];
        let rank = match (r.kind, r.interruptible) {
            (Some(ReservationKind::Default), false) => 0,
            (Some(ReservationKind::CapacityBlock), _) => 1,
            _ => 2,
        };
        (rank, r.interruptible)
    };
    let Some(best) = cands
        .iter()
        .flat_map(|(_, offs)| offs.iter().filter(|o| o.reservation.is_some()))
        .min_by(|a, b| a.price.total_cmp(&b.price).then_with(|| key(a).cmp(&key(b))))
        .map(key)
    else {
        return;
    };
    for (_, offs) in cands.iter_mut() {
        offs.retain(|o| o.reservation.is_some() && key(o) == best);
    }
    cands.retain(|(_, o)| !o.is_empty());
    if best.0 == 1 {
        let id = |o: &Offering| &m.reservations[o.reservation.unwrap_or_default() as usize].id;
        let mut chosen: Option<(u32, Offering)> = None;
        for (t, offs) in cands.iter() {
            let cheapest = offs.iter().min_by(|a, b| a.price.total_cmp(&b.price).then_with(|| id(a).cmp(id(b))));
            if let Some(o) = cheapest.filter(|o| chosen.is_none_or(|(_, c)| o.price < c.price)) {
                chosen = Some((*t, *o));
            }
        }
        if let Some((t, o)) = chosen {
            *cands = vec![(t, vec![o])];
        }
        return;
    }
    for (_, offs) in cands.iter_mut() {
        let mut per_zone: Vec<Offering> = Vec::new();
        for o in offs.iter() {
            let left = |x: &Offering| m.reservations[x.reservation.unwrap_or_default() as usize].available;
            match per_zone.iter_mut().find(|x| x.zone == o.zone) {
                Some(x) if left(o) > left(x) => *x = *o,
                Some(_) => {}
                None => per_zone.push(*o),
            }
        }
        *offs = per_zone;
    }
    cands.retain(|(_, o)| !o.is_empty());
}

/// Karpenter's `FinalizeScheduling` for a NodeClaim holding reservations: its capacity type is
/// pinned to `reserved` and its reservation id to the ones it holds, so the launch cannot
/// over-launch into a reservation other NodeClaims hold.
pub fn pin(reqs: &Requirements, held: &[u32], m: &Model) -> Requirements {
    let mut r = reqs.clone();
    r.set(m.keys.capacity_type, Requirement::in_values([m.keys.reserved]));
    r.set(m.keys.reservation_id, Requirement::in_values(held.iter().map(|&i| m.reservations[i as usize].id_value)));
    r
}
