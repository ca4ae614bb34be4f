import { expect } from 'chai';
import { type Reply, type TestWorkspace, createWorkspace, problem, request } from '../support/api.js';
import { type ApiProcess, startApiProcess } from '../support/api-process.js';
import { type TestAgent, createAgent } from '../support/agents.js';
import { adminToken, env } from '../support/harness.js';
import { createNode, linkPlaybook } from '../support/nodes.js';
import { createPlaybook } from '../support/playbooks.js';
import { dayOf, periodOf } from '../../src/gate/period.js';
import { redisKeys } from '../../src/gate/redis-keys.js';
import { GateRoundTrip } from '../../src/gate/round-trip.js';

/**
 * The request gate of a retrieval (bundle, manifest) as a caller sees it: who gets in, and how many, with
 * two API processes (the run's own and a second OS process) sharing one Neo4j and one Redis, each keeping
 * its own in-process caches.
 */
describe('the retrieval gate', function () {
  this.timeout(120_000);
  let other: ApiProcess;

  before(async () => {
    other = await startApiProcess();
  });
  after(() => other?.stop());

  const kinds = ['bundle', 'manifest'] as const;
  type Kind = (typeof kinds)[number];

  async function playbookWithContext(w: TestWorkspace): Promise<string> {
    const pb = await createPlaybook(w, w.owner.key, { title: 'Launch' });
    const node = await createNode(w, { title: 'Brand voice', content: 'Be brief.' });
    await linkPlaybook(w, pb.id, node.id, 'requires');
    return pb.id;
  }

  const retrieve = (w: TestWorkspace, playbookId: string, kind: Kind, token: string, options: { baseUrl?: string; etag?: string } = {}) =>
    request('GET', w.path(`/context/${kind}?playbookId=${playbookId}`), {
      token,
      baseUrl: options.baseUrl,
      headers: options.etag ? { 'if-none-match': options.etag } : {},
    });

  const usage = async (w: TestWorkspace, baseUrl?: string) => (await request('GET', w.path('/usage'), { token: w.owner.key, baseUrl })).body;

  function refused(res: Reply, what: string): void {
    expect(res.status, `${what}: ${res.text}`).to.equal(401);
    problem(res, 401, 'unauthorized');
    expect(res.headers.get('www-authenticate'), what).to.equal('Bearer');
    expect(res.headers.get('etag'), what).to.equal(null);
  }

  describe('a key that loses access is refused on the very next retrieval, through either process', () => {
    const changes: Record<string, { make: (w: TestWorkspace, agent: TestAgent, baseUrl: string | undefined) => Promise<void>; check: (w: TestWorkspace, agent: TestAgent) => Promise<void> }> = {
      'a revoked agent key': {
        make: async (w, agent, baseUrl) => {
          const res = await request('DELETE', w.path(`/agents/${agent.agentId}/keys/${agent.keyId}`), { token: w.owner.key, baseUrl });
          expect(res.status).to.equal(204);
        },
        check: async (w, agent) => {
          const keys = await request('GET', w.path(`/agents/${agent.agentId}/keys`), { token: w.owner.key });
          expect(keys.body.keys.map((k: { id: string }) => k.id)).not.to.include(agent.keyId);
        },
      },
      'the key of a deactivated agent': {
        make: async (w, agent, baseUrl) => {
          const res = await request('DELETE', w.path(`/agents/${agent.agentId}`), { token: w.owner.key, baseUrl });
          expect(res.status).to.equal(204);
        },
        check: async (w, agent) => {
          const detail = await request('GET', w.path(`/agents/${agent.agentId}`), { token: w.owner.key });
          expect(detail.body).to.include({ status: 'deactivated', keyCount: 0 });
        },
      },
    };

    for (const [what, change] of Object.entries(changes)) {
      for (const via of ['this process', 'the other process'] as const) {
        it(`${what}, changed through ${via}, gets 401 on bundle and manifest through both processes, though both had just served it`, async () => {
          const w = await createWorkspace();
          const playbookId = await playbookWithContext(w);
          const agent = await createAgent(w);
          const bystander = await createAgent(w);
          const processes = { here: undefined, there: other.url } as const;
          // Served (and so cached) by both processes, twice each, just before the change.
          const etags: Record<string, string> = {};
          for (const [name, baseUrl] of Object.entries(processes)) {
            for (const kind of kinds) {
              for (let i = 0; i < 2; i++) {
                const res = await retrieve(w, playbookId, kind, agent.key, { baseUrl });
                expect(res.status, `${name} ${kind}: ${res.text}`).to.equal(200);
                etags[`${name} ${kind}`] = res.headers.get('etag')!;
              }
              expect((await retrieve(w, playbookId, kind, agent.key, { baseUrl, etag: etags[`${name} ${kind}`] })).status).to.equal(304);
            }
          }
          expect((await usage(w)).used).to.equal(12);

          await change.make(w, agent, via === 'this process' ? undefined : other.url);

          for (const [name, baseUrl] of Object.entries(processes)) {
            for (const kind of kinds) {
              refused(await retrieve(w, playbookId, kind, agent.key, { baseUrl }), `${name} ${kind}`);
              // A conditional request is not a way round the gate: 401, never 304.
              refused(await retrieve(w, playbookId, kind, agent.key, { baseUrl, etag: etags[`${name} ${kind}`] }), `${name} conditional ${kind}`);
            }
          }
          await change.check(w, agent);
          // The refusals were not counted; another agent of the workspace still gets in through both.
          for (const baseUrl of Object.values(processes)) expect((await usage(w, baseUrl)).used).to.equal(12);
          for (const baseUrl of Object.values(processes)) {
            for (const kind of kinds) expect((await retrieve(w, playbookId, kind, bystander.key, { baseUrl })).status).to.equal(200);
          }
          expect((await usage(w)).used).to.equal(16);
        });
      }
    }
  });

  describe('the monthly quota across two processes', () => {
    async function setLimit(w: TestWorkspace, limit: number): Promise<void> {
      const res = await request('PATCH', `/api/v1/admin/workspaces/${w.workspaceId}`, { token: adminToken, body: { monthlyRetrievalLimit: limit } });
      expect(res.status).to.equal(200);
      expect(res.body.monthlyRetrievalLimit).to.equal(limit);
    }

    function expectExactly(answers: Reply[], successes: number): void {
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200 || s === 304), statuses.join(' ')).to.have.length(successes);
      const refusals = answers.filter((a) => a.status === 429);
      expect(refusals, statuses.join(' ')).to.have.length(answers.length - successes);
      for (const r of refusals) {
        problem(r, 429, 'quota_exceeded');
        expect(r.headers.get('retry-after')).to.match(/^\d+$/);
        expect(r.headers.get('ratelimit-remaining')).to.equal('0');
      }
    }

    it('N parallel retrievals split between two processes against a limit of R give exactly R successes and N−R quota_exceeded', async () => {
      const w = await createWorkspace();
      const playbookId = await playbookWithContext(w);
      const agent = await createAgent(w);
      const [R, N] = [9, 24];
      await setLimit(w, R);
      const answers = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          retrieve(w, playbookId, Math.floor(i / 2) % 2 ? 'manifest' : 'bundle', i % 3 ? w.owner.key : agent.key, { baseUrl: i % 2 ? other.url : undefined }),
        ),
      );
      expectExactly(answers, R);
      expect(answers.filter((a) => a.status === 200)).to.have.length(R);
      expect(await usage(w)).to.include({ used: R, limit: R, remaining: 0 });
      expect(await usage(w, other.url)).to.include({ used: R, limit: R, remaining: 0 });
    });

    it('conditional retrievals (304) in the race count like 200s, and the split is still exact', async () => {
      const w = await createWorkspace();
      const playbookId = await playbookWithContext(w);
      // One retrieval of each kind for the ETags; they count.
      const etag: Record<Kind, string> = { bundle: '', manifest: '' };
      for (const kind of kinds) etag[kind] = (await retrieve(w, playbookId, kind, w.owner.key)).headers.get('etag')!;
      const [R, N] = [7, 20];
      await setLimit(w, 2 + R);
      const answers = await Promise.all(
        Array.from({ length: N }, (_, i) => {
          const kind: Kind = Math.floor(i / 2) % 2 ? 'manifest' : 'bundle';
          return retrieve(w, playbookId, kind, w.owner.key, { baseUrl: i % 2 ? other.url : undefined, etag: i % 3 ? etag[kind] : undefined });
        }),
      );
      expectExactly(answers, R);
      expect(answers.some((a) => a.status === 304)).to.equal(true);
      expect(await usage(w)).to.include({ used: 2 + R, limit: 2 + R, remaining: 0 });
      expect(await usage(w, other.url)).to.include({ used: 2 + R, limit: 2 + R, remaining: 0 });
    });
  });
});

