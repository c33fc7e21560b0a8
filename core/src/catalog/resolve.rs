//! Capacity sources resolve into offerings here (design.md): the reservations of the input,
//! selected per EC2NodeClass as the AWS provider selects them, become `reserved` offerings of
//! the catalog's instance types, before scheduling, disruption, optimize or the oracle's catalog
//! look at offerings.
//!
//! Rules (AWS provider v1.15.0):
//! - selection (pkg/providers/capacityreservation/types.go `QueriesFromSelectorTerms`,
//!   `DescribeCapacityReservationsInput`): a term with `id` matches that id; a term with `tags`
//!   and/or `instanceMatchCriteria` matches every reservation carrying all the tags (`*` = the
//!   key exists) with that criteria, owned by `ownerID` when given; a term with only `ownerID`
//!   matches nothing; EC2 is asked only for `state=active` reservations.
//! - provider.go `filterReservations`: a reservation whose EndDate is not after now is dropped.
//! - ec2nodeclass_status.go `CapacityReservationFromEC2`: instance match criteria must be
//!   `open` or `targeted`, reservation type `default` or `capacity-block`, else it is dropped;
//!   a capacity block is `expiring` from 40 minutes before its EndDate.
//! - offering/reserved_capacity_resolver.go: one offering per selected reservation on its
//!   instance type: capacity type `reserved`, the reservation's zone, labels
//!   `karpenter.k8s.aws/capacity-reservation-{id,type,interruptible}`, price = on-demand price
//!   / 10,000,000, available unless expiring or its zone is not one of the type's zones,
//!   reservation capacity = AvailableInstanceCount. The whole resolver is off when the
//!   ReservedCapacity feature gate is.

use super::Offering;
use crate::labels;
use crate::model::reservation::{Reservation, ReservationKind, ReservationTerm};
use crate::model::Model;

/// How long before its EndDate a capacity block is `expiring` (no longer offered).
pub const CAPACITY_BLOCK_EXPIRY_SECONDS: i64 = 40 * 60;
/// The reserved price divisor (reserved_capacity_resolver.go).
pub const RESERVED_PRICE_DIVISOR: f64 = 10_000_000.0;

pub use crate::model::reservation::{ClassSelection, ClassView, NotOffered, NotSelected};

/// Does `term` select `r` (ignoring state and dates)?
pub fn term_matches(term: &ReservationTerm, r: &Reservation) -> bool {
    if let Some(id) = &term.id {
        return *id == r.id;
    }
    if term.tags.is_empty() && term.instance_match_criteria.is_none() {
        return false;
    }
    term.owner_id.as_ref().is_none_or(|o| *o == r.owner_id)
        && term.instance_match_criteria.as_ref().is_none_or(|c| *c == r.match_criteria)
        && term.tags.iter().all(|(k, v)| r.tags.iter().any(|(rk, rv)| rk == k && (v == "*" || rv == v)))
}

/// Is a capacity block expiring at `now`?
pub fn expiring(r: &Reservation, now: Option<i64>) -> bool {
    match (r.kind, r.end, now) {
        (Some(ReservationKind::CapacityBlock), Some(end), Some(now)) => now >= end - CAPACITY_BLOCK_EXPIRY_SECONDS,
        _ => false,
    }
}

/// Whether a reservation's use depends on the pass time: it has an EndDate (an ODCR ends; a
/// capacity block stops being offered 40 minutes before).
pub fn depends_on_time(r: &Reservation) -> bool {
    r.end.is_some()
}

fn selection(r: &Reservation, terms: &[ReservationTerm], now: Option<i64>) -> Result<(), NotSelected> {
    if !terms.iter().any(|t| term_matches(t, r)) {
        return Err(NotSelected::NoTermMatches);
    }
    if r.state != "active" {
        return Err(NotSelected::NotActive);
    }
    if let (Some(end), Some(now)) = (r.end, now) {
        if end <= now {
            return Err(NotSelected::Ended);
        }
    }
    if r.match_criteria != "open" && r.match_criteria != "targeted" {
        return Err(NotSelected::UnsupportedMatchCriteria);
    }
    if r.kind.is_none() {
        return Err(NotSelected::UnsupportedType);
    }
    Ok(())
}

