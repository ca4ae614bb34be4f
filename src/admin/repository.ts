import { type AuditStamp, pick, writeAudited } from '../audit/recorder.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import type { Workspace } from '../workspaces/schemas.js';
import type { KeyRecord, User } from './schemas.js';

/** Users, their keys and workspaces as the operator manages them. */
export class AdminRepository {
  constructor(private readonly graph: GraphExecutor) {}

  async createUser(user: User, stamp: AuditStamp): Promise<User> {
    const row = await writeAudited(this.graph, 'admin/create-user', { ...user, now: user.createdAt }, stamp, () =>
      ({ action: 'user.created', workspaceId: null, targetIds: [user.id], after: { name: user.name } }));
    return row!.user;
  }

  async createUserKey(userId: string, key: KeyRecord & { hash: string }, stamp: AuditStamp): Promise<KeyRecord | undefined> {
    const row = await writeAudited(this.graph, 'admin/create-user-key', { userId, ...key, now: key.createdAt }, stamp, (r) =>
      r?.key ? { action: 'user.key.created', workspaceId: null, targetIds: [userId, key.id], after: { id: key.id, label: key.label } } : undefined);
    return row?.key;
  }

  /** The revoked key's hash, or undefined when the user has no such key. */
  /** The revoked key's hash and the workspaces its user belongs to; undefined when there is no such key. */
  async revokeUserKey(userId: string, keyId: string, now: string, stamp: AuditStamp): Promise<{ hash: string; workspaceIds: string[] } | undefined> {
    const row = await writeAudited(this.graph, 'admin/revoke-user-key', { userId, keyId, now }, stamp, (r) =>
      r && { action: 'user.key.revoked', workspaceId: null, targetIds: [userId, keyId], after: { revoked: true } });
    return row as { hash: string; workspaceIds: string[] } | undefined;
  }

  async createWorkspace(input: { id: string; name: string; plan: string; ownerUserId: string; parentWorkspaceId: string | null; now: string }, stamp: AuditStamp) {
    const row = await writeAudited(this.graph, 'admin/create-workspace', input, stamp, (r) =>
      r?.workspace ? { action: 'workspace.created', workspaceId: input.id, targetIds: [input.id, input.ownerUserId], after: r.workspace } : undefined);
    return row as { workspace: Workspace | null; ownerFound: boolean; parentFound: boolean };
  }

  async updateWorkspace(workspaceId: string, changes: Record<string, unknown>, parent: { set: boolean; id: string | null }, stamp: AuditStamp) {
    const fields = [...Object.keys(changes), ...(parent.set ? ['parentWorkspaceId'] : [])];
    const params = { workspaceId, changes, setParent: parent.set, parentWorkspaceId: parent.id };
    const row = await writeAudited(this.graph, 'admin/update-workspace', params, stamp, (r) =>
      r?.workspace && r.parentFound && !r.cycle
        ? { action: 'workspace.updated', workspaceId, targetIds: [workspaceId], before: pick(r.before, fields), after: pick(r.workspace, fields) }
        : undefined);
    return row as { workspace: Workspace; parentFound: boolean; cycle: boolean } | undefined;
  }
}
