import { type AuditStamp, pick, recordAudit, writeAudited } from '../audit/recorder.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import type { Agent, AgentDetail, AgentKey, AgentKeyListing, AgentStatus } from './schemas.js';

/** Missing properties come back as null, never undefined, so responses always carry every field. */
function agentOf(row: Record<string, any>): Agent {
  return { ...row, description: row.description ?? null, deactivatedAt: row.deactivatedAt ?? null } as Agent;
}

/** What a rotation did: refused (changing nothing), or a new key and the old one's expiry. */
export type RotateOutcome =
  | { refusal: 'agent_deactivated' | 'not_active' | 'already_rotated' }
  | { refusal?: undefined; key: AgentKey; previous: { id: string; prefix: string; expiresAt: string }; hash: string; revokedNow: boolean };

/** Agents and their keys, in the graph. Every statement is scoped by workspaceId. */
export class AgentRepository {
  constructor(private readonly graph: GraphExecutor) {}

  async create(input: Omit<Agent, 'status' | 'deactivatedAt' | 'workspaceId' | 'createdAt'>, workspaceId: string, now: string, stamp: AuditStamp): Promise<Agent | undefined> {
    const row = await writeAudited(this.graph, 'agents/create', { ...input, workspaceId, now }, stamp, (r) =>
      r && { action: 'agent.created', workspaceId, targetIds: [input.id], after: r.agent });
    return row && agentOf(row.agent);
  }

  async list(workspaceId: string): Promise<Agent[]> {
    const rows = await this.graph.read('agents/list', { workspaceId });
    return rows.map((r) => agentOf(r.agent));
  }

  async get(workspaceId: string, agentId: string, now: string): Promise<AgentDetail | undefined> {
    const [row] = await this.graph.read('agents/get', { workspaceId, agentId, now });
    return row && { ...agentOf(row.agent), keyCount: row.agent.keyCount };
  }

  /** undefined: no such agent; agent null: the new sponsor is not a member. */
  async update(workspaceId: string, agentId: string, changes: { name?: string; description?: string | null }, sponsorUserId: string | null, stamp: AuditStamp) {
    const fields = [...Object.keys(changes), ...(sponsorUserId ? ['sponsorUserId'] : [])];
    const row = await writeAudited(this.graph, 'agents/update', { workspaceId, agentId, changes, sponsorUserId }, stamp, (r) =>
      r?.agent ? { action: 'agent.updated', workspaceId, targetIds: [agentId], before: pick(r.before, fields), after: pick(r.agent, fields) } : undefined);
    return row && { agent: row.agent ? agentOf(row.agent) : null, sponsorIsMember: row.sponsorIsMember as boolean };
  }

  /** The hashes of every key of the agent, or undefined when there is no such agent. */
  async deactivate(workspaceId: string, agentId: string, now: string, stamp: AuditStamp): Promise<string[] | undefined> {
    const row = await writeAudited(this.graph, 'agents/deactivate', { workspaceId, agentId, now }, stamp, (r) =>
      // Deactivating a deactivated agent changes nothing, so it records nothing either.
      r?.wasActive
        ? { action: 'agent.deactivated', workspaceId, targetIds: [agentId], before: { status: 'active' }, after: { status: 'deactivated', keysRevoked: r.keyHashes.length } }
        : undefined);
    return row?.keyHashes;
  }

  async reactivate(workspaceId: string, agentId: string, stamp: AuditStamp) {
    const row = await writeAudited(this.graph, 'agents/reactivate', { workspaceId, agentId }, stamp, (r) =>
      r?.sponsorIsMember && !r.wasActive ? { action: 'agent.reactivated', workspaceId, targetIds: [agentId], after: { status: r.agent.status } } : undefined);
    return row && { agent: agentOf(row.agent), sponsorIsMember: row.sponsorIsMember as boolean };
  }

  /** undefined: no such agent; key null: the agent is deactivated. */
  async createKey(workspaceId: string, agentId: string, key: AgentKey & { hash: string }, stamp: AuditStamp) {
    const row = await writeAudited(this.graph, 'agents/create-key', { workspaceId, agentId, ...key, now: key.createdAt }, stamp, (r) =>
      r?.key ? { action: 'agent.key.created', workspaceId, targetIds: [agentId, key.id], after: { id: key.id, label: key.label } } : undefined);
    return row && { key: (row.key as AgentKey | null), status: row.status as AgentStatus };
  }

  async listKeys(workspaceId: string, agentId: string, now: string): Promise<AgentKeyListing[]> {
    const rows = await this.graph.read('agents/list-keys', { workspaceId, agentId, now });
    return rows.map((r) => ({ ...r.key, label: r.key.label ?? null, lastUsedAt: r.key.lastUsedAt ?? null, expiresAt: r.key.expiresAt ?? null }));
  }

  /**
   * A new key for the agent, the old one working until `expiresAt` (revoked in the same transaction, with the
   * statement revokeKey runs, when that is now). undefined: no such agent or key; otherwise what was refused, or
   * the new key and the old one's hash.
   */
  async rotateKey(
    workspaceId: string,
    agentId: string,
    keyId: string,
    key: AgentKey & { hash: string },
    expiresAt: string,
    stamp: AuditStamp,
  ): Promise<RotateOutcome | undefined> {
    const now = key.createdAt;
    return this.graph.writeTx(async (tx) => {
      const [locked] = await tx.run('agents/lock-agent', { workspaceId, agentId, now });
      if (!locked) return undefined;
      if (locked.status !== 'active') return { refusal: 'agent_deactivated' } as const;
      const [row] = await tx.run('agents/rotate-key', { workspaceId, agentId, keyId, ...key, now, expiresAt });
      if (!row) return undefined;
      if (row.refusal) return { refusal: row.refusal as 'not_active' | 'already_rotated' };
      const revokedNow = expiresAt <= now;
      if (revokedNow) await tx.run('agents/revoke-key', { workspaceId, agentId, keyId, now });
      await recordAudit(tx, stamp, {
        action: 'agent.key.rotated', workspaceId, targetIds: [agentId, keyId, key.id],
        before: { id: keyId, expiresAt: null },
        after: { id: keyId, expiresAt, revoked: revokedNow, newKey: { id: key.id, label: row.key.label ?? null } },
      });
      return { key: { ...row.key, label: row.key.label ?? null } as AgentKey, previous: { id: row.previous.id as string, prefix: row.previous.prefix as string, expiresAt }, hash: row.previous.hash as string, revokedNow };
    });
  }

  /** The revoked key's hash, or undefined when the agent has no such key. */
  async revokeKey(workspaceId: string, agentId: string, keyId: string, now: string, stamp: AuditStamp): Promise<string | undefined> {
    const row = await writeAudited(this.graph, 'agents/revoke-key', { workspaceId, agentId, keyId, now }, stamp, (r) =>
      // Revoking a revoked key changes nothing, so it records nothing either.
      r?.wasActive ? { action: 'agent.key.revoked', workspaceId, targetIds: [agentId, keyId], after: { revoked: true } } : undefined);
    return row?.hash;
  }
}
