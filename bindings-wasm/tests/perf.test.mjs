// Timing of a 500-pod re-plan in Node (the browser number is the playground's): the playground's
// benchmark request (gpu-general NodePool + a 500-replica Deployment), object in, object out.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { CLI, deployment, read, ROOT } from './helpers.mjs';

const POOLS = 'examples/nodepools/gpu-general.yaml';
const RUNS = 20;
const WARMUP = 5;

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { min: s[0], median: q(0.5), p90: q(0.9), max: s[s.length - 1] };
};
const ms = (x) => `${x.toFixed(1)} ms`;

test('500-pod re-plan in Node', async (t) => {
  let t0 = performance.now();
  const nodecast = await import('nodecast-wasm');
  const load = performance.now() - t0;

  const request = { inputs: [{ name: 'nodepools.yaml', text: read(POOLS) }, { name: 'bench.yaml', text: deployment(500) }] };
  t0 = performance.now();
  const first = nodecast.plan(request);
  const cold = performance.now() - t0;
  assert.equal(first.status, 'success', JSON.stringify(first.errors));
  const pods = first.nodeClaims.reduce((n, c) => n + c.pods.length, 0);
  assert.equal(pods, 500);

  for (let i = 0; i < WARMUP; i++) nodecast.plan(request);
  const objectRuns = [];
  const jsonRuns = [];
  const json = JSON.stringify(request);
  for (let i = 0; i < RUNS; i++) {
    // A re-plan after an edit: the text changes a little every time.
    const edited = { inputs: [request.inputs[0], { name: 'bench.yaml', text: deployment(500, `bench${i % 2}`) }] };
    t0 = performance.now();
    const a = nodecast.plan(edited);
    objectRuns.push(performance.now() - t0);
    assert.equal(a.status, 'success');
    t0 = performance.now();
    nodecast.callJson('plan', json);
    jsonRuns.push(performance.now() - t0);
  }
  const object = stats(objectRuns);
  const jsonStats = stats(jsonRuns);

  // The native CLI on the same input, for reference (includes process start-up).
  const dir = mkdtempSync(join(tmpdir(), 'nodecast-wasm-perf-'));
  let native = null;
  try {
    const bench = join(dir, 'bench.yaml');
    writeFileSync(bench, deployment(500));
    const runs = [];
    for (let i = 0; i < 5; i++) {
      t0 = performance.now();
      execFileSync(CLI, ['plan', POOLS, bench, '-o', 'json'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'ignore'] });
      runs.push(performance.now() - t0);
    }
    native = stats(runs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const lines = [
    `timing: import + instantiate (node entry): ${ms(load)}`,
    `timing: 500-pod plan, first call: ${ms(cold)} (${first.nodeClaims.length} NodeClaims)`,
    `timing: 500-pod re-plan, plan(object) -> object, ${RUNS} runs: median ${ms(object.median)}, p90 ${ms(object.p90)}, min ${ms(object.min)}, max ${ms(object.max)}`,
    `timing: 500-pod re-plan, callJson(string) -> string, ${RUNS} runs: median ${ms(jsonStats.median)}, p90 ${ms(jsonStats.p90)}`,
    `timing: native CLI (process incl. start-up), 5 runs: median ${ms(native.median)}`,
  ];
  for (const l of lines) t.diagnostic(l);
  if (process.env.NODECAST_WASM_TIMINGS) writeFileSync(process.env.NODECAST_WASM_TIMINGS, lines.join('\n') + '\n');
  // A generous budget: catches a pathological regression, not machine noise.
  assert.ok(object.median < 2000, `500-pod re-plan took ${ms(object.median)}`);
});
