import { type Static, Type } from '@sinclair/typebox';
import {
  Description, Id, Nullable, NullableTimestamp, Order, PageQuery, Pagination, Slug, Strict, Summary, Timestamp, Title, literals, named,
} from '../api/common-schemas.js';
import { LinkTypeSchema } from '../nodes/schemas.js';

/** Request and response schemas of the playbook endpoints (docs/api.md, "Playbooks"). */

const versionStatuses = ['draft', 'approved', 'deprecated'] as const;
export const VersionStatus = named('VersionStatus', literals(versionStatuses));
export const Visibility = named('Visibility', literals(['workspace_private', 'parent_readonly'] as const, {
  description: 'workspace_private (default), or parent_readonly: also readable, never writable, by members of the parent workspace',
}));
export const FunctionArea = Type.String({ minLength: 1, maxLength: 200, description: 'Category label, free text' });
export const Tag = Type.String({ minLength: 1, maxLength: 100 });
export const Tags = Type.Array(Tag, { maxItems: 50, description: 'Free-text tags (1 to 100 characters each, at most 50); duplicates are dropped, order kept' });
export const Content = named('PlaybookContent', Type.Object({}, { additionalProperties: true, description: 'The version’s content: any JSON object, nested at most 64 levels deep, such as {"instructions": "1. Keep every receipt. 2. File the claim within 30 days."}. Its instructions entry (markdown) is the playbook’s text: what the console edits, and what MCP resources and prompts give agents (a content without one is given to them as JSON). Other entries are kept and returned as sent.' }));
export const ChangeNote = Type.String({ maxLength: 2000 });

export const VersionRef = Type.Object({ id: Type.String(), versionNumber: Type.Integer(), status: VersionStatus }, {
  description: 'The version with the highest versionNumber, whatever its status',
});
export const ActiveVersionRef = Nullable(Type.Object({ id: Type.String(), versionNumber: Type.Integer() }, {
  description: 'The approved version, or null when none is approved',
}));

export const VersionSchema = named('PlaybookVersion', Type.Object({
  id: Type.String(),
  versionNumber: Type.Integer({ minimum: 1 }),
  status: VersionStatus,
  content: Content,
  changeNote: Nullable(Type.String()),
  createdAt: Timestamp,
  createdBy: Type.String({ description: 'Id of the principal that created it: a user (usr_…) or an agent (ag_…)' }),
  approvedAt: NullableTimestamp,
}));

const summaryFields = {
  id: Type.String(),
  title: Type.String(),
  slug: Type.String(),
  summary: Nullable(Type.String()),
  functionArea: Nullable(Type.String()),
  visibility: Visibility,
  ownerId: Type.String({ description: 'The owning user: the creator, or the sponsor of the creating agent' }),
  tags: Type.Array(Type.String()),
  latestVersion: VersionRef,
  activeVersion: ActiveVersionRef,
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const PlaybookSummarySchema = named('PlaybookSummary', Type.Object(summaryFields));

export const ContextNodeRef = Type.Object({
  linkId: Type.String(),
  linkType: LinkTypeSchema,
  id: Type.String(),
  title: Type.String(),
  slug: Nullable(Type.String()),
  nodeType: Nullable(Type.String()),
  status: Nullable(Type.String({ description: 'live or archived' })),
});

export const PlaybookDetailSchema = named('PlaybookDetail', Type.Object({
  ...summaryFields,
  workspaceId: Type.String({ description: 'The workspace the playbook belongs to (differs from the path when read from a parent workspace)' }),
  description: Nullable(Type.String()),
  archivedAt: NullableTimestamp,
  versions: Type.Array(VersionSchema, { description: 'Every version, newest first' }),
  contextNodes: Type.Array(ContextNodeRef, { description: 'Context nodes the playbook links to, by title' }),
}));

export const PlaybookListSchema = Type.Object({ playbooks: Type.Array(PlaybookSummarySchema), pagination: Pagination });

export const ListQuery = Strict({
  status: Type.Optional({ ...VersionStatus, description: 'Keep playbooks with at least one version in this status' }),
  function_area: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Exact function area' })),
  owner: Type.Optional(Id('Owner user id')),
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Keep playbooks whose title, slug or summary contains this text, ignoring case (blank: no filter)' })),
  sort: Type.Optional(Type.Union([Type.Literal('updated_at'), Type.Literal('title'), Type.Literal('created_at')], {
    default: 'updated_at', description: 'title ignores case; ties are broken by id',
  })),
  order: Type.Optional(Order),
  page: Type.Optional(PageQuery.page),
  limit: Type.Optional(PageQuery.limit),
});

export const CreateBody = Strict({
  title: Title,
  slug: Type.Optional(Slug),
  summary: Type.Optional(Summary),
  description: Type.Optional(Description),
  functionArea: Type.Optional(FunctionArea),
  visibility: Type.Optional(Visibility),
  tags: Type.Optional(Tags),
  version: Strict({ content: Content, changeNote: Type.Optional(ChangeNote) }, { required: ['content'] }),
}, { required: ['title', 'version'] });

export const UpdateBody = Strict({
  title: Type.Optional(Title),
  slug: Type.Optional(Slug),
  summary: Type.Optional(Nullable(Summary)),
  description: Type.Optional(Nullable(Description)),
  functionArea: Type.Optional(Nullable(FunctionArea)),
  visibility: Type.Optional(Visibility),
  tags: Type.Optional(Tags),
  ownerId: Type.Optional(Id('A user who is a member of the workspace')),
});

export const CreateVersionBody = Strict({
  content: Type.Optional(Content),
  basedOnVersionId: Type.Optional(Id('Copy the content of this version of the same playbook (roll back)')),
  changeNote: Type.Optional(ChangeNote),
});

export const RollbackBody = Strict({ changeNote: Type.Optional(ChangeNote) });

export const PlaybookPath = Strict({ workspaceId: Id('Workspace id'), playbookId: Id('Playbook id') });
export const VersionPath = Strict({ workspaceId: Id('Workspace id'), playbookId: Id('Playbook id'), versionId: Id('Version id') });

export type VersionStatus = Static<typeof VersionStatus>;
export type Visibility = Static<typeof Visibility>;
export type Version = Static<typeof VersionSchema>;
export type PlaybookSummary = Static<typeof PlaybookSummarySchema>;
export type ContextNodeRef = Static<typeof ContextNodeRef>;
export type PlaybookDetail = Static<typeof PlaybookDetailSchema>;
export type ListPlaybooksQuery = Static<typeof ListQuery>;
export type CreatePlaybookInput = Static<typeof CreateBody>;
export type UpdatePlaybookInput = Static<typeof UpdateBody>;
export type CreateVersionInput = Static<typeof CreateVersionBody>;

/** How a tool names a playbook. */
export const PlaybookRef = Type.String({ minLength: 1, maxLength: 200, description: 'The playbook’s id (pb_…) or its slug' });
