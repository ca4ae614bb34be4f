/**
 * The data of a run: one workspace per size, generated once per size and seed (bench/generate.ts) and reused
 * while the database still holds it whole, and the request lists the scenarios rotate over.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Driver, routing } from 'neo4j-driver';
import { DATABASE } from './floor.js';
import { type GeneratedWorkspace, generateWorkspace } from './generate.js';
import type { HttpRequestSpec } from './load.js';
import { mcpBundleRequests } from './mcp.js';
import type { RequestList } from './scenarios.js';

export interface LoadedWorkspace {
  ws: GeneratedWorkspace;
  reused: boolean;
  loadSeconds?: number;
}

async function countOf(driver: Driver, workspaceId: string): Promise<{ nodes: number; playbooks: number; workspace: boolean }> {
  const r = await driver.executeQuery(
    `OPTIONAL MATCH (w:Workspace {id: $ws})
     RETURN w IS NOT NULL AS workspace,
            COUNT { MATCH (n:ContextNode {workspaceId: $ws}) } AS nodes,
            COUNT { MATCH (p:Playbook {workspaceId: $ws}) } AS playbooks`,
    { ws: workspaceId },
    { database: DATABASE, routing: routing.READ },
  );
  const row = r.records[0].toObject();
  return { nodes: Number(row.nodes), playbooks: Number(row.playbooks), workspace: row.workspace };
}

/** Removes a workspace the bench loaded (all of it, or what a failed load left), with its bench owner. */
async function dropWorkspace(driver: Driver, workspaceId: string): Promise<void> {
  const session = driver.session({ database: DATABASE });
  try {
    await session.run('MATCH (n) WHERE n.workspaceId = $ws CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS', { ws: workspaceId });
    await session.run("MATCH (u:User)-[:MEMBER_OF]->(:Workspace {id: $ws}) WHERE u.email STARTS WITH 'bench-owner+' DETACH DELETE u", { ws: workspaceId });
    await session.run('MATCH (w:Workspace {id: $ws}) DETACH DELETE w', { ws: workspaceId });
  } finally {
    await session.close();
  }
}

export async function ensureWorkspace(driver: Driver, o: { dataDir: string; seed: number; size: number }): Promise<LoadedWorkspace> {
  const catalogFile = path.join(o.dataDir, 'workspaces.json');
  const catalog: Record<string, GeneratedWorkspace> = existsSync(catalogFile) ? JSON.parse(readFileSync(catalogFile, 'utf8')) : {};
  const key = `${o.size}:${o.seed}`;
  // A fixed id per size and seed: a load that failed half-way can be found and removed.
  const workspaceId = `ws_bench_${o.size}_s${o.seed}`;
  const known = catalog[key];
  const c = await countOf(driver, workspaceId);
  if (known && known.workspaceId === workspaceId && c.workspace && c.nodes === o.size && c.playbooks === known.playbookIds.length) return { ws: known, reused: true };
  if (c.workspace || c.nodes > 0) {
    console.log(`  workspace ${workspaceId} is incomplete or unknown (${c.nodes}/${o.size} nodes): loading it again`);
    await dropWorkspace(driver, workspaceId);
  }
  console.log(`  loading a ${o.size}-node workspace (seed ${o.seed})`);
  const t = performance.now();
  let ws: GeneratedWorkspace;
  try {
    ws = await generateWorkspace(driver, DATABASE, { nodes: o.size, seed: o.seed, workspaceId, log: (l) => console.log(l) });
  } catch (err) {
    console.log('  load failed; removing what was written');
    await dropWorkspace(driver, workspaceId).catch(() => undefined);
    throw err;
  }
  const loadSeconds = Math.round((performance.now() - t) / 100) / 10;
  catalog[key] = ws;
  mkdirSync(o.dataDir, { recursive: true });
  writeFileSync(catalogFile, JSON.stringify(catalog));
  return { ws, reused: false, loadSeconds };
}

/** The URLs each request list rotates over: the 20 playbooks, or 20 live nodes spread over the workspace. */
export function paths(ws: GeneratedWorkspace) {
  const w = `/api/v1/workspaces/${ws.workspaceId}`;
  const followNodes = ws.nodeIds.filter((_, i) => i % 10 === 0).slice(0, 20);
  return {
    bundle: ws.playbookIds.map((p) => `${w}/context/bundle?playbookId=${p}&maxNodes=20&depth=2`),
    bundleNoAnnotations: ws.playbookIds.map((p) => `${w}/context/bundle?playbookId=${p}&maxNodes=20&depth=2&includeAnnotations=false`),
    manifest: ws.playbookIds.map((p) => `${w}/context/manifest?playbookId=${p}&maxNodes=20&depth=2`),
    follow: followNodes.map((n) => `${w}/context/nodes/${n}/follow?depth=3`),
    playbook: ws.playbookIds.map((p) => `${w}/playbooks/${p}`),
    workspaceId: ws.workspaceId,
    playbookIds: ws.playbookIds,
  };
}
export type Paths = ReturnType<typeof paths>;

/**
 * Every request list, sent with the owner's key. `etags` are the ETags of the bundle URLs' last answers, in
 * the same order: the graph does not change during a run, so they stay current.
 */
export function requestLists(p: Paths, key: string, etags: string[]): Record<RequestList, HttpRequestSpec[]> {
  const auth = { authorization: `Bearer ${key}` };
  const list = (urls: string[]) => urls.map((u) => ({ path: u, headers: auth }));
  return {
    bundle: list(p.bundle),
    'bundle-no-annotations': list(p.bundleNoAnnotations),
    'bundle-if-none-match': p.bundle.map((u, i) => ({ path: u, headers: { ...auth, 'if-none-match': etags[i] ?? '' } })),
    manifest: list(p.manifest),
    follow: list(p.follow),
    playbook: list(p.playbook),
    'mcp-bundle': mcpBundleRequests(p.workspaceId, p.playbookIds, key),
    root: [{ path: '/', headers: auth }],
  };
}
