import { type Static, Type } from '@sinclair/typebox';
import { Id, PageQuery, Pagination, Strict, Timestamp, Title, literals, named } from '../api/common-schemas.js';

/** Request and response schemas of the annotation endpoints; the types below are derived from them. */

/** What an annotation or a feedback item may be about. */
export const targetTypes = ['playbook', 'playbook_version', 'context_node'] as const;

/** workspace_overlay: visible to every member; agent_local: visible only to the principal that wrote it. */
export const scopeTypes = ['workspace_overlay', 'agent_local'] as const;

/** Shared with the feedback routes: what an annotation or a feedback item is about. */
export const TargetTypeSchema = named('TargetType', literals(targetTypes, {
  description: 'playbook (a pb_ id), playbook_version (a pbv_ id) or context_node (a cn_ id)',
}));
export const TargetId = Id('Id of the target; it must be a target of targetType in this workspace (else 404)');

/** Upper bound on an annotation's content (characters). */
export const annotationContentMax = 20_000;

export const ScopeTypeSchema = named('AnnotationScope', literals(scopeTypes, {
  description: 'workspace_overlay: visible to every member and agent of the workspace; agent_local: visible only to the principal (agent or user) that wrote it',
}));
const annotationSources = ['agent', 'human'] as const;
export const SourceSchema = named('AnnotationSource', literals(annotationSources, {
  description: 'agent when written with an agent key, human when written with a user key',
}));

export const AnnotationSchema = named('Annotation', Type.Object({
  id: Type.String({ description: 'ann_…' }),
  targetType: TargetTypeSchema,
  targetId: Type.String(),
  scopeType: ScopeTypeSchema,
  title: Type.String(),
  content: Type.String(),
  source: SourceSchema,
  authorId: Type.String({ description: 'The principal that wrote it: a user (usr_…) or an agent (ag_…)' }),
  createdAt: Timestamp,
}));

export const AnnotationPageSchema = Type.Object({ annotations: Type.Array(AnnotationSchema), pagination: Pagination });

export const CreateBody = Strict(
  {
    targetType: TargetTypeSchema,
    targetId: TargetId,
    scopeType: ScopeTypeSchema,
    title: Type.String({ ...Title, description: '1 to 200 characters, not only whitespace' }),
    content: Type.String({ minLength: 1, maxLength: annotationContentMax, description: `Text (markdown), 1 to ${annotationContentMax} characters, not only whitespace` }),
    source: Type.Optional(literals(annotationSources, {
      description: 'Derived from the caller (agent for an agent key, human for a user key); may be omitted, and a value that contradicts the caller is 400',
    })),
  },
  { required: ['targetType', 'targetId', 'scopeType', 'title', 'content'] },
);

export const ListQuery = Strict({
  targetType: Type.Optional(TargetTypeSchema),
  targetId: Type.Optional(Id('Only annotations on this target (an unknown id gives an empty list)')),
  scopeType: Type.Optional(ScopeTypeSchema),
  ...PageQuery,
});

export const AnnotationPath = Strict({ workspaceId: Id('Workspace id'), annotationId: Id('Annotation id') });

export type TargetType = Static<typeof TargetTypeSchema>;
export type ScopeType = Static<typeof ScopeTypeSchema>;
export type AnnotationSource = Static<typeof SourceSchema>;
/** An annotation as the API shows it (stored with workspaceId and authorKind besides, see docs/graph-model.md). */
export type Annotation = Static<typeof AnnotationSchema>;
export type AnnotationPage = Static<typeof AnnotationPageSchema>;
export type CreateAnnotationInput = Static<typeof CreateBody>;
export type ListAnnotationsQuery = Static<typeof ListQuery>;
