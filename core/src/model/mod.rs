//! The normalised domain: what the scheduler and disruption logic work on, lowered from manifests
//! once per request. Labels are interned, requirements are algebra values, resources are vectors.

pub mod instance_type;
pub mod pod;
pub mod reservation;

pub use crate::gates::FeatureGates;
use crate::labels::{Interner, KeyId, ValueId};
use crate::requirements::Requirements;
use crate::resources::{ResourceId, ResourceNames, Resources};
use crate::taints::Taint;
pub use instance_type::{Catalog, InstanceType};
pub use pod::{AffinityTerm, HostPort, LabelSet, Pod, Selector, SpreadConstraint, Unsatisfiable};
use serde::{Deserialize, Serialize};

/// Global Karpenter settings that change decisions (spec §1.7, FORMAT §4).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, from = "SettingsWire")]
pub struct Settings {
    /// Karpenter's `--min-values-policy`.
    pub min_values_policy: MinValuesPolicy,
    /// Karpenter's `--preference-policy`.
    pub preference_policy: PreferencePolicy,
    /// Karpenter's `--feature-gates` (crate::gates): the one home of every gate.
    pub feature_gates: FeatureGates,
    /// Karpenter's `--ignore-dra-requests` (default true). False runs Karpenter's DRA
    /// allocator (crate::dra, scheduling::dra).
    pub ignore_dra_requests: bool,
    /// The AWS provider's `--aws-feature-gates` (crate::gates_aws): DRANVIDIAGPU and DRAEFA
    /// decide which devices a new node offers to the DRA allocator.
    pub aws_feature_gates: crate::gates_aws::AwsFeatureGates,
    /// Core NodeClaim instance-type truncation (R5.20.3).
    pub max_instance_types: usize,
    /// The cloud provider's node repair policies (crate::repair_policies); None: the AWS
    /// provider's v1.15.0 set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repair_policies: Option<Vec<crate::repair_policies::RepairPolicySpec>>,
    /// Karpenter's `--scheduler-config` (crate::scheduler_config): default topology spreads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler_config: Option<crate::scheduler_config::SchedulerConfig>,
    /// Karpenter's `--legacy-node-repair` (default false). With the NodeRepair gate on it
    /// replaces the Repair disruption method by the legacy node.health controller, which
    /// nodecast does not model: `check` refuses that combination.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub legacy_node_repair: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            min_values_policy: MinValuesPolicy::Strict,
            preference_policy: PreferencePolicy::Respect,
            feature_gates: FeatureGates::default(),
            ignore_dra_requests: true,
            aws_feature_gates: Default::default(),
            max_instance_types: 600,
            repair_policies: None,
            scheduler_config: None,
            legacy_node_repair: false,
        }
    }
}

