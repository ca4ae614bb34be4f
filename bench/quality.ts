/**
 * `npm run bench -- --quality`: how well the context query finds the passages a multi-hop question needs, on
 * HippoRAG's subsets of MuSiQue and HotpotQA (bench/quality-data.ts, bench/data/hipporag/).
 *
 * Per set: a workspace of its own, a node per passage through the bulk import, linked by the wikilinks its text
 * was given (the links the graph holds are counted against those written); then, when the service has the
 * endpoint, the wait until it has embedded every node (GET …/embeddings, once a second). Then each question, one
 * client, one request after another, through POST …/context/query in four configurations (words, meaning, hybrid,
 * hybrid + links), and through the list search GET …/context-nodes?q= as the baseline measured in the same run.
 * Scored: recall@2 and @5 (the share of a question's gold passages among the first 2 / 5 nodes, averaged over
 * the questions), all gold@5 (the share of questions with every gold passage in the first 5), and p50 / p95 of
 * the request. Each configuration asks the first question once first, unmeasured.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PlaybooksClient } from '@playbooks/client';
import { adminCreateUser, adminCreateUserKey, adminCreateWorkspace, adminUpdateWorkspace, createClient, importContextNodes } from '@playbooks/client/api';
import type { Checkout } from './checkout.js';
import { percentile } from './load.js';
import type { Options } from './options.js';
import { type PassageItem, type PassageNodes, type QualitySet, type QualitySetName, loadSet, passageNodes } from './quality-data.js';
import { fmt, table } from './report.js';
import type { Stack } from './stack.js';

/** The issue's targets (R@5, all gold@5), judged on `hybrid + links`. */
const TARGETS: Record<QualitySetName, { r5: number; all5: number }> = { hotpotqa: { r5: 0.93, all5: 0.88 }, musique: { r5: 0.64, all5: 0.33 } };
/** Published figures on the same subsets (R@5 / all gold@5), for reference. */
const OUTSIDE: Record<QualitySetName, [string, number, number][]> = {
  hotpotqa: [['BM25', 0.77, 0.56], ['dense', 0.88, 0.76], ['dense + links', 0.955, 0.91]],
  musique: [['BM25', 0.502, 0.15], ['dense', 0.622, 0.31], ['dense + links', 0.644, 0.33]],
};
const CONFIGS = [
  { name: 'words', mode: 'words', depth: 0 },
  { name: 'meaning', mode: 'meaning', depth: 0 },
  { name: 'hybrid', mode: 'hybrid', depth: 0 },
  { name: 'hybrid + links', mode: 'hybrid', depth: 1 },
] as const;
const LIST_Q = 'list q';
const IMPORT_BATCH = 250;
/** Under the API's 1 MiB body limit, with room to spare. */
const IMPORT_BATCH_BYTES = 800_000;
/** How long the embedding count may stand still before the wait gives up. */
const EMBED_STALL_MS = 10 * 60_000;

interface Asked {
  status: number;
  ms: number;
  /** Corpus indices of the nodes answered, in rank order (-1: a node not of the corpus). */
  ranked: number[];
}

interface ConfigResult {
  name: string;
  questions: number;
  r2: number;
  r5: number;
  all5: number;
  p50: number;
  p95: number;
  /** Answers other than 200, by status. */
  failed: Record<string, number>;
  /** The share of questions answered with at least one node. */
  answered: number;
  perQuestion: { id: string; goldRanks: (number | null)[]; top: number[]; ms: number; status: number }[];
}

interface Embeddings {
  state: 'off' | 'embedding' | 'ready';
  model: string | null;
  dimension: number | null;
  total: number;
  embedded: number;
  pending: number;
}

