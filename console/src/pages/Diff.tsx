import { useQuery } from '@tanstack/react-query';
import { diffLines } from 'diff';
import { Link, useParams, useSearch } from 'wouter';
import { clientFor } from '../api.ts';
import { ErrorNote, Loading, PageTitle } from '../ui.tsx';

/** A version's content as text: each top-level entry under its name, strings as they are, the rest as JSON. */
function asText(content: Record<string, unknown>): string {
  return Object.entries(content)
    .map(([k, v]) => `# ${k}\n${typeof v === 'string' ? v : JSON.stringify(v, null, 2)}\n`)
    .join('\n');
}

interface Row {
  left: string | null;
  right: string | null;
  kind: 'same' | 'changed' | 'removed' | 'added';
}

/** Lines side by side: a removal followed by an addition is one changed block, row against row. */
function sideBySide(a: string, b: string): Row[] {
  const rows: Row[] = [];
  const parts = diffLines(a, b);
  const lines = (v: string) => v.replace(/\n$/, '').split('\n');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (!part.added && !part.removed) {
      for (const l of lines(part.value)) rows.push({ left: l, right: l, kind: 'same' });
    } else if (part.removed && parts[i + 1]?.added) {
      const left = lines(part.value);
      const right = lines(parts[i + 1].value);
      for (let j = 0; j < Math.max(left.length, right.length); j++) {
        rows.push({ left: left[j] ?? null, right: right[j] ?? null, kind: 'changed' });
      }
      i++;
    } else if (part.removed) {
      for (const l of lines(part.value)) rows.push({ left: l, right: null, kind: 'removed' });
    } else {
      for (const l of lines(part.value)) rows.push({ left: null, right: l, kind: 'added' });
    }
  }
  return rows;
}

export default function DiffPage() {
  const { ws, pb } = useParams<{ ws: string; pb: string }>();
  const params = new URLSearchParams(useSearch());
  const a = params.get('a') ?? '';
  const b = params.get('b') ?? '';
  const playbook = useQuery({ queryKey: ['playbook', ws, pb], queryFn: () => clientFor(ws).playbooks.get(pb) });
  if (playbook.isPending) return <Loading what="Loading versions" />;
  if (playbook.error) return <ErrorNote error={playbook.error} />;
  const va = playbook.data.versions.find((v) => v.id === a);
  const vb = playbook.data.versions.find((v) => v.id === b);
  if (!va || !vb) return <p role="alert">Choose two versions of this playbook to compare.</p>;
  const rows = sideBySide(asText(va.content), asText(vb.content));
  const changes = rows.filter((r) => r.kind !== 'same').length;
  return (
    <>
      <PageTitle text={`${playbook.data.title}: v${va.versionNumber} against v${vb.versionNumber}`} />
      <p>
        <Link href={`/playbooks/${pb}`}>Back to the playbook</Link> · <span data-testid="diff-summary">{changes === 0 ? 'No difference.' : `${changes} changed line${changes === 1 ? '' : 's'}.`}</span>
      </p>
      <div className="diff-scroll">
        <table className="diff" aria-label={`Differences between version ${va.versionNumber} and version ${vb.versionNumber}`}>
          <thead>
            <tr>
              <th scope="col">v{va.versionNumber} ({va.status})</th>
              <th scope="col">v{vb.versionNumber} ({vb.status})</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i} className={r.kind}>
                <td className={r.left === null ? 'empty' : r.kind === 'same' ? '' : 'del'}>
                  {r.left !== null && r.kind !== 'same' && <span className="visually-hidden">removed: </span>}
                  {r.left}
                </td>
                <td className={r.right === null ? 'empty' : r.kind === 'same' ? '' : 'ins'}>
                  {r.right !== null && r.kind !== 'same' && <span className="visually-hidden">added: </span>}
                  {r.right}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
