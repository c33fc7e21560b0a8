// Generated from the Rust answer types by `make schema` (core/src/schema): do not edit.
// The same definitions as schema/answers.schema.json (`apiVersion: nodecast/v1`).

/**
 * One kind of accelerator on a NodeClaim: the resource and how many the node has, with what
 * the instance type's labels say about the device (AWS catalog facts; absent in a custom
 * catalog that does not label them).
 */
export interface Accelerator {
  /** Devices on the node (its allocatable of `resource`). */
  count: number;
  /** e.g. `nvidia`, `aws` (`instance-gpu-manufacturer` or `instance-accelerator-manufacturer`). */
  manufacturer?: string;
  /** Memory of one device in MiB (`instance-gpu-memory`; GPUs only). */
  memoryMib?: number;
  /**
   * The device, e.g. `a10g`, `l4`, `inferentia2` (`instance-gpu-name` or
   * `instance-accelerator-name`).
   */
  name?: string;
  /** The extended resource, e.g. `nvidia.com/gpu`, `aws.amazon.com/neuron`. */
  resource: string;
}

/** The answer of `advise`. */
export interface Advice {
  /** The verified edits, most saving first (at most `top`). */
  advice: Advised[];
  /**
   * The edit of rank `advise.apply` written into the user's input files (comments and
   * everything else kept); absent when not asked.
   */
  applied?: Applied;
  /** Karpenter − optimum, $/h (what the edits try to recover). */
  gapPerHour: number;
  /** $/h of Karpenter's plan for the inputs as given. */
  karpenterPricePerHour: number;
  /** What advise does not search, and what `optimize` did not optimise. */
  notes: string[];
  /** `optimal`, or `within x % of optimal`: how far `optimumPricePerHour` may be above the true optimum. */
  optimumCertificate: string;
  /** $/h of `optimize`'s cheapest NodeClaims for the same pods, and its certificate. */
  optimumPricePerHour: number;
  /** How many edits were generated, verified and sorted into each outcome. */
  stats: AdviseStats;
  /** Non-fatal findings about the input. */
  warnings: Warning[];
}

/** The answer of kind `Advice`: a success with the `Advice` fields, or a failure. */
export type AdviceAnswer = (Advice & { apiVersion: 'nodecast/v1'; kind: 'Advice'; status: 'success'; }) | AdviceFailure;

/** No answer: every problem found, located. */
export interface AdviceFailure {
  apiVersion: 'nodecast/v1';
  /** `invalid`: Kubernetes or Karpenter would reject the input (CLI exit 1, Python `ValidationError`); `unusable`: nodecast cannot read or answer it (exit 2, `InputError`). */
  errorClass: 'invalid' | 'unusable';
  errors: InputError[];
  kind: 'Advice';
  status: 'failure';
}

/** How much `advise` searched and what became of each edit. */
export interface AdviseStats {
  /** The bound on single edits verified per call. */
  candidateLimit: number;
  /** Single edits generated, each verified by one load and one plan (less `unverified`). */
  candidates: number;
  /** Edits whose plan is strictly cheaper with no further pod pending. */
  cheaper: number;
  /** Pairs of the best single edits tried together. */
  combinations: number;
  /** Cheaper edits whose plan equals a simpler edit's (not answered twice). */
  duplicates: number;
  /** Edits the validation refuses (not answered). */
  invalid: number;
  /** Edits that are cheaper only because they leave pods pending (not answered). */
  leavePodsPending: number;
  /** Edits whose plan is not cheaper. */
  notCheaper: number;
  /**
   * Edits generated but not verified: the call's `timeBudgetSeconds` ran out first (the
   * answer is the best of those verified; absent when every edit was verified).
   */
  unverified?: number;
}

/** One verified NodePool edit that makes Karpenter's plan cheaper. */
export interface Advised {
  /** What else changes: capacity type, existing nodes taking more pods, pods scheduled now. */
  alsoChanges: string[];
  /** A unified diff of each edited NodePool's manifest (as YAML). */
  diff: string;
  /** The field edits, per NodePool. */
  edits: EditOut[];
  /**
   * Share of the gap to the optimum this edit recovers, percent (absent when there is no
   * gap; above 100 when the edit opens offerings the optimum could not use, such as spot).
   */
  gapRecoveredPercent?: number;
  /**
   * `gpu-count-bound`, `cpu-bound`, `size-exclusion`, `family-exclusion`, `type-exclusion`,
   * `family-allow-list`, `generation-bound`, `type-allow-list`, `allow-spot`, `weight`,
   * `split`, `allow-reserved`, `select-reservation`, or `combined`.
   */
  kind: string;
  /**
   * A unified patch against the input files themselves (comments kept; `patch -p0` or
   * `git apply -p0` applies it); absent when an edited NodePool did not come from a named
   * YAML input (a request object, a `kind: List` member, JSON).
   */
  patch?: string;
  /** Karpenter's plan with the edit applied. */
  plan: PlanSummary;
  /** Position in the answer: lowest risk first, then most saving (docs/advise.md). */
  rank: number;
  /** The risk the edit adds (spot for pods that must not be interrupted, few fallbacks). */
  risk: Risk;
  /** $/h the edited plan saves against Karpenter's plan for the inputs as given. */
  savingsPerHour: number;
  /** `savingsPerHour` × 730 h, to the cent. */
  savingsPerMonth: number;
  /** The edit in one line for people, e.g. which families it excludes. */
  title: string;
}

/** An advised edit written into the input files. */
export interface Applied {
  /** Each edited input file, whole. */
  files: EditedFile[];
  /** The same as a unified patch (paths as given: `patch -p0`, `git apply -p0`). */
  patch: string;
  /** The rank of the edit applied. */
  rank: number;
}

/** One workload an HPA scales, or one with a demand series (`autoscaling` of a Simulation). */
export interface AutoscaledWorkload {
  /** Demand units one ready replica serves (the series' capacityPerReplica); the figures below need it. */
  capacityPerReplica?: number;
  /** Σ demand × time, in unit-hours. */
  demandUnitHours?: number;
  /** The pods' share of their nodes' price (pod GPUs ÷ node GPUs × $/h × running time), USD. */
  gpuCostUsd: number;
  /** Σ pod GPUs × running time, in hours. */
  gpuHours: number;
  /** Its HorizontalPodAutoscaler, `namespace/name`; absent when the trace's scale events drive it. */
  hpa?: string;
  /** Jobs the ScaledJob created. */
  jobsCreated?: number;
  /** Of those, Jobs that failed (backoffLimit exceeded). */
  jobsFailed?: number;
  /** Of those, Jobs that completed. */
  jobsSucceeded?: number;
  /**
   * The KEDA ScaledObject that generated the HPA, or the ScaledJob (then `workload` is
   * `ScaledJob/namespace/name` and replicas count its unfinished Jobs), `Kind/namespace/name`.
   */
  keda?: string;
  /** Times KEDA activated the workload from zero (or its idle count). */
  kedaActivations?: number;
  /** Times KEDA deactivated it to zero (or its idle count) after the cooldown. */
  kedaDeactivations?: number;
  /** The HPA's maxReplicas. */
  maxReplicas?: number;
  /** The HPA's minReplicas. */
  minReplicas?: number;
  /** Most replicas at once. */
  peakReplicas: number;
  /** Seconds from a pod's start to Ready (the trace's readinessDelay or the readinessProbe's initialDelaySeconds). */
  readinessDelaySeconds: number;
  /** Σ ready replicas × time, in hours. */
  readyReplicaHours: number;
  /** Σ replicas × time, in hours (every pod, pending or running). */
  replicaHours: number;
  /** Times the HPA changed the replicas. */
  rescales: number;
  /** Demand rises the ready capacity covered before the end. */
  risesCovered?: number;
  /** Demand rises it never covered before the end. */
  risesUncovered?: number;
  /** Per rise of the demand: seconds until the ready capacity covered it (rises never covered are left out). */
  scaleUpSeconds?: Percentiles;
  /** Seconds with fewer ready pods than the replicas asked for. */
  secondsBelowDesired: number;
  /** Seconds when the demand was above the ready capacity. */
  secondsShort?: number;
  /** `100 × served ÷ demand`. */
  servedPercent?: number;
  /** Σ min(demand, ready × capacity) × time, in unit-hours. */
  servedUnitHours?: number;
  /** Σ max(0, demand − ready × capacity) × time, in unit-hours. */
  unservedUnitHours?: number;
  /** The workload, `Kind/namespace/name` (its trace instance name when it never ran). */
  workload: string;
}

/** One Balanced pool's score of one move (spec disruption.md §16). */
export interface BalancedScore {
  /** True when score ≥ threshold, so Karpenter allows the move for this pool. */
  approved: boolean;
  /** Summed reschedule disruption cost of the pool's removed nodes. */
  disruptionCost: number;
  /** `disruptionCost ÷ poolDisruptionCost`. */
  disruptionFraction: number;
  /** Balanced's constant k (2 in Karpenter v1.15.0); the threshold is 1 / k. */
  k: number;
  /** `delete`, `replace`, or `delete (best case)` for the pre-check before simulating. */
  move: ScoredMove;
  /** The Balanced NodePool scored. */
  nodePool: string;
  /** The pool's hourly cost the savings are divided by. */
  poolCostPerHour: number;
  /** Where `poolCostPerHour` comes from. */
  poolCostSource: string;
  /** The pool's summed disruption cost over all its nodes. */
  poolDisruptionCost: number;
  /** `savingsPerHour ÷ poolCostPerHour`. */
  savingsFraction: number;
  /**
   * $/h this pool saves: the removed nodes' price minus the replacement's cheapest offering,
   * split by price share when the move spans pools.
   */
  savingsPerHour: number;
  /** savingsFraction ÷ disruptionFraction (0 when nothing is saved). */
  score: number;
  /** 1 / k: the move passes when score ≥ threshold. */
  threshold: number;
}

/** Why a node group cannot take a pod. */
export type CaReason = 'max-size-reached' | 'max-nodes-total-reached' | 'insufficient-resources' | 'untolerated-taint' | 'node-selector-mismatch' | 'host-port-conflict' | 'pod-anti-affinity' | 'not-modelled';

/** One scale-up of the Cluster Autoscaler's run. */
export interface CaScaleUp {
  /** The expander that chose, or `random` when options tied after the chain. */
  decidedBy: string;
  /** The node group. */
  nodeGroup: string;
  /** Nodes added. */
  nodes: number;
  /** The options the random fallback chose among (nodecast takes the first by name). */
  tiedWith?: string[];
  /** Simulated second of the scan loop. */
  timeSeconds: number;
}

/**
 * A CapacityBuffer in a plan: how many virtual pods it asks for and where they went, with
 * the `Provisioning` condition Karpenter writes for it (docs/feature-gates.md).
 */
export interface CapacityBuffer {
  /** Why the buffer is not ReadyForProvisioning, when it is not. */
  message?: string;
  /** `namespace/name`. */
  name: string;
  /** Virtual pods placed on nodes that exist (or static / in-flight NodeClaims). */
  onExistingNodes: number;
  /** Virtual pods that need new NodeClaims in this pass. */
  onNewNodeClaims: number;
  /**
   * The `Provisioning` condition's reason: `FitsExistingCapacity`, `RequiresNewCapacity`,
   * `BufferEmpty` or `NotReadyForProvisioning`.
   */
  provisioning: string;
  /** Virtual pods it asks for (Karpenter's `status.replicas`). */
  replicas: number;
  /** Virtual pods no NodePool can take. */
  unschedulable: number;
}

