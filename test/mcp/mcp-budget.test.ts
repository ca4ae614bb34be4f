import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { getEncoding } from 'js-tiktoken';
import { type TestWorkspace, createWorkspace, request } from '../support/api.js';
import { adminToken, env, startExtraService } from '../support/harness.js';
import { mcpClient } from '../support/mcp.js';
import { getPlaybook } from '../support/playbooks.js';
import { type Graph, buildGraph, getBundle } from '../support/retrieval.js';

// An independent count: the whole text in one pass of another library's encoder.
const o200k = getEncoding('o200k_base');
const tokens = (text: string) => o200k.encode(text, [], []).length;

/** What an agent reads of a tool result: every text block, and the structured content serialised. */
function resultTokens(result: any): number {
  const texts = (result.content ?? []).filter((c: any) => c.type === 'text').map((c: any) => tokens(c.text));
  const structured = result.structuredContent === undefined ? 0 : tokens(JSON.stringify(result.structuredContent));
  return texts.reduce((a: number, b: number) => a + b, 0) + structured;
}

const paragraph = 'Check the release notes, run the smoke tests, and confirm the dashboards are green before you continue. ';

async function arrange(): Promise<{ g: Graph; w: TestWorkspace; slug: string }> {
  const w = await createWorkspace();
  // Every test here retrieves many times: a limit the calls do not reach.
  expect((await request('PATCH', `/api/v1/admin/workspaces/${w.workspaceId}`, { token: adminToken, body: { monthlyRetrievalLimit: 100_000 } })).status).to.equal(200);
  const nodes: Record<string, { content: string; importance: number; description: string }> = {};
  const links: [string, 'requires' | 'references' | 'relates-to', string][] = [];
  for (let i = 0; i < 12; i++) {
    nodes[`step${i}`] = { content: `Step ${i}. ${paragraph.repeat(1 + (i % 4) * 6)}`, importance: 90 - i, description: `Deploy step ${i}` };
    links.push(['pb', i < 4 ? 'requires' : 'references', `step${i}`]);
  }
  links.push(['step0', 'references', 'step5'], ['step0', 'relates-to', 'step6']);
  const g = await buildGraph(w, { nodes, links });
  const playbook = await getPlaybook(w, w.owner.key, g.playbookId);
  expect((await request('PATCH', w.path(`/playbooks/${g.playbookId}/versions/${playbook.versions[0].id}/approve`), { token: w.owner.key })).status).to.equal(200);
  return { g, w, slug: playbook.slug };
}

/** One call of every tool, with the budget. */
function calls(g: Graph, slug: string, maxTokens: number): [string, Record<string, unknown>][] {
  return [
    ['list_playbooks', { maxTokens }],
    ['get_bundle', { playbook: slug, maxTokens }],
    ['get_manifest', { playbook: slug, maxTokens }],
    ['get_node', { node: g.id.step8, maxTokens }],
    ['follow_links', { node: g.id.step0, maxTokens }],
    ['search_context', { q: 'dashboards', maxTokens }],
    ['get_updates', { since: '2000-01-01T00:00:00.000Z', maxTokens }],
    ['set_node_names', { node: g.id.step7, tags: ['deploy'], maxTokens }],
  ];
}

function stdioClient(w: TestWorkspace): Promise<Client> {
  const client = new Client({ name: 'budget-tests', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'packages/playbooks-mcp/src/stdio.ts'],
    env: { PATH: process.env.PATH ?? '', PLAYBOOKS_URL: env.service.url, PLAYBOOKS_API_KEY: w.owner.key, PLAYBOOKS_WORKSPACE: w.workspaceId },
    stderr: 'pipe',
  });
  return client.connect(transport).then(() => client);
}

