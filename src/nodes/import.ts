import { recordAudit, stampOf } from '../audit/recorder.js';
import type { Caller } from '../auth/caller.js';
import { AppError, notFound } from '../errors.js';
import { newId } from '../infra/ids.js';
import { type GraphTx, Rollback } from '../infra/neo4j.js';
import type { ServiceDeps } from '../service-deps.js';
import { type RelationshipType, relationshipTypeOf } from './link-types.js';
import { type ImportStateRow, NodeRepository, sourcePathKey, toNode } from './repository.js';
import { sourcePathTaken } from './conflicts.js';
import type { ContextNode, ImportInput, ImportNodeInput, ImportResult } from './schemas.js';
import { namesChange } from './names.js';
import { type NodeFields, normaliseNodeFields, withDefaults } from './node-fields.js';
import { countTokens, tokenCountsOf } from '../tokens/token-count.js';
import { syncWikilinks } from './wikilink-sync.js';
import { maxWikilinkTargets, nameKey, parseWikilinks } from './wikilinks.js';

const fieldNames = ['title', 'description', 'content', 'nodeType', 'agentSummary', 'importance', 'readFirst', 'edgeCaseOnly', 'aliases', 'tags', 'sourcePath'] as const;
/** Whether a stored field and an item's differ; lists by their items. */
const differs = (a: unknown, b: unknown) => (Array.isArray(a) && Array.isArray(b) ? a.length !== b.length || a.some((x, i) => x !== b[i]) : a !== b);
type ItemResult = ImportResult['nodes'][number];
type ArchiveResult = ImportResult['archive'][number];
type WantedLink = { relType: RelationshipType; targetSlug: string };

/** One valid item and what it will do. */
interface Planned {
  result: ItemResult;
  item: ImportNodeInput;
  fields: NodeFields;
  kind: 'create' | 'update' | 'unchanged';
  changes: Record<string, unknown>;
  contentChanged: boolean;
  /** Undefined when the item leaves manual links alone. */
  wanted?: WantedLink[];
  /** Slugs its typed links name that no node has. */
  unresolvedTargets: string[];
}

const linkKey = (relType: string, targetSlug: string) => `${relType}>${targetSlug}`;
const itemError = (code: string, message: string) => ({ code, message });

/**
 * Bulk writes of context nodes keyed by slug (POST …/context-nodes/import, behind the folder import of the CLI).
 * One request is one transaction holding the workspace's graph lock (so batches take turns) and claiming the slugs
 * it writes (so a single write of one of them waits for it, or it for that write): the batch is compared
 * with what is stored, and only the differences are written, each kind in one UNWIND statement. A batch that
 * changes nothing (or a dry run) is rolled back, so it commits nothing and leaves the graph generation (and every
 * cached answer and ETag) as it was. An item that cannot be written is answered with its reason and the others go on.
 */
