import { contentDigested, pick, recordAudit, stampOf } from '../audit/recorder.js';
import type { Caller } from '../auth/caller.js';
import { AppError, invalidField, notFound } from '../errors.js';
import { pageOf, rowsOf } from '../api/paging.js';
import { countTokens, tokenCountsOf } from '../tokens/token-count.js';
import { allocateSlug } from '../api/slug.js';
import { idOf, newId } from '../infra/ids.js';
import type { GraphTx } from '../infra/neo4j.js';
import { isConstraintViolation } from '../infra/neo4j-errors.js';
import type { ServiceDeps } from '../service-deps.js';
import { type LinkType } from './link-types.js';
import { namesChange } from './names.js';
import { normaliseNodeFields, normaliseTags, withDefaults } from './node-fields.js';
import { type ListFilter, NodeRepository } from './repository.js';
import type { ContextNode, CreateNodeInput, Link, ListNodesQuery, NodeDetail, NodePage, NodeStatus, SourceType, UpdateNodeInput } from './schemas.js';
import { wordsQuery } from './search-query.js';
import { slugTaken, sourcePathTaken } from './conflicts.js';
import { syncWikilinks } from './wikilink-sync.js';
import { maxWikilinkTargets, nameKey, parseWikilinks, wikilinkTarget } from './wikilinks.js';

/**
 * Context nodes, the typed links between nodes (and from playbooks to nodes), and wikilinks.
 * Each write is one transaction that locks only what another write could touch at the same time: the slug it
 * claims, the names (WikiName nodes) its node takes or drops and its wikilinks point at, the source of a link it
 * adds (docs/graph-model.md, "What a write locks"). Writes to one workspace that share none of these run side by
 * side. After each commits, the workspace's graph generation is renewed.
 */
export class NodeService {
  private readonly repo: NodeRepository;

  constructor(private readonly deps: ServiceDeps) {
    this.repo = new NodeRepository(deps.graph);
  }

  async create(caller: Caller, given: CreateNodeInput): Promise<NodeDetail> {
    const ws = caller.workspaceId;
    const input = normaliseNodeFields(given);
    checkWikilinks(input.content);
    // An automatic slug is tried again if a writer that claims no slug (a workspace import) took it meanwhile.
    for (let attempt = 1; ; attempt += 1) {
      try {
        const detail = await this.write(async (tx, now) => {
          const slug = await this.allocateSlug(tx, ws, input.title, input.slug);
          if (input.sourcePath) await this.claimSourcePath(tx, ws, input.sourcePath);
          const node: ContextNode = {
            id: newId('cn'),
            slug,
            ...withDefaults(input),
            status: 'live',
            createdAt: now,
            updatedAt: now,
            archivedAt: null,
          };
          // Token counts are stored beside the texts (not part of the API's node), so retrieval never tokenizes.
          if (!(await this.repo.create(tx, ws, [{ ...node, ...tokenCountsOf(node) }]))) throw notFound('Workspace');
          await syncWikilinks(this.repo, tx, ws, { named: [node], contents: [node] }, now);
          const { id, createdAt, updatedAt, archivedAt, ...after } = node;
          await recordAudit(tx, stampOf(caller, now), { action: 'node.created', workspaceId: ws, targetIds: [id], after: contentDigested(after) });
          return (await this.repo.get(tx, ws, node.id))!;
        });
        await this.deps.gate.graphChanged(ws);
        return detail;
      } catch (err) {
        if (!isConstraintViolation(err)) throw err;
        if (input.slug !== undefined) throw slugTaken(input.slug);
        if (attempt >= 3) throw err;
      }
    }
  }

