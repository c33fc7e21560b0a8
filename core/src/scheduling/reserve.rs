//! Reserved capacity within one scheduling pass: Karpenter's reservation manager and the
//! NodeClaim's choice of offerings to reserve (pkg/controllers/provisioning/scheduling/
//! reservationmanager.go and nodeclaim.go `offeringsToReserve`, v1.15.0).
//!
//! - The manager starts every reservation at its offerings' ReservationCapacity (the
//!   reservation's AvailableInstanceCount) and counts down as NodeClaims reserve.
//! - A NodeClaim reserves one slot of *every* compatible reserved offering that still has
//!   capacity (pessimistic: the launch uses one of them), re-evaluated on every pod added; slots
//!   of reservations that stop being compatible are released.
//! - The provisioner runs in strict mode (`DisableReservedCapacityFallback`,
//!   provisioner.go): a pod compatible with a reserved offering that has capacity, but whose
//!   slots other NodeClaims of this pass hold, fails with a ReservedOfferingError instead of
//!   falling back to on-demand/spot: it is not relaxed and lower-weight NodePools are not
//!   tried; it waits for the next pass. A pod whose only compatible offerings are full
//!   reservations fails the same way in strict mode; in fallback mode (the disruption
//!   simulation) it fails with a plain error so lower NodePools are tried. Adding a pod to a
//!   NodeClaim that holds reservations fails in strict mode when none would stay compatible.

use super::offering_compatible;
use crate::catalog::Offering;
use crate::model::Model;
use crate::requirements::{Requirement, Requirements};
use smallvec::SmallVec;

/// Reservations (indices into `Model::reservations`) a NodeClaim holds.
pub type Held = SmallVec<[u32; 2]>;

/// Karpenter's `ReservedOfferingMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReservedMode {
    /// The provisioner's mode.
    Strict,
    /// The disruption simulation's mode (SimulateScheduling without options).
    Fallback,
}

/// Why reserving failed (Karpenter's three errors in `offeringsToReserve`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReservedFail {
    /// Strict: compatible reservations have capacity, but other NodeClaims of this pass hold
    /// it ("one or more instance types with compatible reserved offerings are available, but
    /// could not be reserved"). A ReservedOfferingError.
    HeldByOthers,
    /// Every compatible option is a full reservation. A ReservedOfferingError in strict mode
    /// ("all compatible reserved offerings are full and no on-demand or spot fallback is
    /// available"), a plain error in fallback mode.
    OnlyFull { strict: bool },
    /// Strict: the pod would leave a NodeClaim that holds reservations without any ("satisfying
    /// updated nodeclaim constraints would remove all compatible reserved offering options").
    WouldDropReservation,
}

impl ReservedFail {
    /// Karpenter's ReservedOfferingError: the pod is neither relaxed nor tried on lower NodePools.
    pub fn is_reserved_offering_error(self) -> bool {
        !matches!(self, ReservedFail::OnlyFull { strict: false })
    }

    /// Karpenter's message.
    pub fn message(self) -> &'static str {
        match self {
            ReservedFail::HeldByOthers => {
                "one or more instance types with compatible reserved offerings are available, but could not be reserved (other NodeClaims of this pass hold the capacity; the pod waits for the next pass)"
            }
            ReservedFail::OnlyFull { strict: true } => {
                "all compatible reserved offerings are full and no on-demand or spot fallback is available"
            }
            ReservedFail::OnlyFull { strict: false } => "the only compatible reserved offering is full; falling through to other NodePools",
            ReservedFail::WouldDropReservation => {
                "satisfying updated nodeclaim constraints would remove all compatible reserved offering options"
            }
        }
    }
}

/// The pass's reservation counts.
#[derive(Debug, Clone)]
pub struct Manager {
    /// Per reservation: slots left to reserve in this pass.
    capacity: Vec<i64>,
    pub mode: ReservedMode,
    /// Per reservation: slots credited back for this pass (a disruption candidate's).
    credit: Vec<i64>,
}

impl Manager {
    /// Seeded from the reservations' AvailableInstanceCount, plus `credit` (reservation, slots).
    pub fn new(m: &Model, mode: ReservedMode, credit: &[(u32, i64)]) -> Manager {
        let mut capacity: Vec<i64> = m.reservations.iter().map(|r| r.available).collect();
        let mut credited = vec![0; capacity.len()];
        for &(r, n) in credit {
            capacity[r as usize] += n;
            credited[r as usize] += n;
        }
        Manager { capacity, mode, credit: credited }
    }

