import { type AuditStamp, recordAudit } from '../audit/recorder.js';
import type { GraphExecutor, GraphTx, Row } from '../infra/neo4j.js';
import { linkTypeParams } from '../nodes/link-types.js';
import type { ListPlaybooksQuery, PlaybookDetail, PlaybookSummary, Version, VersionStatus, Visibility } from './schemas.js';

export interface ListFilter {
  status: VersionStatus | null;
  functionArea: string | null;
  owner: string | null;
  /** Lower-cased text the title, slug or summary must contain, or null. */
  text: string | null;
  sort: NonNullable<ListPlaybooksQuery['sort']>;
  order: NonNullable<ListPlaybooksQuery['order']>;
  skip: number;
  limit: number;
}

export interface NewPlaybook {
  id: string;
  title: string;
  slug: string;
  summary: string | null;
  description: string | null;
  functionArea: string | null;
  visibility: Visibility;
  ownerId: string;
  tags: string[];
  now: string;
  versionId: string;
  content: Record<string, unknown>;
  changeNote: string | null;
  createdBy: string;
}

/**
 * A version as stored (content is JSON text, absent properties are null) → as the API shows it. `content`: the
 * content itself when the caller holds it already (a version just written from it is not read back).
 */
function toVersion(v: Row, content?: Version['content']): Version {
  return {
    id: v.id,
    versionNumber: v.versionNumber,
    status: v.status,
    content: content !== undefined ? content : JSON.parse(v.content),
    changeNote: v.changeNote ?? null,
    createdAt: v.createdAt,
    createdBy: v.createdBy,
    approvedAt: v.approvedAt ?? null,
  };
}

