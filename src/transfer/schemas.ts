import { type Static, Type } from '@sinclair/typebox';
import { Description, Id, Nullable, NullableTimestamp, Slug, Strict, Summary, Timestamp, Title, literals } from '../api/common-schemas.js';
import { ScopeTypeSchema, SourceSchema, TargetTypeSchema, annotationContentMax } from '../annotations/schemas.js';
import { FeedbackStatusSchema, FeedbackTypeSchema } from '../feedback/schemas.js';
import { CreateBody as NodeCreateBody, LinkTypeSchema, NodeStatusSchema, NodeTypeSchema } from '../nodes/schemas.js';
import { ChangeNote, Content, FunctionArea, Tags, VersionStatus, Visibility } from '../playbooks/schemas.js';

/**
 * The workspace export format, version 1 (docs/api.md, "Workspace export and import"): one JSON document with
 * every playbook and its versions, every context node (archived ones too), every link (with its origin), every
 * annotation and every feedback item. The same schema describes GET …/export and validates POST …/import, so an
 * export is always a valid import.
 */

export const exportFormat = 'playbooks-workspace-export';
export const exportVersion = 1;
/** An import body may be larger than other requests' 1 MiB. */
export const maxImportBytes = 64 * 1024 * 1024;
/**
 * The most items (playbooks, versions, nodes, links, annotations and feedback together) one import writes: the
 * import is written in batches, each its own transaction, and this bounds how long the whole may hold the
 * workspace. A larger document is refused with 413 before anything is written.
 */
export const maxImportItems = 250_000;

const Principal = Type.String({ minLength: 1, maxLength: 100, description: 'Id of a user (usr_…) or an agent (ag_…) of the exporting deployment, kept as it is' });

export const ExportVersion = Strict({
  id: Id('pbv_…'),
  versionNumber: Type.Integer({ minimum: 1 }),
  status: VersionStatus,
  content: Content,
  changeNote: Nullable(ChangeNote),
  createdAt: Timestamp,
  createdBy: Principal,
  approvedAt: NullableTimestamp,
}, { required: ['id', 'versionNumber', 'status', 'content', 'changeNote', 'createdAt', 'createdBy', 'approvedAt'] });

export const ExportPlaybook = Strict({
  id: Id('pb_…'),
  slug: Type.String(Slug),
  title: Title,
  summary: Nullable(Summary),
  description: Nullable(Description),
  functionArea: Nullable(FunctionArea),
  visibility: Visibility,
  ownerId: Principal,
  tags: Tags,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  archivedAt: NullableTimestamp,
  versions: Type.Array(ExportVersion, { minItems: 1, maxItems: maxImportItems, description: 'Every version, oldest first' }),
}, { required: ['id', 'slug', 'title', 'summary', 'description', 'functionArea', 'visibility', 'ownerId', 'tags', 'createdAt', 'updatedAt', 'archivedAt', 'versions'] });

const nodeFields = NodeCreateBody.properties;
export const ExportNode = Strict({
  id: Id('cn_…'),
  slug: Type.String(Slug),
  title: nodeFields.title,
  description: nodeFields.description,
  content: nodeFields.content,
  nodeType: NodeTypeSchema,
  agentSummary: nodeFields.agentSummary,
  importance: nodeFields.importance,
  readFirst: Type.Boolean(),
  edgeCaseOnly: Type.Boolean(),
  status: NodeStatusSchema,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  archivedAt: NullableTimestamp,
  aliases: Type.Optional(nodeFields.aliases),
  tags: Type.Optional(nodeFields.tags),
  sourcePath: Type.Optional(nodeFields.sourcePath),
}, { required: ['id', 'slug', 'title', 'description', 'content', 'nodeType', 'agentSummary', 'importance', 'readFirst', 'edgeCaseOnly', 'status', 'createdAt', 'updatedAt', 'archivedAt'] });

