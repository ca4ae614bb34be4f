import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { consoleCsp } from '../../src/console/routes.js';
import { type TestWorkspace, createWorkspace, unique } from '../support/api.js';
import { env } from '../support/harness.js';
import { createNode, getNode } from '../support/nodes.js';
import { until } from '../support/waits.js';
import { consoleInChromium, type ConsolePage, consoleUrl, screenshotDir, signIn } from './browser.js';
import { overflowsSideways, seriousA11yViolations } from './page-checks.js';

const phone = { width: 390, height: 844 };
const desktop = { width: 1280, height: 800 };

/** A markdown table some 4,000 px wide: forty long columns, aligned left, centre and right in turn. */
const wideTable = (() => {
  const columns = Array.from({ length: 40 }, (_, i) => i);
  return [
    `| ${columns.map((i) => `Column ${i} with a long heading`).join(' | ')} |`,
    `|${columns.map((i) => [':---', ':---:', '---:'][i % 3]).join('|')}|`,
    `| ${columns.map((i) => `cell-${i}-holding-one-long-unbroken-word`).join(' | ')} |`,
  ].join('\n');
})();

/** Boxes (in viewport pixels) and scroll sizes of the editor's parts. */
const editorLayout = (page: Page) => page.evaluate(() => {
  const parts = Object.entries({ form: 'form.node-form', editor: '.node-content .editor', preview: '.node-preview', save: 'form.node-form button[type="submit"]' })
    .map(([part, selector]) => {
      const e = document.querySelector(selector)!;
      const r = e.getBoundingClientRect();
      return [part, { width: r.width, top: r.top, bottom: r.bottom, scrollWidth: e.scrollWidth, clientWidth: e.clientWidth }] as const;
    });
  return { ...Object.fromEntries(parts) as Record<'form' | 'editor' | 'preview' | 'save', { width: number; top: number; bottom: number; scrollWidth: number; clientWidth: number }>, viewportHeight: window.innerHeight };
});