/// Select the model's reservations per EC2NodeClass and add their offerings to the catalog.
/// `now`: the pass time (Unix seconds), when known. Called once after lowering; [`at_time`]
/// re-applies it for a given time.
pub fn apply(m: &mut Model, now: Option<i64>, gate: bool) {
    if m.reservations.is_empty() {
        return;
    }
    let id_key = m.interner.intern(labels::RESERVATION_ID);
    let type_key = m.interner.intern(labels::RESERVATION_TYPE);
    let int_key = m.interner.intern(labels::RESERVATION_INTERRUPTIBLE);
    // Reservation labels are instance-type label keys of any catalog once reservations exist.
    for k in [id_key, type_key, int_key] {
        if !m.catalog.label_keys.contains(&k) {
            m.catalog.label_keys.push(k);
        }
    }
    m.catalog.label_keys.sort_unstable();
    // Drop offerings of an earlier resolution (at_time re-resolves a clone).
    for t in m.catalog.types.iter_mut() {
        t.offerings.retain(|o| o.reservation.is_none());
    }
    // The provider sorts a class's reservations by id.
    m.reservations.sort_by(|a, b| a.id.cmp(&b.id));
    let mut selections = Vec::new();
    for r in m.reservations.iter_mut() {
        r.id_value = m.interner.intern(&r.id);
        let type_name = r.kind.map_or(r.reservation_type.clone(), |k| k.as_str().to_string());
        r.type_value = m.interner.intern(&type_name);
        r.interruptible_value = m.interner.intern(if r.interruptible { "true" } else { "false" });
        r.classes.clear();
        r.offered = !expiring(r, now);
    }
    for class in &m.node_classes {
        if class.reservation_terms.is_empty() {
            continue;
        }
        let class_value = m.interner.intern(&class.name);
        let mut views = Vec::new();
        for (i, r) in m.reservations.iter_mut().enumerate() {
            let selected = selection(r, &class.reservation_terms, now).map(|()| {
                let it = m.catalog.find(&r.instance_type);
                if !gate {
                    Some(NotOffered::GateOff)
                } else if it.is_none() {
                    Some(NotOffered::UnknownInstanceType)
                } else if expiring(r, now) {
                    Some(NotOffered::Expiring)
                } else if !type_zones_have(&m.catalog.types[it.unwrap_or(0)], m.interner.get(&r.zone)) {
                    Some(NotOffered::UnofferedZone)
                } else {
                    None
                }
            });
            if selected.is_ok() && gate {
                r.classes.push(class_value);
            }
            views.push(ClassView { reservation: i, selected });
        }
        selections.push(ClassSelection { class: class.name.clone(), views });
    }
    if gate {
        for (i, r) in m.reservations.iter().enumerate() {
            if r.classes.is_empty() {
                continue;
            }
            let Some(ti) = m.catalog.find(&r.instance_type) else { continue };
            let zone = m.interner.intern(&r.zone);
            let t = &mut m.catalog.types[ti];
            let available = r.offered && type_zones_have(t, Some(zone));
            let price = t.on_demand_price / RESERVED_PRICE_DIVISOR;
            t.offerings.push(Offering {
                zone,
                capacity_type: m.keys.reserved,
                price,
                available,
                reservation: Some(i as u32),
                source: super::PriceSource::Reservation,
            });
        }
    }
    m.reservation_selections = selections;
    m.reservation_time = now;
}

/// The zones of a type are those of its ordinary offerings (the catalog's zones for it).
fn type_zones_have(t: &super::InstanceType, zone: Option<u32>) -> bool {
    zone.is_some_and(|z| t.offerings.iter().any(|o| o.reservation.is_none() && o.zone == z))
}

/// The model as of pass time `now`: reservations re-resolved (expiring capacity blocks and
/// ended reservations are no longer offered). Borrowed unchanged when nothing depends on time.
pub fn at_time(m: &Model, now: Option<i64>) -> std::borrow::Cow<'_, Model> {
    if now.is_none() || !m.reservations.iter().any(depends_on_time) {
        return std::borrow::Cow::Borrowed(m);
    }
    let mut m = m.clone();
    let gate = m.reservation_gate;
    apply(&mut m, now, gate);
    std::borrow::Cow::Owned(m)
}

/// The reservation of a reserved offering, when it is one.
pub fn reservation_of<'m>(m: &'m Model, o: &Offering) -> Option<&'m Reservation> {
    o.reservation.map(|i| &m.reservations[i as usize])
}

/// The ReservedCapacity feature gate of `settings` (on by default in v1.15).
pub fn gate(settings: &crate::model::Settings) -> bool {
    settings.feature_gates.reserved_capacity
}

/// The value of reservation label `key` for `r`.
pub fn label_value(r: &Reservation, key: crate::labels::KeyId, m: &Model) -> crate::labels::ValueId {
    if key == m.keys.reservation_id {
        r.id_value
    } else if key == m.keys.reservation_type {
        r.type_value
    } else {
        r.interruptible_value
    }
}

/// A reserved offering against requirements: its reservation labels (the offering's own
/// requirements) and the EC2NodeClasses that selected the reservation (the AWS provider builds
/// offerings per EC2NodeClass; nodecast's catalog is shared, so the class is checked through
/// the template's `karpenter.k8s.aws/ec2nodeclass` requirement).
pub fn reserved_offering_compatible(o: &Offering, r: &crate::requirements::Requirements, m: &Model) -> bool {
    let Some(res) = reservation_of(m, o) else { return true };
    m.keys.reservation_keys().into_iter().all(|k| r.get(k).is_none_or(|req| req.has(label_value(res, k, m), &m.interner)))
        && r.get(m.keys.node_class).is_none_or(|req| res.classes.iter().any(|&c| req.has(c, &m.interner)))
}
