#!/usr/bin/env node
/**
 * `playbooks-mcp`: the service's MCP tools over stdio, for clients that start a local process (Claude Desktop,
 * Cursor, …). It serves nothing of its own: every request is passed to a running service's MCP endpoint over
 * HTTP (PLAYBOOKS_URL, PLAYBOOKS_API_KEY, PLAYBOOKS_WORKSPACE), so the tools, the gate, the quota and the cache
 * are the service's. stdout carries the protocol only; everything else goes to stderr.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

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
  const upstream = new Client({ name: 'playbooks-mcp', version: '0.1.0' });
  // The key travels in a header only; it is never printed.
  await upstream.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  const info = upstream.getServerVersion() ?? { name: 'playbooks-context-service', version: '0.1.0' };
  const server = new Server(info, { capabilities: upstream.getServerCapabilities() ?? { tools: {} }, instructions: upstream.getInstructions() });
  server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.listTools(request.params));
  // Passed through as they come (tool errors included): the service validated and answered them.
  server.setRequestHandler(CallToolRequestSchema, (request) => upstream.request({ method: 'tools/call', params: request.params }, CallToolResultSchema));
  server.setRequestHandler(ListResourcesRequestSchema, (request) => upstream.listResources(request.params));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, (request) => upstream.listResourceTemplates(request.params));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => upstream.readResource(request.params));
  server.setRequestHandler(ListPromptsRequestSchema, (request) => upstream.listPrompts(request.params));
  server.setRequestHandler(GetPromptRequestSchema, (request) => upstream.getPrompt(request.params));
  server.onclose = () => void upstream.close();
  await server.connect(new StdioServerTransport());
  log(`serving ${endpoint.origin}${endpoint.pathname} over stdio`);
}

main().catch((err: Error) => {
  log(`could not start: ${err.message}`);
  process.exit(1);
});
