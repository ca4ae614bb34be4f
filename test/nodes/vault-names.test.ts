import { expect } from 'chai';
import { type TestWorkspace, createWorkspace, problem, request, unique } from '../support/api.js';
import { env } from '../support/harness.js';
import { importFolderInto, useVaults } from '../support/vault.js';
import { graphEtag, nodesBySlug, outgoingOf } from '../support/nodes.js';
import { callOk, mcpClient } from '../support/mcp.js';
import { createPlaybook } from '../support/playbooks.js';
import { slugPattern, slugProblem, slugify } from '../../src/api/slug.js';
import { parseWikilinks } from '../../src/nodes/wikilinks.js';
import { parseMarkdownFile } from '../../src/shell/import-item.js';

const nfd = (text: string) => text.normalize('NFD');

describe('slugify in any script', () => {
  it('lowercases, folds Latin accents to ASCII and joins words with single hyphens', () => {
    expect(slugify('Quarterly Launch Plan!')).to.equal('quarterly-launch-plan');
    expect(slugify('Crème Brûlée')).to.equal('creme-brulee');
    expect(slugify(nfd('Crème Brûlée'))).to.equal('creme-brulee');
    expect(slugify('Łódź, Smørrebrød')).to.equal('lodz-smorrebrod');
    expect(slugify('***')).to.equal('');
  });

  it('keeps the letters, digits and combining marks of other scripts as they are, in NFC', () => {
    const cases: [string, string][] = [
      ['日本語のノート', '日本語のノート'],
      ['设置 2024', '设置-2024'],
      ['الإعدادات العامة', 'الإعدادات-العامة'],
      ['Настройки Ёлки', 'настройки-ёлки'],
      ['Ρυθμίσεις', 'ρυθμίσεις'],
      [nfd('Ρυθμίσεις'), 'ρυθμίσεις'],
      ['การตั้งค่า', 'การตั้งค่า'],
      ['सेटिंग्स (नई)', 'सेटिंग्स-नई'],
      ['한국어 노트', '한국어-노트'],
    ];
    for (const [title, slug] of cases) {
      const got = slugify(title);
      expect(got, title).to.equal(slug);
      expect(slugPattern.test(got), `${got} is a slug`).to.equal(true);
      expect(got.normalize('NFC'), `${got} is NFC`).to.equal(got);
    }
  });

  it('the slug rule takes lowercase letters and digits of any script and refuses the rest', () => {
    for (const slug of ['日本語のノート', 'ρυθμίσεις', 'การตั้งค่า', 'quarterly-launch-plan', 'x-2']) expect(slugPattern.test(slug), slug).to.equal(true);
    for (const slug of ['Settings', 'ΡΥΘΜΊΣΕΙΣ', 'a--b', '-a', 'a-', 'a_b', 'a b', '', '\u0301a']) expect(slugPattern.test(slug), slug).to.equal(false);
    expect(slugProblem('crème')).to.equal(undefined);
    expect(slugProblem(nfd('crème'))).to.match(/NFC/);
  });

  it('a wikilink name is compared after NFC and lowercasing, in any script', () => {
    expect(parseWikilinks('[[日本語のノート]], [[Ρυθμίσεις|the settings]], [[Настройки#Общие]], [[الإعدادات]] and [[Two Words]]').map((l) => l.key))
      .to.deep.equal(['日本語のノート', 'ρυθμίσεις', 'настройки', 'الإعدادات', 'two words']);
    expect(parseWikilinks(`[[${nfd('ρυθμίσεις')}]]`).map((l) => l.key)).to.deep.equal(['ρυθμίσεις']);
  });
});

