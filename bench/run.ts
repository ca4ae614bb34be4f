/**
 * `npm run bench`: the API against its baselines, ending with one table of the targets (targets.ts). `--writes`,
 * `--write-stalls`, `--import`, `--reports`, `--shell`, `--replicas`, `--quality` and `--retrieval-latency` measure other things instead. bench/README.md lists the files, bench/RESULTS.md says
 * how to read them.
 *
 * The default run, in order: Neo4j and Redis (stack.ts); one generated workspace per size (workspaces.ts); the
 * API of the checkout under test twice, cache off and cache on, and the bare Koa baselines; then, per size and
 * client count, every scenario in rounds (load.ts); the uncached bundle once more with the sizes interleaved; the
 * verdicts, printed and written to bench/results/<stamp>.json and .md.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import neo4j, { type Driver, type ProfiledPlan } from 'neo4j-driver';
import { projectRoot } from '../src/infra/project-root.js';
import type { RetrievalRepository } from '../src/retrieval/repository.js';
import { type Checkout, machine, prepareCheckout, sentText } from './checkout.js';
import { type Options, parseOptions } from './options.js';
import { type Job, type Stats, concurrentLoad, httpLoad, measureInRounds } from './load.js';
import { fmt, mb, runLine, sizeLabel, sizeTable, verdictTable, writeResults } from './report.js';
import { DATABASE, type Proc, Stack } from './stack.js';
import { CLIENTS_304, type Scenario, type SizeResult, def, evaluate } from './targets.js';
import { type GeneratedWorkspace } from './generate.js';
import { BUNDLE, type Requests, ensureWorkspace, firstRequests, issueKey, requestsOf } from './workspaces.js';
import { runImport } from './import.js';
import { runQuality } from './quality.js';
import { runQueryLatency } from './query-latency.js';
import { runReplicas } from './replicas.js';
import { runReports } from './reports.js';
import { runShell } from './shell.js';
import { runStalls } from './stalls.js';
import { runWrites } from './writes.js';
import { runCrowdedName } from './crowded-name.js';

/** The parameters the service gives rank-bundle for the bundle every scenario asks, with the owner's user key. */
const rankParams = (ws: GeneratedWorkspace): Parameters<RetrievalRepository['rank']>[0][] =>
  ws.playbookIds.map((playbookId) => ({ workspaceId: ws.workspaceId, playbookId, ...BUNDLE, changedSince: null, withContent: true, includeAnnotations: true, principalId: ws.ownerUserId }));

/**
 * The floor's call: the statement run as GraphExecutor.read runs it (an auto-commit read in a session sharing
 * executeQuery's bookmark manager, records turned into objects), so that the ratio compares the service with the
 * very driver calls it makes.
 */
async function floorRead(driver: Driver, query: string, params: object): Promise<void> {
  const session = driver.session({ database: DATABASE, defaultAccessMode: neo4j.session.READ, bookmarkManager: driver.executeQueryBookmarkManager });
  try {
    (await session.run(query, params)).records.map((r) => r.toObject());
  } finally {
    await session.close();
  }
}

/** PROFILE of the floor's statement once per playbook: candidates ranked and db hits, means per bundle. */
async function profile(driver: Driver, query: string, params: object[]): Promise<SizeResult['profile']> {
  const hits = (p: ProfiledPlan): number => p.dbHits + p.children.reduce((s, c) => s + hits(c), 0);
  let ranked = 0;
  let dbHits = 0;
  for (const p of params) {
    const r = await driver.executeQuery(`PROFILE ${query}`, p, { database: DATABASE });
    ranked += Number(r.records[0]?.get('rankedCount') ?? 0);
    dbHits += r.summary.profile ? hits(r.summary.profile) : 0;
  }
  return { ranked: Math.round(ranked / params.length), dbHits: Math.round(dbHits / params.length) };
}

