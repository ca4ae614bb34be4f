import { type Static, Type } from '@sinclair/typebox';
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
  literals,
  named,
} from '../api/common-schemas.js';
import { maxWikilinkTargets } from './wikilinks.js';
import { linkTypes } from './link-types.js';

/** Request and response schemas of the context node and link endpoints; the types below are derived from them. */

export const nodeTypes = ['brand', 'process', 'reference', 'domain-knowledge', 'example', 'index'] as const;

export const NodeTypeSchema = named('NodeType', literals(nodeTypes, { description: 'brand, process, reference, domain-knowledge, example or index' }));
export const LinkTypeSchema = named('LinkType', literals(linkTypes, {
  description:
    'requires: the source depends on the target (always included); references: the source mentions the target; ' +
    'relates-to: loosely related; supersedes: the source replaces the target; index-entry: the source is an index cataloguing the target',
}));
const nodeStatuses = ['live', 'archived'] as const;
export const NodeStatusSchema = named('NodeStatus', literals(nodeStatuses));
const Importance = Type.Integer({ minimum: 0, maximum: 100, description: 'Retrieval priority, 0 to 100 (an integer)' });
const Content = Type.String({
  maxLength: 500_000,
  description:
    'Markdown. Each wikilink outside code spans and fenced code blocks ([[Name]], [[Name|label]], ![[Name]], [[folder/Name]], [[Name#Heading]], [[Name#^block]]) ' +
    'becomes a references link (origin wikilink) to the node of this workspace that the name names, compared ignoring case after Unicode NFC: ' +
    'by slug first, then by name (an imported file’s name or path tail, or the title), then by alias; among nodes of one name, the one with the shortest path. ' +
    'A name no node has is an unresolved link until a node takes it. [[#Heading]] and links to attachments (images, PDFs, .canvas…) are no links. ' +
    `At most ${maxWikilinkTargets} distinct names.`,
});
const AgentSummary = Type.String({ maxLength: 2000, description: 'Concise summary for AI consumption' });
export const maxAliases = 50;
const Aliases = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  maxItems: maxAliases,
  description: `Other names wikilinks may call the node by ([[alias]]), 1 to 200 characters each, at most ${maxAliases}; trimmed and put in NFC, duplicates (ignoring case) dropped, order kept. Searchable.`,
});
export const maxNodeTags = 100;
const NodeTags = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: maxNodeTags,
  description: `Tags, without their # (a folder import takes front-matter tags and inline #tags), 1 to 100 characters each, at most ${maxNodeTags}; trimmed and put in NFC, a leading # dropped, duplicates (ignoring case) dropped, order kept. The node list filters by one (?tag=).`,
});
const SourcePath = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'The path of the file the node was made from, relative to its folder, with / between folders (guides/First Week.md): a folder import sets it and finds the node by it on a re-import; wikilinks name the node by its file name and path tails. A relative path without empty, . or .. segments.',
});

export const NodeSchema = named('ContextNode', Type.Object({
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
  status: NodeStatusSchema,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  archivedAt: NullableTimestamp,
  aliases: Type.Array(Type.String(), { description: 'Other names wikilinks may call the node by; empty when none' }),
  tags: Type.Array(Type.String(), { description: 'Empty when none' }),
  sourcePath: Nullable(Type.String({ description: 'The file the node was imported from, relative to its folder; null for a node made through the API' })),
}));

const LinkProperties = {
  id: Type.String(),
  sourceId: Type.String(),
  sourceType: literals(['context_node', 'playbook'] as const),
  targetId: Type.String(),
  linkType: LinkTypeSchema,
  origin: literals(['manual', 'wikilink'] as const, { description: 'manual (made through the API) or wikilink (from the source’s content)' }),
  createdAt: Timestamp,
};
export const LinkSchema = named('Link', Type.Object(LinkProperties));
export const LinkViewSchema = named('LinkView', Type.Object({
  ...LinkProperties,
  sections: Type.Array(Type.String(), { description: 'For a wikilink: the headings (Heading) and blocks (^block) of the target that the source’s wikilinks name ([[Name#Heading]]); empty otherwise' }),
  title: Type.String({ description: 'Title of the other end' }),
  slug: Type.String({ description: 'Slug of the other end' }),
}));

