import type * as T from '../generated/types.gen.js';
import * as op from '../generated/operations.gen.js';
import type { Operations } from '../operations.js';
import type { CallOptions } from '../transport.js';
import type { Body } from './types.js';

/** Every workspace the client's key reaches (not only this client's): a user's memberships, or an agent's one workspace. */
export const workspacesPart = (ops: Operations) => ({
  list: (call?: CallOptions) => ops.send(op.listWorkspaces, {}, call).then((r) => r.workspaces),
});

/** The workspace and the caller's role in it. */
export const workspacePart = (ops: Operations) => ({
  get: (call?: CallOptions) => ops.send(op.getWorkspace, { path: ops.path() }, call),
  /** The whole workspace as one document (owner). */
  export: (call?: CallOptions) => ops.send(op.exportWorkspace, { path: ops.path() }, call),
  /** The same document as its bytes arrive, for a file: a workspace's document may be larger than one string may be. */
  exportStream: async (call?: CallOptions): Promise<ReadableStream<Uint8Array>> =>
    (await ops.answer<ReadableStream<Uint8Array>>(op.exportWorkspace, { path: ops.path(), parseAs: 'stream' }, call)).data,
  /** Rebuilds an export in this empty workspace (owner); a second attempt would meet a workspace that is no longer empty, so it is never retried. */
  import: (body: Body<T.ImportWorkspaceData>, call?: CallOptions) => ops.send(op.importWorkspace, { path: ops.path(), body }, call),
});

/** This month's retrievals: used, limit, remaining, resetsAt, and per day. */
export const usagePart = (ops: Operations) => ({
  get: (call?: CallOptions) => ops.send(op.getUsage, { path: ops.path() }, call),
});

export const membersPart = (ops: Operations) => ({
  list: (call?: CallOptions) => ops.send(op.listMembers, { path: ops.path() }, call).then((r) => r.members),
  add: (body: Body<T.AddMemberData>, call?: CallOptions) => ops.send(op.addMember, { path: ops.path(), body }, call),
  changeRole: (userId: string, body: Body<T.ChangeMemberRoleData>, call?: CallOptions) =>
    ops.send(op.changeMemberRole, { path: ops.path({ userId }), body }, call),
  remove: (userId: string, call?: CallOptions) => ops.send(op.removeMember, { path: ops.path({ userId }) }, call),
});
