#!/usr/bin/env node
/**
 * `playbooks-mcp`: the service's MCP tools over stdio, for clients that start a local process (Claude Desktop,
 * Cursor, …). It serves nothing of its own: every request is passed to a running service's MCP endpoint over
 * HTTP (PLAYBOOKS_URL, PLAYBOOKS_API_KEY, PLAYBOOKS_WORKSPACE), so the tools, the gate, the quota and the cache
 * are the service's. stdout carries the protocol only; everything else goes to stderr.
 */
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { relayServer } from './relay.js';

// The package's own version: the service stamps its version into the package it serves for download.
const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

const log = (message: string) => process.stderr.write(`playbooks-mcp: ${message}\n`);

function settings(): { endpoint: URL; key: string } {
  const { PLAYBOOKS_URL: url, PLAYBOOKS_API_KEY: key, PLAYBOOKS_WORKSPACE: workspace } = process.env;
  const missing = Object.entries({ PLAYBOOKS_URL: url, PLAYBOOKS_API_KEY: key, PLAYBOOKS_WORKSPACE: workspace }).filter(([, v]) => !v).map(([k]) => k);
  if (missing.length > 0) {
    log(`set ${missing.join(', ')}`);
    process.exit(2);
  }
  return { endpoint: new URL(`${url!.replace(/\/+$/, '')}/api/v1/workspaces/${encodeURIComponent(workspace!)}/mcp`), key: key! };
}

async function main(): Promise<void> {
  const { endpoint, key } = settings();
  const upstream = new Client({ name: 'playbooks-mcp', version });
  // The key travels in a header only; it is never printed.
  await upstream.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  const server = relayServer(upstream);
  server.onclose = () => void upstream.close();
  await server.connect(new StdioServerTransport());
  log(`${version} serving ${endpoint.origin}${endpoint.pathname} over stdio`);
}

main().catch((err: Error) => {
  log(`could not start: ${err.message}`);
  process.exit(1);
});
