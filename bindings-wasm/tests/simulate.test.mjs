// simulate: byte identity with `nodecast simulate ... -o json|csv|prom`, determinism per seed,
// the option conveniences (trace text, seed, output) and located errors.
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

// The example day runs every provisioning and disruption pass of 24 h: a few runs only, timed.
const dayTimings = {};
let dayJson7;

test('simulate: the example day is byte-identical to the CLI (JSON and CSV)', () => {
  const stdout = cli(['simulate', ...DAY, '--trace', DAY_TRACE, '--seed', '7', '-o', 'json']);
  assert.ok(stdout.endsWith('}\n'), stdout.slice(0, 300));
  let t = performance.now();
  dayJson7 = nodecast.callJson('simulate', JSON.stringify(dayRequest(7)));
  dayTimings.firstMs = performance.now() - t;
  assert.equal(dayJson7, stdout.slice(0, -1));
  const answer = JSON.parse(dayJson7);
  assert.equal(answer.status, 'success');
  assert.equal(answer.kind, 'Simulation');
  assert.equal(answer.seed, 7);
  assert.equal(answer.summary.durationSeconds, 86400);
  assert.ok(answer.summary.costUsd > 0 && answer.summary.costUsd < answer.summary.staticCostUsd);
  assert.equal(answer.nodes.filter((n) => n.terminationReason === 'interrupted').map((n) => n.name).join(), 'gpu-inference-1');
  assert.equal(answer.summary.launches.total, answer.nodes.length);

  const csv = cli(['simulate', ...DAY, '--trace', DAY_TRACE, '--seed', '7', '-o', 'csv']);
  assert.ok(csv.startsWith('timeSeconds,metric,labels,value\n'));
  t = performance.now();
  assert.equal(nodecast.simulateCsv(dayRequest(7)), csv);
  dayTimings.csvMs = performance.now() - t;
});

