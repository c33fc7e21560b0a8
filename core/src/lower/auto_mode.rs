//! EKS Auto Mode: NodePools whose `nodeClassRef` is `eks.amazonaws.com` / `NodeClass`, the
//! NodeClass itself, and the built-in `general-purpose` and `system` NodePools. Auto Mode runs a
//! Karpenter AWS manages, so its NodePools schedule as Karpenter's; what differs are facts the
//! EKS user guide states (automode/*.adoc of awsdocs/amazon-eks-user-guide), in nodecast's words:
//! - nodes carry `eks.amazonaws.com/compute-type: auto` and the `eks.amazonaws.com/instance-*`
//!   labels (the same facts as `karpenter.k8s.aws/instance-*`; `labels::normalize_key` reads one
//!   as the other) — create-node-pool.adoc, "EKS Auto Mode Supported Labels";
//! - only the supported instance families, more than 1 vCPU, no nano/micro/small size, Linux
//!   only — automode-learn-instances.adoc, "EKS Auto Mode supported instance reference";
//! - a NodePool without `expireAfter` expires nodes after 336h, and one without
//!   `terminationGracePeriod` gets 24h — create-node-pool.adoc, "Disruption" and "Termination
//!   Grace Period";
//! - at most 110 pods a node, Bottlerocket nodes, 80Gi ephemeral storage unless the NodeClass
//!   says otherwise, and the local NVMe used for it when it is larger — create-node-class.adoc,
//!   automode-learn-instances.adoc "Considerations";
//! - the built-in NodePools (set-builtin-node-pools.adoc): on-demand only, categories c/m/r of
//!   generation 5 or newer; `system` is tainted `CriticalAddonsOnly` and takes amd64 and arm64,
//!   `general-purpose` amd64 only. Enabling either provisions the `default` NodeClass.
//!
//! The cluster says which built-in NodePools are enabled: `aws eks describe-cluster` output
//! (`cluster.computeConfig`) or a bare `{computeConfig: {enabled, nodePools}}` among the inputs.

use crate::labels::{self, Interner};
use crate::manifest::reader::{At, Sink};
use crate::model::NodeClass;
use crate::requirements::{Requirement, Requirements};
use serde_json::{json, Value};

/// The API group of Auto Mode's NodeClass.
pub const GROUP: &str = "eks.amazonaws.com";
pub const KIND: &str = "NodeClass";
/// The label every Auto Mode node carries (associate-workload.adoc).
pub const COMPUTE_TYPE: &str = "eks.amazonaws.com/compute-type";
/// Default `ephemeralStorage.size` (create-node-class.adoc: 80Gi).
pub const DEFAULT_EPHEMERAL_BYTES: i64 = 80 * 1024 * 1024 * 1024;
/// Default `expireAfter` and `terminationGracePeriod` of an Auto Mode NodePool, seconds.
pub const DEFAULT_EXPIRE_AFTER: i64 = 336 * 3600;
pub const DEFAULT_TERMINATION_GRACE: i64 = 24 * 3600;
/// The built-in NodePools and the NodeClass they use.
pub const BUILTIN_POOLS: [&str; 2] = ["general-purpose", "system"];
pub const DEFAULT_CLASS: &str = "default";

/// The instance families Auto Mode launches (automode-learn-instances.adoc, as of the guide's
/// version read on 2026-11-28), as `karpenter.k8s.aws/instance-family` values.
pub const FAMILIES: &[&str] = &[
    // C
    "c8id", "c8i", "c8i-flex", "c8gd", "c8gn", "c8g", "c8a", "c8gb", "c7a", "c7g", "c7gn", "c7gd", "c7i", "c7i-flex", "c6a", "c6g", "c6i",
    "c6gn", "c6id", "c6in", "c6gd", "c5", "c5a", "c5d", "c5ad", "c5n", "c4", // M
    "m8id", "m8i", "m8i-flex", "m8a", "m8azn", "m8gn", "m8gb", "m8gd", "m8g", "m7i", "m7a", "m7g", "m7gd", "m7i-flex", "m6a", "m6i",
    "m6in", "m6g", "m6idn", "m6id", "m6gd", "m5", "m5a", "m5ad", "m5n", "m5dn", "m5d", "m5zn", "m4", // R
    "r8id", "r8i", "r8i-flex", "r8gn", "r8gb", "r8gd", "r8g", "r8a", "r7a", "r7iz", "r7gd", "r7i", "r7g", "r6a", "r6i", "r6id", "r6in",
    "r6idn", "r6g", "r6gd", "r5", "r5n", "r5a", "r5dn", "r5b", "r5ad", "r5d", "r4", // T
    "t4g", "t3", "t3a", "t2", // Z/X
    "z1d", "x8aedz", "x8g", "x8i", "x2gd", // I/D
    "i8ge", "i7i", "i8g", "i7ie", "i4g", "i4i", "i3", "i3en", "is4gen", "d3", "d3en", "im4gn", // P/G/Inf/Trn
    "p6-b200", "p6-b300", "p5", "p5e", "p5en", "p4d", "p4de", "p3dn", "g7e", "g6", "gr6", "g6e", "g5g", "g5", "g4dn", "g4ad", "inf2",
    "inf1", "trn1", "trn1n", "trn2", // HPC/X2
    "hpc8a", "x2iezn", "x2iedn", "x2idn",
];

/// Is `(group, kind)` of a `nodeClassRef` Auto Mode's NodeClass?
pub fn is_auto_ref(group: &str, kind: &str) -> bool {
    group == GROUP && kind == KIND
}

