import type { Caller } from '../auth/caller.js';
import { notFound } from '../errors.js';
import { decodeCursor, encodeCursor } from '../api/cursor.js';
import { answerWithin, budgetTooSmall, longestFit, shortenToFit } from '../tokens/token-fit.js';
import type { ServiceDeps } from '../service-deps.js';
import { relationshipTypeOf } from '../nodes/link-types.js';
import { agentAnswer, agentPlaybookOf, agentWithin, nodeView, omittedListed, playbookOf, restAnswer } from './envelopes.js';
import { RetrievalRepository } from './repository.js';
import type { BundleQuery, FollowQuery, Mode, NodeChange, RetrievalRequest } from './schemas.js';

/**
 * Bundles, manifests, follow and updates. A bundle or manifest depends only on the workspace's graph, the
 * parameters and (with annotations) the caller: its route keeps the answer in the response cache.
 */
export class RetrievalService {
  private readonly repo: RetrievalRepository;
  constructor(deps: Pick<ServiceDeps, 'graph'>) {
    this.repo = new RetrievalRepository(deps.graph);
  }

  bundle(caller: Caller, q: BundleQuery & Pick<RetrievalRequest, 'envelope'>) {
    return this.answer(caller, q, q.mode);
  }

  manifest(caller: Caller, q: RetrievalRequest) {
    return this.answer(caller, q, 'manifest');
  }

  /** Plans the retrieval statements with request-shaped parameters, so that the first requests after a start do not wait for it. */
  warmUp(): Promise<void> {
    return this.repo.warmUp();
  }

  /**
   * Up to `limit` slugs of the workspace's approved playbooks or live nodes that start with `prefix`, in slug order,
   * and whether there are more: what an MCP client completes as it is typed.
   */
  async slugsStartingWith(caller: Caller, kind: 'playbook' | 'node', prefix: string, limit: number): Promise<{ slugs: string[]; more: boolean }> {
    const slugs = await this.repo.slugsStartingWith(kind, caller.workspaceId, prefix, limit + 1);
    return { slugs: slugs.slice(0, limit), more: slugs.length > limit };
  }

  private async answer(caller: Caller, q: RetrievalRequest, mode: Mode | 'manifest') {
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
    const budget = q.maxTokens;
    const parts = { ranking, nodes, views, mode, links, from };
    const itemText = (i: number) => JSON.stringify([views[i], ranking.annotations.filter((a) => a.targetId === nodes[i].id)]);
    if (q.envelope === 'agent') {
      const answerOf = agentAnswer(parts, agentPlaybookOf(ranking));
      if (budget === undefined) return answerOf(nodes.length);
      const fitted = longestFit(nodes.length, budget, answerOf, itemText);
      if (fitted && (fitted.kept > 0 || nodes.length === 0)) return fitted.answer;
      return agentWithin(answerOf, nodes.length, budget, fitted?.answer);
    }
    const answerOf = restAnswer(parts, playbookOf(ranking), budget !== undefined);
    if (budget === undefined) return answerOf(nodes.length);
    const fitted = longestFit(nodes.length, budget, answerOf, itemText);
    if (fitted && (fitted.kept > 0 || nodes.length === 0)) return fitted.answer;
    if (!fitted) throw budgetTooSmall(budget, 'query');
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
