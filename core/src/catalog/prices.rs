//! The user's prices and places: `aws ec2 describe-spot-price-history` output (top-level
//! `SpotPriceHistory`), on-demand prices of a region (`{region, onDemand: {type: price}}`) and
//! `describe-instance-type-offerings` output (`offerings_input`), read from the inputs and
//! applied to the catalog before NodeOverlays and reservations, as the AWS provider's pricing
//! provider feeds its offerings (pkg/providers/pricing/pricing.go,
//! pkg/providers/instancetype/offering/base_resolver.go):
//! - spot: the price of a type in a zone is the latest `SpotPrice` of the `Linux/UNIX` or
//!   `Linux/UNIX (Amazon VPC)` product (the two `UpdateSpotPricing` asks for). Once spot prices
//!   are known, a zone without one has no available spot offering (`SpotPrice` returns false,
//!   and `hasPrice` is part of `Available`). Before they are known Karpenter prices spot at the
//!   on-demand price; nodecast's stand-in is on-demand × `spotPriceFactor`, kept for the types
//!   the document does not cover (a warning names them).
//! - on-demand: `UpdateOnDemandPricing` merges the fetched prices over the static table
//!   (`lo.Assign`), so a type the fetch does not price keeps its table price — for a region
//!   without a table, us-east-1's (`Reset`). nodecast does the same and says so.
//! - zones: a type is offered only in the zones EC2 lists for it (`itZones.Has(zone)`).

use super::offerings_input::{self, is_aws_output, required, ZoneOffering};
pub use super::price_entry::Origin;
use super::price_entry::{price, some};
use super::{Catalog, PriceSource};
use crate::error::{ErrorKind, InputError};
use crate::labels::{self, Interner};
use crate::manifest::reader::{At, Sink};
use std::collections::{BTreeMap, BTreeSet};

/// The key that makes a document a spot price history.
pub const SPOT_KEY: &str = "SpotPriceHistory";
/// The key (with `region`) that makes a document an on-demand price list.
pub const ON_DEMAND_KEY: &str = "onDemand";
/// The products whose spot prices Karpenter reads (pricing.go `UpdateSpotPricing`).
pub const LINUX_PRODUCTS: [&str; 2] = ["Linux/UNIX", "Linux/UNIX (Amazon VPC)"];

/// Is this decoded document one of the price or offering documents?
pub fn is_price_document(v: &serde_json::Value) -> bool {
    is_aws_output(v, SPOT_KEY)
        || is_aws_output(v, ON_DEMAND_KEY)
        || offerings_input::is_offerings_document(v)
        || super::get_products::is_get_products_document(v)
        || is_aws_output(v, super::auto_mode_fee::KEY)
}

/// The object name errors of a price document carry.
pub fn object_of(v: &serde_json::Value) -> &'static str {
    if is_aws_output(v, SPOT_KEY) {
        SPOT_KEY
    } else if is_aws_output(v, ON_DEMAND_KEY) {
        "OnDemandPrices"
    } else if super::get_products::is_get_products_document(v) {
        super::get_products::KEY
    } else if is_aws_output(v, super::auto_mode_fee::KEY) {
        super::auto_mode_fee::OBJECT
    } else {
        offerings_input::DOCUMENT_KEY
    }
}

/// One spot price record kept (the latest of its type × zone).
#[derive(Debug, Clone)]
pub struct SpotEntry {
    pub instance_type: String,
    pub zone: String,
    pub price: f64,
    pub timestamp: i64,
    pub origin: Origin,
}

/// An on-demand price list of one region.
#[derive(Debug, Clone)]
pub struct OnDemandList {
    pub region: String,
    pub prices: Vec<(String, f64)>,
    pub origin: Origin,
}

/// Every price and offering document of the input.
#[derive(Debug, Clone, Default)]
pub struct PriceInputs {
    pub spot: Vec<SpotEntry>,
    /// Spot records of other products (Windows, SUSE, ...), by product: not read.
    pub other_products: BTreeMap<String, usize>,
    pub on_demand: Vec<OnDemandList>,
    /// `get-products` entries outside Karpenter's Pricing API filters: not read.
    pub other_products_on_demand: usize,
    pub offerings: Vec<ZoneOffering>,
    /// EKS Auto Mode fee tables (`auto_mode_fee`): not prices of EC2 offerings, so not in `first`.
    pub fees: Vec<super::auto_mode_fee::FeeTable>,
    /// The first price document, for an error about all of them.
    pub first: Option<Origin>,
}

