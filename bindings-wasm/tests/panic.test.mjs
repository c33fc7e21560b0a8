// A panic never takes the module down silently: with panic=abort it ends in a wasm trap; the
// wrapper returns an `internal-panic` failure answer carrying the recorded message and
// re-instantiates the module on the next call.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import * as nodecast from 'nodecast-wasm';
import * as web from 'nodecast-wasm/web';
import { PKG, requestFor, TRAINING } from './helpers.mjs';

const REQUEST = JSON.stringify(requestFor(TRAINING));

function assertPanicAnswer(a, text) {
  assert.equal(a.apiVersion, 'nodecast/v1');
  assert.equal(a.status, 'failure');
  assert.equal(a.errors.length, 1);
  const [e] = a.errors;
  assert.equal(e.code, 'internal-panic');
  assert.ok(e.message.startsWith('nodecast panicked: '), e.message);
  assert.ok(e.message.includes(text), e.message);
  assert.match(e.message, /\(at src\/lib\.rs:\d+:\d+\)$/);
  assert.match(e.help, /re-instantiated/);
}

test('what a panic is underneath: a RuntimeError (unreachable) from the raw glue', () => {
  // A private instance of the raw Node glue (not the one the wrapper uses).
  const require = createRequire(import.meta.url);
  const path = join(PKG, 'node', 'nodecast_wasm.js');
  delete require.cache[require.resolve(path)];
  const glue = require(path);
  delete require.cache[require.resolve(path)];
  assert.throws(() => glue.__nodecast_test_panic('raw'), (e) => e instanceof WebAssembly.RuntimeError && /unreachable/.test(e.message));
  // The hook recorded the message before the abort.
  const bytes = new Uint8Array(glue.__nodecast_memory().buffer, glue.__nodecast_panic_ptr(), glue.__nodecast_panic_len());
  assert.match(new TextDecoder().decode(bytes), /^raw \(at src\/lib\.rs/);
  glue.__wbg_reset_state();
  assert.equal(glue.__nodecast_panic_ptr(), 0);
  assert.equal(JSON.parse(glue.callJson('plan', REQUEST)).status, 'success');
});

test('node entry: failure answer, poisoned, re-instantiated on the next call, same bytes as before', () => {
  const before = nodecast.callJson('plan', REQUEST);
  assert.equal(nodecast.isPoisoned(), false);
  const a = nodecast.__nodecast_test_panic('boom: the message travels');
  assertPanicAnswer(a, 'boom: the message travels');
  assert.equal(a.kind, 'Plan');
  assert.equal(nodecast.isPoisoned(), true);
  const after = nodecast.callJson('plan', REQUEST);
  assert.equal(nodecast.isPoisoned(), false);
  assert.equal(after, before);
  assert.equal(nodecast.plan(requestFor(TRAINING)).nodeClaims[0].instanceType, 'g5.12xlarge');
});

test('node entry: panic after panic, every function recovers', () => {
  for (const fn of nodecast.FUNCTIONS) {
    assertPanicAnswer(nodecast.__nodecast_test_panic(`panic before ${fn}`), `panic before ${fn}`);
    const extra = fn === 'explain' ? { pod: 'ml/train-llm-0' } : fn === 'consolidate' ? { now: '2025-03-05T12:00:00Z' } : {};
    if (fn.startsWith('simulate')) extra.trace = { name: 'one.yaml', text: 'kind: Trace\nevents:\n  - {at: 0s, submit: {ref: Job/ml/train-llm, runTime: 1h}}\n' };
    const a = nodecast.call(fn, requestFor(TRAINING, extra));
    if (fn === 'simulate-csv') assert.match(a, /^timeSeconds,metric,labels,value\n/, fn);
    else if (fn === 'simulate-prom') assert.match(a, /^# HELP /, fn);
    else assert.equal(a.status, 'success', `${fn}: ${JSON.stringify(a.errors)}`);
  }
  // Memory does not pile up across re-instantiations: each is a fresh instance.
  for (let i = 0; i < 20; i++) nodecast.__nodecast_test_panic(`loop ${i}`);
  assert.equal(JSON.parse(nodecast.callJson('plan', REQUEST)).status, 'success');
});

test('web entry (wasm-bindgen --target web) in Node: init first, then the same recovery', () => {
  assert.throws(() => web.plan(REQUEST), /await init\(\)/);
  web.initSync(readFileSync(join(PKG, 'web', 'nodecast_wasm_bg.wasm')));
  const before = web.callJson('plan', REQUEST);
  assert.equal(before, nodecast.callJson('plan', REQUEST));
  assertPanicAnswer(web.__nodecast_test_panic('web boom'), 'web boom');
  assert.equal(web.isPoisoned(), true);
  assert.equal(web.callJson('plan', REQUEST), before);
  assert.equal(web.isPoisoned(), false);
});
