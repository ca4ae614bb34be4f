import type { Redis } from 'ioredis';
import { guardRedis } from './redis.js';
import { redisKeys } from './redis-keys.js';

/** The calendar month (UTC) a moment falls in, as `YYYY-MM`. */
export function periodOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** The first instant of the next calendar month (UTC): when the quota resets. */
export function nextPeriodStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

export interface Usage {
  period: string;
  used: number;
  limit: number;
  remaining: number;
  resetsAt: string;
}

/** Monthly retrieval counts per workspace, kept in Redis. */
export class QuotaStore {
  constructor(private readonly redis: Redis) {}

  async usage(workspaceId: string, limit: number, now: Date): Promise<Usage> {
    const period = periodOf(now);
    const used = Number((await guardRedis(() => this.redis.get(redisKeys.quota(workspaceId, period)))) ?? 0);
    return { period, used, limit, remaining: Math.max(0, limit - used), resetsAt: nextPeriodStart(now).toISOString() };
  }
}
