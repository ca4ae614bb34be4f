import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { clientFor } from '../api.ts';
import { rollbackPlaybookVersion } from '../calls.ts';
import { ConfirmButton, ErrorNote, Loading, PageTitle, when } from '../ui.tsx';
import { PlaybookLinks } from './PlaybookLinks.tsx';
import '../styles/playbooks.css';

export function PlaybookDetail() {
  const { ws, pb } = useParams<{ ws: string; pb: string }>();
  const queryClient = useQueryClient();
  const playbook = useQuery({ queryKey: ['playbook', ws, pb], queryFn: () => clientFor(ws).playbooks.get(pb) });
  const [message, setMessage] = useState<string | null>(null);
  const done = (text: string) => {
    setMessage(text);
    void queryClient.invalidateQueries({ queryKey: ['playbook', ws, pb] });
    void queryClient.invalidateQueries({ queryKey: ['playbooks', ws] });
    // Forgotten, not only marked stale: a version page opened next must not show the status it had before.
    queryClient.removeQueries({ queryKey: ['playbook-version', ws, pb] });
  };
  const approve = useMutation({
    mutationFn: (v: { id: string; n: number; deprecated?: number }) => clientFor(ws).versions.approve(pb, v.id),
    onSuccess: (_r, v) => done(`Version ${v.n} approved.${v.deprecated ? ` Version ${v.deprecated} is deprecated.` : ''}`),
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
  const active = p.versions.find((v) => v.id === p.activeVersion?.id);
  const busy = approve.isPending || rollback.isPending || archive.isPending;
  return (
    <>
      <PageTitle text={p.title} />
      <p className="muted pb-meta">
        {p.slug} · {p.functionArea ?? 'no function area'} · {p.visibility} · updated {when(p.updatedAt)}
        {p.archivedAt && <strong> · archived {when(p.archivedAt)}</strong>}
      </p>
      {p.tags.length > 0 && (
        <ul className="tag-list" aria-label="Tags">
          {p.tags.map((t) => <li key={t}><span className="tag">#{t}</span></li>)}
        </ul>
      )}
      {p.summary && <p>{p.summary}</p>}
      <div className="actions">
        {!p.archivedAt && <Link href={`/playbooks/${p.id}/versions/new`} className="button">Write a new version</Link>}
        <Link href={`/graph?playbook=${p.id}`} className="button">Graph and bundle preview</Link>
        {p.archivedAt ? (
          <button type="button" onClick={() => archive.mutate(true)} disabled={archive.isPending}>Restore playbook</button>
        ) : (
          <ConfirmButton
            label="Archive playbook"
            question={<>Archive {p.title}? It leaves every list and cannot be changed or retrieved in bundles until it is restored; its versions and slug are kept.</>}
            confirmLabel="Archive playbook"
            danger
            pending={archive.isPending}
            onConfirm={() => { setMessage(null); archive.mutate(false); }}
          />
        )}
      </div>
      {p.archivedAt && <p className="notice">Archived: restore it to write, approve or roll back versions.</p>}
      <p role="status" aria-live="polite" className="status-line">{message}</p>
      <ErrorNote error={approve.error ?? rollback.error ?? archive.error} />

      <h2>Versions</h2>
      <table className="list pb-versions" aria-label="Versions">
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
              <th scope="row" data-label="Version"><span>v{v.versionNumber}{p.activeVersion?.id === v.id && <span className="badge approved"> active</span>}</span></th>
              <td data-label="Status"><span className={`badge ${v.status}`}>{v.status}</span></td>
              <td data-label="Change note">{v.changeNote ?? '—'}</td>
              <td data-label="Created">{when(v.createdAt)}</td>
              <td data-label="Actions"><div className="row-actions">
                <Link href={`/playbooks/${p.id}/versions/${v.id}`}>Read<span className="visually-hidden"> v{v.versionNumber}</span></Link>
                {v.status === 'draft' && !p.archivedAt && (active ? (
                  // Approving deprecates the active version: that asks first.
                  <ConfirmButton
                    label={`Approve v${v.versionNumber}`}
                    question={<>Approve v{v.versionNumber}? It becomes the active version, and v{active.versionNumber}, active now, becomes deprecated.</>}
                    confirmLabel={`Approve v${v.versionNumber}`}
                    pending={busy}
                    onConfirm={() => { setMessage(null); approve.mutate({ id: v.id, n: v.versionNumber, deprecated: active.versionNumber }); }}
                  />
                ) : (
                  <button type="button" onClick={() => { setMessage(null); approve.mutate({ id: v.id, n: v.versionNumber }); }} disabled={busy}>
                    Approve v{v.versionNumber}
                  </button>
                ))}
                {v.versionNumber < latest && !p.archivedAt && (
                  <ConfirmButton
                    label={`Roll back to v${v.versionNumber}`}
                    question={<>Roll back to v{v.versionNumber}? A new draft, v{latest + 1}, gets its content{active ? <>; v{active.versionNumber} stays active until the draft is approved</> : null}.</>}
                    confirmLabel={`Roll back to v${v.versionNumber}`}
                    pending={busy}
                    onConfirm={() => { setMessage(null); rollback.mutate({ id: v.id, n: v.versionNumber }); }}
                  />
                )}
              </div></td>
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

      <PlaybookLinks ws={ws} playbook={p} />
    </>
  );
}
