import { execFile } from 'node:child_process';
import { rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { addMember, createWorkspace, request } from '../support/api.js';
import { env } from '../support/harness.js';
import { importFolderInto, useVaults, writeVault } from '../support/vault.js';
import { getNode, graphEtag, listNodes, nodesBySlug, outgoingOf } from '../support/nodes.js';
import { parseMarkdownFile } from '../../src/shell/import-item.js';
import { maxFileBytes, scanVault } from '../../src/shell/vault.js';

const run = promisify(execFile);

const vault = {
  'brand-voice.md': [
    '---',
    'description: How we sound',
    'nodeType: brand',
    'importance: 90',
    'readFirst: true',
    'agentSummary: Warm, plain, short.',
    'requires: [glossary]',
    'relates-to:',
    '  - "[[guides-onboarding]]"',
    'tags: [ignored, by-import]',
    '---',
    '# Brand Voice',
    '',
    'We write like [[glossary|our glossary]] says; see [[guides-onboarding#first-week]].',
    '',
    '```md',
    '[[not-a-link-in-code]]',
    '```',
  ].join('\n'),
  'glossary.md': '# Glossary\n\nWords we use. Mentions [[nobody-yet]].\n',
  'guides/onboarding.md': '---\nslug: guides-onboarding\ntitle: Onboarding guide\nsupersedes: old-onboarding\n---\nThe first paragraph is the description.\n\n## First week\n\nBack to [[brand-voice]].\n',
  'old-onboarding.md': '# Old onboarding\n\nOutdated.\n',
};


describe('markdown folder import', function () {
  // Each test arranges a whole workspace (or spawns the CLI) through the API: slow on a loaded 2-core machine.
  this.timeout(120_000);
  const newVault = useVaults(() => env.service.url);

  it('maps front matter, first heading and path to node fields, and wikilinks and typed links to links', async () => {
    const workspace = await createWorkspace();
    const report = await importFolderInto(workspace, newVault(vault));
    expect(report.errors).to.deep.equal([]);
    expect(report.created.sort()).to.deep.equal(['brand-voice', 'glossary', 'guides-onboarding', 'old-onboarding']);
    expect(report.unresolved).to.deep.equal([{ path: 'glossary.md', links: ['nobody-yet'] }]);

    const stored = await nodesBySlug(workspace);
    expect(stored['brand-voice']).to.include({ title: 'Brand Voice', description: 'How we sound', nodeType: 'brand', importance: 90, readFirst: true, agentSummary: 'Warm, plain, short.' });
    expect(stored['brand-voice'].content).to.match(/^# Brand Voice\n/);
    expect(outgoingOf(stored['brand-voice'])).to.deep.equal(['references>glossary', 'references>guides-onboarding', 'relates-to>guides-onboarding', 'requires>glossary']);
    expect(stored['brand-voice'].unresolvedLinks).to.deep.equal([]);
    expect(stored.glossary).to.include({ title: 'Glossary', description: 'Words we use. Mentions [[nobody-yet]].', nodeType: 'reference', importance: 50 });
    expect(stored.glossary.unresolvedLinks).to.deep.equal(['nobody-yet']);
    expect(stored['guides-onboarding']).to.include({ title: 'Onboarding guide', description: 'The first paragraph is the description.' });
    expect(outgoingOf(stored['guides-onboarding'])).to.deep.equal(['references>brand-voice', 'supersedes>old-onboarding']);
  });

  it('importing the same folder again writes nothing and keeps the generation; a changed file updates its node', async () => {
    const workspace = await createWorkspace();
    const dir = newVault(vault);
    await importFolderInto(workspace, dir);
    const etag = await graphEtag(workspace);
    const before = await nodesBySlug(workspace);

    const again = await importFolderInto(workspace, dir);
    expect(again).to.include({ unchanged: 4 });
    expect(again.created).to.deep.equal([]);
    expect(again.updated).to.deep.equal([]);
    expect(await graphEtag(workspace)).to.equal(etag);
    expect(await nodesBySlug(workspace)).to.deep.equal(before);

    writeFileSync(path.join(dir, 'glossary.md'), '---\nimportance: 70\nrequires: brand-voice\n---\n# Glossary\n\nWords we use.\n');
    const changed = await importFolderInto(workspace, dir);
    expect(changed.updated).to.deep.equal(['glossary']);
    expect(changed.unchanged).to.equal(3);
    const glossary = (await nodesBySlug(workspace)).glossary;
    expect(glossary).to.include({ importance: 70, description: 'Words we use.' });
    expect(glossary.unresolvedLinks).to.deep.equal([]);
    expect(outgoingOf(glossary)).to.deep.equal(['requires>brand-voice']);
    expect(await graphEtag(workspace)).to.not.equal(etag);
  });

  it('--prune archives the nodes whose files are gone; --dry-run reports and writes nothing', async () => {
    const workspace = await createWorkspace();
    const dir = newVault(vault);
    await importFolderInto(workspace, dir);
    unlinkSync(path.join(dir, 'old-onboarding.md'));
    writeFileSync(path.join(dir, 'new-page.md'), '# New page\n\nLinks [[brand-voice]] and [[ghost]].\n');
    writeFileSync(path.join(dir, 'glossary.md'), '# Glossary\n\nChanged.\n');
    const etag = await graphEtag(workspace);

    const plan = await importFolderInto(workspace, dir, { dryRun: true, prune: true });
    expect(plan).to.include({ dryRun: true });
    expect(plan.created).to.deep.equal(['new-page']);
    expect(plan.updated).to.deep.equal(['glossary']);
    expect(plan.archived).to.deep.equal(['old-onboarding']);
    expect(plan.unresolved).to.deep.equal([{ path: 'new-page.md', links: ['ghost'] }]);
    expect(await graphEtag(workspace)).to.equal(etag);
    expect((await nodesBySlug(workspace))['old-onboarding'].status).to.equal('live');

    const done = await importFolderInto(workspace, dir, { prune: true });
    expect(done.archived).to.deep.equal(['old-onboarding']);
    const stored = await nodesBySlug(workspace);
    expect(stored['old-onboarding'].status).to.equal('archived');
    expect(stored['new-page'].status).to.equal('live');
    // The source still names the archived node in its front matter: the link stays (retrieval skips archived nodes).
    expect(outgoingOf(stored['guides-onboarding'])).to.deep.equal(['references>brand-voice', 'supersedes>old-onboarding']);
  });

  it('reports every kind of bad file with its path and reason and writes none of it; the rest goes on', async () => {
    const workspace = await createWorkspace();
    const dir = newVault({
      'good.md': '# Good\n\nFine.\n',
      'broken-yaml.md': '---\ntitle: [unclosed\n---\nBody\n',
      'unclosed.md': '---\ntitle: Never closed\nBody\n',
      'list-front-matter.md': '---\n- a\n- b\n---\nBody\n',
      'bad-type.md': '---\nnodeType: poem\n---\n# Bad type\n',
      'bad-importance.md': '---\nimportance: 500\n---\n# Too important\n',
      'long-title.md': `---\ntitle: ${'x'.repeat(201)}\n---\nBody\n`,
      'bad-slug.md': '---\nslug: Not A Slug\n---\nBody\n',
      'bad-link.md': '---\nrequires: [{not: a name}]\n---\nBody\n',
      'twin-a.md': '---\nslug: twin\n---\nA\n',
      'twin-b.md': '---\nslug: twin\n---\nB\n',
    });
    const report = await importFolderInto(workspace, dir);
    const reasons = Object.fromEntries(report.errors.map((e) => [e.path, e.reason]));
    expect(Object.keys(reasons).sort()).to.deep.equal([
      'bad-importance.md', 'bad-link.md', 'bad-slug.md', 'bad-type.md', 'broken-yaml.md', 'list-front-matter.md', 'long-title.md', 'twin-a.md', 'twin-b.md', 'unclosed.md',
    ]);
    expect(reasons['broken-yaml.md']).to.match(/^invalid front matter/);
    expect(reasons['unclosed.md']).to.match(/never closed/);
    expect(reasons['list-front-matter.md']).to.match(/not a mapping/);
    expect(reasons['bad-type.md']).to.match(/nodeType must be one of/);
    expect(reasons['bad-importance.md']).to.match(/importance must be <= 100/);
    expect(reasons['long-title.md']).to.match(/title must NOT have more than 200 characters/);
    expect(reasons['bad-slug.md']).to.match(/^slug must be a slug: lowercase letters and digits of any script/);
    expect(reasons['bad-link.md']).to.match(/links\[0\]\.target/);
    expect(reasons['twin-a.md']).to.match(/also the slug of twin-b\.md/);
    expect(report.created).to.deep.equal(['good']);
    expect(Object.keys(await nodesBySlug(workspace))).to.deep.equal(['good']);
  });

  it('--strict writes nothing at all when a file is bad', async () => {
    const workspace = await createWorkspace();
    const dir = newVault({ 'good.md': '# Good\n\nFine.\n', 'bad.md': '---\nimportance: high\n---\nBody\n' });
    const etag = await graphEtag(workspace);
    const report = await importFolderInto(workspace, dir, { strict: true });
    expect(report.aborted).to.equal(true);
    expect(report.errors.map((e) => e.path)).to.deep.equal(['bad.md']);
    expect((await listNodes(workspace, { status: 'all' })).nodes).to.deep.equal([]);
    expect(await graphEtag(workspace)).to.equal(etag);
  });

  it('--strict also stops on what only the service refuses (a file linking to itself)', async () => {
    const workspace = await createWorkspace();
    const dir = newVault({ 'good.md': '# Good\n', 'selfish.md': '---\nrequires: selfish\n---\n# Me\n' });
    const report = await importFolderInto(workspace, dir, { strict: true });
    expect(report.aborted).to.equal(true);
    expect(report.errors).to.deep.equal([{ path: 'selfish.md', reason: 'invalid_request: links to itself (self-links are not allowed)' }]);
    expect((await listNodes(workspace, { status: 'all' })).nodes).to.deep.equal([]);
  });

  it('resolves typed links to files of a later batch (late resolution across requests)', async () => {
    const workspace = await createWorkspace();
    // A cycle of typed links, so that one link must point forward whatever the order; files of about 300 KB, so that a
    // request holds three of them (900 KB) and the cycle of four spans two requests. Each also wikilinks to the next.
    const big = 'Filler text. '.repeat(23_000);
    const names = ['a', 'b', 'c', 'd'];
    const files: Record<string, string> = {};
    names.forEach((name, i) => {
      const next = names[(i + 1) % names.length];
      files[`${name}.md`] = `---\nrequires: ${next}\n---\n# ${name.toUpperCase()}\n\nSee [[${next}]].\n\n${big}\n`;
    });
    const report = await importFolderInto(workspace, newVault(files));
    expect(report.errors).to.deep.equal([]);
    expect(report.created.sort()).to.deep.equal(names);
    expect(report.unresolved).to.deep.equal([]);
    const nodes = await nodesBySlug(workspace);
    for (const [i, name] of names.entries()) {
      const next = names[(i + 1) % names.length];
      expect(outgoingOf(await getNode(workspace, nodes[name].id))).to.deep.equal([`references>${next}`, `requires>${next}`]);
    }
    // The file whose link pointed forward was sent once more, and updated then.
    const audit = (await request('GET', workspace.path('/audit-events?action=node.imported'), { token: workspace.owner.key })).body.events;
    expect(audit.map((e: any) => e.after.updated).sort()).to.deep.equal([0, 0, 1]);
  });

  it('sends each file after the files its typed links point to, so that a chain of links needs no second request', async () => {
    const workspace = await createWorkspace();
    // Over 1,000 files (two requests); the first file in path order requires the last one and wikilinks to it.
    const files: Record<string, string> = { 'a-first.md': '---\nrequires: [z-last]\n---\n# First\n\nSee [[z-last]].\n', 'z-last.md': '# Last\n' };
    for (let i = 0; i < 1000; i++) files[`m/${String(i).padStart(4, '0')}.md`] = `# Page ${i}\n`;
    const report = await importFolderInto(workspace, newVault(files));
    expect(report.errors).to.deep.equal([]);
    expect(report.created).to.have.length(1002);
    expect(report.unresolved).to.deep.equal([]);
    const first = (await listNodes(workspace, { q: 'First', limit: 5 })).nodes.find((n: any) => n.slug === 'a-first');
    expect(outgoingOf(await getNode(workspace, first.id))).to.deep.equal(['references>z-last', 'requires>z-last']);
    // Two requests that wrote, each creating nodes: nothing was sent a second time to add a link.
    const audit = (await request('GET', workspace.path('/audit-events?action=node.imported'), { token: workspace.owner.key })).body.events;
    expect(audit.map((e: any) => e.after.updated)).to.deep.equal([0, 0]);
  });

  it('the CLI command needs an editor key and prints its report', async () => {
    const workspace = await createWorkspace();
    const viewer = await addMember(workspace, 'viewer');
    const dir = newVault({ 'one.md': '# One\n\n[[two]]\n', 'two.md': '# Two\n' });
    const cli = (key: string, ...args: string[]) =>
      run('npx', ['tsx', 'src/cli.ts', 'import', dir, '--workspace', workspace.workspaceId, ...args], { env: { ...process.env, API_URL: env.service.url, API_KEY: key } });
    const refused = await cli(viewer.key).then(() => null, (err) => err);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/insufficient_role/);
    const { stdout } = await cli(workspace.owner.key);
    expect(JSON.parse(stdout)).to.include({ files: 2, unchanged: 0 });
    expect(JSON.parse(stdout).created.sort()).to.deep.equal(['one', 'two']);
  });
});

describe('scanVault', () => {
  it('refuses a file larger than one request may be by its size, without reading it, and reads the rest', () => {
    const dir = writeVault({ 'small.md': '# Small\n\nFits.', 'huge.md': '' });
    try {
      // A sparse file: reading it would take its whole size in memory; its size alone refuses it.
      truncateSync(path.join(dir, 'huge.md'), 50 * 1024 * 1024);
      const files = scanVault(dir);
      const huge = files.find((f) => f.path === 'huge.md')!;
      expect(huge.error).to.match(new RegExp(`at most ${maxFileBytes} bytes`));
      expect(files.find((f) => f.path === 'small.md')!.error).to.equal(undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('parseMarkdownFile', () => {
  it('takes the title from front matter, else a level-1 heading that opens the body, else the file name', () => {
    expect(parseMarkdownFile('a/b.md', '---\ntitle: From FM\n---\n# Heading\n').item).to.include({ title: 'From FM', slug: 'a-b' });
    expect(parseMarkdownFile('a/b.md', '# Heading *one*\n\nIntro\n').item).to.include({ title: 'Heading one', description: 'Intro' });
    expect(parseMarkdownFile('a/b.md', 'Intro\n\n# Heading *two*\n').item).to.include({ title: 'b', description: 'Intro' });
    expect(parseMarkdownFile('Notes/My Page.md', 'just text\n').item).to.include({ title: 'My Page', slug: 'notes-my-page' });
  });

  it('finds the opening block and the first paragraph however far down the body they are', () => {
    const code = `\`\`\`\n${'line\n\n'.repeat(200)}# not a heading\n\`\`\`\n\n`;
    expect(parseMarkdownFile('x.md', `${code}Not the title\n==========\n\nThe first paragraph.\n`).item).to.include({ title: 'x', description: 'The first paragraph.' });
    expect(parseMarkdownFile('x.md', `${'\n'.repeat(5000)}Real title\n==========\n\nThe first paragraph.\n`).item).to.include({ title: 'Real title', description: 'The first paragraph.' });
    const long = `# Top\n\n${'<!-- a comment\n\nstill a comment\n\n'.repeat(50)}-->\n\nAfter the comment.\n`;
    expect(parseMarkdownFile('x.md', long).item).to.include({ title: 'Top', description: 'After the comment.' });
  });

  it('reads a reference link of the first paragraph with its definition at the end of the file', () => {
    const text = `See [the guide][g] first.\n\n${'More text.\n\n'.repeat(100)}[g]: https://example.com/guide\n`;
    expect(parseMarkdownFile('x.md', text).item).to.include({ description: 'See the guide first.' });
  });

  it('reads link targets written as slugs, [[slug]], [[slug|label]] or slug#heading', () => {
    const file = parseMarkdownFile('x.md', '---\nreferences: ["[[a]]", "[[b|Bee]]", c#part]\nindex-entry: d\n---\n');
    expect(file.item!.links).to.deep.equal([
      { linkType: 'references', target: 'a' }, { linkType: 'references', target: 'b' }, { linkType: 'references', target: 'c' }, { linkType: 'index-entry', target: 'd' },
    ]);
  });
});
