import { expect } from 'chai';
import { createWorkspace, request } from '../support/api.js';
import { callOk, mcpClient } from '../support/mcp.js';
import { type Graph, buildGraph, bundleOf } from '../support/retrieval.js';

async function graph(): Promise<Graph> {
  const w = await createWorkspace();
  return buildGraph(w, {
    nodes: { a: { importance: 90 }, b: { importance: 50 }, c: {} },
    links: [
      ['pb', 'requires', 'a'],
      ['pb', 'requires', 'b'],
      ['pb', 'references', 'c'],
    ],
  });
}

const feedback = (g: Graph, node: string, feedbackType: string) =>
  request('POST', g.workspace.path('/context/feedback'), { token: g.workspace.owner.key, body: { targetType: 'context_node', targetId: g.id[node], feedbackType, summary: 'Flagged' } });

const order = async (g: Graph) => g.names((await bundleOf(g)).nodes.map((n: any) => n.id));

describe('feedback-aware ranking', function () {
  this.timeout(120_000);

  it('open outdated or incorrect feedback ranks a node after the unflagged ones, its reason says so, and resolving restores it', async () => {
    const g = await graph();
    expect(await order(g)).to.deep.equal(['a', 'b', 'c']);
    // Positive feedback changes nothing.
    expect((await feedback(g, 'b', 'helpful')).status).to.equal(201);
    expect(await order(g)).to.deep.equal(['a', 'b', 'c']);

    const flagged = await feedback(g, 'a', 'outdated');
    expect(flagged.status).to.equal(201);
    const bundle = await bundleOf(g);
    expect(g.names(bundle.nodes.map((n: any) => n.id))).to.deep.equal(['b', 'c', 'a']);
    expect(bundle.nodes[2].reason).to.deep.include({ kind: 'requires', openFeedback: ['outdated'] });
    expect(bundle.nodes[0].reason).not.to.have.property('openFeedback');

    const resolved = await request('PATCH', g.workspace.path(`/context/feedback/${flagged.body.id}`), { token: g.workspace.owner.key, body: { status: 'resolved' } });
    expect(resolved.status).to.equal(200);
    const restored = await bundleOf(g);
    expect(g.names(restored.nodes.map((n: any) => n.id))).to.deep.equal(['a', 'b', 'c']);
    expect(restored.nodes[0].reason).not.to.have.property('openFeedback');
  });

  it('feedback given over MCP demotes the node in the next (uncached) bundle', async () => {
    const g = await graph();
    const client = await mcpClient(g.workspace);
    expect(g.names((await callOk(client, 'get_bundle', { playbook: g.playbookId })).nodes.map((n: any) => n.id))).to.deep.equal(['a', 'b', 'c']);
    await callOk(client, 'give_feedback', { targetType: 'context_node', targetId: g.id.a, feedbackType: 'incorrect', summary: 'Wrong port' });
    const after = await callOk(client, 'get_bundle', { playbook: g.playbookId });
    expect(g.names(after.nodes.map((n: any) => n.id))).to.deep.equal(['b', 'c', 'a']);
    expect(after.nodes[2].reason.openFeedback).to.deep.equal(['incorrect']);
    await client.close();
  });
});
