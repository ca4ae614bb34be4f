/**
 * `npm run bench -- --write-stalls`: the longest event-loop delay of the API process while the worst-case content of
 * each bound is written, and while the largest body each bulk or analyst route accepts is handled (a workspace
 * import of 120,000 nodes and links, an analyst value of 335 MB, bodies of tens of thousands of invalid items),
 * beside an ordinary write's. Target: under 50 ms.
 *
 * The delay is measured inside the API process by what it already has: prom-client's default metrics
 * (perf_hooks.monitorEventLoopDelay, sampled every 10 ms), whose histogram is reset at every scrape of
 * /metrics. So: scrape (reset), send the writes of one case one after another, scrape again and read
 * `nodejs_eventloop_lag_max_seconds`, the longest interval between two samples, which includes the 10 ms
 * sampling interval itself (an idle process shows about 10-11 ms). Alongside, a probe in a process of its own
 * sends GET /healthz back to back and keeps its longest round trip: what another client of the process waited
 * (not from the bench process, whose own sending of a body of tens of MiB held up the polls it timed).
 *
 * Each case sends one write first that is not measured (the first run of a code path compiles it, once per
 * process), then REPEAT writes one after another.
 *
 * Its own Neo4j (a fresh store under <data-dir>/writes, wiped at every run) and Redis, and one API process of
 * this checkout; a user key and a workspace made through the admin API. About a minute.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { routing } from 'neo4j-driver';
import { projectRoot } from '../src/infra/project-root.js';
import { maxBodyBytes, maxJsonDepth } from '../src/http/json-body.js';
import { maxWikilinkTargets } from '../src/nodes/wikilinks.js';
import type { ApiCheckout } from './api-checkout.js';
import { api } from './api-client.js';
import { DATABASE } from './floor.js';
import { fmt, kb } from './report.js';
import { type Stack, onFreshStores } from './stack.js';

/** The target of issue 28 for the longest event-loop delay, in ms. */
export const TARGET_MS = 50;
/** Writes per case, sent one after another. */
const REPEAT = 5;
/** The node content's maxLength (src/nodes/schemas.ts), less 1 KB: "a 499 KB content". */
const contentChars = 499_000;

interface WriteRequest {
  method: 'POST' | 'PATCH';
  path: string;
  body: string | Buffer;
  headers?: Record<string, string>;
  /** Another bearer token than the user's key (the operator's, for the analysts' route). */
  token?: string;
}

interface WriteCase {
  name: string;
  /** What the case holds, for the table. */
  what: string;
  /** The status every write of the case must get. */
  expect: number;
  /** The i-th write of the case (0-based). */
  request: (i: number) => WriteRequest;
  /** Writes measured (REPEAT unless said), and whether one unmeasured write warms the code path first. */
  repeat?: number;
  warm?: boolean;
}

export interface WriteResult {
  name: string;
  what: string;
  bodyBytes: number;
  status: string;
  writeMsMedian: number;
  writeMsMax: number;
  /** nodejs_eventloop_lag_max_seconds over the case, in ms (includes the 10 ms sampling interval). */
  eventLoopMaxMs: number;
  /** The longest GET /healthz round trip of the probe during the case, in ms. */
  healthzMaxMs: number;
}

const filler = (chars: number, seed: string) => {
  // Prose in paragraphs, the shape markdown content has; distinct per seed so nothing is deduplicated.
  const sentence = `The ${seed} team reviews every brief against the brand voice before it ships. `;
  const paragraph = sentence.repeat(8) + '\n\n';
  return paragraph.repeat(Math.ceil(chars / paragraph.length)).slice(0, chars);
};

/** 1,000 distinct wikilinks spread over the content, the rest prose. */
function wikilinkContent(slugs: string[], chars: number): string {
  const links = slugs.map((s) => `See [[${s}]] for this. `);
  const linkChars = links.reduce((n, l) => n + l.length, 0);
  const per = Math.floor((chars - linkChars) / links.length);
  const prose = filler(per * links.length, 'wikilink');
  return links.map((l, i) => prose.slice(i * per, (i + 1) * per) + l).join('').padEnd(chars, '.');
}

