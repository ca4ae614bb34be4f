import type { Role } from '../auth/caller.js';
import { type AuditStamp, writeAudited } from '../audit/recorder.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import type { Member, Workspace } from './schemas.js';

export class WorkspaceRepository {
  constructor(private readonly graph: GraphExecutor) {}

  async get(workspaceId: string): Promise<Workspace | undefined> {
    const [row] = await this.graph.read('workspaces/get', { workspaceId });
    return row?.workspace;
  }

  /** The workspaces a user is a member of, with the role, oldest membership first. */
  async forUser(userId: string): Promise<{ workspace: Omit<Workspace, 'monthlyRetrievalLimit'>; role: Role }[]> {
    return this.graph.read('auth/workspaces-of-user', { userId });
  }

  async members(workspaceId: string): Promise<Member[]> {
    const rows = await this.graph.read('workspaces/list-members', { workspaceId });
    return rows.map((r) => r.member);
  }

  async addMember(workspaceId: string, userId: string, role: Role, now: string, stamp: AuditStamp) {
    const row = await writeAudited(this.graph, 'workspaces/add-member', { workspaceId, userId, role, now }, stamp, (r) =>
      r?.member ? { action: 'member.added', workspaceId, targetIds: [userId], after: { userId, role } } : undefined);
    return row as { member: Member | null; userFound: boolean };
  }

  async changeRole(workspaceId: string, userId: string, role: Role, now: string, stamp: AuditStamp) {
    const row = await writeAudited(this.graph, 'workspaces/change-member-role', { workspaceId, userId, role, now }, stamp, (r) =>
      r?.member ? { action: 'member.role_changed', workspaceId, targetIds: [userId], before: { role: r.previousRole }, after: { role } } : undefined);
    return row as { member: Member | null; found: boolean; lastOwner: boolean };
  }

  async removeMember(workspaceId: string, userId: string, now: string, stamp: AuditStamp) {
    const row = await writeAudited(this.graph, 'workspaces/remove-member', { workspaceId, userId, now }, stamp, (r) =>
      r?.found && !r.lastOwner
        ? { action: 'member.removed', workspaceId, targetIds: [userId], before: { userId }, after: { agentKeysRevoked: r.revokedKeyHashes.length } }
        : undefined);
    return row as { found: boolean; lastOwner: boolean; revokedKeyHashes: string[] };
  }
}
