//! The typed answers: a provisioning plan, a disruption decision, and their parts. They are
//! what the typed API ([`crate::Cluster`]) returns and what the JSON layer ([`crate::json`])
//! serialises unchanged, so their serde names are the wire format (`apiVersion: nodecast/v1`).

pub use crate::model::Skipped;
use crate::reason::{DisruptionReason, HintOutcome, Method, ReasonCode};
use indexmap::IndexMap;
use serde::Serialize;
use std::sync::Arc;

/// A provisioning plan.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// New NodeClaims the provisioner launches for the pending pods, in creation order.
    pub node_claims: Vec<NodeClaimOut>,
    /// Nodes already in the cluster and the pending pods this pass binds to them.
    pub existing_nodes: Vec<ExistingNodeOut>,
    /// Pending pods no NodePool and no existing node can take, with the reason per NodePool.
    pub unschedulable: Vec<UnschedulableOut>,
    /// Every NodePool with its weight, NodeClaims launched and limits after this plan.
    pub node_pools: Vec<NodePoolOut>,
    /// $/h of all new NodeClaims, each at the price of its chosen offering plus its EKS Auto
    /// Mode fee when a fee table is given (`autoModeFeePerHour`).
    pub total_price_per_hour: f64,
    /// The EKS Auto Mode fees within `totalPricePerHour`; absent without a fee table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_mode_fee_per_hour: Option<f64>,
    /// `totalPricePerHour` × 730 h, to the cent (computed once, in `figures`).
    pub total_price_per_month: f64,
    /// The plan in one line, as the CLI prints it first (computed once, in `figures`).
    pub summary: String,
    /// Objects the loader recognised but does not model (kind/name and why).
    pub skipped: Vec<Skipped>,
    /// Non-fatal findings about the input (unsupported fields, defaults assumed).
    pub warnings: Vec<Warning>,
    /// NodeOverlays applied to the catalog (feature gate NodeOverlay on), with the
    /// `ValidationSucceeded` status Karpenter writes on each; absent when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node_overlays: Vec<crate::model::OverlayStatus>,
    /// Every capacity reservation of the input after this pass (docs/reservations.md); absent
    /// without reservations.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reservations: Vec<ReservationOut>,
    /// Per EC2NodeClass with `capacityReservationSelectorTerms`: the reservations it selected
    /// and why the others were not (like the EC2NodeClass status).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub node_class_reservations: Vec<NodeClassReservationsOut>,
    /// $/h the selected On-Demand Capacity Reservations bill whether used or not (on-demand
    /// price × TotalInstanceCount); capacity blocks are prepaid and their price is not in the
    /// describe-capacity-reservations output, so they are not in it. Absent without reservations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reserved_committed_price_per_hour: Option<f64>,
    /// With a pass time (`now`): running NodeClaims whose capacity reservation ended by then,
    /// and what the AWS provider did to them before this pass — a capacity block's are deleted
    /// (their pods are pending again and in this plan), an ODCR's run on as on-demand
    /// (docs/reservations.md). Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reservation_changes: Vec<ReservationChangeOut>,
    /// NodeClaims Karpenter's static provisioning controller creates for static NodePools
    /// (`spec.replicas`, StaticCapacity gate on), with the pending pods this pass places on
    /// them; absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub static_node_claims: Vec<StaticNodeClaimOut>,
    /// NodeClaims Karpenter's static deprovisioning controller deletes now, a static NodePool
    /// (StaticCapacity gate on) having more than `spec.replicas`; their pods are pending again
    /// and in this plan. Absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub static_deprovisioned: Vec<StaticDeprovisionOut>,
    /// The CapacityBuffers (CapacityBuffer gate on) and where this pass put their virtual
    /// pods (which are also in `nodeClaims`, `existingNodes` and `unschedulable`, named
    /// `capacity-buffer-<buffer>-<i>`); absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub capacity_buffers: Vec<CapacityBufferOut>,
}

