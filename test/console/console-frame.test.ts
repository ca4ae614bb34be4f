import type { Locator, Page } from '@playwright/test';
import { expect } from 'chai';
import path from 'node:path';
import { type TestWorkspace, createWorkspace, unique } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { createPlaybook } from '../support/playbooks.js';
import { consoleInChromium, consoleUrl, screenshotDir, signIn } from './browser.js';
import { seriousA11yViolations, viewports } from './page-checks.js';

/** How a button looks: its computed colours, and whether it carries the warning sign. */
const look = (button: Locator) => button.evaluate((e) => {
  const s = getComputedStyle(e);
  return { background: s.backgroundColor, color: s.color, border: s.borderTopColor, sign: e.querySelector('svg.danger-sign') !== null };
});

/** Whether a computed `rgb(…)` colour is a clear red. */
const isRed = (rgb: string) => {
  const [r, g, b] = (rgb.match(/\d+/g) ?? []).map(Number);
  return r >= 140 && g <= 70 && b <= 70;
};

/** The header's row and where the page's title starts, in pixels from the top of the window. */
// No named function inside: the page runs this source as it is, without the test runner's helpers.
const frame = (page: Page) => page.evaluate(() => {
  const header = document.querySelector('header.top')!;
  const items = [...header.children].map((e) => ({ text: e.textContent, top: Math.round(e.getBoundingClientRect().top), bottom: Math.round(e.getBoundingClientRect().bottom) }));
  const title = document.querySelector('main h1')!.getBoundingClientRect();
  return { headerHeight: Math.round(header.getBoundingClientRect().height), items, titleTop: Math.round(title.top) };
});

describe('the console’s frame in Chromium: header, an unknown workspace, and buttons that cannot be undone', function () {
  this.timeout(120_000);
  // An unknown workspace answers 404, a malformed id 400: Chromium logs a line for each.
  const chromium = consoleInChromium({ refusedStatuses: [400, 404] });
  let workspace: TestWorkspace;

  before(async () => {
    workspace = await createWorkspace({ name: unique('Frame') });
  });

  for (const viewport of viewports) {
    const size = `${viewport.width}×${viewport.height}`;

    it(`keeps the header on one row, Sign out included, so the page title starts near the top, at ${size}`, async () => {
      const { page } = await chromium.tab(viewport);
      await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/playbooks`);
      await page.getByRole('heading', { name: 'Playbooks', level: 1 }).waitFor();
      const { headerHeight, items, titleTop } = await frame(page);
      // Brand, Cypher, Workspaces and Sign out on one row.
      expect(items.map((i) => i.text)).to.have.length(4);
      for (const item of items) expect(item.top, `${item.text} on the first row`).to.be.below(items[0].bottom);
      expect(headerHeight).to.be.at.most(60);
      // The header, the workspace's sections (two rows on a phone) and the title's margin: no more.
      expect(titleTop).to.be.at.most(viewport.width < 700 ? 150 : 125);
      // The brand keeps its full name for screen readers.
      await page.getByRole('banner').getByRole('link', { name: 'Playbooks console' }).waitFor();
      await page.screenshot({ path: path.join(screenshotDir, `frame-header-${viewport.width}x${viewport.height}.png`) });
    });

    it(`says an unknown workspace is not found, on a page of its own without the workspace’s sections, at ${size}`, async () => {
      const { page } = await chromium.tab(viewport);
      const other = await createWorkspace({ name: unique('Not mine') });
      await signIn(page, workspace.owner.key);
      for (const id of ['ws_0000000000000000000000', other.workspaceId, 'not-a-workspace-id']) {
        await page.goto(consoleUrl(`/w/${id}/playbooks`));
        await page.getByRole('heading', { name: 'Workspace not found', level: 1 }).waitFor();
        expect(await page.getByTestId('workspace-not-found').innerText()).to.include(id);
        // Neither the sections nor a page's filters around it.
        expect(await page.getByRole('navigation', { name: 'Workspace' }).count()).to.equal(0);
        expect(await page.locator('main form, main input, main select').count(), id).to.equal(0);
        expect(await page.title()).to.equal('Workspace not found · Playbooks console');
      }
      expect(await seriousA11yViolations(page)).to.deep.equal([]);
      await page.screenshot({ path: path.join(screenshotDir, `frame-unknown-workspace-${viewport.width}x${viewport.height}.png`) });
      await page.getByRole('link', { name: 'Your workspaces' }).click();
      await page.getByRole('heading', { name: 'Workspaces', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).to.equal('/console/');
      // A workspace of the user's opens as before.
      await page.goto(consoleUrl(`/w/${workspace.workspaceId}/nodes`));
      await page.getByRole('heading', { name: 'Context nodes', level: 1 }).waitFor();
    });

    it(`shows Revoke, Deactivate agent and Archive playbook as dangerous before asking, unlike Create, at ${size}`, async () => {
      const { page } = await chromium.tab(viewport);
      const agent = await createAgent(workspace, { name: unique('Danger agent') });
      await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/agents?agent=${agent.agentId}`);
      const card = page.locator(`li.card[data-agent-id="${agent.agentId}"]`);
      await card.locator(`tr[data-key-id="${agent.keyId}"]`).waitFor();
      const create = await look(card.getByRole('button', { name: 'Create key' }));
      const revoke = card.getByRole('button', { name: /^Revoke key / });
      const deactivate = card.getByRole('button', { name: 'Deactivate agent' });
      for (const [name, button] of [['Revoke', revoke], ['Deactivate agent', deactivate]] as const) {
        const seen = await look(button);
        expect(seen.background, `${name} is not filled like Create`).not.to.equal(create.background);
        expect(isRed(seen.color), `${name}'s text is red: ${seen.color}`).to.equal(true);
        expect(isRed(seen.border), `${name}'s border is red: ${seen.border}`).to.equal(true);
        expect(seen.sign, `${name} carries the warning sign`).to.equal(true);
      }
      expect(create.sign).to.equal(false);
      expect(isRed(create.color) || isRed(create.background)).to.equal(false);
      // The question's confirming button is solid red; Cancel is not.
      await revoke.click();
      const confirm = await look(card.getByRole('button', { name: 'Revoke key', exact: true }));
      expect(isRed(confirm.background), `the confirming button is filled red: ${confirm.background}`).to.equal(true);
      await card.getByRole('button', { name: 'Cancel' }).click();
      await page.screenshot({ path: path.join(screenshotDir, `frame-danger-agent-${viewport.width}x${viewport.height}.png`), fullPage: true });

      const pb = await createPlaybook(workspace, workspace.owner.key, { title: unique('Danger playbook') });
      await page.goto(consoleUrl(`/w/${workspace.workspaceId}/playbooks/${pb.id}`));
      const archive = page.getByRole('button', { name: 'Archive playbook' });
      await archive.waitFor();
      const primary = await look(page.getByRole('link', { name: 'Write a new version' }));
      const archiveLook = await look(archive);
      expect(archiveLook.background).not.to.equal(primary.background);
      expect(isRed(archiveLook.color)).to.equal(true);
      expect(archiveLook.sign).to.equal(true);
      expect(await seriousA11yViolations(page)).to.deep.equal([]);
    });
  }
});
