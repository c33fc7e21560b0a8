// The simulate tab's side by side (docs/cluster-autoscaler.md, "Side by side over a trace"): the
// trace under the node groups with the Cluster Autoscaler and under NodePools with Karpenter,
// from the core's `Comparison` answer (`simulate` with `compare: cluster-autoscaler`). The page
// draws the answer's figures only: each side's totals, one chart (nodes over time per side, and
// the cost, pending pod-minutes and idle GPU-hours of each side as paired bars), the Cluster
// Autoscaler's scale-ups, the NodePools Karpenter ran, and the disclosures of what is random or
// timing-dependent.
import { h, sv } from './dom.js';
import { fmtDuration, fmtNumber, fmtTick, fmtUsd, niceStep, plural, tickStep } from './format.js';
import { steps } from './charts.js';
import { renderErrors, renderNotes } from './messages.js';

/** The two sides as the answer orders them: the Cluster Autoscaler first, then Karpenter. */
const SIDES = [
  { key: 'cluster-autoscaler', name: 'Cluster Autoscaler', cls: 'ca' },
  { key: 'karpenter', name: 'Karpenter', cls: 'karpenter' },
];
const sideName = (autoscaler) => SIDES.find((s) => s.key === autoscaler)?.name ?? autoscaler;

/** The CLI's signed difference: `-8.96`, `+1.20`. */
const signed = (x) => `${x < 0 ? '-' : '+'}${Math.abs(x).toFixed(2)}`;

/** The paired bars under the time chart: each row's two values, scaled to the larger. */
const BARS = [
  { label: 'cost', value: (s) => s.costUsd, text: (v) => fmtUsd(v) },
  { label: 'pending pod-minutes', value: (s) => s.pendingPodMinutes, text: (v) => v.toFixed(1) },
  { label: 'idle GPU-hours', value: (s) => s.idleGpuHours, text: (v) => v.toFixed(2) },
];

function chart(a) {
  const sides = a.sides;
  const times = a.series.timesSeconds;
  const end = Math.max(1, ...sides.map((s) => s.durationSeconds));
  const left = 48, cw = 560, ch = 160, pad = 8, right = 16;
  const barsTop = pad + ch + 30, barH = 12, rowH = 2 * barH + 22;
  const width = left + cw + right;
  const height = barsTop + BARS.length * rowH + 4;
  const x = (t) => left + (cw * Math.max(0, Math.min(end, t))) / end;
  const peak = Math.max(1, ...a.series.nodes.flat());
  const cStep = Math.max(1, Math.ceil(niceStep(peak)));
  const cTop = Math.ceil(peak / cStep) * cStep;
  const y = (v) => pad + ch - (ch * v) / cTop;
  const parts = [];
  for (let k = 0; k * cStep <= cTop; k++) {
    const v = k * cStep;
    parts.push(sv('line', { x1: left, y1: y(v).toFixed(1), x2: left + cw, y2: y(v).toFixed(1), class: 'grid' }));
    parts.push(sv('text', { x: left - 6, y: (y(v) + 4).toFixed(1), 'text-anchor': 'end', class: 'tick' }, String(v)));
  }
  const step = tickStep(end);
  for (let t = 0; t <= end; t += step) parts.push(sv('text', { x: x(t).toFixed(1), y: pad + ch + 16, 'text-anchor': 'middle', class: 'tick' }, fmtTick(t)));
  SIDES.forEach((side, i) => {
    parts.push(sv('polyline', { points: steps(times, a.series.nodes[i] ?? [], x, y, end), class: `cmp-nodes ${side.cls}`, 'data-autoscaler': side.key }));
  });
  // Paired bars: one row per figure, the Cluster Autoscaler's bar above Karpenter's.
  BARS.forEach((bar, r) => {
    const values = sides.map(bar.value);
    const top = Math.max(...values) || 1;
    const y0 = barsTop + r * rowH;
    parts.push(sv('text', { x: left, y: y0 + 8, class: 'tick' }, bar.label));
    sides.forEach((s, i) => {
      const w = (cw * 0.85 * values[i]) / top;
      const yb = y0 + 12 + i * (barH + 2);
      const cls = SIDES.find((d) => d.key === s.autoscaler)?.cls ?? '';
      parts.push(
        sv('rect', { x: left, y: yb, width: Math.max(0, w).toFixed(1), height: barH, class: `cmp-bar ${cls}`, 'data-figure': bar.label, 'data-autoscaler': s.autoscaler }),
        sv('text', { x: (left + w + 4).toFixed(1), y: yb + barH - 2, class: 'tick' }, bar.text(values[i])),
      );
    });
  });
  const ca = sides[0], k = sides[1];
  const label =
    `Nodes over time, ${sideName(ca.autoscaler)} (peak ${ca.peakNodes}) and ${sideName(k.autoscaler)} (peak ${k.peakNodes}), over ${fmtDuration(end)}; ` +
    BARS.map((b) => `${b.label} ${b.text(b.value(ca))} vs ${b.text(b.value(k))}`).join(', ');
  const key = (cls, text) => h('span', { class: 'item' }, h('span', { class: `key ${cls}`, 'aria-hidden': 'true' }), ` ${text}`);
  return h(
    'div',
    { class: 'sim-block' },
    h('h3', { text: 'Nodes over time, cost, pending and idle GPUs, side by side' }),
    h('div', { class: 'chart-wrap' }, sv('svg', { class: 'compare-chart', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': label }, sv('title', {}, label), parts)),
    h('p', { class: 'legend hint' }, key('cmp-ca', 'Cluster Autoscaler, node groups (upper bar)'), key('cmp-karpenter', 'Karpenter, NodePools (lower bar)')),
    h('p', { class: 'hint small', text: `Nodes alive sampled every ${fmtDuration(a.karpenter.series.intervalSeconds)}; each pair of bars is scaled to its larger value.` }),
  );
}

/** Each side's figures, one row per figure (the CLI's "Runs" table, transposed to fit the card). */
const FIGURES = [
  { label: 'Cost', value: (s) => fmtUsd(s.costUsd) },
  { label: 'Nodes launched', value: (s) => String(s.nodesLaunched) },
  { label: 'Peak nodes', value: (s) => String(s.peakNodes) },
  { label: 'Nodes removed', value: (s) => String(s.nodesRemoved) },
  { label: 'Pending pod-minutes', value: (s) => s.pendingPodMinutes.toFixed(1) },
  { label: 'p95 wait', value: (s) => `${s.pendingP95Seconds}s` },
  { label: 'Pods finished', value: (s) => String(s.podsFinished) },
  { label: 'Pending at the end', value: (s) => String(s.podsPendingAtEnd) },
  { label: 'GPU-hours paid', value: (s) => s.gpuHoursPaid.toFixed(2) },
  { label: 'Idle GPU-hours', value: (s) => s.idleGpuHours.toFixed(2) },
];

function sidesTable(a) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'nodes', id: 'cmp-sides' },
      h('caption', { text: 'Each run over the same trace, seed and start-up latencies' }),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: '' }), a.sides.map((s) => h('th', { scope: 'col', 'data-autoscaler': s.autoscaler, text: sideName(s.autoscaler) })))),
      h(
        'tbody',
        {},
        FIGURES.map(({ label, value }) => h('tr', { 'data-figure': label }, h('th', { scope: 'row', text: label }), a.sides.map((s) => h('td', { class: 'num', text: value(s) })))),
      ),
    ),
  );
}

