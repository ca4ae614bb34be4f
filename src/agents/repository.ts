import { type AuditStamp, pick, writeAudited } from '../audit/recorder.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import type { Agent, AgentDetail, AgentKey, AgentKeyListing, AgentStatus } from './schemas.js';

/** Missing properties come back as null, never undefined, so responses always carry every field. */
function agentOf(row: Record<string, any>): Agent {
  return { ...row, description: row.description ?? null, deactivatedAt: row.deactivatedAt ?? null } as Agent;
}

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

  async get(workspaceId: string, agentId: string): Promise<AgentDetail | undefined> {
    const [row] = await this.graph.read('agents/get', { workspaceId, agentId });
    return row && { ...agentOf(row.agent), keyCount: row.agent.keyCount };
  }

  /** undefined: no such agent; agent null: the new sponsor is not a member. */
  async update(workspaceId: string, agentId: string, changes: { name?: string; description?: string | null }, sponsorUserId: string | null, stamp: AuditStamp, before: Agent) {
    const fields = [...Object.keys(changes), ...(sponsorUserId ? ['sponsorUserId'] : [])];
    const row = await writeAudited(this.graph, 'agents/update', { workspaceId, agentId, changes, sponsorUserId }, stamp, (r) =>
      r?.agent ? { action: 'agent.updated', workspaceId, targetIds: [agentId], before: pick(before, fields), after: pick(r.agent, fields) } : undefined);
    return row && { agent: row.agent ? agentOf(row.agent) : null, sponsorIsMember: row.sponsorIsMember as boolean };
  }

  /** The hashes of every key of the agent, or undefined when there is no such agent. */
  async deactivate(workspaceId: string, agentId: string, now: string, stamp: AuditStamp, before: Agent): Promise<string[] | undefined> {
    const row = await writeAudited(this.graph, 'agents/deactivate', { workspaceId, agentId, now }, stamp, (r) =>
      r && { action: 'agent.deactivated', workspaceId, targetIds: [agentId], before: { status: before.status }, after: { status: 'deactivated', keysRevoked: r.keyHashes.length } });
    return row?.keyHashes;
  }

  async reactivate(workspaceId: string, agentId: string, stamp: AuditStamp) {
    const row = await writeAudited(this.graph, 'agents/reactivate', { workspaceId, agentId }, stamp, (r) =>
      r?.sponsorIsMember ? { action: 'agent.reactivated', workspaceId, targetIds: [agentId], after: { status: r.agent.status } } : undefined);
    return row && { agent: agentOf(row.agent), sponsorIsMember: row.sponsorIsMember as boolean };
  }

  /** undefined: no such agent; key null: the agent is deactivated. */
  async createKey(workspaceId: string, agentId: string, key: AgentKey & { hash: string }, stamp: AuditStamp) {
    const row = await writeAudited(this.graph, 'agents/create-key', { workspaceId, agentId, ...key, now: key.createdAt }, stamp, (r) =>
      r?.key ? { action: 'agent.key.created', workspaceId, targetIds: [agentId, key.id], after: { id: key.id, label: key.label } } : undefined);
    return row && { key: (row.key as AgentKey | null), status: row.status as AgentStatus };
  }

  async listKeys(workspaceId: string, agentId: string): Promise<AgentKeyListing[]> {
    const rows = await this.graph.read('agents/list-keys', { workspaceId, agentId });
    return rows.map((r) => ({ ...r.key, label: r.key.label ?? null, lastUsedAt: r.key.lastUsedAt ?? null }));
  }

  /** The revoked key's hash, or undefined when the agent has no such key. */
  async revokeKey(workspaceId: string, agentId: string, keyId: string, now: string, stamp: AuditStamp): Promise<string | undefined> {
    const row = await writeAudited(this.graph, 'agents/revoke-key', { workspaceId, agentId, keyId, now }, stamp, (r) =>
      r && { action: 'agent.key.revoked', workspaceId, targetIds: [agentId, keyId], after: { revoked: true } });
    return row?.hash;
  }
}
