// The form fields beside the editors: the clocks (typed as RFC 3339 UTC), the simulation's
// settings, and the "edited" marks of the presets.
import { $ } from './editors.js';
import { state, planPreset, consolidatePreset, simulatePreset } from './state.js';

// The clock is typed as what the core gets: an ISO 8601 / RFC 3339 UTC date-time ending in Z, so
// the field, the shared link and the request hold the same string (no browser-local zone).
const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;
export function setNowInput(iso) {
  $('now').value = iso || '';
  showNowError(null);
}
export function setPlanNowInput(iso) {
  $('plan-now').value = iso || '';
  showFieldError('plan-now', null);
}
export function showFieldError(id, msg) {
  $(id).setAttribute('aria-invalid', msg ? 'true' : 'false');
  $(`${id}-error`).textContent = msg || '';
  $(`${id}-error`).hidden = !msg;
}
export function showNowError(msg) {
  showFieldError('now', msg);
}
/** The field's date-time, or an error saying what is expected. */
export function nowFromInput() {
  const v = $('now').value.trim();
  const m = ISO_UTC.exec(v);
  if (!m) return { error: `"${v}" is not a UTC date-time: expected ISO 8601 like 2025-03-05T12:00:00Z (seconds and the Z are required)` };
  const [y, mo, d, hh, mi, ss] = m.slice(1, 7).map(Number);
  const t = new Date(Date.UTC(y, mo - 1, d, hh, mi, ss));
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d || hh > 23 || mi > 59 || ss > 59) {
    return { error: `"${v}" is not a date-time that exists` };
  }
  return { now: v };
}

export function updateEdited() {
  const p = planPreset();
  const edited = $('nodepools').value !== p.nodepools || $('workloads').value !== p.workloads || $('reservations').value !== (p.reservations ?? '') || state.planNow !== (p.now ?? '');
  $('preset-edited').hidden = !edited;
  $('cluster-edited').hidden = $('cluster').value === consolidatePreset().cluster;
  const sp = simulatePreset();
  $('sim-edited').hidden =
    $('sim-cluster').value === sp.cluster && $('sim-trace').value === sp.trace && state.seed === String(sp.seed) && state.spot === (sp.spot ?? '') && !state.gmin && !state.gmax && state.compare === (sp.compare ?? '');
}

export const SIM_SETTING_INPUTS = [
  ['sim-seed', 'seed'],
  ['sim-spot', 'spot'],
  ['sim-gpu-min', 'gmin'],
  ['sim-gpu-max', 'gmax'],
];
export function setSimSettingInputs() {
  for (const [id, key] of SIM_SETTING_INPUTS) $(id).value = state[key];
  $('sim-compare').checked = state.compare === 'cluster-autoscaler';
}

/** The request's `simulation`: the seed and the settings typed (empty fields = the core's defaults). */
export function simSettings() {
  const num = (v) => (/^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(v) ? Number(v) : v); // the core reports a non-number, located
  const sim = { seed: state.seed === '' ? 0 : num(state.seed) };
  if (state.spot !== '') sim.spotInterruptionRatePerHour = num(state.spot);
  if (state.gmin !== '' || state.gmax !== '') {
    sim.gpuStartupSeconds = { min: state.gmin === '' ? 180 : num(state.gmin), max: state.gmax === '' ? 300 : num(state.gmax) };
  }
  return sim;
}
