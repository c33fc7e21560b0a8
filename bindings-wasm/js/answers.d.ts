// Generated from the Rust answer types by `make schema` (core/src/schema): do not edit.
// The same definitions as schema/answers.schema.json (`apiVersion: nodecast/v1`).

/** One Balanced pool's score of one move (spec disruption.md §16). */
export interface BalancedScore {
  approved: boolean;
  /** Summed reschedule disruption cost of the pool's removed nodes. */
  disruptionCost: number;
  disruptionFraction: number;
  k: number;
  /** `delete`, `replace`, or `delete (best case)` for the pre-check before simulating. */
  move: string;
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

export interface CatalogAnswer {
  count: number;
  instanceTypes: CatalogRow[];
  source: string;
}

/** The answer of kind `CatalogQuery`: a success with the `CatalogAnswer` fields, or a failure. */
export type CatalogQueryAnswer = (CatalogAnswer & { apiVersion: 'nodecast/v1'; kind: 'CatalogQuery'; status: 'success'; }) | Failure_CatalogQuery;

export interface CatalogRow {
  acceleratorCount?: string | null;
  acceleratorName?: string | null;
  allocatableCpu: string;
  allocatableMemory: string;
  arch: string;
  gpuCount?: string | null;
  /** Per GPU, MiB. */
  gpuMemoryMib?: string | null;
  gpuName?: string | null;
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
  method?: string | null;
  nodePools: PoolBudget[];
  nodes: NodeVerdict[];
  /** The clock the decision was made at (RFC 3339). */
  now: string;
  pricePerHourAfter: number;
  /** $/h of the managed nodes before and after the command. */
  pricePerHourBefore: number;
  /** `expired`, `empty` or `underutilized` (absent for `none`). */
  reason?: string | null;
  replacement?: Replacement | null;
  /**
   * The command's Balanced scores, one per Balanced pool among the disrupted nodes (empty
   * when none is Balanced, and for emptiness and expiration, which are never scored).
   */
  scores: BalancedScore[];
  skipped: Skipped[];
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
export type DecisionAnswer = (Decision & { apiVersion: 'nodecast/v1'; kind: 'Decision'; status: 'success'; }) | Failure_Decision;

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

export interface ExistingNode {
  instanceType?: string | null;
  name: string;
  nodePool?: string | null;
  pods: string[];
}

export interface Explanation {
  instanceType?: TypeExplanation | null;
  node?: NodeExplanation | null;
  pod?: PodExplanation | null;
}

/** The answer of kind `Explanation`: a success with the `Explanation` fields, or a failure. */
export type ExplanationAnswer = (Explanation & { apiVersion: 'nodecast/v1'; kind: 'Explanation'; status: 'success'; }) | Failure_Explanation;

/** No answer: every problem found, located. */
export interface Failure_CatalogQuery {
  apiVersion: 'nodecast/v1';
  errors: InputError[];
  kind: 'CatalogQuery';
  status: 'failure';
}

/** No answer: every problem found, located. */
export interface Failure_Decision {
  apiVersion: 'nodecast/v1';
  errors: InputError[];
  kind: 'Decision';
  status: 'failure';
}

/** No answer: every problem found, located. */
export interface Failure_Error {
  apiVersion: 'nodecast/v1';
  errors: InputError[];
  kind: 'Error';
  status: 'failure';
}

/** No answer: every problem found, located. */
export interface Failure_Explanation {
  apiVersion: 'nodecast/v1';
  errors: InputError[];
  kind: 'Explanation';
  status: 'failure';
}

/** No answer: every problem found, located. */
export interface Failure_Optimization {
  apiVersion: 'nodecast/v1';
  errors: InputError[];
  kind: 'Optimization';
  status: 'failure';
}

/** No answer: every problem found, located. */
export interface Failure_Plan {
  apiVersion: 'nodecast/v1';
  errors: InputError[];
  kind: 'Plan';
  status: 'failure';
}

/** No answer: every problem found, located. */
export interface Failure_Simulation {
  apiVersion: 'nodecast/v1';
  errors: InputError[];
  kind: 'Simulation';
  status: 'failure';
}

/** No answer: every problem found, located. */
export interface Failure_Validation {
  apiVersion: 'nodecast/v1';
  errors: InputError[];
  kind: 'Validation';
  status: 'failure';
}

/** One located problem with the input. */
export interface InputError {
  /** Stable machine-readable code, e.g. `invalid-operator`, `invalid-quantity`, `yaml-syntax`. */
  code: string;
  /** 1-based column of a syntax error. */
  column?: number | null;
  /** 0-based index of the document in the input. */
  document?: number | null;
  /** What would be accepted, when that is short enough to say. */
  help?: string | null;
  /** 1-based line of a syntax error. */
  line?: number | null;
  /** What is wrong, in one sentence. */
  message: string;
  /** `Kind/name` (or `Kind/namespace/name`) of the object the error is about. */
  object?: string | null;
  /** Field path inside the object, e.g. `spec.template.spec.requirements[1].operator`. */
  path?: string | null;
  /** Name of the input (file name, `<stdin>`, ...) when the front end supplied one. */
  source?: string | null;
}

export interface Launches {
  byNodePool: Record<string, number>;
  total: number;
}

export interface LimitUsage {
  limit: string;
  remaining: string;
  used: string;
}

export interface Metric {
  labels: Record<string, string>;
  name: string;
  values: number[];
}

export interface NodeClaim {
  allocatable: Record<string, string>;
  capacityType: string | null;
  daemonSets: string[];
  instanceType: string | null;
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
  pricePerHour: number | null;
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
  zone: string | null;
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
  capacityType?: string | null;
  disrupted: boolean;
  instanceType?: string | null;
  name: string;
  nodePool?: string | null;
  pods: number;
  pricePerHour?: number | null;
  /** Why the node stays (FORMAT §7.2 codes), first the one that decided. */
  reasons: Reason[];
  /**
   * The Balanced score of the move tried for this node (single-node consolidation, or the
   * best case when that already fails), or of the command that disrupts it.
   */
  score?: BalancedScore | null;
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
export type OptimizationAnswer = (Optimization & { apiVersion: 'nodecast/v1'; kind: 'Optimization'; status: 'success'; }) | Failure_Optimization;

export interface OptimizedClaim {
  capacityType: string;
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
  totalPricePerHour: number;
  unschedulable: Unschedulable[];
  warnings: Warning[];
}

/** The answer of kind `Plan`: a success with the `Plan` fields, or a failure. */
export type PlanAnswer = (Plan & { apiVersion: 'nodecast/v1'; kind: 'Plan'; status: 'success'; }) | Failure_Plan;

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
  node?: string | null;
  nodeClaim?: NodeClaim | null;
  /** Each NodePool in the order Karpenter tries them. */
  nodePools: Verdict[];
  /** `existing-node`, `new-node-claim` or `unschedulable`. */
  outcome: string;
  pod: string;
  /** Preference relaxation steps that were needed. */
  relaxations: string[];
  summary: string;
  unschedulable?: Unschedulable | null;
}

export interface PodMove {
  /** `nodeclaim-name (pool, type, capacity type, zone)` on each side. */
  karpenter: string;
  optimum: string;
  pod: string;
}

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
  code: string;
  message: string;
  nodePool?: string | null;
}

/** The node a `replace` launches. */
export interface Replacement {
  capacityType: string | null;
  instanceType: string | null;
  /** Options that survive the price filter, cheapest first. */
  instanceTypeOptions: string[];
  nodePool: string;
  pods: string[];
  pricePerHour: number | null;
  zone: string | null;
}

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
  capacityType: string | null;
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
  terminationReason?: string | null;
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
  state: string;
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
  settings: SimulationSettings;
  skipped: Skipped[];
  /** RFC 3339 start, when the trace gave one. */
  start?: string | null;
  summary: SimulationSummary;
  timeline: TimelineEntry[];
  warnings: Warning[];
}