function toSummary(p: Row): PlaybookSummary {
  return {
    id: p.id,
    title: p.title,
    slug: p.slug,
    summary: p.summary ?? null,
    functionArea: p.functionArea ?? null,
    visibility: p.visibility,
    ownerId: p.ownerId,
    tags: p.tags ?? [],
    latestVersion: p.latestVersion,
    activeVersion: p.activeVersion ?? null,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

function toDetail(row: Row): PlaybookDetail {
  const p = row.playbook;
  const versions: Version[] = row.versions.map((v: Row) => toVersion(v));
  const latest = versions[0];
  const active = versions.find((v) => v.status === 'approved');
  return {
    ...toSummary({
      ...p,
      latestVersion: { id: latest.id, versionNumber: latest.versionNumber, status: latest.status },
      activeVersion: active ? { id: active.id, versionNumber: active.versionNumber } : null,
    }),
    workspaceId: p.workspaceId,
    description: p.description ?? null,
    archivedAt: p.archivedAt ?? null,
    versions,
    contextNodes: row.contextNodes.map((n: Row) => ({ ...n, slug: n.slug ?? null, nodeType: n.nodeType ?? null, status: n.status ?? null })),
  };
}

/** The only place that runs the playbook statements (cypher/queries/playbooks). */
export class PlaybookRepository {
  constructor(private readonly graph: GraphExecutor) {}

  async idBySlug(workspaceId: string, slug: string): Promise<string | undefined> {
    const [row] = await this.graph.read<{ id: string }>('playbooks/id-by-slug', { workspaceId, slug });
    return row?.id;
  }

  async list(workspaceId: string, filter: ListFilter): Promise<{ total: number; playbooks: PlaybookSummary[] }> {
    const [row] = await this.graph.read('playbooks/list', { workspaceId, ...filter });
    return { total: row.total, playbooks: row.playbooks.map(toSummary) };
  }

  /** The playbook as seen from `workspaceId` (its own, or a parent_readonly one of a child workspace). */
  async get(workspaceId: string, playbookId: string, tx?: GraphTx): Promise<PlaybookDetail | undefined> {
    const params = { workspaceId, playbookId, ...linkTypeParams };
    const [row] = tx ? await tx.run('playbooks/get', params) : await this.graph.read('playbooks/get', params);
    return row ? toDetail(row) : undefined;
  }

  async getVersion(workspaceId: string, playbookId: string, versionId: string): Promise<Version | undefined> {
    const [row] = await this.graph.read('playbooks/get-version', { workspaceId, playbookId, versionId });
    return row ? toVersion(row.version) : undefined;
  }

  /**
   * Creates the playbook and its draft version 1 in one transaction, under the slug `chooseSlug` settles through
   * `claim` (claim-slug.cypher: locks a slug, returns the slugs taken that could collide with it). Returns
   * undefined when the workspace does not exist.
   */
  async create(
    workspaceId: string,
    chooseSlug: (claim: (slug: string) => Promise<Set<string>>) => Promise<string>,
    input: Omit<NewPlaybook, 'slug'>,
    stamp: AuditStamp,
  ): Promise<PlaybookDetail | undefined> {
    return this.graph.writeTx(async (tx) => {
      let workspaceFound = true;
      const claim = async (slug: string) => {
        const [row] = await tx.run('playbooks/claim-slug', { workspaceId, slug });
        if (!row) workspaceFound = false;
        return new Set<string>(row?.taken ?? []);
      };
      const slug = await chooseSlug(claim);
      if (!workspaceFound) return undefined;
      await tx.run('playbooks/create', { workspaceId, ...input, slug, content: JSON.stringify(input.content) });
      const { content, changeNote, versionId, now, ...playbook } = input;
      await recordAudit(tx, stamp, {
        action: 'playbook.created', workspaceId, targetIds: [input.id, versionId],
        after: { ...playbook, slug, version: { id: versionId, versionNumber: 1, status: 'draft', changeNote } },
      });
      return this.get(workspaceId, input.id, tx);
    });
  }

  /**
   * Runs `work` in one write transaction after taking the playbook's write lock (lock.cypher).
   * `work` gets whether the playbook is archived; returns undefined when the playbook is not in the workspace.
   */
  async withLockedPlaybook<R>(
    workspaceId: string,
    playbookId: string,
    now: string,
    work: (tx: GraphTx, state: { archived: boolean }) => Promise<R>,
  ): Promise<R | undefined> {
    return this.graph.writeTx(async (tx) => {
      const [locked] = await tx.run('playbooks/lock', { workspaceId, playbookId, now });
      if (!locked) return undefined;
      return work(tx, { archived: locked.archivedAt != null });
    });
  }

  async update(tx: GraphTx, workspaceId: string, playbookId: string, changes: Record<string, unknown>): Promise<{ ownerIsMember: boolean }> {
    const [row] = await tx.run('playbooks/update', { workspaceId, playbookId, changes, ownerId: changes.ownerId ?? null });
    return { ownerIsMember: row.ownerIsMember };
  }

  async createVersion(
    tx: GraphTx,
    input: { workspaceId: string; playbookId: string; versionId: string; content: Record<string, unknown> | null; basedOnVersionId: string | null; changeNote: string | null; createdBy: string; now: string },
  ): Promise<Version | undefined> {
    const [row] = await tx.run('playbooks/create-version', { ...input, content: input.content === null ? null : JSON.stringify(input.content) });
    if (!row.sourceFound) return undefined;
    // Only a copied content comes back (a version may hold 1 MiB): the one just sent is the caller's own.
    return row.version.copiedContent == null ? toVersion(row.version, input.content ?? undefined) : toVersion({ ...row.version, content: row.version.copiedContent });
  }

  /** undefined: no such version of this playbook; wasDraft false: nothing changed. */
  async approveVersion(tx: GraphTx, workspaceId: string, playbookId: string, versionId: string, now: string) {
    const [row] = await tx.run('playbooks/approve-version', { workspaceId, playbookId, versionId, now });
    return row ? { wasDraft: row.wasDraft as boolean, version: toVersion(row.version) } : undefined;
  }

  async archive(workspaceId: string, playbookId: string, now: string, stamp: AuditStamp): Promise<boolean> {
    return this.graph.writeTx(async (tx) => {
      const [row] = await tx.run('playbooks/archive', { workspaceId, playbookId, now });
      if (!row) return false;
      // Archiving an archived playbook changes nothing, so it records nothing either.
      if (row.archivedBefore == null) {
        await recordAudit(tx, stamp, {
          action: 'playbook.archived', workspaceId, targetIds: [playbookId], before: { archivedAt: null }, after: { archivedAt: row.archivedAt ?? null },
        });
      }
      return true;
    });
  }

  async restore(workspaceId: string, playbookId: string, now: string, stamp: AuditStamp): Promise<PlaybookDetail | undefined> {
    return this.graph.writeTx(async (tx) => {
      const [row] = await tx.run('playbooks/restore', { workspaceId, playbookId, now });
      if (!row) return undefined;
      if (row.archivedBefore != null) {
        await recordAudit(tx, stamp, {
          action: 'playbook.restored', workspaceId, targetIds: [playbookId], before: { archivedAt: row.archivedBefore }, after: { archivedAt: null },
        });
      }
      return this.get(workspaceId, playbookId, tx);
    });
  }
}
