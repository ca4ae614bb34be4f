import { expect } from 'chai';
import { type TestWorkspace, addMember, createWorkspace, problem, request } from '../support/api.js';
import { env } from '../support/harness.js';
import { callError, callOk, mcpClient } from '../support/mcp.js';
import { sharedGraph } from '../support/neo4j.js';
import { createNode, getNode, updateNode } from '../support/nodes.js';
import { importFolderInto, useVaults } from '../support/vault.js';

/** The titles a node links to through its wikilinks, sorted. */
async function targetsOf(ws: TestWorkspace, nodeId: string): Promise<string[]> {
  const detail = await getNode(ws, nodeId);
  return detail.outgoingLinks.filter((l: any) => l.origin === 'wikilink').map((l: any) => l.title).sort();
}

describe('wikilinks name nodes as Obsidian names notes', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace();
  });

  it('[[Name]] finds a node by its title, ignoring case and Unicode normalisation', async () => {
    await createNode(ws, { title: 'Brand Voice' });
    await createNode(ws, { title: 'Ρυθμίσεις' });
    const source = await createNode(ws, { content: `[[brand voice]] and [[${'ΡΥΘΜΊΣΕΙΣ'.normalize('NFD')}|settings]]` });
    expect(await targetsOf(ws, source.id)).to.deep.equal(['Brand Voice', 'Ρυθμίσεις']);
    expect(source.unresolvedLinks).to.deep.equal([]);
  });

  it('[[alias]] finds a node by one of its aliases', async () => {
    await createNode(ws, { title: 'Command palette', aliases: ['Commands', 'palette'] });
    const source = await createNode(ws, { content: 'Open [[commands]].' });
    expect(await targetsOf(ws, source.id)).to.deep.equal(['Command palette']);
  });

  it('a slug match comes before a name, and a name before an alias', async () => {
    await createNode(ws, { title: 'By alias', aliases: ['settings'] });
    await createNode(ws, { title: 'Settings', slug: 'settings-page' });
    await createNode(ws, { title: 'By slug', slug: 'settings' });
    const bySlug = await createNode(ws, { content: '[[Settings]]' });
    expect(await targetsOf(ws, bySlug.id)).to.deep.equal(['By slug']);

    await createNode(ws, { title: 'Palette', aliases: ['Tools'] });
    await createNode(ws, { title: 'Tools', slug: 'tools-note' });
    const byName = await createNode(ws, { content: '[[tools]]' });
    expect(await targetsOf(ws, byName.id)).to.deep.equal(['Tools']);
  });

  it('among notes of one name, the one with the shortest path wins, whatever the order of creation', async () => {
    await createNode(ws, { title: 'Deep', sourcePath: 'a/b/Settings.md' });
    await createNode(ws, { title: 'Shallow', sourcePath: 'x/Settings.md' });
    const source = await createNode(ws, { content: '[[Settings]]' });
    expect(await targetsOf(ws, source.id)).to.deep.equal(['Shallow']);
    await createNode(ws, { title: 'Root', sourcePath: 'Settings.md' });
    expect(await targetsOf(ws, source.id)).to.deep.equal(['Root']);
  });

  it('an imported note is named by its file before another note’s title, as Obsidian links to the file', async () => {
    await createNode(ws, { title: 'Lint', slug: 'tools-workspace-lint', sourcePath: 'tools/workspace-lint.md' });
    await createNode(ws, { title: 'The lint command', slug: 'tools-cli-lint', sourcePath: 'tools/cli/deeper/lint.md' });
    const source = await createNode(ws, { content: '[[lint]]' });
    expect(await targetsOf(ws, source.id)).to.deep.equal(['The lint command']);
  });

  it('[[folder/Name]] and [[Name.md]] find a node by its path or a tail of it', async () => {
    await createNode(ws, { title: 'Guide one', sourcePath: 'guides/First Week.md' });
    await createNode(ws, { title: 'Other one', sourcePath: 'other/First Week.md' });
    const source = await createNode(ws, { content: '[[other/first week]] and [[guides/First Week.md]]' });
    expect(await targetsOf(ws, source.id)).to.deep.equal(['Guide one', 'Other one']);
  });

  it('[[Name#Heading]] and [[Name#^block]] link to the note and keep the sections; [[#Heading]] is no link', async () => {
    await createNode(ws, { title: 'Style' });
    const source = await createNode(ws, { content: '[[Style#Tone]], [[style#^b12]] and [[#Local heading]]' });
    const [wikilink] = source.outgoingLinks;
    expect(wikilink).to.include({ title: 'Style', origin: 'wikilink' });
    expect(wikilink.sections).to.deep.equal(['Tone', '^b12']);
    expect(source.unresolvedLinks).to.deep.equal([]);
  });

  it('![[embeds]] link like links, escaped table pipes separate the label, attachments are no links', async () => {
    await createNode(ws, { title: 'Embedded' });
    await createNode(ws, { title: 'In table' });
    const source = await createNode(ws, {
      content: '![[Embedded]]\n\n| a | b |\n|---|---|\n| [[In table\\|label]] | ![[diagram.png]] [[spec.pdf]] [[Board.canvas]] |\n',
    });
    expect(await targetsOf(ws, source.id)).to.deep.equal(['Embedded', 'In table']);
    expect(source.unresolvedLinks).to.deep.equal([]);
  });

  it('an unresolved link keeps its text as written, and resolves when a node takes the name later, whatever the form', async () => {
    const source = await createNode(ws, { content: '[[Later Title]], [[later alias]], [[deep/Later File]], [[Renamed Later]]' });
    expect(source.unresolvedLinks).to.deep.equal(['Later Title', 'Renamed Later', 'deep/Later File', 'later alias']);
    await createNode(ws, { title: 'Later title' });
    await createNode(ws, { title: 'Aliased', aliases: ['Later Alias'] });
    await createNode(ws, { title: 'Filed', sourcePath: 'notes/deep/later file.md' });
    const renamed = await createNode(ws, { title: 'Not yet' });
    expect(await targetsOf(ws, source.id)).to.deep.equal(['Aliased', 'Filed', 'Later title']);
    await updateNode(ws, renamed.id, { title: 'Renamed later' });
    expect(await targetsOf(ws, source.id)).to.deep.equal(['Aliased', 'Filed', 'Later title', 'Renamed later']);
    expect((await getNode(ws, source.id)).unresolvedLinks).to.deep.equal([]);
  });

  it('a link follows its name: an alias removed or a title changed sends it to the next node of that name, or back to waiting', async () => {
    const first = await createNode(ws, { title: 'Alpha', slug: 'first', aliases: ['Shared'] });
    await createNode(ws, { title: 'Beta', aliases: ['Shared'], sourcePath: 'zz/deeper/Beta.md' });
    const source = await createNode(ws, { content: '[[shared]] [[Alpha]]' });
    expect(await targetsOf(ws, source.id)).to.deep.equal(['Alpha']);
    await updateNode(ws, first.id, { aliases: [] });
    expect(await targetsOf(ws, source.id)).to.deep.equal(['Alpha', 'Beta']);
    await updateNode(ws, first.id, { title: 'Gamma' });
    const after = await getNode(ws, source.id);
    expect(after.outgoingLinks.map((l: any) => l.title)).to.deep.equal(['Beta']);
    expect(after.unresolvedLinks).to.deep.equal(['Alpha']);
  });

  it('nodes written before wikilinks named nodes get their names and wikilinks from the start-up backfill', async () => {
    await createNode(ws, { title: 'Old target' });
    const source = await createNode(ws, { content: '[[old target]] and [[Nobody]]' });
    // What such a workspace looks like: no names, no wikilink records, no link for a name that is not a slug.
    const session = sharedGraph().driver.session();
    try {
      await session.run(
        `MATCH (n:ContextNode {workspaceId: $ws})-[r:NAMED|WIKILINK_TO]->() DELETE r
         WITH DISTINCT n MATCH (n)-[l:REFERENCES {origin: 'wikilink'}]->() DELETE l`,
        { ws: ws.workspaceId },
      );
    } finally {
      await session.close();
    }
    expect(await targetsOf(ws, source.id)).to.deep.equal([]);
    expect(await env.service.services.nodes.backfillNames()).to.be.at.least(2);
    expect(await targetsOf(ws, source.id)).to.deep.equal(['Old target']);
    expect((await getNode(ws, source.id)).unresolvedLinks).to.deep.equal(['Nobody']);
  });

  it('an agent asks MCP for a node by any name a wikilink would use for it', async () => {
    const node = await createNode(ws, { title: 'Internal links', aliases: ['Wikilinks'], sourcePath: 'Linking/Internal links.md' });
    const client = await mcpClient(ws);
    try {
      for (const name of [node.id, node.slug, 'internal links', 'Linking/Internal links', '[[Wikilinks]]', 'Internal links#Headings']) {
        expect(await callOk(client, 'get_node', { node: name }), name).to.include({ id: node.id, title: 'Internal links' });
      }
      expect(await callOk(client, 'follow_links', { node: 'wikilinks' })).to.have.nested.property('node.id', node.id);
    } finally {
      await client.close();
    }
  });

  it('an editor’s agent sets a node’s aliases and tags through MCP, and links waiting for the alias resolve; a viewer may not', async () => {
    const node = await createNode(ws, { title: 'Command palette' });
    const source = await createNode(ws, { content: 'Press [[cmd-k]].' });
    const client = await mcpClient(ws);
    try {
      const named = await callOk(client, 'set_node_names', { node: 'command palette', aliases: ['cmd-k'], tags: ['#ui'] });
      expect(named).to.include({ id: node.id });
      expect(named.aliases).to.deep.equal(['cmd-k']);
      expect(named.tags).to.deep.equal(['ui']);
    } finally {
      await client.close();
    }
    expect(await targetsOf(ws, source.id)).to.deep.equal(['Command palette']);
    const viewer = await mcpClient(ws, (await addMember(ws, 'viewer')).key);
    try {
      expect((await callError(viewer, 'set_node_names', { node: node.id, aliases: [] })).code).to.equal('insufficient_role');
      expect((await callError(viewer, 'set_node_names', { node: node.id })).code).to.equal('invalid_request');
    } finally {
      await viewer.close();
    }
    expect((await getNode(ws, node.id)).aliases).to.deep.equal(['cmd-k']);
  });

  it('a node whose own name its content uses does not link to itself', async () => {
    const node = await createNode(ws, { title: 'Self', content: 'I am [[self]].' });
    expect(node.outgoingLinks).to.deep.equal([]);
    expect(node.unresolvedLinks).to.deep.equal([]);
  });
});

