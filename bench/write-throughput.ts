/**
 * `npm run bench -- --writes`: how many writes a second ONE workspace takes, against what Neo4j itself allows.
 *
 * On one fresh store (its own Neo4j and Redis under <data-dir>/write-throughput), all into one workspace each
 * (many writers on one workspace is the contention measured):
 *  1. each kind of single write (a context node whose content has two wikilinks to existing nodes, a manual link
 *     between existing nodes, an annotation, a feedback item) at 16 and at 64 clients, each a loop of one write at a
 *     time, through the API (audit on, a webhook subscription to the events written, delivered meanwhile to a
 *     receiver on 127.0.0.1) and, as the floor, the same Cypher statements in the same order with parameters built
 *     by the service's own helpers, sent by one neo4j-driver in this process (a session and executeWrite per write,
 *     as GraphExecutor.writeTx). The API's rounds and the floor's alternate.
 *  2. the audit log's and the outbox's cost: node creation at 16 clients through the build as it is against the
 *     same build with recordAudit a no-op (audit.ts's ablation), in alternating rounds, each in a workspace of its own.
 * The floor's statements are the lists just below, one per kind of write: when the service's write path changes,
 * edit them there. They are run against the statement texts of the checkout under test (--api-dir), so a list that
 * no longer matches that checkout's statements shows as errors of the floor.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import neo4j, { type Driver } from 'neo4j-driver';
import { type AuditEntry, type AuditStamp, contentDigested, recordAudit } from '../src/audit/recorder.js';
import { firstFreeSlug, slugBase } from '../src/http/slug.js';
import { QueryCatalog } from '../src/infra/cypher-files.js';
import { newId } from '../src/infra/ids.js';
import type { GraphTx, Params, Row } from '../src/infra/neo4j.js';
import { linkTypeParams, relationshipTypeOf } from '../src/nodes/link-types.js';
import { namesOf } from '../src/nodes/names.js';
import type { ContextNode } from '../src/nodes/schemas.js';
import { stored } from '../src/nodes/repository.js';
import { withDefaults } from '../src/nodes/service.js';
import { tokenCountsOf } from '../src/nodes/token-count.js';
import { nameKey, parseWikilinks } from '../src/nodes/wikilinks.js';
import type { ApiCheckout } from './api-checkout.js';
import { api } from './api-client.js';
import { ablatedCheckout, receiver } from './audit.js';
import { DATABASE } from './floor.js';
import { percentile } from './load.js';
import { fmt } from './report.js';
import { type Stack, onFreshStores } from './stack.js';

// ---------------------------------------------------------------------------------------------------------------
// The floor: each write's statements, in the order the service runs them in one transaction. EDIT HERE when the
// service's write path changes.
// `then` reads a statement's rows for the params of later ones; `send` is a statement sent without awaiting its
// answer (GraphTx.send), awaited before commit.

const NODE_CREATE: Step<NodeWrite>[] = [
  // src/nodes/service.ts create(): the slug claimed (allocateSlug; every title here is new, so its base is free) …
  { name: 'nodes/claim-slug', params: (w) => ({ workspaceId: w.ws, keys: [nameKey(w.base)], base: w.base }), then: (rows, w) => void (w.node.slug = firstFreeSlug(w.base, new Set(rows[0].taken.map((t: { slug: string }) => t.slug)))) },
  { name: 'nodes/create', params: (w) => ({ workspaceId: w.ws, nodes: [stored({ ...w.node, ...tokenCountsOf(w.node) })] }) },
  // … src/nodes/wikilink-sync.ts syncWikilinks() …
  { name: 'links/sync-wikilinks', params: (w) => ({ workspaceId: w.ws, items: [{ nodeId: w.node.id, names: namesOf(w.node).sort(byKey), links: parseWikilinks(w.node.content).sort(byKey) }], resolve: true, now: w.now }) },
  // … the audit event, and the node with its links as the answer.
  { name: 'audit/record', send: true, params: (w) => audit(w, { action: 'node.created', targetIds: [w.node.id], after: contentDigested(fieldsOf(w.node)) }) },
  { name: 'nodes/get', params: (w) => ({ workspaceId: w.ws, nodeId: w.node.id, ...linkTypeParams }) },
];

const LINK_CREATE: Step<LinkWrite>[] = [
  // src/nodes/service.ts createLink()
  { name: 'links/create', params: (w) => ({ workspaceId: w.ws, sourceType: 'context_node', sourceId: w.sourceId, targetId: w.targetId, linkId: w.linkId, now: w.now, relType: relationshipTypeOf[LINK_TYPE] }) },
  { name: 'audit/record', send: true, params: (w) => audit(w, { action: 'link.created', targetIds: [w.linkId, w.sourceId, w.targetId], after: { sourceId: w.sourceId, sourceType: 'context_node', targetId: w.targetId, linkType: LINK_TYPE, origin: 'manual' } }) },
];

const ANNOTATION_CREATE: Step<RemarkWrite>[] = [
  // src/annotations/repository.ts create(), through writeAudited
  { name: 'annotations/create', params: (w) => ({ workspaceId: w.ws, targetType: 'context_node', targetId: w.targetId, annotation: { id: w.id, scopeType: SCOPE, title: w.title, content: w.text, source: 'human', authorId: w.userId, authorKind: 'user', createdAt: w.now } }) },
  { name: 'audit/record', send: true, params: (w) => audit(w, { action: 'annotation.created', targetIds: [w.id, w.targetId], after: { targetType: 'context_node', targetId: w.targetId, scopeType: SCOPE, title: w.title, source: 'human' } }) },
];

const FEEDBACK_CREATE: Step<RemarkWrite>[] = [
  // src/feedback/repository.ts create(), through writeAudited
  { name: 'feedback/create', params: (w) => ({ workspaceId: w.ws, targetType: 'context_node', targetId: w.targetId, feedback: { id: w.id, feedbackType: FEEDBACK_TYPE, summary: w.title, status: 'open', authorId: w.userId, authorKind: 'user', createdAt: w.now, updatedAt: w.now } }) },
  { name: 'audit/record', send: true, params: (w) => audit(w, { action: 'feedback.created', targetIds: [w.id, w.targetId], after: { targetType: 'context_node', targetId: w.targetId, feedbackType: FEEDBACK_TYPE, summary: w.title, status: 'open' } }) },
];
// ---------------------------------------------------------------------------------------------------------------

/** One statement of a write: its name in the catalog (cypher/queries), its params, what its rows set for later ones. */
interface Step<W> { name: string; params: (w: W) => Params; then?: (rows: Row[], w: W) => void; send?: boolean }
interface Base { ws: string; userId: string; now: string; stamp: AuditStamp }
interface NodeWrite extends Base { node: ContextNode; base: string }
interface LinkWrite extends Base { linkId: string; sourceId: string; targetId: string }
interface RemarkWrite extends Base { id: string; targetId: string; title: string; text: string }