impl PriceInputs {
    /// Read one price or offering document (`is_price_document`).
    pub fn read(&mut self, root: &At, sink: &mut Sink, source: Option<&str>) {
        if is_aws_output(root.v, super::auto_mode_fee::KEY) {
            self.fees.push(super::auto_mode_fee::read(root, sink, source));
            return;
        }
        let object = object_of(root.v);
        let document = sink.document;
        let origin = |path: String| Origin { document, source: source.map(str::to_string), object, path };
        if self.first.is_none() {
            self.first = Some(origin(String::new()));
        }
        if is_aws_output(root.v, SPOT_KEY) {
            self.read_spot(root, sink, source);
        } else if super::get_products::is_get_products_document(root.v) {
            let (list, other) = super::get_products::read(root, sink);
            let path = format!("{}[0]", super::get_products::KEY);
            self.on_demand.extend(list.map(|(region, prices)| OnDemandList { region, prices, origin: origin(path) }));
            self.other_products_on_demand += other;
        } else if is_aws_output(root.v, ON_DEMAND_KEY) {
            let region = required(root, "region", sink, "region: eu-west-1");
            let mut prices = Vec::new();
            if let Some(map) = root.get(ON_DEMAND_KEY) {
                for (name, at) in sink.map(&map) {
                    if let Some(p) = price(&at, sink) {
                        prices.push((name.to_string(), p));
                    }
                }
            }
            if let Some(region) = region {
                let o = origin("region".into());
                self.on_demand.push(OnDemandList { region, prices, origin: o });
            }
        } else {
            self.offerings.extend(offerings_input::read(root, sink, source));
        }
    }

