import { type Socket, createConnection, createServer } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import pino from 'pino';
import { errorHandler } from '../../src/http/error-handler.js';
import { createRedis } from '../../src/infra/redis.js';
import { protocolError, toolError } from '../../src/mcp/errors.js';
import { addMember, createWorkspace, problem, request } from '../support/api.js';
import { adminToken, apiWith, env } from '../support/harness.js';
import { callError, mcpClient } from '../support/mcp.js';
import { createPlaybook } from '../support/playbooks.js';

describe('errors are problem+json', () => {
  it('malformed JSON is 400 and changes nothing', async () => {
    const res = await request('POST', '/api/v1/admin/users', { token: adminToken, rawBody: '{"email": ', headers: { 'content-type': 'application/json' } });
    expect(problem(res, 400, 'invalid_request').detail).to.match(/JSON/);
  });

  it('a body that is not JSON is 415', async () => {
    const res = await request('POST', '/api/v1/admin/users', { token: adminToken, rawBody: 'email=a@b.c', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    problem(res, 415, 'unsupported_media_type');
  });

  it('a body over 1 MiB is 413', async () => {
    const res = await request('POST', '/api/v1/admin/users', { token: adminToken, body: { email: 'a@b.co', name: 'x'.repeat(1024 * 1024 + 10) } });
    problem(res, 413, 'payload_too_large');
  });

  it('a body that is JSON but not an object is 400', async () => {
    const res = await request('POST', '/api/v1/admin/users', { token: adminToken, rawBody: '"just a string"', headers: { 'content-type': 'application/json' } });
    problem(res, 400, 'invalid_request');
  });

  it('no key, a malformed key and an unknown key are the same 401, which never echoes the key', async () => {
    const w = await createWorkspace();
    const fake = w.owner.key.slice(0, -1) + (w.owner.key.endsWith('A') ? 'B' : 'A');
    const answers = [
      await request('GET', w.path()),
      await request('GET', w.path(), { token: 'pk_user_short' }),
      await request('GET', w.path(), { token: fake }),
      await request('GET', w.path(), { headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } }),
    ];
    for (const res of answers) {
      const body = problem(res, 401, 'unauthorized');
      expect(res.text).not.to.include(fake);
      expect(body.detail).to.equal(problem(answers[0], 401).detail);
    }
  });

  it('the operator token is not an API key on workspace routes', async () => {
    const w = await createWorkspace();
    problem(await request('GET', w.path(), { token: adminToken }), 401);
  });

  it('a role too low is 403 insufficient_role', async () => {
    const w = await createWorkspace();
    const viewer = await addMember(w, 'viewer');
    problem(await request('POST', w.path('/members'), { token: viewer.key, body: { userId: viewer.userId, role: 'owner' } }), 403, 'insufficient_role');
  });

  it('an unknown query parameter is 400', async () => {
    const w = await createWorkspace();
    const res = problem(await request('GET', w.path('/usage?verbose=1'), { token: w.owner.key }), 400);
    expect(res.errors![0]).to.include({ path: '/verbose', in: 'query' });
  });

  it('a problem’s instance is the path without the query string', async () => {
    const w = await createWorkspace();
    const res = await request('GET', w.path('/usage?secret=abc'), { token: w.owner.key });
    expect(res.body.instance).to.equal(w.path('/usage'));
  });

  describe('when the connection to Neo4j drops', () => {
    let url: string;
    let dropped = 0;
    let close: () => Promise<void>;

    before(async () => {
      // Real Neo4j behind a TCP relay that cuts the first two connections it is given, as a restarting
      // server or a dropped network would: the driver sees a retryable error and must try again.
      const target = new URL(env.deps.neo4jUri);
      const sockets = new Set<Socket>();
      const relay = createServer((client) => {
        sockets.add(client);
        client.on('close', () => sockets.delete(client));
        if (dropped < 2) {
          dropped += 1;
          client.destroy();
          return;
        }
        const upstream = createConnection(Number(target.port), target.hostname);
        sockets.add(upstream);
        client.pipe(upstream).pipe(client);
        const end = () => { client.destroy(); upstream.destroy(); };
        client.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
      });
      await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
      const api = await apiWith(`bolt://127.0.0.1:${(relay.address() as { port: number }).port}`, env.deps.redis, { redisUp: true });
      url = api.url;
      close = async () => {
        await api.close();
        for (const s of sockets) s.destroy();
        relay.close();
      };
    });
    after(() => close());

    it('a read that meets a dropped connection is retried and answers, not 503', async () => {
      const w = await createWorkspace();
      const res = await request('GET', w.path(), { token: w.owner.key, baseUrl: url });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.id).to.equal(w.workspaceId);
      expect(dropped).to.equal(2);
    });
  });

  describe('when a dependency is down', () => {
    let url: string;
    let close: () => Promise<void>;

    before(async () => {
      // An API whose Neo4j is a closed port and whose Redis is the real one, then one with a dead Redis.
      ({ url, close } = await apiWith('bolt://127.0.0.1:1', env.deps.redis, { redisUp: true }));
    });
    after(() => close());

    it('an unreachable Neo4j is 503 with Retry-After, never a 500', async () => {
      const w = await createWorkspace();
      const res = await request('GET', w.path(), { token: w.owner.key, baseUrl: url });
      problem(res, 503, 'service_unavailable');
      expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      const ready = await request('GET', '/readyz', { baseUrl: url });
      problem(ready, 503, 'service_unavailable');
      expect(ready.body.detail).to.match(/Neo4j/);
    });
  });

  it('an unreachable Redis makes readyz, usage and retrievals 503; reads fall back to Neo4j', async () => {
    const { url: baseUrl, close } = await apiWith(env.deps.neo4jUri, 'redis://127.0.0.1:1', { redisUp: false });
    try {
      const w = await createWorkspace();
      const ready = await request('GET', '/readyz', { baseUrl });
      expect(problem(ready, 503).detail).to.match(/Redis/);
      // Authentication falls back to Neo4j; the quota store has no such fall-back.
      const usage = await request('GET', w.path('/usage'), { token: w.owner.key, baseUrl });
      problem(usage, 503, 'service_unavailable');
      expect(usage.headers.get('retry-after')).to.match(/^\d+$/);
      // A read falls back to Neo4j too; retrievals sent together cannot be counted, so each is a 503.
      const pb = await request('POST', w.path('/playbooks'), { token: w.owner.key, body: { title: 'Launch', version: { content: { instructions: 'go' } } } });
      expect((await request('GET', w.path(`/playbooks/${pb.body.id}`), { token: w.owner.key, baseUrl })).status).to.equal(200);
      const bundles = await Promise.all([1, 2, 3].map(() => request('GET', w.path(`/context/bundle?playbookId=${pb.body.id}`), { token: w.owner.key, baseUrl })));
      for (const bundle of bundles) {
        problem(bundle, 503, 'service_unavailable');
        expect(bundle.headers.get('retry-after')).to.match(/^\d+$/);
      }
    } finally {
      await close();
    }
  });
});

