import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type Caller, type Principal, type Role, roleAtLeast } from '../auth/caller.js';
import { hashKey, keyKind } from '../auth/keys.js';
import type { PlanLimits } from '../config.js';
import { AppError, notFound } from '../errors.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import { isRedisUnavailable, redisUnavailable } from '../infra/redis.js';
import { type Access, AccessCache } from './access-cache.js';
import { redisKeys } from './redis-keys.js';
import { GateRepository, type PendingSignal, type RetrievalDelta } from './repository.js';
import { GateRoundTrip, type GateReading, counterTtlSeconds } from './round-trip.js';

/** The calendar month (UTC) a moment falls in, as `YYYY-MM`. */
export function periodOf(at: Date): string {
  const month = at.getUTCMonth() + 1;
  return `${at.getUTCFullYear()}-${month < 10 ? '0' : ''}${month}`;
}

/** The calendar day (UTC) a moment falls in, as `YYYY-MM-DD`. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The first instant of the next calendar month (UTC): when the quota resets. */
export function nextPeriodStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** Every failed authentication looks the same: the body never says why, and never repeats the key. */
export const unauthorized = () =>
  new AppError('unauthorized', 'A valid API key is required', { headers: { 'WWW-Authenticate': 'Bearer' } });

/** What a route asks of its caller. */
export interface AccessRule {
  minRole: Role;
  /** Agent keys are refused (403 user_key_required), once the key is known to be valid. */
  userKeyOnly?: boolean;
  /** Counts against the workspace's monthly retrieval quota (bundle, manifest). */
  metered?: boolean;
}

/** A metered request's count: the headers to send, and how to take the count back if the request fails. */
export interface QuotaTicket {
  /** RateLimit-* headers (and Retry-After when exhausted). */
  headers: Record<string, string>;
  refund(): Promise<void>;
}

/** A request the gate let through. */
export interface Admission {
  /** The caller; the router adds the request's id. */
  caller: Omit<Caller, 'requestId'>;
  /** The workspace's graph generation, read in the same round trip; undefined when Redis cannot be reached. */
  generation?: string;
  quota?: QuotaTicket;
}

export interface Usage {
  period: string;
  used: number;
  limit: number;
  remaining: number;
  resetsAt: string;
  /** Every day of the month so far (UTC), oldest first, with the retrievals counted that day. */
  days: { date: string; retrievals: number }[];
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

export interface GateDeps {
  redis: Redis;
  graph: GraphExecutor;
  logger: Logger;
  clock: () => Date;
  plans: PlanLimits;
  rateLimitPerKeyPerMinute?: number;
  /**
   * Told of each crossing once: counting is atomic, so exactly one retrieval sees each count (a refunded one may
   * let a later retrieval cross again). Its failure never fails the retrieval.
   */
  onQuotaCrossed?: (crossing: QuotaCrossing) => Promise<void>;
}

/** Cached workspace limits expire so that a plan change reaches every process even if its DEL was lost. */
const limitTtlSeconds = 300;

/**
 * The request gate: everything a request asks Redis before it runs (its key's access to the workspace, the
 * workspace's graph generation, the monthly quota and the per-key rate limit) in ONE round trip shared by the
 * requests of an event-loop turn (GateRoundTrip), and the signals that keep those answers true after a change
 * (accessChanged, graphChanged, limitChanged). Access answers are cached in-process under the workspace's auth
 * epoch (AccessCache), so the hot path never reads Neo4j. When Redis cannot be reached, nothing cached is
 * trusted (Neo4j decides) and a metered or rate-limited request is a 503: nothing may be served that cannot be
 * counted.
 */
export class RequestGate {
  private readonly roundTrip: GateRoundTrip;
  private readonly repo: GateRepository;
  private readonly cache = new AccessCache();
  /** Key id → when it was last used; written to Neo4j in batches, so using a key costs no write per request. */
  private uses = new Map<string, Date>();
  /** `workspaceId|period` of counters this process changed since they were last copied to Neo4j. */
  private readonly counted = new Set<string>();
  /** Retrievals per workspace, month and principal counted since the last flush (deltas, by `ws|period|kind|id`). */
  private retrievals = new Map<string, RetrievalDelta>();
  private timers: NodeJS.Timeout[] = [];
  /** This process recorded signals in Neo4j that Redis has not had yet (see owe). */
  private owing = false;
  /** Signals recorded by this process so far: a delivery clears `owing` only if none was recorded meanwhile. */
  private owed = 0;
  /** Set while owed signals are being delivered: requests wait for it, so none is served from before a change. */
  private delivering?: Promise<void>;
  private redisWasDown = false;

