import { randomUUID } from 'node:crypto';
import { PlaybooksClient } from '@playbooks/client';
import { adminToken, env } from './harness.js';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is, without JSON encoding. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** Another API process; defaults to the run's shared one. */
  baseUrl?: string;
}

/** Longer than any test runs: a request that hangs is ended by the test's own timeout, which says more. */
const attemptLimitMs = 10 * 60_000;

/**
 * The request exactly as the test gives it, through the SDK's low-level entry with retries off: one attempt, and
 * so no Idempotency-Key, each answer as the service gave it.
 */
function send(method: string, path: string, options: RequestOptions, stream: boolean): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  let body: BodyInit | undefined = options.rawBody as BodyInit | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const client = new PlaybooksClient({ baseUrl: options.baseUrl ?? env.service.url, apiKey: options.token || null, retry: false, timeoutMs: attemptLimitMs });
  return client.raw(method, path, { headers, body, stream });
}

/** One HTTP request to the API; JSON bodies are parsed, everything else is left in `text`. */
export async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Reply<T>> {
  const res = await send(method, path, options, false);
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  const parsed = text && /json/.test(type) && !/ndjson/.test(type) ? JSON.parse(text) : undefined;
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** The same request, its answer's body left unread: to read as it arrives (an NDJSON stream, an export). */
export function requestStream(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  return send(method, path, options, true);
}

/** The `/api/v1/workspaces/{id}` prefix. */
export const ws = (workspaceId: string, rest = '') => `/api/v1/workspaces/${workspaceId}${rest}`;

export const unique = (label = 'x') => `${label}-${randomUUID().slice(0, 8)}`;

function expectStatus(reply: Reply, status: number, what: string): void {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status} ${reply.text}`);
}

export interface TestUser {
  userId: string;
  email: string;
  key: string;
  keyId: string;
}

/** A new user with one key, through the admin API. */
export async function createUser(name = 'Test User'): Promise<TestUser> {
  const email = `${unique('user')}@example.test`;
  const user = await request('POST', '/api/v1/admin/users', { token: adminToken, body: { email, name } });
  expectStatus(user, 201, 'create user');
  const key = await request('POST', `/api/v1/admin/users/${user.body.id}/keys`, { token: adminToken, body: { label: 'test' } });
  expectStatus(key, 201, 'create user key');
  return { userId: user.body.id, email, key: key.body.key, keyId: key.body.id };
}

export interface TestWorkspace {
  workspaceId: string;
  owner: TestUser;
  path: (rest?: string) => string;
}

/** A new workspace owned by a new user. */
export async function createWorkspace(options: { plan?: string; parentWorkspaceId?: string; name?: string } = {}): Promise<TestWorkspace> {
  const owner = await createUser('Owner');
  const created = await request('POST', '/api/v1/admin/workspaces', {
    token: adminToken,
    body: { name: options.name ?? unique('ws'), ownerUserId: owner.userId, ...(options.plan ? { plan: options.plan } : {}), ...(options.parentWorkspaceId ? { parentWorkspaceId: options.parentWorkspaceId } : {}) },
  });
  expectStatus(created, 201, 'create workspace');
  const workspaceId = created.body.id;
  return { workspaceId, owner, path: (rest = '') => ws(workspaceId, rest) };
}

/** A new user who is a member of the workspace with the given role. */
export async function addMember(workspace: TestWorkspace, role: 'viewer' | 'editor' | 'owner'): Promise<TestUser> {
  const user = await createUser(role);
  const added = await request('POST', workspace.path('/members'), { token: workspace.owner.key, body: { userId: user.userId, role } });
  expectStatus(added, 201, 'add member');
  return user;
}

/** The status of a GET of the workspace with `key`: whether the service takes the key (200) or refuses it (401). */
export const statusWith = async (workspace: TestWorkspace, key: string): Promise<number> => (await request('GET', workspace.path(), { token: key })).status;

/** Asserts the shape every error must have, and returns the body for further checks. */
export function problem(reply: Reply, status: number, code?: string): { code: string; detail: string; errors?: { path: string; message: string }[] } {
  if (reply.status !== status) throw new Error(`expected ${status}${code ? ` ${code}` : ''}, got ${reply.status} ${reply.text}`);
  const type = reply.headers.get('content-type') ?? '';
  if (!type.startsWith('application/problem+json')) throw new Error(`expected problem+json, got ${type}`);
  const body = reply.body;
  for (const field of ['type', 'title', 'status', 'detail', 'code']) {
    if (body[field] === undefined) throw new Error(`problem without ${field}: ${reply.text}`);
  }
  if (body.status !== status) throw new Error(`problem status ${body.status} differs from HTTP ${status}`);
  if (code && body.code !== code) throw new Error(`expected code ${code}, got ${body.code}: ${body.detail}`);
  return body;
}
