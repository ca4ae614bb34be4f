import { expect } from 'chai';
import { addMember, createUser, createWorkspace, problem, request } from '../support/api.js';

describe('workspaces and members', () => {
  it('a member reads the workspace with their own role', async () => {
    const w = await createWorkspace({ plan: 'team' });
    const viewer = await addMember(w, 'viewer');
    const res = await request('GET', w.path(), { token: viewer.key });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ id: w.workspaceId, plan: 'team', role: 'viewer', parentWorkspaceId: null });
    expect(res.body.createdAt).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('usage starts at zero for the current UTC month with the plan limit', async () => {
    const w = await createWorkspace();
    const res = await request('GET', w.path('/usage'), { token: w.owner.key });
    expect(res.status).to.equal(200);
    const now = new Date();
    const period = now.toISOString().slice(0, 7);
    expect(res.body).to.deep.equal({
      period,
      used: 0,
      limit: 1000,
      remaining: 1000,
      resetsAt: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      days: Array.from({ length: now.getUTCDate() }, (_, i) => ({ date: `${period}-${String(i + 1).padStart(2, '0')}`, retrievals: 0 })),
    });
  });

  it('a non-member gets 404 for a workspace that exists, the same as for one that does not', async () => {
    const w = await createWorkspace();
    const stranger = await createUser();
    const hidden = problem(await request('GET', w.path(), { token: stranger.key }), 404, 'not_found');
    const missing = problem(await request('GET', '/api/v1/workspaces/ws_doesnotexist', { token: stranger.key }), 404, 'not_found');
    expect(hidden.detail).to.equal(missing.detail);
  });

  it('lists members, and an owner adds, re-roles and removes them', async () => {
    const w = await createWorkspace();
    const user = await createUser('Newcomer');
    const added = await request('POST', w.path('/members'), { token: w.owner.key, body: { userId: user.userId, role: 'editor' } });
    expect(added.status).to.equal(201);
    expect(added.body).to.include({ userId: user.userId, email: user.email, name: 'Newcomer', role: 'editor' });

    const list = await request('GET', w.path('/members'), { token: user.key });
    expect(list.status).to.equal(200);
    expect(list.body.members.map((m: { userId: string; role: string }) => [m.userId, m.role])).to.deep.equal([
      [w.owner.userId, 'owner'],
      [user.userId, 'editor'],
    ]);

    const changed = await request('PATCH', w.path(`/members/${user.userId}`), { token: w.owner.key, body: { role: 'viewer' } });
    expect(changed.status).to.equal(200);
    expect(changed.body.role).to.equal('viewer');
    expect((await request('GET', w.path(), { token: user.key })).body.role).to.equal('viewer');

    const removed = await request('DELETE', w.path(`/members/${user.userId}`), { token: w.owner.key });
    expect(removed.status).to.equal(204);
    problem(await request('GET', w.path(), { token: user.key }), 404);
  });

  it('adding an existing member is 409, an unknown user 400', async () => {
    const w = await createWorkspace();
    const editor = await addMember(w, 'editor');
    problem(await request('POST', w.path('/members'), { token: w.owner.key, body: { userId: editor.userId, role: 'viewer' } }), 409, 'already_member');
    const res = problem(await request('POST', w.path('/members'), { token: w.owner.key, body: { userId: 'usr_ghost', role: 'viewer' } }), 400);
    expect(res.errors![0].path).to.equal('/userId');
  });

  it('only an owner manages members; any member may leave', async () => {
    const w = await createWorkspace();
    const editor = await addMember(w, 'editor');
    const viewer = await addMember(w, 'viewer');
    const other = await createUser();
    problem(await request('POST', w.path('/members'), { token: editor.key, body: { userId: other.userId, role: 'viewer' } }), 403, 'insufficient_role');
    problem(await request('PATCH', w.path(`/members/${viewer.userId}`), { token: editor.key, body: { role: 'owner' } }), 403, 'insufficient_role');
    problem(await request('DELETE', w.path(`/members/${viewer.userId}`), { token: editor.key }), 403, 'insufficient_role');
    expect((await request('DELETE', w.path(`/members/${viewer.userId}`), { token: viewer.key })).status).to.equal(204);
    const left = await request('GET', w.path('/members'), { token: w.owner.key });
    expect(left.body.members.map((m: { userId: string }) => m.userId)).not.to.include(viewer.userId);
  });

  it('the last owner can be neither demoted nor removed', async () => {
    const w = await createWorkspace();
    problem(await request('PATCH', w.path(`/members/${w.owner.userId}`), { token: w.owner.key, body: { role: 'editor' } }), 409, 'last_owner');
    problem(await request('DELETE', w.path(`/members/${w.owner.userId}`), { token: w.owner.key }), 409, 'last_owner');
    const second = await addMember(w, 'owner');
    expect((await request('DELETE', w.path(`/members/${w.owner.userId}`), { token: second.key })).status).to.equal(204);
    problem(await request('DELETE', w.path(`/members/${second.userId}`), { token: second.key }), 409, 'last_owner');
  });

  it('two owners demoting each other at once leave exactly one owner', async () => {
    const w = await createWorkspace();
    const second = await addMember(w, 'owner');
    const [a, b] = await Promise.all([
      request('PATCH', w.path(`/members/${second.userId}`), { token: w.owner.key, body: { role: 'viewer' } }),
      request('PATCH', w.path(`/members/${w.owner.userId}`), { token: second.key, body: { role: 'viewer' } }),
    ]);
    // One wins; the other is refused either by the last-owner rule or, if it came second, by its lost role.
    const statuses = [a.status, b.status].sort();
    expect(statuses[0]).to.equal(200);
    expect([403, 409]).to.include(statuses[1]);
    const members = await request('GET', w.path('/members'), { token: w.owner.key });
    expect(members.body.members.filter((m: { role: string }) => m.role === 'owner')).to.have.length(1);
  });

  it('member endpoints validate their input', async () => {
    const w = await createWorkspace();
    problem(await request('POST', w.path('/members'), { token: w.owner.key, body: { userId: 'usr_x', role: 'admin' } }), 400);
    problem(await request('PATCH', w.path(`/members/${w.owner.userId}`), { token: w.owner.key, body: {} }), 400);
    problem(await request('PATCH', w.path('/members/usr_nobody'), { token: w.owner.key, body: { role: 'viewer' } }), 404);
  });
});
