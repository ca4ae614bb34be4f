import { pick, recordAudit, stampOf } from '../audit/recorder.js';
import type { Caller } from '../auth/caller.js';
import { AppError, invalidField, notFound } from '../errors.js';
import { pageOf, rowsOf } from '../api/paging.js';
import { allocateSlug } from '../api/slug.js';
import { idOf, newId } from '../infra/ids.js';
import { isConstraintViolation } from '../infra/neo4j-errors.js';
import type { ServiceDeps } from '../service-deps.js';
import { PlaybookRepository } from './repository.js';
import type {
  CreatePlaybookInput, CreateVersionInput, ListPlaybooksQuery, PlaybookDetail, PlaybookSummary, UpdatePlaybookInput, Version,
} from './schemas.js';

/** How often a creation with an auto slug is retried when a concurrent PATCH took the slug it chose. */
const slugAttempts = 5;

const dedupe = (tags: string[]) => [...new Set(tags)];

const slugTaken = (slug: string) => new AppError('slug_taken', `The slug '${slug}' is already used by another playbook of this workspace`);
const archivedConflict = () => new AppError('conflict', 'The playbook is archived; restore it before changing it');

/** Playbooks and their versions: one approved version at most, drafts edited until approved (docs/api.md, "Playbooks"). */
export class PlaybookService {
  private readonly repo: PlaybookRepository;

  constructor(private readonly deps: ServiceDeps) {
    this.repo = new PlaybookRepository(deps.graph);
  }

  async list(caller: Caller, query: ListPlaybooksQuery) {
    const asked = { page: query.page ?? 1, limit: query.limit ?? 50 };
    const { total, playbooks } = await this.repo.list(caller.workspaceId, {
      status: query.status ?? null,
      functionArea: query.function_area ?? null,
      owner: query.owner ?? null,
      text: query.q?.trim() ? query.q.trim().toLowerCase() : null,
      sort: query.sort ?? 'updated_at',
      order: query.order ?? 'desc',
      ...rowsOf(asked),
    });
    return pageOf('playbooks', playbooks satisfies PlaybookSummary[], asked, total);
  }

