// Compile-only check of pkg/nodecast.d.ts (scripts/test.sh: tsc --noEmit -p tests/types).
import init, {
  plan, consolidate, validate, explain, catalog, simulate, simulateCsv, simulateProm, compare, call, callJson, isPoisoned, FUNCTIONS,
  type Answer, type AnyAnswer, type CatalogAnswer, type Decision, type Explanation, type InputError,
  type Plan, type PlanAnswer, type Request, type SimulationAnswer, type SimulationText, type SimulatedNode,
  type DomainTie, type ValidationReport, type LaunchedNodeClaim, type CapacityType, type NodeClaim,
  type CapacityReservationsDocument, type ComparisonAnswer, type ComparisonSide,
} from 'nodecast-wasm';

await init();

const request: Request = {
  inputs: [{ name: 'cluster.yaml', text: 'kind: Pod' }],
  settings: { minValuesPolicy: 'BestEffort' },
  catalog: { source: 'aws-us-east-1', zones: ['us-east-1a'] },
  now: new Date(),
};

const p: PlanAnswer = plan(request);
if (p.status === 'success') {
  const claims: Plan['nodeClaims'] = p.nodeClaims;
  const price: number | null = claims[0].pricePerHour;
  const total: number = p.totalPricePerHour;
  const ties: DomainTie[] = claims[0].ties ?? [];
  const tiedZones: string[] = ties.flatMap((t) => t.candidates);
  void price, total, tiedZones;
  // A claim's launch fields are set together or all null: one check narrows all four, and a
  // launched claim's instanceType, zone and pricePerHour are read without a null check.
  const launched: LaunchedNodeClaim[] = claims.filter((c): c is LaunchedNodeClaim => c.instanceType !== null);
  const typeName: string = launched[0].instanceType;
  const zone: string = launched[0].zone;
  const hourly: number = launched[0].pricePerHour;
  const capacity: 'spot' | 'on-demand' | 'reserved' = launched[0].capacityType;
  const sameSet: CapacityType = capacity;
  void typeName, zone, hourly, sameSet;
  const any: NodeClaim = claims[0];
  if (any.zone !== null) {
    const narrowed: number = any.pricePerHour;
    void narrowed;
  }
  // @ts-expect-error: a claim may not launch (every launch field null)
  const unchecked: string = claims[0].instanceType;
  // @ts-expect-error: capacityType is a closed set
  const preemptible: CapacityType = 'preemptible';
  void unchecked, preemptible;
  // @ts-expect-error: a success has no errors
  p.errors;
} else {
  const errors: InputError[] = p.errors;
  const where: string | undefined = errors[0].path;
  void where;
  // @ts-expect-error: a failure has no plan
  p.nodeClaims;
}

const d = consolidate('---\nkind: NodePool', { now: '2025-03-05T12:00:00Z', name: 'pools.yaml' });
if (d.status === 'success') {
  const decision: 'none' | 'delete' | 'replace' = d.decision;
  const method: 'expiration' | 'repair' | 'emptiness' | 'drift' | 'multi-node-consolidation' | 'single-node-consolidation' | undefined = d.method;
  const moves: ('delete' | 'replace' | 'delete (best case)')[] = d.scores.map((s) => s.move);
  void method, moves;
  const replacement: string | null | undefined = d.replacement?.instanceType;
  void decision, replacement;
}

const v = validate('{"inputs": []}', { as: 'request' });
if (v.status === 'success') {
  const report: ValidationReport = v;
  void report;
}

const e = explain(request, { pod: 'ml/train-llm-0', instanceType: 'p4d.24xlarge' });
if (e.status === 'success') {
  const x: Explanation = e;
  const outcome: 'existing-node' | 'new-node-claim' | 'unschedulable' | 'bound' | undefined = x.pod?.outcome;
  void outcome;
}

const c = catalog({ query: { gpu: true, limit: 5 } });
if (c.status === 'success') {
  const rows: CatalogAnswer['instanceTypes'] = c.instanceTypes;
  void rows.map((r) => r.onDemandPricePerHour.toFixed(2));
}
catalog();

