// compare: the node groups under the Cluster Autoscaler and NodePools under Karpenter over one
// trace (docs/cluster-autoscaler.md, "Side by side"), byte-identical to
// `nodecast simulate --compare cluster-autoscaler ... -o json`; the `compare` convenience.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as nodecast from 'nodecast-wasm';
import { cli, read, requestFor } from './helpers.mjs';

const GROUPS = ['examples/node-groups/eksctl-gpu.yaml', 'examples/workloads/eval-jobs-1gpu.yaml', 'examples/workloads/training-job-4gpu.yaml'];
const TRACE = 'examples/node-groups/gpu-day.yaml';

test('compare: the seed node groups side by side are byte-identical to the CLI', () => {
  const stdout = cli(['simulate', '--compare', 'cluster-autoscaler', ...GROUPS, '--trace', TRACE, '-o', 'json']);
  assert.ok(stdout.endsWith('}\n'), stdout.slice(0, 300));
  const json = nodecast.callJson('simulate', JSON.stringify(requestFor(GROUPS, { trace: { name: TRACE, text: read(TRACE) }, compare: 'cluster-autoscaler' })));
  assert.equal(json, stdout.slice(0, -1));
  const answer = JSON.parse(json);
  assert.equal(answer.status, 'success');
  assert.equal(answer.kind, 'Comparison');
  assert.deepEqual(answer.sides.map((s) => s.autoscaler), ['cluster-autoscaler', 'karpenter']);
  assert.equal(answer.nodePools, 'migrate');
  assert.ok(answer.disclosures.length > 0);
  // The convenience: trace text and seed as options, compare implied.
  const viaCompare = nodecast.compare(requestFor(GROUPS), { trace: read(TRACE), traceName: TRACE, seed: 0 });
  assert.deepEqual(viaCompare, answer);
});

test('compare: the answer kind on bad input, and options it cannot use', () => {
  const noTrace = nodecast.compare(requestFor(GROUPS));
  assert.equal(noTrace.status, 'failure');
  assert.equal(noTrace.kind, 'Comparison');
  const csv = nodecast.compare(requestFor(GROUPS), { trace: read(TRACE), output: 'csv' });
  assert.equal(csv.status, 'failure');
  assert.equal(csv.kind, 'Comparison');
  assert.equal(csv.errors[0].code, 'invalid-request');
  assert.match(csv.errors[0].message, /options\.output/);
  // karpenter alone is what simulate runs: the core refuses it, located at `compare`.
  const karpenter = nodecast.compare(requestFor(GROUPS), { trace: read(TRACE), compare: 'karpenter' });
  assert.equal(karpenter.status, 'failure');
  assert.equal(karpenter.errors[0].path, 'compare');
});

test('migrate and the node groups plan answer as the CLI does (the engine is in the package)', () => {
  const migrate = cli(['migrate', ...GROUPS, '-o', 'json']);
  assert.equal(nodecast.callJson('migrate', JSON.stringify(requestFor(GROUPS))), migrate.slice(0, -1));
  assert.equal(JSON.parse(migrate).kind, 'Migration');
  const plan = cli(['plan', '--autoscaler', 'cluster-autoscaler', ...GROUPS, '-o', 'json']);
  assert.equal(nodecast.callJson('plan', JSON.stringify(requestFor(GROUPS, { autoscaler: 'cluster-autoscaler' }))), plan.slice(0, -1));
  assert.equal(JSON.parse(plan).kind, 'NodeGroupPlan');
});