/// A capacity reservation after the pass: how much of it this plan uses.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReservationOut {
    /// `CapacityReservationId`.
    pub id: String,
    /// The instance type it reserves.
    pub instance_type: String,
    /// Its availability zone.
    pub zone: String,
    /// `default` (an ODCR) or `capacity-block` (as EC2 prints it).
    pub reservation_type: String,
    /// EC2's `Interruptible` (an interruptible ODCR).
    pub interruptible: bool,
    /// EC2's `State`.
    pub state: String,
    /// `TotalInstanceCount`.
    pub total: i64,
    /// `AvailableInstanceCount` before the pass.
    pub available: i64,
    /// NodeClaims of this plan launched into it.
    pub used: i64,
    /// `available − used`.
    pub remaining: i64,
    /// EC2NodeClasses that selected it (empty: none did, see `nodeClassReservations`).
    pub node_classes: Vec<String>,
    /// Offered to this pass (selected, not expiring, its type and zone in the catalog).
    pub offered: bool,
    /// Why it is or is not offered, in one line.
    pub message: String,
    /// `EndDate` (RFC 3339), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_date: Option<String>,
    /// Its use depends on the pass time (it has an EndDate) and none was given (`--now`).
    pub depends_on_time: bool,
    /// $/h it bills whether used or not: on-demand price × TotalInstanceCount for an ODCR;
    /// absent for a capacity block (prepaid; the price is not in the AWS output).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub committed_price_per_hour: Option<f64>,
}

/// What one EC2NodeClass's `capacityReservationSelectorTerms` selected.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeClassReservationsOut {
    /// The EC2NodeClass.
    pub node_class: String,
    /// Reservation ids selected (the EC2NodeClass status would list them), by id.
    pub selected: Vec<String>,
    /// The other reservations of the input and why each was not selected or gives no offering.
    pub not_selected: Vec<ReservationSkipOut>,
}

/// A reservation an EC2NodeClass did not get (or got without an offering).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReservationSkipOut {
    /// `CapacityReservationId`.
    pub id: String,
    /// `no-term-matches`, `not-active`, `ended`, `unsupported-match-criteria`,
    /// `unsupported-type`, `expiring`, `unknown-instance-type`, `zone-not-offered`, `gate-off`.
    pub reason: String,
    /// The reason in one line.
    pub message: String,
}

/// A CapacityBuffer in a plan: how many virtual pods it asks for and where they went, with
/// the `Provisioning` condition Karpenter writes for it (docs/feature-gates.md).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CapacityBufferOut {
    /// `namespace/name`.
    pub name: String,
    /// Virtual pods it asks for (Karpenter's `status.replicas`).
    pub replicas: i64,
    /// Virtual pods placed on nodes that exist (or static / in-flight NodeClaims).
    pub on_existing_nodes: usize,
    /// Virtual pods that need new NodeClaims in this pass.
    pub on_new_node_claims: usize,
    /// Virtual pods no NodePool can take.
    pub unschedulable: usize,
    /// The `Provisioning` condition's reason: `FitsExistingCapacity`, `RequiresNewCapacity`,
    /// `BufferEmpty` or `NotReadyForProvisioning`.
    pub provisioning: String,
    /// Why the buffer is not ReadyForProvisioning, when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A NodeClaim a static NodePool keeps whatever the demand (docs/feature-gates.md).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StaticNodeClaimOut {
    /// `<nodepool>-<n>`, numbered past the node names the input already uses.
    pub name: String,
    /// The static NodePool.
    pub node_pool: String,
    /// The instance type nodecast expects EC2 to launch (the cheapest the NodePool allows);
    /// absent when the NodePool's requirements leave none.
    pub instance_type: Option<String>,
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::reason::CapacityType>"))]
    /// `on-demand`, `spot` or `reserved`: the offering's capacity type.
    pub capacity_type: Option<String>,
    /// The availability zone of the chosen offering.
    pub zone: Option<String>,
    /// $/h of the chosen offering.
    pub price_per_hour: Option<f64>,
    /// Pending pods this pass places on it, as `namespace/name`.
    pub pods: Vec<String>,
}

/// A NodeClaim the static deprovisioning controller deletes (docs/feature-gates.md).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StaticDeprovisionOut {
    /// The node's name (the NodeClaim's, when it has no Node yet).
    pub name: String,
    /// The static NodePool.
    pub node_pool: String,
    /// Why the controller took it: `not launched yet`, `empty` or `lowest disruption cost`.
    pub why: String,
    /// Its pods that this pass provisions for again, as `namespace/name`.
    pub pods: Vec<String>,
    /// Nodes of the same rank Karpenter could have taken instead (its order among them is a Go
    /// map's or an unstable sort's); empty when the choice is forced.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tied_with: Vec<String>,
}

