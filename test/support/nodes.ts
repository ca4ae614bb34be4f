import type { LinkType } from '../../src/nodes/link-types.js';
import { type TestWorkspace, request, unique } from './api.js';

/** Fixtures for context nodes and links, through the API. Every helper asserts its success status. */

export type { LinkType };

function expectStatus(res: { status: number; text: string }, status: number, what: string): void {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
}

/**
 * A context node (201 asserted), created by the workspace owner unless `token` is given; returns the node
 * detail (with outgoingLinks, incomingLinks, unresolvedLinks). Title and description default to unique text.
 */
export async function createNode(workspace: TestWorkspace, fields: Record<string, unknown> = {}, token = workspace.owner.key): Promise<any> {
  const res = await request('POST', workspace.path('/context-nodes'), {
    token,
    body: { title: unique('Node'), description: 'A test node', ...fields },
  });
  expectStatus(res, 201, 'create context node');
  return res.body;
}

/** Several nodes in order, e.g. `createNodes(ws, [{importance: 10}, {readFirst: true}])`. */
export async function createNodes(workspace: TestWorkspace, fieldsList: Record<string, unknown>[], token = workspace.owner.key): Promise<any[]> {
  const created: any[] = [];
  for (const fields of fieldsList) created.push(await createNode(workspace, fields, token));
  return created;
}

export async function getNode(workspace: TestWorkspace, nodeId: string, token = workspace.owner.key): Promise<any> {
  const res = await request('GET', workspace.path(`/context-nodes/${nodeId}`), { token });
  expectStatus(res, 200, 'get context node');
  return res.body;
}

export async function updateNode(workspace: TestWorkspace, nodeId: string, changes: Record<string, unknown>, token = workspace.owner.key): Promise<any> {
  const res = await request('PATCH', workspace.path(`/context-nodes/${nodeId}`), { token, body: changes });
  expectStatus(res, 200, 'update context node');
  return res.body;
}

export async function archiveNode(workspace: TestWorkspace, nodeId: string, token = workspace.owner.key): Promise<void> {
  const res = await request('DELETE', workspace.path(`/context-nodes/${nodeId}`), { token });
  expectStatus(res, 204, 'archive context node');
}

export async function restoreNode(workspace: TestWorkspace, nodeId: string, token = workspace.owner.key): Promise<any> {
  const res = await request('POST', workspace.path(`/context-nodes/${nodeId}/restore`), { token });
  expectStatus(res, 200, 'restore context node');
  return res.body;
}

/** A manual link between two context nodes (201 asserted); returns the link {id, sourceId, sourceType, targetId, linkType, origin, createdAt}. */
export async function link(workspace: TestWorkspace, sourceId: string, targetId: string, linkType: LinkType, token = workspace.owner.key): Promise<any> {
  const res = await request('POST', workspace.path(`/context-nodes/${sourceId}/links`), { token, body: { targetId, linkType } });
  expectStatus(res, 201, `link ${sourceId} -${linkType}-> ${targetId}`);
  return res.body;
}

/** A manual link from a playbook to a context node (201 asserted); returns the link. */
export async function linkPlaybook(workspace: TestWorkspace, playbookId: string, targetId: string, linkType: LinkType, token = workspace.owner.key): Promise<any> {
  const res = await request('POST', workspace.path(`/playbooks/${playbookId}/links`), { token, body: { targetId, linkType } });
  expectStatus(res, 201, `link playbook ${playbookId} -${linkType}-> ${targetId}`);
  return res.body;
}

export async function unlink(workspace: TestWorkspace, sourceId: string, linkId: string, token = workspace.owner.key): Promise<void> {
  const res = await request('DELETE', workspace.path(`/context-nodes/${sourceId}/links/${linkId}`), { token });
  expectStatus(res, 204, 'delete link');
}

/** The node list with the given query parameters (200 asserted); returns {nodes, pagination}. */
export async function listNodes(workspace: TestWorkspace, query: Record<string, string | number | boolean> = {}, token = workspace.owner.key): Promise<any> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const res = await request('GET', workspace.path(`/context-nodes${qs ? `?${qs}` : ''}`), { token });
  expectStatus(res, 200, 'list context nodes');
  return res.body;
}

/** Every node of the workspace (any status, up to 200) by slug, each with its detail (links, unresolved wikilinks). */
export async function nodesBySlug(workspace: TestWorkspace): Promise<Record<string, any>> {
  const page = await listNodes(workspace, { status: 'all', limit: 200 });
  const out: Record<string, any> = {};
  for (const node of page.nodes) out[node.slug] = await getNode(workspace, node.id);
  return out;
}

/** A node detail's outgoing links as sorted `linkType>targetSlug` strings. */
export const outgoingOf = (node: { outgoingLinks: { linkType: string; slug: string }[] }) => node.outgoingLinks.map((l) => `${l.linkType}>${l.slug}`).sort();

/** The ETag of a cached read of the workspace's graph: it changes exactly when the graph generation does. */
export async function graphEtag(workspace: TestWorkspace): Promise<string> {
  const res = await request('GET', workspace.path('/context-nodes?status=all'), { token: workspace.owner.key });
  expectStatus(res, 200, 'list context nodes');
  return res.headers.get('etag')!;
}

/**
 * Every node of the workspace with the given status (`live` by default; `all` for any), page after page in the
 * order they were created, as the list gives them.
 */
export async function allNodes(workspace: TestWorkspace, status = 'live', token = workspace.owner.key): Promise<any[]> {
  const nodes: any[] = [];
  for (let page = 1; ; page += 1) {
    const listed = await listNodes(workspace, { status, limit: 200, page, sort: 'created_at', order: 'asc' }, token);
    nodes.push(...listed.nodes);
    if (page * 200 >= listed.pagination.total) return nodes;
  }
}

/** The same nodes, each in detail (with outgoingLinks, sourcePath, …). */
export async function allNodeDetails(workspace: TestWorkspace, status = 'live', token = workspace.owner.key): Promise<any[]> {
  const details: any[] = [];
  for (const node of await allNodes(workspace, status, token)) details.push(await getNode(workspace, node.id, token));
  return details;
}
