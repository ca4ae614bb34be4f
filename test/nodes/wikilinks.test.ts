import { expect } from 'chai';
import { type TestWorkspace, createWorkspace, problem, request, unique } from '../support/api.js';
import { archiveNode, createNode, getNode, link, updateNode } from '../support/nodes.js';
import { parseWikilinks } from '../../src/nodes/wikilinks.js';

/** The keys a content's wikilinks give, in order. */
const keys = (content: string | null) => parseWikilinks(content).map((l) => l.key);

describe('parseWikilinks', () => {
  it('finds [[slug]] and [[slug|label]], each slug once, in order of appearance', () => {
    expect(keys('See [[brand-voice]] and [[persona-cfo|the CFO]], again [[brand-voice]].')).to.deep.equal(['brand-voice', 'persona-cfo']);
  });

  it('trims the name and keeps it as written; its key is lowercased; an empty name is no link', () => {
    expect(parseWikilinks('[[ Brand-Voice ]] [[Two Words]] [[]] [[ | label]] [[a--b]] [[tone|]] [[two words|again]]')).to.deep.equal([
      { key: 'brand-voice', text: 'Brand-Voice', sections: [] },
      { key: 'two words', text: 'Two Words', sections: [] },
      { key: 'a--b', text: 'a--b', sections: [] },
      { key: 'tone', text: 'tone', sections: [] },
    ]);
  });

  it('keeps the headings and blocks of [[Name#Heading]] and [[Name#^block]]; [[#Heading]] is no link', () => {
    expect(parseWikilinks('[[Brand Voice#Tone]] [[persona#who|the persona]] [[#local-heading]] [[brand voice#^b1]] [[Brand Voice#Tone]]')).to.deep.equal([
      { key: 'brand voice', text: 'Brand Voice', sections: ['Tone', '^b1'] },
      { key: 'persona', text: 'persona', sections: ['who'] },
    ]);
  });

  it('reads embeds, paths, .md names and table-escaped pipes as links, and attachments as none', () => {
    expect(keys('![[Embedded Note]] [[guides/First Week]] [[Settings.md]] | [[Table Note\\|label]] | ![[diagram.png]] [[spec.pdf]] [[board.canvas]] [[data.base]] [[v1.2 notes]]'))
      .to.deep.equal(['embedded note', 'guides/first week', 'settings', 'table note', 'v1.2 notes']);
  });

  it('compares names after Unicode NFC, in any script', () => {
    expect(keys(`[[${'Ρυθμίσεις'.normalize('NFD')}]] [[日本語のノート]]`)).to.deep.equal(['ρυθμίσεις', '日本語のノート']);
  });

  it('ignores single brackets, unclosed and nested brackets', () => {
    expect(keys('[single] [[unclosed and [[inner]] [[x]')).to.deep.equal(['inner']);
    expect(keys('[[a\nb]]')).to.deep.equal([]);
  });

  it('skips inline code spans, of any backtick length', () => {
    expect(keys('`[[in-code]]` and [[outside]]')).to.deep.equal(['outside']);
    expect(keys('``a ` [[in-double]] ``, then [[after]]')).to.deep.equal(['after']);
    expect(keys('a span `over\n[[two-lines]]` ends')).to.deep.equal([]);
  });

  it('reads a wikilink whose label holds code as a link; only one that starts inside a code span is code', () => {
    expect(keys('see [[Functions#hasTag|`hasTag`]] and `[[in-code|x]]`, then [[after]]')).to.deep.equal(['functions', 'after']);
  });

  it('treats an unmatched backtick as text', () => {
    expect(keys('it`s [[real]]')).to.deep.equal(['real']);
    expect(keys('\\`[[escaped-tick]]`')).to.deep.equal(['escaped-tick']);
  });

  it('skips fenced code blocks (``` and ~~~), also unclosed ones', () => {
    const content = [
      'Intro [[first]]',
      '```ts',
      'const x = "[[in-fence]]";',
      '```',
      'Middle [[second]]',
      '~~~',
      '[[in-tilde]]',
      '```',
      '[[still-in-tilde]]',
      '~~~',
      '  ````',
      '[[in-long-fence]]',
      '```',
      '[[still-in-long-fence]]',
      '````',
      '[[third]]',
      '```',
      '[[unclosed-fence]]',
    ].join('\n');
    expect(keys(content)).to.deep.equal(['first', 'second', 'third']);
  });

  it('a span does not leak across paragraphs', () => {
    expect(keys('open ` here\n\n[[after-blank]] `')).to.deep.equal(['after-blank']);
  });

  it('has no links in empty content', () => {
    expect(keys('')).to.deep.equal([]);
    expect(keys(null)).to.deep.equal([]);
  });
});

