import type { EventLoopSlicer } from '../infra/event-loop.js';
import { relationshipTypeOf } from '../nodes/link-types.js';
import { namesOf } from '../nodes/names.js';
import { normaliseAliases, normaliseTags } from '../nodes/node-fields.js';
import { tokenCountsOf } from '../tokens/token-count.js';
import { parseWikilinks } from '../nodes/wikilinks.js';
import type { ImportIds } from './import-ids.js';
import type { ImportedLabel, TransferWriter } from './repository.js';
import type { ExportDoc } from './schemas.js';

/**
 * How a workspace import is cut into transactions. A batch holds at most maxBatchUnits items (a wikilink item
 * counts once per link it may write) and at most maxBatchChars characters of text: far below what one
 * transaction may hold in the self-started Neo4j (db.memory.transaction.max, src/infra/local-deps.ts) and far
 * below its transaction timeout, so no batch is one Neo4j must refuse. What binds first is the event loop: the
 * driver encodes a statement's parameters in one go, and a batch of nodes is the largest such step an import takes.
 */
export const maxBatchUnits = 500;
export const maxBatchChars = 1024 * 1024;
/** The parts of an import, in the order they are written: each batch's references are already there. */
export const stages = ['playbooks', 'versions', 'nodes', 'links', 'wikilinks', 'annotations', 'feedback'] as const;
export type Stage = (typeof stages)[number];

/** One transaction's worth of an import: `count` items of its stage, from where the batch before stopped. */
export interface ImportBatch {
  stage: Stage;
  count: number;
  write(w: TransferWriter): Promise<void>;
}

/** An item of the import document (a playbook, version, node, link, annotation or feedback item). */
type DocumentItem = Record<string, unknown>;

/** The characters of text an item carries: its string values and the strings of its lists. */
function charsOf(item: DocumentItem): number {
  let chars = 0;
  for (const value of Object.values(item)) {
    if (typeof value === 'string') chars += value.length;
    else if (Array.isArray(value)) for (const v of value) if (typeof v === 'string') chars += v.length;
  }
  return chars;
}

/**
 * Items gathered into batches within the units and characters a transaction may take; an item is prepared as it
 * is taken, and one measured at no units is left out.
 */
async function* batched<T>(items: Iterable<T>, measure: (item: T) => { units: number; chars: number }, slicer: EventLoopSlicer): AsyncIterable<T[]> {
  let batch: T[] = [];
  let units = 0;
  let chars = 0;
  for (const item of items) {
    await slicer.yieldIfDue();
    const size = measure(item);
    if (size.units === 0) continue;
    if (batch.length && (units + size.units > maxBatchUnits || chars + size.chars > maxBatchChars)) {
      yield batch;
      batch = [];
      units = 0;
      chars = 0;
    }
    batch.push(item);
    units += size.units;
    chars += size.chars;
  }
  if (batch.length) yield batch;
}

const plain = (item: DocumentItem) => ({ units: 1, chars: charsOf(item) });

function* mapped<T, U>(items: Iterable<T>, f: (item: T, index: number) => U): Iterable<U> {
  let i = 0;
  for (const item of items) yield f(item, i++);
}

function* take<T>(items: Iterable<T>, count: number): Iterable<T> {
  if (count <= 0) return;
  let taken = 0;
  for (const item of items) {
    yield item;
    if (++taken >= count) return;
  }
}

function* versionsOf(doc: ExportDoc): Iterable<ExportDoc['playbooks'][number]['versions'][number] & { playbookId: string }> {
  for (const p of doc.playbooks) for (const v of p.versions) yield { ...v, playbookId: p.id };
}

/**
 * Every batch of an import, in stage order, each prepared only when it is asked for (token counts, wikilinks,
 * JSON text), so that preparing one can overlap writing the one before. `wikilinks` receives, for every node, how
 * many relationships its names and its content's wikilinks add: what undoing the import must reckon with.
 */
