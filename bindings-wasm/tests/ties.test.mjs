// Karpenter's own nondeterminism (Go map order) is disclosed on the NodeClaim: `ties`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as nodecast from 'nodecast-wasm';

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
const spread = (pinned) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        ...(pinned ? { nodeSelector: { 'topology.kubernetes.io/zone': pinned } } : {}),
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } },
        ],
        containers: [{ name: 'web', image: 'pause', resources: { requests: { cpu: '1', memory: '1Gi' } } }],
      },
    },
  },
});

test('a zone spread names the zones Karpenter could have picked', () => {
  const a = nodecast.plan({ objects: [POOL, spread()] });
  assert.equal(a.status, 'success');
  const [first, second] = a.nodeClaims;
  assert.deepEqual(first.ties.map((t) => t.candidates), [['us-east-1a', 'us-east-1b', 'us-east-1c']]);
  assert.equal(first.ties[0].value, first.zone);
  assert.equal(first.ties[0].key, 'topology.kubernetes.io/zone');
  assert.match(first.ties[0].message, /^the zone is a tie among us-east-1a, us-east-1b, us-east-1c in Karpenter/);
  assert.deepEqual(second.ties[0].candidates, ['us-east-1b', 'us-east-1c']);
});

test('no tie, no `ties` field', () => {
  const a = nodecast.plan({ objects: [POOL, spread('us-east-1b')] });
  assert.equal(a.status, 'success');
  assert.ok(a.nodeClaims.every((c) => c.ties === undefined && c.zone === 'us-east-1b'));
});
