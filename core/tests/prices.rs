//! Prices and places as they are (issue 31): the embedded regions of the AWS provider's price
//! tables, another region priced by the inputs, spot price history per type × zone and the
//! zones each type is offered in.

use nodecast::api::Plan;
use nodecast::error::InputError;
use nodecast::{Input, Outcome, Request};
use serde_json::{json, Value};

fn pool(capacity_type: &str, types: &str) -> String {
    format!(
        r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: default}}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements:
      - {{key: karpenter.sh/capacity-type, operator: In, values: [{capacity_type}]}}
      - {{key: node.kubernetes.io/instance-type, operator: In, values: [{types}]}}
---
apiVersion: v1
kind: Pod
metadata: {{name: web}}
spec:
  containers:
  - {{name: c, image: nginx, resources: {{requests: {{cpu: "1"}}}}}}
"#
    )
}

fn request(cluster: String, docs: &[Value], catalog: Value) -> Request {
    let mut inputs = vec![Input { name: Some("cluster.yaml".into()), text: cluster }];
    for (i, d) in docs.iter().enumerate() {
        inputs.push(Input { name: Some(format!("prices-{i}.json")), text: d.to_string() });
    }
    Request { inputs, catalog: Some(catalog), ..Default::default() }
}

fn plan(req: &Request) -> Plan {
    match nodecast::plan(req).outcome {
        Outcome::Success(p) => p,
        Outcome::Failure { errors } => panic!("plan failed: {errors:#?}"),
    }
}

fn errors(req: &Request) -> Vec<InputError> {
    match nodecast::plan(req).outcome {
        Outcome::Success(p) => panic!("expected errors, planned {:?}", p.node_claims),
        Outcome::Failure { errors } => errors,
    }
}

fn spot(it: &str, zone: &str, price: &str, time: &str, product: &str) -> Value {
    json!({"AvailabilityZone": zone, "InstanceType": it, "ProductDescription": product, "SpotPrice": price, "Timestamp": time})
}

fn claim_json(p: &Plan) -> Value {
    serde_json::to_value(&p.node_claims[0]).unwrap()
}

#[test]
fn embedded_regions_price_and_place_from_their_own_table() {
    let p = plan(&request(pool("on-demand", "c5.large"), &[], json!("aws-us-gov-west-1")));
    let c = &p.node_claims[0];
    assert_eq!(c.price_per_hour, Some(0.102));
    assert!(c.zone.as_deref().unwrap().starts_with("us-gov-west-1"), "{:?}", c.zone);
    assert_eq!(c.labels.get("topology.kubernetes.io/region").map(String::as_str), Some("us-gov-west-1"));
    // Without user prices the answer carries no priceSource (answers stay as they were).
    assert!(claim_json(&p).get("priceSource").is_none());
    // cn-north-1's table is in CNY: the answer says so.
    let p = plan(&request(pool("on-demand", "c5.large"), &[], json!("aws-cn-north-1")));
    assert!(p.warnings.iter().any(|w| w.code == "prices-in-cny"), "{:?}", p.warnings);
    assert!(p.node_claims[0].zone.as_deref().unwrap().starts_with("cn-north-1"));
    // A type the region's table does not price is not in its catalog.
    let p = plan(&request(pool("on-demand", "p5.48xlarge"), &[], json!("aws-cn-north-1")));
    assert!(p.node_claims.is_empty());
}

#[test]
fn an_unknown_region_is_a_located_error_listing_the_known_ones() {
    for name in ["aws-mars", "aws-eu-west-1"] {
        let e = errors(&request(pool("on-demand", "m5.large"), &[], json!(name)));
        assert_eq!(e[0].code, "unknown-catalog", "{e:?}");
        assert_eq!(e[0].path.as_deref(), Some("catalog"));
        let help = e[0].help.as_deref().unwrap();
        assert!(help.contains("aws-us-east-1, aws-cn-north-1, aws-us-gov-east-1, aws-us-gov-west-1"), "{help}");
    }
    // A zone of another region is refused at its index.
    let e = errors(&request(pool("on-demand", "m5.large"), &[], json!({"source": "aws-us-gov-east-1", "zones": ["us-east-1a"]})));
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("invalid-zone", Some("catalog.zones[0]")));
}

