// The simulate tab's autoscaling chart (docs/simulate.md, "Demand and autoscaling" and "KEDA"):
// for each workload an HPA, a KEDA ScaledObject or ScaledJob scales, the demand, the replicas
// (asked and Ready, or a ScaledJob's unfinished Jobs) and the nodes alive, on one time axis.
// Every figure is the core's: the answer's `autoscaling` rows and `series` (the metrics
// nodecast_demand, nodecast_workload_replicas, nodecast_workload_ready_replicas,
// nodecast_scaledjob_jobs and karpenter_nodepool_usage{resource_type="nodes"}); the page only
// draws them. Built with the page's DOM helpers (`h`, `sv`: no innerHTML with user data).
import { steps } from './charts.js';

const metric = (a, name, labels) =>
  a.series.metrics.find((m) => m.name === name && Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));

/** The nodes alive at each sample time, summed over the NodePools. */
export function nodesAlive(a) {
  const total = a.series.timesSeconds.map(() => 0);
  for (const m of a.series.metrics) {
    if (m.name !== 'karpenter_nodepool_usage' || m.labels?.resource_type !== 'nodes') continue;
    m.values.forEach((v, i) => (total[i] += v));
  }
  return total;
}

/**
 * The lines of one autoscaled workload: `{replicas, ready, demand: [{metric, values}], jobs}`
 * (replicas are a ScaledJob's unfinished Jobs, `jobs` true then).
 */
export function workloadLines(a, workload) {
  const jobs = metric(a, 'nodecast_scaledjob_jobs', { workload });
  const replicas = metric(a, 'nodecast_workload_replicas', { workload }) || jobs;
  const ready = metric(a, 'nodecast_workload_ready_replicas', { workload });
  const demand = a.series.metrics.filter((m) => m.name === 'nodecast_demand' && m.labels?.workload === workload).map((m) => ({ metric: m.labels.metric, values: m.values }));
  return { replicas: replicas?.values ?? null, ready: ready?.values ?? null, demand, jobs: Boolean(jobs) };
}

