//! Instance types and offerings: the embedded AWS catalog or a user-supplied one.
//!
//! A catalog request is either a name `aws-<region>` (default `aws-us-east-1`), or a mapping
//! (FORMAT.md §2): `{source: aws-<region>, zones, capacityTypes, spotPriceFactor, unavailable,
//! prices}` or an inline `{instanceTypes: [...], zones, ...}`. The same JSON schema serves users
//! and the conformance scenarios.
//!
//! Regions: the four of the AWS provider's embedded price tables (`aws::regions`), or any other
//! region-shaped name when the inputs carry that region's on-demand prices (`prices`): Karpenter
//! itself prices such a region from us-east-1's table until the Pricing API answers
//! (pricing.go `Reset`), and so does the catalog until those prices are applied.

pub mod auto_mode_fee;
pub mod aws;
pub mod get_products;
pub mod launch_reserved;
pub mod offerings_input;
pub mod overlay;
pub mod price_entry;
pub mod prices;
pub mod reservation_time;
pub mod reservations;
pub mod resolve;

use crate::error::{ErrorKind, InputError};
use crate::labels::{self, Interner, KeyId, ValueId};
use crate::manifest::reader::{At, Sink};
pub use crate::model::instance_type::{Catalog, InstanceType, Offering, PriceSource};
use crate::model::LabelSet;
use crate::resources::{ResourceNames, Resources, PODS};
use serde_json::Value;
use smallvec::SmallVec;

/// Interning state a catalog is built into.
pub struct Tables {
    pub interner: Interner,
    pub resources: ResourceNames,
}

/// Build the catalog of a request. `spec` is `None` for the default (embedded AWS).
pub fn build(spec: Option<&Value>) -> Result<(Catalog, Tables), Vec<InputError>> {
    let mut errors = Vec::new();
    let default = Value::String(aws::SOURCE.to_string());
    let spec = spec.unwrap_or(&default);
    let root = At::root(spec, "catalog");
    let mut sink = Sink { document: 0, object: &|| "Catalog".into(), errors: &mut errors };
    let result = match spec {
        Value::String(s) => aws_region(s, &root, &mut sink).map(|r| aws_catalog(&root, &mut sink, false, r)),
        Value::Object(_) => {
            let source = root.get("source").and_then(|a| a.v.as_str().map(str::to_string));
            match (source.as_deref(), root.get("instanceTypes")) {
                (Some(s), None) if s.starts_with(aws::PREFIX) => {
                    let at = root.get("source").unwrap_or(root);
                    aws_region(s, &at, &mut sink).map(|r| aws_catalog(&root, &mut sink, true, r))
                }
                (Some(other), _) if !other.starts_with(aws::PREFIX) && other != "inline" => {
                    sink.error(
                        &root,
                        "unknown-catalog",
                        format!("unknown catalog source {other:?}"),
                        format!("one of {}, or instanceTypes for an inline catalog", aws::known_sources()),
                    );
                    None
                }
                (_, Some(_)) => Some(inline_catalog(&root, &mut sink)),
                (_, None) => {
                    sink.error(
                        &root,
                        "required",
                        "a catalog mapping needs `source` or `instanceTypes`",
                        format!("source: {} or instanceTypes: [...]", aws::SOURCE),
                    );
                    None
                }
            }
        }
        _ => {
            sink.wrong_type(&root, "a catalog name or mapping");
            None
        }
    };
    match result {
        Some(r) if errors.is_empty() => Ok(r),
        // The catalog is a request field, not a document of the inputs: no document index.
        _ => Err(errors.into_iter().map(|e| InputError { document: None, kind: ErrorKind::Catalog, ..e }).collect()),
    }
}

/// The region a catalog name `aws-<region>` asks for: embedded, or another (priced by the
/// inputs); a located `unknown-catalog` error for anything else.
enum AwsRegion {
    Embedded(aws::Region),
    Other(String),
}

fn aws_region(name: &str, at: &At, sink: &mut Sink) -> Option<AwsRegion> {
    if let Some(r) = aws::region_of(name) {
        return Some(AwsRegion::Embedded(r));
    }
    match name.strip_prefix(aws::PREFIX) {
        Some(region) if aws::region_shaped(region) => Some(AwsRegion::Other(region.to_string())),
        _ => {
            sink.error(
                at,
                "unknown-catalog",
                format!("unknown catalog {name:?}"),
                format!(
                    "one of {} (the regions with an embedded price table), aws-<region> with that region's on-demand prices in the inputs, or an inline catalog mapping",
                    aws::known_sources()
                ),
            );
            None
        }
    }
}