    /// `CanReserve`: idempotent for a holder.
    fn can_reserve(&self, held: &[u32], r: u32) -> bool {
        held.contains(&r) || self.capacity[r as usize] > 0
    }

    /// `Reserve` the new set and `Release` what the holder no longer needs; false when a
    /// count would go below zero (Karpenter panics there: a bug, never expected).
    pub fn update(&mut self, held: &mut Held, new: Held) -> bool {
        for &r in &new {
            if !held.contains(&r) {
                if self.capacity[r as usize] <= 0 {
                    return false;
                }
                self.capacity[r as usize] -= 1;
            }
        }
        for &r in held.iter() {
            if !new.contains(&r) {
                self.capacity[r as usize] += 1;
            }
        }
        *held = new;
        true
    }

    /// `offeringsToReserve` for candidate types `its` under requirements `r`, for a holder that
    /// holds `held` now.
    pub fn offerings_to_reserve(&self, its: &[u32], r: &Requirements, held: &[u32], m: &Model) -> Result<Held, ReservedFail> {
        // Collected on the stack and copied once: a GPU NodeClaim holds ~30 reservations, and
        // growing the holder's small vector one push at a time reallocated it five times per
        // pod added (a third of this function's time with 100 reservations).
        let mut out: SmallVec<[u32; 32]> = SmallVec::new();
        let (mut with_capacity, mut full) = (false, false);
        let filter = ReservedFilter::of(r, m);
        // Reserved offerings first (a few per type); whether an on-demand or spot offering
        // is compatible matters only when every compatible reservation is full, so the
        // type's other offerings (six or more each) are checked only then.
        for &i in its {
            for o in m.catalog.types[i as usize].offerings.iter() {
                let Some(res) = o.reservation else { continue };
                if !o.available || !filter.admits(o, res, m) {
                    continue;
                }
                if m.reservations[res as usize].available == 0 && self.credit[res as usize] == 0 {
                    full = true;
                    continue;
                }
                with_capacity = true;
                if self.can_reserve(held, res) && !out.contains(&res) {
                    out.push(res);
                }
            }
        }
        let out = Held::from_slice(&out);
        let fallback = || {
            its.iter().any(|&i| {
                m.catalog.types[i as usize].offerings.iter().any(|o| o.reservation.is_none() && o.available && offering_compatible(o, r, m))
            })
        };
        let strict = self.mode == ReservedMode::Strict;
        if strict && with_capacity && out.is_empty() {
            return Err(ReservedFail::HeldByOthers);
        }
        if full && !with_capacity && !fallback() {
            return Err(ReservedFail::OnlyFull { strict });
        }
        if strict && !held.is_empty() && out.is_empty() {
            return Err(ReservedFail::WouldDropReservation);
        }
        Ok(out)
    }
}

/// `offering_compatible` for reserved offerings with the requirement lookups done once per
/// `offerings_to_reserve` call instead of once per offering (six binary searches each, over
/// every reserved offering of every candidate type on every pod added).
struct ReservedFilter<'r> {
    zone: Option<&'r Requirement>,
    capacity_type: Option<&'r Requirement>,
    /// The reservation id, type and interruptible labels, in that order.
    labels: [Option<&'r Requirement>; 3],
    node_class: Option<&'r Requirement>,
}

impl<'r> ReservedFilter<'r> {
    fn of(r: &'r Requirements, m: &Model) -> Self {
        ReservedFilter {
            zone: r.get(m.keys.zone),
            capacity_type: r.get(m.keys.capacity_type),
            labels: [r.get(m.keys.reservation_id), r.get(m.keys.reservation_type), r.get(m.keys.reservation_interruptible)],
            node_class: r.get(m.keys.node_class),
        }
    }

    /// Whether reserved offering `o` (of reservation `res`) is compatible: exactly
    /// `offering_compatible(o, r, m)` for an offering with a reservation.
    fn admits(&self, o: &Offering, res: u32, m: &Model) -> bool {
        let i = &m.interner;
        let rv = &m.reservations[res as usize];
        self.zone.is_none_or(|z| z.has(o.zone, i))
            && self.capacity_type.is_none_or(|c| c.has(o.capacity_type, i))
            && self.labels[0].is_none_or(|q| q.has(rv.id_value, i))
            && self.labels[1].is_none_or(|q| q.has(rv.type_value, i))
            && self.labels[2].is_none_or(|q| q.has(rv.interruptible_value, i))
            && self.node_class.is_none_or(|q| rv.classes.iter().any(|&c| q.has(c, i)))
    }
}
