import { type Static, Type } from '@sinclair/typebox';
import { Id, Nullable, Strict, literals } from '../api/common-schemas.js';
import { LinkTypeSchema } from '../nodes/schemas.js';

/** The graph view's query and answer (GET {ws}/graph); the types below are derived from them. */

export const GraphQuery = Strict({
  playbookId: Type.Optional(Id('Only this playbook’s neighbourhood: what its links reach, followed either way, up to depth hops')),
  depth: Type.Integer({ minimum: 1, maximum: 5, default: 2, description: 'Hops from the playbook (with playbookId only)' }),
  includeArchived: Type.Boolean({ default: false, description: 'Also archived context nodes and playbooks (and links through them)' }),
  limit: Type.Integer({ minimum: 1, maximum: 10_000, default: 5_000, description: 'Most nodes answered; links are those among the nodes answered' }),
});

export const GraphNodeSchema = Type.Object({
  id: Type.String(),
  kind: literals(['node', 'playbook'] as const, { description: 'node: a context node (cn_…); playbook: a playbook (pb_…)' }),
  slug: Type.String(),
  title: Type.String(),
  nodeType: Nullable(Type.String({ description: 'The context node’s type; null for a playbook' })),
  importance: Nullable(Type.Number({ description: '0 to 100; null for a playbook' })),
  status: literals(['live', 'archived', 'active'] as const, { description: 'A context node: live or archived; a playbook: active or archived' }),
});

export const GraphLinkSchema = Type.Object({
  id: Type.String(),
  from: Type.String({ description: 'Id of the source (a context node or a playbook)' }),
  to: Type.String({ description: 'Id of the target context node' }),
  type: LinkTypeSchema,
  origin: literals(['manual', 'wikilink'] as const, { description: 'wikilink: made from a [[slug]] in the source’s content' }),
});

export const GraphSchema = Type.Object({
  nodes: Type.Array(GraphNodeSchema, {
    description: 'With playbookId: the closest first (the playbook itself first); otherwise playbooks first; then higher importance, then id',
  }),
  links: Type.Array(GraphLinkSchema, { description: 'Every link among the nodes answered, by id' }),
  truncated: Type.Boolean({ description: 'More nodes matched than limit: the ones past it were left out' }),
});

export type GraphQueryInput = Static<typeof GraphQuery>;
export type Graph = Static<typeof GraphSchema>;
