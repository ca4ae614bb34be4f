import DataLoader from 'dataloader';
import { Redis } from 'ioredis';
import { AppError } from '../http/problem.js';

/**
 * A Redis connection that fails fast: no offline queue and a command timeout, so that an unreachable
 * Redis turns into a 503 (or, for authentication, a fall-back to Neo4j) instead of hanging requests.
 */
export function createRedis(url: string, options: { subscriber?: boolean } = {}): Redis {
  return new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: options.subscriber ?? false,
    maxRetriesPerRequest: options.subscriber ? null : 1,
    commandTimeout: options.subscriber ? undefined : 2_000,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    // The hot path's commands (auth snapshot, retrieval gate, rate limit) are coalesced into one per
    // event-loop turn already (perTurn, below); ioredis's own pipelining would only defer them by one more turn.
    enableAutoPipelining: false,
  });
}

/** At most this many requests share one coalesced command (bounds the time Redis spends on one script). */
const maxRequestsPerCommand = 256;

/**
 * Coalesces the Redis commands that requests make in the same event-loop turn into one. `send` gets
 * every request of the turn and answers each (a value or an Error). Each request still waits for a command
 * sent after it arrived, so it sees every change committed before it, exactly as with a command of its own;
 * but N concurrent requests cost ioredis, the socket and Redis one command instead of N (bench/RESULTS.md:
 * the round trip was the largest cost of a cached answer that bare Koa does not have). The batch leaves on
 * setImmediate, after the poll phase has read every request that had arrived.
 */
export function perTurn<Req, Res>(send: (requests: readonly Req[]) => Promise<(Res | Error)[]>): (request: Req) => Promise<Res> {
  const loader = new DataLoader<Req, Res>(send, {
    cache: false,
    maxBatchSize: maxRequestsPerCommand,
    batchScheduleFn: (dispatch) => setImmediate(dispatch),
  });
  return (request) => loader.load(request);
}

/**
 * The keys of one coalesced command, each listed once however many of its requests name it (requests of the
 * same workspace and key share most of theirs): `at` gives a key's index in `keys`, adding it when new.
 */
export class DistinctKeys {
  readonly keys: string[] = [];
  private readonly index = new Map<string, number>();

  constructor(...first: string[]) {
    for (const key of first) this.at(key);
  }

  at(key: string): number {
    let i = this.index.get(key);
    if (i === undefined) this.index.set(key, (i = this.keys.push(key) - 1));
    return i;
  }
}

const unavailable = /ECONNREFUSED|ECONNRESET|EPIPE|Connection is closed|Stream isn't writeable|Command timed out|MaxRetriesPerRequest|Reached the max retries/i;

export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return err.name === 'MaxRetriesPerRequestError' || unavailable.test(err.message);
}

/** The service's 503 for an unreachable Redis. */
export function redisUnavailable(cause: unknown): AppError {
  return new AppError('service_unavailable', 'The cache and quota store cannot be reached', { headers: { 'Retry-After': '5' }, cause });
}

/** Turns an unreachable Redis into the service's 503. */
export async function guardRedis<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw isRedisUnavailable(err) ? redisUnavailable(err) : err;
  }
}
