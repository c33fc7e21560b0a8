// Share links: the state (and the editors that differ from their preset) as the URL's hash,
// deflated and base64url-encoded; read back on load and on hashchange.
import { PLAN_PRESETS, CONSOLIDATE_PRESETS, SIMULATE_PRESETS } from './presets.js';
import { awsGatesSnapshot, restoreAwsGates } from './gates.js';
import { $ } from './editors.js';
import { state, planPreset, consolidatePreset, simulatePreset } from './state.js';
import { TABS } from './tabs.js';
import { setNowInput, setPlanNowInput, setSimSettingInputs } from './fields.js';

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
  if (state.compare !== (simulatePreset().compare ?? '')) s.compare = state.compare;
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
export async function saveUrl() {
  const enc = await encodeState(snapshot());
  if (enc === lastHash) return;
  lastHash = enc;
  history.replaceState(null, '', '#' + enc);
}

export async function loadUrl() {
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
    state.compare = s.compare === 'cluster-autoscaler' || s.compare === '' ? s.compare : simulatePreset().compare ?? '';
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

/** The hash (without `#`) the page last wrote or read. */
export const currentHash = () => lastHash;
