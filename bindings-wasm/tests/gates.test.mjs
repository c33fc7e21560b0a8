// Karpenter v1.15's gates through the npm package (docs/feature-gates.md): each answer
// byte-identical to the CLI with the same gate, in both of the gate's positions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as nodecast from 'nodecast-wasm';
import { cli, NOW, requestFor } from './helpers.mjs';

const STATIC = ['examples/nodepools/gpu-inference.yaml', 'examples/capacity/static-gpu-pool.yaml', 'examples/workloads/vllm-inference.yaml'];
const SCALE_DOWN = ['examples/nodepools/gpu-inference.yaml', 'examples/capacity/static-scale-down.yaml'];
const BUFFER = ['examples/nodepools/gpu-inference.yaml', 'examples/workloads/vllm-inference.yaml', 'examples/capacity/inference-buffer.yaml'];

/** `plan` through wasm's JSON facade and through the CLI: the same bytes. */
function samePlan(files, cliFlags, extra) {
  const want = cli(['plan', ...files, ...cliFlags, '-o', 'json']);
  assert.ok(want.endsWith('}\n'), want.slice(0, 300));
  const got = nodecast.callJson('plan', JSON.stringify(requestFor(files, extra)));
  assert.equal(got, want.slice(0, -1));
  return JSON.parse(got);
}

test('StaticCapacity: the static pool answered only with the gate, as the CLI answers', () => {
  const on = samePlan(STATIC, ['--feature-gates', 'StaticCapacity=true'], { settings: { featureGates: { StaticCapacity: true } } });
  assert.equal(on.status, 'success');
  assert.ok(on.staticNodeClaims.length > 0, 'the gate on: static NodeClaims');
  const off = samePlan(STATIC, [], {});
  assert.equal(off.status, 'success');
  assert.deepEqual(off.staticNodeClaims ?? [], [], 'the gate off (v1.15 default): no static NodeClaim');
  // Karpenter's flag spelling is the same answer as the mapping.
  const flag = nodecast.callJson('plan', JSON.stringify(requestFor(STATIC, { settings: { featureGates: 'StaticCapacity=true' } })));
  assert.deepEqual(JSON.parse(flag), on);
});

test('StaticCapacity: a static pool scaled down below its NodeClaims, at a clock', () => {
  const a = samePlan(SCALE_DOWN, ['--feature-gates', 'StaticCapacity=true', '--now', NOW], {
    now: NOW,
    settings: { featureGates: { StaticCapacity: true } },
  });
  assert.equal(a.status, 'success');
  assert.equal(a.staticDeprovisioned.length, 2, JSON.stringify(Object.keys(a)));
});

test('CapacityBuffer: the buffer provisioned for only with the gate', () => {
  const on = samePlan(BUFFER, ['--feature-gates', 'CapacityBuffer=true'], { settings: { featureGates: { CapacityBuffer: true } } });
  const off = samePlan(BUFFER, [], {});
  assert.equal(on.status, 'success');
  assert.ok(on.nodeClaims.length > off.nodeClaims.length, 'the buffer adds capacity');
});
