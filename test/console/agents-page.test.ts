import type { Locator, Page } from '@playwright/test';
import { expect } from 'chai';
import path from 'node:path';
import { type TestWorkspace, createWorkspace, request, statusWith, unique } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { createNode } from '../support/nodes.js';
import { createPlaybook, getPlaybook } from '../support/playbooks.js';
import { getBundle } from '../support/retrieval.js';
import { until } from '../support/waits.js';
import { consoleInChromium, consoleUrl, screenshotDir, signIn } from './browser.js';
import { overflowsSideways, seriousA11yViolations, viewports } from './page-checks.js';

async function keysOf(workspace: TestWorkspace, agentId: string): Promise<{ id: string; label: string | null; expiresAt: string | null }[]> {
  const res = await request('GET', workspace.path(`/agents/${agentId}/keys`), { token: workspace.owner.key });
  expect(res.status, res.text).to.equal(200);
  return res.body.keys;
}

const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? null);
const focusedName = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? null);

describe('the console’s agents and keys, feedback and usage pages, in Chromium', function () {
  this.timeout(120_000);
  const chromium = consoleInChromium();
  let workspace: TestWorkspace;

  before(async () => {
    workspace = await createWorkspace({ name: unique('Agents page') });
  });

  const agentCard = (page: Page, agentId: string): Locator => page.locator(`li.card[data-agent-id="${agentId}"]`);
  const keyRow = (card: Locator, keyId: string): Locator => card.locator(`tr[data-key-id="${keyId}"]`);

  it('asks before rotating and before revoking a key (Cancel leaves it working); the new key keeps the label; the key being replaced offers Revoke only and says until when', async () => {
    const agentName = unique('Labelled agent');
    const agent = await createAgent(workspace, { name: agentName, label: 'ci runner' });
    const prefix = agent.key.slice(0, 12);
    const { page } = await chromium.tab();
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/agents?agent=${agent.agentId}`);
    const card = agentCard(page, agent.agentId);
    await keyRow(card, agent.keyId).waitFor();
    await card.getByLabel('Rotation grace').fill('5');
    await card.getByLabel('Grace unit').selectOption('minutes');

    // Rotate asks; the question takes focus, names the key and the grace; Cancel changes nothing and gives focus back.
    await card.getByRole('button', { name: `Rotate key ${prefix}` }).click();
    const rotateQuestion = card.getByRole('group', { name: `Confirm: Rotate key ${prefix}` });
    await rotateQuestion.waitFor();
    expect(await rotateQuestion.textContent()).to.include(prefix).and.include('keeps working for 5 minutes');
    expect(await focusedText(page)).to.equal('Rotate key');
    await rotateQuestion.getByRole('button', { name: 'Cancel' }).click();
    expect(await focusedName(page)).to.equal(`Rotate key ${prefix}`);
    expect((await keysOf(workspace, agent.agentId)).map((k) => [k.id, k.expiresAt])).to.deep.equal([[agent.keyId, null]]);

    // Revoke asks too; Cancel leaves the key working.
    await card.getByRole('button', { name: `Revoke key ${prefix}` }).click();
    const revokeQuestion = card.getByRole('group', { name: `Confirm: Revoke key ${prefix}` });
    await revokeQuestion.getByRole('button', { name: 'Cancel' }).click();
    expect(await revokeQuestion.count()).to.equal(0);
    expect(await statusWith(workspace, agent.key)).to.equal(200);
    expect(await keysOf(workspace, agent.agentId)).to.have.length(1);

    // Confirmed: a new key, with the old key's label.
    await card.getByRole('button', { name: `Rotate key ${prefix}` }).click();
    await card.getByRole('button', { name: 'Rotate key', exact: true }).click();
    const second = (await card.getByTestId('new-key').textContent())!;
    expect(second).to.match(/^pk_/).and.not.equal(agent.key);
    const keys = await keysOf(workspace, agent.agentId);
    expect(keys.map((k) => [k.id, k.label, k.expiresAt === null])).to.deep.equal([
      [agent.keyId, 'ci runner', false],
      [keys[1].id, 'ci runner', true],
    ]);
    const oldRow = keyRow(card, agent.keyId);
    const newRow = keyRow(card, keys[1].id);
    await oldRow.locator('td[data-expires-at]:not([data-expires-at=""])').waitFor();
    expect(await newRow.getByRole('cell').first().textContent()).to.equal('ci runner');

    // The old key is being replaced: it says so and until when, and offers Revoke, not Rotate.
    expect(await oldRow.textContent()).to.match(/Being replaced by a newer key: works until /);
    expect(await oldRow.locator('time').getAttribute('datetime')).to.equal(keys[0].expiresAt);
    expect(await oldRow.getByRole('button', { name: /^Rotate/ }).count()).to.equal(0);
    expect(await oldRow.getByRole('button', { name: `Revoke key ${prefix}` }).count()).to.equal(1);
    expect(await newRow.getByRole('button', { name: `Rotate key ${second.slice(0, 12)}` }).count()).to.equal(1);
    expect(await statusWith(workspace, agent.key)).to.equal(200);

    // Revoking the old one early, after confirming.
    await oldRow.getByRole('button', { name: `Revoke key ${prefix}` }).click();
    await card.getByRole('button', { name: 'Revoke key', exact: true }).click();
    await card.getByText('Key revoked.').waitFor();
    await until('the revoked key', () => statusWith(workspace, agent.key), (s) => s === 401);
    expect(await statusWith(workspace, second)).to.equal(200);
    await oldRow.waitFor({ state: 'detached' });
  });

  it('shows no rotation grace for an agent without a key, keeps the open agent in the URL across a reload, and asks before deactivating', async () => {
    const agentName = unique('Keyless agent');
    const created = await request('POST', workspace.path('/agents'), { token: workspace.owner.key, body: { name: agentName } });
    expect(created.status, created.text).to.equal(201);
    const agentId: string = created.body.id;
    const { page } = await chromium.tab();
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/agents`);
    const card = agentCard(page, agentId);
    await card.getByRole('button', { name: agentName }).click();
    await card.getByText('No active key.').waitFor();
    expect(new URL(page.url()).searchParams.get('agent')).to.equal(agentId);
    expect(await card.getByLabel('Rotation grace').count()).to.equal(0);

    await page.reload();
    await card.getByText('No active key.').waitFor();
    expect(await card.getByRole('button', { name: agentName }).getAttribute('aria-expanded')).to.equal('true');
    expect(await card.getByLabel('Rotation grace').count()).to.equal(0);

    // With a key there is something to rotate: the grace is offered.
    await card.getByLabel('New key label').fill('reload');
    await card.getByRole('button', { name: 'Create key' }).click();
    const key = (await card.getByTestId('new-key').textContent())!;
    await card.getByLabel('Rotation grace').waitFor();
    expect(await statusWith(workspace, key)).to.equal(200);

    // Closing the agent takes it out of the URL.
    await card.getByRole('button', { name: agentName }).click();
    expect(new URL(page.url()).searchParams.get('agent')).to.equal(null);
    await card.getByRole('button', { name: agentName }).click();

    // Deactivating asks; Cancel leaves the agent and its key working.
    await card.getByRole('button', { name: 'Deactivate agent' }).click();
    const question = card.getByRole('group', { name: 'Confirm: Deactivate agent' });
    expect(await question.textContent()).to.include(agentName);
    await question.getByRole('button', { name: 'Cancel' }).click();
    expect((await request('GET', workspace.path(`/agents/${agentId}`), { token: workspace.owner.key })).body.status).to.equal('active');
    expect(await statusWith(workspace, key)).to.equal(200);

    await card.getByRole('button', { name: 'Deactivate agent' }).click();
    await question.getByRole('button', { name: 'Deactivate agent' }).click();
    await card.getByText(`${agentName} is deactivated`).waitFor();
    expect((await request('GET', workspace.path(`/agents/${agentId}`), { token: workspace.owner.key })).body.status).to.equal('deactivated');
    await until('the deactivated agent’s key', () => statusWith(workspace, key), (s) => s === 401);
    await card.getByText('No key: the agent is deactivated').waitFor();
    expect(await card.getByLabel('Rotation grace').count()).to.equal(0);
    expect(await card.getByRole('button', { name: 'Create key' }).count()).to.equal(0);
  });

  it('names the feedback’s playbooks, versions and nodes by title, linked to their pages, with the id as secondary text', async () => {
    const node = await createNode(workspace, { title: unique('Price list') });
    const pb = await createPlaybook(workspace, workspace.owner.key, { title: unique('Quarterly close') });
    const versionId: string = (await getPlaybook(workspace, workspace.owner.key, pb.id)).versions[0].id;
    const send = async (targetType: string, targetId: string, summary: string) => {
      const res = await request('POST', workspace.path('/context/feedback'), { token: workspace.owner.key, body: { targetType, targetId, feedbackType: 'outdated', summary } });
      expect(res.status, res.text).to.equal(201);
      return res.body.id as string;
    };
    const onNode = await send('context_node', node.id, 'The prices changed');
    const onPlaybook = await send('playbook', pb.id, 'Step two is wrong');
    const onVersion = await send('playbook_version', versionId, 'This version is stale');

    const { page } = await chromium.tab();
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/feedback`);
    const nodeItem = page.locator(`[data-feedback-id="${onNode}"]`);
    const nodeLink = nodeItem.getByRole('link', { name: node.title });
    await nodeLink.waitFor();
    expect(await nodeLink.getAttribute('href')).to.match(new RegExp(`/nodes/${node.id}$`));
    expect(await nodeItem.locator('code.secondary-id').textContent()).to.equal(node.id);
    expect(await nodeItem.getByRole('link', { name: node.id }).count()).to.equal(0);
    // The author's name arrives with the members list, after the feedback itself.
    await nodeItem.getByText(/^from Owner · /).waitFor();

    const pbItem = page.locator(`[data-feedback-id="${onPlaybook}"]`);
    const pbLink = pbItem.getByRole('link', { name: pb.title });
    await pbLink.waitFor();
    expect(await pbLink.getAttribute('href')).to.match(new RegExp(`/playbooks/${pb.id}$`));
    expect(await pbItem.locator('code.secondary-id').textContent()).to.equal(pb.id);

    // A version is named by its playbook and its number, and links to its own page.
    const versionItem = page.locator(`[data-feedback-id="${onVersion}"]`);
    const versionLink = versionItem.getByRole('link', { name: `${pb.title}, version 1` });
    expect(await versionLink.getAttribute('href')).to.match(new RegExp(`/playbooks/${pb.id}/versions/${versionId}$`));
    expect(await versionItem.locator('code.secondary-id').textContent()).to.equal(versionId);

    await versionLink.click();
    await page.getByRole('heading', { name: `${pb.title}: version 1` }).waitFor();
    await page.goBack();
    await nodeLink.click();
    await page.waitForURL(new RegExp(`/nodes/${node.id}$`));
  });

  it('labels the usage chart: named axes, a caption instead of a legend of dashes, the day under the pointer, and a table of the days', async () => {
    const pb = await createPlaybook(workspace, workspace.owner.key, { title: unique('Retrieved') });
    const versionId: string = (await getPlaybook(workspace, workspace.owner.key, pb.id)).versions[0].id;
    await request('PATCH', workspace.path(`/playbooks/${pb.id}/versions/${versionId}/approve`), { token: workspace.owner.key });
    expect((await getBundle(workspace, { playbookId: pb.id, mode: 'summary' })).status).to.equal(200);
    const usage = (await request('GET', workspace.path('/usage'), { token: workspace.owner.key })).body;
    const today = usage.days[usage.days.length - 1];
    expect(today.retrievals).to.be.at.least(1);

    const { page } = await chromium.tab();
    // uPlot draws its axes' names on the canvas: what it writes there is recorded.
    await page.addInitScript(() => {
      const drawn: string[] = [];
      (window as unknown as { __drawnText: string[] }).__drawnText = drawn;
      const fillText = CanvasRenderingContext2D.prototype.fillText;
      CanvasRenderingContext2D.prototype.fillText = function (text: string, x: number, y: number, maxWidth?: number) {
        drawn.push(String(text));
        return maxWidth === undefined ? fillText.call(this, text, x, y) : fillText.call(this, text, x, y, maxWidth);
      };
    });
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/usage`);
    const chart = page.getByTestId('usage-chart');
    await chart.locator('canvas').waitFor();
    expect(await page.locator('.u-legend').count()).to.equal(0);
    expect(await page.locator('main').textContent()).not.to.include('--');
    const drawn = await page.evaluate(() => (window as unknown as { __drawnText: string[] }).__drawnText);
    expect(drawn).to.include.members(['Day (UTC)', 'Retrievals']);
    // The chart's text alternative is its caption, a sentence that sums it up.
    expect(await chart.getAttribute('role')).to.equal('img');
    const caption = (await page.locator('#usage-chart-caption').textContent())!;
    expect(await chart.getAttribute('aria-labelledby')).to.equal('usage-chart-caption');
    expect(caption).to.match(/^Retrievals per day \(UTC\)\. .*retrievals? /);
    const readout = page.getByTestId('chart-readout');
    expect(await readout.textContent()).to.equal('Point at the chart to read one day’s retrievals.');

    // Pointing at the last day reads it out.
    const over = chart.locator('.u-over');
    const box = (await over.boundingBox())!;
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
    await until('the readout', async () => (await readout.textContent()) ?? '', (t) => / retrievals?$/.test(t));
    expect(await readout.textContent()).to.match(new RegExp(`: ${today.retrievals.toLocaleString('en-US')} retrievals?$`));

    // The same numbers as a table.
    await page.getByText('Every day as a table').click();
    const rows = page.getByRole('table', { name: 'Retrievals per day' }).locator('tbody tr');
    expect(await rows.count()).to.equal(usage.days.length);
    expect(await rows.last().locator('td').textContent()).to.equal(today.retrievals.toLocaleString('en-US'));
  });

  it('has no serious or critical accessibility violation and no sideways scroll on the three pages, at desktop and phone widths (screenshots in test-output/screenshots)', async () => {
    const agent = await createAgent(workspace, { name: unique('Screenshot agent'), label: 'nightly export' });
    await request('POST', workspace.path(`/agents/${agent.agentId}/keys/${agent.keyId}/rotate`), { token: workspace.owner.key, body: { graceSeconds: 3600 } });
    const node = await createNode(workspace, { title: unique('Onboarding checklist') });
    await request('POST', workspace.path('/context/feedback'), {
      token: workspace.owner.key,
      body: { targetType: 'context_node', targetId: node.id, feedbackType: 'incorrect', summary: 'The second step names the wrong team' },
    });
    const w = `/w/${workspace.workspaceId}`;
    const pages: [string, string, (p: Page) => Promise<unknown>][] = [
      ['agents', `${w}/agents?agent=${agent.agentId}`, (p) => agentCard(p, agent.agentId).locator('tr[data-key-id]').nth(1).waitFor()],
      ['feedback', `${w}/feedback`, (p) => p.getByRole('link', { name: node.title }).waitFor()],
      ['usage', `${w}/usage`, (p) => p.getByTestId('usage-chart').locator('canvas').waitFor()],
    ];
    const found: string[] = [];
    for (const viewport of viewports) {
      const { page } = await chromium.tab(viewport);
      await signIn(page, workspace.owner.key);
      for (const [name, at, ready] of pages) {
        await page.goto(consoleUrl(at));
        await ready(page);
        const where = `${name} at ${viewport.width}×${viewport.height}`;
        for (const v of await seriousA11yViolations(page)) found.push(`${where}: ${v}`);
        if (await overflowsSideways(page)) found.push(`${where}: scrolls sideways`);
        await page.screenshot({ path: path.join(screenshotDir, `${name}-${viewport.width}x${viewport.height}.png`), fullPage: true });
      }
      // The confirmation, open, too.
      await page.goto(consoleUrl(pages[0][1]));
      await pages[0][2](page);
      await agentCard(page, agent.agentId).getByRole('button', { name: /^Rotate key/ }).click();
      await page.screenshot({ path: path.join(screenshotDir, `agents-asking-${viewport.width}x${viewport.height}.png`), fullPage: true });
      for (const v of await seriousA11yViolations(page)) found.push(`agents, asking, at ${viewport.width}×${viewport.height}: ${v}`);
      if (await overflowsSideways(page)) found.push(`agents, asking, at ${viewport.width}×${viewport.height}: scrolls sideways`);
    }
    expect(found).to.deep.equal([]);
  });
});
