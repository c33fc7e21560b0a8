//! The running-cluster answer's types (`Optimization::running`). Their own file because the
//! answer (`output`) holds them and `running` fills them in.

use serde::Serialize;

/// What the optimum does with an existing node.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeFate {
    /// Karpenter can never disrupt it now (see `reason`): kept with every pod on it.
    Pinned,
    /// Kept: an optimum NodeClaim of its kind holds the pods it runs in the optimum.
    Kept,
    /// Not needed: its pods run elsewhere in the optimum.
    Removed,
}

/// One existing node in the running-cluster optimum.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunningNode {
    /// The Node's (or in-flight NodeClaim's) name.
    pub name: String,
    /// Its NodePool (absent for an unmanaged node).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_pool: Option<String>,
    /// Its instance type, when the node has the label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_type: Option<String>,
    /// $/h of its offering, as `consolidate` prices it (0 when it cannot be priced).
    pub price_per_hour: f64,
    /// Pinned, kept or removed.
    pub fate: NodeFate,
    /// Why a pinned node stays (disruption's blocker, in its words).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For a kept node: the optimum NodeClaim it stands for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimum_node_claim: Option<String>,
    /// Pods running on it now (DaemonSet and mirror pods not counted).
    pub pods: usize,
}

/// What Karpenter's consolidation does from the same cluster (filled in by the cluster from
/// `consolidate` at `now` and the consolidation sequence after it).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KarpenterConsolidation {
    /// Its command at `now`, in Karpenter's words (`consolidate`'s `command`).
    pub command: String,
    /// $/h of the managed nodes once that command has run.
    pub price_per_hour_after: f64,
    /// The end of the pass-after-pass sequence (RFC 3339).
    pub until: String,
    /// Commands carried out up to `until`.
    pub commands: usize,
    /// $/h of the nodes running at `until`.
    pub price_per_hour_at_until: f64,
}

/// The running-cluster side of an `Optimization` (present with `optimize.running`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunningCluster {
    /// The clock (RFC 3339).
    pub now: String,
    /// $/h of the managed nodes now (as `consolidate`'s `pricePerHourBefore`).
    pub current_price_per_hour: f64,
    /// $/h of the optimum's managed nodes: pinned and kept nodes plus the new NodeClaims.
    pub optimum_price_per_hour: f64,
    /// No placement of the running pods on managed nodes costs less.
    pub lower_bound_per_hour: f64,
    /// `optimal`, or `within x % of optimal`.
    pub certificate: String,
    /// `currentPricePerHour − optimumPricePerHour`.
    pub savings_per_hour: f64,
    /// Savings × 730 h.
    pub savings_per_month: f64,
    /// Every existing node: pinned, kept or removed.
    pub nodes: Vec<RunningNode>,
    /// The optimum's NodeClaims that stand for no existing node (launched anew).
    pub new_node_claims: Vec<String>,
    /// Running pods that end on another node than they run on now.
    pub pods_moved: usize,
    /// Pending pods, left out (plain `optimize` is for them).
    pub pending_left_out: Vec<String>,
    /// What Karpenter's consolidation does from here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub karpenter: Option<KarpenterConsolidation>,
}
