//! NodeOverlays (`karpenter.sh/v1alpha1`, feature gate NodeOverlay): read and checked as the
//! apiserver checks them (the CRD's schema and CEL rules), then resolved into the catalog's
//! instance types and offerings before anything schedules, so provisioning, consolidation, the
//! simulator, optimize and advise all see the overlaid capacity and prices.
//!
//! The rules are Karpenter v1.15's, in pkg/controllers/nodeoverlay/{controller,store}.go and
//! pkg/cloudprovider/types.go:
//! - Overlays are visited by weight, highest first; equal weights by name, later in the
//!   alphabet first (`NodeOverlayList.OrderByWeight`). An unset weight is 0.
//! - An overlay matches an instance type of a NodePool when the type's requirements, plus
//!   `karpenter.sh/nodepool` and the NodePool's template labels, are compatible with the
//!   overlay's requirements (a key the type does not define fails unless the overlay says NotIn
//!   or DoesNotExist); its price applies to the type's offerings its requirements admit (zone,
//!   capacity type), its capacity to the whole type once any offering matches.
//! - A higher-weight overlay wins per offering (price) and per resource (capacity). Two overlays
//!   of the same weight that both set the price of one offering, or the same resource of one
//!   type, conflict: the one visited second is not applied anywhere and its status says
//!   `ValidationSucceeded=False, reason Conflict`.
//! - `price` replaces the offering's price; `priceAdjustment` adds an amount (`+0.5`, `-1.2`) or
//!   a percentage (`+10%`, `-15%`), never below 0. `capacity` adds or replaces extended
//!   resources in the type's capacity and so its allocatable (time-slicing replicas of
//!   `nvidia.com/gpu`, MIG profiles such as `nvidia.com/mig-1g.10gb`).
//! - A requirement on a restricted label fails Karpenter's runtime validation: the overlay is
//!   not applied and its status says `reason RuntimeValidation`.
//!
//! Karpenter keeps overlaid types per NodePool. The catalog here is one list shared by every
//! NodePool, so an overlay set whose result for a type differs between NodePools that can launch
//! that type (requirements on `karpenter.sh/nodepool` or NodePool labels) is refused with a
//! located error rather than applied to the wrong NodePool.

use super::Catalog;
use crate::error::InputError;
use crate::labels::{self, Interner, KeyId};
use crate::manifest::reader::{At, Sink};
use crate::model::{LabelSet, OverlayStatus};
use crate::requirements::{Operator, Requirement, Requirements};
use crate::resources::{ResourceId, ResourceNames};

/// Resources an overlay may not set (Karpenter's `WellKnownResources`).
const RESTRICTED_RESOURCES: [&str; 4] = ["cpu", "memory", "ephemeral-storage", "pods"];

/// A NodeOverlay as read from the input.
#[derive(Debug, Clone)]
pub struct Overlay {
    pub name: String,
    pub document: usize,
    pub source: Option<String>,
    /// `spec.weight`, 0 when unset.
    pub weight: i32,
    pub requirements: Requirements,
    /// `price` or `priceAdjustment`, as written (validated).
    pub price: Option<String>,
    pub capacity: Vec<(ResourceId, i64)>,
    /// Why Karpenter's runtime validation refuses it, if it does.
    pub runtime_error: Option<String>,
}

/// `^(([+-]{1}(\d*\.?\d+))|(\+{1}\d*\.?\d+%)|(^(-\d{1,2}(\.\d+)?%)$)|(-100%))$`, the CRD's
/// pattern for `priceAdjustment`.
pub fn price_adjustment_shape(s: &str) -> bool {
    // `\d*\.?\d+`: digits, at most one dot, ending in a digit.
    fn decimal(s: &str) -> bool {
        let (a, b) = s.split_once('.').unwrap_or(("", s));
        !b.is_empty() && b.bytes().all(|c| c.is_ascii_digit()) && a.bytes().all(|c| c.is_ascii_digit())
    }
    if s == "-100%" {
        return true;
    }
    if let Some(rest) = s.strip_prefix('+') {
        return decimal(rest.strip_suffix('%').unwrap_or(rest));
    }
    if let Some(rest) = s.strip_prefix('-') {
        if let Some(pct) = rest.strip_suffix('%') {
            // `-\d{1,2}(\.\d+)?%`
            let (int, frac) = pct.split_once('.').map_or((pct, None), |(i, f)| (i, Some(f)));
            return (1..=2).contains(&int.len())
                && int.bytes().all(|c| c.is_ascii_digit())
                && frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|c| c.is_ascii_digit()));
        }
        return decimal(rest);
    }
    false
}

