//! `nodecast-conformance --oracle PATH...`: the nodecast side of the differential harness in
//! `oracle/` (issue 15). For every scenario it prints one JSON line with nodecast's decision in
//! the harness's normalised form; before the first scenario that uses a catalog it prints that
//! catalog once, resolved (instance types with labels, allocatable, capacity and offerings), so
//! that the Karpenter side is fed exactly the instance types nodecast used.

use nodecast::api::{Decision, Plan};
use nodecast::internal::model::Model;
use nodecast::Outcome;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::Path;

/// Catalog specs already printed, by their JSON text, with their id; and per id the model of
/// the spec alone (`base_model`), against which a scenario's priced offerings are told.
#[derive(Default)]
pub struct Catalogs(HashMap<String, usize>, HashMap<usize, Option<Model>>);

/// The catalog without reserved offerings: those depend on the scenario's reservations and
/// clock, and go in its own line ([`reserved_json`]), so that scenarios on one catalog share one
/// catalog line however their reservations differ (one full catalog per reservation scenario
/// made the harness hold gigabytes over a long run).
fn catalog_json(m: &Model) -> Value {
    let types: Vec<Value> = m
        .catalog
        .types
        .iter()
        .map(|t| {
            let labels: Map<String, Value> =
                t.labels.0.iter().map(|(k, v)| (m.interner.str(*k).to_string(), Value::String(m.interner.str(*v).to_string()))).collect();
            let offerings = offerings_json(m, t);
            json!({"name": t.name, "labels": labels, "allocatable": m.resources.render(&t.allocatable),
                   "capacity": m.resources.render(&t.capacity), "offerings": offerings})
        })
        .collect();
    let zones: Vec<&str> = m.catalog.zones.iter().map(|z| m.interner.str(*z)).collect();
    json!({"source": m.catalog.source, "zones": zones, "types": types})
}

/// A type's on-demand and spot offerings as the catalog line shows them.
fn offerings_json(m: &Model, t: &nodecast::internal::model::instance_type::InstanceType) -> Vec<Value> {
    t.offerings
        .iter()
        .filter(|o| o.reservation.is_none())
        .map(|o| json!({"zone": m.interner.str(o.zone), "capacityType": m.interner.str(o.capacity_type), "price": o.price, "available": o.available}))
        .collect()
}

/// The catalog of `req` with none of its inputs: the spec alone, before the inputs' price and
/// offering documents (docs/prices-and-places.md) and NodeOverlays apply. `None` when the spec
/// cannot stand alone (a region without an embedded table needs its prices in the inputs).
fn base_model(req: &nodecast::json::Request) -> Option<Model> {
    let mut r = req.clone();
    r.inputs.clear();
    r.objects.clear();
    r.settings.feature_gates.node_overlay = false;
    nodecast::internal::load::model(&r.sources()).ok().map(|(m, _)| m)
}

/// The scenario's own on-demand and spot offerings where its price and offering documents made
/// them differ from the catalog line (`base`), per instance type: the Karpenter side swaps them
/// in, so one catalog line serves every scenario on the spec however their prices differ.
/// `priced` is the scenario's model without NodeOverlays (Karpenter applies those itself).
fn priced_json(priced: &Model, base: &Model) -> Map<String, Value> {
    let mut out = Map::new();
    for (t, b) in priced.catalog.types.iter().zip(&base.catalog.types) {
        let (a, b) = (offerings_json(priced, t), offerings_json(base, b));
        if a != b {
            out.insert(t.name.clone(), Value::Array(a));
        }
    }
    out
}

/// The reserved offerings of the scenario's resolved catalog (docs/reservations.md, "Oracle
/// catalog"), per instance type: the offering, its reservation, and the EC2NodeClasses whose
/// selector terms selected it (the AWS provider builds offerings per EC2NodeClass).
fn reserved_json(m: &Model) -> Map<String, Value> {
    let mut out = Map::new();
    for t in &m.catalog.types {
        let offerings: Vec<Value> = t
            .offerings
            .iter()
            .filter_map(|o| {
                let r = &m.reservations[o.reservation? as usize];
                let classes: Vec<&str> = r.classes.iter().map(|c| m.interner.str(*c)).collect();
                Some(json!({"zone": m.interner.str(o.zone), "capacityType": m.interner.str(o.capacity_type),
                            "price": o.price, "available": o.available, "reservationId": r.id,
                            "reservationCapacity": r.available, "reservationType": m.interner.str(r.type_value),
                            "reservationInterruptible": r.interruptible, "nodeClasses": classes}))
            })
            .collect();
        if !offerings.is_empty() {
            out.insert(t.name.clone(), Value::Array(offerings));
        }
    }
    out
}

