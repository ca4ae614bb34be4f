import { createHash, timingSafeEqual } from 'node:crypto';
import { parse as parseQuery } from 'node:querystring';
import { bodyParser } from '@koa/bodyparser';
import { Router, type RouterContext } from '@koa/router';
import { Type } from '@sinclair/typebox';
import type { Context, Middleware, Next } from 'koa';
import { type Authenticator, unauthorized } from '../auth/authenticator.js';
import { type Caller, roleAtLeast } from '../auth/caller.js';
import { hashKey, keyKind } from '../auth/keys.js';
import type { RateLimiter } from '../infra/rate-limiter.js';
import type { ResponseCache } from '../infra/response-cache.js';
import type { QuotaService } from '../quota/service.js';
import { AppError } from './problem.js';
import type { AnyRoute } from './route.js';
import { responseProblems, validatePart } from './validation.js';

export interface RouterDeps {
  authenticator: Authenticator;
  quota?: Pick<QuotaService, 'open'>;
  rateLimiter?: RateLimiter;
  responseCache?: ResponseCache;
  adminToken?: string;
  /** Check every response body against its documented schema (tests): a mismatch is a 500. */
  validateResponses?: boolean;
}

function bearer(ctx: Context): string | undefined {
  const header = ctx.get('authorization');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Constant-time comparison: both sides are hashed first so their lengths say nothing either. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function operatorOnly(deps: RouterDeps): Middleware {
  const { adminToken, authenticator } = deps;
  return async (ctx, next) => {
    // No token configured: the admin API does not exist.
    if (!adminToken) throw new AppError('not_found', 'No such route');
    const token = bearer(ctx);
    if (token && sameSecret(token, adminToken)) return next();
    // A valid API key is authenticated but not allowed here (403); anything else is 401.
    if (token && keyKind(token)) {
      const keyHash = hashKey(token);
      const valid = await authenticator
        .authenticate(keyHash, await authenticator.snapshot(keyHash))
        .then(() => true, () => false);
      if (valid) throw new AppError('forbidden', 'The admin API takes the operator token, not an API key');
    }
    throw new AppError('unauthorized', 'The operator token is required');
  };
}

function workspaceMember(route: AnyRoute & { access: { kind: 'workspace' } }, deps: RouterDeps): Middleware {
  const { minRole, userKeyOnly } = route.access;
  return async (ctx: Context, next: Next) => {
    const token = bearer(ctx);
    if (!token) throw unauthorized();
    // Decided from the key's form alone, before any look-up, whatever workspace or id the path names.
    const kind = keyKind(token);
    if (!kind) throw unauthorized();
    if (userKeyOnly && kind === 'agent') {
      throw new AppError('user_key_required', 'This endpoint takes a user key; agent keys cannot manage agents or members');
    }
    const { authenticator } = deps;
    const keyHash = hashKey(token);
    const workspaceId = ctx.params.workspaceId;
    // A metered route learns the auth state, graph generation and quota in one Redis round trip; its
    // count is taken back if the request then fails for any reason.
    const ticket = route.metered && deps.quota ? await deps.quota.open(keyHash, workspaceId) : undefined;
    try {
      const snapshot = ticket ? ticket.snapshot : await authenticator.snapshot(keyHash, route.cacheable ? workspaceId : undefined);
      const principal = await authenticator.authenticate(keyHash, snapshot);
      const role = await authenticator.roleIn(principal, workspaceId, snapshot);
      if (!role) throw new AppError('not_found', 'Workspace not found');
      if (deps.rateLimiter) await deps.rateLimiter.check(principal.keyId);
      if (!roleAtLeast(role, minRole)) {
        throw new AppError('insufficient_role', `This needs the ${minRole} role or higher; the caller is ${role}`);
      }
      if (ticket) {
        ctx.set(ticket.headers);
        if (ticket.exhausted) {
          throw new AppError('quota_exceeded', 'The workspace has used every retrieval of its plan this month', { headers: ticket.headers });
        }
        ctx.state.quota = ticket;
      }
      const caller: Caller = {
        principal,
        workspaceId,
        role,
        actingUserId: principal.kind === 'user' ? principal.id : principal.sponsorUserId,
      };
      ctx.state.caller = caller;
      ctx.state.generation = ticket ? ticket.generation : snapshot?.generation;
      await next();
    } catch (err) {
      await ticket?.refund();
      throw err;
    }
  };
}

/** Everything a matched request goes through, as one function of the context. */
type Pipeline = (ctx: Context) => Promise<void>;

// A route that takes no query parameters still refuses unknown ones.
const noQuery = Type.Object({}, { additionalProperties: false });

function handle(route: AnyRoute, deps: RouterDeps): Pipeline {
  return async (ctx: Context) => {
    if (route.body && ctx.request.length && !ctx.is('application/json')) {
      throw new AppError('unsupported_media_type', 'The request body must be application/json');
    }
    // ajv coerces and fills defaults in place: the router's params are copied, the parsed query is new anyway.
    // node:querystring parses in one pass (a repeated parameter becomes an array, as with ctx.query), where
    // Koa's ctx.query builds each value through URLSearchParams.getAll and defineProperty (2 % of a cached answer).
    const params = route.params ? validatePart(route.params, { ...ctx.params }, 'path') : {};
    const query = validatePart(route.query ?? noQuery, parseQuery(ctx.querystring, '&', '=', { maxKeys: 0 }), 'query');
    const body = route.body ? validatePart(route.body, (ctx.request as { body?: unknown }).body, 'body') : undefined;
    // A read derived from the workspace's graph alone is answered from the response cache while the graph
    // generation (read with the auth state, no extra round trip) stays the same.
    const generation = ctx.state.generation as string | null | undefined;
    const cacheKey = route.cacheable && generation && deps.responseCache ? `${route.operationId}|${generation}|${ctx.path}|${ctx.querystring}` : undefined;
    const cached = cacheKey ? deps.responseCache!.get(cacheKey) : undefined;
    if (cached) {
      ctx.type = 'application/json';
      ctx.body = cached.body;
    } else {
      await route.handler({ params, query, body, caller: ctx.state.caller, ctx } as never);
      if (cacheKey && ctx.status === 200 && ctx.body && !Buffer.isBuffer(ctx.body) && route.cacheable!(ctx.body, ctx.state.caller)) {
        const bytes = Buffer.from(JSON.stringify(ctx.body));
        deps.responseCache!.set(cacheKey, { body: bytes, etag: '' });
        ctx.type = 'application/json';
        ctx.body = bytes;
      }
    }
    if (deps.validateResponses) checkResponse(route, ctx);
  };
}

function checkResponse(route: AnyRoute, ctx: Context): void {
  const spec = route.responses[ctx.status];
  if (!spec) throw new Error(`${route.operationId} answered ${ctx.status}, which its route does not document`);
  if (!spec.schema || ctx.body === undefined || ctx.body === null) return;
  // Ready-made JSON bytes (cached retrieval answers) are checked like any other body.
  const body = Buffer.isBuffer(ctx.body) ? JSON.parse(ctx.body.toString('utf8')) : ctx.body;
  const problems = responseProblems(spec.schema, body);
  if (problems) throw new Error(`${route.operationId} ${ctx.status} body does not match its schema: ${problems}`);
}

const parseJson = bodyParser({ enableTypes: ['json'], jsonLimit: '1mb', encoding: 'utf-8' });

/** One route's whole pipeline as a single function: access check, then body parsing, validation and handler. */
function pipelineOf(route: AnyRoute, deps: RouterDeps): Middleware {
  const access =
    route.access.kind === 'operator'
      ? operatorOnly(deps)
      : route.access.kind === 'workspace'
        ? workspaceMember(route as AnyRoute & { access: { kind: 'workspace' } }, deps)
        : undefined;
  const handler = handle(route, deps);
  // Only routes that take a body parse one, and only for a caller that passed the access check.
  const run: Pipeline = route.body ? async (ctx) => parseJson(ctx, () => handler(ctx)) : handler;
  return async (ctx) => {
    // The route's pattern labels metrics and logs; the raw URL never does.
    ctx.state.route = route.path;
    await (access ? access(ctx, () => run(ctx)) : run(ctx));
  };
}

/**
 * Which router a path belongs to: the resource under a workspace (`playbooks`, `context-nodes`, `context`,
 * … or '' for the workspace itself), and one router for everything outside workspaces (admin, operations).
 * The same function sorts the route patterns at start-up and the request paths at run time.
 */
function areaOf(path: string): string {
  const segments = path.split('/', 6);
  return segments[1] === 'api' && segments[2] === 'v1' && segments[3] === 'workspaces' ? `workspaces/${segments[5] ?? ''}` : '';
}

/**
 * Mounts every route with its access check, validation and handler, plus 404/405 problems for the rest.
 * Each route is a single @koa/router layer holding its whole pipeline, so a matched request runs one
 * function after the router rather than a chain of middleware. Routes are grouped into one router per
 * area: @koa/router tests every layer of a router against every request, and a request needs only the
 * layers of its own area (5-10 instead of ~60: bench/RESULTS.md).
 */
export function buildRouter(routes: AnyRoute[], deps: RouterDeps): Middleware[] {
  const routers = new Map<string, Router>();
  for (const route of routes) {
    const area = areaOf(route.path);
    let router = routers.get(area);
    if (!router) routers.set(area, (router = new Router()));
    // A GET route answers HEAD too (@koa/router adds it).
    router.register(route.path, [route.method.toUpperCase()], pipelineOf(route, deps), { name: route.operationId });
  }
  const dispatchers = new Map([...routers].map(([area, router]) => [area, router.routes() as Middleware]));
  const dispatch: Middleware = (ctx, next) => {
    const router = dispatchers.get(areaOf(ctx.path));
    return router ? router(ctx, next) : next();
  };
  // Reached only when no route took the request: the layers whose path matched say which methods would have.
  const unmatched: Middleware = async (ctx) => {
    const matched = (ctx as unknown as RouterContext).matched ?? [];
    const allowed = [...new Set(matched.flatMap((layer) => layer.methods))];
    if (allowed.length === 0) throw new AppError('not_found', 'No such route');
    const allow = allowed.join(', ');
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', allow);
      ctx.status = 204;
      return;
    }
    throw new AppError('method_not_allowed', `${ctx.method} is not allowed here; allowed: ${allow}`, { headers: { Allow: allow } });
  };
  return [dispatch, unmatched];
}