struct Common {
    zones: Vec<String>,
    capacity_types: Vec<String>,
    spot_factor: f64,
    unavailable: Vec<(Option<String>, Option<String>, Option<String>)>,
    prices: Vec<(String, Option<f64>, Option<f64>)>,
}

fn common(root: &At, sink: &mut Sink, default_zones: &[&str]) -> Common {
    let mut c = Common {
        zones: default_zones.iter().map(|s| s.to_string()).collect(),
        capacity_types: vec![labels::ON_DEMAND.into(), labels::SPOT.into()],
        spot_factor: 0.3,
        unavailable: Vec::new(),
        prices: Vec::new(),
    };
    if let Some(z) = root.get("zones") {
        c.zones = sink.string_list(&z);
    }
    if let Some(z) = root.get("capacityTypes") {
        c.capacity_types = sink.string_list(&z);
    }
    if let Some(f) = root.get("spotPriceFactor") {
        if let Some(x) = sink.f64(&f, "a finite spot price factor ≥ 0") {
            if !(0.0..=MAX_SPOT_FACTOR).contains(&x) {
                sink.error(&f, "invalid-number", format!("spotPriceFactor {x} is out of range"), "a factor from 0 to 100, e.g. 0.3");
            } else {
                c.spot_factor = x;
            }
        }
    }
    if let Some(u) = root.get("unavailable") {
        for item in sink.list(&u) {
            let it = sink.opt_scalar(&item, "instanceType");
            let z = sink.opt_scalar(&item, "zone");
            let ct = sink.opt_scalar(&item, "capacityType");
            c.unavailable.push((it, z, ct));
        }
    }
    // `prices: {m5.large: {onDemand: 0.1, spot: 0.03}}` — user price overrides.
    if let Some(p) = root.get("prices") {
        for (name, entry) in sink.map(&p) {
            let od = entry.get("onDemand").and_then(|a| price(&a, sink));
            let spot = entry.get("spot").and_then(|a| price(&a, sink));
            c.prices.push((name.to_string(), od, spot));
        }
    }
    c
}

/// Highest price per hour accepted for one instance type: far above any real one, and low
/// enough that the sum over the largest plan (`MAX_PODS` nodes) stays finite and exact enough.
pub const MAX_PRICE: f64 = 1e9;
/// Highest `spotPriceFactor` (spot price = factor × on-demand price when none is given).
pub const MAX_SPOT_FACTOR: f64 = 100.0;

/// A price in $/h: finite, not negative, at most `MAX_PRICE`; anything else is a located error.
fn price(at: &At, sink: &mut Sink) -> Option<f64> {
    const EXPECTED: &str = "a finite price from 0 to 1e9 ($/h)";
    let x = sink.f64(at, EXPECTED)?;
    if (0.0..=MAX_PRICE).contains(&x) {
        Some(x)
    } else {
        sink.error(at, "invalid-number", format!("price {x} is out of range"), EXPECTED);
        None
    }
}

