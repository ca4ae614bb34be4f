import type { Page } from '@playwright/test';
import { expect } from 'chai';
import { type TestWorkspace, createWorkspace, request, unique } from '../support/api.js';
import { createNode, linkPlaybook } from '../support/nodes.js';
import { createPlaybook, createVersion, getPlaybook } from '../support/playbooks.js';
import { consoleInChromium, graphReady, screenshotDir, signIn } from './browser.js';
import { overflowsSideways, seriousA11yViolations, viewports, widest } from './page-checks.js';

/** Replaces the CodeMirror editor's text (inserted as typed text, without the editor's key bindings). */
async function writeInEditor(page: Page, text: string): Promise<void> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

const version = async (workspace: TestWorkspace, playbookId: string, versionId: string) => {
  const res = await request('GET', workspace.path(`/playbooks/${playbookId}/versions/${versionId}`), { token: workspace.owner.key });
  expect(res.status, res.text).to.equal(200);
  return res.body;
};

/** Asks the page's confirmation group of `action` and confirms it. */
async function confirm(page: Page, action: string): Promise<void> {
  await page.getByRole('button', { name: action, exact: true }).click();
  const group = page.getByRole('group', { name: `Confirm: ${action}` });
  await group.getByRole('button', { name: action, exact: true }).click();
}