export const NodeDetailSchema = named('NodeDetail', Type.Object({
  ...NodeSchema.properties,
  outgoingLinks: Type.Array(LinkViewSchema, { description: 'Links from this node, oldest first, with the target’s title and slug' }),
  incomingLinks: Type.Array(LinkViewSchema, { description: 'Links to this node from nodes and playbooks, oldest first, with the source’s title and slug' }),
  unresolvedLinks: Type.Array(Type.String(), { description: 'Names of wikilinks in the content that no node of the workspace has yet (by slug, name, path or alias), as written, sorted' }),
}));

export const NodePageSchema = Type.Object({ nodes: Type.Array(NodeSchema), pagination: Pagination });

export const NodePath = Strict({ workspaceId: Id('Workspace id'), nodeId: Id('Context node id') });
export const NodeLinkPath = Strict({ workspaceId: Id('Workspace id'), nodeId: Id('Context node id'), linkId: Id('Link id') });
export const PlaybookPath = Strict({ workspaceId: Id('Workspace id'), playbookId: Id('Playbook id') });
export const PlaybookLinkPath = Strict({ workspaceId: Id('Workspace id'), playbookId: Id('Playbook id'), linkId: Id('Link id') });

export const CreateBody = Strict(
  {
    title: Title,
    description: Type.String({ ...Description, minLength: 1 }),
    slug: Type.Optional(Type.String({ ...Slug, description: 'Lowercase letters and digits of any script, in NFC, joined by single hyphens; generated from the title when omitted' })),
    content: Type.Optional(Content),
    nodeType: Type.Optional(NodeTypeSchema),
    agentSummary: Type.Optional(Nullable(AgentSummary)),
    importance: Type.Optional(Importance),
    readFirst: Type.Optional(Type.Boolean()),
    edgeCaseOnly: Type.Optional(Type.Boolean()),
    aliases: Type.Optional(Aliases),
    tags: Type.Optional(NodeTags),
    sourcePath: Type.Optional(Nullable(SourcePath)),
  },
  { required: ['title', 'description'] },
);
/** Every field of a create, each optional; at least one. */
export const UpdateBody = Type.Partial(CreateBody, { additionalProperties: false, minProperties: 1 });
export const ListQuery = Strict({
  nodeType: Type.Optional(NodeTypeSchema),
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only nodes with this tag (ignoring case and a leading #)' })),
  name: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 500,
    description: 'Only the node a [[wikilink]] of this name links to (slug, file name, path, title or alias, as content names it; at most one node): an empty page when no node has the name',
  })),
  status: Type.Optional(literals([...nodeStatuses, 'all'] as const, { description: 'live (default), archived or all' })),
  archived: Type.Optional(Type.Boolean({ deprecated: true, description: 'Deprecated: true = status archived, false = status live. Sending it together with status is 400.' })),
  sort: Type.Optional(literals(['updated_at', 'created_at', 'title', 'importance'] as const, {
    description: 'updated_at (default; best match first when q is given), created_at, title (ignoring case) or importance. Ties are broken by id.',
  })),
  order: Type.Optional({ ...Order, description: 'desc (default) or asc' }),
  ...PageQuery,
  q: Type.Optional(Type.String({
    maxLength: 500,
    description:
      'Full-text search over title, aliases, description, content and agentSummary. A sentence is read as a question: any of its words may match, '
      + 'ranked by BM25, with nodes that have the words adjacent in the order given, then nodes that have every word, weighted well ahead. '
      + 'Stop words (the, of, which, … in English, French, German, Spanish, Italian, Portuguese and Dutch) are left out unless q is nothing else. '
      + 'A word of letters and digits also matches as a prefix (launch finds launches); the first 32 words are searched. A "quoted phrase" '
      + 'is searched as its words and as a phrase, without prefixes. Strict forms: +word requires the word, +"quoted phrase" requires its '
      + 'words adjacent in that order, and match=all requires every word and phrase. Any text is accepted; other special characters are plain text.',
  })),
  match: Type.Optional(literals(['any', 'all'] as const, {
    description: 'How the words of q must match: any (default; the best matches first) or all (every word but stop words must match)',
  })),
});
export const LinkBody = Strict({ targetId: Id('A context node of the same workspace'), linkType: LinkTypeSchema }, { required: ['targetId', 'linkType'] });

/** Bounds of one bulk import request (besides the 1 MiB body limit). */
export const maxImportNodes = 1_000;
export const maxImportLinksPerNode = 1_000;

