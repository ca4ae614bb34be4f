/**
 * The scenarios of the default run, the targets judged on them, and the A/A control.
 *
 * Absolute times swing between runs and machines, so every target is a ratio to a baseline taken in the same run.
 * A verdict is only as precise as the A/A control (two identical bare Koa processes measured side by side): a
 * target missed by less than the A/A ratio's distance from 1 is marked as within that noise.
 */
import type { Measured, Stats } from './load.js';
import type { Requests } from './workspaces.js';

/** The client count of the 304 and the A/A control, and of the targets judged beside them. */
export const CLIENTS_304 = 16;

export interface ScenarioDef {
  label: string;
  /** The process the load goes to; `driver` is none: neo4j-driver from the bench itself. */
  server: 'driver' | 'api-cache-off' | 'api-cache-on' | 'bare-koa-bytes' | 'bare-koa-redis' | 'bare-koa-constant' | 'bare-koa-constant-2';
  requests: 'bundle' | 'bundleIfNoneMatch' | 'mcpBundle' | 'playbook' | 'root';
  /** Measured at this client count only. */
  onlyAt?: number;
  /** The answer every request should get; others are flagged in the tables. */
  expect: string;
}

export const SCENARIOS = {
  'raw-driver': { label: 'raw driver (rank-bundle)', server: 'driver', requests: 'bundle', expect: 'ok' },
  'bundle-uncached': { label: 'bundle uncached (cache off)', server: 'api-cache-off', requests: 'bundle', expect: '200' },
  'bundle-repeated': { label: 'bundle repeated (cache on)', server: 'api-cache-on', requests: 'bundle', expect: '200' },
  'mcp-bundle': { label: 'MCP get_bundle (cached)', server: 'api-cache-on', requests: 'mcpBundle', expect: '200' },
  'bundle-304': { label: 'bundle If-None-Match → 304', server: 'api-cache-on', requests: 'bundleIfNoneMatch', onlyAt: CLIENTS_304, expect: '304' },
  'cheap-read': { label: 'cheap read (GET playbook)', server: 'api-cache-on', requests: 'playbook', expect: '200' },
  'bare-koa-bytes': { label: 'bare Koa, same bytes', server: 'bare-koa-bytes', requests: 'bundle', expect: '200' },
  'floor-bundle': { label: 'floor: bare Koa + Redis INCR, bundle bytes', server: 'bare-koa-redis', requests: 'bundle', expect: '200' },
  'floor-304': { label: 'floor: bare Koa + Redis INCR, 304', server: 'bare-koa-redis', requests: 'bundleIfNoneMatch', onlyAt: CLIENTS_304, expect: '304' },
  'floor-playbook': { label: 'floor: bare Koa + Redis INCR, playbook bytes', server: 'bare-koa-redis', requests: 'playbook', expect: '200' },
  'bare-koa-constant': { label: 'bare Koa, small constant', server: 'bare-koa-constant', requests: 'root', expect: '200' },
  'bare-koa-constant-2': { label: 'A/A: bare Koa constant, 2nd proc.', server: 'bare-koa-constant-2', requests: 'root', onlyAt: CLIENTS_304, expect: '200' },
} as const satisfies Record<string, ScenarioDef & { requests: keyof Requests }>;

export type Scenario = keyof typeof SCENARIOS;
export const SCENARIO_NAMES = Object.keys(SCENARIOS) as Scenario[];
export const def = (s: Scenario): ScenarioDef => SCENARIOS[s];

type Op = '<=' | '>=';
interface Target {
  statement: string;
  scenario: Scenario;
  baseline: Scenario;
  /** cpu: the API's CPU ms per request. */
  metric: 'p95' | 'rps' | 'cpu';
  clients: number;
  /** The size the target is stated on (the nearest measured is judged); absent: every size. */
  size?: number;
  op: Op;
  limit: number;
}

export const TARGETS: Target[] = [
  { statement: 'uncached bundle p95 ≤ 1.25 × raw driver', scenario: 'bundle-uncached', baseline: 'raw-driver', metric: 'p95', clients: 1, size: 10_000, op: '<=', limit: 1.25 },
  { statement: 'uncached bundle req/s ≥ 0.8 × raw driver', scenario: 'bundle-uncached', baseline: 'raw-driver', metric: 'rps', clients: 16, size: 10_000, op: '>=', limit: 0.8 },
  { statement: 'repeated bundle req/s ≥ 0.7 × floor (Koa + INCR, same bytes)', scenario: 'bundle-repeated', baseline: 'floor-bundle', metric: 'rps', clients: 16, size: 10_000, op: '>=', limit: 0.7 },
  { statement: 'repeated bundle p95 ≤ 1.5 × bare Koa same bytes', scenario: 'bundle-repeated', baseline: 'bare-koa-bytes', metric: 'p95', clients: 16, size: 10_000, op: '<=', limit: 1.5 },
  { statement: 'MCP get_bundle (cached) cpu/req ≤ 3 × repeated bundle', scenario: 'mcp-bundle', baseline: 'bundle-repeated', metric: 'cpu', clients: 16, op: '<=', limit: 3 },
  { statement: '304 req/s ≥ 0.5 × floor (Koa + INCR, 304)', scenario: 'bundle-304', baseline: 'floor-304', metric: 'rps', clients: CLIENTS_304, op: '>=', limit: 0.5 },
  { statement: 'cheap read req/s ≥ 0.5 × floor (Koa + INCR, same bytes)', scenario: 'cheap-read', baseline: 'floor-playbook', metric: 'rps', clients: 16, op: '>=', limit: 0.5 },
];
export const SCALING = { statement: 'uncached bundle p95, largest size ≤ 1.3 × smallest', op: '<=' as Op, limit: 1.3 };
export const RSS_LIMIT_MB = 300;

