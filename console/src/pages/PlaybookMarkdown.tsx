import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo } from 'react';

/**
 * What the playbook version pages share: a markdown editor (CodeMirror), a sanitised preview, and a version's
 * content shown entry by entry. Loaded with those pages only, so the first load carries none of it.
 */

/** A version's content: any JSON object; `instructions` (markdown) is the entry people write. */
export type VersionContent = Record<string, unknown>;

export { MarkdownEditor } from '../editor.tsx';

/** Markdown as sanitised HTML ([[slug]] reads as a link name, as in the node editor's preview). */
export function MarkdownPreview({ text, label = 'Preview' }: { text: string; label?: string }) {
  const html = useMemo(() => {
    const linked = text.replace(/\[\[([^\]\n|]+)(\|[^\]\n]*)?\]\]/g, (_m, slug: string) => `**⟦${slug.trim()}⟧**`);
    return DOMPurify.sanitize(marked.parse(linked, { async: false }) as string);
  }, [text]);
  return <div className="preview" aria-label={label} role="region" dangerouslySetInnerHTML={{ __html: html }} />;
}

/** The content as people read it: each text entry as markdown under its name, anything else as JSON. */
export function ContentView({ content }: { content: VersionContent }) {
  const entries = Object.entries(content);
  if (entries.length === 0) return <p className="muted">This version has no content.</p>;
  return (
    <div className="pb-content">
      {entries.map(([key, value]) => (
        <section key={key} aria-label={`Entry ${key}`}>
          <h3>{key}</h3>
          {typeof value === 'string' ? <MarkdownPreview text={value} label={`${key} (preview)`} /> : <pre className="pb-json">{JSON.stringify(value, null, 2)}</pre>}
        </section>
      ))}
    </div>
  );
}

/** The content exactly as stored, for copying or checking what the preview made of it. */
export function RawContent({ content }: { content: VersionContent }) {
  return (
    <details className="pb-raw">
      <summary>Raw content (JSON)</summary>
      <pre data-testid="raw-content">{JSON.stringify(content, null, 2)}</pre>
    </details>
  );
}
