//! EC2 capacity reservations (On-Demand Capacity Reservations and Capacity Blocks for ML) as the
//! solver sees them: read from `aws ec2 describe-capacity-reservations` output by
//! `catalog::reservations`, selected by EC2NodeClasses and turned into reserved offerings by
//! `catalog::resolve`.

use crate::labels::ValueId;

/// `ReservationType` of a reservation (the AWS provider's `CapacityReservationType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReservationKind {
    /// An On-Demand Capacity Reservation (ODCR).
    Default,
    /// An EC2 Capacity Block for ML.
    CapacityBlock,
}

impl ReservationKind {
    /// The value of the `karpenter.k8s.aws/capacity-reservation-type` label.
    pub fn as_str(self) -> &'static str {
        match self {
            ReservationKind::Default => "default",
            ReservationKind::CapacityBlock => "capacity-block",
        }
    }
}

/// One entry of `CapacityReservations`, as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Reservation {
    pub id: String,
    pub instance_type: String,
    pub zone: String,
    pub owner_id: String,
    /// `AvailableInstanceCount`: instances that can still be launched into it.
    pub available: i64,
    /// `TotalInstanceCount`.
    pub total: i64,
    /// `State` as EC2 prints it (`active`, `expired`, `pending`, ...).
    pub state: String,
    /// `InstanceMatchCriteria` as EC2 prints it (`open`, `targeted`).
    pub match_criteria: String,
    /// `ReservationType` as EC2 prints it; `kind` is it when the AWS provider supports it.
    pub reservation_type: String,
    pub kind: Option<ReservationKind>,
    pub interruptible: bool,
    pub tags: Vec<(String, String)>,
    /// Unix seconds.
    pub start: Option<i64>,
    pub end: Option<i64>,
    /// Where it was read, for messages: document index and `CapacityReservations[i]`.
    pub document: usize,
    pub index: usize,
    pub source: Option<String>,
    /// Interned id / type / interruptible label values (set by `catalog::resolve`).
    pub id_value: ValueId,
    pub type_value: ValueId,
    pub interruptible_value: ValueId,
    /// Interned names of the EC2NodeClasses that selected it (values of the node-class label).
    pub classes: Vec<ValueId>,
    /// Offered at the pass time: not a capacity block within 40 minutes of its end (the AWS
    /// provider's `expiring` state) and not past its end.
    pub offered: bool,
}

/// One `spec.capacityReservationSelectorTerms` entry of an EC2NodeClass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReservationTerm {
    pub id: Option<String>,
    pub owner_id: Option<String>,
    pub tags: Vec<(String, String)>,
    pub instance_match_criteria: Option<String>,
}

/// Why an EC2NodeClass did not get a reservation (or got it without an offering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotSelected {
    /// No selector term matches it.
    NoTermMatches,
    /// EC2 is asked for `state=active` only.
    NotActive,
    /// Its EndDate is not after the pass time.
    Ended,
    /// InstanceMatchCriteria other than open/targeted: the provider drops it.
    UnsupportedMatchCriteria,
    /// ReservationType other than default/capacity-block: the provider drops it.
    UnsupportedType,
}

/// Why a selected reservation gives no available offering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotOffered {
    /// A capacity block within 40 minutes of its EndDate.
    Expiring,
    /// The instance type is not in the catalog.
    UnknownInstanceType,
    /// The zone is not one of the instance type's zones.
    UnofferedZone,
    /// The ReservedCapacity feature gate is off.
    GateOff,
}

/// One reservation as one EC2NodeClass sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassView {
    pub reservation: usize,
    pub selected: Result<Option<NotOffered>, NotSelected>,
}

/// Per EC2NodeClass with selector terms: every reservation of the input and what became of it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassSelection {
    pub class: String,
    pub views: Vec<ClassView>,
}
