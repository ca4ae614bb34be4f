import { expect } from 'chai';
import { hashKey } from '../../src/auth/keys.js';
import { addMember, createWorkspace, problem, request } from '../support/api.js';
import { createAgent, createAgentKey } from '../support/agents.js';
import { type ApiProcess, startApiProcess } from '../support/api-process.js';
import { adminToken, env } from '../support/harness.js';
import { sharedGraph } from '../support/neo4j.js';

/**
 * A second API process (a real OS process, `node --import tsx src/server.ts`) against the same Neo4j and
 * Redis: whatever is revoked through one process must fail on the very next request through the other,
 * although each keeps its own in-process cache of keys and roles.
 */
describe('two API processes', function () {
  this.timeout(120_000);
  let second: ApiProcess;
  let other = '';

  before(async () => {
    second = await startApiProcess();
    other = second.url;
  });

  after(() => second?.stop());

  /** A request through the second process. */
  const there = (method: string, path: string, token: string) => request(method, path, { token, baseUrl: other });

  it('both processes serve the same data', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w);
    const here = await request('GET', w.path(`/agents/${agent.agentId}`), { token: w.owner.key });
    const res = await there('GET', w.path(`/agents/${agent.agentId}`), w.owner.key);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(here.body);
  });

  it('the other process answers from its own cache, and the signal is what moves it', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w);
    for (let i = 0; i < 2; i++) expect((await there('GET', w.path(), agent.key)).status).to.equal(200);
    // Revoked in Neo4j only, as a change that skipped the signal would be: the cached key still passes there.
    await sharedGraph().driver.executeQuery('MATCH (k:ApiKey {id: $keyId}) SET k.revokedAt = $now', { keyId: agent.keyId, now: new Date().toISOString() });
    expect((await there('GET', w.path(), agent.key)).status).to.equal(200);
    // A new epoch alone (no revoked mark) sends the other process back to Neo4j on its next request.
    await env.service.services.gate.accessChanged([w.workspaceId]);
    problem(await there('GET', w.path(), agent.key), 401, 'unauthorized');
    await env.service.services.gate.accessChanged([w.workspaceId], [hashKey(agent.key)]);
  });

  it('a key revoked through one process fails on the very next request through the other', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w);
    const spare = await createAgentKey(w, agent.agentId);
    for (let i = 0; i < 3; i++) expect((await there('GET', w.path(), agent.key)).status).to.equal(200);
    expect((await request('DELETE', w.path(`/agents/${agent.agentId}/keys/${agent.keyId}`), { token: w.owner.key })).status).to.equal(204);
    problem(await there('GET', w.path(), agent.key), 401, 'unauthorized');
    expect((await there('GET', w.path(), spare.key)).status).to.equal(200);
  });

  it('and the other way round', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w);
    for (let i = 0; i < 3; i++) expect((await request('GET', w.path(), { token: agent.key })).status).to.equal(200);
    expect((await there('DELETE', w.path(`/agents/${agent.agentId}/keys/${agent.keyId}`), w.owner.key)).status).to.equal(204);
    problem(await request('GET', w.path(), { token: agent.key }), 401, 'unauthorized');
  });

  it('deactivating an agent through one process stops all its keys on the other at once', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w);
    const second = await createAgentKey(w, agent.agentId);
    for (const key of [agent.key, second.key]) expect((await there('GET', w.path(), key)).status).to.equal(200);
    expect((await request('DELETE', w.path(`/agents/${agent.agentId}`), { token: w.owner.key })).status).to.equal(204);
    for (const key of [agent.key, second.key]) problem(await there('GET', w.path(), key), 401, 'unauthorized');
  });

  it('removing a member through one process locks them and their agents out of the other at once', async () => {
    const w = await createWorkspace();
    const member = await addMember(w, 'editor');
    const agent = await createAgent(w, { sponsor: member, role: 'editor' });
    expect((await there('GET', w.path(), member.key)).body.role).to.equal('editor');
    expect((await there('GET', w.path('/agents'), member.key)).status).to.equal(200);
    expect((await there('GET', w.path(), agent.key)).body.role).to.equal('editor');
    expect((await request('DELETE', w.path(`/members/${member.userId}`), { token: w.owner.key })).status).to.equal(204);
    problem(await there('GET', w.path(), member.key), 404, 'not_found');
    problem(await there('GET', w.path('/agents'), member.key), 404, 'not_found');
    problem(await there('GET', w.path(), agent.key), 401, 'unauthorized');
  });

  it('a user key revoked through the admin API of one process fails on the other at once', async () => {
    const w = await createWorkspace();
    const member = await addMember(w, 'viewer');
    expect((await there('GET', w.path(), member.key)).status).to.equal(200);
    expect((await request('DELETE', `/api/v1/admin/users/${member.userId}/keys/${member.keyId}`, { token: adminToken })).status).to.equal(204);
    problem(await there('GET', w.path(), member.key), 401, 'unauthorized');
  });

  it('a role change through one process is seen by the other at once, by the member and by their agents', async () => {
    const w = await createWorkspace();
    const member = await addMember(w, 'editor');
    const agent = await createAgent(w, { sponsor: member, role: 'editor' });
    expect((await there('GET', w.path(), member.key)).body.role).to.equal('editor');
    expect((await there('GET', w.path(), agent.key)).body.role).to.equal('editor');
    expect((await request('PATCH', w.path(`/members/${member.userId}`), { token: w.owner.key, body: { role: 'viewer' } })).status).to.equal(200);
    expect((await there('GET', w.path(), member.key)).body.role).to.equal('viewer');
    expect((await there('GET', w.path(), agent.key)).body.role).to.equal('viewer');
  });
});
