import type { Role } from '../auth/caller.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import type { Member, Workspace } from './schemas.js';

export class WorkspaceRepository {
  constructor(private readonly graph: GraphExecutor) {}

  async get(workspaceId: string): Promise<Workspace | undefined> {
    const [row] = await this.graph.read('workspaces/get', { workspaceId });
    return row?.workspace;
  }

  async members(workspaceId: string): Promise<Member[]> {
    const rows = await this.graph.read('workspaces/list-members', { workspaceId });
    return rows.map((r) => r.member);
  }

  async addMember(workspaceId: string, userId: string, role: Role, now: string) {
    const [row] = await this.graph.write('workspaces/add-member', { workspaceId, userId, role, now });
    return row as { member: Member | null; userFound: boolean };
  }

  async changeRole(workspaceId: string, userId: string, role: Role, now: string) {
    const [row] = await this.graph.write('workspaces/change-member-role', { workspaceId, userId, role, now });
    return row as { member: Member | null; found: boolean; lastOwner: boolean };
  }

  async removeMember(workspaceId: string, userId: string, now: string) {
    const [row] = await this.graph.write('workspaces/remove-member', { workspaceId, userId, now });
    return row as { found: boolean; lastOwner: boolean; revokedKeyHashes: string[] };
  }
}
