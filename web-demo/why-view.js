// "Why not X?": the pod and instance-type pickers (the catalog, filtered as typed) and the
// explanation of one pod on one instance type.
import { h } from './dom.js';
import { fmtBytes, parseQuantity } from './format.js';
import { fmtPrice } from './money.js';
import { $ } from './editors.js';
import { state } from './state.js';
import { ask, readyPromise } from './worker-client.js';
import { renderErrors } from './messages.js';

let catalogRows = [];
export function updatePods(a) {
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

export async function loadCatalog() {
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

export function filterCatalog() {
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
export function renderExplanation(a) {
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