/// One NodeClaim the provisioner would create: where it lands, what it costs and which pods it takes.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeClaimOut {
    /// `<nodepool>-<n>`, numbered per NodePool in creation order.
    pub name: String,
    /// The NodePool the NodeClaim is created from.
    pub node_pool: String,
    /// The instance type nodecast expects EC2 to launch (the cheapest option); absent when none fits.
    pub instance_type: Option<String>,
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::reason::CapacityType>"))]
    /// `on-demand`, `spot` or `reserved`: the offering's capacity type.
    pub capacity_type: Option<String>,
    /// The availability zone of the chosen offering.
    pub zone: Option<String>,
    /// $/h of the chosen offering (the catalog's price for type, zone and capacity type).
    pub price_per_hour: Option<f64>,
    /// Where that price comes from (`user`, `list`, `us-east-1-list`, `factor`, `reservation`,
    /// `overlay`); present when the request supplies prices (price documents or catalog
    /// `prices`), absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_source: Option<crate::model::instance_type::PriceSource>,
    /// EKS Auto Mode's management fee ($/h) of the launched type, from the inputs' fee table
    /// (docs/prices-and-places.md), on top of `pricePerHour`; absent outside Auto Mode NodePools
    /// or without a fee for the type. The choice itself is by EC2 price.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_mode_fee_per_hour: Option<f64>,
    /// Cheapest first, as Karpenter writes them on the NodeClaim (at most 600). Shared by
    /// the NodeClaims with the same list (`Arc`: serialised as the list itself).
    pub instance_type_options: Arc<Vec<String>>,
    /// Pending pods bound to this NodeClaim, as `namespace/name`.
    pub pods: Vec<String>,
    /// DaemonSet pods the node will also run, as `namespace/name`; their requests count in `requests`.
    pub daemon_sets: Vec<String>,
    /// Pods + daemons on the launched type. This and the next two are shared by the
    /// NodeClaims with the same values (`Arc`: serialised as the map itself); with many
    /// NodeClaims of few shapes, rendering each quantity once was a third of `plan::render`.
    pub requests: Arc<IndexMap<String, String>>,
    /// What the launched type offers to pods: capacity minus kube/system reserved and eviction threshold.
    pub allocatable: Arc<IndexMap<String, String>>,
    /// requests / allocatable per resource, 0..1.
    pub utilization: Arc<IndexMap<String, f64>>,
    /// Labels the node will carry (template labels, custom requirement values, launch labels).
    /// Shared by the NodeClaims that carry the same labels.
    pub labels: Arc<IndexMap<String, String>>,
    /// Requirements written on the NodeClaim (without the instance-type list). Shared by the
    /// NodeClaims with the same requirements.
    pub requirements: Arc<Vec<String>>,
    /// GPUs and other accelerators of the launched type (computed once, in `figures`);
    /// empty when it has none. Shared by the NodeClaims with the same allocatable and labels.
    pub accelerators: Arc<Vec<Accelerator>>,
    /// The capacity reservation launched into (capacity type `reserved`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reservation_id: Option<String>,
    /// `default` (ODCR) or `capacity-block`, with `reservationId`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reservation_type: Option<String>,
    /// Where Karpenter itself is not deterministic: values of this NodeClaim that real
    /// Karpenter picks among equal candidates in Go map order, so reruns differ. nodecast's
    /// value is one of them. Absent when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ties: Vec<DomainTieOut>,
}

/// A choice Karpenter makes at random among equally good values (a zone with the least
/// count for a topology spread, the first zone for a pod affinity with no pod placed yet).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomainTieOut {
    /// The label key, e.g. `topology.kubernetes.io/zone`.
    pub key: String,
    /// nodecast's value: Karpenter's likeliest pick, the candidate the NodePool's requirement
    /// lists first (Go walks a small set from where it was first filled most often), else the
    /// first candidate by name.
    pub value: String,
    /// Every value a Karpenter run can pick, sorted; `value` is one of them.
    pub candidates: Vec<String>,
    /// One line for people, e.g. "the zone is a tie among us-east-1a, us-east-1b in Karpenter
    /// (Go map order decides); nodecast shows us-east-1a".
    pub message: String,
}

