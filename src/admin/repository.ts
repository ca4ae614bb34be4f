import type { GraphExecutor } from '../infra/neo4j.js';
import type { Workspace } from '../workspaces/schemas.js';
import type { KeyRecord, User } from './schemas.js';

/** Users, their keys and workspaces as the operator manages them. */
export class AdminRepository {
  constructor(private readonly graph: GraphExecutor) {}

  async createUser(user: User): Promise<User> {
    const [row] = await this.graph.write('admin/create-user', { ...user, now: user.createdAt });
    return row.user;
  }

  async createUserKey(userId: string, key: KeyRecord & { hash: string }): Promise<KeyRecord | undefined> {
    const [row] = await this.graph.write('admin/create-user-key', { userId, ...key, now: key.createdAt });
    return row?.key;
  }

  /** The revoked key's hash, or undefined when the user has no such key. */
  /** The revoked key's hash and the workspaces its user belongs to; undefined when there is no such key. */
  async revokeUserKey(userId: string, keyId: string, now: string): Promise<{ hash: string; workspaceIds: string[] } | undefined> {
    const [row] = await this.graph.write('admin/revoke-user-key', { userId, keyId, now });
    return row as { hash: string; workspaceIds: string[] } | undefined;
  }

  async createWorkspace(input: { id: string; name: string; plan: string; ownerUserId: string; parentWorkspaceId: string | null; now: string }) {
    const [row] = await this.graph.write('admin/create-workspace', input);
    return row as { workspace: Workspace | null; ownerFound: boolean; parentFound: boolean };
  }

  async updateWorkspace(workspaceId: string, changes: Record<string, unknown>, parent: { set: boolean; id: string | null }) {
    const [row] = await this.graph.write('admin/update-workspace', {
      workspaceId,
      changes,
      setParent: parent.set,
      parentWorkspaceId: parent.id,
    });
    return row as { workspace: Workspace; parentFound: boolean; cycle: boolean } | undefined;
  }
}
