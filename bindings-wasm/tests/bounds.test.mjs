// Issue 17 in the wasm build: a call past options.deadlineMs stops with a failure answer, and a
// lone UTF-16 surrogate in manifest text is a located error (before: silently U+FFFD).
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import * as nodecast from 'nodecast-wasm';

/** 40 NodePools and `n` pods of distinct shapes: a plan that takes seconds. */
function slowInput(n) {
  let text = '';
  for (let i = 0; i < 40; i++) {
    text += `---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np${i}}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n`;
  }
  for (let i = 0; i < n; i++) {
    text += `---\napiVersion: v1\nkind: Pod\nmetadata: {name: p${i}}\nspec: {containers: [{name: c, resources: {requests: {cpu: ${100 + (i % 997)}m, memory: ${128 + (i % 1013)}Mi}}}]}\n`;
  }
  return text;
}

test('deadlineMs: a long plan stops soon after the deadline with deadline-exceeded', () => {
  const text = slowInput(12000);
  const deadline = 300;
  const t0 = performance.now();
  const a = nodecast.plan(text, { deadlineMs: deadline });
  const took = performance.now() - t0;
  assert.equal(a.status, 'failure', `the plan finished within ${took.toFixed(0)} ms: make the input larger`);
  assert.equal(a.kind, 'Plan');
  assert.equal(a.errors[0].code, 'deadline-exceeded');
  assert.equal(a.errors[0].path, 'options.deadlineMs');
  console.log(`deadline ${deadline} ms: answered after ${took.toFixed(0)} ms`);
  // Decoding the text (before the first poll) counts too; the bound leaves room for a slow CI.
  assert.ok(took < deadline + 400, `answered ${took.toFixed(0)} ms after the start`);
});

test('deadlineMs: a call within its deadline answers as without one', () => {
  const small = slowInput(3);
  assert.deepEqual(nodecast.plan(small, { deadlineMs: 60000 }), nodecast.plan(small));
});

test('deadlineMs must be a number of milliseconds', () => {
  const a = nodecast.plan('', { deadlineMs: 'soon' });
  assert.equal(a.status, 'failure');
  assert.equal(a.errors[0].code, 'invalid-request');
  assert.match(a.errors[0].message, /deadlineMs/);
});

test('a lone surrogate in manifest text is a located invalid-text error', () => {
  const text = 'apiVersion: v1\nkind: Pod\nmetadata: {name: "a\uD800b"}\nspec: {containers: [{name: c}]}\n';
  const a = nodecast.plan(text, { name: 'pod.yaml' });
  assert.equal(a.status, 'failure', JSON.stringify(a));
  const [e] = a.errors;
  assert.deepEqual(
    { code: e.code, source: e.source, line: e.line, column: e.column },
    { code: 'invalid-text', source: 'pod.yaml', line: 3, column: 20 },
  );
  assert.match(e.message, /0xD800/);
  // A proper pair (an emoji) is text like any other.
  const ok = nodecast.validate('apiVersion: v1\nkind: Pod\nmetadata: {name: a, annotations: {x: "\uD83D\uDE00"}}\nspec: {containers: [{name: c}]}\n');
  assert.notEqual(ok.errors?.[0]?.code, 'invalid-text');
});
