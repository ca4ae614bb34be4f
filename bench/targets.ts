/**
 * The performance targets of issue 10, and the ratios they are judged on.
 *
 * Absolute times swing between runs and machines, so every target is a ratio to a baseline taken in the same
 * run. A verdict is only as precise as the A/A control (two identical bare Koa processes measured side by
 * side): a target missed by less than the A/A ratio's distance from 1 is marked as within that noise.
 */
import type { Stats } from './load.js';
import { CLIENTS_304, type Scenario, label } from './scenarios.js';
import type { ScalingRun, SizeResult } from './rounds.js';

type Metric = 'p95' | 'rps';
type Op = '<=' | '>=';

export interface Target {
  /** As the issue states it. */
  statement: string;
  scenario: Scenario;
  baseline: Scenario;
  metric: Metric;
  clients: number;
  /** The workspace size the issue states the target on; absent: judged on every size measured. */
  size?: number;
  op: Op;
  limit: number;
}

export const TARGETS: Target[] = [
  { statement: 'uncached bundle p95 ≤ 1.25 × raw driver', scenario: 'bundle-uncached', baseline: 'raw-driver', metric: 'p95', clients: 1, size: 10_000, op: '<=', limit: 1.25 },
  { statement: 'uncached bundle req/s ≥ 0.8 × raw driver', scenario: 'bundle-uncached', baseline: 'raw-driver', metric: 'rps', clients: 16, size: 10_000, op: '>=', limit: 0.8 },
  { statement: 'repeated bundle req/s ≥ 0.7 × bare Koa same bytes', scenario: 'bundle-repeated', baseline: 'bare-koa-bytes', metric: 'rps', clients: 16, size: 10_000, op: '>=', limit: 0.7 },
  { statement: 'repeated bundle p95 ≤ 1.5 × bare Koa same bytes', scenario: 'bundle-repeated', baseline: 'bare-koa-bytes', metric: 'p95', clients: 16, size: 10_000, op: '<=', limit: 1.5 },
  { statement: '304 req/s ≥ 0.5 × bare Koa constant', scenario: 'bundle-304', baseline: 'bare-koa-constant', metric: 'rps', clients: CLIENTS_304, op: '>=', limit: 0.5 },
  { statement: 'cheap read req/s ≥ 0.5 × bare Koa constant', scenario: 'cheap-read', baseline: 'bare-koa-constant', metric: 'rps', clients: 16, op: '>=', limit: 0.5 },
];

/** Cost follows the neighbourhood, not the graph: uncached bundle p95 at the largest size over the smallest. */
export const SCALING_TARGET = { statement: 'uncached bundle p95, largest size ≤ 1.3 × smallest', op: '<=' as Op, limit: 1.3, clients: 1 };

/** The API process's RSS stays under this throughout the run. */
export const RSS_LIMIT_MB = 300;

/** Ratios shown without a target: what a figure is compared with to explain it, and the A/A control. */
const DIAGNOSTIC_PAIRS: { name: string; scenario: Scenario; baseline: Scenario; metric: Metric }[] = [
  { name: 'A/A: bare Koa constant, 2nd process / 1st', scenario: 'bare-koa-constant-2', baseline: 'bare-koa-constant', metric: 'rps' },
  { name: 'bare Koa + Redis / bare Koa constant', scenario: 'bare-koa-redis', baseline: 'bare-koa-constant', metric: 'rps' },
  { name: 'bare Koa + Redis same bytes / bare Koa same bytes', scenario: 'bare-koa-redis-bytes', baseline: 'bare-koa-bytes', metric: 'rps' },
  { name: 'bare Koa + Redis same bytes / bare Koa same bytes', scenario: 'bare-koa-redis-bytes', baseline: 'bare-koa-bytes', metric: 'p95' },
  { name: 'bundle 304 / bare Koa + Redis', scenario: 'bundle-304', baseline: 'bare-koa-redis', metric: 'rps' },
  { name: 'cheap read / bare Koa + Redis', scenario: 'cheap-read', baseline: 'bare-koa-redis', metric: 'rps' },
  { name: 'bundle repeated / bare Koa + Redis same bytes', scenario: 'bundle-repeated', baseline: 'bare-koa-redis-bytes', metric: 'rps' },
  { name: 'bundle uncached, no annotations / with', scenario: 'bundle-uncached-noann', baseline: 'bundle-uncached', metric: 'p95' },
];