/// `^\d+(\.\d+)?$`, the CRD's pattern for `price`.
pub fn price_shape(s: &str) -> bool {
    let (int, frac) = s.split_once('.').map_or((s, None), |(i, f)| (i, Some(f)));
    !int.is_empty()
        && int.bytes().all(|c| c.is_ascii_digit())
        && frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|c| c.is_ascii_digit()))
}

/// The price of an offering after `change` (Karpenter's `AdjustedPrice`): a bare number
/// replaces it, a signed number adds to it, a signed percentage scales it; never below 0.
pub fn adjusted_price(price: f64, change: &str) -> f64 {
    let parse = |s: &str| s.parse::<f64>().unwrap_or(0.0);
    if !change.starts_with(['+', '-']) {
        return parse(change);
    }
    let adjusted = match change.strip_suffix('%') {
        Some(pct) => price * (1.0 + parse(pct) / 100.0),
        None => price + parse(change),
    };
    adjusted.max(0.0)
}

/// A string field: the CRD types these as strings, so a YAML number is refused as the apiserver
/// refuses it (`price: 1.5` must be written `price: "1.5"`).
fn string_field(spec: &At, name: &str, sink: &mut Sink) -> Option<String> {
    let at = spec.get(name)?;
    match at.v.as_str() {
        Some(s) => Some(s.to_string()),
        None => {
            sink.wrong_type(&at, "a string (quote numbers, e.g. \"1.5\")");
            None
        }
    }
}

/// Read one NodeOverlay document (already known to be `karpenter.sh/v1alpha1 NodeOverlay`).
pub fn read(root: &At, name: String, interner: &mut Interner, resources: &mut ResourceNames, sink: &mut Sink) -> Option<Overlay> {
    let errors_before = sink.errors.len();
    if name.is_empty() {
        sink.error(root, "required", "a NodeOverlay needs metadata.name", "metadata: {name: ...}");
    }
    let Some(spec) = root.get("spec") else {
        sink.error(root, "required", "a NodeOverlay needs `spec`", "spec: {requirements: [...], capacity or price or priceAdjustment}");
        return None;
    };
    let mut ov = Overlay {
        name,
        document: sink.document,
        source: None,
        weight: 0,
        requirements: Requirements::new(),
        price: None,
        capacity: Vec::new(),
        runtime_error: None,
    };
    match spec.get("requirements") {
        None => sink.error(
            &spec,
            "required",
            "spec.requirements is required",
            "a list of {key, operator, values}; [] matches every instance type",
        ),
        Some(reqs) => {
            let list = sink.list(&reqs);
            if list.len() > 100 {
                sink.error(&reqs, "too-many", format!("{} requirements; at most 100", list.len()), "at most 100 requirements");
            }
            for r in &list {
                requirement(r, &mut ov, interner, sink);
            }
        }
    }
    let price = string_field(&spec, "price", sink);
    let adjustment = string_field(&spec, "priceAdjustment", sink);
    if let Some(p) = &price {
        if !price_shape(p) {
            let at = spec.get("price");
            sink.error(
                at.as_ref().unwrap_or(&spec),
                "invalid-price",
                format!("price {p:?} is not a price"),
                "a non-negative decimal such as \"0.75\" ($/h)",
            );
        }
    }
    if let Some(p) = &adjustment {
        if !price_adjustment_shape(p) {
            let at = spec.get("priceAdjustment");
            sink.error(
                at.as_ref().unwrap_or(&spec),
                "invalid-price",
                format!("priceAdjustment {p:?} is not an adjustment"),
                "a signed amount (\"+0.5\", \"-1.2\") or percentage (\"+10%\", \"-15%\", down to \"-100%\")",
            );
        }
    }
    if price.is_some() && adjustment.is_some() {
        sink.error(&spec, "invalid-price", "cannot set both 'price' and 'priceAdjustment'", "one of price or priceAdjustment");
    }
    ov.price = price.or(adjustment);
    if let Some(cap) = spec.get("capacity") {
        for (k, v) in sink.map(&cap) {
            if RESTRICTED_RESOURCES.contains(&k) {
                sink.error(
                    &v,
                    "invalid-resource",
                    format!("invalid resource restricted: an overlay's capacity cannot set {k}"),
                    "extended resources only, e.g. nvidia.com/gpu or nvidia.com/mig-1g.10gb",
                );
                continue;
            }
            if let Some(q) = sink.quantity(&v) {
                if q < 0 {
                    sink.error(&v, "invalid-quantity", format!("{k}: capacity cannot be negative"), "a quantity ≥ 0");
                    continue;
                }
                ov.capacity.push((resources.intern(k), q));
            }
        }
    }
    if let Some(w) = spec.get("weight") {
        if let Some(w) = sink.int_in(&w, 1, 10_000, "a weight from 1 to 10000") {
            ov.weight = w as i32;
        }
    }
    (sink.errors.len() == errors_before).then_some(ov)
}