describe('a markdown file as people write it', () => {
  it('takes the title from front matter, else a level-1 heading that opens the note, else the file name as written', () => {
    expect(parseMarkdownFile('a/b.md', '---\ntitle: From FM\n---\n# Heading\n').item).to.include({ title: 'From FM' });
    expect(parseMarkdownFile('a/b.md', '# Opening\n\nText.\n').item).to.include({ title: 'Opening', description: 'Text.' });
    expect(parseMarkdownFile('a/b.md', 'Opening\n=======\n\nText.\n').item).to.include({ title: 'Opening' });
    expect(parseMarkdownFile('Guides/Quick Start.md', 'Intro.\n\n# Settings\n\nMore.\n').item).to.include({ title: 'Quick Start', description: 'Intro.' });
    expect(parseMarkdownFile('Guides/Quick Start.md', '## Settings\n\nMore.\n').item).to.include({ title: 'Quick Start', slug: 'guides-quick-start' });
    expect(parseMarkdownFile('日本語/日本語のノート.md', 'テキスト。\n').item).to.include({ title: '日本語のノート', slug: '日本語-日本語のノート' });
    expect(parseMarkdownFile(nfd('Café Crème.md'), 'x\n').item).to.include({ title: 'Café Crème', slug: 'cafe-creme' });
  });

  it('counts keys left empty as absent and ignores keys it does not know', () => {
    const text = [
      '---',
      'title:',
      "description: ''",
      'nodeType: null',
      'importance: ~',
      'agentSummary: "  "',
      'readFirst:',
      'requires: []',
      'references:',
      'slug:',
      'aliases: [Réglages]',
      'tags: [a, b]',
      'cssclasses: wide',
      'publish: true',
      'created: 2024-01-01',
      'author: { name: Ann }',
      '---',
      '# Réglages',
      '',
      'What can be set.',
    ].join('\n');
    const file = parseMarkdownFile('fr/Réglages.md', text);
    expect(file.error).to.equal(undefined);
    expect(file.item).to.deep.equal({
      slug: 'fr-reglages', title: 'Réglages', description: 'What can be set.', content: '# Réglages\n\nWhat can be set.', links: [],
      sourcePath: 'fr/Réglages.md', aliases: ['Réglages'], tags: ['a', 'b'],
    });
  });

  it('refuses a known key with a value of the wrong type, saying which and what it got', () => {
    expect(parseMarkdownFile('x.md', '---\ntitle: 2024\n---\n').error).to.equal('title must be string, not a number (2024)');
    expect(parseMarkdownFile('x.md', '---\nimportance: [1]\n---\n').error).to.equal('importance must be integer, not a list');
    expect(parseMarkdownFile('x.md', '---\nslug: 7\n---\n').error).to.equal('slug must be string, not a number (7)');
    expect(parseMarkdownFile('x.md', '---\nslug: Settings\n---\n').error).to.match(/^slug must be a slug: lowercase letters and digits of any script/);
    expect(parseMarkdownFile('x.md', `---\nslug: ${nfd('crème')}\n---\n`).error).to.match(/^slug must be in Unicode normalization form C \(NFC\)/);
  });
});

