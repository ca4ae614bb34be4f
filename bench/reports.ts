/**
 * `npm run bench -- --reports`: every saved report (cypher/reports) through the API on the generated workspace of
 * the largest size, one request at a time, after two warm-up runs: p50, p95 and the slowest against the bound of
 * each report's p95; beside it the indexes its plan uses (EXPLAIN with the report's defaults), so that a slow
 * report shows whether it scans.
 */
import { randomBytes } from 'node:crypto';
import neo4j from 'neo4j-driver';
import { createClient, listReports } from '@playbooks/client/api';
import { loadReports } from '../src/reports/catalog.js';
import type { Checkout } from './checkout.js';
import { percentile } from './load.js';
import { fmt, table } from './report.js';
import type { Options } from './options.js';
import { DATABASE, type Stack } from './stack.js';
import { ensureWorkspace, issueKey } from './workspaces.js';

export const BOUND_MS = 1000;
const RUNS = 20;

interface PlanNode { operatorType: string; arguments: Record<string, unknown>; children: PlanNode[] }

/** The index-backed operators of a plan with what they read, e.g. `NodeIndexSeek ContextNode(workspaceId, readFirst)`. */
function indexesOf(plan: PlanNode, found = new Set<string>()): string[] {
  const op = plan.operatorType.replace(/@.*$/, '').replace(/\(.*$/, '');
  if (/Index|ByIdSeek|ByElementIdSeek|CountStore/.test(op)) {
    const target = /:(\w+)\(([^)]*)\)/.exec(String(plan.arguments.Details ?? ''));
    found.add(target ? `${op} ${target[1]}(${target[2]})` : op);
  }
  for (const c of plan.children ?? []) indexesOf(c, found);
  return [...found];
}

export async function runReports(o: Options, stack: Stack, checkout: Checkout) {
  await stack.startStores({ dataDir: o.dataDir, heap: o.neo4jHeap, pageCacheMb: o.pageCacheMb });
  const size = o.sizes[o.sizes.length - 1];
  const ws = await ensureWorkspace(stack.graph, { dataDir: o.dataDir, seed: o.seed, size });
  const adminToken = randomBytes(24).toString('hex');
  const api = await stack.startApi('api', { checkout, adminToken, dataDir: o.dataDir, env: { BUNDLE_CACHE: 'off' } });
  const key = await issueKey(api.url, adminToken, ws, `bench reports ${o.stamp}`);
  const client = createClient({ baseUrl: api.url, auth: () => key });
  const path = { workspaceId: ws.workspaceId };
  const { data: listed } = await listReports({ client, path, throwOnError: true });
  const reports = loadReports().filter((r) => listed.reports.some((l) => l.name === r.name));
  console.log(`\n== ${reports.length} reports on the ${size}-node workspace, ${RUNS} runs each after 2 warm-up runs`);
  const rows: string[][] = [];
  const results = [];
  for (const report of reports) {
    const times: number[] = [];
    let rowCount = 0;
    for (let i = 0; i < 2 + RUNS; i++) {
      const t = performance.now();
      const { data } = await client.get<{ 200: { rowCount: number } }, unknown, true>({ url: `/api/v1/workspaces/{workspaceId}/reports/${report.name}`, path, security: [{ scheme: 'bearer', type: 'http' }], throwOnError: true });
      if (i >= 2) times.push(performance.now() - t);
      rowCount = data.rowCount;
    }
    times.sort((a, b) => a - b);
    const params = Object.fromEntries([['workspaceId', ws.workspaceId], ...report.parameters.map((p) => [p.name, typeof p.default === 'number' ? neo4j.int(p.default) : (p.default ?? null)])]);
    const plan = (await stack.graph.driver.executeQuery(`EXPLAIN ${stack.graph.text(`reports/${report.name}`)}`, params, { database: DATABASE })).summary.plan as unknown as PlanNode;
    const r = { report: report.name, p50: percentile(times, 0.5), p95: percentile(times, 0.95), max: times[times.length - 1], rows: rowCount, indexes: indexesOf(plan) };
    results.push(r);
    rows.push([r.report, fmt(r.p50), fmt(r.p95), fmt(r.max), String(r.rows), r.p95 <= BOUND_MS ? 'met' : 'MISSED', r.indexes.join('; ') || 'none (label scan)']);
    console.log(`  ${r.report.padEnd(28)} p95 ${fmt(r.p95).padStart(7)} ms`);
  }
  const out = (markdown: boolean) => table(['report', 'p50 ms', 'p95 ms', 'max ms', 'rows', `p95 ≤ ${BOUND_MS} ms`, 'indexes the plan uses'], rows, markdown, 'lrrrrll');
  console.log(['', '== saved reports', ...out(false)].join('\n'));
  return { md: ['', `### Saved reports (${size} nodes)`, '', ...out(true)], json: { size, runs: RUNS, boundMs: BOUND_MS, reports: results } };
}
