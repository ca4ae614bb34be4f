import { type Static, Type } from '@sinclair/typebox';
import { AnnotationSchema } from '../annotations/schemas.js';
import { Nullable, Strict, Timestamp, literals, named } from '../api/common-schemas.js';
import { CursorParam } from '../api/cursor.js';
import { linkTypes } from '../nodes/link-types.js';
import { LinkTypeSchema, NodeStatusSchema } from '../nodes/schemas.js';
import { Content, PlaybookRef, VersionStatus } from '../playbooks/schemas.js';

const maxNodes = Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Hard cap on returned nodes; what it cuts is listed in omittedNodeIds' });
const depth = Type.Integer({ minimum: 1, maximum: 5, default: 2, description: 'Hops from the playbook any link type may take; requires links are followed at any depth' });
const changedSince = Type.String({ format: 'date-time', description: 'Keep only ranked nodes updated after this moment (the ranking is unchanged)' });
const maxTokens = Type.Integer({
  minimum: 1,
  maximum: 10_000_000,
  description:
    'Token budget (o200k_base) of the whole JSON answer: nodes are taken in rank order while the answer fits; the first that does not fit and ' +
    'every node after it are left out with reason max-tokens, and the omitted lists then hold only the first few (omittedCount says how many, ' +
    'cursor continues after the last node returned). 400 when even the answer without any node does not fit. Absent: no budget',
});
const cursor = Type.Optional({ ...CursorParam, description: 'The cursor of a budgeted answer: the next nodes of the same ranking, after the ones it returned' });
const includeAnnotations = Type.Boolean({ default: true, description: 'Add the annotations the caller may see on the playbook, its versions and the returned nodes' });
// A playbook is named as everywhere else (the MCP tools, the context query): by its id or its slug.
const playbookId = { ...PlaybookRef, description: 'The playbook: its id (pb_…) or its slug' };

export const BundleQuery = Strict(
  {
    playbookId,
    mode: Type.Union([Type.Literal('summary'), Type.Literal('standard'), Type.Literal('full')], {
      default: 'standard',
      description: 'summary: no content (agentSummary, or the description); standard: content; full: content, description, agentSummary and the links among the returned nodes',
    }),
    maxNodes,
    depth,
    includeAnnotations,
    changedSince: Type.Optional(changedSince),
    maxTokens: Type.Optional(maxTokens),
    cursor,
  },
  { required: ['playbookId'] },
);

export const ManifestQuery = Strict(
  { playbookId, maxNodes, depth, includeAnnotations, changedSince: Type.Optional(changedSince), maxTokens: Type.Optional(maxTokens), cursor },
  { required: ['playbookId'] },
);

const Reason = named('RankReason', Type.Object({
  // A superseded node is reached by its other links: supersedes is never the reason.
  kind: literals(['read-first', ...linkTypes.filter((t) => t !== 'supersedes')]),
  fromId: Nullable(Type.String({ description: 'The playbook or node the last link comes from; null for read-first' })),
  depth: Type.Integer({ description: 'Hops from the playbook on the best path (1 = linked straight from it; read-first nodes count as 1)' }),
  openFeedback: Type.Optional(Type.Array(literals(['incorrect', 'outdated'] as const), {
    description: 'Present when open feedback of these types flags the node: it then ranks after every unflagged node (with superseded ones) until the feedback is resolved or dismissed',
  })),
}));

const rankedFields = {
  id: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  nodeType: Type.String(),
  importance: Type.Number(),
  readFirst: Type.Boolean(),
  edgeCaseOnly: Type.Boolean(),
  updatedAt: Timestamp,
  score: Type.Number({ description: 'Higher ranks first; consistent with the order' }),
  reason: Reason,
};

const BundleNode = named('BundleNode', Type.Object({
  ...rankedFields,
  content: Type.Optional(Nullable(Type.String({ description: 'standard and full modes' }))),
  agentSummary: Type.Optional(Nullable(Type.String({ description: 'summary mode: the agentSummary, or the description; full mode: the agentSummary' }))),
  description: Type.Optional(Type.String({ description: 'full mode' })),
}));

const ManifestNode = named('ManifestNode', Type.Object({
  ...rankedFields,
  agentSummary: Nullable(Type.String()),
  description: Type.String(),
  approxTokens: Type.Integer({ description: 'Characters of content / 4, rounded up' }),
  tokenCount: Type.Integer({ description: 'Tokens (o200k_base) of the content, counted when the node was written' }),
}));

const PlaybookHead = named('PlaybookHead', Type.Object({
  id: Type.String(),
  title: Type.String(),
  slug: Type.String(),
  latestVersion: Nullable(Type.Object({ id: Type.String(), versionNumber: Type.Integer(), status: VersionStatus })),
  activeVersion: Nullable(
    Type.Object({ id: Type.String(), versionNumber: Type.Integer(), status: VersionStatus, content: Content, changeNote: Nullable(Type.String()) }),
  ),
}));

const Omitted = Type.Array(
  Type.Object({ id: Type.String(), reason: literals(['max-nodes', 'max-tokens'] as const) }),
  { description: 'Ranked nodes left out, in rank order, with what cut them: maxNodes or the maxTokens budget (with maxTokens, only the first few)' },
);
/** How a budgeted answer says what it left out without a list that outgrows it. */
const omittedCount = Type.Integer({ minimum: 0, description: 'How many nodes were left out (the omitted list may hold only the first few)' });
const nextCursor = Type.Optional(
  Type.String({ description: 'Present when the maxTokens budget left nodes out: ask again with cursor set to it for the nodes after the ones returned' }),
);
const tokenCount = Type.Integer({
  description: 'Tokens (o200k_base) of the node texts the answer carries: content (standard), agentSummary or description (summary), all three (full, manifest: description and agentSummary)',
});

