// Types of the nodecast npm package (WebAssembly build of the nodecast core), for both entries:
// browsers/bundlers (index.js) and Node (node.js). Hand-written from core/src/api.rs,
// explain.rs, query.rs and error.rs (`apiVersion: nodecast/v1`).

// ---------------------------------------------------------------------------------------------
// Requests

/** A Kubernetes quantity as the core prints it: "4", "500m", "16Gi". */
export type Quantity = string;

/** One text input: YAML or JSON, one or many documents (`---`, `kind: List`). */
export interface Input {
  /** Shown in error locations (`cluster.yaml`, `<stdin>`). */
  name?: string;
  text: string;
}

/** Global Karpenter settings that change decisions. */
export interface Settings {
  minValuesPolicy?: 'Strict' | 'BestEffort';
  preferencePolicy?: 'Respect' | 'Ignore';
  /** Karpenter's SpotToSpotConsolidation feature gate (default false, as in Karpenter). */
  spotToSpotConsolidation?: boolean;
  /** NodeClaim instance-type truncation (default 600). */
  maxInstanceTypes?: number;
}

/** Adjustments both catalog forms accept. */
export interface CatalogOptions {
  zones?: string[];
  spotPriceFactor?: number;
  capacityTypes?: string[];
  /** Offerings that cannot launch now (e.g. insufficient capacity). */
  unavailable?: { instanceType?: string; zone?: string; capacityType?: string }[];
  /** Price overrides per instance type. */
  prices?: Record<string, { onDemand?: number; spot?: number }>;
}

/** The embedded AWS catalog with adjustments. */
export interface AwsCatalogSpec extends CatalogOptions {
  source: 'aws-us-east-1';
}

/** A catalog of your own instance types (zones default to test-zone-a/b/c). */
export interface CustomCatalogSpec extends CatalogOptions {
  source?: 'inline';
  instanceTypes: {
    name: string;
    /** Net of overhead: cpu, memory, pods, nvidia.com/gpu, ... */
    allocatable: Record<string, Quantity>;
    capacity?: Record<string, Quantity>;
    labels?: Record<string, string>;
    onDemandPrice: number;
    spotPrice?: number;
    offerings?: { zone: string; capacityType: string; price?: number; available?: boolean }[];
  }[];
}

export type CatalogSpec = 'aws-us-east-1' | AwsCatalogSpec | CustomCatalogSpec;

/** `catalog` queries, like ec2-instance-selector. */
export interface CatalogQuery {
  /** Only types with a GPU or accelerator. */
  gpu?: boolean;
  /** `key Op values`, e.g. `karpenter.k8s.aws/instance-gpu-name In a100,h100`. */
  requirements?: string[];
  /** At most this many rows (cheapest first); 0 = all. */
  limit?: number;
}

/** An already-decoded Kubernetes object (what a YAML library gives). */
export type KubernetesObject = { [key: string]: unknown };

/** What every function takes. Unknown fields are a failure answer (`invalid-request`). */
export interface Request {
  inputs?: Input[];
  objects?: KubernetesObject[];
  /** Default: `"aws-us-east-1"`. */
  catalog?: CatalogSpec;
  settings?: Settings;
  /** The clock for disruption decisions (RFC 3339; a `Date` is converted). The core never reads a clock. */
  now?: string | Date;
  /** `explain`: the pod (`name` or `namespace/name`). */
  pod?: string;
  /** `explain`: the node. */
  node?: string;
  /** `explain`: also say why this instance type was or was not chosen. */
  instanceType?: string;
  /** `catalog`: the query. */
  query?: CatalogQuery;
  /** `simulate`: the workload trace (docs/simulate.md). */
  trace?: TraceInput;
  /** `simulate`: settings; every field has a default. */
  simulation?: SimulationSettings;
  /** `optimize`: time budget and enumeration limit; defaults apply. */
  optimize?: OptimizeSettings;
  /** `advise`: how many edits to answer, the optimize time budget; defaults apply. */
  advise?: AdviseSettings;
}