describe('MCP: the budget is the whole answer', function () {
  this.timeout(240_000);
  let g: Graph;
  let w: TestWorkspace;
  let slug: string;
  before(async () => ({ g, w, slug } = await arrange()));

  for (const transport of ['HTTP', 'stdio'] as const) {
    it(`over ${transport}, every tool's whole result holds at most 300, 1,000 and 4,000 tokens, its items in rank order`, async () => {
      const client = transport === 'HTTP' ? await mcpClient(w) : await stdioClient(w);
      try {
        const full = (await getBundle(w, { playbookId: g.playbookId })).body;
        const ranked = full.nodes.map((n: any) => n.id);
        for (const budget of [300, 1_000, 4_000]) {
          for (const [name, args] of calls(g, slug, budget)) {
            const result: any = await client.callTool({ name, arguments: args });
            expect(resultTokens(result), `${name} at ${budget}`).to.be.at.most(budget);
            if (result.isError) {
              // Only an answer that cannot hold its envelope is refused, and says so; a bundle's or manifest's always can.
              expect(budget, `${name}: ${result.content[0].text}`).to.equal(300);
              expect(name).not.to.be.oneOf(['get_bundle', 'get_manifest']);
              const refusal = JSON.parse(result.content[0].text);
              expect(refusal.errors[0].path).to.equal('/maxTokens');
              expect(refusal.detail).to.include(`maxTokens ${budget} `);
              continue;
            }
            const answer = result.structuredContent;
            if (name === 'get_bundle' || name === 'get_manifest') {
              const ids = answer.nodes.map((n: any) => n.id);
              expect(ids).to.deep.equal(ranked.slice(0, ids.length));
              expect(answer.omittedCount).to.equal(ranked.length - ids.length);
              expect(answer).not.to.have.any.keys('omitted', 'omittedNodeIds', 'truncated');
              // A cursor only when it moves on: an answer with no node needs a larger budget.
              if (ids.length > 0 && ids.length < ranked.length) expect(answer.cursor).to.be.a('string');
              else expect(answer).not.to.have.property('cursor');
              if (budget > 300) expect(ids.length, `${name} at ${budget}`).to.be.at.least(1);
              if (budget === 4_000) expect(ids.length, name).to.be.greaterThan(2);
            }
          }
        }
      } finally {
        await client.close();
      }
    });
  }

  it('the cursor of a budgeted bundle walks the whole ranking', async () => {
    const client = await mcpClient(w);
    const full = (await getBundle(w, { playbookId: g.playbookId })).body;
    const ids: string[] = [];
    let cursor: string | undefined;
    let calls = 0;
    do {
      expect((calls += 1)).to.be.at.most(20);
      const result: any = await client.callTool({ name: 'get_bundle', arguments: { playbook: slug, maxTokens: 1_500, ...(cursor ? { cursor } : {}) } });
      expect(resultTokens(result)).to.be.at.most(1_500);
      ids.push(...result.structuredContent.nodes.map((n: any) => n.id));
      cursor = result.structuredContent.cursor;
    } while (cursor);
    expect(ids).to.deep.equal(full.nodes.map((n: any) => n.id));
    await client.close();
  });

  it('a budgeted bundle or manifest counts what it left out and gives a cursor, no ids, and its playbook as the approved content alone', async () => {
    const client = await mcpClient(w);
    try {
      for (const name of ['get_bundle', 'get_manifest']) {
        const result: any = await client.callTool({ name, arguments: { playbook: slug, maxTokens: 1_000 } });
        expect(result.isError ?? false, result.content[0].text).to.equal(false);
        const answer = result.structuredContent;
        expect(Object.keys(answer).sort(), name).to.deep.equal(['annotations', 'cursor', 'nodes', 'omittedCount', 'playbook', 'tokenCount']);
        expect(answer.playbook).to.deep.equal({
          id: g.playbookId,
          title: answer.playbook.title,
          slug,
          activeVersion: { id: answer.playbook.activeVersion.id, versionNumber: 1, content: { instructions: 'Do the thing' } },
        });
        expect(answer.omittedCount).to.equal(12 - answer.nodes.length);
        // What an agent reads besides the nodes: a small, fixed part of its budget. Random ids take from 8 to 15
        // tokens each, so they are counted as one shape, and the rest of the envelope is what must stay small.
        const envelope = tokens(JSON.stringify({ ...answer, nodes: [] }).replace(/\b(pb|pbv)_[a-z0-9]+/g, '$1_id'));
        expect(envelope, name).to.be.at.most(80);
      }
    } finally {
      await client.close();
    }
  });

  it('a small budget gets the playbook and its first node, cut to fit when it must, and the cursor walks the whole ranking', async () => {
    const client = await mcpClient(w);
    try {
      const full = (await getBundle(w, { playbookId: g.playbookId })).body;
      const contents = new Map(full.nodes.map((n: any) => [n.id, n.content]));
      const ids: string[] = [];
      let cursor: string | undefined;
      let cuts = 0;
      for (let calls = 1; calls === 1 || cursor; calls++) {
        expect(calls).to.be.at.most(12);
        const result: any = await client.callTool({ name: 'get_bundle', arguments: { playbook: slug, maxTokens: 500, ...(cursor ? { cursor } : {}) } });
        expect(result.isError ?? false, result.content[0].text).to.equal(false);
        expect(resultTokens(result)).to.be.at.most(500);
        const { nodes } = result.structuredContent;
        expect(nodes.length).to.be.at.least(1);
        for (const node of nodes) {
          if (node.content !== contents.get(node.id)) {
            expect(node.content).to.match(/ … \[cut to fit maxTokens\]$/);
            cuts += 1;
          }
        }
        ids.push(...nodes.map((n: any) => n.id));
        cursor = result.structuredContent.cursor;
      }
      expect(ids).to.deep.equal(full.nodes.map((n: any) => n.id));
      expect(cuts).to.be.greaterThan(0);
    } finally {
      await client.close();
    }
  });

  // The result carries the answer twice (structuredContent, and its JSON as text, as MCP asks), so a budget of 300
  // leaves 150 tokens for each: the envelope and a node's head (four ids, a timestamp) alone take more than that.
  it('long instructions and a long first node share a small budget, both cut; at 300 the playbook comes alone, counting what it left out', async () => {
    const fresh = await createWorkspace();
    const built = await buildGraph(fresh, { nodes: { only: { content: paragraph.repeat(20) }, second: {} }, links: [['pb', 'requires', 'only'], ['pb', 'references', 'second']] });
    const version = (await request('POST', fresh.path(`/playbooks/${built.playbookId}/versions`), { token: fresh.owner.key, body: { content: { instructions: paragraph.repeat(200) } } })).body;
    expect((await request('PATCH', fresh.path(`/playbooks/${built.playbookId}/versions/${version.id}/approve`), { token: fresh.owner.key })).status).to.equal(200);
    const client = await mcpClient(fresh);
    const cut = / … \[cut to fit maxTokens\]$/;
    try {
      for (const name of ['get_bundle', 'get_manifest']) {
        const result: any = await client.callTool({ name, arguments: { playbook: built.playbookId, maxTokens: 700 } });
        expect(result.isError ?? false, result.content[0].text).to.equal(false);
        expect(resultTokens(result)).to.be.at.most(700);
        const answer = result.structuredContent;
        expect(answer.playbook.id).to.equal(built.playbookId);
        expect(answer.playbook.activeVersion.id).to.equal(version.id);
        // The instructions keep their beginning and leave the node room; the node says it was cut.
        expect(answer.playbook.activeVersion.content.instructions).to.match(/^Check the release notes/).and.match(cut);
        expect(answer.nodes.map((n: any) => n.id), name).to.deep.equal([built.id.only]);
        if (name === 'get_bundle') expect(answer.nodes[0].content).to.match(/^Check the release notes/).and.match(cut);
        expect(answer.omittedCount).to.equal(1);
        expect(answer.cursor, 'the cursor moves on to the second node').to.be.a('string');

        const small: any = await client.callTool({ name, arguments: { playbook: built.playbookId, maxTokens: 300 } });
        expect(small.isError ?? false, small.content[0].text).to.equal(false);
        expect(resultTokens(small)).to.be.at.most(300);
        expect(small.structuredContent.playbook.activeVersion.content.instructions).to.match(/^Check the release notes/).and.match(cut);
        expect(small.structuredContent.nodes).to.deep.equal([]);
        expect(small.structuredContent.omittedCount).to.equal(2);
        expect(small.structuredContent).not.to.have.property('cursor');
      }
    } finally {
      await client.close();
    }
  });

  it('resources and prompts fit the budget, and a prompt is markdown', async () => {
    const client = await mcpClient(w);
    const big = (await request('POST', w.path('/context-nodes'), { token: w.owner.key, body: { title: 'Huge runbook', description: 'd', content: paragraph.repeat(600) } })).body;
    const node = await client.readResource({ uri: `node://${big.slug}` });
    expect(tokens(JSON.stringify(node.contents))).to.be.at.most(8_000);
    expect((node.contents[0] as any).text).to.include('cut to fit');
    for (const budget of [300, 1_000, 4_000]) {
      const prompt = await client.getPrompt({ name: slug, arguments: { maxTokens: String(budget) } });
      const text = prompt.messages.map((m: any) => m.content.text).join('');
      expect(tokens(text)).to.be.at.most(budget);
      expect(text).to.match(/^# /);
      if (budget === 4_000) expect(text).to.include('### 1. step0');
    }
    await client.close();
  });

  it('get_updates pages through 300 nodes written in the same second, none skipped, none twice', async () => {
    const frozen = new Date('2031-01-01T00:00:00.500Z');
    const service = await startExtraService({}, { clock: () => frozen });
    try {
      const fresh = await createWorkspace();
      const items = Array.from({ length: 300 }, (_, i) => ({ slug: `same-second-${i}`, title: `Same second ${i}`, description: 'd', content: `Node ${i}` }));
      const imported = await request('POST', fresh.path('/context-nodes/import'), { token: fresh.owner.key, body: { nodes: items }, baseUrl: service.url });
      expect(imported.status, imported.text).to.be.oneOf([200, 201]);
      const client = await mcpClient(fresh);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 100; page++) {
        const result: any = await client.callTool({ name: 'get_updates', arguments: { since: '2030-12-31T00:00:00.000Z', limit: 40, maxTokens: 1_000, ...(cursor ? { cursor } : {}) } });
        expect(resultTokens(result)).to.be.at.most(1_000);
        const nodes = result.structuredContent.nodes;
        expect(nodes.length).to.be.at.most(40);
        if (nodes.length === 0) break;
        seen.push(...nodes.map((n: any) => n.slug));
        cursor = result.structuredContent.cursor;
      }
      expect(new Set(seen).size).to.equal(300);
      expect(seen).to.have.length(300);
      await client.close();
    } finally {
      await service.stop();
    }
  });
});

