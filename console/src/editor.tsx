import { markdown } from '@codemirror/lang-markdown';
import type { Extension } from '@codemirror/state';
import { EditorView, basicSetup } from 'codemirror';
import { useEffect, useRef } from 'react';

/**
 * The page's CSP admits CodeMirror's <style> element by this response's nonce, which the server puts in a meta
 * element (src/console/routes.ts).
 */
export const pageCspNonce = (): Extension =>
  EditorView.cspNonce.of(document.querySelector<HTMLMetaElement>('meta[name="csp-style-nonce"]')?.content ?? '');

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
        pageCspNonce(),
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