describe('wikilinks in node content', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace();
  });

  const outgoing = async (nodeId: string) => (await getNode(ws, nodeId)).outgoingLinks.map((l: any) => ({ targetId: l.targetId, linkType: l.linkType, origin: l.origin }));

  it('turns wikilinks into references links of origin wikilink on create', async () => {
    const a = await createNode(ws, { slug: 'brand-voice', title: 'Brand voice' });
    const b = await createNode(ws, { slug: 'persona' });
    const source = await createNode(ws, { content: 'Use [[brand-voice]] for [[persona|our persona]].' });
    expect(source.outgoingLinks.map((l: any) => ({ targetId: l.targetId, linkType: l.linkType, origin: l.origin, title: l.title, slug: l.slug })))
      .to.have.deep.members([
        { targetId: a.id, linkType: 'references', origin: 'wikilink', title: 'Brand voice', slug: 'brand-voice' },
        { targetId: b.id, linkType: 'references', origin: 'wikilink', title: b.title, slug: 'persona' },
      ]);
    expect(source.unresolvedLinks).to.deep.equal([]);
    const incoming = (await getNode(ws, a.id)).incomingLinks;
    expect(incoming).to.have.length(1);
    expect(incoming[0]).to.include({ sourceId: source.id, sourceType: 'context_node', origin: 'wikilink', linkType: 'references' });
  });

  it('adds and removes links as the content changes', async () => {
    const a = await createNode(ws, { slug: 'alpha' });
    const b = await createNode(ws, { slug: 'beta' });
    const source = await createNode(ws, { content: '[[alpha]]' });
    expect(await outgoing(source.id)).to.deep.equal([{ targetId: a.id, linkType: 'references', origin: 'wikilink' }]);

    const both = await updateNode(ws, source.id, { content: '[[alpha]] and [[beta]]' });
    expect(both.outgoingLinks.map((l: any) => l.targetId)).to.have.members([a.id, b.id]);

    const onlyBeta = await updateNode(ws, source.id, { content: 'now only [[beta]]' });
    expect(onlyBeta.outgoingLinks.map((l: any) => l.targetId)).to.deep.equal([b.id]);
    expect((await getNode(ws, a.id)).incomingLinks).to.deep.equal([]);

    await updateNode(ws, source.id, { content: 'no links' });
    expect(await outgoing(source.id)).to.deep.equal([]);
  });

  it('keeps the same link (same id) while its wikilink stays', async () => {
    await createNode(ws, { slug: 'stay' });
    const source = await createNode(ws, { content: '[[stay]]' });
    const before = source.outgoingLinks[0];
    const after = await updateNode(ws, source.id, { content: '[[stay]] with more text' });
    expect(after.outgoingLinks).to.deep.equal([before]);
  });

  it('never touches manual links: a wikilink to an existing manual link adds nothing, removing it leaves the manual link', async () => {
    const target = await createNode(ws, { slug: 'target' });
    const source = await createNode(ws);
    const manual = await link(ws, source.id, target.id, 'references');
    const other = await link(ws, source.id, target.id, 'requires');

    const withWikilink = await updateNode(ws, source.id, { content: 'see [[target]]' });
    expect(withWikilink.outgoingLinks.map((l: any) => [l.id, l.origin])).to.have.deep.members([[manual.id, 'manual'], [other.id, 'manual']]);

    const without = await updateNode(ws, source.id, { content: 'gone' });
    expect(without.outgoingLinks.map((l: any) => l.id)).to.have.members([manual.id, other.id]);
  });

  it('a manual link of another type stands beside the wikilink’s references link', async () => {
    const target = await createNode(ws, { slug: 'target' });
    const source = await createNode(ws, { content: '[[target]]' });
    await link(ws, source.id, target.id, 'requires');
    expect((await outgoing(source.id)).map((l: any) => `${l.linkType}/${l.origin}`)).to.have.members(['references/wikilink', 'requires/manual']);
    await updateNode(ws, source.id, { content: '' });
    expect((await outgoing(source.id)).map((l: any) => `${l.linkType}/${l.origin}`)).to.deep.equal(['requires/manual']);
  });

  it('a manual references link duplicating a wikilink’s is 409; the wikilink’s link cannot be deleted by id (409)', async () => {
    const target = await createNode(ws, { slug: 'target' });
    const source = await createNode(ws, { content: '[[target]]' });
    problem(await request('POST', ws.path(`/context-nodes/${source.id}/links`), { token: ws.owner.key, body: { targetId: target.id, linkType: 'references' } }), 409, 'duplicate_link');
    const linkId = source.outgoingLinks[0].id;
    problem(await request('DELETE', ws.path(`/context-nodes/${source.id}/links/${linkId}`), { token: ws.owner.key }), 409, 'conflict');
    expect((await getNode(ws, source.id)).outgoingLinks.map((l: any) => l.id)).to.deep.equal([linkId]);
  });

  it('keeps unresolved slugs and resolves them when a node with that slug is created', async () => {
    const source = await createNode(ws, { content: 'later: [[future-node]] and [[other|x]]' });
    expect(source.outgoingLinks).to.deep.equal([]);
    expect(source.unresolvedLinks).to.deep.equal(['future-node', 'other']);

    const created = await createNode(ws, { slug: 'future-node', title: 'Future' });
    expect(created.incomingLinks.map((l: any) => [l.sourceId, l.origin, l.linkType])).to.deep.equal([[source.id, 'wikilink', 'references']]);
    const after = await getNode(ws, source.id);
    expect(after.outgoingLinks.map((l: any) => l.targetId)).to.deep.equal([created.id]);
    expect(after.unresolvedLinks).to.deep.equal(['other']);
  });

  it('resolves a slug made automatically from the title', async () => {
    const source = await createNode(ws, { content: '[[pricing-policy]]' });
    const created = await createNode(ws, { title: 'Pricing Policy' });
    expect(created.slug).to.equal('pricing-policy');
    expect((await getNode(ws, source.id)).outgoingLinks.map((l: any) => l.targetId)).to.deep.equal([created.id]);
  });

  it('resolves when an existing node’s slug is changed to it', async () => {
    const source = await createNode(ws, { content: '[[wanted]]' });
    const node = await createNode(ws, { slug: 'not-yet' });
    const renamed = await updateNode(ws, node.id, { slug: 'wanted' });
    expect(renamed.incomingLinks.map((l: any) => l.sourceId)).to.deep.equal([source.id]);
    expect((await getNode(ws, source.id)).unresolvedLinks).to.deep.equal([]);
  });

  it('a wikilink whose target is renamed away becomes unresolved again', async () => {
    const target = await createNode(ws, { slug: 'old-name' });
    const source = await createNode(ws, { content: '[[old-name]]' });
    expect(source.outgoingLinks.map((l: any) => l.targetId)).to.deep.equal([target.id]);
    await updateNode(ws, target.id, { slug: 'new-name' });
    const after = await getNode(ws, source.id);
    expect(after.outgoingLinks).to.deep.equal([]);
    expect(after.unresolvedLinks).to.deep.equal(['old-name']);
    // A manual link to the renamed node is not affected by renames.
    const manual = await link(ws, source.id, target.id, 'relates-to');
    await updateNode(ws, target.id, { slug: 'newer-name' });
    expect((await getNode(ws, source.id)).outgoingLinks.map((l: any) => l.id)).to.deep.equal([manual.id]);
  });

  it('resolves the same slug for several waiting nodes at once', async () => {
    const s1 = await createNode(ws, { content: '[[shared]]' });
    const s2 = await createNode(ws, { content: 'also [[shared|it]]' });
    const target = await createNode(ws, { slug: 'shared' });
    expect(target.incomingLinks.map((l: any) => l.sourceId)).to.have.members([s1.id, s2.id]);
  });

  it('a content change drops unresolved slugs that are no longer mentioned', async () => {
    const source = await createNode(ws, { content: '[[ghost]]' });
    await updateNode(ws, source.id, { content: 'nothing' });
    expect((await getNode(ws, source.id)).unresolvedLinks).to.deep.equal([]);
    // …and a node appearing later with that slug gets no link.
    const ghost = await createNode(ws, { slug: 'ghost' });
    expect(ghost.incomingLinks).to.deep.equal([]);
  });

  it('ignores wikilinks inside code spans and fenced code blocks', async () => {
    const real = await createNode(ws, { slug: 'real' });
    await createNode(ws, { slug: 'code' });
    const content = 'Use [[real]], not `[[code]]`.\n\n```\n[[code]]\n```\n';
    const source = await createNode(ws, { content });
    expect(source.outgoingLinks.map((l: any) => l.targetId)).to.deep.equal([real.id]);
    expect(source.unresolvedLinks).to.deep.equal([]);
  });

  it('a wikilink to the node itself is ignored', async () => {
    const self = await createNode(ws, { slug: 'myself', content: 'I am [[myself]]' });
    expect(self.outgoingLinks).to.deep.equal([]);
    expect(self.unresolvedLinks).to.deep.equal([]);
    // Renaming a node to a slug its own content mentions resolves nothing to itself either.
    const other = await createNode(ws, { slug: 'someone', content: '[[soon-me]]' });
    const renamed = await updateNode(ws, other.id, { slug: 'soon-me' });
    expect(renamed.outgoingLinks).to.deep.equal([]);
    expect(renamed.unresolvedLinks).to.deep.equal([]);
  });

  it('links to an archived node with that slug', async () => {
    const archived = await createNode(ws, { slug: 'retired' });
    await archiveNode(ws, archived.id);
    const source = await createNode(ws, { content: '[[retired]]' });
    expect(source.outgoingLinks.map((l: any) => l.targetId)).to.deep.equal([archived.id]);
  });

  it('never resolves across workspaces', async () => {
    const other = await createWorkspace();
    await createNode(other, { slug: 'elsewhere' });
    const source = await createNode(ws, { content: '[[elsewhere]]' });
    expect(source.outgoingLinks).to.deep.equal([]);
    expect(source.unresolvedLinks).to.deep.equal(['elsewhere']);

    // A node with that slug appearing in a third workspace does not resolve it either…
    const third = await createWorkspace();
    const foreign = await createNode(third, { slug: unique('x') });
    await updateNode(third, foreign.id, { slug: 'elsewhere' });
    expect((await getNode(ws, source.id)).unresolvedLinks).to.deep.equal(['elsewhere']);
    expect((await getNode(third, foreign.id)).incomingLinks).to.deep.equal([]);

    // …only one in the same workspace does.
    const local = await createNode(ws, { slug: 'elsewhere' });
    expect(local.incomingLinks.map((l: any) => l.sourceId)).to.deep.equal([source.id]);
  });

  it('an unresolved wikilink in one workspace does not leak into another that has the same slug waiting', async () => {
    const other = await createWorkspace();
    const mine = await createNode(ws, { content: '[[common]]' });
    const theirs = await createNode(other, { content: '[[common]]' });
    const target = await createNode(other, { slug: 'common' });
    expect(target.incomingLinks.map((l: any) => l.sourceId)).to.deep.equal([theirs.id]);
    expect((await getNode(ws, mine.id)).unresolvedLinks).to.deep.equal(['common']);
  });

  it('changing other fields leaves wikilinks as they are', async () => {
    await createNode(ws, { slug: 'kept' });
    const source = await createNode(ws, { content: '[[kept]] [[missing]]' });
    const updated = await updateNode(ws, source.id, { title: 'New title', importance: 3 });
    expect(updated.outgoingLinks).to.deep.equal(source.outgoingLinks);
    expect(updated.unresolvedLinks).to.deep.equal(['missing']);
  });
});
