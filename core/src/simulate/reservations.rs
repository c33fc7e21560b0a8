//! Capacity reservations on the simulated clock (docs/reservations.md, "In the simulator").
//!
//! The reservations of the input live on the trace's clock (time 0 is the trace's `start`):
//! - A reservation whose State is `active` or `scheduled` is active from its StartDate (or
//!   from before the run) until its EndDate (or the end of the run); any other State
//!   (`expired`, `cancelled`, `pending`, `failed`, ...) is never active. While active it is
//!   offered as `catalog::resolve` offers it (so a capacity block stops being offered 40
//!   minutes before its end).
//! - Its AvailableInstanceCount is the count at the start and moves with the run, as the AWS
//!   provider's availability cache does (pkg/providers/capacityreservation/provider.go
//!   `MarkLaunched` / `MarkTerminated`): a launch into it takes one, a terminated NodeClaim of
//!   it gives one back. Instances outside the cluster keep theirs.
//! - At a capacity block's expiring time its NodeClaims are deleted and drained (their pods
//!   pend again and are provisioned as any pending pod); at 30 minutes before its end EC2
//!   reclaims whatever still runs. An ODCR's NodeClaims turn on-demand at its end: relabelled,
//!   priced on demand from then on, and subject to drift (catalog::reservation_time).

use super::res_notice::{Notice, Target};
use super::settings::SimSettings;
use super::sim::Sim;
use super::state::{
    NState, ResTrack, CAPACITY_BLOCK_EXPIRING, RESERVATION_INTERRUPTED, RES_END, RES_EXPIRING, RES_RECLAIM, RES_START, RES_UNHIDE,
};
use super::ReservationUse;
use crate::catalog::{reservation_time, resolve};
use crate::error::InputError;
use crate::model::reservation::ReservationKind;
use crate::model::Model;
use crate::vocab::TimelineEvent;

/// When EC2 reclaims a capacity block's instances: 30 minutes before its end.
const RECLAIM_SECONDS: i64 = 30 * 60;

/// How long the AWS provider keeps an interrupted reservation's offering unavailable
/// (pkg/cache/cache.go `UnavailableOfferingsTTL`, the unavailable-offerings cache entry that
/// pkg/controllers/interruption/utils.go `markUnavailableOfferings` sets, keyed by type, zone,
/// `reserved` and the reservation id).
pub const UNAVAILABLE_OFFERING_SECONDS: i64 = 3 * 60;

/// States whose reservation is (or becomes, at its StartDate) active.
const LIVE_STATES: [&str; 2] = ["active", "scheduled"];

