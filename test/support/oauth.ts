import { createHash, randomBytes } from 'node:crypto';
import { type Reply, type TestWorkspace, createWorkspace, request, unique } from './api.js';
import { env } from './harness.js';
import { getPlaybook } from './playbooks.js';
import { buildGraph } from './retrieval.js';

/**
 * A hosted MCP client's side of the authorization server, without a browser: discovery, registration, the
 * authorization request followed as a browser would (redirects by hand, cookies kept), consent answered through
 * the interactions API the console page calls, and the token endpoint.
 */

/** The service's origin, which is also its PUBLIC_URL in the test run. */
export const origin = () => env.service.url;

/** The authorization server's issuer. */
export const issuer = () => `${origin()}/oauth`;

/** The RFC 8707 resource indicator of a workspace's MCP endpoint. */
export const mcpResource = (workspace: TestWorkspace, base = origin()) => `${base}${workspace.path('/mcp')}`;

export interface Pkce {
  verifier: string;
  challenge: string;
}

/** A PKCE pair: a random verifier and its S256 challenge. */
export function pkcePair(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface AuthServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint: string;
  revocation_endpoint?: string;
  code_challenge_methods_supported?: string[];
  grant_types_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  response_types_supported?: string[];
  [field: string]: unknown;
}

let metadata: Promise<AuthServerMetadata> | undefined;

/** RFC 8414 metadata, read once per run: the helpers below use the endpoints it names. */
export function authServerMetadata(): Promise<AuthServerMetadata> {
  metadata ??= (async () => {
    const res = await fetch(`${origin()}/.well-known/oauth-authorization-server/oauth`);
    if (res.status !== 200) throw new Error(`authorization server metadata: expected 200, got ${res.status} ${await res.text()}`);
    return (await res.json()) as AuthServerMetadata;
  })();
  return metadata;
}

export interface JsonReply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

