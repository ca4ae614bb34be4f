import { expect } from 'chai';
import { getEncoding } from 'js-tiktoken';
import { QueryCatalog } from '../src/infra/cypher-files.js';
import { GraphExecutor, createDriver } from '../src/infra/neo4j.js';
import { createWorkspace, request } from './support/api.js';
import { env, startExtraService } from './support/harness.js';
import { callOk, mcpClient } from './support/mcp.js';
import { type Graph, buildGraph, getBundle, getFollow, getManifest } from './support/retrieval.js';

// An independent count: the whole text in one pass of the library's own encoder.
const o200k = getEncoding('o200k_base');
const tokens = (text: string) => o200k.encode(text).length;

const texts = {
  a: 'Always read the deployment checklist before touching production.',
  b: 'Rollbacks use the previous image tag; never rebuild during an incident.',
  c: 'Page the on-call engineer when the error rate passes two percent for five minutes.',
};

async function graph(): Promise<Graph> {
  const w = await createWorkspace();
  return buildGraph(w, {
    nodes: {
      a: { content: texts.a, importance: 90 },
      b: { content: texts.b, importance: 80 },
      c: { content: texts.c, importance: 70 },
    },
    links: [
      ['pb', 'requires', 'a'],
      ['pb', 'requires', 'b'],
      ['pb', 'requires', 'c'],
      ['a', 'references', 'b'],
      ['a', 'references', 'c'],
    ],
  });
}

