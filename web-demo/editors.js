// The YAML editors: pending (plain text) until the editor bundle is in, then CodeMirror 6
// (build/editor.js); which editor holds which request source; errors located in their text and
// marked in their editor.
import { RESERVATIONS_SOURCE, locateJson } from './reservations.js';

// The YAML editors by the id of the textarea each replaced: `$(id).value` reads and sets their
// text and `$(id).addEventListener('input', ...)` hears the user's edits, as with a textarea.
export const editors = {};
export const $ = (id) => editors[id] || document.getElementById(id);
export const EDITOR_IDS = ['nodepools', 'workloads', 'reservations', 'cluster', 'sim-trace', 'sim-cluster'];
const editorHost = (id) => document.querySelector(`.cm-host[data-editor="${id}"]`);

/**
 * An editor's text until the editor bundle is in: the page shows it as plain text and the first
 * requests read it, so neither waits for CodeMirror (the first answer waits only for the wasm).
 * Error marks given meanwhile are kept for the editor.
 */
class PendingEditor extends EventTarget {
  constructor(host) {
    super();
    this.host = host;
    this.text = '';
    this.marks = [];
    host.classList.add('pending');
  }
  get value() {
    return this.text;
  }
  set value(text) {
    this.text = text;
    this.host.textContent = text;
  }
  focus() {}
  select() {}
  setErrors(marks) {
    this.marks = marks;
  }
  get errorCount() {
    return this.marks.length;
  }
}
for (const id of EDITOR_IDS) editors[id] = new PendingEditor(editorHost(id));

/** Replaces each pending editor by a CodeMirror one with its text and marks. */
export function createEditors(YamlEditor) {
  for (const id of EDITOR_IDS) {
    const pending = editors[id];
    const host = pending.host;
    host.textContent = '';
    host.classList.remove('pending');
    const ed = new YamlEditor(host, { id, labelledBy: `${id}-label`, describedBy: host.dataset.describedby });
    ed.value = pending.value;
    if (pending.marks.length) ed.setErrors(pending.marks);
    editors[id] = ed;
    // A click on the label focuses its editor, as a label does for a textarea.
    document.getElementById(`${id}-label`).addEventListener('click', () => editors[id].focus());
  }
}

window.__nodecastEditors = editors;

// The request's source names and the editors (and tabs) that hold them.
export const EDITOR_OF = { 'nodepools.yaml': 'nodepools', 'workloads.yaml': 'workloads', [RESERVATIONS_SOURCE]: 'reservations', 'cluster.yaml': 'cluster', 'sim-cluster.yaml': 'sim-cluster', 'trace.yaml': 'sim-trace' };
export const TAB_OF_EDITOR = { nodepools: 'plan', workloads: 'plan', reservations: 'plan', cluster: 'consolidate', 'sim-cluster': 'simulate', 'sim-trace': 'simulate' };
export const editorLabel = (id) => ({ nodepools: 'NodePools', workloads: 'workloads', reservations: 'reservations', cluster: 'cluster state', 'sim-cluster': 'simulation cluster', 'sim-trace': 'trace' })[id];

/**
 * Offsets [start, end) of the line holding an error: its line/column, else its document and path
 * (or its path alone in a one-document text, as for the trace's errors).
 */
export function locate(text, e) {
  const json = locateJson(text, e); // a JSON text (the AWS CLI's output) by its path
  if (json) return json;
  const lines = text.split('\n');
  const lineStart = (n) => lines.slice(0, n).reduce((s, l) => s + l.length + 1, 0);
  if (e.line) {
    const n = Math.min(Math.max(e.line - 1, 0), lines.length - 1);
    const s = lineStart(n);
    return [s + Math.min(Math.max((e.column || 1) - 1, 0), lines[n].length), s + lines[n].length];
  }
  const noDocument = e.document === undefined || e.document === null;
  if (noDocument && !e.path) return null;
  // Documents as the core counts them: split on `---`, skipping empty and comment-only ones.
  const docs = [];
  let cur = null;
  lines.forEach((l, i) => {
    if (/^---(\s|$)/.test(l)) {
      cur = null;
      return;
    }
    if (!cur) docs.push((cur = { start: i, end: i, content: false }));
    cur.end = i;
    if (!/^\s*(#.*)?$/.test(l)) cur.content = true;
  });
  const content = docs.filter((d) => d.content);
  // A path without a document (a trace's errors) is in the text's one document.
  if (noDocument && content.length !== 1) return null;
  const doc = content[noDocument ? 0 : e.document];
  if (!doc) return null;
  let line = doc.start;
  while (line < doc.end && /^\s*(#.*)?$/.test(lines[line])) line++;
  // Best effort: follow the path's keys and list indices down the document.
  let followed = 0;
  for (const seg of (e.path || '').match(/[^.[\]]+|\[\d+\]/g) || []) {
    const idx = /^\[(\d+)\]$/.exec(seg);
    let found = -1;
    if (idx) {
      let count = -1;
      for (let i = line + 1; i <= doc.end; i++) {
        if (/^\s*-(\s|$)/.test(lines[i]) && ++count === Number(idx[1])) {
          found = i;
          break;
        }
      }
    } else {
      const re = new RegExp(`(^|[\\s{,-])["']?${seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["']?\\s*:`);
      for (let i = line; i <= doc.end; i++) {
        if (re.test(lines[i])) {
          found = i;
          break;
        }
      }
    }
    if (found < 0) break;
    line = found;
    followed++;
  }
  if (noDocument && !followed) return null; // not even the path's first key: no line to point at
  const s = lineStart(line);
  return [s, s + lines[line].length];
}

/**
 * Marks the located errors of an answer in their editors (gutter marker, tinted line, the
 * message on hover); a success answer clears the marks. `inputs` are the texts the answer is
 * for: an editor edited since keeps its marks until its own answer comes.
 */
export function markErrors(answer, inputs) {
  const errors = answer.status === 'success' ? [] : answer.errors || [];
  for (const { name, text } of inputs) {
    const ed = editors[EDITOR_OF[name]];
    if (!ed || ed.value !== text) continue;
    const marks = [];
    for (const e of errors) {
      if (e.source !== name) continue;
      const range = locate(text, e);
      if (!range) continue;
      let from = range[0];
      while (from < range[1] && /\s/.test(text[from])) from++; // underline the text, not the indent
      marks.push({ from, to: range[1], message: `[${e.code}] ${e.message}` });
    }
    ed.setErrors(marks);
  }
}
