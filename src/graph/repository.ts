import type { GraphExecutor } from '../infra/neo4j.js';
import { linkTypeParams } from '../nodes/link-types.js';
import type { Graph } from './schemas.js';

/** The graph view's statements (cypher/queries/graph): one statement per answer, whatever the graph's size. */
export class GraphRepository {
  constructor(private readonly graph: GraphExecutor) {}

  async workspace(workspaceId: string, options: { includeArchived: boolean; limit: number }): Promise<Graph> {
    const [row] = await this.graph.read<Graph>('graph/workspace', { workspaceId, ...options, ...linkTypeParams });
    return row;
  }

  /** No nodes: no such playbook in the workspace. */
  async neighbourhood(workspaceId: string, playbookId: string, options: { depth: number; includeArchived: boolean; limit: number }): Promise<Graph | undefined> {
    const [row] = await this.graph.read<Graph>('graph/neighbourhood', { workspaceId, playbookId, ...options, ...linkTypeParams });
    return row;
  }
}