describe('vault names and titles', function () {
  this.timeout(120_000);
  const newVault = useVaults(() => env.service.url);

  it('imports notes named in any script under distinct readable slugs, and a wikilink between two of them becomes a link', async () => {
    const workspace = await createWorkspace();
    const files: Record<string, string> = {
      'الإعدادات.md': 'إعدادات التطبيق.\n',
      '日本語のノート.md': '# 日本語のノート\n\n[[设置]] を参照。\n',
      '设置.md': '应用程序设置。\n',
      'Настройки.md': 'Настройки приложения. См. [[Ρυθμίσεις]].\n',
      'Ρυθμίσεις.md': 'Ρυθμίσεις εφαρμογής.\n',
      'การตั้งค่า.md': 'การตั้งค่าแอป\n',
      'सेटिंग्स.md': 'ऐप सेटिंग्स।\n',
    };
    const report = await importFolderInto(workspace, newVault(files));
    const slugs = ['الإعدادات', '日本語のノート', '设置', 'настройки', 'ρυθμίσεις', 'การตั้งค่า', 'सेटिंग्स'];
    expect(report.errors).to.deep.equal([]);
    expect(report.renamed).to.deep.equal([]);
    expect(report.unresolved).to.deep.equal([]);
    expect(report.created.sort()).to.deep.equal([...slugs].sort());

    const stored = await nodesBySlug(workspace);
    expect(Object.keys(stored).sort()).to.deep.equal([...slugs].sort());
    expect(stored['การตั้งค่า'].title).to.equal('การตั้งค่า');
    expect(stored['सेटिंग्स'].title).to.equal('सेटिंग्स');
    expect(stored['настройки'].title).to.equal('Настройки');
    expect(outgoingOf(stored['日本語のノート'])).to.deep.equal(['references>设置']);
    expect(outgoingOf(stored['настройки'])).to.deep.equal(['references>ρυθμίσεις']);

    const client = await mcpClient(workspace);
    try {
      expect(await callOk(client, 'get_node', { node: '日本語のノート' })).to.include({ id: stored['日本語のノート'].id, title: '日本語のノート' });
    } finally {
      await client.close();
    }
  });

  it('numbers the later of files whose slugs collide, reports them, and never refuses one for it', async () => {
    const workspace = await createWorkspace();
    const dir = newVault({
      'SETTINGS!.md': '# Loud settings\n',
      'Settings.md': '# Settings\n',
      // Not `settings.md`: beside `Settings.md` it would be the same file, which two live nodes never share.
      'settings_.md': '# settings\n',
      'settings-2.md': '# Settings two\n',
      'a/b c.md': 'One.\n',
      'a-b/c.md': 'Two.\n',
      'guide.md': '# Guide\n',
      'x.md': '---\nslug: guide\n---\n# Explicit guide\n',
      'twin-1.md': '---\nslug: twin\n---\nOne.\n',
      'twin-2.md': '---\nslug: twin\n---\nTwo.\n',
    });
    const report = await importFolderInto(workspace, dir);
    expect(report.renamed).to.deep.equal([
      { path: 'Settings.md', slug: 'settings-3', insteadOf: 'settings', keptBy: 'SETTINGS!.md' },
      { path: 'a/b c.md', slug: 'a-b-c-2', insteadOf: 'a-b-c', keptBy: 'a-b/c.md' },
      { path: 'guide.md', slug: 'guide-2', insteadOf: 'guide', keptBy: 'x.md' },
      { path: 'settings_.md', slug: 'settings-4', insteadOf: 'settings', keptBy: 'SETTINGS!.md' },
    ]);
    // Two explicit slugs that collide are refused, as an explicit slug that is taken is by the API.
    expect(report.errors.map((e) => e.path)).to.deep.equal(['twin-1.md', 'twin-2.md']);
    expect(report.errors[0].reason).to.match(/also the slug of twin-2\.md/);
    const stored = await nodesBySlug(workspace);
    expect(Object.fromEntries(Object.entries(stored).map(([slug, node]) => [slug, node.title]))).to.deep.equal({
      settings: 'Loud settings', 'settings-2': 'Settings two', 'settings-3': 'Settings', 'settings-4': 'settings',
      'a-b-c': 'c', 'a-b-c-2': 'b c', guide: 'Explicit guide', 'guide-2': 'Guide',
    });

    // The same folder again: the same slugs, and nothing written.
    const etag = await graphEtag(workspace);
    const again = await importFolderInto(workspace, dir);
    expect(again).to.include({ unchanged: 8 });
    expect(again.created).to.deep.equal([]);
    expect(again.updated).to.deep.equal([]);
    expect(again.renamed).to.deep.equal(report.renamed);
    expect(await graphEtag(workspace)).to.equal(etag);
  });

  it('takes titles from an opening level-1 heading only, reads empty front-matter values as absent, and writes nothing the second time', async () => {
    const workspace = await createWorkspace();
    const dir = newVault({
      'opening.md': '# The opening title\n\nFirst paragraph.\n',
      'later.md': 'An introduction.\n\n# Settings\n\nDetails.\n',
      'none.md': 'Only text.\n',
      'Empty Values.md': '---\ntitle:\ndescription:\nnodeType: null\nimportance: \'\'\nrequires: []\ntags:\nunknown-key: [1, 2]\n---\n# From the heading\n\nBody text.\n',
    });
    const report = await importFolderInto(workspace, dir);
    expect(report.errors).to.deep.equal([]);
    expect(report.created.sort()).to.deep.equal(['empty-values', 'later', 'none', 'opening']);
    const stored = await nodesBySlug(workspace);
    expect(stored.opening).to.include({ title: 'The opening title', description: 'First paragraph.' });
    expect(stored.later).to.include({ title: 'later', description: 'An introduction.' });
    expect(stored.none).to.include({ title: 'none', description: 'Only text.' });
    expect(stored['empty-values']).to.include({ title: 'From the heading', description: 'Body text.', nodeType: 'reference', importance: 50 });

    const etag = await graphEtag(workspace);
    const again = await importFolderInto(workspace, dir);
    expect(again).to.include({ unchanged: 4 });
    expect(again.created).to.deep.equal([]);
    expect(again.updated).to.deep.equal([]);
    expect(await graphEtag(workspace)).to.equal(etag);
  });
});

