import { expect } from 'chai';
import { type TestWorkspace, addMember, createUser, createWorkspace, problem, request, unique } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { createPlaybook, createVersion, getPlaybook } from '../support/playbooks.js';
import { slugify } from '../../src/api/slug.js';
import { redisKeys } from '../../src/gate/redis-keys.js';
import { env, testRedis } from '../support/harness.js';

const content = { instructions: 'Plan the launch', steps: ['brief', 'review'], owner: { team: 'marketing' } };

describe('slugify', () => {
  it('lowercases, folds accents and joins words with single hyphens', () => {
    expect(slugify('Quarterly Launch Plan!')).to.equal('quarterly-launch-plan');
    expect(slugify('  Crème Brûlée -- Über Straße  ')).to.equal('creme-brulee-uber-strasse');
    expect(slugify('***')).to.equal('');
  });
});

describe('playbooks', () => {
  let space: TestWorkspace;
  let owner: string;
  let editor: { userId: string; key: string };
  let viewer: { userId: string; key: string };

  before(async () => {
    space = await createWorkspace();
    owner = space.owner.key;
    editor = await addMember(space, 'editor');
    viewer = await addMember(space, 'viewer');
  });

  describe('create', () => {
    it('creates the playbook with its draft version 1, owned by the caller', async () => {
      const res = await request('POST', space.path('/playbooks'), {
        token: editor.key,
        body: {
          title: 'Quarterly Launch Plan!',
          summary: 'How we launch',
          description: '# Launch\nSteps',
          functionArea: 'marketing',
          tags: ['launch', 'q3', 'launch'],
          version: { content, changeNote: 'first cut' },
        },
      });
      expect(res.status).to.equal(201);
      const pb = res.body;
      expect(pb.id).to.match(/^pb_/);
      expect(pb).to.include({
        title: 'Quarterly Launch Plan!', slug: 'quarterly-launch-plan', summary: 'How we launch', description: '# Launch\nSteps',
        functionArea: 'marketing', visibility: 'workspace_private', ownerId: editor.userId, archivedAt: null, workspaceId: space.workspaceId,
      });
      expect(pb.tags).to.deep.equal(['launch', 'q3']);
      expect(pb.versions).to.have.length(1);
      const [v1] = pb.versions;
      expect(v1).to.include({ versionNumber: 1, status: 'draft', changeNote: 'first cut', createdBy: editor.userId, approvedAt: null });
      expect(v1.id).to.match(/^pbv_/);
      expect(v1.content).to.deep.equal(content);
      expect(pb.latestVersion).to.deep.equal({ id: v1.id, versionNumber: 1, status: 'draft' });
      expect(pb.activeVersion).to.equal(null);
      expect(pb.contextNodes).to.deep.equal([]);
      expect(pb.createdAt).to.equal(pb.updatedAt);

      const stored = await getPlaybook(space, viewer.key, pb.id);
      expect(stored).to.deep.equal(pb);
    });

    it('leaves optional text fields null and visibility workspace_private by default', async () => {
      const pb = await createPlaybook(space, editor.key, { title: 'Bare' + unique() });
      expect(pb).to.include({ summary: null, description: null, functionArea: null, visibility: 'workspace_private' });
      expect(pb.tags).to.deep.equal([]);
      expect(pb.versions[0].changeNote).to.equal(null);
    });

    it('generates slugs from titles, appending -2, -3 when taken', async () => {
      const title = `Crème Brûlée ${unique('launch')}!`;
      const expected = slugify(title);
      const first = await createPlaybook(space, editor.key, { title });
      const second = await createPlaybook(space, editor.key, { title });
      const third = await createPlaybook(space, editor.key, { title });
      expect(first.slug).to.equal(expected);
      expect(expected).to.match(/^creme-brulee-launch-[a-z0-9]+$/);
      expect(second.slug).to.equal(`${expected}-2`);
      expect(third.slug).to.equal(`${expected}-3`);
    });

    it('falls back to the slug "playbook" when the title has no letters or digits it can keep', async () => {
      const ws = await createWorkspace();
      const a = await createPlaybook(ws, ws.owner.key, { title: '!!!' });
      const b = await createPlaybook(ws, ws.owner.key, { title: '🚀 — ✨' });
      expect([a.slug, b.slug]).to.deep.equal(['playbook', 'playbook-2']);
    });

    it('refuses an explicit slug that is taken (409) or malformed (400)', async () => {
      const slug = unique('taken');
      await createPlaybook(space, editor.key, { slug });
      const again = await request('POST', space.path('/playbooks'), { token: editor.key, body: { title: 'Other', slug, version: { content } } });
      problem(again, 409, 'slug_taken');
      const bad = await request('POST', space.path('/playbooks'), { token: editor.key, body: { title: 'Other', slug: 'Not A Slug', version: { content } } });
      expect(problem(bad, 400, 'invalid_request').errors![0].path).to.equal('/slug');
    });

    it('gives 10 parallel creations with one title 10 distinct auto slugs', async () => {
      const ws = await createWorkspace();
      const title = 'Parallel Launch';
      const replies = await Promise.all(
        Array.from({ length: 10 }, () => request('POST', ws.path('/playbooks'), { token: ws.owner.key, body: { title, version: { content } } })),
      );
      expect(replies.map((r) => r.status)).to.deep.equal(Array(10).fill(201));
      const slugs = replies.map((r) => r.body.slug).sort();
      expect(slugs).to.deep.equal(['parallel-launch', ...Array.from({ length: 9 }, (_, i) => `parallel-launch-${i + 2}`)].sort());
      const listed = await request('GET', ws.path('/playbooks?limit=200'), { token: ws.owner.key });
      expect(listed.body.pagination.total).to.equal(10);
    });

    it('rejects ownerId, unknown fields, a missing title or version, and non-object content', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ title: 'T', ownerId: editor.userId, version: { content } }, '/ownerId'],
        [{ title: 'T', colour: 'red', version: { content } }, '/colour'],
        [{ version: { content } }, '/title'],
        [{ title: '', version: { content } }, '/title'],
        [{ title: 'x'.repeat(201), version: { content } }, '/title'],
        [{ title: 'T' }, '/version'],
        [{ title: 'T', version: {} }, '/version/content'],
        [{ title: 'T', version: { content: ['not', 'an', 'object'] } }, '/version/content'],
        [{ title: 'T', version: { content: 'text' } }, '/version/content'],
        [{ title: 'T', visibility: 'public', version: { content } }, '/visibility'],
        [{ title: 'T', tags: [''], version: { content } }, '/tags/0'],
      ];
      for (const [body, path] of cases) {
        const res = await request('POST', space.path('/playbooks'), { token: editor.key, body });
        const p = problem(res, 400, 'invalid_request');
        expect(p.errors!.map((e) => e.path), JSON.stringify(body)).to.include(path);
      }
    });

    it('makes the sponsor the owner when an agent creates it, and records the agent as the version author', async () => {
      const sponsor = await addMember(space, 'editor');
      const agent = await createAgent(space, { role: 'editor', sponsor });
      const pb = await createPlaybook(space, agent.key);
      expect(pb.ownerId).to.equal(sponsor.userId);
      expect(pb.versions[0].createdBy).to.equal(agent.agentId);
      const viewerAgent = await createAgent(space, { role: 'viewer' });
      problem(await request('POST', space.path('/playbooks'), { token: viewerAgent.key, body: { title: 'T', version: { content } } }), 403, 'insufficient_role');
      expect((await request('GET', space.path(`/playbooks/${pb.id}`), { token: viewerAgent.key })).status).to.equal(200);
    });

    it('needs the editor role', async () => {
      const res = await request('POST', space.path('/playbooks'), { token: viewer.key, body: { title: 'T', version: { content } } });
      problem(res, 403, 'insufficient_role');
    });

    it('needs a key and membership', async () => {
      problem(await request('POST', space.path('/playbooks'), { body: { title: 'T', version: { content } } }), 401);
      const stranger = await createUser();
      problem(await request('GET', space.path('/playbooks'), { token: stranger.key }), 404, 'not_found');
    });
  });

  describe('detail and versions', () => {
    it('lists versions newest first with latestVersion and activeVersion', async () => {
      const pb = await createPlaybook(space, editor.key);
      const v2 = await createVersion(space, editor.key, pb.id, { changeNote: 'second' });
      const approved = await request('PATCH', space.path(`/playbooks/${pb.id}/versions/${v2.id}/approve`), { token: editor.key });
      expect(approved.status).to.equal(200);
      const v3 = await createVersion(space, editor.key, pb.id);
      const detail = await getPlaybook(space, viewer.key, pb.id);
      expect(detail.versions.map((v: any) => v.versionNumber)).to.deep.equal([3, 2, 1]);
      expect(detail.versions.map((v: any) => v.status)).to.deep.equal(['draft', 'approved', 'draft']);
      expect(detail.latestVersion).to.deep.equal({ id: v3.id, versionNumber: 3, status: 'draft' });
      expect(detail.activeVersion).to.deep.equal({ id: v2.id, versionNumber: 2 });
    });

    it('creates a draft version numbered one above the highest, leaving the approved one active', async () => {
      const pb = await createPlaybook(space, editor.key);
      await request('PATCH', space.path(`/playbooks/${pb.id}/versions/${pb.versions[0].id}/approve`), { token: editor.key });
      const res = await request('POST', space.path(`/playbooks/${pb.id}/versions`), { token: editor.key, body: { content, changeNote: 'more' } });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ versionNumber: 2, status: 'draft', changeNote: 'more', createdBy: editor.userId, approvedAt: null });
      expect(res.body.content).to.deep.equal(content);
      const one = await request('GET', space.path(`/playbooks/${pb.id}/versions/${res.body.id}`), { token: viewer.key });
      expect(one.status).to.equal(200);
      expect(one.body).to.deep.equal(res.body);
      const detail = await getPlaybook(space, viewer.key, pb.id);
      expect(detail.activeVersion).to.deep.equal({ id: pb.versions[0].id, versionNumber: 1 });
      expect(detail.updatedAt > pb.updatedAt).to.equal(true);
    });

    it('copies the content of basedOnVersionId (roll back)', async () => {
      const pb = await createPlaybook(space, editor.key, { version: { content } });
      await createVersion(space, editor.key, pb.id, { content: { instructions: 'something else' } });
      const res = await request('POST', space.path(`/playbooks/${pb.id}/versions`), {
        token: editor.key, body: { basedOnVersionId: pb.versions[0].id, changeNote: 'roll back to 1' },
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ versionNumber: 3, status: 'draft', changeNote: 'roll back to 1' });
      expect(res.body.content).to.deep.equal(content);
    });

    it('answers 404 for a basedOnVersionId of another playbook, 400 for both or neither of content and basedOnVersionId', async () => {
      const pb = await createPlaybook(space, editor.key);
      const other = await createPlaybook(space, editor.key);
      const path = space.path(`/playbooks/${pb.id}/versions`);
      problem(await request('POST', path, { token: editor.key, body: { basedOnVersionId: other.versions[0].id } }), 404, 'not_found');
      problem(await request('POST', path, { token: editor.key, body: { basedOnVersionId: 'pbv_nope' } }), 404, 'not_found');
      problem(await request('POST', path, { token: editor.key, body: { content, basedOnVersionId: pb.versions[0].id } }), 400, 'invalid_request');
      problem(await request('POST', path, { token: editor.key, body: { changeNote: 'nothing' } }), 400, 'invalid_request');
      problem(await request('POST', path, { token: editor.key, body: { content, extra: 1 } }), 400, 'invalid_request');
      problem(await request('POST', path, { token: viewer.key, body: { content } }), 403, 'insufficient_role');
      problem(await request('POST', space.path('/playbooks/pb_nope/versions'), { token: editor.key, body: { content } }), 404, 'not_found');
      expect((await getPlaybook(space, viewer.key, pb.id)).versions).to.have.length(1);
    });

    it('answers 404 for a version of another playbook or an unknown playbook', async () => {
      const a = await createPlaybook(space, editor.key);
      const b = await createPlaybook(space, editor.key);
      problem(await request('GET', space.path(`/playbooks/${a.id}/versions/${b.versions[0].id}`), { token: viewer.key }), 404, 'not_found');
      problem(await request('GET', space.path('/playbooks/pb_nope'), { token: viewer.key }), 404, 'not_found');
    });

    it('gives 10 parallel version creations the numbers 2..11, distinct and gap-free', async () => {
      const pb = await createPlaybook(space, editor.key);
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, i) => request('POST', space.path(`/playbooks/${pb.id}/versions`), { token: editor.key, body: { content: { i } } })),
      );
      expect(replies.map((r) => r.status)).to.deep.equal(Array(10).fill(201));
      expect(replies.map((r) => r.body.versionNumber).sort((a, b) => a - b)).to.deep.equal([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      const detail = await getPlaybook(space, viewer.key, pb.id);
      expect(detail.versions.map((v: any) => v.versionNumber)).to.deep.equal([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    });
  });

  describe('approval', () => {
    it('approving a second version deprecates the first', async () => {
      const pb = await createPlaybook(space, editor.key);
      const v1 = pb.versions[0];
      const first = await request('PATCH', space.path(`/playbooks/${pb.id}/versions/${v1.id}/approve`), { token: editor.key });
      expect(first.status).to.equal(200);
      expect(first.body).to.include({ id: v1.id, status: 'approved' });
      expect(first.body.approvedAt).to.be.a('string');
      const v2 = await createVersion(space, editor.key, pb.id);
      const second = await request('PATCH', space.path(`/playbooks/${pb.id}/versions/${v2.id}/approve`), { token: editor.key });
      expect(second.body).to.include({ id: v2.id, status: 'approved' });
      const old = await request('GET', space.path(`/playbooks/${pb.id}/versions/${v1.id}`), { token: viewer.key });
      expect(old.body).to.include({ status: 'deprecated', approvedAt: first.body.approvedAt });
      const detail = await getPlaybook(space, viewer.key, pb.id);
      expect(detail.activeVersion).to.deep.equal({ id: v2.id, versionNumber: 2 });
    });

    it('refuses to approve a version that is not a draft (409 version_not_draft)', async () => {
      const pb = await createPlaybook(space, editor.key);
      const v1 = pb.versions[0];
      const approve = (id: string) => request('PATCH', space.path(`/playbooks/${pb.id}/versions/${id}/approve`), { token: editor.key });
      await approve(v1.id);
      problem(await approve(v1.id), 409, 'version_not_draft');
      const v2 = await createVersion(space, editor.key, pb.id);
      await approve(v2.id);
      problem(await approve(v1.id), 409, 'version_not_draft');
      const stored = await request('GET', space.path(`/playbooks/${pb.id}/versions/${v1.id}`), { token: viewer.key });
      expect(stored.body.status).to.equal('deprecated');
    });

    it('needs the editor role, and 404s unknown versions', async () => {
      const pb = await createPlaybook(space, editor.key);
      problem(await request('PATCH', space.path(`/playbooks/${pb.id}/versions/${pb.versions[0].id}/approve`), { token: viewer.key }), 403, 'insufficient_role');
      problem(await request('PATCH', space.path(`/playbooks/${pb.id}/versions/pbv_nope/approve`), { token: editor.key }), 404, 'not_found');
      const other = await createPlaybook(space, editor.key);
      problem(await request('PATCH', space.path(`/playbooks/${pb.id}/versions/${other.versions[0].id}/approve`), { token: editor.key }), 404, 'not_found');
      expect((await getPlaybook(space, viewer.key, pb.id)).versions[0].status).to.equal('draft');
    });

    it('leaves exactly one approved version when 10 approvals of different drafts race', async () => {
      const pb = await createPlaybook(space, editor.key);
      const drafts = await Promise.all(Array.from({ length: 10 }, () => createVersion(space, editor.key, pb.id)));
      const replies = await Promise.all(
        drafts.map((v) => request('PATCH', space.path(`/playbooks/${pb.id}/versions/${v.id}/approve`), { token: editor.key })),
      );
      // Approvals run one after another: each found its version still a draft.
      expect(replies.map((r) => r.status)).to.deep.equal(Array(10).fill(200));
      const detail = await getPlaybook(space, viewer.key, pb.id);
      const approved = detail.versions.filter((v: any) => v.status === 'approved');
      expect(approved).to.have.length(1);
      expect(detail.versions.filter((v: any) => v.status === 'deprecated')).to.have.length(9);
      expect(detail.activeVersion.id).to.equal(approved[0].id);
    });

    it('lets exactly one of 10 racing approvals of the same draft succeed', async () => {
      const pb = await createPlaybook(space, editor.key);
      const v2 = await createVersion(space, editor.key, pb.id);
      const replies = await Promise.all(
        Array.from({ length: 10 }, () => request('PATCH', space.path(`/playbooks/${pb.id}/versions/${v2.id}/approve`), { token: editor.key })),
      );
      expect(replies.filter((r) => r.status === 200)).to.have.length(1);
      for (const r of replies.filter((x) => x.status !== 200)) problem(r, 409, 'version_not_draft');
    });
  });

  describe('update', () => {
    it('changes metadata without creating a version', async () => {
      const pb = await createPlaybook(space, editor.key, { summary: 'old', functionArea: 'sales', tags: ['a'] });
      const member = await addMember(space, 'viewer');
      const res = await request('PATCH', space.path(`/playbooks/${pb.id}`), {
        token: editor.key,
        body: {
          title: 'Renamed', slug: unique('renamed'), summary: null, description: 'new description', functionArea: 'ops',
          visibility: 'parent_readonly', tags: ['b', 'c', 'b'], ownerId: member.userId,
        },
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ title: 'Renamed', summary: null, description: 'new description', functionArea: 'ops', visibility: 'parent_readonly', ownerId: member.userId });
      expect(res.body.tags).to.deep.equal(['b', 'c']);
      expect(res.body.versions).to.have.length(1);
      expect(res.body.updatedAt > pb.updatedAt).to.equal(true);
      expect(res.body.createdAt).to.equal(pb.createdAt);
      expect(await getPlaybook(space, viewer.key, pb.id)).to.deep.equal(res.body);
    });

    it('keeps the slug when only the title changes', async () => {
      const pb = await createPlaybook(space, editor.key);
      const res = await request('PATCH', space.path(`/playbooks/${pb.id}`), { token: editor.key, body: { title: 'Something new' } });
      expect(res.body.slug).to.equal(pb.slug);
    });

    it('an empty body changes nothing', async () => {
      const pb = await createPlaybook(space, editor.key);
      const res = await request('PATCH', space.path(`/playbooks/${pb.id}`), { token: editor.key, body: {} });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(pb);
    });

    it('refuses an owner who is not a member (400), a taken slug (409), unknown fields (400) and viewers (403)', async () => {
      const pb = await createPlaybook(space, editor.key);
      const other = await createPlaybook(space, editor.key);
      const outsider = await createUser();
      const path = space.path(`/playbooks/${pb.id}`);
      const notMember = problem(await request('PATCH', path, { token: editor.key, body: { ownerId: outsider.userId } }), 400, 'invalid_request');
      expect(notMember.errors![0].path).to.equal('/ownerId');
      problem(await request('PATCH', path, { token: editor.key, body: { slug: other.slug } }), 409, 'slug_taken');
      problem(await request('PATCH', path, { token: editor.key, body: { versions: [] } }), 400, 'invalid_request');
      problem(await request('PATCH', path, { token: editor.key, body: { title: null } }), 400, 'invalid_request');
      problem(await request('PATCH', path, { token: viewer.key, body: { title: 'x' } }), 403, 'insufficient_role');
      problem(await request('PATCH', space.path('/playbooks/pb_nope'), { token: editor.key, body: { title: 'x' } }), 404, 'not_found');
      expect(await getPlaybook(space, viewer.key, pb.id)).to.deep.equal(pb);
    });
  });

  describe('archive and restore', () => {
    it('archives (owner only), hiding it from lists but keeping it readable by id, and restores it', async () => {
      const ws = await createWorkspace();
      const wsEditor = await addMember(ws, 'editor');
      const pb = await createPlaybook(ws, wsEditor.key);
      problem(await request('DELETE', ws.path(`/playbooks/${pb.id}`), { token: wsEditor.key }), 403, 'insufficient_role');

      const del = await request('DELETE', ws.path(`/playbooks/${pb.id}`), { token: ws.owner.key });
      expect(del.status).to.equal(204);
      expect(del.text).to.equal('');
      const listed = await request('GET', ws.path('/playbooks'), { token: wsEditor.key });
      expect(listed.body.playbooks).to.deep.equal([]);
      expect(listed.body.pagination.total).to.equal(0);
      const archived = await getPlaybook(ws, wsEditor.key, pb.id);
      expect(archived.archivedAt).to.be.a('string');
      expect(archived.versions).to.have.length(1);

      // Archived playbooks are read-only until restored; archiving again changes nothing.
      problem(await request('PATCH', ws.path(`/playbooks/${pb.id}`), { token: wsEditor.key, body: { title: 'x' } }), 409, 'conflict');
      problem(await request('POST', ws.path(`/playbooks/${pb.id}/versions`), { token: wsEditor.key, body: { content } }), 409, 'conflict');
      problem(await request('PATCH', ws.path(`/playbooks/${pb.id}/versions/${pb.versions[0].id}/approve`), { token: wsEditor.key }), 409, 'conflict');
      expect((await request('DELETE', ws.path(`/playbooks/${pb.id}`), { token: ws.owner.key })).status).to.equal(204);
      expect((await getPlaybook(ws, wsEditor.key, pb.id)).archivedAt).to.equal(archived.archivedAt);

      // Its slug stays reserved while archived.
      const clash = await request('POST', ws.path('/playbooks'), { token: wsEditor.key, body: { title: 'x', slug: pb.slug, version: { content } } });
      problem(clash, 409, 'slug_taken');

      problem(await request('POST', ws.path(`/playbooks/${pb.id}/restore`), { token: wsEditor.key }), 403, 'insufficient_role');
      const restored = await request('POST', ws.path(`/playbooks/${pb.id}/restore`), { token: ws.owner.key });
      expect(restored.status).to.equal(200);
      expect(restored.body.archivedAt).to.equal(null);
      const again = await request('GET', ws.path('/playbooks'), { token: wsEditor.key });
      expect(again.body.playbooks.map((p: any) => p.id)).to.deep.equal([pb.id]);
    });

    it('404s unknown playbooks', async () => {
      problem(await request('DELETE', space.path('/playbooks/pb_nope'), { token: owner }), 404, 'not_found');
      problem(await request('POST', space.path('/playbooks/pb_nope/restore'), { token: owner }), 404, 'not_found');
    });
  });

  describe('list', () => {
    let ws: TestWorkspace;
    let other: { userId: string; key: string };
    const made: any[] = [];

    before(async () => {
      ws = await createWorkspace();
      other = await addMember(ws, 'editor');
      // Created one after another, so updatedAt and createdAt increase in this order.
      made.push(await createPlaybook(ws, ws.owner.key, { title: 'banana', functionArea: 'sales' }));
      made.push(await createPlaybook(ws, other.key, { title: 'Apple', functionArea: 'ops' }));
      made.push(await createPlaybook(ws, ws.owner.key, { title: 'cherry', functionArea: 'sales' }));
      const approved = await request('PATCH', ws.path(`/playbooks/${made[1].id}/versions/${made[1].versions[0].id}/approve`), { token: ws.owner.key });
      expect(approved.status).to.equal(200);
    });

    const ids = (res: any) => res.body.playbooks.map((p: any) => p.id);
    const list = (query = '') => request('GET', ws.path(`/playbooks${query}`), { token: ws.owner.key });

    it('q keeps playbooks whose title, slug or summary contains the text, ignoring case, and counts only those', async () => {
      const res = await list('?q=ANAN');
      expect(res.status).to.equal(200);
      expect(ids(res)).to.deep.equal([made[0].id]);
      expect(res.body.pagination.total).to.equal(1);
      expect(ids(await list('?q=apple'))).to.deep.equal([made[1].id]);
      expect(ids(await list('?q=%20'))).to.have.length(3);
      expect(ids(await list('?q=nothing-like-it'))).to.deep.equal([]);
      expect((await list(`?q=${'x'.repeat(201)}`)).status).to.equal(400);
    });

    it('sorts by updated_at descending by default, with list item fields and pagination', async () => {
      const res = await list();
      expect(res.status).to.equal(200);
      expect(ids(res)).to.deep.equal([made[1].id, made[2].id, made[0].id]);
      expect(res.body.pagination).to.deep.equal({ page: 1, limit: 50, total: 3 });
      const item = res.body.playbooks[0];
      expect(Object.keys(item).sort()).to.deep.equal(
        ['activeVersion', 'createdAt', 'functionArea', 'id', 'latestVersion', 'ownerId', 'slug', 'summary', 'tags', 'title', 'updatedAt', 'visibility'].sort(),
      );
      expect(item.latestVersion).to.deep.equal({ id: made[1].versions[0].id, versionNumber: 1, status: 'approved' });
      expect(item.activeVersion).to.deep.equal({ id: made[1].versions[0].id, versionNumber: 1 });
      expect(res.body.playbooks[1].activeVersion).to.equal(null);
    });

    it('sorts by title ignoring case, and by created_at, in either order', async () => {
      expect(ids(await list('?sort=title&order=asc'))).to.deep.equal([made[1].id, made[0].id, made[2].id]);
      expect(ids(await list('?sort=title'))).to.deep.equal([made[2].id, made[0].id, made[1].id]);
      expect(ids(await list('?sort=created_at&order=asc'))).to.deep.equal([made[0].id, made[1].id, made[2].id]);
    });

    it('filters by status, function_area and owner', async () => {
      expect(ids(await list('?status=approved'))).to.deep.equal([made[1].id]);
      expect(ids(await list('?status=draft&sort=created_at&order=asc'))).to.deep.equal([made[0].id, made[2].id]);
      expect(ids(await list('?status=deprecated'))).to.deep.equal([]);
      expect(ids(await list('?function_area=sales&sort=created_at&order=asc'))).to.deep.equal([made[0].id, made[2].id]);
      expect(ids(await list(`?owner=${other.userId}`))).to.deep.equal([made[1].id]);
      const none = await list('?owner=usr_nobody');
      expect(none.status).to.equal(200);
      expect(none.body).to.deep.equal({ playbooks: [], pagination: { page: 1, limit: 50, total: 0 } });
    });

    it('pages without overlap, ties broken by id', async () => {
      const tied = await createWorkspace();
      for (let i = 0; i < 5; i += 1) await createPlaybook(tied, tied.owner.key, { title: 'Same title' });
      const seen: string[] = [];
      for (let page = 1; page <= 3; page += 1) {
        const res = await request('GET', tied.path(`/playbooks?sort=title&order=asc&limit=2&page=${page}`), { token: tied.owner.key });
        expect(res.body.pagination).to.deep.equal({ page, limit: 2, total: 5 });
        seen.push(...ids(res));
      }
      expect(seen).to.deep.equal([...seen].sort());
      expect(new Set(seen).size).to.equal(5);
      const beyond = await request('GET', tied.path('/playbooks?page=9&limit=2'), { token: tied.owner.key });
      expect(beyond.body.playbooks).to.deep.equal([]);
      expect(beyond.body.pagination.total).to.equal(5);
    });

    it('rejects bad query parameters', async () => {
      for (const q of ['?limit=0', '?limit=201', '?page=0', '?sort=slug', '?order=up', '?status=live', '?colour=red', '?limit=x', '?sort=title&sort=created_at']) {
        problem(await list(q), 400, 'invalid_request');
      }
      expect((await list('?limit=200')).status).to.equal(200);
    });

    it('answers the largest documented page with the largest limit as an empty page, and refuses a page past it', async () => {
      const last = await list('?page=1000000&limit=200');
      expect(last.status).to.equal(200);
      expect(last.body.playbooks).to.deep.equal([]);
      expect(last.body.pagination).to.deep.equal({ page: 1_000_000, limit: 200, total: 3 });
      for (const q of ['?page=1000001', '?page=99999999999999999999']) problem(await list(q), 400, 'invalid_request');
    });

    it('is readable by viewers and scoped to the workspace', async () => {
      const v = await addMember(ws, 'viewer');
      const res = await request('GET', ws.path('/playbooks'), { token: v.key });
      expect(res.body.pagination.total).to.equal(3);
      problem(await request('GET', space.path(`/playbooks/${made[0].id}`), { token: owner }), 404, 'not_found');
      problem(await request('PATCH', space.path(`/playbooks/${made[0].id}`), { token: owner, body: { title: 'x' } }), 404, 'not_found');
      problem(await request('DELETE', space.path(`/playbooks/${made[0].id}`), { token: owner }), 404, 'not_found');
    });
  });

  describe('parent_readonly visibility', () => {
    let parent: TestWorkspace;
    let child: TestWorkspace;
    let shared: any;
    let hidden: any;

    before(async () => {
      parent = await createWorkspace();
      child = await createWorkspace({ parentWorkspaceId: parent.workspaceId });
      shared = await createPlaybook(child, child.owner.key, { visibility: 'parent_readonly' });
      hidden = await createPlaybook(child, child.owner.key);
    });

    it('lets members of the parent read the playbook and its versions', async () => {
      const parentViewer = await addMember(parent, 'viewer');
      const res = await request('GET', parent.path(`/playbooks/${shared.id}`), { token: parentViewer.key });
      expect(res.status).to.equal(200);
      expect(res.body.workspaceId).to.equal(child.workspaceId);
      expect(res.body.id).to.equal(shared.id);
      const v = await request('GET', parent.path(`/playbooks/${shared.id}/versions/${shared.versions[0].id}`), { token: parentViewer.key });
      expect(v.status).to.equal(200);
      expect(v.body.id).to.equal(shared.versions[0].id);
    });

    it('keeps workspace_private playbooks from the parent', async () => {
      problem(await request('GET', parent.path(`/playbooks/${hidden.id}`), { token: parent.owner.key }), 404, 'not_found');
      problem(await request('GET', parent.path(`/playbooks/${hidden.id}/versions/${hidden.versions[0].id}`), { token: parent.owner.key }), 404, 'not_found');
    });

    it('never lets the parent write, nor lists the playbook there', async () => {
      const p = parent.owner.key;
      problem(await request('PATCH', parent.path(`/playbooks/${shared.id}`), { token: p, body: { title: 'hijack' } }), 404, 'not_found');
      problem(await request('PATCH', parent.path(`/playbooks/${shared.id}`), { token: p, body: {} }), 404, 'not_found');
      problem(await request('POST', parent.path(`/playbooks/${shared.id}/versions`), { token: p, body: { content } }), 404, 'not_found');
      problem(await request('PATCH', parent.path(`/playbooks/${shared.id}/versions/${shared.versions[0].id}/approve`), { token: p }), 404, 'not_found');
      problem(await request('DELETE', parent.path(`/playbooks/${shared.id}`), { token: p }), 404, 'not_found');
      problem(await request('POST', parent.path(`/playbooks/${shared.id}/restore`), { token: p }), 404, 'not_found');
      const listed = await request('GET', parent.path('/playbooks'), { token: p });
      expect(listed.body.playbooks).to.deep.equal([]);
      const after = await getPlaybook(child, child.owner.key, shared.id);
      expect(after).to.deep.equal(shared);
    });

    it('does not reach a grandparent, nor a sibling', async () => {
      const grandchild = await createWorkspace({ parentWorkspaceId: child.workspaceId });
      const deep = await createPlaybook(grandchild, grandchild.owner.key, { visibility: 'parent_readonly' });
      problem(await request('GET', parent.path(`/playbooks/${deep.id}`), { token: parent.owner.key }), 404, 'not_found');
      expect((await request('GET', child.path(`/playbooks/${deep.id}`), { token: child.owner.key })).status).to.equal(200);
      const sibling = await createWorkspace({ parentWorkspaceId: parent.workspaceId });
      problem(await request('GET', sibling.path(`/playbooks/${shared.id}`), { token: sibling.owner.key }), 404, 'not_found');
    });

    it('stops being readable from the parent once switched back to workspace_private', async () => {
      const pb = await createPlaybook(child, child.owner.key, { visibility: 'parent_readonly' });
      expect((await request('GET', parent.path(`/playbooks/${pb.id}`), { token: parent.owner.key })).status).to.equal(200);
      await request('PATCH', child.path(`/playbooks/${pb.id}`), { token: child.owner.key, body: { visibility: 'workspace_private' } });
      problem(await request('GET', parent.path(`/playbooks/${pb.id}`), { token: parent.owner.key }), 404, 'not_found');
    });
  });

  it('lists the context nodes the playbook links to, with linkId and the API spelling of the link type', async () => {
    const ws = await createWorkspace();
    const pb = await createPlaybook(ws, ws.owner.key);
    const node = async (title: string, nodeType: string) => {
      const res = await request('POST', ws.path('/context-nodes'), { token: ws.owner.key, body: { title, description: 'd', nodeType } });
      expect(res.status, res.text).to.equal(201);
      return res.body;
    };
    const brand = await node('Brand voice', 'brand');
    const process = await node('Approval process', 'process');
    const link = async (targetId: string, linkType: string) => {
      const res = await request('POST', ws.path(`/playbooks/${pb.id}/links`), { token: ws.owner.key, body: { targetId, linkType } });
      expect(res.status, res.text).to.equal(201);
      return res.body;
    };
    const l1 = await link(brand.id, 'requires');
    const l2 = await link(process.id, 'relates-to');
    const l3 = await link(process.id, 'index-entry');
    const detail = await getPlaybook(ws, ws.owner.key, pb.id);
    const byLink = Object.fromEntries(detail.contextNodes.map((n: any) => [n.linkId, n]));
    expect(detail.contextNodes).to.have.length(3);
    expect(byLink[l1.id]).to.include({ linkType: 'requires', id: brand.id, title: 'Brand voice', slug: 'brand-voice', nodeType: 'brand' });
    expect(byLink[l2.id]).to.include({ linkType: 'relates-to', id: process.id, title: 'Approval process', slug: 'approval-process', nodeType: 'process' });
    expect(byLink[l3.id]).to.include({ linkType: 'index-entry', id: process.id });
    expect(detail.contextNodes[0].id).to.equal(process.id); // by title
    expect(detail.versions).to.have.length(1);
  });

  it('bumps the workspace graph generation after every committed change, and not after a refused one', async () => {
    const ws = await createWorkspace();
    const redis = testRedis();
    try {
      const generation = () => redis.get(redisKeys.graphGeneration(ws.workspaceId));
      const k = ws.owner.key;
      const seen = new Set<string | null>([await generation()]);
      const changes = async (write: () => Promise<unknown>) => {
        await write();
        const now = await generation();
        expect(seen.has(now), 'generation changed').to.equal(false);
        seen.add(now);
      };
      let pb: any;
      await changes(async () => (pb = await createPlaybook(ws, k)));
      let v2: any;
      await changes(async () => (v2 = await createVersion(ws, k, pb.id)));
      await changes(() => request('PATCH', ws.path(`/playbooks/${pb.id}/versions/${v2.id}/approve`), { token: k }));
      await changes(() => request('PATCH', ws.path(`/playbooks/${pb.id}`), { token: k, body: { title: 'New' } }));
      await changes(() => request('DELETE', ws.path(`/playbooks/${pb.id}`), { token: k }));
      await changes(() => request('POST', ws.path(`/playbooks/${pb.id}/restore`), { token: k }));
      const before = await generation();
      problem(await request('PATCH', ws.path(`/playbooks/${pb.id}/versions/${v2.id}/approve`), { token: k }), 409);
      expect(await generation()).to.equal(before);
    } finally {
      redis.disconnect();
    }
  });

  it('documents every playbook endpoint in the OpenAPI document', async () => {
    const doc = (await request('GET', '/api/v1/openapi.json')).body;
    const base = '/api/v1/workspaces/{workspaceId}/playbooks';
    expect(Object.keys(doc.paths[base])).to.include.members(['get', 'post']);
    expect(Object.keys(doc.paths[`${base}/{playbookId}`])).to.include.members(['get', 'patch', 'delete']);
    expect(doc.paths[`${base}/{playbookId}/restore`]).to.have.property('post');
    expect(doc.paths[`${base}/{playbookId}/versions`]).to.have.property('post');
    expect(doc.paths[`${base}/{playbookId}/versions/{versionId}`]).to.have.property('get');
    expect(doc.paths[`${base}/{playbookId}/versions/{versionId}/approve`]).to.have.property('patch');
  });
});
