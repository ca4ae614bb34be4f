import { expect } from 'chai';
import { type TestWorkspace, createWorkspace, request } from '../support/api.js';
import { createNode, getNode, updateNode } from '../support/nodes.js';

/**
 * Thousands of notes titled alike (vaults have them: a README in every folder, daily notes) and thousands linking
 * to that title. A write that does not change which note the name resolves to moves no link, so its cost does not
 * grow with the crowd. Before each name kept its target, every such write resolved every waiting link again: 158 s
 * for one POST beside 5,000 namesakes. The bound below is a guard an order of magnitude off, not a speed target
 * (bench/crowded-name.ts prints the figures).
 */
const crowd = 2_000;
const guardMs = 5_000;

/** Writes the nodes through the bulk import, a batch at a time; the ids of the nodes written, by slug. */
async function bulk(ws: TestWorkspace, nodes: Record<string, unknown>[]): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (let i = 0; i < nodes.length; i += 1_000) {
    const res = await request('POST', ws.path('/context-nodes/import'), { token: ws.owner.key, body: { nodes: nodes.slice(i, i + 1_000) } });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    expect(res.body.summary.errors).to.equal(0);
    for (const node of res.body.nodes) ids.set(node.slug, node.id);
  }
  return ids;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

/** The titles of what the node's wikilinks resolve to, sorted. */
async function wikilinkTargets(ws: TestWorkspace, nodeId: string): Promise<string[]> {
  return (await getNode(ws, nodeId)).outgoingLinks.filter((l: any) => l.origin === 'wikilink').map((l: any) => l.title).sort();
}

describe('writes around a crowded name', function () {
  this.timeout(240_000);
  let ws: TestWorkspace;
  let canonical: string;
  let linkers: Map<string, string>;
  let linking: string;

  before(async () => {
    ws = await createWorkspace();
    // The winner of the name: a slug is the strongest name, so every link goes to it whatever the crowd holds.
    canonical = (await createNode(ws, { title: 'The canonical one', slug: 'readme' })).id;
    await bulk(ws, Array.from({ length: crowd }, (_, i) => ({ slug: `namesake-${i}`, title: 'Readme', aliases: ['common alias'], description: `Namesake ${i}` })));
    linkers = await bulk(ws, Array.from({ length: crowd }, (_, i) => ({ slug: `linker-${i}`, title: `Linker ${i}`, description: 'Links the name', content: 'See [[Readme]] and [[common alias]].' })));
    linking = linkers.get('linker-7')!;
  });

  it('a linking note resolves to the name’s best node and each alias to its own', async () => {
    const targets = await wikilinkTargets(ws, linking);
    expect(targets).to.have.length(2);
    expect(targets).to.include('The canonical one');
  });

  it('another namesake, a namesake renamed, and one whose aliases are cleared are written in time that does not grow with the crowd', async () => {
    // Its path (its slug) is longer than the others': it names no link's target, so no link moves.
    const created = await timed(() => createNode(ws, { title: 'Readme', slug: 'one-more-namesake', aliases: ['common alias'] }));
    const renamed = await timed(() => updateNode(ws, created.value.id, { title: 'Another name' }));
    const cleared = await timed(() => updateNode(ws, created.value.id, { aliases: [] }));
    for (const [what, ms] of [['create', created.ms], ['rename', renamed.ms], ['clear aliases', cleared.ms]] as const) {
      expect(ms, `${what} beside ${crowd} namesakes and ${crowd} links`).to.be.below(guardMs);
    }
    expect(await wikilinkTargets(ws, linking)).to.include('The canonical one');
  });

  it('a linking note’s content is updated in time that does not grow with the crowd', async () => {
    const { ms } = await timed(() => updateNode(ws, linking, { content: 'Only [[Readme]] now.' }));
    expect(ms).to.be.below(guardMs);
    expect(await wikilinkTargets(ws, linking)).to.deep.equal(['The canonical one']);
  });

  it('when the best node gives the name up, every link to it moves to the next in order, and back when it takes it again', async () => {
    await updateNode(ws, canonical, { slug: 'canonical-elsewhere' });
    // Among the titles, the node with the shortest path (its slug, for nodes made through the API) comes first.
    const next = 'Readme';
    const other = linkers.get(`linker-${crowd - 1}`)!;
    expect(await wikilinkTargets(ws, other)).to.include(next).and.not.include('The canonical one');
    await updateNode(ws, canonical, { slug: 'readme' });
    expect(await wikilinkTargets(ws, other)).to.include('The canonical one');
  });
});
