import { WorkspacePath } from '../api/common-schemas.js';
import { type AnyRoute, defineRoute } from '../http/route.js';
import type { NodeImportService } from './import.js';
import type { NodeService } from './service.js';
import {
  CreateBody, ImportBody, ImportResultSchema, LinkBody, LinkSchema, ListQuery, NodeDetailSchema, NodeLinkPath, NodePageSchema, NodePath, PlaybookLinkPath, PlaybookPath, UpdateBody,
} from './schemas.js';

const nodes = { tag: 'Context nodes' } as const;
const links = { tag: 'Links' } as const;
const viewers = { kind: 'workspace', minRole: 'viewer' } as const;
const editors = { kind: 'workspace', minRole: 'editor' } as const;

export function nodeRoutes(s: { nodes: NodeService; nodeImport: NodeImportService }): AnyRoute[] {
  return [
    defineRoute({
      ...nodes, method: 'get', path: '/api/v1/workspaces/:workspaceId/context-nodes', operationId: 'listContextNodes', summary: 'List or search context nodes',
      cache: {},
      description: 'Live nodes by default; filter by nodeType and status, sort, page, and search with q. Sending both status and the deprecated archived is 400.',
      access: viewers, params: WorkspacePath, query: ListQuery,
      responses: { 200: { description: 'One page of nodes', schema: NodePageSchema } },
      handler: async ({ ctx, caller, query }) => {
        ctx.body = await s.nodes.list(caller, query);
      },
    }),
    defineRoute({
      ...nodes, method: 'post', path: '/api/v1/workspaces/:workspaceId/context-nodes', operationId: 'createContextNode', summary: 'Create a context node',
      description: 'Defaults: nodeType reference, importance 50, readFirst and edgeCaseOnly false. A slug taken by another node is 409 slug_taken; without a slug one is made from the title (-2, -3, … when taken). Wikilinks in content become links at once, and wikilinks of other nodes waiting for this slug resolve to it.',
      access: editors, params: WorkspacePath, body: CreateBody,
      responses: { 201: { description: 'The node, with its links', schema: NodeDetailSchema } },
      errors: [409],
      handler: async ({ ctx, caller, body }) => {
        ctx.status = 201;
        ctx.body = await s.nodes.create(caller, body);
      },
    }),
    defineRoute({
      ...nodes, method: 'post', path: '/api/v1/workspaces/:workspaceId/context-nodes/import', operationId: 'importContextNodes', idempotent: true, summary: 'Create, update and archive many context nodes at once',
      description:
        'A batch of nodes keyed by slug (at most 1,000 items and a 1 MiB body), each the whole state of its node, with its manual links by target slug. ' +
        'Each item is validated like a single write (a malformed item makes the whole request 400, nothing written) and compared with the stored node: ' +
        'created, updated (fields or links differ; an archived node is restored), unchanged, or error with its reason (a slug twice in the batch, a self-link, too many wikilinks) while the rest goes on. ' +
        'Links and wikilinks may name nodes created later in the same batch; a link to a slug no node has is reported in unresolvedLinks and not stored (a wikilink waits for its target as usual). ' +
        '`archive` lists slugs to archive. One transaction: a batch that changes nothing, and a dryRun, commit nothing and leave the graph generation and every ETag as they were.',
      access: editors, params: WorkspacePath, body: ImportBody,
      responses: { 200: { description: 'What happened to each item (or would, on a dry run)', schema: ImportResultSchema } },
      errors: [413],
      handler: async ({ ctx, caller, body }) => {
        ctx.body = await s.nodeImport.importNodes(caller, body);
      },
    }),
    defineRoute({
      ...nodes, method: 'get', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId', operationId: 'getContextNode', summary: 'A context node with its links',
      cache: {},
      access: viewers, params: NodePath,
      responses: { 200: { description: 'The node with outgoingLinks, incomingLinks and unresolvedLinks', schema: NodeDetailSchema } },
      handler: async ({ ctx, caller, params }) => {
        ctx.body = await s.nodes.get(caller, params.nodeId);
      },
    }),
    defineRoute({
      ...nodes, method: 'patch', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId', operationId: 'updateContextNode', summary: 'Change a context node',
      description: 'Any combination of title, description, slug, content, nodeType, agentSummary (null clears it), importance, readFirst and edgeCaseOnly; other fields are 400. updatedAt moves on every edit. A content change re-syncs its wikilinks (manual links are never touched); a new slug resolves the wikilinks waiting for it.',
      access: editors, params: NodePath, body: UpdateBody,
      responses: { 200: { description: 'The updated node, with its links', schema: NodeDetailSchema } },
      errors: [409],
      handler: async ({ ctx, caller, params, body }) => {
        ctx.body = await s.nodes.update(caller, params.nodeId, body);
      },
    }),
    defineRoute({
      ...nodes, method: 'delete', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId', operationId: 'archiveContextNode', summary: 'Archive a context node',
      description: 'Soft delete: the node keeps its links and slug, gets status archived and archivedAt, leaves the default list and retrieval. Archiving an archived node changes nothing.',
      access: editors, params: NodePath,
      responses: { 204: { description: 'Archived' } },
      handler: async ({ ctx, caller, params }) => {
        await s.nodes.archive(caller, params.nodeId);
        ctx.status = 204;
      },
    }),
    defineRoute({
      ...nodes, method: 'post', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId/restore', operationId: 'restoreContextNode', idempotent: true, summary: 'Restore an archived context node',
      description: 'Makes the node live again (archivedAt null). Restoring a live node changes nothing.',
      access: editors, params: NodePath,
      responses: { 200: { description: 'The node, with its links', schema: NodeDetailSchema } },
      handler: async ({ ctx, caller, params }) => {
        ctx.body = await s.nodes.restore(caller, params.nodeId);
      },
    }),
    defineRoute({
      ...links, method: 'post', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId/links', operationId: 'createNodeLink', summary: 'Link a context node to another',
      description: 'The target must be a context node of the same workspace (404 otherwise). A self-link is 400; a link of the same type between the same two nodes (manual or from a wikilink) is 409 duplicate_link.',
      access: editors, params: NodePath, body: LinkBody,
      responses: { 201: { description: 'The link', schema: LinkSchema } },
      errors: [409],
      handler: async ({ ctx, caller, params, body }) => {
        ctx.status = 201;
        ctx.body = await s.nodes.createLink(caller, 'context_node', params.nodeId, body);
      },
    }),
    defineRoute({
      ...links, method: 'delete', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId/links/:linkId', operationId: 'deleteNodeLink', summary: 'Delete a link going out of a context node',
      description: 'Only manual links: a link that comes from a wikilink is removed by editing the content (409 conflict here).',
      access: editors, params: NodeLinkPath,
      responses: { 204: { description: 'Deleted' } },
      errors: [409],
      handler: async ({ ctx, caller, params }) => {
        await s.nodes.deleteLink(caller, 'context_node', params.nodeId, params.linkId);
        ctx.status = 204;
      },
    }),
    defineRoute({
      ...links, method: 'post', path: '/api/v1/workspaces/:workspaceId/playbooks/:playbookId/links', operationId: 'createPlaybookLink', summary: 'Link a playbook to a context node',
      description: 'The target must be a context node of the same workspace (404 otherwise). A link of the same type to the same node is 409 duplicate_link.',
      access: editors, params: PlaybookPath, body: LinkBody,
      responses: { 201: { description: 'The link', schema: LinkSchema } },
      errors: [409],
      handler: async ({ ctx, caller, params, body }) => {
        ctx.status = 201;
        ctx.body = await s.nodes.createLink(caller, 'playbook', params.playbookId, body);
      },
    }),
    defineRoute({
      ...links, method: 'delete', path: '/api/v1/workspaces/:workspaceId/playbooks/:playbookId/links/:linkId', operationId: 'deletePlaybookLink', summary: 'Delete a link going out of a playbook',
      access: editors, params: PlaybookLinkPath,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ ctx, caller, params }) => {
        await s.nodes.deleteLink(caller, 'playbook', params.playbookId, params.linkId);
        ctx.status = 204;
      },
    }),
  ];
}
