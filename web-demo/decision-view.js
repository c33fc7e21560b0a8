// The consolidation tab's answer: the decision, its command and cost, the replacement, the
// Balanced scores, ties, every node's verdict, reservation changes and disruption budgets.
import { h } from './dom.js';
import { plural } from './format.js';
import { fmtDollars2, fmtPrice } from './money.js';
import { reservationChanges } from './reservations.js';
import { renderErrors, renderNotes } from './messages.js';

/** One Balanced score in words, with where the pool cost comes from. */
function scoreText(s) {
  const cmp = s.approved ? '≥' : '<';
  return `${s.nodePool}: ${s.move} scores ${s.score.toFixed(2)} ${cmp} threshold ${s.threshold.toFixed(2)} (k ${s.k}): saves ${fmtPrice(s.savingsPerHour)}/h = ${(s.savingsFraction * 100).toFixed(1)}% of the pool's ${fmtPrice(s.poolCostPerHour)}/h for ${(s.disruptionFraction * 100).toFixed(1)}% of its disruption cost; pool cost = ${s.poolCostSource}`;
}
const DECISION_TEXT = { none: 'No action', delete: 'Delete', replace: 'Replace' };
export function renderDecision(a) {
  if (a.status !== 'success') return renderErrors(a);
  const saved = a.pricePerHourBefore - a.pricePerHourAfter;
  const root = h('div', { class: 'decision' });
  root.append(
    h(
      'p',
      { class: 'summary' },
      h('span', { class: `badge decision-${a.decision}`, id: 'decision', text: DECISION_TEXT[a.decision] || a.decision }),
      a.reason ? ` reason ${a.reason}` : '',
      a.method ? ` · ${a.method}` : '',
      ` · at ${a.now}`,
    ),
    h('p', { class: 'command-label', text: 'Command' }),
    h('pre', { class: 'command', id: 'command' }, a.command),
    h(
      'p',
      { class: 'cost' },
      'Managed nodes cost ',
      h('strong', { text: `${fmtPrice(a.pricePerHourBefore)}/h` }),
      ' before and ',
      h('strong', { text: `${fmtPrice(a.pricePerHourAfter)}/h` }),
      ' after',
      saved > 0 ? ` (${fmtDollars2(a.savingsPerMonth)}/month saved)` : '',
    ),
  );
  if (a.replacement) {
    const r = a.replacement;
    root.append(
      h('h3', { text: 'Replacement' }),
      h(
        'p',
        {},
        h('strong', { class: 'mono', text: r.instanceType || '?' }),
        ' ',
        h('span', { class: `badge ${r.capacityType}`, text: r.capacityType || '?' }),
        ` in ${r.zone || '?'} at ${fmtPrice(r.pricePerHour)}/h, NodePool ${r.nodePool}, for ${r.pods.join(', ') || 'no pods'}`,
      ),
      h('p', { class: 'small' }, `${plural(r.instanceTypeOptions.length, 'option')}: ${r.instanceTypeOptions.join(', ')}`),
    );
  }
  if (a.scores?.length) {
    root.append(
      h('h3', { text: 'Balanced score' }),
      h('ul', { class: 'plain', id: 'balanced-scores' }, a.scores.map((s) => h('li', {}, scoreText(s)))),
    );
  }
  if (a.ties?.length) {
    // Karpenter orders equally ranked candidates arbitrarily: its pick may differ from this one.
    root.append(h('h3', { text: "Ties (Karpenter's pick is not determined)" }), h('ul', { class: 'plain', id: 'ties' }, a.ties.map((t) => h('li', { text: t.message }))));
  }
  root.append(
    h(
      'div',
      { class: 'table-wrap' },
      h(
      'table',
      { class: 'nodes' },
      h('caption', { text: 'Every node: its verdict and why' }),
      h('thead', {}, h('tr', {}, ['Node', 'NodePool', 'Instance type', '$/h', 'Pods', 'Verdict', 'Why'].map((c) => h('th', { scope: 'col', text: c })))),
      h(
        'tbody',
        {},
        a.nodes.map((n) => {
          const first = n.reasons[0];
          const verdict = n.disrupted ? `${a.decision === 'replace' ? 'replaced' : 'deleted'}` : first?.code || 'stays';
          const why = n.disrupted ? `${a.reason || ''}${a.method ? ` (${a.method})` : ''}` : n.reasons.map((r) => r.message).join('; ');
          // A score on a node that stays is the one that rejected it (the reason already says so).
          return h(
            'tr',
            { class: n.disrupted ? 'disrupted' : '' },
            h('th', { scope: 'row', class: 'mono', text: n.name }),
            h('td', { text: n.nodePool || '–' }),
            h('td', {}, h('span', { class: 'mono', text: n.instanceType || '–' }), n.capacityType ? h('span', { class: 'cap', text: n.capacityType }) : null),
            h('td', { class: 'num', text: fmtPrice(n.pricePerHour) }),
            h('td', { class: 'num', text: String(n.pods) }),
            h('td', {}, h('span', { class: `badge ${n.disrupted ? 'decision-' + a.decision : 'stays'}`, text: verdict })),
            h('td', { text: why }),
          );
        }),
      ),
      ),
    ),
  );
  root.append(reservationChanges(a, h) ?? '');
  if (a.nodePools?.length) {
    root.append(
      h('h3', { text: 'Disruption budgets now (allowed disruptions per reason)' }),
      h('ul', { class: 'plain' }, a.nodePools.map((p) => h('li', {}, h('strong', { text: p.name }), ` (${plural(p.nodes, 'node')}): `, Object.entries(p.allowed).map(([k, v]) => `${k} ${v ?? 'unlimited'}`).join(', ')))),
    );
  }
  root.append(renderNotes(a.warnings, a.skipped));
  return root;
}