async function jsonReply(res: Response): Promise<JsonReply> {
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** POST /oauth/register with the body as given (RFC 7591), the answer as the service gave it. */
export async function registration(body: Record<string, unknown>): Promise<JsonReply> {
  const { registration_endpoint } = await authServerMetadata();
  return jsonReply(await fetch(registration_endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
}

export interface RegisteredClient {
  clientId: string;
  name: string;
  redirectUris: string[];
}

/** A public client (no secret, PKCE) registered the way MCP clients register themselves (201 asserted). */
export async function registerClient(redirectUris: string[] = ['http://127.0.0.1:8976/callback'], name = unique('Hosted client')): Promise<RegisteredClient> {
  const res = await registration({
    client_name: name,
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  if (res.status !== 201 || typeof res.body?.client_id !== 'string') throw new Error(`register client: expected 201, got ${res.status} ${res.text}`);
  return { clientId: res.body.client_id, name, redirectUris };
}

/**
 * The cookies a browser would keep for the service: by name and path, sent where the path applies, dropped when
 * expired. Every cookie here comes from one host, so the domain is not tracked.
 */
export class CookieJar {
  private readonly cookies = new Map<string, { name: string; value: string; path: string; expires: number }>();

  store(requestUrl: string, res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = defaultPath(new URL(requestUrl).pathname);
      let expires = Number.POSITIVE_INFINITY;
      for (const attribute of attributes) {
        const [key, ...rest] = attribute.split('=');
        const v = rest.join('=');
        const k = key.toLowerCase();
        if (k === 'path' && v.startsWith('/')) path = v;
        else if (k === 'max-age') expires = Date.now() + Number(v) * 1000;
        else if (k === 'expires' && expires === Number.POSITIVE_INFINITY) expires = Date.parse(v);
      }
      const id = `${name};${path}`;
      if (expires <= Date.now()) this.cookies.delete(id);
      else this.cookies.set(id, { name, value, path, expires });
    }
  }

  header(requestUrl: string): string {
    const path = new URL(requestUrl).pathname;
    const now = Date.now();
    return [...this.cookies.values()]
      .filter((c) => c.expires > now && (path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)))
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  get size(): number {
    return this.cookies.size;
  }
}

function defaultPath(requestPath: string): string {
  const last = requestPath.lastIndexOf('/');
  return last <= 0 ? '/' : requestPath.slice(0, last);
}

export interface Hop {
  url: string;
  status: number;
  /** Where a redirect points, resolved against `url`; null for an answer that is not a redirect. */
  location: URL | null;
  text: string;
}

const consentPagePath = '/console/authorize/';

/**
 * GETs `url` as a browser would, keeping cookies, and follows redirects while they stay on the service and do not
 * lead to the console's consent page: the last hop is a page, or a redirect to the consent page or away from the
 * service (a client's redirect_uri), left unfollowed.
 */
export async function follow(url: string, jar: CookieJar, maxHops = 10): Promise<Hop[]> {
  const hops: Hop[] = [];
  let next = url;
  for (let i = 0; i < maxHops; i++) {
    const cookie = jar.header(next);
    const res = await fetch(next, { redirect: 'manual', headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } });
    jar.store(next, res);
    const raw = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
    const location = raw ? new URL(raw, next) : null;
    hops.push({ url: next, status: res.status, location, text: await res.text() });
    if (!location || location.origin !== new URL(origin()).origin || location.pathname.startsWith(consentPagePath)) return hops;
    next = location.href;
  }
  throw new Error(`more than ${maxHops} redirects from ${url}: ${hops.map((h) => `${h.status} ${h.url}`).join(' → ')}`);
}

export interface AuthorizationRequest {
  client: RegisteredClient;
  workspace: TestWorkspace;
  /** Defaults to the client's first registered redirect URI. */
  redirectUri?: string;
  pkce?: Pkce;
  state?: string;
  /** Defaults to the workspace's MCP endpoint; null sends none. */
  resource?: string | null;
  scope?: string;
}

/** The authorization URL a client sends the browser to (PKCE S256, scope mcp, the workspace's MCP endpoint as resource). */
export async function authorizationUrl(req: AuthorizationRequest & { pkce: Pkce; state: string; redirectUri: string }): Promise<string> {
  const { authorization_endpoint } = await authServerMetadata();
  const url = new URL(authorization_endpoint);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: req.client.clientId,
    redirect_uri: req.redirectUri,
    code_challenge: req.pkce.challenge,
    code_challenge_method: 'S256',
    state: req.state,
    scope: req.scope ?? 'mcp',
  };
  if (req.resource !== null) params.resource = req.resource ?? mcpResource(req.workspace);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.href;
}

export interface PendingAuthorization {
  jar: CookieJar;
  /** The interaction's id, from the consent page's URL. */
  uid: string;
  consentUrl: URL;
  pkce: Pkce;
  state: string;
  redirectUri: string;
  hops: Hop[];
}

/** Sends the browser to the authorization endpoint and follows it to the console's consent page. */
export async function beginAuthorization(req: AuthorizationRequest): Promise<PendingAuthorization> {
  const pkce = req.pkce ?? pkcePair();
  const state = req.state ?? randomBytes(12).toString('base64url');
  const redirectUri = req.redirectUri ?? req.client.redirectUris[0];
  const jar = new CookieJar();
  const hops = await follow(await authorizationUrl({ ...req, pkce, state, redirectUri }), jar);
  const last = hops[hops.length - 1];
  if (!last.location?.pathname.startsWith(consentPagePath)) {
    throw new Error(`authorize did not lead to the consent page: ${hops.map((h) => `${h.status} ${h.url} → ${h.location ?? h.text.slice(0, 300)}`).join('\n')}`);
  }
  const uid = decodeURIComponent(last.location.pathname.slice(consentPagePath.length));
  return { jar, uid, consentUrl: last.location, pkce, state, redirectUri, hops };
}

export type Decision = 'deny' | { agentId: string } | { agent: { name: string; role?: 'viewer' | 'editor' | 'owner' } };

/** What the console page asks about a pending request (GET /api/v1/oauth/interactions/{uid}). */
export function consentRequest(uid: string, key?: string): Promise<Reply> {
  return request('GET', `/api/v1/oauth/interactions/${encodeURIComponent(uid)}`, { token: key });
}

/** The console page's answer: approve (as an agent, or a new one) or deny. */
export function answerConsent(uid: string, key: string, decision: Decision): Promise<Reply> {
  const path = `/api/v1/oauth/interactions/${encodeURIComponent(uid)}`;
  return decision === 'deny' ? request('POST', `${path}/deny`, { token: key }) : request('POST', `${path}/approve`, { token: key, body: decision });
}

export interface AuthorizationResult {
  /** Where the browser was sent at the end: the client's redirect URI with its query. */
  redirectedTo: URL;
  code: string | null;
  state: string | null;
  error: string | null;
  iss: string | null;
  pkce: Pkce;
  redirectUri: string;
  uid: string;
  /** The approve/deny answer (redirectTo, agentId). */
  answer: Reply;
}

/** The browser's steps after the console's answer: to redirectTo, then redirects until the client's redirect URI. */
export async function completeAuthorization(pending: PendingAuthorization, answer: Reply): Promise<AuthorizationResult> {
  if (answer.status !== 200 || typeof answer.body?.redirectTo !== 'string') throw new Error(`consent answer: expected 200 with redirectTo, got ${answer.status} ${answer.text}`);
  const hops = await follow(answer.body.redirectTo, pending.jar);
  const last = hops[hops.length - 1];
  const target = new URL(pending.redirectUri);
  const end = last.location;
  if (!end || end.origin !== target.origin || end.pathname !== target.pathname) {
    throw new Error(`the browser did not end on ${pending.redirectUri}: ${hops.map((h) => `${h.status} ${h.url} → ${h.location ?? h.text.slice(0, 300)}`).join('\n')}`);
  }
  const p = end.searchParams;
  return {
    redirectedTo: end, code: p.get('code'), state: p.get('state'), error: p.get('error'), iss: p.get('iss'),
    pkce: pending.pkce, redirectUri: pending.redirectUri, uid: pending.uid, answer,
  };
}

/** The whole authorization request without a browser: authorize, consent by `userKey`, back to the redirect URI. */
export async function authorize(req: AuthorizationRequest & { userKey: string; decision: Decision }): Promise<AuthorizationResult> {
  const pending = await beginAuthorization(req);
  return completeAuthorization(pending, await answerConsent(pending.uid, req.userKey, req.decision));
}

/** POST /oauth/token, form-encoded, the answer as given. */
export async function tokenRequest(params: Record<string, string>): Promise<JsonReply> {
  const { token_endpoint } = await authServerMetadata();
  return jsonReply(await fetch(token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(params),
  }));
}

/** The authorization code grant of a public client. */
export function exchangeCode(client: RegisteredClient, code: string, verifier: string, redirectUri = client.redirectUris[0], resource?: string): Promise<JsonReply> {
  return tokenRequest({
    grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier, client_id: client.clientId,
    ...(resource ? { resource } : {}),
  });
}

/** The refresh token grant of a public client. */
export function refresh(client: RegisteredClient, refreshToken: string): Promise<JsonReply> {
  return tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId });
}