#[test]
fn another_region_is_priced_by_the_users_on_demand_prices() {
    let od = json!({"region": "eu-west-1", "onDemand": {"m5.large": 0.075, "m5.xlarge": "0.214"}});
    let p = plan(&request(pool("on-demand", "m5.large, c5.large"), std::slice::from_ref(&od), json!("aws-eu-west-1")));
    let c = &p.node_claims[0];
    assert_eq!((c.instance_type.as_deref(), c.price_per_hour), (Some("m5.large"), Some(0.075)));
    assert!(c.zone.as_deref().unwrap().starts_with("eu-west-1"));
    assert_eq!(claim_json(&p)["priceSource"], "user");
    // Types the document does not price keep us-east-1's list price, and the answer says so.
    assert!(p.warnings.iter().any(|w| w.code == "us-east-1-prices"), "{:?}", p.warnings);
    let p = plan(&request(pool("on-demand", "c5.large"), std::slice::from_ref(&od), json!("aws-eu-west-1")));
    assert_eq!(claim_json(&p)["priceSource"], "us-east-1-list");
    assert_eq!(p.node_claims[0].price_per_hour, Some(0.085));
    // Prices of another region than the catalog's are refused where they say it.
    let e = errors(&request(pool("on-demand", "m5.large"), &[od], json!("aws-us-east-1")));
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("invalid-region", Some("region")));
    assert_eq!(e[0].source.as_deref(), Some("prices-0.json"));
}

#[test]
fn the_cheaper_zones_spot_offering_wins_with_real_spot_prices() {
    let history = json!({"SpotPriceHistory": [
        spot("m5.large", "us-east-1a", "0.0500", "2026-11-28T10:00:00+00:00", "Linux/UNIX"),
        spot("m5.large", "us-east-1b", "0.0310", "2026-11-28T10:00:00+00:00", "Linux/UNIX"),
        // Older and cheaper: not the latest price of us-east-1a.
        spot("m5.large", "us-east-1a", "0.0100", "2026-11-27T10:00:00+00:00", "Linux/UNIX"),
        // Another product: not read, said in a warning.
        spot("m5.large", "us-east-1c", "0.0010", "2026-11-28T10:00:00+00:00", "Windows"),
    ]});
    let p = plan(&request(pool("spot", "m5.large"), std::slice::from_ref(&history), json!("aws-us-east-1")));
    let c = &p.node_claims[0];
    assert_eq!((c.zone.as_deref(), c.price_per_hour), (Some("us-east-1b"), Some(0.031)));
    assert_eq!(claim_json(&p)["priceSource"], "user");
    assert!(p.warnings.iter().any(|w| w.code == "spot-product-ignored"), "{:?}", p.warnings);
    // With the factor (no history) every zone costs the same and 1a is chosen.
    let p = plan(&request(pool("spot", "m5.large"), &[], json!("aws-us-east-1")));
    assert_eq!(p.node_claims[0].zone.as_deref(), Some("us-east-1a"));
    // A zone without a spot price has no spot offering: only 1c left in the catalog → nothing.
    let p = plan(&request(pool("spot", "m5.large"), &[history], json!({"source": "aws-us-east-1", "zones": ["us-east-1c"]})));
    assert!(p.node_claims.is_empty(), "{:?}", p.node_claims);
    // Types the history does not cover keep the factor, said in a warning.
    let only_c5 = json!({"SpotPriceHistory": [spot("c5.large", "us-east-1a", "0.04", "2026-11-28T10:00:00Z", "Linux/UNIX")]});
    let p = plan(&request(pool("spot", "m5.large"), &[only_c5], json!("aws-us-east-1")));
    assert_eq!(claim_json(&p)["priceSource"], "factor");
    assert!(p.warnings.iter().any(|w| w.code == "spot-price-factor"), "{:?}", p.warnings);
}

#[test]
fn a_type_absent_from_a_zone_has_no_offering_there() {
    let offerings = json!({"InstanceTypeOfferings": [
        {"InstanceType": "m5.large", "LocationType": "availability-zone", "Location": "us-east-1c"},
        {"InstanceType": "c5.large", "LocationType": "availability-zone", "Location": "us-east-1d"},
    ]});
    let p = plan(&request(pool("on-demand", "m5.large"), std::slice::from_ref(&offerings), json!("aws-us-east-1")));
    assert_eq!(p.node_claims[0].zone.as_deref(), Some("us-east-1c"));
    assert!(p.warnings.iter().any(|w| w.code == "zones-assumed"), "{:?}", p.warnings);
    assert!(p.warnings.iter().any(|w| w.code == "zone-not-in-catalog"), "{:?}", p.warnings);
    // c5.large is offered only in us-east-1d, not one of the catalog's zones: nothing to launch.
    let p = plan(&request(pool("on-demand", "c5.large"), &[offerings], json!("aws-us-east-1")));
    assert!(p.node_claims.is_empty());
}

