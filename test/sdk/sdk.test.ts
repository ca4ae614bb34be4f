import { inspect } from 'node:util';
import { expect } from 'chai';
import type { RunningService } from '../../src/runtime.js';
import { MemoryEtagStore, PlaybooksClient, PlaybooksError, type PlaybooksClientOptions, type ResponseEvent } from '../../sdk/src/index.js';
import { type TestWorkspace, addMember, createUser, createWorkspace, request, unique } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { adminToken, analystToken, dropRedis, env, startExtraService } from '../support/harness.js';

/**
 * The TypeScript client (sdk/) against the real service: every facade method, conditional retrieval, retries,
 * the error class, paging, timeouts. The client is imported from its source, as the package builds it.
 */

interface Seen {
  method: string;
  path: string;
  status: number;
  /** The body as it came over the wire (a 304 has none). */
  body: string;
  ifNoneMatch: string | null;
  etag: string | null;
  authorization: string | null;
}

/** The network as the client sees it: every attempt, before the client's transport turns a 304 into the held answer. */
function recorder(onAnswer?: (seen: Seen) => void | Promise<void>) {
  const seen: Seen[] = [];
  const record = (async (request: Request) => {
    const headers = { ifNoneMatch: request.headers.get('if-none-match'), authorization: request.headers.get('authorization') };
    const response = await fetch(request);
    const body = await response.clone().text();
    const one = { method: request.method, path: new URL(request.url).pathname + new URL(request.url).search, status: response.status, body, etag: response.headers.get('etag'), ...headers };
    seen.push(one);
    await onAnswer?.(one);
    return response;
  }) as typeof fetch;
  return { seen, fetch: record, statuses: () => seen.map((s) => s.status) };
}

/** Facade methods called during this file, `group.method`, to show every one is exercised. */
const called = new Set<string>();
const groups = ['workspaces', 'workspace', 'usage', 'members', 'playbooks', 'versions', 'nodes', 'links', 'context', 'annotations', 'feedback', 'agents', 'keys', 'audit', 'webhooks', 'graph', 'analyst', 'reports', 'admin'] as const;

/** A client whose method calls are noted in `called` (it behaves exactly as the client it wraps). */
function clientFor(workspace: TestWorkspace, apiKey: string, options: Partial<PlaybooksClientOptions> = {}): PlaybooksClient {
  const client = new PlaybooksClient({ baseUrl: env.service.url, apiKey, workspaceId: workspace.workspaceId, ...options });
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || !(groups as readonly string[]).includes(prop)) return value;
      // A method of the group, or of a part of it (analyst.reports.list counts as analyst.reports).
      const noting = (part: object, name: string): object =>
        new Proxy(part, {
          get(inner, method) {
            const fn = Reflect.get(inner, method);
            if (typeof method !== 'string') return fn;
            if (fn !== null && typeof fn === 'object') return noting(fn, name || method);
            if (typeof fn !== 'function') return fn;
            return (...args: unknown[]) => {
              called.add(`${prop}.${name || method}`);
              return fn(...args);
            };
          },
        });
      return noting(value, '');
    },
  });
}

async function rejection(promise: Promise<unknown>): Promise<PlaybooksError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(PlaybooksError);
    return err as PlaybooksError;
  }
  throw new Error('expected the call to fail');
}

const setRetrievalLimit = async (w: TestWorkspace, limit: number | null) => {
  const res = await request('PATCH', `/api/v1/admin/workspaces/${w.workspaceId}`, { token: adminToken, body: { monthlyRetrievalLimit: limit } });
  expect(res.status).to.equal(200);
};

