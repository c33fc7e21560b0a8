// The browser entry (index.js + wasm-bindgen --target web) in headless Chromium, on the main
// thread: init() fetches the .wasm, plan works, a panic is answered and the module is
// re-instantiated synchronously on the next call. Skipped when Chromium or playwright-core is
// not available (Debian: apt-get install chromium; playwright-core from npm, never its browsers).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { extname, join, normalize } from 'node:path';
import { test } from 'node:test';
import { BINDINGS, concat, ROOT, TRAINING } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

function playwright() {
  for (const base of [BINDINGS, join(ROOT, 'web-demo')]) {
    try {
      return createRequire(join(base, 'package.json'))('playwright-core');
    } catch {}
  }
  return null;
}

const PAGE = (yaml) => `<!doctype html><script type="module">
import init, * as nodecast from '/pkg/index.js';
const out = {};
try {
  await init();
  out.plan = nodecast.plan(${JSON.stringify(yaml)});
  out.panic = nodecast.__nodecast_test_panic('in the browser');
  out.poisoned = nodecast.isPoisoned();
  out.after = nodecast.plan(${JSON.stringify(yaml)});
  out.poisonedAfter = nodecast.isPoisoned();
} catch (e) { out.error = String((e && e.stack) || e); }
window.__out = out;
</script>`;

test('browser entry in headless Chromium (main thread)', async (t) => {
  const pw = playwright();
  if (!existsSync(CHROMIUM) || !pw) {
    t.skip(`needs ${CHROMIUM} and playwright-core`);
    return;
  }
  const yaml = concat(TRAINING);
  const types = { '.js': 'text/javascript', '.wasm': 'application/wasm' };
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://localhost').pathname;
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE(yaml));
    const file = normalize(join(BINDINGS, path));
    if (!file.startsWith(join(BINDINGS, 'pkg')) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': types[extname(file)] || 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const browser = await pw.chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => window.__out, null, { timeout: 60000 });
    const out = await page.evaluate(() => window.__out);
    assert.equal(out.error, undefined);
    assert.equal(out.plan.status, 'success');
    assert.equal(out.plan.nodeClaims[0].instanceType, 'g5.12xlarge');
    assert.equal(out.panic.status, 'failure');
    assert.equal(out.panic.errors[0].code, 'internal-panic');
    assert.match(out.panic.errors[0].message, /in the browser/);
    assert.equal(out.poisoned, true);
    assert.deepEqual(out.after, out.plan);
    assert.equal(out.poisonedAfter, false);
  } finally {
    await browser.close();
    server.close();
  }
});
