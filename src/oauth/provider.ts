import type { RedisClient } from '../infra/redis.js';
import type { Context } from 'koa';
import Provider, { type Configuration, type ErrorOut, type KoaContextWithOIDC, errors, interactionPolicy } from 'oidc-provider';
import { mcpEndpointWorkspace, mcpScope } from '../auth/mcp-resource.js';
import type { PublicOrigin } from './public-origin.js';
import { type EndedToken, redisAdapter } from './redis-adapter.js';

/** Access tokens are short-lived: a refresh (which rotates) is where a revoked grant stops for good. */
const accessTokenSeconds = 15 * 60;

export interface ProviderOptions {
  issuer: string;
  /** The origin the server names its endpoints by, and the origins a resource indicator may name (PUBLIC_URL's). */
  origin: PublicOrigin;
  redis: RedisClient;
  /** Signing keys and cookie keys, the same on every API process (src/oauth/repository.ts keeps them). */
  jwks: { keys: object[] };
  cookieKeys: string[];
  /** Whether the workspace named by a resource indicator exists: a token is bound to one that does. */
  workspaceExists: (workspaceId: string) => Promise<boolean>;
  /** A grant that ended (revoked by a person, or by the provider for a code or refresh token used twice). */
  grantEnded: (grantId: string) => Promise<void>;
  /** Access tokens that ended (revoked by their client, RFC 7009, or with their grant). */
  tokensEnded: (tokens: EndedToken[]) => Promise<void>;
  /** A fault inside the provider (it answers the client `server_error`). */
  onServerError: (err: Error) => void;
}

const loopbackHosts = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Redirect URIs as OAuth 2.1 and RFC 8252 allow them: HTTPS, a loopback address over http (a native app's local
 * listener), or a private-use scheme (`com.example.app:/callback`, native clients only, which the provider checks).
 * Anything else over plain http could hand the code to whoever sits on the network.
 */
function checkRedirectUris(uris: unknown): void {
  for (const uri of Array.isArray(uris) ? uris : []) {
    const url = URL.parse(String(uri));
    if (url?.protocol === 'http:' && !loopbackHosts.has(url.hostname)) {
      throw Object.assign(new errors.InvalidRedirectUri(), {
        error_description: 'redirect_uris must use https, a loopback address over http, or a private-use scheme',
      });
    }
  }
}

/** Bounds on what anyone may register: a name as long as the API's names, URIs, lists, and the whole record. */
const registrationBounds = { name: 200, uri: 2_000, list: 10, recordBytes: 8 * 1024 };
const uriFields = ['client_uri', 'logo_uri', 'policy_uri', 'tos_uri', 'jwks_uri', 'sector_identifier_uri', 'initiate_login_uri'];
const listFields = ['redirect_uris', 'contacts', 'default_acr_values', 'response_types', 'grant_types'];
/** The standard fields checked here (the provider keeps no field it does not know). */
const boundedFields = ['client_name', ...uriFields, ...listFields];

/**
 * Registration is open (RFC 7591): every field a client registers with is bounded, so one registration costs the
 * store a bounded record. The provider checks the fields' types and meaning after this.
 */
function checkBounds(key: string, value: unknown, metadata: object): void {
  const refuse = (description: string) => {
    throw new errors.InvalidClientMetadata(description);
  };
  const { name, uri, list, recordBytes } = registrationBounds;
  if (key === 'client_name' && typeof value === 'string' && value.length > name) refuse(`client_name must be at most ${name} characters`);
  if (uriFields.includes(key) && typeof value === 'string' && value.length > uri) refuse(`${key} must be at most ${uri} characters`);
  if (listFields.includes(key) && Array.isArray(value)) {
    if (value.length > list) refuse(`${key} must have at most ${list} entries`);
    if (value.some((entry) => typeof entry === 'string' && entry.length > uri)) refuse(`each of ${key} must be at most ${uri} characters`);
  }
  // The whole record once (the validator visits client_name, given or not): whatever else the provider keeps, keys
  // and scopes among it, is bounded too.
  if (key === 'client_name' && Buffer.byteLength(JSON.stringify(metadata)) > recordBytes) refuse(`the client metadata must be at most ${recordBytes} bytes`);
}

/**
 * A loopback redirect URI matches whatever port the client listens on this time (RFC 8252 §7.3): a native app
 * takes a free port when it starts. The provider does this for clients registered as `native` only; MCP clients
 * with a loopback listener rarely say so when they register.
 */
function allowAnyLoopbackPort(provider: Provider): void {
  const exactly = provider.Client.prototype.redirectUriAllowed;
  const withoutPort = (uri: string) => {
    const url = URL.parse(uri);
    if (url?.protocol !== 'http:' || !['127.0.0.1', '[::1]'].includes(url.hostname)) return undefined;
    url.port = '';
    return url.href;
  };
  provider.Client.prototype.redirectUriAllowed = function redirectUriAllowed(this: InstanceType<Provider['Client']>, uri: string): boolean {
    const loopback = withoutPort(uri);
    return exactly.call(this, uri) || (loopback !== undefined && this.redirectUris!.some((registered) => withoutPort(registered) === loopback));
  };
}

/**
 * Consent is asked for every authorization, even when the browser's session already knows an agent: the person
 * picks who the client acts as each time, and a client never gets a code because another one was approved before.
 */
function consentEveryTime() {
  const policy = interactionPolicy.base();
  policy.get('consent')!.checks.push(
    new interactionPolicy.Check('consent_every_time', 'every authorization asks the person', (ctx) =>
      ctx.oidc.result?.consent ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT),
  );
  return policy;
}

/**
 * The error page of an authorization request that does not go back to the client: one found wrong before a person
 * saw it (see refuseBeforeConsent), or whose redirect URI is not registered. Nothing on it runs, loads or frames.
 */
