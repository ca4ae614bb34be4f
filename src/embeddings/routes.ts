import { WorkspacePath } from '../api/common-schemas.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import { EmbeddingStatusSchema } from './schemas.js';
import type { EmbeddingService } from './service.js';

const description =
  'A node is found by its words as soon as it is written, and by its meaning once embedded: the embedder works through the nodes in the ' +
  'background (at start, after imports, after every write), resumes after a restart, and waits while the provider is down.';

/** How far the embeddings are: for a workspace's members, and for the operator across every workspace. */
export function embeddingRoutes(services: { embeddings: EmbeddingService }): AnyOperation[] {
  return [
    defineOperation({
      tag: 'Retrieval', access: { kind: 'workspace', minRole: 'viewer' },
      method: 'get', path: '/api/v1/workspaces/:workspaceId/embeddings', operationId: 'getEmbeddingStatus',
      summary: 'How far the embeddings of the workspace’s nodes are, and the model and dimension in use', description,
      params: WorkspacePath,
      responses: { 200: { description: 'The status', schema: EmbeddingStatusSchema } },
      run: ({ caller }) => services.embeddings.status(caller.workspaceId),
    }),
    defineOperation({
      tag: 'Admin', access: { kind: 'operator' },
      method: 'get', path: '/api/v1/admin/embeddings', operationId: 'adminEmbeddingStatus',
      summary: 'How far the embeddings of every workspace’s nodes are (the backfill’s progress)', description,
      responses: { 200: { description: 'The status', schema: EmbeddingStatusSchema } },
      run: () => services.embeddings.status(null),
    }),
  ];
}
