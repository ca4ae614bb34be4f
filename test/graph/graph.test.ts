import { linkTypes } from '@playbooks/client';
import { expect } from 'chai';
import { addMember, createWorkspace, problem, request, type TestWorkspace } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { archiveNode, createNode, link } from '../support/nodes.js';
import { createPlaybook } from '../support/playbooks.js';

type GraphNode = { id: string; kind: 'node' | 'playbook'; slug: string; title: string; nodeType: string | null; importance: number | null; status: string };
type GraphLink = { id: string; from: string; to: string; type: string; origin: string };
type Graph = { nodes: GraphNode[]; links: GraphLink[]; truncated: boolean };

async function graph(w: TestWorkspace, query = '', token = w.owner.key): Promise<Graph> {
  const res = await request('GET', w.path(`/graph${query}`), { token });
  expect(res.status, res.text).to.equal(200);
  return res.body;
}

const playbookLink = async (w: TestWorkspace, playbookId: string, targetId: string, linkType: string) => {
  const res = await request('POST', w.path(`/playbooks/${playbookId}/links`), { token: w.owner.key, body: { targetId, linkType } });
  expect(res.status, res.text).to.equal(201);
  return res.body;
};

const ids = (g: Graph) => g.nodes.map((n) => n.id).sort();
const edges = (g: Graph) => g.links.map((l) => `${l.from} -${l.type}-> ${l.to}`).sort();

