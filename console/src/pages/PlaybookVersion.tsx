import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { clientFor } from '../api.ts';
import { usePrincipalNames } from '../principals.ts';
import { ErrorNote, Loading, PageTitle, when } from '../ui.tsx';
import { ContentView, RawContent } from './PlaybookMarkdown.tsx';
import '../styles/playbooks.css';

/** One version of a playbook: its facts, its content as a preview, and the raw JSON. */
export default function PlaybookVersionPage() {
  const { ws, pb, v } = useParams<{ ws: string; pb: string; v: string }>();
  const playbook = useQuery({ queryKey: ['playbook', ws, pb], queryFn: () => clientFor(ws).playbooks.get(pb) });
  const version = useQuery({ queryKey: ['playbook-version', ws, pb, v], queryFn: () => clientFor(ws).versions.get(pb, v) });
  const nameOf = usePrincipalNames(ws);
  if (playbook.isPending || version.isPending) return <Loading what="Loading the version" />;
  if (playbook.error || version.error) return <ErrorNote error={playbook.error ?? version.error} />;
  const p = playbook.data;
  const ver = version.data;
  const active = p.activeVersion?.id === ver.id;
  return (
    <>
      <PageTitle text={`${p.title}: version ${ver.versionNumber}`} />
      <p>
        <Link href={`/playbooks/${pb}`}>Back to the playbook</Link>
        {!p.archivedAt && <> · <Link href={`/playbooks/${pb}/versions/new?from=${ver.id}`}>Write a new version from this one</Link></>}
      </p>
      <dl className="facts" data-testid="version-facts">
        <dt>Status</dt>
        <dd><span className={`badge ${ver.status}`} data-testid="version-status">{ver.status}</span>{active && ' (the active version)'}</dd>
        <dt>Change note</dt>
        <dd>{ver.changeNote ?? '—'}</dd>
        <dt>Created</dt>
        <dd>{when(ver.createdAt)} by <span data-testid="version-author">{nameOf(ver.createdBy)}</span></dd>
        <dt>Approved</dt>
        <dd>{when(ver.approvedAt)}</dd>
      </dl>
      {ver.status === 'draft' && <p className="muted">A draft: approve it on <Link href={`/playbooks/${pb}`}>the playbook’s page</Link> to make it the active version.</p>}
      <h2>Content</h2>
      <ContentView ws={ws} content={ver.content} />
      <RawContent content={ver.content} />
    </>
  );
}
