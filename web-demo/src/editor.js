// The playground's YAML editors: CodeMirror 6 with line numbers, YAML highlighting, undo, search
// and error marks. scripts/build.mjs bundles this file with its npm dependencies into
// build/editor.js (one ES module, nothing fetched at run time); app.js imports that bundle.
//
// A YamlEditor stands in for the textarea it replaced: `.value` reads and sets the text (setting
// it starts a fresh history, like a textarea, and fires no event), an `input` event follows every
// edit made by the user, and the content element carries the old textarea's id, so labels,
// `document.activeElement.id` and "Show in the … editor" keep working.
import { Annotation, EditorState, StateEffect, StateField } from '@codemirror/state';
import {
  Decoration,
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { HighlightStyle, bracketMatching, indentOnInput, indentUnit, syntaxHighlighting } from '@codemirror/language';
import { yaml } from '@codemirror/lang-yaml';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import { lintGutter, lintKeymap, setDiagnostics } from '@codemirror/lint';
import { tags as t } from '@lezer/highlight';

// Token colours: each at least 4.5:1 on the white editor background (WCAG AA), so highlighting
// never costs legibility. Plain scalars keep the text colour.
const yamlColours = HighlightStyle.define([
  { tag: t.definition(t.propertyName), color: '#0a58a8' }, // keys: 6.9:1
  { tag: t.string, color: '#1a6b2f' }, // quoted scalars: 6.6:1
  { tag: t.special(t.string), color: '#1a6b2f', fontWeight: '600' }, // block scalar header | >
  { tag: t.lineComment, color: '#525a63', fontStyle: 'italic' }, // 7.0:1
  { tag: t.meta, color: '#7b3fa0', fontWeight: '600' }, // --- and ...: 6.9:1
  { tag: [t.labelName, t.typeName], color: '#a14800' }, // &anchors, *aliases, !!tags: 5.3:1
  { tag: t.keyword, color: '#a3175c' }, // %YAML directives: 6.5:1
  { tag: t.separator, color: '#525a63' }, // : , -
]);

const theme = EditorView.theme({
  '&': { height: '100%', backgroundColor: 'var(--card, #fff)', color: 'var(--text, #1b1f24)', fontSize: '12.5px' },
  '&.cm-focused': { outline: 'none' }, // the host draws the focus ring (style.css), unclipped
  '.cm-scroller': { fontFamily: 'var(--mono, monospace)', lineHeight: '1.45', overflow: 'auto' },
  '.cm-gutters': { backgroundColor: '#f6f8fa', color: '#525a63', borderRight: '1px solid #c9d1d9' },
  '.cm-activeLineGutter': { backgroundColor: '#e3e7eb', color: '#1b1f24' },
  // Line tints are translucent: the selection layer is drawn beneath the lines.
  '.cm-activeLine': { backgroundColor: 'rgba(10, 88, 168, 0.05)' },
  '.cm-error-line': { backgroundColor: 'rgba(179, 38, 30, 0.10)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': { backgroundColor: '#cfe2f7' },
});

// Setting `.value` is not a user edit: no `input` event for it.
const fromPage = Annotation.define();

// Error lines, painted across the whole line (the lint gutter marks them too).
const setErrorLines = StateEffect.define();
const errorLines = StateField.define({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) if (e.is(setErrorLines)) deco = e.value;
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});
const errorLine = Decoration.line({ class: 'cm-error-line' });

export class YamlEditor extends EventTarget {
  /**
   * @param {HTMLElement} host  the element the editor fills
   * @param {{id: string, labelledBy: string, describedBy?: string}} opts  the content element's
   *   id and the ids of its label and description
   */
  constructor(host, { id, labelledBy, describedBy }) {
    super();
    const content = { id, 'aria-labelledby': labelledBy, spellcheck: 'false', autocapitalize: 'off', autocorrect: 'off' };
    if (describedBy) content['aria-describedby'] = describedBy;
    this.extensions = [
      lineNumbers(),
      highlightActiveLineGutter(),
      highlightSpecialChars(),
      history(),
      drawSelection(),
      EditorState.allowMultipleSelections.of(true),
      indentOnInput(),
      indentUnit.of('  '),
      EditorState.tabSize.of(2),
      bracketMatching(),
      highlightActiveLine(),
      highlightSelectionMatches(),
      search({ top: true }),
      lintGutter(),
      errorLines,
      yaml(),
      syntaxHighlighting(yamlColours),
      // Tab is left to the browser, so Tab moves focus out of the editor (keyboard users are
      // never trapped); Mod-] and Mod-[ indent.
      keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, ...lintKeymap]),
      EditorView.contentAttributes.of(content),
      theme,
      EditorView.updateListener.of((u) => {
        if (u.transactions.some((tr) => tr.docChanged && !tr.annotation(fromPage))) this.dispatchEvent(new Event('input'));
      }),
    ];
    this.view = new EditorView({ parent: host, state: EditorState.create({ doc: '', extensions: this.extensions }) });
  }

  get value() {
    return this.view.state.doc.toString();
  }

  /** Replaces the text with a fresh state (history, selection, error marks), as a textarea does. */
  set value(text) {
    if (text === this.value) return;
    this.view.setState(EditorState.create({ doc: text, extensions: this.extensions }));
  }

  focus() {
    this.view.focus();
  }

  /** Selects [from, to) and scrolls it to the middle of the editor. */
  select(from, to) {
    const len = this.view.state.doc.length;
    const a = Math.min(Math.max(from, 0), len);
    const b = Math.min(Math.max(to, a), len);
    this.view.dispatch({ selection: { anchor: a, head: b }, effects: EditorView.scrollIntoView(a, { y: 'center' }), annotations: fromPage.of(true) });
  }

  /** 1-based line number of an offset. */
  lineAt(pos) {
    return this.view.state.doc.lineAt(Math.min(Math.max(pos, 0), this.view.state.doc.length)).number;
  }

  /**
   * Marks errors: `marks` is a list of {from, to, message}; an empty list clears them. Each gets a
   * gutter marker (its message on hover, F8 / the lint panel from the keyboard), a wavy underline
   * and a tinted line.
   */
  setErrors(marks) {
    const len = this.view.state.doc.length;
    const clamp = (x) => Math.min(Math.max(x, 0), len);
    const diagnostics = marks.map((m) => ({ from: clamp(m.from), to: clamp(Math.max(m.to, m.from)), severity: 'error', message: m.message, source: 'nodecast' }));
    const lineStarts = [...new Set(diagnostics.map((d) => this.view.state.doc.lineAt(d.from).from))].sort((x, y) => x - y);
    this.view.dispatch({
      ...setDiagnostics(this.view.state, diagnostics),
      annotations: fromPage.of(true),
    });
    this.view.dispatch({ effects: setErrorLines.of(Decoration.set(lineStarts.map((p) => errorLine.range(p)))), annotations: fromPage.of(true) });
  }

  /** The number of marked lines (for tests and the page's status). */
  get errorCount() {
    return this.view.state.field(errorLines).size;
  }
}
