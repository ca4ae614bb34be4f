import { type AuditStamp, writeAudited } from '../audit/recorder.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import type { Annotation, ScopeType, TargetType } from './schemas.js';

/** What is stored: the API's annotation plus the kind of principal that wrote it. */
export type NewAnnotation = Annotation & { authorKind: 'user' | 'agent' };

export interface AnnotationFilter {
  targetType: TargetType | null;
  targetId: string | null;
  scopeType: ScopeType | null;
  skip: number;
  limit: number;
}

export class AnnotationRepository {
  constructor(private readonly graph: GraphExecutor) {}

  /** The created annotation, or undefined when the target does not exist in the workspace. */
  async create(workspaceId: string, input: NewAnnotation, stamp: AuditStamp): Promise<Annotation | undefined> {
    const { targetType, targetId, ...annotation } = input;
    const row = await writeAudited(this.graph, 'annotations/create', { workspaceId, targetType, targetId, annotation }, stamp, (r) =>
      r?.annotation ? { action: 'annotation.created', workspaceId, targetIds: [input.id, targetId], after: { targetType, targetId, scopeType: input.scopeType, title: input.title, source: input.source } } : undefined);
    return row?.annotation;
  }

  /** One page of what `principalId` may see, oldest first. */
  async list(workspaceId: string, principalId: string, filter: AnnotationFilter): Promise<{ total: number; annotations: Annotation[] }> {
    const [row] = await this.graph.read('annotations/list', { workspaceId, principalId, ...filter });
    return { total: row.total, annotations: row.annotations };
  }

  /**
   * Deletes it if `principalId` can see it and is its author or `mayDeleteOthers`.
   * found false: not visible to the principal (or absent); deleted false with found true: not allowed.
   */
  async delete(workspaceId: string, annotationId: string, principalId: string, mayDeleteOthers: boolean, stamp: AuditStamp): Promise<{ found: boolean; deleted: boolean }> {
    const row = (await writeAudited(this.graph, 'annotations/delete', { workspaceId, annotationId, principalId, mayDeleteOthers }, stamp, (r) =>
      r?.deleted ? { action: 'annotation.deleted', workspaceId, targetIds: [annotationId], after: null } : undefined))!;
    return { found: row.found, deleted: row.deleted };
  }
}
