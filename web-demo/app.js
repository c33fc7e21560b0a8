// nodecast playground: the page. Every answer is computed by the wasm core in worker.js; this
// module only keeps the editors, the URL and the rendering. No framework; the one build step is
// the editor bundle (build/editor.js: CodeMirror 6, bundled by scripts/build.mjs), imported by
// main() once the first answer is on screen (see PendingEditor), so it never delays that answer.
import { PLAN_PRESETS, CONSOLIDATE_PRESETS, SIMULATE_PRESETS } from './presets.js';
import { HOURS_PER_MONTH, fmtDollars2, fmtMonth, fmtPrice } from './money.js';
import { renderOptimization } from './optimize.js';
import { renderAdvice } from './advise.js';
import { awsGatesSnapshot, bindAwsGates, gateSettings, restoreAwsGates } from './gates.js';
import { simAutoscaling } from './autoscaling.js';
import { RESERVATIONS_SOURCE, claimReservation, locateJson, passTime, planReservations, reservationChanges, reservationOptions, simReservations } from './reservations.js';

const DEBOUNCE_MS = 250;
// The YAML editors by the id of the textarea each replaced: `$(id).value` reads and sets their
// text and `$(id).addEventListener('input', ...)` hears the user's edits, as with a textarea.
const editors = {};
const $ = (id) => editors[id] || document.getElementById(id);
const EDITOR_IDS = ['nodepools', 'workloads', 'reservations', 'cluster', 'sim-trace', 'sim-cluster'];
const editorHost = (id) => document.querySelector(`.cm-host[data-editor="${id}"]`);

/**
 * An editor's text until the editor bundle is in: the page shows it as plain text and the first
 * requests read it, so neither waits for CodeMirror (the first answer waits only for the wasm).
 * Error marks given meanwhile are kept for the editor.
 */
class PendingEditor extends EventTarget {
  constructor(host) {
    super();
    this.host = host;
    this.text = '';
    this.marks = [];
    host.classList.add('pending');
  }
  get value() {
    return this.text;
  }
  set value(text) {
    this.text = text;
    this.host.textContent = text;
  }
  focus() {}
  select() {}
  setErrors(marks) {
    this.marks = marks;
  }
  get errorCount() {
    return this.marks.length;
  }
}
for (const id of EDITOR_IDS) editors[id] = new PendingEditor(editorHost(id));

/** Replaces each pending editor by a CodeMirror one with its text and marks. */
function createEditors(YamlEditor) {
  for (const id of EDITOR_IDS) {
    const pending = editors[id];
    const host = pending.host;
    host.textContent = '';
    host.classList.remove('pending');
    const ed = new YamlEditor(host, { id, labelledBy: `${id}-label`, describedBy: host.dataset.describedby });
    ed.value = pending.value;
    if (pending.marks.length) ed.setErrors(pending.marks);
    editors[id] = ed;
    // A click on the label focuses its editor, as a label does for a textarea.
    document.getElementById(`${id}-label`).addEventListener('click', () => editors[id].focus());
  }
}

// ---------------------------------------------------------------------------------------------
// Timings, exposed to tests.
const timings = (window.__nodecastTimings = { ready: false, loadError: null, module: null, loadMs: null, lastPlanMs: null, lastSimulateMs: null, plan500: null, editors: null, readyAt: null, firstAnswerAt: null });
window.__nodecastEditors = editors;

// ---------------------------------------------------------------------------------------------
// DOM helpers: build nodes, never innerHTML with user data.
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// ---------------------------------------------------------------------------------------------
// Quantities and money.
const SUFFIX = { m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
export function parseQuantity(q) {
  if (q === undefined || q === null) return 0;
  if (typeof q === 'number') return q;
  const m = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?\s*$/.exec(String(q));
  if (!m) return NaN;
  return parseFloat(m[1]) * (m[2] ? SUFFIX[m[2]] : 1);
}
function fmtNumber(x, digits = 2) {
  if (!isFinite(x)) return '?';
  return Number(x.toFixed(digits)).toLocaleString('en-US', { maximumFractionDigits: digits, useGrouping: false });
}
function fmtBytes(b) {
  if (!isFinite(b)) return '?';
  if (b === 0) return '0';
  // Gi up to 10000Gi (instance sizes read 1152Gi, not 1.1Ti).
  const units = ['B', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi'];
  let i = 0;
  while ((i < 3 ? b >= 1024 : b >= 10240) && i < units.length - 1) {
    b /= 1024;
    i++;
  }
  return `${fmtNumber(b, b >= 100 ? 0 : 1)}${units[i]}`;
}
function fmtResource(key, q) {
  const v = parseQuantity(q);
  if (key === 'memory' || key === 'ephemeral-storage' || /storage|memory/.test(key)) return fmtBytes(v);
  if (key === 'cpu') return `${fmtNumber(v, 2)} vCPU`;
  return fmtNumber(v, 2);
}
// Limits: memory-like quantities in binary units (7577Mi of 4000Gi → 7.4Gi of 4000Gi), others as given.
const fmtLimit = (key, q) => (/memory|storage/.test(key) ? fmtBytes(parseQuantity(q)) : q);
// Prices exactly as the core gives them (5.672, 0.29328), never rounded to cents per hour.
const plural = (n, one, many = one + 's') => `${n} ${n === 1 ? one : many}`;
const pct = (x) => `${Math.round(x * 100)}%`;

// Long resource names shortened for the row label (the full name is its title).
const shortKey = (key) => (key.length > 16 ? key.split('/').pop() : key);

// ---------------------------------------------------------------------------------------------
// The worker.
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
let nextId = 1;
const pending = new Map();
let workerReady;
const readyPromise = new Promise((resolve, reject) => (workerReady = { resolve, reject }));
readyPromise.catch(() => {}); // reported where it is awaited

worker.onmessage = (ev) => {
  const msg = ev.data;
  if (msg.type === 'ready') {
    timings.ready = true;
    timings.readyAt = performance.now();
    timings.module = msg.module;
    timings.loadMs = msg.ms;
    workerReady.resolve(msg);
    return;
  }
  if (msg.type === 'load-error') {
    const e = new Error(msg.error);
    e.details = msg.details;
    timings.loadError = [msg.error, msg.details].filter(Boolean).join('\n');
    workerReady.reject(e);
    return;
  }
  const p = pending.get(msg.id);
  if (!p) return;
  pending.delete(msg.id);
  if (msg.error) p.reject(new Error(msg.error));
  else p.resolve(msg);
};
worker.onerror = (ev) => workerReady.reject(new Error(ev.message || 'the worker failed to start'));

function ask(op, request, options) {
  if (op !== 'bench') request = withCatalog(request);
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, op, request, options });
  });
}

// ---------------------------------------------------------------------------------------------
// State, and the URL that carries it.
const state = {
  tab: 'plan',
  preset: PLAN_PRESETS[0].id,
  cpreset: CONSOLIDATE_PRESETS[0].id,
  now: CONSOLIDATE_PRESETS[0].now,
  // Karpenter's SpotToSpotConsolidation feature gate; off by default, as in Karpenter.
  spotToSpot: false,
  // The plan tab's Karpenter settings: --feature-gates as Karpenter spells it (e.g.
  // NodeOverlay=true; a preset may set it) and --ignore-dra-requests (true by default).
  gates: PLAN_PRESETS[0].featureGates ?? '',
  ignoreDra: true,
  // The AWS provider's --aws-feature-gates as typed (gates.js; DRANVIDIAGPU, DRAEFA); '' = defaults.
  awsGates: '',
  // Karpenter's StaticCapacity and CapacityBuffer feature gates (plan tab); off by default.
  staticCapacity: false,
  capacityBuffer: false,
  pod: PLAN_PRESETS[0].pod,
  type: PLAN_PRESETS[0].instanceType,
  // The plan tab's time of the pass (the request's `now`, for reservations' end dates); '' = none.
  planNow: PLAN_PRESETS[0].now ?? '',
  spreset: SIMULATE_PRESETS[0].id,
  // Simulation settings as typed (strings; empty = the core's default).
  seed: String(SIMULATE_PRESETS[0].seed),
  spot: SIMULATE_PRESETS[0].spot ?? '',
  gmin: '',
  gmax: '',
  // The catalog's zones (comma-separated) and spot price factor, as typed; empty = default.
  czones: '',
  cspot: '',
};

/** The request's catalog from the catalog row: null (the core's default) when both fields are empty. */
export function catalogSpec(zones, spot) {
  const z = zones.split(',').map((s) => s.trim()).filter(Boolean);
  if (!z.length && spot.trim() === '') return null;
  const spec = { source: 'aws-us-east-1' };
  if (z.length) spec.zones = z;
  // A non-number goes to the core as typed, which reports it (located) rather than dropping it.
  if (spot.trim() !== '') spec.spotPriceFactor = /^\s*\d+(\.\d+)?\s*$/.test(spot) ? Number(spot) : spot;
  return spec;
}
const withCatalog = (request) => {
  const catalog = catalogSpec(state.czones, state.cspot);
  return catalog ? { ...request, catalog } : request;
};
const planPreset = () => PLAN_PRESETS.find((p) => p.id === state.preset) || PLAN_PRESETS[0];
const consolidatePreset = () => CONSOLIDATE_PRESETS.find((p) => p.id === state.cpreset) || CONSOLIDATE_PRESETS[0];
const simulatePreset = () => SIMULATE_PRESETS.find((p) => p.id === state.spreset) || SIMULATE_PRESETS[0];

