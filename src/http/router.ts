import { createHash, timingSafeEqual } from 'node:crypto';
import { parse as parseQuery } from 'node:querystring';
import { Stream } from 'node:stream';
import { Router } from '@koa/router';
import { Type } from '@sinclair/typebox';
import type { Context, Middleware } from 'koa';
import type { Caller, Principal } from '../auth/caller.js';
import { AppError } from '../errors.js';
import type { Admission } from '../gate/admission.js';
import type { RequestGate } from '../gate/gate.js';
import type { IdempotencyClaim, IdempotencyStore, StoredAnswer } from '../gate/idempotency.js';
import { yieldToEventLoop } from '../infra/event-loop.js';
import { type JsonBody, digestOf, largeBodyBytes, readJsonBody } from './json-body.js';
import { answerFromCache, refundOnFailure } from '../answer-cache/cache-step.js';
import { readScope } from '../infra/read-scope.js';
import type { ResponseCache } from '../answer-cache/response-cache.js';
import type { AnyRoute } from './route.js';
import { prepareValidators, responseProblems, validateLargePart, validatePart } from '../api/validation.js';

export interface RouterDeps {
  gate: Pick<RequestGate, 'admit' | 'identify' | 'authenticate' | 'wrote'>;
  idempotency: IdempotencyStore;
  responseCache: ResponseCache;
  adminToken?: string;
  /** Also opens the operator routes marked `analyst` (POST /api/v1/admin/cypher). */
  analystToken?: string;
  /** Check every response body against its documented schema (tests): a mismatch is a 500. */
  validateResponses?: boolean;
}

/** The key of `Authorization: Bearer <key>`, if any. */
export function bearer(ctx: Context): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
  return match?.[1];
}

/** Constant-time comparison: both sides are hashed first so their lengths say nothing either. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Runs a request's parsing, validation and handler once its caller is known. */
type Run = (ctx: Context, admission?: Admission) => Promise<void>;

/**
 * The operator's token (and, on an `analyst` route, the analysts' token) lets the request in; a valid API key
 * is 403, anything else 401.
 */
function operatorOnly(route: AnyRoute & { access: { kind: 'operator' } }, deps: RouterDeps, run: Run): Middleware {
  const { gate } = deps;
  const tokens = [
    { who: 'admin', secret: deps.adminToken },
    { who: 'analyst', secret: route.access.analyst ? deps.analystToken : undefined },
  ].filter((t): t is { who: string; secret: string } => Boolean(t.secret));
  const wanted = route.access.analyst ? 'the analyst or operator token' : 'the operator token';
  return async (ctx) => {
    // No token configured: the route does not exist.
    if (tokens.length === 0) throw new AppError('not_found', 'No such route');
    const token = bearer(ctx);
    // Every configured token is compared, so the time taken does not say which one matched.
    const matched = token ? tokens.filter((t) => sameSecret(token, t.secret)) : [];
    if (matched.length > 0) {
      ctx.state.operator = matched[0].who;
      return run(ctx);
    }
    if (token && (await gate.identify(token))) throw new AppError('forbidden', `This endpoint takes ${wanted}, not an API key`);
    throw new AppError('unauthorized', `${wanted[0].toUpperCase()}${wanted.slice(1)} is required`);
  };
}

/** The gate admits the caller (one Redis round trip); a metered request's count is taken back if it then fails. */
function workspaceMember(route: AnyRoute & { access: { kind: 'workspace' } }, deps: RouterDeps, run: Run): Middleware {
  const rule = { ...route.access, metered: route.metered };
  return async (ctx) => {
    const admission = await deps.gate.admit(bearer(ctx), ctx.params.workspaceId, rule);
    if (!admission.quota) await run(ctx, admission);
    else {
      ctx.set(admission.quota.headers);
      await refundOnFailure(admission.quota, () => run(ctx, admission));
    }
    // A write no change signal recorded (feedback, a subscription, …) is recorded here, before the answer leaves.
    const scope = readScope();
    if (scope?.wrote && !scope.published) await deps.gate.wrote(ctx.params.workspaceId);
  };
}

/** Any valid API key (user or agent) lets the request in; the route's path names no workspace. */
function keyHolder(deps: RouterDeps, run: Run): Middleware {
  return async (ctx) => {
    ctx.state.principal = await deps.gate.authenticate(bearer(ctx));
    return run(ctx);
  };
}

