import { expect } from 'chai';
import { createUser, createWorkspace, problem, request, unique } from '../support/api.js';
import { adminToken } from '../support/harness.js';

describe('admin API', () => {
  it('creates a user, a key that reaches the user’s workspace, and a workspace', async () => {
    const email = `${unique('first')}@example.test`;
    const user = await request('POST', '/api/v1/admin/users', { token: adminToken, body: { email, name: 'First' } });
    expect(user.status).to.equal(201);
    expect(user.body).to.include({ email, name: 'First' });
    expect(user.body.id).to.match(/^usr_/);

    const key = await request('POST', `/api/v1/admin/users/${user.body.id}/keys`, { token: adminToken, body: { label: 'laptop' } });
    expect(key.status).to.equal(201);
    expect(key.body.key).to.match(/^pk_user_[0-9A-Za-z]{38}$/);
    expect(key.body.prefix).to.equal(key.body.key.slice(0, 12));
    expect(key.body.label).to.equal('laptop');

    const ws = await request('POST', '/api/v1/admin/workspaces', { token: adminToken, body: { name: 'Acme', ownerUserId: user.body.id } });
    expect(ws.status).to.equal(201);
    expect(ws.body).to.include({ name: 'Acme', plan: 'free', parentWorkspaceId: null, monthlyRetrievalLimit: null });

    const seen = await request('GET', `/api/v1/workspaces/${ws.body.id}`, { token: key.body.key });
    expect(seen.status).to.equal(200);
    expect(seen.body).to.include({ id: ws.body.id, name: 'Acme', role: 'owner', plan: 'free' });
  });

  it('refuses a second user with the same email (case-insensitive) with 409', async () => {
    const email = `${unique('dup')}@example.test`;
    expect((await request('POST', '/api/v1/admin/users', { token: adminToken, body: { email } })).status).to.equal(201);
    problem(await request('POST', '/api/v1/admin/users', { token: adminToken, body: { email: email.toUpperCase() } }), 409, 'email_taken');
  });

  it('a revoked user key stops working on the next request', async () => {
    const { owner, path } = await createWorkspace();
    expect((await request('GET', path(), { token: owner.key })).status).to.equal(200);
    const revoked = await request('DELETE', `/api/v1/admin/users/${owner.userId}/keys/${owner.keyId}`, { token: adminToken });
    expect(revoked.status).to.equal(204);
    expect(revoked.text).to.equal('');
    problem(await request('GET', path(), { token: owner.key }), 401, 'unauthorized');
  });

  it('changes plan, limit and parent, and refuses a parent cycle', async () => {
    const parent = await createWorkspace();
    const child = await createWorkspace({ parentWorkspaceId: parent.workspaceId });
    const patched = await request('PATCH', `/api/v1/admin/workspaces/${parent.workspaceId}`, {
      token: adminToken,
      body: { plan: 'team', monthlyRetrievalLimit: 5, name: 'Renamed' },
    });
    expect(patched.status).to.equal(200);
    expect(patched.body).to.include({ plan: 'team', monthlyRetrievalLimit: 5, name: 'Renamed' });
    const usage = await request('GET', parent.path('/usage'), { token: parent.owner.key });
    expect(usage.body).to.include({ limit: 5, used: 0, remaining: 5 });

    const cycle = await request('PATCH', `/api/v1/admin/workspaces/${parent.workspaceId}`, { token: adminToken, body: { parentWorkspaceId: child.workspaceId } });
    expect(problem(cycle, 400, 'invalid_request').errors![0].path).to.equal('/parentWorkspaceId');
    const self = await request('PATCH', `/api/v1/admin/workspaces/${parent.workspaceId}`, { token: adminToken, body: { parentWorkspaceId: parent.workspaceId } });
    problem(self, 400, 'invalid_request');

    const cleared = await request('PATCH', `/api/v1/admin/workspaces/${parent.workspaceId}`, { token: adminToken, body: { monthlyRetrievalLimit: null } });
    expect(cleared.body.monthlyRetrievalLimit).to.equal(null);
    const teamUsage = await request('GET', parent.path('/usage'), { token: parent.owner.key });
    expect(teamUsage.body.limit).to.equal(100_000);
  });

  it('answers 400 for a workspace whose owner or parent does not exist, creating nothing', async () => {
    const user = await createUser();
    const noOwner = await request('POST', '/api/v1/admin/workspaces', { token: adminToken, body: { name: 'x', ownerUserId: 'usr_nope' } });
    expect(problem(noOwner, 400).errors![0].path).to.equal('/ownerUserId');
    const noParent = await request('POST', '/api/v1/admin/workspaces', { token: adminToken, body: { name: 'x', ownerUserId: user.userId, parentWorkspaceId: 'ws_nope' } });
    expect(problem(noParent, 400).errors![0].path).to.equal('/parentWorkspaceId');
  });

  it('404s keys and workspaces that do not exist', async () => {
    problem(await request('POST', '/api/v1/admin/users/usr_missing/keys', { token: adminToken, body: {} }), 404);
    const user = await createUser();
    problem(await request('DELETE', `/api/v1/admin/users/${user.userId}/keys/key_missing`, { token: adminToken }), 404);
    problem(await request('PATCH', '/api/v1/admin/workspaces/ws_missing', { token: adminToken, body: { name: 'x' } }), 404);
  });

  it('takes only the operator token: 401 without it, 403 with an API key', async () => {
    problem(await request('POST', '/api/v1/admin/users', { body: { email: 'a@b.c' } }), 401, 'unauthorized');
    problem(await request('POST', '/api/v1/admin/users', { token: 'wrong-token', body: { email: 'a@b.c' } }), 401, 'unauthorized');
    const user = await createUser();
    problem(await request('POST', '/api/v1/admin/users', { token: user.key, body: { email: 'a@b.c' } }), 403, 'forbidden');
    // A key that is well formed but revoked is no valid key: 401.
    await request('DELETE', `/api/v1/admin/users/${user.userId}/keys/${user.keyId}`, { token: adminToken });
    problem(await request('POST', '/api/v1/admin/users', { token: user.key, body: { email: 'a@b.c' } }), 401, 'unauthorized');
  });

  it('validates bodies: unknown fields, bad email, overlong names', async () => {
    const unknown = problem(await request('POST', '/api/v1/admin/users', { token: adminToken, body: { email: 'a@b.co', role: 'x' } }), 400);
    expect(unknown.errors).to.deep.include({ path: '/role', message: 'is not an allowed field', in: 'body' });
    problem(await request('POST', '/api/v1/admin/users', { token: adminToken, body: { email: 'not-an-email' } }), 400);
    problem(await request('POST', '/api/v1/admin/users', { token: adminToken, body: { email: 'a@b.co', name: 'n'.repeat(201) } }), 400);
    const missing = problem(await request('POST', '/api/v1/admin/workspaces', { token: adminToken, body: {} }), 400);
    expect(missing.errors!.map((e) => e.path)).to.have.members(['/name', '/ownerUserId']);
  });
});
