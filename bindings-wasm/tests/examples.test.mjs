// The README's examples through the npm package (Node entry): answers are objects, tagged on status.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as nodecast from 'nodecast-wasm';
import { concat, NOW, requestFor, TRAINING, UNDERUTILIZED } from './helpers.mjs';

test('plan: the 4-GPU training Job gets an on-demand g5.12xlarge on gpu-training', () => {
  const a = nodecast.plan(requestFor(TRAINING));
  assert.equal(a.apiVersion, 'nodecast/v1');
  assert.equal(a.kind, 'Plan');
  assert.equal(a.status, 'success');
  assert.equal(a.nodeClaims.length, 1);
  const [nc] = a.nodeClaims;
  assert.equal(nc.instanceType, 'g5.12xlarge');
  assert.equal(nc.nodePool, 'gpu-training');
  assert.equal(nc.capacityType, 'on-demand');
  assert.equal(nc.pricePerHour, 5.672);
  assert.deepEqual(nc.pods, ['ml/train-llm-0']);
  assert.equal(nc.instanceTypeOptions.length, 6);
  assert.deepEqual(a.unschedulable, []);
  assert.equal(a.totalPricePerHour, 5.672);
});

test('plan: manifest text (one string) is the same plan as the request', () => {
  const text = nodecast.plan(concat(TRAINING));
  assert.equal(text.status, 'success');
  assert.equal(text.nodeClaims[0].instanceType, 'g5.12xlarge');
  assert.deepEqual(text.nodeClaims, nodecast.plan(requestFor(TRAINING)).nodeClaims);
});

test('consolidate: the half-used g5.12xlarge is replaced by a g5.2xlarge at 12:00', () => {
  const a = nodecast.consolidate(requestFor(UNDERUTILIZED, { now: NOW }));
  assert.equal(a.kind, 'Decision');
  assert.equal(a.status, 'success');
  assert.equal(a.decision, 'replace');
  assert.equal(a.reason, 'underutilized');
  assert.equal(a.method, 'single-node-consolidation');
  assert.deepEqual(a.disruptedNodes, ['ip-10-0-3-41.ec2.internal']);
  assert.equal(a.replacement.instanceType, 'g5.2xlarge');
  assert.deepEqual(a.replacement.instanceTypeOptions, ['g5.2xlarge', 'g5.4xlarge', 'g5.8xlarge', 'g5.16xlarge']);
  assert.equal(a.pricePerHourBefore, 5.672);
  assert.equal(a.pricePerHourAfter, 1.212);
});

test('consolidate: text plus options {now} (the convenience form)', () => {
  const a = nodecast.consolidate(concat(UNDERUTILIZED), { now: NOW });
  assert.equal(a.status, 'success');
  assert.equal(a.replacement.instanceType, 'g5.2xlarge');
  // A Date is converted to RFC 3339 (JSON.stringify semantics).
  const d = nodecast.consolidate(concat(UNDERUTILIZED), { now: new Date(NOW) });
  assert.equal(d.status, 'success', JSON.stringify(d.errors));
  assert.equal(d.replacement.instanceType, 'g5.2xlarge');
});

test('consolidate without now is a failure answer, not an exception', () => {
  const a = nodecast.consolidate(concat(UNDERUTILIZED));
  assert.equal(a.status, 'failure');
  assert.ok(a.errors.length > 0);
});

test('explain: why the training pod got g5.12xlarge and not p4d.24xlarge', () => {
  const a = nodecast.explain(requestFor(TRAINING, { pod: 'ml/train-llm-0', instanceType: 'p4d.24xlarge' }));
  assert.equal(a.kind, 'Explanation');
  assert.equal(a.status, 'success');
  assert.equal(a.pod.outcome, 'new-node-claim');
  assert.equal(a.pod.nodeClaim.instanceType, 'g5.12xlarge');
  assert.equal(a.instanceType.verdict, 'option');
  assert.deepEqual(a.pod.nodePools.map((v) => [v.name, v.ok]), [['gpu-training', true], ['general', false]]);
});

test('validate: the examples are valid; catalog: the h100/a100 query of the README', () => {
  const v = nodecast.validate(requestFor(TRAINING));
  assert.equal(v.kind, 'Validation');
  assert.equal(v.status, 'success');
  assert.deepEqual([...v.nodePools].sort(), ['general', 'gpu-training']);
  const c = nodecast.catalog({ query: { gpu: true, requirements: ['karpenter.k8s.aws/instance-gpu-name In h100,a100'] } });
  assert.equal(c.kind, 'CatalogQuery');
  assert.equal(c.status, 'success');
  assert.deepEqual(c.instanceTypes.map((r) => r.name), ['p5.4xlarge', 'p4d.24xlarge', 'p4de.24xlarge', 'p5.48xlarge']);
  // No request at all is the empty request: the whole catalog.
  const all = nodecast.catalog();
  assert.equal(all.status, 'success');
  assert.equal(all.count, 1345);
});

test('call(fn, ...) is the same as the named function; FUNCTIONS lists them', () => {
  assert.deepEqual([...nodecast.FUNCTIONS], ['plan', 'consolidate', 'explain', 'validate', 'catalog', 'simulate', 'simulate-csv', 'simulate-prom', 'optimize', 'advise']);
  assert.deepEqual(nodecast.call('plan', requestFor(TRAINING)), nodecast.plan(requestFor(TRAINING)));
  const unknown = nodecast.call('frobnicate', {});
  assert.equal(unknown.status, 'failure');
  assert.equal(unknown.kind, 'Error');
  assert.equal(unknown.errors[0].code, 'unknown-function');
});