export type CapacityType = 'on-demand' | 'spot' | 'reserved';

/** The answer of `catalog`: the matching instance types, cheapest on-demand first. */
export interface CatalogAnswer {
  /** How many rows `instanceTypes` holds (after `limit`). */
  count: number;
  /** The matching instance types. */
  instanceTypes: CatalogRow[];
  /** Which catalog was searched (the embedded AWS region or a custom one). */
  source: string;
}

/** The answer of kind `CatalogQuery`: a success with the `CatalogAnswer` fields, or a failure. */
export type CatalogQueryAnswer = (CatalogAnswer & { apiVersion: 'nodecast/v1'; kind: 'CatalogQuery'; status: 'success'; }) | CatalogQueryFailure;

/** No answer: every problem found, located. */
export interface CatalogQueryFailure {
  apiVersion: 'nodecast/v1';
  /** `invalid`: Kubernetes or Karpenter would reject the input (CLI exit 1, Python `ValidationError`); `unusable`: nodecast cannot read or answer it (exit 2, `InputError`). */
  errorClass: 'invalid' | 'unusable';
  errors: InputError[];
  kind: 'CatalogQuery';
  status: 'failure';
}

/** One instance type of the catalog, as `catalog` lists it. */
export interface CatalogRow {
  /** Accelerators on the machine (`karpenter.k8s.aws/instance-accelerator-count`). */
  acceleratorCount?: string;
  /** The accelerator model, e.g. `inferentia2` (`karpenter.k8s.aws/instance-accelerator-name`). */
  acceleratorName?: string;
  /** CPU pods can request: capacity minus reserved and overhead. */
  allocatableCpu: string;
  /** Memory pods can request: capacity minus reserved, overhead and eviction threshold. */
  allocatableMemory: string;
  /** `kubernetes.io/arch`: `amd64` or `arm64`. */
  arch: string;
  /** GPUs on the machine (`karpenter.k8s.aws/instance-gpu-count`). */
  gpuCount?: string;
  /** Per GPU, MiB. */
  gpuMemoryMib?: string;
  /** The GPU model (`karpenter.k8s.aws/instance-gpu-name`), when it has GPUs. */
  gpuName?: string;
  /** Memory of the machine (`instance-memory` label in Mi, else capacity). */
  memory: string;
  /** The instance type, e.g. `m5.large`. */
  name: string;
  /** The catalog's on-demand $/h for the type; rows are sorted by it, cheapest first. */
  onDemandPricePerHour: number;
  /** The cheapest spot $/h over the zones; absent when the type has no spot offering. */
  spotPricePerHour: number | null;
  /** vCPUs of the machine (capacity, a Kubernetes quantity). */
  vcpu: string;
}

/** The Cluster Autoscaler settings an answer was made with. */
export interface ClusterAutoscalerSettings {
  /** The `--expander` chain. */
  expander: Expander[];
  /** `--expendable-pods-priority-cutoff`. */
  expendablePodsPriorityCutoff: number;
  /** `--max-nodes-per-scaleup`. */
  maxNodesPerScaleUp: number;
  /** `--max-nodes-total` (0: no limit). */
  maxNodesTotal: number;
  /** The priority ConfigMap's rules (priority → patterns), highest first. */
  priorities?: [number, string[]][];
}

/** The answer of `simulate` with `compare: cluster-autoscaler` (`kind: Comparison`). */
export interface Comparison {
  /** The Cluster Autoscaler's run in full (nodes are the node groups' instances). */
  clusterAutoscaler: Simulation;
  /** Karpenter's cost less the Cluster Autoscaler's, USD (negative: Karpenter is cheaper). */
  costDifferenceUsd: number;
  /** Where the Cluster Autoscaler is random or timing-dependent, and what nodecast does then. */
  disclosures: string[];
  /** Karpenter's run in full. */
  karpenter: Simulation;
  /** The proposal (NodePools, EC2NodeClasses, manifests) when Karpenter ran over it. */
  migration?: Migration;
  /** Where Karpenter's NodePools come from: the inputs (`given`) or `migrate`'s proposal. */
  nodePools: NodePoolsFrom;
  /** The Cluster Autoscaler's scale-ups, in order. */
  scaleUps: CaScaleUp[];
  /** Both runs on one time axis. */
  series: ComparisonSeries;
  /** One row per autoscaler: the Cluster Autoscaler first, then Karpenter. */
  sides: ComparisonSide[];
  /** Findings of both runs about the input (each once). */
  warnings: Warning[];
}

/** The answer of kind `Comparison`: a success with the `Comparison` fields, or a failure. */
export type ComparisonAnswer = (Comparison & { apiVersion: 'nodecast/v1'; kind: 'Comparison'; status: 'success'; }) | ComparisonFailure;

/** No answer: every problem found, located. */
export interface ComparisonFailure {
  apiVersion: 'nodecast/v1';
  /** `invalid`: Kubernetes or Karpenter would reject the input (CLI exit 1, Python `ValidationError`); `unusable`: nodecast cannot read or answer it (exit 2, `InputError`). */
  errorClass: 'invalid' | 'unusable';
  errors: InputError[];
  kind: 'Comparison';
  status: 'failure';
}

/** Both runs sampled at the same times. */
export interface ComparisonSeries {
  /** GPUs of the nodes alive. */
  gpus: number[][];
  /** Nodes alive (launched, not terminated): Cluster Autoscaler, Karpenter. */
  nodes: number[][];
  /** Pods pending. */
  pendingPods: number[][];
  /** $/h of the nodes alive. */
  pricePerHour: number[][];
  /** Sample times, simulated seconds (the simulation's metrics interval). */
  timesSeconds: number[];
}

/** One run's totals. */
export interface ComparisonSide {
  /** The autoscaler. */
  autoscaler: Side;
  /** What every node cost over its life, USD. */
  costUsd: number;
  /** Simulated seconds until the run ended. */
  durationSeconds: number;
  /** GPU-hours paid for (node GPUs × node lifetime). */
  gpuHoursPaid: number;
  /** `gpuHoursUsed ÷ gpuHoursPaid`. */
  gpuUtilization: number;
  /** GPU-hours paid for and not used by a pod (`gpuHoursPaid − gpuHoursUsed`). */
  idleGpuHours: number;
  /** Nodes launched over the run (the groups' current nodes not included). */
  nodesLaunched: number;
  /** Nodes the autoscaler removed (scale-down, consolidation). */
  nodesRemoved: number;
  /** The most nodes alive at one sample. */
  peakNodes: number;
  /** p95 of the pods' wait before they started, seconds. */
  pendingP95Seconds: number;
  /** Σ over pods of the time they were pending, in minutes. */
  pendingPodMinutes: number;
  /** Pods whose run time completed. */
  podsFinished: number;
  /** Pods still pending at the end of the run. */
  podsPendingAtEnd: number;
}

/**
 * The commands Karpenter's disruption controller carries out between `now` and `until`: its
 * passes replayed by the simulator (budgets, consolidateAfter, replacements' launch and
 * start-up, drains) on the cluster as given, with no new workload arriving.
 */
export interface ConsolidationSequence {
  /** Nodes (existing and launched replacements) still running at `until`, by name. */
  nodesAtUntil: string[];
  /** Pods still pending at `until` (none, unless a command left one without room). */
  pendingPodsAtUntil: number;
  /** $/h of those nodes. */
  pricePerHourAtUntil: number;
  /** Each command, in the order the controller decides them. */
  steps: ConsolidationStep[];
  /** The end of the sequence (RFC 3339). */
  until: string;
  /** Findings of the replay (e.g. a setting it assumed). */
  warnings: Warning[];
}

/** One command of a consolidation sequence. */
export interface ConsolidationStep {
  /** Seconds after `now`. */
  afterSeconds: number;
  /** The command in Karpenter's words, as a single `consolidate` answer gives it. */
  command: string;
  /**
   * When the last of its nodes was gone (RFC 3339); absent when one still runs at `until`
   * (a replacement starting, a drain waiting on its grace period).
   */
  completed?: string;
  /**
   * Seconds after `now` of the pass that decided the command (`afterSeconds` − 15 for a
   * validated command, `afterSeconds` for the others).
   */
  decidedAfterSeconds: number;
  /** The nodes it removes. */
  disruptedNodes: string[];
  /** `expired`, `empty` or `underutilized`. */
  reason: DisruptionReason;
  /** The replacement NodeClaim launched for it (`name (instance type, capacity type)`), if any. */
  replacement?: string;
  /**
   * When the command was carried out (RFC 3339): for emptiness and consolidation 15 s after
   * the pass that decided it, once Karpenter has validated it again; for the others when it
   * was decided.
   */
  time: string;
}

/**
 * A disruption decision: what Karpenter's disruption controller would do now, and why every
 * other node stays.
 */
export interface Decision {
  /**
   * The command in Karpenter's words, e.g. `delete 2 nodes (a, b)` or
   * `replace 1 node (a) with 1 spot node from [g4dn.xlarge, ...]`.
   */
  command: string;
  /** `none`, `delete` or `replace`. */
  decision: DecisionAction;
  /** The nodes the command removes, by name. */
  disruptedNodes: string[];
  /** `expiration`, `repair`, `emptiness`, `drift`, `multi-node-consolidation` or `single-node-consolidation`. */
  method?: Method;
  /**
   * Further nodes a drift replacement launches (drift, unlike consolidation, may need
   * several); empty otherwise.
   */
  moreReplacements?: Replacement[];
  /** Disruption budgets per NodePool at `now`. */
  nodePools: PoolBudget[];
  /** Every candidate node with its verdict: disrupted, or the reasons it stays. */
  nodes: NodeVerdict[];
  /** The clock the decision was made at (RFC 3339). */
  now: string;
  /** $/h of the managed nodes once the command has run. */
  pricePerHourAfter: number;
  /**
   * $/h of the managed nodes before and after the command (EC2 prices, plus EKS Auto Mode's
   * fee for Auto Mode nodes when a fee table is given; the decision is by EC2 price).
   */
  pricePerHourBefore: number;
  /** `expired`, `empty`, `drifted` or `underutilized` (absent for `none`). */
  reason?: DisruptionReason;
  /** The node a `replace` launches; absent for `none` and `delete`. */
  replacement?: Replacement;
  /**
   * NodeClaims whose capacity reservation ended by `now`, and what the AWS provider does to
   * them outside the disruption controller: a capacity block's are deleted from 40 minutes
   * before its end, an ODCR's run on as on-demand (docs/reservations.md). Absent when none.
   */
  reservationChanges?: ReservationChangeOut[];
  /** (before − after) × 730 h, to the cent (computed once, in `figures`). */
  savingsPerMonth: number;
  /**
   * The command's Balanced scores, one per Balanced pool among the disrupted nodes (empty
   * when none is Balanced, and for emptiness and expiration, which are never scored).
   */
  scores: BalancedScore[];
  /**
   * With `until`: every command the disruption controller carries out from `now` to `until`,
   * pass after pass (docs/consolidate-until.md). Absent without `until`.
   */
  sequence?: ConsolidationSequence;
  /** Objects the loader recognised but does not model (kind/name and why). */
  skipped: Skipped[];
  /** The decision in one line, as the CLI prints it first (computed once, in `figures`). */
  summary: string;
  /**
   * A drift or repair `delete` that is Karpenter's terminate-first command (RFC #3203,
   * gates TerminateFirstDrift / TerminateFirstRepair): the node's reserved slot is the only
   * place its pods fit, so it goes before its replacement, which provisioning then launches
   * into the freed slot. Absent otherwise.
   */
  terminateFirst?: TerminateFirst;
  /**
   * Where Karpenter's own pick is not determined: candidates that tie on its sort key
   * (price ÷ disruption cost) are ordered arbitrarily, so it may pick others than nodecast.
   */
  ties: Tie[];
  /** Non-fatal findings about the input (unsupported fields, defaults assumed). */
  warnings: Warning[];
}

