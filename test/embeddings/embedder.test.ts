import { expect } from 'chai';
import { setTimeout as delay } from 'node:timers/promises';
import { pino } from 'pino';
import { Embedder } from '../../src/embeddings/embedder.js';
import { type EmbeddingProvider, providerOf } from '../../src/embeddings/provider.js';
import { EmbeddingRepository } from '../../src/embeddings/repository.js';
import { type Stores, openStores } from '../../src/infra/stores.js';
import { createWorkspace, request } from '../support/api.js';
import { embeddedProviderEnv } from '../support/embeddings.js';
import { env, testConfig } from '../support/harness.js';
import { until } from '../support/waits.js';

/**
 * The background embedder beside the writes of its process, on the run's Neo4j and Redis with the real embedded
 * model: a request of passages takes a core for a while, so it waits until the process has stopped writing.
 */
describe('the embedder beside writes', function () {
  this.timeout(120_000);
  let stores: Stores;
  before(async () => {
    stores = await openStores(testConfig());
    await stores.redis.connect();
  });
  after(() => stores?.close());

  it('sends no passage while its process keeps writing, and embeds what was written once the writes stop', async () => {
    const config = testConfig(await embeddedProviderEnv());
    const model = providerOf(config.embeddings)!;
    const sent: number[] = [];
    const provider: EmbeddingProvider = {
      model: model.model,
      dimension: () => model.dimension(),
      embed: (texts, kind) => {
        sent.push(Date.now());
        return model.embed(texts, kind);
      },
    };
    const repo = new EmbeddingRepository(stores.graph);
    const w = await createWorkspace();
    const res = await request('POST', w.path('/context-nodes'), { baseUrl: env.service.url, token: w.owner.key, body: { title: 'Refunds', description: 'How a customer gets money back' } });
    expect(res.status, res.text).to.equal(201);
    const quietMs = 2_000;
    const embedder = new Embedder({
      repo, provider, redis: stores.redis, logger: pino({ level: 'silent' }), graphChanged: async () => {}, batch: 1, quietMs,
      prepare: async () => repo.ensureIndex(await provider.dimension()),
    });
    // The process writes to the workspace every 200 ms for 4 s (each write wakes the embedder, as the gate does).
    embedder.wake(w.workspaceId);
    embedder.start();
    let lastWrite = Date.now();
    try {
      for (const started = Date.now(); Date.now() - started < 4_000; ) {
        await delay(200);
        embedder.wake(w.workspaceId);
        lastWrite = Date.now();
      }
      expect(sent, 'passages sent while the process was writing').to.deep.equal([]);
      await until('the written node embedded', () => repo.status(w.workspaceId, provider.model), (s) => s.embedded === 1, 60_000);
      expect(sent[0] - lastWrite, 'ms from the last write to the first passage sent').to.be.at.least(quietMs - 50);
    } finally {
      await embedder.stop();
    }
  });
});
