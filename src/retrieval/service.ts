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
    return this.render(caller, ranking, mode, q.maxTokens);
  }

  private async render(caller: Caller, ranking: Ranking, mode: Mode | 'manifest', maxTokens: number | undefined) {
    const budget = withinBudget(ranking.nodes, (n) => tokensOf(n, mode), maxTokens);
    const cut = new Set(budget.cut.map((n) => n.id));
    const nodes = budget.kept;
    const nodeIds = nodes.map((n) => n.id);
    const omitted = [...budget.cut.map((n) => ({ id: n.id, reason: 'max-tokens' as const })), ...ranking.omittedNodeIds.map((id) => ({ id, reason: 'max-nodes' as const }))];
    // Full mode alone needs a second statement: the links among the returned nodes.
    const links = mode !== 'full' ? undefined : nodeIds.length > 1 ? await this.repo.linksAmong(caller.workspaceId, nodeIds) : [];
    const active = ranking.activeVersion;
    return {
      playbook: {
        ...ranking.playbook,
        latestVersion: ranking.latestVersion,
        activeVersion: active ? { ...active, content: JSON.parse(active.content), changeNote: active.changeNote ?? null } : null,
      },
      nodes: nodes.map((n) => nodeView(n, mode)),
      ...(links ? { links } : {}),
      // Annotations came for every ranked node; those of nodes the budget cut go with them.
      annotations: ranking.annotations.filter((a) => !(a.targetType === 'context_node' && cut.has(a.targetId))),
      truncated: omitted.length > 0,
      omittedNodeIds: omitted.map((o) => o.id),
      omitted,
      tokenCount: budget.tokens,
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
    const budget = withinBudget(result.nodes, (n) => n.tokenCount, q.maxTokens);
    return { node: result.node, nodes: budget.kept, omitted: budget.cut.map((n) => ({ id: n.id, reason: 'max-tokens' as const })), tokenCount: budget.tokens };
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

/**
 * Nodes taken in rank order while they fit in the budget: the first that does not fit and every node after it
 * are cut (a lower-ranked node never takes the place of a higher one). No budget: everything is kept.
 */
function withinBudget<T>(nodes: T[], tokensOf: (node: T) => number, maxTokens: number | undefined): { kept: T[]; cut: T[]; tokens: number } {
  let tokens = 0;
  let i = 0;
  for (; i < nodes.length; i++) {
    const cost = tokensOf(nodes[i]);
    if (maxTokens !== undefined && tokens + cost > maxTokens) break;
    tokens += cost;
  }
  return { kept: nodes.slice(0, i), cut: nodes.slice(i), tokens };
}

/** A text's stored count, or characters / 4 for a node the start-up backfill has not reached yet. */
const stored = (count: number | null, text: string | null) => count ?? Math.ceil((text ?? '').length / 4);

/** Tokens of the texts a node carries in an answer of this mode (what nodeView puts in). */
function tokensOf(n: RankedNode, mode: Mode | 'manifest'): number {
  const content = () => (n.tokenCount ?? n.approxTokens);
  const description = () => stored(n.descriptionTokenCount, n.description);
  const summary = () => stored(n.agentSummaryTokenCount, n.agentSummary);
  switch (mode) {
    case 'summary':
      return n.agentSummary ? summary() : description();
    case 'standard':
      return content();
    case 'full':
      return content() + description() + summary();
    case 'manifest':
      return description() + summary();
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
    reason: {
      kind: n.reasonKind === 'READ_FIRST' ? 'read-first' : linkTypeParams.linkTypeOf[n.reasonKind],
      fromId: n.reasonFromId,
      depth: n.reasonDepth,
      ...(n.reasonFeedback.length > 0 ? { openFeedback: n.reasonFeedback } : {}),
    },
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
      view.tokenCount = n.tokenCount ?? n.approxTokens;
      break;
  }
  return view;
}
