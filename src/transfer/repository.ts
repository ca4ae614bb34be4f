import { type AuditEntry, type AuditStamp, recordAudit } from '../audit/recorder.js';
import type { GraphExecutor, GraphTx, Row } from '../infra/neo4j.js';
import { type RelationshipType, linkTypeParams } from '../nodes/link-types.js';
import { namesOf } from '../nodes/names.js';
import { NodeRepository } from '../nodes/repository.js';
import type { TokenCounts } from '../tokens/token-count.js';
import type { ContextNode } from '../nodes/schemas.js';
import type { Wikilink } from '../nodes/wikilinks.js';

export type RemarkLabel = 'Annotation' | 'Feedback';
/** The labels of what an import writes, in the order a failed one is undone. */
export type ImportedLabel = RemarkLabel | 'ContextNode' | 'PlaybookVersion' | 'Playbook';
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

  /** Which of `ids` (a bounded batch) are used by anything an import writes, in any workspace. */
  async takenIds(ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    return (await this.graph.read<{ id: string }>('transfer/taken-ids', { ids })).map((row) => row.id);
  }

  /**
   * The first transaction of an import: the workspace locked, checked empty and free of other imports, and then
   * marked as held by `importId`. found false when the workspace does not exist.
   */
  async claim(workspaceId: string, importId: string, now: string, staleBefore: string): Promise<{ found: boolean; empty: boolean; importing: boolean; claimed: boolean }> {
    const [row] = await this.graph.write<{ empty: boolean; importing: boolean; claimed: boolean }>('transfer/claim-import', { workspaceId, importId, now, staleBefore });
    return row ? { found: true, ...row } : { found: false, empty: false, importing: false, claimed: false };
  }

  /**
   * One batch of an import in a transaction of its own, after checking that the import still holds the workspace
   * (else `work` is not run and the answer is false).
   */
  async batch(workspaceId: string, importId: string, now: string, work: (w: TransferWriter) => Promise<void>): Promise<boolean> {
    return this.graph.writeTx(async (tx) => {
      const [held] = await tx.run('transfer/hold-import', { workspaceId, importId, now });
      if (!held) return false;
      await work(new TransferWriter(tx, workspaceId, this.nodes));
      return true;
    });
  }

  /** The last transaction of a complete import: the mark cleared and the import's audit event, together. */
  async finish(workspaceId: string, importId: string, now: string, stamp: AuditStamp, entry: AuditEntry): Promise<boolean> {
    return this.graph.writeTx(async (tx) => {
      const [held] = await tx.run('transfer/end-import', { workspaceId, importId, now });
      if (!held) return false;
      await recordAudit(tx, stamp, entry);
      return true;
    });
  }

  /** Clears the mark of an import that was undone. */
  async release(workspaceId: string, importId: string, now: string): Promise<void> {
    await this.graph.write('transfer/end-import', { workspaceId, importId, now });
  }

  /** Deletes items of a failed import (a bounded batch of its ids) with their relationships. */
  async deleteImported(workspaceId: string, label: ImportedLabel, ids: string[]): Promise<number> {
    if (!ids.length) return 0;
    const [row] = await this.graph.write<{ deleted: number }>('transfer/delete-imported', { workspaceId, label, ids });
    return row?.deleted ?? 0;
  }

  /** Deletes at most `limit` of the workspace's wikilink names that nothing names or links to; how many. */
  async deleteUnusedNames(workspaceId: string, limit: number): Promise<number> {
    const [row] = await this.graph.write<{ deleted: number }>('transfer/delete-unused-names', { workspaceId, limit });
    return row?.deleted ?? 0;
  }
}

/** The statements of one batch of a workspace import, inside its transaction. */
export class TransferWriter {
  constructor(private readonly tx: GraphTx, private readonly workspaceId: string, private readonly nodeRepo: NodeRepository) {}

  async playbooks(playbooks: Row[]): Promise<void> {
    if (playbooks.length) await this.tx.run('transfer/create-playbooks', { workspaceId: this.workspaceId, playbooks });
  }

  async versions(versions: Row[]): Promise<void> {
    if (versions.length) await this.tx.run('transfer/create-versions', { workspaceId: this.workspaceId, versions });
  }

  /** Creates nodes with their names, so that the wikilinks stage finds every node of the document by name. */
  async nodes(nodes: (ContextNode & TokenCounts)[]): Promise<void> {
    await this.nodeRepo.create(this.tx, this.workspaceId, nodes);
    await this.nodeRepo.syncWikilinks(this.tx, this.workspaceId, nodes.map((node) => ({ nodeId: node.id, names: namesOf(node), links: null })), false, '');
  }

  async links(links: { id: string; sourceType: string; sourceId: string; targetId: string; relType: RelationshipType; origin: string; createdAt: string }[]): Promise<void> {
    if (links.length) await this.tx.run('transfer/create-links', { workspaceId: this.workspaceId, links });
  }

  /**
   * Records the wikilinks of the nodes' contents and resolves them: the links they resolve to came with the export
   * and are kept (with their ids); one the document lacks, or that names another node now, is put right.
   */
  async wikilinks(items: { id: string; links: Wikilink[] }[], now: string): Promise<void> {
    const linking = items.filter((i) => i.links.length);
    await this.nodeRepo.syncWikilinks(this.tx, this.workspaceId, linking.map((i) => ({ nodeId: i.id, names: null, links: i.links })), true, now);
  }

  async remarks(label: RemarkLabel, remarks: Row[]): Promise<void> {
    if (remarks.length) await this.tx.run('transfer/create-remarks', { workspaceId: this.workspaceId, label, relType: relTypeOfRemark[label], remarks });
  }
}
