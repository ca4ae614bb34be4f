import { expect } from 'chai';
import { createWorkspace, request } from '../support/api.js';
import { callOk, mcpClient } from '../support/mcp.js';
import { createNode, listNodes } from '../support/nodes.js';
import { wordsQuery } from '../../src/nodes/search-query.js';

const ids = (page: { nodes: { id: string }[] }) => page.nodes.map((n) => n.id);

describe('searching context nodes by words', () => {
  describe('the Lucene query of a search text', () => {
    it('leaves the stop words out of a question and lets any other word match', () => {
      expect(wordsQuery('Which studio made Toy Story?')).to.equal(
        '"studio made toy story"^16 '
        + '(+("studio" OR studio*^0.1) +("made" OR made*^0.1) +("toy" OR toy*^0.1) +("story" OR story*^0.1))^4 '
        + '("studio" OR studio*^0.1) ("made" OR made*^0.1) ("toy" OR toy*^0.1) ("story" OR story*^0.1)',
      );
    });

    it('leaves out the stop words of other languages too', () => {
      expect(wordsQuery('le plan de la fusée')).to.equal(
        '"plan de la fusée"^16 (+("plan" OR plan*^0.1) +("fusée" OR fusée*^0.1))^4 ("plan" OR plan*^0.1) ("fusée" OR fusée*^0.1)',
      );
      expect(wordsQuery('Wer hat die Rakete gebaut')).to.contain('("hat" OR hat*^0.1)').and.to.contain('("die" OR die*^0.1)');
    });

    it('keeps the stop words between words in the phrase, not those at either end', () => {
      expect(wordsQuery('the Lord of the Rings')).to.equal(
        '"lord of the rings"^16 (+("lord" OR lord*^0.1) +("rings" OR rings*^0.1))^4 ("lord" OR lord*^0.1) ("rings" OR rings*^0.1)',
      );
      expect(wordsQuery('the launch')).to.equal('("launch" OR launch*^0.1)');
    });

    it('searches the first 32 words, stop words and repeats aside', () => {
      const words = Array.from({ length: 40 }, (_, i) => `word${i}`);
      const query = wordsQuery(`the ${words.join(' the ')} word0`)!;
      expect(query).to.contain('("word31" OR word31*^0.1)').and.not.to.contain('word32"');
      expect(query.match(/\("word0"/g)).to.have.length(2);
    });

    it('searches the stop words of a text made of nothing else', () => {
      expect(wordsQuery('To be or not')).to.equal(
        '"to be or not"^16 (+("to" OR to*^0.1) +("be" OR be*^0.1) +("or" OR or*^0.1) +("not" OR not*^0.1))^4 '
        + '("to" OR to*^0.1) ("be" OR be*^0.1) ("or" OR or*^0.1) ("not" OR not*^0.1)',
      );
    });

    it('requires a +word and a +"quoted phrase", exactly as given', () => {
      expect(wordsQuery('+launch +"release plan" the owner')).to.equal(
        '+("launch" OR launch*^0.1) +"release plan" "launch release plan the owner"^16 ("owner" OR owner*^0.1)',
      );
      expect(wordsQuery('+"launch"')).to.equal('+"launch"');
    });

    it('searches a quoted phrase as its words and, boosted, as a phrase, without prefixes', () => {
      expect(wordsQuery('Who sang "Dear Brother"?')).to.equal(
        '"sang dear brother"^16 "dear brother"^4 (+("sang" OR sang*^0.1) +("dear" OR dear*^0.1) +("brother" OR brother*^0.1))^4 '
        + '("sang" OR sang*^0.1) ("dear" OR dear*^0.1) ("brother" OR brother*^0.1)',
      );
      expect(wordsQuery('"launch"')).to.equal('"launch"');
      expect(wordsQuery('"the release" plan', 'all')).to.equal('+"the release" +("plan" OR plan*^0.1) "the release plan"^16');
    });

    it('requires every word but the stop words with match all', () => {
      expect(wordsQuery('the launch plan', 'all')).to.equal('+("launch" OR launch*^0.1) +("plan" OR plan*^0.1) "launch plan"^16');
    });

    it('quotes every word so that operators, fields and wildcards are text', () => {
      expect(wordsQuery('title:launch x* (zed)')).to.equal(
        '"title:launch x zed"^16 (+"title:launch" +("x" OR x*^0.1) +("zed" OR zed*^0.1))^4 "title:launch" ("x" OR x*^0.1) ("zed" OR zed*^0.1)',
      );
      expect(wordsQuery('say "a\\b" c\\"d')).to.equal('"say a\\\\b c\\\\\\"d"^16 (+("say" OR say*^0.1) +"a\\\\b" +"c\\\\\\"d")^4 ("say" OR say*^0.1) "a\\\\b" "c\\\\\\"d"');
    });

    it('is undefined for a text without a letter or digit', () => {
      for (const q of ['', '   ', '"', '\\', '***', '(+) ~ :', '""', '+']) expect(wordsQuery(q), q).to.equal(undefined);
    });
  });

  describe('through the list of context nodes', () => {
    it('finds the node with most of the words of a question asked as a sentence first', async () => {
      const ws = await createWorkspace();
      const pixar = await createNode(ws, {
        title: 'Pixar', description: 'An animation studio',
        content: 'Pixar was founded in 1986 as a studio of its own; it made Toy Story, the first computer-animated feature film.',
      });
      const shop = await createNode(ws, { title: 'Toy shop', description: 'Where the toys are sold', content: 'A story about the shop.' });
      await createNode(ws, { title: 'Brand voice', description: 'How we sound' });

      const page = await listNodes(ws, { q: 'Which company founded the studio that made Toy Story?' });
      expect(ids(page)).to.deep.equal([pixar.id, shop.id]);
      expect(ids(await listNodes(ws, { q: 'Which company founded the studio that made Toy Story?', match: 'all' }))).to.deep.equal([]);
    });

    it('ranks a node with every word above one with only some, however often it repeats them', async () => {
      const ws = await createWorkspace();
      const some = await createNode(ws, {
        title: 'Release checklist', description: 'The release checklist', content: 'release checklist '.repeat(20),
      });
      const every = await createNode(ws, {
        title: 'Deploy notes', description: 'Notes',
        content: 'Before a release, walk the checklist and keep the rollback ready.',
      });

      expect(ids(await listNodes(ws, { q: 'release checklist rollback' }))).to.deep.equal([every.id, some.id]);
    });

    it('ranks the words adjacent in the order asked first', async () => {
      const ws = await createWorkspace();
      const scattered = await createNode(ws, {
        title: 'Party plan for a launch', description: 'A plan for the party after the launch', content: 'party plan, launch plan, party launch',
      });
      const phrase = await createNode(ws, { title: 'Events', description: 'Notes', content: 'We hold a launch party plan review every quarter.' });

      expect(ids(await listNodes(ws, { q: 'launch party plan' }))).to.deep.equal([phrase.id, scattered.id]);
    });

    it('a +word is required, a +"quoted phrase" is required as a phrase, and a quoted phrase alone ranks first', async () => {
      const ws = await createWorkspace();
      const zeppelin = await createNode(ws, { title: 'Zeppelin', description: 'A rigid airship' });
      // Both texts in one field, so that only the phrase tells them apart: the index is shared, and other tests'
      // nodes move each field's average length, which weighs a match in one field against a match in another.
      const blimp = await createNode(ws, { title: 'Blimp', description: 'An airship whose harbour is blue' });
      const harbour = await createNode(ws, { title: 'Port', description: 'The blue harbour at dawn' });

      expect(ids(await listNodes(ws, { q: 'zeppelin airship' }))).to.have.members([zeppelin.id, blimp.id]);
      expect(ids(await listNodes(ws, { q: '+zeppelin airship' }))).to.deep.equal([zeppelin.id]);
      expect(ids(await listNodes(ws, { q: 'blue harbour' }))).to.have.members([harbour.id, blimp.id]);
      expect(ids(await listNodes(ws, { q: '+"blue harbour"' }))).to.deep.equal([harbour.id]);
      expect(ids(await listNodes(ws, { q: 'airship +"blue harbour"' }))).to.deep.equal([harbour.id]);
      expect(ids(await listNodes(ws, { q: '"blue harbour"' }))).to.deep.equal([harbour.id, blimp.id]);
      expect(ids(await listNodes(ws, { q: '"blue harbour"', match: 'all' }))).to.deep.equal([harbour.id]);
    });

    it('match=all requires every word', async () => {
      const ws = await createWorkspace();
      const launch = await createNode(ws, { title: 'Quarterly launch plan', description: 'Steps for a launch' });
      const voice = await createNode(ws, { title: 'Brand voice', description: 'How we sound' });

      expect(ids(await listNodes(ws, { q: 'launch voice' }))).to.have.members([launch.id, voice.id]);
      expect(ids(await listNodes(ws, { q: 'launch voice', match: 'all' }))).to.deep.equal([]);
      expect(ids(await listNodes(ws, { q: 'the launch plan', match: 'all' }))).to.deep.equal([launch.id]);
      expect(ids(await listNodes(ws, { q: 'launch plan', match: 'any' }))).to.deep.equal([launch.id]);
    });

    it('a stop word alone in a node does not make it match', async () => {
      const ws = await createWorkspace();
      const harbour = await createNode(ws, { title: 'The harbour', description: 'Where the boats are' });
      await createNode(ws, { title: 'Which one', description: 'It is the one that was there' });
      await createNode(ws, { title: 'Le guide', description: 'Ce qui est dans la boîte' });

      const page = await listNodes(ws, { q: 'Which is the harbour, and where is it? Où est le port?' });
      expect(ids(page)).to.deep.equal([harbour.id]);
      expect(page.pagination.total).to.equal(1);
    });

    it('a text of stop words alone still searches, the phrase first', async () => {
      const ws = await createWorkspace();
      const quote = await createNode(ws, { title: 'Hamlet', description: 'To be, or not to be, that is the question' });
      const some = await createNode(ws, { title: 'Not now', description: 'What it should be' });
      await createNode(ws, { title: 'Zebra', description: 'Stripes' });

      expect(ids(await listNodes(ws, { q: 'to be or not to be' }))).to.deep.equal([quote.id, some.id]);
    });

    it('never shows nodes of another workspace', async () => {
      const ws = await createWorkspace();
      const other = await createWorkspace();
      const mine = await createNode(ws, { title: 'Glacier survey', description: 'How the glacier was measured' });
      await createNode(other, { title: 'Glacier survey', description: 'How the glacier was measured, every word the same' });
      await createNode(other, { title: 'Survey', description: 'Measured' });

      const page = await listNodes(ws, { q: 'Who measured the glacier survey?' });
      expect(ids(page)).to.deep.equal([mine.id]);
      expect(page.pagination.total).to.equal(1);
    });

    it('takes any text as a query, and a text without a letter or digit finds nothing', async () => {
      const ws = await createWorkspace();
      const node = await createNode(ws, { title: 'Launch plan', description: 'C++ and foo-bar' });
      const nasty = ['AND', 'OR NOT', '"', '\\', '*', '?', '~', '(', ')', ':', '^', '+', '-', '&&', '||', 'a:b', 'title:launch', '"unclosed',
        'launch*', 'lau?ch', '(x)', 'x AND', '+"', '"+', '+""', '"a" "b', 'launch^9', 'launch~2', '[a TO z]', '{a TO z}', '/re/', '\\"',
        'c\\', '"\\"', '+(', '日本語', 'the', 'a'.repeat(500), 'ab '.repeat(166), '+ab '.repeat(125), '"ab '.repeat(125),
        Array.from({ length: 99 }, (_, i) => `w${i}x`).join(' '), Array.from({ length: 83 }, (_, i) => `+w${i}x`).join(' '),
        Array.from({ length: 70 }, (_, i) => `"w${i}x"`).join(' ')];
      for (const q of nasty) {
        for (const match of ['any', 'all']) {
          const res = await request('GET', ws.path(`/context-nodes?q=${encodeURIComponent(q)}&match=${match}`), { token: ws.owner.key });
          expect(res.status, `q=${q} match=${match}: ${res.text}`).to.equal(200);
        }
      }
      expect(ids(await listNodes(ws, { q: 'C++' }))).to.deep.equal([node.id]);
      expect(ids(await listNodes(ws, { q: 'LAUNCH*' }))).to.deep.equal([node.id]);
      expect((await listNodes(ws, { q: '???' })).pagination.total).to.equal(0);
    });

    it('refuses a match other than any or all (400)', async () => {
      const ws = await createWorkspace();
      const res = await request('GET', ws.path('/context-nodes?q=launch&match=some'), { token: ws.owner.key });
      expect(res.status).to.equal(400);
    });
  });

  describe('through the search_context tool', () => {
    it('takes match too', async () => {
      const ws = await createWorkspace();
      const launch = await createNode(ws, { title: 'Quarterly launch plan', description: 'Steps for a launch' });
      const voice = await createNode(ws, { title: 'Brand voice', description: 'How we sound' });
      const client = await mcpClient(ws);
      try {
        expect((await callOk(client, 'search_context', { q: 'launch voice' })).nodes.map((n: any) => n.id)).to.have.members([launch.id, voice.id]);
        expect((await callOk(client, 'search_context', { q: 'launch voice', match: 'all' })).nodes).to.deep.equal([]);
      } finally {
        await client.close();
      }
    });
  });
});