const LINK_TYPE = 'relates-to';
/** Keys in the order the repository sends them (src/nodes/repository.ts sorts them, to lock them in one order). */
const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const SCOPE = 'workspace_overlay';
/** A kind that does not change ranking, so no new graph generation follows: the write itself. */
const FEEDBACK_TYPE = 'helpful';
const CLIENTS = [16, 64];
/** Nodes made in each workspace before it is measured: link ends and annotation targets. Links need unique pairs. */
const TARGET_NODES = 250;
const EVENT_TYPES = ['node.created', 'link.created', 'feedback.created'];
export const TARGETS = { nodesPerS: 300, ofFloor: 0.5, auditCost: 0.15 };

/** The params recordAudit sends with audit/record: the service's own event, caught instead of sent. */
function audit(w: Base, entry: Omit<AuditEntry, 'workspaceId'>): Params {
  let params: Params = {};
  void recordAudit({ send: (_: string, p: Params = {}) => void (params = p) } as GraphTx, w.stamp, { ...entry, workspaceId: w.ws });
  return params;
}

/** What node.created's `after` holds: the node without its id and times. */
function fieldsOf(node: ContextNode): Record<string, unknown> {
  const { id, createdAt, updatedAt, archivedAt, ...after } = node;
  return after;
}

/** A workspace measured: its id, the nodes made in it first, and a counter per kind (titles and pairs never repeat). */
interface Target { ws: string; nodes: string[]; next: Record<KindName, number> }
type KindName = 'node' | 'link' | 'annotation' | 'feedback';

