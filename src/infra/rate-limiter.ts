import type { Redis } from 'ioredis';
import { AppError } from '../http/problem.js';
import { guardRedis } from './redis.js';
import { redisKeys } from './redis-keys.js';

/** Per-key request rate, in fixed one-minute windows counted in Redis (shared by every API process). */
export class RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  async check(keyId: string): Promise<void> {
    const nowMs = this.now();
    const minute = Math.floor(nowMs / 60_000);
    const key = redisKeys.rateLimit(keyId, minute);
    const [[, count]] = (await guardRedis(() => this.redis.multi().incr(key).expire(key, 120).exec())) as [[null, number]];
    if (count > this.perMinute) {
      const retryAfter = Math.max(1, Math.ceil(((minute + 1) * 60_000 - nowMs) / 1000));
      throw new AppError('rate_limited', `More than ${this.perMinute} requests a minute with this key`, {
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
  }
}