/** Backtick runs of lengths 1, 2, 3, … in one paragraph: none closes another (the old quadratic case). */
function backtickContent(chars: number): string {
  const parts: string[] = [];
  let used = 0;
  for (let n = 1; used + n + 1 <= chars - 40; n++) {
    parts.push('`'.repeat(n), 'x');
    used += n + 1;
  }
  return (parts.join('') + ' and [[brand-voice]] at the end').padEnd(chars, 'x');
}

/** A playbook version's content whose innermost object is as deep as a body may nest (json-body.ts). */
function deepContent(): Record<string, unknown> {
  // The body is level 0 and `content` level 1: the innermost object may be at level maxJsonDepth - 1.
  let inner: Record<string, unknown> = { instructions: 'innermost' };
  for (let level = maxJsonDepth - 2; level >= 1; level--) inner = { level, text: filler(200, `level ${level}`), next: inner };
  return inner;
}

/** As many distinct fields as fit in a body of the maximum size. */
function widestContent(budget: number): Record<string, number> {
  const content: Record<string, number> = {};
  // `"f000000":1,` is 12 bytes; the envelope ({"content":{…},"changeNote":"…"}) takes the rest.
  const fields = Math.floor((budget - 200) / 12);
  for (let i = 0; i < fields; i++) content[`f${String(i).padStart(6, '0')}`] = 1;
  return content;
}