/** One ratio of the detailed list (every size and client count measured). */
export interface Ratio {
  name: string;
  size: number;
  clients: number | string;
  value: number;
  target?: { op: Op; limit: number };
  met?: boolean;
}

/** One line of the final table. */
export interface Verdict {
  statement: string;
  scenario: string;
  baseline: string;
  size?: number;
  clients: number | string;
  metric: string;
  a?: number;
  b?: number;
  value?: number;
  op: Op;
  limit: number;
  met?: boolean;
  note?: string;
}

export interface Evaluation {
  verdicts: Verdict[];
  /** The A/A control at each size: second bare Koa constant process / first, req/s. */
  control: { size: number; value: number }[];
  ratios: Ratio[];
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const metricName = (m: Metric) => (m === 'p95' ? 'p95' : 'req/s');
const isMet = (value: number, op: Op, limit: number) => (op === '<=' ? value <= limit : value >= limit);
const ok = (x: number | undefined): x is number => x !== undefined && Number.isFinite(x);

export function findStats(size: SizeResult | undefined, scenario: Scenario, clients: number): Stats | undefined {
  return size?.runs.find((r) => r.scenario === scenario && r.clients === clients)?.stats;
}

function ratio(a: number | undefined, b: number | undefined): number | undefined {
  return ok(a) && ok(b) && b !== 0 ? round3(a / b) : undefined;
}

/** The size a target stated on `wanted` is judged on: that size if measured, else the nearest one measured. */
function judgedOn(results: SizeResult[], wanted: number): SizeResult | undefined {
  return results.find((r) => r.nodes === wanted) ?? [...results].sort((x, y) => Math.abs(Math.log(x.nodes / wanted)) - Math.abs(Math.log(y.nodes / wanted)))[0];
}

export function evaluate(results: SizeResult[], scaling: ScalingRun[] | undefined, apiRssPeakBytes: number, clients: number[]): Evaluation {
  const control = results.flatMap((r) => {
    const value = ratio(findStats(r, 'bare-koa-constant-2', CLIENTS_304)?.rps, findStats(r, 'bare-koa-constant', CLIENTS_304)?.rps);
    return value === undefined ? [] : [{ size: r.nodes, value }];
  });
  const noise = control.length ? Math.max(...control.map((c) => Math.abs(c.value - 1))) : undefined;
  const noiseNote = (v: Verdict): string | undefined => {
    if (v.met !== false || v.value === undefined || noise === undefined) return undefined;
    const miss = Math.abs(v.value - v.limit) / v.limit;
    return miss <= noise ? 'within the A/A noise' : undefined;
  };

  const verdicts: Verdict[] = [];
  for (const t of TARGETS) {
    const sizes = t.size === undefined ? results : [judgedOn(results, t.size)].filter((r): r is SizeResult => r !== undefined);
    const base = { statement: t.statement, scenario: label(t.scenario), baseline: label(t.baseline), clients: t.clients, metric: metricName(t.metric), op: t.op, limit: t.limit };
    if (sizes.length === 0) verdicts.push({ ...base, note: 'no size measured' });
    for (const r of sizes) {
      const a = findStats(r, t.scenario, t.clients)?.[t.metric];
      const b = findStats(r, t.baseline, t.clients)?.[t.metric];
      const value = ratio(a, b);
      const v: Verdict = { ...base, size: r.nodes, a, b, value, met: value === undefined ? undefined : isMet(value, t.op, t.limit) };
      const notes = [
        value === undefined ? `needs ${t.scenario} and ${t.baseline} at ${t.clients} client${t.clients > 1 ? 's' : ''}` : undefined,
        t.size !== undefined && r.nodes !== t.size ? `stated on ${t.size} nodes` : undefined,
        noiseNote(v),
      ].filter(Boolean);
      if (notes.length) v.note = notes.join('; ');
      verdicts.push(v);
    }
  }

  // Cost against graph size, judged on the interleaved run when there is one (the per-size tables are minutes apart).
  const small = results[0];
  const large = results.length > 1 ? results[results.length - 1] : undefined;
  const sc = (scenario: Scenario, n: number) => scaling?.find((r) => r.scenario === scenario && r.nodes === n)?.stats.p95;
  {
    const base = { statement: SCALING_TARGET.statement, scenario: `${label('bundle-uncached')}, interleaved`, baseline: 'the same at the smallest size', clients: 1, metric: 'p95', op: SCALING_TARGET.op, limit: SCALING_TARGET.limit };
    if (!small || !large) verdicts.push({ ...base, note: 'needs two sizes' });
    else {
      const a = sc('bundle-uncached', large.nodes) ?? findStats(large, 'bundle-uncached', 1)?.p95;
      const b = sc('bundle-uncached', small.nodes) ?? findStats(small, 'bundle-uncached', 1)?.p95;
      const value = ratio(a, b);
      const v: Verdict = { ...base, baseline: `the same at ${small.nodes} nodes`, size: large.nodes, a, b, value, met: value === undefined ? undefined : isMet(value, base.op, base.limit) };
      v.note = [scaling ? undefined : 'from the per-size tables, not interleaved', noiseNote(v)].filter(Boolean).join('; ') || undefined;
      verdicts.push(v);
    }
  }

  const rssMb = Math.round(apiRssPeakBytes / 2 ** 20);
  verdicts.push({
    statement: `API RSS < ${RSS_LIMIT_MB} MB throughout`,
    scenario: 'peak of either API process',
    baseline: '',
    clients: 'all',
    metric: 'MB',
    value: apiRssPeakBytes > 0 ? rssMb : undefined,
    op: '<=',
    limit: RSS_LIMIT_MB,
    met: apiRssPeakBytes > 0 ? apiRssPeakBytes < RSS_LIMIT_MB * 2 ** 20 : undefined,
  });

  // The detailed list: every target pair at every size and client count measured, then the diagnostics.
  const ratios: Ratio[] = [];
  const add = (name: string, size: number, c: number | string, value: number | undefined, target?: Ratio['target']) => {
    if (value !== undefined) ratios.push({ name, size, clients: c, value, target, met: target ? isMet(value, target.op, target.limit) : undefined });
  };
  const pairs = new Map<string, Target>();
  for (const t of TARGETS) pairs.set(`${t.scenario}|${t.baseline}|${t.metric}`, t);
  for (const r of results) {
    for (const t of pairs.values()) {
      for (const c of clients) {
        const stated = TARGETS.find((x) => x.scenario === t.scenario && x.baseline === t.baseline && x.metric === t.metric && x.clients === c && (x.size === undefined || x.size === r.nodes));
        add(`${label(t.scenario)} / ${label(t.baseline)}, ${metricName(t.metric)}`, r.nodes, c, ratio(findStats(r, t.scenario, c)?.[t.metric], findStats(r, t.baseline, c)?.[t.metric]), stated && { op: stated.op, limit: stated.limit });
      }
    }
    for (const d of DIAGNOSTIC_PAIRS) for (const c of clients) add(`${d.name}, ${metricName(d.metric)}`, r.nodes, c, ratio(findStats(r, d.scenario, c)?.[d.metric], findStats(r, d.baseline, c)?.[d.metric]));
  }
  if (small && large) {
    for (const s of ['bundle-uncached', 'raw-driver'] as const) {
      add(`${label(s)} p95, ${large.nodes} / ${small.nodes} nodes, interleaved`, large.nodes, 1, ratio(sc(s, large.nodes), sc(s, small.nodes)));
      for (const c of clients) add(`${label(s)} p95, ${large.nodes} / ${small.nodes} nodes`, large.nodes, c, ratio(findStats(large, s, c)?.p95, findStats(small, s, c)?.p95));
    }
  }
  return { verdicts, control, ratios };
}
