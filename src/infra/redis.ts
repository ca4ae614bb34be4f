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
    // Commands issued in the same event-loop turn (one per concurrent request on the hot path) leave in one
    // write: the socket write, not Redis, is what a round trip costs most here.
    enableAutoPipelining: !options.subscriber,
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

/** Turns an unreachable Redis into the service's 503. */
export async function guardRedis<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw isRedisUnavailable(err) ? redisUnavailable(err) : err;
  }
}