/** `advise` options. */
export interface AdviseSettings {
  /** Answer at most this many edits (default 5, 1 to 50). */
  top?: number;
  /** Time budget of the optimize call that measures the gap, seconds (default 10). */
  timeBudgetSeconds?: number;
}

/** `optimize` options. */
export interface OptimizeSettings {
  /** Wall-clock budget of each solver call, seconds (default 10, at most 3600). */
  timeBudgetSeconds?: number;
  /** At most this many packing patterns are listed exhaustively (default 20,000). */
  enumerateLimit?: number;
}

/** A `simulate` trace: YAML/JSON (`kind: Trace`) or CSV (`time,workload,replicas,runTime`) text. */
export interface TraceInput {
  /** Shown in error locations. */
  name?: string;
  text: string;
  /** `auto` (default: CSV when the first line is the CSV header), `yaml`, `json` or `csv`. */
  format?: 'auto' | 'yaml' | 'json' | 'csv';
}

/** An inclusive range of whole seconds, sampled uniformly per NodeClaim (`min == max` fixes it). */
export interface SecondsRange {
  min: number;
  max: number;
}

/** `simulate` settings (docs/simulate.md, "Settings"); the answer's `settings` has them all resolved. */
export interface SimulationSettings {
  /** Seeds every random draw (0..2^53 from JS). Default 0. */
  seed?: number;
  /** Launch → registered for GPU/accelerator types. Default {min: 180, max: 300}. */
  gpuStartupSeconds?: SecondsRange;
  /** Launch → registered for other types. Default {min: 60, max: 120}. */
  startupSeconds?: SecondsRange;
  /** Registered → initialized on accelerator nodes. Default {min: 60, max: 90}. */
  devicePluginSeconds?: SecondsRange;
  /** Default 1. */
  batchIdleSeconds?: number;
  /** Default 10. */
  batchMaxSeconds?: number;
  /** Default 10. */
  disruptionPollSeconds?: number;
  /** Spot interruption notices per spot instance-hour. Default 0.0001. */
  spotInterruptionRatePerHour?: number;
  /** Default 120. */
  interruptionNoticeSeconds?: number;
  /** Fallback when the NodePool has no `terminationGracePeriod`. */
  terminationGracePeriodSeconds?: number;
  /** Sampling period of `series`. Default 300. */
  metricsIntervalSeconds?: number;
  /** Overrides the trace's `end` (seconds from the start). */
  endSeconds?: number;
  /** Safety stop (`simulation-too-long`). Default 5000000. */
  maxEvents?: number;
  /** Safety stop on scheduling work: pending pods summed over all provisioning passes
   * (`simulation-too-long`). Default 20000000. */
  maxPodAttempts?: number;
}

/**
 * Second argument of every function. `as` says what a string first argument is: manifest text
 * (`"manifests"`, the default; wrapped as `{inputs: [{name, text}]}` with `name` default
 * `"input"`) or a JSON request (`"request"`). Every other field is a request field that
 * overrides the request's: `consolidate(yaml, { now: '2025-03-05T12:00:00Z' })`.
 */
export interface Options extends Request {
  as?: 'manifests' | 'request';
  name?: string;
}

/** The first argument of every function: manifest text, a request, or nothing (the empty request). */
export type RequestInput = string | Request | null | undefined;

/**
 * Options of `simulate`: request fields plus conveniences. `trace` may be text (named `traceName`,
 * default `"trace"`, read as `traceFormat`); `seed` is merged into `simulation` (the options' or the
 * request's); `output` chooses the JSON answer (default), or the metric series as CSV or
 * Prometheus text (the bytes of `nodecast simulate -o csv|prom`).
 */
export interface SimulateOptions extends Omit<Options, 'trace'> {
  trace?: string | TraceInput;
  traceName?: string;
  traceFormat?: TraceInput['format'];
  seed?: number;
  output?: 'json' | 'csv' | 'prom' | 'prometheus';
}

// ---------------------------------------------------------------------------------------------
// Answers: tagged unions on `status`

export type FunctionName = 'plan' | 'consolidate' | 'explain' | 'validate' | 'catalog' | 'simulate' | 'simulate-csv' | 'simulate-prom' | 'optimize' | 'advise';
export type AnswerKind = 'Plan' | 'Decision' | 'Explanation' | 'Validation' | 'CatalogQuery' | 'Simulation' | 'Optimization' | 'Error';

