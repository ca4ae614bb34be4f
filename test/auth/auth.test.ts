import { expect } from 'chai';
import { generateKey, hashKey, keyKind } from '../../src/auth/keys.js';
import { AppError } from '../../src/errors.js';
import { RequestGate } from '../../src/gate/gate.js';
import type { GraphExecutor } from '../../src/infra/neo4j.js';
import type { RunningService } from '../../src/runtime.js';
import { addMember, createUser, createWorkspace, problem, request } from '../support/api.js';
import { createAgent, createAgentKey } from '../support/agents.js';
import { adminToken, env, startExtraService } from '../support/harness.js';
import { sharedGraph } from '../support/neo4j.js';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The key with the character at `i` replaced by another character of the alphabet. */
function mistype(key: string, i: number): string {
  const other = alphabet[(alphabet.indexOf(key[i]) + 1 + Math.floor(Math.random() * 61)) % 62];
  return key.slice(0, i) + other + key.slice(i + 1);
}

/** Counts the gate's Redis round trips and the auth/* Neo4j statements a service runs while `work` runs. */
async function countLookups(svc: RunningService, work: () => Promise<void>) {
  const { gate, graph } = svc.services;
  const counts = { roundTrips: 0, reads: 0, touches: 0 };
  const before = gate.roundTrips;
  const read = graph.read;
  const write = graph.write;
  graph.read = ((name: string, params?: Record<string, unknown>) => {
    if (name.startsWith('auth/')) counts.reads += 1;
    return read.call(graph, name, params);
  }) as typeof graph.read;
  graph.write = ((name: string, params?: Record<string, unknown>) => {
    if (name === 'auth/touch-keys') counts.touches += 1;
    return write.call(graph, name, params);
  }) as typeof graph.write;
  try {
    await work();
  } finally {
    graph.read = read;
    graph.write = write;
  }
  counts.roundTrips = gate.roundTrips - before;
  return counts;
}

/** Marks a key revoked in Neo4j only, as a change that skipped the Redis signal would (tests only). */
async function revokeInNeo4jOnly(keyId: string): Promise<void> {
  await sharedGraph().driver.executeQuery('MATCH (k:ApiKey {id: $keyId}) SET k.revokedAt = $now', { keyId, now: new Date().toISOString() });
}

