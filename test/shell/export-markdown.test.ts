import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { parse as parseYaml } from 'yaml';
import { type TestWorkspace, createWorkspace } from '../support/api.js';
import { env } from '../support/harness.js';
import { archiveNode, createNode, link as linkNodes, linkPlaybook, nodesBySlug } from '../support/nodes.js';
import { createPlaybook } from '../support/playbooks.js';
import { importFolderInto, useVaults } from '../support/vault.js';
import { type MarkdownLink, type MarkdownNode, exportMarkdown, markdownFilesOf, writeMarkdownFolder } from '../../src/shell/export-markdown.js';
import type { FolderImportReport } from '../../src/shell/import-folder.js';
import { itemOf } from '../../src/shell/import-item.js';
import { scanMarkdownFile } from '../../src/shell/markdown-file.js';
import { linkTargetsToSlugs, markdownFiles } from '../../src/shell/vault.js';
import { obsidianResolver } from '../support/obsidian-resolver.js';

const run = promisify(execFile);

/** A live node of a hand-made export, its id made from its slug. */
const node = (fields: Partial<MarkdownNode> & { slug: string }): MarkdownNode => ({
  id: `cn_${fields.slug}`,
  title: `Title of ${fields.slug}`,
  description: `About ${fields.slug}`,
  content: '',
  nodeType: 'reference',
  agentSummary: null,
  importance: 50,
  readFirst: false,
  edgeCaseOnly: false,
  status: 'live',
  ...fields,
});

const link = (source: string, target: string, linkType: MarkdownLink['linkType'], origin: MarkdownLink['origin'] = 'manual', sourceType: MarkdownLink['sourceType'] = 'context_node'): MarkdownLink =>
  ({ sourceType, sourceId: sourceType === 'playbook' ? `pb_${source}` : `cn_${source}`, targetId: `cn_${target}`, linkType, origin });

/** The front matter of a written file, parsed on its own (the reader's view is checked apart, through vault.ts). */
function frontMatterOf(text: string): Record<string, unknown> {
  const m = /^---\n([\s\S]*?)^---\n/m.exec(text);
  if (!m) throw new Error(`no front matter in ${JSON.stringify(text.slice(0, 100))}`);
  return parseYaml(m[1]);
}

const fileOf = (files: { path: string; slug: string; text: string; insteadOf?: string }[], slug: string) => {
  const f = files.find((x) => x.slug === slug);
  if (!f) throw new Error(`no file for ${slug}`);
  return f;
};

