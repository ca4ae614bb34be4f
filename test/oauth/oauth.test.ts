import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { expect } from 'chai';
import { Cluster, type Redis } from 'ioredis';
import type { RedisClient } from '../../src/infra/redis.js';
import { freePort } from '../../src/infra/local-deps.js';
import { clientKey, unusedClientSeconds } from '../../src/oauth/redis-adapter.js';
import { type TestWorkspace, addMember, createUser, createWorkspace, problem, request, unique } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { startApiProcess } from '../support/api-process.js';
import { env, startExtraService, testRedis } from '../support/harness.js';
import { createNode } from '../support/nodes.js';
import { type RawReply, ownLoopbackAddress, rawRequest } from '../support/raw-http.js';
import {
  type McpReply, answerConsent, authorizationUrl, authorize, authorizedClient, beginAuthorization, completeAuthorization,
  auditEventsOf, consentRequest, exchangeCode, follow, CookieJar, issuer, mcpCall, mcpResource, mcpTool, origin, pkcePair, quotaUsed, refresh, registerClient, registration, workspaceWithApprovedPlaybook,
} from '../support/oauth.js';

const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hosted', version: '1' } };

/** The token works: tools/list answers with the tools. */
async function expectServed(token: string, w: TestWorkspace, baseUrl?: string): Promise<void> {
  const listed = await mcpCall(token, w, 'tools/list', {}, { baseUrl });
  expect(listed.status, listed.text.slice(0, 300)).to.equal(200);
  expect(listed.body.result.tools.map((t: any) => t.name)).to.include('get_bundle');
}

/** A refusal of the token at the MCP endpoint: 401 with a Bearer challenge saying the token is invalid. */
function expectTokenRefused(reply: McpReply): void {
  expect(reply.status, reply.text.slice(0, 300)).to.equal(401);
  expect(reply.headers.get('www-authenticate')).to.match(/^Bearer /).and.include('error="invalid_token"');
}

/** A registration's body as MCP clients send it, with these fields added or replaced. */
const clientMetadata = (fields: Record<string, unknown> = {}) => ({
  client_name: unique('Client'), redirect_uris: ['http://127.0.0.1:8765/callback'], grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'], token_endpoint_auth_method: 'none', ...fields,
});

/** POST /oauth/register from a local address of the test's own: what is counted per address is its alone. */
const registerFrom = (localAddress: string, body: unknown) => rawRequest(`${issuer()}/register`, { method: 'POST', body, localAddress });

/** MEMORY USAGE of a key, asked of the node that holds it (ioredis does not route the command by its key). */
async function memoryUsage(redis: RedisClient, key: string): Promise<number | undefined> {
  for (const node of redis instanceof Cluster ? redis.nodes('master') : [redis as Redis]) {
    const used = await node.call('MEMORY', 'USAGE', key).catch(() => null);
    if (typeof used === 'number') return used;
  }
  return undefined;
}

