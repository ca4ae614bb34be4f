import { type Feedback, type FeedbackType, type TargetType, feedbackTypes, targetTypes } from '@sdk';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { clientFor } from '../api.ts';
import { usePrincipalNames } from '../principals.ts';
import { ErrorNote, Loading, PageTitle, Pager, when } from '../ui.tsx';
import '../styles/agents.css';

/** Where the target's page is: a version's is under its playbook. */
function targetHref(item: Feedback): string {
  if (item.targetType === 'context_node') return `/nodes/${item.targetId}`;
  if (item.targetType === 'playbook') return `/playbooks/${item.targetId}`;
  return `/playbooks/${item.target.playbookId}/versions/${item.targetId}`;
}

/** The target by title, linked; its kind and id small beside it for whoever searches by id. */
function Target({ item }: { item: Feedback }) {
  const { title, versionNumber } = item.target;
  return (
    <>
      <Link href={targetHref(item)} className="target-title">{versionNumber === null ? title : `${title}, version ${versionNumber}`}</Link>
      <span className="muted small"> ({item.targetType.replace('_', ' ')} <code className="secondary-id">{item.targetId}</code>)</span>
    </>
  );
}

function Item({ ws, item, author }: { ws: string; item: Feedback; author: string }) {
  const queryClient = useQueryClient();
  const [note, setNote] = useState('');
  const triage = useMutation({
    mutationFn: (status: 'resolved' | 'dismissed') => clientFor(ws).feedback.triage(item.id, { status, ...(note.trim() ? { resolutionNote: note.trim() } : {}) }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['feedback', ws] }),
  });
  const noteId = `note-${item.id}`;
  return (
    <li className="card feedback-item" data-feedback-id={item.id}>
      <p>
        <span className="badge">{item.feedbackType}</span> on <Target item={item} />
      </p>
      <p className="muted small">from {author} · {when(item.createdAt)}</p>
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
  const nameOf = usePrincipalNames(ws);
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
              {list.data.feedback.map((f) => <Item key={f.id} ws={ws} item={f} author={nameOf(f.authorId, f.authorKind)} />)}
            </ul>
          )}
          <Pager page={page} limit={limit} total={list.data.pagination.total} onPage={setPage} />
        </>
      )}
    </>
  );
}
