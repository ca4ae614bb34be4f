import { linkTypes } from '@playbooks/client';
import { expect } from 'chai';
import { redisKeys } from '../../src/gate/redis-keys.js';
import { env, testRedis } from '../support/harness.js';
import { type TestUser, type TestWorkspace, createWorkspace, problem, request } from '../support/api.js';
import { workspaceWithEditorAndViewer } from '../support/fixtures.js';
import { archiveNode, createNode, getNode, link, linkPlaybook, restoreNode, unlink, updateNode } from '../support/nodes.js';
import { createPlaybook } from '../support/playbooks.js';

describe('links', () => {
  let space: TestWorkspace;
  let editor: TestUser;
  let viewer: TestUser;

  before(async () => {
    ({ space, editor, viewer } = await workspaceWithEditorAndViewer());
  });

  describe('between context nodes', () => {
    it('creates a link (201) seen as outgoing from the source and incoming at the target', async () => {
      const source = await createNode(space, { title: 'Source' });
      const target = await createNode(space, { title: 'Target' });
      const res = await request('POST', space.path(`/context-nodes/${source.id}/links`), {
        token: editor.key,
        body: { targetId: target.id, linkType: 'requires' },
      });
      expect(res.status).to.equal(201);
      const created = res.body;
      expect(created.id).to.match(/^lnk_/);
      expect(created).to.include({ sourceId: source.id, sourceType: 'context_node', targetId: target.id, linkType: 'requires', origin: 'manual' });
      expect(created.createdAt).to.be.a('string');
      expect(Object.keys(created)).to.have.members(['id', 'sourceId', 'sourceType', 'targetId', 'linkType', 'origin', 'createdAt']);

      const out = await getNode(space, source.id, viewer.key);
      expect(out.outgoingLinks).to.deep.equal([{ ...created, sections: [], title: 'Target', slug: target.slug }]);
      expect(out.incomingLinks).to.deep.equal([]);
      const inc = await getNode(space, target.id, viewer.key);
      expect(inc.incomingLinks).to.deep.equal([{ ...created, sections: [], title: 'Source', slug: source.slug }]);
      expect(inc.outgoingLinks).to.deep.equal([]);
    });

    it('supports every link type, one relationship per type between the same pair', async () => {
      const a = await createNode(space);
      const b = await createNode(space);
      for (const linkType of linkTypes) expect((await link(space, a.id, b.id, linkType)).linkType).to.equal(linkType);
      const detail = await getNode(space, a.id);
      expect(detail.outgoingLinks.map((l: any) => l.linkType)).to.have.members([...linkTypes]);
      expect((await getNode(space, b.id)).incomingLinks).to.have.length(5);
    });

    it('links in both directions independently', async () => {
      const a = await createNode(space);
      const b = await createNode(space);
      const ab = await link(space, a.id, b.id, 'relates-to');
      const ba = await link(space, b.id, a.id, 'relates-to');
      const detailA = await getNode(space, a.id);
      expect(detailA.outgoingLinks.map((l: any) => l.id)).to.deep.equal([ab.id]);
      expect(detailA.incomingLinks.map((l: any) => l.id)).to.deep.equal([ba.id]);
    });

    it('refuses a duplicate (409 duplicate_link) and keeps one link', async () => {
      const a = await createNode(space);
      const b = await createNode(space);
      await link(space, a.id, b.id, 'references');
      problem(await request('POST', space.path(`/context-nodes/${a.id}/links`), { token: editor.key, body: { targetId: b.id, linkType: 'references' } }), 409, 'duplicate_link');
      expect((await getNode(space, a.id)).outgoingLinks).to.have.length(1);
    });

    it('two concurrent identical links: exactly one is created', async () => {
      const a = await createNode(space);
      const b = await createNode(space);
      const replies = await Promise.all([1, 2, 3].map(() =>
        request('POST', space.path(`/context-nodes/${a.id}/links`), { token: editor.key, body: { targetId: b.id, linkType: 'requires' } })));
      expect(replies.map((r) => r.status).sort()).to.deep.equal([201, 409, 409]);
      expect((await getNode(space, a.id)).outgoingLinks).to.have.length(1);
    });

    it('refuses a self-link (400)', async () => {
      const a = await createNode(space);
      const p = problem(await request('POST', space.path(`/context-nodes/${a.id}/links`), { token: editor.key, body: { targetId: a.id, linkType: 'requires' } }), 400, 'invalid_request');
      expect(p.errors!.map((e) => e.path)).to.include('/targetId');
    });

    it('answers 404 for an unknown target or source', async () => {
      const a = await createNode(space);
      problem(await request('POST', space.path(`/context-nodes/${a.id}/links`), { token: editor.key, body: { targetId: 'cn_nope', linkType: 'requires' } }), 404, 'not_found');
      problem(await request('POST', space.path('/context-nodes/cn_nope/links'), { token: editor.key, body: { targetId: a.id, linkType: 'requires' } }), 404, 'not_found');
    });

    it('answers 404 for a target or source in another workspace, and links nothing', async () => {
      const a = await createNode(space);
      const other = await createWorkspace();
      const foreign = await createNode(other);
      problem(await request('POST', space.path(`/context-nodes/${a.id}/links`), { token: editor.key, body: { targetId: foreign.id, linkType: 'requires' } }), 404, 'not_found');
      problem(await request('POST', other.path(`/context-nodes/${foreign.id}/links`), { token: other.owner.key, body: { targetId: a.id, linkType: 'requires' } }), 404, 'not_found');
      expect((await getNode(space, a.id)).incomingLinks).to.deep.equal([]);
      expect((await getNode(other, foreign.id)).outgoingLinks).to.deep.equal([]);
    });

    it('refuses a playbook as target (404): links point at context nodes', async () => {
      const a = await createNode(space);
      const pb = await createPlaybook(space, space.owner.key);
      problem(await request('POST', space.path(`/context-nodes/${a.id}/links`), { token: editor.key, body: { targetId: pb.id, linkType: 'requires' } }), 404, 'not_found');
    });

    it('may point at an archived node', async () => {
      const a = await createNode(space);
      const b = await createNode(space);
      await archiveNode(space, b.id);
      expect((await link(space, a.id, b.id, 'supersedes')).targetId).to.equal(b.id);
    });

    const invalid: [string, Record<string, unknown>, string][] = [
      ['an unknown linkType', { targetId: 'cn_x', linkType: 'depends-on' }, '/linkType'],
      ['the relationship name as linkType', { targetId: 'cn_x', linkType: 'REQUIRES' }, '/linkType'],
      ['a missing targetId', { linkType: 'requires' }, '/targetId'],
      ['a missing linkType', { targetId: 'cn_x' }, '/linkType'],
      ['an unknown field', { targetId: 'cn_x', linkType: 'requires', origin: 'wikilink' }, '/origin'],
    ];
    for (const [what, body, path] of invalid) {
      it(`refuses ${what} (400)`, async () => {
        const a = await createNode(space);
        const p = problem(await request('POST', space.path(`/context-nodes/${a.id}/links`), { token: editor.key, body }), 400, 'invalid_request');
        expect(p.errors!.map((e) => e.path)).to.include(path);
      });
    }

    it('needs the editor role to create or delete', async () => {
      const a = await createNode(space);
      const b = await createNode(space);
      problem(await request('POST', space.path(`/context-nodes/${a.id}/links`), { token: viewer.key, body: { targetId: b.id, linkType: 'requires' } }), 403, 'insufficient_role');
      const made = await link(space, a.id, b.id, 'requires', editor.key);
      problem(await request('DELETE', space.path(`/context-nodes/${a.id}/links/${made.id}`), { token: viewer.key }), 403, 'insufficient_role');
      await unlink(space, a.id, made.id, editor.key);
    });

    it('DELETE removes the link (204) from both ends; the type can then be linked again', async () => {
      const a = await createNode(space);
      const b = await createNode(space);
      const made = await link(space, a.id, b.id, 'requires');
      const kept = await link(space, a.id, b.id, 'references');
      const res = await request('DELETE', space.path(`/context-nodes/${a.id}/links/${made.id}`), { token: editor.key });
      expect(res.status).to.equal(204);
      expect((await getNode(space, a.id)).outgoingLinks.map((l: any) => l.id)).to.deep.equal([kept.id]);
      expect((await getNode(space, b.id)).incomingLinks.map((l: any) => l.id)).to.deep.equal([kept.id]);
      problem(await request('DELETE', space.path(`/context-nodes/${a.id}/links/${made.id}`), { token: editor.key }), 404, 'not_found');
      await link(space, a.id, b.id, 'requires');
    });

    it('DELETE answers 404 for a link of another node (e.g. an incoming one) or another workspace', async () => {
      const a = await createNode(space);
      const b = await createNode(space);
      const made = await link(space, a.id, b.id, 'requires');
      problem(await request('DELETE', space.path(`/context-nodes/${b.id}/links/${made.id}`), { token: editor.key }), 404, 'not_found');
      const other = await createWorkspace();
      problem(await request('DELETE', other.path(`/context-nodes/${a.id}/links/${made.id}`), { token: other.owner.key }), 404, 'not_found');
      expect((await getNode(space, a.id)).outgoingLinks).to.have.length(1);
    });
  });

  describe('from playbooks', () => {
    it('links a playbook to a node (201), shown as incoming at the node', async () => {
      const pb = await createPlaybook(space, space.owner.key);
      const node = await createNode(space);
      const res = await request('POST', space.path(`/playbooks/${pb.id}/links`), { token: editor.key, body: { targetId: node.id, linkType: 'requires' } });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ sourceId: pb.id, sourceType: 'playbook', targetId: node.id, linkType: 'requires', origin: 'manual' });
      const detail = await getNode(space, node.id, viewer.key);
      expect(detail.incomingLinks).to.deep.equal([{ ...res.body, sections: [], title: pb.title, slug: pb.slug }]);
    });

    it('refuses a duplicate (409), a foreign or unknown target (404), an unknown playbook (404), a viewer (403)', async () => {
      const pb = await createPlaybook(space, space.owner.key);
      const node = await createNode(space);
      await linkPlaybook(space, pb.id, node.id, 'references');
      const post = (path: string, body: object, token = editor.key) => request('POST', space.path(path), { token, body });
      problem(await post(`/playbooks/${pb.id}/links`, { targetId: node.id, linkType: 'references' }), 409, 'duplicate_link');
      const other = await createWorkspace();
      const foreign = await createNode(other);
      problem(await post(`/playbooks/${pb.id}/links`, { targetId: foreign.id, linkType: 'requires' }), 404, 'not_found');
      problem(await post(`/playbooks/${pb.id}/links`, { targetId: 'cn_nope', linkType: 'requires' }), 404, 'not_found');
      problem(await post('/playbooks/pb_nope/links', { targetId: node.id, linkType: 'requires' }), 404, 'not_found');
      problem(await post(`/playbooks/${pb.id}/links`, { targetId: node.id, linkType: 'requires' }, viewer.key), 403, 'insufficient_role');
      // A node id in the playbook position is not a playbook.
      const another = await createNode(space);
      problem(await post(`/playbooks/${another.id}/links`, { targetId: node.id, linkType: 'requires' }), 404, 'not_found');
    });

    it('DELETE removes a playbook link (204); a node’s link is not found under the playbook', async () => {
      const pb = await createPlaybook(space, space.owner.key);
      const node = await createNode(space);
      const other = await createNode(space);
      const made = await linkPlaybook(space, pb.id, node.id, 'requires');
      const nodeLink = await link(space, other.id, node.id, 'requires');
      problem(await request('DELETE', space.path(`/playbooks/${pb.id}/links/${nodeLink.id}`), { token: editor.key }), 404, 'not_found');
      expect((await request('DELETE', space.path(`/playbooks/${pb.id}/links/${made.id}`), { token: editor.key })).status).to.equal(204);
      expect((await getNode(space, node.id)).incomingLinks.map((l: any) => l.id)).to.deep.equal([nodeLink.id]);
      problem(await request('DELETE', space.path(`/playbooks/${pb.id}/links/${made.id}`), { token: editor.key }), 404, 'not_found');
    });
  });

  it('moves the workspace’s graph generation on every node and link change', async () => {
    const redis = testRedis();
    try {
      const key = redisKeys.graphGeneration(space.workspaceId);
      const seen = new Set<string | null>([await redis.get(key)]);
      const changed = async (what: string) => {
        const now = await redis.get(key);
        expect(seen.has(now), `${what} moves the generation`).to.equal(false);
        seen.add(now);
      };
      const a = await createNode(space);
      await changed('create');
      const b = await createNode(space);
      await changed('create');
      const made = await link(space, a.id, b.id, 'requires');
      await changed('link');
      await unlink(space, a.id, made.id);
      await changed('unlink');
      await updateNode(space, a.id, { importance: 1 });
      await changed('update');
      await archiveNode(space, a.id);
      await changed('archive');
      await restoreNode(space, a.id);
      await changed('restore');
    } finally {
      redis.disconnect();
    }
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await request('GET', '/api/v1/openapi.json')).body;
    const ws = '/api/v1/workspaces/{workspaceId}';
    expect(doc.paths[`${ws}/context-nodes/{nodeId}/links`]).to.have.keys('post');
    expect(doc.paths[`${ws}/context-nodes/{nodeId}/links/{linkId}`]).to.have.keys('delete');
    expect(doc.paths[`${ws}/playbooks/{playbookId}/links`]).to.have.keys('post');
    expect(doc.paths[`${ws}/playbooks/{playbookId}/links/{linkId}`]).to.have.keys('delete');
  });
});
