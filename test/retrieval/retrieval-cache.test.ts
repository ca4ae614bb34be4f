import { expect } from 'chai';
import type { RunningService } from '../../src/runtime.js';
import { type TestWorkspace, createWorkspace, request } from '../support/api.js';
import { createAgent } from '../support/agents.js';
import { env, startExtraService } from '../support/harness.js';
import { neo4jReadsDuring } from '../support/neo4j-reads.js';
import { archiveNode, createNode, link, linkPlaybook, updateNode } from '../support/nodes.js';

interface Graph {
  w: TestWorkspace;
  playbookId: string;
  nodeIds: string[];
}

async function smallGraph(): Promise<Graph> {
  const w = await createWorkspace();
  const pb = await request('POST', w.path('/playbooks'), { token: w.owner.key, body: { title: 'Onboarding', version: { content: { instructions: 'v1' } } } });
  const a = await createNode(w, { title: 'Tone', content: 'Warm and short.' });
  const b = await createNode(w, { title: 'Glossary', content: 'Terms.' });
  await linkPlaybook(w, pb.body.id, a.id, 'references');
  await link(w, a.id, b.id, 'relates-to');
  return { w, playbookId: pb.body.id, nodeIds: [a.id, b.id] };
}

const bundle = (g: Graph, options: { token?: string; etag?: string; baseUrl?: string; query?: string } = {}) =>
  request('GET', g.w.path(`/context/bundle?playbookId=${g.playbookId}${options.query ?? ''}`), {
    token: options.token ?? g.w.owner.key,
    baseUrl: options.baseUrl,
    headers: options.etag ? { 'if-none-match': options.etag } : {},
  });

