import { type TLiteral, type TUnion, Type } from '@sinclair/typebox';
import { TargetId, TargetTypeSchema } from '../annotations/routes.js';
import { Id, Nullable, PageQuery, Pagination, Strict, Summary, Timestamp } from '../http/common-schemas.js';
import { type AnyRoute, defineRoute } from '../http/route.js';
import type { FeedbackService } from './service.js';
import { feedbackStatuses, feedbackTypes } from './repository.js';

const literals = <T extends readonly string[]>(values: T, options: object = {}) =>
  Type.Union(values.map((v) => Type.Literal(v)), options) as unknown as TUnion<TLiteral<T[number]>[]>;

const FeedbackTypeSchema = literals(feedbackTypes, {
  description:
    'incorrect (factual errors), outdated (stale or deprecated references), missing-context (important context absent), ' +
    'helpful (positive signal), low-signal (adds no value)',
});
const StatusSchema = literals(feedbackStatuses, { description: 'open (new), resolved (acted upon) or dismissed (no action)' });
const ResolutionNote = Type.String({ minLength: 1, maxLength: 2000 });

const FeedbackSchema = Type.Object({
  id: Type.String({ description: 'fb_…' }),
  targetType: TargetTypeSchema,
  targetId: Type.String(),
  feedbackType: FeedbackTypeSchema,
  summary: Type.String(),
  status: StatusSchema,
  resolutionNote: Nullable(Type.String()),
  authorId: Type.String({ description: 'The principal that sent it: a user (usr_…) or an agent (ag_…)' }),
  authorKind: literals(['user', 'agent'] as const, { description: 'user (a user key) or agent (an agent key)' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const CreateBody = Strict(
  {
    targetType: TargetTypeSchema,
    targetId: TargetId,
    feedbackType: FeedbackTypeSchema,
    summary: Type.String({ ...Summary, minLength: 1, description: 'The feedback, 1 to 2,000 characters, not only whitespace' }),
  },
  { required: ['targetType', 'targetId', 'feedbackType', 'summary'] },
);
const ListQuery = Strict({
  status: Type.Optional(StatusSchema),
  targetType: Type.Optional(TargetTypeSchema),
  targetId: Type.Optional(Id('Only feedback about this target (an unknown id gives an empty list)')),
  feedbackType: Type.Optional(FeedbackTypeSchema),
  ...PageQuery,
});
const TriageBody = Strict(
  {
    status: StatusSchema,
    resolutionNote: Type.Optional(Nullable(Type.String({ ...ResolutionNote, description: 'How it was handled, 1 to 2,000 characters; null clears it; omitted keeps the stored note' }))),
  },
  { required: ['status'] },
);

const WorkspaceOnly = Strict({ workspaceId: Id('Workspace id') });
const FeedbackPath = Strict({ workspaceId: Id('Workspace id'), feedbackId: Id('Feedback id') });

const base = { tag: 'Feedback' } as const;
const members = { kind: 'workspace', minRole: 'viewer' } as const;
const editors = { kind: 'workspace', minRole: 'editor' } as const;

export function feedbackRoutes(s: { feedback: FeedbackService }): AnyRoute[] {
  return [
    defineRoute({
      ...base, method: 'post', path: '/api/v1/workspaces/:workspaceId/context/feedback', operationId: 'createFeedback', summary: 'Send feedback on a playbook, a playbook version or a context node',
      description: 'Any member, agent keys included. All four fields are required; the target must exist in this workspace (archived ones included), else 404. New feedback is open.',
      access: members, params: WorkspaceOnly, body: CreateBody,
      responses: { 201: { description: 'The feedback', schema: FeedbackSchema } },
      handler: async ({ ctx, caller, body }) => {
        ctx.status = 201;
        ctx.body = await s.feedback.create(caller, body);
      },
    }),
    defineRoute({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/context/feedback', operationId: 'listFeedback', summary: 'Feedback to triage',
      description: 'Editors and owners (agent keys with that role included). Newest first, ties broken by id. Filters combine (and).',
      access: editors, params: WorkspaceOnly, query: ListQuery,
      responses: { 200: { description: 'One page of feedback', schema: Type.Object({ feedback: Type.Array(FeedbackSchema), pagination: Pagination }) } },
      handler: async ({ ctx, caller, query }) => {
        ctx.body = await s.feedback.list(caller, query);
      },
    }),
    defineRoute({
      ...base, method: 'patch', path: '/api/v1/workspaces/:workspaceId/context/feedback/:feedbackId', operationId: 'triageFeedback', summary: 'Resolve, dismiss or reopen feedback',
      description: 'Editors and owners. Sets status (any status may follow any other) and updatedAt; resolutionNote replaces the stored note when sent.',
      access: editors, params: FeedbackPath, body: TriageBody,
      responses: { 200: { description: 'The feedback', schema: FeedbackSchema } },
      handler: async ({ ctx, caller, params, body }) => {
        ctx.body = await s.feedback.triage(caller, params.feedbackId, body);
      },
    }),
  ];
}
