import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import { readScope } from '../infra/read-scope.js';
import { execEach, guardRedis, type PipelineCommand, type RedisClient } from '../infra/redis.js';
import type { AccessCache } from './access-cache.js';
import { redisKeys } from './redis-keys.js';
import type { GateRepository, PendingSignal } from './repository.js';

/** The mark only spares Neo4j a read (the epoch alone already invalidates); a day outlives every cache entry. */
const revokedMarkSeconds = 24 * 3600;
/** Bookmarks kept per workspace: concurrent writers through several processes each add theirs. */
const keptBookmarks = 8;
/** A secondary still behind a write after this long is not one to read from anyway. */
const bookmarkSeconds = 3600;

/**
 * The signals that keep the gate's answers true after a committed change, on every process: a new auth epoch
 * (and revoked marks) after an access change, a new graph generation after a graph change, a forgotten limit
 * after a plan change. A signal Redis cannot be given is owed: recorded in Neo4j (`:PendingSignal`) and
 * delivered by the first process that reaches Redis again, while requests wait for the delivery.
 */
export class ChangeSignals {
  /** This process recorded signals in Neo4j that Redis has not had yet (see owe). */
  private owing = false;
  /** Signals recorded by this process so far: a delivery clears `owing` only if none was recorded meanwhile. */
  private owed = 0;
  private delivering?: Promise<void>;

  constructor(
    private readonly deps: { redis: RedisClient; logger: Logger; clock: () => Date; graph: Pick<GraphExecutor, 'latestBookmarks'> },
    private readonly repo: GateRepository,
    private readonly cache: AccessCache,
  ) {}

  /** Whether this process still owes Redis a signal of a committed change (the process is not ready meanwhile). */
  get owesSignals(): boolean {
    return this.owing;
  }

  /** Set while owed signals are being delivered: requests wait for it, so none is served from before a change. */
  get delivery(): Promise<void> | undefined {
    return this.delivering;
  }

  /**
   * Call after a committed change that can take access to these workspaces away or change it (key revoked,
   * agent deactivated or changed, member removed or re-roled): marks the revoked keys and replaces each
   * workspace's auth epoch, so every process reloads. When Redis cannot be reached the change is still a
   * success: the signal is owed (see owe) and, meanwhile, no process trusts a cached answer anyway.
   */
  async accessChanged(workspaceIds: string[], revokedKeyHashes: string[] = []): Promise<void> {
    this.cache.clear();
    await this.signal([...new Set(workspaceIds)].map((workspaceId) => ({ workspaceId, graph: false, access: true, keyHashes: revokedKeyHashes })));
  }

  /**
   * Call after a committed change to a workspace's playbooks, versions, nodes, links or annotations: a new
   * random generation, so no cached answer or ETag of the old graph is served again by any process. When Redis
   * cannot be reached the change is still a success: the new generation is owed (see owe).
   */
  async graphChanged(workspaceId: string): Promise<void> {
    await this.signal([{ workspaceId, graph: true, access: false, keyHashes: [] }]);
  }

  /** Forget the cached limit after a plan or limit change. */
  async limitChanged(workspaceId: string): Promise<void> {
    await guardRedis(() => this.deps.redis.del(redisKeys.quotaLimit(workspaceId)));
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
          await execEach(this.deps.redis, signals.flatMap(commandsOf));
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

  /**
   * Records a request's committed write for its workspace when no change signal did: the workspace's next
   * requests, through any process, read after it. A Redis that cannot be reached only costs that guarantee on a
   * Neo4j cluster for a moment; the write itself stands.
   */
  async wrote(workspaceId: string): Promise<void> {
    await execEach(this.deps.redis, await this.bookmarkCommands([workspaceId])).catch((err) =>
      this.deps.logger.warn({ err: (err as Error).message }, 'the write’s bookmarks were not recorded'));
  }

  /**
   * The workspaces' newest bookmarks (this process's latest writes, the request's among them), pushed before the
   * signal that makes other processes read again: none of them reads the new generation without them.
   */
  private async bookmarkCommands(workspaceIds: string[]): Promise<PipelineCommand[]> {
    const scope = readScope();
    if (scope) scope.published = true;
    const bookmarks = await this.deps.graph.latestBookmarks();
    if (bookmarks.length === 0) return [];
    return workspaceIds.map((workspaceId) => {
      const key = redisKeys.bookmarks(workspaceId);
      return { key, replies: 3, add: (p) => p.lpush(key, ...bookmarks).ltrim(key, 0, keptBookmarks - 1).expire(key, bookmarkSeconds) };
    });
  }

  /** Sends a change's signal; when Redis cannot be reached, owes it instead. */
  private async signal(signals: Omit<PendingSignal, 'id'>[]): Promise<void> {
    try {
      const bookmarks = await this.bookmarkCommands([...new Set(signals.map((s) => s.workspaceId))]);
      await execEach(this.deps.redis, [...bookmarks, ...signals.flatMap(commandsOf)]);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'service_unavailable')) throw err;
      await this.owe(signals);
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
}

/** What a signal writes: a new generation, or revoked marks and a new epoch; every key has the workspace's tag. */
function commandsOf(signal: Omit<PendingSignal, 'id'>): PipelineCommand[] {
  const { workspaceId } = signal;
  const set = (key: string): PipelineCommand => ({ key, add: (p) => p.set(key, randomUUID()) });
  const commands: PipelineCommand[] = [];
  if (signal.graph) commands.push(set(redisKeys.graphGeneration(workspaceId)));
  if (signal.access) {
    for (const hash of signal.keyHashes) {
      const key = redisKeys.revokedKey(workspaceId, hash);
      commands.push({ key, add: (p) => p.set(key, '1', 'EX', revokedMarkSeconds) });
    }
    commands.push(set(redisKeys.authEpoch(workspaceId)));
  }
  return commands;
}
