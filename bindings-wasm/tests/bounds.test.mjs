// Issue 17 in the wasm build: a call past options.deadlineMs stops with a failure answer, and a
// lone UTF-16 surrogate in manifest text is a located error (before: silently U+FFFD).
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import * as nodecast from 'nodecast-wasm';

/** 40 NodePools and `deployments` Deployments of 100 replicas each, every Deployment a distinct
 * pod shape: a plan that takes about a second from small text (decoding is not interruptible,
 * so the text stays small and the time goes into scheduling, which polls the deadline). */
function slowInput(deployments) {
  let text = '';
  for (let i = 0; i < 40; i++) {
    text += `---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np${i}}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n`;
  }
  for (let i = 0; i < deployments; i++) {
    text += `---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d${i}}\nspec:\n  replicas: 100\n  selector: {matchLabels: {app: d${i}}}\n  template:\n    metadata: {labels: {app: d${i}}}\n    spec: {containers: [{name: c, resources: {requests: {cpu: ${100 + i * 7}m, memory: ${128 + i * 13}Mi}}}]}\n`;
  }
  return text;
}

test('deadlineMs: a long plan stops soon after the deadline with deadline-exceeded', () => {
  const text = slowInput(300);
  const t1 = performance.now();
  assert.equal(nodecast.plan(text).status, 'success');
  const full = performance.now() - t1;
  const deadline = 100;
  const t0 = performance.now();
  const a = nodecast.plan(text, { deadlineMs: deadline });
  const took = performance.now() - t0;
  assert.equal(a.status, 'failure', `the plan finished within ${took.toFixed(0)} ms: make the input larger`);
  assert.equal(a.kind, 'Plan');
  assert.equal(a.errors[0].code, 'deadline-exceeded');
  assert.equal(a.errors[0].path, 'options.deadlineMs');
  console.log(`whole plan ${full.toFixed(0)} ms; deadline ${deadline} ms: answered after ${took.toFixed(0)} ms`);
  // The overrun is decoding (not interruptible) plus one loop step; on an idle machine about
  // 80 ms. Relative to the whole plan, so a loaded CI machine does not fail it.
  assert.ok(took < full / 2, `answered ${took.toFixed(0)} ms after the start (the whole plan: ${full.toFixed(0)} ms)`);
});

test('deadlineMs: a call within its deadline answers as without one', () => {
  const small = slowInput(2);
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
