import { Type } from '@sinclair/typebox';
import { Id, Label, Name, Nullable, Strict } from '../api/common-schemas.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import type { AdminService } from './service.js';
import { AdminWorkspaceSchema, CreatedKeySchema, PlanSchema, UserSchema } from './schemas.js';

const base = { tag: 'Admin', access: { kind: 'operator' } } as const;

/** The operator's API (ADMIN_TOKEN): users, their keys, workspaces. */
export function adminRoutes(services: { admin: AdminService }): AnyOperation[] {
  return [
    defineOperation({
      ...base, method: 'post', path: '/api/v1/admin/users', operationId: 'adminCreateUser', summary: 'Create a user',
      body: Strict({ email: Type.String({ format: 'email', maxLength: 320 }), name: Type.Optional(Name) }, { required: ['email'] }),
      responses: { 201: { description: 'The user', schema: UserSchema } },
      errors: [409],
      run: ({ body, requestId }) => services.admin.createUser(body, requestId),
    }),
    defineOperation({
      ...base, method: 'post', path: '/api/v1/admin/users/:userId/keys', operationId: 'adminCreateUserKey', summary: 'Create a user API key',
      params: Strict({ userId: Id() }),
      body: Strict({ label: Type.Optional(Label) }),
      responses: { 201: { description: 'The key, in full only here', schema: CreatedKeySchema } },
      run: ({ params, body, requestId }) => services.admin.createUserKey(params.userId, body.label, requestId),
    }),
    defineOperation({
      ...base, method: 'delete', path: '/api/v1/admin/users/:userId/keys/:keyId', operationId: 'adminRevokeUserKey', summary: 'Revoke a user API key at once',
      params: Strict({ userId: Id(), keyId: Id() }),
      responses: { 204: { description: 'Revoked' } },
      run: async ({ params, requestId }) => {
        await services.admin.revokeUserKey(params.userId, params.keyId, requestId);
      },
    }),
    defineOperation({
      ...base, method: 'post', path: '/api/v1/admin/workspaces', operationId: 'adminCreateWorkspace', summary: 'Create a workspace with its first owner',
      body: Strict(
        { name: Name, ownerUserId: Id(), plan: Type.Optional(PlanSchema), parentWorkspaceId: Type.Optional(Id()) },
        { required: ['name', 'ownerUserId'] },
      ),
      responses: { 201: { description: 'The workspace', schema: AdminWorkspaceSchema } },
      run: ({ body, requestId }) => services.admin.createWorkspace(body, requestId),
    }),
    defineOperation({
      ...base, method: 'patch', path: '/api/v1/admin/workspaces/:workspaceId', operationId: 'adminUpdateWorkspace', summary: 'Change a workspace’s name, plan, limit or parent',
      params: Strict({ workspaceId: Id() }),
      body: Strict({
        name: Type.Optional(Name),
        plan: Type.Optional(PlanSchema),
        monthlyRetrievalLimit: Type.Optional(Nullable(Type.Integer({ minimum: 0, description: 'null returns to the plan limit' }))),
        parentWorkspaceId: Type.Optional(Nullable(Id())),
      }),
      responses: { 200: { description: 'The workspace', schema: AdminWorkspaceSchema } },
      run: ({ params, body, requestId }) => services.admin.updateWorkspace(params.workspaceId, body, requestId),
    }),
  ];
}
