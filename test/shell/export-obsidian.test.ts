import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { type TestWorkspace, createWorkspace, problem, request } from '../support/api.js';
import { env } from '../support/harness.js';
import { archiveNode, createNode, link as linkNodes, nodesBySlug, outgoingOf } from '../support/nodes.js';
import { resolveObsidianFolder } from '../support/obsidian-resolver.js';
import { targetOf } from '../support/obsidian-links.js';
import { importFolderInto, useVaults } from '../support/vault.js';
import { exportMarkdown, writeMarkdownFolder } from '../../src/shell/export-markdown.js';

/**
 * The markdown export as Obsidian reads it: every link of the folder written, resolved with Obsidian's rules
 * (test/support/obsidian-resolver.ts), names the node the workspace links to; the folder is written whole or not at
 * all; and what it renames keeps links and paths where they were.
 */

const sorted = (values: Iterable<string>) => [...new Set(values)].sort();
const key = (name: string) => name.trim().normalize('NFC').toLowerCase();

/**
 * For each note of the exported folder, what Obsidian resolves its body's wikilinks and front-matter links to,
 * beside what the workspace links its node to (live targets; a node's links to itself left out on both sides).
 */
async function obsidianAndWorkspace(dir: string, workspace: TestWorkspace) {
  const folder = resolveObsidianFolder(dir);
  const slugOf = new Map(folder.notes.map((n) => [n.path, n.meta.slug as string]));
  const nodes = await nodesBySlug(workspace);
  const live = (slug: string) => nodes[slug]?.status === 'live';
  return folder.notes.map((note) => {
    const slug = note.meta.slug as string;
    const node = nodes[slug];
    const own = folder.links.filter((l) => l.source === note.path);
    const body = own.filter((l) => l.in === 'body');
    const typed = own.filter((l) => l.in !== 'body');
    return {
      slug,
      obsidian: {
        wikilinks: sorted(body.filter((l) => l.target).map((l) => slugOf.get(l.target!)!).filter((t) => t !== slug)),
        unresolved: sorted(body.filter((l) => !l.target).map((l) => key((targetOf(l.written) as { name: string }).name))),
        typed: sorted(typed.map((l) => `${l.in}>${l.target ? slugOf.get(l.target) : `unresolved ${l.written}`}`)),
      },
      workspace: {
        wikilinks: sorted((node.outgoingLinks as any[]).filter((l) => l.origin === 'wikilink' && live(l.slug)).map((l) => l.slug)),
        unresolved: sorted((node.unresolvedLinks as string[]).map(key)),
        typed: sorted((node.outgoingLinks as any[]).filter((l) => l.origin === 'manual' && live(l.slug)).map((l) => `${l.linkType}>${l.slug}`)),
      },
      bare: folder.bareFrontMatterLinks.filter((b) => b.source === note.path),
    };
  });
}

/** Asserts that every link of the folder resolves in Obsidian to what the workspace links to, and that no typed link is bare text. */
async function expectResolvesAsWorkspace(dir: string, workspace: TestWorkspace): Promise<void> {
  for (const note of await obsidianAndWorkspace(dir, workspace)) {
    expect(note.obsidian, note.slug).to.deep.equal(note.workspace);
    expect(note.bare, `${note.slug}: typed links Obsidian reads as text`).to.deep.equal([]);
  }
}

