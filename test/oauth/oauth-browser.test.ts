import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { expect } from 'chai';
import { createWorkspace, request, unique } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { callOk, mcpClient } from '../support/mcp.js';
import { auditEventsOf, authorizedClient, mcpCall, mcpResource, pkcePair, quotaUsed, tokenRequest, workspaceWithApprovedPlaybook } from '../support/oauth.js';
import { type ConsolePage, consoleInChromium, signIn } from '../console/browser.js';

/** A hosted client's loopback redirect target (RFC 8252): records each callback and answers with a page. */
interface RedirectReceiver {
  redirectUri: string;
  /** The next callback's URL, once the browser arrives. */
  next(): Promise<URL>;
  close(): Promise<void>;
}

async function redirectReceiver(): Promise<RedirectReceiver> {
  const waiting: ((url: URL) => void)[] = [];
  const arrived: URL[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (url.pathname === '/callback') {
      const waiter = waiting.shift();
      if (waiter) waiter(url);
      else arrived.push(url);
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Done</title><p>You may close this window.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    next: () => {
      const ready = arrived.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * What the person does in the browser: opens the authorization URL, lands on the console's consent page, signs in
 * with their user key, picks the agent, approves; the browser ends on the client's redirect URI.
 */
async function consentInBrowser(cp: ConsolePage, authorizationUrl: string, userKey: string, agentName: string, receiver: RedirectReceiver): Promise<URL> {
  const { page } = cp;
  const callback = receiver.next();
  await page.goto(authorizationUrl);
  await page.waitForURL(/\/console\/authorize\/[^/]+$/);
  await page.getByLabel('User key').fill(userKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // Each choice is labelled with the agent's name (and its role): the unique name picks one.
  await page.getByRole('group', { name: 'Act as' }).getByRole('radio', { name: agentName }).check();
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.waitForURL((url) => url.href.startsWith(receiver.redirectUri));
  const url = await callback;
  expect(page.url()).to.equal(url.href);
  return url;
}

/** An MCP host's storage of its OAuth state, in memory; the browser step is given to it. */
class BrowserConsentProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  expectedState?: string;
  authorizationUrl?: URL;
  /** The code the redirect brought back. */
  code?: string;

  constructor(
    private readonly redirect: string,
    private readonly name: string,
    private readonly consent: (authorizationUrl: URL) => Promise<URL>,
  ) {}

  get redirectUrl(): string {
    return this.redirect;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    this.expectedState = randomBytes(12).toString('base64url');
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.authorizationUrl = authorizationUrl;
    const back = await this.consent(authorizationUrl);
    if (back.searchParams.get('state') !== this.expectedState) throw new Error(`state mismatch: ${back.href}`);
    this.code = back.searchParams.get('code') ?? undefined;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
}

describe('MCP authorization in Chromium, as hosted clients do it', function () {
  this.timeout(180_000);
  // The consent page runs under the console's strict CSP without a violation, an uncaught error or a console error.
  const chromium = consoleInChromium();
  let receiver: RedirectReceiver;

  beforeEach(async () => {
    receiver = await redirectReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('from an unauthenticated initialize to a bundle: discovery, registration, consent in the console, PKCE, tools over MCP', async () => {
    const { workspace: w, playbookId, nodeId } = await workspaceWithApprovedPlaybook();
    const agentName = unique('Research agent');
    const agent = await createAgent(w, { name: agentName, role: 'viewer' });

    // 1. The client tries the MCP endpoint and is told where to look.
    const first = await fetch(mcpResource(w), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hosted', version: '1' } } }),
    });
    expect(first.status).to.equal(401);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(first.headers.get('www-authenticate') ?? '')?.[1];
    expect(metadataUrl, 'WWW-Authenticate names the resource metadata').to.be.a('string');

    // 2. Resource metadata → authorization server metadata (RFC 8414: well-known inserted before the issuer's path).
    const resource = await (await fetch(metadataUrl!)).json();
    expect(resource.resource).to.equal(mcpResource(w));
    const issuer = new URL(resource.authorization_servers[0]);
    const asMeta = await (await fetch(new URL(`/.well-known/oauth-authorization-server${issuer.pathname}`, issuer.origin))).json();
    expect(asMeta.issuer).to.equal(resource.authorization_servers[0]);
    expect(asMeta.code_challenge_methods_supported).to.include('S256');

    // 3. Dynamic registration with a loopback redirect URI.
    const clientName = unique('Hosted client');
    const registered = await fetch(asMeta.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: clientName, redirect_uris: [receiver.redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).to.equal(201);
    const clientId = (await registered.json()).client_id as string;

    // 4. The person consents in the browser.
    const pkce = pkcePair();
    const state = randomBytes(12).toString('base64url');
    const authorizationUrl = new URL(asMeta.authorization_endpoint);
    for (const [k, v] of Object.entries({
      response_type: 'code', client_id: clientId, redirect_uri: receiver.redirectUri, code_challenge: pkce.challenge,
      code_challenge_method: 'S256', state, scope: resource.scopes_supported.join(' '), resource: resource.resource,
    })) authorizationUrl.searchParams.set(k, v);
    const callback = await consentInBrowser(await chromium.tab(), authorizationUrl.href, w.owner.key, agentName, receiver);
    expect(callback.searchParams.get('state')).to.equal(state);
    expect(callback.searchParams.get('error')).to.equal(null);
    expect(callback.searchParams.get('iss')).to.equal(asMeta.issuer);
    const code = callback.searchParams.get('code');
    expect(code).to.be.a('string');

    // 5. The code and the verifier give the tokens.
    const exchanged = await tokenRequest({ grant_type: 'authorization_code', code: code!, redirect_uri: receiver.redirectUri, code_verifier: pkce.verifier, client_id: clientId, resource: resource.resource });
    expect(exchanged.status, exchanged.text).to.equal(200);
    const accessToken = exchanged.body.access_token as string;

    // 6. The SDK's client with the token as its Authorization header.
    const client = await mcpClient(w, accessToken);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.include.members(['get_bundle', 'list_playbooks']);
    const before = await quotaUsed(w);
    const bundle = await callOk(client, 'get_bundle', { playbook: playbookId });
    expect(bundle.nodes.map((n: any) => n.id)).to.deep.equal([nodeId]);
    expect((await quotaUsed(w)) - before).to.equal(1);
    await client.close();

    const [approved] = await auditEventsOf(w, 'agent.grant.approved');
    expect(approved?.actor).to.include({ kind: 'user', id: w.owner.userId });
    expect(JSON.stringify(approved)).to.include(agent.agentId).and.include(clientId);
    const grants = await request('GET', w.path(`/agents/${agent.agentId}/grants`), { token: w.owner.key });
    expect(grants.body.items.map((g: any) => [g.clientId, g.clientName])).to.deep.equal([[clientId, clientName]]);
  });

  it('the MCP SDK’s own OAuth client: 401, discovery, registration, consent, finishAuth, then tools/list', async () => {
    const { workspace: w, playbookId } = await workspaceWithApprovedPlaybook();
    const agentName = unique('SDK agent');
    const agent = await createAgent(w, { name: agentName });
    const clientName = unique('SDK client');
    const provider = new BrowserConsentProvider(receiver.redirectUri, clientName, async (url) =>
      consentInBrowser(await chromium.tab(), url.href, w.owner.key, agentName, receiver),
    );
    const serverUrl = new URL(mcpResource(w));

    const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
    const refused = await new Client({ name: 'sdk-oauth', version: '1.0.0' }).connect(transport).then(() => null, (err: unknown) => err);
    expect(refused, String(refused)).to.be.instanceOf(UnauthorizedError);
    // The SDK found everything through discovery: the resource, the scope, S256.
    const sent = provider.authorizationUrl!;
    expect(sent.searchParams.get('resource')).to.equal(mcpResource(w));
    expect(sent.searchParams.get('scope')).to.equal('mcp');
    expect(sent.searchParams.get('code_challenge_method')).to.equal('S256');
    expect(provider.code, 'the redirect brought a code').to.be.a('string');

    await transport.finishAuth(provider.code!);
    expect(provider.saved?.access_token).to.be.a('string');
    expect(provider.saved?.refresh_token).to.be.a('string');

    const client = new Client({ name: 'sdk-oauth', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.include('get_bundle');
    const before = await quotaUsed(w);
    await callOk(client, 'get_bundle', { playbook: playbookId });
    expect((await quotaUsed(w)) - before).to.equal(1);
    await client.close();

    const grants = await request('GET', w.path(`/agents/${agent.agentId}/grants`), { token: w.owner.key });
    expect(grants.body.items.map((g: any) => g.clientName)).to.deep.equal([clientName]);
  });

  it('a person sees the connected app on the agent’s page and revokes it after confirming; its token is refused at once', async () => {
    const w = await createWorkspace();
    const agentName = unique('Connected agent');
    const agent = await createAgent(w, { name: agentName });
    const { client, tokens } = await authorizedClient(w, { decision: { agentId: agent.agentId } });
    expect((await mcpCall(tokens.access_token, w, 'tools/list')).status).to.equal(200);

    const { page } = await chromium.tab();
    await signIn(page, w.owner.key, `/w/${w.workspaceId}/agents`);
    await page.getByRole('button', { name: agentName }).click();
    const apps = page.getByRole('region', { name: `Connected apps of ${agentName}` });
    await apps.getByText(client.name).waitFor();
    await apps.getByRole('button', { name: `Revoke ${client.name}` }).click();
    // Nothing is revoked until the person confirms.
    expect((await mcpCall(tokens.access_token, w, 'tools/list')).status).to.equal(200);
    await apps.getByRole('button', { name: 'Revoke access' }).click();
    await apps.getByText('Access revoked').waitFor();
    await apps.getByText('No connected apps').waitFor();
    expect((await mcpCall(tokens.access_token, w, 'tools/list')).status).to.equal(401);
    const [revoked] = await auditEventsOf(w, 'agent.grant.revoked');
    expect(revoked?.targetIds).to.include(agent.agentId);
  });
});
