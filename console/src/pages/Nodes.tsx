import { type NodeStatus, type NodeType, nodeTypes } from '@sdk';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import { clientFor } from '../api.ts';
import { ErrorNote, Loading, PageTitle, Pager, when } from '../ui.tsx';
import '../styles/nodes.css';

type Status = NodeStatus | 'all';

/** The node list's address for a tag filter (the filter lives in the address, so a tag's link can set it). */
const tagHref = (tag: string) => (tag ? `/nodes?tag=${encodeURIComponent(tag)}` : '/nodes');
const aliasesShown = 5;

/** What to do in a workspace with no live node yet: make one here, or bring a folder of notes in. */
function NoNodesYet({ ws }: { ws: string }) {
  return (
    <section className="empty-state" aria-labelledby="no-nodes-title" data-testid="nodes-empty">
      <h2 id="no-nodes-title">No context nodes yet</h2>
      <p>
        Context nodes hold what agents read beside a playbook. <Link href="/nodes/new">Create a context node</Link> here, or import a
        folder of markdown notes (an Obsidian vault, say) with the command line, which makes a node of every file and links them as their
        wikilinks do:
      </p>
      <pre><code>API_KEY=pk_user_… npm run cli -- import ./notes --workspace {ws} --dry-run</code></pre>
      <p className="muted small">
        Leave out <code>--dry-run</code> to write the nodes. The project’s docs/import-export.md tells how files become nodes.
      </p>
    </section>
  );
}

export function Nodes() {
  const { ws } = useParams<{ ws: string }>();
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  const [nodeType, setNodeType] = useState<NodeType | ''>('');
  const [status, setStatus] = useState<Status>('live');
  const [page, setPage] = useState(1);
  const [, navigate] = useLocation();
  const tag = new URLSearchParams(useSearch()).get('tag')?.trim() ?? '';
  const [tagInput, setTagInput] = useState(tag);
  // The tag the input last put in the address: an address change from elsewhere (a tag's link, back) refills the input.
  const typedTag = useRef(tag);
  useEffect(() => {
    if (tag !== typedTag.current) { typedTag.current = tag; setTagInput(tag); }
    setPage(1);
  }, [tag]);
  // Search as the user types, once they pause.
  useEffect(() => {
    const t = setTimeout(() => { setQ(text.trim()); setPage(1); }, 250);
    return () => clearTimeout(t);
  }, [text]);
  useEffect(() => {
    const typed = tagInput.trim();
    if (typed === typedTag.current) return;
    const t = setTimeout(() => { typedTag.current = typed; navigate(tagHref(typed), { replace: true }); }, 250);
    return () => clearTimeout(t);
  }, [tagInput, navigate]);
  const limit = 25;
  const query = { ...(q ? { q } : {}), ...(nodeType ? { nodeType } : {}), ...(tag ? { tag } : {}), status, page, limit };
  const unfiltered = !q && !nodeType && !tag && status === 'live';
  const list = useQuery({ queryKey: ['nodes', ws, query], queryFn: () => clientFor(ws).nodes.page(query), placeholderData: keepPreviousData });
  return (
    <>
      <PageTitle text="Context nodes" />
      <div className="actions">
        <Link href="/nodes/new" className="button">New context node</Link>
      </div>
      <form className="filters" role="search" aria-label="Search context nodes" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label htmlFor="node-q">Full-text search</label>
          <input id="node-q" type="search" value={text} onChange={(e) => setText(e.target.value)} />
        </div>
        <div>
          <label htmlFor="node-type">Type</label>
          <select id="node-type" value={nodeType} onChange={(e) => { setNodeType(e.target.value as NodeType | ''); setPage(1); }}>
            <option value="">any type</option>
            {nodeTypes.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </div>
        <div>
          <label htmlFor="node-tag">Tag</label>
          <input id="node-tag" type="search" value={tagInput} onChange={(e) => setTagInput(e.target.value)} aria-describedby="node-tag-help" />
          <span id="node-tag-help" className="visually-hidden">Only nodes with this tag; a row's tags filter the list too.</span>
        </div>
        <div>
          <label htmlFor="node-status">Status</label>
          <select id="node-status" value={status} onChange={(e) => { setStatus(e.target.value as Status); setPage(1); }}>
            <option value="live">live</option>
            <option value="archived">archived</option>
            <option value="all">all</option>
          </select>
        </div>
      </form>
      {tag && (
        <p className="inline" data-testid="tag-filter">
          <span>Only nodes tagged <strong>#{tag}</strong>.</span>
          <Link href={tagHref('')}>Clear the tag filter</Link>
        </p>
      )}
      {list.isPending && <Loading what="Loading context nodes" />}
      <ErrorNote error={list.error} />
      {list.data && (
        <>
          <table className="list" aria-label="Context nodes">
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Tags</th>
                <th scope="col">Type</th>
                <th scope="col">Importance</th>
                <th scope="col">Status</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.nodes.map((n) => (
                <tr key={n.id} data-node-id={n.id}>
                  <td>
                    <Link href={`/nodes/${n.id}`}>{n.title}</Link>
                    <div className="muted small">{n.slug}</div>
                    {n.aliases.length > 0 && (
                      <div className="muted small node-aliases">
                        Also called {n.aliases.slice(0, aliasesShown).join(', ')}
                        {n.aliases.length > aliasesShown && ` and ${n.aliases.length - aliasesShown} more`}
                      </div>
                    )}
                  </td>
                  <td>
                    {n.tags.length > 0 && (
                      <ul className="tag-list" aria-label={`Tags of ${n.title}`}>
                        {n.tags.map((t) => (
                          <li key={t}>
                            <Link href={tagHref(t)} className="tag" aria-current={t.toLowerCase() === tag.replace(/^#/, '').toLowerCase() ? 'true' : undefined}>
                              <span className="visually-hidden">Only nodes tagged </span>#{t}
                            </Link>
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td>{n.nodeType}</td>
                  <td>{n.importance}</td>
                  <td>{n.status}</td>
                  <td>{when(n.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.nodes.length === 0 && (unfiltered ? <NoNodesYet ws={ws} /> : <p>No context node matches.</p>)}
          <Pager page={page} limit={limit} total={list.data.pagination.total} onPage={setPage} />
        </>
      )}
    </>
  );
}
