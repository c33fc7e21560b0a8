// The size budget: the .wasm (embedded AWS catalog included) at most 1.125 MiB gzipped
// (1 MiB until 2026-11-28, 1.1875 MiB for one session on 2026-11-29; docs/front-ends.md says why).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { PKG } from './helpers.mjs';

test('wasm: at most 1.125 MiB gzip -9; both builds ship the same module', (t) => {
  const web = readFileSync(join(PKG, 'web', 'nodecast_wasm_bg.wasm'));
  const node = readFileSync(join(PKG, 'node', 'nodecast_wasm_bg.wasm'));
  const gz = gzipSync(web, { level: 9 }).length;
  t.diagnostic(`size: ${web.length} bytes raw, ${gz} bytes gzip -9 (zlib)`);
  assert.ok(gz <= 1152 * 1024, `${gz} bytes gzipped`);
  assert.ok(web.equals(node));
});
