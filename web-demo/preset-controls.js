// Presets wiring: the three example pickers fill the editors and fields from presets.js (and a
// reset puts the chosen example back), then ask for the tab's answer.
import { PLAN_PRESETS, CONSOLIDATE_PRESETS, SIMULATE_PRESETS } from './presets.js';
import { h, replace } from './dom.js';
import { $ } from './editors.js';
import { state, planPreset, consolidatePreset, simulatePreset } from './state.js';
import { setNowInput, setPlanNowInput, setSimSettingInputs } from './fields.js';
import { filterCatalog } from './why-view.js';
import { scheduleConsolidate, schedulePlan, scheduleSimulate } from './runs.js';

function applyPlanPreset(id) {
  state.preset = id;
  const p = planPreset();
  $('preset').value = p.id;
  $('nodepools').value = p.nodepools;
  $('workloads').value = p.workloads;
  $('reservations').value = p.reservations ?? '';
  state.planNow = p.now ?? '';
  setPlanNowInput(state.planNow);
  state.pod = p.pod;
  state.type = p.instanceType;
  state.gates = p.featureGates ?? '';
  $('plan-gates').value = state.gates;
  if ($('why-type').querySelector(`option[value="${CSS.escape(p.instanceType)}"]`)) $('why-type').value = p.instanceType;
  else {
    $('why-filter').value = '';
    filterCatalog();
    $('why-type').value = p.instanceType;
  }
  $('why-out').dataset.shown = 'false';
  replace($('why-out'), h('p', { class: 'hint', text: 'Pick a pod and an instance type, then ask why (not).' }), 'idle');
  schedulePlan(0);
}
function applyConsolidatePreset(id) {
  state.cpreset = id;
  const p = consolidatePreset();
  $('cpreset').value = p.id;
  $('cluster').value = p.cluster;
  state.now = p.now;
  setNowInput(p.now);
  scheduleConsolidate(0);
}

function applySimulatePreset(id) {
  state.spreset = id;
  const p = simulatePreset();
  $('spreset').value = p.id;
  $('sim-cluster').value = p.cluster;
  $('sim-trace').value = p.trace;
  Object.assign(state, { seed: String(p.seed), spot: p.spot ?? '', gmin: '', gmax: '', compare: p.compare ?? '' });
  setSimSettingInputs();
  scheduleSimulate(0);
}

/** Fills the three pickers and binds them and their reset buttons. */
export function bindPresets() {
  $('preset').replaceChildren(...PLAN_PRESETS.map((p) => h('option', { value: p.id, text: p.label })));
  $('cpreset').replaceChildren(...CONSOLIDATE_PRESETS.map((p) => h('option', { value: p.id, text: p.label })));
  $('spreset').replaceChildren(...SIMULATE_PRESETS.map((p) => h('option', { value: p.id, text: p.label })));
  $('preset').addEventListener('change', (ev) => applyPlanPreset(ev.target.value));
  $('preset-reset').addEventListener('click', () => applyPlanPreset(state.preset));
  $('cpreset').addEventListener('change', (ev) => applyConsolidatePreset(ev.target.value));
  $('cpreset-reset').addEventListener('click', () => applyConsolidatePreset(state.cpreset));
  $('spreset').addEventListener('change', (ev) => applySimulatePreset(ev.target.value));
  $('spreset-reset').addEventListener('click', () => applySimulatePreset(state.spreset));
}

/** The chosen examples into empty editors and fields (a page opened without a link). */
export function fillFromPresets() {
  $('nodepools').value = planPreset().nodepools;
  $('workloads').value = planPreset().workloads;
  $('reservations').value = planPreset().reservations ?? '';
  setPlanNowInput(state.planNow);
  $('cluster').value = consolidatePreset().cluster;
  $('sim-cluster').value = simulatePreset().cluster;
  $('sim-trace').value = simulatePreset().trace;
  setSimSettingInputs();
  setNowInput(state.now);
}
