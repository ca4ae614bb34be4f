import { createClient, type Client } from './generated/client/index.js';
import * as api from './generated/sdk.gen.js';
import type * as T from './generated/types.gen.js';
import { PlaybooksError } from './errors.js';
import { type Paged, pagedByCursor, pagedByNumber } from './paging.js';
import { type RouteAnswer, type RawRequest, type RouteRequest, policyOf, readAnswer, routeRequest } from './request.js';
import { type EtagStore, MemoryEtagStore } from './store.js';
import { type CallOptions, type CallPolicy, type ResponseEvent, type RetryOptions, type TransportOptions, transportFetch } from './transport.js';

export interface PlaybooksClientOptions {
  /** Where the service runs, e.g. `https://playbooks.example.com` (paths start with /api/v1). */
  baseUrl: string;
  /**
   * A user key (`pk_user_…`) or an agent key (`pk_…`): sent only as `Authorization: Bearer`, never logged. Null for
   * a client of the routes that need no key (`/healthz`, `/api/v1/openapi.json`) through `raw` and `request`.
   */
  apiKey: string | null;
  /** The workspace every call is about, except `workspaces.list()`: a client made to list them may leave it out. */
  workspaceId?: string;
  /** The fetch to send with (default: the global one, looked up at each call). */
  fetch?: typeof fetch;
  /** Limit of each attempt (default 30 000 ms). */
  timeoutMs?: number;
  /** Retries on 429 and 503 (default: 3 retries within 30 s), or false for none. */
  retry?: RetryOptions | false;
  /** Where bundles and manifests are kept with their ETag (default: a bounded in-memory store). */
  store?: EtagStore;
  /** Told about every attempt (method, path, status, whether the store answered): for logs and metrics. */
  onResponse?: (event: ResponseEvent) => void;
}

type Body<D extends { body?: unknown }> = D['body'];
type Query<D extends { query?: unknown }> = NonNullable<D['query']>;
type Item<A extends readonly unknown[]> = A[number];

/** Anything the generated calls share: they take options and answer with data, error and response. */
type Operation = (options: any) => Promise<{ data?: unknown; error?: unknown; response?: Response }>;

/**
 * Reads, PUT, DELETE, and the writes that set a state (restore, reactivate, PATCH of fields): sending one twice
 * has the effect of sending it once, so a 503 or a lost connection may be retried.
 */
const idempotent: CallPolicy = { idempotent: true };
/** Creates and approvals: a retry could do it twice (or answer 409), so only a 429, which did nothing, is retried. */
const once: CallPolicy = { idempotent: false };
const retrieval: CallPolicy = { idempotent: true, conditional: true };

/**
 * The Playbooks and Context API for one workspace. Every method takes `CallOptions` last (signal, timeoutMs,
 * retry), resolves to the typed answer and throws a `PlaybooksError` for every problem the service answers.
 *
 * ```ts
 * const client = new PlaybooksClient({ baseUrl, apiKey: process.env.PLAYBOOKS_KEY!, workspaceId });
 * const bundle = await client.context.bundle({ playbookId });
 * ```
 */
export class PlaybooksClient {
  readonly workspaceId: string;
  readonly #api: Client;
  readonly #baseUrl: string;
  readonly #authorize: (request: Request) => Request;
  readonly #transport: TransportOptions;

