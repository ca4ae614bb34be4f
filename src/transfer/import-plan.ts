import { AppError, type FieldError } from '../errors.js';
import { yieldToEventLoop } from '../infra/event-loop.js';
import { isIdOf, newId } from '../infra/ids.js';
import { relationshipTypeOf } from '../nodes/link-types.js';
import { namesOf } from '../nodes/names.js';
import { normaliseAliases, normaliseTags, sourcePathProblem } from '../nodes/node-fields.js';
import { tokenCountsOf } from '../nodes/token-count.js';
import { maxWikilinkTargets, parseWikilinks } from '../nodes/wikilinks.js';
import type { ImportedLabel, TransferWriter } from './repository.js';
import { type ExportDoc, maxImportItems } from './schemas.js';

/**
 * How a workspace import is cut into transactions. A batch holds at most maxBatchUnits items (a wikilink item
 * counts once per link it may write) and at most maxBatchChars characters of text: far below what one
 * transaction may hold in the self-started Neo4j (db.memory.transaction.max, src/infra/local-deps.ts) and far
 * below its transaction timeout, so no batch is one Neo4j must refuse. What binds first is the event loop: the
 * driver encodes a statement's parameters in one go, and a batch of nodes is the largest such step an import takes.
 */
export const maxBatchUnits = 500;
export const maxBatchChars = 1024 * 1024;
/** Ids looked up at once when deciding which of the document's ids are free. */
const takenLookupSize = 5_000;
/** A version's content may be at most this large as JSON: what a single request could have written. */
export const maxVersionContentBytes = 1024 * 1024;

/** Hands the event loop back whenever the work since the last turn has run for a slice: /healthz and other requests go on. */
export class Pace {
  private last = performance.now();
  constructor(private readonly sliceMs = 10) {}

  async step(): Promise<void> {
    if (performance.now() - this.last < this.sliceMs) return;
    await yieldToEventLoop();
    this.last = performance.now();
  }
}

/** How many items a document would write (each version and each link counts). */
function itemCountOf(doc: ExportDoc): number {
  let versions = 0;
  for (const p of doc.playbooks) versions += p.versions.length;
  return doc.playbooks.length + versions + doc.nodes.length + doc.links.length + doc.annotations.length + doc.feedback.length;
}

/** A document is refused whole when it is larger than an import writes at all. */
export function checkSize(doc: ExportDoc): void {
  const items = itemCountOf(doc);
  if (items > maxImportItems) {
    throw new AppError('payload_too_large', `An import writes at most ${maxImportItems.toLocaleString('en')} items (playbooks, versions, nodes, links, annotations and feedback together); this document has ${items.toLocaleString('en')}`);
  }
}

/**
 * The references inside an export must hold (ids unique, slugs unique, every link and remark pointing into it),
 * and no version or node may be larger than a single request could have made it (a version's content, a node's
 * wikilinks). Linear, in slices of the event loop.
 */
export async function checkConsistent(doc: ExportDoc, pace: Pace): Promise<void> {
  const errors: FieldError[] = [];
  let tooLarge: string | undefined;
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
  for (let i = 0; i < doc.playbooks.length; i++) {
    const p = doc.playbooks[i];
    claim(p.id, 'playbook', `/playbooks/${i}/id`);
    once(playbookSlugs, p.slug, `/playbooks/${i}/slug`, 'the slug');
    const numbers = new Set<number>();
    for (let j = 0; j < p.versions.length; j++) {
      const v = p.versions[j];
      claim(v.id, 'playbook_version', `/playbooks/${i}/versions/${j}/id`);
      once(numbers, v.versionNumber, `/playbooks/${i}/versions/${j}/versionNumber`, 'version');
      if (!tooLarge && Buffer.byteLength(JSON.stringify(v.content)) > maxVersionContentBytes) tooLarge = `playbooks/${i}/versions/${j}/content`;
      await pace.step();
    }
  }
  if (tooLarge) throw new AppError('payload_too_large', `The content of a version is at most ${maxVersionContentBytes / (1024 * 1024)} MiB as JSON; ${tooLarge} is larger`);
  for (let i = 0; i < doc.nodes.length; i++) {
    const n = doc.nodes[i];
    claim(n.id, 'context_node', `/nodes/${i}/id`);
    once(nodeSlugs, n.slug, `/nodes/${i}/slug`, 'the slug');
    // As for any node's content: a wikilink is a relationship written with the node, so their number is bounded.
    if (parseWikilinks(n.content).length > maxWikilinkTargets) fail(`/nodes/${i}/content`, `links to more than ${maxWikilinkTargets} distinct names`);
    const pathProblem = n.sourcePath ? sourcePathProblem(n.sourcePath) : undefined;
    if (pathProblem) fail(`/nodes/${i}/sourcePath`, pathProblem);
    await pace.step();
  }
  const seen = new Set<string>();
  for (let i = 0; i < doc.links.length; i++) {
    const l = doc.links[i];
    if (kindOf.get(l.sourceId) !== l.sourceType) fail(`/links/${i}/sourceId`, `is not a ${l.sourceType} of the export`);
    if (kindOf.get(l.targetId) !== 'context_node') fail(`/links/${i}/targetId`, 'is not a context node of the export');
    if (l.sourceId === l.targetId) fail(`/links/${i}/targetId`, 'is the source itself');
    const key = `${l.sourceId}>${l.linkType}>${l.targetId}`;
    if (seen.has(key)) fail(`/links/${i}`, 'repeats a link of the same type between the same two ends');
    seen.add(key);
    if (seen.has(`id:${l.id}`)) fail(`/links/${i}/id`, `repeats the id ${l.id}`);
    seen.add(`id:${l.id}`);
    await pace.step();
  }
  for (const [list, remarks] of [['annotations', doc.annotations], ['feedback', doc.feedback]] as const) {
    for (let i = 0; i < remarks.length; i++) {
      const r = remarks[i];
      claim(r.id, list, `/${list}/${i}/id`);
      if (kindOf.get(r.targetId) !== r.targetType) fail(`/${list}/${i}/targetId`, `is not a ${r.targetType} of the export`);
      await pace.step();
    }
  }
  if (errors.length) {
    throw new AppError('invalid_request', `The export is not consistent: ${errors[0].path.slice(1)} ${errors[0].message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`, { errors });
  }
}

