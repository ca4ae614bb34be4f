import { Type } from '@sinclair/typebox';
import { Strict, WorkspacePath } from '../api/common-schemas.js';
import { MaxTokensInput, PageCursorInput, budgeted, entityWithin, pageWithin } from '../tokens/answer-budget.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import type { NodeImportService } from './import.js';
import type { NodeService } from './service.js';
import type { EmbeddingService } from '../embeddings/service.js';
import {
  CreateBody, ImportBody, ImportResultSchema, LinkBody, LinkSchema, ListQuery, NodeDetailSchema, NodeLinkPath, NodePageSchema, NodePath, NodeReadPath, NodeRef, PlaybookLinkPath, PlaybookPath, UpdateBody,
} from './schemas.js';

const maxTokens = Type.Optional(MaxTokensInput);
const embedding = Type.Optional(Type.Array(Type.Number(), {
  minItems: 1,
  maxItems: 8_192,
  description:
    'The node’s vector, of your own model, of the dimension in use (GET …/embeddings; 400 otherwise): kept as its embedding until its text changes, instead of the provider’s',
}));
const CreateWithVector = Strict({ ...CreateBody.properties, embedding }, { required: CreateBody.required });
const UpdateWithVector = Strict({ ...UpdateBody.properties, embedding }, { minProperties: 1 });
/** search_context: the words and how they match, a type, a page, and a budget whose cursor continues a page it cut. */
const SearchToolInput = Strict(
  {
    q: { ...ListQuery.properties.q, minLength: 1 },
    match: ListQuery.properties.match,
    nodeType: ListQuery.properties.nodeType,
    page: ListQuery.properties.page,
    limit: ListQuery.properties.limit,
    cursor: Type.Optional(PageCursorInput),
    maxTokens,
  },
  { required: ['q'] },
);
const GetToolInput = Strict({ node: NodeRef, maxTokens }, { required: ['node'] });
const NamesToolInput = Strict({ node: NodeRef, aliases: CreateBody.properties.aliases, tags: CreateBody.properties.tags, maxTokens }, { required: ['node'], minProperties: 2 });

const nodes = { tag: 'Context nodes' } as const;
const links = { tag: 'Links' } as const;
const viewers = { kind: 'workspace', minRole: 'viewer' } as const;
const editors = { kind: 'workspace', minRole: 'editor' } as const;