export const ExportLink = Strict({
  id: Id('lnk_…'),
  sourceType: literals(['context_node', 'playbook'] as const),
  sourceId: Id('A playbook or a context node of the export'),
  targetId: Id('A context node of the export'),
  linkType: LinkTypeSchema,
  origin: literals(['manual', 'wikilink'] as const),
  createdAt: Timestamp,
}, { required: ['id', 'sourceType', 'sourceId', 'targetId', 'linkType', 'origin', 'createdAt'] });

export const ExportAnnotation = Strict({
  id: Id('ann_…'),
  targetType: TargetTypeSchema,
  targetId: Id('A playbook, version or context node of the export'),
  scopeType: ScopeTypeSchema,
  title: Title,
  content: Type.String({ maxLength: annotationContentMax }),
  source: SourceSchema,
  authorId: Principal,
  authorKind: literals(['user', 'agent'] as const),
  createdAt: Timestamp,
}, { required: ['id', 'targetType', 'targetId', 'scopeType', 'title', 'content', 'source', 'authorId', 'authorKind', 'createdAt'] });

export const ExportFeedback = Strict({
  id: Id('fb_…'),
  targetType: TargetTypeSchema,
  targetId: Id('A playbook, version or context node of the export'),
  feedbackType: FeedbackTypeSchema,
  summary: Type.String({ ...Summary, minLength: 1 }),
  status: FeedbackStatusSchema,
  resolutionNote: Nullable(Type.String({ maxLength: 2000 })),
  authorId: Principal,
  authorKind: literals(['user', 'agent'] as const),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}, { required: ['id', 'targetType', 'targetId', 'feedbackType', 'summary', 'status', 'resolutionNote', 'authorId', 'authorKind', 'createdAt', 'updatedAt'] });

export const ExportDocument = Strict({
  format: Type.Literal(exportFormat),
  version: Type.Literal(exportVersion, { description: 'The format version; an importer refuses a version it does not know' }),
  exportedAt: Timestamp,
  workspace: Strict({ id: Id('The exported workspace'), name: Type.String({ maxLength: 200 }) }, { required: ['id', 'name'] }),
  playbooks: Type.Array(ExportPlaybook, { maxItems: maxImportItems, description: 'Oldest first (createdAt, then slug)' }),
  nodes: Type.Array(ExportNode, { maxItems: maxImportItems, description: 'Every context node, archived ones too, oldest first (createdAt, then slug)' }),
  links: Type.Array(ExportLink, { maxItems: maxImportItems, description: 'Every link from a playbook or a node to a node, oldest first' }),
  annotations: Type.Array(ExportAnnotation, { maxItems: maxImportItems, description: 'Every annotation (agent_local ones too), oldest first' }),
  feedback: Type.Array(ExportFeedback, { maxItems: maxImportItems, description: 'Every feedback item, oldest first' }),
}, { required: ['format', 'version', 'exportedAt', 'workspace', 'playbooks', 'nodes', 'links', 'annotations', 'feedback'] });

export const ImportSummarySchema = Type.Object({
  idsKept: Type.Boolean({ description: 'true when every id of the export was kept (agents calling by id go on working); false when any was replaced by a new one' }),
  idsReplaced: Type.Integer({ minimum: 0, description: 'How many ids of the export were replaced by new ones: those not in the shape this service gives its ids of that kind, and those already used on this deployment' }),
  playbooks: Type.Integer(),
  versions: Type.Integer(),
  nodes: Type.Integer(),
  links: Type.Integer(),
  annotations: Type.Integer(),
  feedback: Type.Integer(),
});

export type ExportDoc = Static<typeof ExportDocument>;
export type ExportPlaybookItem = Static<typeof ExportPlaybook>;
export type ExportNodeItem = Static<typeof ExportNode>;
export type ExportLinkItem = Static<typeof ExportLink>;
export type ExportAnnotationItem = Static<typeof ExportAnnotation>;
export type ExportFeedbackItem = Static<typeof ExportFeedback>;
export type ImportSummary = Static<typeof ImportSummarySchema>;