export async function* importBatches(doc: ExportDoc, ids: ImportIds, now: string, slicer: EventLoopSlicer, wikilinks: Map<string, number>): AsyncIterable<ImportBatch> {
  for await (const batch of batched(mapped(doc.playbooks, ({ versions: _v, ...p }) => ({ ...p, id: ids.item(p.id) })), plain, slicer)) {
    yield { stage: 'playbooks', count: batch.length, write: (w) => w.playbooks(batch) };
  }
  const versions = mapped(versionsOf(doc), (v) => ({ ...v, id: ids.item(v.id), playbookId: ids.item(v.playbookId), content: JSON.stringify(v.content) }));
  for await (const batch of batched(versions, plain, slicer)) {
    yield { stage: 'versions', count: batch.length, write: (w) => w.versions(batch) };
  }
  const nodes = mapped(doc.nodes, (n) => {
    const node = {
      ...n, id: ids.item(n.id), content: n.content ?? '', agentSummary: n.agentSummary ?? null, importance: n.importance ?? 50,
      aliases: normaliseAliases(n.aliases ?? []), tags: normaliseTags(n.tags ?? []), sourcePath: n.sourcePath?.normalize('NFC') ?? null,
    };
    wikilinks.set(node.id, namesOf(node).length);
    return { ...node, ...tokenCountsOf(node) };
  });
  for await (const batch of batched(nodes, plain, slicer)) {
    yield { stage: 'nodes', count: batch.length, write: (w) => w.nodes(batch) };
  }
  const links = mapped(doc.links, (l, i) => ({
    id: ids.link(i, l.id), sourceType: l.sourceType, sourceId: ids.item(l.sourceId), targetId: ids.item(l.targetId), relType: relationshipTypeOf[l.linkType], origin: l.origin, createdAt: l.createdAt,
  }));
  for await (const batch of batched(links, plain, slicer)) {
    yield { stage: 'links', count: batch.length, write: (w) => w.links(batch) };
  }
  const items = mapped(doc.nodes, (n) => {
    const item = { id: ids.item(n.id), content: n.content ?? '', links: parseWikilinks(n.content) };
    wikilinks.set(item.id, (wikilinks.get(item.id) ?? 0) + item.links.length);
    return item;
  });
  // A node whose content links nowhere has nothing to write.
  for await (const batch of batched(items, (item) => ({ units: item.links.length && 1 + item.links.length, chars: 0 }), slicer)) {
    yield { stage: 'wikilinks', count: batch.length, write: (w) => w.wikilinks(batch, now) };
  }
  for await (const batch of batched(mapped(doc.annotations, (a) => ({ ...a, id: ids.item(a.id), targetId: ids.item(a.targetId) })), plain, slicer)) {
    yield { stage: 'annotations', count: batch.length, write: (w) => w.remarks('Annotation', batch) };
  }
  for await (const batch of batched(mapped(doc.feedback, (f) => ({ ...f, id: ids.item(f.id), targetId: ids.item(f.targetId) })), plain, slicer)) {
    yield { stage: 'feedback', count: batch.length, write: (w) => w.remarks('Feedback', batch) };
  }
}

/**
 * What undoing an import deletes, label by label in an order that removes what points at something before it:
 * the first `written[stage]` items of each stage, in batches whose relationships (a node's links and wikilinks,
 * a playbook's versions and links) stay within maxBatchUnits too.
 */
export async function* undoBatches(doc: ExportDoc, ids: ImportIds, written: Record<Stage, number>, wikilinks: Map<string, number>, slicer: EventLoopSlicer): AsyncIterable<{ label: ImportedLabel; ids: string[] }> {
  const degree = new Map<string, number>();
  const touch = (id: string, by = 1) => degree.set(id, (degree.get(id) ?? 0) + by);
  for (const l of take(doc.links, written.links)) {
    touch(l.sourceId);
    touch(l.targetId);
    await slicer.yieldIfDue();
  }
  for (const p of doc.playbooks) touch(p.id, p.versions.length);
  await slicer.yieldIfDue();
  const measure = (weight: number) => ({ units: 1 + weight, chars: 0 });
  const parts: [ImportedLabel, Iterable<{ id: string; weight: number }>][] = [
    ['Annotation', mapped(take(doc.annotations, written.annotations), (a) => ({ id: ids.item(a.id), weight: 0 }))],
    ['Feedback', mapped(take(doc.feedback, written.feedback), (f) => ({ id: ids.item(f.id), weight: 0 }))],
    ['ContextNode', mapped(take(doc.nodes, written.nodes), (n) => ({ id: ids.item(n.id), weight: (degree.get(n.id) ?? 0) + (wikilinks.get(ids.item(n.id)) ?? 0) }))],
    ['PlaybookVersion', mapped(take(versionsOf(doc), written.versions), (v) => ({ id: ids.item(v.id), weight: 0 }))],
    ['Playbook', mapped(take(doc.playbooks, written.playbooks), (p) => ({ id: ids.item(p.id), weight: degree.get(p.id) ?? 0 }))],
  ];
  for (const [label, items] of parts) {
    for await (const batch of batched(items, (item) => measure(item.weight), slicer)) yield { label, ids: batch.map((item) => item.id) };
  }
}
