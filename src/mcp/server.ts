import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import { getPrompt, listPrompts, listResources, readResource, resourceTemplates } from './resources.js';
import { type ToolCall, type ToolServices, tools } from './tools.js';

export const serverInfo = { name: 'playbooks-context-service', version: '0.1.0' };

/** Plain JSON Schema (TypeBox's symbols dropped), as tools/list sends it. */
const plain = <T>(schema: unknown): T => JSON.parse(JSON.stringify(schema));

/** tools/list, made once: the input and output schemas are the REST routes' own. */
export const toolList: McpTool[] = tools.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: plain(tool.input),
  outputSchema: plain(tool.output),
  annotations: { title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: tool.replaces ?? false, idempotentHint: tool.readOnly || (tool.replaces ?? false), openWorldHint: false },
}));

const byName = new Map(tools.map((tool) => [tool.name, tool]));

/** A tool error: the REST problem's code and detail (and its field errors), as text and as structured content. */
function toolError(code: string, detail: string, errors?: unknown): CallToolResult {
  const problem = { code, detail, ...(errors ? { errors } : {}) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(problem) }] };
}

/** Runs one tool for the caller; every failure is a tool result with isError, never a protocol error. */
export async function callTool(s: ToolServices, call: ToolCall, name: string, args: unknown, logger: Logger): Promise<CallToolResult> {
  const tool = byName.get(name);
  if (!tool) return toolError('not_found', `No tool named ${name}`);
  try {
    const { structured, text } = await tool.run(s, call, args);
    return { content: [{ type: 'text', text }], structuredContent: structured };
  } catch (err) {
    if (err instanceof AppError) return toolError(err.code, err.message, err.errors);
    logger.error({ err, tool: name }, 'tool failed');
    return toolError('internal_error', 'Internal server error');
  }
}

/**
 * Resources and prompts have no isError result: a failure is a JSON-RPC error carrying the REST code in its data
 * (a missing resource is the protocol's -32002).
 */
async function protocolErrors<T>(logger: Logger, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof AppError)) {
      logger.error({ err }, 'MCP request failed');
      throw new McpError(ErrorCode.InternalError, 'Internal server error');
    }
    const code = err.code === 'not_found' ? -32002 : err.status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidParams;
    throw new McpError(code, err.message, { code: err.code });
  }
}

/** One MCP server for one caller (the HTTP transport is stateless: a server per request). */
export function mcpServerFor(s: ToolServices, call: ToolCall, logger: Logger): Server {
  const server = new Server(serverInfo, { capabilities: { tools: {}, resources: {}, prompts: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolList }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => callTool(s, call, request.params.name, request.params.arguments, logger));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates }));
  server.setRequestHandler(ListResourcesRequestSchema, (request) => protocolErrors(logger, () => listResources(s, call, request.params?.cursor)));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => protocolErrors(logger, () => readResource(s, call, request.params.uri)));
  server.setRequestHandler(ListPromptsRequestSchema, () => protocolErrors(logger, () => listPrompts(s, call)));
  server.setRequestHandler(GetPromptRequestSchema, (request) => protocolErrors(logger, () => getPrompt(s, call, request.params.name)));
  return server;
}