function snapshot() {
  const s = { v: 1, tab: state.tab, preset: state.preset, cpreset: state.cpreset, now: state.now, pod: state.pod, type: state.type };
  if (state.spotToSpot) s.spotToSpot = true;
  if (state.gates !== (planPreset().featureGates ?? '')) s.gates = state.gates;
  if (!state.ignoreDra) s.ignoreDra = false;
  awsGatesSnapshot(state, s);
  if (state.staticCapacity) s.staticCapacity = true;
  if (state.capacityBuffer) s.capacityBuffer = true;
  if (state.czones) s.czones = state.czones;
  if (state.cspot) s.cspot = state.cspot;
  // Editors are carried only when they differ from their example, which keeps links short.
  if ($('nodepools').value !== planPreset().nodepools) s.nodepools = $('nodepools').value;
  if ($('workloads').value !== planPreset().workloads) s.workloads = $('workloads').value;
  if ($('reservations').value !== (planPreset().reservations ?? '')) s.reservations = $('reservations').value;
  if (state.planNow !== (planPreset().now ?? '')) s.planNow = state.planNow;
  if ($('cluster').value !== consolidatePreset().cluster) s.cluster = $('cluster').value;
  Object.assign(s, { spreset: state.spreset, seed: state.seed, spot: state.spot, gmin: state.gmin, gmax: state.gmax });
  if ($('sim-cluster').value !== simulatePreset().cluster) s.simCluster = $('sim-cluster').value;
  if ($('sim-trace').value !== simulatePreset().trace) s.simTrace = $('sim-trace').value;
  return s;
}

const b64url = {
  encode(bytes) {
    let bin = '';
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  },
  decode(s) {
    const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  },
};
const hasCompression = typeof CompressionStream === 'function' && typeof DecompressionStream === 'function';
async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

/** `#z=` + base64url(deflate(JSON)), or `#j=` + base64url(JSON) where CompressionStream is missing. */
export async function encodeState(s) {
  const bytes = new TextEncoder().encode(JSON.stringify(s));
  if (hasCompression) {
    try {
      return 'z=' + b64url.encode(await pipe(bytes, new CompressionStream('deflate')));
    } catch {
      /* fall through to the plain form */
    }
  }
  return 'j=' + b64url.encode(bytes);
}
export async function decodeState(hash) {
  const m = /^#?([zj])=(.+)$/.exec(hash || '');
  if (!m) return null;
  let bytes = b64url.decode(m[2]);
  if (m[1] === 'z') bytes = await pipe(bytes, new DecompressionStream('deflate'));
  return JSON.parse(new TextDecoder().decode(bytes));
}

let lastHash = '';
async function saveUrl() {
  const enc = await encodeState(snapshot());
  if (enc === lastHash) return;
  lastHash = enc;
  history.replaceState(null, '', '#' + enc);
}