/** One located problem with the input. */
export interface InputError {
  /**
   * Stable code, e.g. `yaml-syntax`, `invalid-quantity`, `invalid-operator`, `invalid-request`,
   * `unknown-function`; `internal-panic` when nodecast itself failed (a bug; the module recovers).
   */
  code: string;
  message: string;
  help?: string;
  /** Input name (`Input.name`, `"input"` for text passed directly). */
  source?: string;
  /** 0-based document index in the input. */
  document?: number;
  /** `Kind/name` or `Kind/namespace/name`. */
  object?: string;
  /** Field path, e.g. `spec.containers[0].resources.requests.cpu`. */
  path?: string;
  /** 1-based line of a syntax error. */
  line?: number;
  /** 1-based column of a syntax error. */
  column?: number;
}

export interface Failure<K extends AnswerKind = AnswerKind> {
  apiVersion: 'nodecast/v1';
  kind: K;
  status: 'failure';
  errors: InputError[];
}

export type Success<K extends AnswerKind, T> = T & {
  apiVersion: 'nodecast/v1';
  kind: K;
  status: 'success';
};

export type Answer<K extends AnswerKind, T> = Success<K, T> | Failure<K>;

/** An object nodecast read but does not model (reported, never an error). */
export interface Skipped {
  source?: string;
  document: number;
  kind: string;
  name: string;
  reason: string;
}

export interface Warning {
  code: string;
  message: string;
  object?: string;
}

export interface Reason {
  code: string;
  nodePool?: string;
  message: string;
}

export interface NodeClaim {
  /** `<nodepool>-<n>`. */
  name: string;
  nodePool: string;
  instanceType: string | null;
  capacityType: string | null;
  zone: string | null;
  pricePerHour: number | null;
  /** Cheapest first (at most 600). */
  instanceTypeOptions: string[];
  pods: string[];
  daemonSets: string[];
  requests: Record<string, Quantity>;
  allocatable: Record<string, Quantity>;
  /** requests / allocatable per resource, 0..1. */
  utilization: Record<string, number>;
  labels: Record<string, string>;
  requirements: string[];
  /** Values real Karpenter picks at random among equal ones (Go map order); absent when none. */
  ties?: DomainTie[];
}

/** A choice Karpenter makes in Go map order, so reruns differ; `value` is one of `candidates`. */
export interface DomainTie {
  /** The label key, e.g. `topology.kubernetes.io/zone`. */
  key: string;
  /** nodecast's value. */
  value: string;
  candidates: string[];
  /** e.g. "the zone is a tie among us-east-1a, us-east-1b in Karpenter (...); nodecast shows us-east-1a". */
  message: string;
}

export interface ExistingNode {
  name: string;
  nodePool?: string;
  instanceType?: string;
  pods: string[];
}

export interface Unschedulable {
  pod: string;
  /** `no-instance-type-fits`, `requirement-conflict`, `taint-not-tolerated`, `limit-exceeded`, ... */
  code: string;
  reasons: Reason[];
}

export interface NodePoolUsage {
  name: string;
  weight: number;
  newNodeClaims: number;
  limits: Record<string, { limit: Quantity; used: Quantity; remaining: Quantity }>;
}

/** What one provisioning pass does. */
export interface Plan {
  nodeClaims: NodeClaim[];
  existingNodes: ExistingNode[];
  unschedulable: Unschedulable[];
  nodePools: NodePoolUsage[];
  totalPricePerHour: number;
  skipped: Skipped[];
  warnings: Warning[];
}

export interface Replacement {
  nodePool: string;
  instanceType: string | null;
  capacityType: string | null;
  zone: string | null;
  pricePerHour: number | null;
  instanceTypeOptions: string[];
  pods: string[];
}

export interface NodeVerdict {
  name: string;
  nodePool?: string;
  instanceType?: string;
  capacityType?: string;
  pricePerHour?: number;
  pods: number;
  disrupted: boolean;
  /** Why the node stays (`budget`, `pdb`, `not-cheaper`, ...), the deciding one first. */
  reasons: Reason[];
  /** The Balanced score of the move tried for this node, or of the command that takes it. */
  score?: BalancedScore;
}