/** What the disruption controller does now. */
export type DecisionAction = 'none' | 'delete' | 'replace';

/** The answer of kind `Decision`: a success with the `Decision` fields, or a failure. */
export type DecisionAnswer = (Decision & { apiVersion: 'nodecast/v1'; kind: 'Decision'; status: 'success'; }) | DecisionFailure;

/** No answer: every problem found, located. */
export interface DecisionFailure {
  apiVersion: 'nodecast/v1';
  /** `invalid`: Kubernetes or Karpenter would reject the input (CLI exit 1, Python `ValidationError`); `unusable`: nodecast cannot read or answer it (exit 2, `InputError`). */
  errorClass: 'invalid' | 'unusable';
  errors: InputError[];
  kind: 'Decision';
  status: 'failure';
}

export type DisruptionReason = 'expired' | 'empty' | 'underutilized' | 'drifted' | 'unhealthy';

/** Nodes disrupted during the run. */
export interface Disruptions {
  /** Nodes disrupted per reason: `empty`, `underutilized`, `expired`, `interrupted`. */
  byReason: Record<string, number>;
  /** All nodes disrupted. */
  total: number;
}

/**
 * A choice Karpenter makes at random among equally good values (a zone with the least
 * count for a topology spread, the first zone for a pod affinity with no pod placed yet).
 */
export interface DomainTie {
  /** Every value a Karpenter run can pick, sorted; `value` is one of them. */
  candidates: string[];
  /** The label key, e.g. `topology.kubernetes.io/zone`. */
  key: string;
  /**
   * One line for people, e.g. "the zone is a tie among us-east-1a, us-east-1b in Karpenter
   * (Go map order decides); nodecast shows us-east-1a".
   */
  message: string;
  /**
   * nodecast's value: Karpenter's likeliest pick, the candidate the NodePool's requirement
   * lists first (Go walks a small set from where it was first filled most often), else the
   * first candidate by name.
   */
  value: string;
}

/** A drifted NodeClaim: Karpenter's drift reason and what changed. */
export interface DriftOut {
  /** What drifted, for people. */
  message: string;
  /**
   * `NodePoolDrifted`, `RequirementsDrifted`, or the reason the NodeClaim's `Drifted`
   * condition reports (e.g. the cloud provider's).
   */
  reason: string;
}

/** One field edit of a NodePool manifest. */
export interface EditOut {
  /** The EC2NodeClass edited (`select-reservation`), when the edit is to one. */
  nodeClass?: string;
  /** The NodePool edited (empty when the edit is to an EC2NodeClass, see `nodeClass`). */
  nodePool: string;
  /**
   * The field path in the manifest, e.g. `spec.template.spec.requirements`; empty when the
   * edit adds the NodePool `value` (a split).
   */
  path: string;
  /** The new value at that path (for requirements: the requirement added or replaced). */
  value: unknown;
}

/** One edited input file. */
export interface EditedFile {
  /** The input's name, as given (a file path for the CLI). */
  name: string;
  /** The whole text with the edit applied; everything else as written. */
  text: string;
}

/** No answer: every problem found, located. */
export interface ErrorFailure {
  apiVersion: 'nodecast/v1';
  /** `invalid`: Kubernetes or Karpenter would reject the input (CLI exit 1, Python `ValidationError`); `unusable`: nodecast cannot read or answer it (exit 2, `InputError`). */
  errorClass: 'invalid' | 'unusable';
  errors: InputError[];
  kind: 'Error';
  status: 'failure';
}

/** A node already in the cluster and the pending pods this plan binds to it. */
export interface ExistingNode {
  /** The node's `node.kubernetes.io/instance-type` label, when it has one. */
  instanceType?: string;
  /** The Node's name. */
  name: string;
  /** The NodePool that owns the node (its `karpenter.sh/nodepool` label); absent for unmanaged nodes. */
  nodePool?: string;
  /** Pending pods this plan binds to the node, as `namespace/name`. */
  pods: string[];
}

/** One expander of the `--expander` chain (cluster-autoscaler/expander/expander.go names). */
export type Expander = 'least-waste' | 'priority' | 'most-pods' | 'least-nodes' | 'random';

/** The answer of `explain`: whichever of pod, instance type and node the request asked about. */
export interface Explanation {
  /** Why the asked instance type is launched, an option, or rejected for the pod. */
  instanceType?: TypeExplanation;
  /** Why the asked node is or is not disrupted now. */
  node?: NodeExplanation;
  /** Where one provisioning pass puts the asked pod, and why not elsewhere. */
  pod?: PodExplanation;
}

/** The answer of kind `Explanation`: a success with the `Explanation` fields, or a failure. */
export type ExplanationAnswer = (Explanation & { apiVersion: 'nodecast/v1'; kind: 'Explanation'; status: 'success'; }) | ExplanationFailure;

/** No answer: every problem found, located. */
export interface ExplanationFailure {
  apiVersion: 'nodecast/v1';
  /** `invalid`: Kubernetes or Karpenter would reject the input (CLI exit 1, Python `ValidationError`); `unusable`: nodecast cannot read or answer it (exit 2, `InputError`). */
  errorClass: 'invalid' | 'unusable';
  errors: InputError[];
  kind: 'Explanation';
  status: 'failure';
}

/** A change that may let a pending pod onto a NodePool, checked by re-planning with it applied. */
export interface Hint {
  /** The change, in the manifest's words. */
  change: string;
  /**
   * What the re-plan did, e.g. "verified: re-planned with this change, default/a goes on a
   * new NodeClaim of NodePool gpu".
   */
  check: string;
  /**
   * The reason code the change answers (`taint-not-tolerated`, `limit-exceeded`,
   * `requirement-conflict`).
   */
  code: ReasonCode;
  /** The NodePool the change is for. */
  nodePool: string;
  /**
   * What the re-plan did: `verified` (the pod lands on this NodePool), `lands-elsewhere`
   * (it schedules, but on another NodePool or node) or `not-enough-alone` (it stays pending).
   */
  outcome: HintOutcome;
  /** True when the re-plan with the change schedules the pod on this NodePool. */
  verified: boolean;
}

export type HintOutcome = 'verified' | 'lands-elsewhere' | 'not-enough-alone';

/** One located problem with the input. */
export interface InputError {
  /** Stable machine-readable code, e.g. `invalid-operator`, `invalid-quantity`, `yaml-syntax`. */
  code: string;
  /** 1-based column of a syntax error. */
  column?: number;
  /** 0-based index of the document in the input. */
  document?: number;
  /** What would be accepted, when that is short enough to say. */
  help?: string;
  /** 1-based line of a syntax error. */
  line?: number;
  /** What is wrong, in one sentence. */
  message: string;
  /** `Kind/name` (or `Kind/namespace/name`) of the object the error is about. */
  object?: string;
  /** Field path inside the object, e.g. `spec.template.spec.requirements[1].operator`. */
  path?: string;
  /** Name of the input (file name, `<stdin>`, ...) when the front end supplied one. */
  source?: string;
}

/**
 * What Karpenter's consolidation does from the same cluster (filled in by the cluster from
 * `consolidate` at `now` and the consolidation sequence after it).
 */
export interface KarpenterConsolidation {
  /** Its command at `now`, in Karpenter's words (`consolidate`'s `command`). */
  command: string;
  /** Commands carried out up to `until`. */
  commands: number;
  /** $/h of the managed nodes once that command has run. */
  pricePerHourAfter: number;
  /** $/h of the nodes running at `until`. */
  pricePerHourAtUntil: number;
  /** The end of the pass-after-pass sequence (RFC 3339). */
  until: string;
}

/** A NodeClaim that launches: its launch fields are not null. */
export type LaunchedNodeClaim = NodeClaimFields & NodeClaimLaunch;

/** A Replacement that launches: its launch fields are not null. */
export type LaunchedReplacement = ReplacementFields & ReplacementLaunch;

/** NodeClaims launched during the run. */
export interface Launches {
  /** NodeClaims launched per NodePool name. */
  byNodePool: Record<string, number>;
  /** All NodeClaims launched. */
  total: number;
}

/** One of a NodePool's `spec.limits`, as Kubernetes quantities. */
export interface LimitUsage {
  /** The limit as written in `spec.limits`. */
  limit: string;
  /** `limit − used`: what the pool may still launch before the limit stops it. */
  remaining: string;
  /** Capacity the pool already has: existing nodes plus the NodeClaims this plan launches. */
  used: string;
}

export type Method = 'expiration' | 'repair' | 'emptiness' | 'drift' | 'multi-node-consolidation' | 'single-node-consolidation';

/** One time series, named and labelled as Karpenter's Prometheus metric. */
export interface Metric {
  /** The metric's labels, e.g. `nodepool`, `resource_type`. */
  labels: Record<string, string>;
  /** Karpenter's metric name, e.g. `karpenter_nodepool_usage`. */
  name: string;
  /** One value per entry of `timesSeconds`. */
  values: number[];
}

/** The NodePool proposed for one node group. */
export interface MigratedNodePool {
  /** `karpenter.sh/capacity-type In` (one value). */
  capacityType: string;
  /** `node.kubernetes.io/instance-type In`. */
  instanceTypes: string[];
  /** `spec.limits`: the group's max size of its largest type. */
  limits: Record<string, string>;
  /** The EC2NodeClass it refers to. */
  nodeClass: string;
  /** The node group. */
  nodeGroup: string;
  /** The NodePool's name. */
  nodePool: string;
  /** What of this group the NodePool does not carry over. */
  notes?: string[];
  /** The priority of the ConfigMap the weight comes from. */
  priority?: number;
  /** `spec.weight`, from the priority expander; absent without one. */
  weight?: number;
  /** `topology.kubernetes.io/zone In` (empty: no zone requirement). */
  zones: string[];
}

/** The proposal and the two plans. */
export interface Migration {
  /** The Cluster Autoscaler's scale-up over the node groups for the pending pods. */
  clusterAutoscaler: PlanSide;
  /** Karpenter's provisioning pass over the proposed NodePools for the same pods. */
  karpenter: PlanSide;
  /** The NodePools and EC2NodeClasses as YAML documents (what `kubectl apply -f` takes). */
  manifests: string;
  /** The EC2NodeClasses the NodePools refer to. */
  nodeClasses: string[];
  /** One NodePool per node group, in the groups' order. */
  nodePools: MigratedNodePool[];
  /** What the proposal does not carry over, and what differs by design. */
  notes: string[];
  /** Karpenter's new nodes' $/h less the Cluster Autoscaler's (negative: Karpenter is cheaper). */
  priceDifferencePerHour: number;
  /** The same × 730 h. */
  priceDifferencePerMonth: number;
  /** Findings of both plans about the input. */
  warnings: Warning[];
}

