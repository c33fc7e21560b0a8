//! Template labels (NP-20..NP-25, RT-01..RT-04) and the label-key rules shared with requirement
//! keys: the CEL domain rules (NP-22..25 / NP-32..35) and Go's `IsRestrictedLabel` (RT-04, RT-06c).

use super::patterns as p;
use super::{q, quote, Ctx, Layer, Provider};
use serde_json::Value;

const KARPENTER_CAPACITY_TYPE: &str = "karpenter.sh/capacity-type";
const KARPENTER_NODEPOOL: &str = "karpenter.sh/nodepool";
const HOSTNAME: &str = "kubernetes.io/hostname";
pub(super) const QNAME_RE: &str =
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$";
const LABEL_VALUE_RE: &str = "^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$";

/// §3.8: keys of the `karpenter.k8s.aws` domain the AWS CRD admits (NP-25, NP-35).
const AWS_ALLOWED: [&str; 29] = [
    "instance-tenancy",
    "capacity-reservation-type",
    "capacity-reservation-id",
    "capacity-reservation-interruptible",
    "ec2nodeclass",
    "instance-encryption-in-transit-supported",
    "nitro-sandbox",
    "instance-category",
    "instance-hypervisor",
    "instance-family",
    "instance-generation",
    "instance-local-nvme",
    "instance-size",
    "instance-cpu",
    "instance-cpu-manufacturer",
    "instance-cpu-sustained-clock-speed-mhz",
    "instance-memory",
    "instance-ebs-bandwidth",
    "instance-network-bandwidth",
    "instance-gpu-name",
    "instance-gpu-manufacturer",
    "instance-gpu-count",
    "instance-gpu-memory",
    "instance-accelerator-name",
    "instance-accelerator-manufacturer",
    "instance-accelerator-count",
    "instance-capability-flex",
    "placement-group-id",
    "placement-group-partition",
];

// The well-known label lists are the crate's (`crate::labels`): the AWS ones include
// `topology.k8s.aws/zone-id`; `karpenter.k8s.aws/ec2nodeclass` is NOT well-known although the
// CEL allow-list admits it — so it passes admission and fails RT-04/RT-06c.
use crate::labels::{AWS_WELL_KNOWN, CORE_WELL_KNOWN};

fn well_known(key: &str, provider: Provider) -> bool {
    CORE_WELL_KNOWN.contains(&key) || (provider == Provider::Aws && AWS_WELL_KNOWN.contains(&key))
}

fn restricted_domains(provider: Provider) -> &'static [&'static str] {
    match provider {
        Provider::Aws => &["karpenter.sh", "karpenter.k8s.aws"],
        Provider::Core => &["karpenter.sh"],
    }
}

/// Go `IsRestrictedLabel` (RT-04, RT-06c). Unlike the CEL rules, the domain must *equal* a
/// restricted domain or be a subdomain of it (`notkarpenter.sh/x` passes here, fails CEL), and a
/// key without `/` has an empty domain.
pub(super) fn runtime_restricted(key: &str, provider: Provider) -> bool {
    if well_known(key, provider) {
        return false;
    }
    let domain = key.split_once('/').map_or("", |(d, _)| d);
    restricted_domains(provider).iter().any(|d| domain == *d || domain.strip_suffix(d).is_some_and(|s| s.ends_with('.'))) || key == HOSTNAME
}

/// The sentence Go uses for a restricted label.
pub(super) fn restricted_sentence(key: &str, provider: Provider) -> String {
    let mut wk: Vec<String> = CORE_WELL_KNOWN.iter().map(|s| s.to_string()).collect();
    if provider == Provider::Aws {
        wk.extend(AWS_WELL_KNOWN.iter().map(|n| n.to_string()));
    }
    wk.sort();
    format!(
        "using label {key} is not allowed as it might interfere with the internal provisioning logic; specify a well known label: [{}], or a custom label that does not use a restricted domain: [{}]",
        wk.join(" "),
        restricted_domains(provider).join(" ")
    )
}

