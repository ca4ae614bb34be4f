import type { Redis } from 'ioredis';
import { AppError } from '../http/problem.js';
import { guardRedis, perTurn } from './redis.js';
import { redisKeys } from './redis-keys.js';

/** Per-key request rate, in fixed one-minute windows counted in Redis (shared by every API process). */
export class RateLimiter {
  /** The counts of every request of an event-loop turn in one transaction (see perTurn). */
  private readonly count = perTurn<string, number>(async (keys) => {
    const multi = this.redis.multi();
    for (const key of keys) multi.incr(key).expire(key, 120);
    const results = (await multi.exec()) ?? [];
    return keys.map((_, i) => {
      const [err, count] = results[2 * i] ?? [new Error('Redis transaction was discarded')];
      return err ?? (count as number);
    });
  });

  constructor(
    private readonly redis: Redis,
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  async check(keyId: string): Promise<void> {
    const nowMs = this.now();
    const minute = Math.floor(nowMs / 60_000);
    const count = await guardRedis(() => this.count(redisKeys.rateLimit(keyId, minute)));
    if (count > this.perMinute) {
      const retryAfter = Math.max(1, Math.ceil(((minute + 1) * 60_000 - nowMs) / 1000));
      throw new AppError('rate_limited', `More than ${this.perMinute} requests a minute with this key`, {
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
  }
}