impl Settings {
    /// The settings nodecast cannot follow: a feature gate that is not modelled yet, set away
    /// from Karpenter's default. Located at `settings.featureGates.<Gate>`; a request error
    /// (the question cannot be answered as asked), so the answer is `unusable`.
    pub fn check(&self) -> Result<(), Vec<crate::error::InputError>> {
        let errors: Vec<_> = self
            .feature_gates
            .unmodelled()
            .into_iter()
            .map(|g| {
                crate::error::InputError::new(
                    "unsupported-feature-gate",
                    format!(
                        "feature gate {}={} changes Karpenter's decisions in a way nodecast does not model yet",
                        g.name(),
                        !g.default_value()
                    ),
                )
                .path(format!("settings.featureGates.{}", g.name()))
                .help(format!("leave {} at Karpenter's default ({})", g.name(), g.default_value()))
            })
            .collect::<Vec<_>>();
        let mut errors = errors;
        if let Some(policies) = &self.repair_policies {
            errors.extend(crate::repair_policies::check(policies));
        }
        if let Some(c) = &self.scheduler_config {
            errors.extend(crate::scheduler_config::check(c));
        }
        // Karpenter registers the legacy controller only with the gate on (controllers.go);
        // with it off the flag changes nothing.
        if self.legacy_node_repair && self.feature_gates.node_repair {
            errors.push(
                crate::error::InputError::new(
                    "unsupported-setting",
                    "--legacy-node-repair with NodeRepair=true runs Karpenter's legacy node.health controller in place of the Repair method; nodecast models only the Repair method",
                )
                .path("settings.legacyNodeRepair")
                .help("leave legacyNodeRepair at Karpenter's default (false), or turn the NodeRepair gate off"),
            );
        }
        for g in self.aws_feature_gates.unmodelled() {
            errors.push(
                crate::error::InputError::new(
                    "unsupported-feature-gate",
                    format!("AWS provider feature gate {g}=true changes decisions in a way nodecast does not model"),
                )
                .path(format!("settings.awsFeatureGates.{g}"))
                .help(format!("leave {g} at the provider's default (false)")),
            );
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

/// What a request's `settings` may hold: [`Settings`] plus the spelling of nodecast before the
/// gates had one home (`spotToSpotConsolidation: true`, FORMAT §4), still accepted and folded
/// into `featureGates`.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct SettingsWire {
    min_values_policy: MinValuesPolicy,
    preference_policy: PreferencePolicy,
    feature_gates: FeatureGates,
    ignore_dra_requests: bool,
    aws_feature_gates: crate::gates_aws::AwsFeatureGates,
    max_instance_types: usize,
    repair_policies: Option<Vec<crate::repair_policies::RepairPolicySpec>>,
    scheduler_config: Option<crate::scheduler_config::SchedulerConfig>,
    legacy_node_repair: bool,
    /// Deprecated: `featureGates: {SpotToSpotConsolidation: true}`.
    spot_to_spot_consolidation: Option<bool>,
}

impl Default for SettingsWire {
    fn default() -> Self {
        let s = Settings::default();
        SettingsWire {
            min_values_policy: s.min_values_policy,
            preference_policy: s.preference_policy,
            feature_gates: s.feature_gates,
            ignore_dra_requests: s.ignore_dra_requests,
            aws_feature_gates: s.aws_feature_gates,
            max_instance_types: s.max_instance_types,
            repair_policies: s.repair_policies,
            scheduler_config: s.scheduler_config,
            legacy_node_repair: s.legacy_node_repair,
            spot_to_spot_consolidation: None,
        }
    }
}

impl From<SettingsWire> for Settings {
    fn from(w: SettingsWire) -> Self {
        let mut feature_gates = w.feature_gates;
        if let Some(on) = w.spot_to_spot_consolidation {
            feature_gates.spot_to_spot_consolidation = on;
        }
        Settings {
            min_values_policy: w.min_values_policy,
            preference_policy: w.preference_policy,
            feature_gates,
            ignore_dra_requests: w.ignore_dra_requests,
            aws_feature_gates: w.aws_feature_gates,
            max_instance_types: w.max_instance_types,
            repair_policies: w.repair_policies,
            scheduler_config: w.scheduler_config,
            legacy_node_repair: w.legacy_node_repair,
        }
    }
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
/// Karpenter's `--min-values-policy`: whether a NodeClaim may launch with fewer instance types
/// than a requirement's `minValues` asks.
pub enum MinValuesPolicy {
    /// Refuse the NodeClaim (Karpenter's default).
    #[default]
    Strict,
    /// Relax `minValues` to what is left.
    BestEffort,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
/// Karpenter's `--preference-policy`: whether preferred affinities and ScheduleAnyway spreads
/// constrain scheduling.
pub enum PreferencePolicy {
    /// Honour preferences, relaxing them one at a time (Karpenter's default).
    #[default]
    Respect,
    /// Ignore preferences.
    Ignore,
}

/// A NodePool limit key: a resource or the special `nodes` count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LimitKey {
    Resource(ResourceId),
    Nodes,
}

/// Book `amount` (milli-units) against a remaining limit. A limit held at `i64::MAX` was written
/// larger than milli-units can hold (Karpenter's benchmark sets `memory: 10000000Gi`, 9.5 Pi);
/// Kubernetes compares such quantities exactly, so it stays unreachable here rather than
/// shrinking from the cap, which would make it bind at ~8 Pi where Karpenter's would not.
pub fn book_limit(remaining: &mut i64, amount: i64) {
    if *remaining != i64::MAX {
        *remaining = remaining.saturating_sub(amount);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsolidationPolicy {
    WhenEmpty,
    WhenEmptyOrUnderutilized,
    /// Like WhenEmptyOrUnderutilized, but every consolidation move must pass a
    /// savings-versus-disruption score (disruption/balanced.rs).
    Balanced,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BudgetNodes {
    Count(u32),
    Percent(u32),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    pub nodes: BudgetNodes,
    /// Empty = every reason.
    pub reasons: Vec<String>,
    pub schedule: Option<String>,
    /// Seconds.
    pub duration: Option<i64>,
    /// `schedule` and `duration` parsed once, at lowering (the evaluator never re-parses).
    pub window: crate::cron::BudgetWindow,
}

impl Budget {
    /// A budget, its schedule parsed now.
    pub fn new(nodes: BudgetNodes, reasons: Vec<String>, schedule: Option<String>, duration: Option<i64>) -> Budget {
        let window = crate::cron::BudgetWindow::new(schedule.as_deref(), duration);
        Budget { nodes, reasons, schedule, duration, window }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disruption {
    pub policy: ConsolidationPolicy,
    /// None = Never.
    pub consolidate_after: Option<i64>,
    pub budgets: Vec<Budget>,
}

/// A NodePool with its template already combined (R1.2).
#[derive(Debug, Clone)]
pub struct NodePool {
    pub name: String,
    pub weight: i32,
    /// Template labels, plus `karpenter.sh/nodepool` and the node class label (R1.2.1).
    pub labels: LabelSet,
    /// Template requirements: NodePool requirements ∩ one `In` per label (R1.2.2).
    pub requirements: Requirements,
    pub taints: Vec<Taint>,
    pub startup_taints: Vec<Taint>,
    pub limits: Vec<(LimitKey, i64)>,
    pub node_class: Option<String>,
    /// Index into `Model::node_classes`, when the NodePool's class was supplied.
    pub node_class_index: Option<usize>,
    /// Seconds; None = Never.
    pub expire_after: Option<i64>,
    /// `spec.template.spec.terminationGracePeriod` in seconds: how long a draining node waits
    /// for its pods before it is terminated anyway (None = waits for ever).
    pub termination_grace_period: Option<i64>,
    pub disruption: Disruption,
    /// `spec.template.spec.requirements` alone (without the template labels `requirements`
    /// folds in): what a NodeClaim's labels must stay compatible with (requirement drift).
    pub spec_requirements: Requirements,
    /// Per key with an `In` requirement of at most 8 values, those values in the order
    /// Karpenter's Go set holds them (the order listed; a second requirement on the key
    /// intersects as Go does, walking the smaller set). Go iterates such a set from a random
    /// one of 8 slots, wrapping, so the first of this order is the likeliest first of every
    /// walk, and the likeliest winner of a tie Karpenter breaks by walking it
    /// (docs/karpenter-fidelity.md section 56). Sorted by key.
    pub listed_order: Vec<(KeyId, Vec<ValueId>)>,
    /// Karpenter's hash of `spec.template` (`karpenter.sh/nodepool-hash`, see `gohash`), or
    /// why nodecast cannot compute it.
    pub template_hash: Result<String, String>,
    /// Static NodePools (`spec.replicas`) are ignored by dynamic provisioning (R5.3.1).
    pub is_static: bool,
    /// `spec.replicas` of a static NodePool (`static_pools`).
    pub replicas: Option<i64>,
    /// False when the NodePool (or its EC2NodeClass) fails runtime validation: not Ready, so
    /// provisioning skips it (R1.1.2); disruption still sees it.
    pub ready: bool,
    /// Index of the document that defined it, for diagnostics.
    pub document: usize,
    /// The input (file) of that document and the path prefix inside it (`items[3]` in a
    /// `kind: List`), so findings made after lowering, when the documents are gone (they are
    /// streamed), still say which file to edit.
    pub source: Option<String>,
    pub prefix: String,
    /// The NodePool's `nodeClassRef` is EKS Auto Mode's NodeClass (`lower::auto_mode`).
    pub auto_mode: bool,
}

impl NodePool {
    /// The values of the NodePool's `In` requirement on `key` in Go's set order (see
    /// `listed_order`); empty when there is none.
    pub fn listed_order(&self, key: KeyId) -> &[ValueId] {
        match self.listed_order.binary_search_by_key(&key, |(k, _)| *k) {
            Ok(i) => &self.listed_order[i].1,
            Err(_) => &[],
        }
    }
}

/// What an EC2NodeClass changes about the instances launched with it (AWS catalog only).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeClass {
    pub name: String,
    pub ami_family: String,
    /// Root volume size in bytes (from blockDeviceMappings), if set.
    pub root_volume_bytes: Option<i64>,
    pub raid0: bool,
    pub max_pods: Option<i64>,
    pub pods_per_core: Option<i64>,
    /// kubelet kubeReserved / systemReserved / evictionHard memory overrides, in milli-bytes.
    pub kube_reserved: Vec<(ResourceId, i64)>,
    pub system_reserved: Vec<(ResourceId, i64)>,
    pub eviction_hard_memory: Option<i64>,
    /// `spec.capacityReservationSelectorTerms`.
    pub reservation_terms: Vec<reservation::ReservationTerm>,
    /// The zones of `status.subnets` (the subnets Karpenter's EC2NodeClass controller resolved
    /// from `subnetSelectorTerms`; the AWS provider's `ZoneInfo`), sorted and deduplicated. The
    /// provider offers instance types only there; `None` when the input has no such status.
    pub status_zones: Option<Vec<String>>,
    /// An EKS Auto Mode NodeClass (`eks.amazonaws.com/v1`): at most 110 pods a node, and the
    /// local NVMe as ephemeral storage when it is larger than the configured size.
    pub auto_mode: bool,
}

/// An existing node (a Node, a NodeClaim, or both), as the scheduler and disruption see it.
#[derive(Debug, Clone)]
pub struct ExistingNode {
    pub name: String,
    /// Labels including `kubernetes.io/hostname` (defaulted to the name).
    pub labels: LabelSet,
    pub taints: Vec<Taint>,
    pub allocatable: Resources,
    pub capacity: Resources,
    pub nodepool: Option<String>,
    pub instance_type: Option<String>,
    pub zone: Option<String>,
    pub capacity_type: Option<String>,
    /// Unix seconds.
    pub created: Option<i64>,
    pub initialized: bool,
    /// A NodeClaim's `Initialized` condition, when it has one (True or not).
    pub initialized_condition: Option<bool>,
    pub ready: bool,
    pub managed: bool,
    /// A NodeClaim without a registered Node yet.
    pub in_flight: bool,
    /// A NodeClaim without `status.providerID`: not launched yet (the static deprovisioning
    /// controller deletes these first). False for a Node.
    pub unlaunched: bool,
    pub do_not_disrupt: bool,
    pub marked_for_deletion: bool,
    pub nodeclaim_name: Option<String>,
    pub expire_after: Option<Option<i64>>,
    pub last_pod_event: Option<i64>,
    pub initialized_at: Option<i64>,
    pub startup_taints: Vec<Taint>,
    /// The NodeClaim's `karpenter.sh/nodepool-hash` and `karpenter.sh/nodepool-hash-version`
    /// annotations, when it has both.
    pub nodepool_hash: Option<(String, String)>,
    /// The NodeClaim's `Drifted` condition when True: its reason and lastTransitionTime.
    pub drifted: Option<(String, Option<i64>)>,
    /// The NodeClaim sets `spec.terminationGracePeriod`: drift then drains it whatever its
    /// pods' do-not-disrupt annotations and PDBs say (disruption/types.go, NewCandidate).
    pub has_termination_grace_period: bool,
    /// That `spec.terminationGracePeriod` in seconds, when nodecast can read it: repair drains
    /// for the shorter of it and its policy's bound (repair.go, effectiveDrainBound).
    pub termination_grace_period: Option<i64>,
    /// The Node's `status.conditions` (type, status, reason, lastTransitionTime), in input
    /// order: what Karpenter's repair policies match (disruption/repair.rs).
    pub conditions: Vec<NodeCondition>,
    /// The Node's `karpenter.sh/do-not-repair: "true"` annotation (repair's own veto).
    pub do_not_repair: bool,
    /// Registered to Karpenter (statenode.go, Registered): a managed Node with the
    /// `karpenter.sh/registered=true` label. Repair takes an uninitialized node only when it
    /// is registered: until then the liveness controller's registration timeout owns it.
    pub registered: bool,
    /// The NodeClaim's `Rebooting` condition is True: a repair reboot is in flight. Every
    /// method skips the node and it counts as disrupting in every budget (statenode.go,
    /// RebootInProgress; disruption/helpers.go, NodePoolStatsFromNodes).
    pub rebooting: bool,
    /// When the NodeClaim's `Rebooting` condition turned False (the last reboot finished):
    /// repair measures every toleration from no earlier than this (statenode.go,
    /// GetRepairResult).
    pub reboot_finished: Option<i64>,
    /// Until when (Unix seconds, exclusive) a provisioning pass's nomination holds the node out
    /// of every disruption method but expiration (statenode.go, Nominate / Nominated). Only the
    /// simulator sets it: a nomination is the running controller's memory, in no object an input
    /// holds (docs/karpenter-fidelity.md, sections 50 and 54).
    pub nominated_until: Option<i64>,
    pub document: usize,
    /// The input the Node came from, for located errors.
    pub source: Option<String>,
}

/// One entry of a Node's `status.conditions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeCondition {
    pub type_: String,
    /// `True`, `False` or `Unknown` (the API server accepts any string; policies match exactly).
    pub status: String,
    pub reason: String,
    /// Unix seconds; None when the input has none (Karpenter reads Go's zero time then).
    pub last_transition: Option<i64>,
}

/// A DaemonSet's representative pod (R1.5.1).
#[derive(Debug, Clone)]
pub struct DaemonSet {
    pub name: String,
    pub namespace: String,
    pub pod: Pod,
}

/// A PodDisruptionBudget.
#[derive(Debug, Clone)]
pub struct Pdb {
    pub name: String,
    pub namespace: String,
    pub selector: Selector,
    pub min_available: Option<IntOrPercent>,
    pub max_unavailable: Option<IntOrPercent>,
    pub disruptions_allowed: Option<i64>,
    /// `unhealthyPodEvictionPolicy: AlwaysAllow`: pods whose Ready condition is False may be
    /// evicted whatever the budget says (pdb.go, isEvictable).
    pub always_allow_unhealthy: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntOrPercent {
    Int(i64),
    Percent(i64),
}

/// An object nodecast read but does not model.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    /// The input it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// 0-based document index within the input.
    pub document: usize,
    /// The object's kind.
    pub kind: String,
    /// The object's name.
    pub name: String,
    /// Why it is not modelled.
    pub reason: String,
}

/// The status Karpenter writes on a NodeOverlay, and what it changed here.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OverlayStatus {
    /// The NodeOverlay's name.
    pub name: String,
    pub weight: i32,
    /// The `ValidationSucceeded` condition's status.
    pub validation_succeeded: bool,
    /// `Conflict` or `RuntimeValidation` when the condition is false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Instance types whose capacity or an offering's price this overlay set.
    pub instance_types: usize,
}

/// What a Job (or a CronJob's job template) asks of the Job controller beyond its first pods:
/// the simulator runs waves of `parallelism` pods until `completions` succeeded
/// (pkg/controller/job in Kubernetes: active = min(parallelism, completions − succeeded)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobRun {
    pub namespace: String,
    /// `Job/<name>` or `CronJob/<name>`, as on the pods' `workload`.
    pub workload: String,
    pub parallelism: i64,
    /// Completions still to reach (the spec's less the pods the input shows succeeded);
    /// `None`: the Job is done when any pod succeeds (no new pods are created).
    pub completions: Option<i64>,
    /// Failed pods allowed before the Job fails (`spec.backoffLimit`, default 6), less the
    /// failures the input already shows.
    pub backoff_limit: i64,
}

/// Well-known key ids, resolved once.
#[derive(Debug, Clone, Copy)]
pub struct Keys {
    pub zone: KeyId,
    pub capacity_type: KeyId,
    pub instance_type: KeyId,
    pub hostname: KeyId,
    pub nodepool: KeyId,
    pub arch: KeyId,
    pub os: KeyId,
    pub region: KeyId,
    pub registered: KeyId,
    pub initialized: KeyId,
    pub on_demand: ValueId,
    pub spot: ValueId,
    pub reserved: ValueId,
    pub true_value: ValueId,
    /// `karpenter.k8s.aws/capacity-reservation-{id,type,interruptible}`.
    pub reservation_id: KeyId,
    pub reservation_type: KeyId,
    pub reservation_interruptible: KeyId,
    /// `karpenter.k8s.aws/ec2nodeclass`: scopes reserved offerings to the classes selecting them.
    pub node_class: KeyId,
}

/// Everything one request is about, lowered. Crate-private: outside the crate only the
/// project's own tools see it, through `internal` (its fields are documented where they matter).
#[allow(missing_docs)]
#[derive(Debug, Clone)]
pub struct Model {
    pub interner: Interner,
    pub resources: ResourceNames,
    pub keys: Keys,
    pub catalog: Catalog,
    pub settings: Settings,
    pub node_pools: Vec<NodePool>,
    pub node_classes: Vec<NodeClass>,
    /// Every pod: pending ones and ones bound to existing nodes.
    pub pods: Vec<Pod>,
    pub daemonsets: Vec<DaemonSet>,
    pub nodes: Vec<ExistingNode>,
    pub pdbs: Vec<Pdb>,
    pub skipped: Vec<Skipped>,
    /// NodeOverlays applied to the catalog (NodeOverlay gate on), with their status.
    pub node_overlays: Vec<OverlayStatus>,
    /// Capacity reservations of the input (`describe-capacity-reservations`), sorted by id.
    pub reservations: Vec<reservation::Reservation>,
    /// Per EC2NodeClass with selector terms, what became of each reservation.
    pub reservation_selections: Vec<reservation::ClassSelection>,
    /// The ReservedCapacity feature gate the reservations were resolved under.
    pub reservation_gate: bool,
    /// The pass time (Unix seconds) the reservations were resolved at, when one was given.
    pub reservation_time: Option<i64>,
    /// The NodeClaims the static provisioning controller creates now (StaticCapacity gate on;
    /// `static_pools`), each also in `nodes` as an in-flight NodeClaim when it launches.
    pub static_launches: Vec<StaticLaunch>,
    /// The CapacityBuffers (CapacityBuffer gate on), each with its virtual pods in `pods`.
    pub capacity_buffers: Vec<BufferInfo>,
    /// Nodes (by name) the last provisioning pass put CapacityBuffer virtual pods on: Karpenter's
    /// `bufferPodCounts` (pkg/controllers/state/cluster.go), which keeps emptiness from deleting
    /// a warm spare node. Only the simulator runs passes one after another, so only it fills this.
    pub buffer_hosts: std::collections::BTreeSet<String>,
    /// Jobs' completions and backoff limits, for the simulator's waves.
    pub jobs: Vec<JobRun>,
    /// The resource.k8s.io objects, when they count (`--ignore-dra-requests=false`).
    pub dra: crate::dra::Dra,
    /// The repair policies node repair reads (`settings.repairPolicies`, else the AWS
    /// provider's), compiled once per request.
    pub repair_policies: crate::repair_policies::PolicySet,
}

/// A CapacityBuffer as lowering resolved it (`lower::buffers`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferInfo {
    /// `namespace/name`.
    pub key: String,
    /// Virtual pods it asks for (Karpenter's `status.replicas`).
    pub replicas: i64,
    /// Its virtual pods: indices into `Model::pods`.
    pub pods: std::ops::Range<usize>,
    /// Why it is not ReadyForProvisioning (a reference the input does not resolve), if so.
    pub not_ready: Option<String>,
    /// Its count follows a workload's replicas (`scalableRef` with `percentage`): Karpenter
    /// recomputes it as the workload scales, which the simulator does not follow.
    pub follows_workload: bool,
}

impl ExistingNode {
    /// When consolidateAfter starts counting (D-5.4): the last pod event, else initialization,
    /// else creation.
    pub fn consolidation_reference(&self) -> Option<i64> {
        self.last_pod_event.or(self.initialized_at).or(self.created)
    }

    /// A recent provisioning pass nominated it for a pending pod and the window is still open.
    pub fn nominated(&self, now: i64) -> bool {
        self.nominated_until.is_some_and(|u| u > now)
    }
}

impl Keys {
    /// The three capacity-reservation label keys (id, type, interruptible).
    pub fn reservation_keys(&self) -> [KeyId; 3] {
        [self.reservation_id, self.reservation_type, self.reservation_interruptible]
    }

    /// One of the three reservation label keys?
    pub fn is_reservation_key(&self, k: KeyId) -> bool {
        self.reservation_keys().contains(&k)
    }
}

#[allow(missing_docs)] // crate-private; see `Model`
impl Model {
    /// May a pod leave `key` undefined on the NodeClaim side (R2.7.3)? Yes for well-known keys:
    /// the catalog's instance-type label keys and `karpenter.sh/nodepool` (FORMAT §2.3).
    /// A value for each custom key `reqs` constrains that a launched NodeClaim of pool `np`
    /// gets as a label (Karpenter writes one allowed value of every requirement that is not
    /// well-known, restricted, `karpenter.sh/` or already a template label).
    pub fn custom_requirement_values(&self, np: &NodePool, reqs: &Requirements) -> Vec<(KeyId, String)> {
        let mut out = Vec::new();
        for (k, r) in reqs.iter() {
            let key = self.interner.str(k);
            if k == self.keys.hostname
                || self.is_well_known(k)
                || crate::labels::is_restricted(key)
                || key.starts_with("karpenter.sh/")
                || np.labels.get(k).is_some()
            {
                continue;
            }
            if let Some(v) = r.any_value(&self.interner) {
                out.push((k, v));
            }
        }
        out
    }

    pub fn is_well_known(&self, key: KeyId) -> bool {
        key == self.keys.nodepool || self.catalog.is_label_key(key)
    }

    /// NodePool indices in the order Karpenter tries them: weight descending, then name
    /// descending (R5.3.2).
    pub fn pool_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.node_pools.len()).collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&self.node_pools[a], &self.node_pools[b]);
            y.weight.cmp(&x.weight).then_with(|| y.name.cmp(&x.name))
        });
        order
    }

    /// NodePools dynamic provisioning may use (R5.3.1).
    pub fn provisionable(&self, pool: usize) -> bool {
        let np = &self.node_pools[pool];
        !np.is_static && np.ready
    }

    pub fn key_name(&self, key: KeyId) -> &str {
        self.interner.str(key)
    }
}

/// What one new NodeClaim launches as (scheduling::launch chooses it).
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub it: u32,
    pub capacity_type: ValueId,
    pub zone: ValueId,
    pub price: f64,
    /// The reservation launched into (capacity type `reserved`).
    pub reservation: Option<u32>,
}

/// One NodeClaim the static provisioning controller creates for a static NodePool.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticLaunch {
    /// The NodePool (index into `Model::node_pools`).
    pub pool: usize,
    /// Its NodeClaim name, `<nodepool>-<n>` (numbered past the names the input already uses).
    pub name: String,
    /// The in-flight node it became (index into `Model::nodes`); None when nothing launches.
    pub node: Option<usize>,
    /// What is launched; None when the pool's requirements leave no launchable offering.
    pub launch: Option<Launch>,
}
