import { useEffect, useRef, useState, type ReactNode } from 'react';
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

/** The warning sign of a dangerous button: a shape, so the danger does not rest on colour alone. */
function DangerSign() {
  return (
    <svg className="danger-sign" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
      <path d="M8 1.5 15 14.5H1z" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinejoin="round" />
      <path d="M8 6v4.2M8 11.8v1" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
    </svg>
  );
}

/**
 * A button for what cannot be undone or takes access away: it asks first, inline. The question replaces the
 * button and takes focus; Cancel gives focus back to the button. `confirmLabel` names the action again so the
 * second click is a decision, not a double click. `danger` (revoking, deactivating, archiving, removing) shows
 * the danger before the question: outlined in red with a warning sign, where Create is solid blue, and the
 * confirming button solid red.
 */
export function ConfirmButton({ label, question, confirmLabel, onConfirm, pending = false, disabled = false, ariaLabel, className, danger = false }: {
  label: string;
  question: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  pending?: boolean;
  disabled?: boolean;
  /** The button's accessible name when its text alone is ambiguous in a list ("Revoke key ci-1"). */
  ariaLabel?: string;
  className?: string;
  danger?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  useEffect(() => {
    if (wasAsking.current && !asking) button.current?.focus();
    wasAsking.current = asking;
  }, [asking]);
  if (!asking) {
    return (
      <button
        type="button"
        ref={button}
        className={[className, danger && 'danger'].filter(Boolean).join(' ') || undefined}
        disabled={disabled || pending}
        aria-label={ariaLabel}
        onClick={() => setAsking(true)}
      >
        {danger && <DangerSign />}
        {label}
      </button>
    );
  }
  return (
    <span className="inline confirm" role="group" aria-label={`Confirm: ${ariaLabel ?? label}`}>
      <span>{question}</span>
      <button type="button" className={danger ? 'danger-confirm' : undefined} autoFocus disabled={pending} onClick={() => { setAsking(false); onConfirm(); }}>
        {danger && <DangerSign />}
        {confirmLabel}
      </button>
      <button type="button" className="secondary" disabled={pending} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
