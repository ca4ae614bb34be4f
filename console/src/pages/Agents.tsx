import { type Agent, type Role, roles } from '@sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useParams, useSearchParams } from 'wouter';
import { clientFor, messageOf } from '../api.ts';
import { ConfirmButton, ErrorNote, Loading, PageTitle, when } from '../ui.tsx';
import { AgentKeys } from './AgentKeys.tsx';
import { ConnectedApps } from './ConnectedApps.tsx';
import '../styles/agents.css';

/** Deactivating takes every key away at once, so it asks first; reactivating (an owner's call) gives nothing back by itself. */
function AgentStatus({ ws, agent }: { ws: string; agent: Agent }) {
  const queryClient = useQueryClient();
  const [note, setNote] = useState<string | null>(null);
  const refresh = () => Promise.all([
    queryClient.invalidateQueries({ queryKey: ['agents', ws] }),
    queryClient.invalidateQueries({ queryKey: ['keys', ws, agent.id] }),
    queryClient.invalidateQueries({ queryKey: ['grants', ws, agent.id] }),
  ]);
  const deactivate = useMutation({
    mutationFn: () => clientFor(ws).agents.deactivate(agent.id),
    onSuccess: () => { setNote(`${agent.name} is deactivated: its keys no longer work.`); void refresh(); },
  });
  const reactivate = useMutation({
    mutationFn: () => clientFor(ws).agents.reactivate(agent.id),
    onSuccess: () => { setNote(`${agent.name} is active again; give it a new key.`); void refresh(); },
  });
  return (
    <section className="agent-status" aria-labelledby={`status-${agent.id}`}>
      <h3 id={`status-${agent.id}`}>Status</h3>
      <p role="status" className="status-line">{note}</p>
      <ErrorNote error={deactivate.error ?? reactivate.error} />
      {agent.status === 'active' ? (
        <ConfirmButton
          label="Deactivate agent"
          question={<>Deactivate {agent.name}? Its keys are revoked for good and stop working at once; an owner can reactivate it later, with new keys.</>}
          confirmLabel="Deactivate agent"
          danger
          pending={deactivate.isPending}
          onConfirm={() => { setNote(null); deactivate.mutate(); }}
        />
      ) : (
        <div className="inline">
          <span>Deactivated {when(agent.deactivatedAt)}.</span>
          <button type="button" disabled={reactivate.isPending} onClick={() => { setNote(null); reactivate.mutate(); }}>Reactivate agent</button>
          <span className="muted small">Workspace owners only.</span>
        </div>
      )}
    </section>
  );
}

export function Agents() {
  const { ws } = useParams<{ ws: string }>();
  const queryClient = useQueryClient();
  const agents = useQuery({ queryKey: ['agents', ws], queryFn: () => clientFor(ws).agents.list() });
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  // The open agent lives in the URL (?agent=ag_…), so a reload or a shared link opens it again.
  const [search, setSearch] = useSearchParams();
  const open = search.get('agent');
  const setOpen = (agentId: string | null) =>
    setSearch((s) => {
      const next = new URLSearchParams(s);
      if (agentId) next.set('agent', agentId);
      else next.delete('agent');
      return next;
    }, { replace: true });
  const register = useMutation({
    mutationFn: () => clientFor(ws).agents.register({ name: name.trim(), role }),
    onSuccess: (a) => { setName(''); setOpen(a.id); void queryClient.invalidateQueries({ queryKey: ['agents', ws] }); },
  });
  // Opened from the URL: bring the agent into view once the list is there (it may be far down).
  const scrolled = useRef(false);
  useEffect(() => {
    if (scrolled.current || !open || !agents.data) return;
    scrolled.current = true;
    document.querySelector(`li[data-agent-id="${CSS.escape(open)}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [open, agents.data]);
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
            <li key={a.id} className="card agent-card" data-agent-id={a.id}>
              <h2 className="card-title">
                <button type="button" aria-expanded={expanded} aria-controls={`agent-${a.id}`} onClick={() => setOpen(expanded ? null : a.id)} className="disclosure">
                  {a.name}
                </button>
              </h2>
              <p className="muted small">
                {a.role} · {a.status === 'active' ? 'active' : <span className="badge">deactivated</span>} · created {when(a.createdAt)}
              </p>
              <div id={`agent-${a.id}`} hidden={!expanded}>
                {expanded && <AgentKeys ws={ws} agentId={a.id} agentName={a.name} active={a.status === 'active'} />}
                {expanded && <ConnectedApps ws={ws} agentId={a.id} agentName={a.name} />}
                {expanded && <AgentStatus ws={ws} agent={a} />}
              </div>
            </li>
          );
        })}
      </ul>
    </>
  );
}
