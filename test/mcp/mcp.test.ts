import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect } from 'chai';
import { type TestWorkspace, addMember, createUser, createWorkspace, problem, request } from '../support/api.js';
import { env } from '../support/harness.js';
import { callError, callOk, mcpClient } from '../support/mcp.js';
import { getPlaybook } from '../support/playbooks.js';
import { type Graph, buildGraph, getBundle } from '../support/retrieval.js';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const mcpHeaders = { accept: 'application/json, text/event-stream' };

const usage = async (w: TestWorkspace) => (await request('GET', w.path('/usage'), { token: w.owner.key })).body.used as number;

async function graph(): Promise<Graph> {
  const w = await createWorkspace();
  return buildGraph(w, {
    nodes: {
      guide: { content: 'How to do the thing, step by step.' },
      detail: { content: 'The details that matter.' },
    },
    links: [
      ['pb', 'requires', 'guide'],
      ['guide', 'references', 'detail'],
    ],
  });
}

/** A POST with a Host header of our choosing (fetch does not let one set it). */
function postWithHost(path: string, token: string, host: string): Promise<{ status: number; body: any }> {
  const url = new URL(env.service.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname: url.hostname, port: url.port, path, method: 'POST', headers: { ...mcpHeaders, host, authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(initialize));
  });
}

