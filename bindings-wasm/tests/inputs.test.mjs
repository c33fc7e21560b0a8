// The input forms: request object, manifest text (+ options), JSON request text, decoded objects.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as nodecast from 'nodecast-wasm';
import { concat, requestFor, TRAINING } from './helpers.mjs';

const POOL = {
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'default' },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        requirements: [
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
          { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m5'] },
        ],
      },
    },
  },
};
const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web' },
  spec: { containers: [{ name: 'web', image: 'nginx', resources: { requests: { cpu: '1', memory: '2Gi' } } }] },
};

test('price documents are objects too: spot price history and an EKS Auto Mode fee table', () => {
  const history = {
    SpotPriceHistory: [
      { AvailabilityZone: 'us-east-1b', InstanceType: 'm5.large', ProductDescription: 'Linux/UNIX', SpotPrice: '0.031000', Timestamp: '2026-11-28T10:00:00+00:00' },
    ],
  };
  const spotPool = structuredClone(POOL);
  spotPool.spec.template.spec.requirements[0].values = ['spot'];
  const s = nodecast.plan({ objects: [spotPool, POD, history] });
  assert.equal(s.status, 'success', JSON.stringify(s.errors));
  assert.equal(s.nodeClaims[0].zone, 'us-east-1b');
  assert.equal(s.nodeClaims[0].pricePerHour, 0.031);
  assert.equal(s.nodeClaims[0].priceSource, 'user');
  // Auto Mode's built-in general-purpose pool with a fee table: the fee is added to the cost.
  const cluster = { computeConfig: { enabled: true, nodePools: ['general-purpose'] } };
  const base = nodecast.plan({ objects: [cluster, POD] });
  assert.equal(base.status, 'success', JSON.stringify(base.errors));
  const it = base.nodeClaims[0].instanceType;
  const fee = nodecast.plan({ objects: [cluster, POD, { region: 'us-east-1', autoModeFee: { [it]: 0.02 } }] });
  assert.equal(fee.status, 'success', JSON.stringify(fee.errors));
  assert.equal(fee.nodeClaims[0].autoModeFeePerHour, 0.02);
  assert.ok(Math.abs(fee.totalPricePerHour - (base.totalPricePerHour + 0.02)) < 1e-9);
  const bad = nodecast.plan({ objects: [cluster, POD, { region: 'us-east-1', autoModeFee: { [it]: 'cheap' } }] });
  assert.equal(bad.status, 'failure');
  assert.equal(bad.errors[0].path, `autoModeFee.${it}`);
});

test('plain JS objects: Kubernetes objects in `objects` (no YAML at all)', () => {
  const a = nodecast.plan({ objects: [POOL, POD] });
  assert.equal(a.status, 'success', JSON.stringify(a.errors));
  assert.equal(a.nodeClaims[0].instanceType, 'm5.large');
  assert.deepEqual(a.nodeClaims[0].pods, ['default/web']);
});

test('plain JS object request with settings and an inline catalog', () => {
  const catalog = {
    zones: ['zone-a'],
    instanceTypes: [
      { name: 'small', allocatable: { cpu: '2', memory: '4Gi', pods: '110' }, onDemandPrice: 0.1 },
      { name: 'large', allocatable: { cpu: '8', memory: '32Gi', pods: '110' }, onDemandPrice: 0.4 },
    ],
  };
  const pool = structuredClone(POOL);
  pool.spec.template.spec.requirements = [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }];
  const a = nodecast.plan({ objects: [pool, POD], catalog, settings: { minValuesPolicy: 'BestEffort' } });
  assert.equal(a.status, 'success', JSON.stringify(a.errors));
  assert.equal(a.nodeClaims[0].instanceType, 'small');
  assert.equal(a.nodeClaims[0].zone, 'zone-a');
});

test('undefined members are ignored, like JSON.stringify', () => {
  const a = nodecast.plan({ ...requestFor(TRAINING), now: undefined, pod: undefined, catalog: undefined });
  assert.equal(a.status, 'success', JSON.stringify(a.errors));
});

test('a JSON request string needs {as: "request"}; without it the string is manifest text', () => {
  const json = JSON.stringify(requestFor(TRAINING));
  const asRequest = nodecast.plan(json, { as: 'request' });
  assert.equal(asRequest.status, 'success');
  assert.equal(asRequest.nodeClaims[0].instanceType, 'g5.12xlarge');
  // The same string as a manifest: a JSON document without apiVersion/kind.
  const asManifest = nodecast.plan(json);
  assert.notDeepEqual(asManifest, asRequest);
  // Overrides apply to a JSON request string too.
  const explained = nodecast.explain(json, { as: 'request', pod: 'ml/train-llm-0' });
  assert.equal(explained.status, 'success', JSON.stringify(explained.errors));
  assert.equal(explained.pod.nodeClaim.instanceType, 'g5.12xlarge');
});

test('options override request fields; name names the text input', () => {
  const req = requestFor(TRAINING, { pod: 'nope' });
  const a = nodecast.explain(req, { pod: 'ml/train-llm-0' });
  assert.equal(a.status, 'success', JSON.stringify(a.errors));
  const b = nodecast.plan('kind: [', { name: 'cluster.yaml' });
  assert.equal(b.errors[0].source, 'cluster.yaml');
  const c = nodecast.plan(concat(TRAINING), { name: 'all.yaml', settings: { maxInstanceTypes: 2 } });
  assert.equal(c.status, 'success');
  assert.equal(c.nodeClaims[0].instanceTypeOptions.length, 2);
});

test('manifest text as JSON (a single object or a List) works too', () => {
  const list = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [POOL, POD] });
  const a = nodecast.plan(list);
  assert.equal(a.status, 'success', JSON.stringify(a.errors));
  assert.equal(a.nodeClaims[0].instanceType, 'm5.large');
});

test('answers are fresh plain objects (mutating one does not affect the next)', () => {
  const a = nodecast.plan({ objects: [POOL, POD] });
  a.nodeClaims[0].instanceType = 'changed';
  assert.equal(Object.getPrototypeOf(a), Object.prototype);
  assert.equal(nodecast.plan({ objects: [POOL, POD] }).nodeClaims[0].instanceType, 'm5.large');
});
