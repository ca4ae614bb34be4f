import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { AppError } from '../http/problem.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import { DistinctKeys, perTurn } from '../infra/redis.js';
import { redisKeys } from '../infra/redis-keys.js';
import type { Principal, Role } from './caller.js';

/** Every failed authentication looks the same: the body never says why, and never repeats the key. */
export const unauthorized = () =>
  new AppError('unauthorized', 'A valid API key is required', { headers: { 'WWW-Authenticate': 'Bearer' } });

/**
 * What Redis says about a key right now: the auth epoch, and whether the key is marked revoked; and, read
 * in the same round trip because every request needs it anyway, the graph generation of the workspace the
 * request names (null when none is recorded), which keys the response cache.
 */
export interface AuthSnapshot {
  epoch: string;
  revoked: boolean;
  generation?: string | null;
}

/** A cached answer, with the auth epoch it was loaded under. */
interface Entry<T> {
  epoch: string;
  value: T;
}

/** The epoch before any access change was ever recorded (or after Redis lost its data), as redis/retrieval-gate.lua reads it too. */
const noEpoch = '0';

/**
 * Resolves bearer keys to principals and principals to workspace roles.
 *
 * Look-ups are cached in-process so that the hot path never touches Neo4j; the cache is trusted only as far
 * as Redis allows. Every request reads the auth epoch and the key's revoked mark in ONE Redis round trip
 * (MGET, sent after the request arrived and shared with the requests of the same event-loop turn). Every
 * committed change that can take access away sets a new, never-repeating epoch after its
 * commit (accessChanged), so:
 * - a cached answer is used only by a request that read the same epoch it was loaded under; a request that
 *   starts after a revocation returned reads the new epoch and goes to Neo4j, on every process;
 * - an answer loaded under an old epoch (a slow request racing a revocation) is never served later;
 * - epochs are random, not a counter, so a Redis that lost its data cannot bring an old epoch back.
 * Pub/sub carries the same news ahead of time, to free memory early. The revoked mark rejects a revoked key
 * without any Neo4j read. When Redis cannot be reached the cache is bypassed and Neo4j decides (fail closed),
 * never a stale entry. A key that is malformed or fails its checksum is refused before Redis or Neo4j
 * (the router checks keyKind before it reads the snapshot).
 */
export class Authenticator {
  private epoch: string | undefined;
  private readonly principals: LRUCache<string, Entry<Principal | 'none'>>;
  private readonly roles: LRUCache<string, Entry<Role | 'none'>>;
  /** Key id → when it was last used (a Date, turned into text only when flushed: this runs on every request). */
  private uses = new Map<string, Date>();
  private flushTimer?: NodeJS.Timeout;
  private readonly now: () => Date;
  private readonly readSnapshot = perTurn<{ keyHash: string; workspaceId?: string }, AuthSnapshot>(async (requests) => {
    // One MGET for the turn: the epoch once, then each distinct revoked mark and generation once.
    const names = new DistinctKeys(redisKeys.authEpoch);
    const wanted = requests.map((r) => [names.at(redisKeys.revokedKey(r.keyHash)), r.workspaceId ? names.at(redisKeys.graphGeneration(r.workspaceId)) : -1]);
    const values = await this.redis.mget(names.keys);
    const epoch = values[0] ?? noEpoch;
    return wanted.map(([revoked, generation]) => ({ epoch, revoked: values[revoked] !== null, generation: generation < 0 ? null : (values[generation] ?? null) }));
  });

  constructor(
    private readonly graph: GraphExecutor,
    private readonly redis: Redis,
    private readonly logger: Logger,
    private readonly options: { cacheTtlMs?: number; flushUsesMs?: number; clock?: () => Date } = {},
  ) {
    // The TTL only bounds memory and the damage of an access change whose Redis signal failed (see accessChanged).
    const ttl = options.cacheTtlMs ?? 60_000;
    this.principals = new LRUCache({ max: 50_000, ttl });
    this.roles = new LRUCache({ max: 100_000, ttl });
    this.now = options.clock ?? (() => new Date());
  }

  /** Subscribes to invalidations and starts the lastUsedAt flusher. */
  async start(subscriber: Redis): Promise<void> {
    subscriber.on('message', (channel: string) => {
      if (channel === redisKeys.authChannel) this.clear();
    });
    // Messages missed while the subscriber was away are harmless (the epoch decides), but start clean.
    subscriber.on('ready', () => this.clear());
    await subscriber.subscribe(redisKeys.authChannel);
    this.flushTimer = setInterval(() => void this.flushUses(), this.options.flushUsesMs ?? 10_000);
    this.flushTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.flushUses();
  }