function scaleUps(list) {
  if (!list.length) return h('p', { class: 'hint', text: 'The Cluster Autoscaler scaled no node group up.' });
  return h(
    'details',
    { class: 'sim-block' },
    h('summary', { text: `The Cluster Autoscaler's scale-ups (${list.length})` }),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'nodes', id: 'cmp-scaleups' },
        h('thead', {}, h('tr', {}, ['Time', 'Node group', 'Nodes', 'Chosen by'].map((c) => h('th', { scope: 'col', text: c })))),
        h(
          'tbody',
          {},
          list.map((u) =>
            h(
              'tr',
              {},
              h('td', { class: 'num', text: fmtDuration(u.timeSeconds) }),
              h('td', { class: 'mono', text: u.nodeGroup }),
              h('td', { class: 'num', text: String(u.nodes) }),
              // A random expander's tie is disclosed with the options it chose among.
              h('td', { text: u.tiedWith?.length ? `${u.decidedBy} (tied with ${u.tiedWith.join(', ')})` : u.decidedBy }),
            ),
          ),
        ),
      ),
    ),
  );
}

function nodePools(a) {
  if (a.nodePools !== 'migrate' || !a.migration) {
    return h('p', { class: 'hint', id: 'cmp-pools' }, "Karpenter ran the NodePools of the cluster editor.");
  }
  return h(
    'div',
    { class: 'sim-block' },
    h('h3', { text: "Karpenter's NodePools: nodecast migrate's proposal for the node groups" }),
    h(
      'ul',
      { class: 'plain', id: 'cmp-pools' },
      a.migration.nodePools.map((p) =>
        h('li', {}, h('strong', { class: 'mono', text: p.nodePool }), ` ← node group ${p.nodeGroup}: ${p.capacityType} ${p.instanceTypes.join(', ')}${p.weight != null ? `, weight ${p.weight}` : ''}`),
      ),
    ),
    h('p', { class: 'hint small' }, 'The YAML: ', h('code', { text: 'nodecast migrate --yaml' }), ' on the same documents.'),
  );
}

/** The side-by-side answer (`kind: Comparison`), or its located errors. */
export function renderComparison(a, ms) {
  if (a.status !== 'success') return renderErrors(a);
  const [ca, k] = a.sides;
  const pools = a.nodePools === 'migrate' ? `; Karpenter ran migrate's ${plural(a.migration?.nodePools.length ?? 0, 'NodePool')} for the node groups` : '; Karpenter ran the given NodePools';
  return h(
    'div',
    { class: 'comparison' },
    h(
      'p',
      { class: 'headline', id: 'cmp-headline' },
      'Side by side: ',
      h('strong', { text: `${sideName(ca.autoscaler)} ${fmtUsd(ca.costUsd)}` }),
      ' vs ',
      h('strong', { text: `${sideName(k.autoscaler)} ${fmtUsd(k.costUsd)}` }),
      ` (${signed(a.costDifferenceUsd)}) over the trace${pools}.`,
    ),
    sidesTable(a),
    chart(a),
    scaleUps(a.scaleUps),
    nodePools(a),
    h(
      'div',
      { class: 'sim-block' },
      h('h3', { text: 'Disclosures: where the Cluster Autoscaler is random or timing-dependent' }),
      h('ul', { class: 'plain small', id: 'cmp-disclosures' }, a.disclosures.map((d) => h('li', { text: d }))),
    ),
    renderNotes(a.warnings, []),
    h('p', { class: 'hint small', text: `Both runs simulated in ${fmtNumber(ms, 1)} ms in a worker (${plural(a.clusterAutoscaler.timeline.length + a.karpenter.timeline.length, 'timeline event')}).` }),
  );
}
