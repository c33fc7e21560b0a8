// Types of the nodecast npm package (WebAssembly build of the nodecast core), for both entries:
// browsers/bundlers (index.js) and Node (node.js). The answer types are generated from the Rust
// answer types into answers.d.ts (`make schema`); requests and functions are written here.

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

/** Karpenter v1.15's feature gates, as --feature-gates spells them. */
export type FeatureGate =
  | 'NodeRepair'
  | 'ReservedCapacity'
  | 'SpotToSpotConsolidation'
  | 'NodeOverlay'
  | 'StaticCapacity'
  | 'CapacityBuffer'
  | 'TerminateFirstDrift'
  | 'TerminateFirstRepair'
  | 'PodDeletionCostManagement';

/** Global Karpenter settings that change decisions. */
export interface Settings {
  minValuesPolicy?: 'Strict' | 'BestEffort';
  preferencePolicy?: 'Respect' | 'Ignore';
  /** Karpenter's --feature-gates: its flag string (`'NodeOverlay=true'`) or a mapping of gate
   *  names to booleans; gates left out keep Karpenter v1.15's defaults (ReservedCapacity on,
   *  the others off). A gate nodecast does not model yet may only keep its default. */
  featureGates?: string | Partial<Record<FeatureGate, boolean>>;
  /** Karpenter's --ignore-dra-requests (default true; false runs its DRA allocator). */
  ignoreDraRequests?: boolean;
  /** The AWS provider's --aws-feature-gates: its flag string (`'DRANVIDIAGPU=true'`) or a
   *  mapping; DRANVIDIAGPU / DRAEFA make new nodes offer their GPUs / EFA devices to the DRA
   *  allocator (all off by default). NodeClassCEL and RebootForRepair may only stay off. */
  awsFeatureGates?: string | Partial<Record<'NodeClassCEL' | 'DRANVIDIAGPU' | 'DRAEFA' | 'RebootForRepair', boolean>>;
  /** Deprecated spelling of `featureGates: {SpotToSpotConsolidation: true}`. */
  spotToSpotConsolidation?: boolean;
  /** NodeClaim instance-type truncation (default 600). */
  maxInstanceTypes?: number;
  /** The cloud provider's node repair policies, in place of the AWS provider's (Karpenter's
   *  RepairPolicy fields; exactly one fallback without `reasonRegex`). */
  repairPolicies?: RepairPolicy[];
}