// A route that takes no query parameters still refuses unknown ones.
const noQuery = Type.Object({}, { additionalProperties: false });

/** Body parsing (only for routes that take one), validation, the response cache and the handler. */
function handle(route: AnyRoute, deps: RouterDeps): Run {
  return async (ctx, admission) => {
    // Only routes that take a body read one, and only for a caller that passed the access check.
    // ctx.is answers false for a body of another type (and null when there is no body).
    if (route.body && ctx.request.length !== 0 && ctx.is('application/json') === false) {
      throw new AppError('unsupported_media_type', 'The request body must be application/json');
    }
    const sent = route.body ? await readJsonBody(ctx, route.maxBodyBytes) : undefined;
    const large = (sent?.bytes.length ?? 0) >= largeBodyBytes;
    // ajv coerces and fills defaults in place, so it gets copies. node:querystring parses in one pass into a new
    // object (a repeated parameter becomes an array, as with ctx.query), where Koa's ctx.query builds each value
    // through URLSearchParams.getAll and defineProperty, and ajv then walks that object's copy far more slowly.
    const params = route.params ? validatePart(route.params, { ...ctx.params }, 'path') : {};
    const query = validatePart<Record<string, unknown>>(route.query ?? noQuery, parseQuery(ctx.querystring, '&', '=', { maxKeys: 0 }), 'query');
    const body = route.body ? await (large ? validateLargePart(route.body, sent!.value) : validatePart(route.body, sent!.value, 'body')) : undefined;
    // A large body's validation, its Idempotency-Key fingerprint and its handler each get a turn of their own.
    if (large) await yieldToEventLoop();
    const requestId = String(ctx.state.requestId);
    const caller = (admission ? { ...admission.caller, requestId } : undefined) as Caller;
    const principal = (admission?.caller.principal ?? ctx.state.principal) as Principal;
    const handler = () => route.handler({ params, query, body, caller, principal, requestId, ctx } as never);
    const claim = route.method === 'post' ? await claimIdempotencyKey(ctx, deps.idempotency, caller, sent) : undefined;
    if (claim?.replay) {
      const { status, body: kept, type } = claim.replay;
      ctx.status = status;
      if (type) {
        ctx.type = type;
        ctx.body = Buffer.from(kept as string, 'base64');
      } else ctx.body = kept;
      ctx.set('Idempotent-Replayed', 'true');
    } else if (route.cache && admission) {
      await cached(ctx, route, deps.responseCache, admission, query, handler);
    } else {
      try {
        await handler();
      } catch (err) {
        await claim?.release();
        throw err;
      }
      if (claim) {
        const answer = ctx.status < 300 ? keepableAnswer(ctx) : undefined;
        await (answer ? claim.complete(answer) : claim.release());
      }
    }
    if (deps.validateResponses) checkResponse(route, ctx);
  };
}

/** Ready-made answers (bytes) above this size are not kept for a retry, which then runs again. */
const maxKeptBytes = 1024 * 1024;

/**
 * A successful answer as it is kept for a retry: a JSON value as it is, ready-made bytes (an MCP answer, a CSV)
 * with their type. A streamed answer, or bytes too large to keep, is not kept: the key is let go, and a retry
 * runs again (such answers come from reads, which may).
 */
function keepableAnswer(ctx: Context): StoredAnswer | undefined {
  const body = ctx.body;
  if (body instanceof Stream) return undefined;
  if (Buffer.isBuffer(body)) return body.length <= maxKeptBytes ? { status: ctx.status, body: body.toString('base64'), type: ctx.response.get('Content-Type') } : undefined;
  return { status: ctx.status, body };
}

/** A POST that carries an Idempotency-Key takes it before it runs (see IdempotencyStore). */
async function claimIdempotencyKey(ctx: Context, store: IdempotencyStore, caller: Caller | undefined, sent: JsonBody | undefined): Promise<IdempotencyClaim | undefined> {
  const key = ctx.headers['idempotency-key'];
  if (key === undefined) return undefined;
  const scope = caller ? { workspaceId: caller.workspaceId, callerKeyId: caller.principal.keyId } : { workspaceId: 'operator', callerKeyId: 'operator' };
  const bodyDigest = await digestOf(sent?.bytes ?? Buffer.alloc(0));
  return store.claim(scope, Array.isArray(key) ? key.join(',') : key, { method: ctx.method, path: ctx.path, bodyDigest });
}