fn aws_catalog(root: &At, sink: &mut Sink, with_options: bool, region: AwsRegion) -> (Catalog, Tables) {
    // Another region starts from us-east-1's table, as Karpenter does (pricing.go `Reset`);
    // `prices::apply` replaces what the inputs price and refuses it when they price nothing.
    let (embedded, region_name) = match &region {
        AwsRegion::Embedded(r) => (*r, r.name.to_string()),
        AwsRegion::Other(name) => (aws::regions().next().expect("us-east-1 is embedded"), name.clone()),
    };
    let base = aws::base(embedded.index);
    let mut interner = base.interner.clone();
    let resources = base.resources.clone();
    let default_zones: Vec<String> = match &region {
        AwsRegion::Embedded(r) => r.zones.iter().map(|z| z.to_string()).collect(),
        AwsRegion::Other(name) => ["a", "b", "c"].iter().map(|s| format!("{name}{s}")).collect(),
    };
    let default_zones: Vec<&str> = default_zones.iter().map(String::as_str).collect();
    let opts = if with_options { common(root, sink, &default_zones) } else { common(&At::root(&Value::Null, ""), sink, &default_zones) };
    // The prices and types are one region's: a zone of another region would be answered with
    // prices and types that region does not have.
    if let Some(z) = root.get("zones").filter(|_| with_options) {
        for (i, item) in z.v.as_array().into_iter().flatten().enumerate() {
            let zone = item.as_str().unwrap_or_default();
            if !in_region(zone, &region_name) {
                let at = z.index(i, item);
                let msg = format!("zone {zone:?} is not in {region_name}, the region of the {}{region_name} catalog", aws::PREFIX);
                sink.error(
                    &at,
                    "invalid-zone",
                    msg,
                    format!("zones of {region_name} such as {}, or another catalog", default_zones.join(", ")),
                );
            }
        }
    }
    let mut types = base.types.clone();
    if let AwsRegion::Other(name) = &region {
        let key = interner.intern(labels::REGION);
        let value = interner.intern(name);
        for t in types.iter_mut() {
            t.labels.set(key, value);
        }
    }
    let fallback = matches!(region, AwsRegion::Other(_));
    for t in types.iter_mut() {
        t.on_demand_source = if fallback { PriceSource::UsEast1List } else { PriceSource::List };
    }
    for (name, od, spot) in &opts.prices {
        match types.iter_mut().find(|t| &t.name == name) {
            Some(t) => {
                if let Some(p) = od {
                    t.on_demand_price = *p;
                    t.on_demand_source = PriceSource::User;
                }
                t.spot_price = *spot;
            }
            None => sink.errors.push(
                InputError::new("unknown-instance-type", format!("price override for unknown instance type {name:?}"))
                    .object("Catalog")
                    .path(format!("catalog.prices.{name}")),
            ),
        }
    }
    let mut keys: Vec<KeyId> = labels::CORE_WELL_KNOWN
        .iter()
        .chain(labels::AWS_WELL_KNOWN)
        .filter(|k| **k != labels::NODEPOOL)
        .map(|k| interner.intern(k))
        .collect();
    for t in &types {
        keys.extend(t.labels.iter().map(|(k, _)| k));
    }
    let source = format!("{}{region_name}", aws::PREFIX);
    let mut catalog = finish(&source, types, keys, &opts, &mut interner);
    catalog.region = Some(region_name);
    catalog.currency = embedded.currency;
    if embedded.currency != "USD" {
        catalog.notes.push((
            "prices-in-cny".into(),
            format!(
                "{} prices are in {} per hour (the AWS provider's table for the region): every price and total of this answer is in {}",
                catalog.source, embedded.currency, embedded.currency
            ),
        ));
    }
    catalog.user_prices = !opts.prices.is_empty();
    catalog.needs_region_prices = fallback;
    (catalog, Tables { interner, resources })
}

/// Is `zone` an availability zone name of `region` (`eu-west-1a`)?
pub fn in_region(zone: &str, region: &str) -> bool {
    zone.strip_prefix(region).is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|c| c.is_ascii_lowercase()))
}