fn requirement(r: &At, ov: &mut Overlay, interner: &mut Interner, sink: &mut Sink) {
    let key = sink.opt_scalar(r, "key").unwrap_or_default();
    if key.is_empty() {
        sink.error(r, "required", "a requirement needs a `key`", "a label key, e.g. node.kubernetes.io/instance-type");
        return;
    }
    let op_s = sink.opt_scalar(r, "operator").unwrap_or_default();
    let Some(op) = Operator::parse(&op_s) else {
        let at = r.get("operator");
        sink.error(
            at.as_ref().unwrap_or(r),
            "invalid-operator",
            format!("operator {op_s:?} is not supported"),
            "one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte",
        );
        return;
    };
    let values = r.get("values").map(|v| sink.string_list(&v)).unwrap_or_default();
    let msg = match op {
        Operator::In if values.is_empty() => Some("requirements with operator 'In' must have a value defined"),
        Operator::NotIn if values.is_empty() => Some("requirements with operator 'NotIn' must have a value defined"),
        Operator::Gt | Operator::Lt | Operator::Gte | Operator::Lte
            if values.len() != 1 || labels::parse_int(&values[0]).is_none_or(|n| n < 0) =>
        {
            Some("requirements operator 'Gt', 'Lt', 'Gte' or 'Lte' must have a single positive integer value")
        }
        Operator::Exists | Operator::DoesNotExist if !values.is_empty() => {
            Some("requirements with operator 'Exists' or 'DoesNotExist' must have no values")
        }
        _ => None,
    };
    if let Some(msg) = msg {
        sink.error(r, "invalid-requirement", msg, "In/NotIn: values; Exists/DoesNotExist: none; Gt/Lt/Gte/Lte: one integer ≥ 0");
        return;
    }
    let key = labels::normalize_key(&key).to_string();
    if labels::is_restricted(&key) && ov.runtime_error.is_none() {
        ov.runtime_error = Some(format!(
            "invalid value: using label {key} is not allowed as it might interfere with the internal provisioning logic in requirements, restricted"
        ));
    }
    let kid = interner.intern(&key);
    let vids: Vec<_> = values.iter().map(|v| interner.intern(v)).collect();
    let req = Requirement::from_operator(op, &vids, interner);
    ov.requirements.add(kid, req, interner);
}

/// A NodePool as overlay matching sees it: its name and template labels.
pub struct PoolView<'a> {
    pub name: &'a str,
    pub labels: &'a LabelSet,
    /// The NodePool's requirements: a type they exclude is never launched by it, so what an
    /// overlay does to that type there does not matter.
    pub requirements: &'a Requirements,
}