export interface Run extends Measured {
  scenario: Scenario;
  clients: number;
}

export interface SizeResult {
  nodes: number;
  workspaceId: string;
  bundleBytesMean: number;
  /** From a PROFILE of the floor's statement: candidates ranked and db hits, means per bundle. */
  profile: { ranked: number; dbHits: number };
  runs: Run[];
}

export interface Verdict {
  statement: string;
  size?: number;
  clients: number | string;
  /** The two figures divided, and the API's CPU ms per request of each (the steadier figure on a busy machine). */
  a?: number;
  b?: number;
  cpuA?: number;
  cpuB?: number;
  metric: string;
  value?: number;
  op: Op;
  limit: number;
  met?: boolean;
  note?: string;
}

const find = (r: SizeResult | undefined, s: Scenario, clients: number) => r?.runs.find((x) => x.scenario === s && x.clients === clients);
const figure = (run: Run | undefined, metric: Target['metric']) => (metric === 'cpu' ? run?.cpuMsPerRequest.proc : run?.stats[metric]);
const ratio = (a?: number, b?: number) => (a !== undefined && b !== undefined && Number.isFinite(a / b) && b !== 0 ? Math.round((a / b) * 1000) / 1000 : undefined);
const isMet = (value: number | undefined, op: Op, limit: number) => (value === undefined ? undefined : op === '<=' ? value <= limit : value >= limit);

/** The targets judged, the A/A control per size, and the verdicts' notes. `scaling`: p95 of the interleaved uncached run per size. */
export function evaluate(results: SizeResult[], scaling: Map<number, Stats>, apiRssPeak: number): { verdicts: Verdict[]; control: { size: number; value: number }[] } {
  const control = results.flatMap((r) => {
    const value = ratio(find(r, 'bare-koa-constant-2', CLIENTS_304)?.stats.rps, find(r, 'bare-koa-constant', CLIENTS_304)?.stats.rps);
    return value === undefined ? [] : [{ size: r.nodes, value }];
  });
  const noise = control.length ? Math.max(...control.map((c) => Math.abs(c.value - 1))) : undefined;
  const noted = (v: Verdict, ...notes: (string | false | undefined)[]): Verdict => {
    if (v.met === false && noise !== undefined && Math.abs(v.value! - v.limit) / v.limit <= noise) notes.push('within the A/A noise');
    return { ...v, note: notes.filter(Boolean).join('; ') || undefined };
  };
  const verdicts: Verdict[] = [];
  for (const t of TARGETS) {
    const nearest = t.size === undefined ? results : [...results].sort((x, y) => Math.abs(Math.log(x.nodes / t.size!)) - Math.abs(Math.log(y.nodes / t.size!))).slice(0, 1);
    for (const r of nearest) {
      const [a, b] = [find(r, t.scenario, t.clients), find(r, t.baseline, t.clients)];
      const value = ratio(figure(a, t.metric), figure(b, t.metric));
      const v = { statement: t.statement, size: r.nodes, clients: t.clients, metric: t.metric, a: figure(a, t.metric), b: figure(b, t.metric), cpuA: a?.cpuMsPerRequest.proc, cpuB: b?.cpuMsPerRequest.proc, value, op: t.op, limit: t.limit, met: isMet(value, t.op, t.limit) };
      verdicts.push(noted(v, value === undefined && `needs ${t.scenario} and ${t.baseline} at ${t.clients} clients`, t.size !== undefined && r.nodes !== t.size && `stated on ${t.size} nodes`));
    }
  }
  const [small, large] = [results[0], results.length > 1 ? results[results.length - 1] : undefined];
  const a = large && scaling.get(large.nodes)?.p95;
  const b = small && scaling.get(small.nodes)?.p95;
  const value = ratio(a, b);
  verdicts.push(noted({ statement: SCALING.statement, size: large?.nodes, clients: 1, metric: 'p95', a, b, value, op: SCALING.op, limit: SCALING.limit, met: isMet(value, SCALING.op, SCALING.limit) }, !large && 'needs two sizes and bundle-uncached'));
  const rssMb = apiRssPeak ? Math.round(apiRssPeak / 2 ** 20) : undefined;
  verdicts.push({ statement: `API RSS < ${RSS_LIMIT_MB} MB throughout`, clients: 'all', metric: 'MB', value: rssMb, op: '<=', limit: RSS_LIMIT_MB, met: rssMb === undefined ? undefined : apiRssPeak < RSS_LIMIT_MB * 2 ** 20 });
  return { verdicts, control };
}
