import type { Caller } from '../auth/caller.js';
import { notFound } from '../errors.js';
import { decodeCursor, encodeCursor } from '../api/cursor.js';
import { answerWithin, budgetTooSmall, longestFit, shortenToFit } from '../tokens/token-fit.js';
import type { ServiceDeps } from '../service-deps.js';
import { linkTypeParams, relationshipTypeOf } from '../nodes/link-types.js';
import { type RankedNode, type Ranking, RetrievalRepository } from './repository.js';
import type { BundleQuery, FollowQuery, LinkAmong, ManifestQuery, Mode, NodeChange } from './schemas.js';

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
    const from = q.cursor ? decodeCursor(q.cursor, isOffset).after : 0;
    const nodes = ranking.nodes.slice(from);
    // Full mode's links among the returned nodes come from a second statement: asked once for every candidate,
    // then kept to those among the nodes the answer holds.
    const links = mode === 'full' && nodes.length > 1 ? await this.repo.linksAmong(caller.workspaceId, nodes.map((n) => n.id)) : [];
    const views = nodes.map((n) => nodeView(n, mode));
    const playbook = playbookOf(ranking);
    const budget = q.maxTokens;
    const answerOf = (kept: number) => answerWithFirstNodes(ranking, playbook, nodes, views, kept, mode, { links, from, compact: budget !== undefined });
    if (budget === undefined) return answerOf(nodes.length);
    const annotationsOf = (i: number) => ranking.annotations.filter((a) => a.targetId === nodes[i].id);
    const fitted = longestFit(nodes.length, budget, answerOf, (i) => JSON.stringify([views[i], annotationsOf(i)]));
    if (!fitted) throw budgetTooSmall(budget, 'query');
    if (fitted.kept > 0 || nodes.length === 0) return fitted.answer;
    // Not even the first node fits whole: it comes with its texts cut (and marked), so that a cursor always moves on.
    return shortenToFit(answerOf(1), budget)?.answer ?? fitted.answer;
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
    const from = q.cursor ? decodeCursor(q.cursor, isOffset).after : 0;
    const nodes = result.nodes.slice(from);
    const answerOf = (kept: number) => {
      const cut = nodes.slice(kept);
      return {
        node: result.node,
        nodes: nodes.slice(0, kept),
        omitted: cut.slice(0, omittedListed).map((n) => ({ id: n.id, reason: 'max-tokens' as const })),
        omittedCount: cut.length,
        ...(cut.length > 0 ? { cursor: encodeCursor({ after: from + kept }) } : {}),
        tokenCount: nodes.slice(0, kept).reduce((sum, n) => sum + n.tokenCount, 0),
      };
    };
    return answerWithin(nodes.length, q.maxTokens, answerOf, (i) => JSON.stringify(nodes[i]));
  }

  /**
   * Changes after `since`, oldest first. `until` is the moment to ask from next time (the next page asks
   * for strictly later changes), so a full page never ends inside a run of equal timestamps: such a run is
   * held back for the next page, or, when it fills the whole page by itself, returned whole even past
   * `limit` (nothing may be skipped).
   */
  async updates(caller: Caller, since: string, limit: number, cursor?: string) {
    const from = new Date(since).toISOString();
    if (cursor) return this.updatesAfter(caller, decodeCursor(cursor, isPosition), limit);
    const rows = await this.repo.changesSince(caller.workspaceId, from, limit);
    let page = rows.slice(0, limit);
    if (rows.length > limit) {
      const boundary = rows[limit].updatedAt;
      const before = page.filter((n) => n.updatedAt !== boundary);
      page = before.length > 0 ? before : await this.repo.changesAt(caller.workspaceId, boundary);
    }
    return { nodes: page, until: page.length > 0 ? page[page.length - 1].updatedAt : from, cursor: positionAfter(page, startOf(from)) };
  }

  /**
   * Changes by cursor alone (from `since` when there is none): at most `limit` nodes, whatever their timestamps,
   * and with `maxTokens` as many of them as the answer's JSON fits; the cursor continues after the last one.
   */
  async changes(caller: Caller, q: { since: string; limit: number; cursor?: string }, maxTokens?: number) {
    const start = q.cursor ? decodeCursor(q.cursor, isPosition, '/cursor', 'body') : startOf(new Date(q.since).toISOString());
    return this.updatesAfter(caller, start, q.limit, maxTokens);
  }

  /** A page of changes after a position of the (updatedAt, id) order: at most `limit` nodes, whatever their timestamps. */
  private async updatesAfter(caller: Caller, position: Position, limit: number, maxTokens?: number) {
    const rows = await this.repo.changesAfter(caller.workspaceId, position.at, position.id, limit);
    const page = rows.slice(0, limit);
    const answerOf = (n: number) => {
      const kept = page.slice(0, n);
      return { nodes: kept, until: n > 0 ? kept[n - 1].updatedAt : position.at, cursor: positionAfter(kept, position) };
    };
    return answerWithin(page.length, maxTokens, answerOf, (i) => JSON.stringify(page[i]));
  }
}

