import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * An upstream JSON-RPC error sent on as the service sent it: its code, its message and its data. The SDK's client
 * puts "MCP error <code>: " before the message it received, a server sends an error's message as it is, and the
 * client at the other end adds the prefix again: so the message is reset to the service's own.
 */
export class UpstreamError extends McpError {
  constructor(err: McpError) {
    super(err.code, '', err.data);
    const prefix = `MCP error ${err.code}: `;
    this.message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  }
}

async function relay<T>(ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (err) {
    throw err instanceof McpError ? new UpstreamError(err) : err;
  }
}

/**
 * A server that answers each request by asking the upstream client's server, with that server's name, version,
 * capabilities and instructions: it serves nothing of its own, and what the service validated, metered and
 * answered (tool errors included) passes through unchanged.
 */
export function relayServer(upstream: Client): Server {
  const capabilities = upstream.getServerCapabilities() ?? { tools: {} };
  const info = upstream.getServerVersion() ?? { name: 'playbooks-context-service', version: '0.0.0' };
  const server = new Server(info, { capabilities, instructions: upstream.getInstructions() });
  // A handler may be set only for what the capabilities announce (the SDK checks), so each follows the upstream's.
  if (capabilities.tools) {
    server.setRequestHandler(ListToolsRequestSchema, (request) => relay(() => upstream.listTools(request.params)));
    // Sent as a plain request: the upstream client's callTool would check the answer against the tool's output schema again.
    server.setRequestHandler(CallToolRequestSchema, (request) =>
      relay(() => upstream.request({ method: 'tools/call', params: request.params }, CallToolResultSchema)),
    );
  }
  if (capabilities.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, (request) => relay(() => upstream.listResources(request.params)));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (request) => relay(() => upstream.listResourceTemplates(request.params)));
    server.setRequestHandler(ReadResourceRequestSchema, (request) => relay(() => upstream.readResource(request.params)));
  }
  if (capabilities.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, (request) => relay(() => upstream.listPrompts(request.params)));
    server.setRequestHandler(GetPromptRequestSchema, (request) => relay(() => upstream.getPrompt(request.params)));
  }
  if (capabilities.completions) {
    server.setRequestHandler(CompleteRequestSchema, (request) => relay(() => upstream.complete(request.params)));
  }
  return server;
}
