//! Edits that put idle reserved capacity to work (issue 38): capacity the team pays for whether
//! it runs or not (an ODCR bills on-demand × its count; a capacity block is prepaid).
//!
//! - `allow-reserved`: a NodePool whose EC2NodeClass selected a reservation that this plan
//!   leaves idle (offered, instances still free after the pass), but whose
//!   `karpenter.sh/capacity-type` requirement does not allow `reserved`, gets `reserved` added
//!   to its values.
//! - `select-reservation`: an active reservation no EC2NodeClass selects (one the AWS provider
//!   would accept: `open`/`targeted`, `default`/`capacity-block`, not ended or expiring at the
//!   pass time, its type in the catalog, instances free) gets a `{id: ...}` term in the
//!   `capacityReservationSelectorTerms` of an EC2NodeClass that NodePools use — with
//!   `reserved` allowed in those NodePools that do not allow it yet, as one edit, since the
//!   selector alone launches nothing there.
//!
//! Like every other edit, each is verified by planning again with it applied
//! (`advise::advise`), so an edit that launches nothing into the reservation (its type is
//! excluded, its zone is not in the NodePool, ...) is never answered.

use super::candidates::{pool_docs, requirement, Candidate, PoolDoc};
use super::Change;
use crate::api::Plan;
use crate::catalog::resolve::expiring;
use crate::edit;
use crate::model::Model;
use serde_json::Value;
use std::collections::BTreeSet;

const CAPACITY_TYPE: &str = "karpenter.sh/capacity-type";
/// At most this many reservation edits per call (they come before the instance-type edits).
pub const MAX_RESERVATION_EDITS: usize = 8;

/// The EC2NodeClass a NodePool document references (`spec.template.spec.nodeClassRef.name`).
fn class_of(doc: &Value) -> Option<&str> {
    doc.pointer("/spec/template/spec/nodeClassRef/name").and_then(Value::as_str)
}

/// The NodePool's `karpenter.sh/capacity-type In [...]` values, when that requirement exists
/// and does not allow `reserved` (a NodePool without the requirement already allows it).
fn without_reserved(doc: &Value) -> Option<Vec<String>> {
    let reqs = doc.pointer("/spec/template/spec/requirements")?.as_array()?;
    let ct = reqs.iter().find(|r| r.get("key").and_then(Value::as_str) == Some(CAPACITY_TYPE))?;
    if ct.get("operator").and_then(Value::as_str) != Some("In") {
        return None;
    }
    let values: Vec<String> = ct.get("values")?.as_array()?.iter().filter_map(Value::as_str).map(str::to_string).collect();
    (!values.iter().any(|v| v == "reserved")).then_some(values)
}

/// The change that adds `reserved` to a NodePool's capacity types (reserved first: the order
/// does not matter to Karpenter, it reads as the preference it is).
fn allow_reserved(pool: &PoolDoc, values: Vec<String>) -> Change {
    let mut all = vec!["reserved".to_string()];
    all.extend(values);
    Change::Set {
        doc: pool.doc,
        path: edit::parse(&format!("spec.template.spec.requirements[key={CAPACITY_TYPE}]")).expect("a fixed, valid path"),
        value: requirement(CAPACITY_TYPE, "In", all),
    }
}

/// The EC2NodeClass documents (karpenter.k8s.aws) among `docs`: (index, name), document order.
fn class_docs(docs: &[Value]) -> Vec<(usize, String)> {
    docs.iter()
        .enumerate()
        .filter(|(_, d)| {
            d.get("kind").and_then(Value::as_str) == Some("EC2NodeClass")
                && d.get("apiVersion").and_then(Value::as_str).is_some_and(|a| a.starts_with("karpenter.k8s.aws/"))
        })
        .filter_map(|(i, d)| Some((i, d.pointer("/metadata/name")?.as_str()?.to_string())))
        .collect()
}

