//! EKS Auto Mode's management fee, as an input document: `{region, autoModeFee: {type: $/h}}`.
//!
//! AWS bills an Auto Mode node its EC2 price plus a management fee per instance type and hour,
//! the same for every purchase option (the EKS pricing page, aws.amazon.com/eks/pricing, "EKS
//! Auto Mode"). The fee is not in the AWS provider's data, nor in any table nodecast embeds, so
//! the user supplies the fees of their region (copied from that page or their bill). Karpenter's
//! own price ordering is the EC2 price's (pkg/providers/pricing: the fee is not an EC2 price),
//! and what AWS's managed Karpenter ranks by is not public: nodecast keeps every decision on
//! EC2 prices and adds the fee to what Auto Mode nodes cost (NodeClaims' `autoModeFeePerHour`,
//! the plan's total, a consolidation's before/after, the simulator's cost).

use super::price_entry::{price, some, Origin};
use super::Catalog;
use crate::error::InputError;
use crate::manifest::reader::{At, Sink};
use crate::model::Model;
use std::collections::BTreeSet;

/// The key (with `region`) that makes a document a fee table.
pub const KEY: &str = "autoModeFee";
/// The object name its errors carry.
pub const OBJECT: &str = "AutoModeFee";

/// One fee table: a region's fee per instance type.
#[derive(Debug, Clone)]
pub struct FeeTable {
    pub region: Option<String>,
    /// (type, $/h, where it was read).
    pub fees: Vec<(String, f64, String)>,
    pub origin: Origin,
}

/// Read a fee table document (`prices::is_price_document` routes it here).
pub fn read(root: &At, sink: &mut Sink, source: Option<&str>) -> FeeTable {
    let region = super::offerings_input::required(root, "region", sink, "region: us-east-1");
    let mut fees = Vec::new();
    if let Some(map) = root.get(KEY) {
        for (name, at) in sink.map(&map) {
            if let Some(p) = price(&at, sink) {
                fees.push((name.to_string(), p, format!("{KEY}.{name}")));
            }
        }
    }
    let origin = Origin { document: sink.document, source: source.map(str::to_string), object: OBJECT, path: "region".into() };
    FeeTable { region, fees, origin }
}

/// Apply the fee tables to the catalog (each type's `auto_mode_fee`): errors for a table of
/// another region or a type priced twice; a note for types the catalog does not have.
pub fn apply(catalog: &mut Catalog, tables: &[FeeTable], errors: &mut Vec<InputError>) {
    if tables.is_empty() {
        return;
    }
    let Some(region) = catalog.region.clone() else {
        let help = "catalog: aws-<region> (the fee is per instance type of an AWS region)";
        let first = &tables[0].origin;
        errors.push(first.error(
            "prices-need-aws-catalog",
            "an Auto Mode fee table applies to an aws-<region> catalog; this request's catalog is inline".into(),
            help,
        ));
        return;
    };
    catalog.auto_mode_fee_table = true;
    let mut unknown = BTreeSet::new();
    for table in tables {
        let Some(r) = &table.region else { continue };
        if *r != region {
            let help = format!("region: {region}, or catalog: aws-{r}");
            errors.push(table.origin.error("invalid-region", format!("Auto Mode fees of {r} for the {} catalog", catalog.source), &help));
            continue;
        }
        for (name, fee, path) in &table.fees {
            let Some(ti) = catalog.find(name) else {
                unknown.insert(name.clone());
                continue;
            };
            if catalog.types[ti].auto_mode_fee.is_some() {
                let at = Origin { path: path.clone(), ..table.origin.clone() };
                errors.push(at.error(
                    "duplicate",
                    format!("a second Auto Mode fee for {name}"),
                    "one fee per instance type across the fee tables",
                ));
                continue;
            }
            catalog.types[ti].auto_mode_fee = Some(*fee);
        }
    }
    if !unknown.is_empty() {
        catalog.notes.push((
            "unknown-instance-types".into(),
            format!(
                "{} instance type(s) of the Auto Mode fee table are not in the {} catalog ({}): not used",
                unknown.len(),
                catalog.source,
                some(&unknown)
            ),
        ));
    }
}

/// Is a fee table among the inputs?
pub fn given(m: &Model) -> bool {
    m.catalog.auto_mode_fee_table
}

/// The Auto Mode fee of a node of NodePool `pool` (index) and instance type `it` (index): the
/// table's fee when the pool is an Auto Mode one, else none.
pub fn of(m: &Model, pool: Option<usize>, it: Option<usize>) -> Option<f64> {
    let (pool, it) = (pool?, it?);
    if !m.node_pools.get(pool)?.auto_mode {
        return None;
    }
    m.catalog.types.get(it)?.auto_mode_fee
}

/// [`of`] by NodePool and instance-type names (a Node's labels).
pub fn of_names(m: &Model, pool: Option<&str>, instance_type: Option<&str>) -> Option<f64> {
    let pool = pool.and_then(|p| m.node_pools.iter().position(|np| np.name == p));
    of(m, pool, instance_type.and_then(|t| m.catalog.find(t)))
}

/// The `auto-mode-fee-missing` warning (code, message) when a fee table is given but has no fee
/// for some of the launched (NodePool, instance type) pairs of Auto Mode NodePools.
pub fn missing_note(m: &Model, launched: impl IntoIterator<Item = (usize, usize)>) -> Option<(String, String)> {
    if !given(m) {
        return None;
    }
    let missing: BTreeSet<String> = launched
        .into_iter()
        .filter(|&(pool, it)| m.node_pools[pool].auto_mode && m.catalog.types[it].auto_mode_fee.is_none())
        .map(|(_, it)| m.catalog.types[it].name.clone())
        .collect();
    (!missing.is_empty()).then(|| {
        let message = format!(
            "the Auto Mode fee table has no fee for {} instance type(s) that Auto Mode NodeClaims launch ({}): their cost is the EC2 price alone",
            missing.len(),
            some(&missing)
        );
        ("auto-mode-fee-missing".to_string(), message)
    })
}
