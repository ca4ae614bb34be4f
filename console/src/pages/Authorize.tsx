import { type Role, roles } from '@sdk';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { messageOf } from '../api.ts';
import { answerConsent, getConsentRequest } from '../calls.ts';
import { useSession } from '../session.ts';
import { ErrorNote, Loading, PageTitle } from '../ui.tsx';
import { SignIn } from './SignIn.tsx';

const newAgent = 'new';

/**
 * The consent page of the MCP authorization flow: a hosted AI client asks to use a workspace's tools, and the
 * signed-in person picks the agent it acts as (or registers one) and approves, or denies. Either way the browser
 * goes back to the authorization server, which returns it to the client.
 */
export function Authorize() {
  const { uid } = useParams<{ uid: string }>();
  const { key } = useSession();
  if (!key) return <SignIn />;
  return <Consent uid={uid} />;
}

function Consent({ uid }: { uid: string }) {
  const request = useQuery({ queryKey: ['consent', uid], queryFn: () => getConsentRequest(uid), retry: false });
  const [choice, setChoice] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const answer = useMutation({
    mutationFn: (decision: 'approve' | 'deny') => {
      if (decision === 'deny') return answerConsent(uid, 'deny');
      const picked = choice ?? request.data?.agents[0]?.id ?? newAgent;
      return answerConsent(uid, 'approve', picked === newAgent ? { agent: { name: name.trim(), role } } : { agentId: picked });
    },
    onSuccess: ({ redirectTo }) => location.assign(redirectTo),
  });
  if (request.isPending) return <Loading what="Loading the request" />;
  if (request.error) {
    return (
      <section className="consent">
        <PageTitle text="Connect a client" />
        <p role="alert" className="error">
          {messageOf(request.error)} The request may have expired or been answered already: start again from the client.
        </p>
      </section>
    );
  }
  const { client, workspace, scopes, agents } = request.data;
  const picked = choice ?? agents[0]?.id ?? newAgent;
  const redirectHost = URL.parse(client.redirectUri)?.host || client.redirectUri;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    answer.mutate('approve');
  };
  return (
    <section className="consent">
      <PageTitle text={`Connect ${client.name} to ${workspace.name}`} />
      <p>
        <strong>{client.name}</strong> asks to use the tools of the workspace <strong>{workspace.name}</strong> ({scopes.join(', ') || 'mcp'}):
        read its playbooks and context, and leave annotations and feedback, as the agent you choose.
      </p>
      <p className="muted">
        After your answer the browser returns to <code>{redirectHost}</code>.{client.uri && <> The client says its home page is <code>{client.uri}</code>.</>}
      </p>
      <form onSubmit={submit}>
        <fieldset className="stack">
          <legend>Act as</legend>
          {agents.map((a) => (
            <span key={a.id}>
              <label>
                <input type="radio" name="agent" value={a.id} checked={picked === a.id} onChange={() => setChoice(a.id)} aria-describedby={`role-${a.id}`} /> {a.name}
              </label>{' '}
              <span id={`role-${a.id}`} className="muted small">{a.role}</span>
            </span>
          ))}
          <label>
            <input type="radio" name="agent" value={newAgent} checked={picked === newAgent} onChange={() => setChoice(newAgent)} /> A new agent
          </label>
          {picked === newAgent && (
            <div className="inline">
              <label htmlFor="consent-agent-name">Agent name</label>
              <input id="consent-agent-name" value={name} onChange={(e) => setName(e.target.value)} required />
              <label htmlFor="consent-agent-role">Role</label>
              <select id="consent-agent-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
                {roles.map((r) => <option key={r} value={r}>{r}</option>)}
              </select>
            </div>
          )}
        </fieldset>
        <p className="muted small">The client acts with the agent’s role and counts against the workspace’s quota. You can revoke it on the agent’s page.</p>
        <ErrorNote error={answer.error} />
        <div className="actions">
          <button type="submit" disabled={answer.isPending}>Approve</button>
          <button type="button" className="secondary" disabled={answer.isPending} onClick={() => answer.mutate('deny')}>Deny</button>
        </div>
      </form>
    </section>
  );
}
