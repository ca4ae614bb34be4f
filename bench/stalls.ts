/**
 * `npm run bench -- --write-stalls`: the longest event-loop delay of the API process while the worst case each input
 * bound accepts is written, and while the largest body each bulk or analyst route takes is handled, beside an
 * ordinary write's. Other requests wait that long: the target bounds it.
 *
 * The delay is read inside the API from what it already exports: prom-client's `nodejs_eventloop_lag_max_seconds`
 * (monitorEventLoopDelay, whose sampling interval is part of every figure, an idle process's too), reset by each scrape
 * of /metrics. A case: one write unmeasured (a code path compiles on its first run), a scrape, the writes one after
 * another, a scrape. Meanwhile the tests' /healthz poller, a process of its own (the bench's own sending of a body
 * of tens of MiB would hold up polls made from here), keeps the longest round trip another client saw.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { PlaybooksClient } from '@playbooks/client';
import { adminCreateWorkspace } from '@playbooks/client/api';
import { maxBodyBytes, maxJsonDepth } from '../src/http/json-body.js';
import { projectRoot } from '../src/infra/project-root.js';
import { CreateBody, maxImportNodes } from '../src/nodes/schemas.js';
import { maxWikilinkTargets } from '../src/nodes/wikilinks.js';
import type { Checkout } from './checkout.js';
import { freshApi } from './fresh-api.js';
import { fmt, table } from './report.js';
import type { Options } from './options.js';
import type { Stack } from './stack.js';

export const TARGET_MS = 50;
const REPEAT = 5;
/** A node content just under its bound, leaving room for the rest of the body. */
const CONTENT = CreateBody.properties.content.maxLength! - 1000;

/** `idem`: sent with an Idempotency-Key (its answer kept in Redis); `as`: another key than the user's. */
interface Case { name: string; expect: number; path: string; body: string | Buffer; idem?: boolean; as?: PlaybooksClient; once?: boolean }

const prose = (chars: number) => 'The team reviews every brief against the brand voice before it ships. '.repeat(Math.ceil(chars / 70)).slice(0, chars);
const linking = (names: string[]) => names.map((n, i) => prose(Math.floor(CONTENT / names.length) - n.length - 5) + `[[${n}]]${i % 2 ? '\n\n' : ' '}`).join('');
/** Backtick runs of lengths 1, 2, 3, … in one paragraph: none closes another. */
const backticks = () => Array.from({ length: Math.floor(Math.sqrt(2 * CONTENT)) }, (_, n) => '`'.repeat(n + 1) + 'x').join('').slice(0, CONTENT);
function deep(): object {
  let inner: object = { instructions: 'innermost' };
  // The body is level 0 and `content` level 1: the innermost object may be at level maxJsonDepth - 1.
  for (let level = maxJsonDepth - 2; level >= 1; level--) inner = { level, text: prose(200), next: inner };
  return inner;
}
const widest = () => Object.fromEntries(Array.from({ length: Math.floor((maxBodyBytes - 200) / 12) }, (_, i) => [`f${String(i).padStart(6, '0')}`, 1]));

