import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { RedisClient } from '../infra/redis.js';
import { chunksOf } from './chunks.js';
import { type EmbeddingProvider, ProviderUnavailable } from './provider.js';
import type { EmbeddedNode, EmbeddingRepository, PendingNode } from './repository.js';

/** What the embedder is doing, for the status endpoints. */
export type EmbedderState = 'starting' | 'embedding' | 'idle' | 'provider-unavailable' | 'paused';

export interface EmbedderDeps {
  repo: EmbeddingRepository;
  provider: EmbeddingProvider;
  redis: RedisClient;
  logger: Logger;
  /** Tells every process that the workspace's graph changed: answers cached before the new passages are stale. */
  graphChanged(workspaceId: string): Promise<void>;
  /** Passages one provider request carries. */
  batch: number;
  /** How long an idle embedder waits before it looks again without being woken (default idleMs). */
  idleMs?: number;
  /** How long this process must have written nothing before a request of passages goes out (default quietMs). */
  quietMs?: number;
  /** Before the first round: the vector index made for the provider's dimension (retried like a round). */
  prepare(): Promise<void>;
}

/** One process embeds at a time, holding this lease; it lapses when that process dies, and another takes over. */
export const leaseKey = 'embeddings:lease';
const leaseMs = 60_000;
/** Nodes read from the queue at a time: of a workspace just written to, and of the backlog (kept short, so that a write waits little). */
const nodesPerRound = 32;
/**
 * How long an idle embedder waits before it looks at the whole queue again: a write of this process wakes it at
 * once, so this is how late a write of another process is embedded at worst. The look reads every live node.
 */
const idleMs = 20_000;
const backlogPerRound = 8;
/**
 * A request of passages waits until this process has written nothing for this long: the model takes a core for
 * seconds, and writes beside it are slower even with the model at the lowest CPU priority (cores share more than
 * time: docs/retrieval.md). Writes that never stop hold it back at most quietAtMostMs a request, so that embeddings
 * still move.
 */
const quietMs = 500;
const quietAtMostMs = 120_000;

/**
 * The background worker that keeps every live node's passages embedded from its current text: never in a write's
 * way. The queue is the graph itself (embeddings/pending.cypher: nodes whose embedded version is not their
 * current one), so a kill loses nothing and a restart resumes where it was; a write wakes the worker of its
 * process, and an idle worker looks again every few seconds for writes of other processes. One process of several
 * embeds at a time (a Redis lease). A provider that fails delays embeddings (retried with growing waits), never a
 * write or a words search.
 */
export class Embedder {
  state: EmbedderState = 'starting';
  /** The provider's last failure, while it lasts. */
  lastError?: string;
  private running = false;
  private loop?: Promise<void>;
  private wakeUp?: () => void;
  private woken = false;
  /** When this process last wrote to the graph, the embedder's own stores aside. */
  private lastWriteAt = 0;
  /** The embedder is telling the process that it stored passages: not a write to make way for. */
  private signalling = false;
  /** Workspaces written to since their queue was last found empty: they go before the backlog. */
  private readonly dirty = new Set<string>();
  private readonly owner = randomUUID();

