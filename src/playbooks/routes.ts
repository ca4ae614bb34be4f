import { type AnyOperation, defineOperation } from '../api/operation.js';
import { Type } from '@sinclair/typebox';
import { Strict, WorkspacePath } from '../api/common-schemas.js';
import { MaxTokensInput, PageCursorInput, budgeted, pageWithin } from '../tokens/answer-budget.js';
import type { PlaybookService } from './service.js';
import {
  CreateBody, CreateVersionBody, ListQuery, PlaybookDetailSchema, PlaybookListSchema, PlaybookPath, RollbackBody, UpdateBody, VersionPath, VersionSchema,
} from './schemas.js';

const base = { tag: 'Playbooks' } as const;
const viewers = { kind: 'workspace', minRole: 'viewer' } as const;
const editors = { kind: 'workspace', minRole: 'editor' } as const;
const owners = { kind: 'workspace', minRole: 'owner' } as const;

/** list_playbooks: the list's filters, and a budget whose cursor continues a page it cut. */
const ListToolInput = Strict({ ...ListQuery.properties, cursor: Type.Optional(PageCursorInput), maxTokens: Type.Optional(MaxTokensInput) });

const parentNote =
  'A playbook with visibility parent_readonly is also readable here by members of its workspace’s parent workspace, ' +
  'under the parent’s path (workspaceId in the body names the workspace it belongs to); every write under the parent’s path is 404.';
const archivedNote = 'An archived playbook cannot be changed (409 conflict) until it is restored.';