  /**
   * Stores token counts on the nodes written before counting existed. Runs once at start-up, after the
   * migrations: Cypher cannot tokenize, so this is the migration's TypeScript half. Each batch's workspaces
   * get a new graph generation (cached answers without the counts are not served again).
   */
  async backfillTokenCounts(batchSize = 500): Promise<number> {
    let done = 0;
    for (;;) {
      const rows = await this.repo.withoutTokenCounts(batchSize);
      if (rows.length === 0) return done;
      await this.repo.setTokenCounts(rows.map((row) => ({ workspaceId: row.workspaceId, id: row.id, ...tokenCountsOf(row) })));
      for (const workspaceId of new Set(rows.map((row) => row.workspaceId))) await this.deps.gate.graphChanged(workspaceId);
      done += rows.length;
    }
  }

  /**
   * Gives names and wikilinks to the nodes written before wikilinks named nodes by name, path and alias (their
   * migration dropped what only slugs could name). Runs once at start-up, after the migrations, a batch of nodes
   * per transaction under each workspace's lock; a link that waits for a node of a later batch resolves when that
   * batch names it.
   */
  async backfillNames(batchSize = 500): Promise<number> {
    let done = 0;
    for (;;) {
      const rows = await this.repo.withoutNames(batchSize);
      if (rows.length === 0) return done;
      let progressed = false;
      for (const workspaceId of new Set(rows.map((row) => row.workspaceId))) {
        const nodes = rows.filter((row) => row.workspaceId === workspaceId);
        const now = this.deps.clock().toISOString();
        const named = nodes.map((n) => ({ ...n, aliases: n.aliases ?? [] }));
        const { found } = await this.repo.inWorkspaceTx(workspaceId, now, (tx) => syncWikilinks(this.repo, tx, workspaceId, { named, contents: nodes }, now));
        if (!found) continue;
        progressed = true;
        done += nodes.length;
        await this.deps.gate.graphChanged(workspaceId);
      }
      // Nodes of a workspace that no longer exists cannot be locked; they are left, and the backfill ends.
      if (!progressed) return done;
    }
  }

  /**
   * The id of a context node given by its id (cn_…) or by a name, as a wikilink names it (slug, file name, path,
   * title or alias; `[[…]]` around it is allowed): what agents read in content is what they can ask for. 404 when
   * nothing has the name.
   */
  idOf(caller: Caller, idOrName: string): Promise<string> {
    return idOf('cn', idOrName, (name) => this.idByName(caller.workspaceId, name), 'Context node');
  }

  /** The node a wikilink of this name links to (`[[…]]` around it allowed), if any. */
  private async idByName(workspaceId: string, name: string): Promise<string | undefined> {
    const target = wikilinkTarget(name.trim().replace(/^!?\[\[(.*)\]\]$/, '$1'));
    return target ? this.repo.idByName(workspaceId, nameKey(target.name)) : undefined;
  }

  async get(caller: Caller, nodeId: string): Promise<NodeDetail> {
    const detail = await this.repo.get(undefined, caller.workspaceId, nodeId);
    if (!detail) throw notFound('Context node');
    return detail;
  }

  /** Changes any of the editable fields; updatedAt moves on every edit. Wikilinks follow content and name changes. */
  async update(caller: Caller, nodeId: string, given: UpdateNodeInput): Promise<NodeDetail> {
    const ws = caller.workspaceId;
    const input = normaliseNodeFields(given);
    checkWikilinks(input.content);
    try {
      const detail = await this.write(async (tx, now) => {
        const current = (await this.repo.lock(tx, ws, nodeId)) ? await this.repo.get(tx, ws, nodeId) : undefined;
        if (!current) throw notFound('Context node');
        const changes: Record<string, unknown> = { ...input };
        if (input.content !== undefined) changes.tokenCount = countTokens(input.content);
        if (input.description !== undefined) changes.descriptionTokenCount = countTokens(input.description);
        if (input.agentSummary !== undefined) changes.agentSummaryTokenCount = countTokens(input.agentSummary);
        const slugChanged = input.slug !== undefined && input.slug !== current.slug;
        if (slugChanged) await this.allocateSlug(tx, ws, current.title, input.slug, nodeId);
        if (input.sourcePath && current.status === 'live') await this.claimSourcePath(tx, ws, input.sourcePath, nodeId);
        await this.repo.update(tx, ws, [{ nodeId, changes }], now);
        const renamed = { ...current, ...input, id: nodeId };
        await syncWikilinks(this.repo, tx, ws, {
          named: namesChange(input) ? [renamed] : [],
          contents: input.content !== undefined ? [{ id: nodeId, content: input.content }] : [],
        }, now);
        const updated = (await this.repo.get(tx, ws, nodeId))!;
        const fields = Object.keys(input);
        await recordAudit(tx, stampOf(caller, now), {
          action: 'node.updated', workspaceId: ws, targetIds: [nodeId],
          before: contentDigested(pick(current as unknown as Record<string, unknown>, fields)), after: contentDigested(pick(updated as unknown as Record<string, unknown>, fields)),
        });
        return updated;
      });
      await this.deps.gate.graphChanged(ws);
      return detail;
    } catch (err) {
      if (isConstraintViolation(err) && input.slug !== undefined) throw slugTaken(input.slug);
      throw err;
    }
  }

