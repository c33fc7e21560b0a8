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
  /** Karpenter − optimum, $/h (what the edits try to recover). */
  gapPerHour: number;
  /** $/h of Karpenter's plan for the inputs as given. */
  karpenterPricePerHour: number;
  /** What advise does not search, and what `optimize` did not optimise. */
  notes: string[];
  optimumCertificate: string;
  /** $/h of `optimize`'s cheapest NodeClaims for the same pods, and its certificate. */
  optimumPricePerHour: number;
  stats: AdviseStats;
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

export interface AdviseStats {
  /** The bound on single edits verified per call. */
  candidateLimit: number;
  /** Single edits generated and verified (each one load and one plan). */
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
}

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
   * `split`, or `combined`.
   */
  kind: string;
  /** Karpenter's plan with the edit applied. */
  plan: PlanSummary;
  rank: number;
  savingsPerHour: number;
  savingsPerMonth: number;
  title: string;
}

/** One Balanced pool's score of one move (spec disruption.md §16). */
export interface BalancedScore {
  approved: boolean;
  /** Summed reschedule disruption cost of the pool's removed nodes. */
  disruptionCost: number;
  disruptionFraction: number;
  k: number;
  /** `delete`, `replace`, or `delete (best case)` for the pre-check before simulating. */
  move: ScoredMove;
  nodePool: string;
  /** The pool's hourly cost the savings are divided by. */
  poolCostPerHour: number;
  /** Where `poolCostPerHour` comes from. */
  poolCostSource: string;
  /** The pool's summed disruption cost over all its nodes. */
  poolDisruptionCost: number;
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

export type CapacityType = 'on-demand' | 'spot' | 'reserved';

export interface CatalogAnswer {
  count: number;
  instanceTypes: CatalogRow[];
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

export interface CatalogRow {
  acceleratorCount?: string;
  acceleratorName?: string;
  allocatableCpu: string;
  allocatableMemory: string;
  arch: string;
  gpuCount?: string;
  /** Per GPU, MiB. */
  gpuMemoryMib?: string;
  gpuName?: string;
  memory: string;
  name: string;
  onDemandPricePerHour: number;
  spotPricePerHour: number | null;
  vcpu: string;
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
  disruptedNodes: string[];
  /** `expiration`, `emptiness`, `multi-node-consolidation` or `single-node-consolidation`. */
  method?: Method;
  nodePools: PoolBudget[];
  nodes: NodeVerdict[];
  /** The clock the decision was made at (RFC 3339). */
  now: string;
  pricePerHourAfter: number;
  /** $/h of the managed nodes before and after the command. */
  pricePerHourBefore: number;
  /** `expired`, `empty` or `underutilized` (absent for `none`). */
  reason?: DisruptionReason;
  replacement?: Replacement;
  /** (before − after) × 730 h, to the cent (computed once, in `figures`). */
  savingsPerMonth: number;
  /**
   * The command's Balanced scores, one per Balanced pool among the disrupted nodes (empty
   * when none is Balanced, and for emptiness and expiration, which are never scored).
   */
  scores: BalancedScore[];
  skipped: Skipped[];
  /** The decision in one line, as the CLI prints it first (computed once, in `figures`). */
  summary: string;
  /**
   * Where Karpenter's own pick is not determined: candidates that tie on its sort key
   * (price ÷ disruption cost) are ordered arbitrarily, so it may pick others than nodecast.
   */
  ties: Tie[];
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

export type DisruptionReason = 'expired' | 'empty' | 'underutilized';

export interface Disruptions {
  byReason: Record<string, number>;
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
  /** nodecast's value (the first candidate by name). */
  value: string;
}

export interface EditOut {
  nodePool: string;
  /** The field path in the NodePool; empty when the edit adds the NodePool `value` (a split). */
  path: string;
  value: unknown;
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

export interface ExistingNode {
  instanceType?: string;
  name: string;
  nodePool?: string;
  pods: string[];
}

export interface Explanation {
  instanceType?: TypeExplanation;
  node?: NodeExplanation;
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
  nodePool: string;
  /** True when the re-plan with the change schedules the pod. */
  verified: boolean;
}

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

/** A NodeClaim that launches: its launch fields are not null. */
export type LaunchedNodeClaim = NodeClaimFields & NodeClaimLaunch;

/** A Replacement that launches: its launch fields are not null. */
export type LaunchedReplacement = ReplacementFields & ReplacementLaunch;

export interface Launches {
  byNodePool: Record<string, number>;
  total: number;
}

export interface LimitUsage {
  limit: string;
  remaining: string;
  used: string;
}

export type Method = 'expiration' | 'emptiness' | 'multi-node-consolidation' | 'single-node-consolidation';

export interface Metric {
  labels: Record<string, string>;
  name: string;
  values: number[];
}

export type NodeClaim = NodeClaimFields & (NodeClaimLaunch | NodeClaimNoLaunch);

export interface NodeClaimFields {
  /**
   * GPUs and other accelerators of the launched type (computed once, in `figures`);
   * empty when it has none. Shared by the NodeClaims with the same allocatable and labels.
   */
  accelerators: Accelerator[];
  allocatable: Record<string, string>;
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
  nodePool: string;
  pods: string[];
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
  instanceType: string;
  pricePerHour: number;
  zone: string;
}

/** No offering can launch (none available or compatible): every launch field null. */
export interface NodeClaimNoLaunch {
  capacityType: null;
  instanceType: null;
  pricePerHour: null;
  zone: null;
}

/** Why a node is (or is not) disrupted at `now`. */
export interface NodeExplanation {
  /** The command Karpenter would execute now, for context. */
  command: string;
  node: NodeVerdict;
  summary: string;
  /** The answer's ties that name this node: Karpenter may pick it, or others, instead. */
  ties: Tie[];
}

export interface NodePoolUsage {
  /** Per limited resource: limit, used (existing nodes + launched NodeClaims), remaining. */
  limits: Record<string, LimitUsage>;
  name: string;
  newNodeClaims: number;
  weight: number;
}

export interface NodeVerdict {
  capacityType?: CapacityType;
  disrupted: boolean;
  instanceType?: string;
  name: string;
  nodePool?: string;
  pods: number;
  pricePerHour?: number;
  /** Why the node stays (FORMAT §7.2 codes), first the one that decided. */
  reasons: Reason[];
  /**
   * The Balanced score of the move tried for this node (single-node consolidation, or the
   * best case when that already fails), or of the command that disrupts it.
   */
  score?: BalancedScore;
}

export interface Optimization {
  /** `optimal`, or `within x % of optimal` (the gap of `optimumPricePerHour` to the bound). */
  certificate: string;
  /** (optimum − bound) / optimum, in percent (0 when proven optimal). */
  gapPercent: number;
  /** Karpenter's NodeClaims, in the same shape. */
  karpenterNodeClaims: OptimizedClaim[];
  /** $/h of the NodeClaims Karpenter's plan launches. */
  karpenterPricePerHour: number;
  /** No placement of these pods costs less (LP relaxation, or the optimum when proven). */
  lowerBoundPerHour: number;
  /** Pods whose NodePool, instance type, capacity type or zone differ between the two. */
  movedPods: PodMove[];
  /** The optimum's NodeClaims (kept ones marked `kept`), cheapest plan first by pool. */
  nodeClaims: OptimizedClaim[];
  /** Constraints the optimiser does not optimise for, and what it does with them instead. */
  notOptimised: string[];
  /** $/h of the cheapest NodeClaims found for the same pods. */
  optimumPricePerHour: number;
  /** Pods Karpenter puts on existing nodes (kept there in the optimum). */
  podsOnExistingNodes: string[];
  savingsPerHour: number;
  /** Savings × 730 h. */
  savingsPerMonth: number;
  stats: Stats;
  /** Pods Karpenter leaves pending (left out of both sides). */
  unschedulable: string[];
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

export interface OptimizedClaim {
  capacityType: CapacityType;
  instanceType: string;
  /** Karpenter's NodeClaim, kept as it is (its pods carry constraints not optimised). */
  kept: boolean;
  name: string;
  nodePool: string;
  pods: string[];
  pricePerHour: number;
  zone: string;
}

export interface Percentiles {
  max: number;
  p50: number;
  p95: number;
}

/** A provisioning plan. */
export interface Plan {
  existingNodes: ExistingNode[];
  nodeClaims: NodeClaim[];
  nodePools: NodePoolUsage[];
  skipped: Skipped[];
  /** The plan in one line, as the CLI prints it first (computed once, in `figures`). */
  summary: string;
  totalPricePerHour: number;
  /** `totalPricePerHour` × 730 h, to the cent (computed once, in `figures`). */
  totalPricePerMonth: number;
  unschedulable: Unschedulable[];
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

/** A plan in a few numbers and lines. */
export interface PlanSummary {
  /** `count × type capacity-type (NodePool)`, most first. */
  launches: string[];
  nodeClaims: number;
  pricePerHour: number;
  unschedulable: number;
}

export interface PodCounts {
  deleted: number;
  finished: number;
  pending: number;
  running: number;
  submitted: number;
}

export interface PodExplanation {
  /**
   * Why each existing node did not take the pod (checked against the nodes as they were
   * before this pass).
   */
  existingNodes: Verdict[];
  node?: string;
  nodeClaim?: NodeClaim;
  /** Each NodePool in the order Karpenter tries them. */
  nodePools: Verdict[];
  /** `existing-node`, `new-node-claim` or `unschedulable`. */
  outcome: PodOutcome;
  pod: string;
  /** Preference relaxation steps that were needed. */
  relaxations: string[];
  summary: string;
  unschedulable?: Unschedulable;
}

export interface PodMove {
  /** `nodeclaim-name (pool, type, capacity type, zone)` on each side. */
  karpenter: string;
  optimum: string;
  pod: string;
}

/** Where an explained pod goes. */
export type PodOutcome = 'existing-node' | 'new-node-claim' | 'unschedulable';

/** A simulated pod's state at the end of the trace. */
export type PodState = 'finished' | 'running' | 'pending' | 'deleted';

export interface PoolBudget {
  /**
   * Disruptions allowed now per reason (after subtracting nodes already disrupting); absent
   * = unlimited.
   */
  allowed: Record<string, number | null>;
  name: string;
  nodes: number;
}

export interface Reason {
  code: ReasonCode;
  message: string;
  nodePool?: string;
}

export type ReasonCode = 'no-instance-type-fits' | 'requirement-conflict' | 'taint-not-tolerated' | 'limit-exceeded' | 'topology-unsatisfiable' | 'min-values-not-met' | 'host-port-conflict' | 'pod-ignored' | 'no-nodepools' | 'do-not-disrupt-pod' | 'do-not-disrupt-node' | 'pdb' | 'budget' | 'not-consolidatable-yet' | 'consolidation-disabled' | 'policy-when-empty' | 'not-cheaper' | 'pods-do-not-fit' | 'spot-to-spot-disabled' | 'not-initialized' | 'unmanaged' | 'deleting' | 'nodepool-not-found' | 'unknown-instance-type' | 'not-evaluated' | 'below-balanced-threshold';

/** The node a `replace` launches. */
export type Replacement = ReplacementFields & (ReplacementLaunch | ReplacementNoLaunch);

/** The node a `replace` launches. */
export interface ReplacementFields {
  /** Options that survive the price filter, cheapest first. */
  instanceTypeOptions: string[];
  nodePool: string;
  pods: string[];
}

/** What is launched: every launch field set. */
export interface ReplacementLaunch {
  capacityType: CapacityType;
  instanceType: string;
  pricePerHour: number;
  zone: string;
}

/** No offering can launch (none available or compatible): every launch field null. */
export interface ReplacementNoLaunch {
  capacityType: null;
  instanceType: null;
  pricePerHour: null;
  zone: null;
}

export interface ResolvedSimulationSettings {
  batchIdleSeconds: number;
  batchMaxSeconds: number;
  /** Registered → initialized on accelerator nodes: the device plugin registering the devices. */
  devicePluginSeconds: SecondsRange;
  disruptionPollSeconds: number;
  /** Overrides the trace's `end` (seconds from the start). */
  endSeconds?: number;
  /**
   * Launch → Node registered, for instance types with GPUs or other accelerators (3–5 min:
   * launch, cluster join, driver start).
   */
  gpuStartupSeconds: SecondsRange;
  interruptionNoticeSeconds: number;
  maxEvents: number;
  /**
   * Safety stop on scheduling work: the pending pods summed over every provisioning pass.
   * Each pass re-schedules every pending pod (as Karpenter does), so pods that wait long
   * (behind a limit) make the work grow with the square of the queue; this bounds the time.
   */
  maxPodAttempts: number;
  metricsIntervalSeconds: number;
  seed: number;
  /** Poisson rate of spot interruption notices per spot instance-hour. */
  spotInterruptionRatePerHour: number;
  /** Launch → Node registered, other instance types (1–2 min). */
  startupSeconds: SecondsRange;
  /** Used when the NodePool template has no `terminationGracePeriod`; None = wait for pods. */
  terminationGracePeriodSeconds?: number;
}

/** The move a Balanced score is about. */
export type ScoredMove = 'delete' | 'replace' | 'delete (best case)';

/** An inclusive range of whole seconds, sampled uniformly per NodeClaim. */
export interface SecondsRange {
  max: number;
  min: number;
}

export interface Series {
  intervalSeconds: number;
  metrics: Metric[];
  timesSeconds: number[];
}

export interface SimulatedNode {
  capacityType: CapacityType | null;
  costUsd: number;
  emptyCostUsd: number;
  gpus: number;
  initializedSeconds: number | null;
  instanceType: string | null;
  launchedSeconds: number;
  lifetimeSeconds: number;
  name: string;
  nodePool: string | null;
  pods: number;
  pricePerHourUsd: number;
  registeredSeconds: number | null;
  terminatedSeconds: number | null;
  terminationReason?: TerminationReason;
  zone: string | null;
}

export interface SimulatedPod {
  finishedSeconds: number | null;
  name: string;
  nodes: string[];
  pendingSeconds: number;
  restarts: number;
  runTimeSeconds: number | null;
  runningSeconds: number;
  startedSeconds: number | null;
  state: PodState;
  submittedSeconds: number;
  workLostSeconds: number;
  workload: string;
}

/** The answer of `simulate` (`kind: Simulation`). */
export interface Simulation {
  nodes: SimulatedNode[];
  pods: SimulatedPod[];
  seed: number;
  series: Series;
  settings: ResolvedSimulationSettings;
  skipped: Skipped[];
  /** RFC 3339 start, when the trace gave one. */
  start?: string;
  summary: SimulationSummary;
  timeline: TimelineEntry[];
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

export interface SimulationSummary {
  costUsd: number;
  disruptions: Disruptions;
  durationSeconds: number;
  emptyNodeCostUsd: number;
  emptyNodeSeconds: number;
  gpuHoursPaid: number;
  gpuHoursUsed: number;
  gpuUtilization: number;
  launches: Launches;
  nodesAliveAtEnd: number;
  pendingSeconds: Percentiles;
  pods: PodCounts;
  savingsPercent: number;
  savingsUsd: number;
  staticCluster: StaticNodes[];
  staticCostUsd: number;
  workLostSeconds: number;
}

/** An object nodecast read but does not model. */
export interface Skipped {
  document: number;
  kind: string;
  name: string;
  reason: string;
  source?: string;
}

export interface StaticNodes {
  capacityType: CapacityType;
  count: number;
  instanceType: string;
  nodePool: string;
  pricePerHourUsd: number;
}

export interface Stats {
  /** Every maximal packing pattern was listed (the integer program is the whole problem). */
  exhaustive: boolean;
  groups: number;
  /** Offerings (NodePool, type, capacity type, zone) left after dominance. */
  offerings: number;
  patterns: number;
  /** Pods optimised, grouped into this many groups of identical pods. */
  pods: number;
  /** The solver's time budget ran out; the answer is the best packing so far. */
  timedOut: boolean;
}

/** Why a simulated node ended. */
export type TerminationReason = 'empty' | 'underutilized' | 'expired' | 'interrupted';

/** Candidates among which Karpenter's choice is arbitrary. */
export interface Tie {
  /** How many of `nodes` the command takes. */
  count: number;
  /** e.g. `Karpenter may pick any of: node-x, node-y (equal price ÷ disruption cost 0.1)`. */
  message: string;
  /** The nodes Karpenter may pick from (sorted by name), nodecast's pick among them. */
  nodes: string[];
}

export interface TimelineEntry {
  detail?: string;
  event: TimelineEvent;
  node?: string;
  object: string;
  reason?: string;
  time?: string;
  timeSeconds: number;
}

/** What happened at a timeline entry. */
export type TimelineEvent = 'pod-pending' | 'pod-nominated' | 'pod-bound' | 'pod-started' | 'pod-finished' | 'pod-evicted' | 'pod-restarted' | 'pod-deleted' | 'pod-unschedulable' | 'nodeclaim-launched' | 'nodeclaim-registered' | 'nodeclaim-initialized' | 'nodeclaim-disrupted' | 'nodeclaim-interrupted' | 'nodeclaim-terminated';

export interface TypeExplanation {
  instanceType: string;
  reasons: string[];
  /** `launched`, `option` (allowed but not the cheapest) or `rejected`. */
  verdict: TypeVerdict;
}

/** What an explained instance type is to the plan. */
export type TypeVerdict = 'launched' | 'option' | 'rejected';

export interface Unschedulable {
  /** The most telling reason code over all NodePools (FORMAT §7.1). */
  code: ReasonCode;
  /**
   * Checked fix hints, one per NodePool reason nodecast could find a change for (absent
   * when there is none).
   */
  hints?: Hint[];
  pod: string;
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

export interface ValidationReport {
  nodePools: string[];
  objects: number;
  pods: number;
  skipped: Skipped[];
}

export interface Verdict {
  name: string;
  ok: boolean;
  reason: string;
}

export interface Warning {
  code: string;
  message: string;
  object?: string;
}
