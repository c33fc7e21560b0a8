// One rule for money in every front end (CLI, Python HTML, this page): $/h with up to 5
// decimals, trailing zeros dropped, at least 2 ($5.672, $0.01578, $6.00); monthly amounts with
// exactly 2 and no grouping. Every card of the page formats through here.

export const HOURS_PER_MONTH = 730;

/** A price per hour (or any dollar amount shown per hour). */
export const fmtPrice = (p) => {
  if (p === undefined || p === null) return '–';
  const [whole, frac = ''] = (p + 0).toFixed(5).split('.');
  return `$${whole}.${frac.replace(/0+$/, '').padEnd(2, '0')}`;
};

/** A monthly (or any whole-dollar) amount: exactly two decimals. */
export const fmtDollars2 = (m) => `$${m.toFixed(2)}`;

/** A price per hour as its month (730 h). */
export const fmtMonth = (p) => (p === undefined || p === null ? '–' : fmtDollars2(p * HOURS_PER_MONTH));