interface SetResult {
  set: QualitySetName;
  label: string;
  workspaceId: string;
  passages: number;
  questions: number;
  goldPerQuestion: number;
  import: { seconds: number; nodesPerS: number; errors: number; wikilinks: number; pairsWritten: number; pairsOutsideCode: number; pairsInGraph: number; linksInGraph: number; titlesSkipped: number };
  /** seconds: from the end of the import until nothing was pending; sinceImportStart: from its start (embedding may begin during it). */
  embeddings: { available: boolean; seconds?: number; sinceImportStart?: number; passagesPerS?: number; last?: Embeddings; stalled?: boolean };
  queryAvailable: boolean;
  configs: ConfigResult[];
  /** The workspace of an earlier run (--quality-reuse): the import and embedding figures are not this run's. */
  reused: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request, timed to its parsed answer. */
async function ask(url: string, init: RequestInit, corpusOf: (node: { id?: string; slug?: string }) => number): Promise<Asked> {
  const t = performance.now();
  const response = await fetch(url, init);
  const body = (await response.json().catch(() => undefined)) as { nodes?: { id?: string; slug?: string }[] } | undefined;
  const ms = performance.now() - t;
  return { status: response.status, ms, ranked: response.ok ? (body?.nodes ?? []).map(corpusOf) : [] };
}

function score(name: string, set: QualitySet, asked: Asked[]): ConfigResult {
  const perQuestion = set.questions.map((q, i) => {
    const a = asked[i];
    return { id: q.id, goldRanks: q.gold.map((g) => (a.ranked.includes(g.corpus) ? a.ranked.indexOf(g.corpus) + 1 : null)), top: a.ranked.slice(0, 10), ms: Math.round(a.ms * 100) / 100, status: a.status };
  });
  const recall = (k: number) => perQuestion.reduce((s, p) => s + p.goldRanks.filter((r) => r !== null && r <= k).length / p.goldRanks.length, 0) / perQuestion.length;
  const all5 = perQuestion.filter((p) => p.goldRanks.every((r) => r !== null && r <= 5)).length / perQuestion.length;
  const ms = asked.map((a) => a.ms).sort((a, b) => a - b);
  const failed: Record<string, number> = {};
  for (const a of asked) if (a.status !== 200) failed[a.status] = (failed[a.status] ?? 0) + 1;
  const answered = asked.filter((a) => a.ranked.length > 0).length / asked.length;
  return { name, questions: perQuestion.length, r2: recall(2), r5: recall(5), all5, answered, p50: percentile(ms, 0.5), p95: percentile(ms, 0.95), failed, perQuestion };
}

/** Batches of at most IMPORT_BATCH items and IMPORT_BATCH_BYTES of JSON. */
function batches(items: PassageItem[]): PassageItem[][] {
  const out: PassageItem[][] = [];
  let batch: PassageItem[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item));
    if (batch.length && (batch.length >= IMPORT_BATCH || bytes + size > IMPORT_BATCH_BYTES)) {
      out.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(item);
    bytes += size;
  }
  if (batch.length) out.push(batch);
  return out;
}

