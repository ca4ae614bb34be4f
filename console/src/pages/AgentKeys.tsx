import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { clientFor } from '../api.ts';
import { listKeys, rotateAgentKey } from '../calls.ts';
import { ConfirmButton, ErrorNote, Loading, when } from '../ui.tsx';

const maxGraceSeconds = 7 * 24 * 3600;
const units = { seconds: 1, minutes: 60, hours: 3600, days: 86400 } as const;
type Unit = keyof typeof units;
type Key = Awaited<ReturnType<typeof listKeys>>[number];

/** "1 hour", "2 hours", "0.5 days": the grace as the person typed it. */
const spoken = (amount: number, unit: Unit) => `${amount.toLocaleString()} ${amount === 1 ? unit.slice(0, -1) : unit}`;

/** A key shown once, with a copy button; it is never kept anywhere else. It takes focus: the button that made it may be gone. */
function NewKey({ value, label, onDone }: { value: string; label: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const region = useRef<HTMLDivElement>(null);
  useEffect(() => region.current?.focus(), [value]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied.');
    } catch {
      setCopied('Copying was refused: select the key and copy it.');
    }
  };
  return (
    <div className="new-key" role="region" aria-label={label} ref={region} tabIndex={-1}>
      <p><strong>{label}.</strong> It is shown only this once.</p>
      <output className="key-value" data-testid="new-key">{value}</output>
      <div className="inline">
        <button type="button" onClick={copy}>Copy key</button>
        <button type="button" onClick={onDone}>Done, hide it</button>
        <span role="status">{copied}</span>
      </div>
    </div>
  );
}

/** One key's row. A key a rotation is replacing (it has an end) cannot be rotated again: only revoked. */
function KeyRow({ k, graceText, graceValid, busy, onRotate, onRevoke }: {
  k: Key; graceText: string; graceValid: boolean; busy: boolean; onRotate: () => void; onRevoke: () => void;
}) {
  const replaced = k.expiresAt !== null;
  return (
    <tr data-key-id={k.id} data-replaced={replaced || undefined}>
      <th scope="row" data-label="Key"><code>{k.prefix}…</code></th>
      <td data-label="Label">{k.label ?? <span className="muted">none</span>}</td>
      <td data-label="Created">{when(k.createdAt)}</td>
      <td data-label="Last used">{when(k.lastUsedAt)}</td>
      <td data-label="Expires" data-expires-at={k.expiresAt ?? ''}>
        {replaced ? (
          <span className="key-replaced">Being replaced by a newer key: works until <time dateTime={k.expiresAt!}>{when(k.expiresAt)}</time></span>
        ) : 'never'}
      </td>
      <td data-label="Actions">
        <div className="row-actions">
          {!replaced && (
            <ConfirmButton
              label="Rotate"
              ariaLabel={`Rotate key ${k.prefix}`}
              question={<>Rotate key <code>{k.prefix}…</code>? A new key takes its place{k.label ? ` (labelled ${k.label})` : ''}; this one {graceText}.</>}
              confirmLabel="Rotate key"
              disabled={!graceValid}
              pending={busy}
              onConfirm={onRotate}
            />
          )}
          <ConfirmButton
            label="Revoke"
            ariaLabel={`Revoke key ${k.prefix}`}
            question={<>Revoke key <code>{k.prefix}…</code>? It stops working at once, for good.</>}
            confirmLabel="Revoke key"
            danger
            pending={busy}
            onConfirm={onRevoke}
          />
        </div>
      </td>
    </tr>
  );
}