/// Admission key rules shared by labels (NP-22..25) and requirement keys (NP-32..35).
/// `ids` = the four rule IDs in that order. Returns whether any fired.
pub(super) fn admission_key_rules(cx: &mut Ctx, key: &str, path: &str, provider: Provider, ids: [&str; 4]) -> bool {
    // CEL `x.find("^([^/]+)")`: the text before the first `/` (whole key without one; "" for "/x").
    let prefix = key.split('/').next().unwrap_or("");
    let mut fired = false;
    let mut fire = |cx: &mut Ctx, msg: String, expected: &str| {
        cx.adm("restricted-label", path, msg, expected);
        fired = true;
    };
    if key != KARPENTER_CAPACITY_TYPE && key != KARPENTER_NODEPOOL && prefix.ends_with("karpenter.sh") {
        let msg = format!("label domain \"karpenter.sh\" is restricted ({})", ids[0]);
        fire(cx, msg, "a key whose domain does not end with karpenter.sh (karpenter.sh/capacity-type is the one allowed)");
    }
    if key == KARPENTER_NODEPOOL {
        let msg = format!("label \"karpenter.sh/nodepool\" is restricted ({})", ids[1]);
        fire(cx, msg, "any other key; Karpenter sets karpenter.sh/nodepool itself");
    }
    if key == HOSTNAME {
        let msg = format!("label \"kubernetes.io/hostname\" is restricted ({})", ids[2]);
        fire(cx, msg, "any other key; the hostname is set per node");
    }
    if provider == Provider::Aws
        && prefix.ends_with("karpenter.k8s.aws")
        && !key.strip_prefix("karpenter.k8s.aws/").is_some_and(|n| AWS_ALLOWED.contains(&n))
    {
        let msg = format!("label domain \"karpenter.k8s.aws\" is restricted ({})", ids[3]);
        fire(cx, msg, "a karpenter.k8s.aws/ key from the allow-list (instance-family, instance-size, ...) or another domain");
    }
    fired
}

/// NP-20, NP-21, NP-22..25 (admission) and RT-02, RT-04 (runtime). RT-01 and RT-03 are never
/// reported on their own: they test exactly what NP-23 and NP-21 test.
pub(super) fn labels(cx: &mut Ctx, v: Option<&Value>, provider: Provider) {
    let base = "spec.template.metadata.labels";
    let Some(m) = cx.obj(v, base) else { return };
    if !cx.max_items(base, m.len(), 100, "NP-20", "labels") {
        return;
    }
    for (k, v) in m {
        let path = format!("{base}[{k}]");
        if let Some(s) = cx.item_str(v, &path) {
            if s.len() > 63 {
                let msg = format!("Invalid value: {}: Too long: may not be more than 63 bytes (NP-21)", q(s));
                cx.adm("invalid-label", &path, msg, "a label value of at most 63 characters");
            } else if !p::label_value_shape(s) {
                cx.pattern(
                    "invalid-label",
                    &path,
                    s,
                    LABEL_VALUE_RE,
                    "NP-21",
                    "an empty value or alphanumerics, '-', '_', '.' starting and ending with an alphanumeric",
                );
            }
        }
        let restricted = admission_key_rules(cx, k, &path, provider, ["NP-22", "NP-23", "NP-24", "NP-25"]);
        for detail in p::qualified_name_errors(k) {
            let msg = format!("invalid key name {} in labels, {} (RT-02)", q(k), quote(&detail));
            cx.push(
                Layer::NodePoolRuntime,
                "invalid-label",
                &path,
                msg,
                "a qualified name: optional DNS subdomain prefix (<= 253 chars) and '/', then a name of <= 63 alphanumerics, '-', '_', '.'",
            );
        }
        if !restricted && runtime_restricted(k, provider) {
            let msg = format!("invalid key name {} in labels, {} (RT-04)", q(k), restricted_sentence(k, provider));
            cx.push(
                Layer::NodePoolRuntime,
                "restricted-label",
                &path,
                msg,
                "a well-known label or a custom label outside the restricted domains",
            );
        }
    }
}
