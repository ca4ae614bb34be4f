import { expect } from 'chai';
import { redisKeys } from '../../src/gate/redis-keys.js';
import { type TestWorkspace, addMember, createUser, createWorkspace, problem, request } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { workspaceWithTargets } from '../support/fixtures.js';
import { env, testRedis } from '../support/harness.js';
import { createNode, linkPlaybook } from '../support/nodes.js';
import { createPlaybook } from '../support/playbooks.js';

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const annotate = (w: TestWorkspace, token: string, body: Record<string, unknown>) =>
  request('POST', w.path('/context/annotations'), { token, body });

const list = (w: TestWorkspace, token: string, query = '') => request('GET', w.path(`/context/annotations${query}`), { token });

const ids = (res: { body: { annotations: { id: string }[] } }) => res.body.annotations.map((a) => a.id);

async function created(w: TestWorkspace, token: string, body: Record<string, unknown>) {
  const res = await annotate(w, token, body);
  if (res.status !== 201) throw new Error(`annotate: expected 201, got ${res.status} ${res.text}`);
  return res.body;
}

describe('annotations', () => {
  it('a user annotates a playbook: 201 with source human and the user as author, then lists it', async () => {
    const { w, playbook } = await workspaceWithTargets();
    const res = await annotate(w, w.owner.key, {
      targetType: 'playbook', targetId: playbook.id, scopeType: 'workspace_overlay', title: 'Watch the tone', content: 'Keep it **friendly**.',
    });
    expect(res.status).to.equal(201);
    expect(Object.keys(res.body).sort()).to.deep.equal(
      ['authorId', 'content', 'createdAt', 'id', 'scopeType', 'source', 'targetId', 'targetType', 'title'],
    );
    expect(res.body).to.include({
      targetType: 'playbook', targetId: playbook.id, scopeType: 'workspace_overlay', title: 'Watch the tone',
      content: 'Keep it **friendly**.', source: 'human', authorId: w.owner.userId,
    });
    expect(res.body.id).to.match(/^ann_/);
    expect(res.body.createdAt).to.match(iso);

    const listed = await list(w, w.owner.key);
    expect(listed.status).to.equal(200);
    expect(listed.body).to.deep.equal({ annotations: [res.body], pagination: { page: 1, limit: 50, total: 1 } });
  });

  it('an agent (even a viewer) annotates a context node and a playbook version: source agent, the agent as author', async () => {
    const { w, node, versionId } = await workspaceWithTargets();
    const agent = await createAgent(w, { role: 'viewer' });
    const onNode = await annotate(w, agent.key, {
      targetType: 'context_node', targetId: node.id, scopeType: 'workspace_overlay', title: 'Stale numbers', content: 'Q3 figures are old',
    });
    expect(onNode.status).to.equal(201);
    expect(onNode.body).to.include({ targetType: 'context_node', targetId: node.id, source: 'agent', authorId: agent.agentId });

    const onVersion = await annotate(w, agent.key, {
      targetType: 'playbook_version', targetId: versionId, scopeType: 'agent_local', title: 'Step 3', content: 'Skip step 3 for EU', source: 'agent',
    });
    expect(onVersion.status).to.equal(201);
    expect(onVersion.body).to.include({ targetType: 'playbook_version', targetId: versionId, scopeType: 'agent_local', source: 'agent', authorId: agent.agentId });

    expect(ids(await list(w, agent.key))).to.deep.equal([onNode.body.id, onVersion.body.id]);
  });

  it('source is derived from the caller: a matching value is accepted, a contradicting one is 400', async () => {
    const { w, playbook } = await workspaceWithTargets();
    const agent = await createAgent(w);
    const body = { targetType: 'playbook', targetId: playbook.id, scopeType: 'workspace_overlay', title: 't', content: 'c' };

    expect((await annotate(w, w.owner.key, { ...body, source: 'human' })).body.source).to.equal('human');
    const userClaimsAgent = problem(await annotate(w, w.owner.key, { ...body, source: 'agent' }), 400, 'invalid_request');
    expect(userClaimsAgent.errors![0].path).to.equal('/source');

    const agentClaimsHuman = problem(await annotate(w, agent.key, { ...body, source: 'human' }), 400, 'invalid_request');
    expect(agentClaimsHuman.errors![0].path).to.equal('/source');
    problem(await annotate(w, agent.key, { ...body, source: 'robot' }), 400, 'invalid_request');

    // Nothing refused was stored.
    const listed = await list(w, w.owner.key);
    expect(listed.body.annotations.map((a: { source: string }) => a.source)).to.deep.equal(['human']);
  });

  it('agent_local annotations are seen only by their author; workspace_overlay ones by everyone', async () => {
    const { w, playbook } = await workspaceWithTargets();
    const editor = await addMember(w, 'editor');
    const agentA = await createAgent(w, { role: 'editor' });
    const agentB = await createAgent(w, { role: 'editor' });
    const target = { targetType: 'playbook', targetId: playbook.id };
    const localA = await created(w, agentA.key, { ...target, scopeType: 'agent_local', title: 'A private', content: 'only A' });
    const overlayA = await created(w, agentA.key, { ...target, scopeType: 'workspace_overlay', title: 'A public', content: 'all' });
    const localOwner = await created(w, w.owner.key, { ...target, scopeType: 'agent_local', title: 'Owner private', content: 'only owner' });

    expect(ids(await list(w, agentA.key))).to.deep.equal([localA.id, overlayA.id]);
    expect(ids(await list(w, agentB.key))).to.deep.equal([overlayA.id]);
    expect(ids(await list(w, w.owner.key))).to.deep.equal([overlayA.id, localOwner.id]);
    expect(ids(await list(w, editor.key))).to.deep.equal([overlayA.id]);
    // The agent's sponsor (the owner) does not see its private notes either, nor the agent its sponsor's.
    expect(agentA.sponsor.userId).to.equal(w.owner.userId);

    // Filters keep to what the caller may see.
    const onlyLocal = await list(w, agentB.key, `?scopeType=agent_local&targetId=${playbook.id}`);
    expect(onlyLocal.body).to.deep.equal({ annotations: [], pagination: { page: 1, limit: 50, total: 0 } });
    expect((await list(w, agentA.key, '?scopeType=agent_local')).body.annotations).to.deep.equal([localA]);
  });

  it('lists oldest first with filters on targetType and targetId, paged with page and limit', async () => {
    const { w, playbook, node, versionId } = await workspaceWithTargets();
    const k = w.owner.key;
    const base = { scopeType: 'workspace_overlay', title: 't', content: 'c' };
    const a1 = await created(w, k, { ...base, targetType: 'playbook', targetId: playbook.id });
    const a2 = await created(w, k, { ...base, targetType: 'context_node', targetId: node.id });
    const a3 = await created(w, k, { ...base, targetType: 'playbook_version', targetId: versionId });
    const a4 = await created(w, k, { ...base, targetType: 'context_node', targetId: node.id });

    expect(ids(await list(w, k))).to.deep.equal([a1.id, a2.id, a3.id, a4.id]);
    expect(ids(await list(w, k, '?targetType=context_node'))).to.deep.equal([a2.id, a4.id]);
    expect(ids(await list(w, k, `?targetId=${versionId}`))).to.deep.equal([a3.id]);
    expect(ids(await list(w, k, `?targetType=playbook&targetId=${node.id}`))).to.deep.equal([]);
    expect(ids(await list(w, k, '?targetId=cn_doesnotexist'))).to.deep.equal([]);

    const page2 = await list(w, k, '?limit=3&page=2');
    expect(page2.body.pagination).to.deep.equal({ page: 2, limit: 3, total: 4 });
    expect(ids(page2)).to.deep.equal([a4.id]);
    expect(ids(await list(w, k, '?limit=3&page=3'))).to.deep.equal([]);

    problem(await list(w, k, '?limit=201'), 400, 'invalid_request');
    problem(await list(w, k, '?page=0'), 400, 'invalid_request');
    problem(await list(w, k, '?targetType=workspace'), 400, 'invalid_request');
    problem(await list(w, k, '?scopeType=private'), 400, 'invalid_request');
    const unknown = problem(await list(w, k, '?sort=title'), 400, 'invalid_request');
    expect(unknown.errors![0].path).to.equal('/sort');
  });

  it('the target must exist in the workspace and be of the given type (404 otherwise)', async () => {
    const { w, playbook, node, versionId } = await workspaceWithTargets();
    const other = await createWorkspace();
    const foreignPlaybook = await createPlaybook(other, other.owner.key);
    const foreignNode = await createNode(other);
    const base = { scopeType: 'workspace_overlay', title: 't', content: 'c' };
    const k = w.owner.key;

    expect(problem(await annotate(w, k, { ...base, targetType: 'playbook', targetId: 'pb_missing' }), 404, 'not_found').detail).to.match(/Playbook/);
    expect(problem(await annotate(w, k, { ...base, targetType: 'playbook_version', targetId: 'pbv_missing' }), 404).detail).to.match(/Playbook version/);
    expect(problem(await annotate(w, k, { ...base, targetType: 'context_node', targetId: 'cn_missing' }), 404).detail).to.match(/Context node/);
    problem(await annotate(w, k, { ...base, targetType: 'playbook', targetId: foreignPlaybook.id }), 404, 'not_found');
    problem(await annotate(w, k, { ...base, targetType: 'playbook_version', targetId: foreignPlaybook.versions[0].id }), 404, 'not_found');
    problem(await annotate(w, k, { ...base, targetType: 'context_node', targetId: foreignNode.id }), 404, 'not_found');
    // A real target named with the wrong type.
    problem(await annotate(w, k, { ...base, targetType: 'playbook', targetId: node.id }), 404, 'not_found');
    problem(await annotate(w, k, { ...base, targetType: 'context_node', targetId: playbook.id }), 404, 'not_found');
    problem(await annotate(w, k, { ...base, targetType: 'playbook', targetId: versionId }), 404, 'not_found');

    expect((await list(w, k)).body.pagination.total).to.equal(0);
    expect((await list(other, other.owner.key)).body.pagination.total).to.equal(0);
  });

  it('archived targets can still be annotated', async () => {
    const { w, playbook, node } = await workspaceWithTargets();
    expect((await request('DELETE', w.path(`/context-nodes/${node.id}`), { token: w.owner.key })).status).to.equal(204);
    expect((await request('DELETE', w.path(`/playbooks/${playbook.id}`), { token: w.owner.key })).status).to.equal(204);
    const base = { scopeType: 'workspace_overlay', title: 't', content: 'c' };
    expect((await annotate(w, w.owner.key, { ...base, targetType: 'context_node', targetId: node.id })).status).to.equal(201);
    expect((await annotate(w, w.owner.key, { ...base, targetType: 'playbook', targetId: playbook.id })).status).to.equal(201);
  });

  it('refuses invalid bodies with 400 and the field at fault', async () => {
    const { w, playbook } = await workspaceWithTargets();
    const valid = { targetType: 'playbook', targetId: playbook.id, scopeType: 'workspace_overlay', title: 'Title', content: 'Content' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...valid, targetType: undefined }, '/targetType'],
      [{ ...valid, targetId: undefined }, '/targetId'],
      [{ ...valid, scopeType: undefined }, '/scopeType'],
      [{ ...valid, title: undefined }, '/title'],
      [{ ...valid, content: undefined }, '/content'],
      [{ ...valid, targetType: 'workspace' }, '/targetType'],
      [{ ...valid, scopeType: 'private' }, '/scopeType'],
      [{ ...valid, targetId: '' }, '/targetId'],
      [{ ...valid, targetId: 42 }, '/targetId'],
      [{ ...valid, title: '' }, '/title'],
      [{ ...valid, title: '   ' }, '/title'],
      [{ ...valid, title: 'x'.repeat(201) }, '/title'],
      [{ ...valid, content: '' }, '/content'],
      [{ ...valid, content: ' \n\t ' }, '/content'],
      [{ ...valid, content: 'x'.repeat(20_001) }, '/content'],
      [{ ...valid, content: { text: 'x' } }, '/content'],
      [{ ...valid, authorId: 'usr_someone' }, '/authorId'],
      [{ ...valid, id: 'ann_mine' }, '/id'],
    ];
    for (const [body, path] of cases) {
      const res = problem(await annotate(w, w.owner.key, JSON.parse(JSON.stringify(body))), 400, 'invalid_request');
      expect(res.errors!.map((e) => e.path), JSON.stringify(body).slice(0, 120)).to.include(path);
    }
    problem(await request('POST', w.path('/context/annotations'), { token: w.owner.key, rawBody: '{"title":', headers: { 'content-type': 'application/json' } }), 400);
    expect((await list(w, w.owner.key)).body.pagination.total).to.equal(0);

    const longest = await annotate(w, w.owner.key, { ...valid, title: 't'.repeat(200), content: 'c'.repeat(20_000) });
    expect(longest.status).to.equal(201);
    expect(longest.body.content).to.have.length(20_000);
  });

  it('delete: the author or an editor; someone else’s agent_local annotation is 404 even to an owner', async () => {
    const { w, playbook } = await workspaceWithTargets();
    const viewer = await addMember(w, 'viewer');
    const editor = await addMember(w, 'editor');
    const agent = await createAgent(w, { role: 'viewer' });
    const editorAgent = await createAgent(w, { role: 'editor' });
    const target = { targetType: 'playbook', targetId: playbook.id, title: 't', content: 'c' };
    const byViewer = await created(w, viewer.key, { ...target, scopeType: 'workspace_overlay' });
    const byAgent = await created(w, agent.key, { ...target, scopeType: 'workspace_overlay' });
    const agentLocal = await created(w, agent.key, { ...target, scopeType: 'agent_local' });
    const viewerLocal = await created(w, viewer.key, { ...target, scopeType: 'agent_local' });
    const path = (id: string) => w.path(`/context/annotations/${id}`);

    // A viewer may not delete what someone else wrote, but sees it.
    problem(await request('DELETE', path(byViewer.id), { token: agent.key }), 403, 'insufficient_role');
    problem(await request('DELETE', path(byAgent.id), { token: viewer.key }), 403, 'insufficient_role');
    // Private notes of others do not exist for the caller, whatever the role.
    problem(await request('DELETE', path(agentLocal.id), { token: w.owner.key }), 404, 'not_found');
    problem(await request('DELETE', path(agentLocal.id), { token: editorAgent.key }), 404, 'not_found');
    problem(await request('DELETE', path(viewerLocal.id), { token: editor.key }), 404, 'not_found');
    problem(await request('DELETE', path('ann_missing'), { token: w.owner.key }), 404, 'not_found');

    // The author deletes its own, an editor (user or agent) someone else's overlay.
    expect((await request('DELETE', path(agentLocal.id), { token: agent.key })).status).to.equal(204);
    expect((await request('DELETE', path(viewerLocal.id), { token: viewer.key })).status).to.equal(204);
    expect((await request('DELETE', path(byViewer.id), { token: editor.key })).status).to.equal(204);
    expect((await request('DELETE', path(byAgent.id), { token: editorAgent.key })).status).to.equal(204);

    problem(await request('DELETE', path(byAgent.id), { token: w.owner.key }), 404, 'not_found');
    expect(ids(await list(w, agent.key))).to.deep.equal([]);
    expect(ids(await list(w, viewer.key))).to.deep.equal([]);
  });

  it('an annotation of another workspace is 404, and non-members cannot reach the endpoints', async () => {
    const { w, playbook } = await workspaceWithTargets();
    const other = await createWorkspace();
    const mine = await created(w, w.owner.key, { targetType: 'playbook', targetId: playbook.id, scopeType: 'workspace_overlay', title: 't', content: 'c' });
    problem(await request('DELETE', other.path(`/context/annotations/${mine.id}`), { token: other.owner.key }), 404, 'not_found');
    const stranger = await createUser();
    problem(await list(w, stranger.key), 404, 'not_found');
    problem(await annotate(w, stranger.key, { targetType: 'playbook', targetId: playbook.id, scopeType: 'workspace_overlay', title: 't', content: 'c' }), 404);
    problem(await request('GET', w.path('/context/annotations')), 401, 'unauthorized');
    expect(ids(await list(w, w.owner.key))).to.deep.equal([mine.id]);
  });

  it('changes the graph generation after a create and a delete, not after a refused request', async () => {
    const { w, playbook } = await workspaceWithTargets();
    const viewer = await addMember(w, 'viewer');
    const redis = testRedis();
    try {
      const generation = async () => redis.get(redisKeys.graphGeneration(w.workspaceId));
      const before = await generation();
      const a = await created(w, w.owner.key, { targetType: 'playbook', targetId: playbook.id, scopeType: 'workspace_overlay', title: 't', content: 'c' });
      const afterCreate = await generation();
      expect(afterCreate).to.be.a('string').and.not.equal(before);
      problem(await annotate(w, w.owner.key, { targetType: 'playbook', targetId: 'pb_missing', scopeType: 'workspace_overlay', title: 't', content: 'c' }), 404);
      problem(await request('DELETE', w.path(`/context/annotations/${a.id}`), { token: viewer.key }), 403);
      expect(await generation()).to.equal(afterCreate);
      expect((await request('DELETE', w.path(`/context/annotations/${a.id}`), { token: w.owner.key })).status).to.equal(204);
      expect(await generation()).to.be.a('string').and.not.equal(afterCreate);
    } finally {
      redis.disconnect();
    }
  });

  it('a bundle carries what its caller may see on the playbook, its versions and the returned nodes, oldest first', async () => {
    const { w, playbook, node, versionId } = await workspaceWithTargets();
    await linkPlaybook(w, playbook.id, node.id, 'references');
    const other = await createNode(w);
    const agentA = await createAgent(w);
    const agentB = await createAgent(w);
    const base = { title: 't', content: 'c' };
    const onPlaybook = await created(w, w.owner.key, { ...base, targetType: 'playbook', targetId: playbook.id, scopeType: 'workspace_overlay' });
    const localA = await created(w, agentA.key, { ...base, targetType: 'context_node', targetId: node.id, scopeType: 'agent_local' });
    const onVersion = await created(w, agentB.key, { ...base, targetType: 'playbook_version', targetId: versionId, scopeType: 'workspace_overlay' });
    const localB = await created(w, agentB.key, { ...base, targetType: 'context_node', targetId: node.id, scopeType: 'agent_local' });
    // On a node the bundle does not return: never included.
    await created(w, w.owner.key, { ...base, targetType: 'context_node', targetId: other.id, scopeType: 'workspace_overlay' });

    const seenBy = async (token: string) =>
      (await request('GET', w.path(`/context/bundle?playbookId=${playbook.id}`), { token })).body.annotations;
    expect(await seenBy(agentA.key)).to.deep.equal([onPlaybook, localA, onVersion]);
    expect(await seenBy(agentB.key)).to.deep.equal([onPlaybook, onVersion, localB]);
    expect(await seenBy(w.owner.key)).to.deep.equal([onPlaybook, onVersion]);
  });

  it('documents the annotation endpoints in the OpenAPI document', async () => {
    const doc = (await request('GET', '/api/v1/openapi.json')).body;
    const base = '/api/v1/workspaces/{workspaceId}/context/annotations';
    expect(Object.keys(doc.paths[base])).to.include.members(['get', 'post']);
    expect(doc.paths[`${base}/{annotationId}`]).to.have.property('delete');
  });
});
