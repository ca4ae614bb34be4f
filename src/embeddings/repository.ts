import neo4j from 'neo4j-driver';
import { type AuditEntry, type AuditStamp, recordAudit } from '../audit/recorder.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import type { NodeText } from './chunks.js';

/** A node whose passages wait to be embedded, as read: its text and the version (updatedAt) it is at. */
export interface PendingNode extends NodeText {
  id: string;
  workspaceId: string;
  updatedAt: string;
}

/** The passages of one node, embedded from its text at `updatedAt`. */
export interface EmbeddedNode {
  id: string;
  updatedAt: string;
  chunks: { section: string | null; embedding: number[] }[];
}

/** A node near a vector: the score of its best passage (cosine, -1..1) and that passage's heading. */
export interface NearNode {
  id: string;
  score: number;
  section: string | null;
}

/** The passages' vector index, the queue of nodes to embed (their versions), and the nearest-passage searches. */
export class EmbeddingRepository {
  constructor(private readonly graph: GraphExecutor) {}

  async indexDimension(): Promise<number | undefined> {
    const [row] = await this.graph.read('embeddings/index-dimension');
    return row?.dimension ?? undefined;
  }

  /** Makes the vector index for vectors of `dimension` numbers, replacing one made for another length. */
  async ensureIndex(dimension: number): Promise<void> {
    const current = await this.indexDimension();
    if (current === dimension) return;
    if (current !== undefined) await this.graph.write('embeddings/drop-index');
    // An index option must be an integer (a plain JS number travels as a float).
    await this.graph.write('embeddings/create-index', { dimension: neo4j.int(dimension) });
    await this.graph.read('embeddings/await-index');
  }

  /** Nodes to embed: of one workspace written to lately, newest change first; or of all (null), oldest change first. */
  pending(workspaceId: string | null, model: string, limit: number): Promise<PendingNode[]> {
    return workspaceId === null
      ? this.graph.read<PendingNode>('embeddings/pending', { model, limit })
      : this.graph.read<PendingNode>('embeddings/pending-in-workspace', { workspaceId, model, limit });
  }

  /** Stores the passages of the nodes still at the version read; the ids of those stored. */
  async store(workspaceId: string, model: string, nodes: EmbeddedNode[]): Promise<string[]> {
    const rows = await this.graph.write('embeddings/store-chunks', { workspaceId, model, nodes });
    return rows.map((r) => r.id as string);
  }

  /** A vector a client sent, stored with the audit event of that change in one transaction. */
  async storeAudited(workspaceId: string, node: EmbeddedNode, stamp: AuditStamp, entry: AuditEntry): Promise<void> {
    await this.graph.writeTx(async (tx) => {
      await tx.run('embeddings/store-chunks', { workspaceId, model: 'client', nodes: [node] });
      await recordAudit(tx, stamp, entry);
    });
  }

  async status(workspaceId: string | null, model: string): Promise<{ total: number; embedded: number }> {
    const [row] = workspaceId === null
      ? await this.graph.read('embeddings/status', { model })
      : await this.graph.read('embeddings/status-in-workspace', { workspaceId, model });
    return { total: row?.total ?? 0, embedded: row?.embedded ?? 0 };
  }

  async chunkCounts(workspaceId: string): Promise<{ mine: number; all: number }> {
    const [row] = await this.graph.read('embeddings/chunk-count', { workspaceId });
    return { mine: row?.mine ?? 0, all: row?.all ?? 0 };
  }

  nearestExact(workspaceId: string, vector: number[], limit: number): Promise<NearNode[]> {
    return this.graph.read<NearNode>('embeddings/nearest-exact', { workspaceId, vector, limit });
  }

  nearestIndexed(workspaceId: string, vector: number[], candidates: number, limit: number): Promise<NearNode[]> {
    return this.graph.read<NearNode>('embeddings/nearest-indexed', { workspaceId, vector, candidates, limit });
  }

  async removeOrphans(limit: number): Promise<number> {
    const [row] = await this.graph.write('embeddings/remove-orphans', { limit });
    return row?.removed ?? 0;
  }
}
