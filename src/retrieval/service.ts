import type { Caller } from '../auth/caller.js';
import { notFound } from '../errors.js';
import { decodeCursor, encodeCursor } from '../api/cursor.js';
import { type Path, answerWithin, budgetTooSmall, longestFit, shortenToFit } from '../tokens/token-fit.js';
import type { ServiceDeps } from '../service-deps.js';
import { linkTypeParams, relationshipTypeOf } from '../nodes/link-types.js';
import { type RankedNode, type Ranking, RetrievalRepository } from './repository.js';
import type { BundleQuery, FollowQuery, LinkAmong, Mode, NodeChange, RetrievalRequest } from './schemas.js';

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

/** What a bundle or manifest is made of, whichever envelope holds it. */
interface Parts {
  ranking: Ranking;
  /** The ranked nodes from the cursor on, and their views in the answer's mode. */
  nodes: RankedNode[];
  views: object[];
  mode: Mode | 'manifest';
  links: LinkAmong[];
  /** Where the cursor started: the offset of nodes[0] in the ranking. */
  from: number;
}

/** The playbook as a bundle or manifest gives it: its head, latest version and active version with its content. */
function playbookOf(ranking: Ranking) {
  const active = ranking.activeVersion;
  return {
    ...ranking.playbook,
    latestVersion: ranking.latestVersion,
    activeVersion: active ? { ...active, content: JSON.parse(active.content), changeNote: active.changeNote ?? null } : null,
  };
}

/** What every envelope says of the first `kept` nodes: the nodes, links among them, their annotations, a cursor after them. */
function firstNodes({ ranking, nodes, views, mode, links, from }: Parts, kept: number) {
  const returned = nodes.slice(0, kept);
  const ids = new Set(returned.map((n) => n.id));
  return {
    cut: nodes.slice(kept),
    nodes: views.slice(0, kept),
    ...(mode === 'full' ? { links: links.filter((l) => ids.has(l.sourceId) && ids.has(l.targetId)) } : {}),
    // Annotations came for every ranked node; those of nodes left out go with them.
    annotations: ranking.annotations.filter((a) => a.targetType !== 'context_node' || ids.has(a.targetId)),
    cursor: kept < nodes.length ? encodeCursor({ after: from + kept }) : undefined,
    tokenCount: returned.reduce((sum, n) => sum + tokensOf(n, mode), 0),
  };
}

/**
 * The REST bundle or manifest holding the first `kept` nodes. A budgeted (compact) answer lists only the first
 * few of what it left out, with their count and a cursor to the next nodes, so that the list never outgrows it.
 */
const restAnswer = (parts: Parts, playbook: ReturnType<typeof playbookOf>, compact: boolean) => (kept: number) => {
  const { cut, nodes, links, annotations, cursor, tokenCount } = firstNodes(parts, kept);
  const omittedAll = [...cut.map((n) => ({ id: n.id, reason: 'max-tokens' as const })), ...parts.ranking.omittedNodeIds.map((id) => ({ id, reason: 'max-nodes' as const }))];
  const omitted = compact ? omittedAll.slice(0, omittedListed) : omittedAll;
  return {
    playbook,
    nodes,
    ...(links ? { links } : {}),
    annotations,
    truncated: omittedAll.length > 0,
    omittedNodeIds: omitted.map((x) => x.id),
    omitted,
    omittedCount: omittedAll.length,
    ...(cursor ? { cursor } : {}),
    tokenCount,
  };
};

/** The playbook as an agent's answer gives it: its head and its approved version's content (AgentBundleSchema). */
function agentPlaybookOf({ playbook, activeVersion: active }: Ranking) {
  return { ...playbook, activeVersion: active ? { id: active.id, versionNumber: active.versionNumber, content: JSON.parse(active.content) } : null };
}

/**
 * The agent's bundle or manifest holding the first `kept` nodes: what it left out counted, and the cursor to
 * continue, which it carries only when it moves on (an answer without a node needs a larger budget, not a cursor).
 */
const agentAnswer = (parts: Parts, playbook: ReturnType<typeof agentPlaybookOf>) => (kept: number) => {
  const { cut, nodes, links, annotations, cursor, tokenCount } = firstNodes(parts, kept);
  return {
    playbook,
    nodes,
    ...(links ? { links } : {}),
    annotations,
    omittedCount: cut.length + parts.ranking.omittedNodeIds.length,
    ...(cursor && kept > 0 ? { cursor } : {}),
    tokenCount,
  };
};

/** The texts an agent's answer may cut: its first node's, then its envelope's (ids, slugs and the cursor stay whole). */
const nodeTexts = new Set(['content', 'agentSummary', 'description']);
const isNodeText = (path: Path) => path[0] === 'nodes' && path[1] === 0 && path.length === 3 && nodeTexts.has(String(path[2]));
const isEnvelopeText = (path: Path) =>
  (path[0] === 'playbook' && path[1] === 'activeVersion' && path[2] === 'content') || (path[0] === 'annotations' && (path[2] === 'content' || path[2] === 'title'));

/**
 * An agent's answer when not even its first node fits whole: that node with its texts cut (and marked), so that the
 * cursor moves on. When not even the node's head fits beside the playbook, the playbook alone (its instructions and
 * annotations cut when they outgrow the budget), which counts what it left out and has no cursor: only a larger
 * budget gets further. Refused only when not even that fits.
 */
function agentWithin<A extends { nodes: object[] }>(answerOf: (kept: number) => A, count: number, budget: number, alone: A | undefined): A {
  const first = count > 0 ? shortenToFit(answerOf(1), budget, isNodeText) : undefined;
  const fitted = first?.answer ?? alone ?? shortenToFit(answerOf(0), budget, isEnvelopeText)?.answer;
  if (!fitted) throw budgetTooSmall(budget, 'query');
  return fitted;
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