describe('the console’s playbook pages in Chromium', function () {
  this.timeout(120_000);
  const chromium = consoleInChromium();
  let workspace: TestWorkspace;
  let page: Page;

  before(async () => {
    workspace = await createWorkspace({ name: unique('Playbooks') });
  });
  beforeEach(async () => {
    page = (await chromium.tab()).page;
  });

  it('says what to do when there is no playbook, creates one, writes a version with the editor, shows its content and approves it', async () => {
    const empty = await createWorkspace({ name: unique('Empty') });
    const handbook = await createNode(empty, { title: 'Staff Handbook', aliases: ['handbook'] });
    await signIn(page, empty.owner.key, `/w/${empty.workspaceId}/playbooks`);
    expect(await page.getByTestId('playbooks-empty').textContent()).to.match(/^No playbooks yet\. Create one/);
    expect(await page.getByText('No playbook matches').count()).to.equal(0);

    const title = unique('Onboarding');
    const slug = unique('onboarding').toLowerCase();
    await page.getByLabel('Title').fill(title);
    await page.getByLabel('Slug (optional)').fill(slug);
    await page.getByLabel('Function area (optional)').fill('support');
    await page.getByLabel('Tags (optional)').fill('first-week, people');
    await page.getByLabel('Instructions of version 1 (markdown, optional)').fill('Greet the newcomer.');
    await page.getByRole('button', { name: 'Create playbook' }).click();
    await page.getByRole('heading', { name: title }).waitFor();
    const list = await request('GET', empty.path('/playbooks'), { token: empty.owner.key });
    expect(list.body.playbooks).to.have.length(1);
    const pb = await getPlaybook(empty, empty.owner.key, list.body.playbooks[0].id);
    expect([pb.title, pb.slug, pb.functionArea, pb.tags]).to.deep.equal([title, slug, 'support', ['first-week', 'people']]);
    expect(pb.versions.map((v: { content: unknown; status: string }) => [v.content, v.status])).to.deep.equal([[{ instructions: 'Greet the newcomer.' }, 'draft']]);

    // The list with a search that excludes everything says so, and keeps the list's tools.
    await page.getByRole('link', { name: 'Playbooks', exact: true }).click();
    await page.locator(`tr[data-playbook-id="${pb.id}"]`).waitFor();
    await page.getByLabel('Search').fill('nothing-is-called-this');
    await page.getByText('No playbook matches.').waitFor();
    expect(await page.getByTestId('playbooks-empty').count()).to.equal(0);

    // A new version, written in the editor with its preview beside it.
    await page.goto(page.url().replace(/\/playbooks.*$/, `/playbooks/${pb.id}`));
    await page.getByRole('link', { name: 'Write a new version' }).click();
    await page.locator('.cm-content').waitFor();
    expect(await page.locator('.cm-content').textContent()).to.equal('Greet the newcomer.');
    const text = '# First day\n\n- **Greet** the newcomer\n- Show [[handbook|the handbook]]\n- Ask [[Nobody Here]]\n';
    await writeInEditor(page, text);
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByRole('heading', { name: 'First day' }).waitFor();
    expect(await preview.locator('strong').first().textContent()).to.equal('Greet');
    // A wikilink is a link to the node its name names (here by an alias), showing its label; a name no node has says so.
    const link = preview.getByRole('link', { name: 'the handbook' });
    await link.waitFor();
    expect(await link.getAttribute('data-node-id')).to.equal(handbook.id);
    expect(await preview.locator('[data-wikilink="unresolved"]').textContent()).to.equal('Nobody Here (unresolved link)');
    await page.getByLabel('Change note').fill('A first-day checklist');
    await page.getByRole('button', { name: 'Save as a draft' }).click();

    // The version's page: its content as a preview, and as stored.
    await page.getByRole('heading', { name: `${title}: version 2` }).waitFor();
    const stored = await getPlaybook(empty, empty.owner.key, pb.id);
    const v2 = stored.versions.find((v: { versionNumber: number }) => v.versionNumber === 2);
    expect(v2.content).to.deep.equal({ instructions: text });
    expect(v2.changeNote).to.equal('A first-day checklist');
    expect(page.url()).to.include(`/versions/${v2.id}`);
    expect(await page.getByTestId('version-status').textContent()).to.equal('draft');
    // Its author by name, not by id.
    await page.getByTestId('version-author').filter({ hasText: /^Owner$/ }).waitFor();
    const shown = page.getByRole('region', { name: 'instructions (preview)' });
    await shown.getByRole('heading', { name: 'First day' }).waitFor();
    await shown.getByRole('link', { name: 'the handbook' }).waitFor();
    expect(await shown.locator('li').allTextContents()).to.deep.equal(['Greet the newcomer', 'Show the handbook', 'Ask Nobody Here (unresolved link)']);
    await page.getByText('Raw content (JSON)').click();
    expect(JSON.parse((await page.getByTestId('raw-content').textContent())!)).to.deep.equal(v2.content);
    // The link opens its node in the console; back to the version.
    await shown.getByRole('link', { name: 'the handbook' }).click();
    await page.getByRole('heading', { name: 'Staff Handbook' }).waitFor();
    expect(page.url()).to.include(`/nodes/${handbook.id}`);
    await page.goBack();
    await shown.getByRole('link', { name: 'the handbook' }).waitFor();

    // Approving the draft: nothing is active yet, so nothing is deprecated and nothing is asked.
    await page.getByRole('link', { name: 'Back to the playbook' }).click();
    await page.getByRole('button', { name: 'Approve v2' }).click();
    await page.getByText('Version 2 approved.').waitFor();
    expect((await version(empty, pb.id, v2.id)).status).to.equal('approved');
    expect((await getPlaybook(empty, empty.owner.key, pb.id)).activeVersion.id).to.equal(v2.id);
    await page.getByRole('link', { name: 'Read v2' }).click();
    expect(await page.getByTestId('version-status').textContent()).to.equal('approved');
  });

  it('asks before an approval that deprecates the active version, a roll back and an archive, and restores', async () => {
    const pb = await createPlaybook(workspace, workspace.owner.key, { title: unique('Lifecycle'), version: { content: { instructions: 'One' } } });
    const v1 = pb.versions[0];
    expect((await request('PATCH', workspace.path(`/playbooks/${pb.id}/versions/${v1.id}/approve`), { token: workspace.owner.key })).status).to.equal(200);
    const v2 = await createVersion(workspace, workspace.owner.key, pb.id, { content: { instructions: 'Two' } });
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/playbooks/${pb.id}`);
    await page.getByRole('heading', { name: pb.title }).waitFor();

    // Asked, then cancelled: nothing changes.
    await page.getByRole('button', { name: 'Approve v2' }).click();
    const asking = page.getByRole('group', { name: 'Confirm: Approve v2' });
    expect(await asking.textContent()).to.include('v1, active now, becomes deprecated');
    await asking.getByRole('button', { name: 'Cancel' }).click();
    expect((await version(workspace, pb.id, v2.id)).status).to.equal('draft');

    await confirm(page, 'Approve v2');
    await page.getByText('Version 2 approved. Version 1 is deprecated.').waitFor();
    expect((await version(workspace, pb.id, v1.id)).status).to.equal('deprecated');
    expect((await version(workspace, pb.id, v2.id)).status).to.equal('approved');
    await page.locator(`tr[data-version-id="${v1.id}"][data-status="deprecated"]`).waitFor();

    await confirm(page, 'Roll back to v1');
    await page.getByText('Version 3 is a new draft with the content of version 1.').waitFor();
    const rolled = await getPlaybook(workspace, workspace.owner.key, pb.id);
    expect(rolled.versions[0]).to.include({ versionNumber: 3, status: 'draft' });
    expect(rolled.versions[0].content).to.deep.equal({ instructions: 'One' });
    expect(rolled.activeVersion.id).to.equal(v2.id);

    await confirm(page, 'Archive playbook');
    await page.getByRole('button', { name: 'Restore playbook' }).waitFor();
    expect((await getPlaybook(workspace, workspace.owner.key, pb.id)).archivedAt).to.be.a('string');
    expect(await page.getByRole('link', { name: 'Write a new version' }).count()).to.equal(0);
    await page.getByRole('button', { name: 'Restore playbook' }).click();
    await page.getByRole('button', { name: 'Archive playbook' }).waitFor();
    expect((await getPlaybook(workspace, workspace.owner.key, pb.id)).archivedAt).to.equal(null);
  });

  it('previews a bundle whose token count is the one the API reports for the same request', async () => {
    const pb = await createPlaybook(workspace, workspace.owner.key, { title: unique('Counted') });
    const long = await createNode(workspace, { description: 'Short', content: `# Guide\n\n${'Every step of the guide, written out at length. '.repeat(60)}` });
    const other = await createNode(workspace, { description: 'Another short one', content: 'A little content.' });
    await linkPlaybook(workspace, pb.id, long.id, 'requires');
    await linkPlaybook(workspace, pb.id, other.id, 'references');
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/graph?playbook=${pb.id}`);
    await graphReady(page);
    const shownFor = async (mode: string) => {
      await page.getByLabel('Mode').selectOption(mode);
      await page.getByRole('button', { name: 'Preview bundle' }).click();
      await page.locator(`[data-testid="bundle-tokens"]:has-text("${mode} mode")`).waitFor();
      const status = page.getByTestId('bundle-tokens');
      return { tokens: Number(await status.getAttribute('data-token-count')), text: (await status.textContent())! };
    };
    // The form's defaults are the API's: standard mode, 20 nodes, depth 2.
    expect(await page.getByLabel('Mode').inputValue()).to.equal('standard');
    for (const mode of ['standard', 'summary']) {
      const shown = await shownFor(mode);
      // A preview is a retrieval, and so is this: each counts against the month's quota.
      const api = await request('GET', workspace.path(`/context/bundle?playbookId=${pb.id}&mode=${mode}&maxNodes=20&depth=2`), { token: workspace.owner.key });
      expect(api.status, api.text).to.equal(200);
      expect(shown.tokens, mode).to.equal(api.body.tokenCount);
      expect(shown.text).to.include(`2 nodes; their texts hold ${api.body.tokenCount.toLocaleString('en')} tokens`);
    }
    // The content of the long node is what the default counts; its description is all the summary mode does.
    const standard = await request('GET', workspace.path(`/context/bundle?playbookId=${pb.id}`), { token: workspace.owner.key });
    expect(standard.body.tokenCount).to.be.greaterThan(300);
  });

  for (const viewport of viewports) {
    for (const neighbours of [1, 4]) {
      it(`keeps every label of a playbook’s neighbourhood of ${neighbours} inside the graph, the playbook’s clear of its circle, at ${viewport.width}×${viewport.height}`, async () => {
        await page.setViewportSize(viewport);
        const pb = await createPlaybook(workspace, workspace.owner.key, { title: unique('A playbook whose title is long enough to reach the edge') });
        for (let i = 0; i < neighbours; i++) {
          const node = await createNode(workspace, { title: unique(`Neighbour note number ${i}`) });
          await linkPlaybook(workspace, pb.id, node.id, i === 0 ? 'requires' : 'references');
        }
        await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/graph?playbook=${pb.id}`);
        await graphReady(page);
        await page.locator('[data-testid="graph"][data-layout="done"]').waitFor({ timeout: 30_000 });
        await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
        const area = (await page.getByTestId('graph').boundingBox())!;
        const shown = await page.evaluate(() => window.__consoleGraphView!.labels());
        expect(shown.map((l) => l.id)).to.include(pb.id);
        for (const l of shown) {
          expect(l.left, l.id).to.be.at.least(0);
          expect(l.top, l.id).to.be.at.least(0);
          expect(l.left + l.width, l.id).to.be.at.most(area.width);
          expect(l.top + l.height, l.id).to.be.at.most(area.height);
        }
        // The playbook's label fits beside, below or above its circle rather than being pushed over it.
        const label = shown.find((l) => l.id === pb.id)!;
        const node = (await page.evaluate((id) => window.__consoleGraphView!.node(id), pb.id))!;
        const [cx, cy] = [node.x - area.x, node.y - area.y];
        const clear = label.left >= cx + node.radius || label.left + label.width <= cx - node.radius || label.top >= cy + node.radius || label.top + label.height <= cy - node.radius;
        expect(clear, JSON.stringify({ label, cx, cy, radius: node.radius })).to.equal(true);
        await page.screenshot({ path: `${screenshotDir}/playbook-graph-${neighbours}-${viewport.width}x${viewport.height}.png` });
      });
    }
  }

  it('has no serious or critical accessibility violation, no sideways scroll, on every playbook page at desktop and phone widths', async () => {
    const empty = await createWorkspace({ name: unique('Empty') });
    const pb = await createPlaybook(workspace, workspace.owner.key, {
      title: unique('Axe'), functionArea: 'support', tags: ['a11y'], version: { content: { instructions: '# Steps\n\n1. One\n2. Two', checklist: ['a', 'b'] } },
    });
    const v1 = pb.versions[0];
    const v2 = await createVersion(workspace, workspace.owner.key, pb.id, { content: { instructions: '# Steps\n\n1. One\n2. Three', checklist: ['a'] }, changeNote: 'Third step' });
    const w = `/w/${workspace.workspaceId}`;
    const pages: [string, string, (p: Page) => Promise<unknown>][] = [
      ['playbooks-empty', `/w/${empty.workspaceId}/playbooks`, (p) => p.getByTestId('playbooks-empty').waitFor()],
      ['playbooks', `${w}/playbooks`, async (p) => {
        await p.locator('tr[data-playbook-id]').first().waitFor();
        await p.getByRole('button', { name: 'New playbook' }).click();
        await p.getByLabel('Title').waitFor();
      }],
      ['playbook', `${w}/playbooks/${pb.id}`, async (p) => {
        await p.locator('tr[data-version-id]').first().waitFor();
        await p.getByRole('button', { name: 'Roll back to v1' }).click();
        await p.getByRole('group', { name: 'Confirm: Roll back to v1' }).waitFor();
      }],
      ['playbook-version', `${w}/playbooks/${pb.id}/versions/${v1.id}`, async (p) => {
        await p.getByTestId('version-facts').waitFor();
        await p.getByText('Raw content (JSON)').click();
      }],
      ['playbook-version-new', `${w}/playbooks/${pb.id}/versions/new?from=${v2.id}`, (p) => p.locator('.cm-content').waitFor()],
      ['playbook-diff', `${w}/playbooks/${pb.id}/diff?a=${v1.id}&b=${v2.id}`, (p) => p.locator('table.diff').waitFor()],
    ];
    const found: string[] = [];
    for (const viewport of viewports) {
      await page.setViewportSize(viewport);
      for (const [name, path, ready] of pages) {
        await signIn(page, (path.includes(empty.workspaceId) ? empty : workspace).owner.key, path);
        await ready(page);
        for (const v of await seriousA11yViolations(page)) found.push(`${name} ${viewport.width}: ${v}`);
        if (await overflowsSideways(page)) found.push(`${name} ${viewport.width}: scrolls sideways (${await widest(page)})`);
        await page.screenshot({ path: `${screenshotDir}/${name}-${viewport.width}x${viewport.height}.png`, fullPage: true });
        await page.getByRole('button', { name: 'Sign out' }).click();
      }
    }
    expect(found).to.deep.equal([]);
  });
});
