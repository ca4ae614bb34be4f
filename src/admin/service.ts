import type { AuditStamp } from '../audit/recorder.js';
import { generateKey } from '../auth/keys.js';
import { AppError, invalidField, notFound } from '../errors.js';
import { newId } from '../infra/ids.js';
import { isConstraintViolation } from '../infra/neo4j-errors.js';
import type { ServiceDeps } from '../service-deps.js';
import type { Workspace } from '../workspaces/schemas.js';
import { AdminRepository } from './repository.js';
import type { KeyRecord, Plan, User } from './schemas.js';

/** The operator's operations: used by the admin API and by the CLI alike. */
export class AdminService {
  private readonly repo: AdminRepository;

  constructor(private readonly deps: Pick<ServiceDeps, 'graph' | 'clock' | 'gate'>) {
    this.repo = new AdminRepository(deps.graph);
  }

  async createUser(input: { email: string; name?: string }, requestId: string): Promise<User> {
    try {
      return await this.repo.createUser({ id: newId('usr'), email: input.email.toLowerCase(), name: input.name ?? null, createdAt: this.now() }, this.stamp(requestId));
    } catch (err) {
      if (isConstraintViolation(err)) throw new AppError('email_taken', 'A user with that email already exists');
      throw err;
    }
  }

  /** A new key for a user; the full key is in this answer only. */
  async createUserKey(userId: string, label: string | undefined, requestId: string): Promise<KeyRecord & { key: string }> {
    const { key, prefix, hash } = generateKey('user');
    const record = await this.repo.createUserKey(userId, { id: newId('key'), label: label ?? null, prefix, hash, createdAt: this.now() }, this.stamp(requestId));
    if (!record) throw notFound('User');
    return { ...record, key };
  }

  async revokeUserKey(userId: string, keyId: string, requestId: string): Promise<void> {
    const revoked = await this.repo.revokeUserKey(userId, keyId, this.now(), this.stamp(requestId));
    if (!revoked) throw notFound('Key');
    // The key could reach the workspaces its user is a member of.
    await this.deps.gate.accessChanged(revoked.workspaceIds, [revoked.hash]);
  }

  async createWorkspace(input: { name: string; ownerUserId: string; plan?: Plan; parentWorkspaceId?: string }, requestId: string): Promise<Workspace> {
    const result = await this.repo.createWorkspace({
      id: newId('ws'),
      name: input.name,
      plan: input.plan ?? 'free',
      ownerUserId: input.ownerUserId,
      parentWorkspaceId: input.parentWorkspaceId ?? null,
      now: this.now(),
    }, this.stamp(requestId));
    if (!result.ownerFound) throw invalidField('/ownerUserId', 'does not name a user');
    if (!result.parentFound) throw invalidField('/parentWorkspaceId', 'does not name a workspace');
    return normalise(result.workspace!);
  }

  async updateWorkspace(
    workspaceId: string,
    input: { name?: string; plan?: Plan; monthlyRetrievalLimit?: number | null; parentWorkspaceId?: string | null },
    requestId: string,
  ): Promise<Workspace> {
    const { parentWorkspaceId, ...changes } = input;
    const result = await this.repo.updateWorkspace(workspaceId, changes, { set: parentWorkspaceId !== undefined, id: parentWorkspaceId ?? null }, this.stamp(requestId));
    if (!result) throw notFound('Workspace');
    if (!result.parentFound) throw invalidField('/parentWorkspaceId', 'does not name a workspace');
    if (result.cycle) throw invalidField('/parentWorkspaceId', 'would make the workspace its own ancestor');
    if (changes.plan !== undefined || changes.monthlyRetrievalLimit !== undefined) await this.deps.gate.limitChanged(workspaceId);
    return normalise(result.workspace);
  }

  /** The operator's changes: the admin API (its request id) or the CLI (`cli-…`). */
  private stamp(requestId: string): AuditStamp {
    return { actor: { kind: 'operator' }, requestId, at: this.now() };
  }

  private now(): string {
    return this.deps.clock().toISOString();
  }
}

function normalise(ws: Workspace): Workspace {
  return { ...ws, parentWorkspaceId: ws.parentWorkspaceId ?? null, monthlyRetrievalLimit: ws.monthlyRetrievalLimit ?? null };
}
