import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  type CallToolResult,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type Tool as McpTool,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { serviceVersion } from '../infra/project-root.js';
import { complete } from './completions.js';
import { RpcError, protocolErrors, toolError } from './errors.js';
import { getPrompt, listPrompts } from './prompts.js';
import { listResources, readResource, resourceTemplates } from './resources.js';
import type { AnyOperation } from '../api/operation.js';
import { type ToolCall, type ToolOperation, type ToolServices, runTool, toolsOf } from './tools.js';
import { structuredAsText } from './verbatim.js';

export const serverInfo = { name: 'playbooks-context-service', version: serviceVersion };

/** What the server is for and how an agent should use it: sent in the initialize result. */
export const instructions = [
  'Playbooks are a workspace’s approved workflows; context nodes are its knowledge (guidelines, processes, personas, examples), linked to each other and to playbooks.',
  'To run a playbook, start with get_bundle (list_playbooks finds it): the playbook’s instructions and its linked context, ranked, within maxTokens.',
  'When a bundle says it left nodes out (omittedCount), ask again with its cursor (no cursor: the budget holds no node, ask with a larger maxTokens), or read get_manifest (what there is, with token counts) and get_node for one.',
  'For more around a node use follow_links; search_context finds nodes by text; get_updates says what changed since a moment.',
  'Leave what you learn: annotate adds a note to a playbook or a node, give_feedback tells the editors that something is incorrect, outdated, missing or helpful.',
  'get_bundle, get_manifest and the prompts count against the workspace’s monthly retrieval quota.',
].join('\n');

/** A JSON Schema as JSON carries it (TypeBox's symbols dropped), as tools/list sends it. */
const asJson = <T>(schema: unknown): T => JSON.parse(JSON.stringify(schema));

/**
 * An input schema as clients read it: a field with a default is not required (TypeBox lists every field that
 * is not Optional), so that a strict client or a model does not fill in what the server would.
 */
function inputSchema(schema: unknown): McpTool['inputSchema'] {
  const json = asJson<McpTool['inputSchema'] & { required?: string[] }>(schema);
  const properties = (json.properties ?? {}) as Record<string, { default?: unknown }>;
  const required = (json.required ?? []).filter((name) => properties[name]?.default === undefined);
  const { required: _all, ...rest } = json;
  return required.length > 0 ? { ...rest, required } : rest;
}

/** The MCP face of the API's operations, made once: tools/list's answer, each tool by name, and the bundle prompts use. */
export interface McpSurface {
  toolList: McpTool[];
  byName: Map<string, ToolOperation>;
  bundle: ToolOperation;
}

export function mcpSurfaceOf(operations: AnyOperation[]): McpSurface {
  const tools = toolsOf(operations);
  const byName = new Map(tools.map((op) => [op.tool.name, op]));
  const bundle = tools.find((op) => op.operationId === 'getBundle');
  if (!bundle) throw new Error('The prompts need the getBundle operation as a tool');
  const toolList = tools.map(({ tool, method, cache }): McpTool => {
    // A cached operation only reads, whatever its method (a context query is a POST for its body's sake).
    const readOnly = method === 'get' || cache !== undefined;
    const replaces = tool.replaces ?? false;
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: inputSchema(tool.input),
      outputSchema: asJson(tool.output),
      annotations: { title: tool.title, readOnlyHint: readOnly, destructiveHint: replaces, idempotentHint: readOnly || replaces, openWorldHint: false },
    };
  });
  return { toolList, byName, bundle };
}

/**
 * Runs one tool for the caller. A call the protocol cannot take (no tool of that name, no name, arguments that
 * are not an object) is a JSON-RPC error -32602 in one line; every failure of a tool that ran is a tool result
 * with isError, which the model reads.
 */
export async function callTool(s: ToolServices, surface: McpSurface, call: ToolCall, params: unknown, logger: Logger): Promise<CallToolResult> {
  const { name, arguments: args } = (params ?? {}) as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string') throw new RpcError(ErrorCode.InvalidParams, 'tools/call needs params.name, the name of a tool (see tools/list)');
  const op = surface.byName.get(name);
  if (!op) throw new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 100)} (see tools/list)`);
  if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
    throw new RpcError(ErrorCode.InvalidParams, 'tools/call params.arguments must be an object');
  }
  try {
    const { structured, text } = await runTool(s, call, op, args);
    return { content: [{ type: 'text', text }], structuredContent: structured };
  } catch (err) {
    return toolError(err, logger, name);
  }
}

/**
 * tools/call as the protocol layer takes it: the SDK's Server checks the request against its own schema first and
 * answers a malformed one with a multi-line dump of the schema's errors; callTool says what is wrong in one line.
 */
const ToolsCall = z.object({ method: z.literal('tools/call'), params: z.unknown() });

/**
 * The JSON Schema validator every server shares: a Server makes its own Ajv otherwise, which costs more than the
 * request it answers (it checks what a client sends back to an elicitation, which these servers never ask for).
 */
const schemaValidator = new AjvJsonSchemaValidator();

/**
 * One MCP server for one caller (the HTTP transport is stateless: a server per request). A tool's result carries
 * its structured content as JSON text too (callTool), so it is marked to be sent as that text.
 */
export function mcpServerFor(s: ToolServices, surface: McpSurface, call: ToolCall, logger: Logger): Server {
  const server = new Server(serverInfo, { capabilities: { tools: {}, resources: {}, prompts: {}, completions: {} }, instructions, jsonSchemaValidator: schemaValidator });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: surface.toolList }));
  Protocol.prototype.setRequestHandler.call(server, ToolsCall, async (request: z.infer<typeof ToolsCall>) => structuredAsText(await callTool(s, surface, call, request.params, logger)));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates }));
  server.setRequestHandler(ListResourcesRequestSchema, (request) => protocolErrors(logger, () => listResources(s, call, request.params?.cursor)));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => protocolErrors(logger, () => readResource(s, call, request.params.uri)));
  server.setRequestHandler(ListPromptsRequestSchema, () => protocolErrors(logger, () => listPrompts(s, call)));
  server.setRequestHandler(GetPromptRequestSchema, (request) => protocolErrors(logger, () => getPrompt(s, call, surface.bundle, request.params.name, request.params.arguments)));
  server.setRequestHandler(CompleteRequestSchema, (request) => protocolErrors(logger, () => complete(s, call, request.params)));
  return server;
}
