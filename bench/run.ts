/**
 * `npm run bench`: the retrieval benchmark of issue 10. `npm run bench -- --help` lists the options;
 * bench/README.md says what each file does, bench/RESULTS.md how the figures are taken and read.
 *
 * The run, in order: start Neo4j and Redis (stack.ts); load or reuse one workspace per size (workspaces.ts);
 * start the API of the checkout under test twice, cache off and cache on (api-checkout.ts), and the bare Koa
 * baselines the chosen scenarios need; then, per size and client count, measure every chosen scenario in
 * rounds (rounds.ts); measure the uncached bundle once more with the sizes interleaved; judge the targets
 * (targets.ts), print the final table and write bench/results/<stamp>.json and .md (report.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/infra/project-root.js';
import { prepareApiCheckout } from './api-checkout.js';
import { type FirstRequest, captureBundles, firstRequests, issueKey } from './api-client.js';
import { type Options, parseOptions } from './cli.js';
import { benchReports } from './reports.js';
import { TARGET_COST, auditTable, runAuditBench } from './audit.js';
import { checkMcpBundles, stdioRoundTrip } from './mcp.js';
import type { Proc } from './deps.js';
import { DATABASE, profileBundle, rankBundleQuery, rankParams } from './floor.js';
import { applyMigrations } from './generate.js';
import { type HttpRequestSpec, type Stats, driverLoad, httpLoad, summariseRuns } from './load.js';
import { describeRevision, loadAverage, machine, revision } from './machine.js';
import { cpuTable, fmt, kb, mb, ratioTable, runLine, scalingLine, sizeLabel, sizeTable, verdictTable, writeResults } from './report.js';
import { type Job, type ScalingRun, type SizeResult, measureInRounds } from './rounds.js';
import { type RequestList, type Scenario, type Server, def, runsAt } from './scenarios.js';
import { type BaselineServer, Stack } from './stack.js';
import { evaluate } from './targets.js';
import { type LoadedWorkspace, ensureWorkspace, paths, requestLists } from './workspaces.js';
import { TARGET_MS, runWrites, writeTable } from './writes.js';
import { TARGETS as WRITE_TARGETS, runWriteThroughput, writeThroughputTable } from './write-throughput.js';
import { importTable, runImportBench } from './import.js';

async function main(): Promise<void> {
  const opts: Options = parseOptions();
  if (opts.reports) return benchReports(opts);
  const started = new Date();
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const resultsDir = path.join(projectRoot, 'bench', 'results');
  const logDir = path.join(opts.dataDir, 'logs', stamp);
  const profDir = opts.cpuProf ? path.join(resultsDir, `${stamp}-cpuprof`) : undefined;
  mkdirSync(resultsDir, { recursive: true });
  if (opts.writeStalls) return writeStallsOnly(opts, { started, stamp, resultsDir, logDir });
  if (opts.writes) return writeThroughputOnly(opts, { started, stamp, resultsDir, logDir });
  if (opts.import) return importOnly(opts, { started, stamp, resultsDir, logDir });
  if (opts.audit) return auditOnly(opts, { started, stamp, resultsDir, logDir });
  const stack = new Stack({ portFrom: opts.portFrom, logDir });
  process.once('SIGINT', () => void stack.stopAll().then(() => process.exit(130)));
  process.once('SIGTERM', () => void stack.stopAll().then(() => process.exit(143)));

  const machineInfo = machine();
  console.log(`bench: sizes ${opts.sizes.join(',')}; clients ${opts.clients.join(',')}; ${opts.durationS} s per measurement (${opts.rounds} rounds) after ${opts.warmupS} s warm-up`);
  console.log(`scenarios: ${opts.scenarios.join(', ')}${opts.diagnostics ? ' (+ diagnostics: first requests, raw driver against size)' : ''}`);
  console.log(`machine: ${machineInfo.nproc} CPUs (${machineInfo.cpuModel}), ${machineInfo.memoryGiB} GiB, node ${machineInfo.node}, load average ${machineInfo.loadAverageAtStart.join(' ')}`);

  try {
    const checkout = prepareApiCheckout(opts.apiDir, opts.build);
    const harness = revision(projectRoot);
    console.log(`API under test: ${checkout.dir} at ${describeRevision(checkout.revision)}${checkout.isHarness ? '' : `; harness ${projectRoot} at ${describeRevision(harness)}`}`);

    const { driver, neo4jVersion } = await stack.startStores({ dataDir: opts.dataDir, heap: opts.neo4jHeap, pageCacheMb: opts.pageCacheMb });
    console.log(`neo4j ${neo4jVersion} ${stack.neo4j!.url} (heap ${opts.neo4jHeap}, page cache ${opts.pageCacheMb} MB), redis ${stack.redis!.url}`);
    await applyMigrations(driver, DATABASE);
    const workspaces = new Map<number, LoadedWorkspace>();
    for (const size of opts.sizes) {
      const w = await ensureWorkspace(driver, { dataDir: opts.dataDir, seed: opts.seed, size });
      workspaces.set(size, w);
      console.log(`  ${size} nodes: workspace ${w.ws.workspaceId} ${w.reused ? '(reused)' : `(loaded in ${w.loadSeconds} s)`}`);
    }
    const query = await rankBundleQuery(checkout.dir);

    // ---- the API, twice; keys through the admin API of the first
    const adminToken = randomBytes(24).toString('hex');
    const apiOpts = { checkout, adminToken, dataDir: opts.dataDir, cpuProfDir: profDir };
    const apiOff = await stack.startApi('api-cache-off', apiOpts);
    const keys = new Map<number, string>();
    for (const [size, { ws }] of workspaces) keys.set(size, await issueKey(apiOff.url, adminToken, ws, `bench ${stamp}`));

    // Before anything else reaches Neo4j: its plan cache holds only what the API's start-up put there.
    // The largest size, whose plans are made last.
    let firstAfterStart: FirstRequest[] | undefined;
    if (opts.diagnostics) {
      const largest = opts.sizes[opts.sizes.length - 1];
      firstAfterStart = await firstRequests(apiOff.url, paths(workspaces.get(largest)!.ws), keys.get(largest)!);
      console.log(`first requests after a start (ms, first / again): ${firstAfterStart.map((f) => `${f.request} ${fmt(f.firstMs, 1)} / ${fmt(f.againMs, 1)}`).join('; ')}`);
    }
    const apiOn = await stack.startApi('api-cache-on', apiOpts);
    stack.sampler.start();
    console.log(`API cache off ${apiOff.url} (pid ${apiOff.pid}), cache on ${apiOn.url} (pid ${apiOn.pid})`);

    // ---- the baselines the chosen scenarios need; those answering the service's bytes are started per size
    const needed = new Set<Server>(opts.scenarios.map((s) => def(s).server));
    const servers = new Map<Server, Proc>([['api-cache-off', apiOff], ['api-cache-on', apiOn]]);
    for (const b of ['bare-koa-constant', 'bare-koa-constant-2', 'bare-koa-redis'] as const) if (needed.has(b)) servers.set(b, await stack.startBaseline(b));
    const perSizeBaselines = (['bare-koa-bytes', 'bare-koa-redis-bytes'] as const).filter((b) => needed.has(b));

    const jobFor = (sc: Scenario, clients: number, lists: Record<RequestList, HttpRequestSpec[]>, params: Record<string, unknown>[]): Job<Scenario> => {
      const d = def(sc);
      if (d.server === 'driver') return { key: sc, run: (w) => driverLoad({ driver, database: DATABASE, query, params, clients, ...w }) };
      const proc = servers.get(d.server)!;
      return { key: sc, proc: proc.name, run: (w) => httpLoad({ baseUrl: proc.url, requests: lists[d.requests], clients, ...w }) };
    };
    const meters = { meter: stack.meter, sampler: stack.sampler };
    const results: SizeResult[] = [];
    const t0 = performance.now();

    for (const size of opts.sizes) {
      const { ws, reused, loadSeconds } = workspaces.get(size)!;
      const key = keys.get(size)!;
      const p = paths(ws);
      const captured = await captureBundles(apiOn.url, p, key);
      const bytesFile = path.join(opts.dataDir, `bundle-bytes-${size}.json`);
      writeFileSync(bytesFile, JSON.stringify(captured.bodies));
      const sizeProcs: Proc[] = [];
      for (const b of perSizeBaselines) {
        const proc = await stack.startBaseline(b as BaselineServer, bytesFile);
        servers.set(b, proc);
        sizeProcs.push(proc);
      }
      const params = rankParams(ws);
      const profile = await profileBundle(driver, query, params);
      const n = captured.lengths.length;
      const result: SizeResult = {
        nodes: size,
        workspaceId: ws.workspaceId,
        reused,
        loadSeconds,
        bundleBytes: { min: Math.min(...captured.lengths), mean: Math.round(captured.lengths.reduce((a, b) => a + b, 0) / n), max: Math.max(...captured.lengths) },
        profile,
        runs: [],
      };
      results.push(result);
      console.log(
        `\n== ${sizeLabel(size)} nodes: workspace ${ws.workspaceId}; bundles ${kb(result.bundleBytes.min)}-${kb(result.bundleBytes.max)}; ` +
          `PROFILE: ${profile.rankedCountMean} candidates, ${profile.dbHitsMean} db hits, ${profile.serverMsMean} ms server time per bundle`,
      );
      const lists = requestLists(p, key, captured.etags);
      if (opts.scenarios.includes('mcp-bundle-repeated')) await checkMcpBundles(apiOn.url, lists['mcp-bundle']);
      for (const clients of opts.clients) {
        const jobs = opts.scenarios.filter((sc) => runsAt(sc, clients)).map((sc) => jobFor(sc, clients, lists, params));
        const measured = await measureInRounds(jobs, opts, meters);
        for (const [scenario, m] of measured) {
          const run = { scenario, clients, ...m };
          result.runs.push(run);
          console.log(runLine(run));
        }
      }
      for (const proc of sizeProcs) await stack.stop(proc);
    }

    // ---- cost against graph size: the per-size tables were taken minutes apart on a machine whose load
    // changes, so the uncached bundle is measured again at 1 client with the sizes interleaved round by round.
    let scaling: ScalingRun[] | undefined;
    if (opts.sizes.length > 1 && opts.scenarios.includes('bundle-uncached')) {
      console.log('\n== cost against graph size: 1 client, sizes interleaved');
      const scenarios: Scenario[] = opts.diagnostics ? ['bundle-uncached', 'raw-driver'] : ['bundle-uncached'];
      const jobs = opts.sizes.flatMap((size) => {
        const lists = requestLists(paths(workspaces.get(size)!.ws), keys.get(size)!, []);
        const params = rankParams(workspaces.get(size)!.ws);
        return scenarios.map((sc) => ({ ...jobFor(sc, 1, lists, params), key: `${sc}|${size}` }));
      });
      const measured = await measureInRounds(jobs, opts, meters);
      scaling = [...measured].map(([k, m]) => {
        const [scenario, size] = k.split('|');
        return { scenario: scenario as Scenario, nodes: Number(size), ...m };
      });
      for (const r of scaling) console.log(scalingLine(r));
    }
    // ---- the stdio proxy's round trip (issue 29): one agent, one call at a time, on the largest workspace
    let stdio: { nodes: number; stats: Stats } | undefined;
    if (opts.scenarios.includes('mcp-bundle-repeated')) {
      const largest = opts.sizes[opts.sizes.length - 1];
      const { ws } = workspaces.get(largest)!;
      const run = await stdioRoundTrip({ checkoutDir: checkout.dir, apiUrl: apiOn.url, key: keys.get(largest)!, workspaceId: ws.workspaceId, playbookIds: ws.playbookIds, calls: 400, warmup: 40 });
      if (run) {
        stdio = { nodes: largest, stats: summariseRuns([run]) };
        console.log(`\n== MCP over stdio (playbooks-mcp → API cache on), ${sizeLabel(largest)} nodes, 1 client: ${stdioLine(stdio.stats)}`);
      } else console.log('\n== MCP over stdio: the checkout under test has no dist/src/mcp/stdio.js; not measured');
    }
    const measureSeconds = Math.round((performance.now() - t0) / 1000);

    // ---- verdicts and reports
    const peaks = stack.sampler.peaks();
    const ev = evaluate(results, scaling, Math.max(peaks[apiOff.name] ?? 0, peaks[apiOn.name] ?? 0), opts.clients);
    const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
    const out: string[] = [];
    for (const r of results) {
      out.push('', `== ${sizeLabel(r.nodes)} nodes (bundle ${kb(r.bundleBytes.mean)} mean; ${r.profile.rankedCountMean} candidates; ${r.profile.dbHitsMean} db hits per bundle)`);
      out.push(...sizeTable(r, opts.clients, false));
    }
    if (stdio) out.push('', `MCP over stdio, ${sizeLabel(stdio.nodes)} nodes, 1 client: ${stdioLine(stdio.stats)}`);
    out.push('', `peak RSS: ${Object.entries(peaks).map(([name, b]) => `${name} ${mb(b)}`).join(', ')}`);
    out.push('', `== targets (API ${describeRevision(checkout.revision)}${checkout.isHarness ? '' : ` from ${checkout.dir}`})`, ...verdictTable(ev, false));
    console.log(out.join('\n'));

    const md: string[] = [
      `API under test: ${checkout.isHarness ? 'this checkout' : `\`${checkout.dir}\``}, revision ${describeRevision(checkout.revision)}.`,
      `Command: \`${command}\` (${opts.durationS} s per measurement in ${opts.rounds} rounds, after ${opts.warmupS} s warm-up), started ${started.toISOString()}.`,
      `Machine: ${machineInfo.nproc} CPUs (${machineInfo.cpuModel}), ${machineInfo.memoryGiB} GiB, Node ${machineInfo.node}, ${machineInfo.java}, Neo4j ${neo4jVersion}, ${machineInfo.redis}.`,
      '',
      '### Targets',
      '',
      ...verdictTable(ev, true),
      '',
    ];
    for (const r of results) {
      md.push(`### ${sizeLabel(r.nodes)} nodes`, '', `Bundle ${kb(r.bundleBytes.min)}–${kb(r.bundleBytes.max)} (mean ${kb(r.bundleBytes.mean)}); PROFILE of rank-bundle.cypher: ${r.profile.rankedCountMean} candidates ranked, ${r.profile.dbHitsMean} db hits, ${r.profile.serverMsMean} ms in Neo4j per bundle (mean over the playbooks).`, '');
      md.push(...sizeTable(r, opts.clients, true), '', ...cpuTable(r, opts.clients), '');
    }
    if (scaling) {
      md.push('### Cost against graph size (1 client, sizes interleaved round by round)', '', '| scenario | nodes | p50 / p95 / p99 ms | req/s |', '|---|---|---|---:|');
      for (const r of scaling) md.push(`| ${def(r.scenario).label} | ${sizeLabel(r.nodes)} | ${fmt(r.stats.p50, 2)} / ${fmt(r.stats.p95, 2)} / ${fmt(r.stats.p99, 2)} | ${fmt(r.stats.rps, 0)} |`);
      md.push('');
    }
    if (stdio) md.push('### MCP over stdio', '', `\`playbooks-mcp\` (the checkout's stdio proxy) driven by the MCP SDK's Client, calling the API with the cache on; get_bundle one call at a time on the ${sizeLabel(stdio.nodes)}-node workspace: ${stdioLine(stdio.stats)}.`, '');
    if (firstAfterStart) md.push('### First requests after a start', '', '| request | first ms | again ms |', '|---|---:|---:|', ...firstAfterStart.map((f) => `| ${f.request} | ${fmt(f.firstMs, 1)} | ${fmt(f.againMs, 1)} |`), '');
    md.push('### Every ratio', '', ...ratioTable(ev.ratios), '', `Peak RSS: ${Object.entries(peaks).map(([name, b]) => `${name} ${mb(b)}`).join(', ')}.`);

    const json = {
      startedAt: started.toISOString(),
      finishedAt: new Date().toISOString(),
      command,
      apiDir: checkout.dir,
      revision: checkout.revision,
      harnessRevision: harness,
      options: opts,
      machine: { ...machineInfo, neo4j: `${neo4jVersion} embedded (heap ${opts.neo4jHeap}, page cache ${opts.pageCacheMb} MB)`, loadAverageAtEnd: loadAverage() },
      measureSeconds,
      targets: ev.verdicts,
      control: ev.control,
      ratios: ev.ratios,
      sizes: results,
      scaling,
      firstAfterStart,
      stdio,
      rssPeakBytes: peaks,
      cpuProfiles: profDir,
    };
    const jsonFile = writeResults(resultsDir, stamp, json, md);
    console.log(`\nwrote ${path.relative(projectRoot, jsonFile)} and .md (measurements took ${measureSeconds} s)`);
  } finally {
    await stack.stopAll();
    if (profDir) console.log(`CPU profiles of the API processes in ${path.relative(projectRoot, profDir)}`);
  }
}

const stdioLine = (s: Stats) => `${s.requests} calls, p50 ${fmt(s.p50, 2)} ms, p95 ${fmt(s.p95, 2)} ms, ${fmt(s.rps, 0)} calls/s${s.errors ? `, ${s.errors} errors` : ''}`;

/**
 * A single-purpose run (--write-stalls, --writes, --import, --audit): prints the machine and the API under test, measures, prints the
 * table, and writes the JSON and markdown results beside the other runs'.
 */
