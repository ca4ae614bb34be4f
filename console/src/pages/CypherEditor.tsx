import { StreamLanguage } from '@codemirror/language';
import { cypher } from '@codemirror/legacy-modes/mode/cypher';
import { Prec } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { EditorView, basicSetup } from 'codemirror';
import { useEffect, useRef, type RefObject } from 'react';
import { underPageCsp } from '../editor.tsx';

const cypherLanguage = StreamLanguage.define(cypher);

/** Puts `text` in the editor, or the cursor at `offset` (an error's position), and focuses it. */
export function setEditorText(view: EditorView | null, text: string): void {
  view?.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, selection: { anchor: text.length } });
  view?.focus();
}

export function moveEditorCursor(view: EditorView | null, offset: number): void {
  if (!view) return;
  const at = Math.max(0, Math.min(offset, view.state.doc.length));
  view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
  view.focus();
}

/**
 * The query editor: CodeMirror with the Cypher mode of @codemirror/legacy-modes. Ctrl+Enter (Cmd+Enter on a
 * Mac) runs the statement; Tab moves focus on, as everywhere else on the page (Escape then Tab leaves as well).
 */
export function CypherEditor({ initial, onChange, onRun, viewRef, describedBy }: {
  initial: string;
  onChange: (text: string) => void;
  onRun: () => void;
  viewRef: RefObject<EditorView | null>;
  describedBy: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const change = useRef(onChange);
  change.current = onChange;
  const run = useRef(onRun);
  run.current = onRun;

  useEffect(() => {
    const view = new EditorView({
      doc: initial,
      parent: host.current!,
      extensions: [
        basicSetup,
        cypherLanguage,
        EditorView.lineWrapping,
        Prec.highest(keymap.of([{ key: 'Mod-Enter', run: () => (run.current(), true) }])),
        // The page's CSP admits the editor's <style> element by this nonce (src/console/routes.ts).
        underPageCsp(),
        EditorView.contentAttributes.of({ 'aria-label': 'Cypher query', 'aria-describedby': describedBy, 'data-testid': 'cypher-input' }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) change.current(u.state.doc.toString());
        }),
      ],
    });
    viewRef.current = view;
    return () => {
      view.destroy();
      viewRef.current = null;
    };
    // The editor is made once; its text is changed through the view afterwards.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return <div ref={host} className="editor cypher-editor" />;
}