describe('conditional and cached retrieval', () => {
  it('a bundle carries a strong ETag and private, no-cache; a matching If-None-Match gets 304 with no body', async () => {
    const g = await smallGraph();
    const first = await bundle(g);
    const etag = first.headers.get('etag')!;
    expect(etag).to.match(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get('cache-control')).to.equal('private, no-cache');
    const again = await bundle(g);
    expect(again.headers.get('etag')).to.equal(etag);
    expect(again.text).to.equal(first.text);

    const notModified = await bundle(g, { etag });
    expect(notModified.status).to.equal(304);
    expect(notModified.text).to.equal('');
    expect(notModified.headers.get('etag')).to.equal(etag);
    // A 304 is a retrieval like a 200, with the RateLimit headers.
    expect(notModified.headers.get('ratelimit-remaining')).to.equal('997');
    const weakAndListed = await bundle(g, { etag: `"other", W/${etag}` });
    expect(weakAndListed.status).to.equal(304);
    const usage = await request('GET', g.w.path('/usage'), { token: g.w.owner.key });
    expect(usage.body.used).to.equal(4);
  });

  it('the manifest has its own ETag and 304 as well', async () => {
    const g = await smallGraph();
    const path = g.w.path(`/context/manifest?playbookId=${g.playbookId}`);
    const first = await request('GET', path, { token: g.w.owner.key });
    const etag = first.headers.get('etag')!;
    expect(etag).not.to.equal((await bundle(g)).headers.get('etag'));
    expect((await request('GET', path, { token: g.w.owner.key, headers: { 'if-none-match': etag } })).status).to.equal(304);
  });

  it('other parameters give another ETag', async () => {
    const g = await smallGraph();
    const etags = new Set<string>();
    for (const query of ['', '&maxNodes=1', '&mode=summary', '&depth=1', '&includeAnnotations=false', '&changedSince=2020-01-01T00:00:00Z']) {
      etags.add((await bundle(g, { query })).headers.get('etag')!);
    }
    expect(etags.size).to.equal(6);
  });

  const changes: Record<string, (g: Graph) => Promise<unknown>> = {
    'a node edit': (g) => updateNode(g.w, g.nodeIds[1], { content: 'New terms.' }),
    'a new link': async (g) => {
      const c = await createNode(g.w, { title: 'Extra' });
      await link(g.w, g.nodeIds[0], c.id, 'requires');
    },
    'a node archived': (g) => archiveNode(g.w, g.nodeIds[1]),
    'a version approved': async (g) => {
      const detail = await request('GET', g.w.path(`/playbooks/${g.playbookId}`), { token: g.w.owner.key });
      const versionId = detail.body.versions[0].id;
      const approved = await request('PATCH', g.w.path(`/playbooks/${g.playbookId}/versions/${versionId}/approve`), { token: g.w.owner.key });
      expect(approved.status).to.equal(200);
    },
    'an annotation': async (g) => {
      const res = await request('POST', g.w.path('/context/annotations'), {
        token: g.w.owner.key,
        body: { targetType: 'context_node', targetId: g.nodeIds[0], scopeType: 'workspace_overlay', title: 'Note', content: 'Mind the tone.' },
      });
      expect(res.status).to.equal(201);
    },
  };

  for (const [what, change] of Object.entries(changes)) {
    it(`${what} makes the old ETag stop matching and the next bundle show it`, async () => {
      const g = await smallGraph();
      const before = await bundle(g);
      await change(g);
      const after = await bundle(g, { etag: before.headers.get('etag')! });
      expect(after.status).to.equal(200);
      expect(after.headers.get('etag')).not.to.equal(before.headers.get('etag'));
      expect(after.text).not.to.equal(before.text);
    });
  }

  it('what depends on the caller stays per caller: agent-local annotations and their ETags', async () => {
    const g = await smallGraph();
    const a = await createAgent(g.w, { role: 'viewer' });
    const b = await createAgent(g.w, { role: 'viewer' });
    const note = await request('POST', g.w.path('/context/annotations'), {
      token: a.key,
      body: { targetType: 'playbook', targetId: g.playbookId, scopeType: 'agent_local', title: 'Mine', content: 'Only for agent A.' },
    });
    expect(note.status).to.equal(201);
    const forA = await bundle(g, { token: a.key });
    const forB = await bundle(g, { token: b.key });
    expect(forA.body.annotations.map((x: { id: string }) => x.id)).to.deep.equal([note.body.id]);
    expect(forB.body.annotations).to.deep.equal([]);
    expect(forA.headers.get('etag')).not.to.equal(forB.headers.get('etag'));
    expect((await bundle(g, { token: b.key, etag: forA.headers.get('etag')! })).status).to.equal(200);
    // Without annotations the answer is the same for everyone.
    const plainA = await bundle(g, { token: a.key, query: '&includeAnnotations=false' });
    const plainB = await bundle(g, { token: b.key, query: '&includeAnnotations=false' });
    expect(plainA.headers.get('etag')).to.equal(plainB.headers.get('etag'));
    expect(plainA.text).to.equal(plainB.text);
  });

  it('a repeated bundle is served from the cache, without Neo4j', async () => {
    const g = await smallGraph();
    const { responseCache } = env.service.services;
    await bundle(g);
    const hits = responseCache.hits;
    const neo4jReads = await neo4jReadsDuring(async () => {
      const again = await bundle(g);
      expect(again.status).to.equal(200);
    });
    expect(responseCache.hits).to.equal(hits + 1);
    expect(neo4jReads).to.equal(0);
  });

  describe('across API processes', () => {
    let other: RunningService;
    before(async () => {
      other = await startExtraService();
    });
    after(() => other.stop());

    it('a change through one process is reflected by the next bundle through another', async () => {
      const g = await smallGraph();
      const warmed = await bundle(g, { baseUrl: other.url });
      expect((await bundle(g, { baseUrl: other.url })).text).to.equal(warmed.text);
      await updateNode(g.w, g.nodeIds[0], { title: 'Tone of voice' });
      const next = await bundle(g, { baseUrl: other.url, etag: warmed.headers.get('etag')! });
      expect(next.status).to.equal(200);
      expect(next.body.nodes.find((n: { id: string }) => n.id === g.nodeIds[0]).title).to.equal('Tone of voice');
      expect(next.headers.get('etag')).to.equal((await bundle(g)).headers.get('etag'));
    });
  });

  describe('with the cache turned off', () => {
    let uncached: RunningService;
    before(async () => {
      uncached = await startExtraService({ BUNDLE_CACHE: 'off' });
    });
    after(() => uncached.stop());

    it('answers the same bytes and ETags, and still 304s, holding nothing', async () => {
      const g = await smallGraph();
      const cached = await bundle(g);
      const direct = await bundle(g, { baseUrl: uncached.url });
      expect(direct.text).to.equal(cached.text);
      expect(direct.headers.get('etag')).to.equal(cached.headers.get('etag'));
      expect((await bundle(g, { baseUrl: uncached.url, etag: direct.headers.get('etag')! })).status).to.equal(304);
      expect(uncached.services.responseCache.size).to.equal(0);
    });
  });
});