describe('MCP: schemas, errors, instructions and completions', function () {
  this.timeout(120_000);

  it('every tool’s input schema takes a call with only its required fields, and requires no field that has a default', async () => {
    const { g, w, slug } = await arrange();
    const client = await mcpClient(w);
    const { tools } = await client.listTools();
    const ajv = new Ajv({ strict: false });
    addFormats.default(ajv);
    const minimal: Record<string, Record<string, unknown>> = {
      list_playbooks: {},
      get_bundle: { playbook: slug },
      get_manifest: { playbook: slug },
      get_node: { node: g.id.step1 },
      follow_links: { node: g.id.step0 },
      find_context: { q: 'What is the first step?' },
      search_context: { q: 'step' },
      get_updates: { since: '2000-01-01T00:00:00.000Z' },
      annotate: { targetType: 'context_node', targetId: g.id.step1, scopeType: 'agent_local', title: 'Seen', content: 'Read it' },
      set_node_names: { node: g.id.step1, aliases: ['First step'] },
      give_feedback: { targetType: 'context_node', targetId: g.id.step1, feedbackType: 'helpful', summary: 'Clear' },
    };
    expect(tools.map((t) => t.name).sort()).to.deep.equal(Object.keys(minimal).sort());
    for (const tool of tools) {
      const schema = tool.inputSchema as any;
      for (const name of schema.required ?? []) expect(schema.properties[name].default, `${tool.name}.${name}`).to.equal(undefined);
      const args = minimal[tool.name];
      expect(Object.keys(args).sort(), tool.name).to.include.members([...(schema.required ?? [])].sort());
      expect(ajv.validate(schema, args), `${tool.name}: ${ajv.errorsText()}`).to.equal(true);
      expect(tool.outputSchema, tool.name).to.be.an('object');
      expect(tool.title, tool.name).to.be.a('string');
      expect(tool.annotations?.readOnlyHint, tool.name).to.be.a('boolean');
      const result: any = await client.callTool({ name: tool.name, arguments: args });
      expect(result.isError, `${tool.name}: ${result.content?.[0]?.text}`).to.not.equal(true);
    }
    await client.close();
  });

  it('an enum error names the allowed values; a missing resource is one -32002; an unknown tool or a call without a name is -32602 in one line', async () => {
    const { w, slug } = await arrange();
    const client = await mcpClient(w);
    const bad: any = await client.callTool({ name: 'get_bundle', arguments: { playbook: slug, mode: 'everything' } });
    expect(bad.isError).to.equal(true);
    expect(JSON.parse(bad.content[0].text).detail).to.include('summary, standard, full');
    const missing = await client.readResource({ uri: 'node://no-such-node' }).catch((err) => err);
    expect(missing.code).to.equal(-32002);
    expect(missing.data.code).to.equal('not_found');
    expect(missing.message.match(/MCP error/g)).to.have.length(1);
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((err) => err);
    expect(unknown.code).to.equal(-32602);
    expect(unknown.message).to.include('Unknown tool');
    const raw = await request('POST', w.path('/mcp'), {
      token: w.owner.key,
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { arguments: {} } },
    });
    expect(raw.body.error.code).to.equal(-32602);
    expect(raw.body.error.message).to.not.include('\n');
    await client.close();
  });

  it('a refused quota is a tool error and a prompt error with quota_exceeded and when it resets', async () => {
    const { w, slug } = await arrange();
    expect((await request('PATCH', `/api/v1/admin/workspaces/${w.workspaceId}`, { token: adminToken, body: { monthlyRetrievalLimit: 0 } })).status).to.equal(200);
    const client = await mcpClient(w);
    const tool: any = await client.callTool({ name: 'get_bundle', arguments: { playbook: slug } });
    expect(tool.isError).to.equal(true);
    const problem = JSON.parse(tool.content[0].text);
    expect(problem.code).to.equal('quota_exceeded');
    expect(Date.parse(problem.resetAt)).to.be.greaterThan(Date.now());
    const prompt = await client.getPrompt({ name: slug }).catch((err) => err);
    expect(prompt.data.code).to.equal('quota_exceeded');
    expect(prompt.message).to.include('resets at');
    await client.close();
  });

  it('initialize carries instructions; prompt arguments and resource templates complete with the workspace’s slugs', async () => {
    const { g, w, slug } = await arrange();
    const client = await mcpClient(w);
    expect(client.getInstructions()).to.include('get_bundle');
    const playbooks = await client.complete({ ref: { type: 'ref/prompt', name: 'run_playbook' }, argument: { name: 'playbook', value: slug.slice(0, 4) } });
    expect(playbooks.completion.values).to.include(slug);
    const nodes = await client.complete({ ref: { type: 'ref/resource', uri: 'node://{slug}' }, argument: { name: 'slug', value: 'step' } });
    expect(nodes.completion.values).to.include(g.node.step3.slug);
    await client.close();
  });
});
