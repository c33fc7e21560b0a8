// The plan tab's answer: the new NodeClaims (accelerators, packing, pods), existing and static
// nodes, CapacityBuffers, unschedulable pods with their checked fixes, and the NodePools' limits.
import { h } from './dom.js';
import { fmtLimit, fmtResource, parseQuantity, pct, plural, shortKey } from './format.js';
import { HOURS_PER_MONTH, fmtDollars2, fmtMonth, fmtPrice } from './money.js';
import { claimReservation, planReservations } from './reservations.js';
import { renderErrors, renderNotes } from './messages.js';

export function renderPlan(a) {
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
