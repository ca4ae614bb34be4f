import type { TargetType } from '../annotations/schemas.js';
import { type AuditStamp, writeAudited } from '../audit/recorder.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import type { Feedback, FeedbackStatus, FeedbackType } from './schemas.js';

export interface FeedbackFilter {
  status: FeedbackStatus | null;
  targetType: TargetType | null;
  targetId: string | null;
  feedbackType: FeedbackType | null;
  skip: number;
  limit: number;
}

export class FeedbackRepository {
  constructor(private readonly graph: GraphExecutor) {}

  /** The recorded feedback, or undefined when the target does not exist in the workspace. */
  async create(workspaceId: string, input: Omit<Feedback, 'resolutionNote' | 'target'>, stamp: AuditStamp): Promise<Feedback | undefined> {
    const { targetType, targetId, ...feedback } = input;
    const row = await writeAudited(this.graph, 'feedback/create', { workspaceId, targetType, targetId, feedback }, stamp, (r) =>
      r?.feedback ? { action: 'feedback.created', workspaceId, targetIds: [input.id, targetId], after: { targetType, targetId, feedbackType: input.feedbackType, summary: input.summary, status: input.status } } : undefined);
    return row?.feedback;
  }

  /** One page, newest first. */
  async list(workspaceId: string, filter: FeedbackFilter): Promise<{ total: number; feedback: Feedback[] }> {
    const [row] = await this.graph.read('feedback/list', { workspaceId, ...filter });
    return { total: row.total, feedback: row.feedback };
  }

  /** Sets the status (and the note when `note` is given; null clears it); undefined when there is no such feedback. */
  async triage(workspaceId: string, feedbackId: string, status: FeedbackStatus, note: { value: string | null } | undefined, now: string, stamp: AuditStamp): Promise<Feedback | undefined> {
    const params = { workspaceId, feedbackId, status, setNote: note !== undefined, resolutionNote: note?.value ?? null, now };
    const row = await writeAudited(this.graph, 'feedback/triage', params, stamp, (r) =>
      r && {
        // feedback.resolved, feedback.dismissed, or feedback.reopened (back to open)
        action: `feedback.${status === 'open' ? 'reopened' : status}`, workspaceId, targetIds: [feedbackId, r.feedback.targetId],
        before: { status: r.previousStatus, resolutionNote: r.previousNote ?? null }, after: { status, resolutionNote: r.feedback.resolutionNote ?? null },
      });
    return row?.feedback;
  }
}
