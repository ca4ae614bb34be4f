import { encodeCursor } from '../api/cursor.js';
import { countTokens } from '../tokens/token-count.js';
import { type Path, budgetTooSmall, capStrings, shortenToFit } from '../tokens/token-fit.js';
import { linkTypeParams } from '../nodes/link-types.js';
import type { RankedNode, Ranking } from './repository.js';
import type { LinkAmong, Mode } from './schemas.js';

/**
 * The envelopes a bundle or manifest is answered in, for the first `kept` of its ranked nodes: REST's, which lists
 * what a budget left out, and an agent's (MCP), which counts it; each node as its mode shows it. RetrievalService
 * ranks, and fits the envelope to the budget with these.
 */

/** What a bundle or manifest is made of, whichever envelope holds it. */
export interface Parts {
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
export function playbookOf(ranking: Ranking) {
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
export const restAnswer = (parts: Parts, playbook: ReturnType<typeof playbookOf>, compact: boolean) => (kept: number) => {
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
export function agentPlaybookOf({ playbook, activeVersion: active }: Ranking) {
  return { ...playbook, activeVersion: active ? { id: active.id, versionNumber: active.versionNumber, content: JSON.parse(active.content) } : null };
}

/**
 * The agent's bundle or manifest holding the first `kept` nodes: what it left out counted, and the cursor to
 * continue, which it carries only when it moves on (an answer without a node needs a larger budget, not a cursor).
 */
export const agentAnswer = (parts: Parts, playbook: ReturnType<typeof agentPlaybookOf>) => (kept: number) => {
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
 * cursor moves on; when the playbook's instructions leave it no room, both are cut (besideInstructions). When not even
 * the node's head fits beside the playbook's, the playbook alone (its instructions and annotations cut when they
 * outgrow the budget), which counts what it left out and has no cursor: only a larger budget gets further. Refused
 * only when not even that fits.
 */
export function agentWithin<A extends { nodes: object[] }>(answerOf: (kept: number) => A, count: number, budget: number, alone: A | undefined): A {
  const withFirst = count > 0 ? answerOf(1) : undefined;
  const first = withFirst && (shortenToFit(withFirst, budget, isNodeText) ?? besideInstructions(withFirst, budget));
  const fitted = first?.answer ?? alone ?? shortenToFit(answerOf(0), budget, isEnvelopeText)?.answer;
  if (!fitted) throw budgetTooSmall(budget, 'query');
  return fitted;
}

/**
 * The first node beside the playbook's instructions, both cut: what the answer's other parts leave of the budget is
 * shared, half to the envelope's texts (each), the rest to the node's. Undefined when nothing is left for them.
 */
function besideInstructions<A extends object>(answer: A, budget: number) {
  const bare = countTokens(JSON.stringify(capStrings(answer, 0, (path) => isEnvelopeText(path) || isNodeText(path))));
  const room = budget - bare;
  if (room <= 0) return undefined;
  return shortenToFit(capStrings(answer, Math.floor(room / 2), isEnvelopeText), budget, isNodeText);
}

/** How many entries of what a budget left out an answer lists: the rest are counted, and reached by its cursor. */
export const omittedListed = 5;

/** A text's stored count, or characters / 4 for a node the start-up backfill has not reached yet. */
const stored = (count: number | null, text: string | null) => count ?? Math.ceil((text ?? '').length / 4);

/** Tokens of the texts a node carries in an answer of this mode (what nodeView puts in). */
export function tokensOf(n: RankedNode, mode: Mode | 'manifest'): number {
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

export function nodeView(n: RankedNode, mode: Mode | 'manifest') {
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
