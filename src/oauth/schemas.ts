import { type Static, Type } from '@sinclair/typebox';
import { Name, Nullable, RoleSchema, Strict, Timestamp, named } from '../api/common-schemas.js';

/** Schemas of the consent and grant endpoints; the types below are derived from them. */

export const ConsentAgentSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  sponsorUserId: Type.String(),
  active: Type.Boolean({ description: 'Always true: only active agents can be chosen' }),
});
export type ConsentAgent = Static<typeof ConsentAgentSchema>;

export const ConsentRequestSchema = named('ConsentRequest', Type.Object({
  uid: Type.String(),
  client: Type.Object({
    id: Type.String(),
    name: Type.String({ description: 'The name the client registered with, or its id when it gave none' }),
    uri: Nullable(Type.String({ description: 'The client’s home page, as it registered it (unverified)' })),
    redirectUri: Type.String({ description: 'Where the browser returns with the code: what a person checks before approving' }),
  }),
  workspace: Type.Object({ id: Type.String(), name: Type.String() }),
  scopes: Type.Array(Type.String()),
  agents: Type.Array(ConsentAgentSchema, { description: 'The active agents the person may let the client act as: those they sponsor, or any when they are an owner' }),
  canCreateAgent: Type.Boolean({ description: 'Whether the person may register a new agent here to act as' }),
}, { description: 'A hosted client’s authorization request, waiting for a person’s consent' }));

export const ApproveBody = Strict({
  agentId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The agent the client acts as' })),
  agent: Type.Optional(Strict({ name: Name, role: Type.Optional(RoleSchema) }, { required: ['name'], description: 'A new agent to register (sponsored by the person) and act as' })),
}, { description: 'Exactly one of agentId and agent' });

export const ConsentAnswerSchema = Type.Object({
  redirectTo: Type.String({ description: 'Where the browser goes next: the authorization server, which sends it back to the client' }),
  agentId: Type.Optional(Type.String({ description: 'The agent the client acts as (on approval)' })),
});

export const GrantSchema = named('OAuthGrant', Type.Object({
  id: Type.String(),
  clientId: Type.String(),
  clientName: Type.String(),
  approvedByUserId: Type.String({ description: 'The person who approved it on the consent page' }),
  createdAt: Timestamp,
}, { description: 'A hosted client allowed to act as the agent through the MCP endpoint' }));
export type Grant = Static<typeof GrantSchema>;
