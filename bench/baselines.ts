/**
 * The ceilings the service is compared with, each run by bench/run.ts as its own OS process:
 *
 *   node --import tsx bench/baselines.ts constant PORT           a bare Koa handler answering a small constant
 *   node --import tsx bench/baselines.ts bytes PORT FILE         a bare Koa handler answering, for each request
 *                                                                URL, the exact bytes the service answered for it
 *   node --import tsx bench/baselines.ts redis PORT REDIS_URL    the small constant after one Redis round trip: the
 *                                                                MGET of three keys a cheap read's gate makes, through
 *                                                                the service's own client and coalescing (createRedis,
 *                                                                perTurn: one MGET per event-loop turn)
 *   node --import tsx bench/baselines.ts redis-bytes PORT FILE REDIS_URL   the same bytes after that same round trip
 *
 * FILE is JSON {"<path?query>": "<base64 body>"} written by the runner from real 20-node bundles, so the
 * same-bytes baseline is asked the very URLs the repeated-bundle run asks and sends the same bodies.
 * GET /ready answers 200 in every mode. The redis modes are diagnostics, not a target's baselines: they show how
 * much of the gap between the service and bare Koa is the one Redis round trip the design requires per request,
 * i.e. the best a service that does nothing but that round trip could reach.
 */
import { readFileSync } from 'node:fs';
import Koa from 'koa';
import DataLoader from 'dataloader';
import { createRedis } from '../src/infra/redis.js';

const usage = 'usage: baselines.ts constant PORT | bytes PORT FILE | redis PORT REDIS_URL | redis-bytes PORT FILE REDIS_URL';
const [mode, portArg, ...rest] = process.argv.slice(2);
const port = Number(portArg);
const arity: Record<string, number> = { constant: 0, bytes: 1, redis: 1, 'redis-bytes': 2 };
if (!(mode in arity) || !Number.isInteger(port) || rest.length !== arity[mode]) {
  console.error(usage);
  process.exit(2);
}
const bytesFile = mode === 'bytes' || mode === 'redis-bytes' ? rest[0] : undefined;
const redisUrl = mode === 'redis' ? rest[0] : mode === 'redis-bytes' ? rest[1] : undefined;

const constant = Buffer.from('{"ok":true}');
const bodies = new Map<string, Buffer>();
if (bytesFile) {
  for (const [url, b64] of Object.entries(JSON.parse(readFileSync(bytesFile, 'utf8')) as Record<string, string>)) bodies.set(url, Buffer.from(b64, 'base64'));
}

const redis = redisUrl ? createRedis(redisUrl) : undefined;
await redis?.connect();
// One read per request, one MGET per event-loop turn, as the service's auth snapshot reads them: the epoch and,
// once each, the (here: one) key's revoked mark and the (one) workspace's generation.
const gateKeys = ['bench:auth-epoch', 'bench:revoked', 'bench:generation'];
const loader = new DataLoader<number, boolean>(
  async (requests) => {
    await redis!.mget(gateKeys);
    return requests.map(() => true);
  },
  { cache: false, batchScheduleFn: (dispatch) => setImmediate(dispatch) },
);
const gate = (request: number) => loader.load(request);

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.path === '/ready') {
    ctx.body = 'ok';
    return;
  }
  if (redis) await gate(0);
  const body = bytesFile ? bodies.get(ctx.url) : constant;
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