/// What the overlays do to one type in one NodePool: per offering, the price change and the
/// weight of the last overlay that touched it; the merged capacity, and the resources and
/// weight of the last capacity overlay (Karpenter's `instanceTypeUpdate`).
#[derive(Debug, Clone, Default, PartialEq)]
struct Update {
    prices: Vec<Option<(usize, i32)>>,
    capacity: Vec<(ResourceId, i64)>,
    last_capacity: Option<(Vec<ResourceId>, i32)>,
    touched_by: Vec<usize>,
}

/// Resolve `overlays` into `catalog` for `pools`; the status of each overlay, in input order.
///
/// `accelerators`: the ids of the accelerator resources (AWS's exotic-type resources) among the
/// input's resource names: an overlay's capacity can make a type exotic, or not.
pub fn resolve(
    catalog: &mut Catalog,
    overlays: &[Overlay],
    pools: &[PoolView],
    interner: &mut Interner,
    accelerators: &[ResourceId],
) -> Result<Vec<OverlayStatus>, Vec<InputError>> {
    let zone = interner.intern(labels::ZONE);
    let ct = interner.intern(labels::CAPACITY_TYPE);
    let np_key = interner.intern(labels::NODEPOOL);
    let pool_names: Vec<_> = pools.iter().map(|p| interner.intern(p.name)).collect();
    let interner = &*interner;
    // NodePools that agree on every key an overlay names match alike: evaluate one of each
    // such class (usually one class: overlays name instance-type labels only).
    let mut keys: Vec<KeyId> = overlays.iter().flat_map(|o| o.requirements.iter().map(|(k, _)| k)).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut classes: Vec<(Vec<Option<crate::labels::ValueId>>, usize)> = Vec::new();
    let mut class_of = Vec::with_capacity(pools.len());
    for (pi, pool) in pools.iter().enumerate() {
        let sig: Vec<_> = keys.iter().map(|&k| if k == np_key { Some(pool_names[pi]) } else { pool.labels.get(k) }).collect();
        let c = match classes.iter().position(|(s, _)| *s == sig) {
            Some(c) => c,
            None => {
                classes.push((sig, pi));
                classes.len() - 1
            }
        };
        class_of.push(c);
    }
    let type_reqs: Vec<Requirements> = catalog.types.iter().map(|it| type_requirements(it, zone, ct, interner)).collect();
    let mut order: Vec<usize> = (0..overlays.len()).collect();
    order.sort_by(|&a, &b| overlays[b].weight.cmp(&overlays[a].weight).then_with(|| overlays[b].name.cmp(&overlays[a].name)));
    // updates[class][type]
    let mut updates: Vec<Vec<Option<Update>>> = vec![vec![None; catalog.types.len()]; classes.len()];
    let mut statuses: Vec<OverlayStatus> = overlays
        .iter()
        .map(|o| OverlayStatus {
            name: o.name.clone(),
            weight: o.weight,
            validation_succeeded: true,
            reason: None,
            message: None,
            instance_types: 0,
        })
        .collect();
    for &oi in &order {
        let ov = &overlays[oi];
        if let Some(e) = &ov.runtime_error {
            statuses[oi] = OverlayStatus {
                validation_succeeded: false,
                reason: Some("RuntimeValidation".into()),
                message: Some(e.clone()),
                ..statuses[oi].clone()
            };
            continue;
        }
        // Matches per (class, type): the indices of the matched offerings.
        let mut matches: Vec<(usize, usize, Vec<usize>)> = Vec::new();
        for (c, (_, rep)) in classes.iter().enumerate() {
            let pool = &pools[*rep];
            for (ti, it) in catalog.types.iter().enumerate() {
                let mut r = type_reqs[ti].clone();
                r.add(np_key, Requirement::in_values([pool_names[*rep]]), interner);
                for (k, v) in pool.labels.iter() {
                    r.add(k, Requirement::in_values([v]), interner);
                }
                if r.compatible(&ov.requirements, |_| false, interner).is_err() {
                    continue;
                }
                let offs: Vec<usize> = it
                    .offerings
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| {
                        let mut or = Requirements::new();
                        or.add(zone, Requirement::in_values([o.zone]), interner);
                        or.add(ct, Requirement::in_values([o.capacity_type]), interner);
                        ov.requirements.intersects(&or, interner).is_ok()
                    })
                    .map(|(i, _)| i)
                    .collect();
                if !offs.is_empty() {
                    matches.push((c, ti, offs));
                }
            }
        }
        let conflict = matches.iter().any(|(c, ti, offs)| {
            let Some(u) = &updates[*c][*ti] else { return false };
            let price_conflict =
                ov.price.is_some() && offs.iter().any(|&o| u.prices.get(o).copied().flatten().is_some_and(|(_, w)| w == ov.weight));
            let cap_conflict = !ov.capacity.is_empty()
                && u.last_capacity.as_ref().is_some_and(|(res, w)| *w == ov.weight && ov.capacity.iter().any(|(r, _)| res.contains(r)));
            price_conflict || cap_conflict
        });
        if conflict {
            statuses[oi] = OverlayStatus {
                validation_succeeded: false,
                reason: Some("Conflict".into()),
                message: Some("conflict with another overlay".into()),
                ..statuses[oi].clone()
            };
            continue;
        }
        for (c, ti, offs) in matches {
            let n = catalog.types[ti].offerings.len();
            let u = updates[c][ti].get_or_insert_with(|| Update { prices: vec![None; n], ..Default::default() });
            let mut set = false;
            if ov.price.is_some() {
                for o in offs {
                    // The first (heaviest) overlay's price stays; later ones only lower the
                    // weight a conflict is judged at.
                    u.prices[o] = Some(match u.prices[o] {
                        Some((by, _)) => (by, ov.weight),
                        None => {
                            set = true;
                            (oi, ov.weight)
                        }
                    });
                }
            }
            if !ov.capacity.is_empty() {
                for &(r, q) in &ov.capacity {
                    if !u.capacity.iter().any(|(x, _)| *x == r) {
                        u.capacity.push((r, q));
                        set = true;
                    }
                }
                u.last_capacity = Some((ov.capacity.iter().map(|(r, _)| *r).collect(), ov.weight));
            }
            if set && !u.touched_by.contains(&oi) {
                u.touched_by.push(oi);
            }
        }
    }
    let classes = Classes { of: &class_of, count: classes.len() };
    apply(catalog, overlays, pools, &classes, &type_reqs, &updates, &mut statuses, interner, accelerators)?;
    Ok(statuses)
}

