import { expect } from 'chai';
import { maxListedErrors } from '../../src/api/validation.js';
import { type ApiProcess, startApiProcess } from '../support/api-process.js';
import { measuredStall, whilePolling } from '../support/healthz.js';
import { createAgent } from '../support/agents.js';
import { type Reply, type TestWorkspace, createWorkspace, request } from '../support/api.js';
import { analystToken } from '../support/harness.js';

const json = { 'content-type': 'application/json' };

/**
 * Requests built to be slow (a body of many invalid items, a large import, an analyst value of tens of megabytes)
 * against an API of their own: each is answered with a clear 4xx or a 2xx, its error answer is small, and no
 * other request waits on it meanwhile (/healthz is never more than 100 ms slower than when the API is idle, beyond
 * what a bare server beside it was held up by the machine's load).
 */
describe('no single request can hurt the service', function () {
  this.timeout(180_000);
  let api: ApiProcess;
  let w: TestWorkspace;
  let viewerKey: string;

  before(async () => {
    api = await startApiProcess({ ANALYST_TOKEN: analystToken, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'off' });
    w = await createWorkspace();
    viewerKey = (await createAgent(w, { role: 'viewer' })).key;
  });
  after(() => api?.stop());

  /**
   * The request answered as expected, a small answer when it is an error, and /healthz never held up. The same
   * request is sent once before, unmeasured, when it can be repeated: the first run of a code path compiles it,
   * once per process.
   */
  async function expectHarmless(send: () => Promise<Reply>, expected: number[], { warm = true, timed = true } = {}): Promise<Reply> {
    if (warm) await send();
    const { reply, worstHealthzMs, polls, idleMs, boundMs, worstControlMs } = timed ? await measuredStall(api.url, send) : { ...(await whilePolling(api.url, send)), idleMs: 0, boundMs: 0 };
    expect(expected, `${reply.status} ${reply.text.slice(0, 300)}`).to.include(reply.status);
    if (reply.status >= 400) {
      expect(reply.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(reply.text.length, 'error answer size').to.be.below(16 * 1024);
      expect(reply.body.errors?.length ?? 0).to.be.at.most(maxListedErrors);
    }
    expect(polls, '/healthz was asked while the request ran').to.be.greaterThan(0);
    if (timed) expect(worstHealthzMs, `/healthz waited ${worstHealthzMs.toFixed(0)} ms (idle ${idleMs.toFixed(0)} ms, a bare server beside it ${worstControlMs.toFixed(0)} ms)`).to.be.at.most(boundMs);
    return reply;
  }

  it('an MCP call holding a JSON array of 80,000 empty objects is a small 400', async () => {
    const body = `[${Array(80_000).fill('{}').join(',')}]`;
    const reply = await expectHarmless(
      () => request('POST', w.path('/mcp'), { baseUrl: api.url, token: viewerKey, rawBody: body, headers: { ...json, accept: 'application/json, text/event-stream' } }),
      [400],
    );
    expect(reply.body.code).to.equal('invalid_request');
  });

  it('a bulk node import of 50,000 empty items is a small 400 that says how it was cut short', async () => {
    const body = `{"nodes":[${Array(50_000).fill('{}').join(',')}]}`;
    const reply = await expectHarmless(() => request('POST', w.path('/context-nodes/import'), { baseUrl: api.url, token: w.owner.key, rawBody: body, headers: json }), [400]);
    expect(reply.body.detail).to.match(/too large to look for further errors/);
  });

  it('a body of a few thousand invalid items lists the first errors and how many more there were', async () => {
    const body = `{"nodes":[${Array(1_000).fill('{}').join(',')}]}`;
    const reply = await expectHarmless(() => request('POST', w.path('/context-nodes/import'), { baseUrl: api.url, token: w.owner.key, rawBody: body, headers: json }), [400]);
    expect(reply.body.errors).to.have.length(maxListedErrors);
    expect(reply.body.detail).to.match(/\(and \d+ more\)/);
  });

  it('a body large in bytes but of few values lists all its errors, as a small one does', async () => {
    const reply = await request('POST', w.path('/context-nodes'), { baseUrl: api.url, token: w.owner.key, body: { content: 'x'.repeat(100_000), stray: 1 } });
    expect(reply.status).to.equal(400);
    expect(reply.body.errors.map((e: { path: string }) => e.path)).to.have.members(['/title', '/description', '/stray']);
  });

  it('a workspace import of 300,000 feedback items holding only an id is a small 400', async () => {
    const target = await createWorkspace();
    const feedback = Array.from({ length: 300_000 }, (_, i) => `{"id":"fb_${i}"}`).join(',');
    // Past the import's item limit, or (under it) the first item's missing fields: either is named at once.
    const body = `{"format":"playbooks-workspace-export","version":1,"exportedAt":"2026-01-01T00:00:00.000Z","workspace":{"id":"ws_x","name":"x"},"playbooks":[],"nodes":[],"links":[],"annotations":[],"feedback":[${feedback}]}`;
    const reply = await expectHarmless(() => request('POST', target.path('/import'), { baseUrl: api.url, token: target.owner.key, rawBody: body, headers: json }), [400]);
    expect(reply.body.errors[0].path).to.match(/^\/feedback(\/0\/|$)/);
  });

  it('a large workspace import is written without holding up other requests', async function () {
    // Up to three measured imports of 20,000 nodes, each a minute or more on a busy machine.
    this.timeout(420_000);
    // Each measurement (up to three) imports into an empty workspace of its own, made before the request is timed.
    const targets = [await createWorkspace(), await createWorkspace(), await createWorkspace()];
    const at = '2026-01-01T00:00:00.000Z';
    const count = 20_000;
    const nodes = Array.from({ length: count }, (_, i) => ({
      id: `cn_bounded${i}`, slug: `node-${i}`, title: `Node ${i}`, description: `Node ${i} of a large import`, content: `Body of node ${i}. `.repeat(10),
      nodeType: 'reference', importance: 50, readFirst: false, edgeCaseOnly: false, agentSummary: null, status: 'live', createdAt: at, updatedAt: at, archivedAt: null,
    }));
    const links = nodes.slice(1).map((n, i) => ({ id: `lnk_bounded${i}`, sourceType: 'context_node', sourceId: nodes[i].id, targetId: n.id, linkType: 'references', origin: 'manual', createdAt: at }));
    const body = JSON.stringify({ format: 'playbooks-workspace-export', version: 1, exportedAt: at, workspace: { id: 'ws_x', name: 'x' }, playbooks: [], nodes, links, annotations: [], feedback: [] });
    const send = () => {
      const target = targets.shift()!;
      return request('POST', target.path('/import'), { baseUrl: api.url, token: target.owner.key, rawBody: body, headers: json });
    };
    const reply = await expectHarmless(send, [201], { warm: false });
    expect(reply.body.nodes).to.equal(count);
    expect(reply.body.links).to.equal(count - 1);
  });

  it('an analyst value of tens of megabytes is cut, not sent', async () => {
    const reply = await expectHarmless(
      () => request('POST', '/api/v1/admin/cypher', { baseUrl: api.url, token: analystToken, body: { query: "RETURN reduce(s = '', x IN range(1, 22) | s + s + 'xxxxxxxxxx') AS big" } }),
      [200],
    );
    expect(reply.body.truncated).to.equal(true);
    expect(reply.text.length).to.be.below(64 * 1024);
  });

  it('a webhook subscription naming every event type thousands of times is a small 400', async () => {
    const eventTypes = Array(60_000).fill('node.created');
    await expectHarmless(() => request('POST', w.path('/webhooks'), { baseUrl: api.url, token: w.owner.key, body: { url: 'https://example.com/hook', eventTypes } }), [400]);
  });

  it('a body whose one key is hundreds of kilobytes long is a small 400', async () => {
    await expectHarmless(() => request('POST', w.path('/context-nodes'), { baseUrl: api.url, token: w.owner.key, rawBody: `{"${'k'.repeat(900_000)}":1}`, headers: json }), [400]);
  });

  it('a workspace import larger than the body limit is a 413 that says the limit', async () => {
    const target = await createWorkspace();
    const body = Buffer.alloc(65 * 1024 * 1024, 0x20);
    // Refused by its Content-Length before a byte of it is read: what /healthz would time here is the machine
    // moving 65 MiB from this process to the API's, not the API's work.
    const reply = await expectHarmless(() => request('POST', target.path('/import'), { baseUrl: api.url, token: target.owner.key, rawBody: body, headers: json }), [413], { timed: false });
    expect(reply.body.detail).to.match(/MiB/);
  });
});