describe('slugs in any script through the API', () => {
  let workspace: TestWorkspace;
  before(async () => {
    workspace = await createWorkspace();
  });
  const postNode = (body: Record<string, unknown>) => request('POST', workspace.path('/context-nodes'), { token: workspace.owner.key, body: { description: 'd', ...body } });

  it('a node created with an explicit Unicode slug keeps it and is found by it, and a wikilink to a generated one resolves', async () => {
    const slug = `日本語のノート-${unique('n').slice(2)}`;
    const created = await postNode({ title: 'ノート', slug, content: 'See [[Ρυθμίσεις-api]].' });
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ slug });
    expect(created.body.unresolvedLinks).to.deep.equal(['Ρυθμίσεις-api']);
    const client = await mcpClient(workspace);
    try {
      expect(await callOk(client, 'get_node', { node: slug })).to.include({ id: created.body.id, slug });
    } finally {
      await client.close();
    }

    // The node that wikilink waits for, with a slug generated from its Greek title.
    const target = await postNode({ title: 'Ρυθμίσεις API' });
    expect(target.body.slug).to.equal('ρυθμίσεις-api');
    const after = await request('GET', workspace.path(`/context-nodes/${created.body.id}`), { token: workspace.owner.key });
    expect(outgoingOf(after.body)).to.deep.equal(['references>ρυθμίσεις-api']);
  });

  it('refuses an explicit slug that is not lowercase or not NFC with a 400 on /slug, and writes nothing', async () => {
    const upper = problem(await postNode({ title: 'Upper', slug: 'Settings' }), 400, 'invalid_request');
    expect(upper.errors!.map((e) => e.path)).to.deep.equal(['/slug']);
    problem(await postNode({ title: 'Upper Greek', slug: 'ΡΥΘΜΊΣΕΙΣ' }), 400, 'invalid_request');
    const decomposed = problem(await postNode({ title: 'Crème', slug: nfd('crème') }), 400, 'invalid_request');
    expect(decomposed.errors).to.deep.equal([{ path: '/slug', message: "must be in Unicode normalization form C (NFC): 'crème'", in: 'body' }]);
    expect(decomposed.detail).to.match(/^Field 'slug' must be in Unicode normalization form C/);
    const node = (await postNode({ title: 'Patch me' })).body;
    problem(await request('PATCH', workspace.path(`/context-nodes/${node.id}`), { token: workspace.owner.key, body: { slug: nfd('ρυθμίσεις') } }), 400, 'invalid_request');
    const patched = await request('GET', workspace.path(`/context-nodes/${node.id}`), { token: workspace.owner.key });
    expect(patched.body.slug).to.equal('patch-me');
  });

  it('playbooks take Unicode slugs too, explicit or generated, and refuse a non-NFC one', async () => {
    const explicit = await createPlaybook(workspace, workspace.owner.key, { slug: 'إطلاق-المنتج' });
    expect(explicit.slug).to.equal('إطلاق-المنتج');
    expect((await createPlaybook(workspace, workspace.owner.key, { title: 'Запуск продукта' })).slug).to.equal('запуск-продукта');
    const refused = await request('POST', workspace.path('/playbooks'), {
      token: workspace.owner.key, body: { title: 'x', slug: nfd('lancé'), version: { content: { instructions: 'x' } } },
    });
    expect(problem(refused, 400, 'invalid_request').errors![0].path).to.equal('/slug');
  });
});
