import { Type } from '@sinclair/typebox';
import { Id, Strict, WorkspacePath, propertiesWithout } from '../api/common-schemas.js';
import { type AnyOperation, type ToolAnswer, defineOperation } from '../api/operation.js';
import type { Caller } from '../auth/caller.js';
import { NodeRef } from '../nodes/schemas.js';
import type { NodeService } from '../nodes/service.js';
import { PlaybookRef } from '../playbooks/schemas.js';
import type { PlaybookService } from '../playbooks/service.js';
import { MaxTokensInput, answer, withShare } from '../tokens/answer-budget.js';
import type { RetrievalService } from './service.js';
import type { ContextQueryService } from './query-service.js';
import { ContextQueryAnswer, ContextQueryBody } from './query-schemas.js';
import { validatePart } from '../api/validation.js';
import {
  AgentBundleSchema, AgentManifestSchema, BundleQuery, BundleSchema, FollowQuery, FollowSchema, ManifestQuery, ManifestSchema, UpdatesQuery, UpdatesSchema,
} from './schemas.js';

const readers = { kind: 'workspace', minRole: 'viewer' } as const;
const base = { tag: 'Retrieval', access: readers } as const;

const meteredHeaders = {
  'RateLimit-Limit': 'Monthly retrievals of the plan',
  'RateLimit-Remaining': 'Retrievals left this month',
  'RateLimit-Reset': 'Seconds until the quota resets (start of next month, UTC)',
};

const meteredDescription =
  'Counts one retrieval against the monthly quota when it answers 200 or 304 (a failed request is not counted); past the limit 429 quota_exceeded with Retry-After. ' +
  'Carries a strong ETag derived from the workspace’s graph generation, the parameters and the annotations the caller may see: with a matching If-None-Match the answer is 304 with no body.';

const maxTokens = Type.Optional(MaxTokensInput);
// A tool names the playbook or node as an agent knows it (a slug, a title) and sets the budget of its whole result.
const BundleToolInput = Strict({ playbook: PlaybookRef, ...propertiesWithout(BundleQuery, 'playbookId'), maxTokens }, { required: ['playbook'] });
const ManifestToolInput = Strict({ playbook: PlaybookRef, ...propertiesWithout(ManifestQuery, 'playbookId'), maxTokens }, { required: ['playbook'] });
const FollowToolInput = Strict({ node: NodeRef, ...FollowQuery.properties, maxTokens }, { required: ['node'] });
const UpdatesToolInput = Strict({ ...UpdatesQuery.properties, maxTokens }, { required: ['since'] });
const FindToolInput = Strict({ ...propertiesWithout(ContextQueryBody, 'vector', 'maxTokens'), maxTokens }, { required: ['q'] });