describe('authentication', () => {
  describe('key format', () => {
    it('agent keys are pk_, user keys pk_user_, at least 32 characters with ≥128 random bits and a checksum', () => {
      const seen = new Set<string>();
      for (let i = 0; i < 200; i++) {
        const agent = generateKey('agent');
        const user = generateKey('user');
        expect(agent.key).to.match(/^pk_[0-9A-Za-z]{38}$/);
        expect(user.key).to.match(/^pk_user_[0-9A-Za-z]{38}$/);
        // 32 random base62 characters: 32 × log2(62) ≈ 190 bits; then a 6-character checksum.
        expect(agent.key.length).to.be.at.least(32);
        expect(keyKind(agent.key)).to.equal('agent');
        expect(keyKind(user.key)).to.equal('user');
        expect(agent.prefix).to.equal(agent.key.slice(0, 12));
        expect(agent.hash).to.equal(hashKey(agent.key)).and.to.match(/^[0-9a-f]{64}$/);
        seen.add(agent.key).add(user.key);
      }
      expect(seen.size).to.equal(400);
    });

    it('the checksum catches every mistyped character, swapped neighbours and truncation', () => {
      for (let n = 0; n < 100; n++) {
        const { key } = generateKey(n % 2 ? 'agent' : 'user');
        const start = key.startsWith('pk_user_') ? 8 : 3;
        for (let i = start; i < key.length; i++) expect(keyKind(mistype(key, i)), `${i}`).to.equal(undefined);
        for (let i = start; i < key.length - 1; i++) {
          if (key[i] === key[i + 1]) continue;
          const swapped = key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2);
          expect(keyKind(swapped)).to.equal(undefined);
        }
        expect(keyKind(key.slice(0, -1))).to.equal(undefined);
        expect(keyKind(`${key}A`)).to.equal(undefined);
        // A user key cannot pass for an agent key or the other way round.
        if (n % 2 === 0) expect(keyKind(key.replace('pk_user_', 'pk_'))).to.equal(undefined);
        else expect(keyKind(key.replace('pk_', 'pk_user_'))).to.equal(undefined);
      }
      for (const junk of ['', 'pk_', 'pk_user_', 'sk_live_abc', 'Bearer', 'pk_'.padEnd(41, '!')]) expect(keyKind(junk)).to.equal(undefined);
    });
  });

  describe('401', () => {
    it('no key, a malformed, mistyped, truncated, unknown, revoked or deactivated key: the same 401 that never says which', async () => {
      const w = await createWorkspace();
      const user = await addMember(w, 'editor');
      const revokedUser = await addMember(w, 'viewer');
      const revokedAgent = await createAgent(w);
      const deactivated = await createAgent(w);
      expect((await request('GET', w.path(), { token: revokedUser.key })).status).to.equal(200);
      expect((await request('DELETE', `/api/v1/admin/users/${revokedUser.userId}/keys/${revokedUser.keyId}`, { token: adminToken })).status).to.equal(204);
      expect((await request('DELETE', w.path(`/agents/${revokedAgent.agentId}/keys/${revokedAgent.keyId}`), { token: w.owner.key })).status).to.equal(204);
      expect((await request('DELETE', w.path(`/agents/${deactivated.agentId}`), { token: w.owner.key })).status).to.equal(204);

      const tokens: [string, string | undefined][] = [
        ['no header', undefined],
        ['malformed', 'pk_not-a-key'],
        ['mistyped', mistype(user.key, 20)],
        ['truncated', user.key.slice(0, -3)],
        ['unknown agent key', generateKey('agent').key],
        ['unknown user key', generateKey('user').key],
        ['revoked user key', revokedUser.key],
        ['revoked agent key', revokedAgent.key],
        ['key of a deactivated agent', deactivated.key],
        ['operator token', adminToken],
      ];
      const details = new Set<string>();
      for (const [what, token] of tokens) {
        const res = await request('GET', w.path('/usage?trace=1'), { token });
        const p = problem(res, 401, 'unauthorized');
        details.add(`${p.detail}|${res.body.title}|${res.body.type}`);
        expect(res.headers.get('www-authenticate'), what).to.equal('Bearer');
        expect(res.body.instance).to.equal(w.path('/usage'));
        if (token) {
          expect(res.text, what).not.to.include(token);
          expect(res.text, what).not.to.include(token.slice(0, 12));
          expect(res.text, what).not.to.include(hashKey(token));
        }
      }
      expect([...details]).to.have.length(1);
      // Other ways of not sending a bearer key.
      problem(await request('GET', w.path(), { headers: { authorization: `Basic ${Buffer.from(`x:${user.key}`).toString('base64')}` } }), 401, 'unauthorized');
      problem(await request('GET', w.path(), { headers: { authorization: 'Bearer' } }), 401, 'unauthorized');
      problem(await request('GET', w.path(), { headers: { authorization: `Bearer ${user.key} extra` } }), 401, 'unauthorized');
      // The valid key next to them works.
      expect((await request('GET', w.path(), { token: user.key })).status).to.equal(200);
    });

    it('a malformed or mistyped key is refused before any Redis or Neo4j look-up', async () => {
      const w = await createWorkspace();
      const tokens = ['pk_short', mistype(w.owner.key, 15), w.owner.key.slice(0, -1), `${w.owner.key}0`, mistype(generateKey('agent').key, 5)];
      const counts = await countLookups(env.service, async () => {
        for (const token of tokens) problem(await request('GET', w.path(), { token }), 401, 'unauthorized');
        problem(await request('GET', w.path()), 401, 'unauthorized');
      });
      expect(counts).to.deep.equal({ roundTrips: 0, reads: 0, touches: 0 });
    });

    it('a user key revoked through the admin API fails on the very next request', async () => {
      const w = await createWorkspace();
      const user = await addMember(w, 'editor');
      const spare = await request('POST', `/api/v1/admin/users/${user.userId}/keys`, { token: adminToken, body: { label: 'spare' } });
      for (let i = 0; i < 3; i++) expect((await request('GET', w.path(), { token: user.key })).status).to.equal(200);
      expect((await request('DELETE', `/api/v1/admin/users/${user.userId}/keys/${user.keyId}`, { token: adminToken })).status).to.equal(204);
      problem(await request('GET', w.path(), { token: user.key }), 401, 'unauthorized');
      problem(await request('GET', w.path('/agents'), { token: user.key }), 401, 'unauthorized');
      // The user's other key is untouched.
      expect((await request('GET', w.path(), { token: spare.body.key })).status).to.equal(200);
    });

    it('a removed member’s key no longer opens the workspace on the very next request', async () => {
      const w = await createWorkspace();
      const other = await createWorkspace();
      const member = await addMember(w, 'editor');
      await request('POST', other.path('/members'), { token: other.owner.key, body: { userId: member.userId, role: 'viewer' } });
      for (let i = 0; i < 3; i++) expect((await request('GET', w.path('/agents'), { token: member.key })).status).to.equal(200);
      expect((await request('DELETE', w.path(`/members/${member.userId}`), { token: w.owner.key })).status).to.equal(204);
      problem(await request('GET', w.path('/agents'), { token: member.key }), 404, 'not_found');
      problem(await request('POST', w.path('/agents'), { token: member.key, body: { name: 'sneaky' } }), 404, 'not_found');
      // The key itself is still valid elsewhere.
      expect((await request('GET', other.path(), { token: member.key })).status).to.equal(200);
    });
  });

  describe('403', () => {
    it('an owner-only agent endpoint refuses a lower role with insufficient_role', async () => {
      const w = await createWorkspace();
      const editor = await addMember(w, 'editor');
      const agent = await createAgent(w, { sponsor: editor });
      await request('DELETE', w.path(`/agents/${agent.agentId}`), { token: editor.key });
      problem(await request('POST', w.path(`/agents/${agent.agentId}/reactivate`), { token: editor.key }), 403, 'insufficient_role');
    });
  });

  describe('caching', () => {
    it('a known key on the hot path costs one Redis round trip, no Neo4j read and no write', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w);
      expect((await request('GET', w.path(), { token: agent.key })).status).to.equal(200);
      expect((await request('GET', w.path('/agents'), { token: w.owner.key })).status).to.equal(200);
      const counts = await countLookups(env.service, async () => {
        for (let i = 0; i < 10; i++) {
          expect((await request('GET', w.path(), { token: agent.key })).status).to.equal(200);
          expect((await request('GET', w.path('/agents'), { token: w.owner.key })).status).to.equal(200);
        }
      });
      expect(counts.roundTrips).to.equal(20);
      expect(counts.reads).to.equal(0);
      // The 10-second flusher may fire once meanwhile; a write per request would be 20.
      expect(counts.touches).to.be.at.most(1);
    });

    it('the requests of one event-loop turn share one round trip, and each sees a revocation made before it', async () => {
      const w = await createWorkspace();
      const other = await createWorkspace();
      const agent = await createAgent(w);
      const revoked = await createAgentKey(w, agent.agentId);
      expect((await request('DELETE', w.path(`/agents/${agent.agentId}/keys/${revoked.keyId}`), { token: w.owner.key })).status).to.equal(204);
      const { gate } = env.service.services;
      const viewer = { minRole: 'viewer' } as const;
      const counts = await countLookups(env.service, async () => {
        const outcomes = await Promise.all(
          [
            [agent.key, w],
            [revoked.key, w],
            [w.owner.key, w],
            [agent.key, w],
            [other.owner.key, other],
          ].map(([key, space]) => gate.admit(key as string, (space as typeof w).workspaceId, viewer).then((a) => a.caller.role, (err: AppError) => err.code)),
        );
        expect(outcomes).to.deep.equal(['viewer', 'unauthorized', 'owner', 'viewer', 'owner']);
      });
      expect(counts.roundTrips).to.equal(1);
      problem(await request('GET', w.path(), { token: revoked.key }), 401, 'unauthorized');
    });

    it('lastUsedAt is recorded in batches and shows in the key listing after a flush', async () => {
      const w = await createWorkspace();
      const agent = await createAgent(w);
      const unused = await createAgentKey(w, agent.agentId);
      const listing = async () => (await request('GET', w.path(`/agents/${agent.agentId}/keys`), { token: w.owner.key })).body.keys;
      await env.service.services.gate.flushUses();
      expect((await listing()).map((k: any) => k.lastUsedAt)).to.deep.equal([null, null]);
      const before = new Date().toISOString();
      for (let i = 0; i < 3; i++) expect((await request('GET', w.path(), { token: agent.key })).status).to.equal(200);
      const after = new Date().toISOString();
      await env.service.services.gate.flushUses();
      const keys = await listing();
      const used = keys.find((k: any) => k.id === agent.keyId);
      expect(used.lastUsedAt >= before && used.lastUsedAt <= after, `${before} ≤ ${used.lastUsedAt} ≤ ${after}`).to.equal(true);
      expect(keys.find((k: any) => k.id === unused.keyId).lastUsedAt).to.equal(null);
      // A later use moves it forward.
      await new Promise((r) => setTimeout(r, 5));
      await request('GET', w.path(), { token: agent.key });
      await env.service.services.gate.flushUses();
      expect((await listing()).find((k: any) => k.id === agent.keyId).lastUsedAt > used.lastUsedAt).to.equal(true);
    });

    it('an answer loaded before a change but returned after it is never served from the cache', async () => {
      const w = await createWorkspace();
      const member = await addMember(w, 'editor');
      const { graph, redis, logger } = env.service.services;
      // The real graph, except that one role look-up is held back after it ran: a slow request racing a removal.
      let hold: { ran: () => void; release: Promise<void> } | undefined;
      const slow = Object.create(graph) as GraphExecutor;
      slow.read = (async (name: string, params?: Record<string, unknown>) => {
        const rows = await graph.read(name, params);
        const h = hold;
        if (h && name === 'auth/user-role') {
          hold = undefined;
          h.ran();
          await h.release;
        }
        return rows;
      }) as GraphExecutor['read'];
      const gate = new RequestGate({ redis, graph: slow, logger, clock: () => new Date(), plans: env.config.plans });

      let release!: () => void;
      let ran!: () => void;
      const didRun = new Promise<void>((r) => (ran = r));
      hold = { ran, release: new Promise<void>((r) => (release = r)) };
      const check = () =>
        gate.admit(member.key, w.workspaceId, { minRole: 'viewer' }).then(
          (a) => a.caller.role,
          (err: AppError) => (err.code === 'not_found' ? null : Promise.reject(err)),
        );
      const racing = check();
      await didRun; // it read "editor" from Neo4j
      expect((await request('DELETE', w.path(`/members/${member.userId}`), { token: w.owner.key })).status).to.equal(204);
      expect(await check()).to.equal(null);
      release();
      expect(await racing).to.equal('editor'); // concurrent with the removal: either answer is fair
      expect(await check()).to.equal(null);
      expect(await check()).to.equal(null);
    });
  });

  describe('when Redis cannot be reached', () => {
    let svc: RunningService | undefined;
    afterEach(async () => {
      await svc?.stop();
      svc = undefined;
    });

    it('fails closed: Neo4j decides, never the stale cache', async () => {
      svc = await startExtraService();
      const w = await createWorkspace();
      const agent = await createAgent(w);
      const user = await addMember(w, 'viewer');
      const opts = (token: string) => ({ token, baseUrl: svc!.url });
      for (let i = 0; i < 2; i++) {
        expect((await request('GET', w.path(), opts(agent.key))).status).to.equal(200);
        expect((await request('GET', w.path(), opts(user.key))).status).to.equal(200);
      }
      await revokeInNeo4jOnly(agent.keyId);
      // With Redis up and nothing signalled, that process still answers from its cache: the cache is in play.
      expect((await request('GET', w.path(), opts(agent.key))).status).to.equal(200);

      svc.services.redis.disconnect();
      problem(await request('GET', w.path(), opts(agent.key)), 401, 'unauthorized');
      // Valid keys still work, straight from Neo4j.
      expect((await request('GET', w.path(), opts(user.key))).status).to.equal(200);
      expect((await request('GET', w.path('/agents'), opts(w.owner.key))).status).to.equal(200);
      // Tidy up for the shared service, whose cache also held the key.
      await env.service.services.gate.accessChanged([w.workspaceId], [hashKey(agent.key)]);
      problem(await request('GET', w.path(), { token: agent.key }), 401, 'unauthorized');
    });

    it('a revocation made through a process that cannot reach Redis succeeds, and a process that can soon refuses the key', async () => {
      svc = await startExtraService();
      const w = await createWorkspace();
      const agent = await createAgent(w);
      expect((await request('GET', w.path(), { token: agent.key })).status).to.equal(200);
      svc.services.redis.disconnect();
      const revoked = await request('DELETE', w.path(`/agents/${agent.agentId}/keys/${agent.keyId}`), { token: w.owner.key, baseUrl: svc.url });
      expect(revoked.status).to.equal(204);
      // The cutting process owes the signal; the shared one, which cached the key, finds it owed within seconds.
      problem(await request('GET', w.path(), { token: agent.key, baseUrl: svc.url }), 401, 'unauthorized');
      const deadline = Date.now() + 10_000;
      while ((await request('GET', w.path(), { token: agent.key })).status !== 401) {
        expect(Date.now(), 'the shared process still lets the revoked key in').to.be.below(deadline);
        await new Promise((r) => setTimeout(r, 200));
      }
    });
  });

  describe('user keys', () => {
    it('a new user key works at once', async () => {
      const user = await createUser();
      const w = await createWorkspace();
      await request('POST', w.path('/members'), { token: w.owner.key, body: { userId: user.userId, role: 'viewer' } });
      expect((await request('GET', w.path(), { token: user.key })).body.role).to.equal('viewer');
    });
  });
});