    fn read_spot(&mut self, root: &At, sink: &mut Sink, source: Option<&str>) {
        let Some(list) = root.get(SPOT_KEY) else { return };
        let mut latest: BTreeMap<(String, String), usize> = BTreeMap::new();
        for (i, e) in self.spot.iter().enumerate() {
            latest.insert((e.instance_type.clone(), e.zone.clone()), i);
        }
        for (index, item) in sink.list(&list).into_iter().enumerate() {
            if !item.v.is_object() {
                sink.wrong_type(&item, "a spot price (a mapping with InstanceType, AvailabilityZone, SpotPrice, ...)");
                continue;
            }
            let product = required(&item, "ProductDescription", sink, "ProductDescription: Linux/UNIX");
            let it = required(&item, "InstanceType", sink, "InstanceType: p5.48xlarge");
            let zone = required(&item, "AvailabilityZone", sink, "AvailabilityZone: us-east-1a");
            let p = match item.get("SpotPrice") {
                Some(at) => price(&at, sink),
                None => {
                    sink.error(&item, "required", "entry without SpotPrice", "SpotPrice: \"0.4123\"");
                    None
                }
            };
            let ts = match item.get("Timestamp") {
                Some(at) => sink.scalar(&at).and_then(|s| match s.parse::<jiff::Timestamp>() {
                    Ok(t) => Some(t.as_second()),
                    Err(_) => {
                        let help = "an ISO 8601 time as the AWS CLI prints it, e.g. 2026-11-28T11:30:00+00:00";
                        sink.error(&at, "invalid-date", format!("Timestamp {s:?} is not a date"), help);
                        None
                    }
                }),
                None => {
                    sink.error(&item, "required", "entry without Timestamp", "Timestamp: 2026-11-28T11:30:00+00:00");
                    None
                }
            };
            let (Some(product), Some(it), Some(zone), Some(p), Some(ts)) = (product, it, zone, p, ts) else { continue };
            if !LINUX_PRODUCTS.contains(&product.as_str()) {
                *self.other_products.entry(product).or_default() += 1;
                continue;
            }
            let origin = Origin {
                document: sink.document,
                source: source.map(str::to_string),
                object: SPOT_KEY,
                path: format!("{SPOT_KEY}[{index}].AvailabilityZone"),
            };
            let entry = SpotEntry { instance_type: it.clone(), zone: zone.clone(), price: p, timestamp: ts, origin };
            match latest.get(&(it.clone(), zone.clone())) {
                // The later record of equal time wins, as later pages overwrite in Karpenter.
                Some(&i) if self.spot[i].timestamp > ts => {}
                Some(&i) => self.spot[i] = entry,
                None => {
                    latest.insert((it, zone), self.spot.len());
                    self.spot.push(entry);
                }
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_none()
    }
}

/// Apply the inputs' price and offering documents to the catalog (errors for entries that
/// cannot apply; notes for what was replaced and what fell back).
pub fn apply(catalog: &mut Catalog, interner: &mut Interner, inputs: &PriceInputs, errors: &mut Vec<InputError>) {
    let before = errors.len();
    apply_prices(catalog, interner, inputs, errors);
    super::auto_mode_fee::apply(catalog, &inputs.fees, errors);
    if errors.len() > before {
        catalog.notes.clear();
    }
}

fn apply_prices(catalog: &mut Catalog, interner: &mut Interner, inputs: &PriceInputs, errors: &mut Vec<InputError>) {
    let Some(region) = catalog.region.clone() else {
        if let Some(first) = &inputs.first {
            errors.push(first.error(
                "prices-need-aws-catalog",
                "price and offering documents apply to an aws-<region> catalog; this request's catalog is inline".into(),
                "catalog: aws-<region>, or the prices inside the inline catalog (onDemandPrice, spotPrice, offerings)",
            ));
        }
        return;
    };
    if catalog.needs_region_prices && !inputs.on_demand.iter().any(|l| l.region == region) {
        errors.push(
            InputError::new("unknown-catalog", format!("no embedded price table for {region}, and the inputs give none"))
                .object("Catalog")
                .path("catalog")
                .help(format!(
                    "one of {} (Karpenter v1.15 embeds only these regions' prices), or add {{region: {region}, onDemand: {{<type>: <price>, ...}}}} to the inputs",
                    super::aws::known_sources()
                ))
                .kind(ErrorKind::Catalog),
        );
        return;
    }
    if inputs.is_empty() {
        return;
    }
    catalog.user_prices = true;
    let before = errors.len();
    let in_region = |zone: &str, origin: &Origin, errors: &mut Vec<InputError>| {
        let ok = super::in_region(zone, &region);
        if !ok {
            let help = format!("a zone of {region}, the catalog's region");
            errors.push(origin.error("invalid-zone", format!("zone {zone:?} is not in {region}"), &help));
        }
        ok
    };
    // Type lookups by name: documents of many thousand records stay linear in their size.
    let names: Vec<String> = catalog.types.iter().map(|t| t.name.clone()).collect();
    let by_name: std::collections::HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
    let on_demand = interner.intern(labels::ON_DEMAND);
    let spot = interner.intern(labels::SPOT);
    let mut unknown: BTreeSet<String> = BTreeSet::new();
    // On-demand prices.
    let mut priced = vec![false; catalog.types.len()];
    for list in &inputs.on_demand {
        if list.region != region {
            let help = format!("region: {region}, or catalog: aws-{}", list.region);
            errors.push(list.origin.error(
                "invalid-region",
                format!("on-demand prices of {} for the {} catalog", list.region, catalog.source),
                &help,
            ));
            continue;
        }
        for (name, p) in &list.prices {
            let Some(ti) = by_name.get(name.as_str()).copied() else {
                unknown.insert(name.clone());
                continue;
            };
            priced[ti] = true;
            let t = &mut catalog.types[ti];
            t.on_demand_price = *p;
            t.on_demand_source = PriceSource::User;
            for o in t.offerings.iter_mut().filter(|o| o.reservation.is_none()) {
                if o.capacity_type == on_demand {
                    (o.price, o.source) = (*p, PriceSource::User);
                } else if o.capacity_type == spot && o.source == PriceSource::Factor {
                    o.price = *p * catalog.spot_price_factor;
                }
            }
        }
    }
    if catalog.needs_region_prices {
        let rest: BTreeSet<String> = catalog.types.iter().zip(&priced).filter(|(_, p)| !**p).map(|(t, _)| t.name.clone()).collect();
        if !rest.is_empty() {
            catalog.notes.push((
                "us-east-1-prices".into(),
                format!(
                    "{} instance type(s) without an on-demand price for {region} in the inputs ({}) keep us-east-1's list price, as Karpenter keeps its static table for types the Pricing API does not price",
                    rest.len(),
                    some(&rest)
                ),
            ));
        }
    }
    // Zones the types are offered in.
    let mut zones_of: BTreeMap<usize, BTreeSet<u32>> = BTreeMap::new();
    let mut outside: BTreeSet<String> = BTreeSet::new();
    for o in &inputs.offerings {
        let origin = Origin {
            document: o.document,
            source: o.source.clone(),
            object: offerings_input::DOCUMENT_KEY,
            path: format!("{}[{}].Location", offerings_input::DOCUMENT_KEY, o.index),
        };
        if !in_region(&o.zone, &origin, errors) {
            continue;
        }
        let z = interner.intern(&o.zone);
        if !catalog.zones.contains(&z) {
            outside.insert(o.zone.clone());
        }
        match by_name.get(o.instance_type.as_str()).copied() {
            Some(ti) => {
                zones_of.entry(ti).or_default().insert(z);
            }
            None => {
                unknown.insert(o.instance_type.clone());
            }
        }
    }
    if !inputs.offerings.is_empty() {
        let mut rest = BTreeSet::new();
        for (ti, t) in catalog.types.iter_mut().enumerate() {
            match zones_of.get(&ti) {
                Some(zs) => {
                    t.offerings.iter_mut().filter(|o| o.reservation.is_none() && !zs.contains(&o.zone)).for_each(|o| o.available = false)
                }
                None => {
                    rest.insert(t.name.clone());
                }
            }
        }
        if !rest.is_empty() {
            catalog.notes.push((
                "zones-assumed".into(),
                format!(
                    "{} instance type(s) are not in the InstanceTypeOfferings of the inputs ({}): offered in every zone of the catalog",
                    rest.len(),
                    some(&rest)
                ),
            ));
        }
        if !outside.is_empty() {
            catalog.notes.push((
                "zone-not-in-catalog".into(),
                format!(
                    "InstanceTypeOfferings names zone(s) {} outside the catalog's zones (the EC2NodeClass subnets' zones Karpenter launches in): not used; add them to the catalog's zones to plan there",
                    some(&outside)
                ),
            ));
        }
    }
    // Spot prices.
    let mut spot_of: BTreeMap<usize, BTreeMap<u32, f64>> = BTreeMap::new();
    for e in &inputs.spot {
        if !in_region(&e.zone, &e.origin, errors) {
            continue;
        }
        let z = interner.intern(&e.zone);
        match by_name.get(e.instance_type.as_str()).copied() {
            Some(ti) => {
                spot_of.entry(ti).or_default().insert(z, e.price);
            }
            None => {
                unknown.insert(e.instance_type.clone());
            }
        }
    }
    if !inputs.spot.is_empty() {
        let mut rest = BTreeSet::new();
        for (ti, t) in catalog.types.iter_mut().enumerate() {
            let Some(prices) = spot_of.get(&ti) else {
                if t.offerings.iter().any(|o| o.capacity_type == spot && o.reservation.is_none()) {
                    rest.insert(t.name.clone());
                }
                continue;
            };
            for o in t.offerings.iter_mut().filter(|o| o.capacity_type == spot && o.reservation.is_none()) {
                match prices.get(&o.zone) {
                    Some(&p) => (o.price, o.source) = (p, PriceSource::User),
                    // Karpenter: once spot prices are known, no price in a zone is no offering.
                    None => o.available = false,
                }
            }
        }
        if !rest.is_empty() {
            catalog.notes.push((
                "spot-price-factor".into(),
                format!(
                    "{} instance type(s) have no spot price in the SpotPriceHistory of the inputs ({}): spot priced at on-demand × {} (Karpenter, whose price history covers every type, would have no spot offering where there is no price)",
                    rest.len(),
                    some(&rest),
                    catalog.spot_price_factor
                ),
            ));
        }
    }
    if inputs.other_products_on_demand > 0 {
        catalog.notes.push((
            "price-product-ignored".into(),
            format!(
                "{} PriceList product(s) not read: Karpenter asks the Pricing API only for Linux, no pre-installed software, \
                 capacitystatus Used, Shared Compute Instance or Dedicated bare-metal products with an on-demand price",
                inputs.other_products_on_demand
            ),
        ));
    }
    for (product, n) in &inputs.other_products {
        catalog.notes.push((
            "spot-product-ignored".into(),
            format!("{n} SpotPriceHistory record(s) of product {product:?} not read: Karpenter reads only Linux/UNIX and Linux/UNIX (Amazon VPC)"),
        ));
    }
    if !unknown.is_empty() {
        catalog.notes.push((
            "unknown-instance-types".into(),
            format!(
                "{} instance type(s) of the price and offering documents are not in the {} catalog ({}): not used",
                unknown.len(),
                catalog.source,
                some(&unknown)
            ),
        ));
    }
    if errors.len() > before {
        catalog.notes.clear();
    }
}