  constructor(private readonly deps: GateDeps) {
    this.roundTrip = new GateRoundTrip(deps.redis);
    this.repo = new GateRepository(deps.graph);
    // Back from an outage: nothing cached before it is trusted, and what changes owe Redis is delivered first.
    deps.redis.on('error', (err: Error) => deps.logger.debug({ err: err.message }, 'redis connection error'));
    deps.redis.on('close', () => (this.redisWasDown = true));
    deps.redis.on('ready', () => {
      if (!this.redisWasDown) return;
      this.redisWasDown = false;
      this.cache.clear();
      void this.deliverPendingSignals();
    });
  }

  /** Whether this process still owes Redis a signal of a committed change (the process is not ready meanwhile). */
  get owesSignals(): boolean {
    return this.owing;
  }

  /** Round trips to Redis made for requests so far. */
  get roundTrips(): number {
    return this.roundTrip.count;
  }

  /**
   * Lets a request with this bearer key into a workspace under `rule`, or throws its problem, in the order a
   * caller should learn them: 401 (no valid key), 403 user_key_required, 404 (not a member), 429 rate_limited,
   * 403 insufficient_role, 429 quota_exceeded. A malformed key or one failing its checksum costs no look-up.
   */
  async admit(token: string | undefined, workspaceId: string, rule: AccessRule): Promise<Admission> {
    if (!token || !keyKind(token)) throw unauthorized();
    const keyHash = hashKey(token);
    if (this.delivering) await this.delivering;
    const now = this.deps.clock();
    const reading = await this.read(keyHash, workspaceId, rule.metered ?? false, now);
    const counted = reading?.quota.state === 'ok';
    try {
      if (reading?.revoked) throw unauthorized();
      const { principal, role } = await this.access(keyHash, workspaceId, reading?.epoch, now);
      if (!principal) throw unauthorized();
      this.uses.set(principal.keyId, now);
      if (rule.userKeyOnly && principal.kind === 'agent') {
        throw new AppError('user_key_required', 'This endpoint takes a user key; agent keys cannot manage agents or members');
      }
      if (!role) throw notFound('Workspace');
      this.checkRate(reading, now);
      if (!roleAtLeast(role, rule.minRole)) {
        throw new AppError('insufficient_role', `This needs the ${rule.minRole} role or higher; the caller is ${role}`);
      }
      const caller: Admission['caller'] = { principal, workspaceId, role, actingUserId: principal.kind === 'user' ? principal.id : principal.sponsorUserId };
      const quota = rule.metered && reading ? this.ticket(reading, workspaceId, now, principal) : undefined;
      return { caller, generation: reading?.generation, quota };
    } catch (err) {
      if (counted) await this.refund(workspaceId, now);
      throw err;
    }
  }

  /**
   * Counts one retrieval (bundle, manifest) made inside a request the gate already admitted: an MCP tool call,
   * where one POST may carry any tool. One round trip like admit's (shared with the event-loop turn), which
   * counts the quota and reads the current graph generation; the request itself was already rate-limited.
   * Past the limit it throws quota_exceeded, as a metered route would.
   */
  async meter(token: string, caller: Admission['caller']): Promise<Omit<Admission, 'caller'> & { quota: QuotaTicket }> {
    const { workspaceId } = caller;
    const now = this.deps.clock();
    const reading = (await this.read(hashKey(token), workspaceId, true, now, false))!;
    if (reading.revoked) {
      if (reading.quota.state === 'ok') await this.refund(workspaceId, now);
      throw unauthorized();
    }
    return { generation: reading.generation, quota: this.ticket(reading, workspaceId, now, caller.principal) };
  }