describe('markdown files of an export', () => {
  it('writes slug, title, description, nodeType and importance always, and the other fields when they are not their default', () => {
    const files = markdownFilesOf({
      nodes: [
        node({ slug: 'full', title: 'Full', description: 'Every field', nodeType: 'brand', importance: 90, agentSummary: 'Short.', readFirst: true, edgeCaseOnly: true, aliases: ['Fully', 'All'], tags: ['style', 'core'], sourcePath: 'notes/Full.md' }),
        node({ slug: 'plain', title: 'Plain', description: 'Defaults', aliases: [], tags: [], sourcePath: null }),
      ],
      links: [],
    });
    expect(files.map((f) => f.path)).to.deep.equal(['notes/Full.md', 'Plain.md']);
    const full = frontMatterOf(fileOf(files, 'full').text);
    expect(full).to.deep.equal({
      slug: 'full', title: 'Full', description: 'Every field', aliases: ['Fully', 'All'], tags: ['style', 'core'],
      nodeType: 'brand', importance: 90, agentSummary: 'Short.', readFirst: true, edgeCaseOnly: true,
    });
    expect(Object.keys(full)).to.deep.equal(['slug', 'title', 'description', 'aliases', 'tags', 'nodeType', 'importance', 'agentSummary', 'readFirst', 'edgeCaseOnly']);
    expect(frontMatterOf(fileOf(files, 'plain').text)).to.deep.equal({ slug: 'plain', title: 'Plain', description: 'Defaults', nodeType: 'reference', importance: 50 });
  });

  it('reads an export made before nodes had aliases, tags and a source path', () => {
    const [file] = markdownFilesOf({ nodes: [node({ slug: 'old', content: 'Body.\n' })], links: [] });
    expect(file.path).to.equal('Title of old.md');
    expect(frontMatterOf(file.text)).to.deep.equal({ slug: 'old', title: 'Title of old', description: 'About old', nodeType: 'reference', importance: 50 });
  });

  it('is read back by the folder import as the same fields', () => {
    const n = node({ slug: 'round', title: 'Round trip', description: 'There and back', nodeType: 'process', importance: 0, agentSummary: 'S', readFirst: true, content: '# Round trip\n\nText.\n' });
    const files = markdownFilesOf({ nodes: [n, node({ slug: 'other' })], links: [link('round', 'other', 'requires')] });
    // The typed link names the other file as Obsidian does; the folder import finds its slug by that name.
    expect(frontMatterOf(files[0].text).requires).to.deep.equal(['[[Title of other]]']);
    const [scanned] = linkTargetsToSlugs(files.map((f) => scanMarkdownFile(f.path, f.text)));
    const read = itemOf(scanned as Parameters<typeof itemOf>[0]);
    expect(read.error).to.equal(undefined);
    expect(read.item).to.include({ slug: 'round', title: 'Round trip', description: 'There and back', content: n.content, nodeType: 'process', importance: 0, agentSummary: 'S', readFirst: true });
    expect(read.item!.links).to.deep.equal([{ linkType: 'requires', target: 'other' }]);
  });

  it('writes manual links between nodes grouped by type, once each, and leaves out wikilinks and playbooks’ links', () => {
    const files = markdownFilesOf({
      nodes: [node({ slug: 'a' }), node({ slug: 'b' }), node({ slug: 'c' }), node({ slug: 'd' }), node({ slug: 'old', status: 'archived' })],
      links: [
        link('a', 'b', 'requires'),
        link('a', 'c', 'relates-to'),
        link('a', 'c', 'requires'),
        link('a', 'b', 'requires'),
        link('a', 'd', 'references', 'wikilink'),
        link('a', 'd', 'index-entry'),
        link('a', 'old', 'supersedes'),
        link('a', 'nowhere', 'relates-to'),
        link('plan', 'a', 'requires', 'manual', 'playbook'),
        link('old', 'a', 'references'),
        link('b', 'c', 'references', 'wikilink'),
      ],
    });
    const a = frontMatterOf(fileOf(files, 'a').text);
    expect(a).to.deep.include({ requires: ['[[Title of b]]', '[[Title of c]]'], 'relates-to': ['[[Title of c]]'], 'index-entry': ['[[Title of d]]'], supersedes: ['old'] });
    expect(a).not.to.have.property('references');
    expect(Object.keys(a).slice(-4)).to.deep.equal(['requires', 'relates-to', 'supersedes', 'index-entry']);
    for (const slug of ['b', 'c', 'd']) expect(Object.keys(frontMatterOf(fileOf(files, slug).text)), slug).to.deep.equal(['slug', 'title', 'description', 'nodeType', 'importance']);
  });

  it('keeps a link to an archived node, unless its slug is a name of a file of the folder, which the import would take it for', () => {
    const files = markdownFilesOf({
      nodes: [
        node({ slug: 'a' }),
        node({ slug: 'old', status: 'archived' }),
        node({ slug: 'older', status: 'archived' }),
        node({ slug: 'archive-old', title: 'Old', sourcePath: 'archive/old.md' }),
      ],
      links: [link('a', 'old', 'supersedes'), link('a', 'older', 'supersedes'), link('a', 'archive-old', 'references')],
    });
    // `[[old]]` would be the archived node's slug once imported back: the link names the file by its path.
    expect(frontMatterOf(fileOf(files, 'a').text)).to.deep.include({ supersedes: ['older'], references: ['[[archive/old]]'] });
  });

  it('leaves archived nodes out', () => {
    const files = markdownFilesOf({ nodes: [node({ slug: 'kept' }), node({ slug: 'gone', status: 'archived', sourcePath: 'gone.md' })], links: [] });
    expect(files.map((f) => f.slug)).to.deep.equal(['kept']);
  });

  it('gives two nodes one path never: the later is numbered, a node’s own path first, ignoring case and Unicode form', () => {
    const files = markdownFilesOf({
      nodes: [
        node({ slug: 'plan', sourcePath: null }),
        node({ slug: 'first', sourcePath: 'notes/Plan.md' }),
        node({ slug: 'second', sourcePath: 'notes/plan.md' }),
        node({ slug: 'third', sourcePath: 'notes/Plan 2.md' }),
        node({ slug: 'fourth', sourcePath: 'Plan.md' }),
        node({ slug: 'cafe', sourcePath: 'Café.md' }),
        node({ slug: 'cafe-nfd', sourcePath: 'Café.md'.normalize('NFD') }),
        node({ slug: 'folder', sourcePath: 'notes/Plan.md/inner.md' }),
      ],
      links: [],
    });
    const bySlug = Object.fromEntries(files.map((f) => [f.slug, { path: f.path, insteadOf: f.insteadOf }]));
    expect(bySlug).to.deep.equal({
      plan: { path: 'Title of plan.md', insteadOf: undefined },
      first: { path: 'notes/Plan.md', insteadOf: undefined },
      second: { path: 'notes/plan 3.md', insteadOf: 'notes/plan.md' },
      third: { path: 'notes/Plan 2.md', insteadOf: undefined },
      fourth: { path: 'Plan.md', insteadOf: undefined },
      cafe: { path: 'Café.md', insteadOf: undefined },
      'cafe-nfd': { path: 'Café 2.md', insteadOf: 'Café.md'.normalize('NFD') },
      // A folder that is another node's file is renamed; the file keeps its name, and its node its path.
      folder: { path: 'notes/Plan.md 2/inner.md', insteadOf: 'notes/Plan.md/inner.md' },
    });
    expect(frontMatterOf(fileOf(files, 'folder').text)).to.include({ sourcePath: 'notes/Plan.md/inner.md' });
    expect(frontMatterOf(fileOf(files, 'second').text)).not.to.have.property('sourcePath');
    const keys = files.map((f) => f.path.normalize('NFC').toLowerCase());
    expect(new Set(keys).size).to.equal(files.length);
  });

  it('makes paths safe: nothing outside the folder, no absolute paths, no names a file system refuses in a slug’s name', () => {
    const long = '日'.repeat(200);
    const files = markdownFilesOf({
      nodes: [
        node({ slug: 'up', sourcePath: '../../etc/passwd.md' }),
        node({ slug: 'abs', sourcePath: '/abs/x.md' }),
        node({ slug: 'back', sourcePath: 'a\\..\\..\\b.md' }),
        node({ slug: 'dots', sourcePath: './.hidden/./.note.md' }),
        node({ slug: 'ext', sourcePath: 'no-extension' }),
        node({ slug: 'ctl', sourcePath: 'tab\there.md' }),
        node({ slug: 'nothing', sourcePath: '../..' }),
        node({ slug: 'con', title: 'con' }),
        node({ slug: 'lpt1', title: 'LPT1' }),
        node({ slug: 'bad', title: 'bad:name?*<>|"\\/x#^[]' }),
        node({ slug: '...', title: '...' }),
        node({ slug: long, title: long }),
      ],
      links: [],
    });
    const bySlug = Object.fromEntries(files.map((f) => [f.slug, f.path]));
    expect(bySlug).to.deep.include({
      up: 'etc/passwd.md',
      abs: 'abs/x.md',
      back: 'a/b.md',
      dots: 'hidden/note.md',
      ext: 'no-extension.md',
      ctl: 'tab-here.md',
      nothing: 'Title of nothing.md',
      con: 'con_.md',
      lpt1: 'LPT1_.md',
      bad: 'bad-name--------x----.md',
      '...': 'node.md',
    });
    expect(Buffer.byteLength(bySlug[long])).to.be.at.most(255);
    expect(bySlug[long]).to.match(/^日+\.md$/);
    for (const f of files) {
      expect(f.path, f.path).not.to.match(/^\/|(^|\/)\.\.?(\/|$)|\\/);
      expect(path.posix.normalize(f.path)).to.equal(f.path);
    }
  });

  it('writes an imported node’s content byte for byte after the front matter, whatever it holds', () => {
    const contents = [
      '',
      'No newline at the end',
      '\n\nStarts with blank lines\n',
      'Windows\r\nline ends\r\n',
      '\r\nStarts with CRLF',
      '---\ntitle: looks like front matter\n---\nbody\n',
      '...\n---\n',
      '\uFEFFa byte order mark, then [[wikilinks|as written]], [[Some Name#Heading]], ![[embed]]\n',
      '  indented first line\n\ttab\n',
      '日本語 · Ελληνικά · العربية · emoji 🚀\n',
      `${'x'.repeat(10_000)}\n`,
    ];
    const files = markdownFilesOf({ nodes: contents.map((content, i) => node({ slug: `c${i}`, content, sourcePath: `c${i}.md` })), links: [] });
    files.forEach((f, i) => {
      expect(f.text.endsWith(contents[i]), `content ${i}`).to.equal(true);
      const read = scanMarkdownFile(f.path, f.text);
      expect(read.error, `content ${i}`).to.equal(undefined);
      expect(Buffer.from(read.meta ? read.body : '').equals(Buffer.from(contents[i])), `content ${i} read back`).to.equal(true);
    });
  });

  it('ends the file of a node made through the API with a line break, and keeps an imported node’s content as it is', () => {
    const files = markdownFilesOf({
      nodes: [
        node({ slug: 'api', content: 'No newline at the end' }),
        node({ slug: 'api-crlf', content: 'Windows\r\nline ends' }),
        node({ slug: 'api-empty', content: '' }),
        node({ slug: 'imported', content: 'Kept without one', sourcePath: 'imported.md' }),
      ],
      links: [],
    });
    expect(fileOf(files, 'api').text.endsWith('---\nNo newline at the end\n')).to.equal(true);
    expect(fileOf(files, 'api-crlf').text.endsWith('---\nWindows\r\nline ends\r\n')).to.equal(true);
    expect(fileOf(files, 'api-empty').text.endsWith('importance: 50\n---\n')).to.equal(true);
    expect(fileOf(files, 'imported').text.endsWith('---\nKept without one')).to.equal(true);
  });

  it('writes typed links as wikilinks naming the file written for the target, which the folder import reads back as the link', () => {
    const files = markdownFilesOf({
      nodes: [
        node({ slug: 'handbook', sourcePath: 'Handbook.md' }),
        node({ slug: 'privacy-policy', title: 'Privacy Policy', sourcePath: 'legal/Privacy Policy.md' }),
        node({ slug: 'refund-policy', title: 'Refund Policy' }),
        node({ slug: 'plan', title: 'Quarterly plan' }),
        node({ slug: 'other-plan', title: 'Plan', sourcePath: 'plan.md' }),
      ],
      links: [link('handbook', 'privacy-policy', 'requires'), link('handbook', 'refund-policy', 'requires'), link('handbook', 'plan', 'references'), link('handbook', 'other-plan', 'relates-to')],
    });
    const meta = frontMatterOf(fileOf(files, 'handbook').text);
    expect(meta).to.deep.include({ requires: ['[[Privacy Policy]]', '[[Refund Policy]]'], references: ['[[Quarterly plan]]'] });
    // `[[plan]]` names the node whose slug is plan in the workspace: the file plan.md is named another way.
    expect(meta['relates-to']).to.deep.equal(['other-plan']);
    const resolve = obsidianResolver(files.map((f) => f.path));
    expect(['Privacy Policy', 'Refund Policy', 'Quarterly plan'].map(resolve)).to.deep.equal(['legal/Privacy Policy.md', 'Refund Policy.md', 'Quarterly plan.md']);
    const scanned = linkTargetsToSlugs(files.map((f) => scanMarkdownFile(f.path, f.text)));
    const handbook = scanned.find((f) => f.slug === 'handbook')!;
    expect(handbook.meta ? handbook.links : undefined).to.deep.equal([
      { linkType: 'requires', target: 'privacy-policy' },
      { linkType: 'requires', target: 'refund-policy' },
      { linkType: 'references', target: 'plan' },
      { linkType: 'relates-to', target: 'other-plan' },
    ]);
  });

  it('names a node made through the API after its title, and rewrites a wikilink Obsidian would read otherwise to name the target’s file, its text kept as the label', () => {
    const files = markdownFilesOf({
      nodes: [
        node({ slug: 'refund-policy', title: 'Refund Policy', aliases: ['Refunds'], sourcePath: 'policies/Refund Policy.md', content: 'Ask [[Escalations]] first.\n' }),
        node({
          slug: 'escalation-path', title: 'Escalations',
          content: 'See [[refund-policy]], [[Refunds|the refund rules]], [[refund-policy#Scope]] and ![[refund-policy]].\n\n| rule | where |\n|---|---|\n| refunds | [[refund-policy]] |\n\n`[[refund-policy]]` in code, and [[Nobody]].',
        }),
      ],
      links: [],
    });
    expect(files.map((f) => f.path)).to.deep.equal(['policies/Refund Policy.md', 'Escalations.md']);
    expect(fileOf(files, 'refund-policy').text.endsWith('---\nAsk [[Escalations]] first.\n')).to.equal(true);
    expect(fileOf(files, 'escalation-path').text.split('---\n')[2]).to.equal(
      'See [[Refund Policy|refund-policy]], [[Refund Policy|the refund rules]], [[Refund Policy#Scope|refund-policy#Scope]] and ![[Refund Policy]].\n\n' +
      '| rule | where |\n|---|---|\n| refunds | [[Refund Policy\\|refund-policy]] |\n\n`[[refund-policy]]` in code, and [[Nobody]].\n',
    );
  });

  it('shortens a name longer than a file system takes, and the links that name it follow', () => {
    const long = `${'x'.repeat(297)}.md`;
    const files = markdownFilesOf({
      nodes: [node({ slug: 'long', sourcePath: `deep/${long}` }), node({ slug: 'linker', sourcePath: 'linker.md', content: `[[${long.slice(0, -3)}]]\n` })],
      links: [],
    });
    const written = fileOf(files, 'long').path;
    expect(written).to.match(/^deep\/x+\.md$/);
    expect(Buffer.byteLength(written.split('/')[1])).to.be.at.most(255);
    expect(fileOf(files, 'long').insteadOf).to.equal(`deep/${long}`);
    expect(fileOf(files, 'linker').text.endsWith(`---\n[[${written.slice(5, -3)}|${long.slice(0, -3)}]]\n`)).to.equal(true);
  });

  it('writes values YAML would read otherwise, and values that would end the front matter early, so that they read back as they are', () => {
    const awkward = ['---', '...', 'yes', '2024', 'null', 'a: b', '[[glossary]]', '#tag', ' leading space', 'tab\there', 'x\u2028---', 'y\u2029...', "it's \"quoted\"", 'é'.normalize('NFD')];
    const files = markdownFilesOf({
      nodes: awkward.map((title, i) => node({ slug: `v${i}`, title, description: `line one\n---\n...\nline ${i}`, aliases: [title], tags: [title], agentSummary: title, content: 'Body.\n' })),
      links: [],
    });
    files.forEach((f, i) => {
      const read = scanMarkdownFile(f.path, f.text);
      expect(read.error, JSON.stringify(awkward[i])).to.equal(undefined);
      expect(read.meta, JSON.stringify(awkward[i])).to.deep.include({ title: awkward[i], description: `line one\n---\n...\nline ${i}`, aliases: [awkward[i]], tags: [awkward[i]], agentSummary: awkward[i] });
      expect(read.meta ? read.body : undefined).to.equal('Body.\n');
    });
  });
});

