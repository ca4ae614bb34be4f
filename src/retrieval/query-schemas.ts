import { type Static, Type } from '@sinclair/typebox';
import { Nullable, Strict, literals, named } from '../api/common-schemas.js';
import { CursorParam } from '../api/cursor.js';
import { NodeTypeSchema } from '../nodes/schemas.js';
import { PlaybookRef } from '../playbooks/schemas.js';

const linkTypeNames = ['requires', 'references', 'relates-to', 'index-entry'] as const;

export const ContextQueryBody = Strict({
  q: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 2_000,
    description: 'The question or task, in any language, as a sentence: searched by its words (any word, BM25) and by its meaning (embeddings)',
  })),
  vector: Type.Optional(Type.Array(Type.Number(), {
    minItems: 1,
    maxItems: 8_192,
    description: 'A query vector of your own, of the dimension in use (GET …/embeddings): searched by meaning instead of embedding q',
  })),
  playbookId: Type.Optional({ ...PlaybookRef, description: 'A playbook (id or slug) whose neighbourhood (nodes it links to, and theirs) ranks first among the results' }),
  depth: Type.Integer({ minimum: 0, maximum: 3, default: 1, description: 'Hops of links walked from the best matches (0: matches only); requires links are followed past it' }),
  nodeType: Type.Optional(NodeTypeSchema),
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only nodes with this tag (ignoring case)' })),
  mode: literals(['hybrid', 'words', 'meaning'] as const, {
    default: 'hybrid',
    description: 'hybrid: words and meaning fused; words: BM25 alone; meaning: embeddings alone. Hybrid without embeddings (off, or the provider down) searches by words',
  }),
  limit: Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Nodes of one answer at most' }),
  maxTokens: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: 10_000_000,
    description: 'Token budget (o200k_base) of the whole JSON answer: nodes are taken in rank order while it fits; cursor continues after them. 400 when not even the answer without any node fits',
  })),
  cursor: Type.Optional({ ...CursorParam, description: 'The cursor of an earlier answer: the next nodes of the same ranking' }),
});
export type ContextQueryBody = Static<typeof ContextQueryBody>;

const QueryReason = named('QueryReason', Type.Object({
  kind: literals(['matched', 'linked'] as const, { description: 'matched: found by the question itself; linked: reached along a link from a node of the answer' }),
  by: Type.Optional(Type.Array(literals(['meaning', 'words'] as const), { description: 'matched: which searches found it' })),
  section: Type.Optional(Nullable(Type.String({ description: 'matched by meaning: the heading of the passage that matched best (null: the note’s opening)' }))),
  fromId: Type.Optional(Type.String({ description: 'linked: the node the link was followed from' })),
  linkType: Type.Optional(literals(linkTypeNames)),
  direction: Type.Optional(literals(['out', 'in'] as const, { description: 'linked: out = fromId links to this node; in = this node links to fromId' })),
  depth: Type.Optional(Type.Integer({ minimum: 1, description: 'linked: hops from the nearest match' })),
  demotedBy: Type.Optional(Type.Array(Type.String(), {
    description: 'Present when the node ranks after every other: superseded (a live node or playbook supersedes it) and/or the types of open outdated/incorrect feedback about it',
  })),
  nearPlaybook: Type.Optional(Type.Boolean({ description: 'With playbookId: the node is in the playbook’s neighbourhood, which ranks first' })),
}));

export const QueryNode = named('QueryNode', Type.Object({
  id: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  nodeType: Type.String(),
  description: Nullable(Type.String()),
  content: Nullable(Type.String()),
  importance: Type.Number(),
  updatedAt: Type.String(),
  score: Type.Number({ description: 'Relevance relative to the best node of the ranking (1); comparable within one answer only' }),
  reason: QueryReason,
}));

export const ContextQueryAnswer = Type.Object({
  query: Type.Object({
    mode: literals(['hybrid', 'words', 'meaning'] as const, { description: 'The searches that ran: hybrid falls back to words when no vector could be had' }),
    depth: Type.Integer(),
    model: Nullable(Type.String({ description: 'The embedding model searched by meaning, or null' })),
    degraded: Type.Optional(Type.Literal(true, { description: 'Present when meaning was asked for but the provider could not embed the question: searched by words alone (such an answer is not cached)' })),
  }),
  nodes: Type.Array(QueryNode),
  rankedCount: Type.Integer({ minimum: 0, description: 'Nodes of the whole ranking' }),
  omittedCount: Type.Integer({ minimum: 0, description: 'Nodes of the ranking after the ones returned' }),
  cursor: Type.Optional(Type.String({ description: 'Present when nodes were left out: ask again with it for the next ones' })),
});
export type ContextQueryAnswer = Static<typeof ContextQueryAnswer>;
export type QueryNode = Static<typeof QueryNode>;