#[test]
fn bad_entries_are_located_errors() {
    let bad = json!({"SpotPriceHistory": [
        spot("m5.large", "us-east-1a", "abc", "2026-11-28T10:00:00Z", "Linux/UNIX"),
        {"InstanceType": "m5.large", "AvailabilityZone": "us-east-1a", "ProductDescription": "Linux/UNIX", "SpotPrice": "0.1"},
    ]});
    let e = errors(&request(pool("spot", "m5.large"), &[bad], json!("aws-us-east-1")));
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("invalid-number", Some("SpotPriceHistory[0].SpotPrice")));
    assert_eq!((e[1].code.as_str(), e[1].path.as_deref()), ("required", Some("SpotPriceHistory[1]")));
    assert_eq!(e[0].object.as_deref(), Some("SpotPriceHistory"));
    assert_eq!(e[0].document, Some(0));
    let wrong_zone = json!({"SpotPriceHistory": [spot("m5.large", "eu-west-1a", "0.1", "2026-11-28T10:00:00Z", "Linux/UNIX")]});
    let e = errors(&request(pool("spot", "m5.large"), &[wrong_zone], json!("aws-us-east-1")));
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("invalid-zone", Some("SpotPriceHistory[0].AvailabilityZone")));
    let region = json!({"InstanceTypeOfferings": [{"InstanceType": "m5.large", "LocationType": "region", "Location": "us-east-1"}]});
    let e = errors(&request(pool("spot", "m5.large"), &[region], json!("aws-us-east-1")));
    assert_eq!((e[0].code.as_str(), e[0].path.as_deref()), ("invalid-location-type", Some("InstanceTypeOfferings[0].LocationType")));
    // Price documents need an AWS catalog.
    let inline = json!({"instanceTypes": [{"name": "x", "allocatable": {"cpu": "4"}, "onDemandPrice": 1}]});
    let history = json!({"SpotPriceHistory": []});
    let e = errors(&request(pool("spot", "x"), &[history], inline));
    assert_eq!(e[0].code, "prices-need-aws-catalog");
}

#[test]
fn optimize_and_simulate_use_the_same_prices() {
    let history = json!({"SpotPriceHistory": [
        spot("m5.large", "us-east-1a", "0.0500", "2026-11-28T10:00:00+00:00", "Linux/UNIX"),
        spot("m5.large", "us-east-1b", "0.0310", "2026-11-28T10:00:00+00:00", "Linux/UNIX"),
    ]});
    let req = request(pool("spot", "m5.large"), &[history], json!("aws-us-east-1"));
    match nodecast::optimize(&req).outcome {
        Outcome::Success(o) => assert_eq!(o.optimum_price_per_hour, 0.031),
        Outcome::Failure { errors } => panic!("{errors:?}"),
    }
}

/// One `aws pricing get-products` entry: the product JSON as a string, as the CLI prints it.
fn product(it: &str, region: &str, os: &str, price: &str) -> Value {
    let p = json!({
        "product": {"productFamily": "Compute Instance", "sku": "SKU1", "attributes": {
            "instanceType": it, "regionCode": region, "operatingSystem": os, "preInstalledSw": "NA",
            "tenancy": "Shared", "capacitystatus": "Used", "productFamily": "Compute Instance"}},
        "terms": {"OnDemand": {"SKU1.JRTCKXETXF": {"priceDimensions": {"SKU1.JRTCKXETXF.6YS6EN2CT7": {
            "unit": "Hrs", "pricePerUnit": {"USD": price}}}}}}
    });
    Value::String(p.to_string())
}

#[test]
fn pricing_get_products_output_prices_a_region() {
    let doc = json!({"FormatVersion": "aws_v1", "PriceList": [
        product("m5.large", "eu-west-1", "Linux", "0.1070000000"),
        product("c5.large", "eu-west-1", "Windows", "0.1970000000"),
        product("c5.large", "eu-west-1", "Linux", "0.0000000000"),
    ]});
    let p = plan(&request(pool("on-demand", "m5.large"), std::slice::from_ref(&doc), json!("aws-eu-west-1")));
    assert_eq!(p.node_claims[0].price_per_hour, Some(0.107));
    assert_eq!(claim_json(&p)["priceSource"], "user");
    // The Windows product and the zero price are not Karpenter's: counted, not read.
    let note = p.warnings.iter().find(|w| w.code == "price-product-ignored").expect("note");
    assert!(note.message.starts_with("2 PriceList product(s)"), "{}", note.message);
    let p = plan(&request(pool("on-demand", "c5.large"), std::slice::from_ref(&doc), json!("aws-eu-west-1")));
    assert_eq!(claim_json(&p)["priceSource"], "us-east-1-list");
    // Bad entries are located at their index.
    let bad = json!({"PriceList": [product("m5.large", "eu-west-1", "Linux", "0.107"), "{not json", 7,
        product("m5.xlarge", "eu-west-2", "Linux", "0.2")]});
    let e = errors(&request(pool("on-demand", "m5.large"), &[bad], json!("aws-eu-west-1")));
    let got: Vec<(&str, Option<&str>)> = e.iter().map(|e| (e.code.as_str(), e.path.as_deref())).collect();
    assert_eq!(
        got,
        [("invalid-json", Some("PriceList[1]")), ("wrong-type", Some("PriceList[2]")), ("mixed-regions", Some("PriceList[3]"))]
    );
    assert!(e.iter().all(|e| e.source.as_deref() == Some("prices-0.json")), "{e:?}");
    // Prices of another region than the catalog's are refused.
    let e = errors(&request(pool("on-demand", "m5.large"), &[doc], json!("aws-us-east-1")));
    assert_eq!(e[0].code, "invalid-region");
}