/**
 * A new node's body: its content links to two of the workspace's nodes, as an agent's note links to the context it
 * builds on. (Links to the nodes other clients are writing at that moment would make each write wait for the next:
 * a wikilink and its target written at once take turns, docs/graph-model.md, "What a write locks".)
 */
const nodeBody = (n: number) => ({ title: `Node ${n}`, description: 'A node written by the write bench', content: `Notes on ${n}: see [[Target ${(n * 7) % TARGET_NODES}]] and [[Target ${(n * 13 + 5) % TARGET_NODES}]].` });
/** The k-th pair of distinct nodes, never the same pair twice for k below n·(n−1); consecutive k have distinct sources. */
const pair = (nodes: string[], k: number) => {
  const s = k % nodes.length;
  return [nodes[s], nodes[(s + 1 + (Math.floor(k / nodes.length) % (nodes.length - 1))) % nodes.length]];
};
const remark = (t: Target, k: number) => ({ targetId: t.nodes[k % t.nodes.length], title: `Remark ${k}`, text: 'A remark written by the write bench.' });

/** Each kind: its API request, and its floor write (the list above, with the params of the same k-th write). */
interface Kind { statements: string[]; request: (t: Target, k: number) => { path: string; body: unknown }; floor: (driver: Driver, catalog: QueryCatalog, t: Target, k: number, b: Base) => Promise<void> }
function kind<W>(steps: Step<W>[], request: Kind['request'], begin: (t: Target, k: number, b: Base) => W): Kind {
  return { statements: steps.map((s) => `${s.name}${s.send ? ' (sent)' : ''}`), request, floor: (driver, catalog, t, k, b) => runSteps(driver, catalog, steps, begin(t, k, b)) };
}
const KINDS: Record<KindName, Kind> = {
  node: kind(NODE_CREATE, (t, n) => ({ path: `/api/v1/workspaces/${t.ws}/context-nodes`, body: nodeBody(n) }), (_t, n, b): NodeWrite => {
    const fields = withDefaults(nodeBody(n));
    return { ...b, base: slugBase(fields.title, 'node'), node: { id: newId('cn'), slug: '', ...fields, status: 'live', createdAt: b.now, updatedAt: b.now, archivedAt: null } };
  }),
  link: kind(LINK_CREATE, (t, k) => {
    const [sourceId, targetId] = pair(t.nodes, k);
    return { path: `/api/v1/workspaces/${t.ws}/context-nodes/${sourceId}/links`, body: { targetId, linkType: LINK_TYPE } };
  }, (t, k, b) => {
    const [sourceId, targetId] = pair(t.nodes, k);
    return { ...b, linkId: newId('lnk'), sourceId, targetId };
  }),
  annotation: kind(ANNOTATION_CREATE, (t, k) => {
    const r = remark(t, k);
    return { path: `/api/v1/workspaces/${t.ws}/context/annotations`, body: { targetType: 'context_node', targetId: r.targetId, scopeType: SCOPE, title: r.title, content: r.text } };
  }, (t, k, b) => ({ ...b, id: newId('ann'), ...remark(t, k) })),
  feedback: kind(FEEDBACK_CREATE, (t, k) => {
    const r = remark(t, k);
    return { path: `/api/v1/workspaces/${t.ws}/context/feedback`, body: { targetType: 'context_node', targetId: r.targetId, feedbackType: FEEDBACK_TYPE, summary: r.title } };
  }, (t, k, b) => ({ ...b, id: newId('fb'), ...remark(t, k) })),
};
const KIND_NAMES = Object.keys(KINDS) as KindName[];

/** One floor write: its statements in one executeWrite, each answer read as the service reads it. */
async function runSteps<W>(driver: Driver, catalog: QueryCatalog, steps: Step<W>[], w: W): Promise<void> {
  const session = driver.session({ database: DATABASE, defaultAccessMode: neo4j.session.WRITE });
  try {
    await session.executeWrite(async (tx) => {
      const sent: Promise<void>[] = [];
      for (const step of steps) {
        const result = tx.run(catalog.toSend(step.name), step.params(w));
        if (step.send) {
          const done = Promise.resolve(result).then(() => undefined);
          done.catch(() => undefined);
          sent.push(done);
        } else step.then?.((await result).records.map((r) => r.toObject()), w);
      }
      await Promise.all(sent);
    });
  } finally {
    await session.close();
  }
}

