import { type Role, roles } from '@sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { clientFor, messageOf } from '../api.ts';
import { listKeys, rotateAgentKey } from '../calls.ts';
import { ErrorNote, Loading, PageTitle, when } from '../ui.tsx';
import { ConnectedApps } from './ConnectedApps.tsx';

const maxGraceSeconds = 7 * 24 * 3600;
const units = { seconds: 1, minutes: 60, hours: 3600, days: 86400 } as const;
type Unit = keyof typeof units;

/** A key shown once, with a copy button; it is never kept anywhere else. */
function NewKey({ value, label, onDone }: { value: string; label: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied.');
    } catch {
      setCopied('Copying was refused: select the key and copy it.');
    }
  };
  return (
    <div className="new-key" role="region" aria-label={label}>
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

function AgentKeys({ ws, agentId, agentName }: { ws: string; agentId: string; agentName: string }) {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ['keys', ws, agentId], queryFn: () => listKeys(ws, agentId) });
  const [shown, setShown] = useState<{ value: string; label: string } | null>(null);
  const [label, setLabel] = useState('');
  const [grace, setGrace] = useState('1');
  const [unit, setUnit] = useState<Unit>('hours');
  const [note, setNote] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['keys', ws, agentId] });
  const create = useMutation({
    mutationFn: () => clientFor(ws).keys.create(agentId, label.trim() ? { label: label.trim() } : {}),
    onSuccess: (k) => { setShown({ value: k.key, label: `New key ${k.prefix}` }); setLabel(''); void refresh(); },
  });
  const revoke = useMutation({
    mutationFn: (keyId: string) => clientFor(ws).keys.revoke(agentId, keyId),
    onSuccess: () => { setNote('Key revoked.'); void refresh(); },
  });
  const graceSeconds = Math.round(Number(grace) * units[unit]);
  const graceValid = Number.isFinite(graceSeconds) && graceSeconds >= 0 && graceSeconds <= maxGraceSeconds;
  const rotate = useMutation({
    mutationFn: (keyId: string) => rotateAgentKey(ws, agentId, keyId, { graceSeconds }),
    onSuccess: (r) => {
      setShown({ value: r.key.key, label: `New key ${r.key.prefix} (replaces ${r.previousKey.prefix})` });
      setNote(`The previous key ${r.previousKey.prefix} stays valid until ${when(r.previousKey.expiresAt)}.`);
      void refresh();
    },
  });
  const submit = (e: FormEvent) => { e.preventDefault(); create.mutate(); };
  const graceId = `grace-${agentId}`;
  return (
    <div className="keys" data-agent-id={agentId}>
      {shown && <NewKey value={shown.value} label={shown.label} onDone={() => setShown(null)} />}
      <p role="status" className="status-line">{note}</p>
      <ErrorNote error={create.error ?? revoke.error ?? rotate.error} />
      {keys.isPending && <Loading what="Loading keys" />}
      <ErrorNote error={keys.error} />
      {keys.data && (
        <table className="list" aria-label={`Keys of ${agentName}`}>
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
              <tr key={k.id} data-key-id={k.id}>
                <th scope="row"><code>{k.prefix}…</code></th>
                <td>{k.label ?? '—'}</td>
                <td>{when(k.createdAt)}</td>
                <td>{when(k.lastUsedAt)}</td>
                <td data-expires-at={k.expiresAt ?? ''}>{k.expiresAt ? when(k.expiresAt) : 'never'}</td>
                <td className="row-actions">
                  <button type="button" disabled={!graceValid || rotate.isPending} onClick={() => rotate.mutate(k.id)} aria-label={`Rotate key ${k.prefix}`}>Rotate</button>
                  <button type="button" disabled={revoke.isPending} onClick={() => revoke.mutate(k.id)} aria-label={`Revoke key ${k.prefix}`}>Revoke</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {keys.data?.length === 0 && <p>No active key.</p>}
      <div className="inline">
        <label htmlFor={graceId}>Rotation grace</label>
        <input id={graceId} type="number" min={0} step="any" value={grace} onChange={(e) => setGrace(e.target.value)} aria-describedby={`${graceId}-help`} aria-invalid={graceValid ? undefined : true} />
        <label htmlFor={`${graceId}-unit`} className="visually-hidden">Grace unit</label>
        <select id={`${graceId}-unit`} value={unit} onChange={(e) => setUnit(e.target.value as Unit)}>
          {Object.keys(units).map((u) => <option key={u} value={u}>{u}</option>)}
        </select>
        <span id={`${graceId}-help`} className="muted small">{graceValid ? 'How long the old key keeps working after a rotation (at most 7 days).' : 'The grace is at most 7 days.'}</span>
      </div>
      <form onSubmit={submit} className="inline">
        <label htmlFor={`label-${agentId}`}>New key label</label>
        <input id={`label-${agentId}`} value={label} onChange={(e) => setLabel(e.target.value)} />
        <button type="submit" disabled={create.isPending}>Create key</button>
      </form>
    </div>
  );
}

export function Agents() {
  const { ws } = useParams<{ ws: string }>();
  const queryClient = useQueryClient();
  const agents = useQuery({ queryKey: ['agents', ws], queryFn: () => clientFor(ws).agents.list() });
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [open, setOpen] = useState<string | null>(null);
  const register = useMutation({
    mutationFn: () => clientFor(ws).agents.register({ name: name.trim(), role }),
    onSuccess: (a) => { setName(''); setOpen(a.id); void queryClient.invalidateQueries({ queryKey: ['agents', ws] }); },
  });
  return (
    <>
      <PageTitle text="Agents and keys" />
      <form className="inline" onSubmit={(e) => { e.preventDefault(); if (name.trim()) register.mutate(); }}>
        <label htmlFor="agent-name">New agent name</label>
        <input id="agent-name" value={name} onChange={(e) => setName(e.target.value)} required />
        <label htmlFor="agent-role">Role</label>
        <select id="agent-role" value={role} onChange={(e) => setRole(e.target.value as typeof role)}>
          {roles.map((r) => <option key={r} value={r}>{r}</option>)}
        </select>
        <button type="submit" disabled={register.isPending}>Create agent</button>
      </form>
      {register.error && <p role="alert" className="error">{messageOf(register.error)}</p>}
      {agents.isPending && <Loading what="Loading agents" />}
      <ErrorNote error={agents.error} />
      {agents.data?.length === 0 && <p>No agent yet.</p>}
      <ul className="cards">
        {agents.data?.map((a) => {
          const expanded = open === a.id;
          return (
            <li key={a.id} className="card" data-agent-id={a.id}>
              <h2 className="card-title">
                <button type="button" aria-expanded={expanded} aria-controls={`agent-${a.id}`} onClick={() => setOpen(expanded ? null : a.id)} className="disclosure">
                  {a.name}
                </button>
              </h2>
              <p className="muted small">{a.role} · {a.status} · created {when(a.createdAt)}</p>
              <div id={`agent-${a.id}`} hidden={!expanded}>
                {expanded && <AgentKeys ws={ws} agentId={a.id} agentName={a.name} />}
                {expanded && <ConnectedApps ws={ws} agentId={a.id} agentName={a.name} />}
              </div>
            </li>
          );
        })}
      </ul>
    </>
  );
}