/** The answer of kind `Migration`: a success with the `Migration` fields, or a failure. */
export type MigrationAnswer = (Migration & { apiVersion: 'nodecast/v1'; kind: 'Migration'; status: 'success'; }) | MigrationFailure;

/** No answer: every problem found, located. */
export interface MigrationFailure {
  apiVersion: 'nodecast/v1';
  /** `invalid`: Kubernetes or Karpenter would reject the input (CLI exit 1, Python `ValidationError`); `unusable`: nodecast cannot read or answer it (exit 2, `InputError`). */
  errorClass: 'invalid' | 'unusable';
  errors: InputError[];
  kind: 'Migration';
  status: 'failure';
}

/** One NodeClaim the provisioner would create: where it lands, what it costs and which pods it takes. */
export type NodeClaim = NodeClaimFields & (NodeClaimLaunch | NodeClaimNoLaunch);

/** One NodeClaim the provisioner would create: where it lands, what it costs and which pods it takes. */
export interface NodeClaimFields {
  /**
   * GPUs and other accelerators of the launched type (computed once, in `figures`);
   * empty when it has none. Shared by the NodeClaims with the same allocatable and labels.
   */
  accelerators: Accelerator[];
  /** What the launched type offers to pods: capacity minus kube/system reserved and eviction threshold. */
  allocatable: Record<string, string>;
  /**
   * EKS Auto Mode's management fee ($/h) of the launched type, from the inputs' fee table
   * (docs/prices-and-places.md), on top of `pricePerHour`; absent outside Auto Mode NodePools
   * or without a fee for the type. The choice itself is by EC2 price.
   */
  autoModeFeePerHour?: number;
  /** DaemonSet pods the node will also run, as `namespace/name`; their requests count in `requests`. */
  daemonSets: string[];
  /**
   * Cheapest first, as Karpenter writes them on the NodeClaim (at most 600). Shared by
   * the NodeClaims with the same list (`Arc`: serialised as the list itself).
   */
  instanceTypeOptions: string[];
  /**
   * Labels the node will carry (template labels, custom requirement values, launch labels).
   * Shared by the NodeClaims that carry the same labels.
   */
  labels: Record<string, string>;
  /** `<nodepool>-<n>`, numbered per NodePool in creation order. */
  name: string;
  /** The NodePool the NodeClaim is created from. */
  nodePool: string;
  /** Pending pods bound to this NodeClaim, as `namespace/name`. */
  pods: string[];
  /**
   * Where that price comes from (`user`, `list`, `us-east-1-list`, `factor`, `reservation`,
   * `overlay`); present when the request supplies prices (price documents or catalog
   * `prices`), absent otherwise.
   */
  priceSource?: PriceSource;
  /**
   * Pods + daemons on the launched type. This and the next two are shared by the
   * NodeClaims with the same values (`Arc`: serialised as the map itself); with many
   * NodeClaims of few shapes, rendering each quantity once was a third of `plan::render`.
   */
  requests: Record<string, string>;
  /**
   * Requirements written on the NodeClaim (without the instance-type list). Shared by the
   * NodeClaims with the same requirements.
   */
  requirements: string[];
  /** The capacity reservation launched into (capacity type `reserved`). */
  reservationId?: string;
  /** `default` (ODCR) or `capacity-block`, with `reservationId`. */
  reservationType?: string;
  /**
   * Where Karpenter itself is not deterministic: values of this NodeClaim that real
   * Karpenter picks among equal candidates in Go map order, so reruns differ. nodecast's
   * value is one of them. Absent when there is none.
   */
  ties?: DomainTie[];
  /** requests / allocatable per resource, 0..1. */
  utilization: Record<string, number>;
}

/** What is launched: every launch field set. */
export interface NodeClaimLaunch {
  capacityType: CapacityType;
  /** The instance type nodecast expects EC2 to launch (the cheapest option); absent when none fits. */
  instanceType: string;
  /** $/h of the chosen offering (the catalog's price for type, zone and capacity type). */
  pricePerHour: number;
  /** The availability zone of the chosen offering. */
  zone: string;
}

/** No offering can launch (none available or compatible): every launch field null. */
export interface NodeClaimNoLaunch {
  capacityType: null;
  instanceType: null;
  pricePerHour: null;
  zone: null;
}

/** What one EC2NodeClass's `capacityReservationSelectorTerms` selected. */
export interface NodeClassReservationsOut {
  /** The EC2NodeClass. */
  nodeClass: string;
  /** The other reservations of the input and why each was not selected or gives no offering. */
  notSelected: ReservationSkipOut[];
  /** Reservation ids selected (the EC2NodeClass status would list them), by id. */
  selected: string[];
}

/** Why a node is (or is not) disrupted at `now`. */
export interface NodeExplanation {
  /** The command Karpenter would execute now, for context. */
  command: string;
  /** The node's verdict, as in the `consolidate` answer's `nodes`. */
  node: NodeVerdict;
  /** The node's verdict in one line for people. */
  summary: string;
  /** The answer's ties that name this node: Karpenter may pick it, or others, instead. */
  ties: Tie[];
}

/** What the optimum does with an existing node. */
export type NodeFate = 'pinned' | 'kept' | 'removed';

/** One node group and its template node. */
export interface NodeGroup {
  /** The template's capacity (= allocatable), before DaemonSets. */
  capacity: Record<string, string>;
  /** `spot` or `on-demand`. */
  capacityType: string;
  /** Its size before this answer (desired capacity). */
  currentSize: number;
  /** DaemonSet pods the template runs (namespace/name). */
  daemonSets: string[];
  /** The type the template is built from (the first of `instanceTypes`). */
  instanceType: string;
  /** Every instance type the group may launch, in the order written. */
  instanceTypes: string[];
  /** The template's labels. */
  labels: Record<string, string>;
  /** An EKS managed node group (labels and taints read from EKS). */
  managed: boolean;
  /** The group's maximum size. */
  maxSize: number;
  /** The group's minimum size. */
  minSize: number;
  /** The node group's name. */
  name: string;
  /** Nodes this answer's scale-ups add. */
  newNodes: number;
  /** Price of one node per hour. */
  pricePerHour: number;
  /** The template's taints (`key=value:Effect`). */
  taints: string[];
  /** Its size after them. */
  targetSize: number;
  /** The template's zone (the group's first). */
  zone: string;
}

/** A node that receives pending pods. */
export interface NodeGroupNode {
  /** Its instance type. */
  instanceType: string;
  /** The scan loop that added it. */
  loop?: number;
  /** The node group's name. */
  name: string;
  /** Added by this answer's scale-ups (false: one of the group's current nodes). */
  new: boolean;
  /** The node group. */
  nodeGroup: string;
  /** Pods placed. */
  pods: string[];
}

/** A pod no node group can take. */
export interface NodeGroupPendingPod {
  /** The pod (`namespace/name`). */
  pod: string;
  /** One reason per node group. */
  reasons: NodeGroupReason[];
}

/** What the Cluster Autoscaler's scale-up does with the pending pods. */
export interface NodeGroupPlan {
  /** Where the Cluster Autoscaler is random or timing-dependent, and what nodecast does then. */
  disclosures: string[];
  /**
   * Pending pods below `expendablePodsPriorityCutoff`: the Cluster Autoscaler does not scale
   * up for them (they wait for room or preempt nothing).
   */
  expendable?: string[];
  /** Hourly price of the new nodes. */
  newPricePerHour: number;
  /** Every node group, in input order, with its template and its size before and after. */
  nodeGroups: NodeGroup[];
  /** Nodes that receive pending pods: the groups' current nodes and the new ones. */
  nodes: NodeGroupNode[];
  /** The scale-ups, one per scan loop, in order. */
  scaleUps: ScaleUp[];
  /** The settings the decisions were made with. */
  settings: ClusterAutoscalerSettings;
  /** Pods no node group can take, with one reason per node group. */
  unschedulable: NodeGroupPendingPod[];
  /** Findings about the input and what this engine does not simulate. */
  warnings: Warning[];
}

/** The answer of kind `NodeGroupPlan`: a success with the `NodeGroupPlan` fields, or a failure. */
export type NodeGroupPlanAnswer = (NodeGroupPlan & { apiVersion: 'nodecast/v1'; kind: 'NodeGroupPlan'; status: 'success'; }) | NodeGroupPlanFailure;

/** No answer: every problem found, located. */
export interface NodeGroupPlanFailure {
  apiVersion: 'nodecast/v1';
  /** `invalid`: Kubernetes or Karpenter would reject the input (CLI exit 1, Python `ValidationError`); `unusable`: nodecast cannot read or answer it (exit 2, `InputError`). */
  errorClass: 'invalid' | 'unusable';
  errors: InputError[];
  kind: 'NodeGroupPlan';
  status: 'failure';
}

/** Why one node group cannot take a pod. */
export interface NodeGroupReason {
  /** The reason, as a stable code. */
  code: CaReason;
  /** The reason for people. */
  message: string;
  /** The node group. */
  nodeGroup?: string;
}

/** What the Cluster Autoscaler's scale-down does with the nodes of the node groups at `now`. */
export interface NodeGroupScaleDown {
  /** When scale-down resumes after the last scale-up (RFC 3339), when that is after `now`. */
  cooldownUntil?: string;
  /** Where the Cluster Autoscaler is timing-dependent, and what nodecast assumes. */
  disclosures: string[];
  /** Every node of the input, in input order, with its verdict. */
  nodes: ScaleDownNode[];
  /** The time of the decision (RFC 3339). */
  now: string;
  /** Hourly price of the nodes removed (`remove`), at the node groups' prices. */
  removedPricePerHour: number;
  /** The settings the decision was made with. */
  settings: ScaleDownSettings;
  /** Findings about the input. */
  warnings: Warning[];
}

/** The answer of kind `NodeGroupScaleDown`: a success with the `NodeGroupScaleDown` fields, or a failure. */
export type NodeGroupScaleDownAnswer = (NodeGroupScaleDown & { apiVersion: 'nodecast/v1'; kind: 'NodeGroupScaleDown'; status: 'success'; }) | NodeGroupScaleDownFailure;

/** No answer: every problem found, located. */
export interface NodeGroupScaleDownFailure {
  apiVersion: 'nodecast/v1';
  /** `invalid`: Kubernetes or Karpenter would reject the input (CLI exit 1, Python `ValidationError`); `unusable`: nodecast cannot read or answer it (exit 2, `InputError`). */
  errorClass: 'invalid' | 'unusable';
  errors: InputError[];
  kind: 'NodeGroupScaleDown';
  status: 'failure';
}

/** A NodePool as this plan leaves it. */
export interface NodePoolUsage {
  /** Per limited resource: limit, used (existing nodes + launched NodeClaims), remaining. */
  limits: Record<string, LimitUsage>;
  /** The NodePool's name. */
  name: string;
  /** How many NodeClaims this plan launches from the pool. */
  newNodeClaims: number;
  /**
   * Why the NodePool took no part in the pass (static, not Ready, or its requirements leave
   * no instance type with an available offering); absent for a NodePool that took part.
   */
  unusable?: string;
  /** `spec.weight`: Karpenter tries NodePools with higher weight first (default 0). */
  weight: number;
}

