import type { ApproveConsentRequestData, GetGraphData, GetGraphResponse } from '@sdk';
import { clientFor, sdkClient } from './api.ts';
import { session } from './session.ts';

/** The calls the pages make beyond one facade method each: the workspace list, rollback, rotation, the graph, consent and grants. */

export type GraphModel = GetGraphResponse;
export type GraphQuery = NonNullable<GetGraphData['query']>;

/** Every workspace the signed-in key reaches, with its role: a client of no workspace asks. */
export const listWorkspaces = () => sdkClient(session).workspaces.list();

/** A new draft whose content is an older version's. */
export const rollbackPlaybookVersion = (workspaceId: string, playbookId: string, versionId: string, versionNumber: number) =>
  clientFor(workspaceId).versions.rollback(playbookId, versionId, { changeNote: `Roll back to version ${versionNumber}` });

/** A new key for the agent, with the old key's label unless another is given; the old one stays valid for graceSeconds (at most 7 days), then stops working. */
export const rotateAgentKey = (workspaceId: string, agentId: string, keyId: string, body: { graceSeconds?: number; label?: string }) =>
  clientFor(workspaceId).keys.rotate(agentId, keyId, body);

/** The workspace's graph, or a playbook's neighbourhood. */
export const getGraph = (workspaceId: string, query: GraphQuery): Promise<GraphModel> => clientFor(workspaceId).graph.get(query);

/** The agent's active keys, oldest first; a key being replaced by a rotation carries the expiresAt its grace ends at. */
export const listKeys = (workspaceId: string, agentId: string) => clientFor(workspaceId).keys.list(agentId);

/** What a hosted client asks, on the consent page (whose calls name no workspace). */
export const getConsentRequest = (uid: string) => sdkClient(session).consent.get(uid);

/** Approve (as an agent, or a new one) or deny; the answer says where the browser goes next. */
export const answerConsent = (uid: string, decision: 'approve' | 'deny', choice?: ApproveConsentRequestData['body']) =>
  decision === 'approve' ? sdkClient(session).consent.approve(uid, choice) : sdkClient(session).consent.deny(uid);

/** The hosted clients a person let act as the agent. */
export const listGrants = (workspaceId: string, agentId: string) => clientFor(workspaceId).grants.list(agentId);

export const revokeGrant = async (workspaceId: string, agentId: string, grantId: string): Promise<void> => {
  await clientFor(workspaceId).grants.revoke(agentId, grantId);
};
