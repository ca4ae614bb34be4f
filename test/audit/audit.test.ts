import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { type TestWorkspace, addMember, createUser, createWorkspace, problem, request } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { adminToken, analystToken } from '../support/harness.js';
import { createNode } from '../support/nodes.js';
import { createPlaybook } from '../support/playbooks.js';

type Event = {
  id: string; workspaceId: string | null; action: string; actor: { kind: string; id: string | null; sponsorUserId: string | null };
  targetIds: string[]; requestId: string; at: string; before: Record<string, unknown> | null; after: Record<string, unknown> | null;
};

/** Every audit event of the workspace, newest first, following the cursor. */
async function allEvents(w: TestWorkspace, query = ''): Promise<Event[]> {
  const events: Event[] = [];
  let cursor: string | null = null;
  do {
    const sep = query ? '&' : '';
    const res: { status: number; text: string; body: any } = await request('GET', w.path(`/audit-events?limit=200${sep}${query}${cursor ? `&cursor=${cursor}` : ''}`), { token: w.owner.key });
    expect(res.status, res.text).to.equal(200);
    events.push(...res.body.events);
    cursor = res.body.nextCursor;
  } while (cursor);
  return events;
}

/** A request with its own X-Request-Id, so its audit event can be found. */
async function traced(method: string, path: string, token: string, body?: unknown) {
  const requestId = `t-${randomUUID()}`;
  const res = await request(method, path, { token, body, headers: { 'x-request-id': requestId } });
  return { res, requestId };
}