fn inline_catalog(root: &At, sink: &mut Sink) -> (Catalog, Tables) {
    let mut interner = Interner::new();
    let mut resources = ResourceNames::default();
    let opts = common(root, sink, &["test-zone-a", "test-zone-b", "test-zone-c"]);
    let name_key = interner.intern(labels::INSTANCE_TYPE);
    let arch_key = interner.intern(labels::ARCH);
    let os_key = interner.intern(labels::OS);
    let mut types = Vec::new();
    let mut keys = vec![name_key, arch_key, os_key];
    if let Some(list) = root.get("instanceTypes") {
        for item in sink.list(&list) {
            let Some(name) = item.get("name").and_then(|a| sink.scalar(&a)) else {
                sink.error(&item, "required", "instance type without `name`", "name: <instance type name>");
                continue;
            };
            // The name becomes the node.kubernetes.io/instance-type label: it cannot be empty.
            if name.trim().is_empty() {
                let at = item.get("name").unwrap_or(item);
                sink.error(&at, "required", "instance type with an empty `name`", "name: <instance type name>, e.g. standard-4");
                continue;
            }
            let name_id = interner.intern(&name);
            if types.iter().any(|t: &InstanceType| t.name_id == name_id) {
                let at = item.get("name").unwrap_or(item);
                sink.error(&at, "duplicate-name", format!("two instance types are named {name:?}"), "instance type names are unique");
                continue;
            }
            let mut pairs = vec![(name_key, name_id), (arch_key, interner.intern("amd64")), (os_key, interner.intern("linux"))];
            if let Some(l) = item.get("labels") {
                for (k, v) in sink.string_map(&l) {
                    let k = interner.intern(labels::normalize_key(&k));
                    keys.push(k);
                    pairs.push((k, interner.intern(&v)));
                }
            }
            let mut allocatable = Resources::new();
            allocatable.set(PODS, 110_000);
            match item.get("allocatable") {
                Some(a) => read_resources(&a, sink, &mut resources, &mut allocatable),
                None => sink.error(
                    &item,
                    "required",
                    format!("instance type {name:?} has no `allocatable`"),
                    "allocatable: {cpu: ..., memory: ...}",
                ),
            }
            let mut capacity = allocatable.clone();
            if let Some(c) = item.get("capacity") {
                capacity = Resources::new();
                read_resources(&c, sink, &mut resources, &mut capacity);
            }
            let on_demand_price = item.get("onDemandPrice").and_then(|a| price(&a, sink)).unwrap_or(0.0);
            let spot_price = item.get("spotPrice").and_then(|a| price(&a, sink));
            let mut offerings = SmallVec::new();
            let explicit = item.get("offerings");
            if let Some(offs) = &explicit {
                for o in sink.list(offs) {
                    let zone = sink.opt_scalar(&o, "zone").unwrap_or_default();
                    let ct = sink.opt_scalar(&o, "capacityType").unwrap_or_else(|| labels::ON_DEMAND.into());
                    let p = o.get("price").and_then(|a| price(&a, sink)).unwrap_or(on_demand_price);
                    let available = o.get("available").and_then(|a| sink.bool(&a)).unwrap_or(true);
                    // Stated by the catalog (its price, else the type's on-demand price).
                    let source = PriceSource::List;
                    offerings.push(Offering {
                        zone: interner.intern(&zone),
                        capacity_type: interner.intern(&ct),
                        price: p,
                        available,
                        reservation: None,
                        source,
                    });
                }
            }
            types.push(InstanceType {
                name,
                name_id,
                labels: LabelSet::from_pairs(pairs),
                allocatable,
                capacity,
                on_demand_price,
                spot_price,
                on_demand_source: PriceSource::List,
                offerings,
                // Inline catalogs state exactly what exists; the AWS launch filter does not apply.
                exotic: false,
                auto_mode_fee: None,
            });
        }
    }
    // Types with explicit offerings keep them; `finish` generates the rest.
    let catalog = finish("inline", types, keys, &opts, &mut interner);
    (catalog, Tables { interner, resources })
}

fn read_resources(at: &At, sink: &mut Sink, names: &mut ResourceNames, out: &mut Resources) {
    for (k, v) in sink.map(at) {
        if let Some(q) = sink.quantity(&v) {
            out.set(names.intern(k), q);
        }
    }
}

/// Generate offerings (zones × capacity types) for types without explicit ones, apply the
/// unavailable selectors, and collect the label keys.
fn finish(source: &str, mut types: Vec<InstanceType>, mut keys: Vec<KeyId>, opts: &Common, interner: &mut Interner) -> Catalog {
    let zones: Vec<ValueId> = opts.zones.iter().map(|z| interner.intern(z)).collect();
    let cts: Vec<ValueId> = opts.capacity_types.iter().map(|c| interner.intern(c)).collect();
    let spot = interner.intern(labels::SPOT);
    for t in types.iter_mut() {
        if t.offerings.is_empty() {
            for &ct in &cts {
                let (price, source) = match (ct == spot, t.spot_price) {
                    (true, Some(p)) => (p, PriceSource::User),
                    (true, None) => (t.on_demand_price * opts.spot_factor, PriceSource::Factor),
                    (false, _) => (t.on_demand_price, t.on_demand_source),
                };
                for &z in &zones {
                    t.offerings.push(Offering { zone: z, capacity_type: ct, price, available: true, reservation: None, source });
                }
            }
        }
        for o in t.offerings.iter_mut() {
            let hit = opts.unavailable.iter().any(|(it, z, ct)| {
                it.as_deref().is_none_or(|n| n == t.name)
                    && z.as_deref().is_none_or(|z| z == interner.str(o.zone))
                    && ct.as_deref().is_none_or(|c| c == interner.str(o.capacity_type))
            });
            if hit {
                o.available = false;
            }
        }
    }
    for k in [labels::ZONE, labels::CAPACITY_TYPE, labels::INSTANCE_TYPE, labels::ARCH, labels::OS] {
        keys.push(interner.intern(k));
    }
    if source.starts_with(aws::PREFIX) {
        keys.push(interner.intern(labels::REGION));
    }
    keys.sort_unstable();
    keys.dedup();
    Catalog {
        source: source.to_string(),
        types,
        label_keys: keys,
        zones,
        spot_price_factor: opts.spot_factor,
        region: None,
        currency: "USD",
        user_prices: false,
        needs_region_prices: false,
        notes: Vec::new(),
        auto_mode_fee_table: false,
    }
}