export interface Measured { writes: number; seconds: number; writesPerS: number; p50: number; p95: number; errors: number }
export interface WriteThroughputResult {
  roundSeconds: number;
  rounds: number;
  warmupSeconds: number;
  api: ({ kind: KindName; clients: number } & Measured)[];
  floor: ({ kind: KindName; clients: number } & Measured)[];
  audit: { clients: number; on: Measured; off: Measured; cost: number };
  floorStatements: Record<KindName, string[]>;
  deliveriesReceived: number;
  targets: { target: string; value: number; limit: string; met: boolean }[];
}

interface Run { latencies: number[]; seconds: number; errors: number }
const seenErrors = new Set<string>();

/** `clients` loops, each one write at a time, for `seconds`; a write that throws is an error (the first of each label printed). */
async function loop(label: string, clients: number, seconds: number, write: () => Promise<void>): Promise<Run> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        await write();
        latencies.push(performance.now() - t0);
      } catch (err) {
        errors += 1;
        if (!seenErrors.has(label)) console.log(`  ${label}: first error: ${String((err as Error).message ?? err).slice(0, 300)}`);
        seenErrors.add(label);
      }
    }
  }));
  return { latencies, seconds: (performance.now() - started) / 1000, errors };
}

function summary(runs: Run[]): Measured {
  const sorted = Float64Array.from(runs.flatMap((r) => r.latencies)).sort();
  const seconds = runs.reduce((a, r) => a + r.seconds, 0);
  return { writes: sorted.length, seconds, writesPerS: sorted.length / seconds, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), errors: runs.reduce((a, r) => a + r.errors, 0) };
}

/** A warm-up of each job (discarded), then `rounds` rounds, the order rotated each round so that no job always follows the same one. */
async function inRounds<K>(jobs: { key: K; run: (seconds: number) => Promise<Run> }[], o: { warmupS: number; roundS: number; rounds: number }): Promise<Map<K, Measured>> {
  for (const j of jobs) await j.run(o.warmupS);
  const runs = new Map<K, Run[]>(jobs.map((j) => [j.key, []]));
  for (let round = 0; round < o.rounds; round++) {
    for (let i = 0; i < jobs.length; i++) {
      const j = jobs[(i + round) % jobs.length];
      runs.get(j.key)!.push(await j.run(o.roundS));
    }
  }
  return new Map([...runs].map(([k, r]) => [k, summary(r)]));
}

const line = (label: string, m: Measured) => `  ${label.padEnd(26)} ${fmt(m.writesPerS, 1).padStart(7)} writes/s  p50 ${fmt(m.p50, 1).padStart(7)} ms  p95 ${fmt(m.p95, 1).padStart(7)} ms${m.errors ? `  ${m.errors} errors` : ''}`;

export async function runWriteThroughput(o: { portFrom: number; dataDir: string; logDir: string; heap: string; checkout: ApiCheckout; durationS: number; warmupS: number; rounds: number; cpuProfDir?: string }): Promise<WriteThroughputResult> {
  return onFreshStores({ ...o, pageCacheMb: 512, name: 'write-throughput' }, (stack, dataDir) => measure(stack, dataDir, o));
}

