import neo4j from 'neo4j-driver';
import type { GraphExecutor } from '../infra/neo4j.js';

/** Runs the saved reports of cypher/reports ('reports/<name>' in the catalog), always within one workspace. */
export class ReportRepository {
  constructor(private readonly graph: GraphExecutor) {}

  async run(name: string, workspaceId: string, params: Record<string, unknown>): Promise<Record<string, unknown>[]> {
    // The driver sends every JS number as a float; a report's integer parameters (LIMIT $limit) must be integers.
    const values = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, Number.isInteger(v) ? neo4j.int(v as number) : v]));
    return this.graph.read(`reports/${name}`, { ...values, workspaceId });
  }
}