async function defaultRun(o: Options, stack: Stack, checkout: Checkout): Promise<object> {
  await stack.startStores({ dataDir: o.dataDir, heap: o.neo4jHeap, pageCacheMb: o.pageCacheMb });
  const workspaces = new Map<number, GeneratedWorkspace>();
  for (const size of o.sizes) {
    const ws = await ensureWorkspace(stack.graph, { dataDir: o.dataDir, seed: o.seed, size });
    console.log(`  ${size} nodes: workspace ${ws.workspaceId}${ws.reused ? ' (reused)' : ''}`);
    workspaces.set(size, ws);
  }
  const query = await sentText(checkout, 'retrieval/rank-bundle');
  const adminToken = randomBytes(24).toString('hex');
  const api = { checkout, adminToken, dataDir: o.dataDir, cpuProfDir: o.cpuProfDir };
  const servers = new Map<string, Proc>();
  servers.set('api-cache-off', await stack.startApi('api-cache-off', { ...api, env: { BUNDLE_CACHE: 'off' } }));
  servers.set('api-cache-on', await stack.startApi('api-cache-on', { ...api, env: { BUNDLE_CACHE: 'on' } }));
  for (const b of ['bare-koa-constant', 'bare-koa-constant-2'] as const) if (o.scenarios.some((s) => def(s).server === b)) servers.set(b, await stack.startBaseline(b));
  const keys = new Map<number, string>();
  for (const [size, ws] of workspaces) keys.set(size, await issueKey(servers.get('api-cache-off')!.url, adminToken, ws, `bench ${o.stamp}`));
  const largest = o.sizes[o.sizes.length - 1];
  const first = await firstRequests(servers.get('api-cache-off')!.url, workspaces.get(largest)!, keys.get(largest)!);
  console.log(`first requests after a start, ${sizeLabel(largest)} nodes, cache off (ms, first / again): ${first}`);

  const driver = stack.graph.driver;
  const job = (s: Scenario, clients: number, requests: Requests, params: object[]): Job<Scenario> => {
    const server = def(s).server;
    if (server === 'driver') return { key: s, run: (w) => concurrentLoad({ label: s, clients, work: (i) => floorRead(driver, query, params[i % params.length]), ...w }) };
    const proc = servers.get(server)!;
    return { key: s, proc: proc.name, run: (w) => httpLoad({ baseUrl: proc.url, requests: requests[def(s).requests], clients, ...w }) };
  };
  const results: SizeResult[] = [];
  const requestsBySize = new Map<number, Requests>();
  for (const [size, ws] of workspaces) {
    const requests = await requestsOf(servers.get('api-cache-on')!.url, ws, keys.get(size)!);
    requestsBySize.set(size, requests);
    const bytesFile = path.join(o.dataDir, `answers-${size}.json`);
    writeFileSync(bytesFile, JSON.stringify(requests.answers));
    // The baselines that send the API's own answers, started per size (their answers are that size's).
    const perSize: Proc[] = [];
    for (const b of ['bare-koa-bytes', 'bare-koa-redis'] as const) {
      if (!o.scenarios.some((s) => def(s).server === b)) continue;
      const proc = await stack.startBaseline(b, bytesFile, b === 'bare-koa-redis' ? stack.redisUrl : undefined);
      servers.set(b, proc);
      perSize.push(proc);
    }
    const params = rankParams(ws);
    const result: SizeResult = { nodes: size, workspaceId: ws.workspaceId, bundleBytesMean: Math.round(requests.bundleBytes.reduce((a, b) => a + b, 0) / requests.bundleBytes.length), profile: await profile(driver, query, params), runs: [] };
    results.push(result);
    console.log(`\n== ${sizeLabel(size)} nodes: bundles of ${fmt(result.bundleBytesMean / 1024)} KB; PROFILE: ${result.profile.ranked} candidates, ${result.profile.dbHits} db hits per bundle`);
    for (const clients of o.clients) {
      const jobs = o.scenarios.filter((s) => (def(s).onlyAt ?? clients) === clients).map((s) => job(s, clients, requests, params));
      for (const [scenario, m] of await measureInRounds(jobs, o, stack.meter)) {
        result.runs.push({ scenario, clients, ...m });
        console.log(runLine(result.runs[result.runs.length - 1]));
      }
    }
    for (const proc of perSize) await stack.stop(proc);
  }

  // Cost against size: the per-size tables are minutes apart on a machine whose load changes, so the uncached
  // bundle is measured again at 1 client with the sizes interleaved round by round.
  const scaling = new Map<number, Stats>();
  if (o.sizes.length > 1 && o.scenarios.includes('bundle-uncached')) {
    console.log('\n== cost against size: the uncached bundle at 1 client, sizes interleaved');
    const jobs = o.sizes.map((size) => ({ ...job('bundle-uncached', 1, requestsBySize.get(size)!, []), key: size }));
    for (const [size, m] of await measureInRounds(jobs, o, stack.meter)) {
      scaling.set(size, m.stats);
      console.log(`  ${sizeLabel(size).padStart(5)}  p50 ${fmt(m.stats.p50, 2)}  p95 ${fmt(m.stats.p95, 2)}  p99 ${fmt(m.stats.p99, 2)} ms  ${fmt(m.stats.rps, 0)} req/s`);
    }
  }
  const peaks = stack.meter.peaks();
  const { verdicts, control } = evaluate(results, scaling, Math.max(peaks['api-cache-off'] ?? 0, peaks['api-cache-on'] ?? 0));
  const peakLine = `peak RSS: ${Object.entries(peaks).map(([name, b]) => `${name} ${mb(b)}`).join(', ')}`;
  const out = (markdown: boolean) => [
    ...results.flatMap((r) => ['', `${markdown ? '### ' : '== '}${sizeLabel(r.nodes)} nodes (bundle ${fmt(r.bundleBytesMean / 1024)} KB mean; ${r.profile.ranked} candidates; ${r.profile.dbHits} db hits)`, '', ...sizeTable(r, o.clients, markdown)]),
    '', `First requests after a start, ${sizeLabel(largest)} nodes, cache off (ms, first / again): ${first}.`, '', peakLine, '', `${markdown ? '### ' : '== '}targets (API ${checkout.revision}${checkout.isHarness ? '' : ` from ${checkout.dir}`})`, '', ...verdictTable(verdicts, control, markdown),
  ];
  console.log(out(false).join('\n'));
  return { md: out(true), json: { targets: verdicts, control, firstRequests: first, sizes: results, scaling: Object.fromEntries(scaling), rssPeakBytes: peaks, clients304: CLIENTS_304 } };
}