async function measure(stack: Stack, dataDir: string, o: { checkout: ApiCheckout; durationS: number; warmupS: number; rounds: number; cpuProfDir?: string }): Promise<WriteThroughputResult> {
  const adminToken = randomUUID();
  const env = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on' };
  // --cpu-prof: the API as built only (not the ablated one), written when it stops.
  const full = await stack.startApi('api-write-throughput', { checkout: o.checkout, adminToken, dataDir, env, cpuProfDir: o.cpuProfDir });
  console.log(`API ${full.url} (pid ${full.pid})`);
  const user = await api(full.url, 'POST', '/api/v1/admin/users', adminToken, { email: 'writes@bench.example', name: 'Writes' });
  const { key } = await api(full.url, 'POST', `/api/v1/admin/users/${user.id}/keys`, adminToken, { label: 'bench writes' });
  const hook = await receiver();
  /** A workspace with its subscription and TARGET_NODES nodes (one bulk import), all through the API. */
  const workspace = async (name: string): Promise<Target> => {
    const ws = (await api(full.url, 'POST', '/api/v1/admin/workspaces', adminToken, { name, ownerUserId: user.id, plan: 'enterprise' })).id as string;
    await api(full.url, 'POST', `/api/v1/workspaces/${ws}/webhooks`, key, { url: `${hook.url}/${ws}`, eventTypes: EVENT_TYPES });
    const nodes = Array.from({ length: TARGET_NODES }, (_, i) => ({ slug: `target-${i}`, title: `Target ${i}`, description: 'A target of links, annotations and feedback' }));
    const imported = await api(full.url, 'POST', `/api/v1/workspaces/${ws}/context-nodes/import`, key, { nodes });
    return { ws, nodes: imported.nodes.map((n: { id: string }) => n.id), next: { node: 0, link: 0, annotation: 0, feedback: 0 } };
  };
  const [apiWs, onWs, offWs, floorWs] = [await workspace('Writes through the API'), await workspace('Audit on'), await workspace('Audit off'), await workspace('Writes by the raw driver')];

  const rounds = Math.max(1, o.rounds);
  const timing = { warmupS: o.warmupS, roundS: o.durationS / rounds, rounds };
  const httpWrite = (base: string, t: Target, k: KindName) => async () => {
    const { path: p, body } = KINDS[k].request(t, t.next[k]++);
    const res = await fetch(base + p, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST ${p} answered ${res.status}: ${text}`);
  };
  const jobs = (write: (k: KindName) => () => Promise<void>, who: string) =>
    CLIENTS.flatMap((clients) => KIND_NAMES.map((k) => ({ key: `${k}|${clients}`, run: (s: number) => loop(`${who} ${k}`, clients, s, write(k)) })));
  const rows = (m: Map<string, Measured>) => [...m].map(([key, v]) => ({ kind: key.split('|')[0] as KindName, clients: Number(key.split('|')[1]), ...v }));

  const catalog = new QueryCatalog(path.join(o.checkout.dir, 'cypher', 'queries'), undefined);
  const floorWrite = (k: KindName) => () => {
    const now = new Date().toISOString();
    const b: Base = { ws: floorWs.ws, userId: user.id, now, stamp: { actor: { kind: 'user', id: user.id }, requestId: randomUUID(), at: now } };
    return KINDS[k].floor(stack.driver!, catalog, floorWs, floorWs.next[k]++, b);
  };
  // The API's rounds and the floor's alternate, so that both meet Neo4j alike: a JVM that has just started compiles
  // for minutes, and whichever ran first would pay for it. The API stays up meanwhile; its dispatcher delivers the
  // outbox of both workspaces.
  console.log(`\n== through the API and by the raw driver (the floor), alternating: ${KIND_NAMES.join(', ')} at ${CLIENTS.join(' and ')} clients`);
  const both = await inRounds([...jobs((k) => httpWrite(full.url, apiWs, k), 'API'), ...jobs(floorWrite, 'floor')].map((j, i) => ({ ...j, key: `${i < CLIENTS.length * KIND_NAMES.length ? 'api' : 'floor'}|${j.key}` })), timing);
  const part = (who: string) => rows(new Map([...both].filter(([key]) => key.startsWith(`${who}|`)).map(([key, v]) => [key.slice(who.length + 1), v])));
  const apiRuns = part('api');
  const floorRuns = part('floor');
  for (const r of apiRuns) console.log(line(`API ${r.kind}, ${r.clients} cl.`, r));
  for (const r of floorRuns) console.log(line(`floor ${r.kind}, ${r.clients} cl.`, r));

  console.log('\n== audit log and outbox: node creates at 16 clients, audit on / off (ablated build), alternating rounds');
  const ablated = await stack.startApi('api-no-audit', { checkout: ablatedCheckout(o.checkout, path.join(dataDir, 'ablation')), adminToken, dataDir, env });
  const auditRounds = Math.max(2, rounds);
  // The ablated process has only just started: a longer warm-up, so that its first rounds do not pay for compiling.
  const variants = await inRounds([
    { key: 'on', run: (s: number) => loop('audit on', 16, s, httpWrite(full.url, onWs, 'node')) },
    { key: 'off', run: (s: number) => loop('audit off', 16, s, httpWrite(ablated.url, offWs, 'node')) },
  ], { warmupS: Math.max(6, o.warmupS), roundS: o.durationS / auditRounds, rounds: auditRounds });
  const on = variants.get('on')!;
  const off = variants.get('off')!;
  const cost = 1 - on.writesPerS / off.writesPerS;
  console.log(`${line('audit + outbox on', on)}\n${line('audit and outbox off', off)}\n  cost ${fmt(100 * cost, 1)} %`);
  const deliveriesReceived = hook.received();
  await stack.stop(ablated);
  await stack.stop(full);
  await hook.close();

  const rate = (list: typeof apiRuns, k: KindName, c: number) => list.find((r) => r.kind === k && r.clients === c)!.writesPerS;
  const nodes16 = rate(apiRuns, 'node', 16);
  const ofFloor = nodes16 / rate(floorRuns, 'node', 16);
  return {
    roundSeconds: timing.roundS, rounds, warmupSeconds: o.warmupS, api: apiRuns, floor: floorRuns,
    audit: { clients: 16, on, off, cost },
    floorStatements: Object.fromEntries(KIND_NAMES.map((k) => [k, KINDS[k].statements])) as Record<KindName, string[]>,
    deliveriesReceived,
    targets: [
      { target: 'node creates through the API, 16 clients', value: nodes16, limit: `>= ${TARGETS.nodesPerS}/s`, met: nodes16 >= TARGETS.nodesPerS },
      { target: 'node creates, API / floor, 16 clients', value: ofFloor, limit: `>= ${TARGETS.ofFloor}`, met: ofFloor >= TARGETS.ofFloor },
      { target: 'audit + outbox cost, node creates, 16 clients', value: cost, limit: `< ${TARGETS.auditCost * 100} %`, met: cost < TARGETS.auditCost },
    ],
  };
}

/** The rates side by side, the audit variants, then the targets; aligned columns on the console, a table in markdown. */
export function writeThroughputTable(r: WriteThroughputResult, markdown: boolean): string[] {
  const lat = (m: Measured) => `${fmt(m.p50, 1)} / ${fmt(m.p95, 1)}`;
  const head = ['write', 'clients', 'API writes/s', 'API p50 / p95 ms', 'API errors', 'floor writes/s', 'floor p50 / p95 ms', 'floor errors', 'API / floor'];
  const body = r.api.map((a) => {
    const f = r.floor.find((x) => x.kind === a.kind && x.clients === a.clients)!;
    return [a.kind, String(a.clients), fmt(a.writesPerS, 1), lat(a), String(a.errors), fmt(f.writesPerS, 1), lat(f), String(f.errors), fmt(a.writesPerS / f.writesPerS, 2)];
  });
  const auditHead = ['node creates, 16 clients', 'writes/s', 'p50 / p95 ms', 'errors', 'cost'];
  const auditBody = [['audit + outbox on', fmt(r.audit.on.writesPerS, 1), lat(r.audit.on), String(r.audit.on.errors), `${fmt(100 * r.audit.cost, 1)} %`], ['audit and outbox off (ablated)', fmt(r.audit.off.writesPerS, 1), lat(r.audit.off), String(r.audit.off.errors), '']];
  const targetHead = ['target', 'value', 'bound', 'verdict'];
  const targetBody = r.targets.map((t) => [t.target, t.limit.includes('%') ? `${fmt(100 * t.value, 1)} %` : fmt(t.value, t.limit.includes('/s') ? 1 : 2), t.limit, t.met ? 'met' : 'MISSED']);
  const grid = (h: string[], rows: string[][]) => {
    if (markdown) return [`| ${h.join(' | ')} |`, `|${h.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map((c) => `| ${c.join(' | ')} |`)];
    const widths = h.map((x, i) => Math.max(x.length, ...rows.map((c) => c[i].length)));
    const fit = (c: string[]) => '  ' + c.map((x, i) => (i === 0 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ');
    return [fit(h), ...rows.map(fit)];
  };
  return [
    ...grid(head, body), '',
    ...grid(auditHead, auditBody), '',
    ...grid(targetHead, targetBody), '',
    `${r.rounds} rounds of ${fmt(r.roundSeconds, 1)} s per row after a ${r.warmupSeconds} s warm-up (the audit rows: ${Math.max(2, r.rounds)} rounds each, after a warm-up of at least 2 s); ${r.deliveriesReceived} webhook deliveries received while the API ran.`,
    `Floor statements: ${KIND_NAMES.map((k) => `${k}: ${r.floorStatements[k].join(', ')}`).join('; ')}.`,
  ];
}
