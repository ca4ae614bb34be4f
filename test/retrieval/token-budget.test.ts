import { expect } from 'chai';
import { getEncoding } from 'js-tiktoken';
import { QueryCatalog } from '../../src/infra/cypher-files.js';
import { GraphExecutor } from '../../src/infra/neo4j.js';
import { createDriver } from '../../src/infra/neo4j-driver.js';
import { createWorkspace, request } from '../support/api.js';
import { env, startExtraService } from '../support/harness.js';
import { callOk, mcpClient } from '../support/mcp.js';
import { type Graph, buildGraph, getBundle, getFollow, getManifest } from '../support/retrieval.js';

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

  it('with maxTokens the whole JSON answer fits: nodes in rank order while it does, the rest counted, and a cursor to them', async () => {
    const g = await graph();
    const full = (await getBundle(g.workspace, { playbookId: g.playbookId })).body;
    expect(g.names(full.nodes.map((n: any) => n.id))).to.deep.equal(['a', 'b', 'c']);
    expect([full.tokenCount, full.omittedCount, full.omitted, full.cursor]).to.deep.equal([ta + tb + tc, 0, [], undefined]);
    const whole = tokens(JSON.stringify(full));
    const seen = new Set<number>();
    for (let budget = whole - 120; budget <= whole; budget += 10) {
      const reply = await getBundle(g.workspace, { playbookId: g.playbookId, maxTokens: budget });
      expect(reply.status).to.equal(200);
      expect(tokens(reply.text)).to.be.at.most(budget);
      const kept = reply.body.nodes.length;
      seen.add(kept);
      // A prefix of the ranking, and the longest that fits: the next node would not have.
      expect(reply.body.nodes.map((n: any) => n.id)).to.deep.equal(full.nodes.slice(0, kept).map((n: any) => n.id));
      expect(reply.body.tokenCount).to.equal([0, ta, ta + tb, ta + tb + tc][kept]);
      expect(reply.body.omittedCount).to.equal(3 - kept);
      expect(reply.body.truncated).to.equal(kept < 3);
      expect(reply.body.omitted).to.deep.equal(full.nodes.slice(kept).map((n: any) => ({ id: n.id, reason: 'max-tokens' })));
      expect(reply.body.omittedNodeIds).to.deep.equal(reply.body.omitted.map((o: any) => o.id));
      if (kept < 3) {
        expect(tokens(JSON.stringify({ ...full, nodes: full.nodes.slice(0, kept + 1) }))).to.be.greaterThan(budget - 100);
        const next = (await getBundle(g.workspace, { playbookId: g.playbookId, cursor: reply.body.cursor })).body;
        expect(next.nodes.map((n: any) => n.id)).to.deep.equal(full.nodes.slice(kept).map((n: any) => n.id));
      } else {
        expect(reply.body.cursor).to.equal(undefined);
      }
    }
    expect(seen.size).to.be.greaterThan(1);

    // maxNodes and the budget together: each cut says which, and the count covers both.
    const both = (await getBundle(g.workspace, { playbookId: g.playbookId, maxNodes: 2, maxTokens: whole - 60 })).body;
    expect(both.omitted.map((o: any) => [g.name[o.id], o.reason]).at(-1)).to.deep.equal(['c', 'max-nodes']);
    expect(both.omittedCount).to.equal(3 - both.nodes.length);

    const tooSmall = await getBundle(g.workspace, { playbookId: g.playbookId, maxTokens: 20 });
    expect(tooSmall.status).to.equal(400);
    expect(tooSmall.body.errors[0].path).to.equal('/maxTokens');
  });

  it('a budgeted answer lists only the first few of what it left out, however many there are', async () => {
    const w = await createWorkspace();
    const nodes: Record<string, { content: string; importance: number }> = {};
    const links: [string, 'requires' | 'references' | 'relates-to', string][] = [];
    for (let i = 0; i < 30; i++) {
      nodes[`n${i}`] = { content: `${texts.c} (${i})`, importance: 90 - i };
      links.push(['pb', 'references', `n${i}`]);
    }
    const g = await buildGraph(w, { nodes, links });
    const reply = await getBundle(w, { playbookId: g.playbookId, maxNodes: 30, maxTokens: 600 });
    expect(tokens(reply.text)).to.be.at.most(600);
    expect(reply.body.omittedCount).to.equal(30 - reply.body.nodes.length);
    expect(reply.body.omitted.length).to.be.at.most(5);
    // The cursor walks the whole ranking, page by page, each within the budget.
    const ids = reply.body.nodes.map((n: any) => n.id);
    let cursor = reply.body.cursor;
    while (cursor) {
      const page = await getBundle(w, { playbookId: g.playbookId, maxNodes: 30, maxTokens: 600, cursor });
      expect(tokens(page.text)).to.be.at.most(600);
      ids.push(...page.body.nodes.map((n: any) => n.id));
      cursor = page.body.cursor;
    }
    expect(g.names(ids)).to.deep.equal(Object.keys(nodes));
    const bad = await getBundle(w, { playbookId: g.playbookId, cursor: 'bm90LWEtY3Vyc29y' });
    expect(bad.status).to.equal(400);
  });

  it('the manifest carries each node’s stored count; follow fits its whole answer in a budget too', async () => {
    const g = await graph();
    const manifest = (await getManifest(g.workspace, { playbookId: g.playbookId })).body;
    expect(manifest.nodes.map((n: any) => n.tokenCount)).to.deep.equal([ta, tb, tc]);
    const all = (await getFollow(g.workspace, g.id.a, {})).body;
    expect(g.names(all.nodes.map((n: any) => n.id))).to.deep.equal(['b', 'c']);
    const budget = tokens(JSON.stringify(all)) - 10; // both do not fit; one, with what it left out, does
    const follow = await getFollow(g.workspace, g.id.a, { maxTokens: budget });
    expect(tokens(follow.text)).to.be.at.most(budget);
    expect(g.names(follow.body.nodes.map((n: any) => n.id))).to.deep.equal(['b']);
    expect(follow.body.tokenCount).to.equal(tb);
    expect(follow.body.omitted).to.deep.equal([{ id: g.id.c, reason: 'max-tokens' }]);
    expect(follow.body.omittedCount).to.equal(1);
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
    const budgeted = (await getBundle(g.workspace, { playbookId: g.playbookId, maxTokens: 10_000 })).body;
    expect(budgeted.tokenCount).to.equal(ta + tb + tc);
  });

  it('MCP retrieval tools apply the default budget of 8,000 tokens to the whole result, and honour a given one', async () => {
    const w = await createWorkspace();
    const big = 'lorem ipsum dolor sit amet '.repeat(1700);
    const g = await buildGraph(w, { nodes: { small: { content: texts.a, importance: 90 }, big: { content: big, importance: 10 } }, links: [['pb', 'requires', 'small'], ['pb', 'requires', 'big']] });
    expect(tokens(big)).to.be.greaterThan(8_000);
    const client = await mcpClient(w);
    const bundle = await callOk(client, 'get_bundle', { playbook: g.playbookId });
    expect(g.names(bundle.nodes.map((n: any) => n.id))).to.deep.equal(['small']);
    expect(bundle.omittedCount).to.equal(1);
    expect(bundle.cursor).to.be.a('string');
    expect(bundle.tokenCount).to.equal(tokens(texts.a));
    const all = await callOk(client, 'get_bundle', { playbook: g.playbookId, maxTokens: 2 * (tokens(texts.a) + tokens(big)) + 1_000 });
    expect(all.nodes).to.have.length(2);
    expect(all.tokenCount).to.equal(tokens(texts.a) + tokens(big));
    const rest = (await getBundle(w, { playbookId: g.playbookId })).body;
    expect(rest.nodes).to.have.length(2);
    await client.close();
  });
});
