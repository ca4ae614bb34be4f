import { type AuditStamp, writeAudited } from '../audit/recorder.js';
import type { Role } from '../auth/caller.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import type { ConsentAgent, Grant } from './schemas.js';

/** The authorization server's keys (JSON text), the same for every API process. */
export interface ProviderKeys {
  jwks: string;
  cookieKeys: string;
}

/** Grants (which client acts as which agent, approved by whom) and the server's keys, in the graph. */
export class OAuthRepository {
  constructor(private readonly graph: GraphExecutor) {}

  /** The keys already kept, or these, kept now (in place of the kept ones when `replace`). */
  async keys(candidate: ProviderKeys, replace = false): Promise<ProviderKeys> {
    const [row] = await this.graph.write<ProviderKeys>('auth/oauth-keys', { ...candidate, replace });
    return row;
  }

  async workspaceExists(workspaceId: string): Promise<boolean> {
    const [row] = await this.graph.read<{ exists: boolean }>('oauth/workspace-exists', { workspaceId });
    return row?.exists ?? false;
  }

  /** undefined: the user is not a member of the workspace. */
  async consentContext(workspaceId: string, userId: string): Promise<{ workspace: { id: string; name: string }; role: Role; agents: ConsentAgent[] } | undefined> {
    const [row] = await this.graph.read('oauth/consent-context', { workspaceId, userId });
    return row as never;
  }

  /** undefined: no such active agent, or the user is not a member; allowed false: neither sponsor nor owner. */
  async createGrant(workspaceId: string, agentId: string, userId: string, grant: { id: string; clientId: string; clientName: string; createdAt: string }, stamp: AuditStamp) {
    const row = await writeAudited(this.graph, 'oauth/create-grant', { workspaceId, agentId, userId, grant }, stamp, (r) =>
      r?.allowed
        ? { action: 'agent.grant.approved', workspaceId, targetIds: [agentId, grant.id], after: { grantId: grant.id, clientId: grant.clientId, clientName: grant.clientName } }
        : undefined);
    return row && { agent: row.agent as ConsentAgent, allowed: row.allowed as boolean };
  }

  /** undefined: no such agent. */
  async grants(workspaceId: string, agentId: string): Promise<Grant[] | undefined> {
    const [row] = await this.graph.read<{ grants: Grant[] }>('oauth/list-grants', { workspaceId, agentId });
    return row?.grants;
  }

  /** undefined: no such agent; grant null: no such grant of the agent. */
  async revokeGrant(workspaceId: string, agentId: string, grantId: string, caller: { userId: string; isOwner: boolean }, now: string, stamp: AuditStamp) {
    const row = await writeAudited(this.graph, 'oauth/revoke-grant', { workspaceId, agentId, grantId, ...caller, now }, stamp, (r) =>
      r?.allowed && r.grant && r.wasActive
        ? { action: 'agent.grant.revoked', workspaceId, targetIds: [agentId, grantId], before: { clientId: r.grant.clientId, clientName: r.grant.clientName } }
        : undefined);
    return row && { grant: row.grant as { id: string } | null, allowed: row.allowed as boolean };
  }

  /** The workspace of a grant the authorization server ended itself, now marked revoked; undefined: unknown grant. */
  async grantEnded(grantId: string, now: string): Promise<string | undefined> {
    const [row] = await this.graph.write<{ workspaceId: string }>('oauth/grant-ended', { grantId, now });
    return row?.workspaceId;
  }
}
