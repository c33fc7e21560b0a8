// The requests: each tab's inputs sent to the worker (debounced while typing), answers older
// than the latest edit dropped, and each answer rendered into its region.
import { renderOptimization } from './optimize.js';
import { renderAdvice } from './advise.js';
import { gateSettings } from './gates.js';
import { RESERVATIONS_SOURCE, reservationOptions } from './reservations.js';
import { h, replace, withStale } from './dom.js';
import { $, markErrors } from './editors.js';
import { state, timings, withCatalog } from './state.js';
import { ask, askSimulate, readyPromise } from './worker-client.js';
import { onTabShown } from './tabs.js';
import { renderErrors, renderLoadError } from './messages.js';
import { simSettings, updateEdited } from './fields.js';
import { saveUrl } from './share.js';
import { renderPlan } from './plan-view.js';
import { renderDecision } from './decision-view.js';
import { renderExplanation, updatePods } from './why-view.js';
import { renderSimulation } from './simulation-view.js';
import { renderComparison } from './compare-view.js';
import { updateTiming } from './timing.js';

const DEBOUNCE_MS = 250;
// ---------------------------------------------------------------------------------------------
// Requests.
const planInputs = () => [
  { name: 'nodepools.yaml', text: $('nodepools').value },
  { name: 'workloads.yaml', text: $('workloads').value },
];
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
export const firstPlanShown = {};
firstPlanShown.promise = new Promise((resolve) => (firstPlanShown.resolve = resolve));
let lastGoodPlan = null; // shown dimmed under the errors while an edit is invalid
export const schedulePlan = debounce(runPlan);
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
export const scheduleConsolidate = debounce(runConsolidate);
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
export const scheduleExplain = debounce(runExplain);
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

// ---------------------------------------------------------------------------------------------
// Simulation: a trace replayed over simulated time (docs/simulate.md). The worker runs the core's
// `simulate`; the page draws the answer: summary, node timeline (Gantt, coloured by cost) and the
// cost over time against the static cluster sized for the peak.
const simRequest = () =>
  withCatalog({
    inputs: [{ name: 'sim-cluster.yaml', text: $('sim-cluster').value }],
    trace: { name: 'trace.yaml', text: $('sim-trace').value },
    simulation: simSettings(),
    // The side by side: the core answers a Comparison instead of a Simulation.
    ...(state.compare ? { compare: state.compare } : {}),
  });

let simulateSeq = 0;
export const scheduleSimulate = debounce(runSimulate);
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
    $('sim-h').textContent = request.compare ? 'What the trace costs with the Cluster Autoscaler and with Karpenter' : 'What the trace costs with Karpenter';
    replace($('simulate-out'), request.compare ? renderComparison(answer, ms) : renderSimulation(answer, ms), answer.status);
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

/** The advice again, for the plan on screen (its controls changed). */
export const rerunAdvise = () => runAdvise(planSeq);

onTabShown({ plan: () => schedulePlan(0), consolidate: () => scheduleConsolidate(0), simulate: () => scheduleSimulate(0) });
