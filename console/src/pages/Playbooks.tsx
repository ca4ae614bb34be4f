import { type ListPlaybooksData, type VersionStatus, versionStatuses } from '@sdk';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { clientFor } from '../api.ts';
import { ErrorNote, Loading, PageTitle, Pager, when } from '../ui.tsx';
import { PlaybookCreate } from './PlaybookCreate.tsx';
import '../styles/playbooks.css';

type Status = '' | VersionStatus;
type Sort = NonNullable<NonNullable<ListPlaybooksData['query']>['sort']>;

export function Playbooks() {
  const { ws } = useParams<{ ws: string }>();
  const [status, setStatus] = useState<Status>('');
  const [area, setArea] = useState('');
  const [sort, setSort] = useState<Sort>('updated_at');
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const limit = 25;
  const query = { ...(search.trim() ? { q: search.trim() } : {}), ...(status ? { status } : {}), ...(area.trim() ? { function_area: area.trim() } : {}), sort, order: sort === 'title' ? ('asc' as const) : ('desc' as const), page, limit };
  const list = useQuery({ queryKey: ['playbooks', ws, query], queryFn: () => clientFor(ws).playbooks.page(query), placeholderData: keepPreviousData });
  const shown = list.data?.playbooks;
  const filtered = Boolean(search.trim() || status || area.trim());
  // An empty workspace opens the form by itself: creating the first playbook is the only thing to do there.
  const none = shown?.length === 0 && !filtered && page === 1;
  const [creating, setCreating] = useState(false);
  const formOpen = creating || none;
  return (
    <>
      <PageTitle text="Playbooks" />
      {!none && (
        <div className="actions">
          <button type="button" aria-expanded={creating} onClick={() => setCreating((c) => !c)}>
            New playbook
          </button>
        </div>
      )}
      {none && <p className="pb-empty" data-testid="playbooks-empty">No playbooks yet. Create one with the form below: give it a title, and optionally its instructions.</p>}
      {formOpen && (
        <section id="new-playbook" className="pb-create" aria-labelledby="new-playbook-title">
          <h2 id="new-playbook-title">New playbook</h2>
          <PlaybookCreate ws={ws} headingId="new-playbook-title" />
        </section>
      )}
      {!none && <form className="filters" role="search" aria-label="Filter playbooks" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label htmlFor="pb-search">Search</label>
          <input id="pb-search" type="search" value={search} onChange={(e) => { setSearch(e.target.value); setPage(1); }} placeholder="title, slug or summary" />
        </div>
        <div>
          <label htmlFor="pb-status">Has a version that is</label>
          <select id="pb-status" value={status} onChange={(e) => { setStatus(e.target.value as Status); setPage(1); }}>
            <option value="">any status</option>
            {versionStatuses.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </div>
        <div>
          <label htmlFor="pb-area">Function area</label>
          <input id="pb-area" value={area} onChange={(e) => { setArea(e.target.value); setPage(1); }} />
        </div>
        <div>
          <label htmlFor="pb-sort">Sort by</label>
          <select id="pb-sort" value={sort} onChange={(e) => setSort(e.target.value as Sort)}>
            <option value="updated_at">last updated</option>
            <option value="created_at">created</option>
            <option value="title">title</option>
          </select>
        </div>
      </form>}
      {list.isPending && <Loading what="Loading playbooks" />}
      <ErrorNote error={list.error} />
      {shown && !none && (
        <>
          <table className="list" aria-label="Playbooks">
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Latest version</th>
                <th scope="col">Active</th>
                <th scope="col">Function area</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((p) => (
                <tr key={p.id} data-playbook-id={p.id}>
                  <td>
                    <Link href={`/playbooks/${p.id}`}>{p.title}</Link>
                    <div className="muted small">{p.slug}</div>
                  </td>
                  <td>
                    v{p.latestVersion.versionNumber} <span className={`badge ${p.latestVersion.status}`}>{p.latestVersion.status}</span>
                  </td>
                  <td>{p.activeVersion ? `v${p.activeVersion.versionNumber}` : '—'}</td>
                  <td>{p.functionArea ?? '—'}</td>
                  <td>{when(p.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {shown.length === 0 && <p>No playbook matches.</p>}
          <Pager page={page} limit={limit} total={list.data!.pagination.total} onPage={setPage} />
        </>
      )}
    </>
  );
}
