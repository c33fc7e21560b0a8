//! `aws pricing get-products --service-code AmazonEC2` output as an on-demand price list: the
//! document the AWS CLI prints, `{PriceList: ["<product JSON>", ...], FormatVersion, NextToken}`,
//! each entry a JSON string with `product.attributes` and `terms.OnDemand`. Read as the AWS
//! provider's pricing provider reads the Pricing API (pkg/providers/pricing/pricing.go,
//! `fetchOnDemandPricing` and `onDemandPage`): only products matching its query filters count —
//! operatingSystem Linux, preInstalledSw NA, capacitystatus Used, and tenancy Shared with
//! productFamily "Compute Instance" or tenancy Dedicated with "Compute Instance (bare metal)" —
//! and of those, each `pricePerUnit` in USD (CNY in `cn-` regions) that is not 0; a later
//! product of the same type overwrites an earlier one. Products outside the filters (which the
//! CLI prints when run without them) are counted in a note, never silently dropped.

use crate::manifest::reader::{At, Sink};
use serde_json::Value;

/// The key that makes a document `get-products` output.
pub const KEY: &str = "PriceList";
/// Bytes of one PriceList entry: a real EC2 product is about 3 KB; 1 MB bounds the parse.
pub const MAX_ENTRY_BYTES: usize = 1 << 20;

pub fn is_get_products_document(v: &Value) -> bool {
    super::offerings_input::is_aws_output(v, KEY)
}

/// A region's on-demand prices as one document gave them: (region, [(instance type, price)]).
pub type RegionPrices = (String, Vec<(String, f64)>);

/// What one document gave: the region's prices (None when no product was read) and the products
/// outside Karpenter's filters. The caller records where they came from (`PriceList[0]`).
pub fn read(root: &At, sink: &mut Sink) -> (Option<RegionPrices>, usize) {
    let Some(list) = root.get(KEY) else { return (None, 0) };
    if !list.v.is_array() {
        sink.wrong_type(&list, "a list of product JSON strings, as `aws pricing get-products` prints");
        return (None, 0);
    }
    let mut region: Option<String> = None;
    let mut prices: Vec<(String, f64)> = Vec::new();
    let mut other = 0;
    for (i, item) in sink.list(&list).into_iter().enumerate() {
        let Value::String(text) = item.v else {
            sink.wrong_type(&item, "a product as a JSON string");
            continue;
        };
        if text.len() > MAX_ENTRY_BYTES {
            sink.error(&item, "too-large", format!("product of {} bytes", text.len()), "one EC2 product (a few KB) per entry");
            continue;
        }
        let product: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                sink.error(&item, "invalid-json", format!("PriceList[{i}] is not JSON: {e}"), "the string the AWS CLI prints");
                continue;
            }
        };
        let attr = |k: &str| product.pointer(&format!("/product/attributes/{k}")).and_then(Value::as_str).unwrap_or("");
        let Some(it) = Some(attr("instanceType")).filter(|s| !s.is_empty()) else {
            other += 1;
            continue;
        };
        let code = attr("regionCode");
        if code.is_empty() {
            sink.error(&item, "required", format!("product {it:?} without product.attributes.regionCode"), "a product of one region");
            continue;
        }
        match &region {
            None => region = Some(code.to_string()),
            Some(r) if r != code => {
                let msg = format!("product {it:?} is of region {code:?}, the document's first product of {r:?}");
                sink.error(&item, "mixed-regions", msg, "one region per get-products document (--filters Field=regionCode,...)");
                continue;
            }
            _ => {}
        }
        let family_ok = matches!(
            (attr("tenancy"), attr("productFamily")),
            ("Shared", "Compute Instance") | ("Dedicated", "Compute Instance (bare metal)")
        );
        if !family_ok || attr("operatingSystem") != "Linux" || attr("preInstalledSw") != "NA" || attr("capacitystatus") != "Used" {
            other += 1;
            continue;
        }
        let currency = if code.starts_with("cn-") { "CNY" } else { "USD" };
        let terms = product.pointer("/terms/OnDemand").and_then(Value::as_object);
        let mut found = None;
        for term in terms.into_iter().flat_map(|m| m.values()) {
            for dim in term.get("priceDimensions").and_then(Value::as_object).into_iter().flat_map(|m| m.values()) {
                let p = dim.pointer(&format!("/pricePerUnit/{currency}")).and_then(Value::as_str).and_then(|s| s.parse::<f64>().ok());
                if let Some(p) = p.filter(|p| p.is_finite() && *p > 0.0 && *p <= super::MAX_PRICE) {
                    found = Some(p);
                }
            }
        }
        match found {
            Some(p) => match prices.iter_mut().find(|(n, _)| n == it) {
                Some(e) => e.1 = p,
                None => prices.push((it.to_string(), p)),
            },
            None => other += 1,
        }
    }
    let Some(region) = region else { return (None, other) };
    (Some((region, prices)), other)
}
