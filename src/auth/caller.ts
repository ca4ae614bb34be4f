export const roles = ['viewer', 'editor', 'owner'] as const;
export type Role = (typeof roles)[number];

const rank: Record<Role, number> = { viewer: 0, editor: 1, owner: 2 };

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return rank[role] >= rank[minimum];
}

export function lowerRole(a: Role, b: Role): Role {
  return rank[a] <= rank[b] ? a : b;
}

/** Who a key belongs to, before any workspace is involved. */
export type Principal =
  | { kind: 'user'; id: string; keyId: string }
  | {
      kind: 'agent';
      id: string;
      /** The key's id; for an OAuth access token, its grant's. */
      keyId: string;
      workspaceId: string;
      sponsorUserId: string;
      role: Role;
      /** The hosted client acting as the agent, when the request came with an OAuth access token (src/oauth/). */
      client?: { id: string; name: string };
    };

/**
 * The authenticated caller of a workspace route: the principal plus its role in that workspace.
 * `actingUserId` is the human accountable for the call: the user, or the agent's sponsor.
 */
export interface Caller {
  principal: Principal;
  workspaceId: string;
  role: Role;
  actingUserId: string;
  /** The request's id (X-Request-Id): recorded with the audit event of every change the request makes. */
  requestId: string;
}
