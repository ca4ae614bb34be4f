import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { IdempotencyStore } from '../../src/gate/idempotency.js';
import { type LocalServer, freePort, startRedis } from '../../src/infra/local-deps.js';
import { createRedis } from '../../src/infra/redis.js';
import type { RunningService } from '../../src/runtime.js';
import { createWorkspace, problem, request, unique } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { apiWith, dropRedis, env, startExtraService } from '../support/harness.js';
import { createNode, linkPlaybook, listNodes } from '../support/nodes.js';
import { createPlaybook } from '../support/playbooks.js';
import { until, untilReady } from '../support/waits.js';

/**
 * Two API processes sharing a Redis of their own, which the tests stop and start again on the same port and
 * data folder, as a Redis restart or outage would.
 */
describe('partial failure', function () {
  this.timeout(120_000);
  let dataDir: string;
  let port: number;
  let redis: LocalServer;
  let a: RunningService;
  let b: RunningService;

  before(async () => {
    // One Neo4j serves both Redis servers here, which no deployment does: the run's own service, whose Redis is
    // the other one, must not take the signals these processes owe theirs.
    await env.service.services.gate.stop();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'playbooks-redis-'));
    port = await freePort();
    redis = await startRedis({ dataDir, port });
    [a, b] = await Promise.all([startExtraService({ REDIS_URL: redis.url }), startExtraService({ REDIS_URL: redis.url })]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    env.service.services.gate.start();
  });

  const restartRedis = async () => {
    redis = await startRedis({ dataDir, port });
    await Promise.all([untilReady(a.url), untilReady(b.url)]);
  };

  it('a write committed while Redis is down answers its success, and once Redis is back no process serves an older answer', async () => {
    const w = await createWorkspace();
    const pb = await createPlaybook(w, w.owner.key);
    const node = await createNode(w, { title: 'Before' });
    await linkPlaybook(w, pb.id, node.id, 'requires');
    const bundle = (etag?: string) =>
      request('GET', w.path(`/context/bundle?playbookId=${pb.id}`), { token: w.owner.key, baseUrl: b.url, headers: etag ? { 'if-none-match': etag } : {} });
    const first = await bundle();
    expect(first.body.nodes[0].title).to.equal('Before');
    expect((await bundle()).status).to.equal(200);

    await redis.stop();
    const update = await request('PATCH', w.path(`/context-nodes/${node.id}`), { token: w.owner.key, baseUrl: a.url, body: { title: 'After' } });
    expect(update.status).to.equal(200);
    expect(update.body.title).to.equal('After');
    await restartRedis();

    const next = await bundle(first.headers.get('etag')!);
    expect(next.status).to.equal(200);
    expect(next.body.nodes[0].title).to.equal('After');
  });

  it('a revocation committed while Redis is down is refused everywhere, during the outage and after it', async () => {
    const w = await createWorkspace();
    const agent = await createAgent(w);
    for (const svc of [a, b]) expect((await request('GET', w.path(), { token: agent.key, baseUrl: svc.url })).status).to.equal(200);
    await redis.stop();
    const revoked = await request('DELETE', w.path(`/agents/${agent.agentId}/keys/${agent.keyId}`), { token: w.owner.key, baseUrl: a.url });
    expect(revoked.status).to.equal(204);
    problem(await request('GET', w.path(), { token: agent.key, baseUrl: b.url }), 401, 'unauthorized');
    await restartRedis();
    for (const svc of [a, b]) problem(await request('GET', w.path(), { token: agent.key, baseUrl: svc.url }), 401, 'unauthorized');
  });

  it('the self-started Redis keeps the month’s counts across a restart', async () => {
    const w = await createWorkspace();
    const pb = await createPlaybook(w, w.owner.key);
    for (let i = 0; i < 8; i++) {
      expect((await request('GET', w.path(`/context/bundle?playbookId=${pb.id}`), { token: w.owner.key, baseUrl: a.url })).status).to.equal(200);
    }
    await redis.stop();
    await restartRedis();
    const usage = await request('GET', w.path('/usage'), { token: w.owner.key, baseUrl: b.url });
    expect(usage.body.used).to.equal(8);
  });

  it('a retrieval answered 503 while Redis is stalled is not counted when Redis goes on', async () => {
    const w = await createWorkspace();
    const pb = await createPlaybook(w, w.owner.key);
    const bundle = () => request('GET', w.path(`/context/bundle?playbookId=${pb.id}`), { token: w.owner.key, baseUrl: a.url });
    const used = async () => (await request('GET', w.path('/usage'), { token: w.owner.key, baseUrl: b.url })).body.used;
    expect((await bundle()).status).to.equal(200);
    // A stopped server keeps its connections open: the gate's calls wait in them and run when it goes on, long
    // after their requests were answered 503 (each gave up after the command timeout).
    process.kill(redis.pid, 'SIGSTOP');
    let stalled: { status: number }[];
    try {
      stalled = await Promise.all(Array.from({ length: 6 }, () => bundle()));
    } finally {
      process.kill(redis.pid, 'SIGCONT');
    }
    expect(stalled.map((r) => r.status)).to.deep.equal(Array(6).fill(503));
    expect((await bundle()).status).to.equal(200);
    // Only what was served counts: the stalled calls ran, and were taken back.
    await until('the count of what was served', used, (n) => n === 2, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await used()).to.equal(2);
  });

  it('with Redis down, a POST with an Idempotency-Key is refused before anything is written; one without it is not', async () => {
    const w = await createWorkspace();
    // Counted through the process whose Redis is down: it trusts no cache then.
    const count = async () => (await request('GET', w.path('/context-nodes?limit=1'), { token: w.owner.key, baseUrl: a.url })).body.pagination.total;
    const before = await count();
    await redis.stop();
    try {
      const keyed = await request('POST', w.path('/context-nodes'), { token: w.owner.key, baseUrl: a.url, headers: { 'idempotency-key': 'create-1' }, body: { title: 'Keyed', description: 'd' } });
      problem(keyed, 503, 'service_unavailable');
      expect(await count()).to.equal(before);
      const plain = await request('POST', w.path('/context-nodes'), { token: w.owner.key, baseUrl: a.url, body: { title: 'Plain', description: 'd' } });
      expect(plain.status).to.equal(201);
      expect(await count()).to.equal(before + 1);
    } finally {
      await restartRedis();
    }
  });
});

