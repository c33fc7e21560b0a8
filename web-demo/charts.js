// The simulation's SVG charts: the node timeline (a Gantt coloured by cost) and the cost over
// time against the static cluster.
import { h, sv } from './dom.js';
import { fmtDuration, fmtTick, fmtUsd, niceStep, plural, tickStep } from './format.js';
import { fmtPrice } from './money.js';

// Light (cheap) to dark (expensive): the same stops as the Python notebook view.
const COST_STOPS = [[0xfe, 0xe0, 0xb6], [0xfd, 0xb8, 0x63], [0xf0, 0x7f, 0x3c], [0xd7, 0x30, 0x1f], [0x7f, 0x00, 0x00]];
export function costColor(fraction) {
  const f = Math.max(0, Math.min(1, Number(fraction) || 0)) * (COST_STOPS.length - 1);
  const i = Math.min(Math.floor(f), COST_STOPS.length - 2);
  const t = f - i;
  return '#' + COST_STOPS[i].map((a, k) => Math.round(a + (COST_STOPS[i + 1][k] - a) * t).toString(16).padStart(2, '0')).join('');
}

function nodeLabel(n) {
  const end = n.terminatedSeconds === null ? 'alive at the end' : `terminated at ${fmtDuration(n.terminatedSeconds)} (${n.terminationReason})`;
  const ready = n.initializedSeconds === null ? '' : `, ready at ${fmtDuration(n.initializedSeconds)}`;
  return `${n.name}: ${n.capacityType ?? '?'} ${n.instanceType ?? '?'} at ${fmtPrice(n.pricePerHourUsd)}/h, launched at ${fmtDuration(n.launchedSeconds)}${ready}, ${end}; ${fmtDuration(n.lifetimeSeconds)}, ${fmtUsd(n.costUsd)}, ${plural(n.pods, 'pod')}`;
}

const GANTT_ROWS = 80;
export function renderGantt(a) {
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

export function renderCostCurve(a) {
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

/** Steps (a value holds until the next sample) as an SVG polyline's points. */
export function steps(times, values, x, y, end) {
  const pts = [];
  values.forEach((v, i) => {
    if (i > 0) pts.push(`${x(times[i]).toFixed(1)},${y(values[i - 1]).toFixed(1)}`);
    pts.push(`${x(times[i]).toFixed(1)},${y(v).toFixed(1)}`);
  });
  if (values.length) pts.push(`${x(end).toFixed(1)},${y(values[values.length - 1]).toFixed(1)}`);
  return pts.join(' ');
}
