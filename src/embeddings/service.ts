import { LRUCache } from 'lru-cache';
import { stampOf } from '../audit/recorder.js';
import type { Caller } from '../auth/caller.js';
import type { RequestGate } from '../gate/gate.js';
import type { Infra } from '../service-deps.js';
import { Embedder } from './embedder.js';
import { type EmbeddingProvider, ProviderUnavailable, checkClientVector, providerOf } from './provider.js';
import { EmbeddingRepository, type NearNode } from './repository.js';
import type { EmbeddingStatus } from './schemas.js';

/**
 * A workspace's share of the shared vector index below which its passages are compared one by one rather than
 * through the index: its nearest passages could all be crowded out by other workspaces' there.
 */
const indexedShare = 0.2;
/** Passages few enough to compare one by one in less time than the index takes. */
const exactBelow = 300;
/** Candidates asked of the index per node wanted, beyond what the workspace's share alone would need. */
const indexedHeadroom = 4;

/**
 * The embeddings of context nodes: the provider the configuration names, the background embedder, the status of
 * the queue, vectors of questions, and the nodes nearest to a vector. docs/retrieval.md tells the whole model.
 */
export class EmbeddingService {
  readonly provider?: EmbeddingProvider;
  private readonly repo: EmbeddingRepository;
  private readonly embedder?: Embedder;
  private knownDimension?: number;
  /** The vector index exists (made here, or found made by another process). */
  private indexReady = false;
  /** Questions asked again (an agent retrying, several agents with one task) are not embedded again. */
  private readonly questions = new LRUCache<string, number[]>({ max: 1_000 });
  /**
   * Passage counts by workspace, which only choose how the nearest passages are searched (either way is right):
   * kept a few seconds rather than counted on every query.
   */
  private readonly counts = new LRUCache<string, { mine: number; all: number }>({ max: 10_000, ttl: 10_000 });

  constructor(private readonly deps: Pick<Infra, 'graph' | 'redis' | 'logger' | 'config'> & { gate: Pick<RequestGate, 'graphChanged' | 'onGraphChanged'> }) {
    const config = deps.config.embeddings;
    this.repo = new EmbeddingRepository(deps.graph);
    this.provider = providerOf(config);
    if (config.kind === 'client') this.knownDimension = config.dimension;
    if (this.provider) {
      this.embedder = new Embedder({
        repo: this.repo,
        provider: this.provider,
        redis: deps.redis,
        logger: deps.logger,
        graphChanged: (workspaceId) => deps.gate.graphChanged(workspaceId),
        batch: config.kind === 'remote' || config.kind === 'embedded' ? config.batch : 16,
        prepare: () => this.prepare(),
      });
    }
  }

  /** Whether nodes can be searched by meaning at all (a provider, or client vectors). */
  get enabled(): boolean {
    return this.deps.config.embeddings.kind !== 'off';
  }

  /** The model whose vectors the index holds: the provider's, or 'client'. */
  get model(): string | null {
    return this.provider?.model ?? (this.deps.config.embeddings.kind === 'client' ? 'client' : null);
  }

  /** Starts embedding in the background; with client vectors only, makes the index at once. */
  async start(): Promise<void> {
    if (this.embedder) {
      this.embedder.start();
      this.deps.gate.onGraphChanged((workspaceId) => this.embedder!.wake(workspaceId));
    } else if (this.knownDimension !== undefined) {
      await this.repo.ensureIndex(this.knownDimension);
      this.indexReady = true;
    }
  }

  async stop(): Promise<void> {
    await this.embedder?.stop();
  }

  /** The dimension in use, and the index made for it. */
  private async prepare(): Promise<void> {
    const dimension = await this.provider!.dimension();
    await this.repo.ensureIndex(dimension);
    this.knownDimension = dimension;
    this.indexReady = true;
  }

  /** The dimension vectors must have, once known (the provider answered once, or the configuration says). */
  async dimension(): Promise<number | undefined> {
    if (this.knownDimension === undefined && this.provider) {
      this.knownDimension = await this.provider.dimension().catch(() => undefined);
    }
    return this.knownDimension;
  }

