import { stampOf } from '../audit/recorder.js';
import type { Caller, Principal, Role } from '../auth/caller.js';
import { AppError, invalidField, notFound } from '../errors.js';
import type { ServiceDeps } from '../service-deps.js';
import { WorkspaceRepository } from './repository.js';
import type { Member, Usage, Workspace, WorkspaceView } from './schemas.js';

export class WorkspaceService {
  private readonly repo: WorkspaceRepository;

  constructor(private readonly deps: ServiceDeps) {
    this.repo = new WorkspaceRepository(deps.graph);
  }

  async get(caller: Caller): Promise<WorkspaceView> {
    return this.view(await this.require(caller.workspaceId), caller.role);
  }

  /**
   * The workspaces a key reaches: a user's every membership with its role (oldest first); an agent's one
   * workspace with the role it acts with (already capped by its sponsor's).
   */
  async mine(principal: Principal): Promise<WorkspaceView[]> {
    if (principal.kind === 'agent') {
      const ws = await this.repo.get(principal.workspaceId);
      return ws ? [this.view(ws, principal.role)] : [];
    }
    const rows = await this.repo.forUser(principal.id);
    return rows.map((r) => this.view(r.workspace, r.role));
  }

  private view(ws: Omit<Workspace, 'monthlyRetrievalLimit'>, role: Role): WorkspaceView {
    return { id: ws.id, name: ws.name, plan: ws.plan, parentWorkspaceId: ws.parentWorkspaceId ?? null, role, createdAt: ws.createdAt };
  }

  usage(caller: Caller): Promise<Usage> {
    return this.deps.gate.usage(caller.workspaceId);
  }

  async require(workspaceId: string): Promise<Workspace> {
    const ws = await this.repo.get(workspaceId);
    if (!ws) throw notFound('Workspace');
    return ws;
  }

  members(caller: Caller): Promise<Member[]> {
    return this.repo.members(caller.workspaceId);
  }

  async addMember(caller: Caller, userId: string, role: Role): Promise<Member> {
    const { member, userFound } = await this.repo.addMember(caller.workspaceId, userId, role, this.now(), stampOf(caller, this.now()));
    if (!userFound) throw invalidField('/userId', 'does not name a user');
    if (!member) throw new AppError('already_member', 'That user is already a member of this workspace');
    await this.deps.gate.accessChanged([caller.workspaceId]);
    return member;
  }

  async changeRole(caller: Caller, userId: string, role: Role): Promise<Member> {
    const result = await this.repo.changeRole(caller.workspaceId, userId, role, this.now(), stampOf(caller, this.now()));
    if (!result.found) throw notFound('Member');
    if (result.lastOwner) throw new AppError('last_owner', 'The last owner of a workspace cannot be demoted');
    await this.deps.gate.accessChanged([caller.workspaceId]);
    return result.member!;
  }

  /** Owners may remove anyone; any member may remove themself. Their sponsored agents go with them. */
  async removeMember(caller: Caller, userId: string): Promise<void> {
    const self = caller.principal.kind === 'user' && caller.principal.id === userId;
    if (!self && caller.role !== 'owner') {
      throw new AppError('insufficient_role', 'Only an owner can remove another member');
    }
    const result = await this.repo.removeMember(caller.workspaceId, userId, this.now(), stampOf(caller, this.now()));
    if (!result.found) throw notFound('Member');
    if (result.lastOwner) throw new AppError('last_owner', 'The last owner of a workspace cannot be removed');
    await this.deps.gate.accessChanged([caller.workspaceId], result.revokedKeyHashes);
  }

  private now(): string {
    return this.deps.clock().toISOString();
  }
}