  /** The principal behind a valid API key, or undefined (the admin API tells a valid key, 403, from any other, 401). */
  async identify(token: string): Promise<Principal | undefined> {
    return keyKind(token) ? (await this.repo.key(hashKey(token), this.deps.clock()))?.principal : undefined;
  }

  /**
   * The principal behind a valid API key, for a route whose path names no workspace (the caller's own
   * workspaces), or 401. Decided by Neo4j, which knows every revocation and expiry at once: such a route is not on
   * the hot path, and no workspace's epoch could vouch for a cached answer.
   */
  async authenticate(token: string | undefined): Promise<Principal> {
    if (this.delivering) await this.delivering;
    const principal = token ? await this.identify(token) : undefined;
    if (!principal) throw unauthorized();
    this.uses.set(principal.keyId, this.deps.clock());
    return principal;
  }

  /**
   * Call after a committed change that can take access to these workspaces away or change it (key revoked,
   * agent deactivated or changed, member removed or re-roled): marks the revoked keys and replaces each
   * workspace's auth epoch, so every process reloads. When Redis cannot be reached the change is still a
   * success: the signal is owed (see owe) and, meanwhile, no process trusts a cached answer anyway.
   */
  async accessChanged(workspaceIds: string[], revokedKeyHashes: string[] = []): Promise<void> {
    this.cache.clear();
    const pipeline = this.deps.redis.pipeline();
    for (const workspaceId of new Set(workspaceIds)) {
      // The mark only spares Neo4j a read (the epoch alone already invalidates); a day outlives every cache entry.
      for (const hash of revokedKeyHashes) pipeline.set(redisKeys.revokedKey(workspaceId, hash), '1', 'EX', 24 * 3600);
      pipeline.set(redisKeys.authEpoch(workspaceId), randomUUID());
    }
    await this.signal(pipeline, [...new Set(workspaceIds)].map((workspaceId) => ({ workspaceId, graph: false, access: true, keyHashes: revokedKeyHashes })));
  }

  /**
   * Call after a committed change to a workspace's playbooks, versions, nodes, links or annotations: a new
   * random generation, so no cached answer or ETag of the old graph is served again by any process. When Redis
   * cannot be reached the change is still a success: the new generation is owed (see owe).
   */
  async graphChanged(workspaceId: string): Promise<void> {
    const pipeline = this.deps.redis.pipeline().set(redisKeys.graphGeneration(workspaceId), randomUUID());
    await this.signal(pipeline, [{ workspaceId, graph: true, access: false, keyHashes: [] }]);
  }

  /**
   * Delivers every signal owed to Redis (by any process): new generations, epochs and revoked marks, then
   * forgets them. Runs at start, when Redis is back after an outage (requests wait for it), and every few
   * seconds.
   */
  async deliverPendingSignals(): Promise<void> {
    this.delivering ??= (async () => {
      const owedBefore = this.owed;
      try {
        for (;;) {
          const signals = await this.repo.pendingSignals();
          if (signals.length === 0) break;
          const pipeline = this.deps.redis.pipeline();
          for (const signal of signals) this.queueSignal(pipeline, signal);
          await this.execAll(pipeline);
          await this.repo.deletePendingSignals(signals.map((signal) => signal.id));
        }
        if (this.owed === owedBefore) this.owing = false;
      } catch (err) {
        this.deps.logger.warn({ err: (err as Error).message }, 'owed signals not delivered yet');
      } finally {
        this.delivering = undefined;
      }
    })();
    return this.delivering;
  }

