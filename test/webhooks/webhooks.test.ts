import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { type TestWorkspace, addMember, createWorkspace, problem, request } from '../support/api.js';
import { adminToken, analystToken, startExtraService } from '../support/harness.js';
import { createNode } from '../support/nodes.js';
import { createPlaybook, createVersion } from '../support/playbooks.js';
import { buildGraph, getBundle } from '../support/retrieval.js';
import { until } from '../support/waits.js';

interface Received {
  headers: Record<string, string>;
  body: string;
  payload: any;
}

/** A webhook receiver on 127.0.0.1: answers with `answer()` (200 by default) and keeps what arrived. */
async function receiver(answer: (n: number) => number = () => 200) {
  const received: Received[] = [];
  let calls = 0;
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      calls += 1;
      const status = answer(calls);
      const body = Buffer.concat(chunks).toString('utf8');
      if (status >= 200 && status < 300) received.push({ headers: req.headers as Record<string, string>, body, payload: JSON.parse(body) });
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, calls: () => calls, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function subscribe(w: TestWorkspace, url: string, eventTypes: string[], options: { baseUrl?: string } = {}) {
  const res = await request('POST', w.path('/webhooks'), { token: w.owner.key, body: { url, eventTypes }, baseUrl: options.baseUrl });
  expect(res.status, res.text).to.equal(201);
  return res.body as { id: string; secret: string; status: string };
}

const deliveries = async (w: TestWorkspace, subscriptionId: string) =>
  (await request('GET', w.path(`/webhooks/${subscriptionId}/deliveries`), { token: w.owner.key })).body.deliveries as any[];

describe('webhooks', () => {
  it('delivers each subscribed event, signed per Standard Webhooks, verified with the standardwebhooks library', async () => {
    const hook = await receiver();
    try {
      const w = await createWorkspace();
      const sub = await subscribe(w, hook.url, ['playbook.created', 'playbook.version.approved', 'node.created']);
      expect(sub.secret).to.match(/^whsec_[A-Za-z0-9+/=]{40,}$/);
      const pb = await createPlaybook(w, w.owner.key);
      const approved = await request('PATCH', w.path(`/playbooks/${pb.id}/versions/${pb.versions[0].id}/approve`), { token: w.owner.key });
      expect(approved.status).to.equal(200);
      await createNode(w);
      // An event nobody subscribed to is not sent.
      await request('PATCH', w.path(`/playbooks/${pb.id}`), { token: w.owner.key, body: { title: 'Renamed' } });
      await until('three deliveries', () => hook.received.length >= 3 || undefined);
      await new Promise((r) => setTimeout(r, 500));
      expect(hook.received.map((r) => r.payload.type)).to.deep.equal(['playbook.created', 'playbook.version.approved', 'node.created']);
      const wh = new Webhook(sub.secret);
      for (const r of hook.received) {
        expect(r.headers['webhook-id']).to.match(/^whd_/);
        expect(() => wh.verify(r.body, r.headers)).not.to.throw();
        expect(r.payload.data.workspaceId).to.equal(w.workspaceId);
        expect(r.payload.data.actor).to.deep.equal({ kind: 'user', id: w.owner.userId, sponsorUserId: null });
      }
      expect(hook.received[0].payload.data.targetIds[0]).to.equal(pb.id);
      expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(hook.received[0].body, hook.received[0].headers)).to.throw();
      const log = await until('three logged', async () => {
        const all = await deliveries(w, sub.id);
        return all.every((x) => x.status === 'delivered') ? all : undefined;
      });
      expect(log.map((d) => d.status)).to.deep.equal(['delivered', 'delivered', 'delivered']);
      expect(log[0]).to.include({ attempts: 1, lastStatusCode: 200 });
      // The secret is never shown again.
      const listed = await request('GET', w.path('/webhooks'), { token: w.owner.key });
      expect(JSON.stringify(listed.body)).not.to.include(sub.secret);
      const events = await request('GET', w.path('/audit-events?action=webhook.*'), { token: w.owner.key });
      expect(JSON.stringify(events.body)).not.to.include(sub.secret);
    } finally {
      await hook.close();
    }
  });

  it('tells when the month’s retrievals reach 80 % of the limit and the limit, once each, with the retrieval’s caller as actor', async () => {
    const hook = await receiver();
    try {
      const w = await createWorkspace();
      const g = await buildGraph(w, { nodes: { a: {} }, links: [['pb', 'requires', 'a']] });
      const limited = await request('PATCH', `/api/v1/admin/workspaces/${w.workspaceId}`, { token: adminToken, body: { monthlyRetrievalLimit: 5 } });
      expect(limited.status).to.equal(200);
      await subscribe(w, hook.url, ['quota.warning', 'quota.exhausted']);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await getBundle(w, { playbookId: g.playbookId })).status);
      expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 429]);
      await until('two deliveries', () => hook.received.length >= 2 || undefined);
      await new Promise((r) => setTimeout(r, 500));
      expect(hook.received.map((r) => r.payload.type)).to.deep.equal(['quota.warning', 'quota.exhausted']);
      expect(hook.received.map((r) => [r.payload.data.after.used, r.payload.data.after.limit])).to.deep.equal([[4, 5], [5, 5]]);
      const events = (await request('GET', w.path('/audit-events?action=quota.*'), { token: w.owner.key })).body.events as any[];
      expect(events.map((e) => [e.action, e.after.used, e.after.limit, e.actor.id]).sort()).to.deep.equal([
        ['quota.exhausted', 5, 5, w.owner.userId],
        ['quota.warning', 4, 5, w.owner.userId],
      ]);
    } finally {
      await hook.close();
    }
  });

  it('keeps signing secrets sealed in the graph, where the analysts’ Cypher cannot read them', async () => {
    const w = await createWorkspace();
    const sub = await subscribe(w, 'http://127.0.0.1:9/hook', ['node.created']);
    const read = await request('POST', '/api/v1/admin/cypher', {
      token: analystToken,
      body: { query: 'MATCH (s:WebhookSubscription {id: $id}) RETURN s.secret AS stored', params: { id: sub.id } },
    });
    expect(read.status, read.text).to.equal(200);
    const stored = read.body.rows[0][0] as string;
    expect(stored).to.match(/^v1\./);
    expect(stored).not.to.include(sub.secret.slice('whsec_'.length, 'whsec_'.length + 12));
  });

  it('retries a receiver that answers 500 three times and delivers on the fourth try', async () => {
    const hook = await receiver((n) => (n <= 3 ? 500 : 204));
    try {
      const w = await createWorkspace();
      const sub = await subscribe(w, hook.url, ['node.created']);
      const node = await createNode(w);
      await until('the delivery', () => hook.received.length >= 1 || undefined);
      expect(hook.calls()).to.equal(4);
      expect(hook.received[0].payload.data.targetIds).to.deep.equal([node.id]);
      const d = await until('the delivery logged', async () => (await deliveries(w, sub.id)).find((x) => x.status === 'delivered'));
      expect(d).to.include({ status: 'delivered', attempts: 4, lastStatusCode: 204 });
    } finally {
      await hook.close();
    }
  });

  it('keeps each receiver’s order, through a failure', async () => {
    const hook = await receiver((n) => (n === 2 ? 503 : 200));
    try {
      const w = await createWorkspace();
      await subscribe(w, hook.url, ['node.created', 'node.updated']);
      const made: string[] = [];
      for (let i = 0; i < 6; i++) made.push((await createNode(w, { title: `ordered ${i}` })).id);
      await until('six deliveries', () => hook.received.length >= 6 || undefined);
      expect(hook.received.map((r) => r.payload.data.targetIds[0])).to.deep.equal(made);
    } finally {
      await hook.close();
    }
  });

  it('disables a subscription whose deliveries keep failing, says why, and redelivers once re-enabled', async () => {
    let failing = true;
    const hook = await receiver(() => (failing ? 500 : 200));
    try {
      const w = await createWorkspace();
      const sub = await subscribe(w, hook.url, ['node.created']);
      await createNode(w);
      const disabled = await until('the subscription disabled', async () => {
        const res = await request('GET', w.path(`/webhooks/${sub.id}`), { token: w.owner.key });
        return res.body.status === 'disabled' ? res.body : undefined;
      });
      expect(disabled.disabledReason).to.match(/failed 5 times/);
      expect(hook.calls()).to.equal(5);
      const d = await until('the delivery given up', async () => (await deliveries(w, sub.id)).find((x) => x.status === 'failed'));
      expect(d).to.include({ status: 'failed', attempts: 5, lastStatusCode: 500 });
      problem(await request('POST', w.path(`/webhooks/${sub.id}/deliveries/${d.id}/redeliver`), { token: w.owner.key }), 409);
      failing = false;
      const enabled = await request('PATCH', w.path(`/webhooks/${sub.id}`), { token: w.owner.key, body: { status: 'active' } });
      expect(enabled.body).to.include({ status: 'active', disabledReason: null });
      const again = await request('POST', w.path(`/webhooks/${sub.id}/deliveries/${d.id}/redeliver`), { token: w.owner.key });
      expect(again.status, again.text).to.equal(202);
      await until('the redelivery', () => hook.received.length >= 1 || undefined);
      expect(hook.received[0].headers['webhook-id']).to.equal(d.id);
      const after = await until('the redelivery logged', async () => (await deliveries(w, sub.id)).find((x) => x.status === 'delivered'));
      expect(after).to.include({ status: 'delivered', lastStatusCode: 200 });
    } finally {
      await hook.close();
    }
  });

  it('sends nothing for a change that rolled back', async () => {
    const hook = await receiver();
    try {
      const w = await createWorkspace();
      const sub = await subscribe(w, hook.url, ['playbook.updated', 'playbook.version.approved']);
      const pb = await createPlaybook(w, w.owner.key);
      const outsider = (await createWorkspace()).owner;
      problem(await request('PATCH', w.path(`/playbooks/${pb.id}`), { token: w.owner.key, body: { title: 'x', ownerId: outsider.userId } }), 400);
      const v = await createVersion(w, w.owner.key, pb.id);
      await request('PATCH', w.path(`/playbooks/${pb.id}/versions/${v.id}/approve`), { token: w.owner.key });
      await until('the approval', () => hook.received.length >= 1 || undefined);
      await new Promise((r) => setTimeout(r, 600));
      expect(hook.received.map((r) => r.payload.type)).to.deep.equal(['playbook.version.approved']);
      expect(await deliveries(w, sub.id)).to.have.length(1);
    } finally {
      await hook.close();
    }
  });

  it('delivers what a stopped API process left in its outbox once another process runs', async () => {
    const hook = await receiver();
    const w = await createWorkspace();
    // A process whose relay never runs in time: its outbox stays behind when it stops.
    const api = await startExtraService({ WEBHOOK_RELAY_INTERVAL_MS: '3600000' });
    try {
      await subscribe(w, hook.url, ['node.created'], { baseUrl: api.url });
      const res = await request('POST', w.path('/context-nodes'), { token: w.owner.key, body: { title: 'left behind', description: 'd' }, baseUrl: api.url });
      expect(res.status).to.equal(201);
    } finally {
      await api.stop();
    }
    try {
      // The run's shared API process relays it.
      await until('the delivery', () => hook.received.length >= 1 || undefined);
      expect(hook.received[0].payload.data.after.title).to.equal('left behind');
    } finally {
      await hook.close();
    }
  });

  it('refuses private-address URLs unless the operator allows them, and bad input is a 400 that changes nothing', async () => {
    const api = await startExtraService({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'off', WEBHOOK_RELAY_INTERVAL_MS: '3600000' });
    try {
      const w = await createWorkspace();
      for (const url of ['http://127.0.0.1:9/x', 'http://10.1.2.3/x', 'http://169.254.169.254/latest', 'http://[::1]/x', 'http://localhost/x']) {
        const res = await request('POST', w.path('/webhooks'), { token: w.owner.key, body: { url, eventTypes: ['node.created'] }, baseUrl: api.url });
        expect(problem(res, 400).errors?.[0].path).to.equal('/url');
      }
      problem(await request('POST', w.path('/webhooks'), { token: w.owner.key, body: { url: 'ftp://example.com/x', eventTypes: ['node.created'] } }), 400);
      problem(await request('POST', w.path('/webhooks'), { token: w.owner.key, body: { url: 'https://example.com/x', eventTypes: ['no.such'] } }), 400);
      problem(await request('POST', w.path('/webhooks'), { token: w.owner.key, body: { url: 'https://example.com/x', eventTypes: [] } }), 400);
      problem(await request('POST', w.path('/webhooks'), { token: w.owner.key, body: { url: 'https://example.com/x', eventTypes: ['node.created'], secret: 'x' } }), 400);
      const listed = await request('GET', w.path('/webhooks'), { token: w.owner.key });
      expect(listed.body.subscriptions).to.deep.equal([]);
    } finally {
      await api.stop();
    }
  });

  it('is for owners only', async () => {
    const w = await createWorkspace();
    const editor = await addMember(w, 'editor');
    problem(await request('GET', w.path('/webhooks'), { token: editor.key }), 403, 'insufficient_role');
    problem(await request('POST', w.path('/webhooks'), { token: editor.key, body: { url: 'http://127.0.0.1:9/x', eventTypes: ['node.created'] } }), 403);
    const sub = await subscribe(w, 'http://127.0.0.1:9/x', ['node.created']);
    const other = await createWorkspace();
    problem(await request('GET', other.path(`/webhooks/${sub.id}`), { token: other.owner.key }), 404);
    const del = await request('DELETE', w.path(`/webhooks/${sub.id}`), { token: w.owner.key });
    expect(del.status).to.equal(204);
    problem(await request('GET', w.path(`/webhooks/${sub.id}`), { token: w.owner.key }), 404);
  });
});
