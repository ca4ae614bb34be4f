import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { projectRoot } from '../../src/infra/project-root.js';
import { type TestWorkspace, createWorkspace, problem, request } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { env } from '../support/harness.js';
import { createPlaybook } from '../support/playbooks.js';
import { launchBrowser, openConsole } from '../console/browser.js';

/** The file a package's bin runs, read from its package.json as npx would. */
function binOf(pkg: string, name: string): string {
  const dir = path.join(projectRoot, 'node_modules', pkg);
  const { bin } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { bin: string | Record<string, string> };
  return path.join(dir, typeof bin === 'string' ? bin : bin[name]);
}

/** A pass-through proxy in front of the service that notes each request's method and path as the client sent it. */
async function recordingProxy(target: string): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
  const upstream = new URL(target);
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const forward = http.request({ hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', (err) => res.destroy(err));
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A GET with a Host header of our choosing (fetch does not let one set it). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { host } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
}

const inspectorCli = binOf('@modelcontextprotocol/inspector-cli', 'mcp-inspector-cli');

/**
 * The MCP Inspector in its headless CLI mode (`mcp-inspector-cli --cli`), the version docs/mcp.md pins, run as npx
 * runs it: from whatever folder the person is in (1.x found its package.json only from its own folder).
 */
function inspector(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [inspectorCli, '--cli', ...args], { cwd: os.tmpdir(), timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/**
 * mcp-remote, the stdio proxy that local-only MCP hosts run, driven by the SDK's client over stdio. The header is
 * written as its README suggests for hosts that split arguments on spaces: the value comes from the environment,
 * which also keeps the key out of the process list.
 */
function mcpRemote(url: string, authorization: string | undefined, configDir: string): { transport: StdioClientTransport; stderr: () => string } {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binOf('mcp-remote', 'mcp-remote'), url, ...(authorization ? ['--header', 'Authorization:${AUTH_HEADER}'] : [])],
    // Its OAuth state would otherwise go to ~/.mcp-auth.
    env: { ...getDefaultEnvironment(), MCP_REMOTE_CONFIG_DIR: configDir, ...(authorization ? { AUTH_HEADER: authorization } : {}) },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk));
  return { transport, stderr: () => stderr };
}

