import { WorkspacePath } from '../api/common-schemas.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import type { WorkspaceService } from '../workspaces/service.js';
import { ExportDocument, ImportSummarySchema, maxImportBytes, maxImportItems } from './schemas.js';
import type { TransferService } from './service.js';

const base = { tag: 'Export and import' } as const;
const owners = { kind: 'workspace', minRole: 'owner' } as const;

export function transferRoutes(services: { transfer: TransferService; workspaces: WorkspaceService }): AnyOperation[] {
  return [
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/export', operationId: 'exportWorkspace', summary: 'The whole workspace as one document',
      description:
        'Format playbooks-workspace-export, version 1: every playbook with every version, every context node (archived ones too), every link with its origin, ' +
        'every annotation (agent_local ones too) and every feedback item, each list oldest first. POST …/import rebuilds it in an empty workspace of any deployment. ' +
        'Members, agents and keys are not part of it; authors and owners are kept as the ids they were. ' +
        'The document is sent as it is read from one consistent snapshot, so memory stays bounded; a download cut short is not valid JSON.',
      access: owners, params: WorkspacePath,
      responses: { 200: { description: 'The export', schema: ExportDocument, headers: { 'Content-Disposition': 'attachment; filename="<workspaceId>.playbooks-export.json"' } } },
      handler: async ({ ctx, caller }) => {
        const workspace = await services.workspaces.get(caller);
        ctx.set('Content-Disposition', `attachment; filename="${caller.workspaceId}.playbooks-export.json"`);
        ctx.body = await services.transfer.exportWorkspace(caller, workspace.name);
        ctx.type = 'application/json';
      },
    }),
    defineOperation({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/import', operationId: 'importWorkspace', summary: 'Rebuild an export in this empty workspace',
      description:
        `The body is a document from GET …/export (at most ${maxImportBytes / (1024 * 1024)} MiB and ${maxImportItems.toLocaleString('en')} items: playbooks, versions, nodes, links, annotations and feedback together; 413 otherwise). ` +
        'The workspace must have no playbooks and no context nodes, and no other import may be under way into it (409 conflict otherwise). ' +
        'The document is checked whole, then written in bounded batches, each a transaction of its own, with the export’s timestamps, statuses and link origins; ' +
        'when a batch fails, what the import wrote is deleted again before the error is answered, so the workspace is left empty. ' +
        'An id of the export is kept when it has the shape this service gives ids of its kind and nothing on this deployment uses it (so agents that call playbooks by id go on working after a move); ' +
        'any other id is replaced by a new one, references following (idsReplaced counts them; idsKept is true when none was). ' +
        'A document whose references do not hold (a link, annotation or feedback naming an id the export does not have, a slug or id twice) is 400 and nothing is written.',
      access: owners, params: WorkspacePath, body: ExportDocument, maxBodyBytes: maxImportBytes,
      responses: { 201: { description: 'What was created', schema: ImportSummarySchema } },
      errors: [409, 413],
      run: ({ caller, body }) => services.transfer.importWorkspace(caller, body),
    }),
  ];
}
