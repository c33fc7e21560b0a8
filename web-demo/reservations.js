// The playground's capacity reservations (docs/reservations.md): the plan tab's reservations
// editor (the `aws ec2 describe-capacity-reservations` output, JSON or YAML) goes to the wasm
// functions as `options.reservations`, with the time of the pass as the request's `now`; this
// module turns those two inputs into the request and renders the reservation fields of the
// answers (plan, consolidation, simulation). The page computes nothing: every figure is the
// core's. Built with the page's DOM helper `h` (no innerHTML with user data).

import { fmtPrice } from './money.js';

/** The name the wasm binding gives the reservations text: error locations name it (`source`). */
export const RESERVATIONS_SOURCE = 'reservations';

/**
 * The wasm options for the reservations editor's text: `{reservations: text}`, or undefined
 * when the editor is empty (no reservations is the default, not an empty document).
 */
export function reservationOptions(text) {
  return text.trim() ? { reservations: text } : undefined;
}

// An RFC 3339 UTC date-time as the core takes it (seconds and the Z required): the field, the
// link and the request hold the same string, with no browser-local time zone in between.
const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;

/**
 * The "time of the pass" field: `{now: null}` when empty (the core then says which
 * reservations' use depends on the time), `{now}` for a valid UTC date-time, else `{error}`.
 */
export function passTime(value) {
  const v = value.trim();
  if (!v) return { now: null };
  const m = ISO_UTC.exec(v);
  if (!m) return { error: `"${v}" is not a UTC date-time: expected RFC 3339 like 2026-12-01T12:00:00Z (seconds and the Z are required), or nothing` };
  const [y, mo, d, hh, mi, ss] = m.slice(1, 7).map(Number);
  const t = new Date(Date.UTC(y, mo - 1, d, hh, mi, ss));
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d || hh > 23 || mi > 59 || ss > 59) {
    return { error: `"${v}" is not a date-time that exists` };
  }
  return { now: v };
}

/**
 * Offsets [start, end) of the line an error's `path` (e.g. `CapacityReservations[1].State`)
 * names in a JSON text, as the AWS CLI prints it; null when the text is not JSON (the page's
 * YAML locator handles it) or the path's first key is not found. Follows the path as far as the
 * text goes, so a missing field points at its reservation.
 */
