// The playground's "cheapest possible" card: the core's `optimize` answer for the plan's inputs,
// beside Karpenter's plan. Built with the page's DOM helper (no innerHTML with user data).

import { fmtMonth, fmtPrice as price } from './money.js';

/** The card's content for an `optimize` answer; `h` is the page's element builder. */
export function renderOptimization(a, h, ms) {
  if (a.status !== 'success') {
    return h('p', { class: 'hint', text: 'The inputs have errors (see the plan): the optimum comes back once they are fixed.' });
  }
  const root = h('div', { class: 'optimization' });
  root.append(
    h(
      'p',
      { class: 'summary', id: 'opt-summary' },
      'Karpenter ',
      h('strong', { text: `${price(a.karpenterPricePerHour)}/h` }),
      ' → optimum ',
      h('strong', { class: 'opt-hour', text: `${price(a.optimumPricePerHour)}/h` }),
      ` (${a.certificate}; lower bound ${price(a.lowerBoundPerHour)}/h) · `,
      h('span', { class: a.savingsPerHour > 0 ? 'good' : '' }, `${fmtMonth(a.savingsPerHour)}/month left on the table`),
    ),
  );
  if (a.nodeClaims.length) {
    const head = h('tr', {}, ['NodeClaim', 'NodePool', 'type', 'capacity', 'zone', '$/h', 'pods'].map((t) => h('th', { text: t })));
    const rows = a.nodeClaims.map((c) =>
      h(
        'tr',
        {},
        h('td', { text: c.kept ? `${c.name} (kept)` : c.name }),
        h('td', { text: c.nodePool }),
        h('td', { text: c.instanceType }),
        h('td', { text: c.capacityType }),
        h('td', { text: c.zone }),
        h('td', { class: 'num', text: price(c.pricePerHour) }),
        h('td', { text: c.pods.length > 4 ? `${c.pods.slice(0, 4).join(', ')} and ${c.pods.length - 4} more` : c.pods.join(', ') }),
      ),
    );
    root.append(h('table', { class: 'opt-claims' }, h('thead', {}, head), h('tbody', {}, rows)));
  }
  if (a.movedPods.length) {
    root.append(h('p', { class: 'hint', text: `${a.movedPods.length} pod(s) placed differently from Karpenter, e.g. ${a.movedPods[0].pod}: ${a.movedPods[0].karpenter} → ${a.movedPods[0].optimum}` }));
  }
  if (a.notOptimised.length) {
    root.append(h('h3', { text: 'Not optimised' }), h('ul', {}, a.notOptimised.map((n) => h('li', { text: n }))));
  }
  if (ms !== undefined) {
    root.append(h('p', { class: 'hint small', id: 'opt-time', text: `Optimised in ${ms.toFixed(1)} ms in the worker (${a.stats.patterns} packing patterns).` }));
  }
  return root;
}
