import { expect } from 'chai';
import type { RunningService } from '../../src/runtime.js';
import { createWorkspace, request } from '../support/api.js';
import { env, startExtraService } from '../support/harness.js';
import { neo4jReadsDuring } from '../support/neo4j-reads.js';
import { createNode, linkPlaybook, updateNode } from '../support/nodes.js';


describe('reads answered from the response cache', () => {
  let other: RunningService;
  before(async () => {
    other = await startExtraService();
  });
  after(() => other.stop());

  it('a repeated playbook read does not touch Neo4j, and a change through another process shows at once', async () => {
    const w = await createWorkspace();
    const pb = await request('POST', w.path('/playbooks'), { token: w.owner.key, body: { title: 'Cached', version: { content: { a: 1 } } } });
    const node = await createNode(w, { title: 'Linked' });
    await linkPlaybook(w, pb.body.id, node.id, 'requires');
    const path = w.path(`/playbooks/${pb.body.id}`);
    const first = await request('GET', path, { token: w.owner.key });
    expect(first.status).to.equal(200);
    let again;
    expect(await neo4jReadsDuring(async () => (again = await request('GET', path, { token: w.owner.key })))).to.equal(0);
    expect(again!.text).to.equal(first.text);

    const renamed = await request('PATCH', path, { token: w.owner.key, body: { title: 'Renamed' }, baseUrl: other.url });
    expect(renamed.status).to.equal(200);
    expect((await request('GET', path, { token: w.owner.key })).body.title).to.equal('Renamed');
    await updateNode(w, node.id, { title: 'Linked, renamed' });
    const detail = await request('GET', path, { token: w.owner.key, baseUrl: other.url });
    expect(detail.body.contextNodes.map((c: { title: string }) => c.title)).to.deep.equal(['Linked, renamed']);
  });

  it('node reads and lists are cached per query, and follow every change', async () => {
    const w = await createWorkspace();
    const a = await createNode(w, { title: 'Alpha', importance: 10 });
    const listPath = w.path('/context-nodes?sort=title&order=asc');
    const list = await request('GET', listPath, { token: w.owner.key });
    expect(await neo4jReadsDuring(() => request('GET', listPath, { token: w.owner.key }))).to.equal(0);
    expect((await request('GET', w.path('/context-nodes?sort=importance'), { token: w.owner.key })).status).to.equal(200);
    await createNode(w, { title: 'Beta' }, w.owner.key);
    const after = await request('GET', listPath, { token: w.owner.key, baseUrl: other.url });
    expect(after.body.nodes.map((n: { title: string }) => n.title)).to.deep.equal(['Alpha', 'Beta']);
    expect(list.body.nodes).to.have.length(1);
    const nodePath = w.path(`/context-nodes/${a.id}`);
    await request('GET', nodePath, { token: w.owner.key });
    await updateNode(w, a.id, { importance: 90 }, w.owner.key);
    expect((await request('GET', nodePath, { token: w.owner.key })).body.importance).to.equal(90);
  });

  it('a parent’s read of a child’s parent_readonly playbook is never served stale', async () => {
    const parent = await createWorkspace();
    const child = await createWorkspace({ parentWorkspaceId: parent.workspaceId });
    const pb = await request('POST', child.path('/playbooks'), {
      token: child.owner.key,
      body: { title: 'Shared', visibility: 'parent_readonly', version: { content: {} } },
    });
    const fromParent = parent.path(`/playbooks/${pb.body.id}`);
    expect((await request('GET', fromParent, { token: parent.owner.key })).body.title).to.equal('Shared');
    await request('PATCH', child.path(`/playbooks/${pb.body.id}`), { token: child.owner.key, body: { title: 'Shared v2' } });
    expect((await request('GET', fromParent, { token: parent.owner.key })).body.title).to.equal('Shared v2');
  });
});
