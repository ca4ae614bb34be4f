/**
 * The data of a run and what is asked of it: one generated workspace per size and seed, reused while the store
 * holds it whole; a key for it and its bundles' bytes and ETags, through the SDK; the request lists the scenarios
 * rotate over.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { GraphExecutor } from '../src/infra/neo4j.js';
import { MaxTokensInput } from '../src/tokens/answer-budget.js';
import { BundleQuery } from '../src/retrieval/schemas.js';
import { adminCreateUserKey, adminUpdateWorkspace, createClient, getBundle, getPlaybook } from '@playbooks/client/api';
import { type GeneratedWorkspace, generateWorkspace } from './generate.js';
import type { RecordedAnswer } from './baselines.js';
import type { HttpRequest } from './load.js';

/** The bundle every scenario asks for: the API's defaults, spelled out so that an older checkout gets the same. */
export const BUNDLE = { maxNodes: BundleQuery.properties.maxNodes.default, depth: BundleQuery.properties.depth.default };

export async function ensureWorkspace(graph: GraphExecutor, o: { dataDir: string; seed: number; size: number }): Promise<GeneratedWorkspace & { reused: boolean }> {
  const catalogFile = path.join(o.dataDir, 'workspaces.json');
  const catalog: Record<string, GeneratedWorkspace> = existsSync(catalogFile) ? JSON.parse(readFileSync(catalogFile, 'utf8')) : {};
  // A fixed id per size and seed, so that what a failed load left is found and removed.
  const workspaceId = `ws_bench_${o.size}_s${o.seed}`;
  const known = catalog[workspaceId];
  const [found] = await graph.read('bench/workspace-size', { workspaceId });
  if (known && found.workspace && found.nodes === o.size && found.playbooks === known.playbookIds.length) return { ...known, reused: true };
  if (found.workspace || found.nodes > 0) {
    console.log(`  workspace ${workspaceId} is incomplete or unknown (${found.nodes}/${o.size} nodes): loading it again`);
    while ((await graph.write('bench/drop-workspace-part', { workspaceId }))[0].deleted > 0);
    await graph.write('bench/drop-workspace', { workspaceId });
  }
  const t = performance.now();
  const ws = await generateWorkspace(graph, { nodes: o.size, seed: o.seed, workspaceId });
  console.log(`  loaded in ${Math.round((performance.now() - t) / 1000)} s`);
  mkdirSync(o.dataDir, { recursive: true });
  writeFileSync(catalogFile, JSON.stringify({ ...catalog, [workspaceId]: ws }));
  return { ...ws, reused: false };
}

/** A user key of the workspace's owner, through the admin API, and a monthly limit no run reaches. */
export async function issueKey(baseUrl: string, adminToken: string, ws: GeneratedWorkspace, label: string): Promise<string> {
  const client = createClient({ baseUrl, auth: () => adminToken });
  const { data } = await adminCreateUserKey({ client, path: { userId: ws.ownerUserId }, body: { label }, throwOnError: true });
  await adminUpdateWorkspace({ client, path: { workspaceId: ws.workspaceId }, body: { monthlyRetrievalLimit: 1_000_000_000 }, throwOnError: true });
  return data.key;
}

export interface Requests {
  bundle: HttpRequest[];
  /** The same URLs with the ETag of their last answer: the graph does not change during a run. */
  bundleIfNoneMatch: HttpRequest[];
  /** The same bundles as an MCP get_bundle call, with a budget that leaves nothing out. */
  mcpBundle: HttpRequest[];
  playbook: HttpRequest[];
  root: HttpRequest[];
  /** Each bundle and playbook URL's answer (base64 bytes and ETag), for the same-bytes baseline and the floor. */
  answers: Record<string, RecordedAnswer>;
  bundleBytes: number[];
}

