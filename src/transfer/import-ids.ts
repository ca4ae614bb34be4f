import type { EventLoopSlicer } from '../infra/event-loop.js';
import { isIdOf, newId } from '../infra/ids.js';
import type { ExportDoc } from './schemas.js';

/** Ids looked up at once when deciding which of the document's ids are free. */
const takenLookupSize = 5_000;

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
  static async decide(doc: ExportDoc, takenIds: (ids: string[]) => Promise<string[]>, slicer: EventLoopSlicer): Promise<ImportIds> {
    const candidates: string[] = [];
    for (const { prefix, id } of idsOf(doc)) {
      if (isIdOf(prefix, id)) candidates.push(id);
      await slicer.yieldIfDue();
    }
    const taken = new Set<string>();
    for (let at = 0; at < candidates.length; at += takenLookupSize) {
      for (const id of await takenIds(candidates.slice(at, at + takenLookupSize))) taken.add(id);
    }
    const replacedItems = new Map<string, string>();
    const replacedLinks = new Map<number, string>();
    for (const { prefix, id, linkIndex } of idsOf(doc)) {
      await slicer.yieldIfDue();
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
