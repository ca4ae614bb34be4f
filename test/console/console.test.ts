import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect } from 'chai';
import { type TestWorkspace, createUser, createWorkspace, request, statusWith, unique } from '../support/api.js';
import { adminToken, env } from '../support/harness.js';
import { createNode, linkPlaybook } from '../support/nodes.js';
import { createPlaybook, createVersion, getPlaybook } from '../support/playbooks.js';
import { until } from '../support/waits.js';
import { consoleInChromium, type ConsolePage, consoleUrl, graphReady, screenshotDir, signIn } from './browser.js';
import { seriousA11yViolations, viewports } from './page-checks.js';

describe('the web console in Chromium', function () {
  this.timeout(90_000);
  // A revoked user key is refused (401) on the page's next call, and Chromium logs a line for it.
  const chromium = consoleInChromium({ refusedStatuses: [401] });
  let workspace: TestWorkspace;
  let cp: ConsolePage;
  let page: Page;

  before(async () => {
    workspace = await createWorkspace({ name: unique('Console') });
  });
  beforeEach(async () => {
    cp = await chromium.tab();
    page = cp.page;
  });

  it('is served at /console with a strict CSP, hashed assets cached for a year and client routes answered by index.html', async () => {
    const index = await fetch(consoleUrl('/'));
    expect(index.status).to.equal(200);
    const csp = index.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("script-src 'self'").and.include("default-src 'none'").and.match(/style-src 'self' 'nonce-[^']+'/).and.not.include('unsafe');
    const html = await index.text();
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1];
    const js = await fetch(`${env.service.url}${asset}`);
    expect(js.status).to.equal(200);
    expect(js.headers.get('cache-control')).to.include('immutable');
    // fetch asks for gzip and unpacks it: the same script either way, gzipped only for those who ask.
    expect(js.headers.get('content-encoding')).to.equal('gzip');
    const plain = await fetch(`${env.service.url}${asset}`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).to.equal(null);
    expect(await plain.text()).to.equal(await js.text());
    const deep = await fetch(consoleUrl('/w/ws_x/nodes/cn_y'));
    expect(deep.status).to.equal(200);
    expect((await deep.text()).replace(/content="[^"]+" \/>/, '')).to.equal(html.replace(/content="[^"]+" \/>/, ''));
    expect((await fetch(consoleUrl('/assets/nothing-here.js'))).status).to.equal(404);
    expect(html).not.to.match(/https?:\/\//);
  });

  it('signs in with a user key and lists the user’s workspaces; the key is never in a URL or a cookie', async () => {
    await page.goto(consoleUrl());
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('User key').fill(workspace.owner.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
    await page.locator(`[data-workspace-id="${workspace.workspaceId}"]`).waitFor();
    expect(page.url()).not.to.include(workspace.owner.key);
    expect(await cp.context.cookies()).to.deep.equal([]);
    await page.locator(`[data-workspace-id="${workspace.workspaceId}"] a`).click();
    await page.getByRole('heading', { name: 'Playbooks' }).waitFor();
  });

  it('creates a node whose content links [[another]] (completed from the node list) and shows the link as an edge of the graph', async () => {
    const another = await createNode(workspace, { slug: unique('another'), title: unique('Another') });
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/nodes/new`);
    await page.getByLabel('Title').fill('Links another');
    await page.getByLabel('Description').fill('Made in the console');
    const editor = page.getByLabel('Content (markdown)');
    await editor.click();
    await page.keyboard.type(`See [[${another.slug.slice(0, 9)}`);
    await page.keyboard.press('Control+Space');
    const option = page.locator('.cm-tooltip-autocomplete li', { hasText: another.slug });
    await option.waitFor();
    // CodeMirror takes a completion on mousedown.
    await option.dispatchEvent('mousedown', { button: 0 });
    expect(await editor.textContent()).to.include(`[[${another.slug}]]`);
    expect(await page.getByRole('region', { name: 'Preview' }).textContent()).to.include(another.slug);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/nodes\/cn_/);
    const nodeId = /\/nodes\/(cn_[^/?#]+)/.exec(page.url())![1];
    await page.getByTestId('outgoing-links').getByText(another.title).waitFor();

    await page.getByRole('link', { name: 'Graph' }).click();
    await graphReady(page);
    const edge = await page.evaluate(([from, to]) => {
      const g = window.__consoleGraph!;
      return g.filterEdges((_e, a, s, t) => s === from && t === to).map((e) => g.getEdgeAttribute(e, 'linkType'));
    }, [nodeId, another.id]);
    expect(edge).to.deep.equal(['references']);
    const counts = await graphReady(page);
    expect(counts.nodes).to.be.at.least(2);
    expect(counts.edges).to.be.at.least(1);
  });

  it('previews a bundle and highlights its nodes in rank order with their reasons', async () => {
    const pb = await createPlaybook(workspace, workspace.owner.key, { title: unique('Bundled') });
    const [a, b, c] = [await createNode(workspace, { importance: 90 }), await createNode(workspace, { importance: 10 }), await createNode(workspace, { importance: 50 })];
    await linkPlaybook(workspace, pb.id, b.id, 'requires');
    await linkPlaybook(workspace, pb.id, a.id, 'references');
    await linkPlaybook(workspace, pb.id, c.id, 'references');
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/graph?playbook=${pb.id}`);
    const counts = await graphReady(page);
    expect(counts.nodes).to.equal(4);
    await page.getByLabel('Max nodes').fill('2');
    await page.getByRole('button', { name: 'Preview bundle' }).click();
    await page.getByTestId('bundle-list').waitFor();
    const listed = await page.getByTestId('bundle-list').locator('li').evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.nodeId));
    const expected = await request('GET', workspace.path(`/context/bundle?playbookId=${pb.id}&mode=summary&maxNodes=2&depth=2`), { token: workspace.owner.key });
    expect(listed).to.deep.equal(expected.body.nodes.map((n: { id: string }) => n.id));
    expect(listed).to.have.length(2);
    expect(listed[0]).to.equal(b.id);
    const ranks = await page.evaluate(() => {
      const g = window.__consoleGraph!;
      return g.filterNodes((_n, attrs) => attrs.bundleRank !== undefined).map((n) => [n, g.getNodeAttribute(n, 'bundleRank')]);
    });
    expect(Object.fromEntries(ranks)).to.deep.equal(Object.fromEntries(listed.map((id, i) => [id, i + 1])));
    expect(await page.getByTestId('bundle-list').textContent()).to.include('requires');
  });

  it('diffs two versions side by side, approves a draft, rolls back to an older version, archives and restores', async () => {
    const pb = await createPlaybook(workspace, workspace.owner.key, { title: unique('Versioned'), version: { content: { instructions: 'Step one\nShared line' } } });
    const v1 = pb.versions?.[0]?.id ?? (await getPlaybook(workspace, workspace.owner.key, pb.id)).versions[0].id;
    const v2 = await createVersion(workspace, workspace.owner.key, pb.id, { content: { instructions: 'Step two\nShared line' }, changeNote: 'second' });
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/playbooks/${pb.id}`);
    await page.getByRole('heading', { name: pb.title }).waitFor();
    await page.getByLabel('Compare', { exact: true }).selectOption(v1);
    await page.getByLabel('with', { exact: true }).selectOption(v2.id);
    await page.getByRole('link', { name: 'Show differences' }).click();
    await page.locator('table.diff').waitFor();
    expect(await page.locator('table.diff td.del').allTextContents()).to.deep.equal(['removed: Step one']);
    expect(await page.locator('table.diff td.ins').allTextContents()).to.deep.equal(['added: Step two']);
    expect(await page.getByTestId('diff-summary').textContent()).to.equal('1 changed line.');

    await page.getByRole('link', { name: 'Back to the playbook' }).click();
    await page.getByRole('button', { name: 'Approve v2' }).click();
    await page.getByText('Version 2 approved.').waitFor();
    let stored = await getPlaybook(workspace, workspace.owner.key, pb.id);
    expect(stored.activeVersion.id).to.equal(v2.id);

    await page.getByRole('button', { name: 'Roll back to v1' }).click();
    // Rollback and archive ask first.
    await page.getByRole('group', { name: 'Confirm: Roll back to v1' }).getByRole('button', { name: 'Roll back to v1' }).click();
    await page.getByText('Version 3 is a new draft with the content of version 1.').waitFor();
    stored = await getPlaybook(workspace, workspace.owner.key, pb.id);
    const v3 = stored.versions.find((v: { versionNumber: number }) => v.versionNumber === 3);
    expect(v3.status).to.equal('draft');
    expect(v3.content).to.deep.equal({ instructions: 'Step one\nShared line' });
    expect(stored.activeVersion.id).to.equal(v2.id);
    await page.locator('tr[data-version-number="3"][data-status="draft"]').waitFor();

    await page.getByRole('button', { name: 'Archive playbook' }).click();
    await page.getByRole('group', { name: 'Confirm: Archive playbook' }).getByRole('button', { name: 'Archive playbook' }).click();
    await page.getByRole('button', { name: 'Restore playbook' }).waitFor();
    expect((await getPlaybook(workspace, workspace.owner.key, pb.id)).archivedAt).to.be.a('string');
    await page.getByRole('button', { name: 'Restore playbook' }).click();
    await page.getByRole('button', { name: 'Archive playbook' }).waitFor();
    expect((await getPlaybook(workspace, workspace.owner.key, pb.id)).archivedAt).to.equal(null);
  });

  it('resolves open feedback with a note', async () => {
    const node = await createNode(workspace);
    const created = await request('POST', workspace.path('/context/feedback'), {
      token: workspace.owner.key,
      body: { targetType: 'context_node', targetId: node.id, feedbackType: 'outdated', summary: 'The price list changed' },
    });
    expect(created.status).to.equal(201);
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/feedback`);
    const item = page.locator(`[data-feedback-id="${created.body.id}"]`);
    await item.getByLabel('Note').fill('Updated the prices');
    await item.getByRole('button', { name: 'Resolve' }).click();
    await item.waitFor({ state: 'detached' });
    const stored = await request('GET', workspace.path(`/context/feedback?status=resolved&targetId=${node.id}`), { token: workspace.owner.key });
    expect(stored.body.feedback.map((f: { id: string; resolutionNote: string }) => [f.id, f.resolutionNote])).to.deep.equal([[created.body.id, 'Updated the prices']]);
  });

  it('creates an agent and a key (shown once, with a copy button), rotates it with a grace after which the old key is refused, and revokes a key', async () => {
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/agents`);
    const name = unique('Agent');
    await page.getByLabel('New agent name').fill(name);
    await page.getByRole('button', { name: 'Create agent' }).click();
    const card = page.locator('li.card', { has: page.getByRole('button', { name }) });
    await card.getByRole('table').waitFor();
    await card.getByRole('button', { name: 'Create key' }).click();
    const first = (await card.getByTestId('new-key').textContent())!;
    expect(first).to.match(/^pk_/);
    await card.getByRole('button', { name: 'Copy key' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(first);
    expect(await statusWith(workspace, first)).to.equal(200);
    await card.getByRole('button', { name: 'Done, hide it' }).click();

    await card.getByLabel('Rotation grace').fill('2');
    await card.getByLabel('Grace unit').selectOption('seconds');
    await card.getByRole('button', { name: /^Rotate key/ }).click();
    // Rotation takes access away from the old key: it asks first.
    const rotatedAt = Date.now();
    await card.getByRole('button', { name: 'Rotate key', exact: true }).click();
    await card.getByTestId('new-key').waitFor();
    const second = (await card.getByTestId('new-key').textContent())!;
    expect(second).to.match(/^pk_/).and.not.equal(first);
    // Both are listed, the old one with its expiry.
    await card.locator('tr[data-key-id] td[data-expires-at]:not([data-expires-at=""])').waitFor();
    expect(await card.locator('tr[data-key-id]').count()).to.equal(2);
    if (Date.now() - rotatedAt < 1500) expect(await statusWith(workspace, first)).to.equal(200);
    expect(await statusWith(workspace, second)).to.equal(200);
    await until('the old key after its grace', () => statusWith(workspace, first), (s) => s === 401);
    expect(Date.now() - rotatedAt).to.be.at.least(2000);
    expect(await statusWith(workspace, second)).to.equal(200);

    // The open agent stays open after a reload.
    await page.reload();
    await card.locator('tr[data-key-id]').first().waitFor();
    expect(await card.getByRole('button', { name }).getAttribute('aria-expanded')).to.equal('true');
    expect(await card.locator('tr[data-key-id]').count()).to.equal(1);
    await card.getByRole('button', { name: /^Revoke key/ }).click();
    await card.getByRole('button', { name: 'Revoke key', exact: true }).click();
    await card.getByText('Key revoked.').waitFor();
    await until('the revoked key', () => statusWith(workspace, second), (s) => s === 401);
  });

  it('signs out: the key is forgotten and the sign-in page is back, also after a reload', async () => {
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/playbooks`);
    expect(await page.evaluate(() => Object.values(sessionStorage))).to.deep.equal([workspace.owner.key]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).to.equal(0);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).to.equal(0);
  });

  it('a revoked user key returns to the sign-in page with a message', async () => {
    const user = await createUser('Revoked');
    const added = await request('POST', workspace.path('/members'), { token: workspace.owner.key, body: { userId: user.userId, role: 'editor' } });
    expect(added.status).to.equal(201);
    await signIn(page, user.key, `/w/${workspace.workspaceId}/playbooks`);
    await page.getByRole('heading', { name: 'Playbooks' }).waitFor();
    const revoked = await request('DELETE', `/api/v1/admin/users/${user.userId}/keys/${user.keyId}`, { token: adminToken });
    expect(revoked.status).to.equal(204);
    // The next call with the key is refused: the click's, or a refetch the page makes on its own before the click
    // lands (the link is then gone with the page, and the click is moot).
    await page.getByRole('link', { name: 'Context nodes' }).click({ timeout: 5_000 }).catch(() => undefined);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('alert').first().textContent()).to.match(/no longer accepts this key/);
    expect(await page.evaluate(() => sessionStorage.length)).to.equal(0);
  });

  it('has no serious or critical accessibility violation, no sideways scroll and no console error on any page, at desktop and phone widths (screenshots in test-output/screenshots)', async function () {
    this.timeout(300_000);
    const pb = await createPlaybook(workspace, workspace.owner.key, { title: unique('Axe') });
    const v2 = await createVersion(workspace, workspace.owner.key, pb.id);
    const stored = await getPlaybook(workspace, workspace.owner.key, pb.id);
    const node = await createNode(workspace, { content: 'Some **text**' });
    await linkPlaybook(workspace, pb.id, node.id, 'requires');
    const w = `/w/${workspace.workspaceId}`;
    const pages: [string, string, (p: Page) => Promise<unknown>][] = [
      ['workspaces', '/', (p) => p.getByRole('heading', { name: 'Workspaces' }).waitFor()],
      ['playbook-list', `${w}/playbooks`, (p) => p.locator('tr[data-playbook-id]').first().waitFor()],
      ['playbook-page', `${w}/playbooks/${pb.id}`, (p) => p.locator('[data-version-id]').first().waitFor()],
      ['playbook-version-page', `${w}/playbooks/${pb.id}/versions/${v2.id}`, (p) => p.getByTestId('version-status').waitFor()],
      ['playbook-version-editor', `${w}/playbooks/${pb.id}/versions/new`, (p) => p.locator('.cm-content').waitFor()],
      ['playbook-diff-page', `${w}/playbooks/${pb.id}/diff?a=${stored.versions[1].id}&b=${v2.id}`, (p) => p.locator('table.diff').waitFor()],
      ['node-list', `${w}/nodes`, (p) => p.locator('tr[data-node-id]').first().waitFor()],
      ['node-new', `${w}/nodes/new`, (p) => p.locator('.cm-content').waitFor()],
      ['node-page', `${w}/nodes/${node.id}`, (p) => p.getByRole('heading', { name: 'Links' }).waitFor()],
      ['graph-bundle-preview', `${w}/graph?playbook=${pb.id}`, async (p) => {
        await graphReady(p);
        await p.getByRole('button', { name: 'Preview bundle' }).click();
        await p.getByTestId('bundle-list').waitFor();
      }],
      ['graph', `${w}/graph`, (p) => graphReady(p)],
      ['feedback-page', `${w}/feedback`, (p) => p.getByRole('heading', { name: 'Feedback to review' }).waitFor()],
      ['agents-page', `${w}/agents`, (p) => p.getByLabel('New agent name').waitFor()],
      ['usage-page', `${w}/usage`, (p) => p.locator('#usage-meter').waitFor()],
      ['cypher-sign-in', '/cypher', (p) => p.getByLabel('Analyst token').waitFor()],
    ];
    const found: string[] = [];
    const scan = async (p: Page, where: string) => {
      for (const v of await seriousA11yViolations(p)) found.push(`${where}: ${v}`);
      const sideways = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (sideways > 0) found.push(`${where}: scrolls sideways by ${sideways} px`);
    };
    // One folder for this tour of every page; the other console tests write their own pages' states beside it.
    const shots = path.join(screenshotDir, 'every-page');
    for (const viewport of viewports) {
      const size = `${viewport.width}x${viewport.height}`;
      const at = await chromium.tab(viewport);
      // Every console message of level error, a missing favicon's 404 included, not only CSP refusals.
      const errors: string[] = [];
      at.page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(`${at.page.url()}: ${msg.text()}`);
      });
      try {
        await at.page.goto(consoleUrl());
        await at.page.getByRole('heading', { name: 'Sign in' }).waitFor();
        await scan(at.page, `${size} sign-in`);
        await at.page.screenshot({ path: path.join(shots, `sign-in-${size}.png`), fullPage: true });
        await signIn(at.page, workspace.owner.key);
        for (const [name, where, ready] of pages) {
          await at.page.goto(consoleUrl(where));
          await ready(at.page);
          await scan(at.page, `${size} ${where}`);
          await at.page.screenshot({ path: path.join(shots, `${name}-${size}.png`), fullPage: true });
        }
        expect(errors, errors.join('\n')).to.deep.equal([]);
        expect(at.problems).to.deep.equal([]);
      } finally {
        await at.context.close();
      }
    }
    expect(found).to.deep.equal([]);
  });

  it('names its icon, which /favicon.ico answers', async () => {
    const icon = await fetch(`${env.service.url}/favicon.ico`);
    expect(icon.status).to.equal(200);
    expect(icon.headers.get('content-type')).to.equal('image/svg+xml');
    expect(await icon.text()).to.match(/^<svg /);
    await page.goto(consoleUrl());
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).to.equal('/favicon.ico');
  });

  it('moves through the sign-in form and the workspace navigation with the keyboard', async () => {
    await page.goto(consoleUrl());
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal('Skip to content');
    await page.getByLabel('User key').focus();
    await page.keyboard.type(workspace.owner.key);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.goto(consoleUrl(`/w/${workspace.workspaceId}/playbooks`));
    await page.getByRole('link', { name: 'Context nodes' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Context nodes' }).waitFor();
    // The new page's heading takes focus, so a screen reader announces it.
    expect(await page.evaluate(() => document.activeElement?.tagName)).to.equal('H1');
  });
});
