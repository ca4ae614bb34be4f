import type { TargetType } from '../annotations/schemas.js';
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
  async create(workspaceId: string, input: Omit<Feedback, 'resolutionNote'>): Promise<Feedback | undefined> {
    const { targetType, targetId, ...feedback } = input;
    const [row] = await this.graph.write('feedback/create', { workspaceId, targetType, targetId, feedback });
    return row?.feedback;
  }

  /** One page, newest first. */
  async list(workspaceId: string, filter: FeedbackFilter): Promise<{ total: number; feedback: Feedback[] }> {
    const [row] = await this.graph.read('feedback/list', { workspaceId, ...filter });
    return { total: row.total, feedback: row.feedback };
  }

  /** Sets the status (and the note when `note` is given; null clears it); undefined when there is no such feedback. */
  async triage(workspaceId: string, feedbackId: string, status: FeedbackStatus, note: { value: string | null } | undefined, now: string): Promise<Feedback | undefined> {
    const [row] = await this.graph.write('feedback/triage', {
      workspaceId, feedbackId, status, setNote: note !== undefined, resolutionNote: note?.value ?? null, now,
    });
    return row?.feedback;
  }
}
