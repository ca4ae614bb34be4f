import { useEffect, useRef, type ReactNode } from 'react';
import { messageOf } from './api.ts';

// The first page of a load keeps the browser's own focus start (so Tab reaches the skip link first).
let firstTitle = true;

/** Page title (h1, focused on in-app navigation so screen readers announce the new page) and document title. */
export function PageTitle({ children, text }: { children?: ReactNode; text: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${text} · Playbooks console`;
    if (firstTitle) firstTitle = false;
    else ref.current?.focus({ preventScroll: true });
  }, [text]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children ?? text}
    </h1>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {messageOf(error)}
    </p>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p role="status" className="muted">
      {what}…
    </p>
  );
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

export function Pager({ page, limit, total, onPage }: { page: number; limit: number; total: number; onPage: (p: number) => void }) {
  const pages = Math.max(1, Math.ceil(total / limit));
  return (
    <nav aria-label="Pages" className="pager">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {pages} ({total} in all)
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