describe('the gate’s Redis keys', () => {
  it('every key a workspace’s requests write carries a hash tag: the workspace’s, or the key’s for its rate counter', async () => {
    const w = await createWorkspace();
    const pb = await createPlaybook(w, w.owner.key, { title: 'Tagged' });
    expect((await request('GET', w.path(`/context/bundle?playbookId=${pb.id}`), { token: w.owner.key })).status).to.equal(200);
    const agent = await createAgent(w);
    expect((await request('DELETE', w.path(`/agents/${agent.agentId}/keys/${agent.keyId}`), { token: w.owner.key })).status).to.equal(204);
    const keys = await keysMatching(`*${w.workspaceId}*`);
    // The epoch, the generation, the counter of the month, the limit and the revoked mark: one slot for all.
    expect(keys.length).to.be.at.least(5);
    for (const key of keys) expect(key, key).to.match(new RegExp(`^\\{${w.workspaceId}\\}:`));
    const untagged = (await keysMatching('*')).filter((key) => !/^\{[^}]+\}:/.test(key));
    expect(untagged).to.deep.equal([]);
  });
});

describe('the gate’s script sent again', () => {
  it('a call ioredis sends again after its answer was lost gets the same answer and counts nothing more', async () => {
    const w = await createWorkspace();
    const pb = await createPlaybook(w, w.owner.key, { title: 'Counted once' });
    // One retrieval through the API puts the workspace's limit and count in Redis.
    expect((await request('GET', w.path(`/context/bundle?playbookId=${pb.id}`), { token: w.owner.key })).status).to.equal(200);
    const redis = env.service.services.redis.duplicate();
    try {
      await redis.connect();
      const roundTrip = new GateRoundTrip(redis, env.service.services.logger);
      // What the round trip sends, kept so that it can be sent again as ioredis does after a failover.
      const sent: unknown[][] = [];
      const command = redis as unknown as { requestGate(...args: unknown[]): Promise<unknown> };
      const send = command.requestGate.bind(redis);
      command.requestGate = (...args) => {
        sent.push(args);
        return send(...args);
      };
      const now = new Date();
      const query = { keyHash: 'resent', workspaceId: w.workspaceId, metered: true, period: periodOf(now), day: dayOf(now) };
      const first = await roundTrip.read(query);
      expect(first.quota).to.include({ state: 'ok', used: 2 });
      const again = (await send(...sent[0])) as unknown[];
      expect(again.slice(3)).to.deep.equal([[0, 'ok', 2, first.quota.limit]]);
      expect(await redis.get(redisKeys.quota(w.workspaceId, query.period))).to.equal('2');
      expect(await redis.get(redisKeys.quotaDay(w.workspaceId, query.day))).to.equal('2');
      expect((await roundTrip.read(query)).quota).to.include({ state: 'ok', used: 3 });
    } finally {
      redis.disconnect();
    }
  });
});

/** KEYS asks one node; on a Redis Cluster the keys are spread over every master. */
async function keysMatching(pattern: string): Promise<string[]> {
  const { redis } = env.service.services;
  const nodes = 'nodes' in redis ? redis.nodes('master') : [redis];
  return (await Promise.all(nodes.map((node) => node.keys(pattern)))).flat();
}
