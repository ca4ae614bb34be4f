/**
 * `npm run bench -- --writes`: how many single writes a second ONE workspace takes (many writers on one workspace
 * is the contention measured), against what Neo4j takes, and what recording them costs.
 *
 * On a fresh store under <data-dir>/writes, each measurement into a workspace of its own, each workspace with a
 * webhook subscription delivered meanwhile to a receiver on 127.0.0.1:
 *  1. each kind of write (a node whose content has two wikilinks to existing nodes, a manual link between existing
 *     nodes, an annotation, a feedback item) at 16 and 64 clients through the API (autocannon, one write at a time
 *     per client) and, as the floor, the same repository calls from the bench through one neo4j-driver: the
 *     service's statements and parameters without HTTP, the gate, Redis or validation. Rounds alternate.
 *  2. node creates at 16 clients through the API and through a second process of it started with AUDIT=off (no
 *     audit event, no outbox record: src/config.ts), rounds alternating. A checkout without that switch records
 *     events anyway: then the cost is reported as not measured.
 * The floors mirror the order of the service's calls (src/nodes/service.ts, annotations/, feedback/): when a write
 * path changes its sequence, change it here too.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { AnnotationRepository } from '../src/annotations/repository.js';
import { type AuditStamp, contentDigested, recordAudit } from '../src/audit/recorder.js';
import { FeedbackRepository } from '../src/feedback/repository.js';
import { firstFreeSlug, slugBase } from '../src/api/slug.js';
import { newId } from '../src/infra/ids.js';
import type { GraphExecutor } from '../src/infra/neo4j.js';
import type { LinkType } from '../src/nodes/link-types.js';
import { NodeRepository } from '../src/nodes/repository.js';
import { withDefaults } from '../src/nodes/node-fields.js';
import { tokenCountsOf } from '../src/tokens/token-count.js';
import { syncWikilinks } from '../src/nodes/wikilink-sync.js';
import { nameKey } from '../src/nodes/wikilinks.js';
import { adminCreateUser, adminCreateUserKey, adminCreateWorkspace, createClient } from '@playbooks/client/api';
import { PlaybooksClient } from '@playbooks/client';
import type { Checkout } from './checkout.js';
import { type HttpRequest, type Job, type Measured, concurrentLoad, httpLoad, measureInRounds } from './load.js';
import { fmt, table } from './report.js';
import type { Options } from './options.js';
import type { Stack } from './stack.js';

export const TARGETS = { nodesPerS: 300, ofFloor: 0.5, auditCost: 0.15 };
const CLIENTS = [16, 64];
const AUDIT_CLIENTS = 16;
/** Nodes made in each workspace before it is measured: link ends and annotation targets. */
const TARGET_NODES = 250;
const LINK_TYPE: LinkType = 'relates-to';
const SCOPE = 'workspace_overlay';
/** A kind that does not change ranking, so no new graph generation follows: the write itself. */
const FEEDBACK_TYPE = 'helpful';
const KINDS = ['node', 'link', 'annotation', 'feedback'] as const;
type Kind = (typeof KINDS)[number];

interface Space { ws: string; nodes: string[]; next: Record<Kind, number> }
interface Floor { graph: GraphExecutor; nodes: NodeRepository; annotations: AnnotationRepository; feedback: FeedbackRepository; stamp: (now: string) => AuditStamp; userId: string }

/**
 * A new node links to two of the workspace's nodes, as an agent's note links to the context it builds on (to nodes
 * other clients write at that moment, each write would wait for the next: docs/graph-model.md, "What a write locks").
 */
const nodeBody = (n: number) => ({ title: `Node ${n}`, description: 'A node written by the write bench', content: `Notes on ${n}: see [[Target ${(n * 7) % TARGET_NODES}]] and [[Target ${(n * 13 + 5) % TARGET_NODES}]].` });
/** The k-th pair of distinct nodes, never the same pair twice for k below n·(n−1). */
const pair = (nodes: string[], k: number) => [nodes[k % nodes.length], nodes[(k + 1 + (Math.floor(k / nodes.length) % (nodes.length - 1))) % nodes.length]];
const remark = (s: Space, k: number) => ({ targetType: 'context_node' as const, targetId: s.nodes[k % s.nodes.length], title: `Remark ${k}` });

