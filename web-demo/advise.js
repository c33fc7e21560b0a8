// The playground's "NodePool edits" card: the core's `advise` answer for the plan's inputs — the
// edits that make Karpenter's own plan cheaper, each verified by planning again, with the YAML
// diff. Built with the page's DOM helper (no innerHTML with user data).

import { fmtDollars2, fmtPrice as price } from './money.js';

/** The diff as lines, each coloured by its first character. */
function diffBlock(diff, h) {
  const lines = diff.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
  return h(
    'pre',
    { class: 'adv-diff' },
    lines.map((l) => h('span', { class: l.startsWith('+') && !l.startsWith('+++') ? 'add' : l.startsWith('-') && !l.startsWith('---') ? 'del' : '', text: `${l}\n` })),
  );
}

/** The card's content for an `advise` answer; `h` is the page's element builder. */
export function renderAdvice(a, h, ms) {
  if (a.status !== 'success') {
    return h('p', { class: 'hint', text: 'The inputs have errors (see the plan): the advice comes back once they are fixed.' });
  }
  const root = h('div', { class: 'advice' });
  root.append(
    h(
      'p',
      { class: 'summary', id: 'adv-summary' },
      `Karpenter ${price(a.karpenterPricePerHour)}/h; optimum ${price(a.optimumPricePerHour)}/h (${a.optimumCertificate}); gap ${price(a.gapPerHour)}/h`,
    ),
  );
  if (!a.advice.length) {
    root.append(h('p', { class: 'hint', id: 'adv-none', text: 'No NodePool edit makes Karpenter\'s plan cheaper without leaving pods pending.' }));
  }
  const list = h('ol', { class: 'adv-list' });
  for (const x of a.advice) {
    const gap = x.gapRecoveredPercent === undefined ? '' : ` · ${x.gapRecoveredPercent.toFixed(1)} % of the gap`;
    list.append(
      h(
        'li',
        { class: 'adv-item', 'data-kind': x.kind },
        h('p', {}, h('span', { class: `badge risk-${x.risk.level} ${x.risk.level === 'high' ? 'bad' : x.risk.level === 'none' ? 'good' : 'warn'}`, text: `risk ${x.risk.level}` }), ' ', h('strong', { class: 'adv-title', text: x.title })),
        x.risk.reasons.length ? h('ul', { class: 'adv-risk' }, x.risk.reasons.map((r) => h('li', { text: r }))) : null,
        h('p', { class: 'adv-saving' }, `Karpenter's plan ${price(x.plan.pricePerHour)}/h: saves `, h('span', { class: 'good', text: `${price(x.savingsPerHour)}/h, ${fmtDollars2(x.savingsPerMonth)}/month` }), gap),
        h('p', { class: 'hint adv-plan', text: x.plan.launches.join(', ') }),
        x.alsoChanges.length ? h('ul', { class: 'adv-also' }, x.alsoChanges.map((c) => h('li', { text: c }))) : null,
        h('details', {}, h('summary', { text: 'YAML diff' }), diffBlock(x.diff, h)),
        x.patch ? h('details', {}, h('summary', { text: 'Patch against your file (patch -p0)' }), diffBlock(x.patch, h)) : null,
      ),
    );
  }
  root.append(list);
  const s = a.stats;
  const time = ms === undefined ? '' : ` in ${ms.toFixed(1)} ms in the worker`;
  root.append(h('p', { class: 'hint small', id: 'adv-stats', text: `Verified ${s.candidates} edits (at most ${s.candidateLimit}) and ${s.combinations} pairs${time}: ${s.cheaper} cheaper, ${s.notCheaper} not cheaper, ${s.leavePodsPending} leave pods pending.` }));
  return root;
}
