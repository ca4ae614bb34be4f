/**
 * `--audit` (issue 34): what the audit log and the webhook outbox cost the write path, and how many deliveries a
 * second the dispatcher sustains to a local receiver.
 *
 * Node creation (POST …/context-nodes, CLIENTS clients, each its own unique title) in three variants, measured in
 * alternating rounds on one fresh store so that the machine's load falls on all three alike:
 *  - without: the same build with `recordAudit` made a no-op (an ablation copy of dist/ under the data directory,
 *    run by a second API process): no audit event, no outbox record;
 *  - audit: the build as it is, into a workspace without webhook subscriptions: one audit event per write;
 *  - audit + outbox: the build as it is, into a workspace with a subscription to node.created: the event and an
 *    outbox record per write, delivered meanwhile to a receiver on 127.0.0.1 (the delivery's own work included).
 * Then deliveries per second: BURST_WRITES nodes created in a workspace with BURST_SUBSCRIPTIONS subscriptions, and
 * the time until the receiver has every delivery.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { ApiCheckout } from './api-checkout.js';
import { api } from './api-client.js';
import { percentile } from './load.js';
import { fmt } from './report.js';
import { type Stack, onFreshStores } from './stack.js';

export const TARGET_COST = 0.15;
const CLIENTS = 16;
/** Subscriptions of the audit+outbox workspace: one, as most workspaces have. */
const SUBSCRIPTIONS = 1;
/** The delivery burst: this many subscriptions times BURST_WRITES node creations, drained at once. */
const BURST_SUBSCRIPTIONS = 50;
const BURST_WRITES = 20;

type Variant = 'without' | 'audit' | 'audit+outbox';
const VARIANTS: Variant[] = ['without', 'audit', 'audit+outbox'];

export interface AuditBenchResult {
  clients: number;
  roundSeconds: number;
  rounds: number;
  variants: { variant: Variant; writes: number; seconds: number; writesPerS: number; p50: number; p95: number; errors: number }[];
  cost: { audit: number; auditAndOutbox: number };
  deliveries: { backlog: number; seconds: number; perS: number; receivedInAll: number };
}

/** A copy of the checkout's build whose recordAudit does nothing: the "without" of the comparison (write-throughput.ts too). */
export function ablatedCheckout(checkout: ApiCheckout, dir: string): ApiCheckout {
  mkdirSync(dir, { recursive: true });
  cpSync(path.join(checkout.dir, 'dist'), path.join(dir, 'dist'), { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), readFileSync(path.join(checkout.dir, 'package.json')));
  for (const name of ['cypher', 'redis', 'node_modules']) if (!existsSync(path.join(dir, name))) symlinkSync(path.join(checkout.dir, name), path.join(dir, name));
  const recorder = path.join(dir, 'dist', 'src', 'audit', 'recorder.js');
  const code = readFileSync(recorder, 'utf8');
  const signature = 'export async function recordAudit(tx, stamp, entry) {';
  if (!code.includes(signature)) throw new Error(`${recorder}: recordAudit not found as expected; cannot build the ablation`);
  writeFileSync(recorder, code.replace(signature, `${signature}\n    return 'aud_ablated';`));
  return { ...checkout, dir, serverJs: path.join(dir, 'dist', 'src', 'server.js'), isHarness: false };
}

