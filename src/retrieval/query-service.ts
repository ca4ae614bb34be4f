import type { Caller } from '../auth/caller.js';
import { decodeCursor, encodeCursor } from '../api/cursor.js';
import type { EmbeddingService } from '../embeddings/service.js';
import { AppError, notFound } from '../errors.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import { wordsQuery } from '../nodes/search-query.js';
import { budgetTooSmall, longestFit, shortenToFit } from '../tokens/token-fit.js';
import type { ContextQueryAnswer, ContextQueryBody, QueryNode } from './query-schemas.js';
import { type Candidate, type LinkStep, type Marks, admit, fuse, matchedReason, rank, walkSeeds } from './query-ranking.js';

/** Nodes each side of the search gives the fusion. */
const perSide = 50;
/**
 * Hits asked of the shared full-text index before they are kept to the workspace's (query-words.cypher): a
 * workspace whose nodes these leave short of perSide is searched again without the bound.
 */
const wordsCandidates = 4 * perSide;
/** Links followed from one node per step of the walk (the most important first). */
const linksPerNode = 25;
/** Steps of requires links followed past the walk's depth: what a node requires comes with it (query-expand.cypher: 7 + 1). */
const requiresSteps = 8;
/** The ranking an answer pages through: enough for several pages, bounded. */
const rankedAtMost = 200;

type Mode = ContextQueryBody['mode'];

/**
 * POST {ws}/context/query: the workspace's context for a question, as docs/retrieval.md tells it. Seeds come from
 * the words (BM25) and the meaning (nearest passages) of the question, fused by reciprocal rank; then the walk
 * follows links from the best seeds with a bundle's semantics; the whole ranking is ordered (query-ranking.ts) and
 * its page fitted to maxTokens. The answer depends only on the graph (embeddings included), the body and the model,
 * so its route keeps it in the response cache under the graph generation.
 */
export class ContextQueryService {
  constructor(private readonly deps: { graph: GraphExecutor; embeddings: EmbeddingService; playbookIdOf(caller: Caller, ref: string): Promise<string> }) {}

  async query(caller: Caller, body: ContextQueryBody): Promise<ContextQueryAnswer> {
    this.check(body);
    if (body.vector) await this.deps.embeddings.checkVector(body.vector, '/vector');
    const playbookId = body.playbookId === undefined ? null : await this.playbookOf(caller, body.playbookId);
    const from = body.cursor ? decodeCursor(body.cursor, isOffset, '/cursor', 'body').after : 0;
    const { query, ranked, marks } = await this.ranking(caller.workspaceId, body, playbookId);
    const page = ranked.slice(from, from + body.limit);
    const top = ranked[0]?.score || 1;
    const rows = await this.deps.graph.read<Omit<QueryNode, 'score' | 'reason'>>('retrieval/query-nodes', { workspaceId: caller.workspaceId, ids: page.map((c) => c.id) });
    const nodes: QueryNode[] = rows.map((row, i) => ({ ...row, score: round(page[i].score / top), reason: reasonOf(page[i], marks.get(page[i].id)!, playbookId !== null) }));
    const answerOf = (kept: number): ContextQueryAnswer => {
      const next = from + kept;
      return {
        query,
        nodes: nodes.slice(0, kept),
        rankedCount: ranked.length,
        omittedCount: ranked.length - next,
        ...(next < ranked.length ? { cursor: encodeCursor({ after: next }) } : {}),
      };
    };
    if (body.maxTokens === undefined) return answerOf(nodes.length);
    const fitted = longestFit(nodes.length, body.maxTokens, answerOf, (i) => JSON.stringify(nodes[i]));
    if (!fitted) throw budgetTooSmall(body.maxTokens, 'body');
    if (fitted.kept > 0 || nodes.length === 0) return fitted.answer;
    // Not even the first node fits whole: it comes with its texts cut (and marked), so that a cursor always moves on.
    return shortenToFit(answerOf(1), body.maxTokens)?.answer ?? fitted.answer;
  }

  /** What the body asks that cannot be answered whatever the graph holds: a 400 naming the field. */
  private check(body: ContextQueryBody): void {
    const { embeddings } = this.deps;
    if (body.q === undefined && body.vector === undefined) throw invalid('/q', 'Give q (a question) or vector');
    if (body.mode === 'words' && body.q === undefined) throw invalid('/q', 'mode words searches the words of q: give q');
    if (body.mode === 'meaning' && !body.vector && !embeddings.provider) {
      throw invalid('/mode', embeddings.enabled ? 'Without a provider, meaning needs a vector: give vector' : 'Embeddings are off (EMBEDDINGS=off): search with mode words or hybrid');
    }
  }

  /** The whole ranking: the two sides fused, the walk, the marks and the order; and how it was searched. */
  private async ranking(workspaceId: string, body: ContextQueryBody, playbookId: string | null) {
    const { embeddings } = this.deps;
    const [words, meaning] = await Promise.all([this.wordsSide(workspaceId, body), this.meaningSide(workspaceId, body)]);
    const mode: Mode = meaning && words ? 'hybrid' : meaning ? 'meaning' : 'words';
    // Asked for meaning, with a provider that could not embed the question now.
    const degraded = body.mode !== 'words' && !meaning && !body.vector && embeddings.provider !== undefined;
    const seeds = fuse(words ?? [], meaning ?? []);
    const candidates = new Map<string, Candidate>(seeds.map((s) => [s.id, { id: s.id, score: s.score, reason: matchedReason(s) }]));
    const own = new Map(seeds.map((s) => [s.id, s.score]));
    const marks = await this.expand(workspaceId, candidates, own, seeds.slice(0, walkSeeds).map((s) => s.id), body, playbookId);
    return {
      query: { mode, depth: body.depth, model: meaning ? embeddings.model : null, ...(degraded ? { degraded: true as const } : {}) },
      ranked: rank([...candidates.values()].filter((c) => marks.has(c.id)), marks).slice(0, rankedAtMost),
      marks,
    };
  }

