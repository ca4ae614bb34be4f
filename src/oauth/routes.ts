import type { Middleware } from 'koa';
import mount from 'koa-mount';
import { Type } from '@sinclair/typebox';
import { Id, Strict } from '../api/common-schemas.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import { oauthMountPath } from '../auth/mcp-resource.js';
import { redisUnavailable } from '../infra/redis.js';
import { ApproveBody, ConsentAnswerSchema, ConsentRequestSchema, GrantSchema } from './schemas.js';
import type { OAuthService } from './service.js';

const InteractionPath = Strict({ uid: Type.String({ minLength: 1, maxLength: 100, description: 'The authorization request’s id, from the consent page’s URL' }) });
const AgentPath = Strict({ workspaceId: Id('Workspace id'), agentId: Id('Agent id') });
const GrantPath = Strict({ workspaceId: Id('Workspace id'), agentId: Id('Agent id'), grantId: Id('Grant id') });

const base = { tag: 'MCP authorization' } as const;
const consent = 'The consent page’s step: a person signed in with a user key (an agent key is 403 user_key_required). ' +
  'An unknown, expired or already answered request is 404, as is a workspace the person is not a member of.';

export function oauthRoutes(services: { oauth: OAuthService }): AnyOperation[] {
  return [
    defineOperation({
      ...base, method: 'get', path: '/api/v1/oauth/interactions/:uid', operationId: 'getConsentRequest',
      summary: 'What a hosted client asks: which client, which workspace, and the agents it may act as',
      description: consent,
      access: { kind: 'principal' }, params: InteractionPath,
      responses: { 200: { description: 'The request', schema: ConsentRequestSchema } },
      errors: [403, 404],
      run: ({ principal, params }) => services.oauth.request(principal, params.uid),
    }),
    defineOperation({
      ...base, method: 'post', path: '/api/v1/oauth/interactions/:uid/approve', operationId: 'approveConsentRequest',
      summary: 'Approve: the client acts as this agent (or a new one the person registers and sponsors)',
      description: `${consent} Only the agent’s sponsor or an owner may pick an agent (403 insufficient_role). The browser then goes to redirectTo.`,
      access: { kind: 'principal' }, params: InteractionPath, body: ApproveBody,
      responses: { 200: { description: 'Where the browser goes next', schema: ConsentAnswerSchema } },
      errors: [403, 404],
      run: ({ principal, params, body, requestId }) => services.oauth.approve(principal, params.uid, requestId, body),
    }),
    defineOperation({
      ...base, method: 'post', path: '/api/v1/oauth/interactions/:uid/deny', operationId: 'denyConsentRequest',
      summary: 'Deny: the client gets access_denied',
      description: consent,
      access: { kind: 'principal' }, params: InteractionPath,
      responses: { 200: { description: 'Where the browser goes next', schema: ConsentAnswerSchema } },
      errors: [403, 404],
      run: ({ principal, params }) => services.oauth.deny(principal, params.uid),
    }),
    defineOperation({
      ...base, method: 'get', path: '/api/v1/workspaces/:workspaceId/agents/:agentId/grants', operationId: 'listAgentGrants',
      summary: 'The hosted clients a person let act as the agent',
      access: { kind: 'workspace', minRole: 'viewer', userKeyOnly: true }, params: AgentPath,
      responses: { 200: { description: 'The grants that hold', schema: Type.Object({ items: Type.Array(GrantSchema) }) } },
      handler: async ({ ctx, caller, params }) => {
        ctx.body = { items: await services.oauth.grants(caller, params.agentId) };
      },
    }),
    defineOperation({
      ...base, method: 'delete', path: '/api/v1/workspaces/:workspaceId/agents/:agentId/grants/:grantId', operationId: 'revokeAgentGrant',
      summary: 'End a hosted client’s access: its tokens are refused from the next request on, on every API process',
      description: 'Only the agent’s sponsor or a workspace owner (403 insufficient_role otherwise). Revoking a revoked grant changes nothing.',
      access: { kind: 'workspace', minRole: 'viewer', userKeyOnly: true }, params: GrantPath,
      responses: { 204: { description: 'Revoked' } },
      run: async ({ caller, params }) => {
        await services.oauth.revokeGrant(caller, params.agentId, params.grantId);
      },
    }),
  ];
}

/** Where clients look for the authorization server's metadata (RFC 8414): the issuer's path, and the origin's root. */
const metadataPaths = new Set(['/.well-known/oauth-authorization-server', `/.well-known/oauth-authorization-server${oauthMountPath}`, `/.well-known/openid-configuration${oauthMountPath}`]);

/** The registration endpoint as the provider's router matches it (any case, an optional final slash). */
const registrationPath = new RegExp(`^${oauthMountPath}/register/?$`, 'i');

/**
 * The authorization server itself (oidc-provider, a Koa application of its own) under /oauth, and its metadata
 * where RFC 8414 puts it for an issuer with a path. Its endpoints speak OAuth's own errors, not problem+json,
 * and are documented in docs/mcp.md rather than in the API's document; a registration past its address's hourly
 * limit is the service's own 429 rate_limited, as a key past its rate is.
 */
export function oauthServer(services: { oauth: OAuthService }): Middleware {
  let mounted: Middleware | undefined;
  return async (ctx, next) => {
    const metadata = ctx.method === 'GET' && metadataPaths.has(ctx.path);
    if (!metadata && ctx.path !== oauthMountPath && !ctx.path.startsWith(`${oauthMountPath}/`)) return next();
    // The provider would answer an unreachable Redis with a 500 of its own; the service's answer is a 503.
    if (!services.oauth.storeReachable) throw redisUnavailable(new Error('redis is not connected'));
    // The connection's address: the app trusts no X-Forwarded-For (createApp's `proxy`), so a client cannot pick it.
    if (ctx.method === 'POST' && registrationPath.test(ctx.path)) await services.oauth.admitRegistration(ctx.ip);
    mounted ??= mount(oauthMountPath, await services.oauth.provider());
    if (metadata) ctx.path = `${oauthMountPath}/.well-known/openid-configuration`;
    return mounted(ctx, next);
  };
}
