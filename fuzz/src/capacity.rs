//! Capacity that `facade_simulate` adds to its cluster after every other choice, so the inputs
//! kept from before (seeds, regressions) still decode to the clusters they were found with
//! ([`Src::maybe`] is false past the input's end):
//! - a static NodePool (`spec.replicas`, gate StaticCapacity set either way);
//! - capacity reservations (the AWS CLI's describe-capacity-reservations document and an
//!   EC2NodeClass selecting them), interruptible or not, and `reservationInterrupt` events
//!   naming them, a node, or nothing that exists.
//!
//! Depends only on std and serde_json (core/tests/fuzz_corpus.rs includes this file by path).

use crate::cluster::Src;
use serde_json::{json, Value};

/// What [`add`] adds beside the objects: the reservations document and the gates to set.
pub struct Capacity {
    /// describe-capacity-reservations output, as text (None: no reservations).
    pub reservations: Option<String>,
    /// `settings.featureGates` (None: Karpenter's defaults).
    pub gates: Option<Value>,
}

const RESERVED_TYPES: &[&str] = &["m5.large", "g5.xlarge", "g5.2xlarge", "g5.xlarge"];
const AWS_ZONES: &[&str] = &["us-east-1a", "us-east-1b", "us-east-1c"];

/// The ids of the generated reservations (valid `cr-` + 17 hex digits).
fn reservation_id(i: usize) -> String {
    format!("cr-0f0000000000000{i:02x}")
}

/// Adds a static NodePool, reservations and their interruption events, each only when the
/// bytes choose it. `embedded`: the request uses the embedded AWS catalog (real type names).
pub fn add(src: &mut Src, wild: bool, embedded: bool, objects: &mut Vec<Value>, events: &mut Vec<Value>) -> Capacity {
    let mut gates = None;
    if src.maybe(90) {
        let replicas = if wild { src.pick(&[0i64, 1, 3, -1, 100_001, i64::MAX]) } else { src.pick(&[0i64, 1, 2, 3]) };
        let ty = if embedded { src.pick(RESERVED_TYPES) } else { src.pick(&["t-2", "g-1", "g-8"]) };
        let mut spec = json!({
            "replicas": replicas,
            "template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                                  "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": [ty]}]}}
        });
        if src.maybe(80) {
            spec["limits"] = json!({"nodes": src.pick(&["1", "2", "5"])});
        }
        if src.maybe(60) {
            spec["disruption"] = json!({"budgets": [{"nodes": src.pick(&["1", "0", "50%"])}]});
        }
        objects.push(json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "static"}, "spec": spec}));
        // StaticCapacity is off by default in v1.15: mostly on, so the pool is used.
        gates = Some(json!({"StaticCapacity": !src.maybe(40)}));
    }
    let mut reservations = None;
    if embedded && src.maybe(100) {
        let n = 1 + src.below(2);
        let mut docs = Vec::new();
        let mut terms = Vec::new();
        for i in 0..n {
            let total = src.pick(&[1i64, 2, 3]);
            let mut r = json!({
                "CapacityReservationId": reservation_id(i),
                "OwnerId": "210987654321",
                "InstanceType": src.pick(RESERVED_TYPES),
                "InstancePlatform": "Linux/UNIX",
                "AvailabilityZone": src.pick(AWS_ZONES),
                "Tenancy": "default",
                "TotalInstanceCount": total,
                "AvailableInstanceCount": total - src.below(2) as i64,
                "State": if src.maybe(30) { "expired" } else { "active" },
                "StartDate": "2026-11-22T00:00:00+00:00",
                "InstanceMatchCriteria": "targeted",
                "ReservationType": if src.maybe(60) { "capacity-block" } else { "default" },
                "Interruptible": !src.maybe(30),
            });
            if src.maybe(80) {
                r["EndDateType"] = json!("limited");
                r["EndDate"] = json!(src.pick(&["2026-11-23T06:00:00+00:00", "2026-11-24T00:00:00+00:00"]));
            } else {
                r["EndDateType"] = json!("unlimited");
            }
            terms.push(json!({"id": reservation_id(i)}));
            docs.push(r);
        }
        objects.push(json!({"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
            "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "KarpenterNodeRole",
                     "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "fuzz"}}],
                     "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "fuzz"}}],
                     "capacityReservationSelectorTerms": terms}}));
        // Reserved capacity is used only by NodePools that allow the capacity type.
        let allow = json!({"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["reserved", "on-demand"]});
        for o in objects.iter_mut().filter(|o| o["kind"] == "NodePool" && o["spec"].get("replicas").is_none()) {
            if let Some(reqs) = o["spec"]["template"]["spec"]["requirements"].as_array_mut() {
                reqs.retain(|r| r["key"] != "karpenter.sh/capacity-type");
                reqs.push(allow.clone());
            }
        }
        for _ in 0..src.below(4) {
            let at = src.pick(&["0s", "30m", "2h", "5h", "1d"]);
            let id = reservation_id(src.below(n + usize::from(wild)));
            let notice = match src.below(if wild { 6 } else { 3 }) {
                0 => json!(id),
                1 => json!({"reservation": id, "instances": src.pick(&[1, 2, 3])}),
                2 => json!({"reservation": id, "node": "node-0"}),
                3 => json!({"reservation": id, "instances": src.pick(&[0i64, 10_001, -1, i64::MAX])}),
                4 => json!({"reservation": id, "instances": 1, "node": "node-0"}),
                _ => json!({"reservation": "cr-unknown", "extra": true}),
            };
            events.push(json!({"at": at, "reservationInterrupt": notice}));
        }
        reservations = Some(json!({"CapacityReservations": docs}).to_string());
    }
    Capacity { reservations, gates }
}
