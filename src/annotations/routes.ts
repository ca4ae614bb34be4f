import { WorkspacePath } from '../api/common-schemas.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import { entityWithin } from '../tokens/answer-budget.js';
import type { AnnotationService } from './service.js';
import { AnnotationPageSchema, AnnotationPath, AnnotationSchema, CreateBody, ListQuery } from './schemas.js';

const base = { tag: 'Annotations' } as const;
const members = { kind: 'workspace', minRole: 'viewer' } as const;

const visibility =
  'workspace_overlay annotations are visible to every member and agent of the workspace; an agent_local one only to the ' +
  'principal that wrote it (an agent, or a user: then it is a private note of that user), to everyone else it does not exist.';

export function annotationRoutes(services: { annotations: AnnotationService }): AnyOperation[] {
  return [
    defineOperation({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/context/annotations', operationId: 'createAnnotation', summary: 'Annotate a playbook, a playbook version or a context node',
      description:
        `Any member, agent keys included. The target must exist in this workspace (archived ones included), else 404. source and ` +
        `authorId come from the caller. ${visibility} Bundles include the annotations on the playbook, its versions and the ` +
        'returned nodes that the caller may see.',
      access: members, params: WorkspacePath, body: CreateBody,
      responses: { 201: { description: 'The annotation', schema: AnnotationSchema } },
      run: ({ caller, body }) => services.annotations.create(caller, body),
      tool: {
        name: 'annotate',
        title: 'Annotate',
        description: 'Add a note to a playbook, a playbook version or a context node: for the whole workspace (workspace_overlay) or for this caller only (agent_local).',
        input: CreateBody,
        output: AnnotationSchema,
        run: async (body, call) => entityWithin(await services.annotations.create(call.caller, body), call.defaultMaxTokens),
      },
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/context/annotations', operationId: 'listAnnotations', summary: 'Annotations the caller may see',
      description: `Any member, agent keys included. Oldest first, ties broken by id. ${visibility}`,
      access: members, params: WorkspacePath, query: ListQuery,
      responses: { 200: { description: 'One page of annotations', schema: AnnotationPageSchema } },
      run: ({ caller, query }) => services.annotations.list(caller, query),
    }),
    defineOperation({
      ...base, method: 'delete', path: '/api/v1/workspaces/:workspaceId/context/annotations/:annotationId', operationId: 'deleteAnnotation', summary: 'Delete an annotation',
      description:
        'Its author, or an editor or owner (403 insufficient_role for anyone else). Someone else’s agent_local annotation is 404 ' +
        'to every caller, editors included, since they cannot see it.',
      access: members, params: AnnotationPath,
      responses: { 204: { description: 'Deleted' } },
      run: async ({ caller, params }) => {
        await services.annotations.delete(caller, params.annotationId);
      },
    }),
  ];
}
