//! Interruption notices of interruptible ODCRs (`{at: 3h, reservationInterrupt: {reservation:
//! cr-..., instances: 1}}`): the owner of the source reservation reclaims capacity and EC2 sends
//! an "EC2 Capacity Reservation Instance Interruption Warning" for each instance it takes back,
//! two minutes before terminating it. This file parses and checks the event; reservations.rs
//! applies Karpenter's response (AWS provider v1.15.0, pkg/controllers/interruption).

use crate::model::reservation::Reservation;
use serde_json::Value;

/// Which of the reservation's instances get a notice.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// This many of its running NodeClaims, in launch order (EC2 does not say which it takes;
    /// the oldest first is nodecast's choice, documented).
    Instances(i64),
    /// The NodeClaim of this name.
    Node(String),
}

/// A parsed `reservationInterrupt` event.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub reservation: String,
    pub target: Target,
}

/// What is wrong with a `reservationInterrupt` value: (field path, code, message, help).
pub type ParseError = (String, &'static str, String, &'static str);

const HELP: &str = "reservationInterrupt: {reservation: cr-0123456789abcdef0, instances: 1} (or node: NAME instead of instances)";

/// Most notices one event may send: bounded so an event's work is bounded by the request.
pub const MAX_INSTANCES: i64 = 10_000;

/// Read the `reservationInterrupt` value at `path`: a reservation id (one instance), or a
/// mapping `{reservation, instances | node}`. Every problem is reported, located.
pub fn parse(v: &Value, path: &str) -> Result<Notice, Vec<ParseError>> {
    let o = match v {
        Value::String(s) if !s.is_empty() => return Ok(Notice { reservation: s.clone(), target: Target::Instances(1) }),
        Value::Object(o) => o,
        other => {
            let shown = crate::manifest::reader::render_short(other);
            return Err(vec![(
                path.to_string(),
                "wrong-type",
                format!("reservationInterrupt is a reservation id or a mapping {{reservation, instances | node}}, found {shown}"),
                HELP,
            )]);
        }
    };
    let mut errors = Vec::new();
    for k in o.keys().filter(|k| !["reservation", "instances", "node"].contains(&k.as_str())) {
        errors.push((format!("{path}.{k}"), "unknown-field", format!("unknown field {k:?}"), "reservation, instances, node"));
    }
    let reservation = match o.get("reservation") {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        None => {
            errors.push((format!("{path}.reservation"), "required", "reservationInterrupt needs the reservation's id".into(), HELP));
            None
        }
        Some(other) => {
            let shown = crate::manifest::reader::render_short(other);
            errors.push((
                format!("{path}.reservation"),
                "wrong-type",
                format!("reservation must be a CapacityReservationId, found {shown}"),
                HELP,
            ));
            None
        }
    };
    let target = match (o.get("instances"), o.get("node")) {
        (Some(_), Some(_)) => {
            errors.push((path.to_string(), "invalid-event", "give instances or node, not both".into(), HELP));
            None
        }
        (None, None) => Some(Target::Instances(1)),
        (Some(n), None) => match n.as_i64() {
            Some(n) if (1..=MAX_INSTANCES).contains(&n) => Some(Target::Instances(n)),
            _ => {
                let shown = crate::manifest::reader::render_short(n);
                errors.push((
                    format!("{path}.instances"),
                    "out-of-range",
                    format!("instances must be an integer from 1 to {MAX_INSTANCES}, found {shown}"),
                    HELP,
                ));
                None
            }
        },
        (None, Some(Value::String(s))) if !s.is_empty() => Some(Target::Node(s.clone())),
        (None, Some(other)) => {
            let shown = crate::manifest::reader::render_short(other);
            errors.push((format!("{path}.node"), "wrong-type", format!("node must be a NodeClaim name, found {shown}"), HELP));
            None
        }
    };
    match (reservation, target) {
        (Some(reservation), Some(target)) if errors.is_empty() => Ok(Notice { reservation, target }),
        _ => Err(errors),
    }
}

/// Check a notice against the reservations of the input: EC2 sends these warnings only for
/// instances of an interruptible reservation. `Err((path, code, message, help))`.
pub fn check(reservations: &[Reservation], n: &Notice, path: &str) -> Result<(), (String, &'static str, String, String)> {
    let at = format!("{path}.reservationInterrupt");
    let Some(r) = reservations.iter().find(|r| r.id == n.reservation) else {
        let known: Vec<&str> = reservations.iter().filter(|r| r.interruptible).map(|r| r.id.as_str()).collect();
        let help = if known.is_empty() {
            "the input has no interruptible reservation (Interruptible: true in describe-capacity-reservations)".to_string()
        } else {
            format!("an interruptible reservation of the input: {}", known.join(", "))
        };
        return Err((at, "unknown-reservation", format!("{} is not a reservation of the input", n.reservation), help));
    };
    if !r.interruptible {
        return Err((
            at,
            "not-interruptible",
            format!(
                "{} is not interruptible (Interruptible: false): EC2 sends capacity reservation interruption warnings only for interruptible reservations",
                r.id
            ),
            "an interruptible reservation, or the spot `interrupt: NODE` event".to_string(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn forms_and_located_problems() {
        let ok = parse(&json!("cr-1"), "e").unwrap();
        assert_eq!(ok, Notice { reservation: "cr-1".into(), target: Target::Instances(1) });
        let ok = parse(&json!({"reservation": "cr-1", "instances": 3}), "e").unwrap();
        assert_eq!(ok.target, Target::Instances(3));
        let ok = parse(&json!({"reservation": "cr-1", "node": "gpu-2"}), "e").unwrap();
        assert_eq!(ok.target, Target::Node("gpu-2".into()));
        let e = parse(&json!({"instances": 0, "colour": 1}), "events[2].reservationInterrupt").unwrap_err();
        let got: Vec<(&str, &str)> = e.iter().map(|e| (e.0.as_str(), e.1)).collect();
        assert_eq!(
            got,
            [
                ("events[2].reservationInterrupt.colour", "unknown-field"),
                ("events[2].reservationInterrupt.reservation", "required"),
                ("events[2].reservationInterrupt.instances", "out-of-range"),
            ]
        );
        let e = parse(&json!({"reservation": "cr-1", "instances": 1, "node": "a"}), "p").unwrap_err();
        assert_eq!(e[0].1, "invalid-event");
        assert_eq!(parse(&json!(7), "p").unwrap_err()[0].1, "wrong-type");
    }

    #[test]
    fn a_few_bytes_cannot_ask_for_billions_of_notices() {
        // The bound is checked while parsing, before any notice exists; the largest accepted
        // count still acts only on the reservation's running NodeClaims.
        let ok = parse(&json!({"reservation": "cr-1", "instances": MAX_INSTANCES}), "e").unwrap();
        assert_eq!(ok.target, Target::Instances(MAX_INSTANCES));
        for huge in [json!(MAX_INSTANCES + 1), json!(1_000_000_000_000i64), json!(i64::MAX), json!(1e300)] {
            let e = parse(&json!({"reservation": "cr-1", "instances": huge}), "events[0].reservationInterrupt").unwrap_err();
            assert_eq!((e[0].0.as_str(), e[0].1), ("events[0].reservationInterrupt.instances", "out-of-range"), "{huge}");
        }
    }
}
