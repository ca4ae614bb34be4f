import { type ChainableCommander, Redis } from 'ioredis';
import { AppError } from '../errors.js';

/**
 * A Redis connection that fails fast: no offline queue and a command timeout, so that an unreachable
 * Redis turns into a 503 (or, for authentication, a fall-back to Neo4j) instead of hanging requests.
 */
export function createRedis(url: string): Redis {
  return new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 2_000,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    // The hot path's commands are coalesced into one round trip per event-loop turn already (src/gate);
    // ioredis's own pipelining would only defer them by one more turn.
    enableAutoPipelining: false,
  });
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

/** Runs Redis work, turning an unreachable Redis into the service's 503 (any other failure is left as it is). */
export async function guardRedis<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw isRedisUnavailable(err) ? redisUnavailable(err) : err;
  }
}

/** Runs a pipeline whose every command must succeed: the first failure fails it all (a 503 when Redis is unreachable). */
export async function execAll(pipeline: ChainableCommander): Promise<void> {
  const results = await guardRedis(() => pipeline.exec());
  const failed = results?.find(([err]) => err);
  if (!results || failed) throw isRedisUnavailable(failed?.[0]) ? redisUnavailable(failed?.[0]) : (failed?.[0] ?? new Error('Redis pipeline was discarded'));
}
