import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import { clientFor } from '../api.ts';
import { ErrorNote, Loading, PageTitle } from '../ui.tsx';
import { MarkdownEditor, MarkdownPreview, type VersionContent } from './PlaybookMarkdown.tsx';
import '../styles/playbooks.css';

/** The content split for editing: `instructions` in the markdown editor, every other entry as JSON beside it. */
function split(content: VersionContent): { instructions: string; others: string } {
  const { instructions, ...rest } = content;
  const text = typeof instructions === 'string' ? instructions : '';
  const others = typeof instructions === 'string' || instructions === undefined ? rest : content;
  return { instructions: text, others: Object.keys(others).length ? JSON.stringify(others, null, 2) : '' };
}

/** The content to send, or why it cannot be sent. */
function join(instructions: string, others: string): VersionContent | string {
  let rest: unknown = {};
  if (others.trim()) {
    try {
      rest = JSON.parse(others);
    } catch (err) {
      return `Other entries are not JSON: ${(err as Error).message}`;
    }
  }
  if (typeof rest !== 'object' || rest === null || Array.isArray(rest)) return 'Other entries must be a JSON object, e.g. {"checklist": ["…"]}.';
  if ('instructions' in rest && instructions !== '') return 'Write the instructions in the editor only, not among the other entries.';
  return instructions === '' ? (rest as VersionContent) : { instructions, ...(rest as VersionContent) };
}

/** A new draft version: written from the latest version's content (or the one named by ?from=), with a change note. */
export default function PlaybookVersionEditor() {
  const { ws, pb } = useParams<{ ws: string; pb: string }>();
  const from = new URLSearchParams(useSearch()).get('from');
  const playbook = useQuery({ queryKey: ['playbook', ws, pb], queryFn: () => clientFor(ws).playbooks.get(pb) });
  if (playbook.isPending) return <Loading what="Loading the playbook" />;
  if (playbook.error) return <ErrorNote error={playbook.error} />;
  const p = playbook.data;
  const base = p.versions.find((v) => v.id === from) ?? p.versions[0];
  return <VersionForm key={base?.id ?? 'none'} ws={ws} pb={pb} title={p.title} archived={Boolean(p.archivedAt)} base={base} />;
}

function VersionForm({ ws, pb, title, archived, base }: { ws: string; pb: string; title: string; archived: boolean; base?: { id: string; versionNumber: number; content: VersionContent } }) {
  const initial = split(base?.content ?? {});
  const [instructions, setInstructions] = useState(initial.instructions);
  const [others, setOthers] = useState(initial.others);
  const [changeNote, setChangeNote] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (content: VersionContent) => clientFor(ws).versions.create(pb, { content, ...(changeNote.trim() ? { changeNote: changeNote.trim() } : {}) }),
    onSuccess: (v) => {
      void queryClient.invalidateQueries({ queryKey: ['playbook', ws, pb] });
      void queryClient.invalidateQueries({ queryKey: ['playbooks', ws] });
      navigate(`/playbooks/${pb}/versions/${v.id}`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const content = join(instructions, others);
    setProblem(typeof content === 'string' ? content : null);
    if (typeof content !== 'string') save.mutate(content);
  };
  return (
    <>
      <PageTitle text={`New version of ${title}`} />
      <p>
        <Link href={`/playbooks/${pb}`}>Back to the playbook</Link>
        {base && <span className="muted"> · starts from the content of version {base.versionNumber}</span>}
      </p>
      {archived && <p role="alert" className="notice">This playbook is archived: restore it before writing a version.</p>}
      <form onSubmit={submit} aria-label="New version" className="pb-version-form">
        <div className="split">
          <div>
            <span className="label" id="pb-instructions-label">Instructions</span>
            <MarkdownEditor initial={initial.instructions} label="Instructions (markdown)" describedBy="pb-instructions-help" onChange={setInstructions} />
            <span id="pb-instructions-help" className="muted small">Markdown: what an agent running this playbook should do.</span>
          </div>
          <div>
            <span className="label">Preview</span>
            <MarkdownPreview ws={ws} text={instructions} />
          </div>
        </div>
        <label htmlFor="pb-others">Other entries (JSON object, optional)</label>
        <textarea id="pb-others" rows={4} value={others} onChange={(e) => setOthers(e.target.value)} aria-describedby="pb-others-help" className="pb-wide" />
        <span id="pb-others-help" className="muted small">Kept as they are in the version’s content beside the instructions.</span>
        <label htmlFor="pb-change-note">Change note</label>
        <input id="pb-change-note" value={changeNote} maxLength={2000} onChange={(e) => setChangeNote(e.target.value)} className="pb-wide" placeholder="What changed and why" />
        <div className="actions">
          <button type="submit" disabled={save.isPending || archived}>Save as a draft</button>
        </div>
        {problem && <p role="alert" className="error">{problem}</p>}
        <ErrorNote error={save.error} />
      </form>
    </>
  );
}
