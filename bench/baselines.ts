/**
 * The ceilings the API is compared with, each run by bench/stack.ts as a process of its own:
 *
 *   node --import tsx bench/baselines.ts PORT          bare Koa answering a small constant
 *   node --import tsx bench/baselines.ts PORT FILE     bare Koa answering each request URL with the exact bytes the
 *                                                      API answered for it (FILE: JSON {"<path?query>": "<base64>"})
 *
 * GET /ready answers 200 in both.
 */
import { readFileSync } from 'node:fs';
import Koa from 'koa';

const [port, bytesFile] = process.argv.slice(2);
const constant = Buffer.from('{"ok":true}');
const bodies = new Map<string, Buffer>(
  Object.entries(bytesFile ? (JSON.parse(readFileSync(bytesFile, 'utf8')) as Record<string, string>) : {}).map(([url, b64]) => [url, Buffer.from(b64, 'base64')]),
);

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.path === '/ready') {
    ctx.body = 'ok';
    return;
  }
  const body = bytesFile ? bodies.get(ctx.url) : constant;
  if (!body) return; // 404
  ctx.type = 'application/json';
  ctx.body = body;
});
const server = app.listen(Number(port), '127.0.0.1');
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
