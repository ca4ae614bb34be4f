import type { Caller } from '../auth/caller.js';
import { notFound } from '../errors.js';
import type { ServiceDeps } from '../service-deps.js';
import { GraphRepository } from './repository.js';
import type { Graph, GraphQueryInput } from './schemas.js';

/** The workspace's graph of playbooks, context nodes and links, as a graph view draws it. */
export class GraphService {
  private readonly repo: GraphRepository;

  constructor(deps: ServiceDeps) {
    this.repo = new GraphRepository(deps.graph);
  }

  /** The whole workspace, or one playbook's neighbourhood (404 for a playbook not in the workspace). */
  async get(caller: Caller, query: GraphQueryInput): Promise<Graph> {
    const { includeArchived, limit, depth } = query;
    if (query.playbookId === undefined) return this.repo.workspace(caller.workspaceId, { includeArchived, limit });
    const found = await this.repo.neighbourhood(caller.workspaceId, query.playbookId, { depth, includeArchived, limit });
    // The playbook itself is always the first node of its neighbourhood.
    if (!found || found.nodes.length === 0) throw notFound('Playbook');
    return found;
  }
}
