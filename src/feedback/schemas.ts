import { type Static, Type } from '@sinclair/typebox';
import { TargetId, TargetTypeSchema } from '../annotations/schemas.js';
import { Id, Nullable, PageQuery, Pagination, Strict, Summary, Timestamp, literals, named } from '../api/common-schemas.js';

/** Request and response schemas of the feedback endpoints; the types below are derived from them. */

export const feedbackTypes = ['incorrect', 'outdated', 'missing-context', 'helpful', 'low-signal'] as const;
export const feedbackStatuses = ['open', 'resolved', 'dismissed'] as const;

export const FeedbackTypeSchema = named('FeedbackType', literals(feedbackTypes, {
  description:
    'incorrect (factual errors), outdated (stale or deprecated references), missing-context (important context absent), ' +
    'helpful (positive signal), low-signal (adds no value)',
}));
export const FeedbackStatusSchema = named('FeedbackStatus', literals(feedbackStatuses, { description: 'open (new), resolved (acted upon) or dismissed (no action)' }));
export const ResolutionNote = Type.String({ minLength: 1, maxLength: 2000 });

export const FeedbackTargetSchema = named('FeedbackTarget', Type.Object({
  title: Type.String({ description: 'The title of the playbook or node; of a version, its playbook’s title' }),
  playbookId: Nullable(Type.String({ description: 'The playbook, for feedback about a playbook or one of its versions; null for a node' })),
  versionNumber: Nullable(Type.Integer({ minimum: 1, description: 'The version’s number, for feedback about a version; null otherwise' })),
}, { description: 'What the feedback is about, as it is now, so that a reader can name it without another call' }));

export const FeedbackSchema = named('Feedback', Type.Object({
  id: Type.String({ description: 'fb_…' }),
  targetType: TargetTypeSchema,
  targetId: Type.String(),
  target: FeedbackTargetSchema,
  feedbackType: FeedbackTypeSchema,
  summary: Type.String(),
  status: FeedbackStatusSchema,
  resolutionNote: Nullable(Type.String()),
  authorId: Type.String({ description: 'The principal that sent it: a user (usr_…) or an agent (ag_…)' }),
  authorKind: literals(['user', 'agent'] as const, { description: 'user (a user key) or agent (an agent key)' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}));

export const FeedbackPageSchema = Type.Object({ feedback: Type.Array(FeedbackSchema), pagination: Pagination });

export const CreateBody = Strict(
  {
    targetType: TargetTypeSchema,
    targetId: TargetId,
    feedbackType: FeedbackTypeSchema,
    summary: Type.String({ ...Summary, minLength: 1, description: 'The feedback, 1 to 2,000 characters, not only whitespace' }),
  },
  { required: ['targetType', 'targetId', 'feedbackType', 'summary'] },
);
export const ListQuery = Strict({
  status: Type.Optional(FeedbackStatusSchema),
  targetType: Type.Optional(TargetTypeSchema),
  targetId: Type.Optional(Id('Only feedback about this target (an unknown id gives an empty list)')),
  feedbackType: Type.Optional(FeedbackTypeSchema),
  ...PageQuery,
});
export const TriageBody = Strict(
  {
    status: FeedbackStatusSchema,
    resolutionNote: Type.Optional(Nullable(Type.String({ ...ResolutionNote, description: 'How it was handled, 1 to 2,000 characters; null clears it; omitted keeps the stored note' }))),
  },
  { required: ['status'] },
);

export const FeedbackPath = Strict({ workspaceId: Id('Workspace id'), feedbackId: Id('Feedback id') });

export type FeedbackType = Static<typeof FeedbackTypeSchema>;
export type FeedbackStatus = Static<typeof FeedbackStatusSchema>;
/** A feedback item as stored (plus workspaceId) and as the API shows it. */
export type Feedback = Static<typeof FeedbackSchema>;
export type FeedbackPage = Static<typeof FeedbackPageSchema>;
export type CreateFeedbackInput = Static<typeof CreateBody>;
export type ListFeedbackQuery = Static<typeof ListQuery>;
export type TriageInput = Static<typeof TriageBody>;
