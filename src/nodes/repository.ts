import type { TokenCounts } from '../tokens/token-count.js';
import type { GraphExecutor, GraphTx } from '../infra/neo4j.js';
import { type LinkType, type RelationshipType, linkTypeParams, relationshipTypeOf } from './link-types.js';
import type { NodeName } from './names.js';
import type { ContextNode, Link, ListNodesQuery, NodeDetail, NodeStatus, NodeType, SourceType } from './schemas.js';
import { type Wikilink, nameKey } from './wikilinks.js';

export interface ListFilter {
  nodeType: NodeType | null;
  /** A tag the nodes must have, lowercased (compared ignoring case). */
  tag: string | null;
  /** The one node the list may hold (a name's target), or null. */
  id: string | null;
  status: NodeStatus | 'all';
  /** The query's sort, or relevance when it searches without one. */
  sort: NonNullable<ListNodesQuery['sort']> | 'relevance';
  order: NonNullable<ListNodesQuery['order']>;
  skip: number;
  limit: number;
}

export interface CreateLinkResult {
  sourceFound: boolean;
  targetFound: boolean;
  duplicate: boolean;
  created: boolean;
}

export interface DeleteLinkResult {
  sourceFound: boolean;
  linkFound: boolean;
  origin: Link['origin'] | null;
  deleted: boolean;
}

export interface ImportStateRow {
  node: Pick<ContextNode, 'id' | 'slug' | 'title' | 'description' | 'nodeType' | 'importance' | 'status'> & {
    aliases?: string[] | null;
    tags?: string[] | null;
    sourcePath?: string | null;
    content?: string | null;
    agentSummary?: string | null;
    readFirst?: boolean | null;
    edgeCaseOnly?: boolean | null;
  };
  links: { relType: RelationshipType; targetSlug: string; origin: Link['origin'] }[];
}

type Runner = Pick<GraphTx, 'run'>;

/** Keys in one order, so that writes locking several WikiNames lock them alike (fewer deadlocks to retry). */
const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** What two source paths are compared by: as wikilink names are (NFC, lowercase), so that no two live nodes share a file. */
export const sourcePathKey = (sourcePath: string): string => nameKey(sourcePath);

/** Context nodes, their links and wikilinks: the only place that runs their Cypher. */
export class NodeRepository {
  constructor(private readonly graph: GraphExecutor) {}

  /** Up to `limit` nodes (any workspace) without stored token counts, with the texts to count. */
  async withoutTokenCounts(limit: number) {
    return this.graph.read<{ workspaceId: string; id: string; content: string | null; description: string | null; agentSummary: string | null }>('nodes/without-token-counts', { limit });
  }

  async setTokenCounts(rows: ({ workspaceId: string; id: string } & TokenCounts)[]): Promise<void> {
    await this.graph.write('nodes/set-token-counts', { rows });
  }

  /** The node a wikilink with this name key resolves to. */
  async idByName(workspaceId: string, key: string): Promise<string | undefined> {
    const [row] = await this.graph.read<{ id: string }>('nodes/id-by-name', { workspaceId, key });
    return row?.id;
  }

  /** Several statements in one write transaction, retried as a whole on transient errors (a deadlock among them). */
  async writeTx<R>(work: (tx: GraphTx) => Promise<R>): Promise<R> {
    return this.graph.writeTx(work);
  }

  /**
   * Several statements in one write transaction that first takes the workspace's write lock (nodes/lock-workspace),
   * for the work that must not interleave with another of its kind (a bulk import's batches); found is false when
   * the workspace does not exist.
   */
  async inWorkspaceTx<R>(workspaceId: string, now: string, work: (tx: GraphTx) => Promise<R>): Promise<{ found: boolean; result?: R }> {
    return this.graph.writeTx(async (tx) => {
      const [row] = await tx.run('nodes/lock-workspace', { workspaceId, now });
      if (!row) return { found: false };
      return { found: true, result: await work(tx) };
    });
  }

  /**
   * Locks the slugs `keys` (wikilink keys) until the transaction ends, so that writes claiming one slug take turns
   * (nodes/claim-slug.cypher); the slugs taken that equal `base` or extend it with a suffix.
   */
  async claimSlugs(tx: Runner, workspaceId: string, keys: string[], base: string | null): Promise<{ id: string; slug: string }[]> {
    const [row] = await tx.run('nodes/claim-slug', { workspaceId, keys: [...new Set(keys)].sort(), base });
    return (row?.taken ?? []) as { id: string; slug: string }[];
  }

