import { Type } from '@sinclair/typebox';
import { Id, RoleSchema, Strict, WorkspacePath } from '../api/common-schemas.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import type { WorkspaceService } from './service.js';
import { MemberSchema, UsageSchema, WorkspaceSchema } from './schemas.js';

const MemberPath = Strict({ workspaceId: Id(), userId: Id() });

const base = { tag: 'Workspaces' } as const;
const members = { kind: 'workspace', minRole: 'viewer', userKeyOnly: true } as const;
const owners = { kind: 'workspace', minRole: 'owner', userKeyOnly: true } as const;

export function workspaceRoutes(services: { workspaces: WorkspaceService }): AnyOperation[] {
  return [
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces', operationId: 'listWorkspaces', summary: 'The workspaces the caller’s key reaches',
      description:
        'Any valid key. A user key: every workspace the user is a member of, with the user’s role there, oldest membership first. ' +
        'An agent key: the agent’s own workspace, with the role the agent acts with. Each item is what GET /api/v1/workspaces/{id} answers.',
      access: { kind: 'principal' },
      responses: { 200: { description: 'The workspaces', schema: Type.Object({ workspaces: Type.Array(WorkspaceSchema) }) } },
      handler: async ({ ctx, principal }) => {
        ctx.body = { workspaces: await services.workspaces.mine(principal) };
      },
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId', operationId: 'getWorkspace', summary: 'The workspace, with the caller’s role',
      access: { kind: 'workspace', minRole: 'viewer' }, params: WorkspacePath,
      responses: { 200: { description: 'The workspace', schema: WorkspaceSchema } },
      run: ({ caller }) => services.workspaces.get(caller),
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/usage', operationId: 'getUsage', summary: 'Retrievals used this month (UTC) against the limit',
      access: { kind: 'workspace', minRole: 'viewer' }, params: WorkspacePath,
      responses: { 200: { description: 'Usage of the current month', schema: UsageSchema } },
      run: ({ caller }) => services.workspaces.usage(caller),
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/members', operationId: 'listMembers', summary: 'Members of the workspace',
      access: members, params: WorkspacePath,
      responses: { 200: { description: 'Members, oldest first', schema: Type.Object({ members: Type.Array(MemberSchema) }) } },
      handler: async ({ ctx, caller }) => {
        ctx.body = { members: await services.workspaces.members(caller) };
      },
    }),
    defineOperation({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/members', operationId: 'addMember', summary: 'Add a user to the workspace',
      access: owners, params: WorkspacePath,
      body: Strict({ userId: Id(), role: RoleSchema }, { required: ['userId', 'role'] }),
      responses: { 201: { description: 'The new member', schema: MemberSchema } },
      errors: [409],
      run: ({ caller, body }) => services.workspaces.addMember(caller, body.userId, body.role),
    }),
    defineOperation({
      ...base, method: 'patch', path: '/api/v1/workspaces/:workspaceId/members/:userId', operationId: 'changeMemberRole', summary: 'Change a member’s role',
      description: 'The last owner cannot be demoted (409 last_owner).',
      access: owners, params: MemberPath,
      body: Strict({ role: RoleSchema }, { required: ['role'] }),
      responses: { 200: { description: 'The member', schema: MemberSchema } },
      errors: [409],
      run: ({ caller, params, body }) => services.workspaces.changeRole(caller, params.userId, body.role),
    }),
    defineOperation({
      ...base, method: 'delete', path: '/api/v1/workspaces/:workspaceId/members/:userId', operationId: 'removeMember', summary: 'Remove a member (an owner, or the member themself)',
      description: 'Every agent the member sponsors in this workspace is deactivated in the same transaction. The last owner cannot be removed (409).',
      access: members, params: MemberPath,
      responses: { 204: { description: 'Removed' } },
      errors: [409],
      run: async ({ caller, params }) => {
        await services.workspaces.removeMember(caller, params.userId);
      },
    }),
  ];
}
