import type { GraphExecutor } from '../../src/infra/neo4j.js';
import { env } from './harness.js';

/**
 * The shared API's executor, whose driver and database reach the run's Neo4j past the API: for what the API does
 * not show. The run owns its driver; a test never closes it.
 */
export const sharedGraph = (): GraphExecutor => env.service.services.graph;

/** Runs a statement straight on the run's Neo4j (past the API) and returns its rows as objects. */
export async function storedRows<T = Record<string, any>>(text: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const graph = sharedGraph();
  const result = await graph.driver.executeQuery(text, params, { database: graph.database });
  return result.records.map((r) => r.toObject() as T);
}
