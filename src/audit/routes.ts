import { WorkspacePath } from '../api/common-schemas.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import { AdminAuditQuery, AuditPageSchema, AuditQuery } from './schemas.js';
import type { AuditService } from './service.js';

const filtersNote =
  'Newest first. Filters: actor (a user or agent id, or operator/analyst), action (exact, or a prefix such as playbook.*), ' +
  'target (an id among the event’s targets), from (inclusive) and to (exclusive) as ISO timestamps. Pages follow nextCursor. ' +
  'Events never hold key material or other secrets.';

/** The audit log: a workspace's owners read theirs, the operator reads everything. */
export function auditRoutes(services: { audit: AuditService }): AnyOperation[] {
  return [
    defineOperation({
      tag: 'Audit', method: 'get', path: '/api/v1/workspaces/:workspaceId/audit-events', operationId: 'listAuditEvents',
      summary: 'The workspace’s audit log: who changed what, and when',
      description: `Every change made in the workspace, one event each, written in the change’s own transaction. ${filtersNote}`,
      access: { kind: 'workspace', minRole: 'owner' }, params: WorkspacePath, query: AuditQuery,
      responses: { 200: { description: 'One page of events', schema: AuditPageSchema } },
      run: ({ caller, query }) => services.audit.list(caller, query),
    }),
    defineOperation({
      tag: 'Audit', method: 'get', path: '/api/v1/admin/audit-events', operationId: 'adminListAuditEvents',
      summary: 'The whole audit log (operator)',
      description: `Every workspace’s events, the operator’s changes to users and keys, and the analysts’ queries (caller, query hash, rows, time). workspaceId narrows to one workspace. ${filtersNote}`,
      access: { kind: 'operator' }, query: AdminAuditQuery,
      responses: { 200: { description: 'One page of events', schema: AuditPageSchema } },
      run: ({ query }) => services.audit.listAll(query),
    }),
  ];
}