export function locateJson(text, e) {
  if (!e.path || e.line || !/^\s*[{[]/.test(text)) return null;
  const want = e.path.match(/[^.[\]]+|\[\d+\]/g) || [];
  // Walk the text once, keeping the path of the value being read; remember where each value
  // that is a prefix of the wanted path starts.
  const stack = []; // {array: bool, index, key}
  let best = -1, bestDepth = 0, pendingKey = null;
  const at = (pos) => {
    const path = stack.map((f) => (f.array ? `[${f.index}]` : f.key));
    if (pendingKey !== null) path[path.length - 1] = pendingKey;
    let n = 0;
    while (n < path.length && n < want.length && path[n] === want[n]) n++;
    if (n === path.length && n > bestDepth) {
      best = pos;
      bestDepth = n;
    }
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack[stack.length - 1];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const s = text.slice(i + 1, j);
      // A string followed by a colon is a key in an object.
      let k = j + 1;
      while (/\s/.test(text[k] || '')) k++;
      if (top && !top.array && text[k] === ':') {
        top.key = s;
        at(i);
      }
      i = j;
    } else if (c === '{' || c === '[') {
      if (top?.array && top.fresh) at(i);
      if (top?.array) top.fresh = false;
      stack.push({ array: c === '[', index: 0, key: null, fresh: true });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',' && top?.array) {
      top.index++;
      top.fresh = true;
    } else if (top?.array && top.fresh && !/\s/.test(c)) {
      at(i);
      top.fresh = false;
    }
  }
  if (best < 0) return null;
  const s = text.lastIndexOf('\n', best) + 1;
  const end = text.indexOf('\n', best);
  return [s, end < 0 ? text.length : end];
}

/** One NodeClaim's reservation line (plan cards): the id and type Karpenter launches it into. */
export function claimReservation(c, h) {
  if (!c.reservationId) return null;
  return h('p', { class: 'reservation-of small' }, 'Reservation ', h('strong', { class: 'mono', text: c.reservationId }), ` (${c.reservationType ?? '?'})`);
}

const OFFERED = { true: 'offered', false: 'not offered' };

/**
 * The plan's reservations: per reservation total / available before the pass / used by it /
 * remaining, whether it is offered and why, and what it commits; then which reservations each
 * EC2NodeClass selected and why not the others.
 */
export function planReservations(a, h) {
  const list = a.reservations ?? [];
  const byClass = a.nodeClassReservations ?? [];
  if (!list.length && !byClass.length) return null;
  const root = h('section', { class: 'reservations', 'aria-labelledby': 'res-h' });
  root.append(h('h3', { id: 'res-h', text: `Capacity reservations (${list.length})` }));
  if (list.length) {
    root.append(
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'nodes res-table', id: 'res-table' },
          h('caption', { text: 'Per reservation after this pass: used by the plan, of the instances available before it' }),
          h('thead', {}, h('tr', {}, ['Reservation', 'Used', 'Available', 'Total', 'Remaining', 'Committed $/h', 'Offered'].map((c) => h('th', { scope: 'col', text: c })))),
          h(
            'tbody',
            {},
            list.map((r) =>
              h(
                'tr',
                { 'data-reservation': r.id },
                h(
                  'th',
                  { scope: 'row' },
                  h('span', { class: 'mono', text: r.id }),
                  h('span', { class: 'cap res-kind', text: `${r.reservationType} · ${r.instanceType} · ${r.zone}` }),
                  h('span', { class: 'cap', text: `${r.state}${r.endDate ? ` · ends ${r.endDate}` : ''}` }),
                ),
                h('td', { class: 'num res-used', text: String(r.used) }),
                h('td', { class: 'num', text: String(r.available) }),
                h('td', { class: 'num', text: String(r.total) }),
                h('td', { class: 'num', text: String(r.remaining) }),
                // A capacity block's price is not in the AWS output (the paragraph below says so).
                h('td', { class: 'num', text: r.committedPricePerHour === undefined ? 'prepaid' : fmtPrice(r.committedPricePerHour) }),
                h('td', {}, h('span', { class: `badge ${r.offered ? 'good' : 'stays'}`, text: OFFERED[r.offered] }), r.dependsOnTime ? [' ', h('span', { class: 'badge warn', text: 'depends on the time' })] : null, h('div', { class: 'small', text: r.message })),
              ),
            ),
          ),
        ),
      ),
    );
  }
  if (a.reservedCommittedPricePerHour !== undefined) {
    root.append(
      h(
        'p',
        { class: 'res-committed', id: 'res-committed' },
        'Committed by the reservations: ',
        h('strong', { text: `${fmtPrice(a.reservedCommittedPricePerHour)}/h` }),
        ' whether used or not (an ODCR bills its on-demand price × TotalInstanceCount), beside the plan\'s marginal ',
        h('strong', { text: `${fmtPrice(a.totalPricePerHour)}/h` }),
        '. A capacity block is prepaid: its price is not in the describe-capacity-reservations output.',
      ),
    );
  }
  if (byClass.length) {
    root.append(
      h('h4', { text: 'What each EC2NodeClass selected (capacityReservationSelectorTerms)' }),
      h(
        'ul',
        { class: 'plain res-classes' },
        byClass.map((n) =>
          h(
            'li',
            {},
            h('strong', { text: n.nodeClass }),
            `: ${n.selected.length ? n.selected.join(', ') : 'nothing selected'}`,
            n.notSelected.length ? h('ul', { class: 'small' }, n.notSelected.map((x) => h('li', {}, h('span', { class: 'mono', text: x.id }), ' ', h('span', { class: 'code', text: `[${x.reason}]` }), ` ${x.message}`))) : null,
          ),
        ),
      ),
    );
  }
  return root;
}

