import type * as T from '../generated/types.gen.js';
import * as op from '../generated/operations.gen.js';
import type { Operations } from '../operations.js';
import { type Paged, pagedByNumber } from '../paging.js';
import type { CallOptions } from '../transport.js';
import type { Body, Item, Query, Walk } from './types.js';

export const nodesPart = (ops: Operations) => {
  const part = {
    /** Every context node matching the query, page after page. */
    list: (query: Walk<T.ListContextNodesData> = {}, call?: CallOptions): Paged<Item<T.ListContextNodesResponse['nodes']>, T.ListContextNodesResponse> =>
      pagedByNumber((page) => part.page({ ...query, page }, call), (r) => r.nodes, query.page),
    page: (query: Query<T.ListContextNodesData> = {}, call?: CallOptions) => ops.send(op.listContextNodes, { path: ops.path(), query }, call),
    get: (nodeId: string, call?: CallOptions) => ops.send(op.getContextNode, { path: ops.path({ nodeId }) }, call),
    create: (body: Body<T.CreateContextNodeData>, call?: CallOptions) => ops.send(op.createContextNode, { path: ops.path(), body }, call),
    update: (nodeId: string, body: Body<T.UpdateContextNodeData>, call?: CallOptions) =>
      ops.send(op.updateContextNode, { path: ops.path({ nodeId }), body }, call),
    archive: (nodeId: string, call?: CallOptions) => ops.send(op.archiveContextNode, { path: ops.path({ nodeId }) }, call),
    restore: (nodeId: string, call?: CallOptions) => ops.send(op.restoreContextNode, { path: ops.path({ nodeId }) }, call),
    /** Many nodes keyed by slug in one request; sending the same batch again changes nothing. */
    import: (body: Body<T.ImportContextNodesData>, call?: CallOptions) => ops.send(op.importContextNodes, { path: ops.path(), body }, call),
  };
  return part;
};

/** Manual links from a context node or a playbook to a context node. */
export const linksPart = (ops: Operations) => ({
  fromNode: (nodeId: string, body: Body<T.CreateNodeLinkData>, call?: CallOptions) =>
    ops.send(op.createNodeLink, { path: ops.path({ nodeId }), body }, call),
  deleteFromNode: (nodeId: string, linkId: string, call?: CallOptions) => ops.send(op.deleteNodeLink, { path: ops.path({ nodeId, linkId }) }, call),
  fromPlaybook: (playbookId: string, body: Body<T.CreatePlaybookLinkData>, call?: CallOptions) =>
    ops.send(op.createPlaybookLink, { path: ops.path({ playbookId }), body }, call),
  deleteFromPlaybook: (playbookId: string, linkId: string, call?: CallOptions) =>
    ops.send(op.deletePlaybookLink, { path: ops.path({ playbookId, linkId }) }, call),
});

/** The workspace's graph for a graph view: playbooks, context nodes and links, or one playbook's neighbourhood. */
export const graphPart = (ops: Operations) => ({
  get: (query: Query<T.GetGraphData> = {}, call?: CallOptions) => ops.send(op.getGraph, { path: ops.path(), query }, call),
});