/**
 * A cacheable GET through the answer step (src/answer-cache/cache-step.ts): 304 when If-None-Match holds the ETag,
 * else the cached bytes, else the handler's answer, kept when it qualifies. An answer that is not kept stays as
 * the handler left it, without an ETag.
 */
async function cached(ctx: Context, route: AnyRoute, cache: ResponseCache, admission: Admission, query: Record<string, unknown>, handler: () => Promise<void>) {
  const request = { route, path: ctx.path, query, ifNoneMatch: ctx.get('if-none-match') };
  const answer = await answerFromCache(cache, admission, request, async () => {
    await handler();
    const body = ctx.body;
    return ctx.status === 200 && body && !Buffer.isBuffer(body) ? body : undefined;
  });
  if (answer.kind === 'uncached') return;
  ctx.etag = answer.etag;
  ctx.set('Cache-Control', 'private, no-cache');
  if (answer.kind === 'bytes') send(ctx, answer.bytes);
  else ctx.status = 304;
}

function send(ctx: Context, bytes: Buffer): void {
  ctx.type = 'application/json';
  ctx.body = bytes;
}

function checkResponse(route: AnyRoute, ctx: Context): void {
  const spec = route.responses[ctx.status] ?? (ctx.status === 304 && route.cache ? { description: 'Not modified' } : undefined);
  if (!spec) throw new Error(`${route.operationId} answered ${ctx.status}, which its route does not document`);
  if (!spec.schema || ctx.body === undefined || ctx.body === null) return;
  // A streamed body (the workspace export) leaves as it is made; its tests check the document they receive.
  if (ctx.body instanceof Stream) return;
  // A body in another media type the route offers (CSV, NDJSON) has no JSON Schema to meet.
  if (!ctx.response.is('json')) return;
  // Ready-made JSON bytes (cached answers) are checked like any other body.
  const body = Buffer.isBuffer(ctx.body) ? JSON.parse(ctx.body.toString('utf8')) : ctx.body;
  const problems = responseProblems(spec.schema, body);
  if (problems) throw new Error(`${route.operationId} ${ctx.status} body does not match its schema: ${problems}`);
}

/** One route's whole pipeline as a single function: access check, then body parsing, validation and handler. */
function pipelineOf(route: AnyRoute, deps: RouterDeps): Middleware {
  const run = handle(route, deps);
  const admitted: Middleware =
    route.access.kind === 'operator'
      ? operatorOnly(route as AnyRoute & { access: { kind: 'operator' } }, deps, run)
      : route.access.kind === 'workspace'
        ? workspaceMember(route as AnyRoute & { access: { kind: 'workspace' } }, deps, run)
        : route.access.kind === 'principal'
          ? keyHolder(deps, run)
          : (ctx) => run(ctx);
  return (ctx, next) => {
    // The route's pattern labels metrics and logs; the raw URL never does.
    ctx.state.route = route.path;
    return admitted(ctx, next);
  };
}

/**
 * How specific a route's pattern is: its segments, a literal segment before a parameter. Where two patterns match
 * the same path (`…/context-nodes/import` and `…/context-nodes/:nodeId`), only the more specific one answers, and
 * only its methods are allowed there.
 */
const specificityOf = (path: string) => path.split('/').map((segment) => (segment.startsWith(':') ? 'p' : 's')).join('');

/**
 * The bucket of a path: under a workspace, the resource its fifth segment names (`playbooks`, `context-nodes`,
 * `context`, … or '' for the workspace itself) and its number of segments (a trailing slash adds none);
 * everything else (operations, admin, docs, the console) is one more. The same function sorts the patterns at
 * start-up and the paths at run time, blind to case as the router's matching is: @koa/router tests every layer of
 * a router against every request, and a path can only match the patterns of its own bucket.
 */
function bucketOf(path: string): string {
  const segments = path.split('/');
  if (!(segments.length > 3 && segments[1].toLowerCase() === 'api' && segments[2].toLowerCase() === 'v1' && segments[3].toLowerCase() === 'workspaces')) return '';
  const count = segments.length - (segments[segments.length - 1] === '' ? 1 : 0);
  return `${(segments[5] ?? '').toLowerCase()}/${count}`;
}

