import type { ContextNode } from '@sdk';
import { useQueries } from '@tanstack/react-query';
import { useDeferredValue, useMemo } from 'react';
import { clientFor } from '../api.ts';
import { WikilinkedMarkdown } from './NodePreview.tsx';
import { type Resolution, wikilinkKeys } from './NodeWikilinks.ts';

/**
 * What the playbook version pages share: a markdown editor (CodeMirror), a sanitised preview, and a version's
 * content shown entry by entry. Loaded with those pages only, so the first load carries none of it.
 */

/** A version's content: any JSON object; `instructions` (markdown) is the entry people write. */
export type VersionContent = Record<string, unknown>;

export { MarkdownEditor } from '../editor.tsx';

/** The most names of one text looked up: a text naming more shows the rest plainly. */
const maxNamesLooked = 50;

type Looked = { data?: ContextNode | null };

/** A name's node as the service names it, no node, or not known yet. */
const resolutionOf = ({ data }: Looked): Resolution =>
  data ? { state: 'resolved', nodeId: data.id, title: data.title } : data === null ? { state: 'unresolved' } : { state: 'plain' };

const combine = (results: Looked[]) => results.map(resolutionOf);

/**
 * What each [[name]] of a playbook's text stands for. A playbook's content makes no links, so each name is asked
 * of the service (the node list's `name`: the node a wikilink of that name links to, by slug, file name, path, title
 * or alias), one cached query per name; the text is read deferred, so typing does not ask for every half-written name.
 */
function useNamesLookedUp(ws: string, text: string): (key: string) => Resolution {
  const settled = useDeferredValue(text);
  const keys = useMemo(() => [...wikilinkKeys(settled)].slice(0, maxNamesLooked), [settled]);
  const found = useQueries({
    queries: keys.map((key) => ({
      queryKey: ['node-by-name', ws, key],
      queryFn: async () => (await clientFor(ws).nodes.page({ name: key, status: 'all', limit: 1 })).nodes[0] ?? null,
    })),
    combine,
  });
  return useMemo(() => {
    const byKey = new Map(keys.map((k, i) => [k, found[i]]));
    return (key: string) => byKey.get(key) ?? { state: 'plain' };
  }, [keys, found]);
}

/** Markdown as sanitised HTML, each [[wikilink]] a link to the node its name names (with its label, when it has one). */
export function MarkdownPreview({ ws, text, label = 'Preview' }: { ws: string; text: string; label?: string }) {
  const resolve = useNamesLookedUp(ws, text);
  return <WikilinkedMarkdown text={text} resolve={resolve} label={label} />;
}

/** The content as people read it: each text entry as markdown under its name, anything else as JSON. */
export function ContentView({ ws, content }: { ws: string; content: VersionContent }) {
  const entries = Object.entries(content);
  if (entries.length === 0) return <p className="muted">This version has no content.</p>;
  return (
    <div className="pb-content">
      {entries.map(([key, value]) => (
        <section key={key} aria-label={`Entry ${key}`}>
          <h3>{key}</h3>
          {typeof value === 'string' ? <MarkdownPreview ws={ws} text={value} label={`${key} (preview)`} /> : <pre className="pb-json">{JSON.stringify(value, null, 2)}</pre>}
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
