import type * as T from '../generated/types.gen.js';
import * as op from '../generated/operations.gen.js';
import type { Operations } from '../operations.js';
import { type Paged, pagedByNumber } from '../paging.js';
import type { CallOptions } from '../transport.js';
import type { Body, Item, Query, Walk } from './types.js';

export const playbooksPart = (ops: Operations) => {
  const part = {
    /** Every playbook matching the query, page after page: `for await (const p of client.playbooks.list())`. */
    list: (query: Walk<T.ListPlaybooksData> = {}, call?: CallOptions): Paged<Item<T.ListPlaybooksResponse['playbooks']>, T.ListPlaybooksResponse> =>
      pagedByNumber((page) => part.page({ ...query, page }, call), (r) => r.playbooks, query.page),
    /** One page, with its pagination. */
    page: (query: Query<T.ListPlaybooksData> = {}, call?: CallOptions) => ops.send(op.listPlaybooks, { path: ops.path(), query }, call),
    get: (playbookId: string, call?: CallOptions) => ops.send(op.getPlaybook, { path: ops.path({ playbookId }) }, call),
    create: (body: Body<T.CreatePlaybookData>, call?: CallOptions) => ops.send(op.createPlaybook, { path: ops.path(), body }, call),
    update: (playbookId: string, body: Body<T.UpdatePlaybookData>, call?: CallOptions) =>
      ops.send(op.updatePlaybook, { path: ops.path({ playbookId }), body }, call),
    archive: (playbookId: string, call?: CallOptions) => ops.send(op.archivePlaybook, { path: ops.path({ playbookId }) }, call),
    restore: (playbookId: string, call?: CallOptions) => ops.send(op.restorePlaybook, { path: ops.path({ playbookId }) }, call),
  };
  return part;
};

export const versionsPart = (ops: Operations) => ({
  create: (playbookId: string, body: Body<T.CreatePlaybookVersionData>, call?: CallOptions) =>
    ops.send(op.createPlaybookVersion, { path: ops.path({ playbookId }), body }, call),
  get: (playbookId: string, versionId: string, call?: CallOptions) =>
    ops.send(op.getPlaybookVersion, { path: ops.path({ playbookId, versionId }) }, call),
  /** A new draft with the content of `versionId` (roll back). */
  rollback: (playbookId: string, versionId: string, body: Body<T.RollbackPlaybookVersionData> = {}, call?: CallOptions) =>
    ops.send(op.rollbackPlaybookVersion, { path: ops.path({ playbookId, versionId }), body }, call),
  /** Approving a version that is no longer a draft is 409 version_not_draft. */
  approve: (playbookId: string, versionId: string, call?: CallOptions) =>
    ops.send(op.approvePlaybookVersion, { path: ops.path({ playbookId, versionId }) }, call),
});