describe('the markdown export as Obsidian reads it', function () {
  // Workspaces imported, exported and imported again through the API: slow on a loaded 2-core machine.
  this.timeout(600_000);
  const newVault = useVaults(() => env.service.url);
  const outDirs: string[] = [];
  const newOutDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'md-obsidian-'));
    outDirs.push(dir);
    return path.join(dir, 'vault');
  };
  after(() => {
    for (const dir of outDirs) rmSync(dir, { recursive: true, force: true });
  });

  it('resolves every link of the folder as the workspace does: notes made through the API, links by slug, alias and title, typed links', async () => {
    const source = await createWorkspace();
    const imported = await importFolderInto(source, newVault({
      'policies/Refund Policy.md': '---\nslug: refund-policy\naliases: [Refunds]\n---\n# Refund Policy\n\nAsk [[Escalations]] first.\n',
      'legal/Privacy Policy.md': '---\nslug: privacy-policy\n---\n# Privacy Policy\n\n## Cookies\n\nNone.\n',
      'Handbook.md': '# Handbook\n\n| topic | note |\n|---|---|\n| refunds | [[refund-policy]] |\n\nAlso [[Refunds|the rules]], [[privacy-policy#Cookies]] and [[Nobody yet]].\n',
      'plan.md': '---\nslug: other-plan\n---\n# Other plan\n\nNot this one: [[plan]].\n',
    }));
    expect(imported.errors).to.deep.equal([]);
    const stored = await nodesBySlug(source);
    const escalations = await createNode(source, { slug: 'escalation-path', title: 'Escalations', description: 'Who answers', content: 'Read [[refund-policy]] and [[Privacy Policy]] before you answer' });
    await createNode(source, { slug: 'plan', title: 'Quarterly plan', description: 'Made through the API', content: 'Owned by [[Escalations]].' });
    await linkNodes(source, escalations.id, stored['privacy-policy'].id, 'requires');
    await linkNodes(source, stored.handbook.id, escalations.id, 'references');

    const out = newOutDir();
    const exported = await exportMarkdown({ workspaceId: source.workspaceId, key: source.owner.key, outDir: out });
    expect(exported.files).to.equal(6);
    // A note made through the API is named as Obsidian names notes, by its title.
    expect(existsSync(path.join(out, 'Escalations.md'))).to.equal(true);
    expect(existsSync(path.join(out, 'Quarterly plan.md'))).to.equal(true);
    await expectResolvesAsWorkspace(out, source);
    const escalationsFile = readFileSync(path.join(out, 'Escalations.md'), 'utf8');
    expect(escalationsFile).to.include('requires:\n  - "[[Privacy Policy]]"\n');
    expect(escalationsFile.endsWith('before you answer\n')).to.equal(true);

    // The folder imported elsewhere gives the same links.
    const copy = await createWorkspace();
    const again = await importFolderInto(copy, out);
    expect(again.errors).to.deep.equal([]);
    const [was, now] = [await nodesBySlug(source), await nodesBySlug(copy)];
    expect(Object.keys(now).sort()).to.deep.equal(Object.keys(was).sort());
    for (const slug of Object.keys(was)) {
      expect(outgoingOf(now[slug]), slug).to.deep.equal(outgoingOf(was[slug]));
      expect(now[slug].unresolvedLinks, slug).to.deep.equal(was[slug].unresolvedLinks);
    }
  });

  it('gives no two live nodes one source path, and keeps links and paths where they were through an export renaming a folder', async () => {
    const source = await createWorkspace();
    const create = (body: Record<string, unknown>) => request('POST', source.path('/context-nodes'), { token: source.owner.key, body: { description: 'A note', ...body } });
    await createNode(source, { slug: 'plan-lower', title: 'plan', sourcePath: 'notes/plan.md' });
    const cafe = await createNode(source, { slug: 'cafe', title: 'café', sourcePath: 'café.md' });
    await createNode(source, { slug: 'a-file', title: 'a', sourcePath: 'a.md' });
    const b = await createNode(source, { slug: 'b-inside', title: 'b', sourcePath: 'a.md/b.md' });

    // The same path in another case, or in another Unicode form, is the same file.
    const upper = problem(await create({ slug: 'plan-upper', title: 'Plan', sourcePath: 'Notes/Plan.md' }), 409, 'conflict');
    expect(upper.errors).to.deep.equal([{ path: '/sourcePath', message: "is the source path of the live node 'plan-lower'", in: 'body' }]);
    problem(await create({ slug: 'cafe-nfd', title: 'Café', sourcePath: 'café.md'.normalize('NFD') }), 409, 'conflict');
    problem(await request('PATCH', source.path(`/context-nodes/${cafe.id}`), { token: source.owner.key, body: { sourcePath: 'NOTES/plan.md' } }), 409, 'conflict');
    const batch = await request('POST', source.path('/context-nodes/import'), {
      token: source.owner.key,
      body: { nodes: [{ slug: 'plan-batch', title: 'Plan', description: 'x', sourcePath: 'NOTES/PLAN.md' }, { slug: 'one', title: 'One', description: 'x', sourcePath: 'twice.md' }, { slug: 'two', title: 'Two', description: 'x', sourcePath: 'Twice.md' }] },
    });
    expect(batch.status).to.equal(200);
    expect(batch.body.nodes.map((n: any) => [n.slug, n.outcome, n.error?.code ?? null])).to.deep.equal([['plan-batch', 'error', 'conflict'], ['one', 'created', null], ['two', 'error', 'conflict']]);
    // An archived node holds no path; made live again while another has it, it is refused.
    const first = await createNode(source, { slug: 'z-first', title: 'z', sourcePath: 'other/z.md' });
    await archiveNode(source, first.id);
    const second = await createNode(source, { slug: 'z-second', title: 'Z', sourcePath: 'Other/Z.md' });
    problem(await request('POST', source.path(`/context-nodes/${first.id}/restore`), { token: source.owner.key }), 409, 'conflict');
    await archiveNode(source, second.id);
    expect((await request('POST', source.path(`/context-nodes/${first.id}/restore`), { token: source.owner.key })).status).to.equal(200);

    const linker = await createNode(source, { slug: 'linker', title: 'Linker', sourcePath: 'linker.md', content: '[[plan]] [[café]] [[b]] [[a.md/b]]\n' });
    expect(outgoingOf(linker)).to.deep.equal(['references>b-inside', 'references>cafe', 'references>plan-lower']);

    const out = newOutDir();
    const exported = await exportMarkdown({ workspaceId: source.workspaceId, key: source.owner.key, outDir: out });
    // `a.md` is a file: the folder of `a.md/b.md` is renamed, and the file keeps its name.
    expect(exported.renamed).to.deep.equal([{ slug: 'b-inside', path: 'a.md 2/b.md', insteadOf: 'a.md/b.md' }]);
    await expectResolvesAsWorkspace(out, source);

    const copy = await createWorkspace();
    const into = await importFolderInto(copy, out);
    expect(into.errors).to.deep.equal([]);
    const copied = await nodesBySlug(copy);
    expect(outgoingOf(copied.linker)).to.deep.equal(['references>b-inside', 'references>cafe', 'references>plan-lower']);
    expect(copied['b-inside'].sourcePath).to.equal('a.md/b.md');

    // Back into the workspace it came from: nothing created, every path as it was.
    const back = await importFolderInto(source, out);
    expect(back.errors).to.deep.equal([]);
    expect(back.created).to.deep.equal([]);
    const after = await nodesBySlug(source);
    expect(after['b-inside'].sourcePath).to.equal('a.md/b.md');
    expect(after['b-inside'].id).to.equal(b.id);
    for (const slug of ['plan-lower', 'cafe', 'a-file', 'linker', 'one']) expect(after[slug].sourcePath, slug).to.not.equal(null);
    expect(outgoingOf(after.linker)).to.deep.equal(['references>b-inside', 'references>cafe', 'references>plan-lower']);
  });

  it('writes a node whose path is longer than a file name may be, and every other file with it', async () => {
    const source = await createWorkspace();
    const long = `${'x'.repeat(297)}.md`;
    for (let i = 0; i < 12; i++) await createNode(source, { slug: `n${i}`, title: `Note ${i}`, sourcePath: `n/${i}.md` });
    await createNode(source, { slug: 'long', title: 'Long', sourcePath: long });
    await createNode(source, { slug: 'linker', title: 'Linker', sourcePath: 'linker.md', content: `[[${long.slice(0, -3)}]]\n` });
    const out = newOutDir();
    const exported = await exportMarkdown({ workspaceId: source.workspaceId, key: source.owner.key, outDir: out });
    expect(exported.files).to.equal(14);
    const written = exported.renamed.find((r) => r.slug === 'long')!.path;
    expect(Buffer.byteLength(written)).to.be.at.most(255);
    await expectResolvesAsWorkspace(out, source);
  });

  it('leaves no folder behind when writing fails, so that the export can be run again', () => {
    const parent = mkdtempSync(path.join(os.tmpdir(), 'md-obsidian-'));
    outDirs.push(parent);
    const dir = path.join(parent, 'vault');
    // A file where an earlier file's folder is: the second write fails after the first succeeded.
    const failing = () => writeMarkdownFolder(dir, [{ path: 'a/b.md', text: 'one\n' }, { path: 'a', text: 'two\n' }]);
    expect(failing).to.throw();
    expect(readdirSync(parent)).to.deep.equal([]);
    // A name no file system takes is refused before anything is written.
    expect(() => writeMarkdownFolder(dir, [{ path: 'ok.md', text: '\n' }, { path: `${'y'.repeat(300)}.md`, text: '\n' }])).to.throw(/longer than 255 bytes/);
    expect(readdirSync(parent)).to.deep.equal([]);
    // An empty folder is taken; one that is not is refused and left as it was.
    mkdirSync(dir);
    writeMarkdownFolder(dir, [{ path: 'a/b.md', text: 'one\n' }]);
    expect(readFileSync(path.join(dir, 'a', 'b.md'), 'utf8')).to.equal('one\n');
    expect(() => writeMarkdownFolder(dir, [{ path: 'c.md', text: '\n' }])).to.throw(/is not empty/);
    expect(readdirSync(parent)).to.deep.equal(['vault']);
  });
});