describe('token budget on retrieval', function () {
  this.timeout(120_000);
  const [ta, tb, tc] = [tokens(texts.a), tokens(texts.b), tokens(texts.c)];

  it('a bundle takes nodes in rank order while they fit, lists what the budget cut, and says how many tokens it holds', async () => {
    const g = await graph();
    const exact = (await getBundle(g.workspace, { playbookId: g.playbookId, maxTokens: ta + tb })).body;
    expect(g.names(exact.nodes.map((n: any) => n.id))).to.deep.equal(['a', 'b']);
    expect(exact.tokenCount).to.equal(ta + tb);
    expect(exact.omitted).to.deep.equal([{ id: g.id.c, reason: 'max-tokens' }]);
    expect(exact.omittedNodeIds).to.deep.equal([g.id.c]);
    expect(exact.truncated).to.equal(true);

    // One token less: b no longer fits, and c (which would) is not taken in its place.
    const less = (await getBundle(g.workspace, { playbookId: g.playbookId, maxTokens: ta + tb - 1 })).body;
    expect(g.names(less.nodes.map((n: any) => n.id))).to.deep.equal(['a']);
    expect(less.tokenCount).to.equal(ta);
    expect(less.omitted.map((o: any) => [g.name[o.id], o.reason])).to.deep.equal([['b', 'max-tokens'], ['c', 'max-tokens']]);

    // maxNodes and the budget together: each cut says which.
    const both = (await getBundle(g.workspace, { playbookId: g.playbookId, maxNodes: 2, maxTokens: ta })).body;
    expect(both.omitted.map((o: any) => [g.name[o.id], o.reason])).to.deep.equal([['b', 'max-tokens'], ['c', 'max-nodes']]);

    const none = (await getBundle(g.workspace, { playbookId: g.playbookId })).body;
    expect(none.tokenCount).to.equal(ta + tb + tc);
    expect(none.omitted).to.deep.equal([]);
  });

  it('the manifest carries each node’s stored count; follow honours a budget too', async () => {
    const g = await graph();
    const manifest = (await getManifest(g.workspace, { playbookId: g.playbookId })).body;
    expect(manifest.nodes.map((n: any) => n.tokenCount)).to.deep.equal([ta, tb, tc]);
    const follow = (await getFollow(g.workspace, g.id.a, { maxTokens: tb })).body;
    expect(g.names(follow.nodes.map((n: any) => n.id))).to.deep.equal(['b']);
    expect(follow.tokenCount).to.equal(tb);
    expect(follow.omitted).to.deep.equal([{ id: g.id.c, reason: 'max-tokens' }]);
  });

  it('an edit recounts the content', async () => {
    const g = await graph();
    const longer = `${texts.a} And check the dashboards afterwards.`;
    await request('PATCH', g.workspace.path(`/context-nodes/${g.id.a}`), { token: g.workspace.owner.key, body: { content: longer } });
    const manifest = (await getManifest(g.workspace, { playbookId: g.playbookId })).body;
    expect(manifest.nodes[0].tokenCount).to.equal(tokens(longer));
  });

  it('a content that spells a special token (<|endoftext|>) is written and counted as the text it is', async () => {
    const content = 'Never paste <|endoftext|> or <|im_start|> into a prompt by hand.';
    const g = await buildGraph(await createWorkspace(), { nodes: { s: { content } }, links: [['pb', 'requires', 's']] });
    const manifest = (await getManifest(g.workspace, { playbookId: g.playbookId })).body;
    expect(manifest.nodes.map((n: any) => n.tokenCount)).to.deep.equal([o200k.encode(content, [], []).length]);
  });

  it('nodes stored before counts existed are counted when a service starts, and cached answers see it', async () => {
    const g = await graph();
    await getManifest(g.workspace, { playbookId: g.playbookId }); // cached with the counts
    // Arrange the state a database written by an older release is in: nodes without stored counts.
    const old = new GraphExecutor(createDriver({ ...env.config.neo4j, uri: env.deps.neo4jUri }), 'neo4j', new QueryCatalog());
    try {
      await old.runMigrationStatement(
        'MATCH (n:ContextNode {workspaceId: $workspaceId}) REMOVE n.tokenCount, n.descriptionTokenCount, n.agentSummaryTokenCount',
        { workspaceId: g.workspace.workspaceId },
      );
    } finally {
      await old.driver.close();
    }
    const uncounted = (await getManifest(g.workspace, { playbookId: g.playbookId, maxNodes: 19 })).body; // not yet cached
    expect(uncounted.nodes.map((n: any) => n.tokenCount)).not.to.deep.equal([ta, tb, tc]);
    const started = await startExtraService(); // the start-up backfill runs before it serves
    await started.stop();
    const manifest = (await getManifest(g.workspace, { playbookId: g.playbookId })).body;
    expect(manifest.nodes.map((n: any) => n.tokenCount)).to.deep.equal([ta, tb, tc]);
    const budgeted = (await getBundle(g.workspace, { playbookId: g.playbookId, maxTokens: ta })).body;
    expect(budgeted.tokenCount).to.equal(ta);
  });

  it('MCP retrieval tools apply the default budget of 8,000 tokens, and honour a given one exactly', async () => {
    const w = await createWorkspace();
    const big = 'lorem ipsum dolor sit amet '.repeat(1700);
    const g = await buildGraph(w, { nodes: { small: { content: texts.a, importance: 90 }, big: { content: big, importance: 10 } }, links: [['pb', 'requires', 'small'], ['pb', 'requires', 'big']] });
    expect(tokens(big)).to.be.greaterThan(8_000);
    const client = await mcpClient(w);
    const bundle = await callOk(client, 'get_bundle', { playbook: g.playbookId });
    expect(g.names(bundle.nodes.map((n: any) => n.id))).to.deep.equal(['small']);
    expect(bundle.omitted).to.deep.equal([{ id: g.id.big, reason: 'max-tokens' }]);
    expect(bundle.tokenCount).to.equal(tokens(texts.a));
    const all = await callOk(client, 'get_bundle', { playbook: g.playbookId, maxTokens: tokens(texts.a) + tokens(big) });
    expect(all.nodes).to.have.length(2);
    expect(all.tokenCount).to.equal(tokens(texts.a) + tokens(big));
    const rest = (await getBundle(w, { playbookId: g.playbookId })).body;
    expect(rest.nodes).to.have.length(2);
    await client.close();
  });
});
