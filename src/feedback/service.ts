import { requireText, targetNames } from '../annotations/service.js';
import { stampOf } from '../audit/recorder.js';
import type { Caller } from '../auth/caller.js';
import { notFound } from '../errors.js';
import { pageOf, rowsOf } from '../api/paging.js';
import { newId } from '../infra/ids.js';
import type { ServiceDeps } from '../service-deps.js';
import { FeedbackRepository } from './repository.js';
import type { CreateFeedbackInput, Feedback, FeedbackPage, ListFeedbackQuery, TriageInput } from './schemas.js';

/** Feedback on playbooks, versions and context nodes: any member (agents included) sends it, editors triage it. */
export class FeedbackService {
  private readonly repo: FeedbackRepository;

  constructor(private readonly deps: ServiceDeps) {
    this.repo = new FeedbackRepository(deps.graph);
  }

  async create(caller: Caller, input: CreateFeedbackInput): Promise<Feedback> {
    requireText(input.summary, '/summary');
    const now = this.now();
    const feedback = await this.repo.create(caller.workspaceId, {
      id: newId('fb'),
      targetType: input.targetType,
      targetId: input.targetId,
      feedbackType: input.feedbackType,
      summary: input.summary,
      status: 'open',
      authorId: caller.principal.id,
      authorKind: caller.principal.kind,
      createdAt: now,
      updatedAt: now,
    }, stampOf(caller, now));
    if (!feedback) throw notFound(targetNames[input.targetType]);
    await this.rankingChanged(caller.workspaceId, feedback);
    return feedback;
  }

  async list(caller: Caller, query: ListFeedbackQuery): Promise<FeedbackPage> {
    const { total, feedback } = await this.repo.list(caller.workspaceId, {
      status: query.status ?? null,
      targetType: query.targetType ?? null,
      targetId: query.targetId ?? null,
      feedbackType: query.feedbackType ?? null,
      ...rowsOf(query),
    });
    return pageOf('feedback', feedback, query, total);
  }

  /** Sets the status; resolutionNote replaces the stored note when sent (null clears it), else it is kept. */
  async triage(caller: Caller, feedbackId: string, input: TriageInput): Promise<Feedback> {
    const note = input.resolutionNote === undefined ? undefined : { value: input.resolutionNote };
    const feedback = await this.repo.triage(caller.workspaceId, feedbackId, input.status, note, this.now(), stampOf(caller, this.now()));
    if (!feedback) throw notFound('Feedback');
    await this.rankingChanged(caller.workspaceId, feedback);
    return feedback;
  }

  /** Open outdated/incorrect feedback about a node demotes it in bundles: a change to it is a graph change. */
  private async rankingChanged(workspaceId: string, feedback: Feedback): Promise<void> {
    if (feedback.targetType === 'context_node' && ['outdated', 'incorrect'].includes(feedback.feedbackType)) {
      await this.deps.gate.graphChanged(workspaceId);
    }
  }

  private now(): string {
    return this.deps.clock().toISOString();
  }
}
