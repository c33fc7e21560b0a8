// The simulate tab's answer: the summary, the charts, autoscaling and reservations, and the
// nodes as a table (docs/simulate.md).
import { h, sv } from './dom.js';
import { fmtDuration, fmtNumber, fmtTick, fmtUsd, niceStep, plural, tickStep } from './format.js';
import { fmtPrice } from './money.js';
import { simAutoscaling } from './autoscaling.js';
import { simReservations } from './reservations.js';
import { renderCostCurve, renderGantt } from './charts.js';
import { renderErrors, renderNotes } from './messages.js';

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

export function renderSimulation(a, ms) {
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
