//! Label keys and values: interning, well-known and restricted labels (spec §2.2, §2.10).
//!
//! Every label key and value that a solve can meet is interned once while lowering, so the hot
//! loops compare `u32`s. Values also remember whether they parse as an integer, which the
//! `Gt`/`Lt` operators need, so no string is parsed while scheduling.

use std::collections::HashMap;
use std::sync::Arc;

pub type KeyId = u32;
pub type ValueId = u32;

pub const ZONE: &str = "topology.kubernetes.io/zone";
pub const REGION: &str = "topology.kubernetes.io/region";
pub const CAPACITY_TYPE: &str = "karpenter.sh/capacity-type";
pub const NODEPOOL: &str = "karpenter.sh/nodepool";
pub const INSTANCE_TYPE: &str = "node.kubernetes.io/instance-type";
pub const ARCH: &str = "kubernetes.io/arch";
pub const OS: &str = "kubernetes.io/os";
pub const HOSTNAME: &str = "kubernetes.io/hostname";
pub const WINDOWS_BUILD: &str = "node.kubernetes.io/windows-build";
pub const DO_NOT_DISRUPT: &str = "karpenter.sh/do-not-disrupt";
/// Per-pod eviction cost for the disruption controller (read before the deletion cost).
pub const DISRUPTION_COST: &str = "karpenter.sh/disruption-cost";
/// The ReplicaSet controller's scale-down cost, which Karpenter also reads as an eviction cost.
pub const POD_DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";

/// The AWS provider's reservation labels (pkg/apis/v1/labels.go; the id key is the core's
/// `cloudprovider.ReservationIDLabel`).
pub const RESERVATION_ID: &str = "karpenter.k8s.aws/capacity-reservation-id";
pub const RESERVATION_TYPE: &str = "karpenter.k8s.aws/capacity-reservation-type";
pub const RESERVATION_INTERRUPTIBLE: &str = "karpenter.k8s.aws/capacity-reservation-interruptible";
/// The label a NodePool's template carries for its EC2NodeClass (`group/kind`).
pub const EC2_NODE_CLASS: &str = "karpenter.k8s.aws/ec2nodeclass";

pub const ON_DEMAND: &str = "on-demand";
pub const SPOT: &str = "spot";
pub const RESERVED: &str = "reserved";

/// Core well-known labels (R2.10.1).
pub const CORE_WELL_KNOWN: &[&str] = &[NODEPOOL, ZONE, REGION, INSTANCE_TYPE, ARCH, OS, CAPACITY_TYPE, WINDOWS_BUILD];

/// AWS well-known labels (R2.10.2).
pub const AWS_WELL_KNOWN: &[&str] = &[
    "topology.k8s.aws/zone-id",
    "karpenter.k8s.aws/capacity-reservation-id",
    "karpenter.k8s.aws/capacity-reservation-type",
    "karpenter.k8s.aws/capacity-reservation-interruptible",
    "karpenter.k8s.aws/instance-hypervisor",
    "karpenter.k8s.aws/instance-encryption-in-transit-supported",
    "karpenter.k8s.aws/nitro-sandbox",
    "karpenter.k8s.aws/instance-category",
    "karpenter.k8s.aws/instance-capability-flex",
    "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-generation",
    "karpenter.k8s.aws/instance-size",
    "karpenter.k8s.aws/instance-local-nvme",
    "karpenter.k8s.aws/instance-cpu",
    "karpenter.k8s.aws/instance-cpu-manufacturer",
    "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
    "karpenter.k8s.aws/instance-memory",
    "karpenter.k8s.aws/instance-ebs-bandwidth",
    "karpenter.k8s.aws/instance-network-bandwidth",
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-memory",
    "karpenter.k8s.aws/instance-accelerator-name",
    "karpenter.k8s.aws/instance-accelerator-manufacturer",
    "karpenter.k8s.aws/instance-accelerator-count",
    "karpenter.k8s.aws/instance-tenancy",
    "karpenter.k8s.aws/placement-group-id",
    "karpenter.k8s.aws/placement-group-partition",
];

/// Label domains reserved for Karpenter itself (R2.10.3).
pub const RESTRICTED_DOMAINS: &[&str] = &["karpenter.sh", "karpenter.k8s.aws"];

/// Map deprecated beta keys to their GA names (R2.2.2). Applied everywhere labels are read.
pub fn normalize_key(key: &str) -> &str {
    match key {
        "failure-domain.beta.kubernetes.io/zone" => ZONE,
        "failure-domain.beta.kubernetes.io/region" => REGION,
        "beta.kubernetes.io/arch" => ARCH,
        "beta.kubernetes.io/os" => OS,
        "beta.kubernetes.io/instance-type" => INSTANCE_TYPE,
        other => match other.strip_prefix("eks.amazonaws.com/") {
            Some(rest) => eks_instance_key(rest).unwrap_or(other),
            None => other,
        },
    }
}

