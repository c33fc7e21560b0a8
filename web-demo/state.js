// The page's state (what a shared link carries), the timings the tests read, the catalog row's
// request field and the chosen presets.
import { PLAN_PRESETS, CONSOLIDATE_PRESETS, SIMULATE_PRESETS } from './presets.js';

// Timings, exposed to tests.
export const timings = (window.__nodecastTimings = { ready: false, loadError: null, module: null, loadMs: null, lastPlanMs: null, lastSimulateMs: null, plan500: null, editors: null, readyAt: null, firstAnswerAt: null });

export const state = {
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
  // 'cluster-autoscaler': the trace also under the node groups, side by side (compare-view.js); '' = Karpenter alone.
  compare: SIMULATE_PRESETS[0].compare ?? '',
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
export const withCatalog = (request) => {
  const catalog = catalogSpec(state.czones, state.cspot);
  return catalog ? { ...request, catalog } : request;
};
export const planPreset = () => PLAN_PRESETS.find((p) => p.id === state.preset) || PLAN_PRESETS[0];
export const consolidatePreset = () => CONSOLIDATE_PRESETS.find((p) => p.id === state.cpreset) || CONSOLIDATE_PRESETS[0];
export const simulatePreset = () => SIMULATE_PRESETS.find((p) => p.id === state.spreset) || SIMULATE_PRESETS[0];
