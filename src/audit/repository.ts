import type { GraphExecutor, Row } from '../infra/neo4j.js';
import { storedActor } from './recorder.js';
import type { AuditEvent } from './schemas.js';

export interface AuditFilter {
  actor: string | null;
  action: string | null;
  actionPrefix: string | null;
  targetId: string | null;
  from: string | null;
  to: string | null;
  cursorAt: string | null;
  cursorId: string | null;
  limit: number;
}

const parse = (text: string | null | undefined) => (text == null ? null : (JSON.parse(text) as Record<string, unknown>));

function toEvent(e: Row): AuditEvent {
  return {
    id: e.id,
    workspaceId: e.workspaceId ?? null,
    action: e.action,
    ...(storedActor(e) as Pick<AuditEvent, 'actor' | 'client'>),
    targetIds: e.targetIds ?? [],
    requestId: e.requestId,
    at: e.at,
    before: parse(e.before),
    after: parse(e.after),
  };
}

/** Reads the audit log (writing it is src/audit/recorder.ts, inside each change's transaction). */
export class AuditRepository {
  constructor(private readonly graph: GraphExecutor) {}

  async list(workspaceId: string, filter: AuditFilter): Promise<AuditEvent[]> {
    const rows = await this.graph.read('audit/list', { workspaceId, ...filter });
    return rows.map((r) => toEvent(r.event));
  }

  /** Deletes up to `batch` events older than `before`; how many it deleted. */
  async purge(before: string, batch: number): Promise<number> {
    const [row] = await this.graph.write('audit/purge', { before, batch });
    return row?.deleted ?? 0;
  }

  /** Every workspace's events (or one's, when workspaceId is given) and those outside any workspace. */
  async listAll(workspaceId: string | null, filter: AuditFilter): Promise<AuditEvent[]> {
    const rows = await this.graph.read('audit/list-all', { workspaceId, ...filter });
    return rows.map((r) => toEvent(r.event));
  }
}
