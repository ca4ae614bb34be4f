import { AppError, type FieldError } from '../errors.js';
import type { EventLoopSlicer } from '../infra/event-loop.js';
import { sourcePathProblem } from '../nodes/node-fields.js';
import { sourcePathKey } from '../nodes/repository.js';
import { maxWikilinkTargets, parseWikilinks } from '../nodes/wikilinks.js';
import { type ExportDoc, maxImportItems } from './schemas.js';

/** What an import document must be before anything of it is written: within the size an import takes, and whole. */

/** A version's content may be at most this large as JSON: what a single request could have written. */
export const maxVersionContentBytes = 1024 * 1024;

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
 * The references inside an export must hold (ids unique, slugs unique, no source path shared by two live nodes,
 * every link and remark pointing into it), and no version or node may be larger than a single request could have
 * made it (a version's content, a node's wikilinks). Linear, in slices of the event loop.
 */
export async function checkConsistent(doc: ExportDoc, slicer: EventLoopSlicer): Promise<void> {
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
  const liveSourcePaths = new Map<string, number>();
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
      await slicer.yieldIfDue();
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
    else if (n.sourcePath && n.status === 'live') {
      // Two live nodes never share a file, compared as names compare (as a single write is refused with 409).
      const key = sourcePathKey(n.sourcePath);
      const earlier = liveSourcePaths.get(key);
      if (earlier !== undefined) fail(`/nodes/${i}/sourcePath`, `is also the source path of the live node /nodes/${earlier} (compared ignoring case and Unicode form)`);
      else liveSourcePaths.set(key, i);
    }
    await slicer.yieldIfDue();
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
    await slicer.yieldIfDue();
  }
  for (const [list, remarks] of [['annotations', doc.annotations], ['feedback', doc.feedback]] as const) {
    for (let i = 0; i < remarks.length; i++) {
      const r = remarks[i];
      claim(r.id, list, `/${list}/${i}/id`);
      if (kindOf.get(r.targetId) !== r.targetType) fail(`/${list}/${i}/targetId`, `is not a ${r.targetType} of the export`);
      await slicer.yieldIfDue();
    }
  }
  if (errors.length) {
    throw new AppError('invalid_request', `The export is not consistent: ${errors[0].path.slice(1)} ${errors[0].message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`, { errors });
  }
}