/// `simulation.capacityBlockPrices` may name only capacity blocks of the input.
pub fn check_prices(m: &Model, s: &SimSettings) -> Result<(), Vec<InputError>> {
    let errors: Vec<InputError> = s
        .capacity_block_prices
        .keys()
        .filter(|id| !m.reservations.iter().any(|r| &r.id == *id && r.kind == Some(ReservationKind::CapacityBlock)))
        .map(|id| {
            InputError::new("unknown-reservation", format!("{id} is not a capacity block of the reservations given"))
                .path(format!("simulation.capacityBlockPrices[{id:?}]"))
                .help("the CapacityReservationId of a ReservationType: capacity-block entry of the describe-capacity-reservations input")
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Offer every reservation that is active at some time of the run, for the catalog pruning
/// (engine.rs keeps only the types some NodePool can launch): a capacity block that starts
/// later must keep its instance type. `Sim::reservations_start` then resolves them at time 0.
pub fn offer_all(m: &mut Model) {
    if m.reservations.is_empty() {
        return;
    }
    for r in m.reservations.iter_mut().filter(|r| LIVE_STATES.contains(&r.state.as_str())) {
        r.state = "active".into();
    }
    let gate = m.reservation_gate;
    resolve::apply(m, None, gate);
}

impl Sim {
    /// Put the reservations on the clock at time 0 (after the input's nodes are adopted).
    pub fn reservations_start(&mut self, prices: Vec<Option<f64>>) {
        if self.m.reservations.is_empty() {
            return;
        }
        let origin = self.origin;
        let mut dated = false;
        for (i, r) in self.m.reservations.iter_mut().enumerate() {
            dated |= r.start.is_some() || r.end.is_some();
            let window = LIVE_STATES.contains(&r.state.as_str()).then(|| (r.start.map(|t| t - origin), r.end.map(|t| t - origin)));
            let active = window.is_some_and(|(from, until)| from.is_none_or(|f| f <= 0) && until.is_none_or(|u| u > 0));
            // `catalog::resolve` offers `active` reservations only: before its StartDate a
            // reservation is `scheduled`, from it on `active` (its end is read from EndDate).
            if window.is_some() {
                let started = window.is_some_and(|(f, _)| f.is_none_or(|f| f <= 0));
                r.state = if started { "active" } else { "scheduled" }.into();
            }
            self.res.push(ResTrack { window, active, on_demand_price: prices.get(i).copied().flatten(), ..ResTrack::default() });
        }
        if dated && !self.show_time {
            self.warnings.push(crate::api::Warning {
                code: "reservation-clock".into(),
                message: format!(
                    "the trace gives no start: the reservations' StartDate and EndDate are read against the default start {}",
                    super::render::rfc3339(origin)
                ),
                object: None,
            });
        }
        for n in 0..self.nodes.len() {
            if let Some(mi) = self.nodes[n].midx {
                self.nodes[n].reservation = reservation_time::node_reservation(&self.m, &self.m.nodes[mi]);
            }
        }
        for r in 0..self.res.len() {
            let Some((from, until)) = self.res[r].window else { continue };
            if let Some(f) = from.filter(|&f| f > 0) {
                self.push(f, super::state::Ev::Reservation(r, RES_START));
            }
            if let Some(u) = until {
                if self.m.reservations[r].kind == Some(ReservationKind::CapacityBlock) {
                    for (at, edge) in [(u - resolve::CAPACITY_BLOCK_EXPIRY_SECONDS, RES_EXPIRING), (u - RECLAIM_SECONDS, RES_RECLAIM)] {
                        if at > 0 {
                            self.push(at, super::state::Ev::Reservation(r, edge));
                        }
                    }
                }
                if u > 0 {
                    self.push(u, super::state::Ev::Reservation(r, RES_END));
                }
            }
            self.touch(r);
        }
        self.resolve_now();
        // Nodes of the input in a reservation that has ended (or a block already expiring).
        self.reservation_changes(None);
    }

    /// Re-resolve the reserved offerings at the current time; the scheduling caches built on
    /// the old offerings are dropped.
    fn resolve_now(&mut self) {
        let gate = self.m.reservation_gate;
        let now = self.abs_now();
        resolve::apply(&mut self.m, Some(now), gate);
        // An interruption notice's unavailable-offerings entry: the reservation's offering
        // stays in the catalog, not available (reserved_capacity_resolver.go `Available`).
        for (r, t) in self.res.iter().enumerate() {
            if t.hidden_until.is_some_and(|h| h > self.now) {
                for it in self.m.catalog.types.iter_mut() {
                    for o in it.offerings.iter_mut().filter(|o| o.reservation == Some(r as u32)) {
                        o.available = false;
                    }
                }
            }
        }
        self.baseline_memo = crate::scheduling::BaselineMemo::default();
        self.templates_cache = vec![None; self.m.node_pools.len()];
    }

    /// Account reservation `r`'s use up to now.
    fn touch(&mut self, r: usize) {
        let used = self.used(r);
        let t = &mut self.res[r];
        if t.active {
            t.used_seconds += used as f64 * (self.now - t.last).max(0) as f64;
            t.peak_used = t.peak_used.max(used);
        }
        t.last = self.now;
    }

    fn used(&self, r: usize) -> i64 {
        let res = &self.m.reservations[r];
        (res.total - res.available).max(0)
    }

    /// A NodeClaim launched into reservation `r` (MarkLaunched).
    pub fn reservation_launched(&mut self, r: usize) {
        self.touch(r);
        let res = &mut self.m.reservations[r];
        res.available = (res.available - 1).max(0);
        self.res[r].launches += 1;
        self.touch(r);
    }

    /// NodeClaim `n` of reservation `r` terminated (MarkTerminated): its slot is free again while
    /// the reservation lasts; an instance the owner reclaimed leaves the reservation instead.
    pub fn reservation_freed(&mut self, r: usize, n: usize) {
        if self.res.get(r).is_none_or(|t| !t.active) {
            return;
        }
        self.touch(r);
        let reclaimed = self.res[r].reclaimed.contains(&n);
        let res = &mut self.m.reservations[r];
        if reclaimed {
            // The capacity went back to the source reservation: TotalInstanceCount shrinks and
            // AvailableInstanceCount stays (the AWS provider's next sync, within a minute,
            // reads that from EC2; its offering is hidden for 3 minutes meanwhile).
            res.total = (res.total - 1).max(0);
            res.available = res.available.min(res.total);
            self.res[r].reclaimed_at.push(self.now);
        } else {
            res.available = (res.available + 1).min(res.total);
        }
        self.touch(r);
    }

    /// The trace's `reservationInterrupt` event: EC2 sends an "EC2 Capacity Reservation Instance
    /// Interruption Warning" for each chosen instance of the interruptible reservation. For each,
    /// Karpenter's interruption controller (AWS provider pkg/controllers/interruption/utils.go)
    /// marks the offering (type, zone, `reserved`, this reservation id) unavailable for 3
    /// minutes and deletes the NodeClaim (CordonAndDrain: its pods pend again); EC2 terminates
    /// the instance when the notice (`interruptionNoticeSeconds`, 2 minutes) runs out.
    pub fn reservation_notice(&mut self, notice: &Notice) {
        // res_notice::check has refused ids that are not interruptible reservations of the input.
        let Some(r) = self.m.reservations.iter().position(|x| x.id == notice.reservation) else { return };
        let live: Vec<usize> = self.live_in(r).into_iter().filter(|n| !self.res[r].reclaimed.contains(n)).collect();
        let (chosen, asked): (Vec<usize>, usize) = match &notice.target {
            Target::Instances(k) => (live.iter().copied().take(*k as usize).collect(), *k as usize),
            Target::Node(name) => (self.node_by_name.get(name).copied().filter(|n| live.contains(n)).into_iter().collect(), 1),
        };
        if chosen.len() < asked {
            let what = match &notice.target {
                Target::Node(name) => format!("{name:?} is no running NodeClaim of it"),
                Target::Instances(k) => format!("{k} instance(s) asked, {} of its NodeClaims run", chosen.len()),
            };
            self.warn(
                "reservation-interrupt-unmatched",
                format!("reservationInterrupt at {}s for {}: {what}; only running instances get a notice", self.now, notice.reservation),
            );
        }
        if chosen.is_empty() {
            return;
        }
        let until = self.now + UNAVAILABLE_OFFERING_SECONDS;
        self.res[r].hidden_until = Some(until);
        self.push(until, super::state::Ev::Reservation(r, RES_UNHIDE));
        self.resolve_now();
        let detail = format!(
            "offering unavailable until +{}s: Karpenter's interruption controller hides the offering for 3 minutes",
            UNAVAILABLE_OFFERING_SECONDS
        );
        self.log(
            TimelineEvent::ReservationOfferingUnavailable,
            notice.reservation.clone(),
            None,
            Some(RESERVATION_INTERRUPTED.as_str().into()),
            Some(detail),
        );
        for n in chosen {
            self.res[r].reclaimed.insert(n);
            let detail = format!(
                "EC2 Capacity Reservation Instance Interruption Warning ({}, interruptible): NodeClaim deleted, instance terminated after {}s",
                notice.reservation, self.s.interruption_notice_seconds
            );
            self.interrupt_as(n, RESERVATION_INTERRUPTED, detail);
        }
        self.mark_dirty();
    }

    /// One edge of reservation `r`'s clock.
    pub fn reservation_edge(&mut self, r: usize, edge: u8) {
        self.touch(r);
        let id = self.m.reservations[r].id.clone();
        match edge {
            RES_START => {
                self.res[r].active = true;
                self.m.reservations[r].state = "active".into();
                self.res[r].last = self.now;
                let detail = format!("{} of {} instances available", self.m.reservations[r].available, self.m.reservations[r].total);
                self.log(TimelineEvent::ReservationActive, id, None, None, Some(detail));
            }
            RES_EXPIRING => {
                self.log(
                    TimelineEvent::ReservationExpiring,
                    id,
                    None,
                    None,
                    Some("capacity block: no more launches; its NodeClaims are deleted".into()),
                );
            }
            RES_UNHIDE => {
                // A later notice extended the entry: its own edge re-resolves then.
                if self.res[r].hidden_until.is_none_or(|h| h > self.now) {
                    return;
                }
                self.res[r].hidden_until = None;
                self.log(
                    TimelineEvent::ReservationOfferingAvailable,
                    id,
                    None,
                    None,
                    Some("the interruption's unavailable-offerings entry expired".into()),
                );
            }
            RES_RECLAIM => {
                let live: Vec<usize> = self.live_in(r);
                for n in live {
                    self.terminate(n, CAPACITY_BLOCK_EXPIRING);
                }
                return;
            }
            _ => {
                self.res[r].active = false;
                self.log(TimelineEvent::ReservationEnded, id, None, None, None);
            }
        }
        self.resolve_now();
        self.reservation_changes(Some(r));
        if !self.pending.is_empty() {
            self.trigger_batch();
        }
        self.mark_dirty();
    }

    fn live_in(&self, r: usize) -> Vec<usize> {
        (0..self.nodes.len()).filter(|&n| self.nodes[n].reservation == Some(r) && self.nodes[n].state != NState::Terminated).collect()
    }

    /// Apply what the AWS provider does to the NodeClaims of ended reservations (all, or `only`).
    fn reservation_changes(&mut self, only: Option<usize>) {
        let abs = self.abs_now();
        let mut todo = Vec::new();
        for n in 0..self.nodes.len() {
            let Some(mi) = self.nodes[n].midx else { continue };
            if self.nodes[n].state == NState::Terminated || self.nodes[n].deleting {
                continue;
            }
            // A NodeClaim still launching is deleted (or relabelled) as a running one is.
            let change = reservation_time::change_at(&self.m, &self.m.nodes[mi], abs);
            if let Some((r, c)) = change.filter(|(r, _)| only.is_none_or(|o| o == *r)) {
                todo.push((n, r, c));
            }
        }
        for (n, r, c) in todo {
            match c {
                reservation_time::NodeChange::Deleted => {
                    self.res[r].deleted += 1;
                    let name = self.nodes[n].name.clone();
                    let message = reservation_time::describe(&self.m, r, c);
                    self.log(TimelineEvent::NodeclaimDisrupted, name, None, Some(CAPACITY_BLOCK_EXPIRING.as_str().into()), Some(message));
                    self.metrics.disrupted(CAPACITY_BLOCK_EXPIRING.as_str());
                    self.drain_and_delete(n, CAPACITY_BLOCK_EXPIRING);
                }
                reservation_time::NodeChange::OnDemand => self.demote(n, r),
            }
        }
    }

    /// Node `n` left ODCR `r` (it ended): on-demand from now, priced on demand.
    fn demote(&mut self, n: usize, r: usize) {
        let Some(mi) = self.nodes[n].midx else { return };
        reservation_time::demote(&mut self.m, mi);
        let od = self.m.keys.on_demand;
        let price = {
            let node = &self.nodes[n];
            let t = node.instance_type.as_deref().and_then(|t| self.m.catalog.find(t)).map(|i| &self.m.catalog.types[i]);
            let zone = node.zone.as_deref().and_then(|z| self.m.interner.get(z));
            let it = node.instance_type.as_deref().and_then(|t| self.m.catalog.find(t));
            let fee = crate::catalog::auto_mode_fee::of(&self.m, node.pool, it).unwrap_or(0.0);
            t.and_then(|t| t.offerings.iter().find(|o| o.capacity_type == od && Some(o.zone) == zone).map(|o| o.price))
                .unwrap_or(node.on_demand_price)
                + fee
        };
        let now = self.now;
        let node = &mut self.nodes[n];
        node.cost_before += node.price * (now - node.price_from).max(0) as f64 / 3600.0;
        node.price_from = now;
        node.price = price;
        node.capacity_type = Some(crate::labels::ON_DEMAND.to_string());
        node.reservation = None;
        self.res[r].demoted += 1;
        let name = self.nodes[n].name.clone();
        let message = reservation_time::describe(&self.m, r, reservation_time::NodeChange::OnDemand);
        self.log(TimelineEvent::NodeclaimRelabeled, name, None, Some("on-demand".into()), Some(message));
    }

    /// Per reservation: its use over the run and what it commits, at the end (`duration`).
    pub fn reservation_uses(&mut self, duration: i64) -> Vec<ReservationUse> {
        let mut out = Vec::new();
        for r in 0..self.res.len() {
            self.touch(r);
            let t = &self.res[r];
            let res = &self.m.reservations[r];
            let (from, until) = match t.window {
                Some((f, u)) => (f.unwrap_or(0).clamp(0, duration), u.unwrap_or(duration).clamp(0, duration)),
                None => (0, 0),
            };
            let active_seconds = (until - from).max(0);
            // TotalInstanceCount at the start; each reclaimed instance left it when it ended.
            let initial_total = res.total + t.reclaimed_at.len() as i64;
            let reclaimed_seconds: i64 = t.reclaimed_at.iter().map(|&at| (until - at.max(from)).max(0)).sum();
            let capacity_hours = (initial_total as f64 * active_seconds as f64 - reclaimed_seconds as f64) / 3600.0;
            let used_hours = t.used_seconds / 3600.0;
            let block = res.kind == Some(ReservationKind::CapacityBlock);
            let hourly = if block { self.s.capacity_block_prices.get(&res.id).copied() } else { t.on_demand_price };
            let committed = hourly.map(|p| usd(p * capacity_hours));
            let note = match (block, hourly) {
                (true, None) => Some(
                    "a capacity block is prepaid and its price is not in the describe-capacity-reservations output: give it as simulation.capacityBlockPrices (USD per instance-hour) for its committed cost".to_string(),
                ),
                (false, None) => Some(format!("instance type {} is not in the catalog: no on-demand price", res.instance_type)),
                _ => None,
            };
            out.push(ReservationUse {
                id: res.id.clone(),
                instance_type: res.instance_type.clone(),
                zone: res.zone.clone(),
                reservation_type: res.reservation_type.clone(),
                total: initial_total,
                active_from_seconds: t.window.map(|_| from),
                active_until_seconds: t.window.map(|_| until),
                launches: t.launches,
                used_instance_hours: usd(used_hours),
                utilization: if capacity_hours > 0.0 { ((used_hours / capacity_hours) * 1e4).round() / 1e4 } else { 0.0 },
                peak_used: t.peak_used,
                nodes_deleted: t.deleted,
                nodes_on_demand: t.demoted,
                nodes_interrupted: t.reclaimed.len(),
                committed_price_per_hour_usd: hourly
                    .filter(|_| active_seconds > 0)
                    .map(|p| crate::price::round_price(p * initial_total as f64)),
                committed_cost_usd: if active_seconds > 0 { committed } else { Some(0.0) },
                note,
            });
        }
        out
    }
}

fn usd(x: f64) -> f64 {
    (x * 1e6).round() / 1e6 + 0.0
}