/** Where the Karpenter side's NodePools come from. */
export type NodePoolsFrom = 'given' | 'migrate';

/** One node's verdict in a disruption decision. */
export interface NodeVerdict {
  /** `on-demand`, `spot` or `reserved` (the node's `karpenter.sh/capacity-type` label). */
  capacityType?: CapacityType;
  /** True when the command removes this node. */
  disrupted: boolean;
  /** Why Karpenter calls the node's NodeClaim drifted, when it does. */
  drift?: DriftOut;
  /** The node's instance type label, when it has one. */
  instanceType?: string;
  /** The Node's name. */
  name: string;
  /** The NodePool that owns the node; absent for unmanaged nodes. */
  nodePool?: string;
  /** How many reschedulable pods run on the node (DaemonSet pods excluded). */
  pods: number;
  /** $/h of the node's offering in the catalog, when known. */
  pricePerHour?: number;
  /** Why the node stays (FORMAT §7.2 codes), first the one that decided. */
  reasons: Reason[];
  /**
   * The repair policy the node's conditions match (AWS provider's RepairPolicies), when one
   * does: present whether or not the NodeRepair gate is on.
   */
  repair?: RepairOut;
  /**
   * The Balanced score of the move tried for this node (single-node consolidation, or the
   * best case when that already fails), or of the command that disrupts it.
   */
  score?: BalancedScore;
}

/** The answer of `optimize`: Karpenter's plan next to the cheapest packing of the same pods, with a bound that certifies how close it is. */
export interface Optimization {
  /**
   * `optimal` (only when the whole plan is proven optimal), or `within x % of optimal`
   * (the gap of `optimumPricePerHour` to the bound).
   */
  certificate: string;
  /** (optimum − bound) / optimum, in percent (0 when proven optimal). */
  gapPercent: number;
  /** Karpenter's NodeClaims, in the same shape. */
  karpenterNodeClaims: OptimizedClaim[];
  /** $/h of the NodeClaims Karpenter's plan launches. */
  karpenterPricePerHour: number;
  /** Pods that keep Karpenter's NodeClaims (the `kept` ones): the reasons are in `notOptimised`. */
  keptPods: number;
  /**
   * No placement of these pods costs less: it covers every pod, those on kept NodeClaims
   * included (LP relaxation, or a proven optimum of a relaxation).
   */
  lowerBoundPerHour: number;
  /** Pods whose NodePool, instance type, capacity type or zone differ between the two. */
  movedPods: PodMove[];
  /** The optimum's NodeClaims (kept ones marked `kept`), cheapest plan first by pool. */
  nodeClaims: OptimizedClaim[];
  /** Constraints the optimiser does not optimise for, and what it does with them instead. */
  notOptimised: string[];
  /** $/h of the cheapest NodeClaims found for the same pods. */
  optimumPricePerHour: number;
  /** Pods the optimum puts on existing nodes' free room: Karpenter's placements there that it keeps, and pods the model gives that room. */
  podsOnExistingNodes: string[];
  /**
   * The running cluster's optimum beside Karpenter's consolidation (`optimize.running`):
   * the fields above then speak of the pods of the nodes it may remove.
   */
  running?: RunningCluster;
  /** `karpenterPricePerHour − optimumPricePerHour`: what the optimum saves, $/h. */
  savingsPerHour: number;
  /** Savings × 730 h. */
  savingsPerMonth: number;
  /** Size of the problem solved and how the solver ended. */
  stats: Stats;
  /** Pods Karpenter leaves pending (left out of both sides). */
  unschedulable: string[];
  /** Non-fatal findings about the input. */
  warnings: Warning[];
}

/** The answer of kind `Optimization`: a success with the `Optimization` fields, or a failure. */
export type OptimizationAnswer = (Optimization & { apiVersion: 'nodecast/v1'; kind: 'Optimization'; status: 'success'; }) | OptimizationFailure;

/** No answer: every problem found, located. */
export interface OptimizationFailure {
  apiVersion: 'nodecast/v1';
  /** `invalid`: Kubernetes or Karpenter would reject the input (CLI exit 1, Python `ValidationError`); `unusable`: nodecast cannot read or answer it (exit 2, `InputError`). */
  errorClass: 'invalid' | 'unusable';
  errors: InputError[];
  kind: 'Optimization';
  status: 'failure';
}

/** One NodeClaim of the optimum or of Karpenter's plan. */
export interface OptimizedClaim {
  /** `on-demand`, `spot` or `reserved`. */
  capacityType: CapacityType;
  /** The instance type launched. */
  instanceType: string;
  /** Karpenter's NodeClaim, kept as it is (its pods carry constraints not optimised). */
  kept: boolean;
  /** The NodeClaim's name, `<nodepool>-<n>`. */
  name: string;
  /** The NodePool it is launched from. */
  nodePool: string;
  /** The pods it takes, as `namespace/name`. */
  pods: string[];
  /** $/h of the offering (a reserved one: on-demand / 10,000,000, as Karpenter prices it). */
  pricePerHour: number;
  /** The capacity reservation it launches into (capacity type `reserved`). */
  reservationId?: string;
  /** The availability zone. */
  zone: string;
}

/** The status Karpenter writes on a NodeOverlay, and what it changed here. */
export interface OverlayStatus {
  /** Instance types whose capacity or an offering's price this overlay set. */
  instanceTypes: number;
  message?: string;
  /** The NodeOverlay's name. */
  name: string;
  /** `Conflict` or `RuntimeValidation` when the condition is false. */
  reason?: string;
  /** The `ValidationSucceeded` condition's status. */
  validationSucceeded: boolean;
  weight: number;
}

/** p50, p95 and maximum of a duration in seconds (nearest rank). */
export interface Percentiles {
  /** Largest value, in seconds. */
  max: number;
  /** Median, in seconds. */
  p50: number;
  /** 95th percentile, in seconds. */
  p95: number;
}

/** A provisioning plan. */
export interface Plan {
  /** The EKS Auto Mode fees within `totalPricePerHour`; absent without a fee table. */
  autoModeFeePerHour?: number;
  /**
   * The CapacityBuffers (CapacityBuffer gate on) and where this pass put their virtual
   * pods (which are also in `nodeClaims`, `existingNodes` and `unschedulable`, named
   * `capacity-buffer-<buffer>-<i>`); absent when there are none.
   */
  capacityBuffers?: CapacityBuffer[];
  /** Nodes already in the cluster and the pending pods this pass binds to them. */
  existingNodes: ExistingNode[];
  /** New NodeClaims the provisioner launches for the pending pods, in creation order. */
  nodeClaims: NodeClaim[];
  /**
   * Per EC2NodeClass with `capacityReservationSelectorTerms`: the reservations it selected
   * and why the others were not (like the EC2NodeClass status).
   */
  nodeClassReservations?: NodeClassReservationsOut[];
  /**
   * NodeOverlays applied to the catalog (feature gate NodeOverlay on), with the
   * `ValidationSucceeded` status Karpenter writes on each; absent when there are none.
   */
  nodeOverlays?: OverlayStatus[];
  /** Every NodePool with its weight, NodeClaims launched and limits after this plan. */
  nodePools: NodePoolUsage[];
  /**
   * With a pass time (`now`): running NodeClaims whose capacity reservation ended by then,
   * and what the AWS provider did to them before this pass — a capacity block's are deleted
   * (their pods are pending again and in this plan), an ODCR's run on as on-demand
   * (docs/reservations.md). Absent when none.
   */
  reservationChanges?: ReservationChangeOut[];
  /**
   * Every capacity reservation of the input after this pass (docs/reservations.md); absent
   * without reservations.
   */
  reservations?: ReservationOut[];
  /**
   * $/h the selected On-Demand Capacity Reservations bill whether used or not (on-demand
   * price × TotalInstanceCount); capacity blocks are prepaid and their price is not in the
   * describe-capacity-reservations output, so they are not in it. Absent without reservations.
   */
  reservedCommittedPricePerHour?: number;
  /** Objects the loader recognised but does not model (kind/name and why). */
  skipped: Skipped[];
  /**
   * NodeClaims Karpenter's static deprovisioning controller deletes now, a static NodePool
   * (StaticCapacity gate on) having more than `spec.replicas`; their pods are pending again
   * and in this plan. Absent when there are none.
   */
  staticDeprovisioned?: StaticDeprovision[];
  /**
   * NodeClaims Karpenter's static provisioning controller creates for static NodePools
   * (`spec.replicas`, StaticCapacity gate on), with the pending pods this pass places on
   * them; absent when there are none.
   */
  staticNodeClaims?: StaticNodeClaim[];
  /** The plan in one line, as the CLI prints it first (computed once, in `figures`). */
  summary: string;
  /**
   * $/h of all new NodeClaims, each at the price of its chosen offering plus its EKS Auto
   * Mode fee when a fee table is given (`autoModeFeePerHour`).
   */
  totalPricePerHour: number;
  /** `totalPricePerHour` × 730 h, to the cent (computed once, in `figures`). */
  totalPricePerMonth: number;
  /** Pending pods no NodePool and no existing node can take, with the reason per NodePool. */
  unschedulable: Unschedulable[];
  /** Non-fatal findings about the input (unsupported fields, defaults assumed). */
  warnings: Warning[];
}

/** The answer of kind `Plan`: a success with the `Plan` fields, or a failure. */
export type PlanAnswer = (Plan & { apiVersion: 'nodecast/v1'; kind: 'Plan'; status: 'success'; }) | PlanFailure;

/** No answer: every problem found, located. */
export interface PlanFailure {
  apiVersion: 'nodecast/v1';
  /** `invalid`: Kubernetes or Karpenter would reject the input (CLI exit 1, Python `ValidationError`); `unusable`: nodecast cannot read or answer it (exit 2, `InputError`). */
  errorClass: 'invalid' | 'unusable';
  errors: InputError[];
  kind: 'Plan';
  status: 'failure';
}

/** What one autoscaler does with the pending pods. */
export interface PlanSide {
  /** New nodes by instance type and capacity type, most first. */
  instanceTypes: TypeCount[];
  /** New nodes. */
  nodes: number;
  /** Pods left pending (`namespace/name`). */
  pending: string[];
  /** Pods placed (on new or current nodes). */
  podsPlaced: number;
  /** $/h of the new nodes. */
  pricePerHour: number;
  /** The same × 730 h. */
  pricePerMonth: number;
}

/** A plan in a few numbers and lines. */
export interface PlanSummary {
  /** `count × type capacity-type (NodePool)`, most first. */
  launches: string[];
  /** How many NodeClaims the plan launches. */
  nodeClaims: number;
  /** $/h of the plan's NodeClaims. */
  pricePerHour: number;
  /** Pods the plan leaves pending. */
  unschedulable: number;
}

/** How many pods ended the run in each state. */
export interface PodCounts {
  /** Pods the trace deleted (a scale-down or delete event) before they finished. */
  deleted: number;
  /** Pods whose run time completed. */
  finished: number;
  /** Pods still pending at the end. */
  pending: number;
  /** Pods still running at the end. */
  running: number;
  /** Pods the trace submitted. */
  submitted: number;
}

