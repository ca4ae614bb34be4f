import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect } from 'chai';
import { projectRoot } from '../../src/infra/project-root.js';
import { type TestWorkspace, createWorkspace, request, unique } from '../support/api.js';
import { type ConsolePage, consoleInChromium, graphReady, screenshotDir, signIn } from './browser.js';
import { viewports } from './page-checks.js';


interface Vault {
  workspace: TestWorkspace;
  /** Node id by slug. */
  ids: Map<string, string>;
  hubs: string[];
  /** Notes linked to their hub only (degree 1). */
  leaves: string[];
  isolated: string[];
}

/**
 * A small vault through the bulk import: two hub notes each linked from 30 leaf notes (a few leaves link across),
 * and 20 notes without any link.
 */
async function smallVault(): Promise<Vault> {
  const workspace = await createWorkspace({ name: unique('Picture') });
  const nodes: { slug: string; title: string; description: string; links?: { linkType: string; target: string }[] }[] = [
    { slug: 'hub-a', title: 'Hub A', description: 'A map of content' },
    { slug: 'hub-b', title: 'Hub B', description: 'Another map of content' },
  ];
  const leaves: string[] = [];
  for (const hub of ['a', 'b']) {
    for (let i = 0; i < 30; i++) {
      const slug = `leaf-${hub}-${i}`;
      if (i > 0) leaves.push(slug);
      nodes.push({ slug, title: `Leaf ${hub.toUpperCase()} ${i}`, description: 'A note', links: [{ linkType: 'references', target: `hub-${hub}` }] });
    }
  }
  // A bridge between the two clusters, through leaf 0 of each.
  nodes.push({ slug: 'bridge', title: 'Bridge', description: 'Links both', links: [{ linkType: 'references', target: 'leaf-a-0' }, { linkType: 'references', target: 'leaf-b-0' }] });
  const isolated: string[] = [];
  for (let i = 0; i < 20; i++) {
    isolated.push(`alone-${i}`);
    nodes.push({ slug: `alone-${i}`, title: `Alone ${i}`, description: 'No links' });
  }
  const res = await request('POST', workspace.path('/context-nodes/import'), { token: workspace.owner.key, body: { nodes } });
  expect(res.status, res.text).to.be.oneOf([200, 201]);
  const ids = new Map<string, string>();
  for (const item of res.body.nodes as { slug: string; id: string }[]) ids.set(item.slug, item.id);
  expect(ids.size).to.equal(nodes.length);
  return { workspace, ids, hubs: ['hub-a', 'hub-b'], leaves, isolated };
}