async function singleRun<R>(
  opts: Options,
  run: { started: Date; stamp: string; resultsDir: string; logDir: string },
  o: { banner: string; heading: string; key: string; measure: (checkout: ReturnType<typeof prepareApiCheckout>) => Promise<R>; table: (result: R, markdown: boolean) => string[]; extra?: object },
): Promise<void> {
  const machineInfo = machine();
  console.log(o.banner);
  console.log(`machine: ${machineInfo.nproc} CPUs (${machineInfo.cpuModel}), ${machineInfo.memoryGiB} GiB, node ${machineInfo.node}, load average ${machineInfo.loadAverageAtStart.join(' ')}`);
  const checkout = prepareApiCheckout(opts.apiDir, opts.build);
  console.log(`API under test: ${checkout.dir} at ${describeRevision(checkout.revision)}`);
  const result = await o.measure(checkout);
  const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
  console.log(['', `== ${o.heading}`, ...o.table(result, false)].join('\n'));
  const md = [
    `API under test: ${checkout.isHarness ? 'this checkout' : `\`${checkout.dir}\``}, revision ${describeRevision(checkout.revision)}.`,
    `Command: \`${command}\`, started ${run.started.toISOString()}.`,
    `Machine: ${machineInfo.nproc} CPUs (${machineInfo.cpuModel}), ${machineInfo.memoryGiB} GiB, Node ${machineInfo.node}; load average ${machineInfo.loadAverageAtStart.join(' ')} at the start, ${loadAverage().join(' ')} at the end.`,
    '',
    `### ${o.heading[0].toUpperCase()}${o.heading.slice(1)}`,
    '',
    ...o.table(result, true),
  ];
  const json = { startedAt: run.started.toISOString(), finishedAt: new Date().toISOString(), command, apiDir: checkout.dir, revision: checkout.revision, machine: { ...machineInfo, loadAverageAtEnd: loadAverage() }, ...o.extra, [o.key]: result };
  const jsonFile = writeResults(run.resultsDir, run.stamp, json, md);
  console.log(`\nwrote ${path.relative(projectRoot, jsonFile)} and .md`);
}