/** One Balanced NodePool's score of a consolidation move: approved when score >= threshold (1/k, k = 2). */
export interface BalancedScore {
  nodePool: string;
  /** `delete`, `replace`, or `delete (best case)` (the pre-check before simulating). */
  move: string;
  score: number;
  threshold: number;
  k: number;
  approved: boolean;
  savingsPerHour: number;
  disruptionCost: number;
  savingsFraction: number;
  disruptionFraction: number;
  poolCostPerHour: number;
  poolDisruptionCost: number;
  /** Where poolCostPerHour comes from (offline: the pool's nodes' prices, for Karpenter's cluster-cost tracker). */
  poolCostSource: string;
}

/** Equally ranked candidates (price ÷ disruption cost): Karpenter orders them arbitrarily. */
export interface Tie {
  /** How many of `nodes` the command takes. */
  count: number;
  nodes: string[];
  /** e.g. `Karpenter may pick any of: node-a, node-b (...)`. */
  message: string;
}

export interface PoolBudget {
  name: string;
  nodes: number;
  /** Disruptions allowed now per reason (`Empty`, `Underutilized`, `Drifted`); null = unlimited. */
  allowed: Record<string, number | null>;
}

/** What the disruption controller would do at `now`. */
export interface Decision {
  now: string;
  decision: 'none' | 'delete' | 'replace';
  reason?: 'expired' | 'empty' | 'underutilized';
  method?: 'expiration' | 'emptiness' | 'multi-node-consolidation' | 'single-node-consolidation';
  command: string;
  disruptedNodes: string[];
  replacement?: Replacement;
  pricePerHourBefore: number;
  pricePerHourAfter: number;
  /** The command's Balanced scores, one per Balanced pool among the disrupted nodes. */
  scores: BalancedScore[];
  /** Where Karpenter's own pick is not determined. */
  ties: Tie[];
  nodes: NodeVerdict[];
  nodePools: PoolBudget[];
  skipped: Skipped[];
  warnings: Warning[];
}

export interface Verdict {
  name: string;
  ok: boolean;
  reason: string;
}

export interface PodExplanation {
  pod: string;
  outcome: 'existing-node' | 'new-node-claim' | 'unschedulable';
  summary: string;
  node?: string;
  nodeClaim?: NodeClaim;
  relaxations: string[];
  existingNodes: Verdict[];
  nodePools: Verdict[];
  unschedulable?: Unschedulable;
}

export interface TypeExplanation {
  instanceType: string;
  verdict: 'launched' | 'option' | 'rejected';
  reasons: string[];
}

export interface NodeExplanation {
  node: NodeVerdict;
  command: string;
  summary: string;
  /** The decision's ties that name this node. */
  ties: Tie[];
}

/** Why a pod goes where it goes, why an instance type was (not) chosen, why a node is (not) disrupted. */
export interface Explanation {
  pod?: PodExplanation;
  instanceType?: TypeExplanation;
  node?: NodeExplanation;
}

export interface ValidationReport {
  objects: number;
  nodePools: string[];
  pods: number;
  skipped: Skipped[];
}

export interface CatalogRow {
  name: string;
  vcpu: string;
  memory: Quantity;
  arch: string;
  gpuName?: string;
  gpuCount?: string;
  /** Per GPU, MiB. */
  gpuMemoryMib?: string;
  acceleratorName?: string;
  acceleratorCount?: string;
  allocatableCpu: Quantity;
  allocatableMemory: Quantity;
  onDemandPricePerHour: number;
  spotPricePerHour: number | null;
}

export interface CatalogAnswer {
  source: string;
  count: number;
  instanceTypes: CatalogRow[];
}

/** The static cluster: `count` nodes of one type for the whole duration, at on-demand prices. */
export interface StaticNodes {
  nodePool: string;
  instanceType: string;
  capacityType: string;
  count: number;
  pricePerHourUsd: number;
}

