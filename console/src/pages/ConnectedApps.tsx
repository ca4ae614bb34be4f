import type { ListAgentGrantsResponse } from '@sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { clientFor } from '../api.ts';
import { listGrants, revokeGrant } from '../calls.ts';
import { ConfirmButton, ErrorNote, Loading, when } from '../ui.tsx';

type Grant = ListAgentGrantsResponse['items'][number];

/** One connected app: Revoke asks first, inline (ConfirmButton moves focus to the question and back on Cancel). */
function GrantItem({ grant, approvedBy, pending, onRevoke }: { grant: Grant; approvedBy: string; pending: boolean; onRevoke: () => void }) {
  return (
    <li data-grant-id={grant.id}>
      <strong>{grant.clientName}</strong>
      <span className="muted small">approved by {approvedBy}, {when(grant.createdAt)}</span>
      <ConfirmButton
        label="Revoke"
        ariaLabel={`Revoke ${grant.clientName}`}
        question={<>Revoke access for {grant.clientName}?</>}
        confirmLabel="Revoke access"
        danger
        pending={pending}
        onConfirm={onRevoke}
      />
    </li>
  );
}

/** The hosted AI clients a person let act as the agent (MCP authorization), each revocable after a confirmation. */
export function ConnectedApps({ ws, agentId, agentName }: { ws: string; agentId: string; agentName: string }) {
  const queryClient = useQueryClient();
  const grants = useQuery({ queryKey: ['grants', ws, agentId], queryFn: () => listGrants(ws, agentId) });
  // Names of the approvers; one who has left the workspace is named a former member, by id (their grants ended when they left).
  const members = useQuery({ queryKey: ['members', ws], queryFn: () => clientFor(ws).members.list(), enabled: !!grants.data?.length });
  const [note, setNote] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const revoke = useMutation({
    mutationFn: (grantId: string) => revokeGrant(ws, agentId, grantId),
    onSuccess: () => {
      setNote('Access revoked: the application’s tokens no longer work.');
      // The item that had focus is gone.
      heading.current?.focus();
      void queryClient.invalidateQueries({ queryKey: ['grants', ws, agentId] });
    },
  });
  const approverOf = (userId: string) => {
    if (!members.data) return userId;
    const member = members.data.find((m) => m.userId === userId);
    return member ? member.name ?? member.email : `a former member (${userId})`;
  };
  return (
    <section className="connected-apps" aria-label={`Connected apps of ${agentName}`}>
      <h3 ref={heading} tabIndex={-1}>Connected apps</h3>
      <p role="status" className="status-line">{note}</p>
      {grants.isPending && <Loading what="Loading connected apps" />}
      <ErrorNote error={grants.error ?? revoke.error} />
      {grants.data?.length === 0 && (
        <p className="muted">No connected apps. A hosted AI client connects through the MCP endpoint’s sign-in (docs/mcp.md).</p>
      )}
      {!!grants.data?.length && (
        <ul className="grant-list">
          {grants.data.map((g) => (
            <GrantItem
              key={g.id}
              grant={g}
              approvedBy={approverOf(g.approvedByUserId)}
              pending={revoke.isPending}
              onRevoke={() => { setNote(null); revoke.mutate(g.id); }}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