  /** Forget the cached limit after a plan or limit change. */
  async limitChanged(workspaceId: string): Promise<void> {
    await this.guard(() => this.deps.redis.del(redisKeys.quotaLimit(workspaceId)));
  }

  /**
   * Retrievals used this month against the workspace's limit, and per day. The days are counted in Redis only
   * (with the month's counter, in the gate's round trip): a Redis that lost its data shows them as 0 while the
   * month's total is re-seeded from Neo4j.
   */
  async usage(workspaceId: string): Promise<Usage> {
    const now = this.deps.clock();
    const period = periodOf(now);
    const limit = await this.limitOf(workspaceId);
    const dates = Array.from({ length: now.getUTCDate() }, (_, i) => `${period}-${String(i + 1).padStart(2, '0')}`);
    const [live, ...perDay] = await this.guard(() =>
      this.deps.redis.mget(redisKeys.quota(workspaceId, period), ...dates.map((date) => redisKeys.quotaDay(workspaceId, date))));
    const used = live === null ? await this.repo.persistedUsage(workspaceId, period) : Number(live);
    const days = dates.map((date, i) => ({ date, retrievals: Math.max(0, Number(perDay[i] ?? 0)) }));
    return { period, used, limit, remaining: Math.max(0, limit - used), resetsAt: nextPeriodStart(now).toISOString(), days };
  }

  /** Starts writing key use and counters to Neo4j in the background. */
  start(options: { flushUsesMs?: number; persistUsageMs?: number; deliverSignalsMs?: number } = {}): void {
    this.timers = [
      setInterval(() => void this.flushUses(), options.flushUsesMs ?? 10_000),
      setInterval(() => void this.persistUsage(), options.persistUsageMs ?? 30_000),
      // Every process looks, not only the one that owes: a process that never lost Redis must not keep serving
      // what a change another process could not signal has made stale.
      setInterval(() => void this.deliverPendingSignals(), options.deliverSignalsMs ?? 2_000),
    ];
    void this.deliverPendingSignals();
    for (const timer of this.timers) timer.unref();
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await Promise.all([this.flushUses(), this.persistUsage(), this.crossings]);
  }

  /**
   * Writes buffered lastUsedAt values in one statement. The timer calls it and stop() once more; a failed
   * write keeps the values for the next flush.
   */
  async flushUses(): Promise<void> {
    if (this.uses.size === 0) return;
    const pending = this.uses;
    this.uses = new Map();
    try {
      await this.repo.touchKeys([...pending].map(([keyId, at]) => ({ keyId, at: at.toISOString() })));
    } catch (err) {
      this.deps.logger.warn({ err }, 'could not record key use');
      for (const [keyId, at] of pending) if (!this.uses.has(keyId)) this.uses.set(keyId, at);
    }
  }