  async create(caller: Caller, input: CreatePlaybookInput): Promise<PlaybookDetail> {
    const record = {
      title: input.title,
      summary: input.summary ?? null,
      description: input.description ?? null,
      functionArea: input.functionArea ?? null,
      visibility: input.visibility ?? 'workspace_private',
      ownerId: caller.actingUserId,
      tags: dedupe(input.tags ?? []),
      content: input.version.content,
      changeNote: input.version.changeNote ?? null,
      createdBy: caller.principal.id,
    } as const;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const created = await this.repo.create(
          caller.workspaceId,
          (claim) => allocateSlug({ explicit: input.slug, title: input.title, fallback: 'playbook' }, claim, slugTaken),
          { ...record, id: newId('pb'), versionId: newId('pbv'), now: this.now() },
          stampOf(caller, this.now()),
        );
        if (!created) throw notFound('Workspace');
        await this.deps.gate.graphChanged(caller.workspaceId);
        return created;
      } catch (err) {
        // Creations of one slug take turns on its claim; only a concurrent PATCH of a slug can still collide.
        if (!isConstraintViolation(err)) throw err;
        if (input.slug !== undefined) throw slugTaken(input.slug);
        if (attempt >= slugAttempts) throw err;
      }
    }
  }

  /** The id of a playbook named by its id or its slug; 404 for an unknown slug. */
  idOf(caller: Caller, idOrSlug: string): Promise<string> {
    return idOf('pb', idOrSlug, (slug) => this.repo.idBySlug(caller.workspaceId, slug), 'Playbook');
  }

  /** The playbook, from its own workspace or, when parent_readonly, from the parent workspace. */
  async get(caller: Caller, playbookId: string): Promise<PlaybookDetail> {
    const found = await this.repo.get(caller.workspaceId, playbookId);
    if (!found) throw notFound('Playbook');
    return found;
  }

  async getVersion(caller: Caller, playbookId: string, versionId: string): Promise<Version> {
    const found = await this.repo.getVersion(caller.workspaceId, playbookId, versionId);
    if (!found) throw notFound('Playbook version');
    return found;
  }

  /** Metadata only; never creates a version. An empty body changes nothing (not even updatedAt). */
  async update(caller: Caller, playbookId: string, input: UpdatePlaybookInput): Promise<PlaybookDetail> {
    const changes: Record<string, unknown> = { ...input };
    if (input.tags) changes.tags = dedupe(input.tags);
    if (Object.keys(changes).length === 0) {
      const current = await this.repo.get(caller.workspaceId, playbookId);
      if (!current || current.workspaceId !== caller.workspaceId) throw notFound('Playbook');
      return current;
    }
    let updated: PlaybookDetail | undefined;
    try {
      const now = this.now();
      updated = await this.repo.withLockedPlaybook(caller.workspaceId, playbookId, now, async (tx, state) => {
        if (state.archived) throw archivedConflict();
        const before = await this.repo.get(caller.workspaceId, playbookId, tx);
        const { ownerIsMember } = await this.repo.update(tx, caller.workspaceId, playbookId, changes);
        if (!ownerIsMember) throw invalidField('/ownerId', 'is not a member of this workspace');
        const after = await this.repo.get(caller.workspaceId, playbookId, tx);
        const fields = Object.keys(changes);
        await recordAudit(tx, stampOf(caller, now), {
          action: 'playbook.updated', workspaceId: caller.workspaceId, targetIds: [playbookId],
          before: pick(before as unknown as Record<string, unknown>, fields), after: pick(after as unknown as Record<string, unknown>, fields),
        });
        return after;
      });
    } catch (err) {
      if (input.slug !== undefined && isConstraintViolation(err)) throw slugTaken(input.slug);
      throw err;
    }
    if (!updated) throw notFound('Playbook');
    await this.deps.gate.graphChanged(caller.workspaceId);
    return updated;
  }

  /** Soft delete: sets archivedAt, keeps the record and its slug. Archiving an archived playbook is a no-op. */
  async archive(caller: Caller, playbookId: string): Promise<void> {
    const now = this.now();
    if (!(await this.repo.archive(caller.workspaceId, playbookId, now, stampOf(caller, now)))) throw notFound('Playbook');
    await this.deps.gate.graphChanged(caller.workspaceId);
  }

  async restore(caller: Caller, playbookId: string): Promise<PlaybookDetail> {
    const now = this.now();
    const restored = await this.repo.restore(caller.workspaceId, playbookId, now, stampOf(caller, now));
    if (!restored) throw notFound('Playbook');
    await this.deps.gate.graphChanged(caller.workspaceId);
    return restored;
  }

  /** A new draft numbered one above the highest; content given, or copied from `basedOnVersionId`. */
  async createVersion(caller: Caller, playbookId: string, input: CreateVersionInput): Promise<Version> {
    if (input.content !== undefined && input.basedOnVersionId !== undefined) {
      throw invalidField('/basedOnVersionId', 'cannot be combined with content; send exactly one of them');
    }
    if (input.content === undefined && input.basedOnVersionId === undefined) {
      throw invalidField('/content', 'is required (or basedOnVersionId)');
    }
    const basedOnVersionId = input.basedOnVersionId ?? null;
    return this.addVersion(caller, playbookId, input, 'Version named by basedOnVersionId', (version) => ({
      action: 'playbook.version.created',
      after: { versionNumber: version.versionNumber, status: version.status, changeNote: version.changeNote, basedOnVersionId },
    }));
  }

  /**
   * Rolls back: a new draft whose content is that of `versionId` (any status), made exactly as createVersion
   * makes one copied with basedOnVersionId; the approved version stays approved until the draft is approved.
   */
  async rollbackVersion(caller: Caller, playbookId: string, versionId: string, input: { changeNote?: string | null }): Promise<Version> {
    return this.addVersion(caller, playbookId, { basedOnVersionId: versionId, changeNote: input.changeNote }, 'Playbook version', (version) => ({
      action: 'playbook.version.rolled_back',
      after: { versionNumber: version.versionNumber, status: version.status, changeNote: version.changeNote, rolledBackToVersionId: versionId },
    }));
  }

  /** The one path that adds a version: under the playbook's lock, with its audit event in the same transaction. */
  private async addVersion(
    caller: Caller,
    playbookId: string,
    input: { content?: Record<string, unknown>; basedOnVersionId?: string; changeNote?: string | null },
    missingSource: string,
    describe: (version: Version) => { action: string; after: Record<string, unknown> },
  ): Promise<Version> {
    const now = this.now();
    const created = await this.repo.withLockedPlaybook(caller.workspaceId, playbookId, now, async (tx, state) => {
      if (state.archived) throw archivedConflict();
      const version = await this.repo.createVersion(tx, {
        workspaceId: caller.workspaceId,
        playbookId,
        versionId: newId('pbv'),
        content: input.content ?? null,
        basedOnVersionId: input.basedOnVersionId ?? null,
        changeNote: input.changeNote ?? null,
        createdBy: caller.principal.id,
        now,
      });
      if (!version) throw notFound(missingSource);
      const { action, after } = describe(version);
      await recordAudit(tx, stampOf(caller, now), { action, workspaceId: caller.workspaceId, targetIds: [playbookId, version.id], after });
      return version;
    });
    if (!created) throw notFound('Playbook');
    await this.deps.gate.graphChanged(caller.workspaceId);
    return created;
  }

  /** draft → approved; the previously approved version becomes deprecated in the same transaction. */
  async approve(caller: Caller, playbookId: string, versionId: string): Promise<Version> {
    const now = this.now();
    const approved = await this.repo.withLockedPlaybook(caller.workspaceId, playbookId, now, async (tx, state) => {
      if (state.archived) throw archivedConflict();
      const result = await this.repo.approveVersion(tx, caller.workspaceId, playbookId, versionId, now);
      if (!result) throw notFound('Playbook version');
      if (!result.wasDraft) throw new AppError('version_not_draft', `Version ${result.version.versionNumber} is ${result.version.status}; only a draft can be approved`);
      await recordAudit(tx, stampOf(caller, now), {
        action: 'playbook.version.approved', workspaceId: caller.workspaceId, targetIds: [playbookId, versionId],
        before: { status: 'draft' }, after: { status: 'approved', versionNumber: result.version.versionNumber },
      });
      return result.version;
    });
    if (!approved) throw notFound('Playbook');
    await this.deps.gate.graphChanged(caller.workspaceId);
    return approved;
  }

  private now(): string {
    return this.deps.clock().toISOString();
  }
}