/// A node already in the cluster and the pending pods this plan binds to it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExistingNodeOut {
    /// The Node's name.
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The NodePool that owns the node (its `karpenter.sh/nodepool` label); absent for unmanaged nodes.
    pub node_pool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The node's `node.kubernetes.io/instance-type` label, when it has one.
    pub instance_type: Option<String>,
    /// Pending pods this plan binds to the node, as `namespace/name`.
    pub pods: Vec<String>,
}

/// A pending pod that stays pending, and why per NodePool.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnschedulableOut {
    /// The pod, as `namespace/name`.
    pub pod: String,
    /// The most telling reason code over all NodePools (FORMAT §7.1).
    pub code: ReasonCode,
    /// Every reason the pod fits nowhere, one per NodePool (and one for existing nodes).
    pub reasons: Vec<Reason>,
    /// Checked fix hints, one per NodePool reason nodecast could find a change for (absent
    /// when there is none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<Hint>,
}

/// A change that may let a pending pod onto a NodePool, checked by re-planning with it applied.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hint {
    /// The reason code the change answers (`taint-not-tolerated`, `limit-exceeded`,
    /// `requirement-conflict`).
    pub code: ReasonCode,
    /// The NodePool the change is for.
    pub node_pool: String,
    /// The change, in the manifest's words.
    pub change: String,
    /// True when the re-plan with the change schedules the pod on this NodePool.
    pub verified: bool,
    /// What the re-plan did: `verified` (the pod lands on this NodePool), `lands-elsewhere`
    /// (it schedules, but on another NodePool or node) or `not-enough-alone` (it stays pending).
    pub outcome: HintOutcome,
    /// What the re-plan did, e.g. "verified: re-planned with this change, default/a goes on a
    /// new NodeClaim of NodePool gpu".
    pub check: String,
}

/// One reason a pod does not fit a NodePool or a node cannot be disrupted.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reason {
    /// The reason code (FORMAT §7), stable across releases.
    pub code: ReasonCode,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The NodePool the reason is about; absent when it is not about one.
    pub node_pool: Option<String>,
    /// The reason for people, naming the objects and values involved.
    pub message: String,
}

/// A NodePool as this plan leaves it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodePoolOut {
    /// The NodePool's name.
    pub name: String,
    /// `spec.weight`: Karpenter tries NodePools with higher weight first (default 0).
    pub weight: i32,
    /// How many NodeClaims this plan launches from the pool.
    pub new_node_claims: usize,
    /// Per limited resource: limit, used (existing nodes + launched NodeClaims), remaining.
    pub limits: IndexMap<String, LimitOut>,
    /// Why the NodePool took no part in the pass (static, not Ready, or its requirements leave
    /// no instance type with an available offering); absent for a NodePool that took part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unusable: Option<String>,
}

/// One of a NodePool's `spec.limits`, as Kubernetes quantities.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LimitOut {
    /// The limit as written in `spec.limits`.
    pub limit: String,
    /// Capacity the pool already has: existing nodes plus the NodeClaims this plan launches.
    pub used: String,
    /// `limit − used`: what the pool may still launch before the limit stops it.
    pub remaining: String,
}

/// A non-fatal finding about the input.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Warning {
    /// Stable warning code, kebab-case.
    pub code: String,
    /// The finding for people.
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The object it is about, e.g. `NodePool/default`; absent when it is about the whole input.
    pub object: Option<String>,
}

/// One kind of accelerator on a NodeClaim: the resource and how many the node has, with what
/// the instance type's labels say about the device (AWS catalog facts; absent in a custom
/// catalog that does not label them).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Accelerator {
    /// The extended resource, e.g. `nvidia.com/gpu`, `aws.amazon.com/neuron`.
    pub resource: String,
    /// Devices on the node (its allocatable of `resource`).
    pub count: i64,
    /// The device, e.g. `a10g`, `l4`, `inferentia2` (`instance-gpu-name` or
    /// `instance-accelerator-name`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// e.g. `nvidia`, `aws` (`instance-gpu-manufacturer` or `instance-accelerator-manufacturer`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manufacturer: Option<String>,
    /// Memory of one device in MiB (`instance-gpu-memory`; GPUs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<i64>,
}

