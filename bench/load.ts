/**
 * Load drivers: autocannon for HTTP (a fixed number of keep-alive connections, each one request at a time), and
 * a small concurrency loop for the raw neo4j-driver floor. Both record every response's latency themselves
 * (autocannon's own histogram keeps whole milliseconds and only 2xx answers; a 304 run needs its latencies too)
 * and report p50/p95/p99 from the sorted samples.
 *
 * Rotation is the same in both: client (or worker) k goes round the list of requests (or parameter sets)
 * starting at position k, one after the other.
 */
import autocannon from 'autocannon';
import neo4j, { type Driver } from 'neo4j-driver';

export interface Stats {
  requests: number;
  durationS: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
  /** Answers per HTTP status (HTTP runs), or {ok, error} (driver runs). */
  status: Record<string, number>;
  /** Connection errors, timeouts, driver errors. */
  errors: number;
  /** Mean response body bytes (HTTP runs). */
  bytesPerResponse?: number;
}

export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

/** One measured run before summarising: runs of the same scenario (rounds) are merged. */
export interface RawRun {
  latencies: number[];
  durationS: number;
  status: Record<string, number>;
  errors: number;
  bytes?: number;
}

/** Merges rounds: latencies pooled, requests/s = all answers over all measured time. */
export function summariseRuns(runs: RawRun[]): Stats {
  const latencies = runs.flatMap((r) => r.latencies);
  const status: Record<string, number> = {};
  for (const r of runs) for (const [k, v] of Object.entries(r.status)) status[k] = (status[k] ?? 0) + v;
  const bytes = runs.some((r) => r.bytes !== undefined) ? runs.reduce((a, r) => a + (r.bytes ?? 0), 0) : undefined;
  return summarise(latencies, runs.reduce((a, r) => a + r.durationS, 0), status, runs.reduce((a, r) => a + r.errors, 0), bytes);
}

function summarise(latencies: number[], durationS: number, status: Record<string, number>, errors: number, bytes?: number): Stats {
  const sorted = Float64Array.from(latencies).sort();
  const sum = latencies.reduce((a, b) => a + b, 0);
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return {
    requests: latencies.length,
    durationS: r3(durationS),
    rps: Math.round((latencies.length / durationS) * 10) / 10,
    p50: r3(percentile(sorted, 0.5)),
    p95: r3(percentile(sorted, 0.95)),
    p99: r3(percentile(sorted, 0.99)),
    mean: r3(latencies.length ? sum / latencies.length : NaN),
    max: r3(sorted.length ? sorted[sorted.length - 1] : NaN),
    status,
    errors,
    ...(bytes !== undefined ? { bytesPerResponse: latencies.length ? Math.round(bytes / latencies.length) : 0 } : {}),
  };
}

function rotated<T>(list: T[], k: number): T[] {
  const s = k % list.length;
  return [...list.slice(s), ...list.slice(0, s)];
}

export interface HttpRequestSpec {
  path: string;
  /** GET unless given. */
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

async function autocannonRun(
  baseUrl: string,
  requests: HttpRequestSpec[],
  clients: number,
  durationS: number,
  onResponse?: (status: number, bytes: number, ms: number) => void,
): Promise<autocannon.Result> {
  let k = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections: clients,
        pipelining: 1,
        duration: durationS,
        timeout: 30,
        // Each client gets its own copies (autocannon keeps the built request on the object), from position k on.
        requests: requests.map((r) => ({ method: 'GET', ...r })),
        setupClient: (client) => client.setRequests(rotated(requests, k++).map((r) => ({ method: 'GET', ...r }))),
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    if (onResponse) {
      instance.on('response', (_client, statusCode, resBytes, responseTime) => onResponse(statusCode, resBytes, responseTime));
    }
  });
}

/** A warm-up run (discarded), then the measured run. */
export async function httpLoad(opts: {
  baseUrl: string;
  requests: HttpRequestSpec[];
  clients: number;
  durationS: number;
  warmupS: number;
  /** Called between the warm-up and the measured run. */
  onMeasureStart?: () => void;
}): Promise<RawRun> {
  if (opts.warmupS > 0) await autocannonRun(opts.baseUrl, opts.requests, opts.clients, opts.warmupS);
  opts.onMeasureStart?.();
  const latencies: number[] = [];
  const status: Record<string, number> = {};
  let bytes = 0;
  const result = await autocannonRun(opts.baseUrl, opts.requests, opts.clients, opts.durationS, (code, resBytes, ms) => {
    latencies.push(ms);
    status[code] = (status[code] ?? 0) + 1;
    bytes += resBytes;
  });
  const durationS = (result.finish.getTime() - result.start.getTime()) / 1000;
  return { latencies, durationS: durationS || result.duration, status, errors: result.errors, bytes };
}

/**
 * The floor: the same Cypher text and parameters straight through neo4j-driver, `clients` concurrent loops,
 * each awaiting its answer and turning the records into objects. The statement is run the way the service's
 * GraphExecutor.read runs it, an auto-commit read in a session sharing executeQuery's bookmark manager, so
 * that the ratio compares the service with the very driver calls it makes.
 */
export async function driverLoad(opts: {
  driver: Driver;
  database: string;
  query: string;
  params: Record<string, unknown>[];
  clients: number;
  durationS: number;
  warmupS: number;
  onMeasureStart?: () => void;
}): Promise<RawRun> {
  const run = async (durationS: number, record: boolean) => {
    const latencies: number[] = [];
    let errors = 0;
    const started = performance.now();
    const deadline = started + durationS * 1000;
    const worker = async (k: number) => {
      for (let i = k; performance.now() < deadline; i++) {
        const params = opts.params[i % opts.params.length];
        const t0 = performance.now();
        try {
          const session = opts.driver.session({ database: opts.database, defaultAccessMode: neo4j.session.READ, bookmarkManager: opts.driver.executeQueryBookmarkManager });
          try {
            const result = await session.run(opts.query, params);
            result.records.map((r) => r.toObject());
          } finally {
            await session.close();
          }
          if (record) latencies.push(performance.now() - t0);
        } catch {
          errors += 1;
        }
      }
    };
    await Promise.all(Array.from({ length: opts.clients }, (_, k) => worker(k)));
    return { latencies, errors, durationS: (performance.now() - started) / 1000 };
  };
  if (opts.warmupS > 0) await run(opts.warmupS, false);
  opts.onMeasureStart?.();
  const { latencies, errors, durationS } = await run(opts.durationS, true);
  return { latencies, durationS, status: { ok: latencies.length, error: errors }, errors };
}
