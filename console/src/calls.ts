import type { ApproveConsentRequestData, ApproveConsentRequestResponse, GetConsentRequestResponse, GetGraphData, GetGraphResponse, ListAgentGrantsResponse } from '@sdk';
import { PlaybooksClient, PlaybooksError } from '@sdk';
import { clientFor, consoleFetch } from './api.ts';
import { session } from './session.ts';

/** The calls the pages make beyond one facade method each: the workspace list, rollback, rotation, the graph, consent and grants. */

export type GraphModel = GetGraphResponse;
export type GraphQuery = NonNullable<GetGraphData['query']>;

/** Every workspace the signed-in key reaches, with its role: a client of no workspace asks. */
export async function listWorkspaces() {
  return keyClient().workspaces.list();
}

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

/** A client of no workspace for the signed-in key: the consent page's calls name no workspace in their path. */
function keyClient(): PlaybooksClient {
  const key = session.key;
  if (!key) throw new PlaybooksError({ status: 401, code: 'unauthorized', detail: 'Not signed in', errors: [] });
  return new PlaybooksClient({ baseUrl: location.origin, apiKey: key, fetch: consoleFetch, retry: false, timeoutMs: 20_000 });
}

const interaction = (uid: string, rest = '') => `/api/v1/oauth/interactions/${encodeURIComponent(uid)}${rest}`;

/** What a hosted client asks, on the consent page. */
export const getConsentRequest = async (uid: string) => (await keyClient().request<GetConsentRequestResponse>('GET', interaction(uid))).data;

/** Approve (as an agent, or a new one) or deny; the answer says where the browser goes next. */
export const answerConsent = async (uid: string, decision: 'approve' | 'deny', choice?: ApproveConsentRequestData['body']) =>
  (await keyClient().request<ApproveConsentRequestResponse>('POST', interaction(uid, `/${decision}`), decision === 'approve' ? { json: choice } : {})).data;

const grantsPath = (workspaceId: string, agentId: string, rest = '') =>
  `/api/v1/workspaces/${encodeURIComponent(workspaceId)}/agents/${encodeURIComponent(agentId)}/grants${rest}`;

/** The hosted clients a person let act as the agent. */
export const listGrants = async (workspaceId: string, agentId: string) =>
  (await clientFor(workspaceId).request<ListAgentGrantsResponse>('GET', grantsPath(workspaceId, agentId))).data.items;

export const revokeGrant = async (workspaceId: string, agentId: string, grantId: string) => {
  await clientFor(workspaceId).request('DELETE', grantsPath(workspaceId, agentId, `/${encodeURIComponent(grantId)}`));
};