/// A disruption decision: what Karpenter's disruption controller would do now, and why every
/// other node stays.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// The clock the decision was made at (RFC 3339).
    pub now: String,
    /// `none`, `delete` or `replace`.
    pub decision: Action,
    /// `expired`, `empty`, `drifted` or `underutilized` (absent for `none`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<DisruptionReason>,
    /// `expiration`, `repair`, `emptiness`, `drift`, `multi-node-consolidation` or `single-node-consolidation`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<Method>,
    /// The command in Karpenter's words, e.g. `delete 2 nodes (a, b)` or
    /// `replace 1 node (a) with 1 spot node from [g4dn.xlarge, ...]`.
    pub command: String,
    /// The nodes the command removes, by name.
    pub disrupted_nodes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The node a `replace` launches; absent for `none` and `delete`.
    pub replacement: Option<Replacement>,
    /// Further nodes a drift replacement launches (drift, unlike consolidation, may need
    /// several); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more_replacements: Vec<Replacement>,
    /// $/h of the managed nodes before and after the command (EC2 prices, plus EKS Auto Mode's
    /// fee for Auto Mode nodes when a fee table is given; the decision is by EC2 price).
    pub price_per_hour_before: f64,
    /// $/h of the managed nodes once the command has run.
    pub price_per_hour_after: f64,
    /// (before − after) × 730 h, to the cent (computed once, in `figures`).
    pub savings_per_month: f64,
    /// The decision in one line, as the CLI prints it first (computed once, in `figures`).
    pub summary: String,
    /// The command's Balanced scores, one per Balanced pool among the disrupted nodes (empty
    /// when none is Balanced, and for emptiness and expiration, which are never scored).
    pub scores: Vec<BalancedScore>,
    /// Where Karpenter's own pick is not determined: candidates that tie on its sort key
    /// (price ÷ disruption cost) are ordered arbitrarily, so it may pick others than nodecast.
    pub ties: Vec<TieOut>,
    /// Every candidate node with its verdict: disrupted, or the reasons it stays.
    pub nodes: Vec<NodeVerdict>,
    /// Disruption budgets per NodePool at `now`.
    pub node_pools: Vec<PoolBudgetOut>,
    /// Objects the loader recognised but does not model (kind/name and why).
    pub skipped: Vec<Skipped>,
    /// Non-fatal findings about the input (unsupported fields, defaults assumed).
    pub warnings: Vec<Warning>,
    /// With `until`: every command the disruption controller carries out from `now` to `until`,
    /// pass after pass (docs/consolidate-until.md). Absent without `until`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequence: Option<ConsolidationSequence>,
    /// NodeClaims whose capacity reservation ended by `now`, and what the AWS provider does to
    /// them outside the disruption controller: a capacity block's are deleted from 40 minutes
    /// before its end, an ODCR's run on as on-demand (docs/reservations.md). Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reservation_changes: Vec<ReservationChangeOut>,
    /// A drift or repair `delete` that is Karpenter's terminate-first command (RFC #3203,
    /// gates TerminateFirstDrift / TerminateFirstRepair): the node's reserved slot is the only
    /// place its pods fit, so it goes before its replacement, which provisioning then launches
    /// into the freed slot. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminate_first: Option<TerminateFirst>,
}

/// Why a terminate-first command could not stage its replacement first (Karpenter's
/// `TerminateFirstReason`, disruption/types.go).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TerminateFirst {
    /// The replacement has no reserved capacity to launch into but the candidate's own slot.
    NoReservedCapacity,
    /// A static NodePool at its node limit cannot launch the replacement beside the node.
    StaticAtLimit,
}

/// A node a reservation's end changes at `now` (`Decision.reservationChanges`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReservationChangeOut {
    /// The node.
    pub node: String,
    /// The capacity reservation it ran in.
    pub reservation_id: String,
    /// `default` (an ODCR) or `capacity-block`.
    pub reservation_type: String,
    /// `deleted` (a capacity block expiring) or `on-demand` (an ODCR ended).
    pub change: crate::vocab::ReservationChange,
    /// Why, in Karpenter's terms.
    pub message: String,
}