async function main(): Promise<void> {
  const o = parseOptions();
  const m = machine();
  const stack = new Stack({ portFrom: o.portFrom, logDir: o.logDir });
  try {
    const checkout = prepareCheckout(o.apiDir, o.build);
    const timing = `${o.durationS} s per measurement (${o.rounds} rounds) after ${o.warmupS} s warm-up`;
    console.log(`bench${o.mode ? ` --${o.mode}` : `: sizes ${o.sizes.join(',')}; clients ${o.clients.join(',')}; ${timing}`}${o.mode === 'writes' ? `: ${timing}` : ''}`);
    console.log(`machine: ${m.cpus}, ${m.memoryGiB} GiB, node ${m.node}, ${m.java}, ${m.redis}; load average ${m.loadAverage}`);
    console.log(`API under test: ${checkout.dir} at ${checkout.revision}; logs in ${o.logDir}`);
    const run = o.mode === 'writes' ? runWrites : o.mode === 'import' ? runImport : o.mode === 'reports' ? runReports : o.mode === 'shell' ? runShell : o.mode === 'replicas' ? runReplicas : o.mode === 'write-stalls' ? runStalls : o.mode === 'crowded-name' ? runCrowdedName : o.mode === 'quality' ? runQuality : o.mode === 'retrieval-latency' ? runQueryLatency : defaultRun;
    const { md, json } = (await run(o, stack, checkout)) as { md: string[]; json: object };
    const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
    const head = [`API under test: ${checkout.isHarness ? 'this checkout' : `\`${checkout.dir}\``} at ${checkout.revision}.`, `Command: \`${command}\`, started ${o.started.toISOString()}.`, `Machine: ${m.cpus}, ${m.memoryGiB} GiB, Node ${m.node}, ${m.java}, ${m.redis}; load average ${m.loadAverage} at the start, ${machine().loadAverage} at the end.`];
    const file = writeResults(o.stamp, { command, startedAt: o.started, finishedAt: new Date(), apiDir: checkout.dir, revision: checkout.revision, machine: m, options: o, ...json }, [...head, ...md]);
    console.log(`\nwrote ${file} and .md${o.cpuProfDir ? `; CPU profiles in ${path.relative(projectRoot, o.cpuProfDir)}` : ''}`);
  } finally {
    await stack.stopAll();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