describe('MCP over Streamable HTTP', function () {
  // The first calls plan the retrieval statements on a loaded machine.
  this.timeout(120_000);

  it('lists the eleven tools, each with input and output schemas and read-only/destructive hints', async () => {
    const g = await graph();
    const client = await mcpClient(g.workspace);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.have.members([
      'list_playbooks', 'get_bundle', 'get_manifest', 'get_node', 'find_context', 'follow_links', 'search_context', 'get_updates', 'annotate', 'set_node_names', 'give_feedback',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).to.equal('object');
      expect(tool.outputSchema?.type, tool.name).to.equal('object');
      expect(tool.annotations?.destructiveHint, tool.name).to.equal(tool.name === 'set_node_names');
      expect(tool.annotations?.readOnlyHint, tool.name).to.equal(!['annotate', 'set_node_names', 'give_feedback'].includes(tool.name));
    }
    await client.close();
  });

  it('answers every tool through the same services as REST, each answer matching its output schema', async () => {
    const g = await graph();
    const w = g.workspace;
    const client = await mcpClient(w);
    const playbook = await getPlaybook(w, w.owner.key, g.playbookId);

    const list = await callOk(client, 'list_playbooks', {});
    expect(list.playbooks.map((p: any) => p.id)).to.deep.equal([g.playbookId]);

    // By slug and by id, the bundle is the REST bundle.
    const rest = (await getBundle(w, { playbookId: g.playbookId })).body;
    const bySlug = await callOk(client, 'get_bundle', { playbook: playbook.slug });
    const byId = await callOk(client, 'get_bundle', { playbook: g.playbookId });
    expect(byId).to.deep.equal(bySlug);
    expect(bySlug.nodes.map((n: any) => n.id)).to.deep.equal(rest.nodes.map((n: any) => n.id));
    expect(bySlug.nodes.map((n: any) => n.content)).to.deep.equal(rest.nodes.map((n: any) => n.content));

    const summary = await callOk(client, 'get_bundle', { playbook: g.playbookId, mode: 'summary', maxNodes: 1 });
    expect(summary.nodes).to.have.length(1);
    expect(summary.omittedCount).to.equal(1);

    const manifest = await callOk(client, 'get_manifest', { playbook: playbook.slug });
    expect(manifest.nodes.map((n: any) => n.id)).to.deep.equal([g.id.guide, g.id.detail]);

    const node = await callOk(client, 'get_node', { node: g.node.guide.slug });
    expect(node).to.include({ id: g.id.guide, content: 'How to do the thing, step by step.' });

    // Embeddings are off on this service: a question is searched by its words, and counted as a retrieval.
    const counted = await usage(w);
    const found = await callOk(client, 'find_context', { q: 'How do I do the thing, step by step?', depth: 0 });
    expect(found.query).to.deep.include({ mode: 'words', model: null });
    expect(found.nodes[0]).to.deep.include({ id: g.id.guide, reason: { kind: 'matched', by: ['words'], section: null } });
    expect((await usage(w)) - counted).to.equal(1);

    const follow = await callOk(client, 'follow_links', { node: g.id.guide });
    expect(follow.nodes.map((n: any) => n.id)).to.deep.equal([g.id.detail]);

    const search = await callOk(client, 'search_context', { q: 'details' });
    expect(search.nodes.map((n: any) => n.id)).to.deep.equal([g.id.detail]);

    const updates = await callOk(client, 'get_updates', { since: '2000-01-01T00:00:00.000Z' });
    expect(updates.nodes.map((n: any) => n.id)).to.have.members([g.id.guide, g.id.detail]);

    const note = await callOk(client, 'annotate', { targetType: 'context_node', targetId: g.id.guide, scopeType: 'workspace_overlay', title: 'Tip', content: 'Read twice' });
    const notes = await request('GET', w.path(`/context/annotations?targetId=${g.id.guide}`), { token: w.owner.key });
    expect(notes.body.annotations.map((a: any) => a.id)).to.deep.equal([note.id]);

    const feedback = await callOk(client, 'give_feedback', { targetType: 'context_node', targetId: g.id.detail, feedbackType: 'outdated', summary: 'Old' });
    const stored = await request('GET', w.path(`/context/feedback?targetId=${g.id.detail}`), { token: w.owner.key });
    expect(stored.body.feedback.map((f: any) => f.id)).to.deep.equal([feedback.id]);
    await client.close();
  });

  it('answers bad arguments, a missing playbook or node with a tool error carrying the REST code, and writes nothing', async () => {
    const g = await graph();
    const w = g.workspace;
    const client = await mcpClient(w);
    const bad = await callError(client, 'get_bundle', { playbook: g.playbookId, maxNodes: 0 });
    expect(bad.code).to.equal('invalid_request');
    expect(bad.errors?.map((e) => e.path)).to.deep.equal(['/maxNodes']);
    expect((await callError(client, 'get_bundle', { playbook: 'no-such-playbook' })).code).to.equal('not_found');
    expect((await callError(client, 'get_bundle', { playbook: 'pb_nosuchplaybook' })).code).to.equal('not_found');
    expect((await callError(client, 'get_node', { node: 'no-such-node' })).code).to.equal('not_found');
    const unknownField = await callError(client, 'annotate', { targetType: 'context_node', targetId: g.id.guide, scopeType: 'workspace_overlay', title: 'T', content: 'C', extra: 1 });
    expect(unknownField.code).to.equal('invalid_request');
    expect((await callError(client, 'give_feedback', { targetType: 'context_node', targetId: g.id.guide, feedbackType: 'nonsense', summary: 'x' })).code).to.equal('invalid_request');
    const notes = await request('GET', w.path(`/context/annotations?targetId=${g.id.guide}`), { token: w.owner.key });
    expect(notes.body.annotations).to.deep.equal([]);
    const feedback = await request('GET', w.path('/context/feedback'), { token: w.owner.key });
    expect(feedback.body.feedback).to.deep.equal([]);
    await client.close();
  });

  it('counts one retrieval per bundle or manifest, cached or not, and none for a failed one or another tool', async () => {
    const g = await graph();
    const w = g.workspace;
    const client = await mcpClient(w);
    const before = await usage(w);
    await callOk(client, 'get_bundle', { playbook: g.playbookId });
    await callOk(client, 'get_bundle', { playbook: g.playbookId }); // cached
    await callOk(client, 'get_manifest', { playbook: g.playbookId });
    await callError(client, 'get_bundle', { playbook: 'pb_nosuchplaybook' });
    await callError(client, 'get_bundle', { playbook: g.playbookId, depth: 9 });
    await callOk(client, 'list_playbooks', {});
    await callOk(client, 'get_node', { node: g.id.guide });
    expect((await usage(w)) - before).to.equal(3);
    await client.close();
  });

  it('a cached MCP bundle is the REST one’s cache entry: served again without the graph', async () => {
    const g = await graph();
    const client = await mcpClient(g.workspace);
    const cache = env.service.services.responseCache;
    await callOk(client, 'get_bundle', { playbook: g.playbookId });
    const hits = cache.hits;
    await callOk(client, 'get_bundle', { playbook: g.playbookId });
    expect(cache.hits).to.equal(hits + 1);
    await client.close();
  });

  it('refuses a request without a key or with a bad one: 401 with WWW-Authenticate: Bearer and the resource metadata', async () => {
    const g = await graph();
    for (const token of [undefined, 'pk_user_notavalidkey']) {
      const reply = await request('POST', g.workspace.path('/mcp'), { token, body: initialize, headers: mcpHeaders });
      problem(reply, 401, 'unauthorized');
      const challenge = token ? 'Bearer error="invalid_token", resource_metadata=' : 'Bearer resource_metadata=';
      expect(reply.headers.get('www-authenticate')).to.match(new RegExp(`^${challenge}"http://[^"]+/\\.well-known/oauth-protected-resource/api/v1/workspaces/[^/]+/mcp"$`));
    }
    let failed = false;
    await mcpClient(g.workspace, 'pk_user_notavalidkey').catch(() => (failed = true));
    expect(failed).to.equal(true);
  });

  it('answers 404 for a workspace the key cannot see, and serves a viewer', async () => {
    const g = await graph();
    const stranger = await createUser();
    problem(await request('POST', g.workspace.path('/mcp'), { token: stranger.key, body: initialize, headers: mcpHeaders }), 404, 'not_found');
    const viewer = await addMember(g.workspace, 'viewer');
    const client = await mcpClient(g.workspace, viewer.key);
    expect((await callOk(client, 'get_bundle', { playbook: g.playbookId })).nodes).to.have.length(2);
    await client.close();
  });

  it('refuses a Host or Origin a browser could be tricked into (DNS rebinding)', async () => {
    const g = await graph();
    const w = g.workspace;
    const host = await postWithHost(w.path('/mcp'), w.owner.key, 'evil.example:3000');
    expect(host.status).to.equal(403);
    expect(host.body.code).to.equal('forbidden');
    expect((await postWithHost(w.path('/mcp'), w.owner.key, `localhost:${new URL(env.service.url).port}`)).status).to.equal(200);
    const origin = await request('POST', w.path('/mcp'), { token: w.owner.key, body: initialize, headers: { ...mcpHeaders, origin: 'http://evil.example' } });
    problem(origin, 403, 'forbidden');
    const own = new URL(env.service.url);
    const same = await request('POST', w.path('/mcp'), { token: w.owner.key, body: initialize, headers: { ...mcpHeaders, origin: own.origin } });
    expect(same.status).to.equal(200);
    expect(same.body.result.serverInfo.name).to.equal('playbooks-context-service');
  });
});

