//! The NodePool hash controller's effect on the NodeClaims' template hashes
//! (pkg/controllers/nodepool/hash/controller.go), applied once every object is read.
//!
//! Drift compares a NodeClaim's `karpenter.sh/nodepool-hash` with its NodePool's only when both
//! carry the same `karpenter.sh/nodepool-hash-version` (nodeclaim/disruption/drift.go,
//! areStaticFieldsDrifted). The hash controller runs before that from the moment a NodePool
//! exists; for a NodePool whose own hash-version annotation is not the current one (absent in a
//! hand-written NodePool, older after an upgrade) it first moves each NodeClaim of the pool that
//! is not at the current version to it: a NodeClaim with no `Drifted` condition at all (True or
//! not) also gets the pool's current hash (so it is not drifted), one with a `Drifted`
//! condition keeps the hash it has (a breaking hash change cannot tell whether it is still
//! drifted, so it is compared with its old hash). A pool already at the current version
//! leaves its NodeClaims as they are: one at an older version is then never NodePoolDrifted.

use crate::gohash::NODEPOOL_HASH_VERSION;
use crate::model::{ExistingNode, NodePool};

/// A NodeClaim's hash annotations as written, and whether it has a `Drifted` condition.
#[derive(Debug, Clone, Default)]
pub(super) struct ClaimHash {
    /// The Node name the NodeClaim is merged under (its `status.nodeName`, else its name).
    pub node: String,
    /// The NodeClaim's `status.providerID`, when it has one (`merge_claims` joins by it).
    pub provider_id: Option<String>,
    pub hash: Option<String>,
    pub version: Option<String>,
    pub has_drifted_condition: bool,
}

/// `nodes[i].nodepool_hash` after the hash controller ran: `(hash, version)` when the NodeClaim
/// then carries both. `pool_versions`: each NodePool's `karpenter.sh/nodepool-hash-version`
/// annotation as written.
pub(super) fn apply(nodes: &mut [ExistingNode], claims: &[ClaimHash], pools: &[NodePool], pool_versions: &[(String, Option<String>)]) {
    for c in claims {
        let Some(node) = nodes.iter_mut().find(|n| n.name == c.node && n.nodeclaim_name.is_some()) else {
            continue;
        };
        let (mut hash, mut version) = (c.hash.clone(), c.version.clone());
        let pool = node.nodepool.as_deref().and_then(|p| pools.iter().find(|np| np.name == p));
        if let Some(pool) = pool {
            let pool_version = pool_versions.iter().find(|(n, _)| n == &pool.name).and_then(|(_, v)| v.as_deref());
            if pool_version != Some(NODEPOOL_HASH_VERSION) && version.as_deref() != Some(NODEPOOL_HASH_VERSION) {
                version = Some(NODEPOOL_HASH_VERSION.to_string());
                if !c.has_drifted_condition {
                    // An uncomputable template hash leaves the claim without one: never
                    // NodePoolDrifted, as nodecast cannot compare it anyway.
                    hash = pool.template_hash.clone().ok();
                }
            }
        }
        node.nodepool_hash = hash.zip(version);
    }
}
