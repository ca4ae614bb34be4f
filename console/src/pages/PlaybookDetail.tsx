import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { clientFor } from '../api.ts';
import { rollbackPlaybookVersion } from '../calls.ts';
import { ErrorNote, Loading, PageTitle, when } from '../ui.tsx';

export function PlaybookDetail() {
  const { ws, pb } = useParams<{ ws: string; pb: string }>();
  const queryClient = useQueryClient();
  const playbook = useQuery({ queryKey: ['playbook', ws, pb], queryFn: () => clientFor(ws).playbooks.get(pb) });
  const [message, setMessage] = useState<string | null>(null);
  const done = (text: string) => {
    setMessage(text);
    void queryClient.invalidateQueries({ queryKey: ['playbook', ws, pb] });
    void queryClient.invalidateQueries({ queryKey: ['playbooks', ws] });
  };
  const approve = useMutation({
    mutationFn: (v: { id: string; n: number }) => clientFor(ws).versions.approve(pb, v.id),
    onSuccess: (_r, v) => done(`Version ${v.n} approved.`),
  });
  const rollback = useMutation({
    mutationFn: (v: { id: string; n: number }) => rollbackPlaybookVersion(ws, pb, v.id, v.n),
    onSuccess: (r, v) => done(`Version ${r.versionNumber} is a new draft with the content of version ${v.n}.`),
  });
  const archive = useMutation({
    mutationFn: async (archived: boolean) => {
      if (archived) await clientFor(ws).playbooks.restore(pb);
      else await clientFor(ws).playbooks.archive(pb);
    },
    onSuccess: (_r, archived) => done(archived ? 'Playbook restored.' : 'Playbook archived.'),
  });
  const versions = playbook.data?.versions ?? [];
  const [a, setA] = useState('');
  const [b, setB] = useState('');
  const left = a || versions[1]?.id || versions[0]?.id || '';
  const right = b || versions[0]?.id || '';

  if (playbook.isPending) return <Loading what="Loading the playbook" />;
  if (playbook.error) return <ErrorNote error={playbook.error} />;
  const p = playbook.data;
  const latest = p.latestVersion.versionNumber;
  return (
    <>
      <PageTitle text={p.title} />
      <p className="muted">
        {p.slug} · {p.functionArea ?? 'no function area'} · {p.visibility} · updated {when(p.updatedAt)}
        {p.archivedAt && <strong> · archived {when(p.archivedAt)}</strong>}
      </p>
      {p.summary && <p>{p.summary}</p>}
      <div className="actions">
        <Link href={`/graph?playbook=${p.id}`} className="button">Graph and bundle preview</Link>
        <button type="button" onClick={() => archive.mutate(Boolean(p.archivedAt))} disabled={archive.isPending}>
          {p.archivedAt ? 'Restore playbook' : 'Archive playbook'}
        </button>
      </div>
      <p role="status" aria-live="polite" className="status-line">{message}</p>
      <ErrorNote error={approve.error ?? rollback.error ?? archive.error} />

      <h2>Versions</h2>
      <table className="list" aria-label="Versions">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Status</th>
            <th scope="col">Change note</th>
            <th scope="col">Created</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v) => (
            <tr key={v.id} data-version-id={v.id} data-version-number={v.versionNumber} data-status={v.status}>
              <th scope="row">v{v.versionNumber}{p.activeVersion?.id === v.id && <span className="badge approved"> active</span>}</th>
              <td><span className={`badge ${v.status}`}>{v.status}</span></td>
              <td>{v.changeNote ?? '—'}</td>
              <td>{when(v.createdAt)}</td>
              <td className="row-actions">
                {v.status === 'draft' && (
                  <button type="button" onClick={() => approve.mutate({ id: v.id, n: v.versionNumber })} disabled={approve.isPending}>
                    Approve v{v.versionNumber}
                  </button>
                )}
                {v.versionNumber < latest && (
                  <button type="button" onClick={() => rollback.mutate({ id: v.id, n: v.versionNumber })} disabled={rollback.isPending}>
                    Roll back to v{v.versionNumber}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      {versions.length > 1 && (
        <form className="filters" aria-label="Compare versions" onSubmit={(e) => e.preventDefault()}>
          <div>
            <label htmlFor="diff-a">Compare</label>
            <select id="diff-a" value={left} onChange={(e) => setA(e.target.value)}>
              {versions.map((v) => <option key={v.id} value={v.id}>v{v.versionNumber} ({v.status})</option>)}
            </select>
          </div>
          <div>
            <label htmlFor="diff-b">with</label>
            <select id="diff-b" value={right} onChange={(e) => setB(e.target.value)}>
              {versions.map((v) => <option key={v.id} value={v.id}>v{v.versionNumber} ({v.status})</option>)}
            </select>
          </div>
          <Link href={`/playbooks/${p.id}/diff?a=${left}&b=${right}`} className="button">Show differences</Link>
        </form>
      )}

      <h2>Linked context nodes</h2>
      {p.contextNodes.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul>
          {p.contextNodes.map((n) => (
            <li key={n.linkId}>
              <Link href={`/nodes/${n.id}`}>{n.title}</Link> <span className="muted">({n.linkType})</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
