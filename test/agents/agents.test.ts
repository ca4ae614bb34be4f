import { expect } from 'chai';
import { addMember, createUser, createWorkspace, problem, request, type TestWorkspace } from '../support/api.js';
import { createAgent, createAgentKey } from '../support/agents.js';

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function register(w: TestWorkspace, token: string, body: unknown) {
  return request('POST', w.path('/agents'), { token, body });
}

async function getAgent(w: TestWorkspace, agentId: string, token = w.owner.key) {
  const res = await request('GET', w.path(`/agents/${agentId}`), { token });
  expect(res.status, res.text).to.equal(200);
  return res.body;
}

async function keyIds(w: TestWorkspace, agentId: string, token = w.owner.key): Promise<string[]> {
  const res = await request('GET', w.path(`/agents/${agentId}/keys`), { token });
  expect(res.status, res.text).to.equal(200);
  return res.body.keys.map((k: { id: string }) => k.id);
}

/** What the agent's key can do right now: the workspace as it sees it (status and role). */
async function asAgent(w: TestWorkspace, key: string) {
  return request('GET', w.path(), { token: key });
}

describe('agents', () => {
  describe('registration', () => {
    it('registers an agent sponsored by its creator, viewer by default, and reads it back', async () => {
      const w = await createWorkspace();
      const res = await register(w, w.owner.key, { name: 'Release bot', description: 'Drafts release notes' });
      expect(res.status).to.equal(201);
      expect(res.body).to.deep.include({
        name: 'Release bot',
        description: 'Drafts release notes',
        role: 'viewer',
        sponsorUserId: w.owner.userId,
        workspaceId: w.workspaceId,
        status: 'active',
        deactivatedAt: null,
      });
      expect(res.body.id).to.match(/^ag_/);
      expect(res.body.createdAt).to.match(iso);
      expect(Object.keys(res.body).sort()).to.deep.equal(
        ['createdAt', 'deactivatedAt', 'description', 'id', 'name', 'role', 'sponsorUserId', 'status', 'workspaceId'].sort(),
      );
      const stored = await getAgent(w, res.body.id);
      expect(stored).to.deep.equal({ ...res.body, keyCount: 0 });
    });

    it('a description may be left out (null)', async () => {
      const w = await createWorkspace();
      const res = await register(w, w.owner.key, { name: 'Quiet bot' });
      expect(res.status).to.equal(201);
      expect(res.body.description).to.equal(null);
    });

    it('caps the role at the creator’s own, silently, and the agent acts with the role granted', async () => {
      const w = await createWorkspace();
      const viewer = await addMember(w, 'viewer');
      const editor = await addMember(w, 'editor');
      const cases: [string, string | undefined, string][] = [
        [viewer.key, 'owner', 'viewer'],
        [viewer.key, 'editor', 'viewer'],
        [editor.key, 'owner', 'editor'],
        [editor.key, 'viewer', 'viewer'],
        [editor.key, undefined, 'viewer'],
        [w.owner.key, 'owner', 'owner'],
        [w.owner.key, 'editor', 'editor'],
      ];
      for (const [token, requested, granted] of cases) {
        const res = await register(w, token, { name: 'Capped', ...(requested ? { role: requested } : {}) });
        expect(res.status, res.text).to.equal(201);
        expect(res.body.role, `${requested} asked`).to.equal(granted);
        expect((await getAgent(w, res.body.id)).role).to.equal(granted);
      }
      const agent = await createAgent(w, { role: 'owner', sponsor: editor });
      expect(agent.role).to.equal('editor');
      expect((await asAgent(w, agent.key)).body.role).to.equal('editor');
    });

    it('refuses invalid bodies with 400 naming the field', async () => {
      const w = await createWorkspace();
      const bad: [unknown, string][] = [
        [{}, '/name'],
        [{ name: '' }, '/name'],
        [{ name: 'x'.repeat(201) }, '/name'],
        [{ name: 42 }, '/name'],
        [{ name: 'ok', description: 'x'.repeat(2001) }, '/description'],
        [{ name: 'ok', role: 'admin' }, '/role'],
        [{ name: 'ok', sponsorUserId: w.owner.userId }, '/sponsorUserId'],
        [{ name: 'ok', status: 'deactivated' }, '/status'],
      ];
      for (const [body, path] of bad) {
        const p = problem(await register(w, w.owner.key, body), 400, 'invalid_request');
        expect(p.errors?.map((e) => e.path), JSON.stringify(body)).to.include(path);
      }
      problem(await request('POST', w.path('/agents'), { token: w.owner.key, rawBody: '{"name":', headers: { 'content-type': 'application/json' } }), 400, 'invalid_request');
      const list = await request('GET', w.path('/agents'), { token: w.owner.key });
      expect(list.body.agents).to.deep.equal([]);
    });

    it('a non-member and an unknown workspace both get 404; no key gets 401', async () => {
      const w = await createWorkspace();
      const stranger = await createUser();
      const hidden = problem(await register(w, stranger.key, { name: 'x' }), 404, 'not_found');
      const missing = problem(await request('POST', '/api/v1/workspaces/ws_nope/agents', { token: stranger.key, body: { name: 'x' } }), 404, 'not_found');
      expect(hidden.detail).to.equal(missing.detail);
      problem(await request('POST', w.path('/agents'), { body: { name: 'x' } }), 401, 'unauthorized');
    });
  });

  describe('listing and reading', () => {
    it('lists every agent of the workspace, deactivated ones too, and none of another workspace', async () => {
      const w = await createWorkspace();
      const other = await createWorkspace();
      const editor = await addMember(w, 'editor');
      const a = await createAgent(w, { name: 'first' });
      const b = await createAgent(w, { name: 'second', sponsor: editor, role: 'editor' });
      await createAgent(other, { name: 'elsewhere' });
      expect((await request('DELETE', w.path(`/agents/${a.agentId}`), { token: w.owner.key })).status).to.equal(204);

      const viewer = await addMember(w, 'viewer');
      const res = await request('GET', w.path('/agents'), { token: viewer.key });
      expect(res.status).to.equal(200);
      expect(res.body.agents.map((x: any) => [x.id, x.name, x.status, x.sponsorUserId, x.role])).to.deep.equal([
        [a.agentId, 'first', 'deactivated', w.owner.userId, 'viewer'],
        [b.agentId, 'second', 'active', editor.userId, 'editor'],
      ]);
      expect(res.body.agents[0].deactivatedAt).to.match(iso);
    });

    it('get shows keyCount, the number of active keys', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w);
      await createAgentKey(w, agent.agentId, { label: 'staging' });
      const third = await createAgentKey(w, agent.agentId);
      expect((await getAgent(w, agent.agentId)).keyCount).to.equal(3);
      expect((await request('DELETE', w.path(`/agents/${agent.agentId}/keys/${third.keyId}`), { token: w.owner.key })).status).to.equal(204);
      expect((await getAgent(w, agent.agentId)).keyCount).to.equal(2);
    });

    it('an agent of another workspace, or an unknown id, is 404', async () => {
      const w = await createWorkspace();
      const other = await createWorkspace();
      const foreign = await createAgent(other);
      for (const id of [foreign.agentId, 'ag_doesnotexist']) {
        problem(await request('GET', w.path(`/agents/${id}`), { token: w.owner.key }), 404, 'not_found');
        problem(await request('PUT', w.path(`/agents/${id}`), { token: w.owner.key, body: { name: 'x' } }), 404, 'not_found');
        problem(await request('DELETE', w.path(`/agents/${id}`), { token: w.owner.key }), 404, 'not_found');
        problem(await request('POST', w.path(`/agents/${id}/reactivate`), { token: w.owner.key }), 404, 'not_found');
        problem(await request('POST', w.path(`/agents/${id}/keys`), { token: w.owner.key, body: {} }), 404, 'not_found');
        problem(await request('GET', w.path(`/agents/${id}/keys`), { token: w.owner.key }), 404, 'not_found');
        problem(await request('DELETE', w.path(`/agents/${id}/keys/${foreign.keyId}`), { token: w.owner.key }), 404, 'not_found');
      }
      // Nothing happened to the foreign agent.
      expect((await asAgent(other, foreign.key)).status).to.equal(200);
    });
  });

  describe('update', () => {
    it('the sponsor renames it; omitted fields keep their values; null clears the description', async () => {
      const w = await createWorkspace();
      const editor = await addMember(w, 'editor');
      const created = await register(w, editor.key, { name: 'Old', description: 'Keeps this', role: 'editor' });
      const id = created.body.id;
      const renamed = await request('PUT', w.path(`/agents/${id}`), { token: editor.key, body: { name: 'New' } });
      expect(renamed.status).to.equal(200);
      expect(renamed.body).to.deep.equal({ ...created.body, name: 'New' });
      const cleared = await request('PUT', w.path(`/agents/${id}`), { token: editor.key, body: { description: null } });
      expect(cleared.body).to.deep.equal({ ...created.body, name: 'New', description: null });
      const same = await request('PUT', w.path(`/agents/${id}`), { token: editor.key, body: {} });
      expect(same.status).to.equal(200);
      expect(await getAgent(w, id)).to.deep.equal({ ...created.body, name: 'New', description: null, keyCount: 0 });
    });

    it('hands the agent to another member, who then manages it while the old sponsor no longer can', async () => {
      const w = await createWorkspace();
      const alice = await addMember(w, 'editor');
      const bob = await addMember(w, 'editor');
      const agent = await createAgent(w, { sponsor: alice, role: 'editor' });
      const res = await request('PUT', w.path(`/agents/${agent.agentId}`), { token: alice.key, body: { sponsorUserId: bob.userId } });
      expect(res.status).to.equal(200);
      expect(res.body.sponsorUserId).to.equal(bob.userId);
      expect((await getAgent(w, agent.agentId)).sponsorUserId).to.equal(bob.userId);
      problem(await request('PUT', w.path(`/agents/${agent.agentId}`), { token: alice.key, body: { name: 'mine' } }), 403, 'insufficient_role');
      problem(await request('POST', w.path(`/agents/${agent.agentId}/keys`), { token: alice.key, body: {} }), 403, 'insufficient_role');
      expect((await request('POST', w.path(`/agents/${agent.agentId}/keys`), { token: bob.key, body: {} })).status).to.equal(201);
      // The agent's existing key keeps working under its new sponsor.
      expect((await asAgent(w, agent.key)).status).to.equal(200);
      // The sponsor leaving now concerns bob, not alice.
      expect((await request('DELETE', w.path(`/members/${alice.userId}`), { token: w.owner.key })).status).to.equal(204);
      expect((await getAgent(w, agent.agentId)).status).to.equal('active');
      expect((await request('DELETE', w.path(`/members/${bob.userId}`), { token: w.owner.key })).status).to.equal(204);
      expect((await getAgent(w, agent.agentId)).status).to.equal('deactivated');
    });

    it('a sponsor who is not a member of the workspace is 400, and nothing changes', async () => {
      const w = await createWorkspace();
      const other = await createWorkspace();
      const outsider = await createUser();
      const agent = await createAgent(w);
      for (const sponsorUserId of [outsider.userId, other.owner.userId, 'usr_doesnotexist', agent.agentId]) {
        const p = problem(await request('PUT', w.path(`/agents/${agent.agentId}`), { token: w.owner.key, body: { name: 'Changed', sponsorUserId } }), 400, 'invalid_request');
        expect(p.errors?.[0].path).to.equal('/sponsorUserId');
      }
      const stored = await getAgent(w, agent.agentId);
      expect(stored.sponsorUserId).to.equal(w.owner.userId);
      expect(stored.name).not.to.equal('Changed');
    });

    it('refuses invalid fields with 400', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w);
      for (const [body, path] of [
        [{ name: '' }, '/name'],
        [{ role: 'owner' }, '/role'],
        [{ status: 'active' }, '/status'],
        [{ description: 'x'.repeat(2001) }, '/description'],
        [{ sponsorUserId: '' }, '/sponsorUserId'],
      ] as const) {
        const p = problem(await request('PUT', w.path(`/agents/${agent.agentId}`), { token: w.owner.key, body }), 400, 'invalid_request');
        expect(p.errors?.map((e) => e.path)).to.include(path);
      }
    });

    it('only the sponsor or an owner may update, deactivate or manage keys', async () => {
      const w = await createWorkspace();
      const sponsor = await addMember(w, 'editor');
      const otherEditor = await addMember(w, 'editor');
      const viewer = await addMember(w, 'viewer');
      const agent = await createAgent(w, { sponsor });
      for (const token of [otherEditor.key, viewer.key]) {
        problem(await request('PUT', w.path(`/agents/${agent.agentId}`), { token, body: { name: 'x' } }), 403, 'insufficient_role');
        problem(await request('DELETE', w.path(`/agents/${agent.agentId}`), { token }), 403, 'insufficient_role');
        problem(await request('POST', w.path(`/agents/${agent.agentId}/keys`), { token, body: {} }), 403, 'insufficient_role');
        problem(await request('GET', w.path(`/agents/${agent.agentId}/keys`), { token }), 403, 'insufficient_role');
        problem(await request('DELETE', w.path(`/agents/${agent.agentId}/keys/${agent.keyId}`), { token }), 403, 'insufficient_role');
        // Reading is for every member.
        expect((await request('GET', w.path(`/agents/${agent.agentId}`), { token })).status).to.equal(200);
      }
      expect((await getAgent(w, agent.agentId)).keyCount).to.equal(1);
      expect((await asAgent(w, agent.key)).status).to.equal(200);
      // An owner who is not the sponsor may.
      const owner2 = await addMember(w, 'owner');
      expect((await request('PUT', w.path(`/agents/${agent.agentId}`), { token: owner2.key, body: { name: 'by owner' } })).status).to.equal(200);
      expect(await keyIds(w, agent.agentId, owner2.key)).to.deep.equal([agent.keyId]);
    });
  });

  describe('deactivation and reactivation', () => {
    it('deactivating stops every key at once, keeps the record, and is idempotent', async () => {
      const w = await createWorkspace();
      const sponsor = await addMember(w, 'editor');
      const agent = await createAgent(w, { sponsor });
      const second = await createAgentKey(w, agent.agentId, { token: sponsor.key });
      expect((await asAgent(w, agent.key)).status).to.equal(200);
      expect((await asAgent(w, second.key)).status).to.equal(200);

      expect((await request('DELETE', w.path(`/agents/${agent.agentId}`), { token: sponsor.key })).status).to.equal(204);
      problem(await asAgent(w, agent.key), 401, 'unauthorized');
      problem(await asAgent(w, second.key), 401, 'unauthorized');
      const stored = await getAgent(w, agent.agentId);
      expect(stored).to.include({ status: 'deactivated', keyCount: 0 });
      expect(stored.deactivatedAt).to.match(iso);
      expect(await keyIds(w, agent.agentId)).to.deep.equal([]);

      const again = await request('DELETE', w.path(`/agents/${agent.agentId}`), { token: w.owner.key });
      expect(again.status).to.equal(204);
      expect(again.text).to.equal('');
      expect((await getAgent(w, agent.agentId)).deactivatedAt).to.equal(stored.deactivatedAt);
    });

    it('a deactivated agent gets no new key (409)', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w);
      await request('DELETE', w.path(`/agents/${agent.agentId}`), { token: w.owner.key });
      problem(await request('POST', w.path(`/agents/${agent.agentId}/keys`), { token: w.owner.key, body: { label: 'late' } }), 409, 'conflict');
      expect((await getAgent(w, agent.agentId)).keyCount).to.equal(0);
    });

    it('an owner reactivates it with no keys: the old keys stay dead, new ones work', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w, { role: 'editor' });
      await request('DELETE', w.path(`/agents/${agent.agentId}`), { token: w.owner.key });
      const res = await request('POST', w.path(`/agents/${agent.agentId}/reactivate`), { token: w.owner.key });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ id: agent.agentId, status: 'active', deactivatedAt: null, role: 'editor' });
      expect(await getAgent(w, agent.agentId)).to.include({ status: 'active', keyCount: 0, deactivatedAt: null });
      problem(await asAgent(w, agent.key), 401, 'unauthorized');
      const fresh = await createAgentKey(w, agent.agentId);
      const seen = await asAgent(w, fresh.key);
      expect(seen.status).to.equal(200);
      expect(seen.body.role).to.equal('editor');
      // Reactivating an active agent changes nothing.
      const again = await request('POST', w.path(`/agents/${agent.agentId}/reactivate`), { token: w.owner.key });
      expect(again.status).to.equal(200);
      expect((await asAgent(w, fresh.key)).status).to.equal(200);
    });

    it('reactivation is for owners only, even for the sponsor', async () => {
      const w = await createWorkspace();
      const sponsor = await addMember(w, 'editor');
      const agent = await createAgent(w, { sponsor });
      await request('DELETE', w.path(`/agents/${agent.agentId}`), { token: sponsor.key });
      problem(await request('POST', w.path(`/agents/${agent.agentId}/reactivate`), { token: sponsor.key }), 403, 'insufficient_role');
      expect((await getAgent(w, agent.agentId)).status).to.equal('deactivated');
    });

    it('an agent whose sponsor left is reactivated only after it gets a new sponsor (409 before)', async () => {
      const w = await createWorkspace();
      const leaver = await addMember(w, 'editor');
      const agent = await createAgent(w, { sponsor: leaver });
      expect((await request('DELETE', w.path(`/members/${leaver.userId}`), { token: leaver.key })).status).to.equal(204);
      problem(await request('POST', w.path(`/agents/${agent.agentId}/reactivate`), { token: w.owner.key }), 409, 'conflict');
      expect((await getAgent(w, agent.agentId)).status).to.equal('deactivated');
      const moved = await request('PUT', w.path(`/agents/${agent.agentId}`), { token: w.owner.key, body: { sponsorUserId: w.owner.userId } });
      expect(moved.status).to.equal(200);
      expect(moved.body.status).to.equal('deactivated');
      expect((await request('POST', w.path(`/agents/${agent.agentId}/reactivate`), { token: w.owner.key })).body.status).to.equal('active');
      const fresh = await createAgentKey(w, agent.agentId);
      expect((await asAgent(w, fresh.key)).status).to.equal(200);
    });
  });

  describe('keys', () => {
    it('creates a pk_ key shown in full once, with a 12-character prefix and an optional label', async () => {
      const w = await createWorkspace();
      const created = await register(w, w.owner.key, { name: 'Keyed' });
      const res = await request('POST', w.path(`/agents/${created.body.id}/keys`), { token: w.owner.key, body: { label: 'production' } });
      expect(res.status).to.equal(201);
      expect(Object.keys(res.body).sort()).to.deep.equal(['createdAt', 'id', 'key', 'label', 'prefix']);
      const { key, prefix, label, id, createdAt } = res.body;
      expect(key).to.match(/^pk_[0-9A-Za-z]+$/);
      expect(key.startsWith('pk_user_')).to.equal(false);
      expect(key.length).to.be.at.least(32);
      expect(prefix).to.equal(key.slice(0, 12));
      expect(label).to.equal('production');
      expect(id).to.match(/^key_/);
      expect(createdAt).to.match(iso);

      // No body at all: the label is optional.
      const unlabelled = await request('POST', w.path(`/agents/${created.body.id}/keys`), { token: w.owner.key });
      expect(unlabelled.status).to.equal(201);
      expect(unlabelled.body.label).to.equal(null);
      expect(unlabelled.body.key).not.to.equal(key);
    });

    it('lists active keys with prefix only: never the key or its hash', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w, { label: 'first' });
      const second = await createAgentKey(w, agent.agentId, { label: 'second' });
      const res = await request('GET', w.path(`/agents/${agent.agentId}/keys`), { token: w.owner.key });
      expect(res.status).to.equal(200);
      expect(res.body.keys.map((k: any) => [k.id, k.label, k.prefix])).to.deep.equal([
        [agent.keyId, 'first', agent.key.slice(0, 12)],
        [second.keyId, 'second', second.key.slice(0, 12)],
      ]);
      for (const k of res.body.keys) expect(Object.keys(k).sort()).to.deep.equal(['createdAt', 'expiresAt', 'id', 'label', 'lastUsedAt', 'prefix']);
      expect(res.body.keys.map((k: any) => k.expiresAt)).to.deep.equal([null, null]);
      expect(res.text).not.to.include(agent.key);
      expect(res.text).not.to.include(second.key);
      expect(res.text).not.to.match(/[0-9a-f]{64}/);
    });

    it('several keys work at once; revoking one stops it at once and leaves the others', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w);
      const second = await createAgentKey(w, agent.agentId);
      expect((await asAgent(w, agent.key)).status).to.equal(200);
      expect((await asAgent(w, second.key)).status).to.equal(200);
      const revoked = await request('DELETE', w.path(`/agents/${agent.agentId}/keys/${agent.keyId}`), { token: w.owner.key });
      expect(revoked.status).to.equal(204);
      problem(await asAgent(w, agent.key), 401, 'unauthorized');
      expect((await asAgent(w, second.key)).status).to.equal(200);
      expect(await keyIds(w, agent.agentId)).to.deep.equal([second.keyId]);
      // Revoking again is a no-op.
      expect((await request('DELETE', w.path(`/agents/${agent.agentId}/keys/${agent.keyId}`), { token: w.owner.key })).status).to.equal(204);
      problem(await asAgent(w, agent.key), 401, 'unauthorized');
    });

    it('a key id that is not one of this agent’s keys is 404, and nothing is revoked', async () => {
      const w = await createWorkspace();
      const a = await createAgent(w);
      const b = await createAgent(w);
      problem(await request('DELETE', w.path(`/agents/${a.agentId}/keys/${b.keyId}`), { token: w.owner.key }), 404, 'not_found');
      problem(await request('DELETE', w.path(`/agents/${a.agentId}/keys/key_doesnotexist`), { token: w.owner.key }), 404, 'not_found');
      // A user's own key id is not an agent key either.
      problem(await request('DELETE', w.path(`/agents/${a.agentId}/keys/${w.owner.keyId}`), { token: w.owner.key }), 404, 'not_found');
      expect((await asAgent(w, b.key)).status).to.equal(200);
      expect((await request('GET', w.path(), { token: w.owner.key })).status).to.equal(200);
    });

    it('refuses invalid key bodies with 400', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w);
      for (const [body, path] of [
        [{ label: 'x'.repeat(101) }, '/label'],
        [{ label: 7 }, '/label'],
        [{ label: 'ok', expiresAt: '2030-01-01' }, '/expiresAt'],
      ] as const) {
        const p = problem(await request('POST', w.path(`/agents/${agent.agentId}/keys`), { token: w.owner.key, body }), 400, 'invalid_request');
        expect(p.errors?.map((e) => e.path)).to.include(path);
      }
      expect((await getAgent(w, agent.agentId)).keyCount).to.equal(1);
    });

    it('an agent key only works in its own workspace', async () => {
      const w = await createWorkspace();
      const other = await createWorkspace();
      const agent = await createAgent(w);
      expect((await asAgent(w, agent.key)).status).to.equal(200);
      problem(await asAgent(other, agent.key), 404, 'not_found');
    });
  });

  describe('agent keys on user-key-only endpoints', () => {
    it('a valid agent key gets 403 user_key_required on every agent-management and member endpoint, whatever the path names; a revoked one 401', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w, { role: 'owner' });
      const target = await createAgent(w);
      const revoked = await createAgentKey(w, agent.agentId);
      await request('DELETE', w.path(`/agents/${agent.agentId}/keys/${revoked.keyId}`), { token: w.owner.key });
      const paths = (ws: string, ag: string, key: string, user: string): [string, string, unknown?][] => [
        ['POST', `/api/v1/workspaces/${ws}/agents`, { name: 'spawned' }],
        ['GET', `/api/v1/workspaces/${ws}/agents`],
        ['GET', `/api/v1/workspaces/${ws}/agents/${ag}`],
        ['PUT', `/api/v1/workspaces/${ws}/agents/${ag}`, { name: 'x' }],
        ['DELETE', `/api/v1/workspaces/${ws}/agents/${ag}`],
        ['POST', `/api/v1/workspaces/${ws}/agents/${ag}/reactivate`],
        ['POST', `/api/v1/workspaces/${ws}/agents/${ag}/keys`, {}],
        ['GET', `/api/v1/workspaces/${ws}/agents/${ag}/keys`],
        ['DELETE', `/api/v1/workspaces/${ws}/agents/${ag}/keys/${key}`],
        ['GET', `/api/v1/workspaces/${ws}/members`],
        ['POST', `/api/v1/workspaces/${ws}/members`, { userId: user, role: 'viewer' }],
        ['PATCH', `/api/v1/workspaces/${ws}/members/${user}`, { role: 'viewer' }],
        ['DELETE', `/api/v1/workspaces/${ws}/members/${user}`],
      ];
      const cases = [
        ...paths(w.workspaceId, target.agentId, target.keyId, w.owner.userId),
        ...paths('ws_doesnotexist', 'ag_doesnotexist', 'key_doesnotexist', 'usr_doesnotexist'),
      ];
      for (const [token, status, code] of [[agent.key, 403, 'user_key_required'], [revoked.key, 401, 'unauthorized']] as const) {
        for (const [method, path, body] of cases) {
          const res = await request(method, path, { token, body });
          const p = problem(res, status, code);
          expect(res.text, `${method} ${path}`).not.to.include(token);
          expect(p.detail).not.to.include(token.slice(0, 12));
        }
      }
      // Nothing changed.
      expect(await getAgent(w, target.agentId)).to.include({ status: 'active', keyCount: 1 });
      expect((await asAgent(w, target.key)).status).to.equal(200);
      const members = await request('GET', w.path('/members'), { token: w.owner.key });
      expect(members.body.members).to.have.length(1);
      // The agent key itself still reads what it may.
      expect((await asAgent(w, agent.key)).body.role).to.equal('owner');
    });
  });

  describe('the sponsor', () => {
    it('a sponsor leaving the workspace deactivates their agents there, in the same change, and only theirs', async () => {
      const w = await createWorkspace();
      const other = await createWorkspace();
      const leaver = await addMember(w, 'editor');
      const stayer = await addMember(w, 'editor');
      await request('POST', other.path('/members'), { token: other.owner.key, body: { userId: leaver.userId, role: 'editor' } });
      const mine1 = await createAgent(w, { sponsor: leaver, role: 'editor' });
      const mine2 = await createAgent(w, { sponsor: leaver });
      const theirs = await createAgent(w, { sponsor: stayer });
      const elsewhere = await createAgent(other, { sponsor: leaver });
      for (const a of [mine1, mine2, theirs]) expect((await asAgent(w, a.key)).status).to.equal(200);

      expect((await request('DELETE', w.path(`/members/${leaver.userId}`), { token: w.owner.key })).status).to.equal(204);

      for (const a of [mine1, mine2]) {
        problem(await asAgent(w, a.key), 401, 'unauthorized');
        const stored = await getAgent(w, a.agentId);
        expect(stored).to.include({ status: 'deactivated', keyCount: 0 });
        expect(stored.deactivatedAt).to.match(iso);
      }
      expect((await asAgent(w, theirs.key)).status).to.equal(200);
      expect((await getAgent(w, theirs.agentId)).status).to.equal('active');
      expect((await asAgent(other, elsewhere.key)).status).to.equal(200);
      expect((await getAgent(other, elsewhere.agentId)).status).to.equal('active');
      // Their user key no longer opens the workspace.
      problem(await request('GET', w.path(), { token: leaver.key }), 404, 'not_found');
    });

    it('an agent never acts with more than its sponsor’s current role', async () => {
      const w = await createWorkspace();
      const sponsor = await addMember(w, 'editor');
      const agent = await createAgent(w, { sponsor, role: 'editor' });
      expect((await asAgent(w, agent.key)).body.role).to.equal('editor');
      await request('PATCH', w.path(`/members/${sponsor.userId}`), { token: w.owner.key, body: { role: 'viewer' } });
      expect((await asAgent(w, agent.key)).body.role).to.equal('viewer');
      expect((await getAgent(w, agent.agentId)).role).to.equal('editor');
      await request('PATCH', w.path(`/members/${sponsor.userId}`), { token: w.owner.key, body: { role: 'owner' } });
      expect((await asAgent(w, agent.key)).body.role).to.equal('editor');
    });
  });
});