  /**
   * Reads the auth epoch, the key's revoked mark and (given a workspace) its graph generation in one Redis
   * round trip, shared by every request of the same event-loop turn (one MGET); undefined when Redis is down.
   */
  async snapshot(keyHash: string, workspaceId?: string): Promise<AuthSnapshot | undefined> {
    try {
      return await this.readSnapshot({ keyHash, workspaceId });
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'redis unreachable: authenticating against Neo4j');
      this.clear();
      return undefined;
    }
  }

  /**
   * The principal behind a key, given as its hash, or 401. The caller has checked the key's form (keyKind)
   * before hashing it, so that a mistyped or truncated key costs no look-up at all. `snapshot` is what Redis
   * said for this request (see snapshot(); a metered route reads it in its quota round trip instead);
   * undefined means Redis is unreachable and nothing cached is trusted.
   */
  async authenticate(keyHash: string, snapshot: AuthSnapshot | undefined): Promise<Principal> {
    if (snapshot?.revoked) throw unauthorized();
    const principal = await this.cached(this.principals, keyHash, snapshot, () => this.loadPrincipal(keyHash));
    if (principal === 'none') throw unauthorized();
    this.uses.set(principal.keyId, this.now());
    return principal;
  }

  /** The principal's role in a workspace, or null when it is not a member there. */
  async roleIn(principal: Principal, workspaceId: string, snapshot: AuthSnapshot | undefined): Promise<Role | null> {
    // An agent's role (already capped by its sponsor's current role) came with its key.
    if (principal.kind === 'agent') return principal.workspaceId === workspaceId ? principal.role : null;
    const role = await this.cached(this.roles, `${principal.id}|${workspaceId}`, snapshot, async () => {
      const rows = await this.graph.read<{ role: Role }>('auth/user-role', { userId: principal.id, workspaceId });
      return rows[0]?.role ?? 'none';
    });
    return role === 'none' ? null : role;
  }

  /**
   * Called after a committed change that can take access away or change it (key revoked, agent
   * deactivated or changed, member removed or re-roled): marks revoked keys, sets a new epoch, and tells
   * every process. Throws when Redis is unreachable, so the caller answers 503; the operations that call it
   * are idempotent, and a retry signals again.
   */
  async accessChanged(revokedKeyHashes: string[] = []): Promise<void> {
    this.clear();
    const multi = this.redis.multi();
    // The mark only spares Neo4j a read (the epoch alone already invalidates); a day outlives every cache entry.
    for (const hash of revokedKeyHashes) multi.set(redisKeys.revokedKey(hash), '1', 'EX', 24 * 3600);
    multi.set(redisKeys.authEpoch, randomUUID());
    multi.publish(redisKeys.authChannel, 'changed');
    const results = await multi.exec();
    const failed = results?.find(([err]) => err);
    if (!results || failed) throw failed?.[0] ?? new Error('Redis transaction was discarded');
  }

  /**
   * A cached value when it was loaded under the epoch this request read; otherwise loads it, and caches it
   * unless Redis is down or a newer epoch has been seen meanwhile.
   */
  private async cached<T>(cache: LRUCache<string, Entry<T>>, key: string, snapshot: AuthSnapshot | undefined, load: () => Promise<T>): Promise<T> {
    if (!snapshot) return load();
    this.observe(snapshot.epoch);
    const hit = cache.get(key);
    if (hit && hit.epoch === snapshot.epoch) return hit.value;
    const value = await load();
    if (this.epoch === snapshot.epoch) cache.set(key, { epoch: snapshot.epoch, value });
    return value;
  }

  /** A request read `epoch`: when it is not the one seen last, every cached answer is stale. */
  private observe(epoch: string): void {
    if (epoch !== this.epoch) {
      this.clear();
      this.epoch = epoch;
    }
  }

  private clear(): void {
    this.principals.clear();
    this.roles.clear();
  }

  private async loadPrincipal(hash: string): Promise<Principal | 'none'> {
    const [row] = await this.graph.read('auth/find-key', { hash });
    if (!row) return 'none';
    if (row.kind === 'agent') {
      return { kind: 'agent', id: row.principalId, keyId: row.keyId, workspaceId: row.workspaceId, sponsorUserId: row.sponsorUserId, role: row.role };
    }
    return { kind: 'user', id: row.principalId, keyId: row.keyId };
  }

  /**
   * Writes buffered lastUsedAt values in one statement, so using a key costs no write per request. The
   * timer calls it every 10 s and stop() once more; a failed write keeps the values for the next flush.
   */
  async flushUses(): Promise<void> {
    if (this.uses.size === 0) return;
    const pending = this.uses;
    this.uses = new Map();
    try {
      await this.graph.write('auth/touch-keys', { uses: [...pending].map(([keyId, at]) => ({ keyId, at: at.toISOString() })) });
    } catch (err) {
      this.logger.warn({ err }, 'could not record key use');
      for (const [keyId, at] of pending) if (!this.uses.has(keyId)) this.uses.set(keyId, at);
    }
  }
}
