//! Capacity reservations (issue 38): the GPU input with and without 100 reservations.

use super::*;

/// GPU types the reservations of [`reservations_document`] are for (every one of the example
/// pools' GPUs: T4, A10G, L4, A100, H100), cycled.
const RESERVED_TYPES: [&str; 10] = [
    "g4dn.xlarge",
    "g5.xlarge",
    "g5.12xlarge",
    "g5.48xlarge",
    "g6.xlarge",
    "g6.12xlarge",
    "p4d.24xlarge",
    "p5.48xlarge",
    "g5.2xlarge",
    "g6.2xlarge",
];
const RESERVED_ZONES: [&str; 3] = ["us-east-1a", "us-east-1b", "us-east-1c"];

/// `n` ODCRs (targeted, tagged `bench: reserved`) and capacity blocks, over [`RESERVED_TYPES`]
/// and three zones, each with 0–3 of 4 instances free: `aws ec2 describe-capacity-reservations`
/// output as the AWS CLI prints it.
pub fn reservations_document(n: usize, seed: u64) -> Value {
    reservations_document_sized(n, seed, None)
}

/// [`reservations_document`] with every reservation `Some(k)` instances large and all of them
/// free (`None`: 0–3 of 4 free, drawn as there).
pub fn reservations_document_sized(n: usize, seed: u64, free: Option<u64>) -> Value {
    let mut rng = SplitMix64::new(seed);
    let list: Vec<Value> = (0..n)
        .map(|i| {
            let block = i % 4 == 3;
            json!({
                "CapacityReservationId": format!("cr-{i:017x}"),
                "OwnerId": "123456789012",
                "InstanceType": RESERVED_TYPES[i % RESERVED_TYPES.len()],
                "AvailabilityZone": RESERVED_ZONES[(i / RESERVED_TYPES.len()) % RESERVED_ZONES.len()],
                "TotalInstanceCount": free.unwrap_or(4),
                "AvailableInstanceCount": free.unwrap_or_else(|| rng.below(4) as u64),
                "State": "active",
                "InstanceMatchCriteria": "targeted",
                "ReservationType": if block { "capacity-block" } else { "default" },
                "Tags": [{"Key": "bench", "Value": "reserved"}],
                "Tenancy": "default",
            })
        })
        .collect();
    json!({ "CapacityReservations": list })
}

/// The example GPU NodePool files without limits, their EC2NodeClasses selecting the
/// reservations tagged `bench: reserved`; with `allow_reserved`, `reserved` added to every
/// NodePool's capacity types.
pub fn reserved_pool_text(yaml: &str, allow_reserved: bool) -> String {
    let mut out = String::with_capacity(yaml.len() + 128);
    let mut in_class = false;
    for line in without_limits(yaml).lines() {
        if line.starts_with("kind: ") {
            in_class = line == "kind: EC2NodeClass";
        }
        let line = if allow_reserved {
            line.replace("values: [\"spot\", \"on-demand\"]", "values: [\"reserved\", \"spot\", \"on-demand\"]")
        } else {
            line.to_string()
        };
        let line = if allow_reserved { line.replace("values: [\"on-demand\"]", "values: [\"reserved\", \"on-demand\"]") } else { line };
        out.push_str(&line);
        out.push('\n');
        if in_class && line == "spec:" {
            out.push_str("  capacityReservationSelectorTerms:\n    - tags: {bench: reserved}\n");
        }
    }
    out
}

/// The GPU input ([`gpu_request_unlimited`]'s pods) over the reservation-aware pools, with
/// `reservations` reservations (0: no reservations document at all).
pub fn reserved_request(n: usize, reservations: usize, allow_reserved: bool) -> Request {
    reserved_request_sized(n, reservations, allow_reserved, None)
}

/// Free instances per reservation in the `ample` case: more than the NodeClaims of a
/// 10,000-pod pass (each NodeClaim holds one slot of every reservation compatible with it),
/// so no pod is deferred and every pod is placed, as without reservations.
pub const AMPLE_RESERVATION: u64 = 100_000;

/// [`reserved_request`] with reservations sized as [`reservations_document_sized`] makes them.
pub fn reserved_request_sized(n: usize, reservations: usize, allow_reserved: bool, free: Option<u64>) -> Request {
    let mut inputs: Vec<nodecast::Input> = GPU_NODEPOOLS
        .iter()
        .map(|(name, text)| nodecast::Input { name: Some(name.to_string()), text: reserved_pool_text(text, allow_reserved) })
        .collect();
    if reservations > 0 {
        inputs.push(nodecast::Input {
            name: Some("reservations.json".into()),
            text: reservations_document_sized(reservations, GPU_SEED, free).to_string(),
        });
    }
    Request { inputs, objects: gpu_pods(n, GPU_SEED), catalog: None, now: Some("2026-12-01T12:00:00Z".into()), ..Default::default() }
}