/** The k-th write of each kind into a space: its request to the API, and its floor. */
const WRITES: Record<Kind, { request: (s: Space, k: number) => { path: string; body: object }; floor: (f: Floor, s: Space, k: number, now: string) => Promise<unknown> }> = {
  node: {
    request: (_s, k) => ({ path: '/context-nodes', body: nodeBody(k) }),
    floor: (f, s, k, now) => f.graph.writeTx(async (tx) => {
      const fields = withDefaults(nodeBody(k));
      const base = slugBase(fields.title, 'node');
      const slug = firstFreeSlug(base, new Set((await f.nodes.claimSlugs(tx, s.ws, [nameKey(base)], base)).map((t) => t.slug)));
      const node = { id: newId('cn'), slug, ...fields, status: 'live' as const, createdAt: now, updatedAt: now, archivedAt: null };
      await f.nodes.create(tx, s.ws, [{ ...node, ...tokenCountsOf(node) }]);
      await syncWikilinks(f.nodes, tx, s.ws, { named: [node], contents: [node] }, now);
      const { id, createdAt, updatedAt, archivedAt, ...after } = node;
      await recordAudit(tx, f.stamp(now), { action: 'node.created', workspaceId: s.ws, targetIds: [id], after: contentDigested(after) });
      return f.nodes.get(tx, s.ws, id);
    }),
  },
  link: {
    request: (s, k) => ({ path: `/context-nodes/${pair(s.nodes, k)[0]}/links`, body: { targetId: pair(s.nodes, k)[1], linkType: LINK_TYPE } }),
    floor: (f, s, k, now) => f.graph.writeTx(async (tx) => {
      const [sourceId, targetId] = pair(s.nodes, k);
      const linkId = newId('lnk');
      await f.nodes.createLink(tx, { workspaceId: s.ws, sourceType: 'context_node', sourceId, targetId, linkType: LINK_TYPE, linkId, now });
      const after = { sourceId, sourceType: 'context_node', targetId, linkType: LINK_TYPE, origin: 'manual' };
      await recordAudit(tx, f.stamp(now), { action: 'link.created', workspaceId: s.ws, targetIds: [linkId, sourceId, targetId], after });
    }),
  },
  annotation: {
    request: (s, k) => ({ path: '/context/annotations', body: { ...remark(s, k), scopeType: SCOPE, content: 'A remark written by the write bench.' } }),
    floor: (f, s, k, now) => f.annotations.create(s.ws, { id: newId('ann'), ...remark(s, k), scopeType: SCOPE, content: 'A remark written by the write bench.', source: 'human', authorId: f.userId, authorKind: 'user', createdAt: now }, f.stamp(now)),
  },
  feedback: {
    request: (s, k) => {
      const { title, ...target } = remark(s, k);
      return { path: '/context/feedback', body: { ...target, summary: title, feedbackType: FEEDBACK_TYPE } };
    },
    floor: (f, s, k, now) => {
      const { title, ...target } = remark(s, k);
      return f.feedback.create(s.ws, { id: newId('fb'), ...target, feedbackType: FEEDBACK_TYPE, summary: title, status: 'open', authorId: f.userId, authorKind: 'user', createdAt: now, updatedAt: now }, f.stamp(now));
    },
  },
};

/** A webhook receiver on 127.0.0.1 that answers 204 and counts. */
async function receiver() {
  let received = 0;
  const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end(() => (received += 1))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received: () => received, close: () => new Promise((r) => server.close(r)) };
}

