/**
 * `npm run bench`: the retrieval benchmark of issue 10.
 *
 * Starts its own Neo4j (embedded launcher) and redis-server, loads (or reuses) one workspace per size with
 * bench/generate.ts, builds the API and runs it as two separate OS processes - BUNDLE_CACHE=off (the
 * "uncached" figures: every bundle and manifest runs its Cypher) and the default cache on (the "repeated"
 * figures, graph unchanged) - next to the bare Koa processes (bench/baselines.ts: a small constant, the service's
 * exact bytes, and, as diagnostics at 16 clients, each of those after one Redis round trip and a second constant
 * process as an A/A control), all with the V8 flags `npm start` gives the API, and drives them with
 * autocannon from this process. The floor is rank-bundle.cypher run straight through neo4j-driver, from this
 * process, with the same parameters, concurrency and playbook rotation. Before any load, it times the first
 * retrievals of a freshly started API (what its start-up warm-up leaves Neo4j to plan). Prints a table per size
 * and the issue's ratios, and writes bench/results/<timestamp>.json (and .md).
 *
 *   npm run bench                                   sizes 1k,10k,100k; 1,16,64 clients; 10 s + 2 s warm-up
 *   npm run bench -- --sizes 1000,10000 --quick     shorter (3 s + 1 s)
 *   npm run bench -- --sizes 10000 --clients 16 --scenarios bundle-uncached,raw-driver --cpu-prof
 *
 * Options: --sizes 1000,10000,100000  --clients 1,16,64  --duration 10  --warmup 2  --quick (3 s + 1 s)
 *   --rounds 2  --scenarios a,b (default: all but the opt-in bundle-uncached-noann)  --seed 1
 *   --data-dir bench/.data  --port-from 17900  --neo4j-heap 2g  --page-cache-mb 1024  --no-build  --cpu-prof
 *
 * The database lives in bench/.data/neo4j and is reused: a workspace already loaded for a size (same seed)
 * is not loaded again (100k nodes take 1-2 minutes). Ports 17900 and up.
 *
 * Each measurement is taken in --rounds parts (2): the list of scenarios is gone through once per round, so
 * that a figure and the baseline it is divided by share the same stretches of a shared, noisy machine. Every
 * run also records the CPU time per request of the process under test, of Neo4j and of the load driver, and
 * the share of the machine taken by processes that are not the bench's (`other procs`): CPU per request is
 * the steadier figure when the machine is busy with something else.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Driver, type ProfiledPlan, routing } from 'neo4j-driver';
import { QueryCatalog } from '../src/infra/cypher-files.js';
import { createDriver } from '../src/infra/neo4j.js';
import { serverNodeFlags } from '../src/infra/node-flags.js';
import { projectRoot } from '../src/infra/project-root.js';
import { type CpuDelta, CpuMeter, type Proc, PortPool, RssSampler, startNeo4jOn, startNodeServer, startRedisOn } from './deps.js';
import { type GeneratedWorkspace, applyMigrations, generateWorkspace } from './generate.js';
import { type HttpRequestSpec, type RawRun, type Stats, driverLoad, httpLoad, summariseRuns } from './load.js';

const SCENARIOS = [
  'raw-driver',
  'bundle-uncached',
  'manifest-uncached',
  'bundle-repeated',
  'manifest-repeated',
  'bundle-304',
  'follow-d3',
  'cheap-read',
  'bare-koa-bytes',
  'bare-koa-constant',
  'bare-koa-constant-2',
  'bare-koa-redis',
  'bare-koa-redis-bytes',
  'bundle-uncached-noann',
] as const;
type Scenario = (typeof SCENARIOS)[number];

const LABELS: Record<Scenario, string> = {
  'raw-driver': 'raw driver (rank-bundle.cypher)',
  'bundle-uncached': 'bundle uncached (cache off)',
  'manifest-uncached': 'manifest uncached (cache off)',
  'bundle-repeated': 'bundle repeated (cache on)',
  'manifest-repeated': 'manifest repeated (cache on)',
  'bundle-304': 'bundle If-None-Match → 304',
  'follow-d3': 'follow depth 3',
  'cheap-read': 'cheap read (GET playbook)',
  'bare-koa-bytes': 'bare Koa, same bytes',
  'bare-koa-constant': 'bare Koa, small constant',
  'bare-koa-constant-2': 'bare Koa, constant, 2nd proc.',
  'bare-koa-redis': 'bare Koa + Redis MGET',
  'bare-koa-redis-bytes': 'bare Koa + Redis, same bytes',
  'bundle-uncached-noann': 'bundle uncached, no annotations',
};

/** Diagnostics, run only when named in --scenarios. */
const OPT_IN: Scenario[] = ['bundle-uncached-noann'];

/**
 * The 304 run (issue 10), and the diagnostics beside it, are at this client count only: the bare-Koa-plus-Redis
 * ceilings, and a second bare Koa constant process (an A/A control: how far two identical processes measured in
 * the same run differ, which bounds how precisely any ratio between two processes can be read).
 */
const CLIENTS_304 = 16;
const ONLY_AT_16: Scenario[] = ['bundle-304', 'bare-koa-redis', 'bare-koa-redis-bytes', 'bare-koa-constant-2'];
const DATABASE = 'neo4j';

interface Run {
  scenario: Scenario;
  clients: number;
  stats: Stats;
  /** Peak RSS of the process under test during this measurement (API or baseline), bytes. */
  rssPeak?: number;
  /** CPU used during the measured run (not the warm-up), and per request: `proc` = the process under test. */
  cpu: CpuDelta & { msPerRequest: { proc?: number; neo4j?: number; redis?: number; loadDriver: number } };
}

/** The uncached bundle (and the raw driver) at 1 client, sizes interleaved: cost against graph size. */
interface ScalingRun {
  scenario: Scenario;
  nodes: number;
  stats: Stats;
}

interface SizeResult {
  nodes: number;
  workspaceId: string;
  reused: boolean;
  loadSeconds?: number;
  bundleBytes: { min: number; mean: number; max: number };
  profile: { dbHitsMean: number; rankedCountMean: number; pageCacheMissesTotal: number; serverMsMean: number };
  runs: Run[];
}

