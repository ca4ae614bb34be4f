import type { CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { markdownLanguage } from '@codemirror/lang-markdown';
import type { EditorView } from 'codemirror';
import { type NodeDetail, type NodeType, nodeTypes } from '@sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { clientFor } from '../api.ts';
import { MarkdownEditor } from '../editor.tsx';
import { ErrorNote, Loading, PageTitle } from '../ui.tsx';
import { NodeLinks } from './NodeLinks.tsx';
import { NodePreview } from './NodePreview.tsx';
import '../styles/nodes.css';

/**
 * `[[` opens a list of the workspace's node slugs: the first nodes by title (kept for the editor's life) matched
 * on slug or title, plus the full-text matches of what was typed (the search does not cover slugs).
 */
function slugCompletion(ws: string) {
  let known: Promise<{ slug: string; title: string }[]> | null = null;
  const loadKnown = async () => {
    const all: { slug: string; title: string }[] = [];
    for (let page = 1; page <= 5; page++) {
      const r = await clientFor(ws).nodes.page({ sort: 'title', order: 'asc', limit: 100, page });
      all.push(...r.nodes.map((n) => ({ slug: n.slug, title: n.title })));
      if (all.length >= r.pagination.total) break;
    }
    return all;
  };
  return async (context: CompletionContext): Promise<CompletionResult | null> => {
    const before = context.matchBefore(/\[\[[^\]\n]*/);
    if (!before) return null;
    const typed = before.text.slice(2).trim().toLowerCase();
    known ??= loadKnown().catch(() => []);
    const [list, found] = await Promise.all([
      known,
      typed ? clientFor(ws).nodes.page({ q: typed, limit: 30 }).then((r) => r.nodes).catch(() => []) : Promise.resolve([]),
    ]);
    if (context.aborted) return null;
    const options = new Map<string, string>();
    for (const n of list) if (!typed || n.slug.includes(typed) || n.title.toLowerCase().includes(typed)) options.set(n.slug, n.title);
    for (const n of found) options.set(n.slug, n.title);
    return {
      from: before.from + 2,
      options: [...options].slice(0, 100).map(([slug, title]) => ({
        label: slug,
        detail: title,
        type: 'text',
        // Closes the link, taking in the brackets the editor may have closed already.
        apply: (view: EditorView, _c: unknown, from: number, to: number) => {
          const after = view.state.sliceDoc(to, to + 2);
          const end = to + (after === ']]' ? 2 : after.startsWith(']') ? 1 : 0);
          const insert = `${slug}]]`;
          view.dispatch({ changes: { from, to: end, insert }, selection: { anchor: from + insert.length } });
        },
      })),
    };
  };
}

interface Fields {
  title: string;
  description: string;
  slug: string;
  nodeType: NodeType;
  importance: number;
  readFirst: boolean;
  edgeCaseOnly: boolean;
  content: string;
  /** One alias a line (an alias may hold a comma). */
  aliases: string;
  /** Comma-separated. */
  tags: string;
  sourcePath: string;
}

const empty: Fields = { title: '', description: '', slug: '', nodeType: 'reference', importance: 50, readFirst: false, edgeCaseOnly: false, content: '', aliases: '', tags: '', sourcePath: '' };

/** The aliases field as the list it stands for: one a line, trimmed, empty lines dropped. */
const aliasList = (text: string) => text.split('\n').map((a) => a.trim()).filter(Boolean);
/** The tags field as the list it stands for: comma-separated, trimmed, empty items dropped (the service drops a leading #). */
const tagList = (text: string) => text.split(',').map((t) => t.trim()).filter(Boolean);
const aliasText = (aliases: readonly string[]) => aliases.join('\n');
const tagText = (tags: readonly string[]) => tags.join(', ');
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export default function NodeEditor() {
  const { ws, id } = useParams<{ ws: string; id?: string }>();
  const isNew = !id;
  const node = useQuery({ queryKey: ['node', ws, id], queryFn: () => clientFor(ws).nodes.get(id!), enabled: !isNew });
  if (!isNew && node.isPending) return <Loading what="Loading the node" />;
  if (!isNew && node.error) return <ErrorNote error={node.error} />;
  const initial: Fields = node.data
    ? {
        title: node.data.title, description: node.data.description, slug: node.data.slug, nodeType: node.data.nodeType, importance: node.data.importance,
        readFirst: node.data.readFirst, edgeCaseOnly: node.data.edgeCaseOnly, content: node.data.content,
        aliases: aliasText(node.data.aliases), tags: tagText(node.data.tags), sourcePath: node.data.sourcePath ?? '',
      }
    : empty;
  return <Form key={id ?? 'new'} ws={ws} id={id} initial={initial} node={node.data} />;
}

function Form({ ws, id, initial, node }: { ws: string; id?: string; initial: Fields; node?: NodeDetail }) {
  const [fields, setFields] = useState(initial);
  const [saved, setSaved] = useState<string | null>(null);
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const set = <K extends keyof Fields>(k: K, v: Fields[K]) => setFields((f) => ({ ...f, [k]: v }));
  // What was last saved (or loaded) of the names fields: only changed ones are sent, since a change of
  // aliases or source path moves wikilinks across the workspace.
  const [stored, setStored] = useState(() => ({ aliases: aliasList(initial.aliases), tags: tagList(initial.tags), sourcePath: initial.sourcePath.trim() }));
  const save = useMutation({
    mutationFn: async () => {
      const body = { title: fields.title, description: fields.description, nodeType: fields.nodeType, importance: fields.importance, readFirst: fields.readFirst, edgeCaseOnly: fields.edgeCaseOnly, content: fields.content };
      const aliases = aliasList(fields.aliases);
      const tags = tagList(fields.tags);
      const sourcePath = fields.sourcePath.trim();
      const names = {
        ...(sameList(aliases, stored.aliases) ? {} : { aliases }),
        ...(sameList(tags, stored.tags) ? {} : { tags }),
        ...(sourcePath === stored.sourcePath ? {} : { sourcePath: sourcePath || null }),
      };
      if (id) return clientFor(ws).nodes.update(id, { ...body, ...names });
      return clientFor(ws).nodes.create({ ...body, ...names, ...(fields.slug.trim() ? { slug: fields.slug.trim() } : {}) });
    },
    onSuccess: (n) => {
      // The service trims, normalises and drops duplicates: the fields show what it kept.
      setStored({ aliases: n.aliases, tags: n.tags, sourcePath: n.sourcePath ?? '' });
      setFields((f) => ({ ...f, aliases: aliasText(n.aliases), tags: tagText(n.tags), sourcePath: n.sourcePath ?? '' }));
      void queryClient.invalidateQueries({ queryKey: ['nodes', ws] });
      void queryClient.invalidateQueries({ queryKey: ['graph', ws] });
      void queryClient.invalidateQueries({ queryKey: ['node', ws, n.id] });
      setSaved(`Saved ${n.slug}.`);
      if (!id) navigate(`/nodes/${n.id}`);
    },
  });
  const submit = (e: FormEvent) => { e.preventDefault(); save.mutate(); };
  return (
    <>
      <PageTitle text={id ? `Edit ${initial.title}` : 'New context node'} />
      <form onSubmit={submit} className="node-form" aria-label="Context node">
        {/* What the note is, in two rows; then the note itself, as high as the window allows above Save (the note is
            what this page is for); then its other names, tags and retrieval flags, below it. */}
        <div className="node-fields">
          <div className="span2">
            <label htmlFor="node-title">Title</label>
            <input id="node-title" value={fields.title} onChange={(e) => set('title', e.target.value)} required />
          </div>
          <div>
            <label htmlFor="node-type-field">Type</label>
            <select id="node-type-field" value={fields.nodeType} onChange={(e) => set('nodeType', e.target.value as NodeType)}>
              {nodeTypes.map((t) => <option key={t} value={t}>{t}</option>)}
            </select>
          </div>
          <div>
            <label htmlFor="node-importance">Importance (0–100)</label>
            <input id="node-importance" type="number" min={0} max={100} value={fields.importance} onChange={(e) => set('importance', Number(e.target.value))} />
          </div>
          <div className="span4">
            <label htmlFor="node-description">Description</label>
            <input id="node-description" value={fields.description} onChange={(e) => set('description', e.target.value)} required />
          </div>
        </div>
        {/* Side by side (stacked on a narrow screen), each of a bounded height with its own scroll: wide content
            scrolls inside the preview instead of widening the page or squeezing the editor. */}
        <div className="node-content">
          <div className="node-pane">
            <span className="label" id="content-label">Content</span>
            <MarkdownEditor
              key={ws}
              initial={initial.content}
              label="Content (markdown)"
              describedBy="content-help"
              extensions={[markdownLanguage.data.of({ autocomplete: slugCompletion(ws) })]}
              onChange={(t) => set('content', t)}
            />
            <span id="content-help" className="muted small">Markdown. Type [[ to link another node by its slug; [[Name#Heading]] links to a section of it, [[Name|text]] shows the text.</span>
          </div>
          <div className="node-pane">
            <span className="label">Preview</span>
            <NodePreview ws={ws} text={fields.content} node={node} />
          </div>
        </div>
        <div className="node-fields node-names">
          <div>
            <label htmlFor="node-slug">Slug</label>
            <input id="node-slug" value={fields.slug} onChange={(e) => set('slug', e.target.value)} readOnly={Boolean(id)} aria-describedby="slug-help" />
            <span id="slug-help" className="muted small">{id ? 'A slug does not change.' : 'Optional: made from the title when empty.'}</span>
          </div>
          <div className="span3">
            <label htmlFor="node-source-path">Source file</label>
            <input id="node-source-path" value={fields.sourcePath} onChange={(e) => set('sourcePath', e.target.value)} aria-describedby="source-path-help" />
            <span id="source-path-help" className="muted small">The file the node was imported from, relative to its folder (guides/First Week.md); a folder import sets it. Empty for none.</span>
          </div>
          <div className="span2">
            <label htmlFor="node-aliases">Aliases</label>
            <textarea id="node-aliases" rows={3} value={fields.aliases} onChange={(e) => set('aliases', e.target.value)} aria-describedby="aliases-help" />
            <span id="aliases-help" className="muted small">One a line: other names wikilinks may call this node by, as [[alias]]. At most 50.</span>
          </div>
          <div className="span2">
            <label htmlFor="node-tags">Tags</label>
            <input id="node-tags" value={fields.tags} onChange={(e) => set('tags', e.target.value)} aria-describedby="tags-help" />
            <span id="tags-help" className="muted small">Separated by commas, e.g. onboarding, billing. At most 100.</span>
            {stored.tags.length > 0 && (
              <ul className="tag-list" aria-label="Saved tags">
                {stored.tags.map((t) => <li key={t}><Link href={`/nodes?tag=${encodeURIComponent(t)}`} className="tag"><span className="visually-hidden">Nodes tagged </span>#{t}</Link></li>)}
              </ul>
            )}
          </div>
          <div className="checks span4">
            <input id="node-read-first" type="checkbox" checked={fields.readFirst} onChange={(e) => set('readFirst', e.target.checked)} />
            <label htmlFor="node-read-first">Read first</label>
            <input id="node-edge-case" type="checkbox" checked={fields.edgeCaseOnly} onChange={(e) => set('edgeCaseOnly', e.target.checked)} />
            <label htmlFor="node-edge-case">Edge case only</label>
          </div>
        </div>
        {/* Stays at the bottom of the window while the form is on screen, so saving never means scrolling past the editor. */}
        <div className="node-save">
          <button type="submit" disabled={save.isPending}>{id ? 'Save' : 'Create'}</button>
          <p role="status" className="status-line">{saved}</p>
          <ErrorNote error={save.error} />
        </div>
      </form>
      {node && <NodeLinks ws={ws} node={node} />}
    </>
  );
}
