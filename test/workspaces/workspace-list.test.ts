import { expect } from 'chai';
import { generateKey } from '../../src/auth/keys.js';
import { addMember, createWorkspace, problem, request } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { adminToken } from '../support/harness.js';

const list = (token?: string) => request('GET', '/api/v1/workspaces', { token });

describe('the caller’s workspaces (GET /api/v1/workspaces)', () => {
  it('lists every workspace a user is a member of with the user’s role there, oldest membership first', async () => {
    const first = await createWorkspace({ name: 'First' });
    const second = await createWorkspace({ name: 'Second', plan: 'team' });
    const user = await addMember(first, 'viewer');
    const added = await request('POST', second.path('/members'), { token: second.owner.key, body: { userId: user.userId, role: 'editor' } });
    expect(added.status, added.text).to.equal(201);
    const res = await list(user.key);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.workspaces.map((w: any) => [w.id, w.name, w.plan, w.role])).to.deep.equal([
      [first.workspaceId, 'First', 'free', 'viewer'],
      [second.workspaceId, 'Second', 'team', 'editor'],
    ]);
    // Each item is what the workspace itself answers to that user.
    for (const item of res.body.workspaces) {
      expect(item).to.deep.equal((await request('GET', `/api/v1/workspaces/${item.id}`, { token: user.key })).body);
    }
    // A changed role and a membership removed show at once.
    expect((await request('PATCH', first.path(`/members/${user.userId}`), { token: first.owner.key, body: { role: 'owner' } })).status).to.equal(200);
    expect((await request('DELETE', second.path(`/members/${user.userId}`), { token: user.key })).status).to.equal(204);
    expect((await list(user.key)).body.workspaces.map((w: any) => [w.id, w.role])).to.deep.equal([[first.workspaceId, 'owner']]);
  });

  it('gives an agent key its one workspace with the role the agent acts with', async () => {
    const w = await createWorkspace();
    await createWorkspace();
    const editor = await addMember(w, 'editor');
    const agent = await createAgent(w, { role: 'editor', sponsor: editor });
    const res = await list(agent.key);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.workspaces).to.have.length(1);
    expect(res.body.workspaces[0]).to.deep.include({ id: w.workspaceId, role: 'editor' });
    // Its sponsor demoted: the agent acts as a viewer.
    expect((await request('PATCH', w.path(`/members/${editor.userId}`), { token: w.owner.key, body: { role: 'viewer' } })).status).to.equal(200);
    expect((await list(agent.key)).body.workspaces[0].role).to.equal('viewer');
  });

  it('a user with no workspace gets an empty list; no key, an unknown, a revoked key or the operator token get 401', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w);
    const user = await request('POST', '/api/v1/admin/users', { token: adminToken, body: { email: `lonely-${Date.now()}@example.test` } });
    const key = await request('POST', `/api/v1/admin/users/${user.body.id}/keys`, { token: adminToken, body: {} });
    expect((await list(key.body.key)).body).to.deep.equal({ workspaces: [] });
    problem(await list(), 401, 'unauthorized');
    problem(await list(generateKey('user').key), 401, 'unauthorized');
    problem(await list('pk_not-a-key'), 401, 'unauthorized');
    problem(await list(adminToken), 401, 'unauthorized');
    expect((await list(agent.key)).status).to.equal(200);
    expect((await request('DELETE', w.path(`/agents/${agent.agentId}/keys/${agent.keyId}`), { token: w.owner.key })).status).to.equal(204);
    problem(await list(agent.key), 401, 'unauthorized');
    problem(await request('GET', '/api/v1/workspaces?x=1', { token: w.owner.key }), 400);
  });
});
