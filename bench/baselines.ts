/**
 * The ceilings and the floor the API is compared with, each run by bench/stack.ts as a process of its own:
 *
 *   node --import tsx bench/baselines.ts PORT                  bare Koa answering a small constant
 *   node --import tsx bench/baselines.ts PORT FILE             bare Koa answering each request URL as the API answered
 *                                                              it: the same bytes, or a 304 when If-None-Match holds
 *                                                              the same ETag (FILE: JSON {"<path?query>": {body, etag}},
 *                                                              body in base64)
 *   node --import tsx bench/baselines.ts PORT FILE REDIS_URL   the same, after one Redis INCR per request: the floor
 *                                                              of an answer that asks Redis once, as the API's gate does
 *
 * GET /ready answers 200 in all three.
 */
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import Koa from 'koa';

export interface RecordedAnswer {
  /** base64 */
  body: string;
  etag?: string;
}

const [port, answersFile, redisUrl] = process.argv.slice(2);
const constant = { body: Buffer.from('{"ok":true}'), etag: undefined };
const answers = new Map<string, { body: Buffer; etag?: string }>(
  Object.entries(answersFile ? (JSON.parse(readFileSync(answersFile, 'utf8')) as Record<string, RecordedAnswer>) : {}).map(([url, a]) => [url, { body: Buffer.from(a.body, 'base64'), etag: a.etag }]),
);
const redis = redisUrl ? new Redis(redisUrl, { lazyConnect: false }) : undefined;

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.path === '/ready') {
    ctx.body = 'ok';
    return;
  }
  if (redis) await redis.incr('bench:floor');
  const answer = answersFile ? answers.get(ctx.url) : constant;
  if (!answer) return; // 404
  if (answer.etag) {
    ctx.set('ETag', answer.etag);
    if (ctx.get('if-none-match') === answer.etag) {
      ctx.status = 304;
      return;
    }
  }
  ctx.type = 'application/json';
  ctx.body = answer.body;
});
const server = app.listen(Number(port), '127.0.0.1');
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
  redis?.disconnect();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