test('optimize (microlp in wasm): five 1-GPU pods, Karpenter one g5.48xlarge, the optimum five g5.2xlarge, proven', () => {
  const files = ['examples/nodepools/gpu-training.yaml', 'examples/workloads/eval-jobs-1gpu.yaml'];
  const a = nodecast.optimize(requestFor(files));
  assert.equal(a.status, 'success');
  assert.equal(a.kind, 'Optimization');
  assert.equal(a.karpenterPricePerHour, 16.288);
  assert.equal(a.optimumPricePerHour, 6.06);
  assert.equal(a.lowerBoundPerHour, 6.06);
  assert.equal(a.certificate, 'optimal');
  assert.equal(a.savingsPerMonth, 7466.44);
  assert.deepEqual(a.nodeClaims.map((c) => c.instanceType), Array(5).fill('g5.2xlarge'));
  assert.deepEqual(a.nodeClaims.flatMap((c) => c.pods).sort(), ['ml/eval-0', 'ml/eval-1', 'ml/eval-2', 'ml/eval-3', 'ml/eval-4']);
  assert.deepEqual(nodecast.call('optimize', requestFor(files)), a);
  const bad = nodecast.optimize(requestFor(files, { optimize: { timeBudgetSeconds: -1 } }));
  assert.equal(bad.status, 'failure');
  assert.equal(bad.errors[0].path, 'optimize.timeBudgetSeconds');
});

const BALANCED = ['examples/disruption/pool-balanced.yaml', 'examples/disruption/cluster-state.yaml'];
const SPOT = ['examples/disruption/pool-spot.yaml', 'examples/disruption/cluster-state-spot.yaml'];

test('consolidate: a Balanced pool scores the move (score, threshold, pool cost source)', () => {
  const a = nodecast.consolidate(requestFor(BALANCED, { now: NOW }));
  assert.equal(a.status, 'success');
  assert.equal(a.decision, 'replace');
  assert.equal(a.scores.length, 1);
  const [s] = a.scores;
  assert.equal(s.nodePool, 'gpu-training');
  assert.equal(s.move, 'replace');
  assert.equal(s.threshold, 0.5);
  assert.equal(s.k, 2);
  assert.equal(s.approved, true);
  assert.ok(s.score > 0.786 && s.score < 0.787, String(s.score));
  assert.match(s.poolCostSource, /cluster-cost tracker/);
  assert.deepEqual(a.nodes[0].score, s);
  assert.deepEqual(a.ties, []);
});

test('consolidate: settings.featureGates SpotToSpotConsolidation (default false), three spellings', () => {
  const off = nodecast.consolidate(requestFor(SPOT, { now: NOW }));
  assert.equal(off.decision, 'none');
  assert.equal(off.nodes[0].reasons[0].code, 'spot-to-spot-disabled');
  const on = nodecast.consolidate(requestFor(SPOT, { now: NOW, settings: { spotToSpotConsolidation: true } }));
  assert.equal(on.decision, 'replace');
  assert.equal(on.replacement.capacityType, 'spot');
  assert.equal(on.replacement.instanceTypeOptions.length, 15);
  const flag = nodecast.consolidate(requestFor(SPOT, { now: NOW, settings: { featureGates: 'SpotToSpotConsolidation=true' } }));
  assert.deepEqual(flag, on);
  const map = nodecast.consolidate(requestFor(SPOT, { now: NOW, settings: { featureGates: { SpotToSpotConsolidation: true } } }));
  assert.deepEqual(map, on);
  // Every Karpenter v1.15 gate is modelled; an AWS provider gate nodecast does not model is refused.
  const repair = nodecast.consolidate(requestFor(SPOT, { now: NOW, settings: { featureGates: { NodeRepair: true } } }));
  assert.equal(repair.status, 'success');
  const unmodelled = nodecast.consolidate(requestFor(SPOT, { now: NOW, settings: { awsFeatureGates: { RebootForRepair: true } } }));
  assert.equal(unmodelled.status, 'failure');
  assert.equal(unmodelled.errors[0].path, 'settings.awsFeatureGates.RebootForRepair');
});

test('advise (microlp in wasm): a GPU-count bound makes Karpenter pick five g5.2xlarge, verified', () => {
  const files = ['examples/nodepools/gpu-training.yaml', 'examples/workloads/eval-jobs-1gpu.yaml'];
  const a = nodecast.advise(requestFor(files));
  assert.equal(a.status, 'success', JSON.stringify(a.errors));
  assert.equal(a.kind, 'Advice');
  assert.equal(a.karpenterPricePerHour, 16.288);
  assert.equal(a.optimumPricePerHour, 6.06);
  const bound = a.advice.find((x) => x.kind === 'gpu-count-bound');
  assert.deepEqual(bound.plan.launches, ['5 × g5.2xlarge on-demand (gpu-training)']);
  assert.equal(bound.savingsPerMonth, 7466.44);
  assert.ok(bound.diff.includes('+      - key: karpenter.k8s.aws/instance-gpu-count'));
  for (const x of a.advice) assert.ok(x.plan.pricePerHour < a.karpenterPricePerHour);
  assert.deepEqual(nodecast.call('advise', requestFor(files)), a);
  const bad = nodecast.advise(requestFor(files, { advise: { top: 0 } }));
  assert.equal(bad.status, 'failure');
  assert.equal(bad.errors[0].path, 'advise.top');
});
