import { Type } from '@sinclair/typebox';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { mcpEndpointPattern } from '../auth/mcp-resource.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { WorkspacePath } from '../api/common-schemas.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import { bearer } from '../http/access.js';
import { mcpServerFor, mcpSurfaceOf } from './server.js';
import type { ToolServices } from './tools.js';
import { VerbatimTransport } from './verbatim.js';

const loopbackNames = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
const isLoopbackAddress = (address: string | undefined) => !!address && (address === '::1' || /^(::ffff:)?127\./.test(address));

/** The host name of a Host header or an origin's authority, without its port, lower-cased. */
function hostnameOf(authority: string): string {
  const bracketed = /^\[[^\]]+\]/.exec(authority);
  return (bracketed ? bracketed[0] : authority.split(':')[0]).toLowerCase();
}

/**
 * Refuses requests a browser could have been tricked into sending (DNS rebinding, cross-site requests) without
 * refusing a server behind a proxy: on a connection that arrives on a loopback address (a local server, or a
 * proxy on the same machine) the Host must be a loopback name or one of MCP_ALLOWED_HOSTS; from elsewhere any
 * Host is taken unless MCP_ALLOWED_HOSTS names the ones to take. An Origin, when sent, must be the request's
 * own or one of MCP_ALLOWED_ORIGINS.
 */
export function checkHostAndOrigin(ctx: Context, mcp: Config['mcp']): void {
  const host = hostnameOf(ctx.get('host'));
  const allowed = mcp.allowedHosts;
  const hostOk =
    allowed.includes('*') || loopbackNames.has(host) || allowed.includes(host) || (allowed.length === 0 && !isLoopbackAddress(ctx.socket.localAddress));
  if (!hostOk) throw new AppError('forbidden', `Host ${host} is not allowed for MCP; list it in MCP_ALLOWED_HOSTS`);
  const origin = ctx.get('origin');
  if (!origin) return;
  let own = false;
  try {
    own = new URL(origin).host.toLowerCase() === ctx.get('host').toLowerCase();
  } catch {
    // An origin that is not a URL ("null") is nobody's own.
  }
  if (!own && !mcp.allowedOrigins.includes(origin.toLowerCase())) {
    throw new AppError('forbidden', `Origin ${origin} is not allowed for MCP; list it in MCP_ALLOWED_ORIGINS`);
  }
}

/** The Host/Origin check, ahead of the router: a refused request never reaches the gate. */
export function mcpHostGuard(mcp: Config['mcp']): Middleware {
  return (ctx, next) => {
    if (mcpEndpointPattern.test(ctx.path)) checkHostAndOrigin(ctx, mcp);
    return next();
  };
}

const JsonRpcMessage = Type.Object({ jsonrpc: Type.Literal('2.0') }, { additionalProperties: true });
/** A JSON-RPC batch (protocol versions before 2025-06-18) holds at most this many messages: each is a tool call. */
export const maxBatchMessages = 100;

/** Copies a Koa request's headers into a Fetch Headers object (the SDK's web-standard transport takes a Request). */
function headersOf(ctx: Context): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** The MCP endpoint: `operations` are the API's, those with a tool face its tools. */
export function mcpRoutes(services: ToolServices & { config: Config; logger: Logger }, operations: AnyOperation[]): AnyOperation[] {
  const surface = mcpSurfaceOf(operations);
  return [
    defineOperation({
      method: 'post', path: '/api/v1/workspaces/:workspaceId/mcp', operationId: 'mcp', tag: 'MCP',
      summary: 'The workspace’s tools over the Model Context Protocol (Streamable HTTP, stateless, JSON responses)',
      description:
        'One JSON-RPC message per request (initialize, tools/list, tools/call, …), authenticated like every workspace route: ' +
        'no or a bad key is 401 with WWW-Authenticate: Bearer and the resource_metadata URL (RFC 9728), a workspace the key cannot see 404. A get_bundle or get_manifest call ' +
        'counts one retrieval against the quota, as the REST retrieval does. Host and Origin are checked against DNS rebinding ' +
        '(MCP_ALLOWED_HOSTS, MCP_ALLOWED_ORIGINS). See docs/mcp.md.',
      access: { kind: 'workspace', minRole: 'viewer', oauth: true },
      params: WorkspacePath,
      body: Type.Union([JsonRpcMessage, Type.Array(JsonRpcMessage, { minItems: 1, maxItems: maxBatchMessages })]),
      responses: {
        200: { description: 'The JSON-RPC response', schema: Type.Union([JsonRpcMessage, Type.Array(JsonRpcMessage)]) },
        202: { description: 'Accepted: the message was a notification or a response' },
      },
      // 406 not_acceptable: the Accept header must list application/json and text/event-stream.
      errors: [403, 406],
      handler: async ({ ctx, caller, body }) => {
        const call = { caller, token: bearer(ctx)!, defaultMaxTokens: services.config.mcp.defaultMaxTokens };
        const server = mcpServerFor(services, surface, call, services.logger);
        // Stateless: no session id, and every answer is one JSON body (no SSE stream).
        const transport = new VerbatimTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await server.connect(transport);
        try {
          const request = new Request(`http://localhost${ctx.path}`, { method: 'POST', headers: headersOf(ctx) });
          const response = await transport.handleRequest(request, { parsedBody: body });
          const bytes = await transport.bytesOf(response);
          // The transport's own refusals (Accept, protocol version) become problems like every other error.
          if (response.status >= 400) {
            const error = bytes.length ? (JSON.parse(bytes.toString('utf8')) as { error?: { message?: string } }).error : undefined;
            throw new AppError(response.status === 406 ? 'not_acceptable' : 'invalid_request', error?.message || 'The MCP request was refused');
          }
          ctx.status = response.status;
          if (bytes.length) {
            ctx.type = response.headers.get('content-type') ?? 'application/json';
            ctx.body = bytes;
          }
        } finally {
          await server.close();
        }
      },
    }),
  ];
}