/** The answer of kind `Simulation`: a success with the `Simulation` fields, or a failure. */
export type SimulationAnswer = (Simulation & { apiVersion: 'nodecast/v1'; kind: 'Simulation'; status: 'success'; }) | Failure_Simulation;

export interface SimulationSettings {
  batchIdleSeconds: number;
  batchMaxSeconds: number;
  /** Registered → initialized on accelerator nodes: the device plugin registering the devices. */
  devicePluginSeconds: SecondsRange;
  disruptionPollSeconds: number;
  /** Overrides the trace's `end` (seconds from the start). */
  endSeconds?: number | null;
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
  terminationGracePeriodSeconds?: number | null;
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
  source?: string | null;
}

export interface StaticNodes {
  capacityType: string;
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
  detail?: string | null;
  event: string;
  node?: string | null;
  object: string;
  reason?: string | null;
  time?: string | null;
  timeSeconds: number;
}

export interface TypeExplanation {
  instanceType: string;
  reasons: string[];
  /** `launched`, `option` (allowed but not the cheapest) or `rejected`. */
  verdict: string;
}

export interface Unschedulable {
  /** The most telling reason code over all NodePools (FORMAT §7.1). */
  code: string;
  pod: string;
  reasons: Reason[];
}

/** The answer of kind `Validation`: a success with the `ValidationReport` fields, or a failure. */
export type ValidationAnswer = (ValidationReport & { apiVersion: 'nodecast/v1'; kind: 'Validation'; status: 'success'; }) | Failure_Validation;

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
  object?: string | null;
}
