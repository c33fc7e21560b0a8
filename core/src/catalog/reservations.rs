//! Reading `aws ec2 describe-capacity-reservations` output (JSON or YAML, top-level
//! `CapacityReservations`) and EC2NodeClass `spec.capacityReservationSelectorTerms`.
//!
//! Fields are the ones the AWS CLI prints; the AWS provider (pkg/apis/v1/ec2nodeclass_status.go,
//! `CapacityReservationFromEC2`) dereferences CapacityReservationId, InstanceType,
//! AvailabilityZone, OwnerId and AvailableInstanceCount, so they are required here; fields the
//! CLI adds that nodecast does not read (CapacityReservationArn, Tenancy, EbsOptimized, ...) are
//! tolerated, as the AWS CLI adds them over time.

use crate::manifest::reader::{At, Sink};
use crate::model::reservation::{Reservation, ReservationKind, ReservationTerm};

/// The key that makes a document a reservations document.
pub const DOCUMENT_KEY: &str = "CapacityReservations";

/// Largest instance count accepted (EC2's own limits are far below it).
const MAX_COUNT: i64 = 1_000_000;

/// Is this decoded document a `describe-capacity-reservations` output?
pub fn is_reservations_document(v: &serde_json::Value) -> bool {
    v.get(DOCUMENT_KEY).is_some() && v.get("kind").is_none() && v.get("apiVersion").is_none()
}

/// Read every entry of the document at `root`; errors are located at
/// `CapacityReservations[i].Field`.
pub fn read(root: &At, sink: &mut Sink, source: Option<&str>) -> Vec<Reservation> {
    let mut out = Vec::new();
    let Some(list) = root.get(DOCUMENT_KEY) else {
        return out;
    };
    for (index, item) in sink.list(&list).into_iter().enumerate() {
        if !item.v.is_object() {
            sink.wrong_type(&item, "a capacity reservation (a mapping with CapacityReservationId, InstanceType, ...)");
            continue;
        }
        if let Some(r) = entry(&item, index, sink, source) {
            out.push(r);
        }
    }
    out
}

fn required(item: &At, field: &str, sink: &mut Sink, help: &str) -> Option<String> {
    match item.get(field) {
        Some(at) => {
            let s = sink.scalar(&at)?;
            if s.trim().is_empty() {
                sink.error(&at, "required", format!("{field} is empty"), help);
                return None;
            }
            Some(s)
        }
        None => {
            sink.error(item, "required", format!("capacity reservation without {field}"), help);
            None
        }
    }
}

fn count(item: &At, field: &str, sink: &mut Sink) -> Option<i64> {
    let Some(at) = item.get(field) else {
        sink.error(item, "required", format!("capacity reservation without {field}"), format!("{field}: an instance count ≥ 0"));
        return None;
    };
    sink.int_in(&at, 0, MAX_COUNT, "an instance count from 0 to 1000000")
}

fn date(item: &At, field: &str, sink: &mut Sink) -> Option<i64> {
    let at = item.get(field)?;
    let s = sink.scalar(&at)?;
    match s.parse::<jiff::Timestamp>() {
        Ok(t) => Some(t.as_second()),
        Err(_) => {
            sink.error(&at, "invalid-date", format!("{field} {s:?} is not a date"), "an ISO 8601 time as the AWS CLI prints it, e.g. 2026-11-28T11:30:00+00:00");
            None
        }
    }
}

fn entry(item: &At, index: usize, sink: &mut Sink, source: Option<&str>) -> Option<Reservation> {
    let before = sink.errors.len();
    let id = required(item, "CapacityReservationId", sink, "CapacityReservationId: cr-0123456789abcdef0");
    let instance_type = required(item, "InstanceType", sink, "InstanceType: p5.48xlarge");
    let zone = required(item, "AvailabilityZone", sink, "AvailabilityZone: us-east-1a");
    let owner_id = required(item, "OwnerId", sink, "OwnerId: the 12-digit AWS account id");
    let state = required(item, "State", sink, "State: active (or pending, expired, cancelled, ...)");
    let match_criteria = required(item, "InstanceMatchCriteria", sink, "InstanceMatchCriteria: open or targeted");
    let reservation_type = required(item, "ReservationType", sink, "ReservationType: default or capacity-block");
    let available = count(item, "AvailableInstanceCount", sink);
    let total = count(item, "TotalInstanceCount", sink);
    if let (Some(a), Some(t)) = (available, total) {
        if a > t {
            let at = item.get("AvailableInstanceCount").unwrap_or(*item);
            sink.error(&at, "invalid-number", format!("AvailableInstanceCount {a} is above TotalInstanceCount {t}"), "at most TotalInstanceCount");
        }
    }
    let interruptible = item.get("Interruptible").and_then(|at| sink.bool(&at)).unwrap_or(false);
    let mut tags = Vec::new();
    if let Some(list) = item.get("Tags") {
        for tag in sink.list(&list) {
            let k = required(&tag, "Key", sink, "Tags: [{Key: team, Value: ml}]");
            let v = tag.get("Value").and_then(|at| sink.scalar(&at)).unwrap_or_default();
            if let Some(k) = k {
                tags.push((k, v));
            }
        }
    }
    let start = date(item, "StartDate", sink);
    let end = date(item, "EndDate", sink);
    if sink.errors.len() > before {
        return None;
    }
    let reservation_type = reservation_type?;
    let kind = match reservation_type.as_str() {
        "default" => Some(ReservationKind::Default),
        "capacity-block" => Some(ReservationKind::CapacityBlock),
        // The AWS provider drops a reservation of another type (it logs an error); the answer
        // says so per EC2NodeClass that selects it (catalog::resolve).
        _ => None,
    };
    Some(Reservation {
        id: id?,
        instance_type: instance_type?,
        zone: zone?,
        owner_id: owner_id?,
        available: available?,
        total: total?,
        state: state?,
        match_criteria: match_criteria?,
        reservation_type,
        kind,
        interruptible,
        tags,
        start,
        end,
        document: sink.document,
        index,
        source: source.map(str::to_string),
        id_value: 0,
        type_value: 0,
        interruptible_value: 0,
        classes: Vec::new(),
        offered: true,
    })
}

/// `spec.capacityReservationSelectorTerms` (validated by `validate::selectors`).
pub fn read_terms(spec: &At, sink: &mut Sink) -> Vec<ReservationTerm> {
    let mut out = Vec::new();
    let Some(terms) = spec.get("capacityReservationSelectorTerms") else {
        return out;
    };
    for t in sink.list(&terms) {
        let mut term = ReservationTerm {
            id: sink.opt_scalar(&t, "id"),
            owner_id: sink.opt_scalar(&t, "ownerID"),
            instance_match_criteria: sink.opt_scalar(&t, "instanceMatchCriteria"),
            tags: Vec::new(),
        };
        if let Some(tags) = t.get("tags") {
            term.tags = sink.string_map(&tags);
            term.tags.sort();
        }
        out.push(term);
    }
    out
}