/** An agent's keys: create (shown once), rotate with a grace, revoke; rotating and revoking ask first. */
export function AgentKeys({ ws, agentId, agentName, active }: { ws: string; agentId: string; agentName: string; active: boolean }) {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ['keys', ws, agentId], queryFn: () => listKeys(ws, agentId) });
  const [shown, setShown] = useState<{ value: string; label: string } | null>(null);
  const [label, setLabel] = useState('');
  const [grace, setGrace] = useState('1');
  const [unit, setUnit] = useState<Unit>('hours');
  const [note, setNote] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['keys', ws, agentId] });
  const create = useMutation({
    mutationFn: () => clientFor(ws).keys.create(agentId, label.trim() ? { label: label.trim() } : {}),
    onSuccess: (k) => { setShown({ value: k.key, label: `New key ${k.prefix}` }); setLabel(''); void refresh(); },
  });
  const revoke = useMutation({
    mutationFn: (keyId: string) => clientFor(ws).keys.revoke(agentId, keyId),
    onSuccess: () => {
      setNote('Key revoked.');
      // The row whose button had focus is gone.
      heading.current?.focus();
      void refresh();
    },
  });
  const graceSeconds = Math.round(Number(grace) * units[unit]);
  const graceValid = grace.trim() !== '' && Number.isFinite(graceSeconds) && graceSeconds >= 0 && graceSeconds <= maxGraceSeconds;
  const graceText = graceSeconds === 0 ? 'stops working at once' : `keeps working for ${spoken(Number(grace), unit)}`;
  const rotate = useMutation({
    // No label: the new key keeps the old one's.
    mutationFn: (keyId: string) => rotateAgentKey(ws, agentId, keyId, { graceSeconds }),
    onSuccess: (r) => {
      setShown({ value: r.key.key, label: `New key ${r.key.prefix} (replaces ${r.previousKey.prefix})` });
      setNote(`The previous key ${r.previousKey.prefix} stays valid until ${when(r.previousKey.expiresAt)}.`);
      void refresh();
    },
  });
  const submit = (e: FormEvent) => { e.preventDefault(); create.mutate(); };
  const graceId = `grace-${agentId}`;
  const rotatable = keys.data?.some((k) => k.expiresAt === null) ?? false;
  const busy = rotate.isPending || revoke.isPending;
  const act = (m: typeof rotate | typeof revoke, keyId: string) => { create.reset(); rotate.reset(); revoke.reset(); setNote(null); m.mutate(keyId); };
  return (
    <section className="agent-keys" data-agent-id={agentId} aria-labelledby={`keys-${agentId}`}>
      <h3 ref={heading} tabIndex={-1} id={`keys-${agentId}`}>Keys</h3>
      {shown && <NewKey value={shown.value} label={shown.label} onDone={() => { setShown(null); heading.current?.focus(); }} />}
      <p role="status" className="status-line">{note}</p>
      <ErrorNote error={create.error ?? revoke.error ?? rotate.error} />
      {keys.isPending && <Loading what="Loading keys" />}
      <ErrorNote error={keys.error} />
      {keys.data && (
        <table className="list key-table" aria-label={`Keys of ${agentName}`}>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Label</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.map((k) => (
              <KeyRow key={k.id} k={k} graceText={graceText} graceValid={graceValid} busy={busy} onRotate={() => act(rotate, k.id)} onRevoke={() => act(revoke, k.id)} />
            ))}
          </tbody>
        </table>
      )}
      {keys.data?.length === 0 && <p>{active ? 'No active key.' : 'No key: the agent is deactivated, and its keys were revoked.'}</p>}
      {rotatable && (
        <div className="inline">
          <label htmlFor={graceId}>Rotation grace</label>
          <input id={graceId} className="grace" type="number" min={0} step="any" value={grace} onChange={(e) => setGrace(e.target.value)} aria-describedby={`${graceId}-help`} aria-invalid={graceValid ? undefined : true} />
          <label htmlFor={`${graceId}-unit`} className="visually-hidden">Grace unit</label>
          <select id={`${graceId}-unit`} value={unit} onChange={(e) => setUnit(e.target.value as Unit)}>
            {Object.keys(units).map((u) => <option key={u} value={u}>{u}</option>)}
          </select>
          <span id={`${graceId}-help`} className="muted small">{graceValid ? 'How long the old key keeps working after a rotation (at most 7 days); the new key keeps its label.' : 'The grace is a number from 0 up to 7 days.'}</span>
        </div>
      )}
      {active && (
        <form onSubmit={submit} className="inline">
          <label htmlFor={`label-${agentId}`}>New key label</label>
          <input id={`label-${agentId}`} value={label} maxLength={100} onChange={(e) => setLabel(e.target.value)} />
          <button type="submit" disabled={create.isPending}>Create key</button>
        </form>
      )}
    </section>
  );
}
