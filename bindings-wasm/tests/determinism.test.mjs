// callJson returns exactly what the CLI prints with -o json (minus the trailing newline), byte for
// byte, and the object API is that JSON parsed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import * as nodecast from 'nodecast-wasm';
import { cli, deployment, NOW, read, requestFor, TRAINING, UNDERUTILIZED } from './helpers.mjs';

const dir = mkdtempSync(join(tmpdir(), 'nodecast-wasm-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Write `text` to a temporary file; its absolute path is the input name on both sides. */
function file(name, text) {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function sameBytes(fn, request, args) {
  const stdout = cli([fn, ...args, '-o', 'json']);
  assert.ok(stdout.endsWith('}\n'), `the CLI printed ${JSON.stringify(stdout.slice(0, 200))}`);
  const json = nodecast.callJson(fn, JSON.stringify(request));
  assert.equal(json, stdout.slice(0, -1));
  assert.deepEqual(nodecast.call(fn, request), JSON.parse(json));
  return JSON.parse(json);
}

test('plan: the training example', () => {
  const a = sameBytes('plan', requestFor(TRAINING), TRAINING);
  assert.equal(a.nodeClaims[0].instanceType, 'g5.12xlarge');
});

test('plan: every example workload with the GPU pools', () => {
  const files = [
    'examples/nodepools/gpu-general.yaml', 'examples/nodepools/gpu-inference.yaml', 'examples/nodepools/gpu-training.yaml',
    'examples/workloads/training-job-4gpu.yaml', 'examples/workloads/vllm-inference.yaml', 'examples/workloads/mixed-cluster.yaml',
    'examples/workloads/gpu-notebook.yaml', 'examples/workloads/training-job-16gpu.yaml',
  ];
  const a = sameBytes('plan', requestFor(files), files);
  assert.ok(a.unschedulable.length > 0);
});

test('plan: 500 pods (large answer, many floats)', () => {
  const bench = file('bench.yaml', deployment(500));
  const files = ['examples/nodepools/gpu-general.yaml', bench];
  sameBytes('plan', { inputs: files.map((f) => ({ name: f, text: f === bench ? deployment(500) : read(f) })) }, files);
});

test('consolidate: the underutilized GPU node at 12:00', () => {
  const a = sameBytes('consolidate', requestFor(UNDERUTILIZED, { now: NOW }), ['--now', NOW, ...UNDERUTILIZED]);
  assert.equal(a.replacement.instanceType, 'g5.2xlarge');
});

test('consolidate --until: the sequence of commands, the CLI\'s bytes', () => {
  const until = '2025-03-06T12:00:00Z';
  const a = sameBytes('consolidate', requestFor(UNDERUTILIZED, { now: NOW, until }), ['--now', NOW, '--until', until, ...UNDERUTILIZED]);
  assert.equal(a.sequence.until, until);
  assert.ok(a.sequence.steps.length >= 1);
  assert.equal(a.sequence.steps[0].command, a.command, 'the first step is the single answer\'s command');
});

test('explain and validate', () => {
  sameBytes('explain', requestFor(TRAINING, { pod: 'ml/train-llm-0', instanceType: 'p4d.24xlarge' }), [
    ...TRAINING, '--pod', 'ml/train-llm-0', '--instance-type', 'p4d.24xlarge',
  ]);
  sameBytes('validate', requestFor(TRAINING), TRAINING);
});

test('catalog: the GPU query', () => {
  const r = 'karpenter.k8s.aws/instance-gpu-name In h100,a100';
  sameBytes('catalog', { query: { gpu: true, requirements: [r] } }, ['--gpu', '-r', r]);
});

test('failures: a bad quantity and malformed YAML', () => {
  const pod = 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: c, image: x, resources: {requests: {cpu: "1.5.0"}}}\n';
  const bad = file('bad-quantity.yaml', pod);
  const a = sameBytes('plan', { inputs: [{ name: bad, text: pod }] }, [bad]);
  assert.equal(a.errors[0].code, 'invalid-quantity');
  const yaml = 'kind: Pod\nmetadata: {name: [p\n';
  const broken = file('broken.yaml', yaml);
  const b = sameBytes('validate', { inputs: [{ name: broken, text: yaml }] }, [broken]);
  assert.equal(b.errors[0].code, 'yaml-syntax');
});

test('the same request twice gives the same bytes', () => {
  const req = JSON.stringify(requestFor(TRAINING));
  assert.equal(nodecast.callJson('plan', req), nodecast.callJson('plan', req));
});