/// The commands Karpenter's disruption controller carries out between `now` and `until`: its
/// passes replayed by the simulator (budgets, consolidateAfter, replacements' launch and
/// start-up, drains) on the cluster as given, with no new workload arriving.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsolidationSequence {
    /// The end of the sequence (RFC 3339).
    pub until: String,
    /// Each command, in the order the controller decides them.
    pub steps: Vec<ConsolidationStep>,
    /// Nodes (existing and launched replacements) still running at `until`, by name.
    pub nodes_at_until: Vec<String>,
    /// $/h of those nodes.
    pub price_per_hour_at_until: f64,
    /// Pods still pending at `until` (none, unless a command left one without room).
    pub pending_pods_at_until: usize,
    /// Findings of the replay (e.g. a setting it assumed).
    pub warnings: Vec<Warning>,
}

/// One command of a consolidation sequence.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsolidationStep {
    /// When the command was carried out (RFC 3339): for emptiness and consolidation 15 s after
    /// the pass that decided it, once Karpenter has validated it again; for the others when it
    /// was decided.
    pub time: String,
    /// Seconds after `now`.
    pub after_seconds: i64,
    /// Seconds after `now` of the pass that decided the command (`afterSeconds` − 15 for a
    /// validated command, `afterSeconds` for the others).
    pub decided_after_seconds: i64,
    /// `expired`, `empty` or `underutilized`.
    pub reason: DisruptionReason,
    /// The command in Karpenter's words, as a single `consolidate` answer gives it.
    pub command: String,
    /// The nodes it removes.
    pub disrupted_nodes: Vec<String>,
    /// The replacement NodeClaim launched for it (`name (instance type, capacity type)`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    /// When the last of its nodes was gone (RFC 3339); absent when one still runs at `until`
    /// (a replacement starting, a drain waiting on its grace period).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed: Option<String>,
}

/// What the disruption controller does now.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Nothing: every node stays.
    #[default]
    None,
    /// Delete the disrupted nodes; their pods fit elsewhere.
    Delete,
    /// Replace the disrupted nodes with one cheaper node.
    Replace,
}

impl Action {
    /// The wire name: `none`, `delete`, `replace`.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::None => "none",
            Action::Delete => "delete",
            Action::Replace => "replace",
        }
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for Action {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// The node a `replace` launches.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Replacement {
    /// The NodePool the replacement is created from.
    pub node_pool: String,
    /// The instance type nodecast expects EC2 to launch (the cheapest option).
    pub instance_type: Option<String>,
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::reason::CapacityType>"))]
    /// `on-demand`, `spot` or `reserved`: the offering's capacity type.
    pub capacity_type: Option<String>,
    /// The availability zone of the chosen offering.
    pub zone: Option<String>,
    /// $/h of the chosen offering.
    pub price_per_hour: Option<f64>,
    /// Options that survive the price filter, cheapest first.
    pub instance_type_options: Vec<String>,
    /// Pods moved onto the replacement, as `namespace/name`.
    pub pods: Vec<String>,
    /// The chosen launch as indices into the model (not on the wire): the simulator launches it
    /// without looking the pool, type, zone and capacity type up by name again.
    #[serde(skip)]
    pub launch: Option<ChosenLaunch>,
}

/// A replacement's launch as the scheduler chose it: NodePool index and the launch (instance
/// type index, interned zone and capacity type, price) of the model the decision was made on.
#[derive(Debug, Clone, PartialEq)]
pub struct ChosenLaunch {
    /// Index into `Model::node_pools`.
    pub pool: usize,
    /// Instance type, zone, capacity type and price.
    pub launch: crate::scheduling::launch::Launch,
}

/// One node's verdict in a disruption decision.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeVerdict {
    /// The Node's name.
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The NodePool that owns the node; absent for unmanaged nodes.
    pub node_pool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The node's instance type label, when it has one.
    pub instance_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::reason::CapacityType>"))]
    /// `on-demand`, `spot` or `reserved` (the node's `karpenter.sh/capacity-type` label).
    pub capacity_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// $/h of the node's offering in the catalog, when known.
    pub price_per_hour: Option<f64>,
    /// How many reschedulable pods run on the node (DaemonSet pods excluded).
    pub pods: usize,
    /// True when the command removes this node.
    pub disrupted: bool,
    /// Why the node stays (FORMAT §7.2 codes), first the one that decided.
    pub reasons: Vec<Reason>,
    /// The Balanced score of the move tried for this node (single-node consolidation, or the
    /// best case when that already fails), or of the command that disrupts it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<BalancedScore>,
    /// Why Karpenter calls the node's NodeClaim drifted, when it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drift: Option<DriftOut>,
    /// The repair policy the node's conditions match (AWS provider's RepairPolicies), when one
    /// does: present whether or not the NodeRepair gate is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repair: Option<RepairOut>,
}

