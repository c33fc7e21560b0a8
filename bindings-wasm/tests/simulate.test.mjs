// simulate: byte identity with `nodecast simulate ... -o json|csv|prom`, determinism per seed,
// the option conveniences (trace text, seed, output) and located errors.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import * as nodecast from 'nodecast-wasm';
import { cli, read, requestFor } from './helpers.mjs';

const DAY = [
  'examples/nodepools/gpu-training.yaml',
  'examples/nodepools/gpu-inference.yaml',
  'examples/workloads/training-job-4gpu.yaml',
  'examples/workloads/vllm-inference.yaml',
];
const DAY_TRACE = 'examples/simulate/day.yaml';
const ONE_JOB = 'apiVersion: nodecast/v1\nkind: Trace\nevents:\n  - {at: 0s, submit: {ref: Job/ml/train-llm, runTime: 1h}}\n';
const TRAINING_ONLY = ['examples/nodepools/gpu-training.yaml', 'examples/workloads/training-job-4gpu.yaml'];

const dir = mkdtempSync(join(tmpdir(), 'nodecast-wasm-sim-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The request the CLI builds for `simulate DAY --trace DAY_TRACE --seed N`. */
const dayRequest = (seed) => requestFor(DAY, { trace: { name: DAY_TRACE, text: read(DAY_TRACE) }, simulation: { seed } });

test('simulate: the example day is byte-identical to the CLI, CSV and Prometheus too', () => {
  const stdout = cli(['simulate', ...DAY, '--trace', DAY_TRACE, '--seed', '7', '-o', 'json']);
  assert.ok(stdout.endsWith('}\n'), stdout.slice(0, 300));
  const json = nodecast.callJson('simulate', JSON.stringify(dayRequest(7)));
  assert.equal(json, stdout.slice(0, -1));
  const answer = nodecast.simulate(dayRequest(7));
  assert.deepEqual(answer, JSON.parse(json));
  assert.equal(answer.status, 'success');
  assert.equal(answer.kind, 'Simulation');
  assert.equal(answer.seed, 7);
  assert.equal(answer.summary.durationSeconds, 86400);
  assert.ok(answer.summary.costUsd > 0 && answer.summary.costUsd < answer.summary.staticCostUsd);
  assert.equal(answer.nodes.filter((n) => n.terminationReason === 'interrupted').map((n) => n.name).join(), 'gpu-inference-1');
  assert.equal(answer.summary.launches.total, answer.nodes.length);

  const csv = cli(['simulate', ...DAY, '--trace', DAY_TRACE, '--seed', '7', '-o', 'csv']);
  assert.ok(csv.startsWith('timeSeconds,metric,labels,value\n'));
  assert.equal(nodecast.simulate(dayRequest(7), { output: 'csv' }), csv);
  assert.equal(nodecast.simulateCsv(dayRequest(7)), csv);
  assert.equal(nodecast.callJson('simulate-csv', JSON.stringify(dayRequest(7))), csv);
  const prom = cli(['simulate', ...DAY, '--trace', DAY_TRACE, '--seed', '7', '-o', 'prom']);
  assert.match(prom, /^# HELP karpenter_/);
  assert.equal(nodecast.simulateProm(dayRequest(7)), prom);
  assert.equal(nodecast.simulate(dayRequest(7), { output: 'prometheus' }), prom);
});

test('simulate: deterministic for a seed, and the seed changes the draws', () => {
  const a = nodecast.callJson('simulate', JSON.stringify(dayRequest(7)));
  assert.equal(nodecast.callJson('simulate', JSON.stringify(dayRequest(7))), a);
  const b = nodecast.simulate(dayRequest(8));
  assert.notEqual(JSON.stringify(b), JSON.stringify(JSON.parse(a)));
  assert.equal(b.seed, 8);
  const runTimes = (s) => s.pods.filter((p) => p.workload.startsWith('Job/')).map((p) => p.runTimeSeconds);
  assert.notDeepEqual(runTimes(b), runTimes(JSON.parse(a)));
  for (const t of runTimes(b)) assert.ok(t >= 7200 && t <= 10800, String(t));
  // The seed option is the same as simulation.seed, and keeps the other settings.
  const withOption = nodecast.simulate(requestFor(DAY, { trace: { name: DAY_TRACE, text: read(DAY_TRACE) }, simulation: { metricsIntervalSeconds: 600 } }), { seed: 8 });
  assert.equal(withOption.seed, 8);
  assert.equal(withOption.settings.metricsIntervalSeconds, 600);
  assert.equal(withOption.summary.costUsd, b.summary.costUsd);
});

test('simulate: trace text, names and formats as options; manifest text as input', () => {
  const files = TRAINING_ONLY.map(read).join('');
  const viaText = nodecast.simulate(files, { trace: ONE_JOB, seed: 1 });
  assert.equal(viaText.status, 'success', JSON.stringify(viaText.errors));
  assert.equal(viaText.pods.length, 1);
  assert.equal(viaText.pods[0].state, 'finished');
  assert.equal(viaText.pods[0].runTimeSeconds, 3600);
  assert.deepEqual(viaText.pods[0].nodes, ['gpu-training-1']);
  const csv = nodecast.simulate(files, { trace: 'time,workload,replicas,runTime\n0s,Job/ml/train-llm,1,1h\n', traceFormat: 'csv', seed: 1 });
  assert.equal(csv.status, 'success');
  assert.deepEqual(csv.pods.map((p) => [p.state, p.runningSeconds]), [['finished', 3600]]);
  // A JSON request string with options merged over it.
  const asRequest = nodecast.simulate(JSON.stringify(requestFor(TRAINING_ONLY, { simulation: { seed: 1 } })), { as: 'request', trace: ONE_JOB });
  assert.deepEqual(asRequest, viaText);
  // A CLI file of the same trace gives the same bytes.
  const path = join(dir, 'one.yaml');
  writeFileSync(path, ONE_JOB);
  const stdout = cli(['simulate', ...TRAINING_ONLY, '--trace', path, '--seed', '1', '-o', 'json']);
  assert.deepEqual(nodecast.simulate(requestFor(TRAINING_ONLY), { trace: ONE_JOB, traceName: path, seed: 1 }), JSON.parse(stdout));
});

test('simulate: errors are located failure answers, never exceptions', () => {
  const noTrace = nodecast.simulate(requestFor(TRAINING_ONLY));
  assert.equal(noTrace.status, 'failure');
  assert.equal(noTrace.kind, 'Simulation');
  assert.equal(noTrace.errors[0].path, 'trace');

  const badRunTime = nodecast.simulate(requestFor(TRAINING_ONLY), {
    trace: 'kind: Trace\nevents:\n  - {at: 0s, submit: {ref: Job/ml/train-llm, runTime: soon}}\n',
    traceName: 'bad.yaml',
  });
  assert.equal(badRunTime.status, 'failure');
  assert.equal(badRunTime.errors[0].source, 'bad.yaml');
  assert.equal(badRunTime.errors[0].path, 'events[0].submit.runTime');
  // The same failure bytes as the CLI.
  const path = join(dir, 'bad.yaml');
  writeFileSync(path, 'kind: Trace\nevents:\n  - {at: 0s, submit: {ref: Job/ml/train-llm, runTime: soon}}\n');
  const stdout = cli(['simulate', ...TRAINING_ONLY, '--trace', path, '-o', 'json']);
  const failure = nodecast.callJson('simulate', JSON.stringify(requestFor(TRAINING_ONLY, { trace: { name: path, text: readFileSync(path, 'utf8') } })));
  assert.equal(failure, stdout.slice(0, -1));

  const csvLine = nodecast.simulate(requestFor(TRAINING_ONLY), { trace: 'time,workload,replicas,runTime\n0s,Job/ml/train-llm,1,1h\nlater,Job/ml/train-llm,1,1h\n' });
  assert.equal(csvLine.status, 'failure');
  assert.equal(csvLine.errors[0].line, 3);

  const badSetting = nodecast.simulate(requestFor(TRAINING_ONLY), { trace: ONE_JOB, simulation: { metricsIntervalSeconds: 0 } });
  assert.equal(badSetting.errors[0].code, 'invalid-setting');
  assert.equal(badSetting.errors[0].path, 'simulation.metricsIntervalSeconds');
  const unknownSetting = nodecast.simulate(requestFor(TRAINING_ONLY), { trace: ONE_JOB, simulation: { seeed: 1 } });
  assert.equal(unknownSetting.errors[0].code, 'invalid-request');
  assert.match(unknownSetting.errors[0].message, /seeed/);

  const badOutput = nodecast.simulate(requestFor(TRAINING_ONLY), { trace: ONE_JOB, output: 'xml' });
  assert.equal(badOutput.status, 'failure');
  assert.equal(badOutput.kind, 'Simulation');
  assert.match(badOutput.errors[0].message, /options\.output/);
  // The text outputs give the JSON failure answer (an object) on failure.
  const csvFailure = nodecast.simulateCsv(requestFor(TRAINING_ONLY), { trace: ONE_JOB, simulation: { metricsIntervalSeconds: 0 } });
  assert.equal(typeof csvFailure, 'object');
  assert.equal(csvFailure.errors[0].path, 'simulation.metricsIntervalSeconds');
  // Options that are not an object: the binding's invalid-request, kind Simulation.
  const notObject = nodecast.simulate(requestFor(TRAINING_ONLY), 5);
  assert.equal(notObject.status, 'failure');
  assert.equal(notObject.kind, 'Simulation');
});

test('simulate: timing of the example day (reported)', () => {
  const request = dayRequest(7);
  const json = JSON.stringify(request);
  const first = performance.now();
  nodecast.callJson('simulate', json);
  const firstMs = performance.now() - first;
  const runs = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    const a = nodecast.simulate(request);
    runs.push(performance.now() - t);
    assert.equal(a.status, 'success');
  }
  runs.sort((x, y) => x - y);
  const medianMs = runs[5];
  console.log(`simulate (examples/simulate/day.yaml, wasm in Node): first ${firstMs.toFixed(1)} ms, median of 10 ${medianMs.toFixed(1)} ms`);
  assert.ok(medianMs < 5000, `${medianMs} ms`);
});