export function retrievalRoutes(services: { retrieval: RetrievalService; playbooks: PlaybookService; nodes: NodeService; contextQuery: ContextQueryService }): AnyOperation[] {
  /** The query of a bundle or manifest with its playbook, named by id or slug, as its id. */
  const withPlaybookId = async <Q extends { playbookId: string }>(caller: Caller, query: Q): Promise<Q> => ({
    ...query,
    playbookId: await services.playbooks.idOf(caller, query.playbookId),
  });
  /**
   * A tool call that names its playbook as an agent knows it: the operation's query with the playbook's id, the
   * agent's envelope (what was left out counted, not listed), and one copy's share of the tool's budget as the
   * answer's (whose budget is its JSON's).
   */
  const byPlaybook = async (
    { playbook, maxTokens, ...rest }: { playbook: string; maxTokens?: number },
    call: { caller: Caller; budget(maxTokens: number | undefined): number },
    operation: (query: Record<string, unknown>) => Promise<ToolAnswer>,
  ): Promise<ToolAnswer> => {
    const playbookId = await services.playbooks.idOf(call.caller, playbook);
    return withShare(call.budget(maxTokens), (share) => operation({ playbookId, ...rest, maxTokens: share, envelope: 'agent' }));
  };
  return [
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/context/bundle', operationId: 'getBundle',
      summary: 'A playbook with its ranked linked context, for an agent run', description: meteredDescription, metered: true,
      cache: { perCaller: (q) => q.includeAnnotations },
      params: WorkspacePath, query: BundleQuery,
      responses: {
        200: { description: 'The bundle', schema: BundleSchema, headers: meteredHeaders },
        304: { description: 'Not modified: the If-None-Match ETag is current', headers: meteredHeaders },
      },
      errors: [429],
      run: async ({ caller, query }) => services.retrieval.bundle(caller, await withPlaybookId(caller, query)),
      tool: {
        name: 'get_bundle',
        title: 'Get a playbook bundle',
        description:
          'A playbook with its ranked linked context, for a run: nodes in reading order, each with the reason it is there. ' +
          'The whole result fits in maxTokens (default: the server’s MCP budget): nodes are taken in rank order while they fit, ' +
          'and when not even the first fits whole it comes with its texts cut; omittedCount says how many were left out, and cursor continues after the nodes returned ' +
          '(an answer with no node has no cursor: its budget is too small, ask with a larger maxTokens). ' +
          'Counts one retrieval against the workspace’s monthly quota.',
        input: BundleToolInput,
        output: AgentBundleSchema,
        run: (args, call) => byPlaybook(args, call, (query) => call.operation({ query: query as BundleQuery })),
      },
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/context/manifest', operationId: 'getManifest',
      summary: 'The same ranking as the bundle, with summaries and token estimates instead of content', description: meteredDescription, metered: true,
      cache: { perCaller: (q) => q.includeAnnotations },
      params: WorkspacePath, query: ManifestQuery,
      responses: {
        200: { description: 'The manifest', schema: ManifestSchema, headers: meteredHeaders },
        304: { description: 'Not modified: the If-None-Match ETag is current', headers: meteredHeaders },
      },
      errors: [429],
      run: async ({ caller, query }) => services.retrieval.manifest(caller, await withPlaybookId(caller, query)),
      tool: {
        name: 'get_manifest',
        title: 'Get a playbook manifest',
        description:
          'The same ranking as get_bundle with summaries and token estimates instead of content: what to read, before reading it. ' +
          'Fits in maxTokens like get_bundle. Counts one retrieval against the workspace’s monthly quota.',
        input: ManifestToolInput,
        output: AgentManifestSchema,
        run: (args, call) => byPlaybook(args, call, (query) => call.operation({ query: query as ManifestQuery })),
      },
    }),
    defineOperation({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/context/query', operationId: 'queryContext',
      summary: 'Context for a question: nodes found by its words and its meaning, and the nodes linked from them',
      description:
        'Seeds come from the fusion of a BM25 words search and an embeddings search of the question (docs/retrieval.md); the walk then follows links ' +
        'from the best seeds as a bundle does (requires always follows; superseded nodes and nodes with open outdated/incorrect feedback rank last). ' +
        'Every node says why it is there. Only reads: sending it again is safe. ' + meteredDescription.replace('the parameters', 'the body'),
      metered: true, idempotent: true,
      cache: { when: (body: ContextQueryAnswer) => !body.query.degraded },
      params: WorkspacePath, body: ContextQueryBody,
      responses: {
        200: { description: 'The ranked nodes', schema: ContextQueryAnswer, headers: meteredHeaders },
        304: { description: 'Not modified: the If-None-Match ETag is current', headers: meteredHeaders },
      },
      errors: [404, 429, 503],
      run: ({ caller, body }) => services.contextQuery.query(caller, body),
      tool: {
        name: 'find_context',
        title: 'Find context for a question',
        description:
          'The context nodes that answer a question or task written as a sentence, in any language: found by its words and its meaning, ' +
          'then the nodes linked from the best ones (depth hops; requires links always). Each node says why it is there (matched by meaning or words, ' +
          'with the section; or linked from which node by which link). Use it when no playbook covers the task. ' +
          'Fits in maxTokens like get_bundle; cursor continues. Counts one retrieval against the workspace’s monthly quota.',
        input: FindToolInput,
        output: ContextQueryAnswer,
        run: ({ maxTokens, ...args }, call) =>
          withShare(call.budget(maxTokens), (share) => call.operation({ body: validatePart<ContextQueryBody>(ContextQueryBody, { ...args, maxTokens: share }, 'body') })),
      },
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/context/nodes/:nodeId/follow', operationId: 'followLinks',
      summary: 'Ranked nodes linked from (or to) a node, with the path to each',
      description: 'Same ordering rules as the bundle. Does not count against the quota. 404 for an unknown or archived start node.',
      params: Strict({ workspaceId: Id(), nodeId: Id() }), query: FollowQuery,
      responses: { 200: { description: 'The start node and the ranked nodes', schema: FollowSchema } },
      run: ({ caller, params, query }) => services.retrieval.follow(caller, params.nodeId, query),
      tool: {
        name: 'follow_links',
        title: 'Follow links from a context node',
        description: 'The live context nodes linked from (or to) a node, ranked like a bundle, with the path to each; fits in maxTokens like get_bundle.',
        input: FollowToolInput,
        output: FollowSchema,
        run: async ({ node, maxTokens, ...query }, call) => {
          const nodeId = await services.nodes.idOf(call.caller, node);
          return answer(await withShare(call.budget(maxTokens), (share) => services.retrieval.follow(call.caller, nodeId, { ...query, maxTokens: share })));
        },
      },
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/context/updates', operationId: 'contextUpdates',
      summary: 'Context nodes changed after a moment, oldest first (archived ones with their status)',
      description:
        'Ask again with `cursor` = the returned `cursor` for the next changes: at most `limit` nodes a page, however many share a timestamp, ' +
        'and none skipped. Asking with `since` = the returned `until` works too: then, when more than `limit` nodes changed in the same ' +
        'millisecond, that run comes whole. Does not count against the quota.',
      params: WorkspacePath, query: UpdatesQuery,
      responses: { 200: { description: 'Changed nodes', schema: UpdatesSchema } },
      run: ({ caller, query }) => services.retrieval.updates(caller, query.since, query.limit, query.cursor),
      tool: {
        name: 'get_updates',
        title: 'Context changed since',
        description:
          'Context nodes changed after a moment, oldest first, at most limit of them and as many as fit in maxTokens; ' +
          'ask again with cursor = the returned cursor for the next ones (nodes that share a timestamp are never skipped).',
        input: UpdatesToolInput,
        output: UpdatesSchema,
        run: async ({ maxTokens, ...query }, call) => answer(await withShare(call.budget(maxTokens), (share) => services.retrieval.changes(call.caller, query, share))),
      },
    }),
  ];
}