function parse() {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1000,10000,100000' },
      clients: { type: 'string', default: '1,16,64' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '2' },
      scenarios: { type: 'string', default: SCENARIOS.filter((x) => !OPT_IN.includes(x)).join(',') },
      seed: { type: 'string', default: '1' },
      'data-dir': { type: 'string', default: path.join(projectRoot, 'bench', '.data') },
      'port-from': { type: 'string', default: '17900' },
      'neo4j-heap': { type: 'string', default: '2g' },
      'page-cache-mb': { type: 'string', default: '1024' },
      'no-build': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(readFileSync(new URL(import.meta.url), 'utf8').split('*/')[0]);
    process.exit(0);
  }
  const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
  const sizes = list(values.sizes!).map(Number);
  const clients = list(values.clients!).map(Number);
  const scenarios = list(values.scenarios!) as Scenario[];
  for (const s of scenarios) if (!SCENARIOS.includes(s)) throw new Error(`unknown scenario ${s}; known: ${SCENARIOS.join(', ')}`);
  if (sizes.some((n) => !Number.isInteger(n) || n < 100)) throw new Error('--sizes: integers >= 100');
  if (clients.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--clients: positive integers');
  return {
    sizes,
    clients,
    scenarios: new Set(scenarios),
    durationS: Number(values.duration ?? (values.quick ? 3 : 10)),
    warmupS: Number(values.warmup ?? (values.quick ? 1 : 2)),
    seed: Number(values.seed),
    rounds: Math.max(1, Number(values.rounds)),
    dataDir: path.resolve(values['data-dir']!),
    portFrom: Number(values['port-from']),
    neo4jHeap: values['neo4j-heap']!,
    pageCacheMb: Number(values['page-cache-mb']),
    build: !values['no-build'],
    cpuProf: values['cpu-prof']!,
  };
}
type Options = ReturnType<typeof parse>;

// ---------------------------------------------------------------------------------------------------------
// Machine

function machine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const redis = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return {
    nproc: os.availableParallelism(),
    cpuModel: model,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    java: (java.stderr || java.stdout || '').split('\n')[0]?.trim(),
    redis: (redis.stdout || '').trim().split(' ').slice(0, 3).join(' '),
    loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

/** The commit measured, and whether src/ or cypher/ differ from it (read-only git calls). */
function revision(): { commit: string; dirty: boolean } | undefined {
  // A copy made with `git archive` is not a checkout: its commit can be given as BENCH_REVISION.
  if (process.env.BENCH_REVISION) return { commit: process.env.BENCH_REVISION, dirty: false };
  const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: projectRoot, encoding: 'utf8' });
  if (head.status !== 0) return undefined;
  const status = spawnSync('git', ['status', '--porcelain', '--', 'src', 'cypher', 'redis'], { cwd: projectRoot, encoding: 'utf8' });
  return { commit: head.stdout.trim(), dirty: status.stdout.trim().length > 0 };
}

// ---------------------------------------------------------------------------------------------------------
// Workspaces: generated once per size and seed, reused while the database still holds them whole

async function countOf(driver: Driver, workspaceId: string): Promise<{ nodes: number; playbooks: number; workspace: boolean }> {
  const r = await driver.executeQuery(
    `OPTIONAL MATCH (w:Workspace {id: $ws})
     RETURN w IS NOT NULL AS workspace,
            COUNT { MATCH (n:ContextNode {workspaceId: $ws}) } AS nodes,
            COUNT { MATCH (p:Playbook {workspaceId: $ws}) } AS playbooks`,
    { ws: workspaceId },
    { database: DATABASE, routing: routing.READ },
  );
  const row = r.records[0].toObject();
  return { nodes: Number(row.nodes), playbooks: Number(row.playbooks), workspace: row.workspace };
}

/** Removes a workspace the bench loaded (all of it, or what a failed load left), with its bench owner. */
async function dropWorkspace(driver: Driver, workspaceId: string): Promise<void> {
  const session = driver.session({ database: DATABASE });
  try {
    await session.run('MATCH (n) WHERE n.workspaceId = $ws CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS', { ws: workspaceId });
    await session.run("MATCH (u:User)-[:MEMBER_OF]->(:Workspace {id: $ws}) WHERE u.email STARTS WITH 'bench-owner+' DETACH DELETE u", { ws: workspaceId });
    await session.run('MATCH (w:Workspace {id: $ws}) DETACH DELETE w', { ws: workspaceId });
  } finally {
    await session.close();
  }
}

async function ensureWorkspace(driver: Driver, opts: Options, size: number): Promise<{ ws: GeneratedWorkspace; reused: boolean; loadSeconds?: number }> {
  const catalogFile = path.join(opts.dataDir, 'workspaces.json');
  const catalog: Record<string, GeneratedWorkspace> = existsSync(catalogFile) ? JSON.parse(readFileSync(catalogFile, 'utf8')) : {};
  const key = `${size}:${opts.seed}`;
  // A fixed id per size and seed: a load that failed half-way can be found and removed.
  const workspaceId = `ws_bench_${size}_s${opts.seed}`;
  const known = catalog[key];
  const c = await countOf(driver, workspaceId);
  if (known && known.workspaceId === workspaceId && c.workspace && c.nodes === size && c.playbooks === known.playbookIds.length) return { ws: known, reused: true };
  if (c.workspace || c.nodes > 0) {
    console.log(`  workspace ${workspaceId} is incomplete or unknown (${c.nodes}/${size} nodes): loading it again`);
    await dropWorkspace(driver, workspaceId);
  }
  console.log(`  loading a ${size}-node workspace (seed ${opts.seed})`);
  const t = performance.now();
  let ws: GeneratedWorkspace;
  try {
    ws = await generateWorkspace(driver, DATABASE, { nodes: size, seed: opts.seed, workspaceId, log: (l) => console.log(l) });
  } catch (err) {
    console.log('  load failed; removing what was written');
    await dropWorkspace(driver, workspaceId).catch(() => undefined);
    throw err;
  }
  const loadSeconds = Math.round((performance.now() - t) / 100) / 10;
  catalog[key] = ws;
  mkdirSync(opts.dataDir, { recursive: true });
  writeFileSync(catalogFile, JSON.stringify(catalog));
  return { ws, reused: false, loadSeconds };
}

// ---------------------------------------------------------------------------------------------------------
// Admin API and request lists

