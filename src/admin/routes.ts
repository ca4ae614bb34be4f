import { Type } from '@sinclair/typebox';
import { Id, Label, Name, Nullable, Strict, Timestamp } from '../api/common-schemas.js';
import { type AnyRoute, defineRoute } from '../http/route.js';
import type { AdminService } from './service.js';
import { AdminWorkspaceSchema, CreatedKeySchema, PlanSchema, UserSchema } from './schemas.js';

const base = { tag: 'Admin', access: { kind: 'operator' } } as const;

/** The operator's API (ADMIN_TOKEN): users, their keys, workspaces. */
export function adminRoutes(s: { admin: AdminService }): AnyRoute[] {
  return [
    defineRoute({
      ...base, method: 'post', path: '/api/v1/admin/users', operationId: 'adminCreateUser', summary: 'Create a user',
      body: Strict({ email: Type.String({ format: 'email', maxLength: 320 }), name: Type.Optional(Name) }, { required: ['email'] }),
      responses: { 201: { description: 'The user', schema: UserSchema } },
      errors: [409],
      handler: async ({ ctx, body, requestId }) => {
        ctx.status = 201;
        ctx.body = await s.admin.createUser(body, requestId);
      },
    }),
    defineRoute({
      ...base, method: 'post', path: '/api/v1/admin/users/:userId/keys', operationId: 'adminCreateUserKey', summary: 'Create a user API key',
      params: Strict({ userId: Id() }),
      body: Strict({ label: Type.Optional(Label) }),
      responses: { 201: { description: 'The key, in full only here', schema: CreatedKeySchema } },
      handler: async ({ ctx, params, body, requestId }) => {
        ctx.status = 201;
        ctx.body = await s.admin.createUserKey(params.userId, body.label, requestId);
      },
    }),
    defineRoute({
      ...base, method: 'delete', path: '/api/v1/admin/users/:userId/keys/:keyId', operationId: 'adminRevokeUserKey', summary: 'Revoke a user API key at once',
      params: Strict({ userId: Id(), keyId: Id() }),
      responses: { 204: { description: 'Revoked' } },
      handler: async ({ ctx, params, requestId }) => {
        await s.admin.revokeUserKey(params.userId, params.keyId, requestId);
        ctx.status = 204;
      },
    }),
    defineRoute({
      ...base, method: 'post', path: '/api/v1/admin/workspaces', operationId: 'adminCreateWorkspace', summary: 'Create a workspace with its first owner',
      body: Strict(
        { name: Name, ownerUserId: Id(), plan: Type.Optional(PlanSchema), parentWorkspaceId: Type.Optional(Id()) },
        { required: ['name', 'ownerUserId'] },
      ),
      responses: { 201: { description: 'The workspace', schema: AdminWorkspaceSchema } },
      handler: async ({ ctx, body, requestId }) => {
        ctx.status = 201;
        ctx.body = await s.admin.createWorkspace(body, requestId);
      },
    }),
    defineRoute({
      ...base, method: 'patch', path: '/api/v1/admin/workspaces/:workspaceId', operationId: 'adminUpdateWorkspace', summary: 'Change a workspace’s name, plan, limit or parent',
      params: Strict({ workspaceId: Id() }),
      body: Strict({
        name: Type.Optional(Name),
        plan: Type.Optional(PlanSchema),
        monthlyRetrievalLimit: Type.Optional(Nullable(Type.Integer({ minimum: 0, description: 'null returns to the plan limit' }))),
        parentWorkspaceId: Type.Optional(Nullable(Id())),
      }),
      responses: { 200: { description: 'The workspace', schema: AdminWorkspaceSchema } },
      handler: async ({ ctx, params, body, requestId }) => {
        ctx.body = await s.admin.updateWorkspace(params.workspaceId, body, requestId);
      },
    }),
  ];
}