export interface SimulationSummary {
  durationSeconds: number;
  costUsd: number;
  staticCostUsd: number;
  savingsUsd: number;
  /** 100 × (static − actual) / static. */
  savingsPercent: number;
  staticCluster: StaticNodes[];
  gpuHoursPaid: number;
  gpuHoursUsed: number;
  gpuUtilization: number;
  emptyNodeCostUsd: number;
  emptyNodeSeconds: number;
  /** Nearest-rank, over pods that started at least once. */
  pendingSeconds: { p50: number; p95: number; max: number };
  workLostSeconds: number;
  pods: { submitted: number; finished: number; running: number; pending: number; deleted: number };
  launches: { total: number; byNodePool: Record<string, number> };
  disruptions: { total: number; byReason: Record<string, number> };
  nodesAliveAtEnd: number;
}

export type TerminationReason = 'empty' | 'underutilized' | 'expired' | 'interrupted';

/** One NodeClaim, launch to termination (seconds since the trace start). */
export interface SimulatedNode {
  name: string;
  nodePool: string | null;
  instanceType: string | null;
  capacityType: string | null;
  zone: string | null;
  pricePerHourUsd: number;
  gpus: number;
  launchedSeconds: number;
  registeredSeconds: number | null;
  initializedSeconds: number | null;
  /** null while alive at the end. */
  terminatedSeconds: number | null;
  lifetimeSeconds: number;
  costUsd: number;
  /** Cost while empty after its first pod left (waiting for consolidateAfter). */
  emptyCostUsd: number;
  terminationReason?: TerminationReason;
  pods: number;
}

export interface SimulatedPod {
  name: string;
  workload: string;
  submittedSeconds: number;
  startedSeconds: number | null;
  finishedSeconds: number | null;
  state: 'finished' | 'running' | 'pending' | 'deleted';
  pendingSeconds: number;
  runTimeSeconds: number | null;
  runningSeconds: number;
  workLostSeconds: number;
  restarts: number;
  nodes: string[];
}

export type TimelineEvent =
  | 'pod-pending' | 'pod-nominated' | 'pod-bound' | 'pod-started' | 'pod-finished' | 'pod-evicted' | 'pod-restarted'
  | 'pod-deleted' | 'pod-unschedulable' | 'nodeclaim-launched' | 'nodeclaim-registered' | 'nodeclaim-initialized'
  | 'nodeclaim-disrupted' | 'nodeclaim-interrupted' | 'nodeclaim-terminated';

export interface TimelineEntry {
  timeSeconds: number;
  /** RFC 3339, when the trace gave `start`. */
  time?: string;
  event: TimelineEvent;
  object: string;
  node?: string;
  /** A reason code: `empty`, `underutilized`, `expired`, `interrupted`, `no-instance-type-fits`, ... */
  reason?: string;
  detail?: string;
}

/** A Karpenter-named metric (`karpenter_nodepool_usage`, `nodecast_cost_usd_total`, ...) sampled at `series.timesSeconds`. */
export interface Metric {
  name: string;
  labels: Record<string, string>;
  values: number[];
}

export interface Simulation {
  /** RFC 3339, when the trace gave one. */
  start?: string;
  seed: number;
  /** Every setting, resolved. */
  settings: Required<Omit<SimulationSettings, 'terminationGracePeriodSeconds' | 'endSeconds'>> &
    Pick<SimulationSettings, 'terminationGracePeriodSeconds' | 'endSeconds'>;
  summary: SimulationSummary;
  nodes: SimulatedNode[];
  pods: SimulatedPod[];
  timeline: TimelineEntry[];
  series: { intervalSeconds: number; timesSeconds: number[]; metrics: Metric[] };
  warnings: Warning[];
  skipped: Skipped[];
}

export type PlanAnswer = Answer<'Plan', Plan>;
export type DecisionAnswer = Answer<'Decision', Decision>;
export type ExplanationAnswer = Answer<'Explanation', Explanation>;
export type ValidationAnswer = Answer<'Validation', ValidationReport>;
export type CatalogQueryAnswer = Answer<'CatalogQuery', CatalogAnswer>;
export type SimulationAnswer = Answer<'Simulation', Simulation>;
export type OptimizationAnswer = Answer<'Optimization', Optimization>;
export type AdviceAnswer = Answer<'Advice', Advice>;

