import { type Static, Type } from '@sinclair/typebox';
import { Nullable, RoleSchema, Timestamp, literals, named } from '../api/common-schemas.js';

/** Response schemas of the workspace endpoints; the types below are derived from them. */

export const PlanSchema = named('Plan', literals(['free', 'team', 'enterprise'] as const));

/** A workspace as stored (the operator's API shows all of it). */
export const StoredWorkspaceSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  plan: PlanSchema,
  parentWorkspaceId: Nullable(Type.String()),
  monthlyRetrievalLimit: Nullable(Type.Integer({ description: 'Overrides the plan limit when set' })),
  createdAt: Timestamp,
});

export const WorkspaceSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  plan: Type.String(),
  parentWorkspaceId: Nullable(Type.String()),
  role: RoleSchema,
  createdAt: Timestamp,
});
export const UsageSchema = Type.Object({
  period: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}$' }),
  used: Type.Integer(),
  limit: Type.Integer(),
  remaining: Type.Integer(),
  resetsAt: Timestamp,
  days: Type.Array(Type.Object({ date: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' }), retrievals: Type.Integer({ minimum: 0 }) }), {
    description: 'Every day of the month so far (UTC), oldest first, with the retrievals counted that day (bundles and manifests answered 200 or 304)',
  }),
});
export const MemberSchema = named('Member', Type.Object({ userId: Type.String(), email: Type.String(), name: Nullable(Type.String()), role: RoleSchema, joinedAt: Timestamp }));

export type Plan = Static<typeof PlanSchema>;
/** A workspace as stored (the operator sees all of it). */
export type Workspace = Static<typeof StoredWorkspaceSchema>;
/** A workspace as its members see it: with the caller's own role. */
export type WorkspaceView = Static<typeof WorkspaceSchema>;
export type Member = Static<typeof MemberSchema>;
/** What GET /api/v1/workspaces/{id}/usage answers; the gate's QuotaMeter.usage builds it. */
export type Usage = Static<typeof UsageSchema>;