/** The request lists of one workspace, each answered once through the SDK first (so that a run never loads errors). */
export async function requestsOf(baseUrl: string, ws: GeneratedWorkspace, key: string): Promise<Requests> {
  const w = `/api/v1/workspaces/${ws.workspaceId}`;
  const headers = { authorization: `Bearer ${key}` };
  const client = createClient({ baseUrl, auth: () => key });
  const r: Requests = { bundle: [], bundleIfNoneMatch: [], mcpBundle: [], playbook: [], root: [{ path: '/', headers }], answers: {}, bundleBytes: [] };
  for (const playbookId of ws.playbookIds) {
    const url = `${w}/context/bundle?playbookId=${playbookId}&maxNodes=${BUNDLE.maxNodes}&depth=${BUNDLE.depth}`;
    const { data, response } = await getBundle({ client, path: { workspaceId: ws.workspaceId }, query: { playbookId, ...BUNDLE }, parseAs: 'arrayBuffer', throwOnError: true });
    const body = Buffer.from(data as unknown as ArrayBuffer);
    const etag = response.headers.get('etag') ?? undefined;
    r.answers[url] = { body: body.toString('base64'), etag };
    r.bundleBytes.push(body.length);
    r.bundle.push({ path: url, headers });
    r.bundleIfNoneMatch.push({ path: url, headers: { ...headers, 'if-none-match': etag ?? '' } });
    const mcp = mcpBundleCall(w, key, playbookId);
    await expectToolResult(baseUrl, mcp);
    r.mcpBundle.push(mcp);
    const read = await getPlaybook({ client, path: { workspaceId: ws.workspaceId, playbookId }, parseAs: 'arrayBuffer', throwOnError: true });
    r.answers[`${w}/playbooks/${playbookId}`] = { body: Buffer.from(read.data as unknown as ArrayBuffer).toString('base64'), etag: read.response.headers.get('etag') ?? undefined };
    r.playbook.push({ path: `${w}/playbooks/${playbookId}`, headers });
  }
  return r;
}

/**
 * A JSON-RPC tools/call of get_bundle, as an MCP client sends it (stateless: no initialize first), with the tool's
 * largest budget: its bundle is the REST one, whole.
 */
function mcpBundleCall(w: string, key: string, playbookId: string): HttpRequest {
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_bundle', arguments: { playbook: playbookId, ...BUNDLE, maxTokens: MaxTokensInput.maximum } } };
  const headers = { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' };
  return { path: `${w}/mcp`, method: 'POST', headers, body: JSON.stringify(call) };
}

/** The MCP endpoint is not in the SDK's REST client: one fetch, refused unless the tool answered. */
async function expectToolResult(baseUrl: string, r: HttpRequest): Promise<void> {
  const response = await fetch(baseUrl + r.path, { method: r.method, headers: r.headers, body: r.body });
  const answer = (await response.json().catch(() => undefined)) as { result?: { isError?: boolean; content?: { text: string }[] } } | undefined;
  if (!response.ok || !answer?.result || answer.result.isError) throw new Error(`MCP get_bundle failed (${response.status}): ${JSON.stringify(answer).slice(0, 300)}`);
}

/**
 * The first bundles a freshly started API answers, and each again: what an agent meets right after a deploy, before
 * any load has reached Neo4j, whose plans come from the API's start-up warm-up alone. ms, first / again.
 */
export async function firstRequests(baseUrl: string, ws: GeneratedWorkspace, key: string): Promise<string> {
  const client = createClient({ baseUrl, auth: () => key });
  const timed = async (query: object) => {
    const t = performance.now();
    await getBundle({ client, path: { workspaceId: ws.workspaceId }, query: { playbookId: ws.playbookIds[0], ...BUNDLE, ...query }, throwOnError: true });
    return (performance.now() - t).toFixed(1);
  };
  const out: string[] = [];
  for (const [label, query] of [['bundle', {}], ['bundle changedSince', { changedSince: '2000-01-01T00:00:00.000Z' }]] as const) out.push(`${label} ${await timed(query)} / ${await timed(query)}`);
  return out.join('; ');
}