  /**
   * Copies the live counters this process changed to Neo4j, from which a counter missing in Redis is re-seeded
   * (a Redis restart without persistence loses at most one interval of counting).
   */
  async persistUsage(): Promise<void> {
    await this.persistRetrievals();
    if (this.counted.size === 0) return;
    const entries = [...this.counted].map((t) => t.split('|') as [string, string]);
    this.counted.clear();
    try {
      const values = await this.deps.redis.mget(...entries.map(([ws, period]) => redisKeys.quota(ws, period)));
      const counts = entries
        .map(([workspaceId, period], i) => ({ workspaceId, period, used: Number(values[i] ?? NaN) }))
        .filter((c) => Number.isFinite(c.used));
      if (counts.length > 0) await this.repo.persistUsage(counts, this.deps.clock().toISOString());
    } catch (err) {
      this.deps.logger.warn({ err }, 'could not persist usage');
      for (const [ws, period] of entries) this.counted.add(`${ws}|${period}`);
    }
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

  /** The gate round trip for one request, seeding a missing quota limit or counter from Neo4j first. */
  private async read(keyHash: string, workspaceId: string, metered: boolean, now: Date, rateLimited = true): Promise<GateReading | undefined> {
    const period = periodOf(now);
    const minute = rateLimited && this.deps.rateLimitPerKeyPerMinute ? Math.floor(now.getTime() / 60_000) : undefined;
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const reading = await this.roundTrip.read({ keyHash, workspaceId, metered, period, day: dayOf(now), minute });
        if (reading.quota.state === 'seed-limit') {
          const limit = await this.limitOf(workspaceId);
          await this.deps.redis.set(redisKeys.quotaLimit(workspaceId), limit, 'EX', limitTtlSeconds);
        } else if (reading.quota.state === 'seed-count') {
          const persisted = await this.repo.persistedUsage(workspaceId, period);
          await this.deps.redis.set(redisKeys.quota(workspaceId, period), persisted, 'EX', counterTtlSeconds, 'NX');
        } else {
          if (reading.quota.state === 'ok') this.counted.add(`${workspaceId}|${period}`);
          return reading;
        }
      }
      throw new Error('quota counter could not be seeded');
    } catch (err) {
      if (!isRedisUnavailable(err)) throw err;
      if (metered || minute !== undefined) throw redisUnavailable(err);
      this.deps.logger.warn({ err: (err as Error).message }, 'redis unreachable: authenticating against Neo4j');
      return undefined;
    }
  }

  /**
   * The key's access to the workspace: cached under the epoch this request read (and never past the key's
   * expiry), or loaded from Neo4j.
   */
  private async access(keyHash: string, workspaceId: string, epoch: string | undefined, now: Date): Promise<Access> {
    const hit = epoch ? this.cache.get(keyHash, workspaceId, epoch, now) : undefined;
    if (hit) return hit;
    const found = await this.repo.key(keyHash, now);
    const principal = found?.principal;
    let role: Role | undefined;
    // An agent's role (already capped by its sponsor's current role) came with its key.
    if (principal?.kind === 'agent') role = principal.workspaceId === workspaceId ? principal.role : undefined;
    else if (principal) role = await this.repo.userRole(principal.id, workspaceId);
    const access: Access = { principal, role, ...(found?.expiresAt ? { expiresAt: found.expiresAt } : {}) };
    if (epoch) this.cache.set(keyHash, workspaceId, epoch, access, now);
    return access;
  }

  private checkRate(reading: GateReading | undefined, now: Date): void {
    const perMinute = this.deps.rateLimitPerKeyPerMinute;
    if (!perMinute || !reading?.requestsThisMinute || reading.requestsThisMinute <= perMinute) return;
    const retryAfter = Math.max(1, Math.ceil((60_000 - (now.getTime() % 60_000)) / 1000));
    throw new AppError('rate_limited', `More than ${perMinute} requests a minute with this key`, { headers: { 'Retry-After': String(retryAfter) } });
  }

  private ticket(reading: GateReading, workspaceId: string, now: Date, principal: Principal): QuotaTicket {
    const { state, used, limit } = reading.quota;
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
    this.countRetrieval(workspaceId, periodOf(now), principal, 1);
    this.tellCrossings(workspaceId, now, used, limit, principal);
    return {
      headers,
      refund: async () => {
        if (refunded) return;
        refunded = true;
        this.countRetrieval(workspaceId, periodOf(now), principal, -1);
        await this.refund(workspaceId, now);
      },
    };
  }

  private crossings: Promise<void> = Promise.resolve();

  /** The warning share of the limit (rounded up) and the limit itself, each told to onQuotaCrossed by the retrieval that reached it. */
  private tellCrossings(workspaceId: string, now: Date, used: number, limit: number, principal: Principal): void {
    const { onQuotaCrossed } = this.deps;
    if (!onQuotaCrossed || limit <= 0) return;
    const thresholds = [
      { threshold: 'warning' as const, at: Math.ceil(limit * quotaWarningShare) },
      { threshold: 'exhausted' as const, at: limit },
    ];
    for (const { threshold, at } of thresholds) {
      if (used !== at) continue;
      // One after the other, so that a receiver hears the warning before the exhaustion (events are numbered as written).
      this.crossings = this.crossings
        .then(() => onQuotaCrossed({ threshold, workspaceId, period: periodOf(now), used, limit, principal, at: now }))
        .catch((err: unknown) => this.deps.logger.warn({ err: (err as Error).message, workspaceId, threshold }, 'quota crossing event not recorded'));
    }
  }

