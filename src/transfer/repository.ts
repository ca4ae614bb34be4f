import { type AuditEntry, type AuditStamp, recordAudit } from '../audit/recorder.js';
import type { GraphExecutor, GraphTx } from '../infra/neo4j.js';
import { type RelationshipType, linkTypeParams } from '../nodes/link-types.js';
import { NodeRepository } from '../nodes/repository.js';
import type { TokenCounts } from '../nodes/token-count.js';
import type { ContextNode } from '../nodes/schemas.js';

type Row = Record<string, any>;
export type RemarkLabel = 'Annotation' | 'Feedback';
const relTypeOfRemark: Record<RemarkLabel, string> = { Annotation: 'ANNOTATES', Feedback: 'ABOUT' };

/** The parts of a workspace's export, each read as it is iterated (one at a time: they share a transaction). */
export interface ExportParts {
  playbooks(): AsyncIterable<{ playbook: Row; versions: Row[] }>;
  nodes(): AsyncIterable<Row>;
  links(): AsyncIterable<Row>;
  annotations(): AsyncIterable<Row>;
  feedback(): AsyncIterable<Row>;
}

async function* field(rows: AsyncIterable<Row>, name: string): AsyncIterable<Row> {
  for await (const row of rows) yield row[name] as Row;
}

/** Workspace export and import: the only place that runs their Cypher (cypher/queries/transfer/). */
export class TransferRepository {
  private readonly nodes: NodeRepository;

  constructor(private readonly graph: GraphExecutor) {
    this.nodes = new NodeRepository(graph);
  }

  /**
   * Every part of a workspace, read in one transaction so that the parts agree, and handed to `write` part by
   * part as the rows arrive: what `write` yields is yielded.
   */
  exportParts<T>(workspaceId: string, write: (parts: ExportParts) => AsyncIterable<T>): AsyncGenerator<T> {
    return this.graph.readStream((tx) =>
      write({
        playbooks: () => tx.stream<{ playbook: Row; versions: Row[] }>('transfer/export-playbooks', { workspaceId }),
        nodes: () => field(tx.stream('transfer/export-nodes', { workspaceId }), 'node'),
        links: () => field(tx.stream('transfer/export-links', { workspaceId, ...linkTypeParams }), 'link'),
        annotations: () => this.remarks(tx, workspaceId, 'Annotation'),
        feedback: () => this.remarks(tx, workspaceId, 'Feedback'),
      }),
    );
  }

  private async *remarks(tx: GraphTx, workspaceId: string, label: RemarkLabel): AsyncIterable<Row> {
    for await (const r of tx.stream('transfer/export-remarks', { workspaceId, label })) {
      const { workspaceId: _ws, ...rest } = r.remark as Row;
      yield rest;
    }
  }

  async takenIds(ids: { playbookIds: string[]; versionIds: string[]; nodeIds: string[]; annotationIds: string[]; feedbackIds: string[] }): Promise<number> {
    const [row] = await this.graph.read<{ taken: number }>('transfer/taken-ids', ids);
    return row?.taken ?? 0;
  }

  /**
   * One write transaction: the workspace locked and checked empty (else `work` is not run), then `work`.
   * found false when the workspace does not exist; empty false when it has playbooks or nodes.
   */
  async intoEmptyWorkspace(workspaceId: string, now: string, work: (w: TransferWriter) => Promise<void>): Promise<{ found: boolean; empty: boolean }> {
    return this.graph.writeTx(async (tx) => {
      const [row] = await tx.run('transfer/lock-workspace', { workspaceId, now });
      if (!row) return { found: false, empty: false };
      if (row.playbooks > 0 || row.nodes > 0) return { found: true, empty: false };
      await work(new TransferWriter(tx, workspaceId, this.nodes));
      return { found: true, empty: true };
    });
  }
}

/** The statements of a workspace import, inside its transaction. */
export class TransferWriter {
  constructor(private readonly tx: GraphTx, private readonly workspaceId: string, private readonly nodeRepo: NodeRepository) {}

  /** The import's audit event, in its transaction. */
  async audit(stamp: AuditStamp, entry: AuditEntry): Promise<void> {
    await recordAudit(this.tx, stamp, entry);
  }

  async playbooks(playbooks: Row[]): Promise<void> {
    if (playbooks.length) await this.tx.run('transfer/create-playbooks', { workspaceId: this.workspaceId, playbooks });
  }

  async versions(versions: Row[]): Promise<void> {
    if (versions.length) await this.tx.run('transfer/create-versions', { workspaceId: this.workspaceId, versions });
  }

  async nodes(nodes: (ContextNode & TokenCounts)[]): Promise<void> {
    await this.nodeRepo.create(this.tx, this.workspaceId, nodes);
  }

  async links(links: { id: string; sourceType: string; sourceId: string; targetId: string; relType: RelationshipType; origin: string; createdAt: string }[]): Promise<void> {
    if (links.length) await this.tx.run('transfer/create-links', { workspaceId: this.workspaceId, links });
  }

  /** Records the wikilinks of the nodes' contents that no node resolves (the links themselves come with the export). */
  async wikilinks(items: { nodeId: string; wanted: { slug: string; linkId: string }[] }[], now: string): Promise<void> {
    await this.nodeRepo.syncWikilinks(this.tx, this.workspaceId, items.filter((i) => i.wanted.length), now);
  }

  async remarks(label: RemarkLabel, remarks: Row[]): Promise<void> {
    if (remarks.length) await this.tx.run('transfer/create-remarks', { workspaceId: this.workspaceId, label, relType: relTypeOfRemark[label], remarks });
  }
}
