import { markdown } from '@codemirror/lang-markdown';
import type { Extension, Transaction } from '@codemirror/state';
import { EditorView, basicSetup } from 'codemirror';
import { useEffect, useRef } from 'react';

/**
 * The page's CSP admits CodeMirror's <style> element by this response's nonce, which the server puts in a meta
 * element (src/console/routes.ts).
 */
const pageCspNonce = (): Extension =>
  EditorView.cspNonce.of(document.querySelector<HTMLMetaElement>('meta[name="csp-style-nonce"]')?.content ?? '');

/**
 * Typing over a selection, done by the editor itself. Left to the browser, Chromium deletes the selection by
 * joining the elements it spans (lines, or highlighted tokens) and keeps their look by moving content through markup
 * with inline styles that it parses again: the page's CSP refuses them (and reports it) even though none stays in
 * the document. The text goes through the editor's input handlers (closing brackets wrap the selection) as typing
 * (autocompletion, undo), as CodeMirror does itself. Composition is left alone: CodeMirror clears a selection when
 * it starts.
 */
const typingOverSelection = (): Extension => EditorView.domEventHandlers({
  beforeinput(event, view) {
    const { state } = view;
    const main = state.selection.main;
    if (event.inputType !== 'insertText' || event.data == null || event.isComposing || view.composing || state.readOnly) return false;
    if (main.empty) return false;
    const text = event.data;
    const insert = (): Transaction => state.update(state.replaceSelection(text), { userEvent: 'input.type', scrollIntoView: true });
    event.preventDefault();
    if (!state.facet(EditorView.inputHandler).some((handle) => handle(view, main.from, main.to, text, insert))) view.dispatch(insert());
    return true;
  },
});

/** What every editor of the console needs to run under the page's CSP without a refusal. */
export const underPageCsp = (): Extension => [pageCspNonce(), typingOverSelection()];

/**
 * CodeMirror for markdown, made once per mount: its own state holds the text from then on. `extensions` adds to
 * it (the node editor's [[wikilink]] completion). Loaded only with the pages that edit, never on the first load.
 */
export function MarkdownEditor({ initial, label, describedBy, extensions = [], onChange }: {
  initial: string;
  label: string;
  describedBy?: string;
  extensions?: Extension[];
  onChange: (text: string) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  useEffect(() => {
    const view = new EditorView({
      parent: host.current!,
      doc: initial,
      extensions: [
        basicSetup,
        markdown(),
        ...extensions,
        EditorView.lineWrapping,
        underPageCsp(),
        // tabindex: the editor scrolls inside its own box, and checkers count a contenteditable element as the
        // box's focusable content only when it says so.
        EditorView.contentAttributes.of({ 'aria-label': label, tabindex: '0', ...(describedBy ? { 'aria-describedby': describedBy } : {}) }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) changed.current(u.state.doc.toString());
        }),
      ],
    });
    return () => view.destroy();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return <div ref={host} className="editor" />;
}
