import { expect } from 'chai';
import { addMember, createWorkspace, problem, request } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { createPlaybook, createVersion, getPlaybook } from '../support/playbooks.js';

const rollback = (path: string, token: string, body?: unknown) => request('POST', path, { token, body });

describe('rolling a playbook back to an older version', () => {
  it('creates a new draft whose content equals the old version’s, leaves the approved version alone, and approving it makes it current', async () => {
    const w = await createWorkspace();
    const editor = await addMember(w, 'editor');
    const pb = await createPlaybook(w, w.owner.key, { version: { content: { instructions: 'First way', steps: ['a', 'b'] }, changeNote: 'v1' } });
    const v1 = pb.versions[0];
    expect((await request('PATCH', w.path(`/playbooks/${pb.id}/versions/${v1.id}/approve`), { token: w.owner.key })).status).to.equal(200);
    const v2 = await createVersion(w, w.owner.key, pb.id, { content: { instructions: 'Second way' } });
    expect((await request('PATCH', w.path(`/playbooks/${pb.id}/versions/${v2.id}/approve`), { token: w.owner.key })).status).to.equal(200);

    const res = await rollback(w.path(`/playbooks/${pb.id}/versions/${v1.id}/rollback`), editor.key, { changeNote: 'Back to the first way' });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ versionNumber: 3, status: 'draft', changeNote: 'Back to the first way', createdBy: editor.userId, approvedAt: null });
    expect(res.body.content).to.deep.equal({ instructions: 'First way', steps: ['a', 'b'] });
    expect(res.body.id).to.match(/^pbv_/);
    // The same shape as a created version, and what is stored.
    expect(Object.keys(res.body).sort()).to.deep.equal(Object.keys(v2).sort());
    expect((await request('GET', w.path(`/playbooks/${pb.id}/versions/${res.body.id}`), { token: w.owner.key })).body).to.deep.equal(res.body);

    let detail = await getPlaybook(w, w.owner.key, pb.id);
    expect(detail.activeVersion).to.deep.equal({ id: v2.id, versionNumber: 2 });
    expect(detail.latestVersion).to.deep.equal({ id: res.body.id, versionNumber: 3, status: 'draft' });
    expect(detail.versions.map((v: any) => [v.versionNumber, v.status])).to.deep.equal([[3, 'draft'], [2, 'approved'], [1, 'deprecated']]);
    // The source version is untouched.
    expect(detail.versions[2]).to.deep.equal({ ...v1, status: 'deprecated', approvedAt: detail.versions[2].approvedAt });

    const approved = await request('PATCH', w.path(`/playbooks/${pb.id}/versions/${res.body.id}/approve`), { token: w.owner.key });
    expect(approved.status, approved.text).to.equal(200);
    detail = await getPlaybook(w, w.owner.key, pb.id);
    expect(detail.activeVersion).to.deep.equal({ id: res.body.id, versionNumber: 3 });
    expect(detail.versions.map((v: any) => v.status)).to.deep.equal(['approved', 'deprecated', 'deprecated']);
  });

  it('takes no body at all, records one playbook.version.rolled_back event naming the source version, and moves the graph generation', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w, { role: 'editor' });
    const pb = await createPlaybook(w, w.owner.key);
    const before = await request('GET', w.path(`/playbooks/${pb.id}`), { token: w.owner.key });
    const res = await request('POST', w.path(`/playbooks/${pb.id}/versions/${pb.versions[0].id}/rollback`), { token: agent.key, headers: { 'x-request-id': `rb-${pb.id}` } });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ versionNumber: 2, status: 'draft', changeNote: null, createdBy: agent.agentId });
    const events = await request('GET', w.path(`/audit-events?action=playbook.version.rolled_back`), { token: w.owner.key });
    expect(events.body.events).to.have.length(1);
    expect(events.body.events[0]).to.deep.include({
      requestId: `rb-${pb.id}`,
      targetIds: [pb.id, res.body.id],
      after: { versionNumber: 2, status: 'draft', changeNote: null, rolledBackToVersionId: pb.versions[0].id },
    });
    // A cached read of the playbook is not served again: the new version shows.
    const after = await request('GET', w.path(`/playbooks/${pb.id}`), { token: w.owner.key, headers: { 'if-none-match': before.headers.get('etag')! } });
    expect(after.status).to.equal(200);
    expect(after.body.versions).to.have.length(2);
  });

  it('404s an unknown version, a version of another playbook or workspace; viewers get 403; an archived playbook 409', async () => {
    const w = await createWorkspace();
    const other = await createWorkspace();
    const viewer = await addMember(w, 'viewer');
    const pb = await createPlaybook(w, w.owner.key);
    const sibling = await createPlaybook(w, w.owner.key);
    const foreign = await createPlaybook(other, other.owner.key);
    const path = (versionId: string, playbookId = pb.id) => w.path(`/playbooks/${playbookId}/versions/${versionId}/rollback`);
    problem(await rollback(path('pbv_doesnotexist'), w.owner.key), 404, 'not_found');
    problem(await rollback(path(sibling.versions[0].id), w.owner.key), 404, 'not_found');
    problem(await rollback(path(foreign.versions[0].id), w.owner.key), 404, 'not_found');
    problem(await rollback(path(foreign.versions[0].id, foreign.id), w.owner.key), 404, 'not_found');
    problem(await rollback(path(pb.versions[0].id), viewer.key), 403, 'insufficient_role');
    problem(await rollback(path(pb.versions[0].id), w.owner.key, { changeNote: 'x'.repeat(2001) }), 400);
    problem(await rollback(path(pb.versions[0].id), w.owner.key, { content: {} }), 400);
    expect((await getPlaybook(w, w.owner.key, pb.id)).versions).to.have.length(1);
    expect((await request('DELETE', w.path(`/playbooks/${pb.id}`), { token: w.owner.key })).status).to.equal(204);
    problem(await rollback(path(pb.versions[0].id), w.owner.key), 409, 'conflict');
  });
});
