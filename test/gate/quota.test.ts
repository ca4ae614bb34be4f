import { expect } from 'chai';
import type { AppError } from '../../src/errors.js';
import { periodOf } from '../../src/gate/period.js';
import { redisKeys } from '../../src/gate/redis-keys.js';
import type { RunningService } from '../../src/runtime.js';
import { type TestWorkspace, addMember, createWorkspace, problem, request } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { adminToken, env, startExtraService } from '../support/harness.js';
import { createNode, linkPlaybook } from '../support/nodes.js';

async function playbookWithContext(w: TestWorkspace): Promise<string> {
  const pb = await request('POST', w.path('/playbooks'), { token: w.owner.key, body: { title: 'Launch', version: { content: { instructions: 'go' } } } });
  const node = await createNode(w, { title: 'Brand voice', content: 'Be brief.' });
  await linkPlaybook(w, pb.body.id, node.id, 'requires');
  return pb.body.id;
}

async function setLimit(w: TestWorkspace, limit: number | null): Promise<void> {
  const res = await request('PATCH', `/api/v1/admin/workspaces/${w.workspaceId}`, { token: adminToken, body: { monthlyRetrievalLimit: limit } });
  expect(res.status).to.equal(200);
}

const usage = async (w: TestWorkspace) => (await request('GET', w.path('/usage'), { token: w.owner.key })).body;

/** One metered admission through the shared service's gate, as a bundle request makes it, and what it answered. */
async function admitMetered(w: TestWorkspace) {
  try {
    const admission = await env.service.services.gate.admit(w.owner.key, w.workspaceId, { minRole: 'viewer', metered: true });
    return { admitted: true, headers: admission.quota!.headers, generation: admission.generation, code: undefined };
  } catch (err) {
    const problem = err as AppError;
    return { admitted: false, headers: problem.headers, generation: undefined, code: problem.code };
  }
}

