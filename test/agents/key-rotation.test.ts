import { expect } from 'chai';
import { addMember, createWorkspace, problem, request, type TestWorkspace } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { type ApiProcess, startApiProcess } from '../support/api-process.js';

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const rotate = (w: TestWorkspace, agentId: string, keyId: string, body: unknown, token = w.owner.key) =>
  request('POST', w.path(`/agents/${agentId}/keys/${keyId}/rotate`), { token, body });

async function keys(w: TestWorkspace, agentId: string) {
  const res = await request('GET', w.path(`/agents/${agentId}/keys`), { token: w.owner.key });
  expect(res.status, res.text).to.equal(200);
  return res.body.keys as { id: string; label: string | null; prefix: string; expiresAt: string | null }[];
}

/** What the agent's key can do right now. */
const asAgent = (w: TestWorkspace, key: string) => request('GET', w.path(), { token: key });

describe('agent key rotation', () => {
  it('gives a new working key and keeps the old one working during its grace period, both listed with expiresAt; then the old one is 401 and unlisted', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w, { label: 'prod' });
    // Used first, so that every process has its access cached.
    expect((await asAgent(w, agent.key)).status).to.equal(200);
    const started = Date.now();
    const res = await rotate(w, agent.agentId, agent.keyId, { graceSeconds: 2, label: 'prod-2' });
    expect(res.status, res.text).to.equal(201);
    expect(Object.keys(res.body).sort()).to.deep.equal(['key', 'previousKey']);
    expect(Object.keys(res.body.key).sort()).to.deep.equal(['createdAt', 'id', 'key', 'label', 'prefix']);
    const { key, previousKey } = res.body;
    expect(key.key).to.match(/^pk_[0-9A-Za-z]+$/);
    expect(key).to.include({ label: 'prod-2', prefix: key.key.slice(0, 12) });
    expect(key.id).to.match(/^key_/).and.not.equal(agent.keyId);
    expect(previousKey).to.deep.equal({ id: agent.keyId, prefix: agent.key.slice(0, 12), expiresAt: previousKey.expiresAt });
    expect(previousKey.expiresAt).to.match(iso);
    const grace = Date.parse(previousKey.expiresAt) - Date.parse(key.createdAt);
    expect(grace).to.equal(2000);

    expect((await asAgent(w, key.key)).status).to.equal(200);
    expect((await asAgent(w, agent.key)).status).to.equal(200);
    const listed = await keys(w, agent.agentId);
    expect(listed.map((k) => [k.id, k.expiresAt])).to.deep.equal([
      [agent.keyId, previousKey.expiresAt],
      [key.id, null],
    ]);
    expect((await request('GET', w.path(`/agents/${agent.agentId}`), { token: w.owner.key })).body.keyCount).to.equal(2);

    await sleep(Math.max(0, started + 2_500 - Date.now()));
    problem(await asAgent(w, agent.key), 401, 'unauthorized');
    problem(await request('GET', w.path('/playbooks'), { token: agent.key }), 401, 'unauthorized');
    problem(await request('GET', '/api/v1/workspaces', { token: agent.key }), 401, 'unauthorized');
    expect((await asAgent(w, key.key)).status).to.equal(200);
    expect((await keys(w, agent.agentId)).map((k) => k.id)).to.deep.equal([key.id]);
    expect((await request('GET', w.path(`/agents/${agent.agentId}`), { token: w.owner.key })).body.keyCount).to.equal(1);
    // An expired key cannot be rotated again.
    problem(await rotate(w, agent.agentId, agent.keyId, {}), 409, 'key_not_active');
  });

  describe('on every API process', function () {
    this.timeout(120_000);
    let other: ApiProcess;
    before(async () => {
      other = await startApiProcess();
    });
    after(() => other?.stop());

    it('an old key both processes had just served works on both during its grace, and is 401 on both after it', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w);
      const playbooks = (key: string, baseUrl?: string) => request('GET', w.path('/playbooks'), { token: key, baseUrl });
      for (const baseUrl of [undefined, other.url]) expect((await playbooks(agent.key, baseUrl)).status).to.equal(200);
      const started = Date.now();
      const res = await request('POST', w.path(`/agents/${agent.agentId}/keys/${agent.keyId}/rotate`), { token: w.owner.key, body: { graceSeconds: 2 }, baseUrl: other.url });
      expect(res.status, res.text).to.equal(201);
      for (const baseUrl of [undefined, other.url]) {
        expect((await playbooks(agent.key, baseUrl)).status).to.equal(200);
        expect((await playbooks(res.body.key.key, baseUrl)).status).to.equal(200);
      }
      await sleep(Math.max(0, started + 2_500 - Date.now()));
      for (const baseUrl of [undefined, other.url]) {
        problem(await playbooks(agent.key, baseUrl), 401, 'unauthorized');
        expect((await playbooks(res.body.key.key, baseUrl)).status).to.equal(200);
      }
    });
  });

  it('defaults to a day of grace; graceSeconds 0 revokes the old key at once; rotating a revoked or an already rotated key is 409', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w);
    expect((await asAgent(w, agent.key)).status).to.equal(200);
    const day = await rotate(w, agent.agentId, agent.keyId, undefined);
    expect(day.status, day.text).to.equal(201);
    expect(day.body.key.label).to.equal(null);
    expect(Date.parse(day.body.previousKey.expiresAt) - Date.parse(day.body.key.createdAt)).to.equal(86_400_000);
    problem(await rotate(w, agent.agentId, agent.keyId, { graceSeconds: 0 }), 409, 'key_already_rotated');

    const second = day.body.key;
    expect((await asAgent(w, second.key)).status).to.equal(200);
    const now = await rotate(w, agent.agentId, second.id, { graceSeconds: 0 });
    expect(now.status, now.text).to.equal(201);
    expect(now.body.previousKey.expiresAt).to.equal(now.body.key.createdAt);
    problem(await asAgent(w, second.key), 401, 'unauthorized');
    expect((await asAgent(w, now.body.key.key)).status).to.equal(200);
    expect((await keys(w, agent.agentId)).map((k) => k.id)).to.deep.equal([agent.keyId, now.body.key.id]);
    problem(await rotate(w, agent.agentId, second.id, {}), 409, 'key_not_active');

    const revoked = await request('DELETE', w.path(`/agents/${agent.agentId}/keys/${now.body.key.id}`), { token: w.owner.key });
    expect(revoked.status).to.equal(204);
    problem(await rotate(w, agent.agentId, now.body.key.id, {}), 409, 'key_not_active');
    // Nothing was created by the refusals.
    expect((await keys(w, agent.agentId)).map((k) => k.id)).to.deep.equal([agent.keyId]);
  });

  it('records one agent.key.rotated event without any key material', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w);
    const res = await request('POST', w.path(`/agents/${agent.agentId}/keys/${agent.keyId}/rotate`), {
      token: w.owner.key, body: { graceSeconds: 60 }, headers: { 'x-request-id': `rot-${agent.agentId}` },
    });
    expect(res.status, res.text).to.equal(201);
    const events = (await request('GET', w.path('/audit-events?action=agent.key.rotated'), { token: w.owner.key })).body.events;
    expect(events).to.have.length(1);
    expect(events[0]).to.deep.include({ requestId: `rot-${agent.agentId}`, targetIds: [agent.agentId, agent.keyId, res.body.key.id] });
    expect(events[0].after).to.deep.include({ id: agent.keyId, expiresAt: res.body.previousKey.expiresAt, revoked: false });
    const text = JSON.stringify(events);
    expect(text).not.to.include(res.body.key.key);
    expect(text).not.to.include(res.body.key.prefix);
    expect(text).not.to.match(/pk_/);
  });

  it('refuses a grace period over 7 days or of the wrong type (400), someone not sponsor or owner (403), an agent key (403), an unknown key (404)', async () => {
    const w = await createWorkspace();
    const editor = await addMember(w, 'editor');
    const agent = await createAgent(w);
    const other = await createAgent(w);
    const mighty = await createAgent(w, { role: 'owner' });
    for (const body of [{ graceSeconds: 604_801 }, { graceSeconds: -1 }, { graceSeconds: 1.5 }, { graceSeconds: '60' }, { label: 'x'.repeat(101) }, { key: 'pk_x' }]) {
      problem(await rotate(w, agent.agentId, agent.keyId, body), 400, 'invalid_request');
    }
    expect((await rotate(w, mighty.agentId, mighty.keyId, { graceSeconds: 604_800 })).status).to.equal(201);
    problem(await rotate(w, agent.agentId, agent.keyId, {}, editor.key), 403, 'insufficient_role');
    problem(await rotate(w, agent.agentId, agent.keyId, {}, mighty.key), 403, 'user_key_required');
    problem(await rotate(w, agent.agentId, other.keyId, {}), 404, 'not_found');
    problem(await rotate(w, agent.agentId, 'key_doesnotexist', {}), 404, 'not_found');
    problem(await rotate(w, agent.agentId, w.owner.keyId, {}), 404, 'not_found');
    expect((await keys(w, agent.agentId)).map((k) => [k.id, k.expiresAt])).to.deep.equal([[agent.keyId, null]]);
    // The sponsor may rotate.
    const sponsored = await createAgent(w, { sponsor: editor });
    expect((await rotate(w, sponsored.agentId, sponsored.keyId, {}, editor.key)).status).to.equal(201);
  });
});
