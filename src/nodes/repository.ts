import type { TokenCounts } from './token-count.js';
import type { GraphExecutor, GraphTx } from '../infra/neo4j.js';
import { type LinkType, linkTypeParams, relationshipTypeOf } from './link-types.js';
import type { ContextNode, NodeDetail, NodeStatus, NodeType, SourceType } from './schemas.js';

export interface ListFilter {
  nodeType: NodeType | null;
  status: NodeStatus | 'all';
  sort: 'updated_at' | 'created_at' | 'title' | 'importance' | 'relevance';
  order: 'asc' | 'desc';
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
  origin: 'manual' | 'wikilink' | null;
  deleted: boolean;
}

type Runner = Pick<GraphTx, 'run'>;

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

  async idBySlug(workspaceId: string, slug: string): Promise<string | undefined> {
    const [row] = await this.graph.read<{ id: string }>('nodes/id-by-slug', { workspaceId, slug });
    return row?.id;
  }

  /** Several statements in one write transaction, the workspace's graph locked first (see lock-workspace.cypher). */
  async inWorkspaceTx<R>(workspaceId: string, now: string, work: (tx: GraphTx) => Promise<R>): Promise<{ found: boolean; result?: R }> {
    return this.graph.writeTx(async (tx) => {
      const [row] = await tx.run('nodes/lock-workspace', { workspaceId, now });
      if (!row) return { found: false };
      return { found: true, result: await work(tx) };
    });
  }

  async takenSlugs(tx: Runner, workspaceId: string, base: string): Promise<{ id: string; slug: string }[]> {
    return (await tx.run('nodes/taken-slugs', { workspaceId, base })) as { id: string; slug: string }[];
  }

  async create(tx: Runner, workspaceId: string, node: ContextNode, counts: TokenCounts): Promise<void> {
    await tx.run('nodes/create', { workspaceId, node: { ...node, ...counts } });
  }

  async update(tx: Runner, workspaceId: string, nodeId: string, changes: Record<string, unknown>, now: string): Promise<boolean> {
    const rows = await tx.run('nodes/update', { workspaceId, nodeId, changes, now });
    return rows.length > 0;
  }

  async setStatus(tx: Runner, workspaceId: string, nodeId: string, status: NodeStatus, now: string): Promise<{ found: boolean; changed: boolean }> {
    const [row] = await tx.run('nodes/set-status', { workspaceId, nodeId, status, now });
    return { found: Boolean(row), changed: Boolean(row?.changed) };
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

  /** Re-syncs a node's wikilinks with the slugs of its content; `wanted` pairs each slug with a fresh link id. */
  async syncWikilinks(tx: Runner, workspaceId: string, nodeId: string, wanted: { slug: string; linkId: string }[], now: string): Promise<void> {
    await tx.run('links/sync-wikilinks', { workspaceId, nodeId, wanted, now });
  }

  async wikilinkSources(tx: Runner, workspaceId: string, nodeId: string): Promise<{ id: string; content: string | null }[]> {
    return (await tx.run('links/wikilink-sources', { workspaceId, nodeId })) as { id: string; content: string | null }[];
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
function toNode(raw: Record<string, any>): ContextNode {
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
  };
}
