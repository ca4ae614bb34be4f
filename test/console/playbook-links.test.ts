import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect } from 'chai';
import { type TestWorkspace, createWorkspace, unique } from '../support/api.js';
import { createNode, linkPlaybook } from '../support/nodes.js';
import { createPlaybook, getPlaybook } from '../support/playbooks.js';
import { consoleInChromium, screenshotDir, signIn } from './browser.js';
import { overflowsSideways, seriousA11yViolations, viewports, widest } from './page-checks.js';

const emptyText = 'No context linked yet: add a node below, and agents get it in this playbook’s bundle.';

const linksOf = async (workspace: TestWorkspace, playbookId: string): Promise<{ id: string; linkType: string; linkId: string }[]> =>
  (await getPlaybook(workspace, workspace.owner.key, playbookId)).contextNodes;

describe('the console’s linked context of a playbook in Chromium', function () {
  this.timeout(120_000);
  // Linking a node twice is refused (409), and Chromium logs a line for it.
  const chromium = consoleInChromium({ refusedStatuses: [409] });
  let workspace: TestWorkspace;
  let page: Page;

  before(async () => {
    workspace = await createWorkspace({ name: unique('Playbook links') });
  });
  beforeEach(async () => {
    page = (await chromium.tab()).page;
  });

  it('says what to do with no link, adds a link to a node found by its title, and removes it only once confirmed', async () => {
    const pb = await createPlaybook(workspace, workspace.owner.key, { title: unique('Linking') });
    const word = unique('Escalation').replace(/[^A-Za-z0-9]/g, '');
    const node = await createNode(workspace, { title: `${word} ladder` });
    await createNode(workspace, { title: unique('Unrelated note') });
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/playbooks/${pb.id}`);
    const section = page.getByRole('region', { name: 'Linked context' });
    expect(await section.getByTestId('playbook-links-empty').textContent()).to.equal(emptyText);

    // The node is found by a word of its title, then linked with the chosen type.
    await section.getByLabel('Find the node').fill(word);
    await section.locator(`#pb-link-target option[value="${node.id}"]`).waitFor({ state: 'attached' });
    await section.getByLabel('Node', { exact: true }).selectOption(node.id);
    await section.getByLabel('Link type').selectOption('requires');
    await section.getByRole('button', { name: 'Add link' }).click();
    const row = section.locator(`li[data-node-id="${node.id}"]`);
    await row.waitFor();
    expect(await section.getByTestId('playbook-links-empty').count()).to.equal(0);
    expect(await row.getAttribute('data-link-type')).to.equal('requires');
    expect(await row.getByRole('link', { name: node.title }).getAttribute('href')).to.match(new RegExp(`/nodes/${node.id}$`));
    const stored = await linksOf(workspace, pb.id);
    expect(stored.map((l) => [l.id, l.linkType])).to.deep.equal([[node.id, 'requires']]);
    expect(await row.getAttribute('data-link-id')).to.equal(stored[0].linkId);

    // Remove asks first: Cancel keeps the link.
    const remove = `Remove the requires link to ${node.title}`;
    await row.getByRole('button', { name: remove }).click();
    const ask = row.getByRole('group', { name: `Confirm: ${remove}` });
    await ask.getByRole('button', { name: 'Cancel' }).click();
    expect(await linksOf(workspace, pb.id)).to.have.length(1);
    await row.getByRole('button', { name: remove }).click();
    await ask.getByRole('button', { name: 'Remove link' }).click();
    await section.getByTestId('playbook-links-empty').waitFor();
    expect(await linksOf(workspace, pb.id)).to.deep.equal([]);
    expect(await section.getByRole('status').textContent()).to.equal(`Removed the requires link to ${node.title}.`);
  });

  it('shows a refused link as an error', async () => {
    const pb = await createPlaybook(workspace, workspace.owner.key, { title: unique('Twice') });
    const word = unique('Once').replace(/[^A-Za-z0-9]/g, '');
    const node = await createNode(workspace, { title: `Linked ${word}` });
    await linkPlaybook(workspace, pb.id, node.id, 'references');
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/playbooks/${pb.id}`);
    const section = page.getByRole('region', { name: 'Linked context' });
    await section.locator(`li[data-node-id="${node.id}"]`).waitFor();
    await section.getByLabel('Find the node').fill(word);
    await section.locator(`#pb-link-target option[value="${node.id}"]`).waitFor({ state: 'attached' });
    await section.getByLabel('Node', { exact: true }).selectOption(node.id);
    await section.getByLabel('Link type').selectOption('references');
    await section.getByRole('button', { name: 'Add link' }).click();
    await section.getByRole('alert').waitFor();
    expect(await linksOf(workspace, pb.id)).to.have.length(1);
  });

  for (const viewport of viewports) {
    it(`has no serious accessibility violation and no sideways scroll at ${viewport.width}×${viewport.height}`, async () => {
      await page.setViewportSize(viewport);
      const pb = await createPlaybook(workspace, workspace.owner.key, { title: unique('Looked at') });
      const long = await createNode(workspace, { title: unique('A context node whose title is long enough to wrap on a phone') });
      const short = await createNode(workspace, { title: unique('Short') });
      await linkPlaybook(workspace, pb.id, long.id, 'requires');
      await linkPlaybook(workspace, pb.id, short.id, 'index-entry');
      await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/playbooks/${pb.id}`);
      const section = page.getByRole('region', { name: 'Linked context' });
      await section.locator('li[data-link-id]').nth(1).waitFor();
      await section.locator('#pb-link-target option').first().waitFor({ state: 'attached' });
      // A confirmation open, so its question is checked too.
      await section.getByRole('button', { name: `Remove the requires link to ${long.title}` }).click();
      expect(await overflowsSideways(page), await widest(page)).to.equal(false);
      expect(await seriousA11yViolations(page)).to.deep.equal([]);
      await section.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(screenshotDir, `playbook-links-${viewport.width}x${viewport.height}.png`), fullPage: true });
    });
  }
});
