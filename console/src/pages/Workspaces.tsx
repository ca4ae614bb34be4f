import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { listWorkspaces } from '../calls.ts';
import { ErrorNote, Loading, PageTitle, when } from '../ui.tsx';

export function Workspaces() {
  const list = useQuery({ queryKey: ['workspaces'], queryFn: listWorkspaces });
  const [, navigate] = useLocation();
  const [id, setId] = useState('');
  const open = (e: FormEvent) => {
    e.preventDefault();
    if (id.trim()) navigate(`/w/${encodeURIComponent(id.trim())}/playbooks`);
  };
  return (
    <>
      <PageTitle text="Workspaces" />
      {list.isPending && <Loading what="Loading workspaces" />}
      <ErrorNote error={list.error} />
      {list.data && list.data.length === 0 && <p>This key’s user belongs to no workspace yet.</p>}
      {list.data && list.data.length > 0 && (
        <table className="list" aria-label="Your workspaces">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Your role</th>
              <th scope="col">Plan</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((w) => (
              <tr key={w.id} data-workspace-id={w.id}>
                <td>
                  <Link href={`/w/${w.id}/playbooks`}>{w.name}</Link>
                </td>
                <td>{w.role}</td>
                <td>{w.plan ?? '—'}</td>
                <td>{when(w.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form onSubmit={open} className="inline">
        <label htmlFor="ws-id">Open a workspace by id</label>
        <input id="ws-id" value={id} onChange={(e) => setId(e.target.value)} placeholder="ws_…" />
        <button type="submit">Open</button>
      </form>
    </>
  );
}
