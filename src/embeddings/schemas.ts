import { type Static, Type } from '@sinclair/typebox';
import { Nullable, literals } from '../api/common-schemas.js';

export const EmbeddingStatusSchema = Type.Object({
  state: literals(['off', 'client', 'embedding', 'ready', 'provider-unavailable'] as const, {
    description: 'off: no embeddings; client: vectors come from clients; embedding: nodes wait to be embedded; ready: every live node is; provider-unavailable: embedding waits on the provider',
  }),
  model: Nullable(Type.String()),
  dimension: Nullable(Type.Integer()),
  total: Type.Integer({ minimum: 0, description: 'Live nodes' }),
  embedded: Type.Integer({ minimum: 0, description: 'Live nodes embedded from their current text' }),
  pending: Type.Integer({ minimum: 0, description: 'Live nodes waiting to be embedded: found by their words now, by their meaning once embedded' }),
  error: Type.Optional(Type.String({ description: 'The provider’s last failure, while embedding waits on it' })),
});

/** What GET …/embeddings answers: how far the workspace's (or, for the operator, every workspace's) embeddings are. */
export type EmbeddingStatus = Static<typeof EmbeddingStatusSchema>;