/** Why a pod goes where one provisioning pass puts it. */
export interface PodExplanation {
  /**
   * Why each existing node did not take the pod (checked against the nodes as they were
   * before this pass).
   */
  existingNodes: Verdict[];
  /** The existing node it binds to, when the outcome is `existing-node`. */
  node?: string;
  /** The NodeClaim launched for it, when the outcome is `new-node-claim`. */
  nodeClaim?: NodeClaim;
  /** Each NodePool in the order Karpenter tries them. */
  nodePools: Verdict[];
  /** `existing-node`, `new-node-claim` or `unschedulable`. */
  outcome: PodOutcome;
  /** The pod, as `namespace/name`. */
  pod: string;
  /** Preference relaxation steps that were needed. */
  relaxations: string[];
  /** Where it goes, in one line for people. */
  summary: string;
  /** Why it stays pending, when the outcome is `unschedulable`. */
  unschedulable?: Unschedulable;
}

/** A pod placed differently by Karpenter and by the optimum. */
export interface PodMove {
  /** `nodeclaim-name (pool, type, capacity type, zone)` on each side. */
  karpenter: string;
  /** Where the optimum puts it, in the same form as `karpenter`. */
  optimum: string;
  /** The pod, as `namespace/name`. */
  pod: string;
}

/** Where an explained pod goes. */
export type PodOutcome = 'existing-node' | 'new-node-claim' | 'unschedulable' | 'bound';

/** A simulated pod's state at the end of the trace. */
export type PodState = 'finished' | 'running' | 'pending' | 'deleted';

/** A NodePool's disruption budgets at the decision's clock. */
export interface PoolBudget {
  /**
   * Disruptions allowed now per reason (after subtracting nodes already disrupting); absent
   * = unlimited.
   */
  allowed: Record<string, number | null>;
  /** The NodePool's name. */
  name: string;
  /** Nodes the pool owns (the base the budget percentages apply to). */
  nodes: number;
}

/** Where an offering's price comes from (the plan's `priceSource`). */
export type PriceSource = 'list' | 'us-east-1-list' | 'user' | 'factor' | 'reservation' | 'overlay';

/** One reason a pod does not fit a NodePool or a node cannot be disrupted. */
export interface Reason {
  /** The reason code (FORMAT §7), stable across releases. */
  code: ReasonCode;
  /** The reason for people, naming the objects and values involved. */
  message: string;
  /** The NodePool the reason is about; absent when it is not about one. */
  nodePool?: string;
}

export type ReasonCode = 'no-instance-type-fits' | 'requirement-conflict' | 'taint-not-tolerated' | 'limit-exceeded' | 'topology-unsatisfiable' | 'min-values-not-met' | 'host-port-conflict' | 'pod-ignored' | 'no-nodepools' | 'dynamic-resources' | 'reserved-offering-unavailable' | 'nodepool-unusable' | 'do-not-disrupt-pod' | 'do-not-disrupt-node' | 'pdb' | 'budget' | 'not-consolidatable-yet' | 'consolidation-disabled' | 'policy-when-empty' | 'not-cheaper' | 'pods-do-not-fit' | 'spot-to-spot-disabled' | 'not-initialized' | 'unmanaged' | 'deleting' | 'nodepool-not-found' | 'unknown-instance-type' | 'missing-label' | 'not-evaluated' | 'below-balanced-threshold' | 'repair-not-yet' | 'do-not-repair' | 'unhealthy-threshold' | 'repair-unbounded' | 'rebooting' | 'nominated';

/** An unhealthy node: the repair policy Karpenter selects for it (node/health/policy.go). */
export interface RepairOut {
  /**
   * The policy's action: `replace` (the AWS provider's reboot policies replace too unless its
   * RebootForRepair gate is on, which nodecast does not model).
   */
  action: string;
  /** The Node condition type, e.g. `AcceleratedHardwareReady` or `Ready`. */
  condition: string;
  /** Whether `eligibleAt` is at or before `now`. */
  eligible: boolean;
  /**
   * When the policy becomes (or became) eligible: max(lastTransitionTime, creation) +
   * toleration, RFC 3339.
   */
  eligibleAt: string;
  /** Its reason, as the Node reports it (may be empty). */
  reason: string;
  /** Its status: `False` or `Unknown`. */
  status: string;
  /**
   * The drain bound the repair uses: the shortest policy termination grace period of the
   * eligible matches, capped by the NodeClaim's own, in seconds.
   */
  terminationGracePeriodSeconds?: number;
  /** The policy's toleration in seconds: how long the condition must hold. */
  tolerationSeconds: number;
}

/** The node a `replace` launches. */
export type Replacement = ReplacementFields & (ReplacementLaunch | ReplacementNoLaunch);

/** The node a `replace` launches. */
export interface ReplacementFields {
  /** Options that survive the price filter, cheapest first. */
  instanceTypeOptions: string[];
  /** The NodePool the replacement is created from. */
  nodePool: string;
  /** Pods moved onto the replacement, as `namespace/name`. */
  pods: string[];
}

/** What is launched: every launch field set. */
export interface ReplacementLaunch {
  capacityType: CapacityType;
  /** The instance type nodecast expects EC2 to launch (the cheapest option). */
  instanceType: string;
  /** $/h of the chosen offering. */
  pricePerHour: number;
  /** The availability zone of the chosen offering. */
  zone: string;
}

/** No offering can launch (none available or compatible): every launch field null. */
export interface ReplacementNoLaunch {
  capacityType: null;
  instanceType: null;
  pricePerHour: null;
  zone: null;
}

/** What a reservation's end does to a running node. */
export type ReservationChange = 'deleted' | 'on-demand';

/** A node a reservation's end changes at `now` (`Decision.reservationChanges`). */
export interface ReservationChangeOut {
  /** `deleted` (a capacity block expiring) or `on-demand` (an ODCR ended). */
  change: ReservationChange;
  /** Why, in Karpenter's terms. */
  message: string;
  /** The node. */
  node: string;
  /** The capacity reservation it ran in. */
  reservationId: string;
  /** `default` (an ODCR) or `capacity-block`. */
  reservationType: string;
}

/** A capacity reservation after the pass: how much of it this plan uses. */
export interface ReservationOut {
  /** `AvailableInstanceCount` before the pass. */
  available: number;
  /**
   * $/h it bills whether used or not: on-demand price × TotalInstanceCount for an ODCR;
   * absent for a capacity block (prepaid; the price is not in the AWS output).
   */
  committedPricePerHour?: number;
  /** Its use depends on the pass time (it has an EndDate) and none was given (`--now`). */
  dependsOnTime: boolean;
  /** `EndDate` (RFC 3339), when it has one. */
  endDate?: string;
  /** `CapacityReservationId`. */
  id: string;
  /** The instance type it reserves. */
  instanceType: string;
  /** EC2's `Interruptible` (an interruptible ODCR). */
  interruptible: boolean;
  /** Why it is or is not offered, in one line. */
  message: string;
  /** EC2NodeClasses that selected it (empty: none did, see `nodeClassReservations`). */
  nodeClasses: string[];
  /** Offered to this pass (selected, not expiring, its type and zone in the catalog). */
  offered: boolean;
  /** `available − used`. */
  remaining: number;
  /** `default` (an ODCR) or `capacity-block` (as EC2 prints it). */
  reservationType: string;
  /** EC2's `State`. */
  state: string;
  /** `TotalInstanceCount`. */
  total: number;
  /** NodeClaims of this plan launched into it. */
  used: number;
  /** Its availability zone. */
  zone: string;
}

/** A reservation an EC2NodeClass did not get (or got without an offering). */
export interface ReservationSkipOut {
  /** `CapacityReservationId`. */
  id: string;
  /** The reason in one line. */
  message: string;
  /**
   * `no-term-matches`, `not-active`, `ended`, `unsupported-match-criteria`,
   * `unsupported-type`, `expiring`, `unknown-instance-type`, `zone-not-offered`, `gate-off`.
   */
  reason: string;
}

/** One capacity reservation over the run (`reservations` of a Simulation). */
export interface ReservationUse {
  /**
   * Simulated second it is active from (0 when before the run); absent when its State
   * makes it never active.
   */
  activeFromSeconds?: number;
  /** Simulated second it ends (the end of the run when later). */
  activeUntilSeconds?: number;
  /** What it commits over its active part of the run, used or not; absent when unknown. */
  committedCostUsd?: number;
  /**
   * $/h it bills while active: an ODCR the on-demand price × TotalInstanceCount; a capacity
   * block its `simulation.capacityBlockPrices` × TotalInstanceCount; absent when unknown.
   */
  committedPricePerHourUsd?: number;
  /** CapacityReservationId. */
  id: string;
  /** Its instance type. */
  instanceType: string;
  /** NodeClaims the run launched into it. */
  launches: number;
  /** NodeClaims deleted because the capacity block was expiring. */
  nodesDeleted: number;
  /**
   * NodeClaims deleted on an interruption notice (an interruptible ODCR's owner reclaimed
   * their instances: trace `reservationInterrupt`); absent when none.
   */
  nodesInterrupted?: number;
  /** NodeClaims that ran on as on-demand after the ODCR ended. */
  nodesOnDemand: number;
  /** Why a figure is missing. */
  note?: string;
  /** The most instances used at once. */
  peakUsed: number;
  /** `default` (an ODCR) or `capacity-block`. */
  reservationType: string;
  /** TotalInstanceCount. */
  total: number;
  /**
   * Σ (TotalInstanceCount − AvailableInstanceCount) × time while active, in instance-hours
   * (instances outside the cluster count as used, as EC2 counts them).
   */
  usedInstanceHours: number;
  /** `usedInstanceHours ÷ (total × active hours)`. */
  utilization: number;
  /** Its availability zone. */
  zone: string;
}

/** The knobs of `simulate` (`request.simulation`); every field has a default, and the answer repeats them all as resolved. */
export interface ResolvedSimulationSettings {
  /** Seconds the provisioner waits with no new pending pod before it plans (Karpenter's batch idle duration, 1 s). */
  batchIdleSeconds: number;
  /** Longest a provisioning batch may keep growing, seconds (Karpenter's batch max duration, 10 s). */
  batchMaxSeconds: number;
  /**
   * What a capacity block costs, in USD per instance-hour, by reservation id: the prepaid
   * price is not in the `describe-capacity-reservations` output (it is the block's upfront
   * fee ÷ instances ÷ hours). Without it a block's committed cost is unknown.
   */
  capacityBlockPrices?: Record<string, number>;
  /** Registered → initialized on accelerator nodes: the device plugin registering the devices. */
  devicePluginSeconds: SecondsRange;
  /** Seconds between two passes of the disruption controller. */
  disruptionPollSeconds: number;
  /** Overrides the trace's `end` (seconds from the start). */
  endSeconds?: number;
  /**
   * Launch → Node registered, for instance types with GPUs or other accelerators (3–5 min:
   * launch, cluster join, driver start).
   */
  gpuStartupSeconds: SecondsRange;
  /** Warning time a spot interruption gives before the instance goes, seconds (EC2 gives 120). */
  interruptionNoticeSeconds: number;
  /** Safety stop: the most events one run may process before it fails. */
  maxEvents: number;
  /**
   * Safety stop on scheduling work: the pending pods summed over every provisioning pass.
   * Each pass re-schedules every pending pod (as Karpenter does), so pods that wait long
   * (behind a limit) make the work grow with the square of the queue; this bounds the time.
   */
  maxPodAttempts: number;
  /** Seconds between two samples of `series`. */
  metricsIntervalSeconds: number;
  /** Seed of every random draw (startup times, run times, interruptions); same seed, same run. */
  seed: number;
  /** Poisson rate of spot interruption notices per spot instance-hour. */
  spotInterruptionRatePerHour: number;
  /** Launch → Node registered, other instance types (1–2 min). */
  startupSeconds: SecondsRange;
  /** Used when the NodePool template has no `terminationGracePeriod`; None = wait for pods. */
  terminationGracePeriodSeconds?: number;
}