/// The ResourceSlice templates the AWS provider gives a new node of each instance type
/// (`populateDynamicResources`: only with `--ignore-dra-requests=false` and DRANVIDIAGPU or DRAEFA
/// on), per instance type, as nodecast's allocator sees them; the harness hands them to
/// Karpenter's allocator as the types' `DynamicResources`. In the scenario's line, not the
/// catalog's: they depend on the scenario's settings. Capacities are quantities in milli-units.
fn dra_json(m: &Model) -> Map<String, Value> {
    use nodecast::internal::dra::AttrValue;
    let mut out = Map::new();
    if m.settings.ignore_dra_requests || !m.settings.aws_feature_gates.any_dra() {
        return out;
    }
    for t in &m.catalog.types {
        let templates = nodecast::internal::dra::aws::templates(&t.name, &m.settings.aws_feature_gates);
        if templates.is_empty() {
            continue;
        }
        let templates: Vec<Value> = templates
            .iter()
            .map(|tp| {
                let devices: Vec<Value> = tp
                    .devices
                    .iter()
                    .map(|d| {
                        let attributes: Map<String, Value> = d
                            .attributes
                            .iter()
                            .map(|(k, v)| {
                                let v = match v {
                                    AttrValue::Str(s) => json!({"string": s}),
                                    AttrValue::Int(n) => json!({"int": n}),
                                    AttrValue::Bool(b) => json!({"bool": b}),
                                    AttrValue::Version(s) => json!({"version": s}),
                                };
                                (k.clone(), v)
                            })
                            .collect();
                        let capacity: Map<String, Value> = d.capacity.iter().map(|(k, q)| (k.clone(), json!(format!("{q}m")))).collect();
                        json!({"name": d.name, "attributes": attributes, "capacity": capacity})
                    })
                    .collect();
                json!({"driver": tp.driver, "pool": tp.pool, "devices": devices})
            })
            .collect();
        out.insert(t.name.clone(), Value::Array(templates));
    }
    out
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// nodecast's provisioning answer in the harness's normalised form.
pub fn normal_plan(p: &Plan) -> Value {
    let mut claims: Vec<Value> = p
        .node_claims
        .iter()
        .map(|c| {
            let mut v = json!({"pods": sorted(c.pods.clone()), "nodePool": c.node_pool, "instanceType": c.instance_type,
                   "capacityType": c.capacity_type, "zone": c.zone, "price": c.price_per_hour,
                   "options": sorted(c.instance_type_options.as_ref().clone())});
            if let (Some(id), Value::Object(map)) = (&c.reservation_id, &mut v) {
                map.insert("reservationId".into(), json!(id));
            }
            v
        })
        .collect();
    claims.sort_by(|a, b| a["pods"].to_string().cmp(&b["pods"].to_string()));
    let existing: Map<String, Value> =
        p.existing_nodes.iter().flat_map(|n| n.pods.iter().map(move |pod| (pod.clone(), Value::String(n.name.clone())))).collect();
    // Pods held back by a ReservedOfferingError wait for the next pass: Karpenter does not
    // count them as unschedulable (scheduler.go `Results.ReservedOfferingErrors`).
    let deferred_code = nodecast::reason::ReasonCode::ReservedOfferingUnavailable;
    let unschedulable = sorted(p.unschedulable.iter().filter(|u| u.code != deferred_code).map(|u| u.pod.clone()).collect());
    let deferred = sorted(p.unschedulable.iter().filter(|u| u.code == deferred_code).map(|u| u.pod.clone()).collect());
    // How many of Karpenter's coin flips (zones among equal counts) nodecast disclosed: the
    // harness re-runs Karpenter longer on a disagreement that hangs on them.
    // Static scale-down takes equals in a Go map's order: each choice it had counts as one.
    let ties: usize = p.node_claims.iter().map(|c| c.ties.len()).sum::<usize>()
        + p.static_deprovisioned.iter().filter(|d| !d.tied_with.is_empty()).count();
    let mut v = json!({"claims": claims, "existing": existing, "unschedulable": unschedulable, "ties": ties});
    if !deferred.is_empty() {
        v["deferred"] = json!(deferred);
    }
    // The NodeClaims the static deprovisioning controller deletes (oracle/static.go compares them).
    if !p.static_deprovisioned.is_empty() {
        v["staticDeleted"] = json!(sorted(p.static_deprovisioned.iter().map(|d| d.name.clone()).collect()));
    }
    // The static NodeClaims (StaticCapacity gate) Karpenter's static provisioning controller
    // creates before the pass, with the launch nodecast expects and the pending pods the pass
    // put on them (the harness compares them with oracle/static.go's run of that controller).
    if !p.static_node_claims.is_empty() {
        let mut s: Vec<Value> = p
            .static_node_claims
            .iter()
            .map(|c| {
                json!({"pods": c.pods, "nodePool": c.node_pool, "instanceType": c.instance_type.clone().unwrap_or_default(),
                       "capacityType": c.capacity_type.clone().unwrap_or_default(), "zone": c.zone.clone().unwrap_or_default(),
                       "price": c.price_per_hour.unwrap_or_default(), "options": []})
            })
            .collect();
        s.sort_by(|a, b| (a["nodePool"].to_string(), a["pods"].to_string()).cmp(&(b["nodePool"].to_string(), b["pods"].to_string())));
        v["static"] = json!(s);
    }
    v
}

/// nodecast's disruption answer in the harness's normalised form. `m` is the scenario's model
/// resolved at its clock, as the decision's own: a replacement launched into a reservation names
/// it (the harness checks it against the AWS provider's choice, as for a plan's claims).
pub fn normal_decision(d: &Decision, m: &Model) -> Value {
    let replacement = d.replacement.as_ref().map(|r| {
        let mut v = json!({"nodePool": r.node_pool, "instanceType": r.instance_type, "capacityType": r.capacity_type,
               "zone": r.zone, "price": r.price_per_hour, "options": sorted(r.instance_type_options.clone())});
        let id = r.launch.as_ref().and_then(|l| l.launch.reservation).and_then(|i| m.reservations.get(i as usize));
        if let (Some(res), Value::Object(map)) = (id, &mut v) {
            map.insert("reservationId".into(), json!(res.id));
        }
        v
    });
    let replacements = d.replacement.iter().count() + d.more_replacements.len();
    // Karpenter's Command.Decision() calls a delete-only terminate-first command
    // "terminate-first" (disruption/types.go).
    let decision = match (d.decision, d.terminate_first) {
        (nodecast::api::Action::Delete, Some(_)) => json!("terminate-first"),
        (a, _) => json!(a),
    };
    json!({"decision": decision, "reason": d.reason, "nodes": sorted(d.disrupted_nodes.clone()), "replacement": replacement,
           "replacements": replacements, "ties": d.ties.len()})
}

/// One scenario: the catalog line (first time only) and the answer line.
pub fn run(s: &Value, name: &str, file: &Path, catalogs: &mut Catalogs) -> Vec<Value> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let kind = s.get("kind").and_then(Value::as_str).unwrap_or("").to_string();
    let mut out = Vec::new();
    let base = |extra: Value| {
        let mut v = json!({"record": "scenario", "name": name, "file": file.display().to_string(), "kind": kind});
        if let (Some(o), Value::Object(e)) = (v.as_object_mut(), extra) {
            o.extend(e);
        }
        v
    };
    let req = match crate::request(s, dir) {
        Ok(r) => r,
        Err(e) => return vec![base(json!({"error": e}))],
    };
    let model = match nodecast::internal::load::model(&req.sources()) {
        Ok((m, _)) => m,
        Err(e) => return vec![base(json!({"error": format!("model failed: {e:?}")}))],
    };
    // The pass time resolves reservations (an expiring capacity block is not available).
    let now = match req.now.as_deref().map(|n| nodecast::json::parse_now(Some(n))).transpose() {
        Ok(n) => n,
        Err(e) => return vec![base(json!({"error": format!("clock.now: {e:?}")}))],
    };
    let model = nodecast::internal::catalog::resolve::at_time(&model, now);
    // The catalog line leaves reserved offerings and the price documents' offerings out (they
    // are in the scenario's line), so the catalog's spec is its key. A spec that cannot stand
    // without the inputs' prices gets a line per scenario.
    let mut spec = req.catalog.clone().unwrap_or(Value::Null).to_string();
    let alone = if catalogs.0.contains_key(&spec) { None } else { base_model(&req) };
    if alone.is_none() && !catalogs.0.contains_key(&spec) {
        spec = format!("{spec} {name} {}", file.display());
    }
    // The catalog as the cloud provider reports it: with the NodeOverlay gate on, the model's
    // catalog is overlaid, and Karpenter's side applies the overlays itself.
    let plain = || {
        req.settings.feature_gates.node_overlay.then(|| {
            let mut r = req.clone();
            r.settings.feature_gates.node_overlay = false;
            nodecast::internal::load::model(&r.sources()).ok().map(|(m, _)| m)
        })
    };
    let next = catalogs.0.len();
    let id = match catalogs.0.get(&spec) {
        Some(&id) => id,
        None => {
            let line = match &alone {
                Some(b) => catalog_json(b),
                None => catalog_json(plain().flatten().as_ref().unwrap_or(&model)),
            };
            out.push(json!({"record": "catalog", "id": next, "catalog": line}));
            catalogs.0.insert(spec.clone(), next);
            catalogs.1.insert(next, alone);
            next
        }
    };
    let answer = match kind.as_str() {
        "provision" => match nodecast::plan(&req).outcome {
            Outcome::Success(p) => normal_plan(&p),
            Outcome::Failure { errors } => json!({"error": errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")}),
        },
        "disrupt" => match nodecast::consolidate(&req).outcome {
            Outcome::Success(d) => normal_decision(&d, &model),
            Outcome::Failure { errors } => json!({"error": errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")}),
        },
        other => json!({"error": format!("unknown scenario kind {other:?}")}),
    };
    let mut line = base(json!({"catalog": id, "nodecast": answer}));
    let reserved = reserved_json(&model);
    if !reserved.is_empty() {
        line["reserved"] = Value::Object(reserved);
    }
    if let (true, Some(Some(base))) = (model.catalog.user_prices, catalogs.1.get(&id)) {
        let overlaid = plain().flatten();
        let offerings = priced_json(overlaid.as_ref().unwrap_or(&model), base);
        if !offerings.is_empty() {
            line["offerings"] = Value::Object(offerings);
        }
    }
    let dra = dra_json(&model);
    if !dra.is_empty() {
        line["dra"] = Value::Object(dra);
    }
    out.push(line);
    out
}
