import { stampOf } from '../audit/recorder.js';
import { type Caller, type Role, lowerRole } from '../auth/caller.js';
import { generateKey } from '../auth/keys.js';
import { AppError, invalidField, notFound } from '../errors.js';
import { newId } from '../infra/ids.js';
import type { ServiceDeps } from '../service-deps.js';
import { AgentRepository } from './repository.js';
import type { Agent, AgentDetail, AgentKey, AgentKeyListing, RotatedKey } from './schemas.js';

const rotationRefused = {
  agent_deactivated: () => new AppError('conflict', 'The agent is deactivated; reactivate it before giving it keys'),
  not_active: () => new AppError('key_not_active', 'The key is revoked or expired; create a new key instead'),
  already_rotated: () => new AppError('key_already_rotated', 'The key was already rotated and expires soon; rotate its successor, or revoke it'),
};

/**
 * Agents: AI principals of one workspace, each with a human sponsor and its own keys.
 * Any member may register one (its role capped by the creator's); its sponsor or an owner manages it.
 * Every change that can take access away is signalled to every API process (RequestGate.accessChanged)
 * after its commit; those operations are idempotent, so a retry after a 503 signals again.
 */
export class AgentService {
  private readonly repo: AgentRepository;

  constructor(private readonly deps: ServiceDeps) {
    this.repo = new AgentRepository(deps.graph);
  }

  /** The role granted is the lower of the one asked for (viewer by default) and the creator's, silently. */
  async register(caller: Caller, input: { name: string; description?: string | null; role?: Role }): Promise<Agent> {
    const agent = await this.repo.create(
      {
        id: newId('ag'),
        name: input.name,
        description: input.description ?? null,
        role: lowerRole(input.role ?? 'viewer', caller.role),
        sponsorUserId: caller.actingUserId,
      },
      caller.workspaceId,
      this.now(),
      stampOf(caller, this.now()),
    );
    // The creator's membership vanished between authentication and the write.
    if (!agent) throw notFound('Workspace');
    return agent;
  }

  list(caller: Caller): Promise<Agent[]> {
    return this.repo.list(caller.workspaceId);
  }

  async get(caller: Caller, agentId: string): Promise<AgentDetail> {
    const agent = await this.repo.get(caller.workspaceId, agentId, this.now());
    if (!agent) throw notFound('Agent');
    return agent;
  }

  async update(caller: Caller, agentId: string, input: { name?: string; description?: string | null; sponsorUserId?: string }): Promise<Agent> {
    const current = await this.managed(caller, agentId);
    const changes: { name?: string; description?: string | null } = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.description !== undefined) changes.description = input.description;
    const sponsorChanged = input.sponsorUserId !== undefined && input.sponsorUserId !== current.sponsorUserId;
    const result = await this.repo.update(caller.workspaceId, agentId, changes, input.sponsorUserId ?? null, stampOf(caller, this.now()));
    if (!result) throw notFound('Agent');
    if (!result.sponsorIsMember) throw invalidField('/sponsorUserId', 'is not a member of this workspace');
    // The sponsor is part of the agent's cached principal (acting user, role cap).
    if (sponsorChanged) await this.deps.gate.accessChanged([caller.workspaceId]);
    return result.agent!;
  }

  /** Deactivates the agent and revokes all its keys for good. Deactivating again is a no-op (204). */
  async deactivate(caller: Caller, agentId: string): Promise<void> {
    await this.managed(caller, agentId);
    const now = this.now();
    const hashes = await this.repo.deactivate(caller.workspaceId, agentId, now, stampOf(caller, now));
    if (!hashes) throw notFound('Agent');
    await this.deps.gate.accessChanged([caller.workspaceId], hashes);
  }

  /** Owner only (checked by the route). Active again with no keys; its sponsor must still be a member. */
  async reactivate(caller: Caller, agentId: string): Promise<Agent> {
    const result = await this.repo.reactivate(caller.workspaceId, agentId, stampOf(caller, this.now()));
    if (!result) throw notFound('Agent');
    if (!result.sponsorIsMember) {
      throw new AppError('conflict', 'The agent’s sponsor is no longer a member of this workspace; give it another sponsor first (PUT sponsorUserId)');
    }
    return result.agent;
  }

  /** A new key; the full key is in this answer only. */
  async createKey(caller: Caller, agentId: string, label?: string): Promise<AgentKey & { key: string }> {
    await this.managed(caller, agentId);
    const { key, prefix, hash } = generateKey('agent');
    const now = this.now();
    const result = await this.repo.createKey(caller.workspaceId, agentId, { id: newId('key'), label: label ?? null, prefix, hash, createdAt: now }, stampOf(caller, now));
    if (!result) throw notFound('Agent');
    if (!result.key) throw new AppError('conflict', 'The agent is deactivated; reactivate it before giving it keys');
    return { ...result.key, key };
  }

  async listKeys(caller: Caller, agentId: string): Promise<AgentKeyListing[]> {
    await this.managed(caller, agentId);
    return this.repo.listKeys(caller.workspaceId, agentId, this.now());
  }

  /** Revokes at once, on every API process. Revoking a revoked key again is a no-op (204). */
  async revokeKey(caller: Caller, agentId: string, keyId: string): Promise<void> {
    await this.managed(caller, agentId);
    const now = this.now();
    const hash = await this.repo.revokeKey(caller.workspaceId, agentId, keyId, now, stampOf(caller, now));
    if (!hash) throw notFound('Key');
    await this.deps.gate.accessChanged([caller.workspaceId], [hash]);
  }

  /**
   * A new key (in full in this answer only), the old one working for `graceSeconds` more and then refused like a
   * revoked key, on every process; 0 revokes it at once, as revokeKey does. A key that is revoked, expired or
   * already rotated is 409, and so is a deactivated agent's. Without a label the new key keeps the old one's.
   */
  async rotateKey(caller: Caller, agentId: string, keyId: string, input: { graceSeconds?: number; label?: string }): Promise<RotatedKey> {
    await this.managed(caller, agentId);
    const { key, prefix, hash } = generateKey('agent');
    const at = this.deps.clock();
    const now = at.toISOString();
    const expiresAt = new Date(at.getTime() + (input.graceSeconds ?? 86_400) * 1000).toISOString();
    // A null label is the old key's, taken over in the same statement that reads it.
    const created = { id: newId('key'), label: input.label ?? null, prefix, hash, createdAt: now };
    const result = await this.repo.rotateKey(caller.workspaceId, agentId, keyId, created, expiresAt, stampOf(caller, now));
    if (!result) throw notFound('Key');
    if (result.refusal !== undefined) throw rotationRefused[result.refusal]();
    // Every process drops what it cached about the old key: revoked at once, or reloaded with its expiry.
    await this.deps.gate.accessChanged([caller.workspaceId], result.revokedNow ? [result.hash] : []);
    return { key: { ...result.key, key }, previousKey: result.previous };
  }

  /** The agent, when the caller may manage it: its sponsor or an owner (404 first, then 403). */
  private async managed(caller: Caller, agentId: string): Promise<AgentDetail> {
    const agent = await this.get(caller, agentId);
    const isSponsor = caller.principal.kind === 'user' && caller.principal.id === agent.sponsorUserId;
    if (!isSponsor && caller.role !== 'owner') {
      throw new AppError('insufficient_role', 'Only the agent’s sponsor or a workspace owner can do this');
    }
    return agent;
  }

  private now(): string {
    return this.deps.clock().toISOString();
  }
}