/// An unhealthy node: the repair policy Karpenter selects for it (node/health/policy.go).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RepairOut {
    /// The Node condition type, e.g. `AcceleratedHardwareReady` or `Ready`.
    pub condition: String,
    /// Its status: `False` or `Unknown`.
    pub status: String,
    /// Its reason, as the Node reports it (may be empty).
    pub reason: String,
    /// The policy's action: `replace` (the AWS provider's reboot policies replace too unless its
    /// RebootForRepair gate is on, which nodecast does not model).
    pub action: String,
    /// The policy's toleration in seconds: how long the condition must hold.
    pub toleration_seconds: i64,
    /// When the policy becomes (or became) eligible: max(lastTransitionTime, creation) +
    /// toleration, RFC 3339.
    pub eligible_at: String,
    /// Whether `eligibleAt` is at or before `now`.
    pub eligible: bool,
    /// The drain bound the repair uses: the shortest policy termination grace period of the
    /// eligible matches, capped by the NodeClaim's own, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination_grace_period_seconds: Option<i64>,
}

/// A drifted NodeClaim: Karpenter's drift reason and what changed.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DriftOut {
    /// `NodePoolDrifted`, `RequirementsDrifted`, or the reason the NodeClaim's `Drifted`
    /// condition reports (e.g. the cloud provider's).
    pub reason: String,
    /// What drifted, for people.
    pub message: String,
}

/// One Balanced pool's score of one move (spec disruption.md §16).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BalancedScore {
    /// The Balanced NodePool scored.
    pub node_pool: String,
    /// `delete`, `replace`, or `delete (best case)` for the pre-check before simulating.
    #[serde(rename = "move")]
    pub scored_move: crate::vocab::ScoredMove,
    /// savingsFraction ÷ disruptionFraction (0 when nothing is saved).
    pub score: f64,
    /// 1 / k: the move passes when score ≥ threshold.
    pub threshold: f64,
    /// Balanced's constant k (2 in Karpenter v1.15.0); the threshold is 1 / k.
    pub k: i32,
    /// True when score ≥ threshold, so Karpenter allows the move for this pool.
    pub approved: bool,
    /// $/h this pool saves: the removed nodes' price minus the replacement's cheapest offering,
    /// split by price share when the move spans pools.
    pub savings_per_hour: f64,
    /// Summed reschedule disruption cost of the pool's removed nodes.
    pub disruption_cost: f64,
    /// `savingsPerHour ÷ poolCostPerHour`.
    pub savings_fraction: f64,
    /// `disruptionCost ÷ poolDisruptionCost`.
    pub disruption_fraction: f64,
    /// The pool's hourly cost the savings are divided by.
    pub pool_cost_per_hour: f64,
    /// The pool's summed disruption cost over all its nodes.
    pub pool_disruption_cost: f64,
    /// Where `poolCostPerHour` comes from.
    pub pool_cost_source: String,
}

/// Candidates among which Karpenter's choice is arbitrary.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TieOut {
    /// How many of `nodes` the command takes.
    pub count: usize,
    /// The nodes Karpenter may pick from (sorted by name), nodecast's pick among them.
    pub nodes: Vec<String>,
    /// e.g. `Karpenter may pick any of: node-x, node-y (equal price ÷ disruption cost 0.1)`.
    pub message: String,
}

/// A NodePool's disruption budgets at the decision's clock.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolBudgetOut {
    /// The NodePool's name.
    pub name: String,
    /// Nodes the pool owns (the base the budget percentages apply to).
    pub nodes: usize,
    /// Disruptions allowed now per reason (after subtracting nodes already disrupting); absent
    /// = unlimited.
    pub allowed: IndexMap<String, Option<i64>>,
}