  async status(workspaceId: string | null): Promise<EmbeddingStatus> {
    const kind = this.deps.config.embeddings.kind;
    const model = this.model;
    if (kind === 'off') return { state: 'off', model: null, dimension: null, total: 0, embedded: 0, pending: 0 };
    const { total, embedded } = await this.repo.status(workspaceId, model!);
    const dimension = (await this.dimension()) ?? null;
    const pending = kind === 'client' ? 0 : total - embedded;
    const counts = { model, dimension, total, embedded, pending };
    if (kind === 'client') return { state: 'client', ...counts };
    if (this.embedder?.state === 'provider-unavailable' && pending > 0) return { state: 'provider-unavailable', ...counts, error: this.embedder.lastError };
    return { state: pending > 0 ? 'embedding' : 'ready', ...counts };
  }

  /** A client's vector checked against the dimension in use (400 otherwise). */
  async checkVector(vector: number[], path: string): Promise<void> {
    checkClientVector(vector, this.enabled ? await this.dimension() : undefined, path);
  }

  /** Stores a vector the client sent with a node write, as the node's one passage, at the node's version. */
  /**
   * Keeps the vector a client sent as the node's embedding at its current version. `alone`: the request changed
   * nothing else of the node, so its audit event (`node.embedding.replaced`) is this one's; with other fields it
   * is the node's own `node.created` or `node.updated`.
   */
  async storeClientVector(caller: Caller, node: { id: string; updatedAt: string }, vector: number[], alone: boolean): Promise<void> {
    const embedded = { id: node.id, updatedAt: node.updatedAt, chunks: [{ section: null, embedding: vector }] };
    if (alone) {
      await this.repo.storeAudited(caller.workspaceId, embedded, stampOf(caller, new Date().toISOString()), {
        action: 'node.embedding.replaced', workspaceId: caller.workspaceId, targetIds: [node.id], after: { dimension: vector.length },
      });
    } else {
      await this.repo.store(caller.workspaceId, 'client', [embedded]);
    }
    // Answers cached before it (a PATCH of the vector alone changes nothing else) rank by the vector it replaced.
    await this.deps.gate.graphChanged(caller.workspaceId);
  }

  /** The question's vector; undefined when there is no provider, or it cannot answer now (the query then searches by words). */
  async questionVector(q: string): Promise<number[] | undefined> {
    if (!this.provider) return undefined;
    const known = this.questions.get(q);
    if (known) return known;
    try {
      const [vector] = await this.provider.embed([q], 'query');
      this.questions.set(q, vector);
      return vector;
    } catch (err) {
      if (err instanceof ProviderUnavailable) {
        this.deps.logger.warn({ err: err.message }, 'a question could not be embedded: searched by words alone');
        return undefined;
      }
      throw err;
    }
  }

  /**
   * The workspace's live nodes nearest to the vector, each by its best passage, best first. A workspace holding a
   * small share of the shared index is compared passage by passage (exact, and cheap since it is small); a large
   * one asks the index for enough candidates that its own are among them, and falls back to the exact way when
   * they are too few.
   */
  async nearest(workspaceId: string, vector: number[], limit: number): Promise<NearNode[]> {
    this.indexReady ||= (await this.repo.indexDimension()) !== undefined;
    if (!this.indexReady) return [];
    let counts = this.counts.get(workspaceId);
    if (!counts) this.counts.set(workspaceId, (counts = await this.repo.chunkCounts(workspaceId)));
    const { mine, all } = counts;
    if (mine === 0) return [];
    const share = mine / Math.max(1, all);
    if (share < indexedShare || mine <= exactBelow) return this.repo.nearestExact(workspaceId, vector, limit);
    const candidates = Math.min(all, Math.ceil((limit * indexedHeadroom) / share));
    const found = await this.repo.nearestIndexed(workspaceId, vector, candidates, limit);
    return found.length >= Math.min(limit, mine) ? found : this.repo.nearestExact(workspaceId, vector, limit);
  }
}
