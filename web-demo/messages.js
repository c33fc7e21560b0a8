// What the answers say besides their result: failures (each located, with a button that shows
// the line in its editor), the wasm module's load error, warnings and skipped objects.
import { h } from './dom.js';
import { plural } from './format.js';
import { $, EDITOR_OF, TAB_OF_EDITOR, editorLabel, locate } from './editors.js';
import { selectTab } from './tabs.js';

export function renderLoadError(e) {
  return h(
    'div',
    { class: 'errors', role: 'alert' },
    h('h3', { text: 'The nodecast WebAssembly module is not available' }),
    h('p', {}, 'Build it with ', h('code', { text: 'make wasm' }), ' (bindings-wasm copies its browser build into web-demo/pkg/), then reload.'),
    h('details', {}, h('summary', { text: 'Details' }), h('p', { class: 'mono small', text: [String(e.message || e), e.details].filter(Boolean).join('\n') })),
  );
}

export function renderNotes(warnings, skipped) {
  const box = h('div', { class: 'notes' });
  if (warnings?.length) {
    box.append(h('h3', { text: 'Warnings' }), h('ul', { class: 'plain' }, warnings.map((w) => h('li', {}, h('span', { class: 'code', text: `[${w.code}] ` }), w.object ? `${w.object}: ` : '', w.message))));
  }
  if (skipped?.length) {
    box.append(
      h('details', {}, h('summary', { text: `${plural(skipped.length, 'object')} skipped (not scheduling inputs)` }), h('ul', { class: 'plain small' }, skipped.map((s) => h('li', {}, `${s.source ?? ''}${s.document !== undefined ? ` document ${s.document}` : ''}: ${s.kind}/${s.name} — ${s.reason}`)))),
    );
  }
  return box;
}

function locationText(e) {
  const parts = [];
  if (e.source) parts.push(e.source);
  if (e.line !== undefined && e.line !== null) parts.push(`line ${e.line}${e.column ? `, column ${e.column}` : ''}`);
  if (e.document !== undefined && e.document !== null) parts.push(`document ${e.document}`);
  if (e.object) parts.push(e.object);
  if (e.path) parts.push(e.path);
  return parts.join(', ');
}

export function renderErrors(a) {
  const errors = a.errors || [];
  return h(
    'div',
    { class: 'errors', role: 'alert' },
    h('h3', { text: `${plural(errors.length, 'error')}: nodecast could not answer (${a.kind})` }),
    h(
      'ul',
      {},
      errors.map((e) => {
        const editor = EDITOR_OF[e.source];
        return h(
          'li',
          { class: 'error' },
          h('p', { class: 'loc' }, h('span', { class: 'code', text: `[${e.code}]` }), ' ', locationText(e) || 'request'),
          h('p', { class: 'msg', text: e.message }),
          e.help ? h('p', { class: 'help' }, 'Expected: ', e.help) : null,
          editor ? h('button', { type: 'button', class: 'link', onclick: () => revealError(editor, e) }, `Show in the ${editorLabel(editor)} editor`) : null,
        );
      }),
    ),
  );
}

function revealError(editorId, e) {
  const ed = $(editorId);
  selectTab(TAB_OF_EDITOR[editorId] || 'plan');
  const range = locate(ed.value, e);
  ed.focus();
  if (range) ed.select(range[0], range[1]); // selects the line and scrolls it to the middle
}
