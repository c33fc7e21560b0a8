// Timing of `optimize` and `advise` on a 50-pod GPU plan in Node (the playground's target: the
// optimum of a 50-pod plan within 500 ms). The mix: the gpu-training NodePool and three
// Deployments of 1- and 2-GPU pods (50 pods), which Karpenter packs onto large nodes.
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { read } from './helpers.mjs';

const RUNS = 9;

function gpuDeployment(name, replicas, gpu, cpu, memory) {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ml}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      nodeSelector: {workload-type: training}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
        - name: main
          image: trainer
          resources:
            requests: {cpu: "${cpu}", memory: ${memory}, nvidia.com/gpu: "${gpu}"}
            limits: {nvidia.com/gpu: "${gpu}"}
`;
}

export const FIFTY_PODS = {
  inputs: [
    // The example's GPU limit (16) would leave most of the 50 pods pending: raised to 128.
    { name: 'gpu-training.yaml', text: read('examples/nodepools/gpu-training.yaml').replace('nvidia.com/gpu: "16"', 'nvidia.com/gpu: "128"') },
    {
      name: 'fifty.yaml',
      text: [gpuDeployment('eval', 20, 1, 6, '24Gi'), gpuDeployment('small', 20, 1, 2, '8Gi'), gpuDeployment('pair', 10, 2, 12, '48Gi')].join('---\n'),
    },
  ],
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

test('optimize and advise of a 50-pod GPU plan in Node', async (t) => {
  const nodecast = await import('nodecast-wasm');
  const first = nodecast.optimize(FIFTY_PODS);
  assert.equal(first.status, 'success', JSON.stringify(first.errors));
  assert.equal(first.stats.pods, 50);
  assert.ok(first.optimumPricePerHour <= first.karpenterPricePerHour);
  const opt = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    nodecast.optimize(FIFTY_PODS);
    opt.push(performance.now() - t0);
  }
  const adv = [];
  let advice;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    advice = nodecast.advise(FIFTY_PODS);
    adv.push(performance.now() - t0);
  }
  assert.equal(advice.status, 'success', JSON.stringify(advice.errors));
  const lines = [
    `optimize 50 pods (wasm, Node): median ${median(opt).toFixed(1)} ms, max ${Math.max(...opt).toFixed(1)} ms over ${RUNS} runs (target 500 ms); ` +
      `Karpenter $${first.karpenterPricePerHour}/h, optimum $${first.optimumPricePerHour}/h (${first.certificate})`,
    `advise 50 pods (wasm, Node): median ${median(adv).toFixed(1)} ms over 3 runs; ${advice.stats.candidates} edits verified, ${advice.advice.length} answered`,
  ];
  for (const l of lines) t.diagnostic(l);
  if (process.env.NODECAST_WASM_TIMINGS) appendFileSync(process.env.NODECAST_WASM_TIMINGS, lines.join('\n') + '\n');
  // The target with room for a loaded 2-core machine (the measured figure is in benches/README.md).
  assert.ok(median(opt) < 1500, `optimize of 50 pods took ${median(opt)} ms`);
});