describe('TypeScript client (sdk/)', () => {
  let w: TestWorkspace;
  let owner: PlaybooksClient;

  before(async () => {
    w = await createWorkspace();
    owner = clientFor(w, w.owner.key);
  });

  describe('every facade method against the service', () => {
    it('analyst: read-only Cypher as JSON and CSV, the graph schema, and the saved reports', async () => {
      const analyst = clientFor(w, analystToken, { workspaceId: undefined });
      const node = await owner.nodes.create({ title: unique('Unlinked'), description: 'Nothing links here' });
      const answer = await analyst.analyst.cypher({ query: 'MATCH (n:ContextNode {id: $id}) RETURN n.title AS title', params: { id: node.id } });
      expect(answer.rows).to.deep.equal([[node.title]]);
      const csv = await analyst.analyst.cypherCsv({ query: 'RETURN 1 AS one' });
      expect(csv).to.deep.include({ text: 'one\r\n1\r\n', rowCount: 1, truncated: false, truncatedBy: null });
      expect((await analyst.analyst.schema()).labels).to.include('ContextNode');
      expect((await analyst.analyst.reports.list()).map((r) => r.name)).to.include('orphans');
      const orphans = await analyst.analyst.reports.run('orphans', { workspaceId: w.workspaceId });
      expect(orphans.rows.map((row) => row[0])).to.include(node.id);
      const orphansCsv = await analyst.analyst.reports.csv('orphans', { workspaceId: w.workspaceId, limit: 1 });
      expect(orphansCsv.rowCount).to.equal(1);
      expect(orphansCsv.text.split('\r\n')[0]).to.equal('id,slug,title,nodeType,importance,updatedAt');
    });

    it('reports: the workspace’s saved reports by name, as JSON and CSV, for a member', async () => {
      const node = await owner.nodes.create({ title: unique('Alone'), description: 'Nothing links here' });
      expect((await owner.reports.list()).map((r) => r.name)).to.include('orphans');
      expect((await owner.reports.run('orphans')).rows.map((row) => row[0])).to.include(node.id);
      const csv = await owner.reports.csv('orphans', { limit: 1 });
      expect(csv.rowCount).to.equal(1);
      expect(csv.text.split('\r\n')[0]).to.equal('id,slug,title,nodeType,importance,updatedAt');
      const unknown = await owner.reports.run('no-such-report').then(() => undefined, (err: unknown) => err);
      expect(unknown).to.be.instanceOf(TypeError);
    });

    it('admin: users and their keys, workspaces, every workspace’s audit log and embeddings, with the admin token', async () => {
      const admin = clientFor(w, adminToken, { workspaceId: undefined });
      const user = await admin.admin.users.create({ email: `${unique('operator-made').toLowerCase()}@example.com`, name: 'Made by the operator' });
      const key = await admin.admin.users.createKey(user.id, { label: 'first' });
      expect(key.key).to.match(/^pk_/);
      const made = await admin.admin.workspaces.create({ name: unique('Operator made'), ownerUserId: user.id });
      const renamed = await admin.admin.workspaces.update(made.id, { name: 'Renamed by the operator' });
      expect(renamed.name).to.equal('Renamed by the operator');
      const asUser = new PlaybooksClient({ baseUrl: env.service.url, apiKey: key.key, workspaceId: made.id });
      expect((await asUser.workspace.get()).name).to.equal('Renamed by the operator');
      await admin.admin.users.revokeKey(user.id, key.id);
      expect((await rejection(asUser.workspace.get())).status).to.equal(401);
      const events = [];
      for await (const event of admin.admin.audit({ workspaceId: made.id })) events.push(event.action);
      expect(events).to.include.members(['workspace.created', 'workspace.updated']);
      expect((await admin.admin.auditPage({ action: 'user.key.revoked', limit: 1 })).events[0].targetIds).to.include(key.id);
      const status = await admin.admin.embeddings();
      expect(status.total).to.be.a('number');
    });

    it('workspace, usage and members', async () => {
      expect((await owner.workspace.get()).role).to.equal('owner');
      const mine = await owner.workspaces.list();
      expect(mine.find((x) => x.id === w.workspaceId)?.role).to.equal('owner');
      const exported = await owner.workspace.export();
      expect(exported).to.include({ format: 'playbooks-workspace-export', version: 1 });
      // The same document as a stream, for a file: read whole, it is the export.
      const streamed = JSON.parse(await new Response(await owner.workspace.exportStream()).text());
      expect(streamed).to.include({ format: 'playbooks-workspace-export', version: 1 });
      expect(streamed.nodes.length).to.equal(exported.nodes.length);
      const copy = await createWorkspace();
      expect((await clientFor(copy, copy.owner.key).workspace.import(exported)).idsKept).to.be.a('boolean');
      const usage = await owner.usage.get();
      expect(usage.period).to.match(/^\d{4}-\d{2}$/);
      expect(usage.days.at(-1)?.date).to.equal(new Date().toISOString().slice(0, 10));
      const user = await createUser('Member');
      const added = await owner.members.add({ userId: user.userId, role: 'viewer' });
      expect(added.role).to.equal('viewer');
      expect((await owner.members.changeRole(user.userId, { role: 'editor' })).role).to.equal('editor');
      expect((await owner.members.list()).map((m) => m.userId)).to.include(user.userId);
      expect(await owner.members.remove(user.userId)).to.equal(undefined);
      expect((await owner.members.list()).map((m) => m.userId)).not.to.include(user.userId);
    });

    it('playbooks, versions, nodes and links', async () => {
      const playbook = await owner.playbooks.create({ title: unique('Launch'), version: { content: { instructions: 'Ship it' } }, tags: ['launch'] });
      expect(playbook.latestVersion.versionNumber).to.equal(1);
      expect((await owner.playbooks.get(playbook.id)).tags).to.deep.equal(['launch']);
      expect((await owner.playbooks.update(playbook.id, { summary: 'How we launch' })).summary).to.equal('How we launch');
      const v2 = await owner.versions.create(playbook.id, { content: { instructions: 'Ship it well' }, changeNote: 'better' });
      expect((await owner.versions.get(playbook.id, v2.id)).changeNote).to.equal('better');
      expect((await owner.versions.approve(playbook.id, v2.id)).status).to.equal('approved');
      const rolledBack = await owner.versions.rollback(playbook.id, playbook.versions[0].id, { changeNote: 'back to the start' });
      expect(rolledBack).to.include({ versionNumber: 3, status: 'draft', changeNote: 'back to the start' });
      expect(rolledBack.content).to.deep.equal({ instructions: 'Ship it' });
      expect((await owner.playbooks.page({ limit: 10 })).playbooks.map((p) => p.id)).to.include(playbook.id);

      const [a, b] = [await owner.nodes.create({ title: unique('Tone'), description: 'How we write' }), await owner.nodes.create({ title: unique('Prices'), description: 'What it costs' })];
      expect((await owner.nodes.get(a.id)).title).to.equal(a.title);
      expect((await owner.nodes.update(a.id, { importance: 90 })).importance).to.equal(90);
      const nodeLink = await owner.links.fromNode(a.id, { targetId: b.id, linkType: 'requires' });
      const playbookLink = await owner.links.fromPlaybook(playbook.id, { targetId: a.id, linkType: 'references' });
      expect((await owner.nodes.get(b.id)).incomingLinks.map((l) => l.id)).to.deep.equal([nodeLink.id]);
      const hood = await owner.graph.get({ playbookId: playbook.id, depth: 2 });
      expect(hood.nodes.map((n) => n.id)).to.deep.equal([playbook.id, a.id, b.id]);
      expect(hood.links.map((l) => l.id).sort()).to.deep.equal([nodeLink.id, playbookLink.id].sort());
      expect((await owner.nodes.page({ limit: 200 })).nodes.map((n) => n.id)).to.include.members([a.id, b.id]);
      await owner.links.deleteFromNode(a.id, nodeLink.id);
      await owner.links.deleteFromPlaybook(playbook.id, playbookLink.id);
      expect((await owner.nodes.get(b.id)).incomingLinks).to.deep.equal([]);

      const imported = await owner.nodes.import({ nodes: [{ slug: unique('bulk'), title: 'Bulk', description: 'Imported', links: [{ linkType: 'requires', target: b.slug }] }] });
      expect(imported.summary.created).to.equal(1);
      expect((await owner.nodes.get(imported.nodes[0].id!)).outgoingLinks.map((l) => l.targetId)).to.deep.equal([b.id]);

      await owner.nodes.archive(b.id);
      expect((await owner.nodes.get(b.id)).status).to.equal('archived');
      expect((await owner.nodes.restore(b.id)).status).to.equal('live');
      await owner.playbooks.archive(playbook.id);
      expect((await owner.playbooks.get(playbook.id)).archivedAt).to.be.a('string');
      expect((await owner.playbooks.restore(playbook.id)).archivedAt).to.equal(null);
    });

    it('context for an agent: bundle, manifest, follow, updates', async () => {
      const since = new Date(Date.now() - 1000).toISOString();
      const agent = await createAgent(w, { role: 'editor' });
      const client = clientFor(w, agent.key);
      const playbook = await client.playbooks.create({ title: unique('Onboard'), version: { content: { instructions: 'Welcome' } } });
      const node = await client.nodes.create({ title: unique('Handbook'), description: 'Read me', content: 'The handbook', readFirst: true });
      const next = await client.nodes.create({ title: unique('Benefits'), description: 'Perks', content: 'The perks' });
      await client.links.fromNode(node.id, { targetId: next.id, linkType: 'references' });

      const bundle = await client.context.bundle({ playbookId: playbook.id });
      expect(bundle.playbook.id).to.equal(playbook.id);
      expect(bundle.nodes.map((n) => n.id)).to.include.members([node.id, next.id]);
      const manifest = await client.context.manifest({ playbookId: playbook.id, maxNodes: 1 });
      expect(manifest.nodes).to.have.length(1);
      expect(manifest.truncated).to.equal(true);
      const followed = await client.context.follow(node.id, { linkType: ['references'] });
      expect(followed.nodes.map((n) => n.id)).to.deep.equal([next.id]);
      // Embeddings are off here, so a question is searched by its words (test/embeddings/providers.test.ts asks a model).
      const asked = await client.context.query({ q: node.title, depth: 0, mode: 'hybrid', limit: 10 });
      expect(asked.query.mode).to.equal('words');
      expect(asked.nodes.map((n) => n.id)).to.include(node.id);
      expect((await client.context.embeddings()).state).to.equal('off');
      const page = await client.context.updatesPage({ since });
      expect(page.nodes.map((n) => n.id)).to.include.members([node.id, next.id]);
      const all: string[] = [];
      for await (const changed of client.context.updates({ since })) all.push(changed.id);
      expect(all).to.include.members([node.id, next.id]);
    });

    it('annotations and feedback', async () => {
      const node = await owner.nodes.create({ title: unique('Glossary'), description: 'Words' });
      const annotation = await owner.annotations.create({ targetType: 'context_node', targetId: node.id, scopeType: 'workspace_overlay', title: 'Note', content: 'Check the dates' });
      expect(annotation.source).to.equal('human');
      expect((await owner.annotations.page({ targetId: node.id })).annotations.map((a) => a.id)).to.deep.equal([annotation.id]);
      const listed: string[] = [];
      for await (const a of owner.annotations.list({ targetId: node.id })) listed.push(a.id);
      expect(listed).to.deep.equal([annotation.id]);
      await owner.annotations.delete(annotation.id);
      expect((await owner.annotations.page({ targetId: node.id })).annotations).to.deep.equal([]);

      const feedback = await owner.feedback.create({ targetType: 'context_node', targetId: node.id, feedbackType: 'outdated', summary: 'Old words' });
      expect(feedback.status).to.equal('open');
      expect((await owner.feedback.page({ targetId: node.id })).feedback.map((f) => f.id)).to.deep.equal([feedback.id]);
      const triaged = await owner.feedback.triage(feedback.id, { status: 'resolved', resolutionNote: 'Updated' });
      expect(triaged.status).to.equal('resolved');
      const resolved: string[] = [];
      for await (const f of owner.feedback.list({ status: 'resolved', targetId: node.id })) resolved.push(f.id);
      expect(resolved).to.deep.equal([feedback.id]);
    });

    it('audit log and webhooks', async () => {
      const node = await owner.nodes.create({ title: unique('Audited'), description: 'Words' });
      const page = await owner.audit.page({ target: node.id });
      expect(page.events.map((e) => e.action)).to.deep.equal(['node.created']);
      const all: string[] = [];
      for await (const e of owner.audit.list({ action: 'node.*', limit: 1 })) all.push(e.id);
      expect(all).to.include(page.events[0].id);
      const sub = await owner.webhooks.create({ url: 'http://127.0.0.1:9/hook', eventTypes: ['node.created'] });
      expect(sub.secret).to.match(/^whsec_/);
      expect((await owner.webhooks.list()).map((s) => s.id)).to.include(sub.id);
      expect((await owner.webhooks.get(sub.id)).status).to.equal('active');
      await owner.nodes.create({ title: unique('Hooked'), description: 'Words' });
      const [delivery] = await owner.webhooks.deliveries(sub.id);
      expect(delivery.eventType).to.equal('node.created');
      expect((await owner.webhooks.redeliver(sub.id, delivery.id)).status).to.equal('pending');
      expect((await owner.webhooks.update(sub.id, { status: 'disabled' })).status).to.equal('disabled');
      await owner.webhooks.delete(sub.id);
      expect((await rejection(owner.webhooks.get(sub.id))).status).to.equal(404);
    });

    it('agents and keys', async () => {
      const agent = await owner.agents.register({ name: unique('Scout'), role: 'viewer' });
      expect(agent.status).to.equal('active');
      expect((await owner.agents.list()).map((a) => a.id)).to.include(agent.id);
      expect((await owner.agents.update(agent.id, { description: 'Finds things' })).description).to.equal('Finds things');
      const key = await owner.keys.create(agent.id, { label: 'ci' });
      expect(key.key).to.match(/^pk_/);
      expect((await owner.agents.get(agent.id)).keyCount).to.equal(1);
      expect((await owner.keys.list(agent.id)).map((k) => k.id)).to.deep.equal([key.id]);
      const asAgent = clientFor(w, key.key);
      expect((await asAgent.workspace.get()).role).to.equal('viewer');
      expect((await asAgent.workspaces.list()).map((x) => x.id)).to.deep.equal([w.workspaceId]);
      const rotated = await owner.keys.rotate(agent.id, key.id, { graceSeconds: 0, label: 'ci-2' });
      expect(rotated.previousKey.id).to.equal(key.id);
      expect((await rejection(asAgent.workspace.get())).status).to.equal(401);
      const asRotated = clientFor(w, rotated.key.key);
      expect((await asRotated.workspace.get()).role).to.equal('viewer');
      await owner.keys.revoke(agent.id, rotated.key.id);
      expect((await rejection(asRotated.workspace.get())).status).to.equal(401);
      await owner.agents.deactivate(agent.id);
      expect((await owner.agents.get(agent.id)).status).to.equal('deactivated');
      expect((await owner.agents.reactivate(agent.id)).status).to.equal('active');
    });
  });

  describe('conditional retrieval', () => {
    it('a second bundle of an unchanged graph is a 304 with no body, answered from the store and counted as a retrieval', async () => {
      const net = recorder();
      const store = new MemoryEtagStore();
      const events: ResponseEvent[] = [];
      const client = clientFor(w, w.owner.key, { fetch: net.fetch, store, onResponse: (e) => events.push(e) });
      const playbook = await client.playbooks.create({ title: unique('Cached'), version: { content: { instructions: 'Once' } } });
      const node = await client.nodes.create({ title: unique('Rules'), description: 'The rules', content: 'Rule one' });
      await client.links.fromPlaybook(playbook.id, { targetId: node.id, linkType: 'requires' });
      const used = (await client.usage.get()).used;
      net.seen.length = 0;

      const first = await client.context.bundle({ playbookId: playbook.id, mode: 'full' });
      const second = await client.context.bundle({ mode: 'full', playbookId: playbook.id });

      expect(second).to.deep.equal(first);
      expect(second.nodes.find((n) => n.id === node.id)?.content).to.equal('Rule one');
      const [a, b] = net.seen;
      expect([a.status, b.status]).to.deep.equal([200, 304]);
      expect(a.ifNoneMatch).to.equal(null);
      expect(a.etag).to.be.a('string');
      expect(b.ifNoneMatch).to.equal(a.etag);
      expect(b.body).to.equal('');
      expect(store.size).to.equal(1);
      expect(events.filter((e) => e.path.includes('/context/bundle')).map((e) => e.fromStore)).to.deep.equal([false, true]);
      // A 304 is a retrieval like a 200 (docs/api.md, "Retrieval").
      expect((await client.usage.get()).used).to.equal(used + 2);

      const manifest = await client.context.manifest({ playbookId: playbook.id });
      expect(await client.context.manifest({ playbookId: playbook.id })).to.deep.equal(manifest);
      expect(net.seen.filter((s) => s.path.includes('/context/manifest')).map((s) => s.status)).to.deep.equal([200, 304]);
      expect(store.size).to.equal(2);
    });

    it('a context query asked again is sent with If-None-Match and answered from the store; another question is not', async () => {
      const net = recorder();
      const store = new MemoryEtagStore();
      const client = clientFor(w, w.owner.key, { fetch: net.fetch, store });
      await client.nodes.create({ title: unique('Glacier survey'), description: 'How the glacier was measured' });
      net.seen.length = 0;

      const first = await client.context.query({ q: 'glacier survey', mode: 'words' });
      const again = await client.context.query({ q: 'glacier survey', mode: 'words' });
      const other = await client.context.query({ q: 'glacier measured', mode: 'words' });

      expect(again).to.deep.equal(first);
      expect(first.nodes.length).to.be.above(0);
      expect(net.seen.map((s) => s.status)).to.deep.equal([200, 304, 200]);
      expect(net.seen[1].ifNoneMatch).to.equal(net.seen[0].etag);
      expect(net.seen[2].ifNoneMatch).to.equal(null);
      expect(other.query).to.deep.include({ mode: 'words' });
    });

    it('a change to the graph makes the next bundle a 200 with the new content, which the store then holds', async () => {
      const net = recorder();
      const client = clientFor(w, w.owner.key, { fetch: net.fetch });
      const playbook = await client.playbooks.create({ title: unique('Changing'), version: { content: { instructions: 'Watch' } } });
      const node = await client.nodes.create({ title: unique('Price list'), description: 'Prices', content: 'Ten euros' });
      await client.links.fromPlaybook(playbook.id, { targetId: node.id, linkType: 'requires' });
      const bundle = async () => (await client.context.bundle({ playbookId: playbook.id })).nodes.find((n) => n.id === node.id);
      const bundles = () => net.seen.filter((s) => s.path.includes('/context/bundle'));

      expect((await bundle())?.content).to.equal('Ten euros');
      await bundle();
      await client.nodes.update(node.id, { content: 'Twelve euros' });
      expect((await bundle())?.content).to.equal('Twelve euros');
      expect((await bundle())?.content).to.equal('Twelve euros');
      expect(bundles().map((s) => s.status)).to.deep.equal([200, 304, 200, 304]);
      expect(bundles()[2].ifNoneMatch).to.equal(bundles()[0].etag);
      expect(bundles()[2].body).to.include('Twelve euros');
      expect(bundles()[3].ifNoneMatch).to.equal(bundles()[2].etag);
    });
  });

  describe('retries', () => {
    let svc: RunningService | undefined;
    afterEach(async () => {
      await svc?.stop();
      svc = undefined;
    });

    it('a bundle that meets a 503 while Redis is down is retried after Retry-After and answers once Redis is back', async () => {
      svc = await startExtraService();
      const extra = svc;
      const playbook = await owner.playbooks.create({ title: unique('Resilient'), version: { content: { instructions: 'Hold on' } } });
      const net = recorder(async (seen) => {
        if (seen.status === 503) await extra.services.redis.connect();
      });
      const client = new PlaybooksClient({ baseUrl: extra.url, apiKey: w.owner.key, workspaceId: w.workspaceId, fetch: net.fetch });
      await dropRedis(extra.services.redis);
      const started = Date.now();
      const bundle = await client.context.bundle({ playbookId: playbook.id });
      expect(bundle.playbook.id).to.equal(playbook.id);
      // Each 503 is waited out and the call answers once Redis is back; on a loaded machine one retry may still meet
      // a 503 while the process recovers from the outage (it first settles what it owes Redis).
      const statuses = net.statuses();
      expect(statuses.at(-1)).to.equal(200);
      expect(statuses.slice(0, -1)).to.have.length.within(1, 2).and.satisfy((early: number[]) => early.every((status) => status === 503));
      const problem = JSON.parse(net.seen[0].body);
      expect(problem.code).to.equal('service_unavailable');
      expect(Date.now() - started).to.be.at.least(5000 - 50); // the service's Retry-After: 5
    });

    it('a create carries an Idempotency-Key, so that a 503 is retried safely: one node is made', async () => {
      svc = await startExtraService();
      const extra = svc;
      const net = recorder(async (seen) => {
        if (seen.status === 503) await extra.services.redis.connect();
      });
      const client = new PlaybooksClient({ baseUrl: svc.url, apiKey: w.owner.key, workspaceId: w.workspaceId, fetch: net.fetch });
      svc.services.redis.disconnect();
      const title = unique('Once only');
      // With Redis down, the key cannot be checked: the service refuses before writing, and the retry makes it.
      const node = await client.nodes.create({ title, description: 'Made once, across a retry' });
      expect(node.title).to.equal(title);
      expect(net.statuses()).to.deep.equal([503, 201]);
      const found = await owner.nodes.page({ q: title, limit: 200 });
      expect(found.nodes.filter((n) => n.title === title)).to.have.length(1);
    });

    it('a 429 rate_limited is waited out as Retry-After says, even for a create, which the gate refused before doing anything', async function () {
      this.timeout(20_000);
      // The service's clock is moved to 57 s past a minute, so the window ends 3 s after the limit is reached.
      let offset = 0;
      svc = await startExtraService({ RATE_LIMIT_PER_KEY_PER_MINUTE: '2' }, { clock: () => new Date(Date.now() + offset) });
      const limited = await createWorkspace();
      const net = recorder();
      const client = new PlaybooksClient({ baseUrl: svc.url, apiKey: limited.owner.key, workspaceId: limited.workspaceId, fetch: net.fetch });
      offset = 57_000 - (Date.now() % 60_000);
      await client.workspace.get();
      await client.usage.get();
      const created = await client.playbooks.create({ title: unique('Patient'), version: { content: { instructions: 'Wait' } } });
      expect(net.statuses()).to.deep.equal([200, 200, 429, 201]);
      const problem = JSON.parse(net.seen[2].body);
      expect(problem.code).to.equal('rate_limited');
      const list = await clientFor(limited, limited.owner.key).playbooks.page();
      expect(list.playbooks.map((p) => p.id)).to.deep.equal([created.id]);
    });

    it('a 429 quota_exceeded whose Retry-After is beyond the time budget is thrown at once', async () => {
      const quota = await createWorkspace();
      const net = recorder();
      const client = clientFor(quota, quota.owner.key, { fetch: net.fetch });
      const playbook = await client.playbooks.create({ title: unique('Scarce'), version: { content: { instructions: 'Once' } } });
      await setRetrievalLimit(quota, 1);
      await client.context.manifest({ playbookId: playbook.id });
      const started = Date.now();
      const error = await rejection(client.context.bundle({ playbookId: playbook.id }));
      expect([error.status, error.code]).to.deep.equal([429, 'quota_exceeded']);
      expect(error.retryAfter).to.be.above(0);
      expect(Date.now() - started).to.be.below(2000);
      expect(net.seen.filter((s) => s.path.includes('/context/bundle'))).to.have.length(1);
    });
  });

  describe('errors', () => {
    it('400: a PlaybooksError with the problem code and the invalid fields', async () => {
      const error = await rejection(owner.nodes.create({ title: unique('Bad'), description: 'x', importance: 500 }));
      expect([error.status, error.code]).to.deep.equal([400, 'invalid_request']);
      expect(error.detail).to.be.a('string').and.not.equal('');
      expect(error.errors.map((e) => e.path)).to.deep.equal(['/importance']);
      expect(error.requestId).to.be.a('string');
    });

    it('401: an unknown key, and the key appears nowhere in the error', async () => {
      const key = 'pk_user_' + 'x'.repeat(40);
      const client = clientFor(w, key);
      const error = await rejection(client.workspace.get());
      expect([error.status, error.code]).to.deep.equal([401, 'unauthorized']);
      expect(JSON.stringify(error) + error.message + error.stack + inspect(error)).not.to.include(key);
    });

    it('403: a viewer cannot create; an agent key cannot manage agents', async () => {
      const viewer = await addMember(w, 'viewer');
      const asViewer = clientFor(w, viewer.key);
      const error = await rejection(asViewer.playbooks.create({ title: unique('Nope'), version: { content: {} } }));
      expect([error.status, error.code]).to.deep.equal([403, 'insufficient_role']);
      const agent = await createAgent(w);
      const asAgent = clientFor(w, agent.key);
      expect((await rejection(asAgent.agents.list())).code).to.equal('user_key_required');
    });

    it('404: a playbook that does not exist, and a workspace the caller is not in', async () => {
      const missing = await rejection(owner.playbooks.get('pb_doesnotexist'));
      expect([missing.status, missing.code]).to.deep.equal([404, 'not_found']);
      const other = await createWorkspace();
      const stranger = new PlaybooksClient({ baseUrl: env.service.url, apiKey: w.owner.key, workspaceId: other.workspaceId });
      expect((await rejection(stranger.usage.get())).status).to.equal(404);
    });

    it('409: a taken slug, and approving a version that is not a draft', async () => {
      const slug = unique('taken');
      const playbook = await owner.playbooks.create({ title: 'First', slug, version: { content: {} } });
      const taken = await rejection(owner.playbooks.create({ title: 'Second', slug, version: { content: {} } }));
      expect([taken.status, taken.code]).to.deep.equal([409, 'slug_taken']);
      await owner.versions.approve(playbook.id, playbook.latestVersion.id);
      const again = await rejection(owner.versions.approve(playbook.id, playbook.latestVersion.id));
      expect([again.status, again.code]).to.deep.equal([409, 'version_not_draft']);
    });
  });

  describe('paging', () => {
    it('walks every page of a list, one request a page', async () => {
      const paged = await createWorkspace();
      const net = recorder();
      const client = clientFor(paged, paged.owner.key, { fetch: net.fetch });
      const since = new Date(Date.now() - 1000).toISOString();
      const made: string[] = [];
      for (let i = 0; i < 5; i++) made.push((await client.playbooks.create({ title: `Playbook ${i}`, version: { content: {} } })).id);
      const nodes: string[] = [];
      for (let i = 0; i < 5; i++) nodes.push((await client.nodes.create({ title: `Node ${i}`, description: 'paged' })).id);
      net.seen.length = 0;

      const seen: string[] = [];
      for await (const p of client.playbooks.list({ limit: 2, sort: 'title', order: 'asc' })) seen.push(p.id);
      expect(seen).to.deep.equal(made);
      expect(net.seen.map((s) => new URL(s.path, 'http://x').searchParams.get('page'))).to.deep.equal(['1', '2', '3']);

      expect((await client.nodes.list({ limit: 2, sort: 'title', order: 'asc' }).toArray()).map((n) => n.id)).to.deep.equal(nodes);
      const pages: number[] = [];
      for await (const page of client.nodes.list({ limit: 3 }).pages()) pages.push(page.nodes.length);
      expect(pages).to.deep.equal([3, 2]);

      net.seen.length = 0;
      expect((await client.context.updates({ since, limit: 2 }).toArray()).map((n) => n.id)).to.deep.equal(nodes);
      // Pages of at most two (unless equal timestamps keep a pair together), then the empty page that ends it.
      expect(net.seen.length).to.be.at.least(3);
      expect(JSON.parse(net.seen[net.seen.length - 1].body).nodes).to.deep.equal([]);
    });
  });

  describe('timeouts, signals and the key', () => {
    /** A network that takes 300 ms to start answering, and gives up when the request's signal aborts. */
    const slowFetch = (async (request: Request) => {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, 300);
        request.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(request.signal.reason);
        });
      });
      return fetch(request);
    }) as typeof fetch;

    it('an attempt past timeoutMs fails as a PlaybooksError timeout', async () => {
      const client = clientFor(w, w.owner.key, { fetch: slowFetch, timeoutMs: 50 });
      const started = Date.now();
      const error = await rejection(client.workspace.get());
      expect([error.status, error.code]).to.deep.equal([0, 'timeout']);
      expect(Date.now() - started, 'a timed-out attempt is not retried').to.be.below(300);
      expect((await client.workspace.get({ timeoutMs: 5000 })).id).to.equal(w.workspaceId);
    });

    it('an aborted signal ends the call with its reason, retries included', async () => {
      const client = clientFor(w, w.owner.key, { fetch: slowFetch });
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('caller gave up')), 50);
      try {
        await client.usage.get({ signal: controller.signal });
        expect.fail('expected an abort');
      } catch (err) {
        expect((err as Error).message).to.equal('caller gave up');
      }
    });

    it('the key travels only in the Authorization header: never in a URL, never on the client object', async () => {
      const net = recorder();
      const client = clientFor(w, w.owner.key, { fetch: net.fetch });
      await client.workspace.get();
      await client.context.updatesPage({ since: new Date().toISOString() });
      for (const s of net.seen) {
        expect(s.path).not.to.include(w.owner.key);
        expect(s.authorization).to.equal(`Bearer ${w.owner.key}`);
      }
      expect(inspect(client, { depth: 10, showHidden: true }) + JSON.stringify(client)).not.to.include(w.owner.key);
    });
  });

  describe('the default store', () => {
    it('is bounded in entries and in size, least recently used out first', () => {
      const store = new MemoryEtagStore({ maxEntries: 2, maxChars: 10 });
      store.set('a', { etag: '"a"', body: 'aaa' });
      store.set('b', { etag: '"b"', body: 'bbb' });
      store.get('a');
      store.set('c', { etag: '"c"', body: 'ccc' });
      expect([store.get('a')?.etag, store.get('b'), store.get('c')?.etag]).to.deep.equal(['"a"', undefined, '"c"']);
      store.set('d', { etag: '"d"', body: 'dddddddd' });
      expect(store.size).to.equal(1);
      store.set('huge', { etag: '"h"', body: 'x'.repeat(11) });
      expect(store.get('huge')).to.equal(undefined);
    });
  });

  after(function () {
    // Only when every test of this file ran and passed: then every method of every facade group was called.
    const everyTest = (suite: Mocha.Suite): Mocha.Test[] => [...suite.tests, ...suite.suites.flatMap(everyTest)];
    if (!this.test?.parent || everyTest(this.test.parent).some((t) => t.state !== 'passed')) return;
    const probe = new PlaybooksClient({ baseUrl: 'http://localhost', apiKey: 'k', workspaceId: 'ws' });
    const all = groups.flatMap((g) => Object.keys(probe[g]).map((m) => `${g}.${m}`));
    expect(all.filter((m) => !called.has(m))).to.deep.equal([]);
  });
});
