import { type Role, roles } from '@sdk';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { messageOf, PlaybooksError } from '../api.ts';
import { answerConsent, getConsentRequest } from '../calls.ts';
import { session, useSession } from '../session.ts';
import { Loading, PageTitle } from '../ui.tsx';
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
  // Signing in here keeps the page where it is: the flow continues on this same URL.
  if (!key) return <SignIn intro="An application asks to connect to one of your workspaces. Sign in to see its request and answer it." />;
  return <Consent uid={uid} />;
}

/** What went wrong, in words a person can act on; the service's own detail is shown otherwise. */
function Refusal({ error }: { error: unknown }) {
  const status = error instanceof PlaybooksError ? error.status : 0;
  const agentKey = error instanceof PlaybooksError && error.code === 'user_key_required';
  const detail = messageOf(error);
  // The service answers 404 both for a request it no longer knows and for a workspace the key is not a member of.
  const expired = status === 404 && /^Authorization request/i.test(detail);
  const notMember = status === 404 && /^Workspace/i.test(detail);
  const otherKey = agentKey || notMember;
  return (
    <div role="alert" className="error">
      {expired && <p>This authorization request is expired or unknown: it may have been answered already. Start again from the application.</p>}
      {notMember && <p>The request is for a workspace you are not a member of.</p>}
      {!expired && !notMember && <p>{detail}</p>}
      {agentKey && <p>Consent is given by a person: sign in with your user key (pk_user_…).</p>}
      {otherKey && <button type="button" className="secondary" onClick={() => session.signOut()}>Sign in with another key</button>}
    </div>
  );
}

/** The host the browser returns to, which is what a person can check; a private-use scheme shows whole. */
function hostOf(uri: string): string {
  try {
    return new URL(uri).host || uri;
  } catch {
    return uri;
  }
}

function Consent({ uid }: { uid: string }) {
  const request = useQuery({ queryKey: ['consent', uid], queryFn: () => getConsentRequest(uid), retry: false });
  const [choice, setChoice] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const agents = request.data?.agents ?? [];
  const canCreate = request.data?.canCreateAgent ?? false;
  const picked = choice ?? agents[0]?.id ?? (canCreate ? newAgent : null);
  const answer = useMutation({
    mutationFn: (decision: 'approve' | 'deny') => {
      if (decision === 'deny') return answerConsent(uid, 'deny');
      return answerConsent(uid, 'approve', picked === newAgent ? { agent: { name: name.trim(), role } } : { agentId: picked ?? '' });
    },
    onSuccess: ({ redirectTo }) => location.assign(redirectTo),
  });
  if (request.isPending) return <Loading what="Loading the request" />;
  if (request.error) {
    return (
      <section className="consent">
        <PageTitle text="Connect an application" />
        <Refusal error={request.error} />
      </section>
    );
  }
  const { client, workspace, scopes } = request.data;
  // Once answered the browser is leaving: a second click would only meet an answered request.
  const busy = answer.isPending || answer.isSuccess;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    answer.mutate('approve');
  };
  return (
    <section className="consent">
      <PageTitle text={`Connect ${client.name} to ${workspace.name}`} />
      <p>
        <strong>{client.name}</strong> asks to use the tools of the workspace <strong>{workspace.name}</strong>: read its playbooks and
        context, and leave annotations and feedback, as the agent you choose.
      </p>
      <dl className="facts">
        <dt>Returns to</dt>
        <dd><code data-testid="redirect-host">{hostOf(client.redirectUri)}</code></dd>
        <dt>Scope</dt>
        <dd><code>{scopes.join(' ') || 'mcp'}</code></dd>
        {client.uri && (
          <>
            <dt>Home page (as the application states it)</dt>
            <dd><code>{client.uri}</code></dd>
          </>
        )}
      </dl>
      <form onSubmit={submit}>
        <fieldset className="stack">
          <legend>Act as</legend>
          {agents.map((a) => (
            <label key={a.id}>
              <input type="radio" name="agent" value={a.id} checked={picked === a.id} onChange={() => setChoice(a.id)} /> {a.name}{' '}
              <span className="muted small">({a.role})</span>
            </label>
          ))}
          {canCreate && (
            <label>
              <input type="radio" name="agent" value={newAgent} checked={picked === newAgent} onChange={() => setChoice(newAgent)} /> A new agent
            </label>
          )}
          {picked === newAgent && (
            <div className="inline">
              <label htmlFor="consent-agent-name">Agent name</label>
              <input id="consent-agent-name" value={name} onChange={(e) => setName(e.target.value)} required />
              <label htmlFor="consent-agent-role">Role</label>
              <select id="consent-agent-role" value={role} onChange={(e) => setRole(e.target.value as Role)} aria-describedby="consent-agent-role-help">
                {roles.map((r) => <option key={r} value={r}>{r}</option>)}
              </select>
              <span id="consent-agent-role-help" className="muted small">At most your own role.</span>
            </div>
          )}
          {!picked && <p>You sponsor no active agent in this workspace, and may not register one: ask an owner, or deny.</p>}
        </fieldset>
        <p className="muted small">The application acts with the agent’s role and counts against the workspace’s quota. You can revoke it on the agent’s page.</p>
        {answer.error && <Refusal error={answer.error} />}
        <div className="actions">
          <button type="submit" disabled={busy || !picked}>Approve</button>
          <button type="button" className="secondary" disabled={busy} onClick={() => answer.mutate('deny')}>Deny</button>
        </div>
      </form>
    </section>
  );
}