export function nodeRoutes(services: { nodes: NodeService; nodeImport: NodeImportService; embeddings: EmbeddingService }): AnyOperation[] {
  return [
    defineOperation({
      ...nodes, method: 'get', path: '/api/v1/workspaces/:workspaceId/context-nodes', operationId: 'listContextNodes', summary: 'List or search context nodes',
      cache: {},
      description: 'Live nodes by default; filter by nodeType and status, sort, page, and search with q. Sending both status and the deprecated archived is 400.',
      access: viewers, params: WorkspacePath, query: ListQuery,
      responses: { 200: { description: 'One page of nodes', schema: NodePageSchema } },
      run: ({ caller, query }) => services.nodes.list(caller, query),
      tool: {
        name: 'search_context',
        title: 'Search context nodes',
        description:
          'Full-text search over the live context nodes’ title, aliases, description, content and agent summary; best match first. ' +
          'The page’s nodes are taken while they fit in maxTokens; a cursor continues with the ones left out.',
        input: SearchToolInput,
        output: budgeted(NodePageSchema),
        run: ({ cursor, maxTokens, ...query }, call) =>
          pageWithin('nodes', { page: query.page, cursor }, call.budget(maxTokens), (page) => services.nodes.list(call.caller, { ...query, page })),
      },
    }),
    defineOperation({
      ...nodes, method: 'post', path: '/api/v1/workspaces/:workspaceId/context-nodes', operationId: 'createContextNode', summary: 'Create a context node',
      description: 'Defaults: nodeType reference, importance 50, readFirst and edgeCaseOnly false. A slug taken by another node is 409 slug_taken, a sourcePath another live node has (ignoring case and Unicode form) 409 conflict; without a slug one is made from the title (-2, -3, … when taken). Wikilinks in content become links at once, and wikilinks of other nodes waiting for this slug resolve to it.',
      access: editors, params: WorkspacePath, body: CreateWithVector,
      responses: { 201: { description: 'The node, with its links', schema: NodeDetailSchema } },
      errors: [409],
      run: async ({ caller, body: { embedding, ...body } }) => {
        if (embedding) await services.embeddings.checkVector(embedding, '/embedding');
        const node = await services.nodes.create(caller, body);
        if (embedding) await services.embeddings.storeClientVector(caller, node, embedding, false);
        return node;
      },
    }),
    defineOperation({
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
      run: ({ caller, body }) => services.nodeImport.importNodes(caller, body),
    }),
    defineOperation({
      ...nodes, method: 'get', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId', operationId: 'getContextNode', summary: 'A context node with its links',
      cache: {},
      access: viewers, params: NodeReadPath,
      responses: { 200: { description: 'The node with outgoingLinks, incomingLinks and unresolvedLinks', schema: NodeDetailSchema } },
      run: async ({ caller, params }) => services.nodes.get(caller, await services.nodes.idOf(caller, params.nodeId)),
      tool: {
        name: 'get_node',
        title: 'Get a context node',
        description: 'One context node with its content and its links in and out; a content longer than maxTokens allows is cut, and says so at its end.',
        input: GetToolInput,
        output: NodeDetailSchema,
        run: async ({ node, maxTokens }, call) => entityWithin(await services.nodes.get(call.caller, await services.nodes.idOf(call.caller, node)), call.budget(maxTokens)),
      },
    }),
    defineOperation({
      ...nodes, method: 'patch', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId', operationId: 'updateContextNode', summary: 'Change a context node',
      description: 'Any combination of title, description, slug, content, nodeType, agentSummary (null clears it), importance, readFirst and edgeCaseOnly; other fields are 400. updatedAt moves on every edit. A content change re-syncs its wikilinks (manual links are never touched); a new slug resolves the wikilinks waiting for it.',
      access: editors, params: NodePath, body: UpdateWithVector,
      responses: { 200: { description: 'The updated node, with its links', schema: NodeDetailSchema } },
      errors: [409],
      run: async ({ caller, params, body: { embedding, ...changes } }) => {
        if (embedding) await services.embeddings.checkVector(embedding, '/embedding');
        // A vector alone changes nothing else of the node (nor its updatedAt, the version the vector is kept for).
        const node = Object.keys(changes).length > 0 || !embedding ? await services.nodes.update(caller, params.nodeId, changes) : await services.nodes.get(caller, params.nodeId);
        if (embedding) await services.embeddings.storeClientVector(caller, node, embedding, Object.keys(changes).length === 0);
        return node;
      },
      tool: {
        name: 'set_node_names',
        title: 'Set a context node’s aliases and tags',
        description:
          'Replace the aliases (other names [[wikilinks]] may call the node by) and/or the tags of a context node; needs the editor role. Wikilinks waiting for a new alias resolve at once.',
        input: NamesToolInput,
        output: NodeDetailSchema,
        replaces: true,
        run: async ({ node, maxTokens, ...changes }, call) =>
          entityWithin(await services.nodes.update(call.caller, await services.nodes.idOf(call.caller, node), changes), call.budget(maxTokens)),
      },
    }),
    defineOperation({
      ...nodes, method: 'delete', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId', operationId: 'archiveContextNode', summary: 'Archive a context node',
      description: 'Soft delete: the node keeps its links and slug, gets status archived and archivedAt, leaves the default list and retrieval. Archiving an archived node changes nothing.',
      access: editors, params: NodePath,
      responses: { 204: { description: 'Archived' } },
      run: async ({ caller, params }) => {
        await services.nodes.archive(caller, params.nodeId);
      },
    }),
    defineOperation({
      ...nodes, method: 'post', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId/restore', operationId: 'restoreContextNode', idempotent: true, summary: 'Restore an archived context node',
      description: 'Makes the node live again (archivedAt null). Restoring a live node changes nothing. 409 conflict when another live node has its sourcePath meanwhile.',
      access: editors, params: NodePath,
      responses: { 200: { description: 'The node, with its links', schema: NodeDetailSchema } },
      errors: [409],
      run: ({ caller, params }) => services.nodes.restore(caller, params.nodeId),
    }),
    defineOperation({
      ...links, method: 'post', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId/links', operationId: 'createNodeLink', summary: 'Link a context node to another',
      description: 'The target must be a context node of the same workspace (404 otherwise). A self-link is 400; a link of the same type between the same two nodes (manual or from a wikilink) is 409 duplicate_link.',
      access: editors, params: NodePath, body: LinkBody,
      responses: { 201: { description: 'The link', schema: LinkSchema } },
      errors: [409],
      run: ({ caller, params, body }) => services.nodes.createLink(caller, 'context_node', params.nodeId, body),
    }),
    defineOperation({
      ...links, method: 'delete', path: '/api/v1/workspaces/:workspaceId/context-nodes/:nodeId/links/:linkId', operationId: 'deleteNodeLink', summary: 'Delete a link going out of a context node',
      description: 'Only manual links: a link that comes from a wikilink is removed by editing the content (409 conflict here).',
      access: editors, params: NodeLinkPath,
      responses: { 204: { description: 'Deleted' } },
      errors: [409],
      run: async ({ caller, params }) => {
        await services.nodes.deleteLink(caller, 'context_node', params.nodeId, params.linkId);
      },
    }),
    defineOperation({
      ...links, method: 'post', path: '/api/v1/workspaces/:workspaceId/playbooks/:playbookId/links', operationId: 'createPlaybookLink', summary: 'Link a playbook to a context node',
      description: 'The target must be a context node of the same workspace (404 otherwise). A link of the same type to the same node is 409 duplicate_link.',
      access: editors, params: PlaybookPath, body: LinkBody,
      responses: { 201: { description: 'The link', schema: LinkSchema } },
      errors: [409],
      run: ({ caller, params, body }) => services.nodes.createLink(caller, 'playbook', params.playbookId, body),
    }),
    defineOperation({
      ...links, method: 'delete', path: '/api/v1/workspaces/:workspaceId/playbooks/:playbookId/links/:linkId', operationId: 'deletePlaybookLink', summary: 'Delete a link going out of a playbook',
      access: editors, params: PlaybookLinkPath,
      responses: { 204: { description: 'Deleted' } },
      run: async ({ caller, params }) => {
        await services.nodes.deleteLink(caller, 'playbook', params.playbookId, params.linkId);
      },
    }),
  ];
}
