import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import type { AuthSnapshot } from '../auth/authenticator.js';
import { AppError } from '../http/problem.js';
import { projectRoot } from '../infra/project-root.js';
import { DistinctKeys, guardRedis, perTurn } from '../infra/redis.js';
import { redisKeys } from '../infra/redis-keys.js';
import type { ServiceDeps } from '../services.js';
import type { Workspace } from '../workspaces/repository.js';

/** The calendar month (UTC) a moment falls in, as `YYYY-MM`. */
export function periodOf(at: Date): string {
  const month = at.getUTCMonth() + 1;
  return `${at.getUTCFullYear()}-${month < 10 ? '0' : ''}${month}`;
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

/** What one metered request learned from Redis, and how to take its count back if it fails. */
export interface QuotaTicket {
  snapshot: AuthSnapshot;
  generation: string;
  exhausted: boolean;
  /** RateLimit-* headers (and Retry-After when exhausted). */
  headers: Record<string, string>;
  refund(): Promise<void>;
}

type GateReply = [string, number, string, 'ok' | 'exhausted' | 'revoked' | 'seed-limit' | 'seed-count', number, number];
type GateRedis = Redis & { retrievalGate(numberOfKeys: number, ...args: (string | number)[]): Promise<GateReply[]> };

const gateScript = readFileSync(path.join(projectRoot, 'redis', 'retrieval-gate.lua'), 'utf8');
/** Cached workspace limits expire so that a plan change reaches every process even if its DEL was lost. */
const limitTtlSeconds = 300;
/** Counters outlive their month by a few days: the usage endpoint can still read last month. */
const counterTtlSeconds = 40 * 24 * 3600;

/**
 * Monthly retrieval quota per workspace. Redis holds the live counters (one Lua script checks and counts
 * atomically); Neo4j holds a copy, written every `persistEveryMs`, from which a counter missing in Redis
 * is re-seeded, so a Redis restart without persistence loses at most that much counting.
 */
export class QuotaService {
  private readonly touched = new Set<string>();
  private timer?: NodeJS.Timeout;
  /** The gate for every retrieval of an event-loop turn in one script call (redis/retrieval-gate.lua). */
  private readonly gate = perTurn<{ keyHash: string; workspaceId: string; counterKey: string }, GateReply>((requests) => {
    // Each key once (the retrievals of one workspace share its generation, counter and limit); each retrieval
    // names its four by their position in KEYS (Lua counts from 1).
    const keys = new DistinctKeys(redisKeys.authEpoch);
    const positions: number[] = [];
    for (const r of requests) {
      for (const key of [redisKeys.revokedKey(r.keyHash), redisKeys.graphGeneration(r.workspaceId), r.counterKey, redisKeys.quotaLimit(r.workspaceId)]) positions.push(keys.at(key) + 1);
    }
    return (this.deps.redis as GateRedis).retrievalGate(keys.keys.length, ...keys.keys, counterTtlSeconds, randomUUID(), ...positions);
  });

  constructor(
    private readonly deps: ServiceDeps,
    private readonly loadWorkspace: (workspaceId: string) => Promise<Workspace | undefined>,
    private readonly persistEveryMs = 30_000,
  ) {
    // The number of keys varies with the number of retrievals sent together; it is the first argument.
    deps.redis.defineCommand('retrievalGate', { lua: gateScript });
  }

  start(): void {
    this.timer = setInterval(() => void this.persist().catch((err) => this.deps.logger.warn({ err }, 'could not persist usage')), this.persistEveryMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.persist().catch((err) => this.deps.logger.warn({ err }, 'could not persist usage'));
  }

  /** The monthly retrieval limit in force: the workspace's own, or its plan's. */
  limitOf(ws: Workspace): number {
    const plans = this.deps.config.plans;
    return ws.monthlyRetrievalLimit ?? plans[ws.plan as keyof typeof plans] ?? plans.free;
  }

  /** Forget the cached limit after a plan or limit change. */
  async limitChanged(workspaceId: string): Promise<void> {
    await guardRedis(() => this.deps.redis.del(redisKeys.quotaLimit(workspaceId)));
  }

  async usage(workspaceId: string): Promise<Usage> {
    const now = this.deps.clock();
    const period = periodOf(now);
    const ws = await this.loadWorkspace(workspaceId);
    if (!ws) throw new AppError('not_found', 'Workspace not found');
    const limit = this.limitOf(ws);
    const live = await guardRedis(() => this.deps.redis.get(redisKeys.quota(workspaceId, period)));
    const used = live === null ? await this.persisted(workspaceId, period) : Number(live);
    return { period, used, limit, remaining: Math.max(0, limit - used), resetsAt: nextPeriodStart(now).toISOString() };
  }

  /**
   * Counts one retrieval for the workspace unless its quota is exhausted, reading the auth state and the
   * graph generation in the same round trip (shared with the other retrievals of the same event-loop turn).
   * Throws 503 when Redis cannot be reached: nothing may be served that cannot be counted.
   */
  async open(keyHash: string, workspaceId: string): Promise<QuotaTicket> {
    const now = this.deps.clock();
    const period = periodOf(now);
    const counterKey = redisKeys.quota(workspaceId, period);
    for (let attempt = 0; attempt < 3; attempt++) {
      const [epoch, revoked, generation, state, used, limit] = await guardRedis(() => this.gate({ keyHash, workspaceId, counterKey }));
      if (state === 'seed-limit') {
        await this.seedLimit(workspaceId);
        continue;
      }
      if (state === 'seed-count') {
        const persisted = await this.persisted(workspaceId, period);
        await guardRedis(() => this.deps.redis.set(counterKey, persisted, 'EX', counterTtlSeconds, 'NX'));
        continue;
      }
      const counted = state === 'ok';
      if (counted) this.touched.add(`${workspaceId}|${period}`);
      const resetSeconds = Math.max(1, Math.ceil((nextPeriodStart(now).getTime() - now.getTime()) / 1000));
      const headers: Record<string, string> = {
        'RateLimit-Limit': String(limit),
        'RateLimit-Remaining': String(Math.max(0, limit - used)),
        'RateLimit-Reset': String(resetSeconds),
      };
      if (state === 'exhausted') headers['Retry-After'] = String(resetSeconds);
      let refunded = false;
      return {
        snapshot: { epoch, revoked: revoked === 1 },
        generation,
        exhausted: state === 'exhausted',
        headers,
        refund: async () => {
          if (!counted || refunded) return;
          refunded = true;
          await this.deps.redis.decr(counterKey).catch((err) => this.deps.logger.warn({ err }, 'could not refund a retrieval'));
        },
      };
    }
    throw new Error('quota counter could not be seeded');
  }

  /** Copies the live counters this process touched to Neo4j. */
  async persist(): Promise<void> {
    if (this.touched.size === 0) return;
    const entries = [...this.touched].map((t) => t.split('|') as [string, string]);
    this.touched.clear();
    const values = await this.deps.redis.mget(...entries.map(([ws, period]) => redisKeys.quota(ws, period)));
    const counts = entries
      .map(([workspaceId, period], i) => ({ workspaceId, period, used: Number(values[i] ?? NaN) }))
      .filter((c) => Number.isFinite(c.used));
    if (counts.length > 0) await this.deps.graph.write('quota/persist-usage', { counts, now: this.deps.clock().toISOString() });
  }

  private async persisted(workspaceId: string, period: string): Promise<number> {
    const [row] = await this.deps.graph.read('quota/get-usage', { workspaceId, period });
    return Number(row?.used ?? 0);
  }

  private async seedLimit(workspaceId: string): Promise<void> {
    const ws = await this.loadWorkspace(workspaceId);
    if (!ws) throw new AppError('not_found', 'Workspace not found');
    await guardRedis(() => this.deps.redis.set(redisKeys.quotaLimit(workspaceId), this.limitOf(ws), 'EX', limitTtlSeconds));
  }
}
