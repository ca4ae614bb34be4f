import { expect } from 'chai';
import { allRoutes } from '../../src/app.js';
import { generateKey } from '../../src/auth/keys.js';
import { loadConfig } from '../../src/config.js';
import type { AnyOperation } from '../../src/api/operation.js';
import type { AppServices } from '../../src/services.js';
import { type TestUser, type TestWorkspace, addMember, createUser, createWorkspace, problem, request } from '../support/api.js';
import { type TestAgent, createAgent } from '../support/agents.js';
import { adminToken } from '../support/harness.js';

/**
 * 401 is for a caller who is not authenticated (unknown, revoked, deactivated or malformed
 * key); 403 user_key_required is for an authenticated agent on a route that takes a user key. So on every
 * user-key-only route, a key that does not authenticate gets 401 whatever its form, and only a valid agent
 * key gets 403.
 *
 * The routes come from the route table itself (`allRoutes`; building it runs no service code and reads only the
 * configuration), so a route added with `userKeyOnly` is covered without touching this file.
 */
const userKeyOnlyRoutes = allRoutes({ config: loadConfig({}) } as AppServices).filter(
  (r): r is AnyOperation & { access: { kind: 'workspace'; userKeyOnly: true } } => r.access.kind === 'workspace' && r.access.userKeyOnly === true,
);

interface Fixture {
  w: TestWorkspace;
  /** The member whose id fills `:userId`. */
  member: TestUser;
  /** The agent whose ids fill `:agentId` and `:keyId`. */
  target: TestAgent;
  /** A valid agent key with the owner role, so that a 403 cannot be about the role. */
  validAgent: TestAgent;
  /** A workspace the agents are not in. */
  otherWorkspaceId: string;
  tokens: Record<string, string>;
}

/** Request bodies valid for each route, so that only the key can be what is refused. */
function bodyFor(route: AnyOperation, outsider: TestUser): unknown {
  switch (route.operationId) {
    case 'addMember':
      return { userId: outsider.userId, role: 'viewer' };
    case 'changeMemberRole':
      return { role: 'viewer' };
    case 'registerAgent':
      return { name: 'Not allowed' };
    case 'updateAgent':
      return { name: 'Renamed' };
    case 'createAgentKey':
      return { label: 'not allowed' };
    case 'rotateAgentKey':
      return { graceSeconds: 60 };
    default:
      return undefined;
  }
}

/** The route's path with its parameters filled with the fixture's real ids (a plausible id for any other). */
function pathFor(route: AnyOperation, f: Fixture, ids: Record<string, string> = fixtureIds(f)): string {
  return route.path.replace(/:(\w+)/g, (_, name: string) => ids[name] ?? `x_${name}0123456789`);
}

const fixtureIds = (f: Fixture): Record<string, string> => ({
  workspaceId: f.w.workspaceId,
  userId: f.member.userId,
  agentId: f.target.agentId,
  keyId: f.target.keyId,
});

