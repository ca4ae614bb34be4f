import { type TLiteral, type TUnion, Type } from '@sinclair/typebox';
import { Id, PageQuery, Pagination, Strict, Timestamp, Title } from '../http/common-schemas.js';
import { type AnyRoute, defineRoute } from '../http/route.js';
import type { AnnotationService } from './service.js';
import { scopeTypes, targetTypes } from './repository.js';

const literals = <T extends readonly string[]>(values: T, options: object = {}) =>
  Type.Union(values.map((v) => Type.Literal(v)), options) as unknown as TUnion<TLiteral<T[number]>[]>;

/** Shared with the feedback routes: what an annotation or a feedback item is about. */
export const TargetTypeSchema = literals(targetTypes, {
  description: 'playbook (a pb_ id), playbook_version (a pbv_ id) or context_node (a cn_ id)',
});
export const TargetId = Id('Id of the target; it must be a target of targetType in this workspace (else 404)');

/** Upper bound on an annotation's content (characters). */
export const annotationContentMax = 20_000;

const ScopeTypeSchema = literals(scopeTypes, {
  description: 'workspace_overlay: visible to every member and agent of the workspace; agent_local: visible only to the principal (agent or user) that wrote it',
});
const SourceSchema = literals(['agent', 'human'] as const, {
  description: 'agent when written with an agent key, human when written with a user key',
});

export const AnnotationSchema = Type.Object({
  id: Type.String({ description: 'ann_…' }),
  targetType: TargetTypeSchema,
  targetId: Type.String(),
  scopeType: ScopeTypeSchema,
  title: Type.String(),
  content: Type.String(),
  source: SourceSchema,
  authorId: Type.String({ description: 'The principal that wrote it: a user (usr_…) or an agent (ag_…)' }),
  createdAt: Timestamp,
});

const CreateBody = Strict(
  {
    targetType: TargetTypeSchema,
    targetId: TargetId,
    scopeType: ScopeTypeSchema,
    title: Type.String({ ...Title, description: '1 to 200 characters, not only whitespace' }),
    content: Type.String({ minLength: 1, maxLength: annotationContentMax, description: `Text (markdown), 1 to ${annotationContentMax} characters, not only whitespace` }),
    source: Type.Optional(literals(['agent', 'human'] as const, {
      description: 'Derived from the caller (agent for an agent key, human for a user key); may be omitted, and a value that contradicts the caller is 400',
    })),
  },
  { required: ['targetType', 'targetId', 'scopeType', 'title', 'content'] },
);

const ListQuery = Strict({
  targetType: Type.Optional(TargetTypeSchema),
  targetId: Type.Optional(Id('Only annotations on this target (an unknown id gives an empty list)')),
  scopeType: Type.Optional(ScopeTypeSchema),
  ...PageQuery,
});

const WorkspaceOnly = Strict({ workspaceId: Id('Workspace id') });
const AnnotationPath = Strict({ workspaceId: Id('Workspace id'), annotationId: Id('Annotation id') });

const base = { tag: 'Annotations' } as const;
const members = { kind: 'workspace', minRole: 'viewer' } as const;

const visibility =
  'workspace_overlay annotations are visible to every member and agent of the workspace; an agent_local one only to the ' +
  'principal that wrote it (an agent, or a user: then it is a private note of that user), to everyone else it does not exist.';

export function annotationRoutes(s: { annotations: AnnotationService }): AnyRoute[] {
  return [
    defineRoute({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/context/annotations', operationId: 'createAnnotation', summary: 'Annotate a playbook, a playbook version or a context node',
      description:
        `Any member, agent keys included. The target must exist in this workspace (archived ones included), else 404. source and ` +
        `authorId come from the caller. ${visibility} Bundles include the annotations on the playbook, its versions and the ` +
        'returned nodes that the caller may see.',
      access: members, params: WorkspaceOnly, body: CreateBody,
      responses: { 201: { description: 'The annotation', schema: AnnotationSchema } },
      handler: async ({ ctx, caller, body }) => {
        ctx.status = 201;
        ctx.body = await s.annotations.create(caller, body);
      },
    }),
    defineRoute({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/context/annotations', operationId: 'listAnnotations', summary: 'Annotations the caller may see',
      description: `Any member, agent keys included. Oldest first, ties broken by id. ${visibility}`,
      access: members, params: WorkspaceOnly, query: ListQuery,
      responses: { 200: { description: 'One page of annotations', schema: Type.Object({ annotations: Type.Array(AnnotationSchema), pagination: Pagination }) } },
      handler: async ({ ctx, caller, query }) => {
        ctx.body = await s.annotations.list(caller, query);
      },
    }),
    defineRoute({
      ...base, method: 'delete', path: '/api/v1/workspaces/:workspaceId/context/annotations/:annotationId', operationId: 'deleteAnnotation', summary: 'Delete an annotation',
      description:
        'Its author, or an editor or owner (403 insufficient_role for anyone else). Someone else’s agent_local annotation is 404 ' +
        'to every caller, editors included, since they cannot see it.',
      access: members, params: AnnotationPath,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ ctx, caller, params }) => {
        await s.annotations.delete(caller, params.annotationId);
        ctx.status = 204;
      },
    }),
  ];
}
