import type { GraphExecutor } from '../infra/neo4j.js';

/** What an annotation or a feedback item may be about. */
export const targetTypes = ['playbook', 'playbook_version', 'context_node'] as const;
export type TargetType = (typeof targetTypes)[number];

/** workspace_overlay: visible to every member; agent_local: visible only to the principal that wrote it. */
export const scopeTypes = ['workspace_overlay', 'agent_local'] as const;
export type ScopeType = (typeof scopeTypes)[number];

/** agent when written with an agent key, human when written with a user key. */
export type AnnotationSource = 'agent' | 'human';

/** An annotation as the API shows it (stored with workspaceId and authorKind besides, see docs/graph-model.md). */
export interface Annotation {
  id: string;
  targetType: TargetType;
  targetId: string;
  scopeType: ScopeType;
  title: string;
  content: string;
  source: AnnotationSource;
  authorId: string;
  createdAt: string;
}

/** What is stored: the API's annotation plus the kind of principal that wrote it. */
export interface NewAnnotation extends Annotation {
  authorKind: 'user' | 'agent';
}

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
  async create(workspaceId: string, input: NewAnnotation): Promise<Annotation | undefined> {
    const { targetType, targetId, ...annotation } = input;
    const [row] = await this.graph.write('annotations/create', { workspaceId, targetType, targetId, annotation });
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
  async delete(workspaceId: string, annotationId: string, principalId: string, mayDeleteOthers: boolean): Promise<{ found: boolean; deleted: boolean }> {
    const [row] = await this.graph.write('annotations/delete', { workspaceId, annotationId, principalId, mayDeleteOthers });
    return { found: row.found, deleted: row.deleted };
  }
}
