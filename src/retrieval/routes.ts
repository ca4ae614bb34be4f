import { Id, Strict, WorkspacePath } from '../api/common-schemas.js';
import { type AnyRoute, defineRoute } from '../http/route.js';
import type { RetrievalService } from './service.js';
import { BundleQuery, BundleSchema, FollowQuery, FollowSchema, ManifestQuery, ManifestSchema, UpdatesQuery, UpdatesSchema } from './schemas.js';

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

export function retrievalRoutes(s: { retrieval: RetrievalService }): AnyRoute[] {
  return [
    defineRoute({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/context/bundle', operationId: 'getBundle',
      summary: 'A playbook with its ranked linked context, for an agent run', description: meteredDescription, metered: true,
      cache: { perCaller: (q) => q.includeAnnotations },
      params: WorkspacePath, query: BundleQuery,
      responses: {
        200: { description: 'The bundle', schema: BundleSchema, headers: meteredHeaders },
        304: { description: 'Not modified: the If-None-Match ETag is current', headers: meteredHeaders },
      },
      errors: [429],
      handler: async ({ ctx, caller, query }) => {
        ctx.body = await s.retrieval.bundle(caller, query);
      },
    }),
    defineRoute({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/context/manifest', operationId: 'getManifest',
      summary: 'The same ranking as the bundle, with summaries and token estimates instead of content', description: meteredDescription, metered: true,
      cache: { perCaller: (q) => q.includeAnnotations },
      params: WorkspacePath, query: ManifestQuery,
      responses: {
        200: { description: 'The manifest', schema: ManifestSchema, headers: meteredHeaders },
        304: { description: 'Not modified: the If-None-Match ETag is current', headers: meteredHeaders },
      },
      errors: [429],
      handler: async ({ ctx, caller, query }) => {
        ctx.body = await s.retrieval.manifest(caller, query);
      },
    }),
    defineRoute({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/context/nodes/:nodeId/follow', operationId: 'followLinks',
      summary: 'Ranked nodes linked from (or to) a node, with the path to each',
      description: 'Same ordering rules as the bundle. Does not count against the quota. 404 for an unknown or archived start node.',
      params: Strict({ workspaceId: Id(), nodeId: Id() }), query: FollowQuery,
      responses: { 200: { description: 'The start node and the ranked nodes', schema: FollowSchema } },
      handler: async ({ ctx, caller, params, query }) => {
        ctx.body = await s.retrieval.follow(caller, params.nodeId, query);
      },
    }),
    defineRoute({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/context/updates', operationId: 'contextUpdates',
      summary: 'Context nodes changed after a moment, oldest first (archived ones with their status)',
      description:
        'Ask again with `cursor` = the returned `cursor` for the next changes: at most `limit` nodes a page, however many share a timestamp, ' +
        'and none skipped. Asking with `since` = the returned `until` works too: then, when more than `limit` nodes changed in the same ' +
        'millisecond, that run comes whole. Does not count against the quota.',
      params: WorkspacePath, query: UpdatesQuery,
      responses: { 200: { description: 'Changed nodes', schema: UpdatesSchema } },
      handler: async ({ ctx, caller, query }) => {
        ctx.body = await s.retrieval.updates(caller, query.since, query.limit, query.cursor);
      },
    }),
  ];
}