export async function runWrites(o: Options, stack: Stack, checkout: Checkout) {
  const dataDir = path.join(o.dataDir, 'writes');
  rmSync(dataDir, { recursive: true, force: true });
  await stack.startStores({ dataDir, heap: o.neo4jHeap, pageCacheMb: 512 });
  const adminToken = randomBytes(24).toString('hex');
  const env = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on' };
  const api = await stack.startApi('api', { checkout, adminToken, dataDir, env, cpuProfDir: o.cpuProfDir });
  const apiOff = await stack.startApi('api-audit-off', { checkout, adminToken, dataDir, env: { ...env, AUDIT: 'off' } });
  const admin = createClient({ baseUrl: api.url, auth: () => adminToken });
  const { data: user } = await adminCreateUser({ client: admin, body: { email: `writes-${o.stamp}@bench.example`, name: 'Writes' }, throwOnError: true });
  const { data: { key } } = await adminCreateUserKey({ client: admin, path: { userId: user.id }, body: { label: 'bench writes' }, throwOnError: true });
  const hook = await receiver();
  const space = async (name: string): Promise<Space> => {
    const { data: { id: ws } } = await adminCreateWorkspace({ client: admin, body: { name, ownerUserId: user.id, plan: 'enterprise' }, throwOnError: true });
    const client = new PlaybooksClient({ baseUrl: api.url, apiKey: key, workspaceId: ws });
    await client.webhooks.create({ url: `${hook.url}/${ws}`, eventTypes: ['node.created', 'link.created', 'feedback.created'] });
    const { nodes } = await client.nodes.import({ nodes: Array.from({ length: TARGET_NODES }, (_, i) => ({ slug: `target-${i}`, title: `Target ${i}`, description: 'A target of links and remarks' })) });
    return { ws, nodes: nodes.map((n) => n.id!), next: { node: 0, link: 0, annotation: 0, feedback: 0 } };
  };
  const [apiSpace, floorSpace, onSpace, offSpace] = [await space('Writes through the API'), await space('Writes by the driver'), await space('Audit on'), await space('Audit off')];

  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const requests = (s: Space, kind: Kind): HttpRequest[] => [{
    method: 'POST', path: '/', headers,
    setupRequest: (req) => {
      const { path: p, body } = WRITES[kind].request(s, s.next[kind]++);
      return { ...req, path: `/api/v1/workspaces/${s.ws}${p}`, body: JSON.stringify(body) };
    },
  }];
  const floor: Floor = {
    graph: stack.graph, nodes: new NodeRepository(stack.graph), annotations: new AnnotationRepository(stack.graph), feedback: new FeedbackRepository(stack.graph), userId: user.id,
    stamp: (now) => ({ actor: { kind: 'user', id: user.id }, requestId: randomUUID(), at: now }),
  };
  const jobs = CLIENTS.flatMap((clients) => KINDS.flatMap((kind): Job<string>[] => [
    { key: `api|${kind}|${clients}`, proc: api.name, run: (w) => httpLoad({ ...w, baseUrl: api.url, requests: requests(apiSpace, kind), clients }) },
    { key: `floor|${kind}|${clients}`, run: (w) => concurrentLoad({ ...w, label: `floor ${kind}`, clients, work: () => WRITES[kind].floor(floor, floorSpace, floorSpace.next[kind]++, new Date().toISOString()) }) },
  ]));
  console.log(`\n== ${KINDS.join(', ')} at ${CLIENTS.join(' and ')} clients, through the API and by the driver, alternating`);
  // A fresh JVM compiles while the first writes run, and every statement is planned once: a warm-up of a few seconds.
  const measured = await measureInRounds(jobs, { ...o, warmupS: Math.max(3, o.warmupS) }, stack.meter);
  /** Calls that threw or timed out, and answers other than 201. */
  const errors = (m: Measured) => String(m.stats.errors + Object.entries(m.stats.status).filter(([s]) => s !== '201' && s !== 'ok').reduce((n, [, c]) => n + c, 0));
  const line = (label: string, m: Measured) => console.log(`  ${label.padEnd(26)} ${fmt(m.stats.rps).padStart(7)} writes/s  p50 ${fmt(m.stats.p50).padStart(6)}  p95 ${fmt(m.stats.p95).padStart(6)} ms  api cpu ms/write ${fmt(m.cpuMsPerRequest.proc, 2)}${errors(m) !== '0' ? `  ${errors(m)} errors` : ''}`);
  for (const [k, m] of measured) line(k.replace(/\|/g, ' '), m);

  console.log(`\n== node creates at ${AUDIT_CLIENTS} clients, audit on / AUDIT=off, alternating`);
  // The AUDIT=off process has served nothing yet: a longer warm-up, so that its first round does not pay for compiling.
  const variants = await measureInRounds([
    { key: 'on', proc: api.name, run: (w) => httpLoad({ ...w, baseUrl: api.url, requests: requests(onSpace, 'node'), clients: AUDIT_CLIENTS }) },
    { key: 'off', proc: apiOff.name, run: (w) => httpLoad({ ...w, baseUrl: apiOff.url, requests: requests(offSpace, 'node'), clients: AUDIT_CLIENTS }) },
  ], { ...o, rounds: Math.max(2, o.rounds), warmupS: Math.max(6, o.warmupS) }, stack.meter);
  for (const [k, m] of variants) line(`audit ${k}`, m);
  const offClient = new PlaybooksClient({ baseUrl: api.url, apiKey: key, workspaceId: offSpace.ws });
  const switchHonoured = (await offClient.audit.page({ action: 'node.created', limit: 1 })).events.length === 0;
  const [on, off] = [variants.get('on')!, variants.get('off')!];
  const cost = switchHonoured ? 1 - on.stats.rps / off.stats.rps : undefined;
  if (!switchHonoured) console.log('  the API under test recorded audit events with AUDIT=off (it has no such switch): the cost is not measured');
  const deliveries = hook.received();
  await hook.close();

  const get = (who: string, kind: Kind, clients: number) => measured.get(`${who}|${kind}|${clients}`)!;
  const nodes16 = get('api', 'node', 16).stats.rps;
  const ofFloor = nodes16 / get('floor', 'node', 16).stats.rps;
  const targets = [
    { target: 'node creates through the API, 16 clients', value: `${fmt(nodes16)}/s`, bound: `>= ${TARGETS.nodesPerS}/s`, met: nodes16 >= TARGETS.nodesPerS },
    { target: 'node creates, API / floor, 16 clients', value: fmt(ofFloor, 2), bound: `>= ${TARGETS.ofFloor}`, met: ofFloor >= TARGETS.ofFloor },
    { target: `audit + outbox cost, node creates, ${AUDIT_CLIENTS} clients`, value: `${fmt(cost === undefined ? undefined : 100 * cost)} %`, bound: `< ${TARGETS.auditCost * 100} %`, met: cost === undefined ? undefined : cost < TARGETS.auditCost },
  ];
  const lat = (m: Measured) => `${fmt(m.stats.p50)} / ${fmt(m.stats.p95)}`;
  const out = (markdown: boolean) => [
    ...table(['write', 'clients', 'API writes/s', 'API p50 / p95 ms', 'API cpu ms/write', 'floor writes/s', 'floor p50 / p95 ms', 'API / floor', 'errors API / floor'], CLIENTS.flatMap((c) => KINDS.map((k) => {
      const [a, f] = [get('api', k, c), get('floor', k, c)];
      return [k, String(c), fmt(a.stats.rps), lat(a), fmt(a.cpuMsPerRequest.proc, 2), fmt(f.stats.rps), lat(f), fmt(a.stats.rps / f.stats.rps, 2), `${errors(a)} / ${errors(f)}`];
    })), markdown),
    '',
    ...table([`node creates, ${AUDIT_CLIENTS} clients`, 'writes/s', 'p50 / p95 ms', 'API cpu ms/write', 'errors'], ([['audit and outbox on', on], ['AUDIT=off', off]] as const).map(([label, m]) => [label, fmt(m.stats.rps), lat(m), fmt(m.cpuMsPerRequest.proc, 2), errors(m)]), markdown),
    '',
    ...table(['target', 'value', 'bound', 'verdict'], targets.map((t) => [t.target, t.value, t.bound, t.met === undefined ? 'not measured' : t.met ? 'met' : 'MISSED']), markdown, 'lrrl'),
    '',
    `${deliveries} webhook deliveries received while the API ran.`,
  ];
  console.log(['', '== write throughput into one workspace', ...out(false)].join('\n'));
  return { md: ['', '### Write throughput into one workspace', '', ...out(true)], json: { writes: Object.fromEntries(measured), audit: { on, off, cost, switchHonoured }, targets, deliveries } };
}