async function loadUrl() {
  try {
    const s = await decodeState(location.hash);
    if (!s) return false;
    lastHash = location.hash.slice(1);
    if (PLAN_PRESETS.some((p) => p.id === s.preset)) state.preset = s.preset;
    if (CONSOLIDATE_PRESETS.some((p) => p.id === s.cpreset)) state.cpreset = s.cpreset;
    if (TABS.includes(s.tab)) state.tab = s.tab;
    if (SIMULATE_PRESETS.some((p) => p.id === s.spreset)) state.spreset = s.spreset;
    const simDefaults = { seed: String(simulatePreset().seed), spot: simulatePreset().spot ?? '', gmin: '', gmax: '' };
    for (const k of ['seed', 'spot', 'gmin', 'gmax']) state[k] = typeof s[k] === 'string' ? s[k] : simDefaults[k];
    if (typeof s.now === 'string') state.now = s.now;
    state.spotToSpot = s.spotToSpot === true;
    $('spot-to-spot').checked = state.spotToSpot;
    state.gates = typeof s.gates === 'string' ? s.gates : planPreset().featureGates ?? '';
    $('plan-gates').value = state.gates;
    state.ignoreDra = s.ignoreDra !== false;
    $('ignore-dra').checked = state.ignoreDra;
    restoreAwsGates(state, s, $);
    state.staticCapacity = s.staticCapacity === true;
    $('static-capacity').checked = state.staticCapacity;
    state.capacityBuffer = s.capacityBuffer === true;
    $('capacity-buffer').checked = state.capacityBuffer;
    state.czones = typeof s.czones === 'string' ? s.czones : '';
    state.cspot = typeof s.cspot === 'string' ? s.cspot : '';
    $('cat-zones').value = state.czones;
    $('cat-spot').value = state.cspot;
    state.pod = typeof s.pod === 'string' ? s.pod : planPreset().pod;
    state.type = typeof s.type === 'string' ? s.type : planPreset().instanceType;
    $('preset').value = state.preset;
    $('cpreset').value = state.cpreset;
    $('nodepools').value = typeof s.nodepools === 'string' ? s.nodepools : planPreset().nodepools;
    $('workloads').value = typeof s.workloads === 'string' ? s.workloads : planPreset().workloads;
    // Links from before the reservations editor carry neither field: the preset's (none) apply.
    $('reservations').value = typeof s.reservations === 'string' ? s.reservations : planPreset().reservations ?? '';
    state.planNow = typeof s.planNow === 'string' ? s.planNow : planPreset().now ?? '';
    setPlanNowInput(state.planNow);
    $('cluster').value = typeof s.cluster === 'string' ? s.cluster : consolidatePreset().cluster;
    $('spreset').value = state.spreset;
    $('sim-cluster').value = typeof s.simCluster === 'string' ? s.simCluster : simulatePreset().cluster;
    $('sim-trace').value = typeof s.simTrace === 'string' ? s.simTrace : simulatePreset().trace;
    setSimSettingInputs();
    setNowInput(state.now);
    return true;
  } catch (e) {
    console.warn('ignoring an unreadable link state', e);
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Tabs (WAI-ARIA tabs pattern: buttons with aria-selected, arrow keys move between them).
const TABS = ['plan', 'consolidate', 'simulate'];
function selectTab(name, focus = false) {
  state.tab = name;
  for (const t of TABS) {
    const btn = $(`tab-${t}`);
    const on = t === name;
    btn.setAttribute('aria-selected', String(on));
    btn.tabIndex = on ? 0 : -1;
    $(`panel-${t}`).hidden = !on;
    if (on && focus) btn.focus();
  }
  if (name === 'consolidate') scheduleConsolidate(0);
  else if (name === 'simulate') scheduleSimulate(0);
  else schedulePlan(0);
}
function initTabs() {
  for (const t of TABS) {
    const btn = $(`tab-${t}`);
    btn.addEventListener('click', () => selectTab(t));
    btn.addEventListener('keydown', (ev) => {
      const i = TABS.indexOf(t);
      let j = null;
      if (ev.key === 'ArrowRight') j = (i + 1) % TABS.length;
      else if (ev.key === 'ArrowLeft') j = (i - 1 + TABS.length) % TABS.length;
      else if (ev.key === 'Home') j = 0;
      else if (ev.key === 'End') j = TABS.length - 1;
      if (j !== null) {
        ev.preventDefault();
        selectTab(TABS[j], true);
      }
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Requests.
const planInputs = () => [
  { name: 'nodepools.yaml', text: $('nodepools').value },
  { name: 'workloads.yaml', text: $('workloads').value },
];
const EDITOR_OF = { 'nodepools.yaml': 'nodepools', 'workloads.yaml': 'workloads', [RESERVATIONS_SOURCE]: 'reservations', 'cluster.yaml': 'cluster', 'sim-cluster.yaml': 'sim-cluster', 'trace.yaml': 'sim-trace' };
const TAB_OF_EDITOR = { nodepools: 'plan', workloads: 'plan', reservations: 'plan', cluster: 'consolidate', 'sim-cluster': 'simulate', 'sim-trace': 'simulate' };
// The plan tab's wasm options (the reservations editor) and the texts its answers locate errors in.
const planOptions = () => reservationOptions($('reservations').value);
const planTexts = (inputs) => [...inputs, { name: RESERVATIONS_SOURCE, text: $('reservations').value }];

function debounce(fn) {
  let t = null;
  return (ms = DEBOUNCE_MS) => {
    clearTimeout(t);
    t = setTimeout(fn, ms);
  };
}

let planSeq = 0;
// Settles when the first plan answer (or the load error) is on screen: the editors are built after.
const firstPlanShown = {};
firstPlanShown.promise = new Promise((resolve) => (firstPlanShown.resolve = resolve));
let lastPlan = null;
let lastGoodPlan = null; // shown dimmed under the errors while an edit is invalid
const schedulePlan = debounce(runPlan);
/** The request settings of the plan tab: Karpenter's feature gates and DRA flag. */
function planSettings() {
  // The text field is Karpenter's --feature-gates; the two checkboxes add their gates to it.
  const extra = [];
  if (state.staticCapacity) extra.push('StaticCapacity=true');
  if (state.capacityBuffer) extra.push('CapacityBuffer=true');
  return { ignoreDraRequests: state.ignoreDra, ...gateSettings({ gates: state.gates, awsGates: state.awsGates, extra }) };
}
/** A plan-tab request: the settings and the time of the pass, when one is given. */
const planRequest = (fields) => ({ ...fields, settings: planSettings(), ...(state.planNow ? { now: state.planNow } : {}) });

async function runPlan() {
  const seq = ++planSeq;
  const out = $('plan-out');
  $('plan-results').setAttribute('aria-busy', 'true');
  updateEdited();
  try {
    await readyPromise;
    const inputs = planInputs();
    const { answer, ms } = await ask('plan', planRequest({ inputs }), planOptions());
    if (seq !== planSeq) return; // a newer edit is on its way
    markErrors(answer, planTexts(inputs));
    timings.lastPlanMs = ms;
    lastPlan = answer;
    if (answer.status === 'success') lastGoodPlan = answer;
    replace(out, answer.status === 'success' || !lastGoodPlan ? renderPlan(answer) : withStale(renderErrors(answer), renderPlan(lastGoodPlan), 'plan'), answer.status);
    timings.firstAnswerAt ??= performance.now();
    updatePods(answer);
    runOptimize(seq);
    updateTiming();
    saveUrl();
    if ($('why-out').dataset.shown === 'true') {
      if (answer.status === 'success') scheduleExplain(0);
      else replace($('why-out'), h('p', { class: 'hint', text: 'The inputs have errors (see above): the why-not answer comes back once they are fixed.' }), 'idle');
    }
  } catch (e) {
    if (seq === planSeq) replace(out, renderLoadError(e), 'error');
  } finally {
    if (seq === planSeq) {
      $('plan-results').setAttribute('aria-busy', 'false');
      firstPlanShown.resolve();
    }
  }
}

/** The optimum beside the plan, for the same inputs (after the plan, so it never delays it). */
async function runOptimize(seq) {
  try {
    const { answer, ms } = await ask('optimize', planRequest({ inputs: planInputs() }), planOptions());
    if (seq !== planSeq) return;
    timings.lastOptimizeMs = ms;
    replace($('opt-out'), renderOptimization(answer, h, ms), answer.status);
  } catch (e) {
    if (seq === planSeq) replace($('opt-out'), h('p', { class: 'hint', text: `optimize is not available: ${e.message || e}` }), 'error');
  }
  runAdvise(seq);
}

/** The advise controls as request options: a comma list each, and the risk ceiling. */
function adviseOptions() {
  const list = (id) => $(id).value.split(',').map((x) => x.trim()).filter(Boolean);
  const opts = { excludeKinds: list('adv-exclude-kinds'), excludeNodePools: list('adv-exclude-pools') };
  if ($('adv-max-risk').value) opts.maxRisk = $('adv-max-risk').value;
  return opts;
}

/** NodePool edits that make Karpenter cheaper (after the optimum: it re-plans many times). */
async function runAdvise(seq) {
  try {
    const { answer, ms } = await ask('advise', planRequest({ inputs: planInputs(), advise: adviseOptions() }), planOptions());
    if (seq !== planSeq) return;
    replace($('adv-out'), renderAdvice(answer, h, ms), answer.status);
  } catch (e) {
    if (seq === planSeq) replace($('adv-out'), h('p', { class: 'hint', text: `advise is not available: ${e.message || e}` }), 'error');
  }
}

let consolidateSeq = 0;
const scheduleConsolidate = debounce(runConsolidate);
let lastGoodDecision = null;
async function runConsolidate() {
  const seq = ++consolidateSeq;
  const out = $('consolidate-out');
  $('consolidate-results').setAttribute('aria-busy', 'true');
  updateEdited();
  try {
    await readyPromise;
    const inputs = [{ name: 'cluster.yaml', text: $('cluster').value }];
    const { answer } = await ask('consolidate', {
      inputs,
      now: state.now,
      // The plan tab's gate fields (one Karpenter per cluster) and this tab's spot-to-spot box.
      settings: gateSettings({ gates: state.gates, awsGates: state.awsGates, extra: [`SpotToSpotConsolidation=${state.spotToSpot}`] }),
    });
    if (seq !== consolidateSeq) return;
    markErrors(answer, inputs);
    if (answer.status === 'success') lastGoodDecision = answer;
    replace(out, answer.status === 'success' || !lastGoodDecision ? renderDecision(answer) : withStale(renderErrors(answer), renderDecision(lastGoodDecision), 'consolidate'), answer.status);
    saveUrl();
  } catch (e) {
    if (seq === consolidateSeq) replace(out, renderLoadError(e), 'error');
  } finally {
    if (seq === consolidateSeq) $('consolidate-results').setAttribute('aria-busy', 'false');
  }
}

let explainSeq = 0;
const scheduleExplain = debounce(runExplain);
async function runExplain() {
  const seq = ++explainSeq;
  const out = $('why-out');
  const pod = $('why-pod').value;
  const type = $('why-type').value;
  if (!pod || !type) {
    replace(out, h('p', { class: 'hint' }, 'Choose a pod and an instance type.'), 'idle');
    return;
  }
  state.pod = pod;
  state.type = type;
  out.dataset.shown = 'true';
  try {
    await readyPromise;
    const { answer } = await ask('explain', planRequest({ inputs: planInputs(), pod, instanceType: type }), planOptions());
    if (seq !== explainSeq) return;
    replace(out, renderExplanation(answer), answer.status);
    saveUrl();
  } catch (e) {
    if (seq === explainSeq) replace(out, renderLoadError(e), 'error');
  }
}

/** Replace a region's content only when it changed, so screen readers hear only real changes. */
function replace(region, node, status) {
  const html = node.outerHTML;
  if (region.dataset.rendered === html) return;
  region.dataset.rendered = html;
  region.dataset.status = status;
  region.replaceChildren(node);
}

/**
 * The errors of an invalid edit with the last good answer under them, dimmed: the page does not
 * jump while typing, and the dimmed answer says (aria-describedby) which errors hold it back.
 */
function withStale(errors, last, prefix) {
  errors.id = `${prefix}-error`;
  return h(
    'div',
    { class: 'with-stale' },
    errors,
    h(
      'div',
      { class: 'stale', id: `${prefix}-stale`, 'aria-busy': 'true', 'aria-describedby': errors.id, 'aria-label': 'The last good answer, kept until the errors are fixed' },
      h('p', { class: 'stale-note hint', text: 'The last good answer (for the inputs before this edit), kept until the errors above are fixed:' }),
      last,
    ),
  );
}

function renderLoadError(e) {
  return h(
    'div',
    { class: 'errors', role: 'alert' },
    h('h3', { text: 'The nodecast WebAssembly module is not available' }),
    h('p', {}, 'Build it with ', h('code', { text: 'make wasm' }), ' (bindings-wasm copies its browser build into web-demo/pkg/), then reload.'),
    h('details', {}, h('summary', { text: 'Details' }), h('p', { class: 'mono small', text: [String(e.message || e), e.details].filter(Boolean).join('\n') })),
  );
}

// ---------------------------------------------------------------------------------------------
// Plan rendering.
function renderPlan(a) {
  if (a.status !== 'success') return renderErrors(a);
  const placed = a.nodeClaims.reduce((n, c) => n + c.pods.length, 0);
  const onExisting = a.existingNodes.reduce((n, e) => n + e.pods.length, 0);
  const root = h('div', { class: 'plan' });
  root.append(
    h(
      'p',
      { class: 'summary', id: 'plan-summary' },
      h('strong', { text: plural(a.nodeClaims.length, 'new NodeClaim') }),
      ` for ${plural(placed, 'pod')} · `,
      h('strong', { class: 'total-hour', text: `${fmtPrice(a.totalPricePerHour)}/h` }),
      ` · ${fmtDollars2(a.totalPricePerMonth)}/month (${HOURS_PER_MONTH} h) · ${plural(onExisting, 'pod')} on existing nodes · `,
      h('span', { class: a.unschedulable.length ? 'bad' : '' }, `${plural(a.unschedulable.length, 'pod')} unschedulable`),
    ),
  );
  if (a.nodeClaims.length) {
    root.append(h('h3', { text: 'New NodeClaims' }), h('div', { class: 'claims' }, a.nodeClaims.map(renderClaim)));
  }
  if (a.existingNodes.length) {
    root.append(
      h('h3', { text: 'Existing nodes' }),
      h('ul', { class: 'plain' }, a.existingNodes.map((n) => h('li', {}, h('strong', { text: n.name }), ` (${[n.nodePool, n.instanceType].filter(Boolean).join(', ') || 'unmanaged'}): `, n.pods.length ? n.pods.join(', ') : 'no new pods'))),
    );
  }
  if (a.staticNodeClaims?.length) {
    root.append(
      h('h3', { text: 'Static NodeClaims (kept at spec.replicas)' }),
      h('ul', { class: 'plain', id: 'static-claims' }, a.staticNodeClaims.map((c) => h('li', {}, h('strong', { text: c.name }), ` (${[c.nodePool, c.instanceType, c.capacityType, c.zone].filter(Boolean).join(', ')}${c.pricePerHour != null ? `, ${fmtPrice(c.pricePerHour)}/h` : ''}): `, c.pods.length ? c.pods.join(', ') : 'no pending pods'))),
    );
  }
  if (a.staticDeprovisioned?.length) {
    root.append(
      h('h3', { text: 'Static scale-down (NodeClaims deleted down to spec.replicas)' }),
      h('ul', { class: 'plain', id: 'static-deprovisioned' }, a.staticDeprovisioned.map((d) => h('li', {}, h('strong', { text: d.name }), ` (${d.nodePool}, ${d.why}): `, d.pods.length ? `pods pending again: ${d.pods.join(', ')}` : 'no pods', d.tiedWith?.length ? ` — Karpenter may take ${d.tiedWith.join(', ')} instead` : ''))),
    );
  }
  if (a.capacityBuffers?.length) {
    root.append(
      h('h3', { text: 'CapacityBuffers' }),
      h('ul', { class: 'plain', id: 'capacity-buffers' }, a.capacityBuffers.map((b) => h('li', {}, h('strong', { text: b.name }), `: ${plural(b.replicas, 'virtual pod')} — ${b.onExistingNodes} on existing capacity, ${b.onNewNodeClaims} on new NodeClaims, ${b.unschedulable} unschedulable (${b.provisioning}${b.message ? `: ${b.message}` : ''})`))),
    );
  }
  if (a.unschedulable.length) root.append(renderUnschedulable(a.unschedulable));
  root.append(planReservations(a, h) ?? '');
  if (a.nodePools.length) root.append(renderLimits(a.nodePools));
  root.append(renderNotes(a.warnings, a.skipped));
  return root;
}

function workloadOf(pod) {
  return pod.replace(/-\d+$/, '');
}
const PALETTE = 6;
function colorIndex(name, map) {
  if (!map.has(name)) map.set(name, map.size % PALETTE);
  return map.get(name);
}

function renderClaim(c) {
  const colors = new Map();
  const workloads = [...new Set(c.pods.map(workloadOf))];
  workloads.forEach((w) => colorIndex(w, colors));
  // GPUs and other accelerators drawn as slots: the core names them (nodecast::figures).
  const accel = (c.accelerators ?? []).map((a) => a.resource);
  const packing = h('div', { class: 'packing' });
  for (const key of accel) packing.append(renderSlots(key, c, colors, workloads));
  for (const key of ['cpu', 'memory']) {
    if (c.utilization[key] === undefined) continue;
    packing.append(renderBar(key, c.utilization[key], c.requests[key], c.allocatable[key]));
  }
  const MAX_PODS = 48;
  const pods = h(
    'ul',
    { class: 'pods', 'aria-label': `Pods on ${c.name}` },
    c.pods.slice(0, MAX_PODS).map((p) => h('li', { class: `pod c${colors.get(workloadOf(p))}`, title: p, text: p })),
    c.pods.length > MAX_PODS ? h('li', { class: 'pod more', text: `+${c.pods.length - MAX_PODS} more` }) : null,
    c.daemonSets.map((d) => h('li', { class: 'pod ds', title: `DaemonSet ${d}`, text: `DaemonSet ${d}` })),
  );
  packing.append(pods);
  return h(
    'article',
    { class: 'claim', 'aria-label': `NodeClaim ${c.name}` },
    h(
      'header',
      {},
      h('h4', { class: 'itype', text: c.instanceType || '?' }),
      (c.accelerators ?? []).map((a) => h('span', { class: 'accel', title: `${a.resource}${a.manufacturer ? ` (${a.manufacturer})` : ''}${a.memoryMib ? `, ${a.memoryMib} MiB per device` : ''}`, text: acceleratorText(a) })),
      h('span', { class: `badge ${c.capacityType}`, text: c.capacityType || '?' }),
      h('span', { class: 'zone', text: c.zone || '' }),
      h('span', { class: 'price' }, h('strong', { class: 'per-hour', text: `${fmtPrice(c.pricePerHour)}/h` }), h('span', { class: 'per-month', text: ` · ${fmtMonth(c.pricePerHour)}/month` })),
    ),
    h('p', { class: 'meta' }, `NodeClaim ${c.name} · NodePool ${c.nodePool} · ${plural(c.pods.length, 'pod')}`),
    claimReservation(c, h),
    // Karpenter's own coin flips (Go map order): said on the claim rather than hidden.
    (c.ties || []).map((t) => h('p', { class: 'tie small', text: `Note: ${t.message}` })),
    packing,
    h(
      'details',
      { class: 'options' },
      h('summary', { text: `${plural(c.instanceTypeOptions.length, 'instance-type option')} (cheapest first)` }),
      h('p', { class: 'mono small', text: c.instanceTypeOptions.join(', ') }),
      c.requirements.length ? h('p', { class: 'mono small', text: c.requirements.join('\n') }) : null,
    ),
  );
}

/**
 * "4 × A10G 22.4 GiB": the count, the device (short GPU names in capitals, as vendors write them)
 * and one device's memory as the catalog gives it (instance-gpu-memory, MiB: the A10G's 22888 MiB
 * is sold as "24 GB"; GiB is the unit that matches the data).
 */
function acceleratorText(a) {
  const raw = a.name || a.resource;
  const name = a.name ? (a.name.length <= 5 ? a.name.toUpperCase() : a.name[0].toUpperCase() + a.name.slice(1)) : raw;
  const gib = a.memoryMib ? a.memoryMib / 1024 : null;
  const mem = gib === null ? '' : ` ${Number.isInteger(gib) ? gib : gib.toFixed(1)} GiB`;
  return `${a.count} × ${name}${mem}`;
}

function renderSlots(key, c, colors, workloads) {
  const total = Math.round(parseQuantity(c.allocatable[key]));
  const used = Math.round(parseQuantity(c.requests[key] ?? '0'));
  // Which pod holds which slot is known when one workload fills the node evenly.
  let owner = () => null;
  if (workloads.length === 1 && c.pods.length && used % c.pods.length === 0) {
    const per = used / c.pods.length;
    owner = (i) => (i < used ? c.pods[Math.floor(i / per)] : null);
  }
  const shown = Math.min(total, 64);
  const slots = [];
  for (let i = 0; i < shown; i++) {
    const pod = owner(i);
    const cls = i < used ? `slot used${pod ? ` c${colors.get(workloadOf(pod))}` : ''}` : 'slot';
    slots.push(h('span', { class: cls, title: i < used ? (pod ? `${key} ${i}: ${pod}` : `${key} ${i}: requested`) : `${key} ${i}: free` }));
  }
  return h(
    'div',
    { class: 'resource' },
    h('span', { class: 'rlabel', title: key, text: shortKey(key) }),
    h('span', { class: 'slots', role: 'img', 'aria-label': `${key}: ${used} of ${total} used` }, slots, total > shown ? h('span', { class: 'small', text: ` +${total - shown}` }) : null),
    h('span', { class: 'rvalue', text: `${used} / ${total}` }),
  );
}

function renderBar(key, frac, req, alloc) {
  const p = Math.max(0, Math.min(1, frac));
  return h(
    'div',
    { class: 'resource' },
    h('span', { class: 'rlabel', title: key, text: shortKey(key) }),
    h(
      'span',
      { class: 'bar', role: 'meter', 'aria-label': `${key} utilisation`, 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': Math.round(p * 100), 'aria-valuetext': `${pct(p)}: ${fmtResource(key, req)} of ${fmtResource(key, alloc)}` },
      h('span', { class: `fill${p > 0.9 ? ' high' : ''}`, style: { width: `${(p * 100).toFixed(1)}%` } }),
    ),
    h('span', { class: 'rvalue', text: `${pct(p)} · ${fmtResource(key, req)} / ${fmtResource(key, alloc)}` }),
  );
}

function renderUnschedulable(list) {
  return h(
    'section',
    { class: 'unschedulable', 'aria-labelledby': 'unsched-h' },
    h('h3', { id: 'unsched-h', text: `Unschedulable pods (${list.length})` }),
    alikeGroups(list).map(([u, ...more]) =>
      h(
        'div',
        { class: 'pending-pod' },
        h(
          'p',
          {},
          h('strong', { class: 'mono', text: u.pod }),
          more.length ? h('span', { class: 'alike', title: more.map((o) => o.pod).join(', '), text: ` and ${plural(more.length, 'more pod')} alike` }) : null,
          ' ',
          h('span', { class: 'badge bad', text: u.code }),
        ),
        h(
          'ul',
          { class: 'reasons' },
          u.reasons.map((r) => h('li', {}, r.nodePool ? h('strong', { text: `${r.nodePool}: ` }) : null, r.message, ' ', h('span', { class: 'code', text: `[${r.code}]` }))),
        ),
        renderHints(u.hints || []),
      ),
    ),
  );
}

// Pending pods that stay pending alike (same code, reasons and hints: one workload's replicas)
// as groups, first pod first: 20 eval replicas are one block, not 20.
function alikeGroups(list) {
  const groups = [];
  const index = new Map();
  for (const u of list) {
    const key = JSON.stringify([u.code, u.reasons, (u.hints || []).map((x) => [x.code, x.nodePool, x.change, x.outcome])]);
    if (index.has(key)) groups[index.get(key)].push(u);
    else {
      index.set(key, groups.length);
      groups.push([u]);
    }
  }
  return groups;
}

const OUTCOME = { verified: 'fix · verified', 'lands-elsewhere': 'fix · lands elsewhere', 'not-enough-alone': 'fix · not enough alone' };

// Checked fix hints (the answer sorts them best first): the change, and what re-planning with
// it did. Changes that are not enough alone collapse to one line once a better one, or the
// first of them, is shown.
function renderHints(hints) {
  if (!hints.length) return null;
  let oneShown = hints.some((x) => x.outcome !== 'not-enough-alone');
  const shown = [];
  const collapsed = [];
  for (const x of hints) {
    if (x.outcome === 'not-enough-alone') {
      if (oneShown) {
        collapsed.push(x.nodePool);
        continue;
      }
      oneShown = true;
    }
    shown.push(x);
  }
  return h(
    'ul',
    { class: 'hints' },
    shown.map((x) =>
      h(
        'li',
        { class: x.verified ? 'fix verified' : 'fix' },
        h('span', { class: `badge ${x.verified ? 'good' : 'warn'}`, text: OUTCOME[x.outcome] ?? x.outcome }),
        ' ',
        h('strong', { text: `${x.nodePool}: ` }),
        x.change,
        h('div', { class: 'hint small', text: x.check }),
      ),
    ),
    collapsed.length ? h('li', { class: 'fix collapsed hint small', text: `also checked, not enough alone: ${plural(collapsed.length, 'change')} for NodePool ${collapsed.join(', ')}` }) : null,
  );
}

function renderLimits(pools) {
  return h(
    'section',
    { class: 'limits', 'aria-labelledby': 'limits-h' },
    h('h3', { id: 'limits-h', text: 'NodePools (in the order Karpenter tries them) and their limits' }),
    pools.map((p) => {
      const limits = Object.entries(p.limits);
      return h(
        'div',
        { class: 'pool' },
        h('p', { class: 'pool-name' }, h('strong', { text: p.name }), ` · weight ${p.weight} · ${plural(p.newNodeClaims, 'new NodeClaim')}`),
        p.unusable ? h('p', { class: 'hint unusable', text: `took no part: ${p.unusable}` }) : null,
        limits.length
          ? limits.map(([key, l]) => {
              const lim = parseQuantity(l.limit);
              const used = parseQuantity(l.used);
              const frac = lim > 0 ? Math.min(1, used / lim) : 1;
              return h(
                'div',
                { class: 'resource' },
                h('span', { class: 'rlabel', title: key, text: shortKey(key) }),
                h(
                  'span',
                  { class: 'bar gauge', role: 'meter', 'aria-label': `${p.name} ${key} limit`, 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': Math.round(frac * 100), 'aria-valuetext': `${l.used} of ${l.limit} used, ${l.remaining} remaining` },
                  h('span', { class: `fill${frac >= 1 ? ' full' : frac > 0.8 ? ' high' : ''}`, style: { width: `${(frac * 100).toFixed(1)}%` } }),
                ),
                h('span', { class: 'rvalue', title: `${l.used} of ${l.limit} (${l.remaining} left)`, text: `${fmtLimit(key, l.used)} of ${fmtLimit(key, l.limit)} (${fmtLimit(key, l.remaining)} left)` }),
              );
            })
          : h('p', { class: 'hint', text: 'no limits' }),
      );
    }),
  );
}

function renderNotes(warnings, skipped) {
  const box = h('div', { class: 'notes' });
  if (warnings?.length) {
    box.append(h('h3', { text: 'Warnings' }), h('ul', { class: 'plain' }, warnings.map((w) => h('li', {}, h('span', { class: 'code', text: `[${w.code}] ` }), w.object ? `${w.object}: ` : '', w.message))));
  }
  if (skipped?.length) {
    box.append(
      h('details', {}, h('summary', { text: `${plural(skipped.length, 'object')} skipped (not scheduling inputs)` }), h('ul', { class: 'plain small' }, skipped.map((s) => h('li', {}, `${s.source ?? ''}${s.document !== undefined ? ` document ${s.document}` : ''}: ${s.kind}/${s.name} — ${s.reason}`)))),
    );
  }
  return box;
}

// ---------------------------------------------------------------------------------------------
// Failures, located in the editors.
function locationText(e) {
  const parts = [];
  if (e.source) parts.push(e.source);
  if (e.line !== undefined && e.line !== null) parts.push(`line ${e.line}${e.column ? `, column ${e.column}` : ''}`);
  if (e.document !== undefined && e.document !== null) parts.push(`document ${e.document}`);
  if (e.object) parts.push(e.object);
  if (e.path) parts.push(e.path);
  return parts.join(', ');
}

function renderErrors(a) {
  const errors = a.errors || [];
  return h(
    'div',
    { class: 'errors', role: 'alert' },
    h('h3', { text: `${plural(errors.length, 'error')}: nodecast could not answer (${a.kind})` }),
    h(
      'ul',
      {},
      errors.map((e) => {
        const editor = EDITOR_OF[e.source];
        return h(
          'li',
          { class: 'error' },
          h('p', { class: 'loc' }, h('span', { class: 'code', text: `[${e.code}]` }), ' ', locationText(e) || 'request'),
          h('p', { class: 'msg', text: e.message }),
          e.help ? h('p', { class: 'help' }, 'Expected: ', e.help) : null,
          editor ? h('button', { type: 'button', class: 'link', onclick: () => revealError(editor, e) }, `Show in the ${editorLabel(editor)} editor`) : null,
        );
      }),
    ),
  );
}
const editorLabel = (id) => ({ nodepools: 'NodePools', workloads: 'workloads', reservations: 'reservations', cluster: 'cluster state', 'sim-cluster': 'simulation cluster', 'sim-trace': 'trace' })[id];

/**
 * Offsets [start, end) of the line holding an error: its line/column, else its document and path
 * (or its path alone in a one-document text, as for the trace's errors).
 */
export function locate(text, e) {
  const json = locateJson(text, e); // a JSON text (the AWS CLI's output) by its path
  if (json) return json;
  const lines = text.split('\n');
  const lineStart = (n) => lines.slice(0, n).reduce((s, l) => s + l.length + 1, 0);
  if (e.line) {
    const n = Math.min(Math.max(e.line - 1, 0), lines.length - 1);
    const s = lineStart(n);
    return [s + Math.min(Math.max((e.column || 1) - 1, 0), lines[n].length), s + lines[n].length];
  }
  const noDocument = e.document === undefined || e.document === null;
  if (noDocument && !e.path) return null;
  // Documents as the core counts them: split on `---`, skipping empty and comment-only ones.
  const docs = [];
  let cur = null;
  lines.forEach((l, i) => {
    if (/^---(\s|$)/.test(l)) {
      cur = null;
      return;
    }
    if (!cur) docs.push((cur = { start: i, end: i, content: false }));
    cur.end = i;
    if (!/^\s*(#.*)?$/.test(l)) cur.content = true;
  });
  const content = docs.filter((d) => d.content);
  // A path without a document (a trace's errors) is in the text's one document.
  if (noDocument && content.length !== 1) return null;
  const doc = content[noDocument ? 0 : e.document];
  if (!doc) return null;
  let line = doc.start;
  while (line < doc.end && /^\s*(#.*)?$/.test(lines[line])) line++;
  // Best effort: follow the path's keys and list indices down the document.
  let followed = 0;
  for (const seg of (e.path || '').match(/[^.[\]]+|\[\d+\]/g) || []) {
    const idx = /^\[(\d+)\]$/.exec(seg);
    let found = -1;
    if (idx) {
      let count = -1;
      for (let i = line + 1; i <= doc.end; i++) {
        if (/^\s*-(\s|$)/.test(lines[i]) && ++count === Number(idx[1])) {
          found = i;
          break;
        }
      }
    } else {
      const re = new RegExp(`(^|[\\s{,-])["']?${seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["']?\\s*:`);
      for (let i = line; i <= doc.end; i++) {
        if (re.test(lines[i])) {
          found = i;
          break;
        }
      }
    }
    if (found < 0) break;
    line = found;
    followed++;
  }
  if (noDocument && !followed) return null; // not even the path's first key: no line to point at
  const s = lineStart(line);
  return [s, s + lines[line].length];
}

function revealError(editorId, e) {
  const ed = $(editorId);
  selectTab(TAB_OF_EDITOR[editorId] || 'plan');
  const range = locate(ed.value, e);
  ed.focus();
  if (range) ed.select(range[0], range[1]); // selects the line and scrolls it to the middle
}

/**
 * Marks the located errors of an answer in their editors (gutter marker, tinted line, the
 * message on hover); a success answer clears the marks. `inputs` are the texts the answer is
 * for: an editor edited since keeps its marks until its own answer comes.
 */
function markErrors(answer, inputs) {
  const errors = answer.status === 'success' ? [] : answer.errors || [];
  for (const { name, text } of inputs) {
    const ed = editors[EDITOR_OF[name]];
    if (!ed || ed.value !== text) continue;
    const marks = [];
    for (const e of errors) {
      if (e.source !== name) continue;
      const range = locate(text, e);
      if (!range) continue;
      let from = range[0];
      while (from < range[1] && /\s/.test(text[from])) from++; // underline the text, not the indent
      marks.push({ from, to: range[1], message: `[${e.code}] ${e.message}` });
    }
    ed.setErrors(marks);
  }
}

// ---------------------------------------------------------------------------------------------
// Why not X?
let catalogRows = [];
function updatePods(a) {
  if (a.status !== 'success') return;
  const sel = $('why-pod');
  const pods = [
    ...a.nodeClaims.flatMap((c) => c.pods.map((p) => [p, `${p} → ${c.instanceType}`])),
    ...a.unschedulable.map((u) => [u.pod, `${u.pod} → pending (${u.code})`]),
    ...a.existingNodes.flatMap((n) => n.pods.map((p) => [p, `${p} → existing node ${n.name}`])),
  ];
  const want = pods.some(([p]) => p === state.pod) ? state.pod : pods[0]?.[0];
  const key = JSON.stringify(pods);
  if (sel.dataset.key !== key) {
    sel.dataset.key = key;
    sel.replaceChildren(...pods.slice(0, 1000).map(([p, label]) => h('option', { value: p, text: label })));
  }
  if (want) sel.value = want;
  $('why-go').disabled = !pods.length;
}

async function loadCatalog() {
  await readyPromise;
  const { answer } = await ask('catalog', { query: { gpu: false, requirements: [], limit: 0 } });
  if (answer.status !== 'success') {
    $('why-count').textContent = 'catalog unavailable';
    return;
  }
  catalogRows = answer.instanceTypes;
  filterCatalog();
}

function rowLabel(r) {
  const acc = r.gpuName ? `${r.gpuCount ?? '?'}× ${r.gpuName}` : r.acceleratorName ? `${r.acceleratorCount ?? '?'}× ${r.acceleratorName}` : null;
  return `${r.name} — ${r.vcpu} vCPU, ${fmtBytes(parseQuantity(r.memory))}${acc ? `, ${acc}` : ''}, ${r.arch} — ${fmtPrice(r.onDemandPricePerHour)}/h`;
}

function filterCatalog() {
  const words = $('why-filter').value.toLowerCase().split(/\s+/).filter(Boolean);
  const gpuOnly = $('why-gpu').checked;
  const rows = catalogRows.filter((r) => {
    if (gpuOnly && !r.gpuName && !r.acceleratorName) return false;
    const hay = `${r.name} ${r.gpuName ?? ''} ${r.acceleratorName ?? ''} ${r.arch}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
  const sel = $('why-type');
  const keep = sel.value || state.type;
  sel.replaceChildren(...rows.map((r) => h('option', { value: r.name, text: rowLabel(r) })));
  if (rows.some((r) => r.name === keep)) sel.value = keep;
  $('why-count').textContent = `${rows.length} of ${catalogRows.length}`;
}

const VERDICT_TEXT = {
  launched: 'the type the NodeClaim launches as',
  option: 'allowed (one of the NodeClaim\'s options), not the one launched',
  rejected: 'not possible for this pod or the NodeClaim it joins',
};
function renderExplanation(a) {
  if (a.status !== 'success') return renderErrors(a);
  const root = h('div', { class: 'explanation' });
  const t = a.instanceType;
  if (t) {
    root.append(
      h(
        'p',
        { class: 'verdict-line' },
        h('strong', { class: 'mono', text: t.instanceType }),
        ' ',
        h('span', { class: `badge verdict ${t.verdict}`, text: t.verdict }),
        VERDICT_TEXT[t.verdict] ? h('span', { class: 'hint', text: ` ${VERDICT_TEXT[t.verdict]}` }) : null,
      ),
      h('ul', { class: 'reasons why-reasons' }, t.reasons.map((r) => h('li', { text: r }))),
    );
  }
  const p = a.pod;
  if (p) {
    root.append(h('p', { class: 'pod-summary' }, p.summary));
    if (p.relaxations?.length) root.append(h('p', { class: 'small' }, `Preferences relaxed: ${p.relaxations.join('; ')}`));
    if (p.nodePools?.length) {
      root.append(
        h('h4', { text: 'NodePools, in the order Karpenter tries them' }),
        h('ul', { class: 'verdicts' }, p.nodePools.map((v) => h('li', { class: v.ok ? 'ok' : 'no' }, h('span', { class: 'mark', 'aria-hidden': 'true', text: v.ok ? '✓' : '✗' }), h('span', { class: 'sr-only', text: v.ok ? 'yes: ' : 'no: ' }), h('strong', { text: v.name }), ` — ${v.reason}`))),
      );
    }
    if (p.existingNodes?.length) {
      root.append(
        h('h4', { text: 'Existing nodes' }),
        h('ul', { class: 'verdicts' }, p.existingNodes.map((v) => h('li', { class: v.ok ? 'ok' : 'no' }, h('span', { class: 'mark', 'aria-hidden': 'true', text: v.ok ? '✓' : '✗' }), h('span', { class: 'sr-only', text: v.ok ? 'yes: ' : 'no: ' }), h('strong', { text: v.name }), ` — ${v.reason}`))),
      );
    }
  }
  return root;
}

// ---------------------------------------------------------------------------------------------
// Consolidation rendering.
/** One Balanced score in words, with where the pool cost comes from. */
function scoreText(s) {
  const cmp = s.approved ? '≥' : '<';
  return `${s.nodePool}: ${s.move} scores ${s.score.toFixed(2)} ${cmp} threshold ${s.threshold.toFixed(2)} (k ${s.k}): saves ${fmtPrice(s.savingsPerHour)}/h = ${(s.savingsFraction * 100).toFixed(1)}% of the pool's ${fmtPrice(s.poolCostPerHour)}/h for ${(s.disruptionFraction * 100).toFixed(1)}% of its disruption cost; pool cost = ${s.poolCostSource}`;
}
const DECISION_TEXT = { none: 'No action', delete: 'Delete', replace: 'Replace' };
function renderDecision(a) {
  if (a.status !== 'success') return renderErrors(a);
  const saved = a.pricePerHourBefore - a.pricePerHourAfter;
  const root = h('div', { class: 'decision' });
  root.append(
    h(
      'p',
      { class: 'summary' },
      h('span', { class: `badge decision-${a.decision}`, id: 'decision', text: DECISION_TEXT[a.decision] || a.decision }),
      a.reason ? ` reason ${a.reason}` : '',
      a.method ? ` · ${a.method}` : '',
      ` · at ${a.now}`,
    ),
    h('p', { class: 'command-label', text: 'Command' }),
    h('pre', { class: 'command', id: 'command' }, a.command),
    h(
      'p',
      { class: 'cost' },
      'Managed nodes cost ',
      h('strong', { text: `${fmtPrice(a.pricePerHourBefore)}/h` }),
      ' before and ',
      h('strong', { text: `${fmtPrice(a.pricePerHourAfter)}/h` }),
      ' after',
      saved > 0 ? ` (${fmtDollars2(a.savingsPerMonth)}/month saved)` : '',
    ),
  );
  if (a.replacement) {
    const r = a.replacement;
    root.append(
      h('h3', { text: 'Replacement' }),
      h(
        'p',
        {},
        h('strong', { class: 'mono', text: r.instanceType || '?' }),
        ' ',
        h('span', { class: `badge ${r.capacityType}`, text: r.capacityType || '?' }),
        ` in ${r.zone || '?'} at ${fmtPrice(r.pricePerHour)}/h, NodePool ${r.nodePool}, for ${r.pods.join(', ') || 'no pods'}`,
      ),
      h('p', { class: 'small' }, `${plural(r.instanceTypeOptions.length, 'option')}: ${r.instanceTypeOptions.join(', ')}`),
    );
  }
  if (a.scores?.length) {
    root.append(
      h('h3', { text: 'Balanced score' }),
      h('ul', { class: 'plain', id: 'balanced-scores' }, a.scores.map((s) => h('li', {}, scoreText(s)))),
    );
  }
  if (a.ties?.length) {
    // Karpenter orders equally ranked candidates arbitrarily: its pick may differ from this one.
    root.append(h('h3', { text: "Ties (Karpenter's pick is not determined)" }), h('ul', { class: 'plain', id: 'ties' }, a.ties.map((t) => h('li', { text: t.message }))));
  }
  root.append(
    h(
      'div',
      { class: 'table-wrap' },
      h(
      'table',
      { class: 'nodes' },
      h('caption', { text: 'Every node: its verdict and why' }),
      h('thead', {}, h('tr', {}, ['Node', 'NodePool', 'Instance type', '$/h', 'Pods', 'Verdict', 'Why'].map((c) => h('th', { scope: 'col', text: c })))),
      h(
        'tbody',
        {},
        a.nodes.map((n) => {
          const first = n.reasons[0];
          const verdict = n.disrupted ? `${a.decision === 'replace' ? 'replaced' : 'deleted'}` : first?.code || 'stays';
          const why = n.disrupted ? `${a.reason || ''}${a.method ? ` (${a.method})` : ''}` : n.reasons.map((r) => r.message).join('; ');
          // A score on a node that stays is the one that rejected it (the reason already says so).
          return h(
            'tr',
            { class: n.disrupted ? 'disrupted' : '' },
            h('th', { scope: 'row', class: 'mono', text: n.name }),
            h('td', { text: n.nodePool || '–' }),
            h('td', {}, h('span', { class: 'mono', text: n.instanceType || '–' }), n.capacityType ? h('span', { class: 'cap', text: n.capacityType }) : null),
            h('td', { class: 'num', text: fmtPrice(n.pricePerHour) }),
            h('td', { class: 'num', text: String(n.pods) }),
            h('td', {}, h('span', { class: `badge ${n.disrupted ? 'decision-' + a.decision : 'stays'}`, text: verdict })),
            h('td', { text: why }),
          );
        }),
      ),
      ),
    ),
  );
  root.append(reservationChanges(a, h) ?? '');
  if (a.nodePools?.length) {
    root.append(
      h('h3', { text: 'Disruption budgets now (allowed disruptions per reason)' }),
      h('ul', { class: 'plain' }, a.nodePools.map((p) => h('li', {}, h('strong', { text: p.name }), ` (${plural(p.nodes, 'node')}): `, Object.entries(p.allowed).map(([k, v]) => `${k} ${v ?? 'unlimited'}`).join(', ')))),
    );
  }
  root.append(renderNotes(a.warnings, a.skipped));
  return root;
}

// ---------------------------------------------------------------------------------------------
// Simulation: a trace replayed over simulated time (docs/simulate.md). The worker runs the core's
// `simulate`; the page draws the answer: summary, node timeline (Gantt, coloured by cost) and the
// cost over time against the static cluster sized for the peak.
const SIM_SETTING_INPUTS = [
  ['sim-seed', 'seed'],
  ['sim-spot', 'spot'],
  ['sim-gpu-min', 'gmin'],
  ['sim-gpu-max', 'gmax'],
];
function setSimSettingInputs() {
  for (const [id, key] of SIM_SETTING_INPUTS) $(id).value = state[key];
}

/** The request's `simulation`: the seed and the settings typed (empty fields = the core's defaults). */
function simSettings() {
  const num = (v) => (/^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(v) ? Number(v) : v); // the core reports a non-number, located
  const sim = { seed: state.seed === '' ? 0 : num(state.seed) };
  if (state.spot !== '') sim.spotInterruptionRatePerHour = num(state.spot);
  if (state.gmin !== '' || state.gmax !== '') {
    sim.gpuStartupSeconds = { min: state.gmin === '' ? 180 : num(state.gmin), max: state.gmax === '' ? 300 : num(state.gmax) };
  }
  return sim;
}
const simRequest = () =>
  withCatalog({
    inputs: [{ name: 'sim-cluster.yaml', text: $('sim-cluster').value }],
    trace: { name: 'trace.yaml', text: $('sim-trace').value },
    simulation: simSettings(),
  });

// Simulations run in a worker of their own, so a long one never delays the plan and
// consolidation tabs; an edit that supersedes a running simulation terminates that worker and
// starts a fresh one (the core cannot be interrupted mid-call). The core is deterministic, so
// answers are cached by request: going back to an earlier seed or text is instant.
let simWorker = null;
let simBusy = null; // {id, reject} of the simulation in flight
const simCache = new Map();
const SIM_CACHE_SIZE = 16;
function simWorkerReady() {
  if (simWorker) return simWorker.ready;
  const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  const entry = { worker: w, pending: new Map() };
  entry.ready = new Promise((resolve, reject) => {
    w.onmessage = (ev) => {
      const msg = ev.data;
      if (msg.type === 'ready') return resolve(entry);
      if (msg.type === 'load-error') return reject(new Error(msg.error));
      const p = entry.pending.get(msg.id);
      if (!p) return;
      entry.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(msg.error));
      else p.resolve(msg);
    };
    w.onerror = (ev) => reject(new Error(ev.message || 'the simulation worker failed to start'));
  });
  simWorker = entry;
  return entry.ready;
}
async function askSimulate(request) {
  const key = JSON.stringify(request);
  if (simCache.has(key)) return { ...simCache.get(key), cached: true };
  if (simBusy) {
    // Superseded: stop the running simulation with its worker.
    simWorker.worker.terminate();
    simWorker = null;
    simBusy.reject(Object.assign(new Error('superseded'), { superseded: true }));
    simBusy = null;
  }
  const entry = await simWorkerReady();
  const id = nextId++;
  const result = await new Promise((resolve, reject) => {
    simBusy = { id, reject };
    entry.pending.set(id, { resolve, reject });
    entry.worker.postMessage({ id, op: 'simulate', request });
  }).finally(() => {
    if (simBusy?.id === id) simBusy = null;
  });
  simCache.set(key, { answer: result.answer, ms: result.ms });
  if (simCache.size > SIM_CACHE_SIZE) simCache.delete(simCache.keys().next().value);
  return result;
}

let simulateSeq = 0;
const scheduleSimulate = debounce(runSimulate);
async function runSimulate() {
  if (state.tab !== 'simulate') return; // simulated when the tab is shown
  const seq = ++simulateSeq;
  $('simulate-results').setAttribute('aria-busy', 'true');
  const slow = setTimeout(() => {
    if (seq === simulateSeq) $('sim-status').textContent = 'Simulating… (every provisioning and disruption pass of the trace; a week takes a while)';
  }, 400);
  updateEdited();
  try {
    await readyPromise;
    const request = simRequest();
    const { answer, ms, cached } = await askSimulate(request);
    if (seq !== simulateSeq) return;
    markErrors(answer, [...request.inputs, request.trace]);
    if (!cached) timings.lastSimulateMs = ms;
    replace($('simulate-out'), renderSimulation(answer, ms), answer.status);
    saveUrl();
  } catch (e) {
    if (e.superseded) return;
    if (seq === simulateSeq) replace($('simulate-out'), renderLoadError(e), 'error');
  } finally {
    clearTimeout(slow);
    if (seq === simulateSeq) {
      $('simulate-results').setAttribute('aria-busy', 'false');
      $('sim-status').textContent = '';
    }
  }
}

const fmtUsd = (x) => `$${x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
/** `1d 2h03m`, `5h00m`, `12m30s`, `45s` (as the CLI prints durations). */
export function fmtDuration(sec) {
  let s = Math.max(0, Math.round(sec));
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const hh = Math.floor(s / 3600);
  s -= hh * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const two = (n) => String(n).padStart(2, '0');
  if (d) return `${d}d ${hh}h${two(m)}m`;
  if (hh) return `${hh}h${two(m)}m`;
  if (m) return `${m}m${two(s)}s`;
  return `${s}s`;
}
/** Axis label of a time in seconds: `6h`, `1d`, `1d12h`, `30m`. */
function fmtTick(t) {
  if (t >= 86400) return t % 86400 === 0 ? `${t / 86400}d` : `${Math.floor(t / 86400)}d${Math.floor((t % 86400) / 3600)}h`;
  if (t >= 3600) return t % 3600 === 0 ? `${t / 3600}h` : `${Math.floor(t / 3600)}h${String(Math.floor((t % 3600) / 60)).padStart(2, '0')}`;
  return t === 0 ? '0h' : `${Math.floor(t / 60)}m`;
}
/** A round step for `n` ticks up to `top` (1, 2, 2.5 or 5 × 10^k). */
function niceStep(top, n = 4) {
  const raw = top / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}
function tickStep(total) {
  for (const step of [60, 300, 900, 1800, 3600, 10800, 21600, 43200, 86400, 172800, 604800]) if (total / step <= 12) return step;
  return 2592000;
}

// Light (cheap) to dark (expensive): the same stops as the Python notebook view.
const COST_STOPS = [[0xfe, 0xe0, 0xb6], [0xfd, 0xb8, 0x63], [0xf0, 0x7f, 0x3c], [0xd7, 0x30, 0x1f], [0x7f, 0x00, 0x00]];
export function costColor(fraction) {
  const f = Math.max(0, Math.min(1, Number(fraction) || 0)) * (COST_STOPS.length - 1);
  const i = Math.min(Math.floor(f), COST_STOPS.length - 2);
  const t = f - i;
  return '#' + COST_STOPS[i].map((a, k) => Math.round(a + (COST_STOPS[i + 1][k] - a) * t).toString(16).padStart(2, '0')).join('');
}

const SVGNS = 'http://www.w3.org/2000/svg';
/** An SVG element (attributes set with setAttribute; text children as text nodes). */
function sv(tag, attrs, ...children) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null && v !== false) el.setAttribute(k, String(v));
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function nodeLabel(n) {
  const end = n.terminatedSeconds === null ? 'alive at the end' : `terminated at ${fmtDuration(n.terminatedSeconds)} (${n.terminationReason})`;
  const ready = n.initializedSeconds === null ? '' : `, ready at ${fmtDuration(n.initializedSeconds)}`;
  return `${n.name}: ${n.capacityType ?? '?'} ${n.instanceType ?? '?'} at ${fmtPrice(n.pricePerHourUsd)}/h, launched at ${fmtDuration(n.launchedSeconds)}${ready}, ${end}; ${fmtDuration(n.lifetimeSeconds)}, ${fmtUsd(n.costUsd)}, ${plural(n.pods, 'pod')}`;
}

const GANTT_ROWS = 80;
function renderGantt(a) {
  const end = Math.max(1, a.summary.durationSeconds);
  const nodes = a.nodes.slice(0, GANTT_ROWS);
  const labelW = 130, chartW = 520, rowH = 18, top = 4;
  const width = labelW + chartW + 24;
  const axisY = top + rowH * Math.max(1, nodes.length);
  const height = axisY + 22;
  const maxCost = Math.max(0, ...a.nodes.map((n) => n.costUsd)) || 1;
  const x = (t) => labelW + (chartW * Math.max(0, Math.min(end, t))) / end;
  const step = tickStep(end);
  const grid = [];
  for (let t = 0; t <= end; t += step) {
    grid.push(sv('line', { x1: x(t).toFixed(1), y1: top, x2: x(t).toFixed(1), y2: axisY, class: 'grid' }));
    grid.push(sv('text', { x: x(t).toFixed(1), y: axisY + 14, 'text-anchor': 'middle', class: 'tick' }, fmtTick(t)));
  }
  const rows = nodes.map((n, i) => {
    const y = top + i * rowH;
    const endT = n.terminatedSeconds ?? end;
    const ready = Math.min(n.initializedSeconds ?? endT, endT);
    const color = costColor(n.costUsd / maxCost);
    const x0 = x(n.launchedSeconds), x1 = x(endT), xr = x(ready);
    const label = nodeLabel(n);
    return sv(
      'g',
      { class: 'gantt-row', role: 'listitem', 'aria-label': label, 'data-node': n.name },
      sv('title', {}, label),
      sv('text', { x: labelW - 6, y: y + rowH - 5, 'text-anchor': 'end', class: 'gantt-name' }, n.name),
      sv('rect', { x: x0.toFixed(1), y: y + 3, width: Math.max(1, x1 - x0).toFixed(1), height: rowH - 6, fill: color, 'fill-opacity': 0.45 }),
      x1 > xr ? sv('rect', { x: xr.toFixed(1), y: y + 3, width: (x1 - xr).toFixed(1), height: rowH - 6, fill: color }) : null,
      n.terminationReason === 'interrupted' ? sv('text', { x: (x1 + 3).toFixed(1), y: y + rowH - 5, class: 'interrupt' }, '⚡') : null,
    );
  });
  const svg = sv(
    'svg',
    { class: 'gantt', viewBox: `0 0 ${width} ${height}`, width, height, role: 'group', 'aria-labelledby': 'gantt-h' },
    grid,
    sv('g', { role: 'list' }, rows),
  );
  const legend = h(
    'p',
    { class: 'legend hint' },
    'Colour = the node\'s total cost: ',
    ...[0, 0.25, 0.5, 0.75, 1].map((f) => h('span', { class: 'swatch', style: { background: costColor(f) }, 'aria-hidden': 'true' })),
    ` $0 → ${fmtUsd(maxCost)}. Pale: launched but not ready yet (billed). ⚡ spot interruption.`,
  );
  return h(
    'div',
    { class: 'sim-block' },
    h('h3', { id: 'gantt-h', text: `Node timeline: ${plural(a.nodes.length, 'NodeClaim')} over ${fmtDuration(end)}` }),
    h('div', { class: 'chart-wrap' }, svg),
    legend,
    a.nodes.length > GANTT_ROWS ? h('p', { class: 'hint', text: `The first ${GANTT_ROWS} NodeClaims are drawn; the table below has all ${a.nodes.length}.` }) : null,
  );
}

function renderCostCurve(a) {
  const end = Math.max(1, a.summary.durationSeconds);
  const times = a.series.timesSeconds;
  const cost = a.series.metrics.find((m) => m.name === 'nodecast_cost_usd_total');
  const staticTotal = a.summary.staticCostUsd;
  const peak = Math.max(staticTotal, a.summary.costUsd, ...(cost ? cost.values : [0])) || 1;
  const yStep = niceStep(peak);
  const top = Math.ceil(peak / yStep) * yStep;
  const left = 64, w = 560, hgt = 180, pad = 8;
  const width = left + w + 16, height = hgt + pad + 24;
  const x = (t) => left + (w * Math.max(0, Math.min(end, t))) / end;
  const y = (v) => pad + hgt - (hgt * v) / top;
  const parts = [];
  for (let k = 0; k * yStep <= top + 1e-9; k++) {
    const v = k * yStep;
    parts.push(sv('line', { x1: left, y1: y(v).toFixed(1), x2: left + w, y2: y(v).toFixed(1), class: 'grid' }));
    parts.push(sv('text', { x: left - 6, y: (y(v) + 4).toFixed(1), 'text-anchor': 'end', class: 'tick' }, fmtUsd(v)));
  }
  const step = tickStep(end);
  for (let t = 0; t <= end; t += step) parts.push(sv('text', { x: x(t).toFixed(1), y: pad + hgt + 16, 'text-anchor': 'middle', class: 'tick' }, fmtTick(t)));
  parts.push(sv('polyline', { points: `${x(0)},${y(0)} ${x(end)},${y(staticTotal)}`, class: 'static-line' }));
  if (cost) {
    const pts = times.map((t, i) => `${x(t).toFixed(1)},${y(cost.values[i]).toFixed(1)}`);
    pts.push(`${x(end).toFixed(1)},${y(a.summary.costUsd).toFixed(1)}`);
    parts.push(sv('polyline', { points: pts.join(' '), class: 'cost-line' }));
  }
  const label = `Cost over time: ${fmtUsd(a.summary.costUsd)} with Karpenter against ${fmtUsd(staticTotal)} for the static cluster at the end of ${fmtDuration(end)}`;
  return h(
    'div',
    { class: 'sim-block' },
    h('h3', { text: 'Cost over time vs the static cluster' }),
    h('div', { class: 'chart-wrap' }, sv('svg', { class: 'cost-chart', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': label }, sv('title', {}, label), parts)),
    h(
      'p',
      { class: 'legend hint' },
      h('span', { class: 'item' }, h('span', { class: 'key cost', 'aria-hidden': 'true' }), ` Karpenter, cumulative (sampled every ${fmtDuration(a.series.intervalSeconds)})`),
      h('span', { class: 'item' }, h('span', { class: 'key static', 'aria-hidden': 'true' }), ' static cluster sized for the peak, on-demand, the whole time'),
    ),
  );
}

function renderSimNodes(a) {
  const rows = [...a.nodes]
    .sort((p, q) => q.costUsd - p.costUsd || (p.name < q.name ? -1 : 1))
    .map((n) =>
      h(
        'tr',
        {},
        h('th', { scope: 'row', text: n.name }),
        h('td', {}, n.instanceType ?? '–', h('span', { class: 'cap', text: `${n.capacityType ?? '?'} · ${n.zone ?? '?'}` })),
        h('td', { class: 'num', text: `${fmtPrice(n.pricePerHourUsd)}/h` }),
        h('td', { class: 'num', text: fmtDuration(n.launchedSeconds) }),
        h('td', { class: 'num', text: fmtDuration(n.lifetimeSeconds) }),
        h('td', { class: 'num cost', text: fmtUsd(n.costUsd) }),
        h('td', { class: 'num', text: fmtUsd(n.emptyCostUsd) }),
        h('td', { class: 'num', text: String(n.pods) }),
        h('td', { text: n.terminationReason ?? 'alive' }),
      ),
    );
  return h(
    'details',
    { class: 'sim-block' },
    h('summary', { text: `Nodes as a table (${a.nodes.length}, most expensive first)` }),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'nodes sim-nodes' },
        h('thead', {}, h('tr', {}, ['node', 'instance type', '$/h', 'launched', 'lifetime', 'cost', 'empty', 'pods', 'end'].map((c) => h('th', { scope: 'col', text: c })))),
        h('tbody', {}, rows),
      ),
    ),
  );
}

function renderSimulation(a, ms) {
  if (a.status !== 'success') return renderErrors(a);
  const s = a.summary;
  const item = (label, id, value, note) => h('div', { class: 'stat' }, h('dt', { text: label }), h('dd', {}, h('span', { id, class: 'value', text: value }), note ? h('span', { class: 'note', text: note }) : null));
  const staticMix = s.staticCluster.map((g) => `${g.count} × ${g.instanceType}`).join(' + ') || 'no nodes';
  const root = h(
    'div',
    { class: 'simulation' },
    h(
      'p',
      { class: 'headline' },
      `${fmtDuration(s.durationSeconds)}${a.start ? ` from ${a.start}` : ''}, seed ${a.seed}: `,
      h('strong', { text: `${fmtUsd(s.costUsd)} with Karpenter` }),
      `, ${fmtUsd(s.staticCostUsd)} for a static cluster sized for the peak (${s.savingsPercent.toFixed(1)}% saved).`,
    ),
    h(
      'dl',
      { class: 'sim-summary' },
      item('Total cost', 'sim-total', fmtUsd(s.costUsd), `${plural(s.launches.total, 'launch', 'launches')}, ${plural(s.disruptions.total, 'disruption')}`),
      item('Static cluster', 'sim-static', fmtUsd(s.staticCostUsd), staticMix),
      item('Savings', 'sim-savings', `${fmtUsd(s.savingsUsd)} (${s.savingsPercent.toFixed(1)}%)`, `empty nodes ${fmtUsd(s.emptyNodeCostUsd)}`),
      item('GPU hours', 'sim-gpu', `${s.gpuHoursPaid.toFixed(1)} paid, ${s.gpuHoursUsed.toFixed(1)} used`, `${(s.gpuUtilization * 100).toFixed(1)}% utilisation`),
      item('Pending p50 / p95 / max', 'sim-pending', `${fmtDuration(s.pendingSeconds.p50)} / ${fmtDuration(s.pendingSeconds.p95)} / ${fmtDuration(s.pendingSeconds.max)}`, `${s.pods.submitted} pods: ${s.pods.finished} finished, ${s.pods.running} running, ${s.pods.pending} pending, ${s.pods.deleted} deleted`),
    ),
    a.nodes.length ? renderGantt(a) : h('p', { class: 'hint', text: 'No NodeClaim was launched.' }),
    renderCostCurve(a),
    simAutoscaling(a, { h, sv, fmtUsd, fmtDuration, fmtTick, tickStep, niceStep }),
    simReservations(a, h, { fmtUsd, fmtDuration }),
    a.nodes.length ? renderSimNodes(a) : null,
    renderNotes(a.warnings, a.skipped),
    h('p', { class: 'hint small', text: `Simulated in ${fmtNumber(ms, 1)} ms in a worker; ${plural(a.timeline.length, 'timeline event')}.` }),
  );
  return root;
}

// ---------------------------------------------------------------------------------------------
// Timing: a re-plan of 500 pods, measured in the worker with performance.now().
function updateTiming() {
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
async function measure() {
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

// ---------------------------------------------------------------------------------------------
// Wiring.
// The clock is typed as what the core gets: an ISO 8601 / RFC 3339 UTC date-time ending in Z, so
// the field, the shared link and the request hold the same string (no browser-local zone).
const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;
function setNowInput(iso) {
  $('now').value = iso || '';
  showNowError(null);
}
function setPlanNowInput(iso) {
  $('plan-now').value = iso || '';
  showFieldError('plan-now', null);
}
function showFieldError(id, msg) {
  $(id).setAttribute('aria-invalid', msg ? 'true' : 'false');
  $(`${id}-error`).textContent = msg || '';
  $(`${id}-error`).hidden = !msg;
}
function showNowError(msg) {
  showFieldError('now', msg);
}
/** The field's date-time, or an error saying what is expected. */
function nowFromInput() {
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

function updateEdited() {
  const p = planPreset();
  const edited = $('nodepools').value !== p.nodepools || $('workloads').value !== p.workloads || $('reservations').value !== (p.reservations ?? '') || state.planNow !== (p.now ?? '');
  $('preset-edited').hidden = !edited;
  $('cluster-edited').hidden = $('cluster').value === consolidatePreset().cluster;
  const sp = simulatePreset();
  $('sim-edited').hidden =
    $('sim-cluster').value === sp.cluster && $('sim-trace').value === sp.trace && state.seed === String(sp.seed) && state.spot === (sp.spot ?? '') && !state.gmin && !state.gmax;
}

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
  Object.assign(state, { seed: String(p.seed), spot: p.spot ?? '', gmin: '', gmax: '' });
  setSimSettingInputs();
  scheduleSimulate(0);
}

async function main() {
  $('preset').replaceChildren(...PLAN_PRESETS.map((p) => h('option', { value: p.id, text: p.label })));
  $('cpreset').replaceChildren(...CONSOLIDATE_PRESETS.map((p) => h('option', { value: p.id, text: p.label })));
  $('spreset').replaceChildren(...SIMULATE_PRESETS.map((p) => h('option', { value: p.id, text: p.label })));
  initTabs();

  if (!(await loadUrl())) {
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

  $('preset').addEventListener('change', (ev) => applyPlanPreset(ev.target.value));
  $('preset-reset').addEventListener('click', () => applyPlanPreset(state.preset));
  $('cpreset').addEventListener('change', (ev) => applyConsolidatePreset(ev.target.value));
  $('cpreset-reset').addEventListener('click', () => applyConsolidatePreset(state.cpreset));
  $('spreset').addEventListener('change', (ev) => applySimulatePreset(ev.target.value));
  $('spreset-reset').addEventListener('click', () => applySimulatePreset(state.spreset));
  for (const [id, key] of SIM_SETTING_INPUTS) {
    $(id).addEventListener('input', () => {
      state[key] = $(id).value.trim();
      scheduleSimulate();
    });
  }
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
  for (const id of ['adv-max-risk', 'adv-exclude-kinds', 'adv-exclude-pools']) $(id).addEventListener('change', () => runAdvise(planSeq));
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
    if (location.hash.slice(1) === lastHash) return;
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