test('simulate: object answers, output options and Prometheus text are the CLI\'s (one job)', () => {
  const path = join(dir, 'one.yaml');
  writeFileSync(path, ONE_JOB);
  const request = requestFor(TRAINING_ONLY, { trace: { name: path, text: ONE_JOB }, simulation: { seed: 3 } });
  const json = cli(['simulate', ...TRAINING_ONLY, '--trace', path, '--seed', '3', '-o', 'json']);
  assert.equal(nodecast.callJson('simulate', JSON.stringify(request)), json.slice(0, -1));
  assert.deepEqual(nodecast.simulate(request), JSON.parse(json));
  assert.deepEqual(nodecast.call('simulate', request), JSON.parse(json));
  const csv = cli(['simulate', ...TRAINING_ONLY, '--trace', path, '--seed', '3', '-o', 'csv']);
  assert.equal(nodecast.simulate(request, { output: 'csv' }), csv);
  assert.equal(nodecast.callJson('simulate-csv', JSON.stringify(request)), csv);
  const prom = cli(['simulate', ...TRAINING_ONLY, '--trace', path, '--seed', '3', '-o', 'prom']);
  assert.match(prom, /^# HELP karpenter_/);
  assert.match(prom, /^nodecast_cost_usd_total \S+ \d{13}$/m);
  assert.equal(nodecast.simulateProm(request), prom);
  assert.equal(nodecast.simulate(request, { output: 'prometheus' }), prom);
  assert.equal(nodecast.call('simulate-prom', request), prom);
});

test('simulate: deterministic for a seed, and the seed changes the draws', () => {
  let t = performance.now();
  assert.equal(nodecast.callJson('simulate', JSON.stringify(dayRequest(7))), dayJson7);
  dayTimings.againMs = performance.now() - t;
  const a = JSON.parse(dayJson7);
  t = performance.now();
  const b = nodecast.simulate(dayRequest(8));
  dayTimings.objectMs = performance.now() - t;
  assert.equal(b.status, 'success');
  assert.equal(b.seed, 8);
  assert.notEqual(JSON.stringify(b), JSON.stringify(a));
  const runTimes = (s) => s.pods.filter((p) => p.workload.startsWith('Job/')).map((p) => p.runTimeSeconds);
  assert.notDeepEqual(runTimes(b), runTimes(a));
  for (const r of [...runTimes(a), ...runTimes(b)]) assert.ok(r >= 7200 && r <= 10800, String(r));
  // The seed option is the same as simulation.seed, and keeps the other settings (one job: its
  // start-up latency is drawn from the seed).
  const files = TRAINING_ONLY.map(read).join('');
  const viaOption = nodecast.simulate(files, { trace: ONE_JOB, simulation: { metricsIntervalSeconds: 600 }, seed: 5 });
  const viaSettings = nodecast.simulate(files, { trace: ONE_JOB, simulation: { metricsIntervalSeconds: 600, seed: 5 } });
  assert.deepEqual(viaOption, viaSettings);
  // ...also over the request's own simulation settings.
  const overRequest = nodecast.simulate(requestFor(TRAINING_ONLY, { trace: { text: ONE_JOB }, simulation: { metricsIntervalSeconds: 600 } }), { seed: 5 });
  assert.equal(overRequest.seed, 5);
  assert.equal(overRequest.settings.metricsIntervalSeconds, 600);
  assert.deepEqual(overRequest.summary, viaSettings.summary);
  assert.equal(viaOption.seed, 5);
  assert.equal(viaOption.settings.metricsIntervalSeconds, 600);
  const launches = new Set([0, 1, 2, 3, 4, 5, 6, 7].map((seed) => nodecast.simulate(files, { trace: ONE_JOB, seed }).nodes[0].registeredSeconds));
  assert.ok(launches.size > 1, 'the GPU start-up latency (180-300 s) is drawn from the seed');
  console.log(
    `simulate (examples/simulate/day.yaml, wasm in Node): first ${dayTimings.firstMs.toFixed(0)} ms, again ${dayTimings.againMs.toFixed(0)} ms, ` +
      `object answer ${dayTimings.objectMs.toFixed(0)} ms, CSV ${dayTimings.csvMs.toFixed(0)} ms`,
  );
  if (process.env.NODECAST_WASM_TIMINGS) {
    appendFileSync(process.env.NODECAST_WASM_TIMINGS, `timing: simulate examples/simulate/day.yaml (wasm, Node): first ${dayTimings.firstMs.toFixed(0)} ms, again ${dayTimings.againMs.toFixed(0)} ms, object answer (seed 8) ${dayTimings.objectMs.toFixed(0)} ms\n`);
  }
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

test('simulate: the README week (settings.yaml: seed 7, spot 1 %/h) is byte-identical to the CLI', () => {
  const week = [
    'examples/nodepools/gpu-training.yaml',
    'examples/nodepools/gpu-inference.yaml',
    'examples/workloads/vllm-inference.yaml',
    'examples/simulate/workloads.yaml',
  ];
  const stdout = cli(['simulate', ...week, '--trace', 'examples/simulate/week.yaml', '--settings', 'examples/simulate/settings.yaml', '-o', 'json']);
  const request = requestFor(week, {
    trace: { name: 'examples/simulate/week.yaml', text: read('examples/simulate/week.yaml') },
    simulation: { seed: 7, spotInterruptionRatePerHour: 0.01 },
  });
  const t = performance.now();
  const json = nodecast.callJson('simulate', JSON.stringify(request));
  const ms = performance.now() - t;
  assert.equal(json, stdout.slice(0, -1));
  const a = JSON.parse(json);
  assert.equal(a.summary.durationSeconds, 7 * 86400);
  assert.ok(a.summary.savingsPercent > 0);
  console.log(`simulate (examples/simulate/week.yaml, wasm in Node): ${ms.toFixed(0)} ms, ${a.nodes.length} NodeClaims, $${a.summary.costUsd}`);
  if (process.env.NODECAST_WASM_TIMINGS) {
    appendFileSync(process.env.NODECAST_WASM_TIMINGS, `timing: simulate examples/simulate/week.yaml (wasm, Node): ${ms.toFixed(0)} ms\n`);
  }
});
