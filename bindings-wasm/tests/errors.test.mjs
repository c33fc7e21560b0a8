// User errors come back as failure answers (code, message, location), never as exceptions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as nodecast from 'nodecast-wasm';

const BAD_QUANTITY = `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml}
spec:
  containers:
  - name: c
    image: x
    resources: {requests: {cpu: "1.5.0"}}
`;

function failure(a, kind) {
  assert.equal(a.apiVersion, 'nodecast/v1');
  assert.equal(a.kind, kind);
  assert.equal(a.status, 'failure', JSON.stringify(a));
  assert.ok(Array.isArray(a.errors) && a.errors.length > 0);
  for (const e of a.errors) {
    assert.equal(typeof e.code, 'string');
    assert.equal(typeof e.message, 'string');
  }
  return a.errors;
}

test('malformed YAML: yaml-syntax with source, line and column', () => {
  const [e] = failure(nodecast.plan('apiVersion: v1\nkind: Pod\nmetadata: {name: [p\n'), 'Plan');
  assert.equal(e.code, 'yaml-syntax');
  assert.equal(e.source, 'input');
  assert.equal(typeof e.line, 'number');
  assert.equal(typeof e.column, 'number');
});

test('a bad quantity (cpu: "1.5.0"): invalid-quantity located by document, object and path', () => {
  const [e] = failure(nodecast.plan(BAD_QUANTITY, { name: 'pod.yaml' }), 'Plan');
  assert.deepEqual(
    { code: e.code, source: e.source, document: e.document, object: e.object, path: e.path },
    { code: 'invalid-quantity', source: 'pod.yaml', document: 0, object: 'Pod/ml/p', path: 'spec.containers[0].resources.requests.cpu' },
  );
  assert.match(e.message, /"1\.5\.0" is not a Kubernetes quantity/);
  assert.ok(e.help);
  // The same through a request object and through validate.
  const [r] = failure(nodecast.plan({ inputs: [{ name: 'pod.yaml', text: BAD_QUANTITY }] }), 'Plan');
  assert.deepEqual(r, e);
  failure(nodecast.validate(BAD_QUANTITY), 'Validation');
});

test('a NodePool with an unknown operator: validate locates it', () => {
  const pool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: bad}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: Inn, values: [spot]}
`;
  const [e] = failure(nodecast.validate(pool), 'Validation');
  assert.equal(e.code, 'invalid-operator');
  assert.equal(e.object, 'NodePool/bad');
  assert.equal(e.path, 'spec.template.spec.requirements[0].operator');
});

test('requests that are not requests: invalid-request failures', () => {
  const cases = [
    [{ inputs: 'not a list' }, /expected a sequence/],
    [{ bogus: true }, /unknown field `bogus`/],
    [42, /invalid type/],
    [['a'], /invalid type/],
  ];
  for (const [req, message] of cases) {
    const [e] = failure(nodecast.plan(req), 'Plan');
    assert.equal(e.code, 'invalid-request');
    assert.match(e.message, message);
  }
  // A JSON request string that is not JSON.
  const [j] = failure(nodecast.plan('{"inputs": [', { as: 'request' }), 'Plan');
  assert.equal(j.code, 'invalid-request');
  // Options that are not options.
  for (const options of [{ as: 'yaml' }, { name: 3 }, 'now']) {
    const [o] = failure(nodecast.consolidate('', options), 'Decision');
    assert.equal(o.code, 'invalid-request');
  }
  // Objects JSON cannot represent.
  const cyclic = { inputs: [] };
  cyclic.self = cyclic;
  const [c] = failure(nodecast.plan(cyclic), 'Plan');
  assert.equal(c.code, 'invalid-request');
  assert.match(c.message, /cannot be converted to JSON/);
  const [b] = failure(nodecast.plan({ settings: { maxInstanceTypes: 10n } }), 'Plan');
  assert.equal(b.code, 'invalid-request');
});

test('explain without a pod or node, catalog with a bad requirement: failures', () => {
  failure(nodecast.explain('apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: x}]}\n'), 'Explanation');
  const [e] = failure(nodecast.catalog({ query: { requirements: ['kubernetes.io/arch Inn arm64'] } }), 'CatalogQuery');
  assert.ok(e.code);
});

test('callJson never throws for bad JSON; only a non-string request is a TypeError', () => {
  const a = JSON.parse(nodecast.callJson('plan', 'not json'));
  assert.equal(a.status, 'failure');
  assert.equal(a.errors[0].code, 'invalid-request');
  assert.throws(() => nodecast.callJson('plan', { inputs: [] }), TypeError);
});

test('an unknown field (resources.request): unknown-field, located, with what was meant', () => {
  const pod = 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec:\n  containers:\n  - {name: c, image: x, resources: {request: {nvidia.com/gpu: 1}}}\n';
  const [e] = failure(nodecast.plan(pod, { name: 'pod.yaml' }), 'Plan');
  assert.deepEqual(
    { code: e.code, object: e.object, path: e.path },
    { code: 'unknown-field', object: 'Pod/ml/p', path: 'spec.containers[0].resources.request' },
  );
  assert.match(e.help, /did you mean "requests"\?/);
  failure(nodecast.validate(pod), 'Validation');
});
