/**
 * Agents over MCP (issue 29): the requests of the `mcp-bundle-repeated` scenario (get_bundle over the
 * Streamable HTTP endpoint, the same bundles as the REST scenarios ask for), and the stdio round trip: the
 * checkout's `playbooks-mcp` proxy, driven by the SDK's own Client, calling the running API.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { HttpRequestSpec, RawRun } from './load.js';

/** The protocol revision the requests declare (the SDK's current one at the time of writing). */
const PROTOCOL_VERSION = '2025-06-18';

/** What a bundle of the REST request lists asks for, as get_bundle's arguments. */
const bundleArguments = (playbookId: string) => ({ playbook: playbookId, maxNodes: 20, depth: 2 });

/**
 * One tools/call of get_bundle per playbook, each a whole stateless MCP request (the endpoint keeps no session,
 * so no initialize is needed before it).
 */
export function mcpBundleRequests(workspaceId: string, playbookIds: string[], key: string): HttpRequestSpec[] {
  const headers = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
  };
  return playbookIds.map((playbookId, i) => ({
    method: 'POST' as const,
    path: `/api/v1/workspaces/${workspaceId}/mcp`,
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'get_bundle', arguments: bundleArguments(playbookId) } }),
  }));
}

/** Sends each request once and fails unless every answer is a tool result without isError. */
export async function checkMcpBundles(baseUrl: string, requests: HttpRequestSpec[]): Promise<void> {
  for (const r of requests) {
    const res = await fetch(baseUrl + r.path, { method: r.method, headers: r.headers, body: r.body });
    const text = await res.text();
    const reply = res.ok ? (JSON.parse(text) as { result?: { isError?: boolean } }) : undefined;
    if (!reply?.result || reply.result.isError) throw new Error(`MCP get_bundle answered ${res.status}: ${text.slice(0, 300)}`);
  }
}

/**
 * The stdio round trip: `calls` get_bundle calls one after the other (after `warmup` discarded ones) through
 * the checkout's built stdio proxy. Undefined when the checkout has none (a commit before MCP).
 */
export async function stdioRoundTrip(o: {
  checkoutDir: string;
  apiUrl: string;
  key: string;
  workspaceId: string;
  playbookIds: string[];
  calls: number;
  warmup: number;
}): Promise<RawRun | undefined> {
  const proxy = path.join(o.checkoutDir, 'dist', 'src', 'mcp', 'stdio.js');
  if (!existsSync(proxy)) return undefined;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [proxy],
    env: { PATH: process.env.PATH ?? '', PLAYBOOKS_URL: o.apiUrl, PLAYBOOKS_API_KEY: o.key, PLAYBOOKS_WORKSPACE: o.workspaceId },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'playbooks-bench', version: '1.0.0' });
  await client.connect(transport);
  try {
    const latencies: number[] = [];
    const status: Record<string, number> = {};
    let errors = 0;
    const started = performance.now();
    for (let i = 0; i < o.warmup + o.calls; i++) {
      const t0 = performance.now();
      const result = await client.callTool({ name: 'get_bundle', arguments: bundleArguments(o.playbookIds[i % o.playbookIds.length]) });
      if (i < o.warmup) continue;
      latencies.push(performance.now() - t0);
      const outcome = result.isError ? 'error' : 'ok';
      status[outcome] = (status[outcome] ?? 0) + 1;
      if (result.isError) errors += 1;
    }
    return { latencies, durationS: (performance.now() - started) / 1000, status, errors };
  } finally {
    await client.close();
  }
}
