import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { type Reply, type TestWorkspace, createWorkspace, problem, request, unique } from '../support/api.js';
import { startRedis } from '../../src/infra/local-deps.js';
import { readScope } from '../../src/infra/read-scope.js';
import { type ApiProcess, startApiProcess } from '../support/api-process.js';
import { createAgent } from '../support/agents.js';
import { adminToken, env, startExtraService } from '../support/harness.js';
import { type RedisClusterServers, type RedisSentinelServers, startRedisCluster, startRedisSentinel } from '../support/redis-topologies.js';

/**
 * Three API processes (real OS processes) behind no balancer but the test's own round robin, on a 3-master Redis
 * Cluster with a replica each and on the run's Neo4j through the routing scheme (neo4j://), as a deployment past
 * one machine runs them. Every change goes through one of the three: they share this cluster, not the run's Redis.
 */
describe('three API processes on a Redis Cluster and Neo4j through neo4j://', function () {
  this.timeout(240_000);
  let dataDir: string;
  let cluster: RedisClusterServers;
  let processes: ApiProcess[] = [];
  const at = (i: number) => processes[i % processes.length].url;

  before(async () => {
    // One Neo4j serves the run's Redis and this cluster here, which no deployment does: the run's own process would
    // deliver these workspaces' webhooks through its queue while the three do through theirs.
    await env.service.dispatcher.stop();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'playbooks-replicas-'));
    cluster = await startRedisCluster(dataDir);
    const settings = {
      REDIS_CLUSTER_NODES: cluster.nodesSetting,
      NEO4J_URI: env.deps.neo4jUri.replace(/^bolt:/, 'neo4j:'),
      // The test's webhook receiver listens on loopback.
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on',
      WEBHOOK_RELAY_INTERVAL_MS: '200',
    };
    processes = await Promise.all([0, 1, 2].map(() => startApiProcess(settings)));
  });
  after(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await cluster?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    env.service.dispatcher.start();
  });

  const post = async (w: TestWorkspace, rest: string, body: object, baseUrl: string) => {
    const res = await request('POST', w.path(rest), { token: w.owner.key, body, baseUrl });
    expect(res.status, res.text).to.equal(201);
    return res.body as { id: string };
  };
  const createNode = (w: TestWorkspace, content: string, baseUrl: string) => post(w, '/context-nodes', { title: unique('Node'), description: 'A replicated node', content }, baseUrl);
  /** A playbook requiring one node, written through the three processes in turn. */
  async function playbookWithContext(w: TestWorkspace): Promise<string> {
    const playbook = await post(w, '/playbooks', { title: unique('Replicated'), version: { content: { instructions: 'Do the thing' } } }, at(0));
    const node = await createNode(w, 'Context for the replicas', at(1));
    await post(w, `/playbooks/${playbook.id}/links`, { targetId: node.id, linkType: 'requires' }, at(2));
    return playbook.id;
  }
  const manifest = (w: TestWorkspace, playbookId: string, key: string, baseUrl: string) =>
    request('GET', w.path(`/context/manifest?playbookId=${playbookId}`), { token: key, baseUrl });
  const usage = async (w: TestWorkspace, baseUrl: string) => (await request('GET', w.path('/usage'), { token: w.owner.key, baseUrl })).body;

  it('a key revoked through one process is refused on the next request through each of the others', async () => {
    const w = await createWorkspace();
    const playbookId = await playbookWithContext(w);
    const agent = await createAgent(w);
    for (let i = 0; i < 3; i++) expect((await manifest(w, playbookId, agent.key, at(i))).status).to.equal(200);
    const revoked = await request('DELETE', w.path(`/agents/${agent.agentId}/keys/${agent.keyId}`), { token: w.owner.key, baseUrl: at(1) });
    expect(revoked.status).to.equal(204);
    for (let i = 0; i < 3; i++) problem(await manifest(w, playbookId, agent.key, at(i)), 401, 'unauthorized');
  });

  it('300 parallel retrievals over the three against a limit of 200 succeed exactly 200 times', async () => {
    const w = await createWorkspace();
    const playbookId = await playbookWithContext(w);
    const limited = await request('PATCH', `/api/v1/admin/workspaces/${w.workspaceId}`, { token: adminToken, body: { monthlyRetrievalLimit: 200 }, baseUrl: at(0) });
    expect(limited.status).to.equal(200);
    const answers: Reply[] = await Promise.all(Array.from({ length: 300 }, (_, i) => manifest(w, playbookId, w.owner.key, at(i))));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200), statuses.join(' ')).to.have.length(200);
    expect(statuses.filter((s) => s === 429), statuses.join(' ')).to.have.length(100);
    for (let i = 0; i < 3; i++) expect(await usage(w, at(i))).to.include({ used: 200, limit: 200, remaining: 0 });
  });

  it('a client reads its own write at once through another process, 200 times in a row', async () => {
    const w = await createWorkspace();
    const node = await createNode(w, 'Version 0', at(0));
    for (let i = 1; i <= 200; i++) {
      const changed = await request('PATCH', w.path(`/context-nodes/${node.id}`), { token: w.owner.key, body: { content: `Version ${i}` }, baseUrl: at(i) });
      expect(changed.status, changed.text).to.equal(200);
      const read = await request('GET', w.path(`/context-nodes/${node.id}`), { token: w.owner.key, baseUrl: at(i + 1) });
      expect(read.body.content, `read ${i}`).to.equal(`Version ${i}`);
    }
  });

  it('delivers every webhook event once, though each process relays and delivers', async () => {
    const received: string[] = [];
    const server: Server = createServer((req, res) => {
      const id = req.headers['webhook-id'];
      req.resume();
      req.on('end', () => {
        if (typeof id === 'string') received.push(id);
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const w = await createWorkspace();
      const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const sub = await request('POST', w.path('/webhooks'), { token: w.owner.key, body: { url: hook, eventTypes: ['node.created'] }, baseUrl: at(0) });
      expect(sub.status, sub.text).to.equal(201);
      const count = 30;
      await Promise.all(Array.from({ length: count }, (_, i) => createNode(w, `Event ${i}`, at(i))));
      const deadline = Date.now() + 30_000;
      while (received.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      // Long enough for a second delivery of any of them to arrive.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(received).to.have.length(count);
      expect(new Set(received).size).to.equal(count);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('a Redis master killed under load costs a few seconds of 503 with Retry-After, then retrievals succeed again', async () => {
    const w = await createWorkspace();
    const playbookId = await playbookWithContext(w);
    // Room for the whole load: a refusal here would be the quota's, not the failover's.
    await request('PATCH', `/api/v1/admin/workspaces/${w.workspaceId}`, { token: adminToken, body: { monthlyRetrievalLimit: 1_000_000 }, baseUrl: at(0) });
    const seen: { at: number; status: number; retryAfter: string | null }[] = [];
    let running = true;
    const load = async (lane: number) => {
      for (let i = lane; running; i += 4) {
        const res = await manifest(w, playbookId, w.owner.key, at(i));
        seen.push({ at: Date.now(), status: res.status, retryAfter: res.headers.get('retry-after') });
      }
    };
    const lanes = [0, 1, 2, 3].map(load);
    await new Promise((r) => setTimeout(r, 1_500));
    const killedAt = Date.now();
    await cluster.killMasterOf(`{${w.workspaceId}}:x`);
    const promoted = Date.now();
    // Load goes on until the processes have answered nothing but 200 for a while after the failover.
    const deadline = promoted + 60_000;
    while (Date.now() < deadline && Date.now() - Math.max(promoted, lastNon200(seen)) < 3_000) await new Promise((r) => setTimeout(r, 100));
    running = false;
    await Promise.all(lanes);

    const failures = seen.filter((s) => s.status !== 200);
    for (const f of failures) {
      expect(f.status, JSON.stringify(f)).to.equal(503);
      expect(f.retryAfter, 'a 503 says when to come back').to.match(/^\d+$/);
    }
    if (failures.length > 0) {
      const outage = failures[failures.length - 1].at - failures[0].at;
      expect(outage, `503s from ${failures[0].at - killedAt} ms after the kill for ${outage} ms`).to.be.below(15_000);
    }
    expect(seen.slice(-10).every((s) => s.status === 200), 'retrievals succeed again').to.equal(true);

    // The count lost is at most what Redis had acknowledged but not yet replicated when its master died. The count
    // gained is at most the requests in flight then (one per lane), answered 503: their count reached the replica,
    // their answer never reached the process.
    const succeeded = seen.filter((s) => s.status === 200).length;
    const justBefore = seen.filter((s) => s.status === 200 && s.at <= killedAt && s.at > killedAt - 1_000).length;
    const { used } = await usage(w, at(0));
    expect(used).to.be.within(succeeded - justBefore, succeeded + Math.min(lanes.length, failures.length));
    console.log(`      failover: ${failures.length} answers of 503 over ${failures.length ? failures[failures.length - 1].at - failures[0].at : 0} ms; ${succeeded} retrievals succeeded, ${used} counted`);
  });
});

describe('reads after another process’s write', () => {
  it('start with the bookmarks of that write, which the gate’s round trip brings from Redis', async () => {
    const [a, b] = await Promise.all([startExtraService(), startExtraService()]);
    try {
      const w = await createWorkspace();
      // Every session process B opens for a request (not its background work), and the bookmarks it starts with.
      const started: string[][] = [];
      const driver = b.services.graph.driver;
      const open = driver.session.bind(driver);
      driver.session = (config) => {
        if (readScope()) started.push([...(config?.bookmarks as string[] | undefined ?? [])]);
        return open(config);
      };
      const created = await request('POST', w.path('/context-nodes'), {
        token: w.owner.key, baseUrl: a.url, body: { title: unique('Bookmarked'), description: 'Written through A', content: 'A wrote this' },
      });
      expect(created.status).to.equal(201);
      const written = await a.services.graph.latestBookmarks();
      expect(written).to.not.be.empty;
      const read = await request('GET', w.path(`/context-nodes/${created.body.id}`), { token: w.owner.key, baseUrl: b.url });
      expect(read.status).to.equal(200);
      expect(started.length, 'B read through sessions').to.be.above(0);
      for (const bookmarks of started) expect(bookmarks).to.include.members(written);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

describe('an API process on Redis Sentinel', function () {
  this.timeout(240_000);
  let dataDir: string;
  let sentinel: RedisSentinelServers;
  let api: ApiProcess;

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'playbooks-sentinel-'));
    sentinel = await startRedisSentinel(dataDir);
    api = await startApiProcess({ REDIS_SENTINELS: sentinel.sentinelsSetting, REDIS_SENTINEL_NAME: sentinel.name });
  });
  after(async () => {
    await api?.stop();
    await sentinel?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('follows the master the sentinels promote: a few seconds of 503 with Retry-After, then retrievals and writes succeed', async () => {
    const w = await createWorkspace();
    const created = await request('POST', w.path('/playbooks'), { token: w.owner.key, body: { title: unique('Watched'), version: { content: { instructions: 'Go' } } }, baseUrl: api.url });
    expect(created.status).to.equal(201);
    await request('PATCH', `/api/v1/admin/workspaces/${w.workspaceId}`, { token: adminToken, body: { monthlyRetrievalLimit: 1_000_000 }, baseUrl: api.url });
    const seen: { at: number; status: number; retryAfter: string | null }[] = [];
    let running = true;
    const lanes = [0, 1].map(async () => {
      while (running) {
        const res = await request('GET', w.path(`/context/manifest?playbookId=${created.body.id}`), { token: w.owner.key, baseUrl: api.url });
        seen.push({ at: Date.now(), status: res.status, retryAfter: res.headers.get('retry-after') });
      }
    });
    await new Promise((r) => setTimeout(r, 1_000));
    await sentinel.killMaster();
    const promoted = Date.now();
    while (Date.now() - promoted < 60_000 && Date.now() - Math.max(promoted, lastNon200(seen)) < 3_000) await new Promise((r) => setTimeout(r, 100));
    running = false;
    await Promise.all(lanes);
    const failures = seen.filter((s) => s.status !== 200);
    for (const f of failures) {
      expect(f.status, JSON.stringify(f)).to.equal(503);
      expect(f.retryAfter).to.match(/^\d+$/);
    }
    expect(seen.slice(-10).every((s) => s.status === 200), 'retrievals succeed again').to.equal(true);
    const renamed = await request('PATCH', w.path(`/playbooks/${created.body.id}`), { token: w.owner.key, body: { title: 'Renamed after the failover' }, baseUrl: api.url });
    expect(renamed.status).to.equal(200);
    console.log(`      failover: ${failures.length} answers of 503 over ${failures.length ? failures[failures.length - 1].at - failures[0].at : 0} ms`);
  });
});

/** When the last answer other than 200 came (0 when none did). */
function lastNon200(seen: { at: number; status: number }[]): number {
  for (let i = seen.length - 1; i >= 0; i--) if (seen[i].status !== 200) return seen[i].at;
  return 0;
}

describe('an API process asked to stop (SIGTERM)', function () {
  this.timeout(120_000);

  it('drains: /readyz turns 503 at once, the request in flight finishes, then the process exits', async () => {
    const api = await startApiProcess({ SHUTDOWN_DRAIN_MS: '1500', SHUTDOWN_GRACE_MS: '60000' });
    // A query that takes a while, in flight when the signal comes.
    const slow = request('POST', '/api/v1/admin/cypher', {
      token: adminToken, baseUrl: api.url, body: { query: 'UNWIND range(1, 10000000) AS x RETURN count(x) AS n', timeoutMs: 60_000 },
    }).then((res) => ({ res, at: Date.now() }));
    await new Promise((r) => setTimeout(r, 300));
    const stopped = api.stop();
    const deadline = Date.now() + 1_000;
    let ready = await request('GET', '/readyz', { baseUrl: api.url });
    while (ready.status === 200 && Date.now() < deadline) ready = await request('GET', '/readyz', { baseUrl: api.url });
    problem(ready, 503, 'service_unavailable');
    const notReadyAt = Date.now();
    expect(ready.headers.get('connection')).to.equal('close');
    const { res: answer, at } = await slow;
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body.rows).to.deep.equal([[10000000]]);
    expect(at, 'the query was still in flight when the process stopped being ready').to.be.above(notReadyAt);
    await stopped;
  });

  it('stops by itself within its grace when its Redis died before the signal', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'playbooks-dead-redis-'));
    const redis = await startRedis({ dataDir });
    try {
      const api = await startApiProcess({ REDIS_URL: redis.url, SHUTDOWN_GRACE_MS: '2000' });
      process.kill(redis.pid, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 500));
      const started = Date.now();
      expect(await api.stop()).to.deep.equal({ code: 0, signal: null });
      expect(Date.now() - started).to.be.below(10_000);
    } finally {
      await redis.stop().catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
