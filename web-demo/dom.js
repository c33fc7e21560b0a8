// DOM helpers: build nodes, never innerHTML with user data; replace a live region's content only
// when it changed; keep the last good answer under an invalid edit's errors.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const SVGNS = 'http://www.w3.org/2000/svg';
/** An SVG element (attributes set with setAttribute; text children as text nodes). */
export function sv(tag, attrs, ...children) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null && v !== false) el.setAttribute(k, String(v));
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Replace a region's content only when it changed, so screen readers hear only real changes. */
export function replace(region, node, status) {
  const html = node.outerHTML;
  if (region.dataset.rendered === html) return;
  region.dataset.rendered = html;
  region.dataset.status = status;
  region.replaceChildren(node);
}

/**
 * The errors of an invalid edit with the last good answer under them, dimmed: the page does not
 * jump while typing, and the dimmed answer says (aria-describedby) which errors hold it back.
 */
export function withStale(errors, last, prefix) {
  errors.id = `${prefix}-error`;
  return h(
    'div',
    { class: 'with-stale' },
    errors,
    h(
      'div',
      { class: 'stale', id: `${prefix}-stale`, 'aria-busy': 'true', 'aria-describedby': errors.id, 'aria-label': 'The last good answer, kept until the errors are fixed' },
      h('p', { class: 'stale-note hint', text: 'The last good answer (for the inputs before this edit), kept until the errors above are fixed:' }),
      last,
    ),
  );
}