async function api(base: string, method: string, p: string, token: string, body?: unknown): Promise<any> {
  const res = await fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * Times the first bundle, bundle with changedSince, manifest and follow (each its own parameter types, so its
 * own plan in Neo4j's cache) sent to a freshly started API, then each once more. Each time includes parsing
 * the answer (under 1 ms for a bundle), which is small beside what is measured.
 */
async function firstRequests(base: string, p: ReturnType<typeof paths>, key: string): Promise<{ request: string; firstMs: number; againMs: number }[]> {
  const timed = async (url: string) => {
    const t0 = performance.now();
    await api(base, 'GET', url, key);
    return performance.now() - t0;
  };
  const requests: [string, string][] = [
    ['bundle', p.bundle[0]],
    ['bundle changedSince', `${p.bundle[1]}&changedSince=2000-01-01T00:00:00Z`],
    ['manifest', p.manifest[2]],
    ['follow', p.follow[0]],
  ];
  const out = [];
  for (const [request, url] of requests) out.push({ request, firstMs: await timed(url), againMs: await timed(url) });
  return out;
}

function paths(ws: GeneratedWorkspace) {
  const w = `/api/v1/workspaces/${ws.workspaceId}`;
  const followNodes = ws.nodeIds.filter((_, i) => i % 10 === 0).slice(0, 20);
  return {
    bundle: ws.playbookIds.map((p) => `${w}/context/bundle?playbookId=${p}&maxNodes=20&depth=2`),
    bundleNoAnnotations: ws.playbookIds.map((p) => `${w}/context/bundle?playbookId=${p}&maxNodes=20&depth=2&includeAnnotations=false`),
    manifest: ws.playbookIds.map((p) => `${w}/context/manifest?playbookId=${p}&maxNodes=20&depth=2`),
    follow: followNodes.map((n) => `${w}/context/nodes/${n}/follow?depth=3`),
    playbook: ws.playbookIds.map((p) => `${w}/playbooks/${p}`),
  };
}

/**
 * The parameters the service gives rank-bundle.cypher for GET …/context/bundle?playbookId=…&maxNodes=20&depth=2
 * called with the owner's user key (src/retrieval/service.ts: mode standard => withContent, includeAnnotations
 * defaults to true, the principal is the key's user).
 */
function rankParams(ws: GeneratedWorkspace): Record<string, unknown>[] {
  return ws.playbookIds.map((playbookId) => ({
    workspaceId: ws.workspaceId,
    playbookId,
    depth: 2,
    maxNodes: 20,
    changedSince: null,
    withContent: true,
    includeAnnotations: true,
    principalId: ws.ownerUserId,
  }));
}

// ---------------------------------------------------------------------------------------------------------
// PROFILE of the bundle query, per playbook

function sumPlan(plan: ProfiledPlan): { dbHits: number; misses: number } {
  let dbHits = plan.dbHits ?? 0;
  let misses = plan.pageCacheMisses ?? 0;
  for (const child of plan.children ?? []) {
    const s = sumPlan(child);
    dbHits += s.dbHits;
    misses += s.misses;
  }
  return { dbHits, misses };
}

async function profileBundle(driver: Driver, query: string, params: Record<string, unknown>[]) {
  let dbHits = 0;
  let ranked = 0;
  let misses = 0;
  let serverMs = 0;
  for (const p of params) {
    const r = await driver.executeQuery(`PROFILE ${query}`, p, { database: DATABASE, routing: routing.READ });
    const plan = r.summary.profile;
    if (plan) {
      const s = sumPlan(plan);
      dbHits += s.dbHits;
      misses += s.misses;
    }
    ranked += Number(r.records[0]?.get('rankedCount') ?? 0);
    serverMs += Number(r.summary.resultAvailableAfter) + Number(r.summary.resultConsumedAfter);
  }
  const n = params.length;
  return { dbHitsMean: Math.round(dbHits / n), rankedCountMean: Math.round((ranked / n) * 10) / 10, pageCacheMissesTotal: misses, serverMsMean: Math.round((serverMs / n) * 10) / 10 };
}

/** Sums the CPU of a scenario's rounds; shares are weighted by the rounds' lengths (equal by construction). */
function mergeDeltas(ds: CpuDelta[]): CpuDelta {
  const procsMs: Record<string, number> = {};
  for (const d of ds) for (const [k, v] of Object.entries(d.procsMs)) procsMs[k] = (procsMs[k] ?? 0) + v;
  const avg = (f: (d: CpuDelta) => number) => Math.round((ds.reduce((a, d) => a + f(d), 0) / ds.length) * 10) / 10;
  return { procsMs, selfMs: ds.reduce((a, d) => a + d.selfMs, 0), machineBusyPct: avg((d) => d.machineBusyPct), foreignPct: avg((d) => d.foreignPct), stealPct: avg((d) => d.stealPct) };
}

// ---------------------------------------------------------------------------------------------------------
// Output

const fmt = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '-');
const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;
const sizeLabel = (n: number) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));

function findRun(size: SizeResult | undefined, scenario: Scenario, clients: number): Stats | undefined {
  return size?.runs.find((r) => r.scenario === scenario && r.clients === clients)?.stats;
}

function statusNote(s: Stats, scenario: Scenario): string {
  const expected = scenario === 'bundle-304' ? '304' : scenario === 'raw-driver' ? 'ok' : '200';
  const other = Object.entries(s.status).filter(([code, n]) => code !== expected && n > 0);
  const parts = other.map(([code, n]) => `${n}×${code}`);
  if (s.errors) parts.push(`${s.errors} errors`);
  return parts.length ? ` !${parts.join(',')}` : '';
}

function tableLines(size: SizeResult, clients: number[], markdown: boolean): string[] {
  const scenarios = SCENARIOS.filter((sc) => size.runs.some((r) => r.scenario === sc));
  const lines: string[] = [];
  if (markdown) {
    lines.push(`| scenario | ${clients.map((c) => `${c} cl. p50 / p95 / p99 ms | ${c} cl. req/s`).join(' | ')} |`);
    lines.push(`|---|${clients.map(() => '---|---:').join('|')}|`);
  } else {
    lines.push(`${'scenario'.padEnd(32)}${clients.map((c) => `| ${`${c} client${c > 1 ? 's' : ''}: p50/p95/p99 ms`.padEnd(30)}${'req/s'.padStart(8)} `).join('')}`);
  }
  for (const sc of scenarios) {
    const cells = clients.map((c) => {
      const s = findRun(size, sc, c);
      if (!s) return markdown ? ['', ''] : [''.padEnd(30), ''.padStart(8)];
      const lat = `${fmt(s.p50, 2)} / ${fmt(s.p95, 2)} / ${fmt(s.p99, 2)}${statusNote(s, sc)}`;
      return markdown ? [lat, fmt(s.rps, 0)] : [lat.padEnd(30), fmt(s.rps, 0).padStart(8)];
    });
    if (markdown) lines.push(`| ${LABELS[sc]} | ${cells.map(([a, b]) => `${a} | ${b}`).join(' | ')} |`);
    else lines.push(`${LABELS[sc].padEnd(32)}${cells.map(([a, b]) => `| ${a}${b} `).join('')}`);
  }
  return lines;
}