describe('the console’s node editor and node list, in Chromium', function () {
  this.timeout(120_000);
  const chromium = consoleInChromium();
  let workspace: TestWorkspace;
  let cp: ConsolePage;
  let page: Page;

  before(async () => {
    workspace = await createWorkspace({ name: unique('Node editor') });
  });
  beforeEach(async () => {
    cp = await chromium.tab();
    page = cp.page;
  });

  const editorAt = async (p: Page, nodeId: string) => {
    await p.goto(consoleUrl(`/w/${workspace.workspaceId}/nodes/${nodeId}`));
    await p.getByRole('heading', { name: 'Links' }).waitFor();
  };

  it('keeps editor and preview side by side with a 4,000-px table, scrolling it inside the preview, with Save in view; stacked on a phone', async () => {
    const node = await createNode(workspace, { title: unique('Wide table'), content: `# Prices\n\n${wideTable}\n\nAfter the table.` });
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/nodes/${node.id}`);
    await page.getByRole('heading', { name: 'Links' }).waitFor();
    await page.getByRole('region', { name: 'Preview' }).locator('table').waitFor();
    const wide = await editorLayout(page);
    expect(wide.editor.width).to.be.at.least(wide.form.width / 3);
    expect(wide.preview.top).to.be.closeTo(wide.editor.top, 2); // side by side
    expect(wide.preview.scrollWidth).to.be.above(wide.preview.clientWidth);
    expect(wide.preview.scrollWidth).to.be.above(3_000);
    expect(await overflowsSideways(page)).to.equal(false);
    expect(wide.save.bottom).to.be.at.most(wide.viewportHeight);
    expect(wide.save.top).to.be.below(wide.editor.bottom + 24);

    const small = await chromium.tab(phone);
    try {
      await signIn(small.page, workspace.owner.key, `/w/${workspace.workspaceId}/nodes/${node.id}`);
      await small.page.getByRole('heading', { name: 'Links' }).waitFor();
      await small.page.getByRole('region', { name: 'Preview' }).locator('table').waitFor();
      const narrow = await editorLayout(small.page);
      expect(narrow.editor.width).to.be.at.least(narrow.form.width * 0.9); // stacked, full width
      expect(narrow.preview.top).to.be.above(narrow.editor.bottom - 1);
      expect(narrow.preview.scrollWidth).to.be.above(narrow.preview.clientWidth);
      expect(await overflowsSideways(small.page)).to.equal(false);
      expect(narrow.save.bottom).to.be.at.most(narrow.viewportHeight);
      expect(narrow.save.top).to.be.below(narrow.editor.bottom + 24);
      expect(small.problems).to.deep.equal([]);
    } finally {
      await small.context.close();
    }
  });

  it('previews tables with alignment, code, html with style attributes and images without a CSP refusal: an image of another origin is a note', async () => {
    const content = [
      '# Mixed', '', wideTable, '', '```ts', `const line = "${'long '.repeat(80)}";`, '```', '',
      '<div style="color: red" align="center">Some <span style="font-weight: bold">html</span></div>', '',
      '<style>p { color: red }</style>', '',
      '![A diagram of the flow](https://images.example.com/flow.png)', '',
      `![The service's icon](${env.service.url}/favicon.ico)`, '',
      '- [ ] a task', '- [x] a done task', '',
      '<button>Press</button> and [[no-such-node]]', '',
      `https://example.com/${'a'.repeat(300)}`,
    ].join('\n');
    const node = await createNode(workspace, { title: unique('Mixed'), content });
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/nodes/${node.id}`);
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.locator('table').waitFor();
    const blocked = preview.locator('.image-blocked');
    expect((await blocked.innerText()).replace(/\s+/g, ' ')).to.equal('Image not shown: images.example.com is not an allowed image origin. Alt text: A diagram of the flow');
    // The browser was never asked for it; an image of the console's own origin is shown.
    expect(await preview.locator('img[src*="images.example.com"]').count()).to.equal(0);
    expect(await preview.locator('img').getAttribute('src')).to.equal(`${env.service.url}/favicon.ico`);
    expect(await preview.locator('[style]').count()).to.equal(0);
    expect(await preview.locator('th[align="center"]').count()).to.be.above(0);
    expect(await preview.locator('pre code').count()).to.equal(1);
    expect(await preview.locator('button, style').count()).to.equal(0);
    expect(await preview.locator('input[type="checkbox"][disabled]').count()).to.equal(2);
    expect(await preview.innerText()).to.include('html');
    expect(await preview.locator('[data-wikilink="unresolved"]').textContent()).to.equal('no-such-node (unresolved link)');
    // Typing keeps it so: an image added in the editor is replaced as it is typed.
    await page.getByLabel('Content (markdown)').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n\n![Another](https://cdn.example.org/x.png)\n');
    await preview.getByText('Image not shown: cdn.example.org is not an allowed image origin.').waitFor();
    await page.waitForTimeout(300);
  });

  for (const viewport of [desktop, phone]) {
    const size = `${viewport.width}×${viewport.height}`;

    it(`shows the note as the main thing: at least ${viewport === desktop ? 18 : 12} lines of its content above Save at first sight, at ${size}`, async () => {
      const content = Array.from({ length: 80 }, (_, i) => `Line ${i + 1} of the note`).join('\n');
      const node = await createNode(workspace, { title: unique('Long note'), content, aliases: ['One', 'Two'], tags: ['a', 'b'] });
      const at = await chromium.tab(viewport);
      await signIn(at.page, workspace.owner.key, `/w/${workspace.workspaceId}/nodes/${node.id}`);
      await at.page.getByRole('heading', { name: 'Links' }).waitFor();
      await at.page.locator('.cm-line', { hasText: 'Line 1 of the note' }).waitFor();
      await at.page.evaluate(() => window.scrollTo(0, 0));
      // Lines of the editor wholly on screen: inside the editor's scroller, above the sticky Save bar.
      const visible = await at.page.evaluate(() => {
        const scroller = document.querySelector('.node-content .cm-scroller')!.getBoundingClientRect();
        const save = document.querySelector('.node-save')!.getBoundingClientRect();
        const bottom = Math.min(scroller.bottom, save.top, window.innerHeight);
        return [...document.querySelectorAll('.node-content .cm-line')]
          .map((l) => l.getBoundingClientRect())
          .filter((r) => r.top >= Math.max(scroller.top, 0) - 0.5 && r.bottom <= bottom + 0.5).length;
      });
      expect(visible).to.be.at.least(viewport === desktop ? 18 : 12);
      // Every field is still there, below the note.
      for (const label of ['Title', 'Type', 'Importance (0–100)', 'Description', 'Slug', 'Aliases', 'Tags', 'Source file', 'Read first', 'Edge case only']) {
        expect(await at.page.getByLabel(label, { exact: true }).count(), label).to.equal(1);
      }
      expect(await overflowsSideways(at.page)).to.equal(false);
      await at.page.screenshot({ path: path.join(screenshotDir, `node-editor-first-sight-${viewport.width}x${viewport.height}.png`) });
    });

    it(`previews [[Name]] and [[Name|label]] as links to the nodes they resolve to (by slug, title or alias), an unresolved one plainly, at ${size}`, async () => {
      const policy = await createNode(workspace, { title: unique('Expense policy') });
      const travel = await createNode(workspace, { title: unique('Travel'), aliases: [`${policy.title} travel rules`] });
      const content = [
        `See [[${policy.slug}]], [[${policy.title}|the policy]] and [[${policy.title} travel rules]].`,
        '',
        '| Where | What |',
        '| --- | --- |',
        `| table | [[${travel.slug}\\|travel in a table]] |`,
        '',
        'Not yet: [[No such note anywhere]]. In code: `[[not-a-link]]`.',
      ].join('\n');
      const node = await createNode(workspace, { title: unique('Links out'), content });
      expect(node.unresolvedLinks).to.deep.equal(['No such note anywhere']);
      const at = await chromium.tab(viewport);
      await signIn(at.page, workspace.owner.key, `/w/${workspace.workspaceId}/nodes/${node.id}`);
      const preview = at.page.getByRole('region', { name: 'Preview' });
      const href = (id: string) => `/console/w/${workspace.workspaceId}/nodes/${id}`;
      // The label is the text; the link goes to the node the service resolved the name to.
      await preview.getByRole('link', { name: 'the policy' }).waitFor();
      expect(await preview.getByRole('link', { name: policy.slug, exact: true }).getAttribute('href')).to.equal(href(policy.id));
      expect(await preview.getByRole('link', { name: 'the policy' }).getAttribute('href')).to.equal(href(policy.id));
      expect(await preview.getByRole('link', { name: 'travel in a table' }).getAttribute('href')).to.equal(href(travel.id));
      // An alias names the node of another title: read from that node.
      await preview.getByRole('link', { name: `${policy.title} travel rules` }).waitFor();
      expect(await preview.getByRole('link', { name: `${policy.title} travel rules` }).getAttribute('href')).to.equal(href(travel.id));
      // No node has the name: plain text that says so, not a link.
      const unresolved = preview.locator('[data-wikilink="unresolved"]');
      expect(await unresolved.textContent()).to.equal('No such note anywhere (unresolved link)');
      expect(await preview.getByRole('link', { name: /No such note/ }).count()).to.equal(0);
      expect(await preview.locator('code').allTextContents()).to.include('[[not-a-link]]');
      expect(await preview.innerText()).not.to.include('⟦');
      // A name typed since the last save is linked when the note is saved.
      const later = await createNode(workspace, { title: unique('Linked later') });
      await at.page.getByLabel('Content (markdown)').click();
      await at.page.keyboard.press('Control+End');
      await at.page.keyboard.insertText(`\n\nAlso [[${later.title}]].`);
      await preview.locator('[data-wikilink="unsaved"]', { hasText: later.title }).waitFor();
      await at.page.getByRole('button', { name: 'Save' }).click();
      expect(await preview.getByRole('link', { name: later.title, exact: true }).getAttribute('href')).to.equal(href(later.id));
      // Following a link opens the node in the console.
      await preview.getByRole('link', { name: 'the policy' }).click();
      await at.page.getByRole('heading', { name: `Edit ${policy.title}` }).waitFor();
      expect(new URL(at.page.url()).pathname).to.equal(href(policy.id));
      expect(await overflowsSideways(at.page)).to.equal(false);
    });
  }

  it('lists configured image origins in the console’s CSP and takes only origins', () => {
    const origins = loadConfig({ CONSOLE_IMAGE_ORIGINS: 'https://Images.example.com, http://cdn.example.org:8080/' }).consoleImageOrigins;
    expect(origins).to.deep.equal(['https://images.example.com', 'http://cdn.example.org:8080']);
    expect(consoleCsp('n0nce', origins)).to.include("img-src 'self' data: https://images.example.com http://cdn.example.org:8080;");
    expect(consoleCsp('n0nce')).to.include("img-src 'self' data:;");
    for (const bad of ['https://images.example.com/path', 'images.example.com', 'https://*.example.com', 'https://a.example.com; script-src *', 'javascript:alert(1)']) {
      expect(() => loadConfig({ CONSOLE_IMAGE_ORIGINS: bad }), bad).to.throw(/CONSOLE_IMAGE_ORIGINS/);
    }
    expect(loadConfig({}).consoleImageOrigins).to.deep.equal([]);
  });

  it('the console page names the allowed image origins (none here) beside its CSP', async () => {
    const res = await fetch(consoleUrl('/'));
    expect(res.headers.get('content-security-policy')).to.include("img-src 'self' data:;");
    expect(await res.text()).to.include('<meta name="console-image-origins" content="" />');
  });

  it('edits aliases and tags in the editor and saves them, as read back through the API', async () => {
    const node = await createNode(workspace, { title: unique('Names') });
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/nodes/${node.id}`);
    await page.getByRole('heading', { name: 'Links' }).waitFor();
    await page.getByLabel('Aliases', { exact: true }).fill('Other name\nThird name');
    await page.getByLabel('Tags', { exact: true }).fill('alpha, beta');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText(`Saved ${node.slug}.`).waitFor();
    const stored = await getNode(workspace, node.id);
    expect(stored.aliases).to.deep.equal(['Other name', 'Third name']);
    expect(stored.tags).to.deep.equal(['alpha', 'beta']);
    // The list shows the tags.
    await page.goto(consoleUrl(`/w/${workspace.workspaceId}/nodes?tag=alpha`));
    const row = page.locator(`tr[data-node-id="${node.id}"]`);
    await row.waitFor();
    expect(await row.getByRole('list', { name: `Tags of ${node.title}` }).getByRole('link').allTextContents()).to.deep.equal(['Only nodes tagged #alpha', 'Only nodes tagged #beta']);
  });

  it('adds a typed link on one node’s page and removes it from the other end after asking', async () => {
    const a = await createNode(workspace, { title: unique('Source A') });
    const b = await createNode(workspace, { title: unique('Target B') });
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/nodes/${a.id}`);
    await page.getByRole('heading', { name: 'Links' }).waitFor();
    await page.getByLabel('Find the node to link to').fill(b.title);
    const target = page.getByLabel('Node', { exact: true });
    await until('the target among the choices', () => target.locator('option').allTextContents(), (o) => o.includes(`${b.title} (${b.slug})`));
    await target.selectOption(b.id);
    await page.getByLabel('Link type').selectOption('requires');
    await page.getByRole('button', { name: 'Add link' }).click();
    await page.getByTestId('outgoing-links').getByRole('link', { name: b.title }).waitFor();
    const outgoing = (await getNode(workspace, a.id)).outgoingLinks;
    expect(outgoing.map((l: { targetId: string; linkType: string; origin: string }) => [l.targetId, l.linkType, l.origin])).to.deep.equal([[b.id, 'requires', 'manual']]);

    await page.getByTestId('outgoing-links').getByRole('link', { name: b.title }).click();
    await page.getByRole('heading', { name: `Edit ${b.title}` }).waitFor();
    const incoming = page.getByTestId('incoming-links').locator('li', { hasText: a.title });
    await incoming.waitFor();
    expect(await incoming.innerText()).to.include('requires · manual');
    // Asked first; Cancel keeps the link.
    await incoming.getByRole('button', { name: `Remove the requires link from ${a.title}` }).click();
    await page.getByRole('group', { name: `Confirm: Remove the requires link from ${a.title}` }).getByRole('button', { name: 'Cancel' }).click();
    expect((await getNode(workspace, b.id)).incomingLinks).to.have.length(1);
    await incoming.getByRole('button', { name: `Remove the requires link from ${a.title}` }).click();
    await page.getByRole('button', { name: 'Remove link' }).click();
    await incoming.waitFor({ state: 'detached' });
    expect((await getNode(workspace, b.id)).incomingLinks).to.deep.equal([]);
    expect((await getNode(workspace, a.id)).outgoingLinks).to.deep.equal([]);
  });

  it('says what to do next when the workspace has no node yet', async () => {
    const empty = await createWorkspace({ name: unique('No nodes') });
    await signIn(page, empty.owner.key, `/w/${empty.workspaceId}/nodes`);
    const note = page.getByTestId('nodes-empty');
    await note.waitFor();
    expect(await note.innerText()).to.include(`npm run cli -- import ./notes --workspace ${empty.workspaceId}`);
    await note.getByRole('link', { name: 'Create a context node' }).click();
    await page.getByRole('heading', { name: 'New context node' }).waitFor();
  });

  it('has no serious or critical accessibility violation and no sideways scroll on the list and the editor, at desktop and phone widths (screenshots in test-output/screenshots)', async () => {
    const other = await createNode(workspace, { title: unique('Axe other') });
    const node = await createNode(workspace, {
      title: unique('Axe wide'), tags: ['axe', 'layout'], aliases: ['Axe alias'],
      content: `## Part\n\n${wideTable}\n\n![Elsewhere](https://images.example.com/x.png)\n\nSee [[${other.slug}]].`,
    });
    await createNode(workspace, { title: unique('Axe linking'), content: `[[${node.slug}#Part]]` });
    const found: string[] = [];
    for (const viewport of [desktop, phone]) {
      const at = viewport === desktop ? cp : await chromium.tab(viewport);
      try {
        await signIn(at.page, workspace.owner.key);
        const pages: [string, string, () => Promise<unknown>][] = [
          ['nodes', `/w/${workspace.workspaceId}/nodes`, () => at.page.locator(`tr[data-node-id="${node.id}"]`).waitFor()],
          ['node-editor', `/w/${workspace.workspaceId}/nodes/${node.id}`, async () => {
            await at.page.getByTestId('incoming-links').locator('li').waitFor();
            await at.page.locator('.image-blocked').waitFor();
          }],
        ];
        for (const [name, where, ready] of pages) {
          await at.page.goto(consoleUrl(where));
          await ready();
          for (const v of await seriousA11yViolations(at.page)) found.push(`${name} ${viewport.width}: ${v}`);
          if (await overflowsSideways(at.page)) found.push(`${name} ${viewport.width}: scrolls sideways`);
          await at.page.screenshot({ path: path.join(screenshotDir, `${name}-${viewport.width}x${viewport.height}.png`), fullPage: true });
        }
        if (at !== cp) expect(at.problems).to.deep.equal([]);
      } finally {
        if (at !== cp) await at.context.close();
      }
    }
    expect(found).to.deep.equal([]);
  });
});