describe('graph view (GET {ws}/graph)', () => {
  it('answers the workspace’s playbooks and nodes with their typed links, wikilinks included, and nothing of another workspace', async () => {
    const w = await createWorkspace();
    const other = await createWorkspace();
    await createNode(other, { slug: 'elsewhere' });
    const pb = await createPlaybook(w, w.owner.key, { title: 'Launch' });
    const tone = await createNode(w, { slug: 'tone', title: 'Tone', nodeType: 'brand', importance: 80 });
    const voice = await createNode(w, { slug: 'voice', title: 'Voice', content: 'Read [[tone]] first, and [[missing]].' });
    const price = await createNode(w, { slug: 'price', title: 'Price', nodeType: 'reference' });
    const requires = await link(w, price.id, voice.id, 'requires');
    const refs = await playbookLink(w, pb.id, price.id, 'references');

    const g = await graph(w);
    expect(g.truncated).to.equal(false);
    expect(ids(g)).to.deep.equal([pb.id, tone.id, voice.id, price.id].sort());
    expect(g.nodes[0]).to.deep.equal({ id: pb.id, kind: 'playbook', slug: pb.slug, title: 'Launch', nodeType: null, importance: null, status: 'active' });
    expect(g.nodes.find((n) => n.id === tone.id)).to.deep.equal({ id: tone.id, kind: 'node', slug: 'tone', title: 'Tone', nodeType: 'brand', importance: 80, status: 'live' });
    expect(edges(g)).to.deep.equal([
      `${pb.id} -references-> ${price.id}`,
      `${price.id} -requires-> ${voice.id}`,
      `${voice.id} -references-> ${tone.id}`,
    ].sort());
    const wikilink = g.links.find((l) => l.from === voice.id)!;
    expect(wikilink).to.include({ to: tone.id, type: 'references', origin: 'wikilink' });
    expect(wikilink.id).to.match(/^lnk_/);
    expect(g.links.find((l) => l.id === requires.id)).to.deep.equal({ id: requires.id, from: price.id, to: voice.id, type: 'requires', origin: 'manual' });
    expect(g.links.find((l) => l.id === refs.id)?.origin).to.equal('manual');

    // Any member may read it, agent keys included; another workspace's members may not.
    const viewer = await addMember(w, 'viewer');
    const agent = await createAgent(w);
    expect(ids(await graph(w, '', viewer.key))).to.deep.equal(ids(g));
    expect(ids(await graph(w, '', agent.key))).to.deep.equal(ids(g));
    problem(await request('GET', w.path('/graph'), { token: other.owner.key }), 404);
  });

  it('hides archived nodes and playbooks, and the links through them, unless includeArchived', async () => {
    const w = await createWorkspace();
    const pb = await createPlaybook(w, w.owner.key);
    const gone = await createPlaybook(w, w.owner.key);
    const a = await createNode(w);
    const b = await createNode(w);
    await link(w, a.id, b.id, 'relates-to');
    await playbookLink(w, pb.id, b.id, 'requires');
    await archiveNode(w, b.id);
    expect((await request('DELETE', w.path(`/playbooks/${gone.id}`), { token: w.owner.key })).status).to.equal(204);

    const live = await graph(w);
    expect(ids(live)).to.deep.equal([pb.id, a.id].sort());
    expect(live.links).to.deep.equal([]);
    const all = await graph(w, '?includeArchived=true');
    expect(ids(all)).to.deep.equal([pb.id, gone.id, a.id, b.id].sort());
    expect(all.nodes.find((n) => n.id === b.id)?.status).to.equal('archived');
    expect(all.nodes.find((n) => n.id === gone.id)?.status).to.equal('archived');
    expect(edges(all)).to.deep.equal([`${a.id} -relates-to-> ${b.id}`, `${pb.id} -requires-> ${b.id}`].sort());
    // Through the neighbourhood too: an archived node is not crossed.
    expect(ids(await graph(w, `?playbookId=${pb.id}&depth=5`))).to.deep.equal([pb.id]);
    expect(ids(await graph(w, `?playbookId=${pb.id}&depth=5&includeArchived=true`))).to.deep.equal([pb.id, a.id, b.id].sort());
  });

  it('answers a playbook’s neighbourhood up to depth hops, following links either way, closest first', async () => {
    const w = await createWorkspace();
    const pb = await createPlaybook(w, w.owner.key);
    const neighbour = await createPlaybook(w, w.owner.key);
    const [n1, n2, n3, n4, far] = [await createNode(w), await createNode(w), await createNode(w), await createNode(w), await createNode(w)];
    await playbookLink(w, pb.id, n1.id, 'requires'); // depth 1
    await link(w, n2.id, n1.id, 'references'); // depth 2, reached against the link's direction
    await playbookLink(w, neighbour.id, n1.id, 'relates-to'); // depth 2: another playbook on the same node
    await link(w, n2.id, n3.id, 'index-entry'); // depth 3
    await link(w, n3.id, n4.id, 'supersedes'); // depth 4
    const stray = await createNode(w);
    await link(w, far.id, stray.id, 'references'); // not connected to the playbook

    const d1 = await graph(w, `?playbookId=${pb.id}&depth=1`);
    expect(d1.nodes.map((n) => n.id)).to.deep.equal([pb.id, n1.id]);
    expect(edges(d1)).to.deep.equal([`${pb.id} -requires-> ${n1.id}`]);
    const d2 = await graph(w, `?playbookId=${pb.id}`);
    expect(d2.nodes[0].id).to.equal(pb.id);
    expect(ids(d2)).to.deep.equal([pb.id, n1.id, n2.id, neighbour.id].sort());
    expect(d2.nodes.slice(2).map((n) => n.id).sort()).to.deep.equal([n2.id, neighbour.id].sort());
    expect(edges(d2)).to.deep.equal([`${pb.id} -requires-> ${n1.id}`, `${n2.id} -references-> ${n1.id}`, `${neighbour.id} -relates-to-> ${n1.id}`].sort());
    const d5 = await graph(w, `?playbookId=${pb.id}&depth=5`);
    expect(ids(d5)).to.deep.equal([pb.id, neighbour.id, n1.id, n2.id, n3.id, n4.id].sort());
    expect(d5.nodes.slice(-1).map((n) => n.id)).to.deep.equal([n4.id]);
    expect(d5.links).to.have.length(5);
  });

  it('cuts the nodes at limit, says so in truncated, and keeps only the links among the nodes answered', async () => {
    const w = await createWorkspace();
    const pb = await createPlaybook(w, w.owner.key);
    const top = await createNode(w, { importance: 99 });
    const mid = await createNode(w, { importance: 60 });
    const low = await createNode(w, { importance: 1 });
    await link(w, top.id, mid.id, 'requires');
    await link(w, mid.id, low.id, 'requires');
    const cut = await graph(w, '?limit=3');
    expect(cut.truncated).to.equal(true);
    expect(cut.nodes.map((n) => n.id)).to.deep.equal([pb.id, top.id, mid.id]);
    expect(edges(cut)).to.deep.equal([`${top.id} -requires-> ${mid.id}`]);
    const exact = await graph(w, '?limit=4');
    expect(exact.truncated).to.equal(false);
    expect(exact.links).to.have.length(2);
    await playbookLink(w, pb.id, top.id, 'references');
    const near = await graph(w, `?playbookId=${pb.id}&depth=5&limit=2`);
    expect(near).to.deep.include({ truncated: true });
    expect(near.nodes.map((n) => n.id)).to.deep.equal([pb.id, top.id]);
  });

  it('404s a playbook of another workspace or none; refuses bad parameters with 400', async () => {
    const w = await createWorkspace();
    const other = await createWorkspace();
    const foreign = await createPlaybook(other, other.owner.key);
    problem(await request('GET', w.path(`/graph?playbookId=${foreign.id}`), { token: w.owner.key }), 404, 'not_found');
    problem(await request('GET', w.path('/graph?playbookId=pb_doesnotexist'), { token: w.owner.key }), 404, 'not_found');
    for (const q of ['depth=0', 'depth=6', 'limit=0', 'limit=10001', 'includeArchived=maybe', 'nodeType=brand']) {
      problem(await request('GET', w.path(`/graph?${q}`), { token: w.owner.key }), 400, 'invalid_request');
    }
  });

  it('answers a 2,000-node, 10,000-link workspace in one go, and a conditional request with 304', async function () {
    this.timeout(300_000);
    const w = await createWorkspace();
    const pb = await createPlaybook(w, w.owner.key);
    const size = 2_000;
    const slug = (i: number) => `g-${i}`;
    // Each node links to the next five (wrapping within its batch of 1,000), so each batch of the import is self-contained.
    for (const batch of [0, 1]) {
      const nodes = Array.from({ length: 1_000 }, (_, j) => {
        const i = batch * 1_000 + j;
        const links = [1, 2, 3, 4, 5].map((k) => ({ linkType: linkTypes[k - 1], target: slug(batch * 1_000 + ((j + k * 7) % 1_000)) }));
        return { slug: slug(i), title: `Node ${i}`, description: 'd', importance: i % 101, links };
      });
      const res = await request('POST', w.path('/context-nodes/import'), { token: w.owner.key, body: { nodes } });
      expect(res.status, res.text.slice(0, 500)).to.equal(200);
    }
    await playbookLink(w, pb.id, (await request('GET', w.path(`/context-nodes?limit=1&sort=importance`), { token: w.owner.key })).body.nodes[0].id, 'requires');

    let started = Date.now();
    const res = await request('GET', w.path('/graph'), { token: w.owner.key });
    const wholeMs = Date.now() - started;
    expect(res.status).to.equal(200);
    expect(res.body.nodes).to.have.length(size + 1);
    expect(res.body.links).to.have.length(size * 5 + 1);
    expect(res.body.truncated).to.equal(false);
    started = Date.now();
    const hood = await graph(w, `?playbookId=${pb.id}&depth=5`);
    const hoodMs = Date.now() - started;
    expect(hood.nodes.length).to.be.greaterThan(1);
    console.log(`      whole graph of ${size} nodes and ${size * 5} links: ${wholeMs} ms; a neighbourhood of depth 5 (${hood.nodes.length} nodes): ${hoodMs} ms`);
    expect(wholeMs).to.be.lessThan(10_000);
    const again = await request('GET', w.path('/graph'), { token: w.owner.key, headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).to.equal(304);
  });
});