describe('Idempotency-Key', () => {
  const create = (w: Awaited<ReturnType<typeof createWorkspace>>, key: string, body: Record<string, unknown>) =>
    request('POST', w.path('/context-nodes'), { token: w.owner.key, headers: { 'idempotency-key': key }, body });
  const count = async (w: Awaited<ReturnType<typeof createWorkspace>>) => (await listNodes(w, { limit: 1 })).pagination.total;

  it('a retry with the same key and body replays the first answer and writes nothing', async () => {
    const w = await createWorkspace();
    const first = await create(w, 'retry-1', { title: 'Once', description: 'd' });
    expect(first.status).to.equal(201);
    const retry = await create(w, 'retry-1', { title: 'Once', description: 'd' });
    expect(retry.status).to.equal(201);
    expect(retry.body).to.deep.equal(first.body);
    expect(retry.headers.get('idempotent-replayed')).to.equal('true');
    expect(await count(w)).to.equal(1);
  });

  it('the same key with another body is a 422; another caller’s same key is its own', async () => {
    const w = await createWorkspace();
    expect((await create(w, 'key-2', { title: 'One', description: 'd' })).status).to.equal(201);
    problem(await create(w, 'key-2', { title: 'Two', description: 'd' }), 422, 'idempotency_key_reused');
    const agent = await createAgent(w, { role: 'editor' });
    const theirs = await request('POST', w.path('/context-nodes'), { token: agent.key, headers: { 'idempotency-key': 'key-2' }, body: { title: 'Two', description: 'd' } });
    expect(theirs.status).to.equal(201);
    expect(await count(w)).to.equal(2);
  });

  it('concurrent requests with one key write once', async () => {
    const w = await createWorkspace();
    const answers = await Promise.all(Array.from({ length: 5 }, () => create(w, 'race', { title: 'Raced', description: 'd' })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201).length).to.be.at.least(1);
    for (const s of statuses) expect([201, 409]).to.include(s);
    expect(await count(w)).to.equal(1);
  });

  it('a key whose request failed while Redis was away is free again as soon as Redis is back', async () => {
    // Two connections to the run's Redis: the one that claims (and loses Redis while its request runs), and another
    // process's, which a retry reaches.
    const mine = createRedis(env.deps.redis);
    const theirs = createRedis(env.deps.redis);
    await Promise.all([mine.connect(), theirs.connect()]);
    try {
      const scope = { workspaceId: `ws_${unique('outage')}`, callerKeyId: 'key_outage' };
      const sent = { method: 'POST', path: '/api/v1/workspaces/x/context-nodes', bodyDigest: 'same' };
      const claim = await new IdempotencyStore(mine).claim(scope, 'retry-after-outage', sent);
      const other = new IdempotencyStore(theirs);
      await dropRedis(mine);
      await claim.release();
      // While the claim cannot be ended, a retry finds it still running.
      expect(await other.claim(scope, 'retry-after-outage', sent).catch((err) => err.code)).to.equal('conflict');
      await mine.connect();
      // The owed release is sent the moment the connection is ready; the other connection's retry may only race it.
      const deadline = Date.now() + 2_000;
      let retried = await other.claim(scope, 'retry-after-outage', sent).catch((err) => err.code);
      while (retried === 'conflict' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        retried = await other.claim(scope, 'retry-after-outage', sent).catch((err) => err.code);
      }
      expect(retried).to.be.an('object');
    } finally {
      mine.disconnect();
      theirs.disconnect();
    }
  });

  it('a claim ends only the request that made it: a late release after the key was taken again frees nothing', async () => {
    const redis = createRedis(env.deps.redis);
    await redis.connect();
    try {
      const store = new IdempotencyStore(redis);
      const scope = { workspaceId: `ws_${unique('late')}`, callerKeyId: 'key_late' };
      const sent = { method: 'POST', path: '/p', bodyDigest: 'same' };
      const first = await store.claim(scope, 'late', sent);
      await first.release();
      const second = await store.claim(scope, 'late', sent);
      await first.release();
      expect(await store.claim(scope, 'late', sent).catch((err) => err.code)).to.equal('conflict');
      await second.complete({ status: 201, body: { id: 'x' } });
      expect((await store.claim(scope, 'late', sent)).replay).to.deep.equal({ status: 201, body: { id: 'x' } });
    } finally {
      redis.disconnect();
    }
  });

  it('a failed request leaves its key free for a corrected retry; a key that is too long is a 400', async () => {
    const w = await createWorkspace();
    problem(await create(w, 'fix-me', { title: '', description: 'd' }), 400, 'invalid_request');
    expect((await create(w, 'fix-me', { title: 'Fixed', description: 'd' })).status).to.equal(201);
    problem(await create(w, 'k'.repeat(300), { title: 'Long', description: 'd' }), 400, 'invalid_request');
  });
});

describe('when Neo4j does not answer', () => {
  const readTimeoutMs = 2_000;
  let blackHole: Server;
  let api: { url: string; close: () => Promise<void> };

  before(async () => {
    // Accepts connections and never answers, as a database that is restarting can.
    blackHole = createServer(() => {});
    const port = await freePort();
    await new Promise<void>((r) => blackHole.listen(port, '127.0.0.1', () => r()));
    api = await apiWith(`bolt://127.0.0.1:${port}`, env.deps.redis, { redisUp: true, env: { NEO4J_READ_TIMEOUT_MS: String(readTimeoutMs) } });
  });
  after(async () => {
    await api?.close();
    blackHole?.close();
  });

  it('a read fails with 503 and Retry-After within NEO4J_READ_TIMEOUT_MS, not after the driver’s retries', async function () {
    this.timeout(30_000);
    const w = await createWorkspace();
    const started = Date.now();
    const res = await request('GET', w.path(), { token: w.owner.key, baseUrl: api.url });
    problem(res, 503, 'service_unavailable');
    expect(res.headers.get('retry-after')).to.match(/^\d+$/);
    expect(Date.now() - started).to.be.below(readTimeoutMs + 2_000);
  });
});