/** The risk of one edit: its level and one line per finding. */
export interface Risk {
  /** `none`, `low`, `medium` or `high`: the worst finding. */
  level: RiskLevel;
  /** What the edit puts at risk, worst first. */
  reasons: string[];
}

export type RiskLevel = 'none' | 'low' | 'medium' | 'high';

/** The running-cluster side of an `Optimization` (present with `optimize.running`). */
export interface RunningCluster {
  /** `optimal`, or `within x % of optimal`. */
  certificate: string;
  /** $/h of the managed nodes now (as `consolidate`'s `pricePerHourBefore`). */
  currentPricePerHour: number;
  /** What Karpenter's consolidation does from here. */
  karpenter?: KarpenterConsolidation;
  /** No placement of the running pods on managed nodes costs less. */
  lowerBoundPerHour: number;
  /** The optimum's NodeClaims that stand for no existing node (launched anew). */
  newNodeClaims: string[];
  /** Every existing node: pinned, kept or removed. */
  nodes: RunningNode[];
  /** The clock (RFC 3339). */
  now: string;
  /** $/h of the optimum's managed nodes: pinned and kept nodes plus the new NodeClaims. */
  optimumPricePerHour: number;
  /** Pending pods, left out (plain `optimize` is for them). */
  pendingLeftOut: string[];
  /** Running pods that end on another node than they run on now. */
  podsMoved: number;
  /** `currentPricePerHour − optimumPricePerHour`. */
  savingsPerHour: number;
  /** Savings × 730 h. */
  savingsPerMonth: number;
}

/** One existing node in the running-cluster optimum. */
export interface RunningNode {
  /** Pinned, kept or removed. */
  fate: NodeFate;
  /** Its instance type, when the node has the label. */
  instanceType?: string;
  /** The Node's (or in-flight NodeClaim's) name. */
  name: string;
  /** Its NodePool (absent for an unmanaged node). */
  nodePool?: string;
  /** For a kept node: the optimum NodeClaim it stands for. */
  optimumNodeClaim?: string;
  /** Pods running on it now (DaemonSet and mirror pods not counted). */
  pods: number;
  /** $/h of its offering, as `consolidate` prices it (0 when it cannot be priced). */
  pricePerHour: number;
  /** Why a pinned node stays (disruption's blocker, in its words). */
  reason?: string;
}

/** Why a node is removed, waits or stays. */
export type ScaleDownCode = 'empty' | 'underutilized' | 'unneeded-too-short' | 'scale-down-in-cooldown' | 'not-in-node-group' | 'scale-down-disabled' | 'not-ready-for-scale-down' | 'not-underutilized' | 'min-size-reached' | 'not-replicated' | 'unmovable-kube-system-pod' | 'not-safe-to-evict' | 'local-storage' | 'not-enough-pdb' | 'no-place-to-move-pods';

/** A pod of a removed node and the node it goes to. */
export interface ScaleDownMove {
  /** The pod (`namespace/name`). */
  pod: string;
  /** The node it is re-placed on. */
  to: string;
}

/** One node and what scale-down does with it. */
export interface ScaleDownNode {
  /** Why, as a stable code. */
  code: ScaleDownCode;
  /** Its instance type, when labelled. */
  instanceType?: string;
  /** The scan loop (1-based, 10 s apart) that removes it, for `remove`. */
  loop?: number;
  /** Why, for people. */
  message: string;
  /** Where its pods go when it is removed (or would go, for `unneeded`). */
  moves?: ScaleDownMove[];
  /** The node's name. */
  name: string;
  /** Its node group (absent: in none of the input's groups). */
  nodeGroup?: string;
  /** When it becomes removable (RFC 3339), for `unneeded`. */
  removableAt?: string;
  /** Requests over allocatable of the resource that decides (see `utilizationResource`). */
  utilization?: number;
  /** `nvidia.com/gpu` on a GPU node, else `cpu` or `memory` (the larger). */
  utilizationResource?: string;
  /** `remove`, `unneeded` (removable later) or `keep`. */
  verdict: ScaleDownVerdict;
}

/** The scale-down settings an answer was made with. */
export interface ScaleDownSettings {
  /** `--scale-down-delay-after-add`, seconds. */
  delayAfterAddSeconds: number;
  /** `--scale-down-gpu-utilization-threshold`. */
  gpuUtilizationThreshold: number;
  /** `--scale-down-unneeded-time`, seconds. */
  unneededTimeSeconds: number;
  /** `--scale-down-utilization-threshold`. */
  utilizationThreshold: number;
}

/** What scale-down does with a node. */
export type ScaleDownVerdict = 'remove' | 'unneeded' | 'keep';

/** One scale-up: the option the expanders chose in one scan loop. */
export interface ScaleUp {
  /** The expander that chose, or `random` when several options were left. */
  decidedBy: string;
  /** The scan loop (1-based). */
  loop: number;
  /** The node group. */
  nodeGroup: string;
  /** Nodes added. */
  nodes: number;
  /** Every option of the loop. */
  options: ScaleUpOption[];
  /** Pods placed. */
  pods: string[];
  /** The options the random fallback chose among (nodecast takes the first by name). */
  tiedWith?: string[];
}

/** One scale-up option of a loop: a node group and what its estimate places. */
export interface ScaleUpOption {
  /** The estimate stopped at a limit (max-nodes-per-scaleup, max size, max-nodes-total). */
  limited: boolean;
  /** The node group. */
  nodeGroup: string;
  /** Nodes added. */
  nodes: number;
  /** Pods placed. */
  pods: number;
  /** least-waste's score: unused CPU fraction + unused memory fraction of the new nodes. */
  waste: number;
}

/** The move a Balanced score is about. */
export type ScoredMove = 'delete' | 'replace' | 'delete (best case)';

/** An inclusive range of whole seconds, sampled uniformly per NodeClaim. */
export interface SecondsRange {
  /** Longest duration, in seconds (≥ `min`). */
  max: number;
  /** Shortest duration, in seconds. */
  min: number;
}

/** Metric samples at `0, intervalSeconds, …` up to the end of the run. */
export interface Series {
  /** Seconds between samples. */
  intervalSeconds: number;
  /** One time series per metric name and label set. */
  metrics: Metric[];
  /** The sample times, in simulated seconds. */
  timesSeconds: number[];
}

/** The node autoscaler of one side. */
export type Side = 'cluster-autoscaler' | 'karpenter';

/** One NodeClaim of the run, its lifecycle and what it cost. */
export interface SimulatedNode {
  /** `on-demand`, `spot` or `reserved`. */
  capacityType: CapacityType | null;
  /** `pricePerHourUsd × lifetime`, in USD. */
  costUsd: number;
  /** USD the node cost while initialized with no pods. */
  emptyCostUsd: number;
  /** GPUs the node has (its capacity of the GPU resources, e.g. `nvidia.com/gpu`). */
  gpus: number;
  /** Second the node became initialized and could run pods (absent if it never did). */
  initializedSeconds: number | null;
  /** The instance type launched. */
  instanceType: string | null;
  /** Simulated second the NodeClaim was created. */
  launchedSeconds: number;
  /** Seconds from launch to termination (or to the end of the run). */
  lifetimeSeconds: number;
  /** The NodeClaim's name, `<nodepool>-<n>` as in a plan. */
  name: string;
  /** The NodePool it was launched from. */
  nodePool: string | null;
  /** How many pods ever ran on the node. */
  pods: number;
  /** $/h of the launched offering. */
  pricePerHourUsd: number;
  /** Second the Node registered with the cluster (absent if it never did). */
  registeredSeconds: number | null;
  /** Second the node was terminated; absent when it was alive at the end. */
  terminatedSeconds: number | null;
  /** Why the node was terminated: `empty`, `underutilized`, `expired` or `interrupted`; absent when alive at the end. */
  terminationReason?: TerminationReason;
  /** The availability zone launched in. */
  zone: string | null;
}

/** One pod of the run: when it waited, ran and ended. */
export interface SimulatedPod {
  /** Second its run time completed (absent if it did not finish). */
  finishedSeconds: number | null;
  /** The pod, as `namespace/name`. */
  name: string;
  /** The nodes it ran on, in order. */
  nodes: string[];
  /** Seconds pending, summed over every spell (submission or eviction until start). */
  pendingSeconds: number;
  /** How many times the pod restarted after an eviction or interruption. */
  restarts: number;
  /** The run time the trace drew for the pod; absent when it runs until deleted. */
  runTimeSeconds: number | null;
  /** Seconds spent running, lost work included. */
  runningSeconds: number;
  /** Second it first started running (absent if it never did). */
  startedSeconds: number | null;
  /** Final state: `finished`, `running`, `pending` or `deleted`. */
  state: PodState;
  /** Simulated second the pod was submitted. */
  submittedSeconds: number;
  /** Seconds of running lost to evictions and interruptions. */
  workLostSeconds: number;
  /** The workload that created it, as `Kind/namespace/name`. */
  workload: string;
}

/** The answer of `simulate` (`kind: Simulation`). */
export interface Simulation {
  /**
   * Per workload an HPA scales or the trace gives demand for: replicas, served demand,
   * scale-up times and GPU cost (docs/simulate.md, "Demand and autoscaling"). Absent without.
   */
  autoscaling?: AutoscaledWorkload[];
  /** Every NodeClaim the run launched, with its lifecycle times and cost. */
  nodes: SimulatedNode[];
  /** Every pod the trace submitted, with its waits, run time and outcome. */
  pods: SimulatedPod[];
  /**
   * Per capacity reservation of the input: its use over the run and what it commits
   * (docs/reservations.md, "In the simulator"). Absent without reservations.
   */
  reservations?: ReservationUse[];
  /** The seed every random draw derives from; the same seed replays the same run. */
  seed: number;
  /** Karpenter's metrics sampled at a fixed interval. */
  series: Series;
  /** Every setting as resolved (defaults filled in), so a run can be reproduced from the answer. */
  settings: ResolvedSimulationSettings;
  /** Objects the loader recognised but does not model (kind/name and why). */
  skipped: Skipped[];
  /** RFC 3339 start, when the trace gave one. */
  start?: string;
  /** Totals over the whole run: cost, savings against a static cluster, GPU hours, pod waits. */
  summary: SimulationSummary;
  /** Every event in time order (pod and NodeClaim lifecycle steps). */
  timeline: TimelineEntry[];
  /** Non-fatal findings about the input or the trace. */
  warnings: Warning[];
}

/** The answer of kind `Simulation`: a success with the `Simulation` fields, or a failure. */
export type SimulationAnswer = (Simulation & { apiVersion: 'nodecast/v1'; kind: 'Simulation'; status: 'success'; }) | SimulationFailure;

