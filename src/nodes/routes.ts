import { type TLiteral, type TUnion, Type } from '@sinclair/typebox';
import {
  Description,
  Id,
  Nullable,
  NullableTimestamp,
  Order,
  PageQuery,
  Pagination,
  Slug,
  Strict,
  Timestamp,
  Title,
} from '../http/common-schemas.js';
import { type AnyRoute, defineRoute } from '../http/route.js';
import type { NodeService } from './service.js';
import { linkTypes, nodeTypes } from './repository.js';

const literals = <T extends readonly string[]>(values: T, options: object = {}) =>
  Type.Union(values.map((v) => Type.Literal(v)), options) as unknown as TUnion<TLiteral<T[number]>[]>;

const NodeTypeSchema = literals(nodeTypes, { description: 'brand, process, reference, domain-knowledge, example or index' });
const LinkTypeSchema = literals(linkTypes, {
  description:
    'requires: the source depends on the target (always included); references: the source mentions the target; ' +
    'relates-to: loosely related; supersedes: the source replaces the target; index-entry: the source is an index cataloguing the target',
});
const StatusSchema = literals(['live', 'archived'] as const);
const Importance = Type.Integer({ minimum: 0, maximum: 100, description: 'Retrieval priority, 0 to 100 (an integer)' });
const Content = Type.String({
  maxLength: 500_000,
  description:
    'Markdown. Each [[slug]] or [[slug|label]] outside code spans and fenced code blocks becomes a references link ' +
    '(origin wikilink) to the node of this workspace with that slug, or an unresolved link until such a node exists. ' +
    'The slug inside the brackets is trimmed and lowercased; text that is not a slug is not a link.',
});
const AgentSummary = Type.String({ maxLength: 2000, description: 'Concise summary for AI consumption' });

const NodeSchema = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  description: Type.String(),
  content: Type.String({ description: 'Markdown; empty when none was given' }),
  nodeType: NodeTypeSchema,
  agentSummary: Nullable(Type.String()),
  importance: Type.Integer({ minimum: 0, maximum: 100 }),
  readFirst: Type.Boolean({ description: 'Essential context, always included' }),
  edgeCaseOnly: Type.Boolean({ description: 'Included only when specifically relevant' }),
  status: StatusSchema,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  archivedAt: NullableTimestamp,
});

const LinkProperties = {
  id: Type.String(),
  sourceId: Type.String(),
  sourceType: literals(['context_node', 'playbook'] as const),
  targetId: Type.String(),
  linkType: LinkTypeSchema,
  origin: literals(['manual', 'wikilink'] as const, { description: 'manual (made through the API) or wikilink (from the source’s content)' }),
  createdAt: Timestamp,
};
const LinkSchema = Type.Object(LinkProperties);
const LinkViewSchema = Type.Object({
  ...LinkProperties,
  title: Type.String({ description: 'Title of the other end' }),
  slug: Type.String({ description: 'Slug of the other end' }),
});

const NodeDetailSchema = Type.Object({
  ...NodeSchema.properties,
  outgoingLinks: Type.Array(LinkViewSchema, { description: 'Links from this node, oldest first, with the target’s title and slug' }),
  incomingLinks: Type.Array(LinkViewSchema, { description: 'Links to this node from nodes and playbooks, oldest first, with the source’s title and slug' }),
  unresolvedLinks: Type.Array(Type.String(), { description: 'Slugs of wikilinks in the content that no node of the workspace has yet' }),
});

const NodePath = Strict({ workspaceId: Id('Workspace id'), nodeId: Id('Context node id') });
const NodeLinkPath = Strict({ workspaceId: Id('Workspace id'), nodeId: Id('Context node id'), linkId: Id('Link id') });
const PlaybookPath = Strict({ workspaceId: Id('Workspace id'), playbookId: Id('Playbook id') });
const PlaybookLinkPath = Strict({ workspaceId: Id('Workspace id'), playbookId: Id('Playbook id'), linkId: Id('Link id') });
const WorkspaceOnly = Strict({ workspaceId: Id('Workspace id') });

