import { type Static, Type } from '@sinclair/typebox';
import { CreatedKeySchema } from '../admin/schemas.js';
import { Label, Nullable, NullableTimestamp, RoleSchema, Strict, Timestamp, literals, named } from '../api/common-schemas.js';

/** Response schemas of the agent endpoints; the types below are derived from them. */

export const AgentStatusSchema = named('AgentStatus', literals(['active', 'deactivated'] as const));

export const AgentSchema = named('Agent', Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  role: { ...RoleSchema, description: 'The role granted at registration. The agent acts with the lower of this and its sponsor’s current role.' },
  sponsorUserId: Type.String({ description: 'The human accountable for the agent' }),
  workspaceId: Type.String(),
  status: AgentStatusSchema,
  createdAt: Timestamp,
  deactivatedAt: NullableTimestamp,
}));
export const AgentDetailSchema = Type.Composite([AgentSchema, Type.Object({ keyCount: Type.Integer({ minimum: 0, description: 'Active keys' }) })]);
export const KeyListingSchema = Type.Object({
  id: Type.String(),
  label: Nullable(Type.String()),
  prefix: Type.String({ description: 'The first 12 characters of the key; the only key material ever shown again' }),
  createdAt: Timestamp,
  lastUsedAt: Type.Union([Timestamp, Type.Null()], { description: 'Recorded in batches: may lag real use by about 10 seconds' }),
  expiresAt: Type.Union([Timestamp, Type.Null()], { description: 'When a rotated key stops working (it is not listed after); null: until revoked' }),
});
export const RotateKeyBody = Strict({
  graceSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800, default: 86_400, description: 'How long the old key keeps working: at most 7 days; 0 revokes it at once' })),
  label: Type.Optional({ ...Label, description: 'The new key’s label; without it, the new key keeps the old key’s label' }),
});
export const RotatedKeySchema = Type.Object({
  key: CreatedKeySchema,
  previousKey: Type.Object({
    id: Type.String(),
    prefix: Type.String(),
    expiresAt: Type.String({ format: 'date-time', description: 'When the old key stops working (now, when graceSeconds was 0)' }),
  }),
});

export type Agent = Static<typeof AgentSchema>;
export type AgentStatus = Static<typeof AgentStatusSchema>;
export type AgentDetail = Static<typeof AgentDetailSchema>;
/** An active key as listed; the key material itself is never shown again. */
export type AgentKeyListing = Static<typeof KeyListingSchema>;
export type AgentKey = Omit<AgentKeyListing, 'lastUsedAt' | 'expiresAt'>;
export type RotatedKey = Static<typeof RotatedKeySchema>;
