// options.reservations: describe-capacity-reservations output (object or text) appended to the
// request, the same answer as passing the document among the inputs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as nodecast from 'nodecast-wasm';
import { read } from './helpers.mjs';

const CLUSTER = read('examples/reservations/cluster.yaml');
const TEXT = read('examples/reservations/reservations.json');
const NOW = '2026-12-01T12:00:00Z';

test('reservations as an object, as text, and among the inputs give the same plan', () => {
  const inputs = nodecast.plan({ inputs: [{ name: 'cluster.yaml', text: CLUSTER }, { name: 'reservations', text: TEXT }], now: NOW });
  const asText = nodecast.plan(CLUSTER, { name: 'cluster.yaml', reservations: TEXT, now: NOW });
  const asObject = nodecast.plan(CLUSTER, { name: 'cluster.yaml', reservations: JSON.parse(TEXT), now: NOW });
  assert.equal(asText.status, 'success', JSON.stringify(asText.errors));
  assert.deepEqual(asText, inputs);
  assert.deepEqual(asObject.nodeClaims, inputs.nodeClaims);
  const claim = asObject.nodeClaims[0];
  assert.equal(claim.capacityType, 'reserved');
  assert.equal(claim.reservationId, 'cr-0a1b2c3d4e5f60001');
  assert.deepEqual(asObject.reservations.map((r) => [r.id, r.used, r.offered]), [
    ['cr-0a1b2c3d4e5f60001', 1, true],
    ['cr-0a1b2c3d4e5f60002', 0, false],
  ]);
});

test('optimize shows the reservation its optimum launches into', () => {
  const o = nodecast.optimize(CLUSTER, { reservations: JSON.parse(TEXT), now: NOW });
  assert.equal(o.status, 'success', JSON.stringify(o.errors));
  assert.deepEqual(o.nodeClaims.map((c) => c.reservationId), ['cr-0a1b2c3d4e5f60001']);
});

test('a reservations option of the wrong type is a failure answer', () => {
  const a = nodecast.plan(CLUSTER, { reservations: 42 });
  assert.equal(a.status, 'failure');
  assert.equal(a.errors[0].code, 'invalid-request');
  assert.match(a.errors[0].message, /describe-capacity-reservations/);
});
