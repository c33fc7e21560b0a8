// The ML workload kinds through the npm package: a PyTorchJob and a RayCluster plan from their
// manifests, with the pod names their controllers give, byte for byte as the CLI answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as nodecast from 'nodecast-wasm';
import { cli, concat, requestFor } from './helpers.mjs';

const PYTORCH = ['examples/nodepools/gpu-training.yaml', 'examples/workloads/pytorchjob-llama-finetune.yaml'];
const RAY = ['examples/nodepools/gpu-general.yaml', 'examples/nodepools/gpu-training.yaml', 'examples/workloads/raycluster-gpu.yaml'];

test('plan: the PyTorchJob expands to master-0 and worker-0, one g5.48xlarge each', () => {
  const a = nodecast.plan(requestFor(PYTORCH));
  assert.equal(a.status, 'success');
  assert.deepEqual(a.nodeClaims.map((c) => [c.instanceType, c.pods]), [
    ['g5.48xlarge', ['ml/llama-finetune-master-0']],
    ['g5.48xlarge', ['ml/llama-finetune-worker-0']],
  ]);
  assert.deepEqual(a.unschedulable, []);
  assert.equal(JSON.stringify(nodecast.plan(concat(PYTORCH))), JSON.stringify(a));
});

test('plan: the RayCluster head goes to general, both GPU workers share a g5.12xlarge', () => {
  const a = nodecast.plan(requestFor(RAY));
  assert.equal(a.status, 'success');
  const byPool = Object.fromEntries(a.nodeClaims.map((c) => [c.nodePool, c]));
  assert.deepEqual(byPool['general'].pods, ['ml/ray-batch-head']);
  assert.equal(byPool['gpu-training'].instanceType, 'g5.12xlarge');
  assert.deepEqual(byPool['gpu-training'].pods, ['ml/ray-batch-gpu-worker-00000', 'ml/ray-batch-gpu-worker-00001']);
});

test('plan: the wasm answer equals the CLI JSON for the ML examples', () => {
  for (const files of [PYTORCH, RAY]) {
    const fromCli = JSON.parse(cli(['plan', '-o', 'json', ...files]));
    assert.deepEqual(nodecast.plan(requestFor(files)).nodeClaims, fromCli.nodeClaims);
  }
});

test('validate: a PyTorchJob Master with 2 replicas is a located error', () => {
  const text = concat(PYTORCH).replace('    Master:\n      replicas: 1', '    Master:\n      replicas: 2');
  const a = nodecast.plan(text);
  assert.equal(a.status, 'failure');
  assert.equal(a.errors[0].path, 'spec.pytorchReplicaSpecs.Master.replicas');
  assert.equal(a.errors[0].object, 'PyTorchJob/ml/llama-finetune');
});
