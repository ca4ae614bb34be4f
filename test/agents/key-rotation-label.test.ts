import { expect } from 'chai';
import { createWorkspace, request, type TestWorkspace } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { auditEventsOf } from '../support/oauth.js';

const rotate = (w: TestWorkspace, agentId: string, keyId: string, body: unknown) =>
  request('POST', w.path(`/agents/${agentId}/keys/${keyId}/rotate`), { token: w.owner.key, body });

async function labels(w: TestWorkspace, agentId: string): Promise<[string, string | null][]> {
  const res = await request('GET', w.path(`/agents/${agentId}/keys`), { token: w.owner.key });
  expect(res.status, res.text).to.equal(200);
  return res.body.keys.map((k: { id: string; label: string | null }) => [k.id, k.label]);
}

describe('the label of a rotated key', () => {
  it('is kept by the new key when the rotation names no label, in the answer, the listing and the audit event', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w, { label: 'ci runner' });
    const res = await rotate(w, agent.agentId, agent.keyId, { graceSeconds: 60 });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.key.label).to.equal('ci runner');
    expect(await labels(w, agent.agentId)).to.deep.equal([
      [agent.keyId, 'ci runner'],
      [res.body.key.id, 'ci runner'],
    ]);
    const [event] = await auditEventsOf(w, 'agent.key.rotated');
    expect(event.after.newKey).to.deep.equal({ id: res.body.key.id, label: 'ci runner' });
  });

  it('is the one given when the rotation names a label; the old key keeps its own', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w, { label: 'ci runner' });
    const res = await rotate(w, agent.agentId, agent.keyId, { label: 'ci runner 2' });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.key.label).to.equal('ci runner 2');
    expect(await labels(w, agent.agentId)).to.deep.equal([
      [agent.keyId, 'ci runner'],
      [res.body.key.id, 'ci runner 2'],
    ]);
  });

  it('stays null when the old key had none', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w);
    const res = await rotate(w, agent.agentId, agent.keyId, {});
    expect(res.status, res.text).to.equal(201);
    expect(res.body.key.label).to.equal(null);
    expect(await labels(w, agent.agentId)).to.deep.equal([
      [agent.keyId, null],
      [res.body.key.id, null],
    ]);
  });

  it('carries over along a chain of rotations', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w, { label: 'nightly' });
    const first = await rotate(w, agent.agentId, agent.keyId, { graceSeconds: 0 });
    expect(first.status, first.text).to.equal(201);
    const second = await rotate(w, agent.agentId, first.body.key.id, { graceSeconds: 0 });
    expect(second.status, second.text).to.equal(201);
    expect(second.body.key.label).to.equal('nightly');
    expect(await labels(w, agent.agentId)).to.deep.equal([[second.body.key.id, 'nightly']]);
  });
});
