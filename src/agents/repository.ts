import type { GraphExecutor } from '../infra/neo4j.js';
import type { Agent, AgentDetail, AgentKey, AgentKeyListing, AgentStatus } from './schemas.js';

/** Missing properties come back as null, never undefined, so responses always carry every field. */
function agentOf(row: Record<string, any>): Agent {
  return { ...row, description: row.description ?? null, deactivatedAt: row.deactivatedAt ?? null } as Agent;
}

/** Agents and their keys, in the graph. Every statement is scoped by workspaceId. */
export class AgentRepository {
  constructor(private readonly graph: GraphExecutor) {}

  async create(input: Omit<Agent, 'status' | 'deactivatedAt' | 'workspaceId' | 'createdAt'>, workspaceId: string, now: string): Promise<Agent | undefined> {
    const [row] = await this.graph.write('agents/create', { ...input, workspaceId, now });
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
  async update(workspaceId: string, agentId: string, changes: { name?: string; description?: string | null }, sponsorUserId: string | null) {
    const [row] = await this.graph.write('agents/update', { workspaceId, agentId, changes, sponsorUserId });
    return row && { agent: row.agent ? agentOf(row.agent) : null, sponsorIsMember: row.sponsorIsMember as boolean };
  }

  /** The hashes of every key of the agent, or undefined when there is no such agent. */
  async deactivate(workspaceId: string, agentId: string, now: string): Promise<string[] | undefined> {
    const [row] = await this.graph.write('agents/deactivate', { workspaceId, agentId, now });
    return row?.keyHashes;
  }

  async reactivate(workspaceId: string, agentId: string) {
    const [row] = await this.graph.write('agents/reactivate', { workspaceId, agentId });
    return row && { agent: agentOf(row.agent), sponsorIsMember: row.sponsorIsMember as boolean };
  }

  /** undefined: no such agent; key null: the agent is deactivated. */
  async createKey(workspaceId: string, agentId: string, key: AgentKey & { hash: string }) {
    const [row] = await this.graph.write('agents/create-key', { workspaceId, agentId, ...key, now: key.createdAt });
    return row && { key: (row.key as AgentKey | null), status: row.status as AgentStatus };
  }

  async listKeys(workspaceId: string, agentId: string): Promise<AgentKeyListing[]> {
    const rows = await this.graph.read('agents/list-keys', { workspaceId, agentId });
    return rows.map((r) => ({ ...r.key, label: r.key.label ?? null, lastUsedAt: r.key.lastUsedAt ?? null }));
  }

  /** The revoked key's hash, or undefined when the agent has no such key. */
  async revokeKey(workspaceId: string, agentId: string, keyId: string, now: string): Promise<string | undefined> {
    const [row] = await this.graph.write('agents/revoke-key', { workspaceId, agentId, keyId, now });
    return row?.hash;
  }
}
