import { expect } from 'chai';
import { type TestWorkspace, addMember, createUser, createWorkspace, problem, request } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { workspaceWithTargets } from '../support/fixtures.js';
import { createNode } from '../support/nodes.js';
import { createPlaybook } from '../support/playbooks.js';

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const send = (w: TestWorkspace, token: string, body: Record<string, unknown>) =>
  request('POST', w.path('/context/feedback'), { token, body });

const list = (w: TestWorkspace, token: string, query = '') => request('GET', w.path(`/context/feedback${query}`), { token });

const triage = (w: TestWorkspace, token: string, id: string, body: Record<string, unknown>) =>
  request('PATCH', w.path(`/context/feedback/${id}`), { token, body });

const ids = (res: { body: { feedback: { id: string }[] } }) => res.body.feedback.map((f) => f.id);

async function sent(w: TestWorkspace, token: string, body: Record<string, unknown>) {
  const res = await send(w, token, body);
  if (res.status !== 201) throw new Error(`feedback: expected 201, got ${res.status} ${res.text}`);
  return res.body;
}

describe('feedback', () => {
  it('a viewer sends feedback on a playbook: 201, open, with the author; an editor lists it', async () => {
    const { w, playbook } = await workspaceWithTargets();
    const viewer = await addMember(w, 'viewer');
    const res = await send(w, viewer.key, { targetType: 'playbook', targetId: playbook.id, feedbackType: 'outdated', summary: 'Step 2 uses the old CRM' });
    expect(res.status).to.equal(201);
    expect(Object.keys(res.body).sort()).to.deep.equal([
      'authorId', 'authorKind', 'createdAt', 'feedbackType', 'id', 'resolutionNote', 'status', 'summary', 'target', 'targetId', 'targetType', 'updatedAt',
    ]);
    expect(res.body.target).to.deep.equal({ title: playbook.title, playbookId: playbook.id, versionNumber: null });
    expect(res.body).to.include({
      targetType: 'playbook', targetId: playbook.id, feedbackType: 'outdated', summary: 'Step 2 uses the old CRM',
      status: 'open', resolutionNote: null, authorId: viewer.userId, authorKind: 'user',
    });
    expect(res.body.id).to.match(/^fb_/);
    expect(res.body.createdAt).to.match(iso);
    expect(res.body.updatedAt).to.equal(res.body.createdAt);

    const editor = await addMember(w, 'editor');
    const listed = await list(w, editor.key);
    expect(listed.status).to.equal(200);
    expect(listed.body).to.deep.equal({ feedback: [res.body], pagination: { page: 1, limit: 50, total: 1 } });
  });

  it('agent keys send feedback on context nodes and playbook versions (authorKind agent)', async () => {
    const { w, node, versionId } = await workspaceWithTargets();
    const agent = await createAgent(w, { role: 'viewer' });
    const onNode = await send(w, agent.key, { targetType: 'context_node', targetId: node.id, feedbackType: 'missing-context', summary: 'No EU pricing' });
    expect(onNode.status).to.equal(201);
    expect(onNode.body).to.include({ targetType: 'context_node', targetId: node.id, authorId: agent.agentId, authorKind: 'agent', status: 'open' });
    const onVersion = await send(w, agent.key, { targetType: 'playbook_version', targetId: versionId, feedbackType: 'helpful', summary: 'Worked well' });
    expect(onVersion.status).to.equal(201);
    expect(onVersion.body).to.include({ targetType: 'playbook_version', targetId: versionId, authorKind: 'agent' });
    expect(ids(await list(w, w.owner.key))).to.deep.equal([onVersion.body.id, onNode.body.id]);
  });

  it('names its target as it is now: a playbook or node by title, a version by its playbook and number, when sent, listed and triaged', async () => {
    const { w, playbook, versionId, node } = await workspaceWithTargets();
    const second = await request('POST', w.path(`/playbooks/${playbook.id}/versions`), { token: w.owner.key, body: { basedOnVersionId: versionId } });
    expect(second.status).to.equal(201);
    const about = (targetType: string, targetId: string) => sent(w, w.owner.key, { targetType, targetId, feedbackType: 'outdated', summary: 'Stale' });
    const onPlaybook = await about('playbook', playbook.id);
    const onVersion = await about('playbook_version', second.body.id);
    const onNode = await about('context_node', node.id);
    expect(onPlaybook.target).to.deep.equal({ title: playbook.title, playbookId: playbook.id, versionNumber: null });
    expect(onVersion.target).to.deep.equal({ title: playbook.title, playbookId: playbook.id, versionNumber: 2 });
    expect(onNode.target).to.deep.equal({ title: node.title, playbookId: null, versionNumber: null });

    const renamed = await request('PATCH', w.path(`/playbooks/${playbook.id}`), { token: w.owner.key, body: { title: 'Renamed playbook' } });
    expect(renamed.status).to.equal(200);
    const listed = await list(w, w.owner.key);
    expect(listed.body.feedback.map((f: { id: string; target: unknown }) => [f.id, f.target])).to.deep.equal([
      [onNode.id, onNode.target],
      [onVersion.id, { title: 'Renamed playbook', playbookId: playbook.id, versionNumber: 2 }],
      [onPlaybook.id, { title: 'Renamed playbook', playbookId: playbook.id, versionNumber: null }],
    ]);
    const resolved = await triage(w, w.owner.key, onVersion.id, { status: 'resolved' });
    expect(resolved.status).to.equal(200);
    expect(resolved.body.target).to.deep.equal({ title: 'Renamed playbook', playbookId: playbook.id, versionNumber: 2 });
  });

  it('every feedbackType is accepted', async () => {
    const { w, node } = await workspaceWithTargets();
    for (const feedbackType of ['incorrect', 'outdated', 'missing-context', 'helpful', 'low-signal']) {
      const res = await send(w, w.owner.key, { targetType: 'context_node', targetId: node.id, feedbackType, summary: feedbackType });
      expect(res.status, feedbackType).to.equal(201);
      expect(res.body.feedbackType).to.equal(feedbackType);
    }
  });

  it('refuses invalid bodies with 400 and the field at fault; all four fields are required', async () => {
    const { w, playbook } = await workspaceWithTargets();
    const valid = { targetType: 'playbook', targetId: playbook.id, feedbackType: 'incorrect', summary: 'Wrong' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...valid, targetType: undefined }, '/targetType'],
      [{ ...valid, targetId: undefined }, '/targetId'],
      [{ ...valid, feedbackType: undefined }, '/feedbackType'],
      [{ ...valid, summary: undefined }, '/summary'],
      [{ ...valid, targetType: 'workspace' }, '/targetType'],
      [{ ...valid, targetType: 'Playbook' }, '/targetType'],
      [{ ...valid, feedbackType: 'wrong' }, '/feedbackType'],
      [{ ...valid, feedbackType: 'missing_context' }, '/feedbackType'],
      [{ ...valid, targetId: '' }, '/targetId'],
      [{ ...valid, summary: '' }, '/summary'],
      [{ ...valid, summary: '  \n ' }, '/summary'],
      [{ ...valid, summary: 'x'.repeat(2001) }, '/summary'],
      [{ ...valid, summary: 7 }, '/summary'],
      [{ ...valid, status: 'resolved' }, '/status'],
      [{ ...valid, authorId: 'usr_x' }, '/authorId'],
    ];
    for (const [body, path] of cases) {
      const res = problem(await send(w, w.owner.key, JSON.parse(JSON.stringify(body))), 400, 'invalid_request');
      expect(res.errors!.map((e) => e.path), JSON.stringify(body).slice(0, 120)).to.include(path);
    }
    const missingAll = problem(await send(w, w.owner.key, {}), 400, 'invalid_request');
    expect(missingAll.errors!.map((e) => e.path).sort()).to.deep.equal(['/feedbackType', '/summary', '/targetId', '/targetType']);
    expect((await list(w, w.owner.key)).body.pagination.total).to.equal(0);
    expect((await send(w, w.owner.key, { ...valid, summary: 's'.repeat(2000) })).status).to.equal(201);
  });

  it('the target must exist in the workspace and be of the given type (404 otherwise)', async () => {
    const { w, playbook, node } = await workspaceWithTargets();
    const other = await createWorkspace();
    const foreignPlaybook = await createPlaybook(other, other.owner.key);
    const foreignNode = await createNode(other);
    const base = { feedbackType: 'incorrect', summary: 's' };
    const k = w.owner.key;
    expect(problem(await send(w, k, { ...base, targetType: 'playbook', targetId: 'pb_missing' }), 404, 'not_found').detail).to.match(/Playbook/);
    expect(problem(await send(w, k, { ...base, targetType: 'playbook_version', targetId: 'pbv_missing' }), 404).detail).to.match(/Playbook version/);
    expect(problem(await send(w, k, { ...base, targetType: 'context_node', targetId: 'cn_missing' }), 404).detail).to.match(/Context node/);
    problem(await send(w, k, { ...base, targetType: 'playbook', targetId: foreignPlaybook.id }), 404, 'not_found');
    problem(await send(w, k, { ...base, targetType: 'playbook_version', targetId: foreignPlaybook.versions[0].id }), 404, 'not_found');
    problem(await send(w, k, { ...base, targetType: 'context_node', targetId: foreignNode.id }), 404, 'not_found');
    problem(await send(w, k, { ...base, targetType: 'context_node', targetId: playbook.id }), 404, 'not_found');
    problem(await send(w, k, { ...base, targetType: 'playbook', targetId: node.id }), 404, 'not_found');
    expect((await list(w, k)).body.pagination.total).to.equal(0);
    expect((await list(other, other.owner.key)).body.pagination.total).to.equal(0);
  });

  it('lists newest first, with filters on status, targetType, targetId and feedbackType, and pages', async () => {
    const { w, playbook, node, versionId } = await workspaceWithTargets();
    const k = w.owner.key;
    const f1 = await sent(w, k, { targetType: 'playbook', targetId: playbook.id, feedbackType: 'incorrect', summary: '1' });
    const f2 = await sent(w, k, { targetType: 'context_node', targetId: node.id, feedbackType: 'outdated', summary: '2' });
    const f3 = await sent(w, k, { targetType: 'playbook_version', targetId: versionId, feedbackType: 'helpful', summary: '3' });
    const f4 = await sent(w, k, { targetType: 'context_node', targetId: node.id, feedbackType: 'incorrect', summary: '4' });
    const f5 = await sent(w, k, { targetType: 'context_node', targetId: node.id, feedbackType: 'low-signal', summary: '5' });
    expect((await triage(w, k, f2.id, { status: 'resolved' })).status).to.equal(200);
    expect((await triage(w, k, f5.id, { status: 'dismissed' })).status).to.equal(200);

    expect(ids(await list(w, k))).to.deep.equal([f5.id, f4.id, f3.id, f2.id, f1.id]);
    expect(ids(await list(w, k, '?status=open'))).to.deep.equal([f4.id, f3.id, f1.id]);
    expect(ids(await list(w, k, '?status=resolved'))).to.deep.equal([f2.id]);
    expect(ids(await list(w, k, '?status=dismissed'))).to.deep.equal([f5.id]);
    expect(ids(await list(w, k, '?targetType=context_node'))).to.deep.equal([f5.id, f4.id, f2.id]);
    expect(ids(await list(w, k, `?targetId=${versionId}`))).to.deep.equal([f3.id]);
    expect(ids(await list(w, k, '?feedbackType=incorrect'))).to.deep.equal([f4.id, f1.id]);
    expect(ids(await list(w, k, `?status=open&targetType=context_node&targetId=${node.id}&feedbackType=incorrect`))).to.deep.equal([f4.id]);
    expect(ids(await list(w, k, '?targetId=cn_nothing'))).to.deep.equal([]);

    const page1 = await list(w, k, '?limit=2');
    const page2 = await list(w, k, '?limit=2&page=2');
    const page3 = await list(w, k, '?limit=2&page=3');
    expect(page1.body.pagination).to.deep.equal({ page: 1, limit: 2, total: 5 });
    expect(page3.body.pagination).to.deep.equal({ page: 3, limit: 2, total: 5 });
    expect([...ids(page1), ...ids(page2), ...ids(page3)]).to.deep.equal([f5.id, f4.id, f3.id, f2.id, f1.id]);
    expect(ids(await list(w, k, '?limit=2&page=4'))).to.deep.equal([]);

    for (const bad of ['?status=closed', '?targetType=agent', '?feedbackType=great', '?limit=0', '?limit=201', '?page=0', '?page=x', '?sort=createdAt']) {
      problem(await list(w, k, bad), 400, 'invalid_request');
    }
  });

  it('an editor triages: resolve with a note, reopen keeping it, dismiss, clear the note', async () => {
    const { w, node } = await workspaceWithTargets();
    const editor = await addMember(w, 'editor');
    const f = await sent(w, w.owner.key, { targetType: 'context_node', targetId: node.id, feedbackType: 'incorrect', summary: 'Wrong price' });

    const resolved = await triage(w, editor.key, f.id, { status: 'resolved', resolutionNote: 'Fixed the price' });
    expect(resolved.status).to.equal(200);
    expect(resolved.body).to.deep.include({ ...f, status: 'resolved', resolutionNote: 'Fixed the price', updatedAt: resolved.body.updatedAt });
    expect(resolved.body.updatedAt >= f.createdAt).to.equal(true);
    expect(resolved.body.createdAt).to.equal(f.createdAt);

    const reopened = await triage(w, editor.key, f.id, { status: 'open' });
    expect(reopened.body).to.include({ status: 'open', resolutionNote: 'Fixed the price' });

    const dismissed = await triage(w, w.owner.key, f.id, { status: 'dismissed', resolutionNote: null });
    expect(dismissed.body).to.include({ status: 'dismissed', resolutionNote: null });

    const stored = (await list(w, editor.key)).body.feedback;
    expect(stored).to.deep.equal([dismissed.body]);
  });

  it('triage validation: status required and known, note limits, unknown fields, missing feedback 404', async () => {
    const { w, node } = await workspaceWithTargets();
    const other = await createWorkspace();
    const f = await sent(w, w.owner.key, { targetType: 'context_node', targetId: node.id, feedbackType: 'incorrect', summary: 's' });
    const k = w.owner.key;
    const cases: [Record<string, unknown>, string][] = [
      [{}, '/status'],
      [{ resolutionNote: 'n' }, '/status'],
      [{ status: 'closed' }, '/status'],
      [{ status: 'resolved', resolutionNote: '' }, '/resolutionNote'],
      [{ status: 'resolved', resolutionNote: 'n'.repeat(2001) }, '/resolutionNote'],
      [{ status: 'resolved', summary: 'changed' }, '/summary'],
      [{ status: 'resolved', feedbackType: 'helpful' }, '/feedbackType'],
    ];
    for (const [body, path] of cases) {
      const res = problem(await triage(w, k, f.id, body), 400, 'invalid_request');
      expect(res.errors!.map((e) => e.path), JSON.stringify(body).slice(0, 80)).to.include(path);
    }
    problem(await triage(w, k, 'fb_missing', { status: 'resolved' }), 404, 'not_found');
    problem(await triage(other, other.owner.key, f.id, { status: 'resolved' }), 404, 'not_found');
    expect((await list(w, k)).body.feedback[0]).to.deep.equal(f);
  });

  it('triage is for editors: a viewer (user or agent key) gets 403 on list and PATCH; an editor agent may triage', async () => {
    const { w, node } = await workspaceWithTargets();
    const viewer = await addMember(w, 'viewer');
    const viewerAgent = await createAgent(w, { role: 'viewer' });
    const editorAgent = await createAgent(w, { role: 'editor' });
    const f = await sent(w, viewerAgent.key, { targetType: 'context_node', targetId: node.id, feedbackType: 'outdated', summary: 's' });

    problem(await list(w, viewer.key), 403, 'insufficient_role');
    problem(await list(w, viewerAgent.key), 403, 'insufficient_role');
    problem(await triage(w, viewer.key, f.id, { status: 'resolved' }), 403, 'insufficient_role');
    problem(await triage(w, viewerAgent.key, f.id, { status: 'dismissed' }), 403, 'insufficient_role');
    expect((await list(w, w.owner.key)).body.feedback[0].status).to.equal('open');

    const byAgent = await triage(w, editorAgent.key, f.id, { status: 'resolved', resolutionNote: 'Updated' });
    expect(byAgent.status).to.equal(200);
    expect(ids(await list(w, editorAgent.key, '?status=resolved'))).to.deep.equal([f.id]);
  });

  it('non-members cannot send or read feedback', async () => {
    const { w, node } = await workspaceWithTargets();
    const stranger = await createUser();
    problem(await send(w, stranger.key, { targetType: 'context_node', targetId: node.id, feedbackType: 'helpful', summary: 's' }), 404, 'not_found');
    problem(await list(w, stranger.key), 404, 'not_found');
    problem(await request('POST', w.path('/context/feedback'), { body: { targetType: 'context_node', targetId: node.id, feedbackType: 'helpful', summary: 's' } }), 401);
  });

  it('documents the feedback endpoints in the OpenAPI document', async () => {
    const doc = (await request('GET', '/api/v1/openapi.json')).body;
    const base = '/api/v1/workspaces/{workspaceId}/context/feedback';
    expect(Object.keys(doc.paths[base])).to.include.members(['get', 'post']);
    expect(doc.paths[`${base}/{feedbackId}`]).to.have.property('patch');
  });
});
