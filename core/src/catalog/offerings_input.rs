//! Reading `aws ec2 describe-instance-type-offerings --location-type availability-zone` output
//! (JSON or YAML, top-level `InstanceTypeOfferings`): which instance types exist in which zones.
//!
//! The AWS provider asks EC2 the same question (pkg/providers/instancetype/offering and the
//! instance-type provider's zone lookup) and marks an offering in a zone the type is not offered
//! in unavailable (`itZones.Has(zone)` in offering/base_resolver.go). Recognised like the
//! reservations document (`reservations::is_reservations_document`): no kind, no apiVersion.

use crate::manifest::reader::{At, Sink};

/// The key that makes a document an instance-type offerings document.
pub const DOCUMENT_KEY: &str = "InstanceTypeOfferings";

/// One entry: the type is offered in the zone.
#[derive(Debug, Clone)]
pub struct ZoneOffering {
    pub instance_type: String,
    pub zone: String,
    /// Where it was read: document index, source name and `InstanceTypeOfferings[i]`.
    pub document: usize,
    pub source: Option<String>,
    pub index: usize,
}

/// Is this decoded document a `describe-instance-type-offerings` output?
pub fn is_offerings_document(v: &serde_json::Value) -> bool {
    is_aws_output(v, DOCUMENT_KEY)
}

/// A document of the AWS CLI or nodecast's price list: `key` at the top, no Kubernetes header.
pub fn is_aws_output(v: &serde_json::Value, key: &str) -> bool {
    v.get(key).is_some() && v.get("kind").is_none() && v.get("apiVersion").is_none()
}

/// A required non-empty scalar field of an entry; a located error when absent or empty.
pub(super) fn required(item: &At, field: &str, sink: &mut Sink, help: &str) -> Option<String> {
    let Some(at) = item.get(field) else {
        sink.error(item, "required", format!("entry without {field}"), help);
        return None;
    };
    let s = sink.scalar(&at)?;
    if s.trim().is_empty() {
        sink.error(&at, "required", format!("{field} is empty"), help);
        return None;
    }
    Some(s)
}

/// Read every entry of the document at `root`; errors are located at
/// `InstanceTypeOfferings[i].Field`.
pub fn read(root: &At, sink: &mut Sink, source: Option<&str>) -> Vec<ZoneOffering> {
    let mut out = Vec::new();
    let Some(list) = root.get(DOCUMENT_KEY) else {
        return out;
    };
    for (index, item) in sink.list(&list).into_iter().enumerate() {
        if !item.v.is_object() {
            sink.wrong_type(&item, "an instance type offering (a mapping with InstanceType, LocationType, Location)");
            continue;
        }
        let it = required(&item, "InstanceType", sink, "InstanceType: p5.48xlarge");
        let lt = required(&item, "LocationType", sink, "LocationType: availability-zone");
        let loc = required(&item, "Location", sink, "Location: eu-west-1a");
        if let Some(lt) = lt.filter(|l| l != "availability-zone") {
            let at = item.get("LocationType").unwrap_or(item);
            sink.error(
                &at,
                "invalid-location-type",
                format!("LocationType {lt:?}: nodecast places offerings by zone name"),
                "availability-zone (run aws ec2 describe-instance-type-offerings --location-type availability-zone)",
            );
            continue;
        }
        if let (Some(instance_type), Some(zone)) = (it, loc) {
            out.push(ZoneOffering { instance_type, zone, document: sink.document, source: source.map(str::to_string), index });
        }
    }
    out
}
