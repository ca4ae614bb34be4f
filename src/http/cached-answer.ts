import type { Context } from 'koa';
import { answerFromCache } from '../answer-cache/cache-step.js';
import type { ResponseCache } from '../answer-cache/response-cache.js';
import type { Admission } from '../gate/admission.js';
import type { AnyOperation } from '../api/operation.js';

/**
 * A cacheable GET through the answer step (src/answer-cache/cache-step.ts): 304 when If-None-Match holds the ETag,
 * else the cached bytes, else the handler's answer, kept when it qualifies. An answer that is not kept stays as
 * the handler left it, without an ETag.
 */
export async function answerCached(ctx: Context, route: AnyOperation, cache: ResponseCache, admission: Admission, query: Record<string, unknown>, handler: () => Promise<void>): Promise<void> {
  const request = { route, path: ctx.path, query, ifNoneMatch: ctx.get('if-none-match') };
  const answer = await answerFromCache(cache, admission, request, async () => {
    await handler();
    const body = ctx.body;
    return ctx.status === 200 && body && !Buffer.isBuffer(body) ? body : undefined;
  });
  if (answer.kind === 'uncached') return;
  ctx.etag = answer.etag;
  ctx.set('Cache-Control', 'private, no-cache');
  if (answer.kind === 'not-modified') {
    ctx.status = 304;
    return;
  }
  ctx.type = 'application/json';
  ctx.body = answer.bytes;
}
