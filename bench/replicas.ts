/**
 * `npm run bench -- --replicas`: bundles per second through a small round-robin balancer in front of 1, 2 and 3 API
 * processes on one Neo4j and one Redis, with the response cache on (cached) and off (uncached), at the largest
 * --clients. On a machine with fewer cores than processes the figures show what the extra processes and the
 * balancer's hop cost, not a speed-up: every process, Neo4j and Redis share the same cores.
 */
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Checkout } from './checkout.js';
import { httpLoad, measureInRounds } from './load.js';
import type { Options } from './options.js';
import { fmt, table } from './report.js';
import type { Proc, Stack } from './stack.js';
import { ensureWorkspace, issueKey, requestsOf } from './workspaces.js';

const COUNTS = [1, 2, 3] as const;

/** Round robin over `targets`, one keep-alive pool per target, as a balancer in front of replicas does. */
async function balancer(targets: string[]): Promise<{ url: string; close: () => Promise<void> }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const target = new URL(targets[next++ % targets.length]);
    const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      res.statusCode = 502;
      res.end();
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      agent.destroy();
    },
  };
}

export async function runReplicas(o: Options, stack: Stack, checkout: Checkout) {
  await stack.startStores({ dataDir: o.dataDir, heap: o.neo4jHeap, pageCacheMb: o.pageCacheMb });
  const size = o.sizes[0];
  const ws = await ensureWorkspace(stack.graph, { dataDir: o.dataDir, seed: o.seed, size });
  const adminToken = randomBytes(24).toString('hex');
  const clients = Math.max(...o.clients);
  const rows: string[][] = [];
  const results: { cache: string; processes: number; rps: number; p50: number; p95: number; status: Record<string, number> }[] = [];
  for (const cache of ['off', 'on'] as const) {
    const procs: Proc[] = [];
    for (const n of COUNTS) procs.push(await stack.startApi(`api-cache-${cache}-${n}`, { checkout, adminToken, dataDir: o.dataDir, env: { BUNDLE_CACHE: cache } }));
    const key = await issueKey(procs[0].url, adminToken, ws, `bench replicas ${o.stamp}`);
    const { bundle } = await requestsOf(procs[0].url, ws, key);
    console.log(`\n== bundle ${cache === 'on' ? 'cached' : 'uncached'}, ${size} nodes, ${clients} clients, through the balancer`);
    for (const n of COUNTS) {
      const front = await balancer(procs.slice(0, n).map((p) => p.url));
      try {
        const measured = await measureInRounds([{ key: n, run: (w) => httpLoad({ baseUrl: front.url, requests: bundle, clients, ...w }) }], o, stack.meter);
        const { stats } = measured.get(n)!;
        results.push({ cache, processes: n, rps: stats.rps, p50: stats.p50, p95: stats.p95, status: stats.status });
        rows.push([cache === 'on' ? 'cached' : 'uncached', String(n), fmt(stats.rps, 0), fmt(stats.p50, 2), fmt(stats.p95, 2), Object.entries(stats.status).map(([s, c]) => `${c}×${s}`).join(' ')]);
        console.log(`  ${n} process${n > 1 ? 'es' : ''}: ${fmt(stats.rps, 0)} req/s, p50 ${fmt(stats.p50, 2)} ms, p95 ${fmt(stats.p95, 2)} ms`);
      } finally {
        await front.close();
      }
    }
    for (const p of procs) await stack.stop(p);
  }
  const out = (markdown: boolean) => table(['bundle', 'API processes', 'req/s', 'p50 ms', 'p95 ms', 'answers'], rows, markdown, 'lrrrrl');
  const note = 'Every process, Neo4j, Redis, the balancer and the load share this machine\'s cores: more processes show their overhead here, not a speed-up.';
  console.log(['', `== API processes behind a round-robin balancer (${size} nodes, ${clients} clients)`, ...out(false), '', note].join('\n'));
  return { md: ['', `### API processes behind a round-robin balancer (${size} nodes, ${clients} clients)`, '', ...out(true), '', note], json: { size, clients, replicas: results } };
}