describe('authentication comes before authorisation on user-key-only routes', () => {
  let f: Fixture;
  let outsider: TestUser;
  let storedBefore: { agents: unknown; members: unknown; keys: unknown };

  const stored = async () => ({
    agents: (await request('GET', f.w.path('/agents'), { token: f.w.owner.key })).body,
    members: (await request('GET', f.w.path('/members'), { token: f.w.owner.key })).body,
    keys: (await request('GET', f.w.path(`/agents/${f.target.agentId}/keys`), { token: f.w.owner.key })).body.keys.map((k: { id: string }) => k.id),
  });

  before(async () => {
    const w = await createWorkspace();
    outsider = await createUser('Outsider');
    const member = await addMember(w, 'editor');
    const target = await createAgent(w);
    const validAgent = await createAgent(w, { role: 'owner' });
    const revokedAgent = await createAgent(w, { role: 'owner' });
    const deactivatedAgent = await createAgent(w, { role: 'owner' });
    const revokedUser = await addMember(w, 'owner');
    // Each key is used once first, so that whatever a process caches about it is in play.
    for (const token of [revokedAgent.key, deactivatedAgent.key, revokedUser.key, validAgent.key]) {
      expect((await request('GET', w.path(), { token })).status).to.equal(200);
    }
    expect((await request('DELETE', w.path(`/agents/${revokedAgent.agentId}/keys/${revokedAgent.keyId}`), { token: w.owner.key })).status).to.equal(204);
    expect((await request('DELETE', w.path(`/agents/${deactivatedAgent.agentId}`), { token: w.owner.key })).status).to.equal(204);
    expect((await request('DELETE', `/api/v1/admin/users/${revokedUser.userId}/keys/${revokedUser.keyId}`, { token: adminToken })).status).to.equal(204);
    const wellFormed = generateKey('agent').key;
    f = {
      w,
      member,
      target,
      validAgent,
      otherWorkspaceId: (await createWorkspace()).workspaceId,
      tokens: {
        'a revoked agent key': revokedAgent.key,
        'a revoked user key': revokedUser.key,
        'an unknown well-formed agent key': generateKey('agent').key,
        'an unknown well-formed user key': generateKey('user').key,
        'a malformed key': 'pk_not-a-key',
        'an agent-form key with a wrong checksum': wellFormed.slice(0, -1) + (wellFormed.endsWith('A') ? 'B' : 'A'),
        'the key of a deactivated agent': deactivatedAgent.key,
      },
    };
    storedBefore = await stored();
  });

  it('the route table has user-key-only routes for members and agents', () => {
    const ids = userKeyOnlyRoutes.map((r) => r.operationId);
    expect(ids).to.include.members(['listMembers', 'addMember', 'removeMember', 'registerAgent', 'listAgents', 'deactivateAgent', 'createAgentKey', 'rotateAgentKey', 'revokeAgentKey']);
  });

  const refused = [
    'a revoked agent key',
    'a revoked user key',
    'an unknown well-formed agent key',
    'an unknown well-formed user key',
    'a malformed key',
    'an agent-form key with a wrong checksum',
    'the key of a deactivated agent',
  ];

  for (const route of userKeyOnlyRoutes) {
    const label = `${route.method.toUpperCase()} ${route.path.replace('/api/v1/workspaces/:workspaceId', '{ws}')}`;
    describe(label, () => {
      for (const what of refused) {
        it(`${what} gets 401 unauthorized with WWW-Authenticate: Bearer`, async () => {
          const token = f.tokens[what];
          const res = await request(route.method.toUpperCase(), pathFor(route, f), { token, body: bodyFor(route, outsider) });
          problem(res, 401, 'unauthorized');
          expect(res.headers.get('www-authenticate')).to.equal('Bearer');
          expect(res.text).not.to.include(token);
        });
      }

      it('a valid agent key gets 403 user_key_required', async () => {
        const res = await request(route.method.toUpperCase(), pathFor(route, f), { token: f.validAgent.key, body: bodyFor(route, outsider) });
        problem(res, 403, 'user_key_required');
        expect(res.headers.get('www-authenticate')).to.equal(null);
      });

      it('a valid agent key gets 403 user_key_required whatever workspace or ids the path names', async () => {
        const elsewhere = { ...fixtureIds(f), workspaceId: f.otherWorkspaceId };
        const nowhere = { workspaceId: 'ws_doesnotexist', userId: 'usr_doesnotexist', agentId: 'ag_doesnotexist', keyId: 'key_doesnotexist' };
        for (const ids of [elsewhere, nowhere]) {
          const path = pathFor(route, f, ids);
          problem(await request(route.method.toUpperCase(), path, { token: f.validAgent.key, body: bodyFor(route, outsider) }), 403, 'user_key_required');
        }
      });
    });
  }

  it('none of the refused requests changed the workspace’s members, agents or keys', async () => {
    expect(await stored()).to.deep.equal(storedBefore);
    // And the valid agent key still works where agent keys may go.
    expect((await request('GET', f.w.path(), { token: f.validAgent.key })).body.role).to.equal('owner');
  });
});