describe('markdown out through the service', function () {
  // A workspace imported, exported and imported again through the API: slow on a loaded 2-core machine.
  this.timeout(600_000);
  const newVault = useVaults(() => env.service.url);
  const outDirs: string[] = [];
  const newOutDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'md-out-'));
    outDirs.push(dir);
    return path.join(dir, 'vault');
  };
  after(() => {
    for (const dir of outDirs) rmSync(dir, { recursive: true, force: true });
  });

  const vault: Record<string, string> = {
    'Brand Voice.md': [
      '---',
      'aliases: [Voice, House style]',
      'tags: [style, core]',
      'nodeType: brand',
      'importance: 90',
      'readFirst: true',
      'requires: [glossary]',
      '---',
      '# Brand Voice',
      '',
      'We write like [[Glossary|our glossary]] says; new people start at [[First Week#Day one]].',
      '',
    ].join('\n'),
    'Glossary.md': '# Glossary\n\nWords we use. See [[Voice]] and [[guides/First Week]].\n',
    'guides/First Week.md': '---\ntitle: The first week\ntags: [onboarding]\nsupersedes: old-onboarding\n---\nWhat happens in the first week.\n\n## Day one\n\nBack to [[Brand Voice]].\n',
    'old-onboarding.md': '# Old onboarding\n\nOutdated.\n',
    'Ünïcode/日本語のノート.md': 'テキスト。[[glossary]] を参照。\n',
    'crlf.md': 'Line one.\r\nLine two [[old-onboarding]].\r\n',
    'template.md': '---\ntitle: Template\n---\n---\nlooks: like front matter\n---\nBody.\n',
    'plan.md': '---\nslug: quarterly-plan\nagentSummary: The plan for the quarter.\nedgeCaseOnly: true\n---\n# Plan\n\nSee [[nobody-has-this-name]].\n',
  };

  let source: TestWorkspace;
  let copy: TestWorkspace;
  let exported: Awaited<ReturnType<typeof exportMarkdown>>;
  let copyImport: FolderImportReport;
  let sourceNodes: Record<string, any>;
  let copyNodes: Record<string, any>;

  before(async () => {
    source = await createWorkspace();
    const first = await importFolderInto(source, newVault(vault));
    if (first.errors.length) throw new Error(`vault import: ${JSON.stringify(first.errors)}`);
    const stored = await nodesBySlug(source);
    // Nodes made through the API have no file of their own: `con` is a device name on Windows, `plan` the name of another node's file.
    const api = await createNode(source, { slug: 'con', title: 'Made through the API', description: 'No file of its own', content: 'Points at [[glossary]].\n', nodeType: 'process', importance: 7, agentSummary: 'API node' });
    const plan = await createNode(source, { slug: 'plan', title: 'Plan', description: 'Same name as a file' });
    await linkNodes(source, api.id, stored['brand-voice'].id, 'requires');
    await linkNodes(source, api.id, stored['old-onboarding'].id, 'relates-to');
    await linkNodes(source, plan.id, api.id, 'index-entry');
    // A node given its path, aliases and tags through the API, so that they are in the export whatever the folder import does.
    await createNode(source, { slug: 'from-api', title: 'From the API', description: 'With a path', sourcePath: 'api/From API.md', aliases: ['Api alias'], tags: ['api'], content: 'Made by hand.\n' });
    const gone = await createNode(source, { slug: 'gone', title: 'Gone', description: 'Archived' });
    await archiveNode(source, gone.id);
    // A playbook's link has no file to stand in: it is left out, and nothing else suffers for it.
    const playbook = await createPlaybook(source, source.owner.key);
    await linkPlaybook(source, playbook.id, stored.glossary.id, 'requires');

    const out = newOutDir();
    exported = await exportMarkdown({ workspaceId: source.workspaceId, key: source.owner.key, outDir: out });
    copy = await createWorkspace();
    copyImport = await importFolderInto(copy, exported.dir);
    const live = (nodes: Record<string, any>) => Object.fromEntries(Object.entries(nodes).filter(([, n]) => n.status === 'live'));
    sourceNodes = live(await nodesBySlug(source));
    copyNodes = live(await nodesBySlug(copy));
  });

  const linksOf = (n: { outgoingLinks: { origin: string; linkType: string; slug: string }[] }) => n.outgoingLinks.map((l) => `${l.origin} ${l.linkType}>${l.slug}`).sort();

  it('writes one file per live node, at the path it was imported from, else under its title, numbered when another file has that name', () => {
    expect(exported.files).to.equal(11);
    expect(exported.skippedArchived).to.equal(1);
    expect(markdownFiles(exported.dir)).to.deep.equal([
      'Brand Voice.md', 'Glossary.md', 'crlf.md', 'guides/First Week.md', 'old-onboarding.md', 'Plan 2.md', 'plan.md', 'template.md', 'Made through the API.md', 'Ünïcode/日本語のノート.md', 'api/From API.md',
    ].sort());
    expect(exported.renamed).to.deep.equal([]);
    expect(readdirSync(path.dirname(exported.dir))).to.deep.equal(['vault']);
    expect(readFileSync(path.join(exported.dir, 'crlf.md'), 'utf8').endsWith(vault['crlf.md'])).to.equal(true);
  });

  it('writes a node at the path the export gives it, with its aliases and tags in front matter', () => {
    const text = readFileSync(path.join(exported.dir, 'api', 'From API.md'), 'utf8');
    expect(frontMatterOf(text)).to.deep.equal({ slug: 'from-api', title: 'From the API', description: 'With a path', aliases: ['Api alias'], tags: ['api'], nodeType: 'reference', importance: 50 });
    expect(text.endsWith('---\nMade by hand.\n')).to.equal(true);
  });

  it('imports into an empty workspace with nothing refused or unresolved that was not unresolved before', () => {
    expect(copyImport.errors).to.deep.equal([]);
    expect(copyImport.renamed).to.deep.equal([]);
    expect(copyImport.created.sort()).to.deep.equal(Object.keys(sourceNodes).sort());
    const unresolvedIn = (nodes: Record<string, any>) => [...new Set(Object.values(nodes).flatMap((n) => n.unresolvedLinks as string[]))].sort();
    expect(copyImport.unresolved.flatMap((u) => u.links).sort()).to.deep.equal(unresolvedIn(sourceNodes));
    expect(unresolvedIn(copyNodes)).to.deep.equal(unresolvedIn(sourceNodes));
  });

  it('gives the same slugs, titles, descriptions, contents, fields and links, manual and wikilink', () => {
    expect(Object.keys(copyNodes).sort()).to.deep.equal(Object.keys(sourceNodes).sort());
    // The one wikilink Obsidian would not read as the workspace does (by an alias) names the file, the alias its label.
    expect(copyNodes.glossary.content).to.equal('# Glossary\n\nWords we use. See [[Brand Voice|Voice]] and [[guides/First Week]].\n');
    for (const [slug, was] of Object.entries(sourceNodes)) {
      const now = copyNodes[slug];
      for (const field of ['title', 'description', ...(slug === 'glossary' ? [] : ['content']), 'nodeType', 'importance', 'agentSummary', 'readFirst', 'edgeCaseOnly']) {
        expect(now[field], `${slug}.${field}`).to.deep.equal(was[field]);
      }
      expect(linksOf(now), `${slug} links`).to.deep.equal(linksOf(was));
      expect(now.unresolvedLinks, `${slug} unresolved`).to.deep.equal(was.unresolvedLinks);
    }
    expect(linksOf(sourceNodes.con)).to.deep.equal(['manual relates-to>old-onboarding', 'manual requires>brand-voice', 'wikilink references>glossary']);
    expect(linksOf(sourceNodes['brand-voice'])).to.include('manual requires>glossary');
  });

  it('keeps aliases, tags and each imported node’s path', () => {
    for (const [slug, was] of Object.entries(sourceNodes)) {
      const now = copyNodes[slug];
      expect(now.aliases, `${slug}.aliases`).to.deep.equal(was.aliases);
      expect(now.tags, `${slug}.tags`).to.deep.equal(was.tags);
      if (was.sourcePath !== null) expect(now.sourcePath, `${slug}.sourcePath`).to.equal(was.sourcePath);
    }
    expect(sourceNodes['brand-voice'].aliases).to.deep.equal(['Voice', 'House style']);
    expect(sourceNodes['guides-first-week'].tags).to.deep.equal(['onboarding']);
    expect(copyNodes.con.sourcePath).to.equal('Made through the API.md');
    // Wikilinks by alias, file name and path resolve in both workspaces alike.
    for (const nodes of [sourceNodes, copyNodes]) {
      expect(Object.values(nodes).flatMap((n) => n.unresolvedLinks)).to.deep.equal(['nobody-has-this-name']);
      expect(linksOf(nodes.glossary)).to.deep.equal(['wikilink references>brand-voice', 'wikilink references>guides-first-week']);
    }
  });

  it('refuses a folder that is not empty, and writes nothing into it', async () => {
    const out = newOutDir();
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, 'mine.md'), 'Mine.\n');
    const refused = await exportMarkdown({ workspaceId: source.workspaceId, key: source.owner.key, outDir: out }).then(() => null, (err: Error) => err);
    expect(refused?.message).to.match(/is not empty/);
    expect(markdownFiles(out)).to.deep.equal(['mine.md']);
  });

  it('the CLI writes markdown with --format markdown --out DIR, and asks for --out', async () => {
    const cli = (...args: string[]) => run('npx', ['tsx', 'src/cli.ts', 'export', '--workspace', source.workspaceId, ...args], { env: { ...process.env, API_URL: env.service.url, API_KEY: source.owner.key } });
    const out = newOutDir();
    const { stdout } = await cli('--format', 'markdown', '--out', out);
    expect(JSON.parse(stdout)).to.deep.include({ dir: out, files: 11, skippedArchived: 1 });
    expect(markdownFiles(out)).to.deep.equal(markdownFiles(exported.dir));
    const noOut = await cli('--format', 'markdown').then(() => null, (err: { stderr: string }) => err);
    expect(noOut?.stderr).to.match(/--out DIR/);
    const badFormat = await cli('--format', 'xml').then(() => null, (err: { stderr: string }) => err);
    expect(badFormat?.stderr).to.match(/--format is json or markdown/);
  });

  // Last: it changes the source workspace.
  it('imported again into the workspace it came from, creates nothing and changes no node that came from a file but the one whose link names a file now', async () => {
    const report = await importFolderInto(source, exported.dir);
    expect(report.errors).to.deep.equal([]);
    expect(report.created).to.deep.equal([]);
    // Nodes made through the API get the path of their new file; the glossary's link by alias names its file now.
    expect(report.updated.filter((slug) => sourceNodes[slug].sourcePath !== null)).to.deep.equal(['glossary']);
    const stored = await nodesBySlug(source);
    for (const [slug, was] of Object.entries(sourceNodes)) if (was.sourcePath !== null) expect(stored[slug].sourcePath, slug).to.equal(was.sourcePath);
    const again = await nodesBySlug(source);
    for (const [slug, was] of Object.entries(sourceNodes)) expect(linksOf(again[slug]), `${slug} links`).to.deep.equal(linksOf(was));
  });
});