const CreateBody = Strict(
  {
    title: Title,
    description: Type.String({ ...Description, minLength: 1 }),
    slug: Type.Optional(Type.String({ ...Slug, description: 'Lowercase a-z, 0-9 and single hyphens; generated from the title when omitted' })),
    content: Type.Optional(Content),
    nodeType: Type.Optional(NodeTypeSchema),
    agentSummary: Type.Optional(Nullable(AgentSummary)),
    importance: Type.Optional(Importance),
    readFirst: Type.Optional(Type.Boolean()),
    edgeCaseOnly: Type.Optional(Type.Boolean()),
  },
  { required: ['title', 'description'] },
);
const UpdateBody = Strict(
  {
    title: Type.Optional(Title),
    description: Type.Optional(Type.String({ ...Description, minLength: 1 })),
    slug: Type.Optional(Slug),
    content: Type.Optional(Content),
    nodeType: Type.Optional(NodeTypeSchema),
    agentSummary: Type.Optional(Nullable(AgentSummary)),
    importance: Type.Optional(Importance),
    readFirst: Type.Optional(Type.Boolean()),
    edgeCaseOnly: Type.Optional(Type.Boolean()),
  },
  { minProperties: 1 },
);
const ListQuery = Strict({
  nodeType: Type.Optional(NodeTypeSchema),
  status: Type.Optional(literals(['live', 'archived', 'all'] as const, { description: 'live (default), archived or all' })),
  archived: Type.Optional(Type.Boolean({ deprecated: true, description: 'Deprecated: true = status archived, false = status live. Sending it together with status is 400.' })),
  sort: Type.Optional(literals(['updated_at', 'created_at', 'title', 'importance'] as const, {
    description: 'updated_at (default; best match first when q is given), created_at, title (ignoring case) or importance. Ties are broken by id.',
  })),
  order: Type.Optional({ ...Order, description: 'desc (default) or asc' }),
  ...PageQuery,
  q: Type.Optional(Type.String({
    maxLength: 500,
    description: 'Full-text search over title, description, content and agentSummary: every word must match, a word of letters and digits also as a prefix. Any text is accepted; special characters are plain text.',
  })),
});
const LinkBody = Strict({ targetId: Id('A context node of the same workspace'), linkType: LinkTypeSchema }, { required: ['targetId', 'linkType'] });

const nodes = { tag: 'Context nodes' } as const;
const links = { tag: 'Links' } as const;
const viewers = { kind: 'workspace', minRole: 'viewer' } as const;
const editors = { kind: 'workspace', minRole: 'editor' } as const;