/** Waits until `done()` holds or `timeoutMs` has passed; whether it held. */
async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** A webhook receiver on 127.0.0.1 that answers 204 and counts. */
export async function receiver() {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received: () => received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

export async function runAuditBench(o: { portFrom: number; dataDir: string; logDir: string; heap: string; checkout: ApiCheckout; roundSeconds: number; rounds: number }): Promise<AuditBenchResult> {
  return onFreshStores({ ...o, pageCacheMb: 512, name: 'audit' }, (stack, dataDir) => measure(stack, dataDir, o));
}

async function measure(stack: Stack, dataDir: string, o: { checkout: ApiCheckout; roundSeconds: number; rounds: number }): Promise<AuditBenchResult> {
  const adminToken = randomBytes(24).toString('hex');
  const env = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on' };
  const full = await stack.startApi('api-audit', { checkout: o.checkout, adminToken, dataDir, env });
  const ablated = await stack.startApi('api-no-audit', { checkout: ablatedCheckout(o.checkout, path.join(dataDir, 'ablation')), adminToken, dataDir, env });
  console.log(`API as built ${full.url} (pid ${full.pid}), API without audit ${ablated.url} (pid ${ablated.pid})`);
  const user = await api(full.url, 'POST', '/api/v1/admin/users', adminToken, { email: 'audit@bench.example', name: 'Audit' });
  const { key } = await api(full.url, 'POST', `/api/v1/admin/users/${user.id}/keys`, adminToken, { label: 'bench audit' });
  const workspace = async (name: string) => (await api(full.url, 'POST', '/api/v1/admin/workspaces', adminToken, { name, ownerUserId: user.id, plan: 'enterprise' })).id as string;
  const target: Record<Variant, { base: string; ws: string }> = {
    without: { base: ablated.url, ws: await workspace('Without audit') },
    audit: { base: full.url, ws: await workspace('Audit') },
    'audit+outbox': { base: full.url, ws: await workspace('Audit and outbox') },
  };
  const hook = await receiver();
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    await api(full.url, 'POST', `/api/v1/workspaces/${target['audit+outbox'].ws}/webhooks`, key, { url: `${hook.url}/${i}`, eventTypes: ['node.created'] });
  }

  let serial = 0;
  /** Nodes each variant created, warm-up included (each one an outbox record per subscription in audit+outbox). */
  const created: Record<Variant, number> = { without: 0, audit: 0, 'audit+outbox': 0 };
  /** CLIENTS clients creating nodes for `seconds`; the latencies of every write. */
  async function load(variant: Variant, seconds: number) {
    const { base, ws } = target[variant];
    const latencies: number[] = [];
    let errors = 0;
    const deadline = performance.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < deadline) {
        const n = serial++;
        const t0 = performance.now();
        const res = await fetch(`${base}/api/v1/workspaces/${ws}/context-nodes`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `Node ${n}`, slug: `node-${n}`, description: 'A node written by the audit bench', content: `Some guidance, see [[node-${n + 1}]] and [[node-${n + 7}]].` }),
        });
        await res.arrayBuffer();
        if (res.status === 201) {
          latencies.push(performance.now() - t0);
          created[variant] += 1;
        } else errors += 1;
      }
    }));
    return { latencies, seconds: (performance.now() - started) / 1000, errors };
  }

  // Warm-up: each variant's statements planned and JIT-compiled before anything is measured.
  for (const v of VARIANTS) await load(v, 2);
  const runs = new Map<Variant, { latencies: number[]; seconds: number; errors: number }[]>(VARIANTS.map((v) => [v, []]));
  for (let round = 0; round < o.rounds; round++) {
    // Rotated order: no variant always follows the same one.
    const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]);
    for (const v of order) runs.get(v)!.push(await load(v, o.roundSeconds));
  }
  const variants = VARIANTS.map((variant) => {
    const r = runs.get(variant)!;
    const latencies = Float64Array.from(r.flatMap((x) => x.latencies)).sort();
    const seconds = r.reduce((a, x) => a + x.seconds, 0);
    return {
      variant, writes: latencies.length, seconds, writesPerS: latencies.length / seconds,
      p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), errors: r.reduce((a, x) => a + x.errors, 0),
    };
  });
  const rate = (v: Variant) => variants.find((x) => x.variant === v)!.writesPerS;
  const cost = { audit: 1 - rate('audit') / rate('without'), auditAndOutbox: 1 - rate('audit+outbox') / rate('without') };

  // Deliveries per second: a burst of outbox records at once, across many subscriptions (each keeps its own order).
  await until(() => hook.received() >= created['audit+outbox'] * SUBSCRIPTIONS, 120_000);
  const burstWs = await workspace('Delivery burst');
  for (let i = 0; i < BURST_SUBSCRIPTIONS; i++) {
    await api(full.url, 'POST', `/api/v1/workspaces/${burstWs}/webhooks`, key, { url: `${hook.url}/burst-${i}`, eventTypes: ['node.created'] });
  }
  const before = hook.received();
  const backlog = BURST_SUBSCRIPTIONS * BURST_WRITES;
  const t0 = performance.now();
  for (let i = 0; i < BURST_WRITES; i++) await api(full.url, 'POST', `/api/v1/workspaces/${burstWs}/context-nodes`, key, { title: `Burst ${i}`, description: 'burst' });
  const complete = await until(() => hook.received() - before >= backlog, 600_000);
  const seconds = (performance.now() - t0) / 1000;
  await hook.close();
  return {
    clients: CLIENTS, roundSeconds: o.roundSeconds, rounds: o.rounds, variants, cost,
    deliveries: { backlog, seconds, perS: complete ? backlog / seconds : 0, receivedInAll: hook.received() },
  };
}

export function auditTable(r: AuditBenchResult, markdown: boolean): string[] {
  const rows = r.variants.map((v) => [
    v.variant, `${fmt(v.writesPerS, 1)} writes/s`, `p50 ${fmt(v.p50, 1)} ms, p95 ${fmt(v.p95, 1)} ms`,
    v.variant === 'without' ? 'baseline' : `cost ${fmt(100 * (v.variant === 'audit' ? r.cost.audit : r.cost.auditAndOutbox), 1)} % ${(v.variant === 'audit' ? r.cost.audit : r.cost.auditAndOutbox) < TARGET_COST ? 'met' : 'MISSED'} (< ${TARGET_COST * 100} %)`,
    v.errors ? `${v.errors} errors` : '',
  ]);
  rows.push(['deliveries', `${fmt(r.deliveries.perS, 1)} /s`, `${r.deliveries.backlog} (${BURST_WRITES} writes × ${BURST_SUBSCRIPTIONS} subscriptions) in ${fmt(r.deliveries.seconds, 1)} s`, r.deliveries.perS ? '' : 'NOT all delivered within 10 min', '']);
  if (markdown) return ['| variant | rate | latency | cost | |', '|---|---:|---|---|---|', ...rows.map((c) => `| ${c.join(' | ')} |`)];
  return rows.map((c) => `  ${c[0].padEnd(14)} ${c[1].padEnd(18)} ${c[2].padEnd(44)} ${c[3].padEnd(28)} ${c[4]}`);
}