  /** DELETE archives: the node is kept, with status archived and archivedAt set. Archiving twice changes nothing. */
  async archive(caller: Caller, nodeId: string): Promise<void> {
    await this.setStatus(caller, nodeId, 'archived');
  }

  async restore(caller: Caller, nodeId: string): Promise<NodeDetail> {
    await this.setStatus(caller, nodeId, 'live');
    return this.get(caller, nodeId);
  }

  async list(caller: Caller, query: ListNodesQuery): Promise<NodePage> {
    if (query.archived !== undefined && query.status !== undefined) {
      throw new AppError('invalid_request', "Send either 'status' or the deprecated 'archived', not both", {
        errors: [{ path: '/archived', message: "cannot be combined with 'status' (use status alone)", in: 'query' }],
      });
    }
    const status = query.status ?? (query.archived === undefined ? 'live' : query.archived ? 'archived' : 'live');
    const search = query.q === undefined ? undefined : wordsQuery(query.q, query.match);
    // Text with no letter or digit (`?`, `***`) searches for nothing rather than listing everything, as a blank q does.
    if (search === undefined && query.q?.trim()) return pageOf('nodes', [], query, 0);
    const id = query.name === undefined ? null : await this.idByName(caller.workspaceId, query.name);
    if (id === undefined) return pageOf('nodes', [], query, 0);
    const filter: ListFilter = {
      nodeType: query.nodeType ?? null,
      tag: query.tag === undefined ? null : (normaliseTags([query.tag])[0] ?? '').toLowerCase(),
      id,
      status,
      sort: query.sort ?? (search ? 'relevance' : 'updated_at'),
      order: query.order ?? 'desc',
      ...rowsOf(query),
    };
    const { total, nodes } = await this.repo.list(caller.workspaceId, filter, search);
    return pageOf('nodes', nodes, query, total);
  }

  /** A manual link from a context node or a playbook to a context node of the same workspace. */
  async createLink(caller: Caller, sourceType: SourceType, sourceId: string, input: { targetId: string; linkType: LinkType }): Promise<Link> {
    if (sourceType === 'context_node' && input.targetId === sourceId) {
      throw invalidField('/targetId', 'must not be the source node itself (self-links are not allowed)');
    }
    const ws = caller.workspaceId;
    const link = await this.write(async (tx, now) => {
      const linkId = newId('lnk');
      const result = await this.repo.createLink(tx, { workspaceId: ws, sourceType, sourceId, targetId: input.targetId, linkType: input.linkType, linkId, now });
      if (!result.sourceFound) throw notFound(sourceType === 'playbook' ? 'Playbook' : 'Context node');
      if (!result.targetFound) throw notFound('Target context node');
      if (result.duplicate) {
        throw new AppError('duplicate_link', `A ${input.linkType} link from ${sourceId} to ${input.targetId} already exists`);
      }
      const created: Link = { id: linkId, sourceId, sourceType, targetId: input.targetId, linkType: input.linkType, origin: 'manual', createdAt: now };
      const { id, createdAt, ...after } = created;
      await recordAudit(tx, stampOf(caller, now), { action: 'link.created', workspaceId: ws, targetIds: [linkId, sourceId, input.targetId], after });
      return created;
    });
    await this.deps.gate.graphChanged(ws);
    return link;
  }

