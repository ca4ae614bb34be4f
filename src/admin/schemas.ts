import { type Static, Type } from '@sinclair/typebox';
import { Nullable, Timestamp, named } from '../api/common-schemas.js';

/** Response schemas of the operator's API; the types below are derived from them. */

export const UserSchema = Type.Object({ id: Type.String(), email: Type.String(), name: Nullable(Type.String()), createdAt: Timestamp });
export const CreatedKeySchema = named('CreatedKey', Type.Object({
  id: Type.String(),
  label: Nullable(Type.String()),
  key: Type.String({ description: 'The full key: shown in this answer only' }),
  prefix: Type.String({ description: 'The first 12 characters of the key' }),
  createdAt: Timestamp,
}));
/** The operator sees a workspace as it is stored. */
export { PlanSchema, StoredWorkspaceSchema as AdminWorkspaceSchema, type Plan } from '../workspaces/schemas.js';

export type User = Static<typeof UserSchema>;
/** A key as stored, without its material (the full key is shown once, when created). */
export type KeyRecord = Omit<Static<typeof CreatedKeySchema>, 'key'>;
