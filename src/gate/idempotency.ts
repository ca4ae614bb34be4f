import { hash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { AppError } from '../errors.js';
import { isRedisUnavailable, redisUnavailable } from '../infra/redis.js';
import { redisKeys } from './redis-keys.js';

/** How long an answer is kept for a retry with the same key (Stripe's window). */
const keepSeconds = 24 * 3600;
/** How long a request holding a key may run before another with the same key may start. */
const inFlightSeconds = 120;
export const maxIdempotencyKeyLength = 255;

/** What was answered to the first request with a key: replayed to every retry of it. */
export interface StoredAnswer {
  status: number;
  body: unknown;
}

/** A key taken by a request: record its answer, or let it go when the request failed. */
export interface IdempotencyClaim {
  /** The answer to send instead of running the request again (a retry of one that succeeded). */
  replay?: StoredAnswer;
  complete(answer: StoredAnswer): Promise<void>;
  release(): Promise<void>;
}

/**
 * `Idempotency-Key` on POST, with the semantics Stripe documents: the first request with a key runs and its
 * successful answer is kept for 24 hours; a retry with the same key and the same request gets that answer again
 * and writes nothing; the same key with another request is 422; while the first still runs, 409. A request whose
 * key cannot be checked (Redis unreachable) is refused (503) before anything is written. Keys are scoped by the
 * workspace and the caller's key, so two callers can never see each other's answers.
 */
export class IdempotencyStore {
  constructor(private readonly redis: Redis) {}

  async claim(scope: { workspaceId: string; callerKeyId: string }, key: string, request: { method: string; path: string; body: unknown }): Promise<IdempotencyClaim> {
    if (key.length === 0 || key.length > maxIdempotencyKeyLength) {
      throw new AppError('invalid_request', `The Idempotency-Key header must be 1 to ${maxIdempotencyKeyLength} characters`, {
        errors: [{ path: '/Idempotency-Key', message: `must be 1 to ${maxIdempotencyKeyLength} characters`, in: 'header' }],
      });
    }
    const name = redisKeys.idempotency(scope.workspaceId, scope.callerKeyId, hash('sha256', key, 'base64url'));
    const fingerprint = hash('sha256', `${request.method} ${request.path}\n${JSON.stringify(request.body ?? null)}`, 'base64url');
    const taken = await this.guard(() => this.redis.set(name, JSON.stringify({ fingerprint }), 'EX', inFlightSeconds, 'NX'));
    if (!taken) {
      const held = JSON.parse((await this.guard(() => this.redis.get(name))) ?? '{}') as { fingerprint?: string; answer?: StoredAnswer };
      if (held.fingerprint && held.fingerprint !== fingerprint) {
        throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with another request; use a new key for a new request');
      }
      if (!held.answer) throw new AppError('conflict', 'A request with this Idempotency-Key is still running; retry once it has answered', { headers: { 'Retry-After': '1' } });
      return { replay: held.answer, complete: async () => {}, release: async () => {} };
    }
    return {
      complete: async (answer) => {
        await this.redis.set(name, JSON.stringify({ fingerprint, answer }), 'EX', keepSeconds).catch(() => undefined);
      },
      release: async () => {
        await this.redis.del(name).catch(() => undefined);
      },
    };
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw isRedisUnavailable(err) ? redisUnavailable(err) : err;
    }
  }
}