struct Classes<'a> {
    of: &'a [usize],
    count: usize,
}

fn type_requirements(it: &crate::catalog::InstanceType, zone: KeyId, ct: KeyId, interner: &Interner) -> Requirements {
    let mut r = Requirements::new();
    for (k, v) in it.labels.iter() {
        r.add(k, Requirement::in_values([v]), interner);
    }
    r.set(zone, Requirement::in_values(it.offerings.iter().map(|o| o.zone)));
    r.set(ct, Requirement::in_values(it.offerings.iter().map(|o| o.capacity_type)));
    r
}

/// Write the per-class updates into the shared catalog, refusing a type whose result differs
/// between NodePools that can launch it.
#[allow(clippy::too_many_arguments)]
fn apply(
    catalog: &mut Catalog,
    overlays: &[Overlay],
    pools: &[PoolView],
    classes: &Classes,
    type_reqs: &[Requirements],
    updates: &[Vec<Option<Update>>],
    statuses: &mut [OverlayStatus],
    interner: &Interner,
    accelerators: &[ResourceId],
) -> Result<(), Vec<InputError>> {
    let aws = catalog.is_aws();
    let mut errors = Vec::new();
    let mut counted = vec![false; overlays.len()];
    for ti in 0..catalog.types.len() {
        // Per class, a NodePool of it that can launch the type (its requirements admit it).
        let mut launching: Vec<Option<usize>> = vec![None; classes.count];
        if classes.count > 1 {
            for (pi, pool) in pools.iter().enumerate() {
                let c = classes.of[pi];
                if launching[c].is_none() && pool.requirements.intersects(&type_reqs[ti], interner).is_ok() {
                    launching[c] = Some(pi);
                }
            }
        } else if classes.count == 1 {
            launching[0] = Some(0);
        }
        let seen: Vec<(usize, usize)> = launching.iter().enumerate().filter_map(|(c, p)| p.map(|p| (c, p))).collect();
        let Some(&(first, first_pool)) = seen.first() else { continue };
        let same = |a: &Option<Update>, b: &Option<Update>| match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => a.prices == b.prices && a.capacity == b.capacity,
            _ => false,
        };
        if let Some(&(c, pi)) = seen.iter().find(|(c, _)| !same(&updates[*c][ti], &updates[first][ti])) {
            let by = updates[c][ti].iter().chain(updates[first][ti].iter()).flat_map(|u| u.touched_by.iter().copied()).next().unwrap_or(0);
            let ov = &overlays[by];
            let mut e = InputError::new(
                "unsupported-overlay",
                format!(
                    "NodeOverlay {:?} changes instance type {} differently for NodePools {:?} and {:?}; nodecast models overlays that act alike on every NodePool that can launch a type",
                    ov.name, catalog.types[ti].name, pools[first_pool].name, pools[pi].name
                ),
            )
            .at_document(ov.document)
            .object(format!("NodeOverlay/{}", ov.name))
            .path("spec.requirements")
            .help("requirements on instance-type labels (not karpenter.sh/nodepool or NodePool labels), or NodePools whose requirements keep such types apart");
            e.source = ov.source.clone();
            errors.push(e);
            if errors.len() >= 10 {
                break;
            }
            continue;
        }
        let Some(u) = &updates[first][ti] else { continue };
        let it = &mut catalog.types[ti];
        for (o, change) in u.prices.iter().enumerate() {
            if let Some((by, _)) = change {
                let p = overlays[*by].price.as_deref().unwrap_or("");
                it.offerings[o].price = adjusted_price(it.offerings[o].price, p);
                it.offerings[o].source = super::PriceSource::Overlay;
            }
        }
        for &(r, q) in &u.capacity {
            it.capacity.set(r, q);
            it.allocatable.set(r, q);
        }
        // The AWS provider launches from the overlaid types (cloudprovider.go Create applies the
        // store) and its exotic filter reads their capacity (filter.go ExoticInstanceTypeFilter:
        // a metal size or any accelerator), so an overlay adding nvidia.com/gpu to g6f.large
        // makes it exotic (oracle seed gates-192).
        if aws && u.capacity.iter().any(|(r, _)| accelerators.contains(r)) {
            it.exotic = it.name.contains("metal") || accelerators.iter().any(|&a| it.capacity.get(a) > 0);
        }
        counted.iter_mut().for_each(|c| *c = false);
        for &by in &u.touched_by {
            if !counted[by] {
                counted[by] = true;
                statuses[by].instance_types += 1;
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn price_adjustment_follows_the_crd_pattern() {
        for ok in ["+0.5", "-1.2", "+.5", "+10%", "+150%", "-15%", "-99.5%", "-100%", "+3"] {
            assert!(price_adjustment_shape(ok), "{ok}");
        }
        for bad in ["0.5", "10%", "-101%", "-150%", "+1.", "+", "-", "+1.2.3", "--1", "+x", "-100.0%"] {
            assert!(!price_adjustment_shape(bad), "{bad}");
        }
        for ok in ["0", "1.5", "12.25"] {
            assert!(price_shape(ok), "{ok}");
        }
        for bad in ["-1", "+1", ".5", "1.", "1e3", ""] {
            assert!(!price_shape(bad), "{bad}");
        }
    }

    #[test]
    fn adjusted_price_replaces_adds_or_scales_and_never_goes_negative() {
        assert_eq!(adjusted_price(1.0, "0.25"), 0.25);
        assert!((adjusted_price(1.0, "+0.5") - 1.5).abs() < 1e-12);
        assert!((adjusted_price(2.0, "-15%") - 1.7).abs() < 1e-12);
        assert!((adjusted_price(2.0, "+10%") - 2.2).abs() < 1e-12);
        assert_eq!(adjusted_price(1.0, "-3"), 0.0);
        assert_eq!(adjusted_price(1.0, "-100%"), 0.0);
    }
}
