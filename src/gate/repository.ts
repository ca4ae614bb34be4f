import type { Principal, Role } from '../auth/caller.js';
import type { GraphExecutor } from '../infra/neo4j.js';

export interface RetrievalDelta {
  workspaceId: string;
  period: string;
  principalKind: 'agent' | 'user';
  principalId: string;
  count: number;
}

/** What the gate reads from and writes to Neo4j: principals behind keys, roles, key use, persisted usage. */
export class GateRepository {
  constructor(private readonly graph: GraphExecutor) {}

  /**
   * The active principal behind a key hash at `now`, with when the key stops working (null: until revoked);
   * undefined for an unknown, revoked, expired or deactivated one.
   */
  async key(keyHash: string, now: Date): Promise<{ principal: Principal; expiresAt: string | null } | undefined> {
    const [row] = await this.graph.read('auth/find-key', { hash: keyHash, now: now.toISOString() });
    if (!row) return undefined;
    const expiresAt: string | null = row.expiresAt ?? null;
    if (row.kind === 'agent') {
      return { principal: { kind: 'agent', id: row.principalId, keyId: row.keyId, workspaceId: row.workspaceId, sponsorUserId: row.sponsorUserId, role: row.role }, expiresAt };
    }
    return { principal: { kind: 'user', id: row.principalId, keyId: row.keyId }, expiresAt };
  }

  /** The agent an OAuth grant acts as in the workspace, while the grant holds (auth/find-grant.cypher says when it does not). */
  async grant(grantId: string, workspaceId: string): Promise<{ agentId: string; sponsorUserId: string; role: Role; clientId: string; clientName: string } | undefined> {
    const [row] = await this.graph.read<{ agentId: string; sponsorUserId: string; role: Role; clientId: string; clientName: string }>('auth/find-grant', { grantId, workspaceId });
    return row;
  }

  async userRole(userId: string, workspaceId: string): Promise<Role | undefined> {
    const [row] = await this.graph.read<{ role: Role }>('auth/user-role', { userId, workspaceId });
    return row?.role;
  }

  async touchKeys(uses: { keyId: string; at: string }[]): Promise<void> {
    await this.graph.write('auth/touch-keys', { uses });
  }

  /** The workspace's own monthly limit and plan; undefined when it does not exist. */
  async workspacePlan(workspaceId: string): Promise<{ plan: string; monthlyRetrievalLimit: number | null } | undefined> {
    const [row] = await this.graph.read('workspaces/get', { workspaceId });
    return row?.workspace;
  }

  async persistedUsage(workspaceId: string, period: string): Promise<number> {
    const [row] = await this.graph.read('quota/get-usage', { workspaceId, period });
    return Number(row?.used ?? 0);
  }

  async persistUsage(counts: { workspaceId: string; period: string; used: number }[], now: string): Promise<void> {
    await this.graph.write('quota/persist-usage', { counts, now });
  }

  async recordPendingSignal(signal: PendingSignal, now: string): Promise<void> {
    await this.graph.write('gate/record-pending-signal', { ...signal, now });
  }

  async pendingSignals(): Promise<PendingSignal[]> {
    return this.graph.read<PendingSignal>('gate/pending-signals');
  }

  async deletePendingSignals(ids: string[]): Promise<void> {
    await this.graph.write('gate/delete-pending-signals', { ids });
  }
  /** Adds per-principal retrieval counts (deltas) to their monthly totals. */
  async persistRetrievals(counts: RetrievalDelta[], now: string): Promise<void> {
    await this.graph.write('quota/persist-retrievals', { counts, now });
  }
}

/** A signal a committed change owes Redis: a new graph generation, a new auth epoch, revoked marks. */
export interface PendingSignal {
  id: string;
  workspaceId: string;
  graph: boolean;
  access: boolean;
  keyHashes: string[];
}