/** `--write-stalls`: the event-loop delay while the worst case of each bound of issue 28 is written (writes.ts). */
async function writeStallsOnly(opts: Options, run: { started: Date; stamp: string; resultsDir: string; logDir: string }): Promise<void> {
  const cpuProfDir = opts.cpuProf ? path.join(run.resultsDir, `${run.stamp}-cpuprof`) : undefined;
  await singleRun(opts, run, {
    banner: `bench --write-stalls: the longest event-loop delay of the API while each bound's worst case is written (target < ${TARGET_MS} ms)`,
    heading: 'event-loop delay while writing',
    key: 'writes',
    extra: { targetMs: TARGET_MS },
    measure: async (checkout) => {
      const results = await runWrites({ portFrom: opts.portFrom, dataDir: opts.dataDir, logDir: run.logDir, heap: opts.neo4jHeap, checkout, cpuProfDir });
      if (cpuProfDir) console.log(`CPU profile of the API process in ${path.relative(projectRoot, cpuProfDir)}`);
      console.log(`${results.filter((r) => r.eventLoopMaxMs < TARGET_MS).length} of ${results.length} under ${TARGET_MS} ms`);
      return results;
    },
    table: writeTable,
  });
}

/** `--writes`: writes/s into one workspace through the API, beside the same statements by the raw driver, and the audit's cost (write-throughput.ts). */
async function writeThroughputOnly(opts: Options, run: { started: Date; stamp: string; resultsDir: string; logDir: string }): Promise<void> {
  const cpuProfDir = opts.cpuProf ? path.join(run.resultsDir, `${run.stamp}-cpuprof`) : undefined;
  await singleRun(opts, run, {
    banner: `bench --writes: single writes into one workspace at 16 and 64 clients, through the API and by the raw driver (targets: node creates >= ${WRITE_TARGETS.nodesPerS}/s and >= ${WRITE_TARGETS.ofFloor} x the floor at 16 clients, audit+outbox cost < ${WRITE_TARGETS.auditCost * 100} %)`,
    heading: 'write throughput into one workspace',
    key: 'writeThroughput',
    extra: { targets: WRITE_TARGETS },
    measure: async (checkout) => {
      const result = await runWriteThroughput({
        portFrom: opts.portFrom, dataDir: opts.dataDir, logDir: run.logDir, heap: opts.neo4jHeap, checkout, durationS: opts.durationS, warmupS: opts.warmupS, rounds: opts.rounds, cpuProfDir,
      });
      if (cpuProfDir) console.log(`CPU profile of the API process in ${path.relative(projectRoot, cpuProfDir)}`);
      return result;
    },
    table: writeThroughputTable,
  });
}

