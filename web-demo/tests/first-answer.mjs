// Time to the first answer: how long after navigation the playground shows the default example's
// plan, in headless Chromium with a fresh profile per load (cold cache). Serves DIR (default
// web-demo/) with python3 -m http.server, so two checkouts can be compared on the same machine:
//
//   node tests/first-answer.mjs [--runs N] [DIR ...]     loads alternate between the DIRs
//
// Prints, per DIR, the median/min/max of: DOMContentLoaded, the example texts shown, the editors
// ready (the first `.cm-content`, or the first textarea of an older page), the first plan answer
// (`#plan-out[data-status="success"]`), all in ms after navigation start (performance.now()), and
// (this page's own timings) when the wasm core was ready and how long the editors took to build.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDir } from './static-server.mjs';

const WEB = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const args = process.argv.slice(2);
let runs = 5;
const dirs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--runs') runs = Number(args[++i]);
  else dirs.push(resolve(args[i]));
}
if (!dirs.length) dirs.push(WEB);
if (!(runs >= 1)) throw new Error('--runs N: N >= 1');

async function once(url) {
  const profile = mkdtempSync(join(tmpdir(), 'nodecast-first-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 1000 },
  });
  try {
    await context.addInitScript(OBSERVER);
    const page = context.pages()[0] || (await context.newPage());
    await page.goto(url);
    await page.waitForSelector('#plan-out[data-status="success"]', { timeout: 60000 });
    await page.waitForFunction(() => document.querySelector('.cm-content, textarea'), null, { timeout: 60000 });
    return await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      const t = window.__nodecastTimings;
      return { dcl: nav.domContentLoadedEventEnd, text: window.__firstAnswer.text, editors: window.__firstAnswer.editors, answer: window.__firstAnswer.answer, wasm: t.readyAt, create: t.editors?.createMs, imp: t.editors?.importMs, workerLoad: t.loadMs };
    });
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

// The page is observed from the first script that runs, without changing the page itself.
const OBSERVER = `(() => {
  const t = (window.__firstAnswer = { text: null, editors: null, answer: null });
  const check = () => {
    if (t.editors === null && document.querySelector('.cm-content, textarea')) t.editors = performance.now();
    if (t.answer === null && document.querySelector('#plan-out[data-status="success"]')) t.answer = performance.now();
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
  // A textarea's value is not in the DOM: the texts are looked for at every frame.
  const frame = () => {
    if ([...document.querySelectorAll('.cm-host, textarea')].some((e) => (e.value ?? e.textContent).length > 0)) t.text = performance.now();
    else requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();`;

const servers = [];
for (const dir of dirs) servers.push({ dir, ...(await serveDir(dir)), samples: [] });
try {
  for (let r = 0; r < runs; r++) for (const s of servers) s.samples.push(await once(s.url));
} finally {
  for (const s of servers) s.stop();
}
const stats = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  return `median ${v[Math.floor(v.length / 2)].toFixed(0)} ms (min ${v[0].toFixed(0)}, max ${v[v.length - 1].toFixed(0)})`;
};
for (const s of servers) {
  console.log(`${s.dir}: ${runs} cold loads`);
  console.log(`  DOMContentLoaded  ${stats(s.samples.map((x) => x.dcl))}`);
  console.log(`  texts shown       ${stats(s.samples.map((x) => x.text))}`);
  console.log(`  editors shown     ${stats(s.samples.map((x) => x.editors))}`);
  console.log(`  first answer      ${stats(s.samples.map((x) => x.answer))}`);
  if (s.samples.every((x) => x.wasm)) console.log(`  wasm core ready   ${stats(s.samples.map((x) => x.wasm))}`);
  if (s.samples.every((x) => x.create)) console.log(`  editors built in  ${stats(s.samples.map((x) => x.create))} (main thread), after waiting ${stats(s.samples.map((x) => x.imp))} for the bundle`);
  console.log(`  wasm load         ${stats(s.samples.map((x) => x.workerLoad))} (in the worker, as it measures itself)`);
}