const ImportLinkSchema = Strict(
  {
    linkType: LinkTypeSchema,
    target: Type.String({ ...Slug, description: 'Slug of the target node: in the workspace, or in the same batch' }),
  },
  { required: ['linkType', 'target'] },
);
export const ImportNodeSchema = Strict(
  {
    ...CreateBody.properties,
    slug: Type.String({ ...Slug, description: 'The node’s key: an existing node of the workspace with this slug is compared and updated, else one is created' }),
    links: Type.Optional(Type.Array(ImportLinkSchema, {
      maxItems: maxImportLinksPerNode,
      description: 'The node’s manual links to other context nodes, all of them: links made by hand that are not listed are removed (wikilinks in content are synced apart). Omitted: manual links are left as they are.',
    })),
  },
  { required: ['slug', 'title', 'description'] },
);
export const ImportBody = Strict({
  nodes: Type.Optional(Type.Array(ImportNodeSchema, {
    maxItems: maxImportNodes,
    description: `Each item is the whole state of one node: omitted fields take their defaults (content empty, nodeType reference, importance 50, readFirst and edgeCaseOnly false, agentSummary null). At most ${maxImportNodes}.`,
  })),
  archive: Type.Optional(Type.Array(Type.String(Slug), { maxItems: maxImportNodes, description: 'Slugs of nodes to archive (a folder import’s --prune)' })),
  dryRun: Type.Optional(Type.Boolean({ description: 'Answer what would happen, write nothing' })),
});

const ItemError = Nullable(Type.Object({ code: Type.String(), message: Type.String() }, { description: 'Why the item was not written' }));
export const ImportResultSchema = Type.Object({
  dryRun: Type.Boolean(),
  written: Type.Boolean({ description: 'Whether anything was written (false when every item is unchanged or an error, or on a dry run): only then does the workspace’s graph generation (and so every ETag) change' }),
  summary: Type.Object({ created: Type.Integer(), updated: Type.Integer(), unchanged: Type.Integer(), archived: Type.Integer(), errors: Type.Integer() }),
  nodes: Type.Array(Type.Object({
    index: Type.Integer({ description: 'Position of the item in the request' }),
    slug: Type.String(),
    outcome: literals(['created', 'updated', 'unchanged', 'error'] as const),
    id: Nullable(Type.String({ description: 'The node’s id (null for an error; on a dry run, null for a node that would be created)' })),
    unresolvedLinks: Type.Array(Type.String(), { description: 'What its wikilinks name (as written) and the slugs its links name that no node has, sorted (typed links to them are not stored; wikilinks wait for their target)' }),
    error: ItemError,
  })),
  archive: Type.Array(Type.Object({
    slug: Type.String(),
    outcome: literals(['archived', 'unchanged', 'error'] as const, { description: 'unchanged: already archived' }),
    id: Nullable(Type.String()),
    error: ItemError,
  })),
});

export type NodeType = Static<typeof NodeTypeSchema>;
export type NodeStatus = Static<typeof NodeStatusSchema>;
/** A context node as stored (docs/graph-model.md) and as the API shows it. */
export type ContextNode = Static<typeof NodeSchema>;
export type Link = Static<typeof LinkSchema>;
export type SourceType = Link['sourceType'];
/** A link seen from one of its ends, with the other end's title and slug. */
export type LinkView = Static<typeof LinkViewSchema>;
export type NodeDetail = Static<typeof NodeDetailSchema>;
export type NodePage = Static<typeof NodePageSchema>;
export type CreateNodeInput = Static<typeof CreateBody>;
export type UpdateNodeInput = Static<typeof UpdateBody>;
export type ListNodesQuery = Static<typeof ListQuery>;
export type ImportNodeInput = Static<typeof ImportNodeSchema>;
export type ImportInput = Static<typeof ImportBody>;
export type ImportResult = Static<typeof ImportResultSchema>;

/** How a tool names a context node: as a [[wikilink]] may. */
export const NodeRef = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'The context node’s id (cn_…), or a name as a [[wikilink]] in content gives it: its slug, file name, path, title or an alias',
});

/** A read names the node as a tool does (the same operation takes the same references everywhere). */
export const NodeReadPath = Strict({ workspaceId: Id('Workspace id'), nodeId: NodeRef });