/// EKS Auto Mode's `eks.amazonaws.com/instance-*` labels state the same instance facts, in the
/// same units, as the AWS provider's `karpenter.k8s.aws/instance-*` (EKS user guide,
/// create-node-pool.adoc "EKS Auto Mode Supported Labels"): nodecast reads them as one key, so
/// an Auto Mode NodePool's requirements and a pod's selectors filter the catalog's types.
fn eks_instance_key(rest: &str) -> Option<&'static str> {
    Some(match rest {
        "instance-hypervisor" => "karpenter.k8s.aws/instance-hypervisor",
        "instance-encryption-in-transit-supported" => "karpenter.k8s.aws/instance-encryption-in-transit-supported",
        "instance-category" => "karpenter.k8s.aws/instance-category",
        "instance-generation" => "karpenter.k8s.aws/instance-generation",
        "instance-family" => "karpenter.k8s.aws/instance-family",
        "instance-size" => "karpenter.k8s.aws/instance-size",
        "instance-cpu" => "karpenter.k8s.aws/instance-cpu",
        "instance-cpu-manufacturer" => "karpenter.k8s.aws/instance-cpu-manufacturer",
        "instance-memory" => "karpenter.k8s.aws/instance-memory",
        "instance-ebs-bandwidth" => "karpenter.k8s.aws/instance-ebs-bandwidth",
        "instance-network-bandwidth" => "karpenter.k8s.aws/instance-network-bandwidth",
        "instance-gpu-name" => "karpenter.k8s.aws/instance-gpu-name",
        "instance-gpu-manufacturer" => "karpenter.k8s.aws/instance-gpu-manufacturer",
        "instance-gpu-count" => "karpenter.k8s.aws/instance-gpu-count",
        "instance-gpu-memory" => "karpenter.k8s.aws/instance-gpu-memory",
        "instance-local-nvme" => "karpenter.k8s.aws/instance-local-nvme",
        _ => return None,
    })
}

/// Is `key` a well-known label of the core or the AWS provider?
pub fn is_well_known(key: &str) -> bool {
    CORE_WELL_KNOWN.contains(&key) || AWS_WELL_KNOWN.contains(&key)
}

/// Restricted = not well-known and in a Karpenter domain, or `kubernetes.io/hostname` (R2.10.3).
pub fn is_restricted(key: &str) -> bool {
    if is_well_known(key) {
        return false;
    }
    if key == HOSTNAME {
        return true;
    }
    let domain = key.split_once('/').map(|(d, _)| d).unwrap_or("");
    RESTRICTED_DOMAINS.iter().any(|r| domain == *r || domain.strip_suffix(r).is_some_and(|p| p.ends_with('.')))
}

/// Go `strconv.Atoi` semantics: optional sign and decimal digits, within i64.
pub fn parse_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok()
}

/// Interned strings. Keys and values share one table; a value also caches its integer parse.
///
/// The embedded catalog builds a base table once per process; each request clones it (cheap:
/// strings are `Arc<str>`) and adds its own keys and values.
#[derive(Debug, Clone, Default)]
pub struct Interner {
    ids: HashMap<Arc<str>, u32>,
    strings: Vec<Arc<str>>,
    ints: Vec<Option<i64>>,
}

impl Interner {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.strings.len() as u32;
        let arc: Arc<str> = Arc::from(s);
        self.ids.insert(arc.clone(), id);
        self.strings.push(arc);
        self.ints.push(parse_int(s));
        id
    }

    pub fn get(&self, s: &str) -> Option<u32> {
        self.ids.get(s).copied()
    }

    /// The string of `id`; ids outside the table (the scheduler's private placeholder
    /// hostnames) read as the empty string rather than panicking.
    pub fn str(&self, id: u32) -> &str {
        self.strings.get(id as usize).map(|s| &**s).unwrap_or("")
    }

    pub fn int(&self, id: u32) -> Option<i64> {
        self.ints.get(id as usize).copied().flatten()
    }

    pub fn len(&self) -> usize {
        self.strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restricted_labels() {
        assert!(is_restricted("kubernetes.io/hostname"));
        assert!(is_restricted("karpenter.sh/foo"));
        assert!(is_restricted("sub.karpenter.sh/foo"));
        assert!(is_restricted("karpenter.k8s.aws/ec2nodeclass"));
        assert!(!is_restricted("notkarpenter.sh/x"));
        assert!(!is_restricted("karpenter.sh/capacity-type"));
        assert!(!is_restricted("karpenter.k8s.aws/instance-gpu-name"));
        assert!(!is_restricted("example.com/team"));
        assert!(!is_restricted("kubernetes.io/arch"));
    }

    #[test]
    fn interner_roundtrip() {
        let mut i = Interner::new();
        let a = i.intern("a");
        let n = i.intern("42");
        assert_eq!(i.intern("a"), a);
        assert_eq!(i.str(n), "42");
        assert_eq!(i.int(n), Some(42));
        assert_eq!(i.int(a), None);
        assert_eq!(parse_int("-3"), Some(-3));
        assert_eq!(parse_int("+"), None);
    }
}
