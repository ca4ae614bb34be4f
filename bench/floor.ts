/**
 * The raw-driver floor: the bundle's own Cypher (rank-bundle.cypher of the checkout under test) with the
 * parameters the service gives it, and a PROFILE of it per playbook, which says how much work one bundle is.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Driver, type ProfiledPlan, routing } from 'neo4j-driver';
import type { GeneratedWorkspace } from './generate.js';

export const DATABASE = 'neo4j';
const QUERY = 'retrieval/rank-bundle';

/**
 * The text the checkout's built service sends (its own QueryCatalog, which may treat comments differently
 * from this checkout's); the file as it is where that module cannot be loaded.
 */
export async function rankBundleQuery(checkoutDir: string): Promise<string> {
  const built = path.join(checkoutDir, 'dist', 'src', 'infra', 'cypher-files.js');
  if (existsSync(built)) {
    try {
      const mod = (await import(pathToFileURL(built).href)) as { QueryCatalog?: new () => { get(name: string): string } };
      if (typeof mod.QueryCatalog === 'function') return new mod.QueryCatalog().get(QUERY);
    } catch {
      // An older layout: read the file below.
    }
  }
  return readFileSync(path.join(checkoutDir, 'cypher', 'queries', `${QUERY}.cypher`), 'utf8');
}

/**
 * The parameters the service gives rank-bundle.cypher for GET …/context/bundle?playbookId=…&maxNodes=20&depth=2
 * called with the owner's user key (src/retrieval/service.ts: mode standard => withContent, includeAnnotations
 * defaults to true, the principal is the key's user). They are this checkout's: a checkout under test whose
 * query takes other parameters shows as errors of the raw-driver scenario.
 */
export function rankParams(ws: GeneratedWorkspace): Record<string, unknown>[] {
  return ws.playbookIds.map((playbookId) => ({
    workspaceId: ws.workspaceId,
    playbookId,
    depth: 2,
    maxNodes: 20,
    changedSince: null,
    withContent: true,
    includeAnnotations: true,
    principalId: ws.ownerUserId,
  }));
}

function sumPlan(plan: ProfiledPlan): { dbHits: number; misses: number } {
  let dbHits = plan.dbHits ?? 0;
  let misses = plan.pageCacheMisses ?? 0;
  for (const child of plan.children ?? []) {
    const s = sumPlan(child);
    dbHits += s.dbHits;
    misses += s.misses;
  }
  return { dbHits, misses };
}

/** PROFILE of the query once per parameter set: means per bundle. */
export async function profileBundle(driver: Driver, query: string, params: Record<string, unknown>[]) {
  let dbHits = 0;
  let ranked = 0;
  let misses = 0;
  let serverMs = 0;
  for (const p of params) {
    const r = await driver.executeQuery(`PROFILE ${query}`, p, { database: DATABASE, routing: routing.READ });
    const plan = r.summary.profile;
    if (plan) {
      const s = sumPlan(plan);
      dbHits += s.dbHits;
      misses += s.misses;
    }
    const first = r.records[0];
    ranked += first?.has('rankedCount') ? Number(first.get('rankedCount')) : 0;
    serverMs += Number(r.summary.resultAvailableAfter) + Number(r.summary.resultConsumedAfter);
  }
  const n = params.length;
  return { dbHitsMean: Math.round(dbHits / n), rankedCountMean: Math.round((ranked / n) * 10) / 10, pageCacheMissesTotal: misses, serverMsMean: Math.round((serverMs / n) * 10) / 10 };
}