/** One verified NodePool edit (or pair of edits) of an `advise` answer. */
export interface Advised {
  rank: number;
  /** `gpu-count-bound`, `cpu-bound`, `size-exclusion`, `family-exclusion`, `type-exclusion`,
   * `family-allow-list`, `generation-bound`, `type-allow-list`, `allow-spot`, `weight`, `combined`. */
  kind: string;
  title: string;
  /** `value` put at `path` of NodePool `nodePool` (a requirement at
   * `spec.template.spec.requirements` replaces one with the same key and operator). */
  edits: { nodePool: string; path: string; value: unknown }[];
  /** A unified diff of each edited NodePool manifest (as YAML). */
  diff: string;
  /** Karpenter's plan with the edit applied. */
  plan: { pricePerHour: number; nodeClaims: number; launches: string[]; unschedulable: number };
  savingsPerHour: number;
  savingsPerMonth: number;
  /** Share of the gap to the optimum recovered, percent (absent without a gap). */
  gapRecoveredPercent?: number;
  /** What else changes: spot capacity, existing nodes taking more pods, pods scheduled now. */
  alsoChanges: string[];
}

/** NodePool edits that make Karpenter's own plan cheaper, most saving first. */
export interface Advice {
  karpenterPricePerHour: number;
  optimumPricePerHour: number;
  optimumCertificate: string;
  gapPerHour: number;
  advice: Advised[];
  stats: {
    candidateLimit: number;
    candidates: number;
    combinations: number;
    cheaper: number;
    leavePodsPending: number;
    notCheaper: number;
    invalid: number;
    duplicates: number;
  };
  notes: string[];
  warnings: Warning[];
}

/** One NodeClaim of either plan of an `optimize` answer. */
export interface OptimizedClaim {
  name: string;
  nodePool: string;
  instanceType: string;
  capacityType: string;
  zone: string;
  pricePerHour: number;
  pods: string[];
  /** Karpenter's NodeClaim kept as it is (its pods carry constraints not optimised). */
  kept: boolean;
}

/** Karpenter's plan beside the cheapest plan under the same constraints. */
export interface Optimization {
  karpenterPricePerHour: number;
  optimumPricePerHour: number;
  /** No placement of these pods costs less. */
  lowerBoundPerHour: number;
  /** `"optimal"` or `"within x % of optimal"`. */
  certificate: string;
  gapPercent: number;
  savingsPerHour: number;
  /** Savings × 730 h. */
  savingsPerMonth: number;
  nodeClaims: OptimizedClaim[];
  karpenterNodeClaims: OptimizedClaim[];
  /** Pods whose NodePool, instance type, capacity type or zone differ. */
  movedPods: { pod: string; karpenter: string; optimum: string }[];
  podsOnExistingNodes: string[];
  unschedulable: string[];
  /** Constraints not optimised for, and what the optimiser does with them instead. */
  notOptimised: string[];
  stats: { pods: number; groups: number; offerings: number; patterns: number; exhaustive: boolean; timedOut: boolean };
  warnings: Warning[];
}
/** CSV or Prometheus text on success, the failure answer otherwise. */
export type SimulationText = string | Failure<'Simulation'>;
/** Any answer (`kind: "Error"` only for an unknown function name). */
export type AnyAnswer =
  | PlanAnswer
  | DecisionAnswer
  | ExplanationAnswer
  | ValidationAnswer
  | CatalogQueryAnswer
  | SimulationAnswer
  | SimulationText
  | OptimizationAnswer
  | AdviceAnswer
  | Failure<'Error'>;

export interface AnswerOf {
  plan: PlanAnswer;
  consolidate: DecisionAnswer;
  explain: ExplanationAnswer;
  validate: ValidationAnswer;
  catalog: CatalogQueryAnswer;
  simulate: SimulationAnswer;
  'simulate-csv': SimulationText;
  'simulate-prom': SimulationText;
  optimize: OptimizationAnswer;
  advise: AdviceAnswer;
}