  /**
   * Locks the source paths `paths` until the transaction ends and returns the live nodes that have one of them,
   * compared as names compare (sameSourcePath): two writes of one path take turns (nodes/source-path-holders.cypher).
   */
  async sourcePathHolders(tx: Runner, workspaceId: string, paths: string[]): Promise<{ id: string; slug: string; sourcePath: string }[]> {
    const named = new Map<string, { key: string; depth: number }>();
    for (const p of paths) {
      // The name every node of this path holds: its whole path without `.md` (src/nodes/names.ts).
      const key = nameKey(p.replace(/\.md$/i, '').trim());
      if (key) named.set(key, { key, depth: p.split('/').length - 1 });
    }
    if (!named.size) return [];
    const wanted = new Set(paths.map(sourcePathKey));
    const rows = await tx.run('nodes/source-path-holders', { workspaceId, paths: [...named.values()].sort(byKey) });
    return (rows as { id: string; slug: string; sourcePath: string }[]).filter((row) => wanted.has(sourcePathKey(row.sourcePath)));
  }

  /** Write-locks a node until the transaction ends (nodes/lock.cypher); false when it is not in the workspace. */
  async lock(tx: Runner, workspaceId: string, nodeId: string): Promise<boolean> {
    return (await tx.run('nodes/lock', { workspaceId, nodeId })).length > 0;
  }

  /** Creates nodes, each given with its token counts; false when the workspace does not exist (nothing written). */
  async create(tx: Runner, workspaceId: string, nodes: (ContextNode & TokenCounts)[]): Promise<boolean> {
    if (!nodes.length) return true;
    return (await tx.run('nodes/create', { workspaceId, nodes: nodes.map(stored) })).length > 0;
  }

  /** Sets each node's changes (a null value removes the property) and moves its updatedAt; the ids found. */
  async update(tx: Runner, workspaceId: string, updates: { nodeId: string; changes: Record<string, unknown> }[], now: string): Promise<string[]> {
    if (!updates.length) return [];
    const params = updates.map((u) => ({ nodeId: u.nodeId, changes: stored(u.changes) }));
    return (await tx.run('nodes/update', { workspaceId, updates: params, now })).map((row) => row.id as string);
  }

  /** Archives or restores nodes; one entry per node found, saying whether its status changed. */
  async setStatus(tx: Runner, workspaceId: string, nodeIds: string[], status: NodeStatus, now: string): Promise<{ id: string; changed: boolean }[]> {
    if (!nodeIds.length) return [];
    return (await tx.run('nodes/set-status', { workspaceId, nodeIds, status, now })) as { id: string; changed: boolean }[];
  }

  /** The workspace's nodes having one of `slugs` (any status), each with its outgoing links: what an import compares with. */
  async importState(tx: Runner, workspaceId: string, slugs: string[]): Promise<ImportStateRow[]> {
    if (!slugs.length) return [];
    return (await tx.run('nodes/import-state', { workspaceId, slugs, linkRelTypes: linkTypeParams.linkRelTypes })) as ImportStateRow[];
  }

  async get(runner: Runner | undefined, workspaceId: string, nodeId: string): Promise<NodeDetail | undefined> {
    const params = { workspaceId, nodeId, ...linkTypeParams };
    const [row] = runner ? await runner.run('nodes/get', params) : await this.graph.read('nodes/get', params);
    if (!row) return undefined;
    return { ...toNode(row.node), outgoingLinks: row.outgoing, incomingLinks: row.incoming, unresolvedLinks: row.unresolved };
  }

  async list(workspaceId: string, filter: ListFilter, query?: string): Promise<{ total: number; nodes: ContextNode[] }> {
    const params = { workspaceId, ...filter };
    const [row] = query === undefined ? await this.graph.read('nodes/list', params) : await this.graph.read('nodes/search', { ...params, query });
    return { total: row?.total ?? 0, nodes: (row?.nodes ?? []).map(toNode) };
  }