  /** Counted in-process and added to Neo4j with the usage counters: a retrieval costs no extra round trip. */
  private countRetrieval(workspaceId: string, period: string, principal: Principal, delta: number): void {
    const key = `${workspaceId}|${period}|${principal.kind}|${principal.id}`;
    const entry = this.retrievals.get(key) ?? { workspaceId, period, principalKind: principal.kind, principalId: principal.id, count: 0 };
    entry.count += delta;
    this.retrievals.set(key, entry);
  }

  /** Takes back a retrieval counted at `now`: from its month and from its day, in one round trip. */
  private async refund(workspaceId: string, now: Date): Promise<void> {
    await this.deps.redis
      .pipeline()
      .decr(redisKeys.quota(workspaceId, periodOf(now)))
      .decr(redisKeys.quotaDay(workspaceId, dayOf(now)))
      .exec()
      .catch((err) => this.deps.logger.warn({ err }, 'could not refund a retrieval'));
  }

  /** The monthly retrieval limit in force: the workspace's own, or its plan's. */
  private async limitOf(workspaceId: string): Promise<number> {
    const ws = await this.repo.workspacePlan(workspaceId);
    if (!ws) throw notFound('Workspace');
    const { plans } = this.deps;
    return ws.monthlyRetrievalLimit ?? plans[ws.plan as keyof PlanLimits] ?? plans.free;
  }

  /** Sends a change's signal; when Redis cannot be reached, owes it instead. */
  private async signal(pipeline: ReturnType<Redis['pipeline']>, owed: Omit<PendingSignal, 'id'>[]): Promise<void> {
    try {
      await this.execAll(pipeline);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'service_unavailable')) throw err;
      await this.owe(owed);
    }
  }

  /**
   * Records in Neo4j the signals of a committed change that Redis could not be given, for this or any other
   * process to deliver as soon as Redis answers again: the change stays a success (a client retrying it would
   * only repeat it), and no answer older than it is served once Redis is back.
   */
  private async owe(signals: Omit<PendingSignal, 'id'>[]): Promise<void> {
    this.owing = true;
    this.owed += 1;
    this.deps.logger.warn({ workspaceIds: signals.map((s) => s.workspaceId) }, 'redis unreachable: the change’s signal is owed');
    const now = this.deps.clock().toISOString();
    for (const signal of signals) await this.repo.recordPendingSignal({ id: randomUUID(), ...signal }, now);
  }

  private queueSignal(pipeline: ReturnType<Redis['pipeline']>, signal: PendingSignal): void {
    const { workspaceId } = signal;
    if (signal.graph) pipeline.set(redisKeys.graphGeneration(workspaceId), randomUUID());
    if (signal.access) {
      for (const hash of signal.keyHashes) pipeline.set(redisKeys.revokedKey(workspaceId, hash), '1', 'EX', 24 * 3600);
      pipeline.set(redisKeys.authEpoch(workspaceId), randomUUID());
    }
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw isRedisUnavailable(err) ? redisUnavailable(err) : err;
    }
  }

  private async execAll(pipeline: ReturnType<Redis['pipeline']>): Promise<void> {
    const results = await this.guard(() => pipeline.exec());
    const failed = results?.find(([err]) => err);
    if (!results || failed) throw isRedisUnavailable(failed?.[0]) ? redisUnavailable(failed?.[0]) : (failed?.[0] ?? new Error('Redis pipeline was discarded'));
  }
}
