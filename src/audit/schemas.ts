import { type Static, Type } from '@sinclair/typebox';
import { Id, Nullable, Strict, Timestamp, literals, named } from '../api/common-schemas.js';

export const ActorSchema = Type.Object({
  kind: literals(['user', 'agent', 'operator', 'analyst'] as const),
  id: Nullable(Type.String({ description: 'The user or agent id; null for the operator and analysts' })),
  sponsorUserId: Nullable(Type.String({ description: 'An agent’s sponsoring user at the time; null otherwise' })),
});

export const AuditEventSchema = named('AuditEvent', Type.Object({
  id: Type.String(),
  workspaceId: Nullable(Type.String({ description: 'null for the operator’s changes to users and keys, and analyst queries' })),
  action: Type.String({ description: 'e.g. playbook.version.approved, agent.key.revoked (see the event catalogue)' }),
  actor: ActorSchema,
  client: Type.Optional(Type.Object(
    { id: Type.String({ description: 'Its OAuth client id' }), name: Type.String({ description: 'The name it registered with' }) },
    { description: 'The hosted client an agent acted through, when the change came with an OAuth access token (docs/mcp.md)' },
  )),
  targetIds: Type.Array(Type.String(), { description: 'The ids the change touched, the main one first' }),
  requestId: Type.String({ description: 'The X-Request-Id of the request that made the change' }),
  at: Timestamp,
  before: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'The changed fields before the change' })),
  after: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'The changed fields after it' })),
}));
export type AuditEvent = Static<typeof AuditEventSchema>;

export const AuditPageSchema = named('AuditPage', Type.Object({
  events: Type.Array(AuditEventSchema),
  nextCursor: Nullable(Type.String({ description: 'Pass as cursor for the next page; null on the last page' })),
}));
export type AuditPage = Static<typeof AuditPageSchema>;

const filters = {
  actor: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'A user or agent id, or operator / analyst' })),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z_]+(\\.[a-z_]+)*(\\.\\*)?$', description: 'An action, or a prefix ending in .* (playbook.*)' })),
  target: Type.Optional(Id('Events whose targets include this id')),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Events at or after this time' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Events before this time' })),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'nextCursor of the previous page' })),
};

export const AuditQuery = Strict(filters);
export type AuditQuery = Static<typeof AuditQuery>;
export const AdminAuditQuery = Strict({ ...filters, workspaceId: Type.Optional(Id('Only this workspace’s events')) });
export type AdminAuditQuery = Static<typeof AdminAuditQuery>;
