import { nodeTypes } from '@playbooks/client';
import { expect } from 'chai';
import { type TestUser, type TestWorkspace, createWorkspace, problem, request, unique } from '../support/api.js';
import { workspaceWithEditorAndViewer } from '../support/fixtures.js';
import { archiveNode, createNode, getNode, listNodes, restoreNode, updateNode } from '../support/nodes.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ids = (page: { nodes: { id: string }[] }) => page.nodes.map((n) => n.id);

describe('context nodes', () => {
  let space: TestWorkspace;
  let editor: TestUser;
  let viewer: TestUser;

  before(async () => {
    ({ space, editor, viewer } = await workspaceWithEditorAndViewer());
  });

  describe('create', () => {
    it('creates a node with the defaults and a slug from its title', async () => {
      const res = await request('POST', space.path('/context-nodes'), {
        token: editor.key,
        body: { title: 'Brand Voice Guide!', description: 'How we sound' },
      });
      expect(res.status).to.equal(201);
      const node = res.body;
      expect(node.id).to.match(/^cn_/);
      expect(node).to.include({
        slug: 'brand-voice-guide', title: 'Brand Voice Guide!', description: 'How we sound', content: '', nodeType: 'reference',
        agentSummary: null, importance: 50, readFirst: false, edgeCaseOnly: false, status: 'live', archivedAt: null,
      });
      expect(node.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(node.updatedAt).to.equal(node.createdAt);
      expect(node).to.deep.include({ outgoingLinks: [], incomingLinks: [], unresolvedLinks: [] });
      expect(await getNode(space, node.id, viewer.key)).to.deep.equal(node);
    });

    it('stores every field given', async () => {
      const fields = {
        title: 'Persona: CFO', description: 'Who signs', slug: unique('cfo'), content: '# CFO\nCares about cost', nodeType: 'domain-knowledge',
        agentSummary: 'Cost first', importance: 90, readFirst: true, edgeCaseOnly: true,
      };
      const node = await createNode(space, fields, editor.key);
      expect(node).to.include(fields);
      expect(await getNode(space, node.id)).to.include(fields);
    });

    it('accepts every node type and importance 0 and 100', async () => {
      for (const nodeType of nodeTypes) {
        expect((await createNode(space, { nodeType })).nodeType).to.equal(nodeType);
      }
      expect((await createNode(space, { importance: 0 })).importance).to.equal(0);
      expect((await createNode(space, { importance: 100 })).importance).to.equal(100);
    });

    it('suffixes -2, -3 to an automatic slug that is taken', async () => {
      const title = unique('Launch Checklist');
      const a = await createNode(space, { title });
      const b = await createNode(space, { title });
      const c = await createNode(space, { title });
      expect([a.slug, b.slug, c.slug]).to.deep.equal([a.slug, `${a.slug}-2`, `${a.slug}-3`]);
    });

    it('gives a title without letters or digits the slug "node"', async () => {
      const fresh = await createWorkspace();
      expect((await createNode(fresh, { title: '***' })).slug).to.equal('node');
      expect((await createNode(fresh, { title: '!!!' })).slug).to.equal('node-2');
    });

    it('refuses an explicit slug that is taken (409 slug_taken), and allows it in another workspace', async () => {
      const slug = unique('taken');
      await createNode(space, { slug });
      const res = await request('POST', space.path('/context-nodes'), { token: editor.key, body: { title: 'Other', description: 'd', slug } });
      problem(res, 409, 'slug_taken');
      const other = await createWorkspace();
      expect((await createNode(other, { slug })).slug).to.equal(slug);
    });

    it('lets two concurrent creates with one title get distinct slugs', async () => {
      const title = unique('Concurrent');
      const nodes = await Promise.all([1, 2, 3, 4].map(() => createNode(space, { title })));
      expect(new Set(nodes.map((n) => n.slug)).size).to.equal(4);
    });

    const invalid: [string, Record<string, unknown>, string][] = [
      ['a missing title', { description: 'd' }, '/title'],
      ['a missing description', { title: 't' }, '/description'],
      ['an empty title', { title: '', description: 'd' }, '/title'],
      ['an empty description', { title: 't', description: '' }, '/description'],
      ['a title over 200 characters', { title: 'x'.repeat(201), description: 'd' }, '/title'],
      ['a description over 2,000 characters', { title: 't', description: 'x'.repeat(2001) }, '/description'],
      ['an unknown nodeType', { title: 't', description: 'd', nodeType: 'memo' }, '/nodeType'],
      ['importance below 0', { title: 't', description: 'd', importance: -1 }, '/importance'],
      ['importance above 100', { title: 't', description: 'd', importance: 101 }, '/importance'],
      ['importance as a string', { title: 't', description: 'd', importance: '50' }, '/importance'],
      ['readFirst as a string', { title: 't', description: 'd', readFirst: 'yes' }, '/readFirst'],
      ['a slug with capitals', { title: 't', description: 'd', slug: 'Bad-Slug' }, '/slug'],
      ['a slug with spaces', { title: 't', description: 'd', slug: 'bad slug' }, '/slug'],
      ['a slug with a double hyphen', { title: 't', description: 'd', slug: 'bad--slug' }, '/slug'],
      ['an unknown field', { title: 't', description: 'd', status: 'archived' }, '/status'],
    ];
    for (const [what, body, path] of invalid) {
      it(`refuses ${what} (400)`, async () => {
        const res = await request('POST', space.path('/context-nodes'), { token: editor.key, body });
        const p = problem(res, 400, 'invalid_request');
        expect(p.errors!.map((e) => e.path)).to.include(path);
      });
    }

    it('is refused to a viewer (403) and to a non-member (404)', async () => {
      problem(await request('POST', space.path('/context-nodes'), { token: viewer.key, body: { title: 't', description: 'd' } }), 403, 'insufficient_role');
      const outsider = await createWorkspace();
      problem(await request('POST', space.path('/context-nodes'), { token: outsider.owner.key, body: { title: 't', description: 'd' } }), 404, 'not_found');
    });
  });

  describe('get', () => {
    it('answers 404 for an unknown node and for a node of another workspace', async () => {
      problem(await request('GET', space.path('/context-nodes/cn_nope'), { token: viewer.key }), 404, 'not_found');
      const other = await createWorkspace();
      const foreign = await createNode(other);
      problem(await request('GET', space.path(`/context-nodes/${foreign.id}`), { token: viewer.key }), 404, 'not_found');
    });

    it('reads a node by any name a wikilink may give it, as the MCP tool does; a name no node of the workspace has is 404', async () => {
      const node = await createNode(space, { title: unique('Refund Policy'), aliases: ['money back rules'] }, editor.key);
      for (const name of [node.slug, node.title, node.title.toUpperCase(), 'Money Back Rules', `[[${node.title}]]`]) {
        const res = await request('GET', space.path(`/context-nodes/${encodeURIComponent(name)}`), { token: viewer.key });
        expect(res.status, name).to.equal(200);
        expect(res.body.id, name).to.equal(node.id);
      }
      problem(await request('GET', space.path(`/context-nodes/${encodeURIComponent('no node is called this')}`), { token: viewer.key }), 404, 'not_found');
      const other = await createWorkspace();
      await createNode(other, { title: 'Only Elsewhere' });
      problem(await request('GET', space.path('/context-nodes/only-elsewhere'), { token: viewer.key }), 404, 'not_found');
    });

    it('lists the one node a name links to with ?name=, or an empty page, never another workspace’s', async () => {
      const node = await createNode(space, { title: unique('Escalation Path'), aliases: ['who to call'] }, editor.key);
      for (const name of [node.slug, 'Who To Call', `[[${node.title}|label]]`]) {
        const page = await listNodes(space, { name }, viewer.key);
        expect(ids(page), name).to.deep.equal([node.id]);
      }
      expect(ids(await listNodes(space, { name: 'nobody by this name' }, viewer.key))).to.deep.equal([]);
      expect(ids(await listNodes(space, { name: node.slug, nodeType: 'brand' }, viewer.key))).to.deep.equal([]);
      const other = await createWorkspace();
      await createNode(other, { title: 'Listed Elsewhere' });
      expect(ids(await listNodes(space, { name: 'listed-elsewhere' }, viewer.key))).to.deep.equal([]);
    });
  });

  describe('update', () => {
    it('changes any combination of fields and moves updatedAt on every edit', async () => {
      const node = await createNode(space, { title: 'Before', description: 'before' });
      await pause(5);
      const changes = {
        title: 'After', description: 'after', content: 'new body', nodeType: 'process', agentSummary: 'short', importance: 7,
        readFirst: true, edgeCaseOnly: true, slug: unique('after'),
      };
      const updated = await updateNode(space, node.id, changes, editor.key);
      expect(updated).to.include({ ...changes, id: node.id, createdAt: node.createdAt });
      expect(updated.updatedAt > node.updatedAt).to.equal(true);
      expect(await getNode(space, node.id)).to.deep.equal(updated);

      await pause(5);
      const again = await updateNode(space, node.id, { importance: 8 });
      expect(again.importance).to.equal(8);
      expect(again.title).to.equal('After');
      expect(again.updatedAt > updated.updatedAt).to.equal(true);
    });

    it('clears agentSummary with null', async () => {
      const node = await createNode(space, { agentSummary: 'summary' });
      expect((await updateNode(space, node.id, { agentSummary: null })).agentSummary).to.equal(null);
      expect((await getNode(space, node.id)).agentSummary).to.equal(null);
    });

    it('keeps the slug when only the title changes', async () => {
      const node = await createNode(space, { title: unique('Stable') });
      expect((await updateNode(space, node.id, { title: 'Renamed' })).slug).to.equal(node.slug);
    });

    it('refuses a slug another node has (409 slug_taken) and accepts the node’s own slug', async () => {
      const a = await createNode(space);
      const b = await createNode(space);
      problem(await request('PATCH', space.path(`/context-nodes/${b.id}`), { token: editor.key, body: { slug: a.slug } }), 409, 'slug_taken');
      expect((await getNode(space, b.id)).slug).to.equal(b.slug);
      expect((await updateNode(space, b.id, { slug: b.slug })).slug).to.equal(b.slug);
    });

    const invalid: [string, Record<string, unknown>, string][] = [
      ['an unknown field', { status: 'archived' }, '/status'],
      ['an id', { id: 'cn_other' }, '/id'],
      ['createdAt', { createdAt: '2020-01-01T00:00:00.000Z' }, '/createdAt'],
      ['an empty title', { title: '' }, '/title'],
      ['a bad nodeType', { nodeType: 'nope' }, '/nodeType'],
      ['importance 101', { importance: 101 }, '/importance'],
      ['a bad slug', { slug: 'No Way' }, '/slug'],
      ['a null title', { title: null }, '/title'],
    ];
    for (const [what, body, path] of invalid) {
      it(`refuses ${what} (400) and changes nothing`, async () => {
        const node = await createNode(space);
        const p = problem(await request('PATCH', space.path(`/context-nodes/${node.id}`), { token: editor.key, body }), 400, 'invalid_request');
        expect(p.errors!.map((e) => e.path)).to.include(path);
        expect(await getNode(space, node.id)).to.deep.equal(node);
      });
    }

    it('refuses an empty body (400)', async () => {
      const node = await createNode(space);
      problem(await request('PATCH', space.path(`/context-nodes/${node.id}`), { token: editor.key, body: {} }), 400, 'invalid_request');
    });

    it('is refused to a viewer (403); an unknown node is 404', async () => {
      const node = await createNode(space);
      problem(await request('PATCH', space.path(`/context-nodes/${node.id}`), { token: viewer.key, body: { title: 'x' } }), 403, 'insufficient_role');
      problem(await request('PATCH', space.path('/context-nodes/cn_nope'), { token: editor.key, body: { title: 'x' } }), 404, 'not_found');
    });
  });

  describe('archive and restore', () => {
    it('DELETE archives the node (204): kept, status archived, archivedAt set, out of the default list', async () => {
      const ws = await createWorkspace();
      const node = await createNode(ws);
      await pause(5);
      const res = await request('DELETE', ws.path(`/context-nodes/${node.id}`), { token: ws.owner.key });
      expect(res.status).to.equal(204);
      expect(res.text).to.equal('');
      const archived = await getNode(ws, node.id);
      expect(archived.status).to.equal('archived');
      expect(archived.archivedAt).to.be.a('string');
      expect(archived.updatedAt > node.updatedAt).to.equal(true);
      expect(ids(await listNodes(ws))).to.deep.equal([]);
      expect(ids(await listNodes(ws, { status: 'archived' }))).to.deep.equal([node.id]);

      // Archiving again changes nothing.
      await archiveNode(ws, node.id);
      expect(await getNode(ws, node.id)).to.deep.equal(archived);
    });

    it('restore makes it live again with archivedAt null', async () => {
      const ws = await createWorkspace();
      const node = await createNode(ws);
      await archiveNode(ws, node.id);
      await pause(5);
      const restored = await restoreNode(ws, node.id);
      expect(restored).to.include({ id: node.id, status: 'live', archivedAt: null });
      expect(restored.updatedAt > node.updatedAt).to.equal(true);
      expect(await getNode(ws, node.id)).to.deep.equal(restored);
      expect(ids(await listNodes(ws))).to.deep.equal([node.id]);
      // Restoring a live node changes nothing.
      expect(await restoreNode(ws, node.id)).to.deep.equal(restored);
    });

    it('an archived node keeps its slug and its links', async () => {
      const ws = await createWorkspace();
      const target = await createNode(ws, { slug: 'kept' });
      const source = await createNode(ws, { content: 'see [[kept]]' });
      await archiveNode(ws, target.id);
      problem(await request('POST', ws.path('/context-nodes'), { token: ws.owner.key, body: { title: 't', description: 'd', slug: 'kept' } }), 409, 'slug_taken');
      expect((await getNode(ws, source.id)).outgoingLinks.map((l: any) => l.targetId)).to.deep.equal([target.id]);
    });

    it('needs the editor role; an unknown node is 404', async () => {
      const node = await createNode(space);
      problem(await request('DELETE', space.path(`/context-nodes/${node.id}`), { token: viewer.key }), 403, 'insufficient_role');
      problem(await request('POST', space.path(`/context-nodes/${node.id}/restore`), { token: viewer.key }), 403, 'insufficient_role');
      problem(await request('DELETE', space.path('/context-nodes/cn_nope'), { token: editor.key }), 404, 'not_found');
      problem(await request('POST', space.path('/context-nodes/cn_nope/restore'), { token: editor.key }), 404, 'not_found');
      await archiveNode(space, node.id, editor.key);
      await restoreNode(space, node.id, editor.key);
    });
  });

  describe('list', () => {
    let ws: TestWorkspace;
    let brandHigh: any;
    let brandLow: any;
    let process: any;
    let archivedExample: any;

    before(async () => {
      ws = await createWorkspace();
      brandHigh = await createNode(ws, { title: 'alpha brand', nodeType: 'brand', importance: 90 });
      await pause(3);
      brandLow = await createNode(ws, { title: 'Beta brand', nodeType: 'brand', importance: 10 });
      await pause(3);
      process = await createNode(ws, { title: 'gamma process', nodeType: 'process', importance: 50 });
      await pause(3);
      archivedExample = await createNode(ws, { title: 'Delta example', nodeType: 'example', importance: 70 });
      await archiveNode(ws, archivedExample.id);
      await pause(3);
      // Touch the first node last, so updated_at and created_at orders differ.
      brandHigh = await updateNode(ws, brandHigh.id, { description: 'touched' });
    });

    it('lists live nodes, most recently updated first, with pagination', async () => {
      const page = await listNodes(ws);
      expect(ids(page)).to.deep.equal([brandHigh.id, process.id, brandLow.id]);
      expect(page.pagination).to.deep.equal({ page: 1, limit: 50, total: 3 });
      const listed = page.nodes[0];
      expect(listed).to.deep.equal(Object.fromEntries(Object.entries(brandHigh).filter(([k]) => !['outgoingLinks', 'incomingLinks', 'unresolvedLinks'].includes(k))));
    });

    it('filters by nodeType', async () => {
      expect(ids(await listNodes(ws, { nodeType: 'brand' }))).to.have.members([brandHigh.id, brandLow.id]);
      expect(ids(await listNodes(ws, { nodeType: 'example' }))).to.deep.equal([]);
      expect(ids(await listNodes(ws, { nodeType: 'example', status: 'archived' }))).to.deep.equal([archivedExample.id]);
    });

    it('filters by status: live (default), archived, all', async () => {
      expect(ids(await listNodes(ws, { status: 'live' }))).to.have.members([brandHigh.id, brandLow.id, process.id]);
      expect(ids(await listNodes(ws, { status: 'archived' }))).to.deep.equal([archivedExample.id]);
      const all = await listNodes(ws, { status: 'all' });
      expect(ids(all)).to.have.members([brandHigh.id, brandLow.id, process.id, archivedExample.id]);
      expect(all.pagination.total).to.equal(4);
    });

    it('maps the deprecated archived flag onto status', async () => {
      expect(ids(await listNodes(ws, { archived: true }))).to.deep.equal([archivedExample.id]);
      expect(ids(await listNodes(ws, { archived: false }))).to.have.members([brandHigh.id, brandLow.id, process.id]);
    });

    it('refuses archived together with status (400)', async () => {
      for (const qs of ['archived=true&status=archived', 'archived=false&status=live', 'archived=true&status=all']) {
        const p = problem(await request('GET', ws.path(`/context-nodes?${qs}`), { token: ws.owner.key }), 400, 'invalid_request');
        expect(p.errors!.map((e) => e.path)).to.include('/archived');
      }
    });

    it('sorts by created_at, title (ignoring case), importance and updated_at in both orders', async () => {
      expect(ids(await listNodes(ws, { sort: 'created_at', order: 'asc' }))).to.deep.equal([brandHigh.id, brandLow.id, process.id]);
      expect(ids(await listNodes(ws, { sort: 'created_at' }))).to.deep.equal([process.id, brandLow.id, brandHigh.id]);
      expect(ids(await listNodes(ws, { sort: 'title', order: 'asc' }))).to.deep.equal([brandHigh.id, brandLow.id, process.id]);
      expect(ids(await listNodes(ws, { sort: 'title', order: 'desc' }))).to.deep.equal([process.id, brandLow.id, brandHigh.id]);
      expect(ids(await listNodes(ws, { sort: 'importance' }))).to.deep.equal([brandHigh.id, process.id, brandLow.id]);
      expect(ids(await listNodes(ws, { sort: 'importance', order: 'asc' }))).to.deep.equal([brandLow.id, process.id, brandHigh.id]);
      expect(ids(await listNodes(ws, { sort: 'updated_at', order: 'asc' }))).to.deep.equal([brandLow.id, process.id, brandHigh.id]);
    });

    it('pages without overlap, ties broken by id', async () => {
      const fresh = await createWorkspace();
      const made = [];
      for (let i = 0; i < 5; i += 1) made.push(await createNode(fresh, { importance: 30 }));
      const seen: string[] = [];
      for (let page = 1; page <= 3; page += 1) {
        const res = await listNodes(fresh, { sort: 'importance', order: 'asc', limit: 2, page });
        expect(res.pagination).to.deep.equal({ page, limit: 2, total: 5 });
        seen.push(...ids(res));
      }
      expect(seen).to.deep.equal(made.map((n) => n.id).sort());
      expect(ids(await listNodes(fresh, { page: 4, limit: 2 }))).to.deep.equal([]);
    });

    const badQueries = ['nodeType=memo', 'status=deleted', 'sort=score', 'order=up', 'limit=0', 'limit=201', 'page=0', 'archived=maybe', 'colour=red', 'limit=abc'];
    for (const qs of badQueries) {
      it(`refuses ?${qs} (400)`, async () => {
        problem(await request('GET', ws.path(`/context-nodes?${qs}`), { token: ws.owner.key }), 400, 'invalid_request');
      });
    }

    it('is open to viewers', async () => {
      const res = await request('GET', space.path('/context-nodes'), { token: viewer.key });
      expect(res.status).to.equal(200);
    });
  });

  describe('search (q)', () => {
    let ws: TestWorkspace;
    let launch: any;
    let voice: any;
    let summaryOnly: any;

    before(async () => {
      ws = await createWorkspace();
      launch = await createNode(ws, { title: 'Quarterly launch plan', description: 'Steps for a launch', content: 'Ship it. C++ and foo-bar (x)' });
      voice = await createNode(ws, { title: 'Brand voice', description: 'How we sound', content: 'Friendly, never pushy' });
      summaryOnly = await createNode(ws, { title: 'Misc', description: 'misc', agentSummary: 'zebra crossing rules' });
      await createNode(ws, { title: 'Unrelated', description: 'nothing here' });
    });

    it('finds words in title, description, content and agentSummary', async () => {
      expect(ids(await listNodes(ws, { q: 'quarterly' }))).to.deep.equal([launch.id]);
      expect(ids(await listNodes(ws, { q: 'sound' }))).to.deep.equal([voice.id]);
      expect(ids(await listNodes(ws, { q: 'pushy' }))).to.deep.equal([voice.id]);
      expect(ids(await listNodes(ws, { q: 'zebra' }))).to.deep.equal([summaryOnly.id]);
    });

    it('matches case-insensitively, by prefix, and needs every word with match=all', async () => {
      expect(ids(await listNodes(ws, { q: 'LAUNCH' }))).to.deep.equal([launch.id]);
      expect(ids(await listNodes(ws, { q: 'quart' }))).to.deep.equal([launch.id]);
      expect(ids(await listNodes(ws, { q: 'launch plan', match: 'all' }))).to.deep.equal([launch.id]);
      expect(ids(await listNodes(ws, { q: 'launch voice', match: 'all' }))).to.deep.equal([]);
    });

    it('sees a committed write at once', async () => {
      const node = await createNode(ws, { title: 'Fresh', description: 'd', content: 'xylophone' });
      expect(ids(await listNodes(ws, { q: 'xylophone' }))).to.deep.equal([node.id]);
      await updateNode(ws, node.id, { content: 'marimba' });
      expect(ids(await listNodes(ws, { q: 'xylophone' }))).to.deep.equal([]);
      expect(ids(await listNodes(ws, { q: 'marimba' }))).to.deep.equal([node.id]);
    });

    it('never finds nodes of another workspace', async () => {
      const other = await createWorkspace();
      await createNode(other, { title: 'Quarterly launch plan', description: 'same words' });
      const page = await listNodes(ws, { q: 'quarterly' });
      expect(ids(page)).to.deep.equal([launch.id]);
      expect(page.pagination.total).to.equal(1);
    });

    it('combines with the status and nodeType filters', async () => {
      const archived = await createNode(ws, { title: 'Old launch memo', description: 'd', nodeType: 'example' });
      await archiveNode(ws, archived.id);
      expect(ids(await listNodes(ws, { q: 'memo' }))).to.deep.equal([]);
      expect(ids(await listNodes(ws, { q: 'memo', status: 'archived' }))).to.deep.equal([archived.id]);
      expect(ids(await listNodes(ws, { q: 'launch', status: 'all', nodeType: 'example' }))).to.deep.equal([archived.id]);
    });

    it('orders by relevance unless a sort is given', async () => {
      const strong = await createNode(ws, { title: 'walrus walrus', description: 'walrus', content: 'walrus walrus walrus' });
      const weak = await createNode(ws, { title: 'Other', description: 'mentions a walrus once', content: 'long text '.repeat(50) });
      expect(ids(await listNodes(ws, { q: 'walrus' }))).to.deep.equal([strong.id, weak.id]);
      expect(ids(await listNodes(ws, { q: 'walrus', sort: 'created_at', order: 'desc' }))).to.deep.equal([weak.id, strong.id]);
    });

    it('treats special characters as text: any q answers 200', async () => {
      const nasty = ['AND', 'OR NOT', '"', '\\', '*', '?', '~', '(', ')', '[', ']', '{', '}', ':', '/', '!', '^', '&&', '||', '+', '-',
        'a:b', 'title:launch', '"unclosed', 'launch*', 'lau?ch', 'foo-bar', 'C++', '(x)', 'x AND', '日本語', '   ', '', 'a'.repeat(500)];
      for (const q of nasty) {
        const res = await request('GET', ws.path(`/context-nodes?q=${encodeURIComponent(q)}`), { token: ws.owner.key });
        expect(res.status, `q=${q}: ${res.text}`).to.equal(200);
      }
      expect(ids(await listNodes(ws, { q: 'C++' }))).to.deep.equal([launch.id]);
      expect(ids(await listNodes(ws, { q: 'foo-bar' }))).to.deep.equal([launch.id]);
      expect(ids(await listNodes(ws, { q: 'title:launch' }))).to.deep.equal([]);
    });

    it('a blank q lists like no q', async () => {
      const page = await listNodes(ws, { q: '  ' });
      expect(page.pagination.total).to.equal((await listNodes(ws)).pagination.total);
    });

    it('refuses a q over 500 characters (400)', async () => {
      problem(await request('GET', ws.path(`/context-nodes?q=${'a'.repeat(501)}`), { token: ws.owner.key }), 400, 'invalid_request');
    });
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await request('GET', '/api/v1/openapi.json')).body;
    const base = '/api/v1/workspaces/{workspaceId}/context-nodes';
    expect(doc.paths[base]).to.have.keys('get', 'post');
    expect(doc.paths[`${base}/{nodeId}`]).to.have.keys('get', 'patch', 'delete');
    expect(doc.paths[`${base}/{nodeId}/restore`]).to.have.keys('post');
    expect(doc.paths[base].post.requestBody.content['application/json'].schema.required).to.deep.equal(['title', 'description']);
  });
});
