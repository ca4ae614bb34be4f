import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { AppError } from '../http/problem.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import { redisKeys } from '../infra/redis-keys.js';
import type { Principal, Role } from './caller.js';
import { hashKey, keyKind } from './keys.js';

const unauthorized = () => new AppError('unauthorized', 'A valid API key is required');

/** What Redis says about a key right now: the auth epoch, and whether the key is marked revoked. */
export interface AuthSnapshot {
  epoch: string;
  revoked: boolean;
}

/**
 * Resolves bearer keys to principals and principals to workspace roles.
 *
 * Look-ups are cached in-process so the hot path never touches Neo4j; the cache is trusted only as far
 * as Redis allows. Every request reads the global auth epoch and the key's revoked mark from Redis in one
 * round trip: a revocation (or any membership, role or agent change) bumps the epoch after its commit,
 * so the very next request on every process sees a new epoch and drops its cache. Pub/sub carries the
 * same news ahead of time. When Redis cannot be reached the cache is bypassed and Neo4j decides (fail
 * closed), never a stale entry.
 */
export class Authenticator {
  private epoch: string | undefined;
  private readonly principals: LRUCache<string, Principal | 'none'>;
  private readonly roles: LRUCache<string, Role | 'none'>;
  private readonly uses = new Map<string, string>();
  private flushTimer?: NodeJS.Timeout;

  constructor(
    private readonly graph: GraphExecutor,
    private readonly redis: Redis,
    private readonly logger: Logger,
    private readonly options: { cacheTtlMs?: number; flushUsesMs?: number } = {},
  ) {
    const ttl = options.cacheTtlMs ?? 5 * 60_000;
    this.principals = new LRUCache({ max: 50_000, ttl });
    this.roles = new LRUCache({ max: 100_000, ttl });
  }

  /** Subscribes to invalidations and starts the lastUsedAt flusher. */
  async start(subscriber: Redis): Promise<void> {
    subscriber.on('message', (channel: string) => {
      if (channel === redisKeys.authChannel) this.clear();
    });
    await subscriber.subscribe(redisKeys.authChannel);
    this.flushTimer = setInterval(() => void this.flushUses(), this.options.flushUsesMs ?? 10_000);
    this.flushTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.flushUses();
  }

  /** Reads the auth epoch and the key's revoked mark in one Redis round trip; undefined when Redis is down. */
  async snapshot(keyHash: string): Promise<AuthSnapshot | undefined> {
    try {
      const [epoch, revoked] = await this.redis.mget(redisKeys.authEpoch, redisKeys.revokedKey(keyHash));
      return { epoch: epoch ?? '0', revoked: revoked !== null };
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'redis unreachable: authenticating against Neo4j');
      return undefined;
    }
  }

  /**
   * The principal behind a bearer token, or 401. `snapshot` is what Redis said for this request
   * (see snapshot()); undefined means Redis is unreachable and the cache is not trusted.
   */
  async authenticate(token: string, snapshot: AuthSnapshot | undefined): Promise<Principal> {
    if (!keyKind(token)) throw unauthorized();
    const hash = hashKey(token);
    if (snapshot?.revoked) throw unauthorized();
    const useCache = snapshot !== undefined && this.sync(snapshot.epoch);
    let principal = useCache ? this.principals.get(hash) : undefined;
    if (principal === undefined) {
      principal = await this.loadPrincipal(hash);
      if (useCache) this.principals.set(hash, principal);
    }
    if (principal === 'none') throw unauthorized();
    this.uses.set(principal.keyId, new Date().toISOString());
    return principal;
  }

  /** The principal's role in a workspace, or null when it is not a member there. */
  async roleIn(principal: Principal, workspaceId: string, snapshot: AuthSnapshot | undefined): Promise<Role | null> {
    if (principal.kind === 'agent') return principal.workspaceId === workspaceId ? principal.role : null;
    const useCache = snapshot !== undefined && this.sync(snapshot.epoch);
    const cacheKey = `${principal.id}|${workspaceId}`;
    let role = useCache ? this.roles.get(cacheKey) : undefined;
    if (role === undefined) {
      const rows = await this.graph.read<{ role: Role }>('auth/user-role', { userId: principal.id, workspaceId });
      role = rows[0]?.role ?? 'none';
      if (useCache) this.roles.set(cacheKey, role);
    }
    return role === 'none' ? null : role;
  }

  /**
   * Called after a committed change that can take access away or change it (key revoked, agent
   * deactivated or changed, member removed or re-roled): marks revoked keys, bumps the epoch, and tells
   * every process. Throws when Redis is unreachable, so the caller answers 503 and retries.
   */
  async accessChanged(revokedKeyHashes: string[] = []): Promise<void> {
    const multi = this.redis.multi();
    // The mark outlives every cache entry that could still hold the key.
    for (const hash of revokedKeyHashes) multi.set(redisKeys.revokedKey(hash), '1', 'EX', 24 * 3600);
    multi.incr(redisKeys.authEpoch);
    multi.publish(redisKeys.authChannel, 'changed');
    await multi.exec();
    this.clear();
  }

  private sync(epoch: string): boolean {
    if (epoch !== this.epoch) {
      this.clear();
      this.epoch = epoch;
    }
    return true;
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

  /** Writes buffered lastUsedAt values in one statement, so using a key costs no write per request. */
  async flushUses(): Promise<void> {
    if (this.uses.size === 0) return;
    const uses = [...this.uses].map(([keyId, at]) => ({ keyId, at }));
    this.uses.clear();
    try {
      await this.graph.write('auth/touch-keys', { uses });
    } catch (err) {
      this.logger.warn({ err }, 'could not record key use');
    }
  }
}