/** One node repair policy (Karpenter v1.15 cloudprovider.RepairPolicy). */
export interface RepairPolicy {
  conditionType: string;
  conditionStatus: 'True' | 'False' | 'Unknown';
  /** Go regular expression over the condition's reason; absent: the set's fallback. */
  reasonRegex?: string;
  /** Go duration the condition must hold (default `0s`). */
  tolerationDuration?: string;
  /** Go duration bounding the drain (`0s`: none); absent: the NodeClaim's own. */
  terminationGracePeriod?: string;
  /** 0..100, higher first (default 0). */
  priority?: number;
  /** Only `ReplaceNode` is modelled (the default). */
  action?: 'ReplaceNode';
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

/**
 * An embedded AWS region (the four of Karpenter v1.15's price tables; cn-north-1's prices are
 * in CNY), or `aws-<region>` for another region whose on-demand prices the inputs carry
 * (`{region, onDemand: {type: price}}`, docs/prices-and-places.md).
 */
export type AwsCatalogName = 'aws-us-east-1' | 'aws-cn-north-1' | 'aws-us-gov-east-1' | 'aws-us-gov-west-1' | `aws-${string}`;

/** An AWS catalog with adjustments. */
export interface AwsCatalogSpec extends CatalogOptions {
  source: AwsCatalogName;
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

export type CatalogSpec = AwsCatalogName | AwsCatalogSpec | CustomCatalogSpec;

/** `catalog` queries, like ec2-instance-selector. */
export interface CatalogQuery {
  /** Only types with a GPU or accelerator. */
  gpu?: boolean;
  /** `key Op values`, e.g. `karpenter.k8s.aws/instance-gpu-name In a100,h100`. */
  requirements?: string[];
  /** At most this many rows (cheapest first); 0 = all. */
  limit?: number;
}

/**
 * One entry of `aws ec2 describe-capacity-reservations` output, as the AWS CLI prints it
 * (docs/reservations.md). The fields nodecast reads; every other field the CLI prints is accepted.
 */
export interface CapacityReservation {
  CapacityReservationId: string;
  InstanceType: string;
  AvailabilityZone: string;
  OwnerId: string;
  AvailableInstanceCount: number;
  TotalInstanceCount: number;
  /** `active` is the only state Karpenter launches into. */
  State: 'active' | 'expired' | 'cancelled' | 'pending' | 'failed' | 'scheduled' | 'payment-pending' | 'payment-failed' | (string & {});
  /** `open` or `targeted` (an open ODCR is not used implicitly). */
  InstanceMatchCriteria: 'open' | 'targeted' | (string & {});
  /** Absent: `default` (an ODCR). */
  ReservationType?: 'default' | 'capacity-block' | (string & {});
  Interruptible?: boolean;
  Tags?: { Key: string; Value?: string }[];
  /** ISO 8601, e.g. `2026-12-01T11:30:00+00:00`. */
  StartDate?: string;
  /** ISO 8601; a capacity block is not launched into from 40 minutes before it. */
  EndDate?: string;
  [field: string]: unknown;
}

/** The whole `aws ec2 describe-capacity-reservations` output: one more input document. */
export interface CapacityReservationsDocument {
  CapacityReservations: CapacityReservation[];
  [field: string]: unknown;
}

/** An already-decoded Kubernetes object (what a YAML library gives). */
export type KubernetesObject = { [key: string]: unknown };
// (A CapacityReservationsDocument may be one of a request's `objects` too.)

/** What every function takes. Unknown fields are a failure answer (`invalid-request`). */
export interface Request {
  inputs?: Input[];
  objects?: KubernetesObject[];
  /** Default: `"aws-us-east-1"`. */
  catalog?: CatalogSpec;
  settings?: Settings;
  /** The clock for disruption decisions (RFC 3339; a `Date` is converted). The core never reads a clock. */
  now?: string | Date;
  /** `consolidate`: also every command from `now` to this time, pass after pass (`sequence`; docs/consolidate-until.md). */
  until?: string | Date;
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
  /** `simulate`: also run the trace under the node groups with the Cluster Autoscaler, side by side (a `Comparison` answer). */
  compare?: 'cluster-autoscaler';
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
  /** Wall-clock budget of the whole call, seconds (default 10, at most 3600; every phase takes from what is left, the LP bound at most a quarter). */
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
  /**
   * Capacity reservations (`aws ec2 describe-capacity-reservations` output): the parsed object,
   * its JSON/YAML text, or an array of those. Appended to the request's `objects` (an object) or
   * `inputs` (text, named `reservations`), not an override: `plan(yaml, { reservations, now })`.
   */
  reservations?: CapacityReservationsDocument | string | (CapacityReservationsDocument | string)[];
  /**
   * Wall-time bound in milliseconds (≥ 0). A call still running past it stops within one loop
   * step of the engine and answers a failure with code `deadline-exceeded`.
   */
  deadlineMs?: number;
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
export type AnswerKind = 'Plan' | 'Decision' | 'Explanation' | 'Validation' | 'CatalogQuery' | 'Simulation' | 'Comparison' | 'Optimization' | 'Advice' | 'Error';

// ---------------------------------------------------------------------------------------------
// Answers: generated from the Rust answer types (answers.d.ts, `make schema`; the same
// definitions as schema/answers.schema.json). Only the generic helpers below are written here.

export * from './answers.js';
import type {
  InputError, Plan, Decision, Explanation, ValidationReport, CatalogAnswer, Simulation, Optimization, Advice,
  SimulationFailure, ErrorFailure, Comparison,
} from './answers.js';

export interface Failure<K extends AnswerKind = AnswerKind> {
  apiVersion: 'nodecast/v1';
  kind: K;
  status: 'failure';
  /** `invalid`: Kubernetes or Karpenter would reject the input (CLI exit 1, Python
   * `ValidationError`); `unusable`: nodecast cannot read or answer it (exit 2, `InputError`). */
  errorClass: 'invalid' | 'unusable';
  errors: InputError[];
}

export type Success<K extends AnswerKind, T> = T & {
  apiVersion: 'nodecast/v1';
  kind: K;
  status: 'success';
};

export type Answer<K extends AnswerKind, T> = Success<K, T> | Failure<K>;

// The answers as instances of the generic Answer (the same shapes as answers.d.ts's, written
// through Answer<K, T> so that generic helpers over Answer<K, T> infer K and T).
export type PlanAnswer = Answer<'Plan', Plan>;
export type DecisionAnswer = Answer<'Decision', Decision>;
export type ExplanationAnswer = Answer<'Explanation', Explanation>;
export type ValidationAnswer = Answer<'Validation', ValidationReport>;
export type CatalogQueryAnswer = Answer<'CatalogQuery', CatalogAnswer>;
export type SimulationAnswer = Answer<'Simulation', Simulation>;
export type OptimizationAnswer = Answer<'Optimization', Optimization>;
export type AdviceAnswer = Answer<'Advice', Advice>;
export type ComparisonAnswer = Answer<'Comparison', Comparison>;

/** CSV or Prometheus text on success, the failure answer otherwise. */
export type SimulationText = string | SimulationFailure;
/** Any answer (`kind: "Error"` only for an unknown function name). */
export type AnyAnswer =
  | PlanAnswer
  | DecisionAnswer
  | ExplanationAnswer
  | ValidationAnswer
  | CatalogQueryAnswer
  | SimulationAnswer
  | SimulationText
  | ComparisonAnswer
  | OptimizationAnswer
  | AdviceAnswer
  | ErrorFailure;

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
/**
 * The trace under the node groups (eksctl, Terraform) with the Cluster Autoscaler and under
 * NodePools with Karpenter (the inputs', or `migrate`'s proposal), side by side: each side's cost,
 * nodes, pending pod-minutes and idle GPU-hours, both runs over time, the scale-ups and the
 * disclosures (docs/cluster-autoscaler.md). `simulate` with `compare: 'cluster-autoscaler'`; the
 * bytes of `nodecast simulate --compare cluster-autoscaler ... -o json`.
 */
export function compare(input?: RequestInput, options?: Omit<SimulateOptions, 'output'> & { compare?: 'cluster-autoscaler' }): ComparisonAnswer;
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