/// `aws eks describe-cluster` output (`{cluster: {computeConfig: ...}}`) or a bare
/// `{computeConfig: ...}`: a document without kind that says whether Auto Mode is on.
pub fn is_cluster_document(v: &Value) -> bool {
    let kindless = v.get("kind").is_none() && v.get("apiVersion").is_none();
    kindless && (v.get("computeConfig").is_some() || v.get("cluster").and_then(|c| c.get("computeConfig")).is_some())
}

/// The built-in NodePools a cluster document enables (located errors for bad fields).
pub fn read_cluster(root: &At, sink: &mut Sink) -> Vec<&'static str> {
    let cluster = root.get("cluster");
    let Some(cc) = cluster.as_ref().unwrap_or(root).get("computeConfig") else {
        return Vec::new();
    };
    if !cc.v.is_object() {
        sink.wrong_type(&cc, "an object {enabled: true, nodePools: [general-purpose, system]}");
        return Vec::new();
    }
    let enabled = cc.get("enabled").and_then(|e| sink.bool(&e)).unwrap_or(false);
    let mut pools = Vec::new();
    if let Some(list) = cc.get("nodePools") {
        if !list.v.is_array() {
            sink.wrong_type(&list, "a list of built-in NodePool names");
            return Vec::new();
        }
        for item in sink.list(&list) {
            let Some(name) = sink.scalar(&item) else { continue };
            match BUILTIN_POOLS.iter().find(|p| **p == name) {
                Some(p) if !pools.contains(p) => pools.push(*p),
                Some(_) => sink.error(
                    &item,
                    "duplicate",
                    format!("built-in NodePool {name:?} listed twice"),
                    "each of general-purpose, system at most once",
                ),
                None => sink.error(
                    &item,
                    "unknown-builtin-nodepool",
                    format!("{name:?} is not a built-in NodePool of EKS Auto Mode"),
                    "general-purpose or system",
                ),
            }
        }
    }
    if !enabled && !pools.is_empty() {
        let at = cc.get("enabled").unwrap_or(cc);
        sink.error(&at, "auto-mode-disabled", "computeConfig lists built-in NodePools but Auto Mode is not enabled", "enabled: true");
        return Vec::new();
    }
    pools
}

/// The built-in NodePool `name` as the object EKS creates (set-builtin-node-pools.adoc).
pub fn builtin_pool(name: &str) -> Value {
    let system = name == "system";
    let arch: &[&str] = if system { &["amd64", "arm64"] } else { &["amd64"] };
    let mut spec = json!({
        "nodeClassRef": {"group": GROUP, "kind": KIND, "name": DEFAULT_CLASS},
        "expireAfter": "336h",
        "terminationGracePeriod": "24h0m0s",
        "requirements": [
            {"key": labels::CAPACITY_TYPE, "operator": "In", "values": [labels::ON_DEMAND]},
            {"key": "eks.amazonaws.com/instance-category", "operator": "In", "values": ["c", "m", "r"]},
            {"key": "eks.amazonaws.com/instance-generation", "operator": "Gt", "values": ["4"]},
            {"key": labels::ARCH, "operator": "In", "values": arch},
            {"key": labels::OS, "operator": "In", "values": ["linux"]},
        ],
    });
    if system {
        spec["taints"] = json!([{"key": "CriticalAddonsOnly", "effect": "NoSchedule"}]);
    }
    json!({
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": name},
        "spec": {
            "disruption": {"budgets": [{"nodes": "10%"}], "consolidateAfter": "30s", "consolidationPolicy": "WhenEmptyOrUnderutilized"},
            "template": {"metadata": {}, "spec": spec},
        },
    })
}

/// The `default` NodeClass EKS provisions with the built-in NodePools.
pub fn default_class() -> NodeClass {
    NodeClass {
        name: DEFAULT_CLASS.to_string(),
        ami_family: "Bottlerocket".to_string(),
        root_volume_bytes: Some(DEFAULT_EPHEMERAL_BYTES),
        auto_mode: true,
        ..Default::default()
    }
}

/// An Auto Mode NodeClass document's effect on its nodes.
pub fn node_class(name: String, spec: Option<&At>, sink: &mut Sink) -> NodeClass {
    let mut nc = default_class();
    nc.name = name;
    let storage = spec.and_then(|s| s.get("ephemeralStorage"));
    if let Some(at) = storage.as_ref().and_then(|e| e.get("size")) {
        // Admission checked the quantity and its range (validate::eks_nodeclass).
        if let Some(b) = sink.scalar(&at).and_then(|s| crate::validate::ephemeral_bytes(&s)) {
            nc.root_volume_bytes = Some(b);
        }
    }
    nc
}

/// Auto Mode's instance restrictions as requirements of the NodePool's template: the supported
/// families, more than one vCPU, no nano/micro/small size, Linux.
pub fn restrict(reqs: &mut Requirements, interner: &mut Interner) {
    let family: Vec<u32> = FAMILIES.iter().map(|f| interner.intern(f)).collect();
    let small: Vec<u32> = ["nano", "micro", "small"].iter().map(|s| interner.intern(s)).collect();
    let one = [interner.intern("1")];
    let linux = [interner.intern("linux")];
    let adds = [
        ("karpenter.k8s.aws/instance-family", Requirement::in_values(family)),
        ("karpenter.k8s.aws/instance-size", Requirement::from_operator(crate::requirements::Operator::NotIn, &small, interner)),
        ("karpenter.k8s.aws/instance-cpu", Requirement::from_operator(crate::requirements::Operator::Gt, &one, interner)),
        (labels::OS, Requirement::in_values(linux)),
    ];
    for (key, req) in adds {
        let k = interner.intern(key);
        reqs.add(k, req, interner);
    }
}
