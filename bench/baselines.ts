/**
 * The ceilings the service is compared with, each run by bench/run.ts as its own OS process:
 *
 *   node --import tsx bench/baselines.ts constant PORT           a bare Koa handler answering a small constant
 *   node --import tsx bench/baselines.ts bytes PORT FILE         a bare Koa handler answering, for each request
 *                                                                URL, the exact bytes the service answered for it
 *   node --import tsx bench/baselines.ts redis PORT REDIS_URL    the small constant after one Redis round trip: the
 *                                                                MGET of three keys a cheap read's gate makes, through
 *                                                                the service's own ioredis client (createRedis)
 *
 * FILE is JSON {"<path?query>": "<base64 body>"} written by the runner from real 20-node bundles, so the
 * same-bytes baseline is asked the very URLs the repeated-bundle run asks and sends the same bodies.
 * GET /ready answers 200 in every mode. The third is a diagnostic, not a target's baseline: it shows how much
 * of the gap between the service and bare Koa is the one Redis round trip the design requires per request.
 */
import { readFileSync } from 'node:fs';
import Koa from 'koa';
import { createRedis } from '../src/infra/redis.js';

// The third argument is the bytes FILE or the REDIS_URL, by mode.
const [mode, portArg, source] = process.argv.slice(2);
const port = Number(portArg);
if (!['constant', 'bytes', 'redis'].includes(mode) || !Number.isInteger(port) || (mode !== 'constant' && !source)) {
  console.error('usage: baselines.ts constant PORT | baselines.ts bytes PORT FILE | baselines.ts redis PORT REDIS_URL');
  process.exit(2);
}

const constant = Buffer.from('{"ok":true}');
const bodies = new Map<string, Buffer>();
if (mode === 'bytes') {
  for (const [url, b64] of Object.entries(JSON.parse(readFileSync(source, 'utf8')) as Record<string, string>)) bodies.set(url, Buffer.from(b64, 'base64'));
}

const redis = mode === 'redis' ? createRedis(source) : undefined;
await redis?.connect();
const gateKeys = ['bench:auth-epoch', 'bench:revoked', 'bench:generation'];

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.path === '/ready') {
    ctx.body = 'ok';
    return;
  }
  if (redis) await redis.mget(...gateKeys);
  const body = mode === 'bytes' ? bodies.get(ctx.url) : constant;
  if (!body) {
    ctx.status = 404;
    return;
  }
  ctx.type = 'application/json';
  ctx.body = body;
});
const server = app.listen(port, '127.0.0.1');
const stop = () => {
  redis?.disconnect();
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
