import type { GetGraphData, GetGraphResponse } from '@sdk';
import { PlaybooksClient, PlaybooksError } from '@sdk';
import { clientFor, consoleFetch } from './api.ts';
import { session } from './session.ts';

/** The calls the pages make beyond one facade method each: the workspace list, rollback, rotation, the graph. */

export type GraphModel = GetGraphResponse;
export type GraphQuery = NonNullable<GetGraphData['query']>;

/** Every workspace the signed-in key reaches, with its role: a client of no workspace asks. */
export async function listWorkspaces() {
  const key = session.key;
  if (!key) throw new PlaybooksError({ status: 401, code: 'unauthorized', detail: 'Not signed in', errors: [] });
  return new PlaybooksClient({ baseUrl: location.origin, apiKey: key, fetch: consoleFetch, retry: false, timeoutMs: 20_000 }).workspaces.list();
}

/** A new draft whose content is an older version's. */
export const rollbackPlaybookVersion = (workspaceId: string, playbookId: string, versionId: string, versionNumber: number) =>
  clientFor(workspaceId).versions.rollback(playbookId, versionId, { changeNote: `Roll back to version ${versionNumber}` });

/** A new key for the agent; the old one stays valid for graceSeconds (at most 7 days), then stops working. */
export const rotateAgentKey = (workspaceId: string, agentId: string, keyId: string, body: { graceSeconds?: number; label?: string }) =>
  clientFor(workspaceId).keys.rotate(agentId, keyId, body);

/** The workspace's graph, or a playbook's neighbourhood. */
export const getGraph = (workspaceId: string, query: GraphQuery): Promise<GraphModel> => clientFor(workspaceId).graph.get(query);

export const listKeys = (workspaceId: string, agentId: string) => clientFor(workspaceId).keys.list(agentId);
