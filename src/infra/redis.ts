import { Redis } from 'ioredis';
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
