import { type Feedback, type FeedbackType, type TargetType, feedbackTypes, targetTypes } from '@sdk';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { clientFor } from '../api.ts';
import { ErrorNote, Loading, PageTitle, Pager, when } from '../ui.tsx';

function targetHref(type: TargetType, id: string): string | null {
  if (type === 'context_node') return `/nodes/${id}`;
  if (type === 'playbook') return `/playbooks/${id}`;
  return null;
}

function Item({ ws, item }: { ws: string; item: Feedback }) {
  const queryClient = useQueryClient();
  const [note, setNote] = useState('');
  const triage = useMutation({
    mutationFn: (status: 'resolved' | 'dismissed') => clientFor(ws).feedback.triage(item.id, { status, ...(note.trim() ? { resolutionNote: note.trim() } : {}) }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['feedback', ws] }),
  });
  const href = targetHref(item.targetType, item.targetId);
  const noteId = `note-${item.id}`;
  return (
    <li className="card" data-feedback-id={item.id}>
      <p>
        <span className="badge">{item.feedbackType}</span> on {item.targetType.replace('_', ' ')}{' '}
        {href ? <Link href={href}>{item.targetId}</Link> : <code>{item.targetId}</code>}
        <span className="muted small"> · from an {item.authorKind} · {when(item.createdAt)}</span>
      </p>
      <p>{item.summary}</p>
      <div className="inline">
        <label htmlFor={noteId}>Note</label>
        <input id={noteId} value={note} onChange={(e) => setNote(e.target.value)} />
        <button type="button" onClick={() => triage.mutate('resolved')} disabled={triage.isPending}>Resolve</button>
        <button type="button" onClick={() => triage.mutate('dismissed')} disabled={triage.isPending}>Dismiss</button>
      </div>
      <ErrorNote error={triage.error} />
    </li>
  );
}

export function Feedback() {
  const { ws } = useParams<{ ws: string }>();
  const [feedbackType, setFeedbackType] = useState<FeedbackType | ''>('');
  const [targetType, setTargetType] = useState<TargetType | ''>('');
  const [page, setPage] = useState(1);
  const limit = 20;
  const query = { status: 'open' as const, ...(feedbackType ? { feedbackType } : {}), ...(targetType ? { targetType } : {}), page, limit };
  const list = useQuery({ queryKey: ['feedback', ws, query], queryFn: () => clientFor(ws).feedback.page(query), placeholderData: keepPreviousData });
  return (
    <>
      <PageTitle text="Feedback to review" />
      <form className="filters" aria-label="Filter feedback" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label htmlFor="fb-type">Type</label>
          <select id="fb-type" value={feedbackType} onChange={(e) => { setFeedbackType(e.target.value as FeedbackType | ''); setPage(1); }}>
            <option value="">any type</option>
            {feedbackTypes.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </div>
        <div>
          <label htmlFor="fb-target">Target</label>
          <select id="fb-target" value={targetType} onChange={(e) => { setTargetType(e.target.value as TargetType | ''); setPage(1); }}>
            <option value="">any target</option>
            {targetTypes.map((t) => <option key={t} value={t}>{t.replace('_', ' ')}</option>)}
          </select>
        </div>
      </form>
      {list.isPending && <Loading what="Loading feedback" />}
      <ErrorNote error={list.error} />
      {list.data && (
        <>
          {list.data.feedback.length === 0 ? <p>No open feedback.</p> : (
            <ul className="cards" aria-label="Open feedback">
              {list.data.feedback.map((f) => <Item key={f.id} ws={ws} item={f} />)}
            </ul>
          )}
          <Pager page={page} limit={limit} total={list.data.pagination.total} onPage={setPage} />
        </>
      )}
    </>
  );
}