export async function runStalls(o: Options, stack: Stack, checkout: Checkout) {
  const { adminToken, api, admin, user, key } = await freshApi(o, stack, checkout, 'stalls', 256);
  const workspace = async () => (await adminCreateWorkspace({ client: admin, body: { name: 'Stalls', ownerUserId: user.id, plan: 'enterprise' }, throwOnError: true })).data.id;
  const client = (workspaceId: string, apiKey = key) => new PlaybooksClient({ baseUrl: api.url, apiKey, workspaceId, retry: false, timeoutMs: 10 * 60_000 });
  const ws = await workspace();
  const user1 = client(ws);
  // The targets of the wikilinks exist, so that every link resolves.
  const targets = Array.from({ length: maxWikilinkTargets }, (_, i) => `target-${i}`);
  await user1.nodes.import({ nodes: targets.slice(0, maxImportNodes).map((slug) => ({ slug, title: slug, description: 'a wikilink target' })) });
  const { id: playbookId } = await user1.playbooks.create({ title: 'Stalls', version: { content: { instructions: 'v1' } } });
  const [w, importA, importB] = [`/api/v1/workspaces/${ws}`, `/api/v1/workspaces/${await workspace()}/import`, `/api/v1/workspaces/${await workspace()}/import`];

  let serial = 0;
  const node = (content: string) => () => JSON.stringify({ title: `Node ${serial++}`, description: 'bench', content });
  const version = (content: object) => JSON.stringify({ content, changeNote: 'bench' });
  const at = new Date().toISOString();
  const exportDoc = (parts: object) => Buffer.from(JSON.stringify({ format: 'playbooks-workspace-export', version: 1, exportedAt: at, workspace: { id: 'ws_bench', name: 'bench' }, playbooks: [], nodes: [], links: [], annotations: [], feedback: [], ...parts }));
  const nodes = Array.from({ length: 120_000 }, (_, i) => ({ id: `cn_bench${i}`, slug: `imported-${i}`, title: `Imported ${i}`, description: 'imported', content: `See [[imported-${i + 1}]].`, nodeType: 'reference', importance: 50, readFirst: false, edgeCaseOnly: false, agentSummary: null, status: 'live', createdAt: at, updatedAt: at, archivedAt: null }));
  const cases: (Omit<Case, 'body'> & { body: Case['body'] | (() => string) })[] = [
    { name: 'ordinary node of 1.7 KB, 2 wikilinks', expect: 201, path: `${w}/context-nodes`, body: node(`${prose(1650)} See [[target-1]] and [[target-2]].`) },
    { name: `node of ${Math.round(CONTENT / 1000)} KB, ${maxWikilinkTargets} distinct wikilinks`, expect: 201, path: `${w}/context-nodes`, body: node(linking(targets)) },
    { name: 'the same with an Idempotency-Key', expect: 201, path: `${w}/context-nodes`, body: node(linking(targets)), idem: true },
    { name: `node of ${Math.round(CONTENT / 1000)} KB of backtick runs`, expect: 201, path: `${w}/context-nodes`, body: node(backticks()) },
    { name: `playbook version nested ${maxJsonDepth - 1} levels`, expect: 201, path: `${w}/playbooks/${playbookId}/versions`, body: version(deep()) },
    { name: 'playbook version of ~1 MiB of fields', expect: 201, path: `${w}/playbooks/${playbookId}/versions`, body: version(widest()) },
    { name: 'the same with an Idempotency-Key', expect: 201, path: `${w}/playbooks/${playbookId}/versions`, body: version(widest()), idem: true },
    { name: `refused: ${maxWikilinkTargets + 1} wikilinks`, expect: 400, path: `${w}/context-nodes`, body: node(linking([...targets, 'one-too-many'])) },
    { name: 'refused: ~1 MiB of nested arrays', expect: 400, path: `${w}/playbooks/${playbookId}/versions`, body: `{"content":${'['.repeat(maxBodyBytes / 2 - 20)}${']'.repeat(maxBodyBytes / 2 - 20)}}` },
    { name: 'MCP: a JSON array of 80,000 {}', expect: 400, path: `${w}/mcp`, body: `[${Array(80_000).fill('{}').join(',')}]` },
    { name: 'bulk node import of 50,000 {}', expect: 400, path: `${w}/context-nodes/import`, body: `{"nodes":[${Array(50_000).fill('{}').join(',')}]}` },
    { name: 'workspace import of 300,000 feedback ids', expect: 400, path: importA, body: exportDoc({ feedback: Array.from({ length: 300_000 }, (_, i) => ({ id: `fb_${i}` })) }) },
    { name: 'workspace import of 120,000 nodes and links', expect: 201, path: importB, once: true, body: exportDoc({ nodes, links: nodes.slice(1).map((n, i) => ({ id: `lnk_bench${i}`, sourceType: 'context_node', sourceId: nodes[i].id, targetId: n.id, linkType: 'references', origin: 'manual', createdAt: at })) }) },
    { name: 'workspace import over the body limit', expect: 413, path: importA, body: Buffer.alloc(65 * 2 ** 20, 0x20) },
    { name: "analyst: reduce(s='', x IN range(1,25) | s+s+'x…')", expect: 422, path: '/api/v1/admin/cypher', once: true, as: client('', adminToken), body: JSON.stringify({ query: "RETURN reduce(s = '', x IN range(1, 25) | s + s + 'xxxxxxxxxx') AS big" }) },
    { name: 'webhook naming an event type 60,000 times', expect: 400, path: `${w}/webhooks`, body: JSON.stringify({ url: 'https://example.com/hook', eventTypes: Array(60_000).fill('node.created') }) },
    { name: 'a body whose one key is 900 KB', expect: 400, path: `${w}/context-nodes`, body: `{"${'k'.repeat(900_000)}":1}` },
  ];

  const lagMaxMs = async () => Number(/^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)$/m.exec(await (await user1.raw('GET', '/metrics')).text())?.[1]) * 1000;
  const send = async (c: Case) => {
    const t = performance.now();
    // Not idempotent: the SDK sends it with an Idempotency-Key.
    const answer = await (c.as ?? user1).raw('POST', c.path, { body: c.body as BodyInit, headers: { 'content-type': 'application/json' }, idempotent: !c.idem });
    const text = await answer.text();
    if (answer.status !== c.expect) console.log(`  ${c.name}: answered ${answer.status}: ${text.slice(0, 300)}`);
    return { status: answer.status, ms: performance.now() - t };
  };
  const rows: string[][] = [];
  const results = [];
  console.log(`\n== ${cases.length} cases, ${REPEAT} writes each after one unmeasured (one, not warmed, where it is long)`);
  for (const c of cases) {
    const one = (): Case => ({ ...c, body: typeof c.body === 'function' ? c.body() : c.body });
    if (!c.once) await send(one());
    await lagMaxMs();
    const poller = spawn(process.execPath, [path.join(projectRoot, 'test', 'support', 'healthz-poller.mjs'), api.url], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: poller.stdout! })[Symbol.asyncIterator]();
    await lines.next(); // ready
    const sent: { status: number; ms: number }[] = [];
    for (let i = 0; i < (c.once ? 1 : REPEAT); i++) sent.push(await send(one()));
    await new Promise((r) => setTimeout(r, 60)); // a few samples after the last answer
    const eventLoopMs = await lagMaxMs();
    poller.stdin!.write('stop\n');
    const healthzMs = (JSON.parse((await lines.next()).value as string) as { worst: number }).worst;
    const times = sent.map((s) => s.ms).sort((a, b) => a - b);
    const r = { case: c.name, kb: Buffer.byteLength(one().body) / 1024, answers: [...new Set(sent.map((s) => s.status))].map((s) => `${sent.filter((x) => x.status === s).length}×${s}`).join(','), p50: times[Math.floor(times.length / 2)], max: times[times.length - 1], eventLoopMs, healthzMs };
    results.push(r);
    rows.push([r.case, fmt(r.kb, 0), r.answers, `${fmt(r.p50, 0)} / ${fmt(r.max, 0)}`, fmt(eventLoopMs), fmt(healthzMs), eventLoopMs < TARGET_MS ? 'met' : 'MISSED']);
    console.log(`  ${r.case.padEnd(48)} event-loop delay ${fmt(eventLoopMs).padStart(6)} ms  /healthz ${fmt(healthzMs).padStart(6)} ms`);
  }
  const out = (markdown: boolean) => table(['case', 'body KB', 'answers', 'handling p50 / max ms', 'longest event-loop delay ms', 'longest /healthz ms', `< ${TARGET_MS} ms`], rows, markdown, 'lrlrrrl');
  console.log(['', '== event-loop delay while writing', ...out(false)].join('\n'));
  return { md: ['', '### Event-loop delay while writing', '', ...out(true)], json: { targetMs: TARGET_MS, cases: results } };
}