/** The patterns of one bucket, and its router's middleware (a layer per pattern). */
interface Bucket {
  patterns: string[];
  routes: Middleware;
}

/**
 * Mounts every route with its access check, validation and handler: a router per bucket (see bucketOf), a layer
 * per pattern, whose methods each have their route's pipeline. An unknown path is a 404 problem; a known path
 * with another method a 405 problem with Allow, which lists the methods of the most specific patterns matching
 * the path (OPTIONS answers with them).
 */
export function buildRouter(routes: AnyRoute[], deps: RouterDeps): Middleware[] {
  const methodsOf = new Map<string, Map<string, Middleware>>();
  const patternsOf = new Map<string, string[]>();
  for (const route of routes) {
    if (route.params) prepareValidators(route.params, 'path');
    prepareValidators(route.query ?? noQuery, 'query');
    if (route.body) prepareValidators(route.body, 'body');
    const methods = methodsOf.get(route.path);
    if (methods) {
      methods.set(route.method.toUpperCase(), pipelineOf(route, deps));
      continue;
    }
    methodsOf.set(route.path, new Map([[route.method.toUpperCase(), pipelineOf(route, deps)]]));
    const name = bucketOf(route.path);
    // A parameter where the bucket is read, or a segment that may be absent, would keep the pattern from its paths.
    if (name !== '' && (/[{}*()]/.test(route.path) || route.path.split('/')[5]?.startsWith(':'))) {
      throw new Error(`${route.path}: a pattern under a workspace is plain segments, the one after the workspace id literal`);
    }
    patternsOf.set(name, [...(patternsOf.get(name) ?? []), route.path]);
  }
  // The patterns more specific than each one: a request that one of them also matches is theirs (both are of one bucket).
  const rivals = new Map<string, string[]>();
  for (const patterns of patternsOf.values()) {
    for (const p of patterns) rivals.set(p, patterns.filter((q) => specificityOf(q).length === specificityOf(p).length && specificityOf(q) > specificityOf(p)));
  }
  const layerOf = new Map<string, { match(path: string): boolean }>();
  const shadowed = (pattern: string, path: string) => rivals.get(pattern)!.some((q) => layerOf.get(q)!.match(path));
  const buckets = new Map<string, Bucket>();
  for (const [name, patterns] of patternsOf) {
    const router = new Router();
    for (const pattern of patterns) {
      const methods = methodsOf.get(pattern)!;
      // A GET route answers HEAD too (@koa/router adds it to the layer's methods).
      const pipeline: Middleware = (ctx, next) => methods.get(ctx.method === 'HEAD' ? 'GET' : ctx.method)!(ctx, next);
      const answer: Middleware = rivals.get(pattern)!.length === 0 ? pipeline : (ctx, next) => (shadowed(pattern, ctx.path) ? next() : pipeline(ctx, next));
      router.register(pattern, [...methods.keys()], answer);
    }
    for (const layer of router.stack) layerOf.set(layer.path as string, layer);
    buckets.set(name, { patterns, routes: router.routes() as Middleware });
  }

  /** The methods allowed on a path that no route of its bucket answered: 404 when none, else OPTIONS' answer or a 405. */
  const allowed = (bucket: Bucket, ctx: Context) => {
    const matching = bucket.patterns.filter((p) => layerOf.get(p)!.match(ctx.path) && !shadowed(p, ctx.path));
    // In the order the routes were given, HEAD before each GET, as @koa/router lists a GET route's methods.
    const methods = [...new Set(matching.flatMap((p) => [...methodsOf.get(p)!.keys()].flatMap((m) => (m === 'GET' ? ['HEAD', 'GET'] : [m]))))];
    if (methods.length === 0) return;
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', methods.join(', '));
      ctx.status = 200;
      ctx.body = '';
      return;
    }
    throw new AppError('method_not_allowed', `${ctx.method} is not allowed here; allowed: ${methods.join(', ')}`, { headers: { Allow: methods.join(', ') } });
  };
  const dispatch: Middleware = async (ctx) => {
    const bucket = buckets.get(bucketOf(ctx.path));
    if (bucket) await bucket.routes(ctx, async () => allowed(bucket, ctx));
    if (ctx.status === 404 && ctx.body == null) throw new AppError('not_found', 'No such route');
  };
  return [dispatch];
}
