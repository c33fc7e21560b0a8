// nodecast playground: the page's entry. Every answer is computed by the wasm core in worker.js;
// the page only keeps the editors, the URL and the rendering, in modules by concern (README.md,
// "Files"): editors.js, worker-client.js, runs.js, the *-view.js renderers, charts.js, share.js,
// preset-controls.js. No framework; the one build step is the editor bundle (build/editor.js:
// CodeMirror 6, bundled by scripts/build.mjs), imported by main() once the first answer is on
// screen (see PendingEditor in editors.js), so it never delays that answer.
import { bindAwsGates } from './gates.js';
import { passTime } from './reservations.js';
import { h } from './dom.js';
import { $, createEditors } from './editors.js';
import { state, timings } from './state.js';
import { readyPromise } from './worker-client.js';
import { initTabs, selectTab } from './tabs.js';
import { SIM_SETTING_INPUTS, nowFromInput, showFieldError, showNowError } from './fields.js';
import { currentHash, loadUrl, saveUrl } from './share.js';
import { filterCatalog, loadCatalog } from './why-view.js';
import { measure, updateTiming } from './timing.js';
import { bindPresets, fillFromPresets } from './preset-controls.js';
import { firstPlanShown, rerunAdvise, scheduleConsolidate, scheduleExplain, schedulePlan, scheduleSimulate } from './runs.js';

async function main() {
  bindPresets();
  initTabs();

  if (!(await loadUrl())) fillFromPresets();

  for (const [id, key] of SIM_SETTING_INPUTS) {
    $(id).addEventListener('input', () => {
      state[key] = $(id).value.trim();
      scheduleSimulate();
    });
  }
  $('sim-compare').addEventListener('change', () => {
    state.compare = $('sim-compare').checked ? 'cluster-autoscaler' : '';
    scheduleSimulate(0);
  });
  $('now').addEventListener('input', () => {
    const r = nowFromInput();
    showNowError(r.error || null);
    if (r.error) return; // the last answer stays, for the last valid clock
    state.now = r.now;
    scheduleConsolidate();
  });
  $('plan-now').addEventListener('input', () => {
    const r = passTime($('plan-now').value);
    showFieldError('plan-now', r.error);
    if (r.error) return; // the last answer stays, for the last valid time
    state.planNow = r.now ?? '';
    schedulePlan();
  });
  $('plan-gates').addEventListener('input', () => {
    state.gates = $('plan-gates').value;
    schedulePlan();
  });
  bindAwsGates(state, $, () => schedulePlan());
  $('ignore-dra').addEventListener('change', () => {
    state.ignoreDra = $('ignore-dra').checked;
    schedulePlan();
  });
  for (const [id, key] of [['static-capacity', 'staticCapacity'], ['capacity-buffer', 'capacityBuffer']]) {
    $(id).addEventListener('change', () => {
      state[key] = $(id).checked;
      schedulePlan();
    });
  }
  for (const [id, key] of [['cat-zones', 'czones'], ['cat-spot', 'cspot']]) {
    $(id).addEventListener('input', () => {
      state[key] = $(id).value;
      selectTab(state.tab); // the current tab's answer, on the new catalog
    });
  }
  $('spot-to-spot').addEventListener('change', () => {
    state.spotToSpot = $('spot-to-spot').checked;
    scheduleConsolidate();
  });
  $('why-filter').addEventListener('input', filterCatalog);
  $('why-gpu').addEventListener('change', filterCatalog);
  for (const id of ['adv-max-risk', 'adv-exclude-kinds', 'adv-exclude-pools']) $(id).addEventListener('change', rerunAdvise);
  $('why-pod').addEventListener('change', () => {
    state.pod = $('why-pod').value;
    if ($('why-out').dataset.shown === 'true') scheduleExplain(0);
  });
  $('why-type').addEventListener('change', () => {
    state.type = $('why-type').value;
    if ($('why-out').dataset.shown === 'true') scheduleExplain(0);
  });
  $('why-type').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') scheduleExplain(0);
  });
  $('why-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    scheduleExplain(0);
  });
  $('timing-rerun').addEventListener('click', measure);
  $('share').addEventListener('click', async () => {
    await saveUrl();
    let msg = 'Link copied to the clipboard.';
    try {
      await navigator.clipboard.writeText(location.href);
    } catch {
      msg = 'The link is in the address bar.';
    }
    $('share-status').textContent = msg;
    setTimeout(() => ($('share-status').textContent = ''), 4000);
  });
  window.addEventListener('hashchange', async () => {
    if (location.hash.slice(1) === currentHash()) return;
    if (await loadUrl()) selectTab(state.tab);
  });

  selectTab(state.tab);
  schedulePlan(0);
  scheduleConsolidate(0);

  // The editors, once the first answer is on screen (or after 2 s): building them takes the main
  // thread for a while (~150 ms on a busy 2-core machine), which would otherwise compete with the
  // worker's wasm load and delay the first answer. Until then the texts show as plain text, and the
  // requests above read them from the pending editors. Timed for the footer and the tests.
  await Promise.race([firstPlanShown.promise, new Promise((resolve) => setTimeout(resolve, 2000))]);
  const t0 = performance.now();
  try {
    const { YamlEditor } = await import('./build/editor.js');
    const t1 = performance.now();
    createEditors(YamlEditor);
    timings.editors = { importMs: t1 - t0, createMs: performance.now() - t1, readyAt: performance.now() };
  } catch (e) {
    // The examples still answer; the texts stay read-only until the bundle is built.
    timings.editorError = String(e.message || e);
    for (const id of ['editors-help', 'reservations-help', 'cluster-help', 'sim-editors-help']) {
      $(id).replaceChildren(h('span', { class: 'bad', text: 'The editors did not load (build/editor.js: run make web-build): the examples are shown read-only. ' }), $(id).textContent);
    }
  }
  $('nodepools').addEventListener('input', () => schedulePlan());
  $('workloads').addEventListener('input', () => schedulePlan());
  $('reservations').addEventListener('input', () => schedulePlan());
  $('cluster').addEventListener('input', () => scheduleConsolidate());
  $('sim-cluster').addEventListener('input', () => scheduleSimulate());
  $('sim-trace').addEventListener('input', () => scheduleSimulate());
  updateTiming();
  try {
    await readyPromise;
  } catch (e) {
    $('timing-text').textContent = 'not measured: the wasm module did not load.';
    $('why-count').textContent = 'catalog unavailable';
    return;
  }
  updateTiming();
  await loadCatalog();
  if (state.type) $('why-type').value = state.type;
  await measure();
}

main();
