import type { Caller } from '../auth/caller.js';
import { notFound } from '../errors.js';
import type { ServiceDeps } from '../service-deps.js';
import { linkTypeParams, relationshipTypeOf } from '../nodes/link-types.js';
import { type RankedNode, type Ranking, RetrievalRepository } from './repository.js';
import type { BundleQuery, FollowQuery, ManifestQuery, Mode } from './schemas.js';

/**
 * Bundles, manifests, follow and updates. A bundle or manifest depends only on the workspace's graph, the
 * parameters and (with annotations) the caller: its route keeps the answer in the response cache.
 */
export class RetrievalService {
  private readonly repo: RetrievalRepository;
  constructor(deps: Pick<ServiceDeps, 'graph'>) {
    this.repo = new RetrievalRepository(deps.graph);
  }

  bundle(caller: Caller, q: BundleQuery) {
    return this.answer(caller, q, q.mode);
  }

  manifest(caller: Caller, q: ManifestQuery) {
    return this.answer(caller, q, 'manifest');
  }

  /** Plans the retrieval statements with request-shaped parameters, so that the first requests after a start do not wait for it. */
  warmUp(): Promise<void> {
    return this.repo.warmUp();
  }

  private async answer(caller: Caller, q: ManifestQuery, mode: Mode | 'manifest') {
    const ranking = await this.repo.rank({
      workspaceId: caller.workspaceId,
      playbookId: q.playbookId,
      depth: q.depth,
      maxNodes: q.maxNodes,
      changedSince: q.changedSince ? new Date(q.changedSince).toISOString() : null,
      withContent: mode === 'standard' || mode === 'full',
      includeAnnotations: q.includeAnnotations,
      principalId: caller.principal.id,
    });
    if (!ranking) throw notFound('Playbook');
    return this.render(caller, ranking, mode);
  }

  private async render(caller: Caller, ranking: Ranking, mode: Mode | 'manifest') {
    const nodeIds = ranking.nodes.map((n) => n.id);
    // Full mode alone needs a second statement: the links among the returned nodes.
    const links = mode !== 'full' ? undefined : nodeIds.length > 1 ? await this.repo.linksAmong(caller.workspaceId, nodeIds) : [];
    const active = ranking.activeVersion;
    return {
      playbook: {
        ...ranking.playbook,
        latestVersion: ranking.latestVersion,
        activeVersion: active ? { ...active, content: JSON.parse(active.content), changeNote: active.changeNote ?? null } : null,
      },
      nodes: ranking.nodes.map((n) => nodeView(n, mode)),
      ...(links ? { links } : {}),
      annotations: ranking.annotations,
      truncated: ranking.omittedNodeIds.length > 0,
      omittedNodeIds: ranking.omittedNodeIds,
    };
  }

  async follow(caller: Caller, nodeId: string, q: FollowQuery) {
    const result = await this.repo.follow({
      workspaceId: caller.workspaceId,
      nodeId,
      linkTypes: q.linkType ? [...new Set(q.linkType.map((t) => relationshipTypeOf[t]))] : null,
      direction: q.direction,
      depth: q.depth,
      maxNodes: q.maxNodes,
    });
    if (!result) throw notFound('Context node');
    return result;
  }

  /**
   * Changes after `since`, oldest first. `until` is the moment to ask from next time (the next page asks
   * for strictly later changes), so a full page never ends inside a run of equal timestamps: such a run is
   * held back for the next page, or, when it fills the whole page by itself, returned whole even past
   * `limit` (nothing may be skipped).
   */
  async updates(caller: Caller, since: string, limit: number) {
    const from = new Date(since).toISOString();
    const rows = await this.repo.changesSince(caller.workspaceId, from, limit);
    let page = rows.slice(0, limit);
    if (rows.length > limit) {
      const boundary = rows[limit].updatedAt;
      const before = page.filter((n) => n.updatedAt !== boundary);
      page = before.length > 0 ? before : await this.repo.changesAt(caller.workspaceId, boundary);
    }
    return { nodes: page, until: page.length > 0 ? page[page.length - 1].updatedAt : from };
  }
}

function nodeView(n: RankedNode, mode: Mode | 'manifest') {
  const view: Record<string, unknown> = {
    id: n.id,
    slug: n.slug,
    title: n.title,
    nodeType: n.nodeType,
    importance: n.importance,
    readFirst: n.readFirst,
    edgeCaseOnly: n.edgeCaseOnly,
    updatedAt: n.updatedAt,
    score: n.score,
    reason: { kind: n.reasonKind === 'READ_FIRST' ? 'read-first' : linkTypeParams.linkTypeOf[n.reasonKind], fromId: n.reasonFromId, depth: n.reasonDepth },
  };
  switch (mode) {
    case 'summary':
      view.agentSummary = n.agentSummary || n.description;
      break;
    case 'standard':
      view.content = n.content ?? null;
      break;
    case 'full':
      view.content = n.content ?? null;
      view.description = n.description;
      view.agentSummary = n.agentSummary ?? null;
      break;
    case 'manifest':
      view.agentSummary = n.agentSummary ?? null;
      view.description = n.description;
      view.approxTokens = n.approxTokens;
      break;
  }
  return view;
}
