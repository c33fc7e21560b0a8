//! The reservations part of a plan: per reservation, what this pass used of it and what it
//! commits; per EC2NodeClass, what its selector terms selected and why not the others.

use crate::api::{NodeClassReservationsOut, Plan, ReservationOut, ReservationSkipOut, Warning};
use crate::catalog::reservation_time::NodeChange;
use crate::catalog::resolve::{self, NotOffered, NotSelected};
use crate::model::reservation::{Reservation, ReservationKind};
use crate::model::Model;
use crate::scheduling::launch::FinalClaim;

fn time(t: i64) -> String {
    jiff::Timestamp::from_second(t).map(|t| t.to_string()).unwrap_or_default()
}

fn not_selected(why: NotSelected, r: &Reservation) -> (&'static str, String) {
    match why {
        NotSelected::NoTermMatches => {
            ("no-term-matches", "no capacityReservationSelectorTerms term matches it (id, tags, ownerID, instanceMatchCriteria)".into())
        }
        NotSelected::NotActive => ("not-active", format!("its state is {:?}; Karpenter asks EC2 for active reservations only", r.state)),
        NotSelected::Ended => ("ended", format!("it ended at {} (EndDate), before the pass time", r.end.map(time).unwrap_or_default())),
        NotSelected::UnsupportedMatchCriteria => (
            "unsupported-match-criteria",
            format!("InstanceMatchCriteria {:?} is not open or targeted; the AWS provider drops it", r.match_criteria),
        ),
        NotSelected::UnsupportedType => (
            "unsupported-type",
            format!("ReservationType {:?} is not default or capacity-block; the AWS provider drops it", r.reservation_type),
        ),
    }
}

fn not_offered(why: NotOffered, r: &Reservation) -> (&'static str, String) {
    match why {
        NotOffered::Expiring => (
            "expiring",
            format!(
                "the capacity block ends at {}: from 40 minutes before, Karpenter marks it expiring and no longer launches into it",
                r.end.map(time).unwrap_or_default()
            ),
        ),
        NotOffered::UnknownInstanceType => ("unknown-instance-type", format!("instance type {} is not in the catalog", r.instance_type)),
        NotOffered::UnofferedZone => {
            ("zone-not-offered", format!("zone {} is not one of the catalog's zones for {}", r.zone, r.instance_type))
        }
        NotOffered::GateOff => ("gate-off", "the ReservedCapacity feature gate is off: no reserved offerings".into()),
    }
}