/** CPU ms per request of the process under test, Neo4j, Redis and the load driver; and the machine's noise. */
function cpuTableLines(size: SizeResult, clients: number[]): string[] {
  const scenarios = SCENARIOS.filter((sc) => size.runs.some((r) => r.scenario === sc));
  const lines = [
    `| CPU ms per request: server / Neo4j / Redis / load driver (other processes' share of the machine) | ${clients.map((c) => `${c} cl.`).join(' | ')} |`,
    `|---|${clients.map(() => '---').join('|')}|`,
  ];
  for (const sc of scenarios) {
    const cells = clients.map((c) => {
      const r = size.runs.find((x) => x.scenario === sc && x.clients === c);
      if (!r) return '';
      const m = r.cpu.msPerRequest;
      return `${m.proc === undefined ? '–' : fmt(m.proc, 3)} / ${fmt(m.neo4j ?? NaN, 3)} / ${fmt(m.redis ?? NaN, 3)} / ${fmt(m.loadDriver, 3)} (${r.cpu.foreignPct}%)`;
    });
    lines.push(`| ${LABELS[sc]} | ${cells.join(' | ')} |`);
  }
  return lines;
}

interface Ratio {
  name: string;
  size: number;
  clients: number | string;
  value: number;
  target?: { op: '<=' | '>='; limit: number };
  met?: boolean;
}

function ratios(results: SizeResult[], apiRssPeak: number, scaling?: ScalingRun[]): Ratio[] {
  const out: Ratio[] = [];
  const add = (name: string, size: number, clients: number | string, a: number | undefined, b: number | undefined, target?: Ratio['target']) => {
    if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return;
    const value = Math.round((a / b) * 1000) / 1000;
    out.push({ name, size, clients, value, target, met: target ? (target.op === '<=' ? value <= target.limit : value >= target.limit) : undefined });
  };
  for (const r of results) {
    // The issue states the driver and bytes targets on 10k nodes; the others on any size. Every size is shown,
    // the target is attached where the issue sets it.
    const tenK = r.nodes === 10000;
    for (const c of [1, 16, 64]) {
      add('bundle uncached / raw driver, p95', r.nodes, c, findRun(r, 'bundle-uncached', c)?.p95, findRun(r, 'raw-driver', c)?.p95, tenK && c === 1 ? { op: '<=', limit: 1.25 } : undefined);
      add('bundle uncached / raw driver, req/s', r.nodes, c, findRun(r, 'bundle-uncached', c)?.rps, findRun(r, 'raw-driver', c)?.rps, tenK && c === 16 ? { op: '>=', limit: 0.8 } : undefined);
    }
    for (const c of [1, 16, 64]) {
      add('bundle repeated / bare Koa same bytes, req/s', r.nodes, c, findRun(r, 'bundle-repeated', c)?.rps, findRun(r, 'bare-koa-bytes', c)?.rps, tenK && c === 16 ? { op: '>=', limit: 0.7 } : undefined);
      add('bundle repeated / bare Koa same bytes, p95', r.nodes, c, findRun(r, 'bundle-repeated', c)?.p95, findRun(r, 'bare-koa-bytes', c)?.p95, tenK && c === 16 ? { op: '<=', limit: 1.5 } : undefined);
    }
    add('bundle 304 / bare Koa constant, req/s', r.nodes, CLIENTS_304, findRun(r, 'bundle-304', CLIENTS_304)?.rps, findRun(r, 'bare-koa-constant', CLIENTS_304)?.rps, { op: '>=', limit: 0.5 });
    // Diagnostics, no target: the ceilings a service that makes the one Redis round trip and nothing else would
    // reach against the targets' baselines, and the cached paths against those ceilings.
    const redisBytes = findRun(r, 'bare-koa-redis-bytes', CLIENTS_304);
    add('A/A: bare Koa constant, 2nd process / 1st, req/s', r.nodes, CLIENTS_304, findRun(r, 'bare-koa-constant-2', CLIENTS_304)?.rps, findRun(r, 'bare-koa-constant', CLIENTS_304)?.rps);
    add('bare Koa + Redis / bare Koa constant, req/s', r.nodes, CLIENTS_304, findRun(r, 'bare-koa-redis', CLIENTS_304)?.rps, findRun(r, 'bare-koa-constant', CLIENTS_304)?.rps);
    add('bare Koa + Redis same bytes / bare Koa same bytes, req/s', r.nodes, CLIENTS_304, redisBytes?.rps, findRun(r, 'bare-koa-bytes', CLIENTS_304)?.rps);
    add('bare Koa + Redis same bytes / bare Koa same bytes, p95', r.nodes, CLIENTS_304, redisBytes?.p95, findRun(r, 'bare-koa-bytes', CLIENTS_304)?.p95);
    add('bundle 304 / bare Koa + Redis, req/s', r.nodes, CLIENTS_304, findRun(r, 'bundle-304', CLIENTS_304)?.rps, findRun(r, 'bare-koa-redis', CLIENTS_304)?.rps);
    add('cheap read / bare Koa + Redis, req/s', r.nodes, CLIENTS_304, findRun(r, 'cheap-read', CLIENTS_304)?.rps, findRun(r, 'bare-koa-redis', CLIENTS_304)?.rps);
    add('bundle repeated / bare Koa + Redis same bytes, req/s', r.nodes, CLIENTS_304, findRun(r, 'bundle-repeated', CLIENTS_304)?.rps, redisBytes?.rps);
    for (const c of [1, 16, 64]) {
      add('cheap read / bare Koa constant, req/s', r.nodes, c, findRun(r, 'cheap-read', c)?.rps, findRun(r, 'bare-koa-constant', c)?.rps, c === 16 ? { op: '>=', limit: 0.5 } : undefined);
    }
  }
  const small = results.find((r) => r.nodes === 1000) ?? results[0];
  const large = results.find((r) => r.nodes === 100000) ?? (results.length > 1 ? results[results.length - 1] : undefined);
  if (small && large) {
    const sc = (scenario: Scenario, n: number) => scaling?.find((r) => r.scenario === scenario && r.nodes === n)?.stats.p95;
    // The target is judged on the interleaved measurement when there is one.
    add(`bundle uncached p95, ${sizeLabel(large.nodes)} / ${sizeLabel(small.nodes)}, interleaved`, large.nodes, 1, sc('bundle-uncached', large.nodes), sc('bundle-uncached', small.nodes), { op: '<=', limit: 1.3 });
    add(`raw driver p95, ${sizeLabel(large.nodes)} / ${sizeLabel(small.nodes)}, interleaved`, large.nodes, 1, sc('raw-driver', large.nodes), sc('raw-driver', small.nodes));
    for (const c of [1, 16, 64]) {
      add(`bundle uncached p95, ${sizeLabel(large.nodes)} / ${sizeLabel(small.nodes)}`, large.nodes, c, findRun(large, 'bundle-uncached', c)?.p95, findRun(small, 'bundle-uncached', c)?.p95, c === 1 && !scaling ? { op: '<=', limit: 1.3 } : undefined);
      add(`raw driver p95, ${sizeLabel(large.nodes)} / ${sizeLabel(small.nodes)}`, large.nodes, c, findRun(large, 'raw-driver', c)?.p95, findRun(small, 'raw-driver', c)?.p95);
    }
  }
  if (apiRssPeak > 0) out.push({ name: 'API peak RSS, MB (either API process)', size: 0, clients: 'all', value: Math.round(apiRssPeak / 2 ** 20), target: { op: '<=', limit: 300 }, met: apiRssPeak < 300 * 2 ** 20 });
  return out;
}

