import { Readable } from 'node:stream';
import { stampOf } from '../audit/recorder.js';
import type { Caller } from '../auth/caller.js';
import { AppError, notFound } from '../errors.js';
import { EventLoopSlicer } from '../infra/event-loop.js';
import { newId } from '../infra/ids.js';
import type { Row } from '../infra/neo4j.js';
import { toNode } from '../nodes/repository.js';
import type { ServiceDeps } from '../service-deps.js';
import { checkConsistent, checkSize } from './import-check.js';
import { ImportIds } from './import-ids.js';
import { type ImportBatch, type Stage, importBatches, maxBatchUnits, stages, undoBatches } from './import-plan.js';
import { type ExportParts, TransferRepository } from './repository.js';
import { type ExportDoc, type ImportSummary, exportFormat, exportVersion } from './schemas.js';

type Header = Pick<ExportDoc, 'format' | 'version' | 'exportedAt' | 'workspace'>;

/** The export document's text, field by field in the order of ExportDocument, each part's items as they are read. */
async function* exportJson(header: Header, parts: ExportParts): AsyncIterable<string> {
  yield JSON.stringify(header).slice(0, -1);
  yield* jsonArray('playbooks', parts.playbooks(), playbookOf);
  yield* jsonArray('nodes', parts.nodes(), toNode);
  yield* jsonArray('links', parts.links(), linkOf);
  yield* jsonArray('annotations', parts.annotations(), annotationOf);
  yield* jsonArray('feedback', parts.feedback(), feedbackOf);
  yield '}';
}

async function* jsonArray<T>(name: string, rows: AsyncIterable<T>, item: (row: T) => unknown): AsyncIterable<string> {
  yield `,${JSON.stringify(name)}:[`;
  let separator = '';
  for await (const row of rows) {
    yield separator + JSON.stringify(item(row));
    separator = ',';
  }
  yield ']';
}

/** Small pieces gathered into chunks of about `size` characters: one write to the socket each, not one a row. */
async function* chunks(pieces: AsyncIterable<string>, size = 64 * 1024): AsyncIterable<string> {
  let buffered = '';
  for await (const piece of pieces) {
    buffered += piece;
    if (buffered.length >= size) {
      yield buffered;
      buffered = '';
    }
  }
  if (buffered) yield buffered;
}

type ExportedPlaybook = ExportDoc['playbooks'][number];

function playbookOf({ playbook: p, versions }: { playbook: Row; versions: Row[] }): ExportedPlaybook {
  return {
    id: p.id, slug: p.slug, title: p.title, summary: p.summary ?? null, description: p.description ?? null, functionArea: p.functionArea ?? null,
    visibility: p.visibility, ownerId: p.ownerId, tags: p.tags ?? [], createdAt: p.createdAt, updatedAt: p.updatedAt, archivedAt: p.archivedAt ?? null,
    versions: versions.map((v) => ({
      id: v.id, versionNumber: v.versionNumber, status: v.status, content: JSON.parse(v.content), changeNote: v.changeNote ?? null,
      createdAt: v.createdAt, createdBy: v.createdBy, approvedAt: v.approvedAt ?? null,
    })),
  };
}

function linkOf(l: Row): ExportDoc['links'][number] {
  return { id: l.id, sourceType: l.sourceType, sourceId: l.sourceId, targetId: l.targetId, linkType: l.linkType, origin: l.origin ?? 'manual', createdAt: l.createdAt };
}

function annotationOf(a: Row): ExportDoc['annotations'][number] {
  return {
    id: a.id, targetType: a.targetType, targetId: a.targetId, scopeType: a.scopeType, title: a.title, content: a.content, source: a.source,
    authorId: a.authorId, authorKind: a.authorKind ?? (a.source === 'agent' ? 'agent' : 'user'), createdAt: a.createdAt,
  };
}

function feedbackOf(f: Row): ExportDoc['feedback'][number] {
  return {
    id: f.id, targetType: f.targetType, targetId: f.targetId, feedbackType: f.feedbackType, summary: f.summary, status: f.status,
    resolutionNote: f.resolutionNote ?? null, authorId: f.authorId, authorKind: f.authorKind, createdAt: f.createdAt, updatedAt: f.updatedAt,
  };
}

/**
 * Workspace export (GET …/export) and import into an empty workspace (POST …/import): the whole workspace as one
 * versioned JSON document (src/transfer/schemas.ts). Importing an export rebuilds the same graph; exporting again
 * gives the same document (ids too when they were free on this deployment, else new ids in the same places).
 */
