import { Type } from '@sinclair/typebox';
import type { Context, Middleware } from 'koa';
import { AppError } from '../errors.js';
import { unauthorized } from '../gate/admission.js';
import { Id, Strict } from '../api/common-schemas.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import { bearer } from '../http/access.js';
import { mcpEndpointPath, mcpEndpointPattern, mcpScope } from '../auth/mcp-resource.js';
import { type PublicOrigin, requestOrigin } from '../oauth/public-origin.js';

/**
 * How a generic MCP client learns to authenticate (RFC 9728, OAuth 2.0 Protected Resource Metadata): the MCP
 * endpoint's 401 names a metadata document, and the document names the service's authorization server
 * (src/oauth/), where a hosted client registers and asks a person's consent. An API key in the header works too.
 */

const metadataPrefix = '/.well-known/oauth-protected-resource';

/** What names the service in these answers: the authorization server's issuer and the origin it goes by (src/oauth/). */
export interface ResourceNaming {
  readonly issuer: string;
  readonly origin: PublicOrigin;
}

/**
 * The origin to name the service by in an answer to this request: PUBLIC_URL's, or the loopback alias the request
 * came to when PUBLIC_URL is not set (PublicOrigin). The request's scheme and host are read as Koa reads them under
 * the app's `proxy` setting (createApp).
 */
function originOf(ctx: Context, naming: ResourceNaming): string {
  return naming.origin.answering(requestOrigin(ctx.protocol, ctx.host));
}

/**
 * The WWW-Authenticate of the MCP endpoint's 401: the resource metadata's URL, and `error="invalid_token"` when a
 * bearer key was sent and refused (RFC 6750 §3.1: a request that carried none gets no error code).
 */
function challengeOf(ctx: Context, pathSegment: string, naming: ResourceNaming): string {
  const origin = originOf(ctx, naming);
  let workspaceId: string | undefined;
  try {
    workspaceId = decodeURIComponent(pathSegment);
  } catch {
    // Not a percent-encoded id: nothing to name.
  }
  const params = [
    ...(bearer(ctx) ? ['error="invalid_token"'] : []),
    ...(workspaceId ? [`resource_metadata="${origin}${metadataPrefix}${mcpEndpointPath(workspaceId)}"`] : []),
  ];
  return params.length ? `Bearer ${params.join(', ')}` : 'Bearer';
}

/**
 * Names the resource metadata in the MCP endpoint's 401, which the gate makes without knowing the request. Other
 * routes keep a plain challenge: the document describes the MCP endpoint alone.
 */
export function mcpChallenge(s: { oauth: ResourceNaming }): Middleware {
  return async (ctx, next) => {
    const segment = mcpEndpointPattern.exec(ctx.path)?.[1];
    if (!segment) return next();
    try {
      await next();
    } catch (err) {
      if (err instanceof AppError && err.code === 'unauthorized') throw unauthorized(challengeOf(ctx, segment, s.oauth));
      throw err;
    }
  };
}

const ProtectedResourceMetadata = Type.Object(
  {
    resource: Type.String({ format: 'uri', description: 'The MCP endpoint this document describes, under PUBLIC_URL (or, when it is not set, the loopback name the request used)' }),
    resource_name: Type.String(),
    resource_documentation: Type.String({ format: 'uri', description: 'The API documentation' }),
    bearer_methods_supported: Type.Array(Type.Literal('header'), { description: 'An API key (pk_…) in Authorization: Bearer' }),
    authorization_servers: Type.Array(Type.String({ format: 'uri' }), { description: 'The issuer of the OAuth 2.1 authorization server for hosted clients (docs/mcp.md)' }),
    scopes_supported: Type.Array(Type.String()),
  },
  { additionalProperties: false, description: 'RFC 9728 OAuth 2.0 Protected Resource Metadata' },
);

/** `s.oauth.issuer`: the authorization server clients are sent to (src/oauth/). */
export function protectedResourceRoutes(s: { oauth: ResourceNaming }): AnyOperation[] {
  return [
    defineOperation({
      method: 'get', path: `${metadataPrefix}/api/v1/workspaces/:workspaceId/mcp`, operationId: 'mcpProtectedResource', tag: 'MCP',
      summary: 'How to authenticate to the workspace’s MCP endpoint (RFC 9728 protected resource metadata)',
      description:
        'Public, like the fact that the endpoint needs a key: the same document for every workspace id, whether or not it exists. ' +
        'The MCP endpoint’s 401 names this URL in WWW-Authenticate (resource_metadata). The endpoint takes an API key, or an ' +
        'OAuth access token from the authorization server named here, as a bearer token in the Authorization header (docs/mcp.md).',
      access: { kind: 'public' },
      params: Strict({ workspaceId: Id('Workspace id') }),
      responses: { 200: { description: 'The metadata document', schema: ProtectedResourceMetadata } },
      handler: async ({ ctx, params }) => {
        const origin = originOf(ctx, s.oauth);
        ctx.body = {
          resource: `${origin}${mcpEndpointPath(params.workspaceId)}`,
          resource_name: `Playbooks MCP endpoint of workspace ${params.workspaceId}`,
          resource_documentation: `${origin}/docs`,
          authorization_servers: [s.oauth.issuer],
          scopes_supported: [mcpScope],
          bearer_methods_supported: ['header'],
        };
      },
    }),
  ];
}
