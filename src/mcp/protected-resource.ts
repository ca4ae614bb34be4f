import { Type } from '@sinclair/typebox';
import type { Context, Middleware } from 'koa';
import { AppError } from '../errors.js';
import { unauthorized } from '../gate/admission.js';
import { Id, Strict } from '../http/common-schemas.js';
import { type AnyRoute, defineRoute } from '../http/route.js';
import { bearer } from '../http/router.js';

/**
 * How a generic MCP client learns to authenticate (RFC 9728, OAuth 2.0 Protected Resource Metadata): the MCP
 * endpoint's 401 names a metadata document, and the document says the endpoint takes a bearer API key in the
 * header and names no authorization server. When the service grows one, its issuer goes in
 * `authorization_servers` and clients that speak OAuth start their flow from there.
 */

const metadataPrefix = '/.well-known/oauth-protected-resource';
const mcpPath = /^\/api\/v1\/workspaces\/([^/]+)\/mcp\/?$/i;
// A Host that is a name or an address with an optional port: anything else cannot be put in a URL, nor between quotes.
const plainHost = /^(?:[\w.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The service's origin as the request names it: its Host, and the scheme and host Koa reads under the app's `proxy`
 * setting (createApp). Koa's own `ctx.origin` is the Origin header, not this.
 */
function originOf(ctx: Context): string | undefined {
  return plainHost.test(ctx.host) ? `${ctx.protocol}://${ctx.host}` : undefined;
}

const endpointPath = (workspaceId: string) => `/api/v1/workspaces/${encodeURIComponent(workspaceId)}/mcp`;

/**
 * The WWW-Authenticate of the MCP endpoint's 401: the resource metadata's URL, and `error="invalid_token"` when a
 * bearer key was sent and refused (RFC 6750 §3.1: a request that carried none gets no error code).
 */
function challengeOf(ctx: Context, pathSegment: string): string {
  const origin = originOf(ctx);
  let workspaceId: string | undefined;
  try {
    workspaceId = decodeURIComponent(pathSegment);
  } catch {
    // Not a percent-encoded id: nothing to name.
  }
  const params = [
    ...(bearer(ctx) ? ['error="invalid_token"'] : []),
    ...(origin && workspaceId ? [`resource_metadata="${origin}${metadataPrefix}${endpointPath(workspaceId)}"`] : []),
  ];
  return params.length ? `Bearer ${params.join(', ')}` : 'Bearer';
}

/**
 * Names the resource metadata in the MCP endpoint's 401, which the gate makes without knowing the request. Other
 * routes keep a plain challenge: the document describes the MCP endpoint alone.
 */
export function mcpChallenge(): Middleware {
  return async (ctx, next) => {
    const segment = mcpPath.exec(ctx.path)?.[1];
    if (!segment) return next();
    try {
      await next();
    } catch (err) {
      if (err instanceof AppError && err.code === 'unauthorized') throw unauthorized(challengeOf(ctx, segment));
      throw err;
    }
  };
}

const ProtectedResourceMetadata = Type.Object(
  {
    resource: Type.String({ format: 'uri', description: 'The MCP endpoint this document describes, as the request named the service' }),
    resource_name: Type.String(),
    resource_documentation: Type.String({ format: 'uri', description: 'The API documentation' }),
    bearer_methods_supported: Type.Array(Type.Literal('header'), { description: 'An API key (pk_…) in Authorization: Bearer' }),
    authorization_servers: Type.Optional(
      Type.Array(Type.String({ format: 'uri' }), { description: 'Absent: there is no authorization server, and only an API key authenticates' }),
    ),
  },
  { additionalProperties: false, description: 'RFC 9728 OAuth 2.0 Protected Resource Metadata' },
);

const noAuthorizationServer =
  'This service has no OAuth authorization server and registers no clients. Authenticate with an API key (pk_…) sent as ' +
  'Authorization: Bearer <key>; see /docs';

export function protectedResourceRoutes(): AnyRoute[] {
  return [
    defineRoute({
      method: 'get', path: `${metadataPrefix}/api/v1/workspaces/:workspaceId/mcp`, operationId: 'mcpProtectedResource', tag: 'MCP',
      summary: 'How to authenticate to the workspace’s MCP endpoint (RFC 9728 protected resource metadata)',
      description:
        'Public, like the fact that the endpoint needs a key: the same document for every workspace id, whether or not it exists. ' +
        'The MCP endpoint’s 401 names this URL in WWW-Authenticate (resource_metadata). There is no authorization server: ' +
        'the endpoint takes an API key as a bearer token in the Authorization header.',
      access: { kind: 'public' },
      params: Strict({ workspaceId: Id('Workspace id') }),
      responses: { 200: { description: 'The metadata document', schema: ProtectedResourceMetadata } },
      handler: async ({ ctx, params }) => {
        const origin = originOf(ctx);
        if (!origin) throw new AppError('invalid_request', 'The Host header is not a host name, so the resource cannot be named');
        ctx.body = {
          resource: `${origin}${endpointPath(params.workspaceId)}`,
          resource_name: `Playbooks MCP endpoint of workspace ${params.workspaceId}`,
          resource_documentation: `${origin}/docs`,
          bearer_methods_supported: ['header'],
        };
      },
    }),
    // Metadata that names no authorization server sends a client that speaks OAuth to the endpoint's origin instead
    // (the fallback the MCP authorization spec keeps for older servers): its metadata first, then registration.
    defineRoute({
      method: 'get', path: '/.well-known/oauth-authorization-server', operationId: 'oauthAuthorizationServer', tag: 'MCP',
      summary: 'Not served: there is no OAuth authorization server; the 404 says to use an API key',
      access: { kind: 'public' },
      responses: {},
      errors: [404],
      handler: async () => {
        throw new AppError('not_found', noAuthorizationServer);
      },
    }),
    defineRoute({
      method: 'post', path: '/register', operationId: 'oauthRegisterClient', tag: 'MCP',
      summary: 'Refused: no OAuth client is registered here; the 403 says to use an API key',
      description:
        'Where OAuth clients (RFC 7591) register when no authorization server is named. The problem carries `error` and ' +
        '`error_description` too, the members an OAuth client reads from a refused registration.',
      access: { kind: 'public' },
      responses: {},
      // 400: an Idempotency-Key header that is not 1 to 255 characters, as on every POST.
      errors: [400, 403],
      handler: async () => {
        // A 404 here would send mcp-remote on to its SSE transport, whose refusal would then be the only error shown.
        throw new AppError('forbidden', noAuthorizationServer, { extensions: { error: 'access_denied', error_description: noAuthorizationServer } });
      },
    }),
  ];
}