/** Every id of a document with the prefix of its kind (a link's with its index). */
function* idsOf(doc: ExportDoc): Iterable<{ prefix: string; id: string; linkIndex?: number }> {
  for (const p of doc.playbooks) {
    yield { prefix: 'pb', id: p.id };
    for (const v of p.versions) yield { prefix: 'pbv', id: v.id };
  }
  for (const n of doc.nodes) yield { prefix: 'cn', id: n.id };
  for (let i = 0; i < doc.links.length; i++) yield { prefix: 'lnk', id: doc.links[i].id, linkIndex: i };
  for (const a of doc.annotations) yield { prefix: 'ann', id: a.id };
  for (const f of doc.feedback) yield { prefix: 'fb', id: f.id };
}

/**
 * The ids an import writes. An id of the document is kept when it has the shape this service gives ids of its
 * kind and nothing on this deployment uses it (so that agents calling a moved playbook by id go on working);
 * any other is replaced by a new id, and every reference in the document follows.
 */
export class ImportIds {
  private constructor(
    /** New ids of the playbooks, versions, nodes, annotations and feedback whose own ids were not kept (unique across those kinds in a consistent document). */
    private readonly replacedItems: Map<string, string>,
    /** New ids of the links, by their index in the document (link ids need not differ from the other kinds' ids). */
    private readonly replacedLinks: Map<number, string>,
  ) {}

  /** Decides every id of a consistent document, asking the graph which well-formed ones are taken, in bounded lookups. */
  static async decide(doc: ExportDoc, takenIds: (ids: string[]) => Promise<string[]>, pace: Pace): Promise<ImportIds> {
    const candidates: string[] = [];
    for (const { prefix, id } of idsOf(doc)) {
      if (isIdOf(prefix, id)) candidates.push(id);
      await pace.step();
    }
    const taken = new Set<string>();
    for (let at = 0; at < candidates.length; at += takenLookupSize) {
      for (const id of await takenIds(candidates.slice(at, at + takenLookupSize))) taken.add(id);
    }
    const replacedItems = new Map<string, string>();
    const replacedLinks = new Map<number, string>();
    for (const { prefix, id, linkIndex } of idsOf(doc)) {
      await pace.step();
      if (isIdOf(prefix, id) && !taken.has(id)) continue;
      if (linkIndex === undefined) replacedItems.set(id, newId(prefix));
      else replacedLinks.set(linkIndex, newId(prefix));
    }
    return new ImportIds(replacedItems, replacedLinks);
  }

  /** The id written for a playbook, version, node, annotation or feedback item of the document. */
  item(id: string): string {
    return this.replacedItems.get(id) ?? id;
  }

  /** The id written for the document's link at `index`. */
  link(index: number, id: string): string {
    return this.replacedLinks.get(index) ?? id;
  }

