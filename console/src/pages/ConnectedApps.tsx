import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { listGrants, revokeGrant } from '../calls.ts';
import { ErrorNote, Loading, when } from '../ui.tsx';

/** The hosted AI clients a person let act as the agent (MCP authorization), each revocable after a confirmation. */
export function ConnectedApps({ ws, agentId, agentName }: { ws: string; agentId: string; agentName: string }) {
  const queryClient = useQueryClient();
  const grants = useQuery({ queryKey: ['grants', ws, agentId], queryFn: () => listGrants(ws, agentId) });
  const [confirming, setConfirming] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const revoke = useMutation({
    mutationFn: (grantId: string) => revokeGrant(ws, agentId, grantId),
    onSuccess: () => {
      setConfirming(null);
      setNote('Access revoked: the client’s tokens no longer work.');
      void queryClient.invalidateQueries({ queryKey: ['grants', ws, agentId] });
    },
  });
  return (
    <section className="connected-apps" aria-label={`Connected apps of ${agentName}`}>
      <h3>Connected apps</h3>
      <p role="status" className="status-line">{note}</p>
      {grants.isPending && <Loading what="Loading connected apps" />}
      <ErrorNote error={grants.error ?? revoke.error} />
      {grants.data?.length === 0 && (
        <p className="muted">No connected apps. A hosted AI client connects through the MCP endpoint’s sign-in (docs/mcp.md).</p>
      )}
      {!!grants.data?.length && (
        <ul className="grant-list">
          {grants.data.map((g) => (
            <li key={g.id} data-grant-id={g.id}>
              <strong>{g.clientName}</strong> <span className="muted small">approved by {g.approvedByUserId}, {when(g.createdAt)}</span>
              {confirming === g.id ? (
                <span className="inline" role="group" aria-label={`Confirm revoking ${g.clientName}`}>
                  <span>Revoke access for {g.clientName}?</span>
                  <button type="button" disabled={revoke.isPending} onClick={() => revoke.mutate(g.id)}>Revoke access</button>
                  <button type="button" onClick={() => setConfirming(null)}>Cancel</button>
                </span>
              ) : (
                <button type="button" onClick={() => setConfirming(g.id)} aria-label={`Revoke ${g.clientName}`}>Revoke</button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
