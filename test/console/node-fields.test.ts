import type { Page } from '@playwright/test';
import { expect } from 'chai';
import { type TestWorkspace, createWorkspace, unique } from '../support/api.js';
import { createNode, getNode, listNodes } from '../support/nodes.js';
import { until } from '../support/waits.js';
import { consoleInChromium, consoleUrl, signIn } from './browser.js';
import { seriousA11yViolations } from './page-checks.js';

/** The ids of the node list's rows, in order. */
const rowIds = (page: Page) => page.locator('tr[data-node-id]').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.nodeId!));
const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

describe('the console’s node aliases, tags, source file and link sections, in Chromium', function () {
  this.timeout(90_000);
  const chromium = consoleInChromium();
  let workspace: TestWorkspace;
  let page: Page;

  before(async () => {
    workspace = await createWorkspace({ name: unique('Node fields') });
  });
  beforeEach(async () => {
    page = (await chromium.tab()).page;
  });

  const editorAt = async (nodeId: string) => {
    await page.goto(consoleUrl(`/w/${workspace.workspaceId}/nodes/${nodeId}`));
    await page.getByRole('heading', { name: 'Links' }).waitFor();
  };

  it('edits aliases, tags and the source file in the editor, saves them as the service normalised them, and shows them after a reload', async () => {
    const node = await createNode(workspace, { title: unique('Settings'), content: '# Settings\n\n## Appearance\n\nColours.' });
    expect(node.aliases).to.deep.equal([]);
    expect(node.tags).to.deep.equal([]);
    expect(node.sourcePath).to.equal(null);
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/nodes/${node.id}`);
    await page.getByRole('heading', { name: 'Links' }).waitFor();
    expect(await page.getByLabel('Source file').inputValue()).to.equal('');

    // A duplicate alias (ignoring case), spaces, a # and a duplicate tag: the service drops and trims them.
    await page.getByLabel('Aliases', { exact: true }).fill('Preferences\n  Look and feel  \n\npreferences');
    await page.getByLabel('Tags', { exact: true }).fill('#onboarding, ui-settings, , Onboarding');
    await page.getByLabel('Source file').fill('guides/Settings.md');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText(`Saved ${node.slug}.`).waitFor();
    expect(await page.getByLabel('Aliases', { exact: true }).inputValue()).to.equal('Preferences\nLook and feel');
    expect(await page.getByLabel('Tags', { exact: true }).inputValue()).to.equal('onboarding, ui-settings');
    expect(await page.getByRole('list', { name: 'Saved tags' }).getByRole('link').allTextContents()).to.deep.equal(['Nodes tagged #onboarding', 'Nodes tagged #ui-settings']);

    const stored = await getNode(workspace, node.id);
    expect(stored.aliases).to.deep.equal(['Preferences', 'Look and feel']);
    expect(stored.tags).to.deep.equal(['onboarding', 'ui-settings']);
    expect(stored.sourcePath).to.equal('guides/Settings.md');
    // The other fields went along unchanged.
    expect(stored.title).to.equal(node.title);
    expect(stored.content).to.equal(node.content);

    await page.reload();
    await page.getByRole('heading', { name: 'Links' }).waitFor();
    expect(await page.getByLabel('Aliases', { exact: true }).inputValue()).to.equal('Preferences\nLook and feel');
    expect(await page.getByLabel('Tags', { exact: true }).inputValue()).to.equal('onboarding, ui-settings');
    expect(await page.getByLabel('Source file').inputValue()).to.equal('guides/Settings.md');

    // Saving only a title leaves the names as they are; emptying the fields removes them.
    await page.getByLabel('Title').fill(`${node.title} v2`);
    await page.getByRole('button', { name: 'Save' }).click();
    await until('the new title', async () => (await getNode(workspace, node.id)).title, (t) => t === `${node.title} v2`);
    expect((await getNode(workspace, node.id)).aliases).to.deep.equal(['Preferences', 'Look and feel']);
    await page.getByLabel('Aliases', { exact: true }).fill('');
    await page.getByLabel('Tags', { exact: true }).fill('');
    await page.getByLabel('Source file').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    const cleared = await until('the emptied names', () => getNode(workspace, node.id), (n) => n.aliases.length === 0);
    expect([cleared.tags, cleared.sourcePath]).to.deep.equal([[], null]);
    await page.getByRole('list', { name: 'Saved tags' }).waitFor({ state: 'detached' });
  });

  it('creates a node with aliases and tags from the new-node form', async () => {
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/nodes/new`);
    const title = unique('Made with names');
    await page.getByLabel('Title').fill(title);
    await page.getByLabel('Description').fill('Made in the console');
    await page.getByLabel('Aliases', { exact: true }).fill('Named elsewhere');
    await page.getByLabel('Tags', { exact: true }).fill('made-here');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/nodes\/cn_/);
    const nodeId = /\/nodes\/(cn_[^/?#]+)/.exec(page.url())![1];
    const stored = await getNode(workspace, nodeId);
    expect([stored.aliases, stored.tags, stored.sourcePath]).to.deep.equal([['Named elsewhere'], ['made-here'], null]);
  });

  it('filters the node list by a tag, typed or clicked on a row, and shows each row’s tags and aliases', async () => {
    const tag = unique('billing').toLowerCase();
    const otherTag = unique('shipping').toLowerCase();
    const tagged = await createNode(workspace, { title: unique('Invoices'), tags: [tag, 'finance'], aliases: ['Bills', 'Receipts'] });
    const other = await createNode(workspace, { title: unique('Parcels'), tags: [otherTag, 'finance'] });
    const untagged = await createNode(workspace, { title: unique('Plain') });
    expect((await listNodes(workspace, { tag })).nodes.map((n: { id: string }) => n.id)).to.deep.equal([tagged.id]);

    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/nodes`);
    await page.locator(`tr[data-node-id="${untagged.id}"]`).waitFor();
    const row = page.locator(`tr[data-node-id="${tagged.id}"]`);
    expect(await row.getByRole('list', { name: `Tags of ${tagged.title}` }).getByRole('link').allTextContents()).to.deep.equal([`Only nodes tagged #${tag}`, 'Only nodes tagged #finance']);
    expect(await row.textContent()).to.include('Also called Bills, Receipts');

    // Typed into the filter (with a # and in capitals: the service ignores both).
    await page.getByLabel('Tag', { exact: true }).fill(`#${tag.toUpperCase()}`);
    await until('the list filtered by the typed tag', () => rowIds(page), (ids) => sameSet(ids, [tagged.id]));
    await page.waitForURL((url) => url.searchParams.get('tag') === `#${tag.toUpperCase()}`);
    expect(await page.getByTestId('tag-filter').textContent()).to.include(`#${tag.toUpperCase()}`);

    // Cleared: every node again.
    await page.getByRole('link', { name: 'Clear the tag filter' }).click();
    await until('the unfiltered list', () => rowIds(page), (ids) => [tagged.id, other.id, untagged.id].every((id) => ids.includes(id)));
    // The field follows the address a moment after the list does.
    await until('the tag field cleared', () => page.getByLabel('Tag', { exact: true }).inputValue(), (value) => value === '');

    // A row's tag: the list of that tag, the tag marked as the current filter.
    await page.locator(`tr[data-node-id="${other.id}"]`).getByRole('link', { name: `Only nodes tagged #${otherTag}` }).click();
    await until('the list filtered by the clicked tag', () => rowIds(page), (ids) => sameSet(ids, [other.id]));
    expect(new URL(page.url()).searchParams.get('tag')).to.equal(otherTag);
    expect(await page.getByLabel('Tag', { exact: true }).inputValue()).to.equal(otherTag);
    expect(await page.locator('.tag[aria-current="true"]').allTextContents()).to.deep.equal([`Only nodes tagged #${otherTag}`]);

    // A shared tag lists both; the back button returns to the previous filter.
    await page.locator(`tr[data-node-id="${other.id}"]`).getByRole('link', { name: 'Only nodes tagged #finance' }).click();
    await until('the list of the shared tag', () => rowIds(page), (ids) => sameSet(ids, [tagged.id, other.id]));
    await page.goBack();
    await until('the list after going back', () => rowIds(page), (ids) => sameSet(ids, [other.id]));
    expect(await page.getByLabel('Tag', { exact: true }).inputValue()).to.equal(otherTag);

    // A tag no node has.
    await page.getByLabel('Tag', { exact: true }).fill(unique('nothing'));
    await page.getByText('No context node matches.').waitFor();

    // The editor's saved tags lead to the same list.
    await page.goto(consoleUrl(`/w/${workspace.workspaceId}/nodes/${tagged.id}`));
    await page.getByRole('list', { name: 'Saved tags' }).getByRole('link', { name: `Nodes tagged #${tag}` }).click();
    await until('the list from the editor’s tag', () => rowIds(page), (ids) => sameSet(ids, [tagged.id]));
  });

  it('shows the sections a wikilink names on both ends, also through an alias, and unresolved names as written', async () => {
    const target = await createNode(workspace, { title: unique('Display'), aliases: [unique('Look')], content: '## Appearance\n\n## Colours\n\nText ^intro' });
    const alias = target.aliases[0] as string;
    const source = await createNode(workspace, {
      title: unique('Reader'),
      content: `See [[${target.slug}#Appearance]], [[${alias}#Colours]] and [[${target.slug}#^intro]]; also [[Internal links]].`,
    });
    const stored = await getNode(workspace, source.id);
    expect(stored.outgoingLinks.map((l: { targetId: string; sections: string[] }) => [l.targetId, [...l.sections].sort()])).to.deep.equal([[target.id, ['Appearance', 'Colours', '^intro']]]);
    const sections = stored.outgoingLinks[0].sections as string[];

    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/nodes/${source.id}`);
    await page.getByRole('heading', { name: 'Links' }).waitFor();
    const outgoing = page.getByTestId('outgoing-links').locator('li');
    await outgoing.first().waitFor();
    expect(await outgoing.count()).to.equal(1);
    const shown = (await outgoing.first().innerText()).replace(/\s+/g, ' ');
    expect(shown).to.include(`${target.title} ${sections.map((s) => `§ ${s}`).join(', ')}`);
    expect(await outgoing.first().locator('.link-sections').textContent()).to.equal(sections.map((s) => `§ ${s}`).join(', '));
    expect(await page.getByTestId('unresolved-links').textContent()).to.include('[[Internal links]]');

    await page.getByTestId('outgoing-links').getByRole('link', { name: target.title }).click();
    await page.getByRole('heading', { name: `Edit ${target.title}` }).waitFor();
    const incoming = page.getByTestId('incoming-links').locator('li', { hasText: source.title });
    await incoming.waitFor();
    expect((await incoming.innerText()).replace(/\s+/g, ' ')).to.include(`${source.title} → ${sections.map((s) => `§ ${s}`).join(', ')}`);
  });

  it('has no serious or critical accessibility violation on the list and the editor with tags, aliases and sections', async () => {
    const target = await createNode(workspace, { title: unique('Axe target'), aliases: ['Axe alias'], tags: ['axe'], sourcePath: 'notes/Axe target.md', content: '## Part' });
    const source = await createNode(workspace, { title: unique('Axe source'), tags: ['axe'], content: `[[${target.slug}#Part]]` });
    await signIn(page, workspace.owner.key, `/w/${workspace.workspaceId}/nodes?tag=axe`);
    await until('the axe list', () => rowIds(page), (ids) => sameSet(ids, [target.id, source.id]));
    const found: string[] = [];
    const scan = async (where: string) => {
      for (const v of await seriousA11yViolations(page)) found.push(`${where}: ${v}`);
    };
    await scan('list');
    await editorAt(source.id);
    await page.getByTestId('outgoing-links').locator('.link-sections').waitFor();
    await scan('editor');
    await editorAt(target.id);
    expect(await page.getByLabel('Source file').inputValue()).to.equal('notes/Axe target.md');
    await scan('target editor');
    expect(found).to.deep.equal([]);
  });
});