describe('monthly retrieval quota', () => {
  it('each bundle and manifest counts one retrieval; follow and updates do not', async () => {
    const w = await createWorkspace();
    const playbookId = await playbookWithContext(w);
    const bundle = await request('GET', w.path(`/context/bundle?playbookId=${playbookId}`), { token: w.owner.key });
    expect(bundle.status).to.equal(200);
    expect(bundle.headers.get('ratelimit-limit')).to.equal('1000');
    expect(bundle.headers.get('ratelimit-remaining')).to.equal('999');
    expect(Number(bundle.headers.get('ratelimit-reset'))).to.be.greaterThan(0);
    const manifest = await request('GET', w.path(`/context/manifest?playbookId=${playbookId}`), { token: w.owner.key });
    expect(manifest.headers.get('ratelimit-remaining')).to.equal('998');
    const nodeId = bundle.body.nodes[0].id;
    expect((await request('GET', w.path(`/context/nodes/${nodeId}/follow`), { token: w.owner.key })).status).to.equal(200);
    expect((await request('GET', w.path('/context/updates?since=2020-01-01T00:00:00.000Z'), { token: w.owner.key })).status).to.equal(200);
    expect(await usage(w)).to.include({ used: 2, limit: 1000, remaining: 998 });
  });

  it('a request that fails is not counted', async () => {
    const w = await createWorkspace();
    const playbookId = await playbookWithContext(w);
    problem(await request('GET', w.path('/context/bundle?playbookId=pb_missing'), { token: w.owner.key }), 404);
    problem(await request('GET', w.path(`/context/bundle?playbookId=${playbookId}&maxNodes=0`), { token: w.owner.key }), 400);
    problem(await request('GET', w.path('/context/manifest'), { token: w.owner.key }), 400);
    const stranger = await createWorkspace();
    problem(await request('GET', w.path(`/context/bundle?playbookId=${playbookId}`), { token: stranger.owner.key }), 404);
    expect((await usage(w)).used).to.equal(0);
  });

  it('N parallel retrievals against R remaining give exactly min(N, R) successes', async () => {
    const w = await createWorkspace();
    const playbookId = await playbookWithContext(w);
    await setLimit(w, 7);
    const agent = await createAgent(w, { role: 'viewer' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request('GET', w.path(`/context/${i % 2 ? 'bundle' : 'manifest'}?playbookId=${playbookId}`), { token: i % 3 ? w.owner.key : agent.key }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).to.have.length(7);
    expect(statuses.filter((s) => s === 429)).to.have.length(13);
    expect(await usage(w)).to.include({ used: 7, limit: 7, remaining: 0 });
  });

  it('the retrievals of one event-loop turn share one round trip, and still get exactly min(N, R) counted', async () => {
    const w = await createWorkspace();
    const playbookId = await playbookWithContext(w);
    await setLimit(w, 5);
    // Seeds the limit and the counter, so that the turn below needs no second attempt.
    expect((await request('GET', w.path(`/context/manifest?playbookId=${playbookId}`), { token: w.owner.key })).status).to.equal(200);
    const { gate } = env.service.services;
    const before = gate.roundTrips;
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => admitMetered(w)));
    expect(gate.roundTrips - before).to.equal(1);
    expect(outcomes.filter((o) => o.admitted)).to.have.length(4);
    expect(outcomes.map((o) => o.headers['RateLimit-Remaining'])).to.deep.equal(['3', '2', '1', '0', ...Array(8).fill('0')]);
    expect(outcomes.filter((o) => !o.admitted).map((o) => o.code)).to.deep.equal(Array(8).fill('quota_exceeded'));
    expect(new Set(outcomes.filter((o) => o.admitted).map((o) => o.generation)).size).to.equal(1);
    expect(await usage(w)).to.include({ used: 5, limit: 5, remaining: 0 });
  });

  it('retrievals of several workspaces in one turn are each counted against their own workspace, in order', async () => {
    const [a, b] = [await createWorkspace(), await createWorkspace()];
    await setLimit(a, 2);
    await setLimit(b, 3);
    // Seeds each workspace's limit and counter (one retrieval each).
    for (const w of [a, b]) expect((await request('GET', w.path(`/context/manifest?playbookId=${await playbookWithContext(w)}`), { token: w.owner.key })).status).to.equal(200);
    const { gate } = env.service.services;
    const before = gate.roundTrips;
    // Interleaved: a, b, a, b, ... five of each.
    const asked = Array.from({ length: 10 }, (_, i) => (i % 2 ? b : a));
    const outcomes = await Promise.all(asked.map((w) => admitMetered(w)));
    // One round trip: a script call per workspace, in one pipeline.
    expect(gate.roundTrips - before).to.equal(1);
    const of = (w: TestWorkspace) => outcomes.filter((_, i) => asked[i] === w);
    expect(of(a).map((o) => o.headers['RateLimit-Remaining'])).to.deep.equal(['0', '0', '0', '0', '0']);
    expect(of(a).filter((o) => o.admitted)).to.have.length(1);
    expect(of(b).map((o) => o.headers['RateLimit-Remaining'])).to.deep.equal(['1', '0', '0', '0', '0']);
    expect(of(b).filter((o) => o.admitted)).to.have.length(2);
    expect(of(a)[0].generation).to.not.equal(of(b)[0].generation);
    expect(await usage(a)).to.include({ used: 2, limit: 2, remaining: 0 });
    expect(await usage(b)).to.include({ used: 3, limit: 3, remaining: 0 });
  });

  it('past the limit answers 429 quota_exceeded with Retry-After until the next month', async () => {
    const w = await createWorkspace();
    const playbookId = await playbookWithContext(w);
    await setLimit(w, 1);
    expect((await request('GET', w.path(`/context/bundle?playbookId=${playbookId}`), { token: w.owner.key })).status).to.equal(200);
    const refused = await request('GET', w.path(`/context/bundle?playbookId=${playbookId}`), { token: w.owner.key });
    problem(refused, 429, 'quota_exceeded');
    const now = new Date();
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).to.be.closeTo((nextMonth - now.getTime()) / 1000, 30);
    expect(refused.headers.get('ratelimit-remaining')).to.equal('0');
    // Raising the limit takes effect at once.
    await setLimit(w, 2);
    expect((await request('GET', w.path(`/context/bundle?playbookId=${playbookId}`), { token: w.owner.key })).status).to.equal(200);
  });

  it('an unauthenticated or unauthorised request is 401/404, not 429, even with the quota spent', async () => {
    const w = await createWorkspace();
    const playbookId = await playbookWithContext(w);
    await setLimit(w, 0);
    problem(await request('GET', w.path(`/context/bundle?playbookId=${playbookId}`)), 401);
    const outsider = await createWorkspace();
    problem(await request('GET', w.path(`/context/bundle?playbookId=${playbookId}`), { token: outsider.owner.key }), 404);
    problem(await request('GET', w.path(`/context/bundle?playbookId=${playbookId}`), { token: w.owner.key }), 429, 'quota_exceeded');
  });

  describe('windows and persistence', () => {
    let clocked: RunningService;
    let now = new Date('2031-01-31T23:59:58.000Z');

    before(async () => {
      clocked = await startExtraService({}, { clock: () => now });
    });
    after(() => clocked.stop());

    it('counts per calendar month in UTC', async () => {
      const w = await createWorkspace();
      const playbookId = await playbookWithContext(w);
      await setLimit(w, 1);
      const get = () => request('GET', w.path(`/context/bundle?playbookId=${playbookId}`), { token: w.owner.key, baseUrl: clocked.url });
      now = new Date('2031-01-31T23:59:58.000Z');
      expect((await get()).status).to.equal(200);
      const refused = await get();
      problem(refused, 429, 'quota_exceeded');
      expect(refused.headers.get('retry-after')).to.equal('2');
      now = new Date('2031-02-01T00:00:00.000Z');
      const fresh = await get();
      expect(fresh.status).to.equal(200);
      const usageNow = await request('GET', w.path('/usage'), { token: w.owner.key, baseUrl: clocked.url });
      expect(usageNow.body).to.deep.equal({
        period: '2031-02', used: 1, limit: 1, remaining: 0, resetsAt: '2031-03-01T00:00:00.000Z', days: [{ date: '2031-02-01', retrievals: 1 }],
      });
    });

    it('counts retrievals per UTC day of the month too; a failed retrieval counts on neither', async () => {
      const w = await createWorkspace();
      const playbookId = await playbookWithContext(w);
      const get = (id = playbookId) => request('GET', w.path(`/context/bundle?playbookId=${id}`), { token: w.owner.key, baseUrl: clocked.url });
      now = new Date('2031-03-01T00:00:00.000Z');
      expect((await get()).status).to.equal(200);
      now = new Date('2031-03-01T23:59:59.999Z');
      const etag = (await get()).headers.get('etag')!;
      now = new Date('2031-03-03T12:00:00.000Z');
      const notModified = await request('GET', w.path(`/context/bundle?playbookId=${playbookId}`), { token: w.owner.key, baseUrl: clocked.url, headers: { 'if-none-match': etag } });
      expect(notModified.status).to.equal(304);
      problem(await get('pb_doesnotexist'), 404);
      const res = await request('GET', w.path('/usage'), { token: w.owner.key, baseUrl: clocked.url });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.include({ period: '2031-03', used: 3 });
      expect(res.body.days).to.deep.equal([
        { date: '2031-03-01', retrievals: 2 },
        { date: '2031-03-02', retrievals: 0 },
        { date: '2031-03-03', retrievals: 1 },
      ]);
      // The day's counter lives about as long as the month's (a little past the month's end).
      const ttl = await env.service.services.redis.ttl(redisKeys.quotaDay(w.workspaceId, '2031-03-03'));
      expect(ttl).to.be.within(39 * 24 * 3600, 40 * 24 * 3600);
    });

    it('a counter lost from Redis is re-seeded from Neo4j, not restarted from zero', async () => {
      now = new Date('2031-05-10T12:00:00.000Z');
      const w = await createWorkspace();
      const playbookId = await playbookWithContext(w);
      for (let i = 0; i < 3; i++) {
        expect((await request('GET', w.path(`/context/manifest?playbookId=${playbookId}`), { token: w.owner.key, baseUrl: clocked.url })).status).to.equal(200);
      }
      await clocked.services.gate.persistUsage();
      // A Redis restart without persistence: the live counter is gone.
      await env.service.services.redis.del(redisKeys.quota(w.workspaceId, periodOf(now)));
      const afterLoss = await request('GET', w.path('/usage'), { token: w.owner.key, baseUrl: clocked.url });
      expect(afterLoss.body.used).to.equal(3);
      const next = await request('GET', w.path(`/context/manifest?playbookId=${playbookId}`), { token: w.owner.key, baseUrl: clocked.url });
      expect(next.headers.get('ratelimit-remaining')).to.equal(String(1000 - 4));
    });
  });

  it('viewers and agents may retrieve; each retrieval of any member counts for the workspace', async () => {
    const w = await createWorkspace();
    const playbookId = await playbookWithContext(w);
    const viewer = await addMember(w, 'viewer');
    const agent = await createAgent(w, { role: 'viewer' });
    expect((await request('GET', w.path(`/context/bundle?playbookId=${playbookId}`), { token: viewer.key })).status).to.equal(200);
    expect((await request('GET', w.path(`/context/bundle?playbookId=${playbookId}`), { token: agent.key })).status).to.equal(200);
    expect((await usage(w)).used).to.equal(2);
  });
});