export class NodeImportService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly repo = new NodeRepository(deps.graph),
  ) {}

  async importNodes(caller: Caller, input: ImportInput): Promise<ImportResult> {
    const ws = caller.workspaceId;
    const items = input.nodes ?? [];
    const archive = input.archive ?? [];
    const dryRun = input.dryRun ?? false;
    const now = this.deps.clock().toISOString();

    // Checks that need nothing stored: a slug twice in the batch, a self-link, too many wikilinks.
    const results: ItemResult[] = items.map((item, index) => ({ index, slug: item.slug, outcome: 'unchanged', id: null, unresolvedLinks: [], error: null }));
    const firstIndexOf = new Map<string, number>();
    const valid: number[] = [];
    const normalised: ImportNodeInput[] = [];
    items.forEach((given, index) => {
      const fail = (code: string, message: string) => Object.assign(results[index], { outcome: 'error', error: itemError(code, message) });
      let item: ImportNodeInput;
      try {
        item = normaliseNodeFields(given);
      } catch (err) {
        if (err instanceof AppError) return fail(err.code, err.message);
        throw err;
      }
      normalised[index] = item;
      const earlier = firstIndexOf.get(item.slug);
      if (earlier !== undefined) return fail('duplicate_slug', `Item ${earlier} of this batch has the same slug '${item.slug}'`);
      firstIndexOf.set(item.slug, index);
      if (item.links?.some((l) => l.target === item.slug)) return fail('invalid_request', 'links to itself (self-links are not allowed)');
      if (parseWikilinks(item.content).length > maxWikilinkTargets) return fail('invalid_request', `content links to more than ${maxWikilinkTargets} distinct names`);
      valid.push(index);
    });
    const batchSlugs = new Set(valid.map((i) => normalised[i].slug));
    const needed = new Set<string>([...batchSlugs, ...archive]);
    for (const i of valid) for (const link of normalised[i].links ?? []) needed.add(link.target);

    const run = async (tx: GraphTx): Promise<ImportResult> => {
      // The batch's slugs are claimed as a single create claims its slug, so that one made meanwhile is seen here.
      await this.repo.claimSlugs(tx, ws, [...batchSlugs].map(nameKey), null);
      const stored = new Map((await this.repo.importState(tx, ws, [...needed])).map((row) => [row.node.slug, row]));
      const writable = await this.withoutSourcePathConflicts(tx, ws, valid, normalised, results, new Set(archive));
      const writtenSlugs = new Set(writable.map((i) => normalised[i].slug));
      const known = (slug: string) => stored.has(slug) || writtenSlugs.has(slug);
      const planned = writable.map((index) => this.plan(results[index], normalised[index], stored.get(normalised[index].slug), known));
      const archiveResults: ArchiveResult[] = archive.map((slug) => {
        const row = stored.get(slug);
        if (batchSlugs.has(slug)) return { slug, outcome: 'error', id: row?.node.id ?? null, error: itemError('invalid_request', 'is also imported by this batch') };
        if (!row) return { slug, outcome: 'error', id: null, error: itemError('not_found', 'No context node of this workspace has this slug') };
        return { slug, outcome: row.node.status === 'archived' ? 'unchanged' : 'archived', id: row.node.id, error: null };
      });
      const summary = { created: 0, updated: 0, unchanged: 0, archived: 0, errors: 0 };
      for (const r of results) summary[r.outcome === 'error' ? 'errors' : r.outcome] += 1;
      for (const r of archiveResults) {
        if (r.outcome === 'archived') summary.archived += 1;
        else if (r.outcome === 'error') summary.errors += 1;
      }
      const writes = summary.created + summary.updated + summary.archived > 0;
      const answer: ImportResult = { dryRun, written: writes && !dryRun, summary, nodes: results, archive: archiveResults };
      // A dry run writes too, so that it can tell which wikilinks would stay unresolved; it is then rolled back.
      if (writes) await this.apply(tx, ws, planned, stored, archiveResults, now);
      const waiting = await this.repo.unresolvedOf(tx, ws, planned.map((p) => p.result.id!));
      for (const p of planned) p.result.unresolvedLinks = [...new Set([...p.unresolvedTargets, ...(waiting.get(p.result.id!) ?? [])])].sort();
      if (dryRun) {
        for (const p of planned) if (p.kind === 'create') p.result.id = null;
      }
      if (dryRun || !writes) throw new Rollback(answer);
      // One event for the request, naming every node it created, updated or archived.
      const touched = [
        ...results.filter((r) => r.outcome === 'created' || r.outcome === 'updated').map((r) => r.id!),
        ...archiveResults.filter((r) => r.outcome === 'archived').map((r) => r.id!),
      ];
      const { created, updated, archived } = summary;
      await recordAudit(tx, stampOf(caller, now), { action: 'node.imported', workspaceId: ws, targetIds: touched, before: null, after: { created, updated, archived } });
      return answer;
    };

    let answer: ImportResult;
    try {
      const { found, result } = await this.repo.inWorkspaceTx(ws, now, run);
      if (!found) throw notFound('Workspace');
      answer = result!;
    } catch (err) {
      if (err instanceof Rollback) return err.result as ImportResult;
      throw err;
    }
    await this.deps.gate.graphChanged(ws);
    return answer;
  }

  /**
   * The items that leave every source path to one live node: an item whose path (compared as names compare) an
   * earlier item of the batch has, or a live node of another slug that this batch neither moves nor archives, is
   * answered with a conflict and not written. Every item is live once written, so each is checked.
   */
  private async withoutSourcePathConflicts(tx: GraphTx, ws: string, valid: number[], items: ImportNodeInput[], results: ItemResult[], archived: Set<string>): Promise<number[]> {
    const withPath = valid.filter((i) => items[i].sourcePath);
    if (!withPath.length) return valid;
    const pathOfSlug = new Map(valid.map((i) => [items[i].slug, items[i].sourcePath ? sourcePathKey(items[i].sourcePath!) : null]));
    const holders = new Map<string, { slug: string }[]>();
    for (const h of await this.repo.sourcePathHolders(tx, ws, withPath.map((i) => items[i].sourcePath!))) {
      const key = sourcePathKey(h.sourcePath);
      holders.set(key, [...(holders.get(key) ?? []), h]);
    }
    const firstWithPath = new Map<string, number>();
    const refused = new Set<number>();
    for (const i of withPath) {
      const path = items[i].sourcePath!;
      const key = sourcePathKey(path);
      const earlier = firstWithPath.get(key);
      // A holder keeps the path unless this batch archives it or gives it another path (or none).
      const holder = holders.get(key)?.find((h) => h.slug !== items[i].slug && !archived.has(h.slug) && (!pathOfSlug.has(h.slug) || pathOfSlug.get(h.slug) === key));
      if (earlier !== undefined) {
        refused.add(i);
        Object.assign(results[i], { outcome: 'error', error: itemError('conflict', `Item ${earlier} of this batch has the same source path '${items[earlier].sourcePath}' (compared ignoring case and Unicode form)`) });
      } else if (holder) {
        refused.add(i);
        Object.assign(results[i], { outcome: 'error', error: itemError('conflict', sourcePathTaken(path, holder).message) });
      } else firstWithPath.set(key, i);
    }
    return valid.filter((i) => !refused.has(i));
  }

  /** Compares one valid item with the stored node of its slug (if any) and fills in its answer. */
  private plan(result: ItemResult, item: ImportNodeInput, row: ImportStateRow | undefined, known: (slug: string) => boolean): Planned {
    const fields = withDefaults(item);
    const unresolved = new Set<string>();
    let wanted: WantedLink[] | undefined;
    if (item.links) {
      const keys = new Set<string>();
      wanted = [];
      for (const link of item.links) {
        const relType = relationshipTypeOf[link.linkType];
        if (!known(link.target)) unresolved.add(link.target);
        else if (!keys.has(linkKey(relType, link.target))) {
          keys.add(linkKey(relType, link.target));
          wanted.push({ relType, targetSlug: link.target });
        }
      }
    }
    const unresolvedTargets = [...unresolved];
    if (!row) {
      result.outcome = 'created';
      result.id = newId('cn');
      return { result, item, fields, kind: 'create', changes: {}, contentChanged: true, wanted, unresolvedTargets };
    }
    result.id = row.node.id;
    const current = toNode(row.node);
    const changes: Record<string, unknown> = {};
    for (const name of fieldNames) if (differs(fields[name], current[name])) changes[name] = fields[name];
    if ('content' in changes) changes.tokenCount = countTokens(fields.content);
    if ('description' in changes) changes.descriptionTokenCount = countTokens(fields.description);
    if ('agentSummary' in changes) changes.agentSummaryTokenCount = countTokens(fields.agentSummary);
    if (row.node.status !== 'live') Object.assign(changes, { status: 'live', archivedAt: null });
    let linksChanged = false;
    if (wanted) {
      const all = new Set(row.links.map((l) => linkKey(l.relType, l.targetSlug)));
      const wantedKeys = new Set(wanted.map((w) => linkKey(w.relType, w.targetSlug)));
      linksChanged = wanted.some((w) => !all.has(linkKey(w.relType, w.targetSlug)))
        || row.links.some((l) => l.origin === 'manual' && !wantedKeys.has(linkKey(l.relType, l.targetSlug)));
    }
    const changed = Object.keys(changes).length > 0 || linksChanged;
    result.outcome = changed ? 'updated' : 'unchanged';
    return { result, item, fields, kind: changed ? 'update' : 'unchanged', changes, contentChanged: 'content' in changes, wanted, unresolvedTargets };
  }

  /** Writes a plan: nodes, then their names and wikilinks (so that the batch's own nodes resolve them), then manual links, then archives. */
  private async apply(tx: GraphTx, ws: string, planned: Planned[], stored: Map<string, ImportStateRow>, archived: ArchiveResult[], now: string): Promise<void> {
    const creates = planned.filter((p) => p.kind === 'create');
    const updates = planned.filter((p) => p.kind === 'update');
    await this.repo.create(tx, ws, creates.map((p) => {
      const node: ContextNode = {
        id: p.result.id!, slug: p.item.slug, ...p.fields, status: 'live', createdAt: now, updatedAt: now, archivedAt: null,
      };
      return { ...node, ...tokenCountsOf(node) };
    }));
    await this.repo.update(tx, ws, updates.map((p) => ({ nodeId: p.result.id!, changes: p.changes })), now);
    const idOf = new Map<string, string>([...stored].map(([slug, row]) => [slug, row.node.id]));
    for (const p of creates) idOf.set(p.item.slug, p.result.id!);
    const nodeOf = (p: Planned) => ({ id: p.result.id!, slug: p.item.slug, ...p.fields });
    await syncWikilinks(this.repo, tx, ws, {
      named: [...creates, ...updates.filter((p) => namesChange(p.changes))].map(nodeOf),
      contents: [...creates, ...updates.filter((p) => p.contentChanged)].map(nodeOf),
    }, now);
    await this.repo.syncManualLinks(tx, ws, [...creates, ...updates].filter((p) => p.wanted).map((p) => ({
      nodeId: p.result.id!,
      wanted: p.wanted!.map((w) => ({ relType: w.relType, targetId: idOf.get(w.targetSlug)!, linkId: newId('lnk') })),
    })), now);
    await this.repo.setStatus(tx, ws, archived.filter((a) => a.outcome === 'archived').map((a) => a.id!), 'archived', now);
  }
}
