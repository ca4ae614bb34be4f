import { Type } from '@sinclair/typebox';
import { CreatedKeySchema } from '../admin/schemas.js';
import { Description, Id, Label, Name, Nullable, RoleSchema, Strict, WorkspacePath } from '../api/common-schemas.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import type { AgentService } from './service.js';
import { AgentDetailSchema, AgentSchema, KeyListingSchema, RotateKeyBody, RotatedKeySchema } from './schemas.js';

const AgentPath = Strict({ workspaceId: Id('Workspace id'), agentId: Id('Agent id') });
const KeyPath = Strict({ workspaceId: Id('Workspace id'), agentId: Id('Agent id'), keyId: Id('Key id') });

const base = { tag: 'Agents' } as const;
// Agent management takes a user key only: an agent key gets 403 user_key_required before any look-up.
const members = { kind: 'workspace', minRole: 'viewer', userKeyOnly: true } as const;
const owners = { kind: 'workspace', minRole: 'owner', userKeyOnly: true } as const;
const sponsorOrOwner = 'Only the agent’s sponsor or a workspace owner (403 insufficient_role otherwise).';

export function agentRoutes(services: { agents: AgentService }): AnyOperation[] {
  return [
    defineOperation({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/agents', operationId: 'registerAgent', summary: 'Register an agent',
      description:
        'Any member may register an agent and becomes its sponsor. Its role is the lower of the requested one (viewer by default) and the creator’s own, capped silently: the response shows the role granted. The agent starts with no keys.',
      access: members, params: WorkspacePath,
      body: Strict({ name: Name, description: Type.Optional(Nullable(Description)), role: Type.Optional(RoleSchema) }, { required: ['name'] }),
      responses: { 201: { description: 'The agent', schema: AgentSchema } },
      run: ({ caller, body }) => services.agents.register(caller, body),
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/agents', operationId: 'listAgents', summary: 'Every agent of the workspace',
      description: 'Active and deactivated agents, oldest first.',
      access: members, params: WorkspacePath,
      responses: { 200: { description: 'The agents', schema: Type.Object({ agents: Type.Array(AgentSchema) }) } },
      handler: async ({ ctx, caller }) => {
        ctx.body = { agents: await services.agents.list(caller) };
      },
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/agents/:agentId', operationId: 'getAgent', summary: 'One agent, with its number of active keys',
      access: members, params: AgentPath,
      responses: { 200: { description: 'The agent', schema: AgentDetailSchema } },
      run: ({ caller, params }) => services.agents.get(caller, params.agentId),
    }),
    defineOperation({
      ...base, method: 'put', path: '/api/v1/workspaces/:workspaceId/agents/:agentId', operationId: 'updateAgent', summary: 'Change an agent’s name, description or sponsor',
      description: `Each field is optional; omitted fields keep their values. A sponsorUserId that is not a member of the workspace is 400. ${sponsorOrOwner}`,
      access: members, params: AgentPath,
      body: Strict({ name: Type.Optional(Name), description: Type.Optional(Nullable(Description)), sponsorUserId: Type.Optional(Id('A member of the workspace')) }),
      responses: { 200: { description: 'The agent', schema: AgentSchema } },
      run: ({ caller, params, body }) => services.agents.update(caller, params.agentId, body),
    }),
    defineOperation({
      ...base, method: 'delete', path: '/api/v1/workspaces/:workspaceId/agents/:agentId', operationId: 'deactivateAgent', summary: 'Deactivate an agent',
      description: `Every key of the agent is revoked for good and stops working at once, on every API process; the record is kept. Deactivating again changes nothing. ${sponsorOrOwner}`,
      access: members, params: AgentPath,
      responses: { 204: { description: 'Deactivated' } },
      run: async ({ caller, params }) => {
        await services.agents.deactivate(caller, params.agentId);
      },
    }),
    defineOperation({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/agents/:agentId/reactivate', operationId: 'reactivateAgent', idempotent: true, summary: 'Make a deactivated agent active again',
      description: 'Owner only. The agent comes back with no keys (its old keys stay revoked). Reactivating an active agent changes nothing. 409 when its sponsor has left the workspace: set another sponsor first.',
      access: owners, params: AgentPath,
      responses: { 200: { description: 'The agent', schema: AgentSchema } },
      errors: [409],
      run: ({ caller, params }) => services.agents.reactivate(caller, params.agentId),
    }),
    defineOperation({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/agents/:agentId/keys', operationId: 'createAgentKey', summary: 'Create a key for an agent',
      description: `The full key is in this response only; it is stored as a hash. An agent may hold several active keys. A deactivated agent gets none (409). ${sponsorOrOwner}`,
      access: members, params: AgentPath,
      body: Strict({ label: Type.Optional(Label) }),
      responses: { 201: { description: 'The key, in full only here', schema: CreatedKeySchema } },
      errors: [409],
      run: ({ caller, params, body }) => services.agents.createKey(caller, params.agentId, body.label),
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/agents/:agentId/keys', operationId: 'listAgentKeys', summary: 'The agent’s active keys, prefix only',
      description: `Revoked and expired keys are not listed; a rotated key is listed, with its expiresAt, until it expires. ${sponsorOrOwner}`,
      access: members, params: AgentPath,
      responses: { 200: { description: 'Active keys, oldest first', schema: Type.Object({ keys: Type.Array(KeyListingSchema) }) } },
      handler: async ({ ctx, caller, params }) => {
        ctx.body = { keys: await services.agents.listKeys(caller, params.agentId) };
      },
    }),
    defineOperation({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/agents/:agentId/keys/:keyId/rotate', operationId: 'rotateAgentKey',
      summary: 'Rotate an agent key: a new key, the old one kept working for a grace period',
      description:
        'Creates a new key (in full in this answer only, as createAgentKey answers it) and keeps the old key working for graceSeconds ' +
        '(default 86400, at most 604800 = 7 days), after which it is refused (401) like a revoked key, on every API process; both are ' +
        'listed with their expiresAt meanwhile. graceSeconds 0 revokes the old key at once. A revoked or expired key is 409 ' +
        'key_not_active; a key already rotated (it has an expiresAt) is 409 key_already_rotated; a deactivated agent is 409 conflict. ' +
        `${sponsorOrOwner}`,
      access: members, params: KeyPath, body: RotateKeyBody,
      responses: { 201: { description: 'The new key (in full only here) and when the old one stops working', schema: RotatedKeySchema } },
      errors: [409],
      run: ({ caller, params, body }) => services.agents.rotateKey(caller, params.agentId, params.keyId, body),
    }),
    defineOperation({
      ...base, method: 'delete', path: '/api/v1/workspaces/:workspaceId/agents/:agentId/keys/:keyId', operationId: 'revokeAgentKey', summary: 'Revoke an agent key at once',
      description: `The key stops working on the very next request, on every API process (401). Revoking it again changes nothing. ${sponsorOrOwner}`,
      access: members, params: KeyPath,
      responses: { 204: { description: 'Revoked' } },
      run: async ({ caller, params }) => {
        await services.agents.revokeKey(caller, params.agentId, params.keyId);
      },
    }),
  ];
}