describe('MCP resources and prompts', function () {
  this.timeout(120_000);

  async function approved() {
    const g = await graph();
    const w = g.workspace;
    const playbook = await getPlaybook(w, w.owner.key, g.playbookId);
    const approve = await request('PATCH', w.path(`/playbooks/${g.playbookId}/versions/${playbook.versions[0].id}/approve`), { token: w.owner.key });
    expect(approve.status).to.equal(200);
    return { g, w, slug: playbook.slug as string };
  }

  it('lists approved playbooks and live nodes as resources on one page, and reads them as markdown', async () => {
    const { g, w, slug } = await approved();
    const client = await mcpClient(w);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).to.deep.equal(['playbook://{slug}', 'node://{slug}']);
    // A client that reads one page (most do) sees the playbooks and the nodes.
    const first = await client.listResources();
    expect(first.resources.map((r) => r.uri)).to.deep.equal([`playbook://${slug}`, `node://${g.node.detail.slug}`, `node://${g.node.guide.slug}`]);
    expect(first.nextCursor).to.equal(undefined);
    const playbook = await client.readResource({ uri: `playbook://${slug}` });
    expect((playbook.contents[0] as any).text).to.include('Do the thing');
    const node = await client.readResource({ uri: `node://${g.node.guide.slug}` });
    expect((node.contents[0] as any).text).to.include('How to do the thing, step by step.');
    const missing = await client.readResource({ uri: 'node://no-such-node' }).catch((err) => err);
    expect(missing.code).to.equal(-32002);
    await client.close();
  });

  it('offers each approved playbook as a prompt, and run_playbook: its instructions and its context as markdown (one retrieval counted)', async () => {
    const { g, w, slug } = await approved();
    const client = await mcpClient(w);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).to.deep.equal([slug, 'run_playbook']);
    const before = await usage(w);
    const prompt = await client.getPrompt({ name: slug });
    const text = (prompt.messages[0].content as any).text as string;
    expect(text).to.include('Do the thing');
    const guide = text.indexOf(`### 1. ${g.node.guide.title}`);
    expect(guide).to.be.greaterThan(0);
    expect(text.indexOf(`### 2. ${g.node.detail.title}`)).to.be.greaterThan(guide);
    expect(text).to.include('How to do the thing, step by step.');
    expect(text).not.to.include('"nodes"');
    expect((await usage(w)) - before).to.equal(1);
    const named = await client.getPrompt({ name: 'run_playbook', arguments: { playbook: slug } });
    expect((named.messages[0].content as any).text).to.equal(text);
    await client.close();
  });
});

describe('MCP over stdio (playbooks-mcp)', function () {
  this.timeout(120_000);

  it('serves the same tools by calling the running service, with nothing but protocol on stdout', async () => {
    const g = await graph();
    const w = g.workspace;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'packages/playbooks-mcp/src/stdio.ts'],
      env: { PATH: process.env.PATH ?? '', PLAYBOOKS_URL: env.service.url, PLAYBOOKS_API_KEY: w.owner.key, PLAYBOOKS_WORKSPACE: w.workspaceId },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => (stderr += chunk));
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    // A line on stdout that is not JSON-RPC would fail the connection or a call below.
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools).to.have.length(11);
    const before = await usage(w);
    const bundle = await callOk(client, 'get_bundle', { playbook: g.playbookId });
    expect(bundle.nodes.map((n: any) => n.id)).to.deep.equal([g.id.guide, g.id.detail]);
    expect((await usage(w)) - before).to.equal(1);
    expect((await callError(client, 'get_node', { node: 'no-such-node' })).code).to.equal('not_found');
    await client.close();
    expect(stderr).to.include('serving');
    expect(stderr).not.to.include(w.owner.key);
  });
});