  /** Deletes a manual link going out of the source. A wikilink's link belongs to the source's content (409). */
  async deleteLink(caller: Caller, sourceType: SourceType, sourceId: string, linkId: string): Promise<void> {
    const ws = caller.workspaceId;
    await this.write(async (tx, now) => {
      const result = await this.repo.deleteLink(tx, { workspaceId: ws, sourceType, sourceId, linkId });
      if (!result.sourceFound) throw notFound(sourceType === 'playbook' ? 'Playbook' : 'Context node');
      if (!result.linkFound) throw notFound('Link');
      if (!result.deleted) {
        throw new AppError('conflict', 'This link comes from a [[wikilink]] in the source node’s content; remove the wikilink from the content instead');
      }
      await recordAudit(tx, stampOf(caller, now), { action: 'link.deleted', workspaceId: ws, targetIds: [linkId, sourceId], before: { sourceType, sourceId }, after: null });
    });
    await this.deps.gate.graphChanged(ws);
  }

  private async setStatus(caller: Caller, nodeId: string, status: NodeStatus): Promise<void> {
    const ws = caller.workspaceId;
    const changed = await this.write(async (tx, now) => {
      if (status === 'live') {
        // A node made live again takes its file back only if no live node has it meanwhile.
        const node = (await this.repo.lock(tx, ws, nodeId)) ? await this.repo.get(tx, ws, nodeId) : undefined;
        if (node?.status === 'archived' && node.sourcePath) await this.claimSourcePath(tx, ws, node.sourcePath, nodeId);
      }
      const [result] = await this.repo.setStatus(tx, ws, [nodeId], status, now);
      if (!result) throw notFound('Context node');
      // Archiving an archived node (or restoring a live one) changes nothing, so it records nothing either.
      if (result.changed) {
        await recordAudit(tx, stampOf(caller, now), {
          action: status === 'archived' ? 'node.archived' : 'node.restored', workspaceId: ws, targetIds: [nodeId],
          before: { status: status === 'archived' ? 'live' : 'archived' }, after: { status },
        });
      }
      return result.changed;
    });
    if (changed) await this.deps.gate.graphChanged(ws);
  }

  /** Runs `work` in one write transaction (all of it again if Neo4j ends it for a deadlock), with one timestamp for all it writes. */
  private async write<R>(work: (tx: GraphTx, now: string) => Promise<R>): Promise<R> {
    const now = this.deps.clock().toISOString();
    return this.repo.writeTx((tx) => work(tx, now));
  }

  /** Claims a source path for a live node until the transaction ends; 409 when another live node has it. */
  private async claimSourcePath(tx: GraphTx, workspaceId: string, sourcePath: string, selfId?: string): Promise<void> {
    const holder = (await this.repo.sourcePathHolders(tx, workspaceId, [sourcePath])).find((h) => h.id !== selfId);
    if (holder) throw sourcePathTaken(sourcePath, holder);
  }

  /** The slug a node gets, claimed until the transaction ends; `selfId` may keep the slug it holds. */
  private allocateSlug(tx: GraphTx, workspaceId: string, title: string, explicit?: string, selfId?: string): Promise<string> {
    const claim = async (slug: string) => {
      const taken = await this.repo.claimSlugs(tx, workspaceId, [nameKey(slug)], slug);
      return new Set(taken.filter((t) => t.id !== selfId).map((t) => t.slug));
    };
    return allocateSlug({ explicit, title, fallback: 'node' }, claim, slugTaken);
  }
}

/** Refuses, before anything is written, content that links to more distinct names than a node may. */
function checkWikilinks(content: string | undefined): void {
  if (content !== undefined && parseWikilinks(content).length > maxWikilinkTargets) {
    throw invalidField('/content', `links to more than ${maxWikilinkTargets} distinct names`);
  }
}
