import { guardRedis, pipelineEach, type RedisClient } from '../infra/redis.js';
import type { Logger } from 'pino';
import type { Principal } from '../auth/caller.js';
import type { PlanLimits } from '../config.js';
import { AppError, notFound } from '../errors.js';
import { dayOf, nextPeriodStart, periodOf } from './period.js';
import { redisKeys } from './redis-keys.js';
import type { GateRepository, RetrievalDelta } from './repository.js';
import { type GateReading, counterTtlSeconds } from './round-trip.js';

/** A metered request's count: the headers to send, and how to take the count back if the request fails. */
export interface QuotaTicket {
  /** RateLimit-* headers (and Retry-After when exhausted). */
  headers: Record<string, string>;
  refund(): Promise<void>;
}

/** The share of the monthly limit whose crossing is the quota warning (webhooks and the audit log tell it, and the limit). */
export const quotaWarningShare = 0.8;

/** A retrieval that took a workspace's monthly count to the warning share of its limit, or to the limit (exhausted). */
export interface QuotaCrossing {
  threshold: 'warning' | 'exhausted';
  workspaceId: string;
  period: string;
  used: number;
  limit: number;
  principal: Principal;
  at: Date;
}

export interface QuotaDeps {
  redis: RedisClient;
  logger: Logger;
  clock: () => Date;
  plans: PlanLimits;
  /**
   * Told of each crossing once: counting is atomic, so exactly one retrieval sees each count (a refunded one may
   * let a later retrieval cross again). Its failure never fails the retrieval.
   */
  onQuotaCrossed?: (crossing: QuotaCrossing) => Promise<void>;
}

/** Cached workspace limits expire so that a plan change reaches every process even if its DEL was lost. */
const limitTtlSeconds = 300;

/**
 * The monthly retrieval quota around the gate's round trip, which counts it (redis/request-gate.lua): the limit
 * and counter seeded from Neo4j when Redis lacks them, the ticket of a counted request and its refund, the
 * crossings told once, the usage endpoint's answer, and the counts copied to Neo4j in the background (the live
 * counters, and the retrievals per principal, which are counted in-process only).
 */
