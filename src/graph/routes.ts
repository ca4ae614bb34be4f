import { WorkspacePath } from '../api/common-schemas.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import type { GraphService } from './service.js';
import { GraphQuery, GraphSchema } from './schemas.js';

export function graphRoutes(services: { graphView: GraphService }): AnyOperation[] {
  return [
    defineOperation({
      tag: 'Graph', method: 'get', path: '/api/v1/workspaces/:workspaceId/graph', operationId: 'getGraph', summary: 'Playbooks, context nodes and their links, for a graph view',
      description:
        'The whole workspace, or with playbookId the playbook’s neighbourhood: what its links reach, followed either way (through other ' +
        'playbooks too), up to depth hops. Archived context nodes and playbooks, and links through them, are left out unless ' +
        'includeArchived. At most limit nodes (truncated says whether more matched); links are every link among the nodes answered. ' +
        'A playbook not in this workspace is 404. Answers carry an ETag that changes with the workspace’s graph.',
      access: { kind: 'workspace', minRole: 'viewer' }, params: WorkspacePath, query: GraphQuery,
      cache: {},
      responses: { 200: { description: 'Nodes, links and whether the nodes were cut at limit', schema: GraphSchema } },
      run: ({ caller, query }) => services.graphView.get(caller, query),
    }),
  ];
}