  constructor(options: PlaybooksClientOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    if (!options.apiKey && options.apiKey !== null) throw new TypeError('apiKey is required (null for a client of the routes that need no key)');
    this.workspaceId = options.workspaceId ?? '';
    const apiKey = options.apiKey;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    // The key lives only in these closures: not a property, so it never shows when the client is printed.
    this.#api = createClient({ baseUrl: this.#baseUrl, auth: () => apiKey ?? undefined });
    this.#authorize = (request) => {
      if (apiKey !== null) request.headers.set('authorization', `Bearer ${apiKey}`);
      return request;
    };
    this.#transport = {
      fetch: options.fetch,
      timeoutMs: options.timeoutMs ?? 30_000,
      retry: options.retry ?? {},
      store: options.store ?? new MemoryEtagStore(),
      onResponse: options.onResponse,
    };
  }

  async #send<R>(operation: Operation, options: Record<string, unknown>, policy: CallPolicy, call?: CallOptions): Promise<R> {
    const { data, error, response } = await operation({
      ...options,
      client: this.#api,
      fetch: transportFetch(this.#transport, policy, call),
    });
    // No response: the transport threw (timeout, network, abort) and the generated client handed the error back.
    if (!response) throw error;
    if (!response.ok) throw PlaybooksError.fromAnswer(response, error);
    return (response.status === 204 ? undefined : data) as R;
  }

  /**
   * Any route, answered as it came whatever its status (a problem is not thrown): for what the methods do not wrap,
   * such as the operator's routes, an answer streamed to a file (`stream: true`), or a request made wrong on
   * purpose. It is sent with the client's key, timeout and retries; a timeout or a lost connection is still a
   * `PlaybooksError`. `PlaybooksError.fromResponse(answer)` makes the error of a problem.
   *
   * ```ts
   * const answer = await client.raw('GET', `/api/v1/workspaces/${id}/export`, { stream: true });
   * if (!answer.ok) throw await PlaybooksError.fromResponse(answer);
   * ```
   */
  async raw(method: string, path: string, init: RawRequest = {}, call?: CallOptions): Promise<Response> {
    const request = this.#authorize(routeRequest(this.#baseUrl, method, path, init));
    return transportFetch(this.#transport, policyOf(request.method, init), call)(request);
  }

  /**
   * Any route, JSON in and out: the answer's body as JSON (as text when it is not JSON, e.g. `accept: 'text/csv'`),
   * with its status and headers; a problem is thrown as a `PlaybooksError`, as by every method.
   *
   * ```ts
   * const { data } = await client.request<ListReportsResponse>('GET', `/api/v1/workspaces/${id}/reports`);
   * ```
   */
  async request<T = unknown>(method: string, path: string, init: RouteRequest = {}, call?: CallOptions): Promise<RouteAnswer<T>> {
    const headers = new Headers(init.headers);
    if (!headers.has('accept')) headers.set('accept', 'application/json');
    return readAnswer<T>(await this.raw(method, path, { ...init, headers, stream: false }, call));
  }

  #path<P extends object>(rest?: P): { workspaceId: string } & P {
    if (!this.workspaceId) throw new TypeError('This call needs a client made with a workspaceId');
    return { workspaceId: this.workspaceId, ...(rest as P) };
  }

  /** Every workspace the client's key reaches (not only this client's): a user's memberships, or an agent's one workspace. */
  readonly workspaces = {
    list: (call?: CallOptions) => this.#send<T.ListWorkspacesResponse>(api.listWorkspaces, {}, idempotent, call).then((r) => r.workspaces),
  };

  /** The workspace and the caller's role in it. */
  readonly workspace = {
    get: (call?: CallOptions) => this.#send<T.GetWorkspaceResponse>(api.getWorkspace, { path: this.#path() }, idempotent, call),
    /** The whole workspace as one document (owner). */
    export: (call?: CallOptions) => this.#send<T.ExportWorkspaceResponse>(api.exportWorkspace, { path: this.#path() }, idempotent, call),
    /** Rebuilds an export in this empty workspace (owner); a second attempt would meet a workspace that is no longer empty, so it is never retried. */
    import: (body: Body<T.ImportWorkspaceData>, call?: CallOptions) =>
      this.#send<T.ImportWorkspaceResponse>(api.importWorkspace, { path: this.#path(), body }, once, call),
  };

  /** This month's retrievals: used, limit, remaining, resetsAt, and per day. */
  readonly usage = {
    get: (call?: CallOptions) => this.#send<T.GetUsageResponse>(api.getUsage, { path: this.#path() }, idempotent, call),
  };

  readonly members = {
    list: (call?: CallOptions) => this.#send<T.ListMembersResponse>(api.listMembers, { path: this.#path() }, idempotent, call).then((r) => r.members),
    add: (body: Body<T.AddMemberData>, call?: CallOptions) =>
      this.#send<T.AddMemberResponse>(api.addMember, { path: this.#path(), body }, once, call),
    changeRole: (userId: string, body: Body<T.ChangeMemberRoleData>, call?: CallOptions) =>
      this.#send<T.ChangeMemberRoleResponse>(api.changeMemberRole, { path: this.#path({ userId }), body }, idempotent, call),
    remove: (userId: string, call?: CallOptions) =>
      this.#send<void>(api.removeMember, { path: this.#path({ userId }) }, idempotent, call),
  };

  readonly playbooks = {
    /** Every playbook matching the query, page after page: `for await (const p of client.playbooks.list())`. */
    list: (query: Omit<Query<T.ListPlaybooksData>, 'page'> & { page?: number } = {}, call?: CallOptions): Paged<Item<T.ListPlaybooksResponse['playbooks']>, T.ListPlaybooksResponse> =>
      pagedByNumber((page) => this.playbooks.page({ ...query, page }, call), (r) => r.playbooks, query.page),
    /** One page, with its pagination. */
    page: (query: Query<T.ListPlaybooksData> = {}, call?: CallOptions) =>
      this.#send<T.ListPlaybooksResponse>(api.listPlaybooks, { path: this.#path(), query }, idempotent, call),
    get: (playbookId: string, call?: CallOptions) =>
      this.#send<T.GetPlaybookResponse>(api.getPlaybook, { path: this.#path({ playbookId }) }, idempotent, call),
    create: (body: Body<T.CreatePlaybookData>, call?: CallOptions) =>
      this.#send<T.CreatePlaybookResponse>(api.createPlaybook, { path: this.#path(), body }, once, call),
    update: (playbookId: string, body: Body<T.UpdatePlaybookData>, call?: CallOptions) =>
      this.#send<T.UpdatePlaybookResponse>(api.updatePlaybook, { path: this.#path({ playbookId }), body }, idempotent, call),
    archive: (playbookId: string, call?: CallOptions) =>
      this.#send<void>(api.archivePlaybook, { path: this.#path({ playbookId }) }, idempotent, call),
    restore: (playbookId: string, call?: CallOptions) =>
      this.#send<T.RestorePlaybookResponse>(api.restorePlaybook, { path: this.#path({ playbookId }) }, idempotent, call),
  };

  readonly versions = {
    create: (playbookId: string, body: Body<T.CreatePlaybookVersionData>, call?: CallOptions) =>
      this.#send<T.CreatePlaybookVersionResponse>(api.createPlaybookVersion, { path: this.#path({ playbookId }), body }, once, call),
    get: (playbookId: string, versionId: string, call?: CallOptions) =>
      this.#send<T.GetPlaybookVersionResponse>(api.getPlaybookVersion, { path: this.#path({ playbookId, versionId }) }, idempotent, call),
    /** A new draft with the content of `versionId` (roll back); each call makes another draft, so it is never retried after a 503. */
    rollback: (playbookId: string, versionId: string, body: Body<T.RollbackPlaybookVersionData> = {}, call?: CallOptions) =>
      this.#send<T.RollbackPlaybookVersionResponse>(api.rollbackPlaybookVersion, { path: this.#path({ playbookId, versionId }), body }, once, call),
    /** Approving twice is 409 version_not_draft, so an approval is never retried after a 503. */
    approve: (playbookId: string, versionId: string, call?: CallOptions) =>
      this.#send<T.ApprovePlaybookVersionResponse>(api.approvePlaybookVersion, { path: this.#path({ playbookId, versionId }) }, once, call),
  };

  readonly nodes = {
    /** Every context node matching the query, page after page. */
    list: (query: Omit<Query<T.ListContextNodesData>, 'page'> & { page?: number } = {}, call?: CallOptions): Paged<Item<T.ListContextNodesResponse['nodes']>, T.ListContextNodesResponse> =>
      pagedByNumber((page) => this.nodes.page({ ...query, page }, call), (r) => r.nodes, query.page),
    page: (query: Query<T.ListContextNodesData> = {}, call?: CallOptions) =>
      this.#send<T.ListContextNodesResponse>(api.listContextNodes, { path: this.#path(), query }, idempotent, call),
    get: (nodeId: string, call?: CallOptions) =>
      this.#send<T.GetContextNodeResponse>(api.getContextNode, { path: this.#path({ nodeId }) }, idempotent, call),
    create: (body: Body<T.CreateContextNodeData>, call?: CallOptions) =>
      this.#send<T.CreateContextNodeResponse>(api.createContextNode, { path: this.#path(), body }, once, call),
    update: (nodeId: string, body: Body<T.UpdateContextNodeData>, call?: CallOptions) =>
      this.#send<T.UpdateContextNodeResponse>(api.updateContextNode, { path: this.#path({ nodeId }), body }, idempotent, call),
    archive: (nodeId: string, call?: CallOptions) =>
      this.#send<void>(api.archiveContextNode, { path: this.#path({ nodeId }) }, idempotent, call),
    restore: (nodeId: string, call?: CallOptions) =>
      this.#send<T.RestoreContextNodeResponse>(api.restoreContextNode, { path: this.#path({ nodeId }) }, idempotent, call),
    /** Many nodes keyed by slug in one request; sending the same batch again changes nothing, so it may be retried. */
    import: (body: Body<T.ImportContextNodesData>, call?: CallOptions) =>
      this.#send<T.ImportContextNodesResponse>(api.importContextNodes, { path: this.#path(), body }, idempotent, call),
  };

  /** Manual links from a context node or a playbook to a context node. */
  readonly links = {
    fromNode: (nodeId: string, body: Body<T.CreateNodeLinkData>, call?: CallOptions) =>
      this.#send<T.CreateNodeLinkResponse>(api.createNodeLink, { path: this.#path({ nodeId }), body }, once, call),
    deleteFromNode: (nodeId: string, linkId: string, call?: CallOptions) =>
      this.#send<void>(api.deleteNodeLink, { path: this.#path({ nodeId, linkId }) }, idempotent, call),
    fromPlaybook: (playbookId: string, body: Body<T.CreatePlaybookLinkData>, call?: CallOptions) =>
      this.#send<T.CreatePlaybookLinkResponse>(api.createPlaybookLink, { path: this.#path({ playbookId }), body }, once, call),
    deleteFromPlaybook: (playbookId: string, linkId: string, call?: CallOptions) =>
      this.#send<void>(api.deletePlaybookLink, { path: this.#path({ playbookId, linkId }) }, idempotent, call),
  };

  /** Retrieval. Bundles and manifests are revalidated with If-None-Match: an unchanged one costs no body. */
  readonly context = {
    /** A playbook with its ranked context; a 304 is answered from the store (it still counts as a retrieval). */
    bundle: (query: Query<T.GetBundleData>, call?: CallOptions) =>
      this.#send<T.GetBundleResponse>(api.getBundle, { path: this.#path(), query }, retrieval, call),
    /** The same ranking without content, with summaries and token estimates; kept and revalidated like bundles. */
    manifest: (query: Query<T.GetManifestData>, call?: CallOptions) =>
      this.#send<T.GetManifestResponse>(api.getManifest, { path: this.#path(), query }, retrieval, call),
    /** The nodes reached from one node by its links, ranked; not counted as a retrieval. */
    follow: (nodeId: string, query: Query<T.FollowLinksData> = {}, call?: CallOptions) =>
      this.#send<T.FollowLinksResponse>(api.followLinks, { path: this.#path({ nodeId }), query }, idempotent, call),
    /** Every node changed since `since`, oldest first, page after page (each asks from the last page's `cursor`), until one is empty. */
    updates: (query: Query<T.ContextUpdatesData>, call?: CallOptions): Paged<Item<T.ContextUpdatesResponse['nodes']>, T.ContextUpdatesResponse> =>
      pagedByCursor(
        query,
        (q) => this.context.updatesPage(q, call),
        (r) => r.nodes,
        // Only an empty page is the last: the service holds a run of equal timestamps back for the next page, so a
        // page shorter than the limit may still have more after it.
        (r, q) => (r.nodes.length === 0 ? undefined : { ...q, cursor: r.cursor }),
      ),
    updatesPage: (query: Query<T.ContextUpdatesData>, call?: CallOptions) =>
      this.#send<T.ContextUpdatesResponse>(api.contextUpdates, { path: this.#path(), query }, idempotent, call),
  };

  readonly annotations = {
    create: (body: Body<T.CreateAnnotationData>, call?: CallOptions) =>
      this.#send<T.CreateAnnotationResponse>(api.createAnnotation, { path: this.#path(), body }, once, call),
    /** Every annotation the caller may see, oldest first, page after page. */
    list: (query: Omit<Query<T.ListAnnotationsData>, 'page'> & { page?: number } = {}, call?: CallOptions): Paged<Item<T.ListAnnotationsResponse['annotations']>, T.ListAnnotationsResponse> =>
      pagedByNumber((page) => this.annotations.page({ ...query, page }, call), (r) => r.annotations, query.page),
    page: (query: Query<T.ListAnnotationsData> = {}, call?: CallOptions) =>
      this.#send<T.ListAnnotationsResponse>(api.listAnnotations, { path: this.#path(), query }, idempotent, call),
    delete: (annotationId: string, call?: CallOptions) =>
      this.#send<void>(api.deleteAnnotation, { path: this.#path({ annotationId }) }, idempotent, call),
  };

  readonly feedback = {
    create: (body: Body<T.CreateFeedbackData>, call?: CallOptions) =>
      this.#send<T.CreateFeedbackResponse>(api.createFeedback, { path: this.#path(), body }, once, call),
    /** Every feedback item matching the query (editors), newest first, page after page. */
    list: (query: Omit<Query<T.ListFeedbackData>, 'page'> & { page?: number } = {}, call?: CallOptions): Paged<Item<T.ListFeedbackResponse['feedback']>, T.ListFeedbackResponse> =>
      pagedByNumber((page) => this.feedback.page({ ...query, page }, call), (r) => r.feedback, query.page),
    page: (query: Query<T.ListFeedbackData> = {}, call?: CallOptions) =>
      this.#send<T.ListFeedbackResponse>(api.listFeedback, { path: this.#path(), query }, idempotent, call),
    triage: (feedbackId: string, body: Body<T.TriageFeedbackData>, call?: CallOptions) =>
      this.#send<T.TriageFeedbackResponse>(api.triageFeedback, { path: this.#path({ feedbackId }), body }, idempotent, call),
  };

  /** Agent management (user keys only). */
  readonly agents = {
    register: (body: Body<T.RegisterAgentData>, call?: CallOptions) =>
      this.#send<T.RegisterAgentResponse>(api.registerAgent, { path: this.#path(), body }, once, call),
    list: (call?: CallOptions) => this.#send<T.ListAgentsResponse>(api.listAgents, { path: this.#path() }, idempotent, call).then((r) => r.agents),
    get: (agentId: string, call?: CallOptions) =>
      this.#send<T.GetAgentResponse>(api.getAgent, { path: this.#path({ agentId }) }, idempotent, call),
    update: (agentId: string, body: Body<T.UpdateAgentData>, call?: CallOptions) =>
      this.#send<T.UpdateAgentResponse>(api.updateAgent, { path: this.#path({ agentId }), body }, idempotent, call),
    deactivate: (agentId: string, call?: CallOptions) =>
      this.#send<void>(api.deactivateAgent, { path: this.#path({ agentId }) }, idempotent, call),
    reactivate: (agentId: string, call?: CallOptions) =>
      this.#send<T.ReactivateAgentResponse>(api.reactivateAgent, { path: this.#path({ agentId }) }, idempotent, call),
  };

  /** The workspace's audit log (owners). */
  readonly audit = {
    /** Every event matching the query, newest first, page after page (following nextCursor). */
    list: (query: Omit<Query<T.ListAuditEventsData>, 'cursor'> = {}, call?: CallOptions): Paged<Item<T.ListAuditEventsResponse['events']>, T.ListAuditEventsResponse> =>
      pagedByCursor(
        query as Query<T.ListAuditEventsData>,
        (q) => this.audit.page(q, call),
        (r) => r.events,
        (r, q) => (r.nextCursor === null ? undefined : { ...q, cursor: r.nextCursor }),
      ),
    page: (query: Query<T.ListAuditEventsData> = {}, call?: CallOptions) =>
      this.#send<T.ListAuditEventsResponse>(api.listAuditEvents, { path: this.#path(), query }, idempotent, call),
  };

  /** Webhook subscriptions and their delivery logs (owners). */
  readonly webhooks = {
    /** The signing secret is in this answer only. */
    create: (body: Body<T.CreateWebhookData>, call?: CallOptions) =>
      this.#send<T.CreateWebhookResponse>(api.createWebhook, { path: this.#path(), body }, once, call),
    list: (call?: CallOptions) => this.#send<T.ListWebhooksResponse>(api.listWebhooks, { path: this.#path() }, idempotent, call).then((r) => r.subscriptions),
    get: (subscriptionId: string, call?: CallOptions) =>
      this.#send<T.GetWebhookResponse>(api.getWebhook, { path: this.#path({ subscriptionId }) }, idempotent, call),
    update: (subscriptionId: string, body: Body<T.UpdateWebhookData>, call?: CallOptions) =>
      this.#send<T.UpdateWebhookResponse>(api.updateWebhook, { path: this.#path({ subscriptionId }), body }, idempotent, call),
    delete: (subscriptionId: string, call?: CallOptions) =>
      this.#send<void>(api.deleteWebhook, { path: this.#path({ subscriptionId }) }, idempotent, call),
    deliveries: (subscriptionId: string, query: Query<T.ListWebhookDeliveriesData> = {}, call?: CallOptions) =>
      this.#send<T.ListWebhookDeliveriesResponse>(api.listWebhookDeliveries, { path: this.#path({ subscriptionId }), query }, idempotent, call).then((r) => r.deliveries),
    /** Queues the delivery again (each call sends it once more: not retried). */
    redeliver: (subscriptionId: string, deliveryId: string, call?: CallOptions) =>
      this.#send<T.RedeliverWebhookResponse>(api.redeliverWebhook, { path: this.#path({ subscriptionId, deliveryId }) }, once, call),
  };

  /** An agent's keys (its sponsor or an owner, with a user key). */
  readonly keys = {
    /** The full key is in this answer only. */
    create: (agentId: string, body: Body<T.CreateAgentKeyData> = {}, call?: CallOptions) =>
      this.#send<T.CreateAgentKeyResponse>(api.createAgentKey, { path: this.#path({ agentId }), body }, once, call),
    list: (agentId: string, call?: CallOptions) =>
      this.#send<T.ListAgentKeysResponse>(api.listAgentKeys, { path: this.#path({ agentId }) }, idempotent, call).then((r) => r.keys),
    revoke: (agentId: string, keyId: string, call?: CallOptions) =>
      this.#send<void>(api.revokeAgentKey, { path: this.#path({ agentId, keyId }) }, idempotent, call),
    /**
     * A new key (in full in this answer only) while the old one works for `graceSeconds` more (default a day, at
     * most 7 days; 0 revokes it at once). A second call would be 409 key_already_rotated, so it is never retried after a 503.
     */
    rotate: (agentId: string, keyId: string, body: Body<T.RotateAgentKeyData> = {}, call?: CallOptions) =>
      this.#send<T.RotateAgentKeyResponse>(api.rotateAgentKey, { path: this.#path({ agentId, keyId }), body }, once, call),
  };

  /** The workspace's graph for a graph view: playbooks, context nodes and links, or one playbook's neighbourhood. */
  readonly graph = {
    get: (query: Query<T.GetGraphData> = {}, call?: CallOptions) =>
      this.#send<T.GetGraphResponse>(api.getGraph, { path: this.#path(), query }, idempotent, call),
  };
}