function ratioLines(rs: Ratio[], markdown: boolean): string[] {
  const lines = markdown ? ['| ratio | size | clients | value | target | met |', '|---|---|---|---:|---|---|'] : [];
  for (const r of rs) {
    const target = r.target ? `${r.target.op} ${r.target.limit}` : '';
    const met = r.met === undefined ? '' : r.met ? 'met' : `MISSED`;
    const size = r.size ? sizeLabel(r.size) : '';
    if (markdown) lines.push(`| ${r.name} | ${size} | ${r.clients} | ${r.value} | ${target} | ${met} |`);
    else lines.push(`${r.name.padEnd(48)} ${size.padStart(5)} ${String(r.clients).padStart(4)} cl.  ${String(r.value).padStart(8)}  ${target.padEnd(8)} ${met}`);
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  const opts = parse();
  const started = new Date();
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const resultsDir = path.join(projectRoot, 'bench', 'results');
  const logDir = path.join(opts.dataDir, 'logs', stamp);
  mkdirSync(resultsDir, { recursive: true });
  const procs: Proc[] = [];
  let driver: Driver | undefined;
  const sampler = new RssSampler(250);
  const meter = new CpuMeter();
  let stopping = false;
  const stopAll = async () => {
    if (stopping) return;
    stopping = true;
    sampler.stop();
    await driver?.close().catch(() => undefined);
    // API and baselines first (they hold connections to the stores), then Redis and Neo4j.
    for (const p of [...procs].reverse()) await p.stop().catch(() => undefined);
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
  process.once('SIGTERM', () => void stopAll().then(() => process.exit(143)));

  const machineInfo = machine();
  const rev = revision();
  console.log(`bench: sizes ${opts.sizes.join(',')}; clients ${opts.clients.join(',')}; ${opts.durationS} s per measurement (${opts.rounds} rounds) after ${opts.warmupS} s warm-up`);
  console.log(`machine: ${machineInfo.nproc} CPUs (${machineInfo.cpuModel}), ${machineInfo.memoryGiB} GiB, node ${machineInfo.node}, load average ${machineInfo.loadAverageAtStart.join(' ')}`);

  try {
    if (opts.build) {
      console.log('building the API (npm run build)');
      const b = spawnSync('npm', ['run', 'build', '--silent'], { cwd: projectRoot, stdio: 'inherit' });
      if (b.status !== 0) throw new Error('npm run build failed');
    }
    const ports = new PortPool(opts.portFrom);
    const neo4jProc = await startNeo4jOn({
      port: await ports.take(),
      home: path.join(opts.dataDir, 'neo4j'),
      heap: opts.neo4jHeap,
      pageCacheMb: opts.pageCacheMb,
      logFile: path.join(logDir, 'neo4j.log'),
    });
    procs.push(neo4jProc);
    const redisDir = path.join(opts.dataDir, 'redis');
    rmSync(redisDir, { recursive: true, force: true });
    const redisProc = await startRedisOn({ port: await ports.take(), dir: redisDir, logFile: path.join(logDir, 'redis.log') });
    procs.push(redisProc);
    meter.watch('neo4j', neo4jProc.pid);
    meter.watch('redis', redisProc.pid);
    console.log(`neo4j ${neo4jProc.url} (heap ${opts.neo4jHeap}, page cache ${opts.pageCacheMb} MB), redis ${redisProc.url}`);

    // The same driver settings as the service (src/infra/neo4j.ts): disableLosslessIntegers, pool 100.
    driver = createDriver({ uri: neo4jProc.url, username: 'neo4j', password: 'neo4j', database: DATABASE });
    await driver.verifyConnectivity({ database: DATABASE });
    const neo4jVersion = (await driver.executeQuery('CALL dbms.components() YIELD versions RETURN versions[0] AS v', {}, { database: DATABASE })).records[0].get('v');
    await applyMigrations(driver, DATABASE);

    const workspaces = new Map<number, { ws: GeneratedWorkspace; reused: boolean; loadSeconds?: number }>();
    for (const size of opts.sizes) {
      const w = await ensureWorkspace(driver, opts, size);
      workspaces.set(size, w);
      console.log(`  ${size} nodes: workspace ${w.ws.workspaceId} ${w.reused ? '(reused)' : `(loaded in ${w.loadSeconds} s)`}`);
    }

    // ---- the API, twice: cache off (uncached figures) and on (repeated figures)
    const adminToken = randomBytes(24).toString('hex');
    const profDir = path.join(resultsDir, `${stamp}-cpuprof`);
    const apiEnv = (port: number, cache: 'on' | 'off'): NodeJS.ProcessEnv => {
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const k of ['RATE_LIMIT_PER_KEY_PER_MINUTE', 'METRICS_TOKEN', 'HOST', 'NEO4J_DATABASE', 'NEO4J_USERNAME', 'NEO4J_PASSWORD', 'BUNDLE_CACHE_MAX_BYTES']) delete env[k];
      return {
        ...env,
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        NEO4J_URI: neo4jProc.url,
        REDIS_URL: redisProc.url,
        ADMIN_TOKEN: adminToken,
        LOG_LEVEL: 'warn',
        BUNDLE_CACHE: cache,
        DATA_DIR: path.join(opts.dataDir, 'api'),
      };
    };
    // The API runs with the V8 flags `npm start` gives it.
    const apiArgs = (name: string) => [...serverNodeFlags, ...(opts.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${name}.cpuprofile`] : []), path.join(projectRoot, 'dist', 'src', 'server.js')];
    const startApi = async (name: string, cache: 'on' | 'off') => {
      const port = await ports.take();
      const p = await startNodeServer({ name, port, args: apiArgs(name), env: apiEnv(port, cache), readyPath: '/healthz', logFile: path.join(logDir, `${name}.log`) });
      procs.push(p);
      sampler.watch(name, p.pid);
      meter.watch(name, p.pid);
      return p;
    };
    const apiUncached = await startApi('api-cache-off', 'off');

    // ---- keys and limits through the admin API
    const keys = new Map<number, string>();
    for (const [size, { ws }] of workspaces) {
      const created = await api(apiUncached.url, 'POST', `/api/v1/admin/users/${ws.ownerUserId}/keys`, adminToken, { label: `bench ${stamp}` });
      keys.set(size, created.key);
      await api(apiUncached.url, 'PATCH', `/api/v1/admin/workspaces/${ws.workspaceId}`, adminToken, { monthlyRetrievalLimit: 1_000_000_000 });
    }

    // ---- what an agent meets right after a start: the first retrievals of each kind, on a Neo4j that has
    // run nothing but this API's start-up (its plan cache holds only what the start-up put there), next to the
    // same requests sent again at once (plans cached). The largest size: its plans are made last.
    const largest = opts.sizes[opts.sizes.length - 1];
    const firstAfterStart = await firstRequests(apiUncached.url, paths(workspaces.get(largest)!.ws), keys.get(largest)!);
    console.log(`first requests after a start (ms, first / again): ${firstAfterStart.map((f) => `${f.request} ${fmt(f.firstMs, 1)} / ${fmt(f.againMs, 1)}`).join('; ')}`);

    const apiCached = await startApi('api-cache-on', 'on');
    sampler.start();
    console.log(`API cache off ${apiUncached.url} (pid ${apiUncached.pid}), cache on ${apiCached.url} (pid ${apiCached.pid})`);

    // The baselines run with the API's V8 flags too, so that a ceiling differs from the API only in its code.
    const baselineArgs = (...rest: string[]) => [...serverNodeFlags, '--import', 'tsx', path.join(projectRoot, 'bench', 'baselines.ts'), ...rest];
    const constantPort = await ports.take();
    const bareConstant = await startNodeServer({ name: 'bare-koa-constant', port: constantPort, args: baselineArgs('constant', String(constantPort)), env: process.env, readyPath: '/ready', logFile: path.join(logDir, 'bare-constant.log') });
    procs.push(bareConstant);
    sampler.watch('bare-koa-constant', bareConstant.pid);
    meter.watch('bare-koa-constant', bareConstant.pid);
    const constant2Port = await ports.take();
    const bareConstant2 = await startNodeServer({ name: 'bare-koa-constant-2', port: constant2Port, args: baselineArgs('constant', String(constant2Port)), env: process.env, readyPath: '/ready', logFile: path.join(logDir, 'bare-constant-2.log') });
    procs.push(bareConstant2);
    sampler.watch('bare-koa-constant-2', bareConstant2.pid);
    meter.watch('bare-koa-constant-2', bareConstant2.pid);
    const redisPort = await ports.take();
    const bareRedis = await startNodeServer({ name: 'bare-koa-redis', port: redisPort, args: baselineArgs('redis', String(redisPort), redisProc.url), env: process.env, readyPath: '/ready', logFile: path.join(logDir, 'bare-redis.log') });
    procs.push(bareRedis);
    sampler.watch('bare-koa-redis', bareRedis.pid);
    meter.watch('bare-koa-redis', bareRedis.pid);
    const bytesPort = await ports.take();
    const redisBytesPort = await ports.take();

    // rank-bundle.cypher exactly as the service sends it (the catalog drops whole-line comments).
    const query = new QueryCatalog().get('retrieval/rank-bundle');
    const results: SizeResult[] = [];
    const t0 = performance.now();
    for (const size of opts.sizes) {
      const { ws, reused, loadSeconds } = workspaces.get(size)!;
      const auth = { authorization: `Bearer ${keys.get(size)}` };
      const p = paths(ws);

      // One 20-node bundle per playbook, from the cached API: the bytes for the same-bytes baseline and the
      // ETags for the 304 run (the graph does not change during the run, so they stay current).
      const bodies: Record<string, string> = {};
      const etags: string[] = [];
      const lengths: number[] = [];
      for (const url of p.bundle) {
        const res = await fetch(apiCached.url + url, { headers: auth });
        const buf = Buffer.from(await res.arrayBuffer());
        if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${buf.toString().slice(0, 300)}`);
        bodies[url] = buf.toString('base64');
        etags.push(res.headers.get('etag') ?? '');
        lengths.push(buf.length);
      }
      for (const [name, list, target] of [['manifest', p.manifest, apiUncached], ['follow', p.follow, apiCached], ['playbook', p.playbook, apiCached]] as const) {
        const res = await fetch(target.url + list[0], { headers: auth });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${name} ${list[0]} answered ${res.status}`);
      }
      const bytesFile = path.join(opts.dataDir, `bundle-bytes-${size}.json`);
      writeFileSync(bytesFile, JSON.stringify(bodies));
      const bareBytes = await startNodeServer({ name: 'bare-koa-bytes', port: bytesPort, args: baselineArgs('bytes', String(bytesPort), bytesFile), env: process.env, readyPath: '/ready', logFile: path.join(logDir, 'bare-bytes.log') });
      procs.push(bareBytes);
      sampler.watch('bare-koa-bytes', bareBytes.pid);
      meter.watch('bare-koa-bytes', bareBytes.pid);
      const bareRedisBytes = await startNodeServer({ name: 'bare-koa-redis-bytes', port: redisBytesPort, args: baselineArgs('redis-bytes', String(redisBytesPort), bytesFile, redisProc.url), env: process.env, readyPath: '/ready', logFile: path.join(logDir, 'bare-redis-bytes.log') });
      procs.push(bareRedisBytes);
      sampler.watch('bare-koa-redis-bytes', bareRedisBytes.pid);
      meter.watch('bare-koa-redis-bytes', bareRedisBytes.pid);

      const params = rankParams(ws);
      const profile = await profileBundle(driver, query, params);
      const sizeResult: SizeResult = {
        nodes: size,
        workspaceId: ws.workspaceId,
        reused,
        loadSeconds,
        bundleBytes: { min: Math.min(...lengths), mean: Math.round(lengths.reduce((a, b) => a + b, 0) / lengths.length), max: Math.max(...lengths) },
        profile,
        runs: [],
      };
      results.push(sizeResult);
      console.log(
        `\n== ${sizeLabel(size)} nodes: workspace ${ws.workspaceId}; bundles ${kb(sizeResult.bundleBytes.min)}-${kb(sizeResult.bundleBytes.max)}; ` +
          `PROFILE: ${profile.rankedCountMean} candidates, ${profile.dbHitsMean} db hits, ${profile.serverMsMean} ms server time per bundle`,
      );

      let snap = meter.snapshot();
      const mark = () => {
        sampler.resetWindow();
        snap = meter.snapshot();
      };
      // Each measurement is split into `rounds` parts, the whole scenario list is gone through once per round, so
      // that a service figure and the baseline it is compared with share the same stretches of a noisy machine.
      // Only the first round warms up (JIT, the bundle cache, Neo4j's page cache and query plans).
      const m = { durationS: opts.durationS / opts.rounds, warmupS: opts.warmupS, onMeasureStart: mark };
      const http = (base: string, list: string[], headers: Record<string, string>[] | Record<string, string>): HttpRequestSpec[] =>
        list.map((u, i) => ({ path: u, headers: Array.isArray(headers) ? headers[i] : headers }));
      const plan: { scenario: Scenario; proc?: string; run: (clients: number) => Promise<RawRun> }[] = [
        { scenario: 'raw-driver', run: (c) => driverLoad({ driver: driver!, database: DATABASE, query, params, clients: c, ...m }) },
        { scenario: 'bundle-uncached', proc: apiUncached.name, run: (c) => httpLoad({ baseUrl: apiUncached.url, requests: http(apiUncached.url, p.bundle, auth), clients: c, ...m }) },
        { scenario: 'bundle-uncached-noann', proc: apiUncached.name, run: (c) => httpLoad({ baseUrl: apiUncached.url, requests: http(apiUncached.url, p.bundleNoAnnotations, auth), clients: c, ...m }) },
        { scenario: 'manifest-uncached', proc: apiUncached.name, run: (c) => httpLoad({ baseUrl: apiUncached.url, requests: http(apiUncached.url, p.manifest, auth), clients: c, ...m }) },
        { scenario: 'bundle-repeated', proc: apiCached.name, run: (c) => httpLoad({ baseUrl: apiCached.url, requests: http(apiCached.url, p.bundle, auth), clients: c, ...m }) },
        { scenario: 'manifest-repeated', proc: apiCached.name, run: (c) => httpLoad({ baseUrl: apiCached.url, requests: http(apiCached.url, p.manifest, auth), clients: c, ...m }) },
        {
          scenario: 'bundle-304',
          proc: apiCached.name,
          run: (c) => httpLoad({ baseUrl: apiCached.url, requests: http(apiCached.url, p.bundle, etags.map((e) => ({ ...auth, 'if-none-match': e }))), clients: c, ...m }),
        },
        { scenario: 'follow-d3', proc: apiCached.name, run: (c) => httpLoad({ baseUrl: apiCached.url, requests: http(apiCached.url, p.follow, auth), clients: c, ...m }) },
        { scenario: 'cheap-read', proc: apiCached.name, run: (c) => httpLoad({ baseUrl: apiCached.url, requests: http(apiCached.url, p.playbook, auth), clients: c, ...m }) },
        // The same URLs and headers as the repeated bundle run, answered with the bytes the service sent for them.
        { scenario: 'bare-koa-bytes', proc: bareBytes.name, run: (c) => httpLoad({ baseUrl: bareBytes.url, requests: http(bareBytes.url, p.bundle, auth), clients: c, ...m }) },
        { scenario: 'bare-koa-constant', proc: bareConstant.name, run: (c) => httpLoad({ baseUrl: bareConstant.url, requests: [{ path: '/', headers: auth }], clients: c, ...m }) },
        { scenario: 'bare-koa-constant-2', proc: bareConstant2.name, run: (c) => httpLoad({ baseUrl: bareConstant2.url, requests: [{ path: '/', headers: auth }], clients: c, ...m }) },
        { scenario: 'bare-koa-redis', proc: bareRedis.name, run: (c) => httpLoad({ baseUrl: bareRedis.url, requests: [{ path: '/', headers: auth }], clients: c, ...m }) },
        { scenario: 'bare-koa-redis-bytes', proc: bareRedisBytes.name, run: (c) => httpLoad({ baseUrl: bareRedisBytes.url, requests: http(bareRedisBytes.url, p.bundle, auth), clients: c, ...m }) },
      ];
      for (const clients of opts.clients) {
        const steps = plan.filter((st) => opts.scenarios.has(st.scenario) && (!ONLY_AT_16.includes(st.scenario) || clients === CLIENTS_304));
        const acc = new Map<Scenario, { raws: RawRun[]; deltas: CpuDelta[]; rssPeak?: number }>();
        for (let round = 0; round < opts.rounds; round++) {
          m.warmupS = round === 0 ? opts.warmupS : 0;
          for (const step of steps) {
            const raw = await step.run(clients);
            const delta = meter.since(snap);
            const rssPeak = step.proc ? sampler.windowPeak(step.proc) : undefined;
            const a = acc.get(step.scenario) ?? { raws: [], deltas: [] };
            a.raws.push(raw);
            a.deltas.push(delta);
            if (rssPeak !== undefined) a.rssPeak = Math.max(a.rssPeak ?? 0, rssPeak);
            acc.set(step.scenario, a);
          }
        }
        for (const step of steps) {
          const a = acc.get(step.scenario)!;
          const stats = summariseRuns(a.raws);
          const delta = mergeDeltas(a.deltas);
          const per = (ms: number | undefined) => (ms === undefined || !stats.requests ? undefined : Math.round((ms / stats.requests) * 1000) / 1000);
          const cpu = {
            ...delta,
            msPerRequest: { proc: step.proc ? per(delta.procsMs[step.proc]) : undefined, neo4j: per(delta.procsMs.neo4j), redis: per(delta.procsMs.redis), loadDriver: per(delta.selfMs)! },
          };
          sizeResult.runs.push({ scenario: step.scenario, clients, stats, rssPeak: a.rssPeak, cpu });
          const c = cpu.msPerRequest;
          const rss =
            (a.rssPeak ? `  rss ${mb(a.rssPeak)}` : '') +
            `  cpu ms/req: ${c.proc !== undefined ? `proc ${fmt(c.proc, 3)} ` : ''}neo4j ${fmt(c.neo4j ?? NaN, 3)} redis ${fmt(c.redis ?? NaN, 3)} driver ${fmt(c.loadDriver, 3)}; other procs ${delta.foreignPct}%`;
          console.log(
            `  ${LABELS[step.scenario].padEnd(32)} ${String(clients).padStart(3)} cl.  p50 ${fmt(stats.p50, 2).padStart(7)}  p95 ${fmt(stats.p95, 2).padStart(7)}  p99 ${fmt(stats.p99, 2).padStart(7)} ms  ${fmt(stats.rps, 0).padStart(6)} req/s${rss}${statusNote(stats, step.scenario)}`,
          );
        }
      }
      for (const p of [bareBytes, bareRedisBytes]) {
        await p.stop();
        meter.unwatch(p.name);
        procs.splice(procs.indexOf(p), 1);
      }
    }
    // ---- cost against graph size: the uncached bundle and the raw driver at 1 client, the sizes interleaved
    // round by round (the per-size tables above were taken minutes apart, on a machine whose load changes).
    let scaling: ScalingRun[] | undefined;
    if (opts.sizes.length > 1 && opts.scenarios.has('bundle-uncached')) {
      console.log('\n== cost against graph size: 1 client, sizes interleaved');
      const raws = new Map<string, RawRun[]>();
      for (let round = 0; round < opts.rounds; round++) {
        for (const size of opts.sizes) {
          const { ws } = workspaces.get(size)!;
          const auth = { authorization: `Bearer ${keys.get(size)}` };
          const warmupS = round === 0 ? opts.warmupS : 0;
          const durationS = opts.durationS / opts.rounds;
          const params = rankParams(ws);
          const push = (k: string, r: RawRun) => raws.set(k, [...(raws.get(k) ?? []), r]);
          push(`bundle-uncached|${size}`, await httpLoad({ baseUrl: apiUncached.url, requests: paths(ws).bundle.map((u) => ({ path: u, headers: auth })), clients: 1, durationS, warmupS }));
          if (opts.scenarios.has('raw-driver')) push(`raw-driver|${size}`, await driverLoad({ driver, database: DATABASE, query, params, clients: 1, durationS, warmupS }));
        }
      }
      scaling = [...raws].map(([k, rs]) => {
        const [scenario, size] = k.split('|');
        return { scenario: scenario as Scenario, nodes: Number(size), stats: summariseRuns(rs) };
      });
      for (const r of scaling) {
        console.log(`  ${LABELS[r.scenario].padEnd(32)} ${sizeLabel(r.nodes).padStart(5)}  p50 ${fmt(r.stats.p50, 2).padStart(7)}  p95 ${fmt(r.stats.p95, 2).padStart(7)}  p99 ${fmt(r.stats.p99, 2).padStart(7)} ms  ${fmt(r.stats.rps, 0).padStart(6)} req/s`);
      }
    }
    const measureSeconds = Math.round((performance.now() - t0) / 1000);

    const peaks = sampler.peaks();
    const apiRssPeak = Math.max(peaks[apiUncached.name] ?? 0, peaks[apiCached.name] ?? 0);
    const rs = ratios(results, apiRssPeak, scaling);

    // ---- report
    const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
    const out: string[] = [];
    for (const r of results) {
      out.push('', `== ${sizeLabel(r.nodes)} nodes (bundle ${kb(r.bundleBytes.mean)} mean; ${r.profile.rankedCountMean} candidates; ${r.profile.dbHitsMean} db hits per bundle)`);
      out.push(...tableLines(r, opts.clients, false));
    }
    if (scaling) {
      out.push('', '== cost against graph size (1 client, sizes interleaved)');
      for (const r of scaling) out.push(`${LABELS[r.scenario].padEnd(32)}| ${sizeLabel(r.nodes).padStart(5)} | ${fmt(r.stats.p50, 2)} / ${fmt(r.stats.p95, 2)} / ${fmt(r.stats.p99, 2)} ms | ${fmt(r.stats.rps, 0)} req/s`);
    }
    out.push('', 'ratios (value; target where the issue sets one):', ...ratioLines(rs, false));
    out.push('', `peak RSS: ${Object.entries(peaks).map(([n, b]) => `${n} ${mb(b)}`).join(', ')}`);
    console.log(out.join('\n'));

    const md: string[] = [`Revision: ${rev ? `${rev.commit}${rev.dirty ? ' (src/, cypher/ or redis/ changed since)' : ''}` : 'unknown (not a git checkout)'}.`, `Command: \`${command}\` (${opts.durationS} s per measurement in ${opts.rounds} rounds, after ${opts.warmupS} s warm-up), started ${started.toISOString()}.`, ''];
    for (const r of results) {
      md.push(`### ${sizeLabel(r.nodes)} nodes`, '', `Bundle ${kb(r.bundleBytes.min)}–${kb(r.bundleBytes.max)} (mean ${kb(r.bundleBytes.mean)}); PROFILE of rank-bundle.cypher: ${r.profile.rankedCountMean} candidates ranked, ${r.profile.dbHitsMean} db hits, ${r.profile.serverMsMean} ms in Neo4j per bundle (mean of the 20 playbooks).`, '');
      md.push(...tableLines(r, opts.clients, true), '');
      md.push(...cpuTableLines(r, opts.clients), '');
    }
    if (scaling) {
      md.push('### Cost against graph size (1 client, sizes interleaved round by round)', '', '| scenario | nodes | p50 / p95 / p99 ms | req/s |', '|---|---|---|---:|');
      for (const r of scaling) md.push(`| ${LABELS[r.scenario]} | ${sizeLabel(r.nodes)} | ${fmt(r.stats.p50, 2)} / ${fmt(r.stats.p95, 2)} / ${fmt(r.stats.p99, 2)} | ${fmt(r.stats.rps, 0)} |`);
      md.push('');
    }
    md.push('### First requests after a start', '', '| request | first ms | again ms |', '|---|---:|---:|', ...firstAfterStart.map((f) => `| ${f.request} | ${fmt(f.firstMs, 1)} | ${fmt(f.againMs, 1)} |`), '');
    md.push('### Ratios', '', ...ratioLines(rs, true), '', `Peak RSS: ${Object.entries(peaks).map(([n, b]) => `${n} ${mb(b)}`).join(', ')}.`);
    const json = {
      startedAt: started.toISOString(),
      finishedAt: new Date().toISOString(),
      command,
      revision: rev,
      options: { ...opts, scenarios: [...opts.scenarios] },
      machine: { ...machineInfo, neo4j: `${neo4jVersion} embedded (heap ${opts.neo4jHeap}, page cache ${opts.pageCacheMb} MB)`, loadAverageAtEnd: os.loadavg().map((x) => Math.round(x * 100) / 100) },
      measureSeconds,
      sizes: results,
      scaling,
      firstAfterStart,
      rssPeakBytes: peaks,
      ratios: rs,
      cpuProfiles: opts.cpuProf ? profDir : undefined,
    };
    const jsonFile = path.join(resultsDir, `${stamp}.json`);
    writeFileSync(jsonFile, JSON.stringify(json, null, 2));
    writeFileSync(path.join(resultsDir, `${stamp}.md`), md.join('\n') + '\n');
    console.log(`\nwrote ${path.relative(projectRoot, jsonFile)} and .md (measurements took ${measureSeconds} s)`);
  } finally {
    await stopAll();
    if (opts.cpuProf) console.log(`CPU profiles of the API processes in ${path.relative(projectRoot, path.join(resultsDir, `${stamp}-cpuprof`))}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
