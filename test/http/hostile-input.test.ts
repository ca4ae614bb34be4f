import { expect } from 'chai';
import { maxJsonDepth } from '../../src/http/json-body.js';
import { maxWikilinkTargets } from '../../src/nodes/wikilinks.js';
import { type TestWorkspace, createWorkspace, problem, request } from '../support/api.js';
import { adminToken } from '../support/harness.js';
import { createNode, getNode, listNodes } from '../support/nodes.js';
import { createPlaybook, getPlaybook } from '../support/playbooks.js';

/** A JSON object nested `depth` levels deep (the outer object counts as one), built without recursion. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 'bottom' };
  for (let i = 1; i < depth; i++) value = { next: value };
  return value;
}

/** The same as JSON text, for depths JSON.stringify could not reach. */
const nestedText = (depth: number) => `${'{"next":'.repeat(depth - 1)}{"leaf":"bottom"}${'}'.repeat(depth - 1)}`;

const json = { 'content-type': 'application/json' };

async function nodeCount(w: TestWorkspace): Promise<number> {
  return (await listNodes(w, { limit: 1 })).pagination.total;
}

describe('hostile input', () => {
  describe('nesting depth', () => {
    it(`a version nested ${maxJsonDepth} levels deep is stored, approved and read back through every route that returns it`, async () => {
      const w = await createWorkspace();
      // `content` itself is one level below the body.
      const content = nested(maxJsonDepth - 2);
      const pb = await createPlaybook(w, w.owner.key, { version: { content } });
      const version = pb.versions[0];
      const approved = await request('PATCH', w.path(`/playbooks/${pb.id}/versions/${version.id}/approve`), { token: w.owner.key });
      expect(approved.status).to.equal(200);
      expect(approved.body.content).to.deep.equal(content);
      expect((await getPlaybook(w, w.owner.key, pb.id)).versions[0].content).to.deep.equal(content);
      const one = await request('GET', w.path(`/playbooks/${pb.id}/versions/${version.id}`), { token: w.owner.key });
      expect(one.body.content).to.deep.equal(content);
      for (const mode of ['summary', 'standard', 'full']) {
        const bundle = await request('GET', w.path(`/context/bundle?playbookId=${pb.id}&mode=${mode}`), { token: w.owner.key });
        expect(bundle.status, mode).to.equal(200);
        expect(bundle.body.playbook.activeVersion.content).to.deep.equal(content);
      }
      const again = await request('POST', w.path(`/playbooks/${pb.id}/versions`), { token: w.owner.key, body: { content } });
      expect(again.status).to.equal(201);
    });

    it('one level deeper is a 400 naming where, on create and on a new version, and stores nothing', async () => {
      const w = await createWorkspace();
      const pb = await createPlaybook(w, w.owner.key);
      // The body is one level, `version` another: its content may nest maxJsonDepth - 2 levels, a new version's one more.
      // Just past the bound the path says where; far past it the body is refused before it is parsed at all.
      const created = await request('POST', w.path('/playbooks'), { token: w.owner.key, rawBody: `{"title":"Deep","version":{"content":${nestedText(maxJsonDepth - 1)}}}`, headers: json });
      const p = problem(created, 400, 'invalid_request');
      expect(p.errors![0].path).to.match(/^\/version\/content(\/next)+$/);
      expect(p.errors![0].message).to.match(new RegExp(`deeper than ${maxJsonDepth}`));
      const version = await request('POST', w.path(`/playbooks/${pb.id}/versions`), { token: w.owner.key, rawBody: `{"content":${nestedText(maxJsonDepth)}}`, headers: json });
      expect(problem(version, 400, 'invalid_request').errors![0].path).to.match(/^\/content(\/next)+$/);
      for (const depth of [4_100, 100_000]) {
        for (const [path, body] of [['/playbooks', `{"title":"Deep","version":{"content":${nestedText(depth)}}}`], [`/playbooks/${pb.id}/versions`, `{"content":${nestedText(depth)}}`]]) {
          const res = await request('POST', w.path(path), { token: w.owner.key, rawBody: body, headers: json });
          expect(problem(res, 400, 'invalid_request').errors![0].message).to.match(new RegExp(`deeper than ${maxJsonDepth}`));
        }
      }
      const list = await request('GET', w.path('/playbooks'), { token: w.owner.key });
      expect(list.body.playbooks.map((p: { id: string }) => p.id)).to.deep.equal([pb.id]);
      expect((await getPlaybook(w, w.owner.key, pb.id)).versions).to.have.length(1);
    });
  });

  describe('text encoding', () => {
    const cases: [string, Buffer][] = [
      ['bytes ff fe', Buffer.from([0xff, 0xfe])],
      ['an overlong slash c0 af', Buffer.from([0xc0, 0xaf])],
      ['an encoded surrogate ed a0 80', Buffer.from([0xed, 0xa0, 0x80])],
    ];
    for (const [what, bytes] of cases) {
      it(`a body with ${what} is a 400 saying where, and nothing is stored`, async () => {
        const w = await createWorkspace();
        const before = await nodeCount(w);
        const head = Buffer.from('{"title":"Caf');
        const body = Buffer.concat([head, bytes, Buffer.from('","description":"d"}')]);
        const res = await request('POST', w.path('/context-nodes'), { token: w.owner.key, rawBody: body, headers: json });
        const p = problem(res, 400, 'invalid_request');
        expect(p.detail).to.include(`byte ${head.length}`);
        expect(await nodeCount(w)).to.equal(before);
      });
    }

    it('an escaped lone surrogate is a 400 naming the field, and nothing is stored', async () => {
      const w = await createWorkspace();
      const before = await nodeCount(w);
      const res = await request('POST', w.path('/context-nodes'), { token: w.owner.key, rawBody: '{"title":"A\\ud800B","description":"d"}', headers: json });
      const p = problem(res, 400, 'invalid_request');
      expect(p.errors).to.deep.equal([{ path: '/title', message: 'holds a lone surrogate (not a Unicode character)', in: 'body' }]);
      expect(await nodeCount(w)).to.equal(before);
      // A surrogate pair is a character like any other, and is stored exactly.
      const ok = await request('POST', w.path('/context-nodes'), { token: w.owner.key, rawBody: '{"title":"Rocket \\ud83d\\ude80","description":"d"}', headers: json });
      expect(ok.status).to.equal(201);
      expect((await getNode(w, ok.body.id)).title).to.equal('Rocket 🚀');
    });

    it('a __proto__ key is a 400 whose errors name its path', async () => {
      const w = await createWorkspace();
      const res = await request('POST', w.path('/playbooks'), { token: w.owner.key, rawBody: '{"title":"P","version":{"content":{"a":{"__proto__":{"x":1}}}}}', headers: json });
      const p = problem(res, 400, 'invalid_request');
      expect(p.errors).to.deep.equal([{ path: '/version/content/a/__proto__', message: 'is not an allowed key', in: 'body' }]);
    });
  });

  describe('wikilinks', () => {
    const linksTo = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `[[${prefix}-${i}]]`).join(' ');

    it(`content may link to ${maxWikilinkTargets} distinct slugs, and one more is a 400 on /content that writes nothing`, async () => {
      const w = await createWorkspace();
      const node = await createNode(w, { title: 'Index', content: linksTo(maxWikilinkTargets, 'page') });
      expect((await getNode(w, node.id)).unresolvedLinks).to.have.length(maxWikilinkTargets);
      const before = await nodeCount(w);
      const tooMany = await request('POST', w.path('/context-nodes'), { token: w.owner.key, body: { title: 'Too many', description: 'd', content: linksTo(maxWikilinkTargets + 1, 'page') } });
      expect(problem(tooMany, 400, 'invalid_request').errors![0].path).to.equal('/content');
      expect(await nodeCount(w)).to.equal(before);
      const update = await request('PATCH', w.path(`/context-nodes/${node.id}`), { token: w.owner.key, body: { content: linksTo(maxWikilinkTargets + 1, 'other') } });
      problem(update, 400, 'invalid_request');
      expect((await getNode(w, node.id)).unresolvedLinks[0]).to.equal('page-0');
      // The same slug many times is one target.
      expect((await createNode(w, { content: linksTo(1, 'same').repeat(5_000) })).id).to.be.a('string');
    });

    it('a content made of backtick runs of every length is read with the code-span rules', async () => {
      const w = await createWorkspace();
      // Runs of 1..400 backticks, none closed: all literal text, so the links between them count.
      const runs = Array.from({ length: 400 }, (_, i) => `${'`'.repeat(i + 1)} [[run-${i}]]`).join(' ');
      const node = await createNode(w, { content: `${runs}\n\n\`[[inside]]\` [[outside]]` });
      const slugs = (await getNode(w, node.id)).unresolvedLinks;
      expect(slugs).to.include('run-0').and.include('run-399').and.include('outside');
      expect(slugs).not.to.include('inside');
    });
  });

  describe('errors outside the routes', () => {
    it('a query string over 16 KB is a 431 problem', async () => {
      const res = await request('GET', `/api/v1/workspaces/ws_any/playbooks?q=${'x'.repeat(17_000)}`);
      problem(res, 431, 'request_header_fields_too_large');
    });

    it('a body over 1 MiB is a 413 problem, and 413, 415 and 422 are documented on every operation that takes a body', async () => {
      const res = await request('POST', '/api/v1/admin/users', { token: adminToken, rawBody: `{"email":"${'a'.repeat(1_100_000)}@example.com"}`, headers: json });
      problem(res, 413, 'payload_too_large');
      const doc = (await request('GET', '/api/v1/openapi.json')).body;
      for (const [path, operations] of Object.entries<Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>(doc.paths)) {
        for (const [method, op] of Object.entries(operations)) {
          if (!op.requestBody) continue;
          expect(Object.keys(op.responses), `${method} ${path}`).to.include.members(['413', '415']);
          if (method === 'post') expect(Object.keys(op.responses), `${method} ${path}`).to.include.members(['409', '422']);
        }
      }
    });
  });
});