  /**
   * Sets nodes' names and wikilinks (each item's `names` and `links`; null leaves them) and, when `resolve`, makes
   * the wikilink links of those nodes, and of every node waiting for a name whose naming changed, go where their
   * names now point (links/sync-wikilinks.cypher). Keys and ids are sorted here: the statement locks them in the
   * order given.
   */
  async syncWikilinks(
    tx: Runner,
    workspaceId: string,
    items: { nodeId: string; names: NodeName[] | null; links: Wikilink[] | null }[],
    resolve: boolean,
    now: string,
  ): Promise<void> {
    if (!items.length) return;
    const sorted = items.map((item) => ({ nodeId: item.nodeId, names: item.names && [...item.names].sort(byKey), links: item.links && [...item.links].sort(byKey) }));
    await tx.run('links/sync-wikilinks', { workspaceId, items: sorted, resolve, now });
  }

  /** For each of `nodeIds` that has any, the names its wikilinks give that no node has (as written, sorted). */
  async unresolvedOf(tx: Runner, workspaceId: string, nodeIds: string[]): Promise<Map<string, string[]>> {
    if (!nodeIds.length) return new Map();
    const rows = await tx.run('links/unresolved-of', { workspaceId, nodeIds });
    return new Map(rows.map((row) => [row.id as string, row.unresolved as string[]]));
  }

  /** Up to `limit` nodes (any workspace) without names yet, with what their names and wikilinks come from. */
  async withoutNames(limit: number) {
    return this.graph.read<{ workspaceId: string; id: string; slug: string; title: string; aliases: string[] | null; sourcePath: string | null; content: string | null }>('nodes/without-names', { limit });
  }

  /** Makes each node's manual links to context nodes exactly `wanted` (wikilinks untouched). */
  async syncManualLinks(
    tx: Runner,
    workspaceId: string,
    items: { nodeId: string; wanted: { relType: RelationshipType; targetId: string; linkId: string }[] }[],
    now: string,
  ): Promise<void> {
    if (items.length) await tx.run('links/sync-manual', { workspaceId, items, now, linkRelTypes: linkTypeParams.linkRelTypes });
  }

  async createLink(
    tx: Runner,
    input: { workspaceId: string; sourceType: SourceType; sourceId: string; targetId: string; linkType: LinkType; linkId: string; now: string },
  ): Promise<CreateLinkResult> {
    const { linkType, ...rest } = input;
    const [row] = await tx.run('links/create', { ...rest, relType: relationshipTypeOf[linkType] });
    return row as CreateLinkResult;
  }

  async deleteLink(tx: Runner, input: { workspaceId: string; sourceType: SourceType; sourceId: string; linkId: string }): Promise<DeleteLinkResult> {
    const [row] = await tx.run('links/delete', { ...input, ...linkTypeParams });
    return row as DeleteLinkResult;
  }
}

/** A node as stored (properties never set are absent) → as the API shows it. */
export function toNode(raw: Record<string, any>): ContextNode {
  return {
    id: raw.id,
    slug: raw.slug,
    title: raw.title,
    description: raw.description,
    content: raw.content ?? '',
    nodeType: raw.nodeType,
    agentSummary: raw.agentSummary ?? null,
    importance: raw.importance,
    readFirst: Boolean(raw.readFirst),
    edgeCaseOnly: Boolean(raw.edgeCaseOnly),
    status: raw.status,
    createdAt: raw.createdAt,
    updatedAt: raw.updatedAt,
    archivedAt: raw.archivedAt ?? null,
    aliases: raw.aliases ?? [],
    tags: raw.tags ?? [],
    sourcePath: raw.sourcePath ?? null,
  };
}

/**
 * A node's fields as stored: empty lists of aliases and tags are not stored (absent reads as empty), and the
 * aliases are also kept as lines of text, which the full-text index searches.
 */
export function stored(given: object): Record<string, unknown> {
  const fields = given as Record<string, unknown>;
  if (!('aliases' in fields) && !('tags' in fields)) return fields;
  const out: Record<string, unknown> = { ...fields };
  for (const name of ['aliases', 'tags'] as const) {
    const list = fields[name] as string[] | null | undefined;
    if (list !== undefined) out[name] = list?.length ? list : null;
  }
  if ('aliases' in fields) out.aliasText = (out.aliases as string[] | null)?.join('\n') ?? null;
  return out;
}