type PlaybookAnswer = ReturnType<typeof playbookOf>;

/** The playbook as a bundle or manifest gives it: its head, latest version and active version with its content. */
function playbookOf(ranking: Ranking) {
  const active = ranking.activeVersion;
  return {
    ...ranking.playbook,
    latestVersion: ranking.latestVersion,
    activeVersion: active ? { ...active, content: JSON.parse(active.content), changeNote: active.changeNote ?? null } : null,
  };
}

/**
 * The bundle or manifest holding the first `kept` of `nodes`. A budgeted (compact) answer lists only the first
 * few of what it left out, with their count and a cursor to the next nodes, so that the list never outgrows it.
 */
function answerWithFirstNodes(
  ranking: Ranking, playbook: PlaybookAnswer, nodes: RankedNode[], views: object[], kept: number, mode: Mode | 'manifest',
  o: { links: LinkAmong[]; from: number; compact: boolean },
) {
  const returned = nodes.slice(0, kept);
  const ids = new Set(returned.map((n) => n.id));
  const cut = nodes.slice(kept);
  const omittedAll = [...cut.map((n) => ({ id: n.id, reason: 'max-tokens' as const })), ...ranking.omittedNodeIds.map((id) => ({ id, reason: 'max-nodes' as const }))];
  const omitted = o.compact ? omittedAll.slice(0, omittedListed) : omittedAll;
  return {
    playbook,
    nodes: views.slice(0, kept),
    ...(mode === 'full' ? { links: o.links.filter((l) => ids.has(l.sourceId) && ids.has(l.targetId)) } : {}),
    // Annotations came for every ranked node; those of nodes left out go with them.
    annotations: ranking.annotations.filter((a) => a.targetType !== 'context_node' || ids.has(a.targetId)),
    truncated: omittedAll.length > 0,
    omittedNodeIds: omitted.map((x) => x.id),
    omitted,
    omittedCount: omittedAll.length,
    ...(cut.length > 0 ? { cursor: encodeCursor({ after: o.from + kept }) } : {}),
    tokenCount: returned.reduce((sum, n) => sum + tokensOf(n, mode), 0),
  };
}

/** How many entries of what a budget left out an answer lists: the rest are counted, and reached by its cursor. */
const omittedListed = 5;


const isOffset = (value: any): value is { after: number } => Number.isInteger(value?.after) && value.after >= 0 && value.after <= 1000;

/** A position in the (updatedAt, id) order of changes. */
interface Position {
  at: string;
  id: string;
}
/** Where the changes after a moment start: after every node changed at that moment (no id sorts after this one). */
const startOf = (at: string): Position => ({ at, id: '\uffff' });
const isPosition = (value: any): value is Position =>
  typeof value?.at === 'string' && !Number.isNaN(Date.parse(value.at)) && typeof value?.id === 'string' && value.id.length <= 100;

/** The cursor after a page: its last node, or where it started when it is empty. */
function positionAfter(page: NodeChange[], start: Position): string {
  const last = page[page.length - 1];
  return encodeCursor(last ? { at: last.updatedAt, id: last.id } : start);
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
