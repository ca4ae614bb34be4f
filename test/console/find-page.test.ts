import type { Page } from '@playwright/test';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { type TestWorkspace, createWorkspace, unique } from '../support/api.js';
import { createNode, link } from '../support/nodes.js';
import { consoleInChromium, graphReady, screenshotDir, signIn } from './browser.js';
import { overflowsSideways, seriousA11yViolations, viewports, widest } from './page-checks.js';

/** A word no other test's node holds: a search for it finds this test's nodes only. */
const rareWord = () => `qx${randomUUID().replace(/-/g, '').slice(0, 10)}`;

/** The ids of the results, in rank order. */
const resultIds = (page: Page) => page.locator('li.find-result').evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.nodeId!));

async function ask(page: Page, question: string): Promise<void> {
  await page.getByLabel('Question').fill(question);
  await page.getByLabel('Question').press('Enter');
  await page.getByTestId('find-summary').waitFor();
}

describe('the console’s Find page, in Chromium', function () {
  this.timeout(120_000);
  const chromium = consoleInChromium();
  let workspace: TestWorkspace;

  before(async () => {
    workspace = await createWorkspace({ name: unique('Find page') });
  });

  it('ranks the node whose words match a question first, says why each result is there, and shows a result in the graph', async () => {
    const word = rareWord();
    const claims = await createNode(workspace, {
      title: unique('Expense claims'),
      description: 'How travel receipts are reimbursed',
      content: `# Expense claims\n\nSend travel receipts within 30 days to be reimbursed (${word}).`,
    });
    const scanning = await createNode(workspace, { title: unique('Scanning app'), description: 'The phone app', content: 'Photograph the paper before filing it.' });
    const voice = await createNode(workspace, { title: unique('Brand voice'), description: 'Tone', content: 'Write plainly and warmly.' });
    await link(workspace, claims.id, scanning.id, 'requires');
    const { page } = await chromium.tab();
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/find`);

    // The test service runs without embeddings: the badge says so, and a hybrid question is searched by its words.
    expect(await page.getByRole('link', { name: 'Find', exact: true }).getAttribute('aria-current')).to.equal('page');
    const badge = page.getByTestId('embedding-badge');
    await badge.waitFor();
    expect([await badge.getAttribute('data-state'), await badge.textContent()]).to.deep.equal(['off', 'Embeddings off']);
    expect(await page.getByLabel('Search by').inputValue()).to.equal('hybrid');
    expect(await page.getByLabel('Links followed').inputValue()).to.equal('1');

    await ask(page, `How do I get my travel receipts reimbursed? ${word}`);
    expect(await page.getByTestId('find-summary').getAttribute('data-mode')).to.equal('words');
    expect(await page.getByTestId('find-summary').textContent()).to.equal('2 of 2 nodes, best first; searched by words only (meaning search is not available here).');
    expect(await page.getByTestId('find-degraded').count()).to.equal(0);
    const ids = await resultIds(page);
    expect(ids[0]).to.equal(claims.id);
    expect(ids).to.include(scanning.id).and.not.include(voice.id);
    const first = page.locator(`li.find-result[data-node-id="${claims.id}"]`);
    expect(await first.getByRole('link', { name: claims.title, exact: true }).getAttribute('href')).to.equal(`/console/w/${workspace.workspaceId}/nodes/${claims.id}`);
    expect(await first.getByTestId('find-reason').textContent()).to.equal('matched by words');
    expect(await first.getByTestId('find-score').textContent()).to.equal('1.00');
    expect(await first.textContent()).to.include('How travel receipts are reimbursed');
    // The node reached along a link names the node it came from by its title.
    const linked = page.locator(`li.find-result[data-node-id="${scanning.id}"]`);
    expect(await linked.getByTestId('find-reason').textContent()).to.equal(`linked from ${claims.title} by requires`);
    expect(new URL(page.url()).searchParams.get('q')).to.equal(`How do I get my travel receipts reimbursed? ${word}`);

    // Opening a result and coming back shows the same answer.
    await first.getByRole('link', { name: claims.title, exact: true }).click();
    await page.getByRole('heading', { name: 'Links' }).waitFor();
    await page.goBack();
    await page.getByTestId('find-results').waitFor();
    expect((await resultIds(page))[0]).to.equal(claims.id);
    expect(await page.getByLabel('Question').inputValue()).to.equal(`How do I get my travel receipts reimbursed? ${word}`);

    // Show in graph: the graph page with that node picked out, named above the graph and labelled on it.
    await page.getByRole('link', { name: `Show ${claims.title} in the graph` }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/graph') && url.searchParams.get('focus') === claims.id);
    await graphReady(page);
    const focus = page.getByTestId('graph-focus');
    expect(await focus.getAttribute('data-node-id')).to.equal(claims.id);
    expect(await focus.getByRole('link').textContent()).to.equal(claims.title);
    expect(await page.evaluate((id) => window.__consoleGraph!.hasNode(id), claims.id)).to.equal(true);
    await page.waitForFunction((id) => window.__consoleGraphView!.labels().some((l) => l.id === id), claims.id, { timeout: 10_000 });
  });

  it('follows no references link at depth 0, and More brings the rest of the ranking after the first ten', async () => {
    const word = rareWord();
    const made = [];
    for (let i = 1; i <= 12; i++) made.push(await createNode(workspace, { title: unique(`Checklist ${i}`), content: `Step ${i} of the ${word} checklist.` }));
    const aside = await createNode(workspace, { title: unique('Linked aside'), content: 'Nothing in common.' });
    await link(workspace, made[0].id, aside.id, 'references');
    const { page } = await chromium.tab();
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/find`);
    await page.getByLabel('Search by').selectOption('words');
    await page.getByLabel('Links followed').selectOption('0');
    await ask(page, word);

    expect(await resultIds(page)).to.have.length(10);
    expect(await page.getByTestId('find-summary').textContent()).to.equal('10 of 12 nodes, best first; searched by words.');
    await page.getByRole('button', { name: 'More (2 left)' }).click();
    await page.locator('li.find-result').nth(11).waitFor();
    const ids = await resultIds(page);
    expect([...ids].sort()).to.deep.equal(made.map((n) => n.id).sort());
    expect(await page.getByRole('button', { name: /^More/ }).count()).to.equal(0);
    expect(new URL(page.url()).searchParams.get('depth')).to.equal('0');
  });

  it('reads at a laptop’s and a phone’s width, with no serious accessibility problem', async () => {
    const word = rareWord();
    await createNode(workspace, { title: unique('Onboarding guide'), description: 'The first week, day by day', content: `Welcome (${word}).` });
    for (const viewport of viewports) {
      const { page } = await chromium.tab(viewport);
      await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/find`);
      await page.getByTestId('embedding-badge').waitFor();
      await ask(page, `What happens in the first week? ${word}`);
      expect(await overflowsSideways(page), await widest(page)).to.equal(false);
      expect(await seriousA11yViolations(page)).to.deep.equal([]);
      await page.screenshot({ path: path.join(screenshotDir, `find-${viewport.width}.png`), fullPage: true });
    }
  });
});
