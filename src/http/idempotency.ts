import { Stream } from 'node:stream';
import type { Context } from 'koa';
import type { Caller } from '../auth/caller.js';
import type { IdempotencyStore, StoredAnswer } from '../gate/idempotency.js';
import { type JsonBody, digestOf } from './json-body.js';

/** Ready-made answers (bytes) above this size are not kept for a retry, which then runs again. */
const maxKeptBytes = 1024 * 1024;

/**
 * A POST that carries an Idempotency-Key (see IdempotencyStore): a retry of an answered request gets the kept
 * answer (Idempotent-Replayed: true) and `run` does not run; otherwise `run` runs with the key held, and its
 * answer is kept when it can be, else the key is let go. Without the header `run` simply runs.
 */
export async function idempotently(ctx: Context, store: IdempotencyStore, caller: Caller | undefined, sent: JsonBody | undefined, run: () => Promise<void>): Promise<void> {
  const key = ctx.headers['idempotency-key'];
  if (key === undefined) return run();
  const scope = caller ? { workspaceId: caller.workspaceId, callerKeyId: caller.principal.keyId } : { workspaceId: 'operator', callerKeyId: 'operator' };
  const bodyDigest = await digestOf(sent?.bytes ?? Buffer.alloc(0));
  const claim = await store.claim(scope, Array.isArray(key) ? key.join(',') : key, { method: ctx.method, path: ctx.path, bodyDigest });
  if (claim.replay) return replay(ctx, claim.replay);
  try {
    await run();
  } catch (err) {
    await claim.release();
    throw err;
  }
  const answer = ctx.status < 300 ? keepableAnswer(ctx) : undefined;
  await (answer ? claim.complete(answer) : claim.release());
}

function replay(ctx: Context, { status, body, type }: StoredAnswer): void {
  ctx.status = status;
  if (type) {
    ctx.type = type;
    ctx.body = Buffer.from(body as string, 'base64');
  } else ctx.body = body;
  ctx.set('Idempotent-Replayed', 'true');
}

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