export function playbookRoutes(services: { playbooks: PlaybookService }): AnyOperation[] {
  return [
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/playbooks', operationId: 'listPlaybooks', summary: 'List playbooks',
      cache: {},
      description:
        'Playbooks of this workspace only: archived playbooks never appear, nor do parent_readonly playbooks of child workspaces ' +
        '(read those by id). status keeps playbooks having at least one version in that status; owner and function_area are exact ' +
        'matches (an unknown value gives an empty list). Sorting by title ignores case; every sort breaks ties by id.',
      access: viewers, params: WorkspacePath, query: ListQuery,
      responses: { 200: { description: 'One page of playbooks', schema: PlaybookListSchema } },
      run: ({ caller, query }) => services.playbooks.list(caller, query),
      tool: {
        name: 'list_playbooks',
        title: 'List playbooks',
        description: 'The workspace’s playbooks (not archived), one page at a time; filter by version status, function area or owner.',
        input: ListToolInput,
        output: budgeted(PlaybookListSchema),
        run: ({ cursor, maxTokens, ...query }, call) =>
          pageWithin('playbooks', { page: query.page, cursor }, call.budget(maxTokens), (page) => services.playbooks.list(call.caller, { ...query, page })),
      },
    }),
    defineOperation({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/playbooks', operationId: 'createPlaybook', summary: 'Create a playbook with its initial draft version 1',
      description:
        'ownerId is the caller (the sponsor when the caller is an agent) and cannot be sent. Without slug one is generated from the ' +
        'title (lowercased, Latin accents folded to ASCII, letters and digits of other scripts kept, other characters → "-"; "playbook" when nothing is left); when taken, -2, -3, … is appended. ' +
        'An explicit slug that is taken is 409 slug_taken (archived playbooks keep their slugs).',
      access: editors, params: WorkspacePath, body: CreateBody,
      responses: { 201: { description: 'The new playbook, with its draft version 1', schema: PlaybookDetailSchema } },
      errors: [409],
      run: ({ caller, body }) => services.playbooks.create(caller, body),
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/playbooks/:playbookId', operationId: 'getPlaybook', summary: 'A playbook with its versions, tags and linked context nodes',
      // A parent_readonly playbook read under the parent's path belongs to the child, whose generation this request did not read.
      cache: { when: (playbook, caller) => playbook.workspaceId === caller.workspaceId },
      description: `An archived playbook is still readable by id (archivedAt set). ${parentNote}`,
      access: viewers, params: PlaybookPath,
      responses: { 200: { description: 'The playbook', schema: PlaybookDetailSchema } },
      run: ({ caller, params }) => services.playbooks.get(caller, params.playbookId),
    }),
    defineOperation({
      ...base, method: 'patch', path: '/api/v1/workspaces/:workspaceId/playbooks/:playbookId', operationId: 'updatePlaybook', summary: 'Change a playbook’s metadata (never creates a version)',
      description:
        'Only the fields sent change; summary, description and functionArea accept null to clear them. The slug does not follow a ' +
        'title change. ownerId must be a user who is a member of the workspace (else 400). A taken slug is 409 slug_taken. ' +
        `An empty body changes nothing. ${archivedNote}`,
      access: editors, params: PlaybookPath, body: UpdateBody,
      responses: { 200: { description: 'The updated playbook', schema: PlaybookDetailSchema } },
      errors: [409],
      run: ({ caller, params, body }) => services.playbooks.update(caller, params.playbookId, body),
    }),
    defineOperation({
      ...base, method: 'delete', path: '/api/v1/workspaces/:workspaceId/playbooks/:playbookId', operationId: 'archivePlaybook', summary: 'Archive a playbook (soft delete)',
      description: 'Sets archivedAt; the record, its versions and its slug are kept, and it leaves every list. Archiving an archived playbook changes nothing (204).',
      access: owners, params: PlaybookPath,
      responses: { 204: { description: 'Archived' } },
      run: async ({ caller, params }) => {
        await services.playbooks.archive(caller, params.playbookId);
      },
    }),
    defineOperation({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/playbooks/:playbookId/restore', operationId: 'restorePlaybook', idempotent: true, summary: 'Restore an archived playbook',
      description: 'Clears archivedAt. Restoring a playbook that is not archived changes nothing.',
      access: owners, params: PlaybookPath,
      responses: { 200: { description: 'The restored playbook', schema: PlaybookDetailSchema } },
      run: ({ caller, params }) => services.playbooks.restore(caller, params.playbookId),
    }),
    defineOperation({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/playbooks/:playbookId/versions', operationId: 'createPlaybookVersion', summary: 'Add a draft version',
      description:
        'Send exactly one of content and basedOnVersionId (400 otherwise). basedOnVersionId copies the content of that version of the ' +
        'same playbook, whatever its status (the way to roll back); a version of another playbook is 404. The new version is a draft ' +
        `numbered one above the highest; the approved version stays approved. ${archivedNote}`,
      access: editors, params: PlaybookPath, body: CreateVersionBody,
      responses: { 201: { description: 'The new draft version', schema: VersionSchema } },
      errors: [409],
      run: ({ caller, params, body }) => services.playbooks.createVersion(caller, params.playbookId, body),
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/playbooks/:playbookId/versions/:versionId', operationId: 'getPlaybookVersion', summary: 'One version of a playbook',
      description: parentNote,
      access: viewers, params: VersionPath,
      responses: { 200: { description: 'The version', schema: VersionSchema } },
      run: ({ caller, params }) => services.playbooks.getVersion(caller, params.playbookId, params.versionId),
    }),
    defineOperation({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/playbooks/:playbookId/versions/:versionId/rollback', operationId: 'rollbackPlaybookVersion',
      summary: 'Roll back: a new draft with the content of this older version',
      description:
        'Creates a new draft version, numbered one above the highest, whose content is a copy of this version’s (whatever its status), ' +
        'as POST …/versions with basedOnVersionId does; the body (optional) may give its changeNote. The approved version stays ' +
        'approved until the new draft is approved. A version of another playbook or workspace is 404. ' +
        `Audit action playbook.version.rolled_back. ${archivedNote}`,
      access: editors, params: VersionPath, body: RollbackBody,
      responses: { 201: { description: 'The new draft version', schema: VersionSchema } },
      errors: [409],
      run: ({ caller, params, body }) => services.playbooks.rollbackVersion(caller, params.playbookId, params.versionId, body),
    }),
    defineOperation({
      ...base, method: 'patch', path: '/api/v1/workspaces/:workspaceId/playbooks/:playbookId/versions/:versionId/approve', operationId: 'approvePlaybookVersion', idempotent: false, summary: 'Approve a draft version',
      description:
        'The version becomes approved (the active version) and the previously approved version, if any, becomes deprecated in the ' +
        `same transaction. Only a draft can be approved: anything else is 409 version_not_draft. No body. ${archivedNote}`,
      access: editors, params: VersionPath,
      responses: { 200: { description: 'The approved version', schema: VersionSchema } },
      errors: [409],
      run: ({ caller, params }) => services.playbooks.approve(caller, params.playbookId, params.versionId),
    }),
  ];
}