/** Polls GET …/embeddings once a second until nothing is pending (or embedding is off); undefined when the service has no such endpoint. */
async function awaitEmbeddings(baseUrl: string, ws: string, key: string, since: number): Promise<SetResult['embeddings']> {
  const url = `${baseUrl}/api/v1/workspaces/${ws}/embeddings`;
  let last: Embeddings | undefined;
  let progressAt = performance.now();
  for (;;) {
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    if (response.status === 404 && !last) {
      console.log('  GET …/embeddings is 404: no embeddings to wait for');
      return { available: false };
    }
    if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${(await response.text()).slice(0, 300)}`);
    const e = (await response.json()) as Embeddings;
    if (!last || e.embedded !== last.embedded || e.pending !== last.pending) progressAt = performance.now();
    last = e;
    const seconds = (performance.now() - since) / 1000;
    const line = `  embeddings: ${e.state}${e.model ? ` (${e.model}, ${e.dimension} dims)` : ''}: ${e.embedded}/${e.total} embedded, ${e.pending} pending, ${fmt(seconds)} s, ${fmt(e.embedded / seconds)} passages/s`;
    if (process.stdout.isTTY) process.stdout.write(`\r${line.padEnd(120)}`);
    const done = e.pending === 0 || e.state === 'off';
    const stalled = !done && performance.now() - progressAt > EMBED_STALL_MS;
    if (done || stalled) {
      if (process.stdout.isTTY) process.stdout.write('\n');
      else console.log(line);
      if (stalled) console.log(`  no progress for ${EMBED_STALL_MS / 60_000} min: going on without waiting further`);
      return { available: true, seconds, passagesPerS: e.embedded / seconds, last: e, stalled };
    }
    await sleep(1000);
  }
}

async function runSet(name: QualitySetName, o: Options, baseUrl: string, admin: ReturnType<typeof createClient>, user: { id: string; key: string }, existing?: string): Promise<SetResult> {
  const set = loadSet(name, o.qualityLimit);
  const nodes: PassageNodes = passageNodes(set.corpus);
  console.log(`\n== ${set.label}: ${set.questions.length} questions, ${set.corpus.length} passages, ${nodes.wikilinks} wikilinks (${nodes.pairsWritten.size} (node, node) pairs, ${nodes.linkPairs.size} outside code spans; ${nodes.titlesSkipped} titles too short or not a link name)`);
  const ws = existing
    ? { id: existing }
    : (await adminCreateWorkspace({ client: admin, body: { name: `quality ${set.label}`, ownerUserId: user.id, plan: 'enterprise' }, throwOnError: true })).data;
  if (!existing) await adminUpdateWorkspace({ client: admin, path: { workspaceId: ws.id }, body: { monthlyRetrievalLimit: 1_000_000_000 }, throwOnError: true });
  const client = createClient({ baseUrl, auth: () => user.key });

  const t = performance.now();
  let errors = 0;
  // --quality-reuse: the workspace of an earlier run, imported and embedded already.
  for (const batch of existing ? [] : batches(nodes.items)) {
    const { data } = await importContextNodes({ client, path: { workspaceId: ws.id }, body: { nodes: batch }, throwOnError: true });
    errors += data.summary.errors;
    for (const r of data.nodes.filter((n) => n.error).slice(0, 3)) console.log(`  import error: ${r.slug}: ${r.error!.code} ${r.error!.message}`);
  }
  const importEnd = performance.now();
  const seconds = (importEnd - t) / 1000;
  const graph = await new PlaybooksClient({ baseUrl, apiKey: user.key, workspaceId: ws.id }).graph.get({ limit: 10_000 });
  const slugOfId = new Map(graph.nodes.map((n) => [n.id, n.slug]));
  const pairsInGraph = new Set(graph.links.map((l) => `${slugOfId.get(l.from)}\n${slugOfId.get(l.to)}`));
  const pairsFound = [...nodes.linkPairs].filter((p) => pairsInGraph.has(p)).length;
  const imported = existing ? `reused ${graph.nodes.length} nodes of an earlier run (--quality-reuse)` : `imported ${graph.nodes.length} nodes in ${fmt(seconds)} s (${fmt(set.corpus.length / seconds, 0)} nodes/s, ${errors} errors)`;
  console.log(`  ${imported}; links in the graph: ${graph.links.length}, of the ${nodes.linkPairs.size} pairs outside code spans ${pairsFound}`);

  const embeddings = await awaitEmbeddings(baseUrl, ws.id, user.key, importEnd);
  if (embeddings.seconds !== undefined) embeddings.sinceImportStart = embeddings.seconds + seconds;
  const corpusOfId = new Map(graph.nodes.map((n) => [n.id, nodes.corpusOf.get(n.slug) ?? -1]));
  const corpusOf = (n: { id?: string; slug?: string }) => (n.slug !== undefined ? nodes.corpusOf.get(n.slug) : undefined) ?? (n.id !== undefined ? corpusOfId.get(n.id) : undefined) ?? -1;
  const headers = { authorization: `Bearer ${user.key}` };
  const w = `${baseUrl}/api/v1/workspaces/${ws.id}`;
  const queryOf = (q: string, mode: string, depth: number) =>
    ask(`${w}/context/query`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ q, mode, depth, maxTokens: 100_000, limit: 10 }) }, corpusOf);
  const listOf = (q: string) => ask(`${w}/context-nodes?${new URLSearchParams({ q, limit: '5' })}`, { headers }, corpusOf);

  const probe = await queryOf(set.questions[0].question, 'words', 0);
  const queryAvailable = probe.status !== 404;
  if (!queryAvailable) console.log('  POST …/context/query is 404: only the list search is measured');
  const runs: [string, (q: string) => Promise<Asked>][] = [
    [LIST_Q, listOf],
    ...(queryAvailable ? CONFIGS.map((c) => [c.name, (q: string) => queryOf(q, c.mode, c.depth)] as [string, (q: string) => Promise<Asked>]) : []),
  ];
  const configs: ConfigResult[] = [];
  for (const [config, run] of runs) {
    await run(set.questions[0].question);
    const asked: Asked[] = [];
    for (const q of set.questions) asked.push(await run(q.question));
    const r = score(config, set, asked);
    configs.push(r);
    console.log(`  ${config.padEnd(15)} R@2 ${fmt(r.r2, 3)}  R@5 ${fmt(r.r5, 3)}  all@5 ${fmt(r.all5, 3)}  answered ${fmt(r.answered, 2)}  p50 ${fmt(r.p50, 1)}  p95 ${fmt(r.p95, 1)} ms${failedText(r)}`);
  }
  const goldPerQuestion = set.questions.reduce((s, q) => s + q.gold.length, 0) / set.questions.length;
  return {
    set: name, label: set.label, workspaceId: ws.id, passages: set.corpus.length, questions: set.questions.length, goldPerQuestion,
    import: { seconds, nodesPerS: set.corpus.length / seconds, errors, wikilinks: nodes.wikilinks, pairsWritten: nodes.pairsWritten.size, pairsOutsideCode: nodes.linkPairs.size, pairsInGraph: pairsFound, linksInGraph: graph.links.length, titlesSkipped: nodes.titlesSkipped },
    embeddings, queryAvailable, configs, reused: existing !== undefined,
  };
}

const failedText = (r: ConfigResult) => (Object.keys(r.failed).length ? `  !${Object.entries(r.failed).map(([s, n]) => `${n}×${s}`).join(',')}` : '');

/** One set's table, its import and embedding lines, the targets and the outside figures. */
function setReport(r: SetResult, markdown: boolean): string[] {
  const rows = r.configs.map((c) => [c.name, fmt(c.r2, 3), fmt(c.r5, 3), fmt(c.all5, 3), fmt(c.answered, 2), fmt(c.p50, 1), fmt(c.p95, 1), failedText(c).trim()]);
  const target = TARGETS[r.set];
  const judged = r.configs.find((c) => c.name === 'hybrid + links');
  const verdict = (value: number | undefined, bound: number) => (value === undefined ? 'not measured' : `${fmt(value, 3)} ${value >= bound ? 'met' : 'MISSED'}`);
  const e = r.embeddings;
  const embedLine = !e.available
    ? 'embeddings: GET …/embeddings is 404 (not built): no wait'
    : r.reused
    ? `embeddings: ${e.last?.state}, model ${e.last?.model ?? '-'} (${e.last?.dimension ?? '-'} dims): ${e.last?.embedded}/${e.last?.total}, embedded by an earlier run`
    : `embeddings: ${e.last?.state}, model ${e.last?.model ?? '-'} (${e.last?.dimension ?? '-'} dims): ${e.last?.embedded}/${e.last?.total} in ${fmt(e.seconds)} s after the import = ${fmt(e.passagesPerS)} passages/s (${fmt(e.sinceImportStart)} s from the import's start)${e.stalled ? ' (stalled: gave up waiting)' : ''}`;
  const notes = [
    `import: ${r.reused ? 'reused from an earlier run (--quality-reuse)' : `${fmt(r.import.seconds)} s, ${fmt(r.import.nodesPerS, 0)} nodes/s, ${r.import.errors} errors`}; ${r.import.wikilinks} wikilinks written: ${r.import.pairsWritten} (node, node) pairs, ${r.import.pairsOutsideCode} of them outside code spans, ${r.import.pairsInGraph} of those linked in the graph (${r.import.linksInGraph} links in all); ${r.import.titlesSkipped} titles not linkable.`,
    embedLine + '.',
    ...(r.queryAvailable ? [] : ['POST …/context/query is 404 (not built): only the list search was measured.']),
    `target (hybrid + links): R@5 >= ${target.r5}: ${verdict(judged?.r5, target.r5)}; all@5 >= ${target.all5}: ${verdict(judged?.all5, target.all5)}.`,
    `outside baselines (R@5 / all@5): ${OUTSIDE[r.set].map(([n, r5, all5]) => `${n} ${r5.toFixed(3)} / ${all5.toFixed(3)}`).join('; ')}.`,
  ];
  return [
    `${markdown ? '#### ' : '== '}${r.label}: ${r.questions} questions (${fmt(r.goldPerQuestion, 2)} gold passages each), ${r.passages} passages`,
    '',
    ...table(['configuration', 'R@2', 'R@5', 'all@5', 'answered', 'p50 ms', 'p95 ms', 'failed'], rows, markdown, 'lrrrrrrl'),
    '',
    ...(markdown ? notes.flatMap((n, i) => (i ? ['', n] : [n])) : notes),
  ];
}

/** What --quality-reuse finds of an earlier run: its user and the workspace of each set. */
interface Catalog {
  user: { id: string; key: string };
  sets: Partial<Record<QualitySetName, string>>;
}

export async function runQuality(o: Options, stack: Stack, checkout: Checkout) {
  const dataDir = path.join(o.dataDir, 'quality');
  const catalogFile = path.join(dataDir, 'catalog.json');
  const reused: Catalog | undefined = o.qualityReuse && existsSync(catalogFile) ? JSON.parse(readFileSync(catalogFile, 'utf8')) : undefined;
  if (!reused) rmSync(dataDir, { recursive: true, force: true });
  await stack.startStores({ dataDir, heap: o.neo4jHeap, pageCacheMb: 512 });
  const adminToken = randomBytes(24).toString('hex');
  const api = await stack.startApi('api', { checkout, adminToken, dataDir, cpuProfDir: o.cpuProfDir });
  const admin = createClient({ baseUrl: api.url, auth: () => adminToken });
  let catalog = reused;
  if (!catalog) {
    const { data: created } = await adminCreateUser({ client: admin, body: { email: `quality-${o.stamp}@bench.example`, name: 'Quality' }, throwOnError: true });
    const { data: { key } } = await adminCreateUserKey({ client: admin, path: { userId: created.id }, body: { label: 'bench quality' }, throwOnError: true });
    catalog = { user: { id: created.id, key }, sets: {} };
  }
  const results: SetResult[] = [];
  for (const name of o.qualitySets) {
    const result = await runSet(name, o, api.url, admin, catalog.user, catalog.sets[name]);
    catalog.sets[name] = result.workspaceId;
    writeFileSync(catalogFile, JSON.stringify(catalog, null, 2));
    results.push(result);
  }
  const out = (markdown: boolean) => [
    ...results.flatMap((r) => ['', ...setReport(r, markdown)]),
    '',
    `R@k: the share of a question's gold passages among the first k nodes answered, averaged over the questions; all@5: the share of questions with every gold passage in the first 5; answered: the share of questions answered with at least one node. ` +
      `Latency: one client, one request after another, to the parsed answer. ${LIST_Q}: GET …/context-nodes?q=<question>&limit=5 (full-text, every word must match).`,
  ];
  console.log(['', ...out(false)].join('\n'));
  return { md: ['', '### Retrieval quality', ...out(true)], json: { quality: results, targets: TARGETS, outsideBaselines: OUTSIDE } };
}