describe('aliases, tags and source paths of context nodes', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace();
  });

  it('keeps aliases and tags trimmed, in NFC, without duplicates ignoring case, and a tag without its #', async () => {
    const node = await createNode(ws, { aliases: [' CFO ', 'cfo', 'Finance lead'], tags: ['#Launch', 'launch', 'q3/plan'], sourcePath: 'people/CFO.md' });
    expect(node).to.include({ sourcePath: 'people/CFO.md' });
    expect(node.aliases).to.deep.equal(['CFO', 'Finance lead']);
    expect(node.tags).to.deep.equal(['Launch', 'q3/plan']);
    const plain = await createNode(ws);
    expect(plain).to.include({ sourcePath: null });
    expect(plain.aliases).to.deep.equal([]);
    expect(plain.tags).to.deep.equal([]);
  });

  it('filters the node list and the search by a tag, ignoring case', async () => {
    const tagged = await createNode(ws, { title: 'Quokka facts', tags: ['Animals'] });
    await createNode(ws, { title: 'Quokka myths' });
    const list = await request('GET', ws.path('/context-nodes?tag=animals'), { token: ws.owner.key });
    expect(list.body.nodes.map((n: any) => n.id)).to.deep.equal([tagged.id]);
    const search = await request('GET', ws.path('/context-nodes?q=quokka&tag=%23ANIMALS'), { token: ws.owner.key });
    expect(search.body.nodes.map((n: any) => n.id)).to.deep.equal([tagged.id]);
  });

  it('finds a node by its alias in search', async () => {
    const node = await createNode(ws, { title: 'Chief financial officer', aliases: ['Moneybags'] });
    const search = await request('GET', ws.path('/context-nodes?q=moneybags'), { token: ws.owner.key });
    expect(search.body.nodes.map((n: any) => n.id)).to.deep.equal([node.id]);
  });

  it('refuses a source path that climbs out of its folder, or is absolute, with a 400 that changes nothing', async () => {
    for (const sourcePath of ['../secret.md', '/etc/passwd.md', 'a//b.md', 'a\\b.md', './a.md']) {
      const res = await request('POST', ws.path('/context-nodes'), { token: ws.owner.key, body: { title: 'Bad path', description: 'd', sourcePath } });
      problem(res, 400, 'invalid_request');
      expect(res.body.errors[0].path, sourcePath).to.equal('/sourcePath');
    }
    const list = await request('GET', ws.path('/context-nodes'), { token: ws.owner.key });
    expect(list.body.nodes).to.deep.equal([]);
  });
});