/// Fill the plan's reservation parts from the pass's launches.
pub(crate) fn attach(m: &Model, finals: &[FinalClaim], plan: &mut Plan) {
    if m.reservations.is_empty() {
        return;
    }
    let mut used = vec![0i64; m.reservations.len()];
    for f in finals {
        if let Some(r) = f.launch.as_ref().and_then(|l| l.reservation) {
            used[r as usize] += 1;
        }
    }
    let mut committed_total = 0.0;
    let mut waiting_on_time = Vec::new();
    for (i, r) in m.reservations.iter().enumerate() {
        let views: Vec<_> =
            m.reservation_selections.iter().filter_map(|s| s.views.iter().find(|v| v.reservation == i).map(|v| (s, v))).collect();
        let classes: Vec<String> = views.iter().filter(|(_, v)| v.selected.is_ok()).map(|(s, _)| s.class.clone()).collect();
        let first_not_offered = views.iter().find_map(|(_, v)| v.selected.ok().flatten());
        let offered = m.catalog.types.iter().any(|t| t.offerings.iter().any(|o| o.reservation == Some(i as u32) && o.available));
        let message = if offered {
            format!("offered to {}: {} of {} instances available before the pass", classes.join(", "), r.available, r.total)
        } else if let Some(why) = first_not_offered {
            not_offered(why, r).1
        } else if let Some(why) = views.iter().find_map(|(_, v)| v.selected.err()) {
            not_selected(why, r).1
        } else {
            "no EC2NodeClass has capacityReservationSelectorTerms".into()
        };
        let depends = resolve::depends_on_time(r) && m.reservation_time.is_none() && !classes.is_empty();
        if depends {
            waiting_on_time.push(r.id.clone());
        }
        // An ODCR bills the on-demand price of every reserved instance, used or not.
        let committed = match (r.kind, m.catalog.find(&r.instance_type)) {
            (Some(ReservationKind::Default), Some(t)) if r.state == "active" => {
                Some(crate::price::round_price(m.catalog.types[t].on_demand_price * r.total as f64))
            }
            _ => None,
        };
        if let Some(c) = committed.filter(|_| !classes.is_empty()) {
            committed_total += c;
        }
        plan.reservations.push(ReservationOut {
            id: r.id.clone(),
            instance_type: r.instance_type.clone(),
            zone: r.zone.clone(),
            reservation_type: r.reservation_type.clone(),
            interruptible: r.interruptible,
            state: r.state.clone(),
            total: r.total,
            available: r.available,
            used: used[i],
            remaining: r.available - used[i],
            node_classes: classes,
            offered,
            message,
            end_date: r.end.map(time),
            depends_on_time: depends,
            committed_price_per_hour: committed,
        });
    }
    for s in &m.reservation_selections {
        let mut out = NodeClassReservationsOut { node_class: s.class.clone(), selected: Vec::new(), not_selected: Vec::new() };
        for v in &s.views {
            let r = &m.reservations[v.reservation];
            let skip = match v.selected {
                Ok(None) => {
                    out.selected.push(r.id.clone());
                    None
                }
                Ok(Some(why)) => {
                    out.selected.push(r.id.clone());
                    Some(not_offered(why, r))
                }
                Err(why) => Some(not_selected(why, r)),
            };
            if let Some((reason, message)) = skip {
                out.not_selected.push(ReservationSkipOut { id: r.id.clone(), reason: reason.into(), message });
            }
        }
        plan.node_class_reservations.push(out);
    }
    plan.reserved_committed_price_per_hour = Some(crate::price::round_price(committed_total));
    if !waiting_on_time.is_empty() {
        plan.warnings.push(Warning {
            code: "reservation-time-unknown".into(),
            message: format!(
                "the use of {} depends on the time of the pass (EndDate: a capacity block is not launched into from 40 minutes before its end, a reservation past its end is gone); give the time (--now) to decide",
                waiting_on_time.join(", ")
            ),
            object: None,
        });
    }
}

/// The answer's `reservationChanges` for `changes` (`catalog::reservation_time::changes` on `m`),
/// by node name.
pub(crate) fn changes_out(m: &Model, changes: &[(usize, usize, NodeChange)]) -> Vec<crate::api::ReservationChangeOut> {
    let mut out: Vec<crate::api::ReservationChangeOut> = changes
        .iter()
        .map(|&(k, r, c)| {
            let res = &m.reservations[r];
            crate::api::ReservationChangeOut {
                node: m.nodes[k].name.clone(),
                reservation_id: res.id.clone(),
                reservation_type: res.reservation_type.clone(),
                change: c,
                message: crate::catalog::reservation_time::describe(m, r, c),
            }
        })
        .collect();
    out.sort_by(|a, b| a.node.cmp(&b.node));
    out
}

/// Why NodeClaim `c` of `plan` did or did not launch into a capacity reservation, for
/// `explain --pod`; None when no reservation concerns its instance types.
pub fn explain_claim(plan: &Plan, c: &crate::api::NodeClaimOut) -> Option<String> {
    if let Some(id) = &c.reservation_id {
        let r = plan.reservations.iter().find(|r| &r.id == id)?;
        return Some(format!(
            "it launches into capacity reservation {id} ({}, {} of {} left after this pass): Karpenter prefers reserved capacity to spot and on-demand, and prices it at the on-demand price / 10,000,000",
            r.reservation_type,
            r.remaining.max(0),
            r.total
        ));
    }
    let relevant: Vec<&ReservationOut> = plan.reservations.iter().filter(|r| c.instance_type_options.contains(&r.instance_type)).collect();
    if relevant.is_empty() {
        return None;
    }
    let reasons: Vec<String> = relevant
        .iter()
        .map(|r| {
            if !r.offered {
                format!("{}: {}", r.id, r.message)
            } else if r.remaining <= 0 {
                format!("{}: no instance left to launch ({} available before the pass, {} used by this pass)", r.id, r.available, r.used)
            } else {
                format!(
                    "{}: not compatible with the NodeClaim (its NodePool's EC2NodeClass does not select it, or the capacity type, zone or reservation labels exclude it)",
                    r.id
                )
            }
        })
        .collect();
    Some(format!("not in a capacity reservation: {}", reasons.join("; ")))
}
