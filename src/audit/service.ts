import type { Caller } from '../auth/caller.js';
import { AppError } from '../errors.js';
import type { QuotaCrossing } from '../gate/quota.js';
import type { ServiceDeps } from '../service-deps.js';
import { actorOf, recordAuditAlone } from './recorder.js';
import { type AuditFilter, AuditRepository } from './repository.js';
import type { AdminAuditQuery, AuditEvent, AuditPage, AuditQuery } from './schemas.js';

const badCursor = () =>
  new AppError('invalid_request', 'The cursor is not one this API gave out', { errors: [{ path: '/cursor', message: 'is not a valid cursor', in: 'query' }] });

/** The cursor names the last event of a page: its time and id (opaque to clients). */
function encodeCursor(event: AuditEvent): string {
  return Buffer.from(JSON.stringify([event.at, event.id])).toString('base64url');
}

function decodeCursor(cursor: string): { at: string; id: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string')) return { at: value[0], id: value[1] };
  } catch {
    // falls through
  }
  throw badCursor();
}

/** The audit log's two readers: a workspace's owners and the operator. */
export class AuditService {
  private readonly repo: AuditRepository;

  constructor(private readonly deps: Pick<ServiceDeps, 'graph' | 'clock' | 'config'>) {
    this.repo = new AuditRepository(deps.graph);
  }

  /** Retention (AUDIT_RETENTION_DAYS): deletes the events older than it, in batches; how many it deleted. */
  async purgeExpired(): Promise<number> {
    const days = this.deps.config.auditRetentionDays;
    if (days === undefined) return 0;
    const before = new Date(this.deps.clock().getTime() - days * 86_400_000).toISOString();
    let total = 0;
    for (;;) {
      const deleted = await this.repo.purge(before, 5_000);
      total += deleted;
      if (deleted < 5_000) return total;
    }
  }

  /**
   * `quota.warning` / `quota.exhausted`: the retrieval that crossed the threshold is the actor. No request changed
   * anything, so the event (and its webhook outbox records) is written in a transaction of its own; its request
   * id names the crossing, the same in every process.
   */
  async recordQuotaCrossing(crossing: QuotaCrossing): Promise<void> {
    const { workspaceId, period, used, limit, threshold } = crossing;
    await recordAuditAlone(
      this.deps.graph,
      { actor: actorOf(crossing), requestId: `quota:${workspaceId}:${period}:${threshold}`, at: crossing.at.toISOString() },
      { action: `quota.${threshold}`, workspaceId, targetIds: [workspaceId], after: { period, used, limit } },
    );
  }

  list(caller: Caller, query: AuditQuery): Promise<AuditPage> {
    return this.page(query, (filter) => this.repo.list(caller.workspaceId, filter));
  }

  listAll(query: AdminAuditQuery): Promise<AuditPage> {
    return this.page(query, (filter) => this.repo.listAll(query.workspaceId ?? null, filter));
  }

  private async page(query: AuditQuery, read: (filter: AuditFilter) => Promise<AuditEvent[]>): Promise<AuditPage> {
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const prefix = query.action?.endsWith('.*') ? query.action.slice(0, -1) : null;
    const iso = (v: string | undefined) => (v === undefined ? null : new Date(v).toISOString());
    const events = await read({
      actor: query.actor ?? null,
      action: prefix === null ? (query.action ?? null) : null,
      actionPrefix: prefix,
      targetId: query.target ?? null,
      from: iso(query.from),
      to: iso(query.to),
      cursorAt: cursor?.at ?? null,
      cursorId: cursor?.id ?? null,
      limit: query.limit + 1,
    });
    const more = events.length > query.limit;
    const page = more ? events.slice(0, query.limit) : events;
    return { events: page, nextCursor: more ? encodeCursor(page[page.length - 1]) : null };
  }
}