describe('generic MCP clients: API keys, and OAuth without one', function () {
  // Each client is a process of its own, started on a loaded machine.
  this.timeout(120_000);
  let w: TestWorkspace;
  let agentKey: string;
  let playbookId: string;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let configDir: string;
  const badKey = 'pk_notavalidkey';
  const endpoint = () => `${proxy.url}${w.path('/mcp')}`;
  // The service names itself by PUBLIC_URL, whatever address a request came to (src/oauth/public-origin.ts).
  const namedEndpoint = () => `${env.config.publicUrl}${w.path('/mcp')}`;
  const metadataUrl = () => `${env.config.publicUrl}/.well-known/oauth-protected-resource${w.path('/mcp')}`;

  before(async () => {
    w = await createWorkspace();
    agentKey = (await createAgent(w)).key;
    playbookId = (await createPlaybook(w, w.owner.key)).id;
    proxy = await recordingProxy(env.service.url);
    configDir = mkdtempSync(path.join(os.tmpdir(), 'mcp-remote-'));
  });
  after(async () => {
    await proxy?.close();
    if (configDir) rmSync(configDir, { recursive: true, force: true });
  });

  describe('protected resource metadata (RFC 9728)', () => {
    it('is served without a key and names the MCP endpoint under PUBLIC_URL, and the authorization server', async () => {
      const res = await fetch(`${proxy.url}/.well-known/oauth-protected-resource${w.path('/mcp')}`);
      expect(res.status).to.equal(200);
      const document = await res.json();
      expect(document).to.deep.equal({
        resource: namedEndpoint(),
        resource_name: `Playbooks MCP endpoint of workspace ${w.workspaceId}`,
        resource_documentation: `${env.config.publicUrl}/docs`,
        authorization_servers: [`${env.config.publicUrl}/oauth`],
        scopes_supported: ['mcp'],
        bearer_methods_supported: ['header'],
      });
      expect((await fetch(document.resource_documentation)).status).to.equal(200);
      // Not the Host: a client names it, and a caching proxy could keep what it named for everyone.
      const named = await getWithHost(`${env.service.url}/.well-known/oauth-protected-resource${w.path('/mcp')}`, 'mcp.example.test:8443');
      expect(named.status).to.equal(200);
      expect(named.body.resource).to.equal(namedEndpoint());
    });

    it('the MCP endpoint’s 401 names the metadata, which fetches it; error="invalid_token" only when a key was sent', async () => {
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
      const headers = { accept: 'application/json, text/event-stream' };
      const missing = await request('POST', w.path('/mcp'), { body: initialize, headers, baseUrl: proxy.url });
      problem(missing, 401, 'unauthorized');
      expect(missing.headers.get('www-authenticate')).to.equal(`Bearer resource_metadata="${metadataUrl()}"`);
      const refused = await request('POST', w.path('/mcp'), { token: badKey, body: initialize, headers, baseUrl: proxy.url });
      problem(refused, 401, 'unauthorized');
      expect(refused.headers.get('www-authenticate')).to.equal(`Bearer error="invalid_token", resource_metadata="${metadataUrl()}"`);
      const named = /resource_metadata="([^"]+)"/.exec(refused.headers.get('www-authenticate')!)![1];
      expect((await (await fetch(named)).json()).resource).to.equal(namedEndpoint());
      // Other routes' challenge stays plain: the document describes the MCP endpoint alone.
      const usage = await request('GET', w.path('/usage'), { token: badKey, baseUrl: proxy.url });
      problem(usage, 401, 'unauthorized');
      expect(usage.headers.get('www-authenticate')).to.equal('Bearer');
    });

    it('the authorization server’s metadata is where clients look for it: the issuer’s RFC 8414 path and the origin’s root', async () => {
      const issuer = `${env.config.publicUrl}/oauth`;
      for (const where of ['/.well-known/oauth-authorization-server/oauth', '/.well-known/oauth-authorization-server', '/oauth/.well-known/openid-configuration']) {
        const metadata = await request('GET', where);
        expect(metadata.status, where).to.equal(200);
        expect(metadata.body).to.include({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, registration_endpoint: `${issuer}/register` });
        expect(metadata.body.code_challenge_methods_supported).to.deep.equal(['S256']);
      }
    });
  });

  describe('the MCP SDK’s client', () => {
    it('given an OAuth provider and no key, registers and sends the person to sign in with PKCE and the endpoint as resource', async () => {
      let client: { client_id: string } | undefined;
      let signIn: URL | undefined;
      const provider: OAuthClientProvider = {
        redirectUrl: 'http://127.0.0.1:1/callback',
        clientMetadata: { redirect_uris: ['http://127.0.0.1:1/callback'], client_name: 'mcp-clients-test', token_endpoint_auth_method: 'none' },
        clientInformation: () => client,
        saveClientInformation: (info) => void (client = info),
        tokens: () => undefined,
        saveTokens: () => {},
        redirectToAuthorization: (url) => void (signIn = url),
        saveCodeVerifier: () => {},
        codeVerifier: () => '',
      };
      const connecting = new Client({ name: 'mcp-clients-test', version: '1.0.0' });
      // At the endpoint as PUBLIC_URL names it: the SDK refuses metadata naming another origin than the one it reached.
      const failed = await connecting.connect(new StreamableHTTPClientTransport(new URL(namedEndpoint()), { authProvider: provider })).then(() => undefined, (err: Error) => err);
      // The SDK stops once the browser is to be opened; the person's consent is test/oauth/oauth-browser.test.ts's part.
      expect(failed).to.be.instanceOf(UnauthorizedError);
      expect(client?.client_id).to.be.a('string');
      expect(signIn?.href.startsWith(`${env.config.publicUrl}/oauth/authorize?`)).to.equal(true);
      expect(signIn?.searchParams.get('code_challenge_method')).to.equal('S256');
      expect(signIn?.searchParams.get('resource')).to.equal(namedEndpoint());
    });
  });

  describe('the MCP Inspector’s CLI', () => {
    it('is the version docs/mcp.md runs with npx', () => {
      const documented = /npx -y @modelcontextprotocol\/inspector-cli@(\S+) --cli/.exec(readFileSync(path.join(projectRoot, 'docs', 'mcp.md'), 'utf8'));
      const installed = JSON.parse(readFileSync(path.join(path.dirname(inspectorCli), '..', 'package.json'), 'utf8')).version;
      expect(documented?.[1]).to.equal(installed);
    });

    it('lists the tools and calls list_playbooks with an agent key', async () => {
      const header = ['--transport', 'http', '--header', `Authorization: Bearer ${agentKey}`];
      const listed = await inspector([endpoint(), ...header, '--method', 'tools/list']);
      expect(listed.code, listed.stderr).to.equal(0);
      expect(JSON.parse(listed.stdout).tools.map((t: { name: string }) => t.name)).to.include('list_playbooks');
      const called = await inspector([endpoint(), ...header, '--method', 'tools/call', '--tool-name', 'list_playbooks']);
      expect(called.code, called.stderr).to.equal(0);
      const result = JSON.parse(called.stdout);
      expect(result.isError ?? false).to.equal(false);
      expect(JSON.stringify(result.structuredContent)).to.include(playbookId);
    });

    it('with a bad key or none, exits non-zero naming the refused authentication, not OAuth', async () => {
      for (const header of [['--header', `Authorization: Bearer ${badKey}`], []]) {
        const run = await inspector([endpoint(), '--transport', 'http', ...header, '--method', 'tools/list']);
        expect(run.code).to.not.equal(0);
        expect(run.stderr).to.include('401').and.include('A valid API key is required');
        expect(run.stderr).not.to.match(/regist|oauth/i);
      }
    });
  });

  describe('mcp-remote', () => {
    it('lists the tools and calls list_playbooks with an agent key', async () => {
      const { transport, stderr } = mcpRemote(endpoint(), `Bearer ${agentKey}`, configDir);
      const client = new Client({ name: 'mcp-clients-test', version: '1.0.0' });
      try {
        await client.connect(transport);
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).to.include('list_playbooks');
        const result: any = await client.callTool({ name: 'list_playbooks', arguments: {} });
        expect(result.isError ?? false, stderr()).to.equal(false);
        expect(JSON.stringify(result.structuredContent)).to.include(playbookId);
      } finally {
        await client.close();
      }
    });

    it('without a key, connects once a person approves, on the console’s consent page, the sign-in it asks for', async () => {
      // Straight to the service: a token is bound to the endpoint as PUBLIC_URL names it, not as a proxy does.
      const { transport, stderr } = mcpRemote(`${env.config.publicUrl}${w.path('/mcp')}`, undefined, configDir);
      const client = new Client({ name: 'mcp-clients-test', version: '1.0.0' });
      const connected = client.connect(transport);
      connected.catch(() => {});
      const browser = await launchBrowser();
      try {
        // There is no browser for it to open here, so it prints the address to visit.
        let visit: string | undefined;
        for (let waited = 0; !visit && waited < 60_000; waited += 200) {
          visit = /Please authorize this client by visiting:\s*(\S+)/.exec(stderr())?.[1];
          if (!visit) await new Promise((r) => setTimeout(r, 200));
        }
        expect(visit?.startsWith(`${env.config.publicUrl}/oauth/authorize?`), stderr()).to.equal(true);
        const { page, problems } = await openConsole(browser);
        await page.goto(visit!);
        await page.getByLabel('User key').fill(w.owner.key);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('button', { name: 'Approve' }).click();
        await page.waitForURL(/\/oauth\/callback\?code=/);
        await connected;
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).to.include('list_playbooks');
        const result: any = await client.callTool({ name: 'list_playbooks', arguments: {} });
        expect(JSON.stringify(result.structuredContent)).to.include(playbookId);
        expect(problems).to.deep.equal([]);
        // Not the transport fallback a refused request used to start, whose SSE 405 hid the cause.
        expect(stderr()).not.to.match(/sse-only|SSE error|405/);
      } finally {
        await client.close();
        await browser.close();
      }
    });
  });
});