// ---------------------------------------------------------------------------------------------
// Functions. None throws for bad input: every problem is a failure answer.

/**
 * The cheapest NodeClaims for the pods Karpenter's plan places, under the same constraints, beside
 * Karpenter's plan: both $/h, a lower bound, `certificate`, savings per month, pods placed
 * differently, constraints not optimised. The bytes of `nodecast optimize ... -o json` for the
 * cost and bound; among equally cheap packings the pure-Rust solver of the wasm build may pick
 * another one than the CLI's HiGHS.
 */
export function optimize(input?: RequestInput, options?: Options): OptimizationAnswer;
/**
 * NodePool edits (GPU-count / vCPU bounds, excluded sizes, families and types, generations, spot,
 * weights) that make Karpenter's own plan cheaper, each verified by planning again with the edit
 * applied: most saving first, with the YAML diff, Karpenter's new plan, $/h and $/month saved.
 */
export function advise(input?: RequestInput, options?: Options): AdviceAnswer;
/** What one Karpenter provisioning pass would do with the pending pods. */
export function plan(input?: RequestInput, options?: Options): PlanAnswer;
/** What the disruption controller would do at `now` (required), and why every other node stays. */
export function consolidate(input?: RequestInput, options?: Options): DecisionAnswer;
/** Every validation rule (admission and runtime) and every decoding error. */
export function validate(input?: RequestInput, options?: Options): ValidationAnswer;
/** Why a pod (`pod`) goes where it goes, or why a node (`node`, with `now`) is (not) disrupted. */
export function explain(input?: RequestInput, options?: Options): ExplanationAnswer;
/** Query the instance-type catalog (`query`). */
export function catalog(input?: RequestInput, options?: Options): CatalogQueryAnswer;
/**
 * Replay a workload trace (`trace`, required) against the cluster documents over simulated time
 * (docs/simulate.md): timeline, nodes, pods, summary with the static-cluster comparison, series.
 * Deterministic for a given request and seed: the bytes of `nodecast simulate ... -o json`.
 */
export function simulate(input?: RequestInput, options?: SimulateOptions & { output?: 'json' }): SimulationAnswer;
export function simulate(input: RequestInput, options: SimulateOptions & { output: 'csv' | 'prom' | 'prometheus' }): SimulationText;
export function simulate(input?: RequestInput, options?: SimulateOptions): SimulationAnswer | SimulationText;
/** `simulate(input, {...options, output: 'csv'})`: `timeSeconds,metric,labels,value` rows. */
export function simulateCsv(input?: RequestInput, options?: Omit<SimulateOptions, 'output'>): SimulationText;
/** `simulate(input, {...options, output: 'prom'})`: Prometheus text exposition. */
export function simulateProm(input?: RequestInput, options?: Omit<SimulateOptions, 'output'>): SimulationText;
/** Any function by name. */
export function call<F extends FunctionName>(fn: F, input?: RequestInput, options?: Options): AnswerOf[F];
export function call(fn: string, input?: RequestInput, options?: Options): AnyAnswer;
/**
 * JSON request in, the core's answer JSON out: exactly what `nodecast <fn> -o json` prints,
 * without the trailing newline. Throws a TypeError only if `requestJson` is not a string.
 */
export function callJson(fn: FunctionName | string, requestJson: string): string;

/** The facade functions by name. */
export const FUNCTIONS: readonly FunctionName[];

/** True between a panic and the re-instantiation at the start of the next call. */
export function isPoisoned(): boolean;

/**
 * A URL (string or URL), a fetch Response (or a promise of one), the .wasm bytes or a compiled
 * WebAssembly.Module.
 */
export type InitSource = string | ArrayBuffer | ArrayBufferView | object;

/**
 * Browser: load and instantiate the module (default: the .wasm next to the JS file); await it
 * once before any other call. Node: already done on import; resolves at once. Idempotent.
 */
export function init(source?: InitSource): Promise<void>;
/** Synchronous `init` from the .wasm bytes or a compiled WebAssembly.Module (browser entry: required; Node: a no-op). */
export function initSync(module?: ArrayBuffer | ArrayBufferView | object): void;
export default init;