/** `consolidate --now`: the nodes a reservation's end changes before the disruption pass. */
export function reservationChanges(a, h) {
  const list = a.reservationChanges ?? [];
  if (!list.length) return null;
  return h(
    'section',
    { class: 'reservation-changes', 'aria-labelledby': 'res-changes-h' },
    h('h3', { id: 'res-changes-h', text: "Capacity reservations that ended (the AWS provider's controllers act before this pass)" }),
    h(
      'ul',
      { class: 'plain', id: 'reservation-changes' },
      list.map((c) => h('li', {}, h('strong', { class: 'mono', text: c.node }), ' ', h('span', { class: `badge ${c.change === 'deleted' ? 'bad' : 'warn'}`, text: c.change }), ` ${c.reservationType} ${c.reservationId}: ${c.message}`)),
    ),
  );
}

/**
 * The simulation's reservations: per reservation when it was active, its launches, peak use,
 * used instance-hours and utilisation, the nodes its end deleted or turned on-demand, and what it
 * committed; with the summary's cost by capacity type and the total with the commitments.
 * `fmt` holds the page's `fmtUsd` and `fmtDuration`.
 */
export function simReservations(a, h, { fmtUsd, fmtDuration }) {
  const list = a.reservations ?? [];
  if (!list.length) return null;
  const s = a.summary;
  const span = (r) => (r.activeFromSeconds === undefined ? 'never active' : `${fmtDuration(r.activeFromSeconds)} – ${fmtDuration(r.activeUntilSeconds ?? s.durationSeconds)}`);
  const byType = Object.entries(s.costByCapacityType ?? {}).map(([k, v]) => `${k} ${fmtUsd(v)}`).join(', ');
  return h(
    'div',
    { class: 'sim-block sim-reservations' },
    h('h3', { id: 'sim-res-h', text: `Capacity reservations over the run (${list.length})` }),
    h(
      'p',
      { class: 'res-committed', id: 'sim-res-committed' },
      `Nodes ${fmtUsd(s.costUsd)}${byType ? ` (${byType})` : ''}; reservations committed `,
      h('strong', { text: s.reservedCommittedCostUsd === undefined ? 'unknown' : fmtUsd(s.reservedCommittedCostUsd) }),
      s.totalCostWithReservationsUsd === undefined ? '' : `; with the commitments ${fmtUsd(s.totalCostWithReservationsUsd)}.`,
    ),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'nodes sim-res-table', id: 'sim-res-table' },
        h('thead', {}, h('tr', {}, ['Reservation', 'Active', 'Launches', 'Peak / total', 'Used instance-hours', 'Utilisation', 'Committed', 'Deleted / on-demand'].map((c) => h('th', { scope: 'col', text: c })))),
        h(
          'tbody',
          {},
          list.map((r) =>
            h(
              'tr',
              { 'data-reservation': r.id },
              h('th', { scope: 'row' }, h('span', { class: 'mono', text: r.id }), h('span', { class: 'cap', text: `${r.reservationType} · ${r.instanceType} · ${r.zone}` })),
              h('td', { text: span(r) }),
              h('td', { class: 'num', text: String(r.launches) }),
              h('td', { class: 'num', text: `${r.peakUsed} / ${r.total}` }),
              h('td', { class: 'num', text: r.usedInstanceHours.toFixed(1) }),
              h('td', { class: 'num res-util', text: `${(r.utilization * 100).toFixed(1)}%` }),
              h('td', {}, r.committedCostUsd === undefined ? 'unknown' : fmtUsd(r.committedCostUsd), r.note ? h('div', { class: 'small', text: r.note }) : null),
              h('td', { class: 'num', text: `${r.nodesDeleted} / ${r.nodesOnDemand}` }),
            ),
          ),
        ),
      ),
    ),
  );
}
