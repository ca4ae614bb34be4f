import { WorkspacePath } from '../api/common-schemas.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import { entityWithin } from '../tokens/answer-budget.js';
import type { FeedbackService } from './service.js';
import { CreateBody, FeedbackPageSchema, FeedbackPath, FeedbackSchema, ListQuery, TriageBody } from './schemas.js';

const base = { tag: 'Feedback' } as const;
const members = { kind: 'workspace', minRole: 'viewer' } as const;
const editors = { kind: 'workspace', minRole: 'editor' } as const;

export function feedbackRoutes(services: { feedback: FeedbackService }): AnyOperation[] {
  return [
    defineOperation({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/context/feedback', operationId: 'createFeedback', summary: 'Send feedback on a playbook, a playbook version or a context node',
      description: 'Any member, agent keys included. All four fields are required; the target must exist in this workspace (archived ones included), else 404. New feedback is open.',
      access: members, params: WorkspacePath, body: CreateBody,
      responses: { 201: { description: 'The feedback', schema: FeedbackSchema } },
      run: ({ caller, body }) => services.feedback.create(caller, body),
      tool: {
        name: 'give_feedback',
        title: 'Give feedback',
        description: 'Tell the workspace’s editors that a playbook, a version or a context node is incorrect, outdated, missing context, helpful or low-signal.',
        input: CreateBody,
        output: FeedbackSchema,
        run: async (body, call) => entityWithin(await services.feedback.create(call.caller, body), call.defaultMaxTokens),
      },
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/context/feedback', operationId: 'listFeedback', summary: 'Feedback to triage',
      description: 'Editors and owners (agent keys with that role included). Newest first, ties broken by id. Filters combine (and).',
      access: editors, params: WorkspacePath, query: ListQuery,
      responses: { 200: { description: 'One page of feedback', schema: FeedbackPageSchema } },
      run: ({ caller, query }) => services.feedback.list(caller, query),
    }),
    defineOperation({
      ...base, method: 'patch', path: '/api/v1/workspaces/:workspaceId/context/feedback/:feedbackId', operationId: 'triageFeedback', summary: 'Resolve, dismiss or reopen feedback',
      description: 'Editors and owners. Sets status (any status may follow any other) and updatedAt; resolutionNote replaces the stored note when sent.',
      access: editors, params: FeedbackPath, body: TriageBody,
      responses: { 200: { description: 'The feedback', schema: FeedbackSchema } },
      run: ({ caller, params, body }) => services.feedback.triage(caller, params.feedbackId, body),
    }),
  ];
}