const retrievalFields = {
  playbook: PlaybookHead,
  annotations: Type.Array(AnnotationSchema),
  truncated: Type.Boolean(),
  omittedNodeIds: Type.Array(Type.String(), { description: 'The ids of omitted, in the same order' }),
  omitted: Omitted,
  omittedCount,
  cursor: nextCursor,
  tokenCount,
};

const LinkAmong = Type.Object({
  id: Type.String(), sourceId: Type.String(), targetId: Type.String(), linkType: LinkTypeSchema,
  sections: Type.Array(Type.String(), { description: 'For a wikilink [[Name#Heading]]: the sections of the target it names; else empty' }),
});

export const BundleSchema = Type.Object({
  ...retrievalFields,
  nodes: Type.Array(BundleNode),
  links: Type.Optional(Type.Array(LinkAmong, { description: 'full mode' })),
});

export const ManifestSchema = Type.Object({ ...retrievalFields, nodes: Type.Array(ManifestNode) });

/**
 * The envelope an agent reads (the MCP tools' answers): what was left out is counted and continued by the cursor,
 * never listed (ids an agent cannot use cost it tokens), and the playbook is its approved version's content alone.
 */
const AgentPlaybook = Type.Object({
  id: Type.String(),
  title: Type.String(),
  slug: Type.String(),
  activeVersion: Nullable(Type.Object({ id: Type.String(), versionNumber: Type.Integer(), content: Content }, { description: 'The approved version; null when there is none' })),
});
const agentFields = {
  playbook: AgentPlaybook,
  annotations: Type.Array(AnnotationSchema),
  omittedCount: Type.Integer({
    minimum: 0,
    description: 'How many ranked nodes were left out: by the budget (cursor continues with them) or by maxNodes (ask with a larger one)',
  }),
  cursor: nextCursor,
  tokenCount,
};
export const AgentBundleSchema = Type.Object({ ...agentFields, nodes: Type.Array(BundleNode), links: Type.Optional(Type.Array(LinkAmong, { description: 'full mode' })) });
export const AgentManifestSchema = Type.Object({ ...agentFields, nodes: Type.Array(ManifestNode) });

/**
 * A bundle or manifest request as the service takes it: the validated query and, from an MCP tool only (the
 * REST query is strict), the agent's envelope. It is part of the query the response cache keys by, so the two
 * envelopes never share an entry.
 */
export type RetrievalRequest = ManifestQuery & { envelope?: 'agent' };

export const FollowQuery = Strict({
  linkType: Type.Optional(Type.Array(LinkTypeSchema, { description: 'Repeatable; all link types when absent' })),
  direction: Type.Union([Type.Literal('outgoing'), Type.Literal('incoming'), Type.Literal('both')], { default: 'outgoing' }),
  depth: Type.Integer({ minimum: 1, maximum: 5, default: 1 }),
  maxNodes: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  maxTokens: Type.Optional(maxTokens),
  cursor,
});

export const FollowSchema = Type.Object({
  node: Type.Object({ id: Type.String(), title: Type.String(), slug: Type.String() }),
  nodes: Type.Array(
    Type.Object({
      id: Type.String(),
      slug: Type.String(),
      title: Type.String(),
      nodeType: Type.String(),
      importance: Type.Number(),
      linkType: LinkTypeSchema,
      depth: Type.Integer(),
      path: Type.Array(Type.String(), { description: 'Node ids from the start node to this one, both included' }),
      score: Type.Number(),
      tokenCount: Type.Integer({ description: 'Tokens (o200k_base) of its content' }),
    }),
  ),
  omitted: Type.Array(Type.Object({ id: Type.String(), reason: Type.Literal('max-tokens') }), { description: 'Nodes the maxTokens budget left out, in rank order (only the first few)' }),
  omittedCount,
  cursor: nextCursor,
  tokenCount: Type.Integer({ description: 'Tokens of the returned nodes’ content (what reading them costs)' }),
});

export const UpdatesQuery = Strict(
  {
    since: Type.String({ format: 'date-time' }),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
    cursor: Type.Optional({ ...CursorParam, description: 'The cursor of the previous page: the changes after its last node (since is then ignored). Pages by cursor hold at most limit nodes, equal timestamps or not' }),
  },
  { required: ['since'] },
);

export const UpdatesSchema = Type.Object({
  nodes: Type.Array(Type.Object({ id: Type.String(), slug: Type.String(), title: Type.String(), status: NodeStatusSchema, updatedAt: Timestamp })),
  until: Timestamp,
  cursor: Type.String({ description: 'Where this page ended: ask with it for the changes after it, never skipping one' }),
});

export type BundleQuery = Static<typeof BundleQuery>;
export type ManifestQuery = Static<typeof ManifestQuery>;
export type Bundle = Static<typeof BundleSchema>;
export type Mode = BundleQuery['mode'];
export type LinkAmong = Static<typeof LinkAmong>;
export type RankReason = Static<typeof Reason>;
export type ManifestNode = Static<typeof ManifestNode>;
export type PlaybookHead = Static<typeof PlaybookHead>;
export type FollowQuery = Static<typeof FollowQuery>;
export type FollowResult = Static<typeof FollowSchema>;
export type NodeChange = UpdatesSchema['nodes'][number];
type UpdatesSchema = Static<typeof UpdatesSchema>;