describe('a failure is the same answer over REST and MCP', () => {
  it('over MCP, a retrieval while Redis is unreachable is the 503 service_unavailable REST answers', async () => {
    const { url: baseUrl, close } = await apiWith(env.deps.neo4jUri, 'redis://127.0.0.1:1', { redisUp: false });
    try {
      const w = await createWorkspace();
      const pb = await createPlaybook(w, w.owner.key);
      problem(await request('GET', w.path(`/context/bundle?playbookId=${pb.id}`), { token: w.owner.key, baseUrl }), 503, 'service_unavailable');
      const client = await mcpClient(w, w.owner.key, baseUrl);
      try {
        expect((await callError(client, 'get_bundle', { playbook: pb.id })).code).to.equal('service_unavailable');
      } finally {
        await client.close();
      }
    } finally {
      await close();
    }
  });

  it('an unreachable Redis met where no service translates it is service_unavailable on every face, never a logged bug', async () => {
    // A connection to a closed port that never connects: its commands fail as they do in an outage.
    const redis = createRedis('redis://127.0.0.1:1');
    redis.on('error', () => {});
    const outage = () => redis.get('anything');
    const logged: { msg: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => logged.push(JSON.parse(line)) });
    const app = new Koa().use(errorHandler(logger)).use(async () => {
      await outage();
    });
    const server = app.listen(0, '127.0.0.1');
    try {
      await new Promise((r) => server.once('listening', r));
      const rest = await request('GET', '/anything', { baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
      problem(rest, 503, 'service_unavailable');
      expect(rest.headers.get('retry-after')).to.equal('5');

      // The MCP server answers a tool's failure with toolError, a resource's or a prompt's with protocolError.
      const failure = await outage().catch((err: unknown) => err);
      const tool = toolError(failure, logger, 'list_playbooks');
      expect(tool.isError).to.equal(true);
      expect(JSON.parse((tool.content[0] as { text: string }).text)).to.include({ code: 'service_unavailable', detail: rest.body.detail });
      expect(protocolError(failure, logger).data).to.include({ code: 'service_unavailable', detail: rest.body.detail });
      expect(logged.map((entry) => entry.msg)).to.not.include('unhandled error');
    } finally {
      server.close();
      redis.disconnect();
    }
  });
});