describe('MCP authorization (OAuth 2.1)', function () {
  this.timeout(120_000);

  describe('discovery and registration', () => {
    it('an unauthenticated MCP request points to the resource metadata, which names the authorization server and its S256 metadata', async () => {
      const w = await createWorkspace();
      const challenge = await mcpCall(undefined, w, 'initialize', initialize);
      expect(challenge.status).to.equal(401);
      const metadataUrl = `${origin()}/.well-known/oauth-protected-resource${w.path('/mcp')}`;
      expect(challenge.headers.get('www-authenticate')).to.equal(`Bearer resource_metadata="${metadataUrl}"`);

      const prm = await fetch(metadataUrl);
      expect(prm.status).to.equal(200);
      const resource = await prm.json();
      expect(resource).to.include({ resource: mcpResource(w) });
      expect(resource.authorization_servers).to.deep.equal([issuer()]);
      expect(resource.scopes_supported).to.deep.equal(['mcp']);
      expect(resource.bearer_methods_supported).to.deep.equal(['header']);
      expect(resource.resource_name).to.be.a('string');

      const as = await fetch(`${origin()}/.well-known/oauth-authorization-server/oauth`);
      expect(as.status).to.equal(200);
      const meta = await as.json();
      expect(meta).to.include({
        issuer: issuer(),
        authorization_endpoint: `${issuer()}/authorize`,
        token_endpoint: `${issuer()}/token`,
        registration_endpoint: `${issuer()}/register`,
        revocation_endpoint: `${issuer()}/revoke`,
      });
      expect(meta.code_challenge_methods_supported).to.deep.equal(['S256']);
      expect(meta.grant_types_supported).to.include.members(['authorization_code', 'refresh_token']);
      expect(meta.token_endpoint_auth_methods_supported).to.include('none');
      expect(meta.response_types_supported).to.include('code');

      const oidc = await fetch(`${issuer()}/.well-known/openid-configuration`);
      expect(oidc.status).to.equal(200);
      expect((await oidc.json()).issuer).to.equal(issuer());
    });

    it('registers a public client whose redirect URIs are https, loopback or a private-use scheme', async () => {
      const accepted = [
        ['https://client.example/oauth/callback'],
        ['http://127.0.0.1:8765/callback'],
        ['http://[::1]:8765/callback'],
        ['http://localhost:8765/callback'],
        ['com.example.app:/callback'],
        ['https://client.example/a', 'http://127.0.0.1:9000/b'],
      ];
      for (const redirectUris of accepted) {
        // A private-use scheme belongs to a native app, which says so when it registers (RFC 8252, OIDC registration).
        const native = redirectUris.some((uri) => !uri.startsWith('http'));
        const res = await registration({
          client_name: unique('Client'), redirect_uris: redirectUris, grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'], token_endpoint_auth_method: 'none', ...(native ? { application_type: 'native' } : {}),
        });
        expect(res.status, `${redirectUris}: ${res.text}`).to.equal(201);
        expect(res.body.client_id).to.be.a('string').and.not.equal('');
        expect(res.body.redirect_uris).to.deep.equal(redirectUris);
        expect(res.body.client_secret, 'a public client gets no secret').to.equal(undefined);
      }
    });

    it('registers a client that asks for the scope the resource metadata lists, as the MCP SDK does', async () => {
      const res = await registration({
        client_name: unique('SDK-like'), redirect_uris: ['http://127.0.0.1:8765/callback'], grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'], token_endpoint_auth_method: 'none', scope: 'mcp',
      });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.client_id).to.be.a('string');
    });

    it('refuses a plain http redirect URI that is not loopback: 400 invalid_redirect_uri', async () => {
      const refused = [
        ['http://client.example/callback'],
        ['http://192.168.1.10:8080/callback'],
        ['http://localhost.evil.example/callback'],
        ['https://client.example/ok', 'http://client.example/not-ok'],
      ];
      for (const redirectUris of refused) {
        const res = await registration({ client_name: 'Plain http', redirect_uris: redirectUris, token_endpoint_auth_method: 'none' });
        expect(res.status, `${redirectUris}: ${res.text}`).to.equal(400);
        expect(res.body.error, res.text).to.equal('invalid_redirect_uri');
      }
    });

    it('takes OAUTH_REGISTRATIONS_PER_HOUR registrations from one address in an hour, then 429 rate_limited with Retry-After', async () => {
      const limit = env.config.oauthRegistrationsPerHour;
      const hourOf = () => Math.floor(Date.now() / 3_600_000);
      for (let attempt = 1; ; attempt++) {
        const address = ownLoopbackAddress();
        const hour = hourOf();
        const answers: RawReply[] = [];
        for (let i = 0; i <= limit; i++) answers.push(await registerFrom(address, clientMetadata()));
        // The counter is per clock hour: a burst that straddled two is tried once more.
        if (hourOf() !== hour && attempt === 1) continue;
        expect(answers.slice(0, limit).filter((a) => a.status !== 201).map((a) => `${a.status} ${a.text}`)).to.deep.equal([]);
        const refused = answers[limit];
        expect(refused.status, refused.text).to.equal(429);
        expect(refused.headers['content-type']).to.match(/^application\/problem\+json/);
        expect(refused.body.code).to.equal('rate_limited');
        expect(Number(refused.headers['retry-after'])).to.be.within(1, 3600);
        // Another address is counted apart.
        const elsewhere = await registerFrom(ownLoopbackAddress(), clientMetadata());
        expect(elsewhere.status, elsewhere.text).to.equal(201);
        break;
      }
    });

    it('refuses an oversized registration with 400 invalid_client_metadata: each field and the whole record are bounded', async () => {
      const address = ownLoopbackAddress();
      // RFC 7591 §3.2.2 names an error of redirect_uris invalid_redirect_uri.
      const oversized: [string, Record<string, unknown>, string][] = [
        ['a client_name of 201 characters', { client_name: 'n'.repeat(201) }, 'invalid_client_metadata'],
        ['a client_name of 54,000 characters', { client_name: 'n'.repeat(54_000) }, 'invalid_client_metadata'],
        ['a client_uri of 2,001 characters', { client_uri: `https://client.example/${'p'.repeat(2_001 - 'https://client.example/'.length)}` }, 'invalid_client_metadata'],
        ['eleven redirect URIs', { redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:${9000 + i}/callback`) }, 'invalid_redirect_uri'],
        ['contacts beyond ten', { contacts: Array.from({ length: 11 }, (_, i) => `person${i}@client.example`) }, 'invalid_client_metadata'],
        ['a record over 8 KiB', { jwks: { keys: [{ kty: 'oct', k: 'k'.repeat(9_000) }] } }, 'invalid_client_metadata'],
      ];
      for (const [what, fields, error] of oversized) {
        const res = await registerFrom(address, clientMetadata(fields));
        expect(res.status, `${what}: ${res.text.slice(0, 300)}`).to.equal(400);
        expect(res.body?.error, `${what}: ${res.text.slice(0, 300)}`).to.equal(error);
      }
      const atBounds = await registerFrom(address, clientMetadata({ client_name: 'n'.repeat(200), client_uri: `https://client.example/${'p'.repeat(1_977)}` }));
      expect(atBounds.status, atBounds.text).to.equal(201);
      expect(atBounds.body.client_name).to.have.length(200);
    });

    it('an unused client is one bounded record that expires by itself; once a person approves it, it is kept', async () => {
      const redis = testRedis();
      try {
        // As large as the bounds allow.
        const largest = clientMetadata({
          client_name: 'n'.repeat(200),
          client_uri: `https://client.example/${'c'.repeat(1_977)}`,
          logo_uri: `https://client.example/${'l'.repeat(1_977)}`,
          policy_uri: `https://client.example/${'p'.repeat(1_977)}`,
          redirect_uris: Array.from({ length: 10 }, (_, i) => `http://127.0.0.1:${9000 + i}/callback`),
        });
        const registered = await registerFrom(ownLoopbackAddress(), largest);
        expect(registered.status, registered.text).to.equal(201);
        // No registration access token: there is no management endpoint to use one at, and no second record.
        expect(registered.body.registration_access_token).to.equal(undefined);
        const key = clientKey(registered.body.client_id);
        expect(await redis.ttl(key)).to.be.within(unusedClientSeconds - 60, unusedClientSeconds);
        expect(await memoryUsage(redis, key)).to.be.a('number').and.at.most(9 * 1024);

        const w = await createWorkspace();
        const client = { clientId: registered.body.client_id as string, name: registered.body.client_name as string, redirectUris: registered.body.redirect_uris as string[] };
        await authorizedClient(w, { client });
        expect(await redis.ttl(key), 'an approved client does not expire').to.equal(-1);
      } finally {
        redis.disconnect();
      }
    });

    it('the metadata documents name the service by PUBLIC_URL, whatever Host the request carries', async () => {
      const w = await createWorkspace();
      const { port } = new URL(origin());
      for (const host of ['evil.example', 'evil.example:8443', `localhost:${port}`]) {
        for (const path of ['/.well-known/oauth-authorization-server/oauth', '/.well-known/oauth-authorization-server', '/oauth/.well-known/openid-configuration']) {
          const as = await rawRequest(`${origin()}${path}`, { headers: { host } });
          expect(as.status, `${host} ${path}: ${as.text.slice(0, 300)}`).to.equal(200);
          expect(as.body, `${host} ${path}`).to.include({
            issuer: issuer(), authorization_endpoint: `${issuer()}/authorize`, token_endpoint: `${issuer()}/token`,
            registration_endpoint: `${issuer()}/register`, revocation_endpoint: `${issuer()}/revoke`, jwks_uri: `${issuer()}/jwks`,
          });
        }
        const prm = await rawRequest(`${origin()}/.well-known/oauth-protected-resource${w.path('/mcp')}`, { headers: { host } });
        expect(prm.status, `${host}: ${prm.text.slice(0, 300)}`).to.equal(200);
        expect(prm.body, host).to.include({ resource: mcpResource(w), resource_documentation: `${origin()}/docs` });
        expect(prm.body.authorization_servers).to.deep.equal([issuer()]);
      }
    });

    it('answers malformed requests to its endpoints with a 4xx, never a 5xx', async () => {
      const json = { 'content-type': 'application/json' };
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const probes: [string, RequestInit][] = [
        ['/oauth/token', { method: 'POST', headers: json, body: '{bad' }],
        ['/oauth/token', { method: 'POST', headers: form, body: 'grant_type=authorization_code&code=x&client_id=nobody' }],
        ['/oauth/token', { method: 'POST' }],
        ['/oauth/register', { method: 'POST', headers: json, body: '{bad' }],
        ['/oauth/register', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' }],
        ['/oauth/register', { method: 'POST', headers: json, body: '{"redirect_uris":"x"}' }],
        ['/oauth/register', { method: 'POST', headers: json, body: '[1,2]' }],
        ['/oauth/register', { method: 'POST', headers: json, body: JSON.stringify({ redirect_uris: ['https://x.example/cb'], client_name: 'x'.repeat(70_000) }) }],
        ['/oauth/authorize', {}],
        ['/oauth/authorize?client_id=nobody&response_type=code', {}],
        ['/oauth/authorize/no-such-interaction', {}],
        ['/oauth/revoke', { method: 'POST', headers: form, body: 'token=x' }],
        ['/oauth/no-such-endpoint', {}],
      ];
      for (const [path, init] of probes) {
        const res = await fetch(`${origin()}${path}`, { ...init, redirect: 'manual' });
        expect(res.status, `${init.method ?? 'GET'} ${path}: ${await res.text()}`).to.be.within(400, 499);
      }
    });

    it('a process that cannot open the kept server keys (another SECRETS_KEY) replaces them and serves the flow', async () => {
      const other = await startExtraService({ SECRETS_KEY: 'another-secrets-key-0123456789abcdef' });
      try {
        const jwks = await fetch(`${other.url}/oauth/jwks`);
        expect(jwks.status).to.equal(200);
        expect((await jwks.json()).keys).to.have.length(1);
        const registered = await fetch(`${other.url}/oauth/register`, {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'Other key', redirect_uris: ['http://127.0.0.1:8765/callback'], token_endpoint_auth_method: 'none' }),
        });
        expect(registered.status).to.equal(201);
      } finally {
        await other.stop();
      }
    });
  });

  describe('the authorization code flow', () => {
    it('a client approved to act as an agent lists the tools and gets a bundle over MCP, counted against the quota', async () => {
      const { workspace: w, playbookId, nodeId: guideId } = await workspaceWithApprovedPlaybook();
      const agent = await createAgent(w, { role: 'viewer', name: unique('Reader') });
      const client = await registerClient(['http://127.0.0.1:8976/callback'], unique('Claude-like'));

      const result = await authorize({ client, workspace: w, userKey: w.owner.key, decision: { agentId: agent.agentId }, state: 'state-123' });
      expect(result.answer.body.agentId).to.equal(agent.agentId);
      expect(result.error).to.equal(null);
      expect(result.code).to.be.a('string');
      expect(result.state).to.equal('state-123');
      expect(result.iss).to.equal(issuer());

      const exchanged = await exchangeCode(client, result.code!, result.pkce.verifier, result.redirectUri, mcpResource(w));
      expect(exchanged.status, exchanged.text).to.equal(200);
      const tokens = exchanged.body;
      expect(tokens.token_type).to.match(/^bearer$/i);
      expect(tokens.expires_in).to.be.a('number').within(1, 3600);
      expect(tokens.refresh_token).to.be.a('string');
      expect(tokens.scope).to.include('mcp');
      expect(tokens.access_token).to.be.a('string').and.not.match(/^pk_/);

      await expectServed(tokens.access_token, w);
      const before = await quotaUsed(w);
      const bundle = await mcpTool(tokens.access_token, w, 'get_bundle', { playbook: playbookId });
      expect(bundle.status, bundle.text).to.equal(200);
      expect(bundle.body.result.isError ?? false, bundle.text).to.equal(false);
      expect(bundle.body.result.structuredContent.nodes.map((n: any) => n.id)).to.deep.equal([guideId]);
      expect((await quotaUsed(w)) - before).to.equal(1);

      const [approved] = await auditEventsOf(w, 'agent.grant.approved');
      expect(approved, 'agent.grant.approved recorded').to.not.equal(undefined);
      expect(approved.actor).to.include({ kind: 'user', id: w.owner.userId });
      const text = JSON.stringify(approved);
      expect(text, 'the event names the agent').to.include(agent.agentId);
      expect(text, 'the event names the client').to.include(client.clientId);
    });

    it('what the token changes is recorded as the agent’s, naming the client', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w, { role: 'editor' });
      const node = await createNode(w);
      const { tokens, client } = await authorizedClient(w, { decision: { agentId: agent.agentId } });
      const note = await mcpTool(tokens.access_token, w, 'annotate', {
        targetType: 'context_node', targetId: node.id, scopeType: 'workspace_overlay', title: 'Tip', content: 'Read twice',
      });
      expect(note.status, note.text).to.equal(200);
      expect(note.body.result.isError ?? false, note.text).to.equal(false);
      const [event] = await auditEventsOf(w, 'annotation.created');
      expect(event.targetIds).to.include(note.body.result.structuredContent.id);
      expect(event.actor).to.include({ kind: 'agent', id: agent.agentId, sponsorUserId: w.owner.userId });
      expect(event.client, JSON.stringify(event)).to.deep.equal({ id: client.clientId, name: client.name });
    });

    it('approving as a new agent registers one the person sponsors, its role capped by theirs', async () => {
      const w = await createWorkspace();
      const editor = await addMember(w, 'editor');
      const name = unique('New agent');
      const { tokens, agentId } = await authorizedClient(w, { userKey: editor.key, decision: { agent: { name, role: 'owner' } } });
      expect(agentId).to.match(/^ag_/);
      const agents = await request('GET', w.path('/agents'), { token: w.owner.key });
      const created = agents.body.agents.find((a: any) => a.id === agentId);
      expect(created).to.include({ name, sponsorUserId: editor.userId, role: 'editor', status: 'active' });
      await expectServed(tokens.access_token, w);
    });

    it('a loopback redirect URI matches whatever port the client listens on', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w);
      const client = await registerClient(['http://127.0.0.1:1111/callback']);
      const redirectUri = 'http://127.0.0.1:2222/callback';
      const result = await authorize({ client, workspace: w, userKey: w.owner.key, decision: { agentId: agent.agentId }, redirectUri });
      expect(result.redirectedTo.port).to.equal('2222');
      expect(result.code).to.be.a('string');
      const exchanged = await exchangeCode(client, result.code!, result.pkce.verifier, redirectUri);
      expect(exchanged.status, exchanged.text).to.equal(200);
    });

    it('denied consent sends the client back with access_denied and no code', async () => {
      const w = await createWorkspace();
      await createAgent(w);
      const client = await registerClient();
      const result = await authorize({ client, workspace: w, userKey: w.owner.key, decision: 'deny', state: 'deny-state' });
      expect(result.error).to.equal('access_denied');
      expect(result.state).to.equal('deny-state');
      expect(result.code).to.equal(null);
      expect(await auditEventsOf(w, 'agent.grant.approved')).to.deep.equal([]);
    });
  });

  describe('the consent request', () => {
    it('is shown only to a member signed in with a user key', async () => {
      const w = await createWorkspace();
      const agentName = unique('Helper');
      const agent = await createAgent(w, { name: agentName });
      const client = await registerClient(['http://127.0.0.1:8976/callback'], unique('Named client'));
      const pending = await beginAuthorization({ client, workspace: w });

      // The browser lands on the console's page, which the service serves.
      const page = await fetch(pending.consentUrl);
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-type')).to.match(/^text\/html/);

      problem(await consentRequest(pending.uid), 401);
      problem(await consentRequest(pending.uid, agent.key), 403, 'user_key_required');
      problem(await consentRequest(pending.uid, (await createUser()).key), 404);
      problem(await consentRequest('no-such-interaction', w.owner.key), 404, 'not_found');

      const shown = await consentRequest(pending.uid, w.owner.key);
      expect(shown.status, shown.text).to.equal(200);
      expect(shown.body.uid).to.equal(pending.uid);
      expect(shown.body.client).to.include({ id: client.clientId, name: client.name, redirectUri: client.redirectUris[0] });
      const workspace = await request('GET', w.path(), { token: w.owner.key });
      expect(shown.body.workspace).to.deep.equal({ id: w.workspaceId, name: workspace.body.name });
      expect(shown.body.scopes).to.include('mcp');
      expect(shown.body.canCreateAgent).to.be.a('boolean');
      expect(shown.body.agents).to.deep.equal([{ id: agent.agentId, name: agentName, role: 'viewer', active: true, sponsorUserId: w.owner.userId }]);
    });

    it('offers a member the active agents they sponsor, an owner every active agent, and refuses another’s agent', async () => {
      const w = await createWorkspace();
      const editor = await addMember(w, 'editor');
      const own = await createAgent(w, { sponsor: editor, role: 'editor' });
      const owners = await createAgent(w);
      const gone = await createAgent(w, { sponsor: editor });
      expect((await request('DELETE', w.path(`/agents/${gone.agentId}`), { token: w.owner.key })).status).to.equal(204);
      const client = await registerClient();

      const pending = await beginAuthorization({ client, workspace: w });
      const asEditor = await consentRequest(pending.uid, editor.key);
      expect(asEditor.body.agents.map((a: any) => a.id)).to.deep.equal([own.agentId]);
      const asOwner = await consentRequest(pending.uid, w.owner.key);
      expect(asOwner.body.agents.map((a: any) => a.id)).to.have.members([own.agentId, owners.agentId]);

      problem(await answerConsent(pending.uid, editor.key, { agentId: owners.agentId }), 403, 'insufficient_role');
      problem(await answerConsent(pending.uid, editor.key, { agentId: gone.agentId }), 404);
      problem(await answerConsent(pending.uid, editor.key, { agentId: 'ag_nosuchagent' }), 404);
      // The request is still open: the editor may approve with their own agent.
      const result = await completeAuthorization(pending, await answerConsent(pending.uid, editor.key, { agentId: own.agentId }));
      expect(result.code).to.be.a('string');
    });
  });

  describe('refusals', () => {
    it('refuses a code with the wrong PKCE verifier: invalid_grant', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w);
      const client = await registerClient();
      const result = await authorize({ client, workspace: w, userKey: w.owner.key, decision: { agentId: agent.agentId } });
      const wrong = await exchangeCode(client, result.code!, pkcePair().verifier, result.redirectUri);
      expect(wrong.status, wrong.text).to.equal(400);
      expect(wrong.body.error).to.equal('invalid_grant');
      expect(wrong.body.access_token).to.equal(undefined);
    });

    it('refuses a code used twice, and ends the tokens of its first use', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w);
      const client = await registerClient();
      const result = await authorize({ client, workspace: w, userKey: w.owner.key, decision: { agentId: agent.agentId } });
      const first = await exchangeCode(client, result.code!, result.pkce.verifier, result.redirectUri);
      expect(first.status, first.text).to.equal(200);
      await expectServed(first.body.access_token, w);
      const again = await exchangeCode(client, result.code!, result.pkce.verifier, result.redirectUri);
      expect(again.status, again.text).to.equal(400);
      expect(again.body.error).to.equal('invalid_grant');
      expectTokenRefused(await mcpCall(first.body.access_token, w, 'tools/list'));
      const refreshed = await refresh(client, first.body.refresh_token);
      expect(refreshed.status, refreshed.text).to.equal(400);
      expect(refreshed.body.error).to.equal('invalid_grant');
    });

    it('never redirects to an unregistered redirect URI: the request ends on an error page', async () => {
      const w = await createWorkspace();
      const client = await registerClient(['https://client.example/callback']);
      const unregistered = 'https://attacker.example/callback';
      for (const redirectUri of [unregistered, 'https://client.example/callback/other', 'https://client.example/callback?x=1']) {
        const url = await authorizationUrl({ client, workspace: w, redirectUri, pkce: pkcePair(), state: 's' });
        const hops = await follow(url, new CookieJar());
        const last = hops[hops.length - 1];
        for (const hop of hops) expect(hop.location?.origin ?? origin(), `${redirectUri}: ${hop.url}`).to.equal(origin());
        expect(last.location, `${redirectUri} led to ${last.location}`).to.equal(null);
        expect(last.status, `${redirectUri}: ${last.text.slice(0, 300)}`).to.equal(400);
      }
    });

    it('an error found before a person has seen the request is shown on the service’s page, never sent to the client', async () => {
      const w = await createWorkspace();
      const landing = 'https://evil.example/landing';
      const client = await registerClient([landing]);
      const urlWith = async (resource: string | null | undefined, change: (params: URLSearchParams) => void = () => {}) => {
        const url = new URL(await authorizationUrl({ client, workspace: w, resource, redirectUri: landing, pkce: pkcePair(), state: 's' }));
        change(url.searchParams);
        return url.href;
      };
      const cases: [string, string, string[]][] = [
        ['no resource', await urlWith(null), ['invalid_target']],
        ['a resource that is not an MCP endpoint', await urlWith(`${origin()}${w.path('/playbooks')}`), ['invalid_target']],
        ['an unknown workspace’s endpoint', await urlWith(`${origin()}/api/v1/workspaces/ws_nosuchworkspace/mcp`), ['invalid_target']],
        ['an endpoint under another origin', await urlWith(`https://elsewhere.example${w.path('/mcp')}`), ['invalid_target']],
        ['no PKCE', await urlWith(undefined, (p) => ['code_challenge', 'code_challenge_method'].forEach((k) => p.delete(k))), ['invalid_request']],
        ['PKCE plain', await urlWith(undefined, (p) => { p.set('code_challenge_method', 'plain'); p.set('code_challenge', pkcePair().verifier); }), ['invalid_request']],
        ['prompt=none', await urlWith(undefined, (p) => p.set('prompt', 'none')), ['login_required', 'consent_required', 'interaction_required']],
        ['response_mode=form_post', await urlWith(null, (p) => p.set('response_mode', 'form_post')), ['invalid_target']],
        ['an unknown client', await urlWith(undefined, (p) => p.set('client_id', 'no-such-client')), ['invalid_client']],
      ];
      for (const [what, url, errors] of cases) {
        const hops = await follow(url, new CookieJar());
        for (const hop of hops) expect(hop.location?.origin ?? origin(), `${what}: ${hop.url}`).to.equal(origin());
        const last = hops[hops.length - 1];
        expect(last.location, `${what} led to ${last.location}`).to.equal(null);
        expect(last.status, `${what}: ${last.text.slice(0, 300)}`).to.equal(400);
        const shown = /<h1>Authorization failed<\/h1><p>([a-z_]+):/.exec(last.text)?.[1];
        expect(shown, `${what}: ${last.text.slice(0, 300)}`).to.be.oneOf(errors);
        expect(last.text, what).not.to.include('evil.example');
      }
    });

    it('OAuth’s error page cannot be framed and loads or runs nothing', async () => {
      const res = await fetch(`${issuer()}/authorize?client_id=no-such-client&response_type=code`, { redirect: 'manual' });
      expect(res.status).to.equal(400);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      const csp = (res.headers.get('content-security-policy') ?? '').split(';').map((d) => d.trim());
      expect(csp).to.include.members(["default-src 'none'", "frame-ancestors 'none'", "form-action 'none'", "base-uri 'none'"]);
      expect(res.headers.get('x-frame-options')).to.equal('DENY');
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    });

    it('a token its client revokes (RFC 7009) is refused at the next request, on this process and on another', async () => {
      const w = await createWorkspace();
      const { client, tokens } = await authorizedClient(w, {});
      const second = await startApiProcess();
      try {
        // Both processes have the token's access cached.
        await expectServed(tokens.access_token, w, second.url);
        await expectServed(tokens.access_token, w);
        const revoked = await fetch(`${issuer()}/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: tokens.access_token, token_type_hint: 'access_token', client_id: client.clientId }),
        });
        expect(revoked.status, await revoked.text()).to.equal(200);
        expectTokenRefused(await mcpCall(tokens.access_token, w, 'tools/list', {}, { baseUrl: second.url }));
        expectTokenRefused(await mcpCall(tokens.access_token, w, 'tools/list'));
      } finally {
        await second.stop();
      }
    });

    it('a token for one workspace is refused on another workspace’s MCP endpoint and on REST routes of its own', async () => {
      const a = await createWorkspace();
      const b = await createWorkspace();
      // The approving owner is a member of B as well: the token still does not reach it.
      const added = await request('POST', b.path('/members'), { token: b.owner.key, body: { userId: a.owner.userId, role: 'owner' } });
      expect(added.status, added.text).to.equal(201);
      const { tokens } = await authorizedClient(a, {});
      await expectServed(tokens.access_token, a);
      expectTokenRefused(await mcpCall(tokens.access_token, b, 'tools/list'));
      problem(await request('GET', a.path('/playbooks'), { token: tokens.access_token }), 401);
      problem(await request('GET', a.path(), { token: tokens.access_token }), 401);
      problem(await request('POST', a.path('/playbooks'), { token: tokens.access_token, body: { title: 'Nope', version: { content: { instructions: 'x' } } } }), 401);
      expect((await request('GET', a.path('/playbooks'), { token: a.owner.key })).body.playbooks).to.deep.equal([]);
    });

    it('rotates refresh tokens, and a reused one revokes the whole family: the newest access token is refused', async () => {
      const w = await createWorkspace();
      const { client, tokens } = await authorizedClient(w, {});
      const rotated = await refresh(client, tokens.refresh_token);
      expect(rotated.status, rotated.text).to.equal(200);
      expect(rotated.body.refresh_token).to.be.a('string').and.not.equal(tokens.refresh_token);
      expect(rotated.body.access_token).to.be.a('string').and.not.equal(tokens.access_token);
      await expectServed(rotated.body.access_token, w);

      const reused = await refresh(client, tokens.refresh_token);
      expect(reused.status, reused.text).to.equal(400);
      expect(reused.body.error).to.equal('invalid_grant');
      expectTokenRefused(await mcpCall(rotated.body.access_token, w, 'tools/list'));
      const newest = await refresh(client, rotated.body.refresh_token);
      expect(newest.status, newest.text).to.equal(400);
      expect(newest.body.error).to.equal('invalid_grant');
    });

    it('deactivating the agent ends its tokens on the next request, on another API process too', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w);
      const { tokens } = await authorizedClient(w, { decision: { agentId: agent.agentId } });
      const second = await startApiProcess();
      try {
        await expectServed(tokens.access_token, w, second.url);
        expect((await request('DELETE', w.path(`/agents/${agent.agentId}`), { token: w.owner.key })).status).to.equal(204);
        expectTokenRefused(await mcpCall(tokens.access_token, w, 'tools/list', {}, { baseUrl: second.url }));
        expectTokenRefused(await mcpCall(tokens.access_token, w, 'tools/list'));
      } finally {
        await second.stop();
      }
    });

    it('a revoked grant ends its tokens, and is recorded', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w);
      const { tokens, client } = await authorizedClient(w, { decision: { agentId: agent.agentId } });
      await expectServed(tokens.access_token, w);
      const grants = await request('GET', w.path(`/agents/${agent.agentId}/grants`), { token: w.owner.key });
      expect(grants.status, grants.text).to.equal(200);
      expect(grants.body.items).to.have.length(1);
      const grant = grants.body.items[0];
      expect(grant).to.include({ clientId: client.clientId, clientName: client.name, approvedByUserId: w.owner.userId });
      expect(grant.id).to.be.a('string');
      expect(Date.parse(grant.createdAt)).to.be.a('number').and.not.NaN;

      problem(await request('DELETE', w.path(`/agents/${agent.agentId}/grants/gr_nosuchgrant`), { token: w.owner.key }), 404);
      const revoked = await request('DELETE', w.path(`/agents/${agent.agentId}/grants/${grant.id}`), { token: w.owner.key });
      expect(revoked.status, revoked.text).to.equal(204);
      expectTokenRefused(await mcpCall(tokens.access_token, w, 'tools/list'));
      const refreshed = await refresh(client, tokens.refresh_token);
      expect(refreshed.status, refreshed.text).to.equal(400);
      expect(refreshed.body.error).to.equal('invalid_grant');
      const [event] = await auditEventsOf(w, 'agent.grant.revoked');
      expect(event.actor).to.include({ kind: 'user', id: w.owner.userId });
      expect(JSON.stringify(event)).to.include(agent.agentId);
    });

    it('only the agent’s sponsor or an owner may revoke its grant', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w);
      const editor = await addMember(w, 'editor');
      const { tokens } = await authorizedClient(w, { decision: { agentId: agent.agentId } });
      const grants = await request('GET', w.path(`/agents/${agent.agentId}/grants`), { token: editor.key });
      expect(grants.status, grants.text).to.equal(200);
      const [grant] = grants.body.items;
      problem(await request('DELETE', w.path(`/agents/${agent.agentId}/grants/${grant.id}`), { token: editor.key }), 403, 'insufficient_role');
      await expectServed(tokens.access_token, w);
    });

    it('removing the approving person from the workspace ends the tokens they approved', async () => {
      const w = await createWorkspace();
      const editor = await addMember(w, 'editor');
      const { tokens } = await authorizedClient(w, { userKey: editor.key });
      await expectServed(tokens.access_token, w);
      expect((await request('DELETE', w.path(`/members/${editor.userId}`), { token: w.owner.key })).status).to.equal(204);
      expectTokenRefused(await mcpCall(tokens.access_token, w, 'tools/list'));
    });

    it('API keys keep working on the MCP endpoint beside OAuth tokens', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w);
      const authorized = await authorizedClient(w, { decision: { agentId: agent.agentId } });
      await expectServed(authorized.tokens.access_token, w);
      await expectServed(w.owner.key, w);
      await expectServed(agent.key, w);
      const init = await mcpCall(agent.key, w, 'initialize', initialize);
      expect(init.status, init.text).to.equal(200);
      expect(init.body.result.serverInfo.name).to.be.a('string');
    });
  });

  describe('OAuth from any address', () => {
    it('with no PUBLIC_URL, a client that connects through 127.0.0.1 is named there, the server takes that resource, and the flow completes', async () => {
      const port = await freePort();
      const local = await startExtraService({ PORT: String(port), PUBLIC_URL: undefined });
      try {
        const reached = `http://127.0.0.1:${port}`;
        const configured = `http://localhost:${port}`;
        const w = await createWorkspace();
        const agent = await createAgent(w);
        const endpoint = new URL(`${reached}${w.path('/mcp')}`);

        // The metadata names the endpoint as the client reached it (a loopback name of the service) or, for any other
        // Host, under the default origin; the issuer is the default origin's.
        const metadataPath = `/.well-known/oauth-protected-resource${w.path('/mcp')}`;
        for (const [host, named] of [[`127.0.0.1:${port}`, reached], [`localhost:${port}`, configured], ['evil.example', configured]]) {
          const prm = await rawRequest(`${reached}${metadataPath}`, { headers: { host } });
          expect(prm.status, prm.text).to.equal(200);
          expect(prm.body.resource, host).to.equal(`${named}${w.path('/mcp')}`);
          expect(prm.body.authorization_servers, host).to.deep.equal([`${configured}/oauth`]);
        }

        // The MCP SDK's client: discovery, its check that the metadata names what it reached, registration, PKCE.
        let registered: OAuthClientInformationMixed | undefined;
        let saved: OAuthTokens | undefined;
        let verifier = '';
        let sentResource: string | null = null;
        let code: string | null | undefined;
        const redirectUri = 'http://127.0.0.1:8976/callback';
        const provider: OAuthClientProvider = {
          redirectUrl: redirectUri,
          clientMetadata: { client_name: unique('Local client'), redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
          clientInformation: () => registered,
          saveClientInformation: (info) => void (registered = info),
          tokens: () => saved,
          saveTokens: (tokens) => void (saved = tokens),
          saveCodeVerifier: (v) => void (verifier = v),
          codeVerifier: () => verifier,
          // The browser's part: to the consent page, the person approves (through the API the page calls), back to the client.
          redirectToAuthorization: async (url) => {
            sentResource = url.searchParams.get('resource');
            const jar = new CookieJar();
            const hops = await follow(url.href, jar);
            const consent = hops[hops.length - 1].location;
            if (!consent?.pathname.startsWith('/console/authorize/')) {
              throw new Error(`authorize did not lead to the consent page: ${hops.map((h) => `${h.status} ${h.url} → ${h.location ?? h.text.slice(0, 200)}`).join('\n')}`);
            }
            const uid = decodeURIComponent(consent.pathname.slice('/console/authorize/'.length));
            const answer = await request('POST', `/api/v1/oauth/interactions/${encodeURIComponent(uid)}/approve`, { token: w.owner.key, body: { agentId: agent.agentId }, baseUrl: reached });
            if (answer.status !== 200) throw new Error(`approve: ${answer.status} ${answer.text}`);
            const back = await follow(answer.body.redirectTo, jar);
            code = back[back.length - 1].location?.searchParams.get('code');
          },
        };
        const refused = await new Client({ name: 'local', version: '1.0.0' }).connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider })).then(() => null, (err: unknown) => err);
        expect(refused, String(refused)).to.be.instanceOf(UnauthorizedError);
        expect(sentResource).to.equal(endpoint.href);
        expect(code, 'the browser came back with a code').to.be.a('string');

        const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
        await transport.finishAuth(code!);
        expect(saved?.access_token).to.be.a('string');
        const client = new Client({ name: 'local', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
        try {
          const { tools } = await client.listTools();
          expect(tools.map((t) => t.name)).to.include('get_bundle');
        } finally {
          await client.close();
        }
      } finally {
        await local.stop();
      }
    });
  });
});