/** No answer: every problem found, located. */
export interface SimulationFailure {
  apiVersion: 'nodecast/v1';
  /** `invalid`: Kubernetes or Karpenter would reject the input (CLI exit 1, Python `ValidationError`); `unusable`: nodecast cannot read or answer it (exit 2, `InputError`). */
  errorClass: 'invalid' | 'unusable';
  errors: InputError[];
  kind: 'Simulation';
  status: 'failure';
}

/** The run's totals (`summary` of a Simulation). */
export interface SimulationSummary {
  /**
   * With capacity reservations: `costUsd` split by the capacity type the nodes ran as
   * (`on-demand`, `spot`, `reserved`: reserved nodes cost Karpenter's on-demand ÷ 10,000,000).
   */
  costByCapacityType?: Record<string, number>;
  /** What every NodeClaim cost over its lifetime, in US dollars. */
  costUsd: number;
  /** Nodes disrupted, in total and per reason (`empty`, `underutilized`, `expired`, `interrupted`). */
  disruptions: Disruptions;
  /** Simulated time from 0 to the end of the run, in seconds. */
  durationSeconds: number;
  /** USD spent on initialized nodes with no pods (waiting for `consolidateAfter`, a budget, or never used). */
  emptyNodeCostUsd: number;
  /** Seconds nodes spent initialized and empty, summed over nodes. */
  emptyNodeSeconds: number;
  /** Σ node GPUs × node lifetime, in hours: the GPU time paid for. */
  gpuHoursPaid: number;
  /** Σ pod GPU requests × pod running time, in hours: the GPU time pods used. */
  gpuHoursUsed: number;
  /** `gpuHoursUsed ÷ gpuHoursPaid` (0 when nothing was paid). */
  gpuUtilization: number;
  /** NodeClaims launched, in total and per NodePool. */
  launches: Launches;
  /** Nodes still running when the simulation ended. */
  nodesAliveAtEnd: number;
  /** Nearest-rank percentiles of the time pods waited before they started (pods that started at least once). */
  pendingSeconds: Percentiles;
  /** Pods by final state. */
  pods: PodCounts;
  /**
   * With capacity reservations: what they commit over the run whether used or not, the sum
   * of the reservations' known `committedCostUsd` (a capacity block without a price is left
   * out, warning `reservation-price-unknown`).
   */
  reservedCommittedCostUsd?: number;
  /** `100 × (static − actual) / static`. */
  savingsPercent: number;
  /** `staticCostUsd − costUsd`: what autoscaling saved against the static cluster. */
  savingsUsd: number;
  /** The static cluster's node mix, per NodePool, instance type and capacity type. */
  staticCluster: StaticNodes[];
  /** What the static cluster (nodes alive at each pool's on-demand peak, kept all run) would cost, USD. */
  staticCostUsd: number;
  /** With capacity reservations: `costUsd` + `reservedCommittedCostUsd`. */
  totalCostWithReservationsUsd?: number;
  /** Seconds of pod run time lost to evictions and interruptions (restarted from zero). */
  workLostSeconds: number;
}

/** An object nodecast read but does not model. */
export interface Skipped {
  /** 0-based document index within the input. */
  document: number;
  /** The object's kind. */
  kind: string;
  /** The object's name. */
  name: string;
  /** Why it is not modelled. */
  reason: string;
  /** The input it came from. */
  source?: string;
}

/** A NodeClaim the static deprovisioning controller deletes (docs/feature-gates.md). */
export interface StaticDeprovision {
  /** The node's name (the NodeClaim's, when it has no Node yet). */
  name: string;
  /** The static NodePool. */
  nodePool: string;
  /** Its pods that this pass provisions for again, as `namespace/name`. */
  pods: string[];
  /**
   * Nodes of the same rank Karpenter could have taken instead (its order among them is a Go
   * map's or an unstable sort's); empty when the choice is forced.
   */
  tiedWith?: string[];
  /** Why the controller took it: `not launched yet`, `empty` or `lowest disruption cost`. */
  why: string;
}

/** A NodeClaim a static NodePool keeps whatever the demand (docs/feature-gates.md). */
export interface StaticNodeClaim {
  /** `on-demand`, `spot` or `reserved`: the offering's capacity type. */
  capacityType: CapacityType | null;
  /**
   * The instance type nodecast expects EC2 to launch (the cheapest the NodePool allows);
   * absent when the NodePool's requirements leave none.
   */
  instanceType: string | null;
  /** `<nodepool>-<n>`, numbered past the node names the input already uses. */
  name: string;
  /** The static NodePool. */
  nodePool: string;
  /** Pending pods this pass places on it, as `namespace/name`. */
  pods: string[];
  /** $/h of the chosen offering. */
  pricePerHour: number | null;
  /** The availability zone of the chosen offering. */
  zone: string | null;
}

/** One group of the static cluster: nodes of one type a pool had at its on-demand peak. */
export interface StaticNodes {
  /** Capacity type of the nodes at the peak (priced on-demand in the comparison). */
  capacityType: CapacityType;
  /** How many such nodes the pool had at its peak. */
  count: number;
  /** The nodes' instance type. */
  instanceType: string;
  /** The NodePool the nodes belong to. */
  nodePool: string;
  /** On-demand $/h of one such node. */
  pricePerHourUsd: number;
}

/** How big the optimised problem was and how the solver ended. */
export interface Stats {
  /** Every maximal packing pattern was listed (the integer program is the whole problem). */
  exhaustive: boolean;
  /** Groups of identical pods (same requests and constraints) the pods fall into. */
  groups: number;
  /** Offerings (NodePool, type, capacity type, zone) left after dominance. */
  offerings: number;
  /** Node packing patterns (instance class and pods per group) given to the integer program. */
  patterns: number;
  /** Pods optimised, grouped into this many groups of identical pods. */
  pods: number;
  /** The solver's time budget ran out; the answer is the best packing so far. */
  timedOut: boolean;
}

/**
 * Why a terminate-first command could not stage its replacement first (Karpenter's
 * `TerminateFirstReason`, disruption/types.go).
 */
export type TerminateFirst = 'no-reserved-capacity' | 'static-at-limit';

/** Why a simulated node ended. */
export type TerminationReason = 'empty' | 'underutilized' | 'expired' | 'interrupted' | 'drifted' | 'capacity-block-expiring' | 'reservation-interrupted' | 'unhealthy';

/** Candidates among which Karpenter's choice is arbitrary. */
export interface Tie {
  /** How many of `nodes` the command takes. */
  count: number;
  /** e.g. `Karpenter may pick any of: node-x, node-y (equal price ÷ disruption cost 0.1)`. */
  message: string;
  /** The nodes Karpenter may pick from (sorted by name), nodecast's pick among them. */
  nodes: string[];
}

/** One event of the run. */
export interface TimelineEntry {
  /** Free text for people, e.g. the launched offering and its price. */
  detail?: string;
  /** What happened, e.g. `pod-bound`, `nodeclaim-launched`, `nodeclaim-terminated`. */
  event: TimelineEvent;
  /** The node involved, when the event has one (e.g. the node a pod is bound to). */
  node?: string;
  /** The pod (`namespace/name`) or NodeClaim the event is about. */
  object: string;
  /** A reason code: the disruption reason on evictions and terminations, the summary code on `pod-unschedulable`. */
  reason?: string;
  /** The same instant in RFC 3339, when the trace gave a start. */
  time?: string;
  /** Simulated second of the event. */
  timeSeconds: number;
}

/** What happened at a timeline entry. */
export type TimelineEvent = 'pod-pending' | 'pod-nominated' | 'pod-bound' | 'pod-started' | 'pod-finished' | 'pod-evicted' | 'pod-restarted' | 'pod-deleted' | 'pod-unschedulable' | 'nodeclaim-launched' | 'nodeclaim-registered' | 'nodeclaim-initialized' | 'nodeclaim-disrupted' | 'nodeclaim-interrupted' | 'nodeclaim-terminated' | 'nodeclaim-relabeled' | 'reservation-active' | 'reservation-expiring' | 'reservation-ended' | 'node-condition' | 'reservation-offering-unavailable' | 'reservation-offering-available' | 'disruption-decided' | 'disruption-rejected';

/** New nodes of one instance type and capacity type. */
export interface TypeCount {
  /** `spot` or `on-demand`. */
  capacityType: string;
  /** How many. */
  count: number;
  /** The instance type. */
  instanceType: string;
}

/** What one instance type means for the pod: launched, a fallback option, or rejected. */
export interface TypeExplanation {
  /** The instance type asked about, e.g. `g5.xlarge`. */
  instanceType: string;
  /** Why, one line per check (requirements, offerings, resources, price filter). */
  reasons: string[];
  /** `launched`, `option` (allowed but not the cheapest) or `rejected`. */
  verdict: TypeVerdict;
}

/** What an explained instance type is to the plan. */
export type TypeVerdict = 'launched' | 'option' | 'rejected';

/** A pending pod that stays pending, and why per NodePool. */
export interface Unschedulable {
  /** The most telling reason code over all NodePools (FORMAT §7.1). */
  code: ReasonCode;
  /**
   * Checked fix hints, one per NodePool reason nodecast could find a change for (absent
   * when there is none).
   */
  hints?: Hint[];
  /** The pod, as `namespace/name`. */
  pod: string;
  /** Every reason the pod fits nowhere, one per NodePool (and one for existing nodes). */
  reasons: Reason[];
}

/** The answer of kind `Validation`: a success with the `ValidationReport` fields, or a failure. */
export type ValidationAnswer = (ValidationReport & { apiVersion: 'nodecast/v1'; kind: 'Validation'; status: 'success'; }) | ValidationFailure;

/** No answer: every problem found, located. */
export interface ValidationFailure {
  apiVersion: 'nodecast/v1';
  /** `invalid`: Kubernetes or Karpenter would reject the input (CLI exit 1, Python `ValidationError`); `unusable`: nodecast cannot read or answer it (exit 2, `InputError`). */
  errorClass: 'invalid' | 'unusable';
  errors: InputError[];
  kind: 'Validation';
  status: 'failure';
}

/** The answer of `validate` when the input is valid: what was loaded. */
export interface ValidationReport {
  /** The NodePools found, by name. */
  nodePools: string[];
  /** How many YAML/JSON documents (objects) the inputs held. */
  objects: number;
  /** How many pods (and workload-expanded pods) the model holds. */
  pods: number;
  /** Objects recognised but not modelled (kind/name and why). */
  skipped: Skipped[];
  /**
   * Valid objects that will not work as meant: a NodePool that can never launch anything
   * (`nodepool-launches-nothing`), and why.
   */
  warnings?: Warning[];
}

/** One candidate (node or NodePool) and whether it takes the pod. */
export interface Verdict {
  /** The node or NodePool name. */
  name: string;
  /** True when the candidate can take the pod. */
  ok: boolean;
  /** Why it can or cannot, for people. */
  reason: string;
}

/** A non-fatal finding about the input. */
export interface Warning {
  /** Stable warning code, kebab-case. */
  code: string;
  /** The finding for people. */
  message: string;
  /** The object it is about, e.g. `NodePool/default`; absent when it is about the whole input. */
  object?: string;
}