describe('audit log', () => {
  it('records one event per write request, with the actor (user, agent with its sponsor, operator), action, targets and before/after', async () => {
    const w = await createWorkspace();
    const owner = w.owner;
    const agent = await createAgent(w, { role: 'editor' });
    const expected: { requestId: string; action: string; actor: Event['actor']; target?: string }[] = [];
    const asUser = { kind: 'user', id: owner.userId, sponsorUserId: null };
    const asAgent = { kind: 'agent', id: agent.agentId, sponsorUserId: owner.userId };
    const step = async (method: string, path: string, token: string, body: unknown, status: number, action: string, actor: Event['actor']) => {
      const { res, requestId } = await traced(method, path, token, body);
      expect(res.status, `${method} ${path}: ${res.text}`).to.equal(status);
      expected.push({ requestId, action, actor });
      return res.body;
    };
    const pb = await step('POST', w.path('/playbooks'), agent.key, { title: 'Audited', version: { content: { instructions: 'x' } } }, 201, 'playbook.created', asAgent);
    await step('PATCH', w.path(`/playbooks/${pb.id}`), owner.key, { title: 'Audited 2' }, 200, 'playbook.updated', asUser);
    const v2 = await step('POST', w.path(`/playbooks/${pb.id}/versions`), agent.key, { content: { instructions: 'y' } }, 201, 'playbook.version.created', asAgent);
    await step('PATCH', w.path(`/playbooks/${pb.id}/versions/${v2.id}/approve`), owner.key, undefined, 200, 'playbook.version.approved', asUser);
    const v3 = await step('POST', w.path(`/playbooks/${pb.id}/versions/${pb.versions[0].id}/rollback`), agent.key, undefined, 201, 'playbook.version.rolled_back', asAgent);
    const node = await step('POST', w.path('/context-nodes'), owner.key, { title: 'N1', description: 'd' }, 201, 'node.created', asUser);
    const node2 = await createNode(w, { title: 'N2' });
    expected.push({ requestId: '', action: 'node.created', actor: asUser });
    await step('PATCH', w.path(`/context-nodes/${node.id}`), agent.key, { importance: 90 }, 200, 'node.updated', asAgent);
    const lnk = await step('POST', w.path(`/context-nodes/${node.id}/links`), owner.key, { targetId: node2.id, linkType: 'requires' }, 201, 'link.created', asUser);
    await step('DELETE', w.path(`/context-nodes/${node.id}/links/${lnk.id}`), owner.key, undefined, 204, 'link.deleted', asUser);
    const plnk = await step('POST', w.path(`/playbooks/${pb.id}/links`), owner.key, { targetId: node2.id, linkType: 'references' }, 201, 'link.created', asUser);
    await step('DELETE', w.path(`/playbooks/${pb.id}/links/${plnk.id}`), owner.key, undefined, 204, 'link.deleted', asUser);
    const ann = await step('POST', w.path('/context/annotations'), agent.key, { targetType: 'context_node', targetId: node.id, scopeType: 'workspace_overlay', title: 't', content: 'c' }, 201, 'annotation.created', asAgent);
    await step('DELETE', w.path(`/context/annotations/${ann.id}`), owner.key, undefined, 204, 'annotation.deleted', asUser);
    const fb = await step('POST', w.path('/context/feedback'), agent.key, { targetType: 'context_node', targetId: node.id, feedbackType: 'incorrect', summary: 'wrong' }, 201, 'feedback.created', asAgent);
    await step('PATCH', w.path(`/context/feedback/${fb.id}`), owner.key, { status: 'resolved', resolutionNote: 'fixed' }, 200, 'feedback.resolved', asUser);
    await step('DELETE', w.path(`/context-nodes/${node.id}`), owner.key, undefined, 204, 'node.archived', asUser);
    await step('POST', w.path(`/context-nodes/${node.id}/restore`), owner.key, undefined, 200, 'node.restored', asUser);
    await step('DELETE', w.path(`/playbooks/${pb.id}`), owner.key, undefined, 204, 'playbook.archived', asUser);
    await step('POST', w.path(`/playbooks/${pb.id}/restore`), owner.key, undefined, 200, 'playbook.restored', asUser);
    const ag = await step('POST', w.path('/agents'), owner.key, { name: 'bot' }, 201, 'agent.created', asUser);
    await step('PUT', w.path(`/agents/${ag.id}`), owner.key, { name: 'bot 2' }, 200, 'agent.updated', asUser);
    const key = await step('POST', w.path(`/agents/${ag.id}/keys`), owner.key, { label: 'ci' }, 201, 'agent.key.created', asUser);
    const rotated = await step('POST', w.path(`/agents/${ag.id}/keys/${key.id}/rotate`), owner.key, { graceSeconds: 60, label: 'ci-2' }, 201, 'agent.key.rotated', asUser);
    await step('DELETE', w.path(`/agents/${ag.id}/keys/${key.id}`), owner.key, undefined, 204, 'agent.key.revoked', asUser);
    await step('DELETE', w.path(`/agents/${ag.id}`), owner.key, undefined, 204, 'agent.deactivated', asUser);
    await step('POST', w.path(`/agents/${ag.id}/reactivate`), owner.key, undefined, 200, 'agent.reactivated', asUser);
    const member = await createUser('member');
    await step('POST', w.path('/members'), owner.key, { userId: member.userId, role: 'viewer' }, 201, 'member.added', asUser);
    await step('PATCH', w.path(`/members/${member.userId}`), owner.key, { role: 'editor' }, 200, 'member.role_changed', asUser);
    await step('DELETE', w.path(`/members/${member.userId}`), owner.key, undefined, 204, 'member.removed', asUser);
    await step('PATCH', `/api/v1/admin/workspaces/${w.workspaceId}`, adminToken, { plan: 'team' }, 200, 'workspace.updated', { kind: 'operator', id: null, sponsorUserId: null });

    const events = await allEvents(w);
    for (const e of expected.filter((x) => x.requestId)) {
      const mine = events.filter((ev) => ev.requestId === e.requestId);
      expect(mine, `${e.action}`).to.have.length(1);
      expect(mine[0].action).to.equal(e.action);
      expect(mine[0].actor).to.deep.equal(e.actor);
      expect(mine[0].workspaceId).to.equal(w.workspaceId);
      expect(mine[0].at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
    const byAction = (action: string) => events.filter((ev) => ev.action === action);
    expect(byAction('playbook.updated')[0]).to.deep.include({ before: { title: 'Audited' }, after: { title: 'Audited 2' }, targetIds: [pb.id] });
    expect(byAction('playbook.version.approved')[0]).to.deep.include({ before: { status: 'draft' }, targetIds: [pb.id, v2.id] });
    expect(byAction('member.role_changed')[0]).to.deep.include({ before: { role: 'viewer' }, after: { role: 'editor' } });
    expect(byAction('feedback.resolved')[0].before).to.deep.equal({ status: 'open', resolutionNote: null });
    expect(byAction('node.updated')[0]).to.deep.include({ before: { importance: 50 }, after: { importance: 90 } });
    expect(byAction('playbook.version.rolled_back')[0]).to.deep.include({ targetIds: [pb.id, v3.id] });
    expect(byAction('playbook.version.rolled_back')[0].after).to.include({ versionNumber: 3, rolledBackToVersionId: pb.versions[0].id });
    expect(byAction('agent.updated')[0]).to.deep.include({ before: { name: 'bot' }, after: { name: 'bot 2' } });
    expect(byAction('workspace.updated')[0]).to.deep.include({ after: { plan: 'team' } });
    expect(byAction('workspace.updated')[0].before).to.have.keys(['plan']).and.not.deep.equal({ plan: 'team' });
    expect(byAction('agent.key.rotated')[0]).to.deep.include({ targetIds: [ag.id, key.id, rotated.key.id], before: { id: key.id, expiresAt: null } });
    // The workspace's creation, the first agent and its key are in the log too.
    expect(byAction('workspace.created')).to.have.length(1);
    expect(byAction('agent.key.created')).to.have.length(2);
    // Never a key: not the full keys, not even their prefixes.
    const text = JSON.stringify(events);
    expect(text).not.to.include(agent.key);
    expect(text).not.to.include(key.key);
    expect(text).not.to.include(owner.key);
    expect(text).not.to.include(key.prefix);
    expect(text).not.to.include(rotated.key.key);
    expect(text).not.to.include(rotated.key.prefix);
    expect(text).not.to.match(/pk_/);
  });

  it('records nothing for a request that fails, even when it failed after writing inside its transaction', async () => {
    const w = await createWorkspace();
    const pb = await createPlaybook(w, w.owner.key);
    const before = await allEvents(w);
    const outsider = await createUser('outsider');
    // The update runs, then the ownerId check fails: the transaction rolls back with its event.
    const bad = await traced('PATCH', w.path(`/playbooks/${pb.id}`), w.owner.key, { title: 'Changed', ownerId: outsider.userId });
    problem(bad.res, 400);
    const notDraft = await traced('PATCH', w.path(`/playbooks/${pb.id}/versions/${pb.versions[0].id}/approve`), w.owner.key);
    expect(notDraft.res.status).to.equal(200);
    const again = await traced('PATCH', w.path(`/playbooks/${pb.id}/versions/${pb.versions[0].id}/approve`), w.owner.key);
    problem(again.res, 409, 'version_not_draft');
    const invalid = await traced('POST', w.path('/context-nodes'), w.owner.key, { title: '' });
    problem(invalid.res, 400);
    const after = await allEvents(w);
    expect(after.map((e) => e.requestId)).not.to.include.members([bad.requestId, again.requestId, invalid.requestId]);
    expect(after).to.have.length(before.length + 1);
    const stored = await request('GET', w.path(`/playbooks/${pb.id}`), { token: w.owner.key });
    expect(stored.body.title).to.equal(pb.title);
  });

  it('records nothing for a repeated archive, restore, revocation, deactivation or reactivation, which changes nothing', async () => {
    const w = await createWorkspace();
    const pb = await createPlaybook(w, w.owner.key);
    const node = await createNode(w, { title: 'Twice' });
    const agent = await createAgent(w);
    const twice = async (method: string, path: string, status: number) => {
      for (let i = 0; i < 2; i++) {
        const res = await request(method, w.path(path), { token: w.owner.key });
        expect(res.status, `${method} ${path}: ${res.text}`).to.equal(status);
      }
    };
    await twice('DELETE', `/playbooks/${pb.id}`, 204);
    await twice('POST', `/playbooks/${pb.id}/restore`, 200);
    await twice('DELETE', `/context-nodes/${node.id}`, 204);
    await twice('POST', `/context-nodes/${node.id}/restore`, 200);
    await twice('DELETE', `/agents/${agent.agentId}/keys/${agent.keyId}`, 204);
    await twice('DELETE', `/agents/${agent.agentId}`, 204);
    await twice('POST', `/agents/${agent.agentId}/reactivate`, 200);
    const actions = (await allEvents(w)).map((e) => e.action).reverse();
    expect(actions.filter((a) => !a.endsWith('.created'))).to.deep.equal([
      'playbook.archived', 'playbook.restored', 'node.archived', 'node.restored', 'agent.key.revoked', 'agent.deactivated', 'agent.reactivated',
    ]);
  });

  it('filters by actor, action, action prefix, target and time, and pages with a cursor', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w, { role: 'editor' });
    const a = await createPlaybook(w, w.owner.key);
    const b = await createPlaybook(w, agent.key);
    const n = await createNode(w, {}, agent.key);
    const byAgent = await allEvents(w, `actor=${agent.agentId}`);
    expect(byAgent.map((e) => e.action).sort()).to.deep.equal(['node.created', 'playbook.created']);
    const created = await allEvents(w, 'action=playbook.created');
    expect(created.map((e) => e.targetIds[0]).sort()).to.deep.equal([a.id, b.id].sort());
    const playbookAny = await allEvents(w, 'action=playbook.*');
    expect(playbookAny).to.have.length(2);
    const target = await allEvents(w, `target=${n.id}`);
    expect(target.map((e) => e.action)).to.deep.equal(['node.created']);
    const all = await allEvents(w);
    expect(all.length).to.be.at.least(5);
    const pages: Event[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: any } = await request('GET', w.path(`/audit-events?limit=2${cursor ? `&cursor=${cursor}` : ''}`), { token: w.owner.key });
      expect(res.body.events.length).to.be.at.most(2);
      pages.push(...res.body.events);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(pages.map((e) => e.id)).to.deep.equal(all.map((e) => e.id));
    const ats = all.map((e) => e.at);
    expect([...ats].sort().reverse()).to.deep.equal(ats);
    const newest = all[0].at;
    expect(await allEvents(w, `from=${encodeURIComponent(newest)}`)).to.have.length(all.filter((e) => e.at >= newest).length);
    expect(await allEvents(w, `to=${encodeURIComponent(newest)}`)).to.have.length(all.filter((e) => e.at < newest).length);
  });

  it('is for owners only; bad filters and cursors are 400', async () => {
    const w = await createWorkspace();
    const editor = await addMember(w, 'editor');
    const agent = await createAgent(w, { role: 'editor' });
    problem(await request('GET', w.path('/audit-events'), { token: editor.key }), 403, 'insufficient_role');
    problem(await request('GET', w.path('/audit-events'), { token: agent.key }), 403, 'insufficient_role');
    const other = await createWorkspace();
    problem(await request('GET', other.path('/audit-events'), { token: w.owner.key }), 404);
    problem(await request('GET', w.path('/audit-events?cursor=nonsense'), { token: w.owner.key }), 400);
    problem(await request('GET', w.path('/audit-events?limit=0'), { token: w.owner.key }), 400);
    problem(await request('GET', w.path('/audit-events?from=yesterday'), { token: w.owner.key }), 400);
    problem(await request('GET', w.path('/audit-events?action=Bad Action'), { token: w.owner.key }), 400);
    problem(await request('GET', w.path('/audit-events?foo=1'), { token: w.owner.key }), 400);
  });

  it('gives the operator every event, the admin API’s own and analyst queries included; API keys get 403', async () => {
    const w = await createWorkspace();
    const user = await createUser('someone');
    const res = await request('GET', `/api/v1/admin/audit-events?target=${user.userId}&limit=200`, { token: adminToken });
    expect(res.status, res.text).to.equal(200);
    const actions = res.body.events.map((e: Event) => e.action).sort();
    expect(actions).to.deep.equal(['user.created', 'user.key.created']);
    for (const e of res.body.events) expect(e.actor).to.deep.equal({ kind: 'operator', id: null, sponsorUserId: null });
    const scoped = await request('GET', `/api/v1/admin/audit-events?workspaceId=${w.workspaceId}`, { token: adminToken });
    expect(scoped.body.events.map((e: Event) => e.action)).to.deep.equal(['workspace.created']);
    const q = await request('POST', '/api/v1/admin/cypher', { token: analystToken, body: { query: 'RETURN 1 AS one' }, headers: { 'x-request-id': 'analyst-req-1' } });
    expect(q.status, q.text).to.equal(200);
    const analyst = await request('GET', '/api/v1/admin/audit-events?action=analyst.query.run&actor=analyst&limit=200', { token: adminToken });
    const mine = analyst.body.events.find((e: Event) => e.requestId === 'analyst-req-1');
    expect(mine.after).to.include({ rows: 1, outcome: 'ok' });
    expect(mine.after.queryHash).to.match(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(mine)).not.to.include('RETURN 1');
    problem(await request('GET', '/api/v1/admin/audit-events', { token: w.owner.key }), 403);
    problem(await request('GET', '/api/v1/admin/audit-events', {}), 401);
  });
});
