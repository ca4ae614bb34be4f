import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'wouter';
import { clientFor } from '../api.ts';
import { type NodeType, nodeTypes } from '../node-types.ts';
import { ErrorNote, Loading, PageTitle, Pager, when } from '../ui.tsx';

type Status = 'live' | 'archived' | 'all';

export function Nodes() {
  const { ws } = useParams<{ ws: string }>();
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  const [nodeType, setNodeType] = useState<NodeType | ''>('');
  const [status, setStatus] = useState<Status>('live');
  const [page, setPage] = useState(1);
  // Search as the user types, once they pause.
  useEffect(() => {
    const t = setTimeout(() => { setQ(text.trim()); setPage(1); }, 250);
    return () => clearTimeout(t);
  }, [text]);
  const limit = 25;
  const query = { ...(q ? { q } : {}), ...(nodeType ? { nodeType } : {}), status, page, limit };
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
          <label htmlFor="node-status">Status</label>
          <select id="node-status" value={status} onChange={(e) => { setStatus(e.target.value as Status); setPage(1); }}>
            <option value="live">live</option>
            <option value="archived">archived</option>
            <option value="all">all</option>
          </select>
        </div>
      </form>
      {list.isPending && <Loading what="Loading context nodes" />}
      <ErrorNote error={list.error} />
      {list.data && (
        <>
          <table className="list" aria-label="Context nodes">
            <thead>
              <tr>
                <th scope="col">Title</th>
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
                  </td>
                  <td>{n.nodeType}</td>
                  <td>{n.importance}</td>
                  <td>{n.status}</td>
                  <td>{when(n.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.nodes.length === 0 && <p>No context node matches.</p>}
          <Pager page={page} limit={limit} total={list.data.pagination.total} onPage={setPage} />
        </>
      )}
    </>
  );
}