/** One write case after another, each bracketed by two scrapes of /metrics; the probe runs throughout. */
export async function measureWrites(o: { stack: Stack; checkout: ApiCheckout; dataDir: string; cpuProfDir?: string }): Promise<WriteResult[]> {
  const { stack, checkout } = o;
  const adminToken = randomBytes(24).toString('hex');
  const proc = await stack.startApi('api-writes', { checkout, adminToken, dataDir: o.dataDir, cpuProfDir: o.cpuProfDir });
  const base = proc.url;
  console.log(`API ${base} (pid ${proc.pid})`);

  const user = await api(base, 'POST', '/api/v1/admin/users', adminToken, { email: 'writes@bench.example', name: 'Writes' });
  const { key } = await api(base, 'POST', `/api/v1/admin/users/${user.id}/keys`, adminToken, { label: 'bench writes' });
  const ws = await api(base, 'POST', '/api/v1/admin/workspaces', adminToken, { name: 'Write bench', ownerUserId: user.id, plan: 'enterprise' });
  const wsPath = `/api/v1/workspaces/${ws.id}`;

  // The targets of the wikilinks exist, so that every link resolves (a relationship each, listed in the answer).
  // Written straight through Cypher in one transaction (as bench/generate.ts writes its workspaces): through the
  // API, 1,000 creates took most of a minute.
  const slugs = Array.from({ length: maxWikilinkTargets }, (_, i) => `target-${String(i).padStart(4, '0')}`);
  const t0 = performance.now();
  const now = new Date().toISOString();
  const rows = slugs.map((slug) => ({
    id: `cn_${slug.replace('-', '')}`, slug, title: slug, description: 'a wikilink target', content: null, nodeType: 'reference', agentSummary: null,
    importance: 50, readFirst: false, edgeCaseOnly: false, status: 'live', createdAt: now, updatedAt: now, archivedAt: null,
  }));
  const createNodes = readFileSync(path.join(projectRoot, 'cypher', 'queries', 'bench', 'create-nodes.cypher'), 'utf8');
  await stack.driver!.executeQuery(createNodes, { workspaceId: ws.id, rows }, { database: DATABASE, routing: routing.WRITE });
  const playbook = await api(base, 'POST', `${wsPath}/playbooks`, key, { title: 'Write bench', version: { content: { instructions: 'v1' } } });
  console.log(`set-up: ${slugs.length} target nodes and a playbook in ${fmt((performance.now() - t0) / 1000, 1)} s`);

  const node = (name: string, content: string, headers?: Record<string, string>) => (i: number): WriteRequest => ({
    method: 'POST',
    path: `${wsPath}/context-nodes`,
    body: JSON.stringify({ title: `${name} ${i}`, description: `bench ${name}`, slug: `${name}-${i}`, content }),
    headers: headers && { ...headers, 'idempotency-key': `${name}-${i}` },
  });
  const version = (name: string, content: unknown, headers?: Record<string, string>) => {
    const body = JSON.stringify({ content, changeNote: name });
    return (i: number): WriteRequest => ({
      method: 'POST',
      path: `${wsPath}/playbooks/${playbook.id}/versions`,
      body,
      headers: headers && { ...headers, 'idempotency-key': `${name}-${i}` },
    });
  };
  const idem = { 'idempotency-key': '' };

  const ordinary = `# Brand voice\n\nWarm, direct and brief. See [[target-0001]] and [[target-0002]].\n\n${filler(1500, 'ordinary')}`;
  const wikilinks = wikilinkContent(slugs, contentChars);
  const overLinks = wikilinkContent([...slugs, 'one-too-many'], contentChars);
  const backticks = backtickContent(contentChars);
  const deep = deepContent();
  const widest = widestContent(maxBodyBytes);
  // Deeper than allowed, as large as a body may be: refused by the depth check before anything else.
  const tooDeepBody = `{"content":${'['.repeat(maxBodyBytes / 2 - 20)}${']'.repeat(maxBodyBytes / 2 - 20)}}`;

  const cases: WriteCase[] = [
    { name: 'ordinary', what: 'a node of 1.7 KB with 2 wikilinks', expect: 201, request: node('ordinary', ordinary) },
    { name: 'wikilinks', what: `a node of ${kb(contentChars)} with ${maxWikilinkTargets} distinct wikilinks, all resolved`, expect: 201, request: node('wikilinks', wikilinks) },
    { name: 'wikilinks+idem', what: 'the same with an Idempotency-Key (the answer kept in Redis)', expect: 201, request: node('wikilinks-idem', wikilinks, idem) },
    { name: 'backticks', what: `a node of ${kb(contentChars)}: backtick runs of lengths 1 to ${Math.max(...(backticks.match(/`+/g) ?? []).map((r) => r.length))}, none closing`, expect: 201, request: node('backticks', backticks) },
    { name: 'deep', what: `a playbook version whose content nests ${maxJsonDepth - 1} levels (the deepest a body may)`, expect: 201, request: version('deep', deep) },
    { name: 'widest', what: `a playbook version of ${Object.keys(widest).length} fields, a body of ~1 MiB`, expect: 201, request: version('widest', widest) },
    { name: 'widest+idem', what: 'the same with an Idempotency-Key', expect: 201, request: version('widest-idem', widest, idem) },
    { name: 'refused: links', what: `${maxWikilinkTargets + 1} distinct wikilinks in ${kb(contentChars)} (400)`, expect: 400, request: node('over-links', overLinks) },
    { name: 'refused: depth', what: `a ~1 MiB body of nested arrays (400)`, expect: 400, request: () => ({ method: 'POST', path: `${wsPath}/playbooks/${playbook.id}/versions`, body: tooDeepBody }) },
  ];

  // The largest bodies of the routes that take many items or large answers: each must be refused at once, or
  // handled a slice at a time, without holding up other requests (compare with the ordinary write above).
  const at = new Date().toISOString();
  const exportDoc = (parts: Record<string, unknown[]>) =>
    JSON.stringify({ format: 'playbooks-workspace-export', version: 1, exportedAt: at, workspace: { id: 'ws_bench', name: 'bench' }, playbooks: [], nodes: [], links: [], annotations: [], feedback: [], ...parts });
  const largeImportNodes = Array.from({ length: 120_000 }, (_, i) => ({
    id: `cn_bench${i}`, slug: `imported-${i}`, title: `Imported ${i}`, description: `Imported node ${i}`, content: `See [[imported-${i + 1}]].`,
    nodeType: 'reference', importance: 50, readFirst: false, edgeCaseOnly: false, agentSummary: null, status: 'live', createdAt: at, updatedAt: at, archivedAt: null,
  }));
  const largeImport = Buffer.from(exportDoc({
    nodes: largeImportNodes,
    links: largeImportNodes.slice(1).map((n, i) => ({ id: `lnk_bench${i}`, sourceType: 'context_node', sourceId: largeImportNodes[i].id, targetId: n.id, linkType: 'references', origin: 'manual', createdAt: at })),
  }));
  const emptyWorkspace = async () => `/api/v1/workspaces/${(await api(base, 'POST', '/api/v1/admin/workspaces', adminToken, { name: 'Import bench', ownerUserId: user.id, plan: 'enterprise' })).id}`;
  const importTargets = [await emptyWorkspace(), await emptyWorkspace()];
  const feedbackIds = Buffer.from(exportDoc({ feedback: Array.from({ length: 300_000 }, (_, i) => ({ id: `fb_${i}` })) }));
  const post = (path: string, body: string | Buffer, extra: Partial<WriteRequest> = {}) => (): WriteRequest => ({ method: 'POST', path, body, ...extra });
  const hostile: WriteCase[] = [
    { name: 'mcp: 80,000 {}', what: 'an MCP request of a JSON array of 80,000 empty objects (400)', expect: 400, request: post(`${wsPath}/mcp`, `[${Array(80_000).fill('{}').join(',')}]`, { headers: { accept: 'application/json, text/event-stream' } }) },
    { name: 'import: 50,000 {}', what: 'a bulk node import of 50,000 empty items (400)', expect: 400, request: post(`${wsPath}/context-nodes/import`, `{"nodes":[${Array(50_000).fill('{}').join(',')}]}`) },
    { name: 'ws import: ids', what: 'a workspace import of 300,000 feedback items holding only an id (400)', expect: 400, request: post(`${importTargets[0]}/import`, feedbackIds) },
    { name: 'ws import: 120K', what: `a workspace import of 120,000 nodes and 119,999 links (201)`, expect: 201, repeat: 1, warm: false, request: post(`${importTargets[1]}/import`, largeImport) },
    { name: 'ws import: 65 MiB', what: 'a workspace import over the body limit (413)', expect: 413, request: post(`${importTargets[0]}/import`, Buffer.alloc(65 * 1024 * 1024, 0x20)) },
    { name: 'analyst: 335 MB', what: "RETURN reduce(s='', x IN range(1,25) | s+s+'xxxxxxxxxx') (422: past the heap of its query process)", expect: 422, repeat: 1, request: post('/api/v1/admin/cypher', JSON.stringify({ query: "RETURN reduce(s = '', x IN range(1, 25) | s + s + 'xxxxxxxxxx') AS big" }), { token: adminToken }) },
    { name: 'webhook: 60,000', what: 'a webhook subscription naming an event type 60,000 times (400)', expect: 400, request: post(`${wsPath}/webhooks`, JSON.stringify({ url: 'https://example.com/hook', eventTypes: Array(60_000).fill('node.created') })) },
    { name: 'key: 900 KB', what: 'a body whose one key is 900 KB long (400)', expect: 400, request: post(`${wsPath}/context-nodes`, `{"${'k'.repeat(900_000)}":1}`) },
  ];
  cases.push(...hostile);

  const lagMaxMs = async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const m = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? ([0-9.e+-]+)$/m.exec(text);
    if (!m) throw new Error('/metrics has no nodejs_eventloop_lag_max_seconds');
    return Number(m[1]) * 1000;
  };

  const send = async (r: WriteRequest, c: WriteCase) => {
    const res = await fetch(base + r.path, {
      method: r.method,
      headers: { authorization: `Bearer ${r.token ?? key}`, 'content-type': 'application/json', ...r.headers },
      body: r.body as BodyInit,
    });
    const answer = Buffer.from(await res.arrayBuffer());
    if (res.status !== c.expect) console.log(`  ${c.name}: ${r.method} ${r.path} answered ${res.status}: ${answer.toString('utf8', 0, 300)}`);
    return res.status;
  };

  const results: WriteResult[] = [];
  const idle = async () => {
    await lagMaxMs();
    await new Promise((r) => setTimeout(r, 1000));
    return lagMaxMs();
  };
  console.log(`idle process, 1 s: longest event-loop delay ${fmt(await idle(), 1)} ms (the 10 ms sampling interval plus jitter)`);

  for (const c of cases) {
    const requests = Array.from({ length: c.repeat ?? REPEAT }, (_, i) => c.request(i));
    const bodyBytes = Buffer.byteLength(requests[0].body);
    // One write of the case first, not measured: the first run of a code path compiles it (once per process).
    if (c.warm ?? true) await send(c.request(REPEAT), c);
    await lagMaxMs();
    const probe = await healthzProbe(base);
    const times: number[] = [];
    const statuses = new Map<number, number>();
    for (const r of requests) {
      const t = performance.now();
      const status = await send(r, c);
      times.push(performance.now() - t);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    // A few samples after the last answer, so that a case of quick requests still has some (the first interval
    // after a reset is not recorded).
    await new Promise((r) => setTimeout(r, 60));
    const eventLoopMaxMs = await lagMaxMs();
    const healthzMax = await probe.stop();
    times.sort((a, b) => a - b);
    const result: WriteResult = {
      name: c.name,
      what: c.what,
      bodyBytes,
      status: [...statuses].map(([s, n]) => `${n}×${s}`).join(','),
      writeMsMedian: times[Math.floor(times.length / 2)],
      writeMsMax: times[times.length - 1],
      eventLoopMaxMs,
      healthzMaxMs: healthzMax,
    };
    results.push(result);
    console.log(writeLine(result));
  }
  await stack.stop(proc);
  return results;
}

/**
 * GET /healthz asked again and again, from the poller the tests use (a process of its own), until stop() says
 * the longest round trip it saw.
 */
async function healthzProbe(base: string): Promise<{ stop: () => Promise<number> }> {
  const poller = spawn(process.execPath, [path.join(projectRoot, 'test', 'support', 'healthz-poller.mjs'), base], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: poller.stdout! })[Symbol.asyncIterator]();
  if ((await lines.next()).value !== 'ready') throw new Error('the /healthz probe did not start');
  return {
    stop: async () => {
      poller.stdin!.write('stop\n');
      const { worst } = JSON.parse((await lines.next()).value as string) as { worst: number };
      return worst;
    },
  };
}

export function writeLine(r: WriteResult): string {
  const verdict = r.eventLoopMaxMs < TARGET_MS ? 'met' : 'MISSED';
  return (
    `  ${r.name.padEnd(16)} ${kb(r.bodyBytes).padStart(10)}  ${r.status.padEnd(6)}  write p50 ${fmt(r.writeMsMedian, 0).padStart(5)} max ${fmt(r.writeMsMax, 0).padStart(5)} ms` +
    `  event-loop delay max ${fmt(r.eventLoopMaxMs, 1).padStart(6)} ms  /healthz max ${fmt(r.healthzMaxMs, 1).padStart(6)} ms  ${verdict}`
  );
}

export function writeTable(results: WriteResult[], markdown: boolean): string[] {
  if (!markdown) return results.map(writeLine);
  return [
    `| case | what | body | answers | write p50 / max ms | longest event-loop delay ms | longest /healthz ms | < ${TARGET_MS} ms |`,
    '|---|---|---:|---|---:|---:|---:|---|',
    ...results.map((r) => `| ${r.name} | ${r.what} | ${kb(r.bodyBytes)} | ${r.status} | ${fmt(r.writeMsMedian, 0)} / ${fmt(r.writeMsMax, 0)} | ${fmt(r.eventLoopMaxMs, 1)} | ${fmt(r.healthzMaxMs, 1)} | ${r.eventLoopMaxMs < TARGET_MS ? 'met' : 'missed'} |`),
  ];
}

/** The whole `--write-stalls` run: its own stores under <dataDir>/writes, the cases, the tables. */
export async function runWrites(o: { portFrom: number; dataDir: string; logDir: string; heap: string; checkout: ApiCheckout; cpuProfDir?: string }): Promise<WriteResult[]> {
  return onFreshStores({ ...o, pageCacheMb: 256, name: 'writes' }, (stack, dataDir) => measureWrites({ stack, checkout: o.checkout, dataDir, cpuProfDir: o.cpuProfDir }));
}