export function nodeRoutes(s: { nodes: NodeService }): AnyRoute[] {
  return [
    defineRoute({
      ...nodes, method: 'get', path: '/api/v1/workspaces/:workspaceId/context-nodes', operationId: 'listContextNodes', summary: 'List or search context nodes',
      cache: {},
      description: 'Live nodes by default; filter by nodeType and status, sort, page, and search with q. Sending both status and the deprecated archived is 400.',
      access: viewers, params: WorkspaceOnly, query: ListQuery,
      responses: { 200: { description: 'One page of nodes', schema: Type.Object({ nodes: Type.Array(NodeSchema), pagination: Pagination }) } },
      handler: async ({ ctx, caller, query }) => {
        ctx.body = await s.nodes.list(caller, query);
      },
    }),
    defineRoute({
      ...nodes, method: 'post', path: '/api/v1/workspaces/:workspaceId/context-nodes', operationId: 'createContextNode', summary: 'Create a context node',
      description: 'Defaults: nodeType reference, importance 50, readFirst and edgeCaseOnly false. A slug taken by another node is 409 slug_taken; without a slug one is made from the title (-2, -3, … when taken). Wikilinks in content become links at once, and wikilinks of other nodes waiting for this slug resolve to it.',
      access: editors, params: WorkspaceOnly, body: CreateBody,
      responses: { 201: { description: 'The node, with its links', schema: NodeDetailSchema } },
      errors: [409],
      handler: async ({ ctx, caller, body }) => {
        ctx.status = 201;
        ctx.body = await s.nodes.create(caller, body);
      },
    }),
    defineRoute({
      ...nodes, method: 'get', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId', operationId: 'getContextNode', summary: 'A context node with its links',
      cache: {},
      access: viewers, params: NodePath,
      responses: { 200: { description: 'The node with outgoingLinks, incomingLinks and unresolvedLinks', schema: NodeDetailSchema } },
      handler: async ({ ctx, caller, params }) => {
        ctx.body = await s.nodes.get(caller, params.nodeId);
      },
    }),
    defineRoute({
      ...nodes, method: 'patch', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId', operationId: 'updateContextNode', summary: 'Change a context node',
      description: 'Any combination of title, description, slug, content, nodeType, agentSummary (null clears it), importance, readFirst and edgeCaseOnly; other fields are 400. updatedAt moves on every edit. A content change re-syncs its wikilinks (manual links are never touched); a new slug resolves the wikilinks waiting for it.',
      access: editors, params: NodePath, body: UpdateBody,
      responses: { 200: { description: 'The updated node, with its links', schema: NodeDetailSchema } },
      errors: [409],
      handler: async ({ ctx, caller, params, body }) => {
        ctx.body = await s.nodes.update(caller, params.nodeId, body);
      },
    }),
    defineRoute({
      ...nodes, method: 'delete', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId', operationId: 'archiveContextNode', summary: 'Archive a context node',
      description: 'Soft delete: the node keeps its links and slug, gets status archived and archivedAt, leaves the default list and retrieval. Archiving an archived node changes nothing.',
      access: editors, params: NodePath,
      responses: { 204: { description: 'Archived' } },
      handler: async ({ ctx, caller, params }) => {
        await s.nodes.archive(caller, params.nodeId);
        ctx.status = 204;
      },
    }),
    defineRoute({
      ...nodes, method: 'post', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId/restore', operationId: 'restoreContextNode', summary: 'Restore an archived context node',
      description: 'Makes the node live again (archivedAt null). Restoring a live node changes nothing.',
      access: editors, params: NodePath,
      responses: { 200: { description: 'The node, with its links', schema: NodeDetailSchema } },
      handler: async ({ ctx, caller, params }) => {
        ctx.body = await s.nodes.restore(caller, params.nodeId);
      },
    }),
    defineRoute({
      ...links, method: 'post', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId/links', operationId: 'createNodeLink', summary: 'Link a context node to another',
      description: 'The target must be a context node of the same workspace (404 otherwise). A self-link is 400; a link of the same type between the same two nodes (manual or from a wikilink) is 409 duplicate_link.',
      access: editors, params: NodePath, body: LinkBody,
      responses: { 201: { description: 'The link', schema: LinkSchema } },
      errors: [409],
      handler: async ({ ctx, caller, params, body }) => {
        ctx.status = 201;
        ctx.body = await s.nodes.createLink(caller, 'context_node', params.nodeId, body);
      },
    }),
    defineRoute({
      ...links, method: 'delete', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId/links/:linkId', operationId: 'deleteNodeLink', summary: 'Delete a link going out of a context node',
      description: 'Only manual links: a link that comes from a wikilink is removed by editing the content (409 conflict here).',
      access: editors, params: NodeLinkPath,
      responses: { 204: { description: 'Deleted' } },
      errors: [409],
      handler: async ({ ctx, caller, params }) => {
        await s.nodes.deleteLink(caller, 'context_node', params.nodeId, params.linkId);
        ctx.status = 204;
      },
    }),
    defineRoute({
      ...links, method: 'post', path: '/api/v1/workspaces/:workspaceId/playbooks/:playbookId/links', operationId: 'createPlaybookLink', summary: 'Link a playbook to a context node',
      description: 'The target must be a context node of the same workspace (404 otherwise). A link of the same type to the same node is 409 duplicate_link.',
      access: editors, params: PlaybookPath, body: LinkBody,
      responses: { 201: { description: 'The link', schema: LinkSchema } },
      errors: [409],
      handler: async ({ ctx, caller, params, body }) => {
        ctx.status = 201;
        ctx.body = await s.nodes.createLink(caller, 'playbook', params.playbookId, body);
      },
    }),
    defineRoute({
      ...links, method: 'delete', path: '/api/v1/workspaces/:workspaceId/playbooks/:playbookId/links/:linkId', operationId: 'deletePlaybookLink', summary: 'Delete a link going out of a playbook',
      access: editors, params: PlaybookLinkPath,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ ctx, caller, params }) => {
        await s.nodes.deleteLink(caller, 'playbook', params.playbookId, params.linkId);
        ctx.status = 204;
      },
    }),
  ];
}
