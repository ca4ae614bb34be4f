/**
 * Measurement in rounds, and the shapes of what it yields.
 *
 * Each measurement is split into `rounds` parts and the whole list of jobs is gone through once per round, so
 * that a figure and the baseline it is divided by share the same stretches of a shared, noisy machine. Only the
 * first round warms up (JIT, the bundle cache, Neo4j's page cache and query plans). Every job also records the
 * CPU time per request of the process under test, of Neo4j, Redis and the load driver, and the share of the
 * machine taken by processes that are not the bench's: CPU per request is the steadier figure on a busy machine.
 */
import type { CpuDelta, CpuMeter, RssSampler } from './deps.js';
import { type RawRun, type Stats, summariseRuns } from './load.js';
import type { Scenario } from './scenarios.js';

export interface CpuPerRequest {
  /** The process under test (absent for the raw driver, whose work is the load driver's own). */
  proc?: number;
  neo4j?: number;
  redis?: number;
  loadDriver: number;
}

export interface Measured {
  stats: Stats;
  /** Peak RSS of the process under test during the measured parts, bytes. */
  rssPeak?: number;
  cpu: CpuDelta & { msPerRequest: CpuPerRequest };
}

/** One scenario at one client count on one workspace size. */
export interface Run extends Measured {
  scenario: Scenario;
  clients: number;
}

/** The uncached bundle (and, as a diagnostic, the raw driver) at 1 client with the sizes interleaved. */
export interface ScalingRun extends Measured {
  scenario: Scenario;
  nodes: number;
}

export interface SizeResult {
  nodes: number;
  workspaceId: string;
  reused: boolean;
  loadSeconds?: number;
  bundleBytes: { min: number; mean: number; max: number };
  profile: { dbHitsMean: number; rankedCountMean: number; pageCacheMissesTotal: number; serverMsMean: number };
  runs: Run[];
}

export interface MeasureWindow {
  durationS: number;
  warmupS: number;
  /** Called by the load driver between its warm-up and its measured part. */
  onMeasureStart: () => void;
}

export interface Job<K> {
  key: K;
  /** Name of the process under test (as watched by the meters), if it is a process. */
  proc?: string;
  run: (w: MeasureWindow) => Promise<RawRun>;
}

export interface RoundOptions {
  rounds: number;
  /** Whole measured time per job, split evenly over the rounds. */
  durationS: number;
  warmupS: number;
}

/** Sums the CPU of a job's rounds; shares are averaged (the rounds are equally long by construction). */
function mergeDeltas(ds: CpuDelta[]): CpuDelta {
  const procsMs: Record<string, number> = {};
  for (const d of ds) for (const [k, v] of Object.entries(d.procsMs)) procsMs[k] = (procsMs[k] ?? 0) + v;
  const avg = (f: (d: CpuDelta) => number) => Math.round((ds.reduce((a, d) => a + f(d), 0) / ds.length) * 10) / 10;
  return { procsMs, selfMs: ds.reduce((a, d) => a + d.selfMs, 0), machineBusyPct: avg((d) => d.machineBusyPct), foreignPct: avg((d) => d.foreignPct), stealPct: avg((d) => d.stealPct) };
}

/** Runs every job once per round, in list order, and merges each job's rounds. */
export async function measureInRounds<K>(jobs: Job<K>[], o: RoundOptions, meters: { meter: CpuMeter; sampler: RssSampler }): Promise<Map<K, Measured>> {
  const acc = new Map<K, { raws: RawRun[]; deltas: CpuDelta[]; rssPeak?: number }>();
  for (let round = 0; round < o.rounds; round++) {
    for (const job of jobs) {
      let snap = meters.meter.snapshot();
      const onMeasureStart = () => {
        meters.sampler.resetWindow();
        snap = meters.meter.snapshot();
      };
      const raw = await job.run({ durationS: o.durationS / o.rounds, warmupS: round === 0 ? o.warmupS : 0, onMeasureStart });
      const delta = meters.meter.since(snap);
      const a = acc.get(job.key) ?? { raws: [], deltas: [] };
      a.raws.push(raw);
      a.deltas.push(delta);
      const rss = job.proc ? meters.sampler.windowPeak(job.proc) : undefined;
      if (rss !== undefined) a.rssPeak = Math.max(a.rssPeak ?? 0, rss);
      acc.set(job.key, a);
    }
  }
  const out = new Map<K, Measured>();
  for (const job of jobs) {
    const a = acc.get(job.key)!;
    const stats = summariseRuns(a.raws);
    const delta = mergeDeltas(a.deltas);
    const per = (ms: number | undefined) => (ms === undefined || !stats.requests ? undefined : Math.round((ms / stats.requests) * 1000) / 1000);
    out.set(job.key, {
      stats,
      rssPeak: a.rssPeak,
      cpu: {
        ...delta,
        msPerRequest: { proc: job.proc ? per(delta.procsMs[job.proc]) : undefined, neo4j: per(delta.procsMs.neo4j), redis: per(delta.procsMs.redis), loadDriver: per(delta.selfMs)! },
      },
    });
  }
  return out;
}