  constructor(private readonly deps: EmbedderDeps) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await this.deps.redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0", 1, leaseKey, this.owner).catch(() => undefined);
  }

  /** A node of the workspace was written: embed that workspace's pending nodes next, now rather than at the next idle check. */
  wake(workspaceId?: string): void {
    if (!this.signalling) this.lastWriteAt = Date.now();
    if (workspaceId) this.dirty.add(workspaceId);
    this.woken = true;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    let failures = 0;
    let prepared = false;
    while (this.running) {
      let worked = false;
      try {
        if (!prepared) {
          await this.deps.prepare();
          prepared = true;
        }
        if (await this.holdLease()) worked = await this.round();
        failures = 0;
        if (this.state !== 'embedding') this.state = 'idle';
        this.lastError = undefined;
      } catch (err) {
        if (!this.running) break;
        failures += 1;
        this.state = err instanceof ProviderUnavailable ? 'provider-unavailable' : 'paused';
        this.lastError = (err as Error).message;
        if (failures === 1) this.deps.logger.warn({ err: this.lastError }, 'embedding paused: will try again');
      }
      if (!worked && this.running) await this.pause(failures > 0 ? Math.min(30_000, 500 * 2 ** failures) : (this.deps.idleMs ?? idleMs));
    }
  }

  /**
   * One round: the pending nodes of a workspace written to lately (newest change first), else a few of the whole
   * backlog (oldest change first), embedded and stored. Whether there was anything to do.
   */
  private async round(): Promise<boolean> {
    const { repo, provider } = this.deps;
    const [workspaceId] = this.dirty;
    const pending = await repo.pending(workspaceId ?? null, provider.model, workspaceId ? nodesPerRound : backlogPerRound);
    if (pending.length === 0) {
      if (workspaceId) {
        this.dirty.delete(workspaceId);
        return true;
      }
      this.state = 'idle';
      await repo.removeOrphans(1_000);
      return false;
    }
    this.state = 'embedding';
    if (workspaceId) {
      // Workspaces written to take turns, a round each: one with a large import does not hold back another's write.
      this.dirty.delete(workspaceId);
      this.dirty.add(workspaceId);
    }
    const embedded = await this.embed(pending, workspaceId === undefined);
    const workspaceOf = new Map(pending.map((node) => [node.id, node.workspaceId]));
    const byWorkspace = new Map<string, EmbeddedNode[]>();
    for (const node of embedded) {
      const ws = workspaceOf.get(node.id)!;
      byWorkspace.set(ws, [...(byWorkspace.get(ws) ?? []), node]);
    }
    for (const [workspaceId, nodes] of byWorkspace) {
      await repo.store(workspaceId, provider.model, nodes);
      await this.signal(workspaceId);
    }
    return true;
  }

  /** Tells every process that the workspace's passages changed. Its listeners here are told at once (RequestGate.onGraphChanged). */
  private async signal(workspaceId: string): Promise<void> {
    this.signalling = true;
    let signalled: Promise<void>;
    try {
      signalled = this.deps.graphChanged(workspaceId);
    } finally {
      this.signalling = false;
    }
    await signalled;
  }

  /** Until this process has written nothing for quietMs (at most quietAtMostMs), or the embedder stops. */
  private async quiet(): Promise<void> {
    const quietFor = this.deps.quietMs ?? quietMs;
    const until = Date.now() + quietAtMostMs;
    const waitFor = () => Math.min(this.lastWriteAt + quietFor, until) - Date.now();
    while (this.running && waitFor() > 0) await new Promise((resolve) => setTimeout(resolve, waitFor()).unref());
  }

  /**
   * The nodes' passages, embedded in requests of `batch` passages; the nodes whose passages are all embedded. A
   * round of the backlog stops after the request during which a workspace was written to (`yieldToWrites`): a
   * backlog of long notes takes minutes at a few passages a second, and the write's workspace goes first.
   */
  private async embed(nodes: PendingNode[], yieldToWrites: boolean): Promise<EmbeddedNode[]> {
    const chunked = nodes.map((node) => chunksOf(node));
    const texts = chunked.flat().map((c) => c.text);
    const vectors: number[][] = [];
    const done: EmbeddedNode[] = [];
    let first = 0;
    const collect = () => {
      while (done.length < nodes.length && first + chunked[done.length].length <= vectors.length) {
        const node = nodes[done.length];
        const chunks = chunked[done.length].map((c, i) => ({ section: c.section, embedding: vectors[first + i] }));
        first += chunks.length;
        done.push({ id: node.id, updatedAt: node.updatedAt, chunks });
      }
    };
    for (let at = 0; at < texts.length; at += this.deps.batch) {
      await this.quiet();
      if (!this.running) throw new Error('stopping');
      vectors.push(...(await this.deps.provider.embed(texts.slice(at, at + this.deps.batch), 'passage')));
      await this.holdLease();
      collect();
      if (yieldToWrites && this.dirty.size > 0) return done;
    }
    collect();
    return done;
  }

  /** Takes or renews the lease; without Redis every process embeds (storing is by version, so twice is harmless). */
  private async holdLease(): Promise<boolean> {
    try {
      const script = "local v = redis.call('get', KEYS[1]) if v == false or v == ARGV[1] then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end return 0";
      return (await this.deps.redis.eval(script, 1, leaseKey, this.owner, leaseMs)) === 1;
    } catch {
      return true;
    }
  }

  private pause(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.woken = false;
        this.wakeUp = undefined;
        done();
      };
    });
  }
}
