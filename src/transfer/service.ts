import { Readable } from 'node:stream';
import { stampOf } from '../audit/recorder.js';
import type { Caller } from '../auth/caller.js';
import { AppError, type FieldError, notFound } from '../errors.js';
import { newId } from '../infra/ids.js';
import { relationshipTypeOf } from '../nodes/link-types.js';
import { toNode } from '../nodes/repository.js';
import { wikilinkItem } from '../nodes/service.js';
import { tokenCountsOf } from '../nodes/token-count.js';
import type { ServiceDeps } from '../service-deps.js';
import { type ExportParts, TransferRepository } from './repository.js';
import { type ExportDoc, type ImportSummary, exportFormat, exportVersion } from './schemas.js';

type Row = Record<string, any>;
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

  /** Rebuilds an export in an empty workspace (409 otherwise), in one transaction; 400 naming the first inconsistencies of the document. */
  async importWorkspace(caller: Caller, doc: ExportDoc): Promise<ImportSummary> {
    const ws = caller.workspaceId;
    checkConsistent(doc);
    const versions = doc.playbooks.flatMap((p) => p.versions.map((v) => ({ ...v, playbookId: p.id })));
    const taken = await this.repo.takenIds({
      playbookIds: doc.playbooks.map((p) => p.id), versionIds: versions.map((v) => v.id), nodeIds: doc.nodes.map((n) => n.id),
      annotationIds: doc.annotations.map((a) => a.id), feedbackIds: doc.feedback.map((f) => f.id),
    });
    const idsKept = taken === 0;
    // Ids are unique across the service: when one is taken here, every id gets a new one of its kind.
    const fresh = new Map<string, string>();
    const id = (old: string) => {
      if (idsKept) return old;
      let next = fresh.get(old);
      if (!next) fresh.set(old, (next = newId(old.slice(0, old.indexOf('_')) as Parameters<typeof newId>[0])));
      return next;
    };
    const now = this.deps.clock().toISOString();
    const { found, empty } = await this.repo.intoEmptyWorkspace(ws, now, async (w) => {
      await w.playbooks(doc.playbooks.map(({ versions: _v, ...p }) => ({ ...p, id: id(p.id) })));
      await w.versions(versions.map((v) => ({ ...v, id: id(v.id), playbookId: id(v.playbookId), content: JSON.stringify(v.content) })));
      await w.nodes(doc.nodes.map((n) => {
        const node = { ...n, id: id(n.id), content: n.content ?? '', agentSummary: n.agentSummary ?? null, importance: n.importance ?? 50 };
        return { ...node, ...tokenCountsOf(node) };
      }));
      await w.links(doc.links.map((l) => ({
        id: id(l.id), sourceType: l.sourceType, sourceId: id(l.sourceId), targetId: id(l.targetId), relType: relationshipTypeOf[l.linkType], origin: l.origin, createdAt: l.createdAt,
      })));
      await w.wikilinks(doc.nodes.map((n) => wikilinkItem(id(n.id), n.content ?? '')), now);
      await w.remarks('Annotation', doc.annotations.map((a) => ({ ...a, id: id(a.id), targetId: id(a.targetId) })));
      await w.remarks('Feedback', doc.feedback.map((f) => ({ ...f, id: id(f.id), targetId: id(f.targetId) })));
      await w.audit(stampOf(caller, now), {
        action: 'workspace.imported', workspaceId: ws, targetIds: [ws], before: null,
        after: { idsKept, playbooks: doc.playbooks.length, versions: versions.length, nodes: doc.nodes.length, links: doc.links.length },
      });
    });
    if (!found) throw notFound('Workspace');
    if (!empty) throw new AppError('conflict', 'A workspace export is imported into an empty workspace only: this one has playbooks or context nodes');
    await this.deps.gate.graphChanged(ws);
    return {
      idsKept, playbooks: doc.playbooks.length, versions: versions.length, nodes: doc.nodes.length, links: doc.links.length,
      annotations: doc.annotations.length, feedback: doc.feedback.length,
    };
  }
}

/** The references inside an export must hold (ids unique, slugs unique, every link and remark pointing into it). */
function checkConsistent(doc: ExportDoc): void {
  const errors: FieldError[] = [];
  const fail = (path: string, message: string) => errors.length < 20 && errors.push({ path, message, in: 'body' });
  const kindOf = new Map<string, string>();
  const claim = (id: string, kind: string, path: string) => {
    if (kindOf.has(id)) fail(path, `repeats the id ${id}`);
    else kindOf.set(id, kind);
  };
  const once = (seen: Set<string | number>, value: string | number, path: string, what: string) => {
    if (seen.has(value)) fail(path, `repeats ${what} ${value}`);
    seen.add(value);
  };
  const playbookSlugs = new Set<string>();
  const nodeSlugs = new Set<string>();
  doc.playbooks.forEach((p, i) => {
    claim(p.id, 'playbook', `/playbooks/${i}/id`);
    once(playbookSlugs, p.slug, `/playbooks/${i}/slug`, 'the slug');
    const numbers = new Set<number>();
    p.versions.forEach((v, j) => {
      claim(v.id, 'playbook_version', `/playbooks/${i}/versions/${j}/id`);
      once(numbers, v.versionNumber, `/playbooks/${i}/versions/${j}/versionNumber`, 'version');
    });
  });
  doc.nodes.forEach((n, i) => {
    claim(n.id, 'context_node', `/nodes/${i}/id`);
    once(nodeSlugs, n.slug, `/nodes/${i}/slug`, 'the slug');
  });
  const seen = new Set<string>();
  doc.links.forEach((l, i) => {
    if (kindOf.get(l.sourceId) !== l.sourceType) fail(`/links/${i}/sourceId`, `is not a ${l.sourceType} of the export`);
    if (kindOf.get(l.targetId) !== 'context_node') fail(`/links/${i}/targetId`, 'is not a context node of the export');
    if (l.sourceId === l.targetId) fail(`/links/${i}/targetId`, 'is the source itself');
    const key = `${l.sourceId}>${l.linkType}>${l.targetId}`;
    if (seen.has(key)) fail(`/links/${i}`, 'repeats a link of the same type between the same two ends');
    seen.add(key);
    if (seen.has(`id:${l.id}`)) fail(`/links/${i}/id`, `repeats the id ${l.id}`);
    seen.add(`id:${l.id}`);
  });
  for (const [list, remarks] of [['annotations', doc.annotations], ['feedback', doc.feedback]] as const) {
    remarks.forEach((r, i) => {
      claim(r.id, list, `/${list}/${i}/id`);
      if (kindOf.get(r.targetId) !== r.targetType) fail(`/${list}/${i}/targetId`, `is not a ${r.targetType} of the export`);
    });
  }
  if (errors.length) {
    throw new AppError('invalid_request', `The export is not consistent: ${errors[0].path.slice(1)} ${errors[0].message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`, { errors });
  }
}
