import { agentsPart, grantsPart, keysPart } from './facade/agents.js';
import { adminPart } from './facade/admin.js';
import { analystPart, reportsPart } from './facade/analyst.js';
import { consentPart } from './facade/consent.js';
import { annotationsPart, contextPart, feedbackPart } from './facade/context.js';
import { graphPart, linksPart, nodesPart } from './facade/nodes.js';
import { auditPart, webhooksPart } from './facade/owners.js';
import { playbooksPart, versionsPart } from './facade/playbooks.js';
import { membersPart, usagePart, workspacePart, workspacesPart } from './facade/workspaces.js';
import { createClient } from './generated/client/index.js';
import { Operations } from './operations.js';
import { type RouteAnswer, type RawRequest, type RouteRequest, policyOf, readAnswer, routeRequest } from './request.js';
import { type EtagStore, MemoryEtagStore } from './store.js';
import { type CallOptions, type ResponseEvent, type RetryOptions, type TransportOptions, transportFetch } from './transport.js';

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

/**
 * The Playbooks and Context API for one workspace. Every method takes `CallOptions` last (signal, timeoutMs,
 * retry), resolves to the typed answer and throws a `PlaybooksError` for every problem the service answers. How a
 * call is retried and revalidated is the OpenAPI document's word on its operation (generated/operations.gen.ts).
 *
 * ```ts
 * const client = new PlaybooksClient({ baseUrl, apiKey: process.env.PLAYBOOKS_KEY!, workspaceId });
 * const bundle = await client.context.bundle({ playbookId });
 * ```
 */
export class PlaybooksClient {
  readonly workspaceId: string;
  readonly #baseUrl: string;
  readonly #authorize: (request: Request) => Request;
  readonly #transport: TransportOptions;

  /** Every workspace the client's key reaches (`workspaces.list()`: a client of no workspace may ask). */
  readonly workspaces: ReturnType<typeof workspacesPart>;
  readonly workspace: ReturnType<typeof workspacePart>;
  readonly usage: ReturnType<typeof usagePart>;
  readonly members: ReturnType<typeof membersPart>;
  readonly playbooks: ReturnType<typeof playbooksPart>;
  readonly versions: ReturnType<typeof versionsPart>;
  readonly nodes: ReturnType<typeof nodesPart>;
  readonly links: ReturnType<typeof linksPart>;
  readonly graph: ReturnType<typeof graphPart>;
  readonly context: ReturnType<typeof contextPart>;
  readonly annotations: ReturnType<typeof annotationsPart>;
  readonly feedback: ReturnType<typeof feedbackPart>;
  readonly agents: ReturnType<typeof agentsPart>;
  readonly keys: ReturnType<typeof keysPart>;
  readonly grants: ReturnType<typeof grantsPart>;
  readonly audit: ReturnType<typeof auditPart>;
  readonly webhooks: ReturnType<typeof webhooksPart>;
  /** The workspace's saved reports (any member). */
  readonly reports: ReturnType<typeof reportsPart>;
  /** A hosted client's consent request (no workspace). */
  readonly consent: ReturnType<typeof consentPart>;
  /** Cypher, the schema and the saved reports, for a client made with the analyst (or admin) token and no workspace. */
  readonly analyst: ReturnType<typeof analystPart>;
  /** Workspaces, users and their keys, every workspace's audit log and embeddings: a client made with ADMIN_TOKEN and no workspace. */
  readonly admin: ReturnType<typeof adminPart>;

  constructor(options: PlaybooksClientOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    if (!options.apiKey && options.apiKey !== null) throw new TypeError('apiKey is required (null for a client of the routes that need no key)');
    this.workspaceId = options.workspaceId ?? '';
    const apiKey = options.apiKey;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    // The key lives only in these closures: not a property, so it never shows when the client is printed.
    const api = createClient({ baseUrl: this.#baseUrl, auth: () => apiKey ?? undefined });
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
    const ops = new Operations(api, this.#transport, this.workspaceId);
    this.workspaces = workspacesPart(ops);
    this.workspace = workspacePart(ops);
    this.usage = usagePart(ops);
    this.members = membersPart(ops);
    this.playbooks = playbooksPart(ops);
    this.versions = versionsPart(ops);
    this.nodes = nodesPart(ops);
    this.links = linksPart(ops);
    this.graph = graphPart(ops);
    this.context = contextPart(ops);
    this.annotations = annotationsPart(ops);
    this.feedback = feedbackPart(ops);
    this.agents = agentsPart(ops);
    this.keys = keysPart(ops);
    this.grants = grantsPart(ops);
    this.audit = auditPart(ops);
    this.webhooks = webhooksPart(ops);
    this.consent = consentPart(ops);
    this.reports = reportsPart(ops);
    this.analyst = analystPart(ops);
    this.admin = adminPart(ops);
  }

  /**
   * Any route, answered as it came whatever its status (a problem is not thrown): for what the methods do not wrap,
   * such as an answer streamed (`stream: true`), or a request made wrong on
   * purpose. It is sent with the client's key, timeout and retries; a timeout or a lost connection is still a
   * `PlaybooksError`. `PlaybooksError.fromResponse(answer)` makes the error of a problem.
   *
   * ```ts
   * const answer = await client.raw('GET', '/metrics', { headers: { accept: 'text/plain' } });
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
}
