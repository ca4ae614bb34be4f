import type * as T from '../generated/types.gen.js';
import * as op from '../generated/operations.gen.js';
import type { Operations } from '../operations.js';
import { type Paged, pagedByCursor } from '../paging.js';
import type { CallOptions } from '../transport.js';
import type { Body, Item, Query } from './types.js';

/**
 * The operator's calls (a client made with ADMIN_TOKEN and no workspace): workspaces and users, their keys, the
 * audit log of every workspace, and how far the embeddings of every workspace are.
 */
export const adminPart = (ops: Operations) => {
  const part = {
    workspaces: {
      /** A workspace with its first owner (a new user or an existing one). */
      create: (body: Body<T.AdminCreateWorkspaceData>, call?: CallOptions) => ops.send(op.adminCreateWorkspace, { body }, call),
      /** Its name, plan, monthly limit or parent. */
      update: (workspaceId: string, body: Body<T.AdminUpdateWorkspaceData>, call?: CallOptions) =>
        ops.send(op.adminUpdateWorkspace, { path: { workspaceId }, body }, call),
    },
    users: {
      create: (body: Body<T.AdminCreateUserData>, call?: CallOptions) => ops.send(op.adminCreateUser, { body }, call),
      /** A new key of the user: its secret is in this answer only. */
      createKey: (userId: string, body: Body<T.AdminCreateUserKeyData> = {}, call?: CallOptions) =>
        ops.send(op.adminCreateUserKey, { path: { userId }, body }, call),
      /** Revoked at once, on every API process. */
      revokeKey: (userId: string, keyId: string, call?: CallOptions) => ops.send(op.adminRevokeUserKey, { path: { userId, keyId } }, call),
    },
    /** Every workspace's audit events matching the query, newest first, page after page. */
    audit: (query: Omit<Query<T.AdminListAuditEventsData>, 'cursor'> = {}, call?: CallOptions): Paged<Item<T.AdminListAuditEventsResponse['events']>, T.AdminListAuditEventsResponse> =>
      pagedByCursor(
        query as Query<T.AdminListAuditEventsData>,
        (q) => part.auditPage(q, call),
        (r) => r.events,
        (r, q) => (r.nextCursor === null ? undefined : { ...q, cursor: r.nextCursor }),
      ),
    auditPage: (query: Query<T.AdminListAuditEventsData> = {}, call?: CallOptions) => ops.send(op.adminListAuditEvents, { query }, call),
    /** How far the embeddings of every workspace are, with the model and dimension in use. */
    embeddings: (call?: CallOptions) => ops.send(op.adminEmbeddingStatus, {}, call),
  };
  return part;
};