/** Signs in, opens the workspace graph and waits for the settled layout. */
async function openGraph(page: Page, vault: Vault): Promise<void> {
  await signIn(page, vault.workspace.owner.key, `/w/${vault.workspace.workspaceId}/graph`);
  await graphReady(page);
  await page.locator('[data-testid="graph"][data-layout="done"]').waitFor({ timeout: 30_000 });
  // A frame drawn with the settled positions.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

const probe = (page: Page, id: string) => page.evaluate((node) => window.__consoleGraphView!.node(node), id);
const labels = (page: Page) => page.evaluate(() => window.__consoleGraphView!.labels());

describe('the console’s graph as a picture', function () {
  this.timeout(120_000);
  const chromium = consoleInChromium();
  let vault: Vault;
  let cp: ConsolePage;
  before(async () => {
    vault = await smallVault();
  });
  beforeEach(async () => {
    cp = await chromium.tab();
  });

  it('draws a hub’s circle larger than a leaf’s, and a leaf’s larger than an unlinked note’s', async () => {
    await openGraph(cp.page, vault);
    const hub = await probe(cp.page, vault.ids.get('hub-a')!);
    const leaf = await probe(cp.page, vault.ids.get('leaf-a-3')!);
    const alone = await probe(cp.page, vault.ids.get('alone-3')!);
    expect(hub!.radius).to.be.greaterThan(leaf!.radius * 1.5);
    expect(leaf!.radius).to.be.greaterThan(alone!.radius);
    const degrees = await cp.page.evaluate((ids) => ids.map((id) => window.__consoleGraph!.getNodeAttribute(id, 'degree')), [vault.ids.get('hub-a')!, vault.ids.get('leaf-a-3')!, vault.ids.get('alone-3')!]);
    expect(degrees).to.deep.equal([30, 1, 0]);
  });

  it('labels the hubs, shows a leaf’s title only under the pointer, and keeps every label inside the graph and apart', async () => {
    const { page } = cp;
    await openGraph(page, vault);
    const shown = await labels(page);
    const shownIds = shown.map((l) => l.id);
    for (const hub of vault.hubs) expect(shownIds).to.include(vault.ids.get(hub));
    for (const leaf of vault.leaves) expect(shownIds).not.to.include(vault.ids.get(leaf));
    for (const alone of vault.isolated) expect(shownIds).not.to.include(vault.ids.get(alone));
    // Inside the graph's area, and no two labels over each other.
    const area = (await page.getByTestId('graph').boundingBox())!;
    for (const l of shown) {
      expect(l.left, l.id).to.be.at.least(0);
      expect(l.top, l.id).to.be.at.least(0);
      expect(l.left + l.width, l.id).to.be.at.most(area.width);
      expect(l.top + l.height, l.id).to.be.at.most(area.height);
    }
    for (const [i, a] of shown.entries()) {
      for (const b of shown.slice(i + 1)) {
        const apart = a.left + a.width <= b.left || b.left + b.width <= a.left || a.top + a.height <= b.top || b.top + b.height <= a.top;
        expect(apart, `${a.id} and ${b.id} overlap`).to.equal(true);
      }
    }

    // The leaf whose centre lies farthest from any other node's circle: with the pointer there, only it is under it.
    const leafIds = vault.leaves.map((slug) => vault.ids.get(slug)!);
    const target = await page.evaluate((ids) => {
      const view = window.__consoleGraphView!;
      const all = window.__consoleGraph!.nodes().map((id) => ({ id, at: view.node(id)! }));
      // No named function in here: the page runs this source as it is, without the test runner's helpers.
      const margins = ids.map((id) => {
        const me = view.node(id)!;
        return { id, margin: Math.min(...all.filter((o) => o.id !== id).map((o) => Math.hypot(o.at.x - me.x, o.at.y - me.y) - o.at.radius)) };
      });
      const best = margins.sort((a, b) => b.margin - a.margin)[0];
      return best && best.margin > 1 ? best.id : undefined;
    }, leafIds);
    expect(target, 'a leaf whose centre no other node covers').to.be.a('string');
    const at = (await probe(page, target!))!;
    expect(await page.evaluate(() => window.__consoleGraphView!.hoverLabel())).to.equal(null);
    // Onto the leaf from a little way off, as a pointer moves.
    await page.mouse.move(at.x - 12, at.y - 12);
    await page.mouse.move(at.x, at.y, { steps: 4 });
    await page.waitForFunction((id) => window.__consoleGraphView!.hoverLabel() === id, target!, { timeout: 5_000 });
    // The pointer shows it; it does not join the standing labels.
    expect((await labels(page)).map((l) => l.id)).not.to.include(target);
    await page.mouse.move(2, 2);
    await page.waitForFunction(() => window.__consoleGraphView!.hoverLabel() === null, undefined, { timeout: 5_000 });
  });

  it('places unlinked notes on a ring outside the linked ones', async () => {
    await openGraph(cp.page, vault);
    const { linkedMax, isolatedMin } = await cp.page.evaluate(() => {
      const g = window.__consoleGraph!;
      const linked = g.filterNodes((id) => g.degree(id) > 0).map((id) => g.getNodeAttributes(id));
      const isolated = g.filterNodes((id) => g.degree(id) === 0).map((id) => g.getNodeAttributes(id));
      const cx = linked.reduce((s, a) => s + a.x, 0) / linked.length;
      const cy = linked.reduce((s, a) => s + a.y, 0) / linked.length;
      return {
        linkedMax: Math.max(...linked.map((a) => Math.hypot(a.x - cx, a.y - cy))),
        isolatedMin: Math.min(...isolated.map((a) => Math.hypot(a.x - cx, a.y - cy))),
      };
    });
    expect(isolatedMin).to.be.greaterThan(linkedMax);
  });

  it('keeps the two clusters apart: a leaf is nearer its own hub than the other hub', async () => {
    await openGraph(cp.page, vault);
    const positions = await cp.page.evaluate(() => {
      const g = window.__consoleGraph!;
      return Object.fromEntries(g.mapNodes((id, a) => [id, [a.x, a.y] as [number, number]]));
    });
    const at = (slug: string) => positions[vault.ids.get(slug)!];
    const dist = (a: [number, number], b: [number, number]) => Math.hypot(a[0] - b[0], a[1] - b[1]);
    let nearer = 0;
    for (const slug of vault.leaves) {
      const own = slug.startsWith('leaf-a') ? 'hub-a' : 'hub-b';
      const other = own === 'hub-a' ? 'hub-b' : 'hub-a';
      if (dist(at(slug), at(own)) < dist(at(slug), at(other))) nearer++;
    }
    expect(nearer).to.equal(vault.leaves.length);
  });

  for (const viewport of viewports) {
    it(`colours a vault of one node type by cluster, names the clusters in the legend, and says what size means as the docs do, at ${viewport.width}×${viewport.height}`, async () => {
      const { page } = await chromium.tab(viewport);
      await openGraph(page, vault);
      expect(await page.getByTestId('graph').getAttribute('data-colour-by')).to.equal('cluster');
      const colours = await page.evaluate((ids) => ids.map((id) => window.__consoleGraph!.getNodeAttribute(id, 'color') as string), [
        'hub-a', 'leaf-a-3', 'leaf-a-7', 'hub-b', 'leaf-b-3', 'alone-3', 'alone-4',
      ].map((slug) => vault.ids.get(slug)!));
      const [hubA, leafA3, leafA7, hubB, leafB3, alone3, alone4] = colours;
      expect(leafA3).to.equal(hubA);
      expect(leafA7).to.equal(hubA);
      expect(leafB3).to.equal(hubB);
      expect(hubB).not.to.equal(hubA);
      expect(alone4).to.equal(alone3);
      expect([hubA, hubB]).not.to.include(alone3);
      // The legend says why, and names each cluster by its best-linked note.
      expect(await page.getByTestId('graph-colour-note').innerText()).to.include('Every node here is a reference');
      const legend = await page.getByRole('list', { name: 'Node colours' }).locator('li').allInnerTexts();
      // Each hub with 29 of its leaves; the bridge with the two leaves it links; the notes without links.
      // (the three of the bridge's cluster have two links each: any of them may name it).
      expect(legend).to.have.length(4);
      expect(legend).to.include.members(['around Hub A (30)', 'around Hub B (30)', 'no links (20)']);
      expect(legend.some((l) => /^around (Bridge|Leaf A 0|Leaf B 0) \(3\)$/.test(l)), legend.join(' | ')).to.equal(true);
      // Size: the number of links, on the page and in the docs alike.
      await page.getByText('A circle’s size is its number of links.').waitFor();
      const docs = readFileSync(path.join(projectRoot, 'docs', 'console.md'), 'utf8');
      expect(docs).to.include('sized by their number of links').and.not.include('sized by importance');
      await page.screenshot({ path: path.join(screenshotDir, `graph-clusters-${viewport.width}x${viewport.height}.png`) });
    });
  }

  it('colours by type when the nodes are of several types', async () => {
    const mixed = await createWorkspace({ name: unique('Mixed types') });
    const nodes = ['process', 'brand', 'example'].map((nodeType, i) => ({ slug: `m-${i}`, title: `Mixed ${i}`, description: 'A note', nodeType, links: i ? [{ linkType: 'references', target: 'm-0' }] : [] }));
    const res = await request('POST', mixed.path('/context-nodes/import'), { token: mixed.owner.key, body: { nodes } });
    expect(res.status, res.text).to.be.oneOf([200, 201]);
    await signIn(cp.page, mixed.owner.key, `/w/${mixed.workspaceId}/graph`);
    await graphReady(cp.page);
    expect(await cp.page.getByTestId('graph').getAttribute('data-colour-by')).to.equal('type');
    expect(await cp.page.getByTestId('graph-colour-note').count()).to.equal(0);
    expect(await cp.page.getByRole('list', { name: 'Node colours' }).locator('li').allInnerTexts()).to.include.members(['process', 'brand', 'example']);
  });

  it('opens a hub’s page when it is clicked', async () => {
    const { page } = cp;
    await openGraph(page, vault);
    const at = (await probe(page, vault.ids.get('hub-b')!))!;
    await page.mouse.click(at.x, at.y);
    await page.waitForURL(new RegExp(`/nodes/${vault.ids.get('hub-b')}$`));
  });
});