  private async playbookOf(caller: Caller, ref: string): Promise<string> {
    const id = await this.deps.playbookIdOf(caller, ref);
    const [row] = await this.deps.graph.read('retrieval/playbook-exists', { workspaceId: caller.workspaceId, playbookId: id });
    if (!row) throw notFound('Playbook');
    return id;
  }

  /** Node ids best first by BM25, or undefined when the words are not searched. */
  private async wordsSide(workspaceId: string, body: ContextQueryBody): Promise<string[] | undefined> {
    if (body.mode === 'meaning' || body.q === undefined) return undefined;
    const query = wordsQuery(body.q);
    if (!query) return [];
    const search = (candidates: number | null) => this.deps.graph.read('retrieval/query-words', { workspaceId, query, candidates, limit: perSide });
    let rows = await search(wordsCandidates);
    // The bounded search was filled by other workspaces' nodes: this one's best may lie past it.
    if (rows.length < perSide && (rows[0]?.scanned ?? 0) >= wordsCandidates) rows = await search(null);
    return rows.map((r) => r.id as string);
  }

  /** Node ids nearest by meaning with their best passage's section, or undefined when no vector could be had. */
  private async meaningSide(workspaceId: string, body: ContextQueryBody): Promise<{ id: string; section: string | null }[] | undefined> {
    if (body.mode === 'words') return undefined;
    const { embeddings } = this.deps;
    const vector = body.vector ?? (body.q !== undefined ? await embeddings.questionVector(body.q) : undefined);
    if (!vector) {
      if (body.mode === 'meaning') throw new AppError('service_unavailable', 'The embeddings provider cannot embed the question now: try again, or search with mode words', { headers: { 'Retry-After': '5' } });
      return undefined;
    }
    return embeddings.nearest(workspaceId, vector, perSide);
  }

  /**
   * Walks `depth` steps of links of any type from the seeds; then follows requires links out of every candidate, up
   * to requiresSteps deep (what a node of the answer requires comes with it), and reads what ranks the candidates
   * beyond their scores. The last step of the walk, the closure and the marks are one statement (query-expand.cypher):
   * a query at the default depth makes three round trips after its vector (nearest, this, the page's nodes).
   * The marks leave out the nodes the filters leave out (or archived meanwhile).
   */
  private async expand(workspaceId: string, candidates: Map<string, Candidate>, own: Map<string, number>, seeds: string[], body: ContextQueryBody, playbookId: string | null): Promise<Map<string, Marks>> {
    let frontier = body.depth > 0 ? seeds : [];
    for (let step = 1; ; step++) {
      const last = step >= body.depth || frontier.length === 0;
      // The candidates so far matter only to the last step's closure and marks.
      const params = { workspaceId, frontier, known: last ? [...candidates.keys()] : [], perNode: linksPerNode, last, playbookId };
      const [expansion] = await this.deps.graph.read<Expansion>('retrieval/query-expand', params);
      const reached = admit(candidates, expansion.links, step, own);
      if (last) {
        for (let s = 1; s <= requiresSteps; s++) admit(candidates, expansion.requires.filter((r) => r.step === s), s, own);
        return marksOf(expansion.marks, body);
      }
      frontier = reached;
    }
  }
}

interface Expansion {
  links: LinkStep[];
  requires: (LinkStep & { step: number })[];
  marks: { id: string; nodeType: string; tags: string[]; superseded: boolean; flags: string[]; nearPlaybook: boolean }[];
}

/** The marks of the nodes the query's filters keep. */
function marksOf(rows: Expansion['marks'], body: ContextQueryBody): Map<string, Marks> {
  const tag = body.tag?.toLowerCase();
  return new Map(
    rows
      .filter((r) => (!body.nodeType || r.nodeType === body.nodeType) && (!tag || r.tags.some((t) => t.toLowerCase() === tag)))
      .map((r) => [r.id, { superseded: r.superseded, flags: r.flags, nearPlaybook: r.nearPlaybook }]),
  );
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;

const apiLinkType = { REQUIRES: 'requires', REFERENCES: 'references', RELATES_TO: 'relates-to', INDEX_ENTRY: 'index-entry' } as const;

function reasonOf(candidate: Candidate, marks: Marks, withPlaybook: boolean): QueryNode['reason'] {
  const { reason } = candidate;
  const demotedBy = [...(marks.superseded ? ['superseded'] : []), ...marks.flags];
  const base = reason.kind === 'matched' ? { ...reason } : { ...reason, linkType: apiLinkType[reason.linkType] };
  return { ...base, ...(demotedBy.length ? { demotedBy } : {}), ...(withPlaybook ? { nearPlaybook: marks.nearPlaybook } : {}) };
}

const invalid = (path: string, message: string) => new AppError('invalid_request', message, { errors: [{ path, message, in: 'body' }] });

const isOffset = (value: any): value is { after: number } => Number.isInteger(value?.after) && value.after >= 0 && value.after <= rankedAtMost;