/// Would the AWS provider select `r` if a term named it, at the model's pass time?
fn selectable(m: &Model, r: &crate::model::reservation::Reservation) -> bool {
    let now = m.reservation_time;
    r.state == "active"
        && r.kind.is_some()
        && (r.match_criteria == "open" || r.match_criteria == "targeted")
        && !matches!((r.end, now), (Some(end), Some(now)) if end <= now)
        && !expiring(r, now)
        && m.catalog.find(&r.instance_type).is_some()
        && r.available > 0
}

/// The reservation edits for the plan `plan` of model `m` (its documents `docs`).
pub fn generate(m: &Model, docs: &[Value], plan: &Plan) -> Vec<Candidate> {
    if !m.reservation_gate || m.reservations.is_empty() {
        return Vec::new();
    }
    let pools = pool_docs(docs);
    let mut out = Vec::new();
    // (a) Selected, offered, and left with free instances by this plan.
    let idle: Vec<&crate::api::ReservationOut> = plan.reservations.iter().filter(|r| r.offered && r.remaining > 0).collect();
    let mut proposed: BTreeSet<usize> = BTreeSet::new();
    for r in &idle {
        for pool in &pools {
            let doc = &docs[pool.doc];
            let Some(class) = class_of(doc) else { continue };
            if !r.node_classes.iter().any(|c| c == class) || proposed.contains(&pool.doc) {
                continue;
            }
            let Some(values) = without_reserved(doc) else { continue };
            proposed.insert(pool.doc);
            out.push(Candidate {
                kind: "allow-reserved",
                title: format!(
                    "NodePool {}: allow reserved capacity ({CAPACITY_TYPE} In reserved, {}): EC2NodeClass {class} selects {} ({} {} in {}), idle in this plan",
                    pool.name,
                    values.join(", "),
                    r.id,
                    r.remaining,
                    r.instance_type,
                    r.zone
                ),
                changes: vec![allow_reserved(pool, values)],
            });
        }
    }
    // (b) Active reservations nobody selects, offered to each EC2NodeClass NodePools use.
    let classes = class_docs(docs);
    for r in m.reservations.iter().filter(|r| r.classes.is_empty() && selectable(m, r)) {
        for (class_doc, class) in &classes {
            let users: Vec<&PoolDoc> = pools.iter().filter(|p| class_of(&docs[p.doc]) == Some(class.as_str())).collect();
            if users.is_empty() {
                continue;
            }
            let mut changes = vec![Change::AddReservationTerm { doc: *class_doc, id: r.id.clone() }];
            let mut allowed = Vec::new();
            for pool in users {
                if let Some(values) = without_reserved(&docs[pool.doc]) {
                    allowed.push(pool.name.clone());
                    changes.push(allow_reserved(pool, values));
                }
            }
            let also = if allowed.is_empty() { String::new() } else { format!(", and allow reserved in NodePool {}", allowed.join(", ")) };
            out.push(Candidate {
                kind: "select-reservation",
                title: format!(
                    "EC2NodeClass {class}: select {} ({} {} of {} free {} in {}; capacityReservationSelectorTerms += {{id: {}}}){also}",
                    r.id, r.reservation_type, r.available, r.total, r.instance_type, r.zone, r.id
                ),
                changes,
            });
        }
    }
    out.truncate(MAX_RESERVATION_EDITS);
    out
}

/// Append `{id}` to the EC2NodeClass's `spec.capacityReservationSelectorTerms` (created when
/// absent).
pub(super) fn add_term(doc: &mut Value, id: &str) -> Result<(), String> {
    let spec = doc.get_mut("spec").and_then(Value::as_object_mut).ok_or("the EC2NodeClass has no spec mapping")?;
    let terms = spec.entry("capacityReservationSelectorTerms").or_insert_with(|| Value::Array(Vec::new()));
    let list = terms.as_array_mut().ok_or("spec.capacityReservationSelectorTerms is not a list")?;
    list.push(serde_json::json!({ "id": id }));
    Ok(())
}
