// The footer's timings: the wasm load, the editors, the first answer, the last plan and a
// 500-pod re-plan measured in the worker with performance.now().
import { fmtNumber, plural } from './format.js';
import { $ } from './editors.js';
import { timings } from './state.js';
import { ask, readyPromise } from './worker-client.js';

export function updateTiming() {
  const parts = [];
  if (timings.loadMs !== null) parts.push(`wasm loaded in ${fmtNumber(timings.loadMs, 0)} ms`);
  if (timings.editors) parts.push(`editors built in ${fmtNumber(timings.editors.createMs, 0)} ms`);
  if (timings.firstAnswerAt !== null) parts.push(`first answer ${fmtNumber(timings.firstAnswerAt, 0)} ms after navigation`);
  if (timings.lastPlanMs !== null) parts.push(`last plan ${fmtNumber(timings.lastPlanMs, 2)} ms`);
  const b = timings.plan500;
  if (b?.error) parts.push(`500-pod re-plan not measured: ${b.error}`);
  else if (b) {
    parts.push(`re-plan of ${b.pods} pods (${plural(b.nodeClaims, 'NodeClaim')}): median ${fmtNumber(b.medianMs, 2)} ms (min ${fmtNumber(b.minMs, 2)}, max ${fmtNumber(b.maxMs, 2)}, ${b.runs.length} runs after ${b.warmup} warm-up; first call ${fmtNumber(b.firstMs, 1)} ms) — ${b.medianMs <= 16 ? 'within' : 'over'} one frame (16 ms)`);
  } else if (timings.ready) parts.push('measuring a 500-pod re-plan…');
  $('timing-text').textContent = parts.join(' · ') || 'loading the nodecast WebAssembly module…';
}
export async function measure() {
  $('timing-rerun').disabled = true;
  try {
    await readyPromise;
    const { bench } = await ask('bench', { runs: 20, replicas: 500, warmup: 10 });
    timings.plan500 = bench;
  } catch (e) {
    timings.plan500 = { error: String(e.message || e) };
  } finally {
    $('timing-rerun').disabled = false;
    updateTiming();
  }
}