describe('a vault imported as Obsidian reads it', () => {
  const vault = useVaults(() => env.service.url);
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace();
  });
  const importVault = (dir: string) => importFolderInto(ws, dir);
  const bySourcePath = async () => {
    const res = await request('GET', ws.path('/context-nodes?status=all&limit=100'), { token: ws.owner.key });
    return new Map<string, any>(await Promise.all(res.body.nodes.map(async (n: any) => [n.sourcePath, await getNode(ws, n.id)] as [string, any])));
  };

  it('links notes by file name, path and front-matter alias, and keeps tags, aliases and the source path', async () => {
    const dir = vault({
      'Start here.md': '---\naliases: [Welcome]\ntags: onboarding, docs\n---\n# Start here\n\nSee [[Internal links]], [[Command palette|commands]], [[Settings]] and [[User interface/Settings#Appearance]]. #getting-started\n',
      'Linking notes and files/Internal links.md': 'Links go back to [[welcome]] and embed ![[Start here]]. `#not-a-tag` and # heading-ish #123\n',
      'Plugins/Command palette.md': '---\naliases:\n  - Commands\n---\nOpen it with a key. Also [[commands]] itself.\n',
      'User interface/Settings.md': '# Settings\n\n## Appearance\n\nThemes. See [[Start here.md]].\n',
      'Attachments/diagram.png.md': 'Not an image: a note whose name ends in .png.md, linked by nobody.\n',
    });
    const report = await importVault(dir);
    expect(report.errors).to.deep.equal([]);
    expect(report.unresolved).to.deep.equal([]);
    const nodes = await bySourcePath();
    const start = nodes.get('Start here.md');
    expect(start.outgoingLinks.map((l: any) => [l.title, l.sections]).sort()).to.deep.equal([
      ['Command palette', []], ['Internal links', []], ['Settings', ['Appearance']],
    ]);
    expect(start.aliases).to.deep.equal(['Welcome']);
    expect(start.tags).to.deep.equal(['onboarding', 'docs', 'getting-started']);
    expect(nodes.get('Linking notes and files/Internal links.md').outgoingLinks.map((l: any) => l.title)).to.deep.equal(['Start here']);
    expect(nodes.get('Linking notes and files/Internal links.md').tags).to.deep.equal([]);
    expect(nodes.get('User interface/Settings.md').outgoingLinks.map((l: any) => l.title)).to.deep.equal(['Start here']);
  });

  it('points front-matter typed links written as names at the notes they name', async () => {
    const dir = vault({
      'Brand Voice.md': '---\nrequires: "[[Glossary of Terms]]"\nrelates-to: [Persona CFO, nowhere-yet, Not A Note]\n---\nBody.\n',
      'Glossary of Terms.md': 'Words.\n',
      'people/Persona CFO.md': 'Who.\n',
    });
    const report = await importVault(dir);
    expect(report.errors).to.deep.equal([]);
    expect(report.unresolved).to.deep.equal([{ path: 'Brand Voice.md', links: ['nowhere-yet', 'Not A Note'] }]);
    const voice = (await bySourcePath()).get('Brand Voice.md');
    expect(voice.outgoingLinks.map((l: any) => `${l.linkType}>${l.title}`).sort()).to.deep.equal(['relates-to>Persona CFO', 'requires>Glossary of Terms']);
  });

  it('a re-import finds each file’s node by its path and writes nothing, even when a new file would take its slug', async () => {
    const dir = vault({ 'Settings.md': 'Mine. [[Other]]\n', 'Other.md': 'Other.\n' });
    const first = await importVault(dir);
    expect(first.created).to.have.length(2);
    const again = await importVault(dir);
    expect(again.created).to.deep.equal([]);
    expect(again.updated).to.deep.equal([]);
    // A file sorted before Settings.md that slugifies alike would take the slug 'settings' on a first import.
    const withNewcomer = vault({ 'Settings.md': 'Mine. [[Other]]\n', 'Other.md': 'Other.\n', 'SETTINGS!.md': 'Newcomer.\n' });
    const third = await importVault(withNewcomer);
    expect(third.updated).to.deep.equal([]);
    expect(third.created).to.deep.equal(['settings-2']);
    const nodes = await bySourcePath();
    expect(nodes.get('Settings.md').slug).to.equal('settings');
  });
});
