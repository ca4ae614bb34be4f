/**
 * Load and its measurement. HTTP load is autocannon's (a fixed number of keep-alive connections, one request at a
 * time each); the raw-driver floors are concurrency loops over neo4j-driver. Both record every answer's latency
 * themselves (autocannon's histogram keeps whole milliseconds and 2xx answers only; a 304 run needs its latencies
 * too). Client k goes round the list of requests starting at position k.
 *
 * A measurement is split into rounds, and the list of jobs is gone through once per round, so that a figure and
 * the baseline it is divided by share the same stretches of a shared, noisy machine. Only the first round warms up.
 */
import autocannon from 'autocannon';
import type { CpuDelta, Meter } from './meter.js';

export interface Stats {
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  /** Answers per HTTP status (`ok` for the driver); errors: connection errors, timeouts, calls that threw. */
  status: Record<string, number>;
  errors: number;
}

export interface Measured {
  stats: Stats;
  /** Peak RSS of the process under test while measured, bytes. */
  rssPeak?: number;
  /** CPU ms per request of the process under test (absent for the driver, whose work is the bench's own), Neo4j and Redis. */
  cpuMsPerRequest: { proc?: number; neo4j?: number; redis?: number; loadDriver?: number };
  /** The share of the machine other processes took meanwhile, %. */
  foreignPct: number;
}

interface RawRun {
  latencies: number[];
  seconds: number;
  status: Record<string, number>;
  errors: number;
}

export interface Window {
  seconds: number;
  warmupS: number;
  /** Called between the warm-up and the measured part. */
  onMeasureStart: () => void;
}

export interface Job<K> {
  key: K;
  /** The process under test, as the meter names it. */
  proc?: string;
  run: (w: Window) => Promise<RawRun>;
}

export function percentile(sorted: ArrayLike<number>, q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] : NaN;
}

const rotated = <T>(list: T[], k: number) => [...list.slice(k % list.length), ...list.slice(0, k % list.length)];

/** One request of a list; `setupRequest` makes each sending its own (a write's body). */
export type HttpRequest = { path: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string; setupRequest?: autocannon.Request['setupRequest'] };

function autocannonRun(baseUrl: string, requests: HttpRequest[], clients: number, seconds: number, record?: RawRun): Promise<autocannon.Result> {
  let k = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections: clients,
        duration: seconds,
        timeout: 30,
        requests: requests.map((r) => ({ method: 'GET', ...r })),
        // Each client its own copies (autocannon keeps the built request on the object), from position k on.
        setupClient: (client) => client.setRequests(rotated(requests, k++).map((r) => ({ method: 'GET', ...r }))),
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    if (record) {
      instance.on('response', (_client, status, _bytes, ms) => {
        record.latencies.push(ms);
        record.status[status] = (record.status[status] ?? 0) + 1;
      });
    }
  });
}

export async function httpLoad(o: { baseUrl: string; requests: HttpRequest[]; clients: number } & Window): Promise<RawRun> {
  if (o.warmupS > 0) await autocannonRun(o.baseUrl, o.requests, o.clients, o.warmupS);
  o.onMeasureStart();
  const run: RawRun = { latencies: [], seconds: 0, status: {}, errors: 0 };
  const result = await autocannonRun(o.baseUrl, o.requests, o.clients, o.seconds, run);
  return { ...run, seconds: (result.finish.getTime() - result.start.getTime()) / 1000 || result.duration, errors: result.errors };
}

/**
 * `clients` loops, each awaiting one call of `work` at a time (the i-th call of loop k gets i·clients + k): the
 * raw-driver floors. A call that throws is an error, the first of each label printed.
 */
export async function concurrentLoad(o: { label: string; clients: number; work: (i: number) => Promise<unknown> } & Window): Promise<RawRun> {
  const run = async (seconds: number) => {
    const r: RawRun = { latencies: [], seconds: 0, status: {}, errors: 0 };
    const started = performance.now();
    await Promise.all(Array.from({ length: o.clients }, async (_, k) => {
      for (let i = k; performance.now() < started + seconds * 1000; i += o.clients) {
        const t0 = performance.now();
        try {
          await o.work(i);
          r.latencies.push(performance.now() - t0);
        } catch (err) {
          if (r.errors++ === 0) console.log(`  ${o.label}: first error: ${String((err as Error).message ?? err).slice(0, 300)}`);
        }
      }
    }));
    return { ...r, seconds: (performance.now() - started) / 1000, status: { ok: r.latencies.length } };
  };
  if (o.warmupS > 0) await run(o.warmupS);
  o.onMeasureStart();
  return run(o.seconds);
}

/** Runs every job once per round, in list order, and merges each job's rounds: latencies pooled, CPU summed. */
export async function measureInRounds<K>(jobs: Job<K>[], o: { rounds: number; durationS: number; warmupS: number }, meter: Meter): Promise<Map<K, Measured>> {
  const acc = new Map<K, { runs: RawRun[]; cpu: CpuDelta[]; rssPeak: number }>(jobs.map((j) => [j.key, { runs: [], cpu: [], rssPeak: 0 }]));
  for (let round = 0; round < o.rounds; round++) {
    for (const job of jobs) {
      let snap = meter.snapshot();
      const onMeasureStart = () => {
        meter.resetWindow();
        snap = meter.snapshot();
      };
      const raw = await job.run({ seconds: o.durationS / o.rounds, warmupS: round === 0 ? o.warmupS : 0, onMeasureStart });
      const a = acc.get(job.key)!;
      a.cpu.push(meter.since(snap));
      a.runs.push(raw);
      a.rssPeak = Math.max(a.rssPeak, (job.proc && meter.windowPeak(job.proc)) || 0);
    }
  }
  return new Map(jobs.map((job) => {
    const { runs, cpu, rssPeak } = acc.get(job.key)!;
    const latencies = Float64Array.from(runs.flatMap((r) => r.latencies)).sort();
    const status: Record<string, number> = {};
    for (const r of runs) for (const [k, v] of Object.entries(r.status)) status[k] = (status[k] ?? 0) + v;
    const n = latencies.length;
    const r3 = (x: number) => Math.round(x * 1000) / 1000;
    const perRequest = (ms: number[]) => (ms.length === cpu.length && n ? r3(ms.reduce((x, y) => x + y, 0) / n) : undefined);
    const of = (name: string) => perRequest(cpu.map((c) => c.procsMs[name]).filter((x) => x !== undefined));
    const stats = { requests: n, rps: Math.round((n / runs.reduce((s, r) => s + r.seconds, 0)) * 10) / 10, p50: r3(percentile(latencies, 0.5)), p95: r3(percentile(latencies, 0.95)), p99: r3(percentile(latencies, 0.99)), status, errors: runs.reduce((s, r) => s + r.errors, 0) };
    const measured: Measured = {
      stats,
      rssPeak: rssPeak || undefined,
      cpuMsPerRequest: { proc: job.proc ? of(job.proc) : undefined, neo4j: of('neo4j'), redis: of('redis'), loadDriver: perRequest(cpu.map((c) => c.selfMs)) },
      foreignPct: Math.round((cpu.reduce((s, c) => s + c.foreignPct, 0) / cpu.length) * 10) / 10,
    };
    return [job.key, measured];
  }));
}