export class QuotaMeter {
  /** `workspaceId|period` of counters this process changed since they were last copied to Neo4j. */
  private readonly changed = new Set<string>();
  /** Retrievals per workspace, month and principal counted since the last flush (deltas, by `ws|period|kind|id`). */
  private retrievals = new Map<string, RetrievalDelta>();
  /** The crossings told so far, one after the other. */
  private crossings: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: QuotaDeps,
    private readonly repo: GateRepository,
  ) {}

  /** Sets in Redis, from Neo4j and the plans, the value a round trip found missing; the request then asks again. */
  async seed(state: 'seed-limit' | 'seed-count', workspaceId: string, period: string): Promise<void> {
    if (state === 'seed-limit') {
      const limit = await this.limitOf(workspaceId);
      await this.deps.redis.set(redisKeys.quotaLimit(workspaceId), limit, 'EX', limitTtlSeconds);
    } else {
      const persisted = await this.repo.persistedUsage(workspaceId, period);
      await this.deps.redis.set(redisKeys.quota(workspaceId, period), persisted, 'EX', counterTtlSeconds, 'NX');
    }
  }

  /** A round trip counted a retrieval under this month's counter: the next persistUsage copies it. */
  noteCounted(workspaceId: string, period: string): void {
    this.changed.add(`${workspaceId}|${period}`);
  }

  /** The ticket of a request the round trip counted (or found exhausted: then quota_exceeded, with its headers). */
  ticket(quota: GateReading['quota'], workspaceId: string, period: string, now: Date, principal: Principal): QuotaTicket {
    const { state, used, limit } = quota;
    const resetSeconds = Math.max(1, Math.ceil((nextPeriodStart(now).getTime() - now.getTime()) / 1000));
    const headers: Record<string, string> = {
      'RateLimit-Limit': String(limit),
      'RateLimit-Remaining': String(Math.max(0, limit - used)),
      'RateLimit-Reset': String(resetSeconds),
    };
    if (state === 'exhausted') {
      headers['Retry-After'] = String(resetSeconds);
      throw new AppError('quota_exceeded', 'The workspace has used every retrieval of its plan this month', { headers });
    }
    let refunded = false;
    this.countRetrieval(workspaceId, period, principal, 1);
    this.tellCrossings(workspaceId, period, now, used, limit, principal);
    return {
      headers,
      refund: async () => {
        if (refunded) return;
        refunded = true;
        this.countRetrieval(workspaceId, period, principal, -1);
        await this.refund(workspaceId, now);
      },
    };
  }

  /** Takes back a retrieval counted at `now`: from its month and from its day, in one round trip. */
  async refund(workspaceId: string, now: Date): Promise<void> {
    await this.deps.redis
      .pipeline()
      .decr(redisKeys.quota(workspaceId, periodOf(now)))
      .decr(redisKeys.quotaDay(workspaceId, dayOf(now)))
      .exec()
      .catch((err) => this.deps.logger.warn({ err }, 'could not refund a retrieval'));
  }

  /**
   * Retrievals used this month against the workspace's limit, and per day. The days are counted in Redis only
   * (with the month's counter, in the gate's round trip): a Redis that lost its data shows them as 0 while the
   * month's total is re-seeded from Neo4j. Its shape is UsageSchema's, which the workspaces component holds
   * (with the http/ pieces it is made of, above the gate) and checks this answer against.
   */
  async usage(workspaceId: string) {
    const now = this.deps.clock();
    const period = periodOf(now);
    const limit = await this.limitOf(workspaceId);
    const dates = Array.from({ length: now.getUTCDate() }, (_, i) => `${period}-${String(i + 1).padStart(2, '0')}`);
    const [live, ...perDay] = await guardRedis(() =>
      this.deps.redis.mget(redisKeys.quota(workspaceId, period), ...dates.map((date) => redisKeys.quotaDay(workspaceId, date))));
    const used = live === null ? await this.repo.persistedUsage(workspaceId, period) : Number(live);
    const days = dates.map((date, i) => ({ date, retrievals: Math.max(0, Number(perDay[i] ?? 0)) }));
    return { period, used, limit, remaining: Math.max(0, limit - used), resetsAt: nextPeriodStart(now).toISOString(), days };
  }

  /**
   * Copies the live counters this process changed to Neo4j, from which a counter missing in Redis is re-seeded
   * (a Redis restart without persistence loses at most one interval of counting).
   */
  async persistUsage(): Promise<void> {
    await this.persistRetrievals();
    if (this.changed.size === 0) return;
    const entries = [...this.changed].map((t) => t.split('|') as [string, string]);
    this.changed.clear();
    try {
      // One GET per counter, not an MGET: on a Redis Cluster the workspaces' counters live on different nodes.
      const values = await pipelineEach(this.deps.redis, entries.map(([ws, period]) => {
        const key = redisKeys.quota(ws, period);
        return { key, add: (p) => p.get(key) };
      }));
      const counts = entries
        .map(([workspaceId, period], i) => ({ workspaceId, period, used: values[i][0] ? NaN : Number(values[i][1] ?? NaN) }))
        .filter((c) => Number.isFinite(c.used));
      if (counts.length > 0) await this.repo.persistUsage(counts, this.deps.clock().toISOString());
    } catch (err) {
      this.deps.logger.warn({ err }, 'could not persist usage');
      for (const [ws, period] of entries) this.changed.add(`${ws}|${period}`);
    }
  }

  /** Settles once every crossing told so far has been recorded (or has failed). */
  told(): Promise<void> {
    return this.crossings;
  }

  /** Adds the per-principal retrievals counted since the last flush to Neo4j; a failed write keeps them for the next. */
  private async persistRetrievals(): Promise<void> {
    if (this.retrievals.size === 0) return;
    const pending = this.retrievals;
    this.retrievals = new Map();
    const counts = [...pending.values()].filter((c) => c.count !== 0);
    if (counts.length === 0) return;
    try {
      await this.repo.persistRetrievals(counts, this.deps.clock().toISOString());
    } catch (err) {
      this.deps.logger.warn({ err }, 'could not persist retrievals per principal');
      for (const [key, c] of pending) {
        const now = this.retrievals.get(key);
        if (now) now.count += c.count;
        else this.retrievals.set(key, c);
      }
    }
  }

  /** The warning share of the limit (rounded up) and the limit itself, each told to onQuotaCrossed by the retrieval that reached it. */
  private tellCrossings(workspaceId: string, period: string, now: Date, used: number, limit: number, principal: Principal): void {
    if (!this.deps.onQuotaCrossed || limit <= 0) return;
    // The warning first: with a small limit one retrieval may reach both.
    if (used === Math.ceil(limit * quotaWarningShare)) this.tell({ threshold: 'warning', workspaceId, period, used, limit, principal, at: now });
    if (used === limit) this.tell({ threshold: 'exhausted', workspaceId, period, used, limit, principal, at: now });
  }

  private tell(crossing: QuotaCrossing): void {
    const onQuotaCrossed = this.deps.onQuotaCrossed!;
    // One after the other, so that a receiver hears the warning before the exhaustion (events are numbered as written).
    this.crossings = this.crossings
      .then(() => onQuotaCrossed(crossing))
      .catch((err: unknown) => this.deps.logger.warn({ err: (err as Error).message, workspaceId: crossing.workspaceId, threshold: crossing.threshold }, 'quota crossing event not recorded'));
  }

  /** Counted in-process and added to Neo4j with the usage counters: a retrieval costs no extra round trip. */
  private countRetrieval(workspaceId: string, period: string, principal: Principal, delta: number): void {
    const key = `${workspaceId}|${period}|${principal.kind}|${principal.id}`;
    const entry = this.retrievals.get(key) ?? { workspaceId, period, principalKind: principal.kind, principalId: principal.id, count: 0 };
    entry.count += delta;
    this.retrievals.set(key, entry);
  }

  /** The monthly retrieval limit in force: the workspace's own, or its plan's. */
  private async limitOf(workspaceId: string): Promise<number> {
    const ws = await this.repo.workspacePlan(workspaceId);
    if (!ws) throw notFound('Workspace');
    const { plans } = this.deps;
    return ws.monthlyRetrievalLimit ?? plans[ws.plan as keyof PlanLimits] ?? plans.free;
  }
}