/** `--import`: a generated vault through the folder import, beside the single-POST rate (import.ts). */
async function importOnly(opts: Options, run: { started: Date; stamp: string; resultsDir: string; logDir: string }): Promise<void> {
  await singleRun(opts, run, {
    banner: `bench --import: ${opts.importFiles} markdown files through the folder import, beside single POSTs`,
    heading: 'bulk import',
    key: 'import',
    measure: (checkout) => runImportBench({
      portFrom: opts.portFrom, dataDir: opts.dataDir, logDir: run.logDir, heap: opts.neo4jHeap, checkout, files: opts.importFiles,
      cpuProfDir: opts.cpuProf ? path.join(run.resultsDir, `${run.stamp}-cpuprof`) : undefined,
    }),
    table: importTable,
  });
}

/** `--audit`: the write path without and with the audit log and the webhook outbox; deliveries/s (audit.ts). */
async function auditOnly(opts: Options, run: { started: Date; stamp: string; resultsDir: string; logDir: string }): Promise<void> {
  await singleRun(opts, run, {
    banner: `bench --audit: node creation at 16 clients without audit, with audit, with audit and outbox (target: cost < ${TARGET_COST * 100} %)`,
    heading: 'audit log and webhook outbox on the write path',
    key: 'audit',
    extra: { targetCost: TARGET_COST },
    measure: (checkout) => runAuditBench({
      portFrom: opts.portFrom, dataDir: opts.dataDir, logDir: run.logDir, heap: opts.neo4jHeap, checkout, roundSeconds: opts.durationS, rounds: Math.max(2, opts.rounds),
    }),
    table: auditTable,
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