// call() is typed by function name.
const viaCall: PlanAnswer = call('plan', request);
const anything: AnyAnswer = call(String('plan'), request);
const json: string = callJson('plan', JSON.stringify(request));
const poisoned: boolean = isPoisoned();
const names: readonly string[] = FUNCTIONS;
void viaCall, anything, json, poisoned, names;

// A generic answer helper.
function errorsOf<K extends 'Plan' | 'Decision', T>(a: Answer<K, T>): InputError[] {
  return a.status === 'failure' ? a.errors : [];
}
void errorsOf(p), errorsOf(d);

// @ts-expect-error: unknown request fields are rejected by the types (and by the core)
plan({ bogus: 1 });
// @ts-expect-error: `as` is manifests or request
plan('x', { as: 'yaml' });

// simulate: a tagged union too; the text outputs are strings or the failure answer.
const sim: SimulationAnswer = simulate(request, { trace: 'kind: Trace\nevents: []\n', traceName: 'day.yaml', seed: 7 });
if (sim.status === 'success') {
  const nodes: SimulatedNode[] = sim.nodes;
  const ends: (number | null)[] = nodes.map((n) => n.terminatedSeconds);
  const saved: number = sim.summary.savingsPercent + sim.summary.pendingSeconds.p95;
  const poll: number = sim.settings.disruptionPollSeconds;
  const events: string[] = sim.timeline.map((t) => t.event);
  void ends, saved, poll, events;
} else {
  const where: string | undefined = sim.errors[0].path;
  void where;
}
const sim2: SimulationAnswer = simulate({ ...request, trace: { text: 'time,workload,replicas,runTime\n', format: 'csv' }, simulation: { seed: 1, gpuStartupSeconds: { min: 1, max: 2 } } });
const csv: SimulationText = simulate(request, { trace: 'x', output: 'csv' });
const prom: SimulationText = simulateProm(request, { trace: 'x' });
const csv2: SimulationText = simulateCsv(request, { trace: { text: 'x' } });
if (typeof csv === 'string') void csv.split('\n');
else void csv.errors;
const viaCallSim: SimulationAnswer = call('simulate', request);
void sim2, prom, csv2, viaCallSim;

// compare: the side by side, a tagged union of kind Comparison.
const cmp: ComparisonAnswer = compare(request, { trace: 'kind: Trace\nevents: []\n', seed: 0 });
if (cmp.status === 'success') {
  const sides: ComparisonSide[] = cmp.sides;
  const idle: number = sides[0].idleGpuHours - sides[1].idleGpuHours;
  const nodes: number[] = cmp.series.nodes[0];
  const said: string[] = cmp.disclosures;
  void idle, nodes, said;
} else {
  void cmp.errors[0].code;
}
// @ts-expect-error: compare answers JSON only
compare(request, { trace: 'x', output: 'csv' });
// @ts-expect-error: output is json, csv or prom
simulate(request, { trace: 'x', output: 'xml' });
// @ts-expect-error: settings are typed
simulate(request, { trace: 'x', simulation: { seeed: 1 } });

// Capacity reservations: a typed option (the parsed describe-capacity-reservations output or text).
const reservations: CapacityReservationsDocument = {
  CapacityReservations: [{
    CapacityReservationId: 'cr-1', InstanceType: 'p5.48xlarge', AvailabilityZone: 'us-east-1a', OwnerId: '123456789012',
    AvailableInstanceCount: 1, TotalInstanceCount: 1, State: 'active', InstanceMatchCriteria: 'targeted',
    ReservationType: 'capacity-block', EndDate: '2026-12-08T11:30:00+00:00', CapacityReservationArn: 'arn:...',
  }],
};
const reservedPlan: PlanAnswer = plan(request, { reservations, now: '2026-12-01T12:00:00Z' });
if (reservedPlan.status === 'success') {
  const used: number | undefined = reservedPlan.reservations?.[0]?.used;
  const id: string | null | undefined = reservedPlan.nodeClaims[0].reservationId;
  void used, id;
}
void plan(request, { reservations: ['{"CapacityReservations": []}', reservations] });
// @ts-expect-error: a reservation's count is a number
void plan(request, { reservations: { CapacityReservations: [{ ...reservations.CapacityReservations[0], TotalInstanceCount: 'one' }] } });