export class TransferService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly repo = new TransferRepository(deps.graph),
  ) {}

  /**
   * The export document as JSON text, sent while it is read: one read transaction, its rows taken as the client
   * takes the text, so memory stays bounded whatever the workspace's size. The first piece is read before this
   * answers, so a database that cannot be reached is still a problem answer rather than a cut download; a failure
   * later cuts the download, and the cut text is not valid JSON.
   */
  async exportWorkspace(caller: Caller, workspaceName: string): Promise<Readable> {
    const header: Header = { format: exportFormat, version: exportVersion, exportedAt: this.deps.clock().toISOString(), workspace: { id: caller.workspaceId, name: workspaceName } };
    const pieces = this.repo.exportParts(caller.workspaceId, (parts) => chunks(exportJson(header, parts)));
    const first = await pieces.next();
    return Readable.from(
      (async function* () {
        if (!first.done) yield first.value;
        yield* pieces;
      })(),
      { objectMode: false },
    );
  }

  /**
   * Rebuilds an export in an empty workspace (409 otherwise). The document is checked whole first (413 past
   * maxImportItems, 400 naming the first inconsistencies), then written in bounded batches, each a transaction
   * of its own, while a mark on the workspace keeps other imports out. When a batch fails, what this import
   * wrote is deleted again before its error is answered: from outside, an import is whole or absent.
   */
  async importWorkspace(caller: Caller, doc: ExportDoc): Promise<ImportSummary> {
    const ws = caller.workspaceId;
    checkSize(doc);
    const slicer = new EventLoopSlicer();
    await checkConsistent(doc, slicer);
    const ids = await ImportIds.decide(doc, (batch) => this.repo.takenIds(batch), slicer);
    const importId = newId('imp');
    const claimedAt = this.deps.clock();
    const staleBefore = new Date(claimedAt.getTime() - staleImportMs).toISOString();
    const claim = await this.repo.claim(ws, importId, claimedAt.toISOString(), staleBefore);
    if (!claim.found) throw notFound('Workspace');
    if (claim.importing) throw new AppError('conflict', 'Another import into this workspace is under way; a workspace export is imported into an empty workspace only');
    if (!claim.empty) throw new AppError('conflict', 'A workspace export is imported into an empty workspace only: this one has playbooks or context nodes');

    const summary: ImportSummary = {
      idsKept: ids.replaced === 0, idsReplaced: ids.replaced, playbooks: doc.playbooks.length, versions: doc.playbooks.reduce((n, p) => n + p.versions.length, 0),
      nodes: doc.nodes.length, links: doc.links.length, annotations: doc.annotations.length, feedback: doc.feedback.length,
    };
    const written = Object.fromEntries(stages.map((stage) => [stage, 0])) as Record<Stage, number>;
    const wikilinks = new Map<string, number>();
    try {
      await this.writeBatches(ws, importId, importBatches(doc, ids, claimedAt.toISOString(), slicer, wikilinks), written, slicer);
      const { annotations: _a, feedback: _f, ...counts } = summary;
      const now = this.now();
      const finished = await this.repo.finish(ws, importId, now, stampOf(caller, now), { action: 'workspace.imported', workspaceId: ws, targetIds: [ws], before: null, after: counts });
      if (!finished) throw importLost();
    } catch (err) {
      await this.undo(ws, importId, doc, ids, written, wikilinks, slicer);
      throw err;
    } finally {
      await this.deps.gate.graphChanged(ws);
    }
    return summary;
  }

  private now(): string {
    return this.deps.clock().toISOString();
  }

  /** Each batch in a transaction of its own, the next one prepared while Neo4j writes the one before. */
  private async writeBatches(ws: string, importId: string, batches: AsyncIterable<ImportBatch>, written: Record<Stage, number>, slicer: EventLoopSlicer): Promise<void> {
    const iterator = batches[Symbol.asyncIterator]();
    let next = iterator.next();
    for (;;) {
      const { value: batch, done } = await next;
      if (done) return;
      next = iterator.next();
      // A batch that fails leaves the one being prepared unread: its failure, if any, is not the answer.
      next.catch(() => undefined);
      written[batch.stage] += batch.count;
      if (!(await this.repo.batch(ws, importId, this.now(), (w) => batch.write(w)))) throw importLost();
      await slicer.yieldIfDue();
    }
  }

  /**
   * Deletes what a failed import wrote (the items of the batches it sent, known by their ids), then clears its
   * mark. When that fails too (the database gone), the mark stays until it is stale and the workspace keeps
   * part of the import: logged, and the import's own error is still what is answered.
   */
  private async undo(ws: string, importId: string, doc: ExportDoc, ids: ImportIds, written: Record<Stage, number>, wikilinks: Map<string, number>, slicer: EventLoopSlicer): Promise<void> {
    try {
      for await (const batch of undoBatches(doc, ids, written, wikilinks, slicer)) await this.repo.deleteImported(ws, batch.label, batch.ids);
      // Nodes leave their names behind, and wikilinks the names they wait on.
      if (written.nodes > 0 || written.wikilinks > 0) while ((await this.repo.deleteUnusedNames(ws, maxBatchUnits)) > 0) await slicer.yieldIfDue();
      await this.repo.release(ws, importId, this.now());
    } catch (err) {
      this.deps.logger.error({ err, workspaceId: ws, importId }, 'a failed workspace import could not be undone; the workspace keeps part of it');
    }
  }
}

/** Staleness of an import's mark: no batch written for this long means its process stopped (a batch takes far less). */
const staleImportMs = 5 * 60_000;

const importLost = () => new AppError('conflict', 'The import no longer holds the workspace (it was claimed again or removed); nothing of it is kept');