  get replaced(): number {
    return this.replacedItems.size + this.replacedLinks.size;
  }
}

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
async function* batched<T>(items: Iterable<T>, measure: (item: T) => { units: number; chars: number }, pace: Pace): AsyncIterable<T[]> {
  let batch: T[] = [];
  let units = 0;
  let chars = 0;
  for (const item of items) {
    await pace.step();
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
export async function* importBatches(doc: ExportDoc, ids: ImportIds, now: string, pace: Pace, wikilinks: Map<string, number>): AsyncIterable<ImportBatch> {
  for await (const batch of batched(mapped(doc.playbooks, ({ versions: _v, ...p }) => ({ ...p, id: ids.item(p.id) })), plain, pace)) {
    yield { stage: 'playbooks', count: batch.length, write: (w) => w.playbooks(batch) };
  }
  const versions = mapped(versionsOf(doc), (v) => ({ ...v, id: ids.item(v.id), playbookId: ids.item(v.playbookId), content: JSON.stringify(v.content) }));
  for await (const batch of batched(versions, plain, pace)) {
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
  for await (const batch of batched(nodes, plain, pace)) {
    yield { stage: 'nodes', count: batch.length, write: (w) => w.nodes(batch) };
  }
  const links = mapped(doc.links, (l, i) => ({
    id: ids.link(i, l.id), sourceType: l.sourceType, sourceId: ids.item(l.sourceId), targetId: ids.item(l.targetId), relType: relationshipTypeOf[l.linkType], origin: l.origin, createdAt: l.createdAt,
  }));
  for await (const batch of batched(links, plain, pace)) {
    yield { stage: 'links', count: batch.length, write: (w) => w.links(batch) };
  }
  const items = mapped(doc.nodes, (n) => {
    const item = { id: ids.item(n.id), content: n.content ?? '', links: parseWikilinks(n.content) };
    wikilinks.set(item.id, (wikilinks.get(item.id) ?? 0) + item.links.length);
    return item;
  });
  // A node whose content links nowhere has nothing to write.
  for await (const batch of batched(items, (item) => ({ units: item.links.length && 1 + item.links.length, chars: 0 }), pace)) {
    yield { stage: 'wikilinks', count: batch.length, write: (w) => w.wikilinks(batch, now) };
  }
  for await (const batch of batched(mapped(doc.annotations, (a) => ({ ...a, id: ids.item(a.id), targetId: ids.item(a.targetId) })), plain, pace)) {
    yield { stage: 'annotations', count: batch.length, write: (w) => w.remarks('Annotation', batch) };
  }
  for await (const batch of batched(mapped(doc.feedback, (f) => ({ ...f, id: ids.item(f.id), targetId: ids.item(f.targetId) })), plain, pace)) {
    yield { stage: 'feedback', count: batch.length, write: (w) => w.remarks('Feedback', batch) };
  }
}

/**
 * What undoing an import deletes, label by label in an order that removes what points at something before it:
 * the first `written[stage]` items of each stage, in batches whose relationships (a node's links and wikilinks,
 * a playbook's versions and links) stay within maxBatchUnits too.
 */
export async function* undoBatches(doc: ExportDoc, ids: ImportIds, written: Record<Stage, number>, wikilinks: Map<string, number>, pace: Pace): AsyncIterable<{ label: ImportedLabel; ids: string[] }> {
  const degree = new Map<string, number>();
  const touch = (id: string, by = 1) => degree.set(id, (degree.get(id) ?? 0) + by);
  for (const l of take(doc.links, written.links)) {
    touch(l.sourceId);
    touch(l.targetId);
    await pace.step();
  }
  for (const p of doc.playbooks) touch(p.id, p.versions.length);
  await pace.step();
  const measure = (weight: number) => ({ units: 1 + weight, chars: 0 });
  const parts: [ImportedLabel, Iterable<{ id: string; weight: number }>][] = [
    ['Annotation', mapped(take(doc.annotations, written.annotations), (a) => ({ id: ids.item(a.id), weight: 0 }))],
    ['Feedback', mapped(take(doc.feedback, written.feedback), (f) => ({ id: ids.item(f.id), weight: 0 }))],
    ['ContextNode', mapped(take(doc.nodes, written.nodes), (n) => ({ id: ids.item(n.id), weight: (degree.get(n.id) ?? 0) + (wikilinks.get(ids.item(n.id)) ?? 0) }))],
    ['PlaybookVersion', mapped(take(versionsOf(doc), written.versions), (v) => ({ id: ids.item(v.id), weight: 0 }))],
    ['Playbook', mapped(take(doc.playbooks, written.playbooks), (p) => ({ id: ids.item(p.id), weight: degree.get(p.id) ?? 0 }))],
  ];
  for (const [label, items] of parts) {
    for await (const batch of batched(items, (item) => measure(item.weight), pace)) yield { label, ids: batch.map((item) => item.id) };
  }
}
