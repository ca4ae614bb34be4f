/**
 * The answer step of a cacheable route, the one the REST router and the MCP tools share: the answer comes from the
 * response cache under the graph generation the gate read with the admission, else it is produced and kept when it
 * qualifies; a metered request's count is taken back when its answer fails. REST runs it for every route with a
 * `cache` rule (the refund around the whole request, validation included); an MCP retrieval tool runs it as its
 * REST twin would, under that route's operationId and path, so the two share one entry and one ETag.
 */
import isFresh from 'fresh';
import type { Admission } from '../gate/admission.js';
import type { ResponseCache } from './response-cache.js';
import type { AnyOperation } from '../api/operation.js';

/** A request for a cacheable answer, however it arrived. */
export interface AnswerRequest {
  /** The REST route whose answer this is: its operationId and `cache` rule key the entry and decide what is kept. */
  route: Pick<AnyOperation, 'operationId' | 'cache'>;
  /** The path as a REST request names it. */
  path: string;
  /** The validated query, defaults filled in. */
  query: Record<string, unknown>;
  /** The request's If-None-Match, when it sent one: a 304 needs it to hold the answer's ETag. */
  ifNoneMatch?: string;
}

/** What the step answers. */
export type StepAnswer<T> =
  /** If-None-Match holds the current ETag. */
  | { kind: 'not-modified'; etag: string }
  /** The answer's bytes and ETag: a cached entry, or an answer produced now and kept (then `body` is it too). */
  | { kind: 'bytes'; etag: string; bytes: Buffer; body?: T }
  /** Produced now and not kept: no generation was read (Redis unreachable), or the answer does not qualify. */
  | { kind: 'uncached'; body: T | undefined };

/** Runs a request's answer; when it fails, the count its admission took against the quota is given back. */
export async function refundOnFailure<T>(quota: Admission['quota'], answer: () => Promise<T>): Promise<T> {
  try {
    return await answer();
  } catch (err) {
    await quota?.refund();
    throw err;
  }
}

/**
 * The cached answer, else `produce`'s: it gives the answer's JSON value when it is one to keep (a 200 that is
 * not ready-made bytes), or undefined. Without a `when` rule every answer under a key is the same, so the ETag
 * alone answers a conditional request, with no entry and no work.
 */
export async function answerFromCache<T>(
  cache: ResponseCache,
  admission: Pick<Admission, 'caller' | 'generation'>,
  request: AnswerRequest,
  produce: () => Promise<T | undefined>,
): Promise<StepAnswer<T>> {
  const { caller, generation } = admission;
  if (!generation) return { kind: 'uncached', body: await produce() };
  const { route, query, ifNoneMatch } = request;
  const rule = route.cache ?? {};
  const audience = rule.perCaller?.(query) ? caller.principal : undefined;
  const { key, hit, etag } = cache.lookup({ generation, operationId: route.operationId, path: request.path, query, audience });
  // fresh (Koa's own) is asked with If-None-Match alone: fetch adds Cache-Control: no-cache to every conditional
  // request, which ctx.fresh takes for a forced reload (a shared cache's rule; this is the origin).
  const fresh = () => !!ifNoneMatch && isFresh({ 'if-none-match': ifNoneMatch }, { etag });
  if ((hit || !rule.when) && fresh()) return { kind: 'not-modified', etag };
  if (hit) return { kind: 'bytes', etag, bytes: hit.body };
  const body = await produce();
  if (body === undefined || !(rule.when?.(body, caller) ?? true)) return { kind: 'uncached', body };
  const bytes = cache.keep(key, etag, body);
  return fresh() ? { kind: 'not-modified', etag } : { kind: 'bytes', etag, bytes, body };
}

/** The whole step for a request the gate metered apart from its admission (an MCP tool call). */
export function meteredAnswer<T>(
  cache: ResponseCache,
  metered: Pick<Admission, 'caller' | 'generation' | 'quota'>,
  request: AnswerRequest,
  produce: () => Promise<T | undefined>,
): Promise<StepAnswer<T>> {
  return refundOnFailure(metered.quota, () => answerFromCache(cache, metered, request, produce));
}
