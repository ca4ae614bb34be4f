import { Stream } from 'node:stream';
import type { Context, Middleware } from 'koa';
import { responseProblems } from '../api/validation.js';
import type { Caller } from '../auth/caller.js';
import type { ResponseCache } from '../answer-cache/response-cache.js';
import type { RequestGate } from '../gate/gate.js';
import type { IdempotencyStore } from '../gate/idempotency.js';
import { readScope } from '../infra/read-scope.js';
import { type AccessDeps, type Entry, accessCheckOf } from './access.js';
import { answerCached } from './cached-answer.js';
import { idempotently } from './idempotency.js';
import { type RequestInput, readInput, readParamsAndQuery, readParamsAndQueryOnce } from './request-input.js';
import { type AnyOperation, type HandlerArgs, successStatus } from '../api/operation.js';

export interface PipelineDeps extends AccessDeps {
  gate: AccessDeps['gate'] & Pick<RequestGate, 'wrote'>;
  idempotency: IdempotencyStore;
  responseCache: ResponseCache;
  /** Check every response body against its documented schema (tests): a mismatch is a 500. */
  validateResponses?: boolean;
}

/**
 * One route's whole pipeline, in the order a request goes through it: the access check; then, with a metered
 * request's count taken back if anything after fails, the input (body, path parameters, query) validated and the
 * answer: from the answer cache on a cacheable route, replayed or kept under an Idempotency-Key on a POST, else
 * the handler's; last, a write that no change signal recorded is recorded for the workspace.
 */
export function pipelineOf(route: AnyOperation, deps: PipelineDeps): Middleware {
  const enter = accessCheckOf(route, deps);
  const answer = answerOf(route, deps);
  const recordsWrites = route.access.kind === 'workspace';
  return async (ctx) => {
    // The route's pattern labels metrics and logs; the raw URL never does.
    ctx.state.route = route.path;
    const entry = await enter(ctx);
    const quota = entry.admission?.quota;
    if (!quota) await answer(ctx, entry);
    else {
      ctx.set(quota.headers);
      try {
        await answer(ctx, entry);
      } catch (err) {
        await quota.refund();
        throw err;
      }
    }
    if (!recordsWrites) return;
    // A write no change signal recorded (feedback, a subscription, …) is recorded here, before the answer leaves.
    const scope = readScope();
    if (scope?.wrote && !scope.published) await deps.gate.wrote(ctx.params.workspaceId);
  };
}

type Answer = (ctx: Context, entry: Entry) => Promise<void>;

/** Everything after the access check: input, answer and (in tests) the answer checked against its schema. */
function answerOf(route: AnyOperation, deps: PipelineDeps): Answer {
  const run: Answer =
    route.cache && route.access.kind === 'workspace'
      ? // A cacheable read takes no Idempotency-Key. A POST one (a context query, whose body holds the question)
        // is keyed by its body as a GET is by its query.
        async (ctx, entry) => {
          const input: Partial<RequestInput> & Pick<RequestInput, 'params' | 'query'> = route.body ? await readInput(route, ctx) : readParamsAndQueryOnce(route, ctx);
          const handler = () => runRoute(route, handlerArgs(ctx, entry, input as RequestInput));
          const key = route.body ? { ...input.query, ...(input.body as Record<string, unknown>) } : input.query;
          await answerCached(ctx, route, deps.responseCache, entry.admission!, key, handler);
        }
      : async (ctx, entry) => {
          const input: RequestInput = route.body ? await readInput(route, ctx) : readParamsAndQuery(route, ctx);
          const args = handlerArgs(ctx, entry, input);
          const handler = () => runRoute(route, args);
          if (route.method !== 'post') return handler();
          await idempotently(ctx, deps.idempotency, args.caller, input.sent, handler);
        };
  if (!deps.validateResponses) return run;
  return async (ctx, entry) => {
    await run(ctx, entry);
    checkResponse(route, ctx);
  };
}

/** What the handler is given (HandlerArgs): the validated input, who called and the request's id. */
function handlerArgs(ctx: Context, entry: Entry, input: RequestInput) {
  const requestId = String(ctx.state.requestId);
  const caller = entry.admission ? { ...entry.admission.caller, requestId } : undefined;
  const principal = entry.admission?.caller.principal ?? entry.principal;
  return { params: input.params, query: input.query, body: input.body, caller, principal, requestId, ctx } as HandlerArgs<any, any, any> & { caller: Caller | undefined };
}

function checkResponse(route: AnyOperation, ctx: Context): void {
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

/** Runs an operation for a REST request: its `handler` as it is, or its `run`, whose answer is the body of its success status. */
export async function runRoute(route: AnyOperation, args: HandlerArgs<any, any, any>): Promise<void> {
  if (route.handler) return route.handler(args);
  const { ctx, ...input } = args;
  const answer = await route.run!(input);
  ctx.status = successStatus(route);
  if (answer !== undefined) ctx.body = answer;
}
