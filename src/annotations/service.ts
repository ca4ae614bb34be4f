import { stampOf } from '../audit/recorder.js';
import { type Caller, roleAtLeast } from '../auth/caller.js';
import { AppError, invalidField, notFound } from '../errors.js';
import { pageOf, rowsOf } from '../api/paging.js';
import { newId } from '../infra/ids.js';
import type { ServiceDeps } from '../service-deps.js';
import { AnnotationRepository } from './repository.js';
import type { Annotation, AnnotationPage, AnnotationSource, CreateAnnotationInput, ListAnnotationsQuery, TargetType } from './schemas.js';

/** How a missing target is named in its 404. */
export const targetNames: Readonly<Record<TargetType, string>> = {
  playbook: 'Playbook',
  playbook_version: 'Playbook version',
  context_node: 'Context node',
};

/** A required text field that holds only whitespace is as good as empty. */
export function requireText(value: string, path: string): void {
  if (value.trim() === '') throw invalidField(path, 'must not be blank');
}

/**
 * Notes that members and agents attach to playbooks, versions and context nodes. workspace_overlay ones are
 * visible to every member; agent_local ones only to the principal (agent or user) that wrote them, to whom
 * they are "not found" otherwise. Bundles include the ones the caller may see.
 */
export class AnnotationService {
  readonly repo: AnnotationRepository;

  constructor(private readonly deps: ServiceDeps) {
    this.repo = new AnnotationRepository(deps.graph);
  }

  async create(caller: Caller, input: CreateAnnotationInput): Promise<Annotation> {
    const source: AnnotationSource = caller.principal.kind === 'agent' ? 'agent' : 'human';
    if (input.source !== undefined && input.source !== source) {
      throw invalidField('/source', `must be '${source}' for ${caller.principal.kind === 'agent' ? 'an agent' : 'a user'} key (it is derived from the caller and may be omitted)`);
    }
    requireText(input.title, '/title');
    requireText(input.content, '/content');
    const annotation = await this.repo.create(caller.workspaceId, {
      id: newId('ann'),
      targetType: input.targetType,
      targetId: input.targetId,
      scopeType: input.scopeType,
      title: input.title,
      content: input.content,
      source,
      authorId: caller.principal.id,
      authorKind: caller.principal.kind,
      createdAt: this.deps.clock().toISOString(),
    }, stampOf(caller, this.deps.clock().toISOString()));
    if (!annotation) throw notFound(targetNames[input.targetType]);
    await this.deps.gate.graphChanged(caller.workspaceId);
    return annotation;
  }

  async list(caller: Caller, query: ListAnnotationsQuery): Promise<AnnotationPage> {
    const { total, annotations } = await this.repo.list(caller.workspaceId, caller.principal.id, {
      targetType: query.targetType ?? null,
      targetId: query.targetId ?? null,
      scopeType: query.scopeType ?? null,
      ...rowsOf(query),
    });
    return pageOf('annotations', annotations, query, total);
  }

  /** Its author, or an editor or owner; someone else's agent_local annotation is 404 (it is invisible to them). */
  async delete(caller: Caller, annotationId: string): Promise<void> {
    const { found, deleted } = await this.repo.delete(caller.workspaceId, annotationId, caller.principal.id, roleAtLeast(caller.role, 'editor'), stampOf(caller, this.deps.clock().toISOString()));
    if (!found) throw notFound('Annotation');
    if (!deleted) throw new AppError('insufficient_role', 'Only the author of an annotation or an editor can delete it');
    await this.deps.gate.graphChanged(caller.workspaceId);
  }
}
