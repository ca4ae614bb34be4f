import type { PlaybooksClient } from '@sdk';
import { PlaybooksError, clientFor, consoleFetch } from './api.ts';
import { session } from './session.ts';

/**
 * The four calls of issue 33's new routes (branch wip-api33). Until they are in the generated SDK they are
 * sent here, with the same key handling as the SDK: replace each with its facade method once regenerated.
 */

export interface WorkspaceSummary {
  id: string;
  name: string;
  plan?: string;
  parentWorkspaceId?: string | null;
  role: 'viewer' | 'editor' | 'owner';
  createdAt?: string;
}

export interface GraphNode {
  id: string;
  kind: 'node' | 'playbook';
  slug: string;
  title: string;
  nodeType: string | null;
  importance: number | null;
  status: string | null;
}
export interface GraphLink {
  id: string;
  from: string;
  to: string;
  type: string;
}
export interface GraphModel {
  nodes: GraphNode[];
  links: GraphLink[];
  truncated: boolean;
}

export interface RotatedKey {
  key: { id: string; label: string | null; key: string; prefix: string; createdAt: string };
  previousKey: { id: string; prefix: string; expiresAt: string };
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const key = session.key;
  if (!key) throw new PlaybooksError({ status: 401, code: 'unauthorized', detail: 'Not signed in', errors: [] });
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await consoleFetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : undefined;
  if (!res.ok) {
    throw new PlaybooksError({
      status: res.status,
      code: parsed?.code ?? 'error',
      detail: parsed?.detail ?? res.statusText,
      errors: parsed?.errors ?? [],
    });
  }
  return parsed as T;
}

const wsPath = (workspaceId: string, rest: string) => `/api/v1/workspaces/${encodeURIComponent(workspaceId)}${rest}`;

/** GET /api/v1/workspaces: every workspace the key's user belongs to, with their role. */
export async function listWorkspaces(): Promise<WorkspaceSummary[]> {
  return (await call<{ workspaces: WorkspaceSummary[] }>('GET', '/api/v1/workspaces')).workspaces;
}

/** A new draft whose content is an older version's. */
export async function rollbackPlaybookVersion(workspaceId: string, playbookId: string, versionId: string, versionNumber: number) {
  try {
    return await call<{ id: string; versionNumber: number; status: string }>(
      'POST',
      wsPath(workspaceId, `/playbooks/${encodeURIComponent(playbookId)}/versions/${encodeURIComponent(versionId)}/rollback`),
      {},
    );
  } catch (err) {
    if (!noSuchRoute(err)) throw err;
    // A service without the rollback route: the same draft through createPlaybookVersion.
    return clientFor(workspaceId).versions.create(playbookId, { basedOnVersionId: versionId, changeNote: `Roll back to version ${versionNumber}` });
  }
}

/** The route is not there (a service older than issue 33). */
const noSuchRoute = (err: unknown) => err instanceof PlaybooksError && err.status === 404 && /no such route/i.test(err.detail);

/** A new key for the agent; the old one stays valid for graceSeconds (at most 7 days), then is revoked. */
export async function rotateAgentKey(workspaceId: string, agentId: string, keyId: string, body: { graceSeconds?: number; label?: string }) {
  return call<RotatedKey>('POST', wsPath(workspaceId, `/agents/${encodeURIComponent(agentId)}/keys/${encodeURIComponent(keyId)}/rotate`), body);
}

export interface GraphQuery {
  playbookId?: string;
  depth?: number;
  includeArchived?: boolean;
  limit?: number;
}

/** The workspace's graph, or a playbook's neighbourhood. */
export async function getGraph(workspaceId: string, query: GraphQuery): Promise<GraphModel> {
  const params = new URLSearchParams();
  if (query.playbookId) params.set('playbookId', query.playbookId);
  if (query.depth !== undefined) params.set('depth', String(query.depth));
  if (query.includeArchived) params.set('includeArchived', 'true');
  if (query.limit !== undefined) params.set('limit', String(query.limit));
  const qs = params.toString();
  try {
    return await call<GraphModel>('GET', wsPath(workspaceId, `/graph${qs ? `?${qs}` : ''}`));
  } catch (err) {
    if (!noSuchRoute(err)) throw err;
    return graphFromExport(workspaceId, query);
  }
}

/** A service without the graph route: the whole workspace from its export (owners), cut to the neighbourhood here. */
async function graphFromExport(workspaceId: string, query: GraphQuery): Promise<GraphModel> {
  const doc = await clientFor(workspaceId).workspace.export();
  const nodes: GraphNode[] = [
    ...doc.playbooks
      .filter((p) => query.includeArchived || !p.archivedAt)
      .map((p) => ({ id: p.id, kind: 'playbook' as const, slug: p.slug, title: p.title, nodeType: null, importance: null, status: p.archivedAt ? 'archived' : 'live' })),
    ...doc.nodes
      .filter((n) => query.includeArchived || n.status !== 'archived')
      .map((n) => ({ id: n.id, kind: 'node' as const, slug: n.slug, title: n.title, nodeType: n.nodeType, importance: n.importance ?? 50, status: n.status })),
  ];
  const present = new Set(nodes.map((n) => n.id));
  let links: GraphLink[] = doc.links
    .filter((l) => present.has(l.sourceId) && present.has(l.targetId))
    .map((l) => ({ id: l.id, from: l.sourceId, to: l.targetId, type: l.linkType }));
  let kept = nodes;
  if (query.playbookId) {
    const reached = new Set([query.playbookId]);
    let frontier = [query.playbookId];
    for (let hop = 0; hop < (query.depth ?? 2) && frontier.length > 0; hop++) {
      const next: string[] = [];
      for (const l of links) {
        for (const [a, b] of [[l.from, l.to], [l.to, l.from]]) {
          if (frontier.includes(a) && !reached.has(b)) {
            reached.add(b);
            next.push(b);
          }
        }
      }
      frontier = next;
    }
    kept = nodes.filter((n) => reached.has(n.id));
    links = links.filter((l) => reached.has(l.from) && reached.has(l.to));
  }
  const limit = query.limit ?? 5000;
  const truncated = kept.length > limit;
  if (truncated) {
    kept = kept.slice(0, limit);
    const ids = new Set(kept.map((n) => n.id));
    links = links.filter((l) => ids.has(l.from) && ids.has(l.to));
  }
  return { nodes: kept, links, truncated };
}

/** Agent keys as listed, with the expiry rotation adds (absent until the API has it). */
export type ListedKey = Awaited<ReturnType<PlaybooksClient['keys']['list']>>[number] & { expiresAt?: string | null };

export const listKeys = (workspaceId: string, agentId: string): Promise<ListedKey[]> => clientFor(workspaceId).keys.list(agentId);

/** Days of the month's usage, when the API reports them. */
export interface UsageWithDays {
  period: string;
  used: number;
  limit: number;
  remaining: number;
  resetsAt: string;
  days?: { date: string; retrievals: number }[];
}