export interface Tokens {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export interface Authorized {
  client: RegisteredClient;
  tokens: Tokens;
  agentId: string;
  result: AuthorizationResult;
}

/**
 * A client registered, approved by `userKey` to act as an agent, with its first tokens (every step asserted):
 * the arrangement of the tests that look at what a token may do.
 */
export async function authorizedClient(
  workspace: TestWorkspace,
  options: { userKey?: string; decision?: Exclude<Decision, 'deny'>; client?: RegisteredClient },
): Promise<Authorized> {
  const client = options.client ?? (await registerClient());
  const userKey = options.userKey ?? workspace.owner.key;
  const result = await authorize({ client, workspace, userKey, decision: options.decision ?? { agent: { name: unique('agent') } } });
  if (!result.code) throw new Error(`no code: ${result.redirectedTo.href}`);
  const exchanged = await exchangeCode(client, result.code, result.pkce.verifier, result.redirectUri);
  if (exchanged.status !== 200) throw new Error(`token: expected 200, got ${exchanged.status} ${exchanged.text}`);
  return { client, tokens: exchanged.body, agentId: result.answer.body.agentId, result };
}

export interface McpReply {
  status: number;
  headers: Headers;
  /** The JSON-RPC message of the answer (from JSON or from the last SSE event), or the problem of a refusal. */
  body: any;
  text: string;
}

/** One raw JSON-RPC request to the workspace's MCP endpoint with a bearer token. */
export async function mcpCall(token: string | undefined, workspace: TestWorkspace, method: string, params: Record<string, unknown> = {}, options: { baseUrl?: string } = {}): Promise<McpReply> {
  const res = await fetch(`${options.baseUrl ?? origin()}${workspace.path('/mcp')}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  let body: any;
  if (type.startsWith('text/event-stream')) {
    const data = text.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim());
    body = data.length ? JSON.parse(data[data.length - 1]) : undefined;
  } else if (/json/.test(type) && text) {
    body = JSON.parse(text);
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** A tool called through the raw endpoint; the JSON-RPC result (or error) as answered. */
export function mcpTool(token: string, workspace: TestWorkspace, name: string, args: Record<string, unknown>, options: { baseUrl?: string } = {}): Promise<McpReply> {
  return mcpCall(token, workspace, 'tools/call', { name, arguments: args }, options);
}

/** A new workspace with one approved playbook that requires one context node (the bundle is that node). */
export async function workspaceWithApprovedPlaybook(): Promise<{ workspace: TestWorkspace; playbookId: string; nodeId: string }> {
  const workspace = await createWorkspace();
  const g = await buildGraph(workspace, { nodes: { guide: { content: 'How to do the thing, step by step.' } }, links: [['pb', 'requires', 'guide']] });
  const playbook = await getPlaybook(workspace, workspace.owner.key, g.playbookId);
  const approved = await request('PATCH', workspace.path(`/playbooks/${g.playbookId}/versions/${playbook.versions[0].id}/approve`), { token: workspace.owner.key });
  if (approved.status !== 200) throw new Error(`approve playbook: expected 200, got ${approved.status} ${approved.text}`);
  return { workspace, playbookId: g.playbookId, nodeId: g.id.guide };
}

/** The workspace's audit events of one action, newest first (read by its owner). */
export async function auditEventsOf(workspace: TestWorkspace, action: string): Promise<any[]> {
  const res = await request('GET', workspace.path(`/audit-events?action=${action}&limit=200`), { token: workspace.owner.key });
  if (res.status !== 200) throw new Error(`audit events: expected 200, got ${res.status} ${res.text}`);
  return res.body.events;
}

/** The workspace's retrievals counted this month. */
export async function quotaUsed(workspace: TestWorkspace): Promise<number> {
  return (await request('GET', workspace.path('/usage'), { token: workspace.owner.key })).body.used;
}
