import { type Layer, Router } from '@koa/router';
import type { Context, Middleware } from 'koa';
import { AppError } from '../errors.js';
import { type PipelineDeps, pipelineOf } from './pipeline.js';
import { prepareInput } from './request-input.js';
import type { AnyOperation } from '../api/operation.js';


export type RouterDeps = PipelineDeps;

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

/** A route pattern: its layer (the path matching and parameters of @koa/router), its methods' pipelines, its rivals. */
interface Pattern {
  path: string;
  layer: Layer;
  /** Method → the route's pipeline. */
  methods: Map<string, Middleware>;
  /** The more specific patterns of its bucket: a path one of them also matches is theirs (see specificityOf). */
  rivals: Pattern[];
}

/**
 * Mounts every route with its access check, validation and handler: a bucket of patterns per bucketOf, each
 * pattern with its methods' pipelines. A request goes to the first pattern of its bucket that matches its path
 * and method, is not shadowed by a more specific one and so answers it, its path parameters decoded into
 * ctx.params. An unknown path is a 404 problem; a known path with another method a 405 problem with Allow, which
 * lists the methods of the most specific patterns matching the path (OPTIONS answers with them).
 */
export function buildRouter(routes: AnyOperation[], deps: RouterDeps): Middleware[] {
  const byPath = new Map<string, Pattern>();
  const buckets = new Map<string, Pattern[]>();
  for (const route of routes) {
    prepareInput(route);
    const known = byPath.get(route.path);
    if (known) {
      known.methods.set(route.method.toUpperCase(), pipelineOf(route, deps));
      continue;
    }
    const name = bucketOf(route.path);
    // A parameter where the bucket is read, or a segment that may be absent, would keep the pattern from its paths.
    if (name !== '' && (/[{}*()]/.test(route.path) || route.path.split('/')[5]?.startsWith(':'))) {
      throw new Error(`${route.path}: a pattern under a workspace is plain segments, the one after the workspace id literal`);
    }
    const pattern: Pattern = { path: route.path, layer: undefined as never, methods: new Map([[route.method.toUpperCase(), pipelineOf(route, deps)]]), rivals: [] };
    byPath.set(route.path, pattern);
    buckets.set(name, [...(buckets.get(name) ?? []), pattern]);
  }
  // The router's own layers (its defaults: blind to case, a trailing slash allowed), each with the methods it
  // lists (a GET also HEAD); the router itself is never asked, a request being matched here in one pass.
  const router = new Router();
  for (const pattern of byPath.values()) {
    pattern.layer = router.register(pattern.path, [...pattern.methods.keys()], () => undefined) as Layer;
  }
  for (const patterns of buckets.values()) {
    for (const p of patterns) p.rivals = patterns.filter((q) => specificityOf(q.path).length === specificityOf(p.path).length && specificityOf(q.path) > specificityOf(p.path));
  }
  const answers = (p: Pattern, path: string) => p.layer.match(path) && !p.rivals.some((q) => q.layer.match(path));

  /** The methods allowed on a path that no route of its bucket answered: none, else OPTIONS' answer or a 405. */
  const allowed = (patterns: Pattern[], ctx: Context, path: string) => {
    // In the order the routes were given, HEAD before each GET, as @koa/router lists a GET route's methods.
    const methods = [...new Set(patterns.filter((p) => answers(p, path)).flatMap((p) => [...p.methods.keys()].flatMap((m) => (m === 'GET' ? ['HEAD', 'GET'] : [m]))))];
    if (methods.length === 0) return;
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', methods.join(', '));
      ctx.status = 200;
      ctx.body = '';
      return;
    }
    throw new AppError('method_not_allowed', `${ctx.method} is not allowed here; allowed: ${methods.join(', ')}`, { headers: { Allow: methods.join(', ') } });
  };
  /** The pattern that answers a request, its path parameters set on ctx; undefined when none does. */
  const find = (patterns: Pattern[], ctx: Context, path: string) => {
    // A GET route answers HEAD too.
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    for (const p of patterns) {
      const pipeline = p.methods.get(method);
      if (!pipeline || !answers(p, path)) continue;
      ctx.params = p.layer.params(path, p.layer.captures(path));
      return pipeline;
    }
    return undefined;
  };
  const dispatch: Middleware = async (ctx, next) => {
    const path = ctx.path;
    const patterns = buckets.get(bucketOf(path));
    const pipeline = patterns && find(patterns, ctx, path);
    if (pipeline) await pipeline(ctx, next);
    else if (patterns) allowed(patterns, ctx, path);
    if (ctx.status === 404 && ctx.body == null) throw new AppError('not_found', 'No such route');
  };
  return [dispatch];
}