function chart(a, w, { h, sv, fmtDuration, fmtTick, tickStep, niceStep }) {
  const lines = workloadLines(a, w.workload);
  const nodes = nodesAlive(a);
  const times = a.series.timesSeconds;
  const end = Math.max(1, a.summary.durationSeconds);
  const left = 48, right = 64, cw = 560, ch = 180, pad = 8;
  const width = left + cw + right, height = ch + pad + 24;
  const x = (t) => left + (cw * Math.max(0, Math.min(end, t))) / end;
  const count = Math.max(1, ...(lines.replicas ?? [0]), ...nodes, w.maxReplicas ?? 0);
  const cStep = Math.max(1, Math.ceil(niceStep(count)));
  const cTop = Math.ceil(count / cStep) * cStep;
  const yc = (v) => pad + ch - (ch * v) / cTop;
  const dPeak = Math.max(0, ...lines.demand.flatMap((d) => d.values)) || 1;
  const dStep = niceStep(dPeak);
  const dTop = Math.ceil(dPeak / dStep) * dStep;
  const yd = (v) => pad + ch - (ch * v) / dTop;
  const parts = [];
  for (let k = 0; k * cStep <= cTop; k++) {
    const v = k * cStep;
    parts.push(sv('line', { x1: left, y1: yc(v).toFixed(1), x2: left + cw, y2: yc(v).toFixed(1), class: 'grid' }));
    parts.push(sv('text', { x: left - 6, y: (yc(v) + 4).toFixed(1), 'text-anchor': 'end', class: 'tick' }, String(v)));
  }
  if (lines.demand.length) {
    for (let k = 0; k * dStep <= dTop + 1e-9; k++) {
      const v = k * dStep;
      parts.push(sv('text', { x: left + cw + 6, y: (yd(v) + 4).toFixed(1), 'text-anchor': 'start', class: 'tick demand-tick' }, String(Number(v.toPrecision(6)))));
    }
  }
  const step = tickStep(end);
  for (let t = 0; t <= end; t += step) parts.push(sv('text', { x: x(t).toFixed(1), y: pad + ch + 16, 'text-anchor': 'middle', class: 'tick' }, fmtTick(t)));
  for (const d of lines.demand) {
    parts.push(sv('polyline', { points: d.values.map((v, i) => `${x(times[i]).toFixed(1)},${yd(v).toFixed(1)}`).join(' '), class: 'as-demand', 'data-metric': d.metric }));
  }
  parts.push(sv('polyline', { points: steps(times, nodes, x, yc, end), class: 'as-nodes' }));
  if (lines.ready) parts.push(sv('polyline', { points: steps(times, lines.ready, x, yc, end), class: 'as-ready' }));
  if (lines.replicas) parts.push(sv('polyline', { points: steps(times, lines.replicas, x, yc, end), class: 'as-replicas' }));
  const what = lines.jobs ? 'unfinished Jobs' : 'replicas';
  const served = w.servedPercent === undefined || w.servedPercent === null ? '' : `, ${w.servedPercent.toFixed(1)}% of the demand served`;
  const label = `${w.workload}: ${what} from ${w.minReplicas ?? 0} to ${w.maxReplicas ?? '?'}, peak ${w.peakReplicas}, ${w.rescales} rescales${served}, over ${fmtDuration(end)}`;
  const key = (cls, text) => h('span', { class: 'item' }, h('span', { class: `key ${cls}`, 'aria-hidden': 'true' }), ` ${text}`);
  return h(
    'div',
    { class: 'as-workload', 'data-workload': w.workload },
    h('h4', { text: w.workload + (w.hpa ? ` (HPA ${w.hpa})` : '') + (w.keda ? ` (KEDA ${w.keda})` : '') }),
    h('div', { class: 'chart-wrap' }, sv('svg', { class: 'autoscaling-chart', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': label }, sv('title', {}, label), parts)),
    h(
      'p',
      { class: 'legend hint' },
      lines.replicas ? key('as-replicas', lines.jobs ? 'unfinished Jobs' : 'replicas (pending or running)') : null,
      lines.ready ? key('as-ready', 'Ready replicas') : null,
      key('as-nodes', 'nodes alive (left axis)'),
      lines.demand.map((d) => key('as-demand', `demand, ${d.metric} (right axis)`)),
    ),
  );
}

/** The autoscaling section of a simulation answer, or null when nothing is autoscaled. */
export function simAutoscaling(a, helpers) {
  const rows = a.autoscaling ?? [];
  if (!rows.length) return null;
  const { h, fmtDuration, fmtUsd } = helpers;
  const scaleUp = (w) => (w.scaleUpSeconds ? `${fmtDuration(w.scaleUpSeconds.p50)} / ${fmtDuration(w.scaleUpSeconds.max)}` : '–');
  const served = (w) => (w.servedPercent === undefined || w.servedPercent === null ? '–' : `${w.servedPercent.toFixed(1)}%`);
  const table = h(
    'table',
    { class: 'sim-autoscaling', id: 'sim-as-table' },
    h('thead', {}, h('tr', {}, ['Workload', 'Replicas', 'Peak', 'Rescales', 'Served', 'Scale-up p50 / max', 'GPU cost'].map((t) => h('th', { scope: 'col', text: t })))),
    h(
      'tbody',
      {},
      rows.map((w) =>
        h(
          'tr',
          { 'data-workload': w.workload },
          h('td', { text: w.workload }),
          h('td', { text: `${w.minReplicas ?? 0}–${w.maxReplicas ?? '?'}` }),
          h('td', { text: String(w.peakReplicas) }),
          h('td', { text: String(w.rescales) }),
          h('td', { text: served(w) }),
          h('td', { text: scaleUp(w) }),
          h('td', { text: fmtUsd(w.gpuCostUsd) }),
        ),
      ),
    ),
  );
  return h(
    'div',
    { class: 'sim-block sim-autoscaling-block' },
    h('h3', { text: 'Autoscaling: demand, replicas and nodes' }),
    h('div', { class: 'table-wrap' }, table),
    rows.map((w) => chart(a, w, helpers)),
  );
}