async function renderError(ctx: KoaContextWithOIDC, out: ErrorOut): Promise<void> {
  const escape = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  ctx.set('Content-Security-Policy', "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  // prompt=none's errors carry the 303 of the redirect they were meant for: shown here, they are a bad request.
  if (ctx.status < 400) ctx.status = 400;
  ctx.type = 'html';
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization failed</title></head>
<body><h1>Authorization failed</h1><p>${escape(out.error)}: ${escape(out.error_description)}</p></body></html>`;
}

/**
 * An authorization request found wrong before a person has seen it (no or a wrong resource, no PKCE or `plain`,
 * `prompt=none`, …) ends on the error page, never at the client's redirect URI: registration is open, so that URI is
 * anyone's, and sending the browser there would make the service an open redirector (RFC 9700 §4.11.2). Once the
 * person has answered the consent page (the `resume` route), the answer goes back to the client they saw.
 * The provider emits the event before it decides where the error goes.
 */
function refuseBeforeConsent(provider: Provider): void {
  provider.on('authorization.error', (ctx: KoaContextWithOIDC, err: errors.OIDCProviderError) => {
    if (ctx.oidc?.route === 'authorization') err.allow_redirect = false;
  });
}

/**
 * The endpoints' URLs (in the metadata, and the consent's way back) under PUBLIC_URL, like the issuer: the provider
 * would build them from the request's Host, which the client chooses and a caching proxy could keep for everyone.
 */
function endpointsUnderIssuer(provider: Provider, origin: string): void {
  const context = provider.OIDCContext.prototype as { urlFor(name: string, opt?: object): string };
  const urlFor = context.urlFor;
  context.urlFor = function urlForUnderIssuer(this: unknown, name: string, opt?: object): string {
    const url = new URL(urlFor.call(this, name, opt));
    return new URL(`${url.pathname}${url.search}${url.hash}`, origin).href;
  };
}

/**
 * The authorization server of the workspaces' MCP endpoints, on oidc-provider: dynamic client registration,
 * the authorization code grant with PKCE (S256, always), refresh tokens that rotate, and access tokens bound to
 * one workspace's MCP endpoint by the `resource` parameter. The account a token acts for is the agent the
 * person chose on the console's consent page (src/oauth/service.ts).
 */
export function createProvider(options: ProviderOptions): Provider {
  const configuration: Configuration = {
    adapter: redisAdapter(options.redis, { grantEnded: options.grantEnded, tokensEnded: options.tokensEnded }),
    jwks: options.jwks as Configuration['jwks'],
    cookies: { keys: options.cookieKeys },
    clients: [],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    extraClientMetadata: {
      properties: boundedFields,
      validator: (ctx, key, value, metadata) => {
        // At registration (ctx is given); a client kept before a bound changed still loads.
        if (ctx) checkBounds(key, value, metadata);
        if (key === 'redirect_uris') checkRedirectUris(value);
      },
    },
    routes: {
      authorization: '/authorize',
      token: '/token',
      registration: '/register',
      revocation: '/revoke',
      jwks: '/jwks',
    },
    // `mcp` is also a scope a client may register with and ask for without naming a resource (the MCP SDK takes it
    // from the resource metadata's scopes_supported).
    scopes: [mcpScope, 'offline_access'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      // No registration access token: there is no client management endpoint (RFC 7592) to use one at.
      registration: { enabled: true, issueRegistrationAccessToken: false },
      // A client revokes its own tokens only (RFC 7009 §2.1).
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      // No OpenID Connect sessions to end: a token ends with its grant.
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: false },
      resourceIndicators: {
        enabled: true,
        // An authorization names its resource: a token is bound to one workspace's endpoint or is not made. At the
        // token endpoint the resource may be left out; the granted one is used.
        defaultResource: async (ctx, _client, oneOf) => {
          if (!oneOf && ctx.oidc.route === 'authorization') {
            throw new errors.InvalidTarget('resource is required: the MCP endpoint URL of one workspace');
          }
          return oneOf;
        },
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, resource) => {
          // The endpoint under PUBLIC_URL (or a loopback name of the service when it is not set): a token bound to the
          // same path under another origin is not for here.
          const workspaceId = options.origin.names(resource) ? mcpEndpointWorkspace(resource) : undefined;
          if (!workspaceId || !(await options.workspaceExists(workspaceId))) {
            throw new errors.InvalidTarget('resource must be the MCP endpoint of an existing workspace');
          }
          return { scope: mcpScope, audience: resource, accessTokenFormat: 'opaque', accessTokenTTL: accessTokenSeconds };
        },
      },
    },
    interactions: {
      policy: consentEveryTime(),
      url: (_ctx, interaction) => `/console/authorize/${interaction.uid}`,
    },
    // The account is the agent the person chose; the provider needs no more of it (no ID token claims).
    findAccount: async (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    // Every client that may refresh gets a refresh token, whether or not it asked for offline_access: hosted
    // clients rarely do, and without one the person would be asked again every few minutes.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Tokens outlive the browser session the consent happened in: they end when the grant ends.
    expiresWithSession: async () => false,
    ttl: {
      AccessToken: accessTokenSeconds,
      AuthorizationCode: 60,
      Interaction: 30 * 60,
      Grant: 30 * 24 * 60 * 60,
      RefreshToken: 30 * 24 * 60 * 60,
      Session: 24 * 60 * 60,
    },
    renderError,
  };
  const provider = new Provider(options.issuer, configuration);
  allowAnyLoopbackPort(provider);
  refuseBeforeConsent(provider);
  endpointsUnderIssuer(provider, options.origin.configured);
  provider.on('server_error', (_ctx: Context, err: Error) => options.onServerError(err));
  return provider;
}
