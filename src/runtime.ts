import type { Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { pino, type Logger } from 'pino';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { type Clock, systemClock } from './infra/ids.js';
import { openStores, withEndpoints } from './infra/stores.js';
import { type LocalServer, startEmbeddingServer } from './infra/local-deps.js';
import { embeddedProviderConfig } from './embeddings/provider.js';
import { answerClientErrors } from './http/error-handler.js';
import { Metrics } from './http/observability.js';
import { type AppServices, createServices } from './services.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';

export function createLogger(level: string): Logger {
  // Keys travel only in the Authorization header; it is never logged.
  return pino({ level, redact: ['req.headers.authorization', 'headers.authorization', 'authorization'] });
}

export interface RunningService {
  url: string;
  server: Server;
  services: AppServices;
  /** Delivers the webhook outbox (BullMQ on the same Redis, its own connections). */
  dispatcher: WebhookDispatcher;
  stop(): Promise<void>;
}

/**
 * Opens Neo4j and Redis (see openStores: those the configuration names, or the project's own), applies migrations and
 * serves the API. `stop` lets in-flight requests finish, then closes the connections and stops the servers it started.
 */
export async function startService(
  config: Config,
  logger: Logger,
  options: { clock?: Clock; validateResponses?: boolean } = {},
): Promise<RunningService> {
  const stores = await openStores(config, { log: (message) => logger.info(message) });
  const { graph, redis, endpoints } = stores;
  let embeddingServers: LocalServer[] = [];
  let services: AppServices;
  try {
    embeddingServers = await startEmbeddingServers(config, logger);
    // The services see the stores in use, self-started or not (the analysts' query processes connect to Neo4j
    // themselves), and the embedded model as the provider it is.
    const resolved = withEmbeddingServers(withEndpoints(config, endpoints), embeddingServers);
    services = createServices({ config: resolved, logger, graph, redis, clock: options.clock, metrics: new Metrics({ defaultMetrics: true }) });
    await stores.prepare();
    // Only an optimisation: a warm-up that fails leaves the first requests to plan the statements.
    await services.retrieval.warmUp().catch((err) => logger.warn({ err: (err as Error).message }, 'warm-up failed'));
    const counted = await services.nodes.backfillTokenCounts();
    if (counted > 0) logger.info({ nodes: counted }, 'stored token counts on nodes written before they were counted');
    const named = await services.nodes.backfillNames();
    if (named > 0) logger.info({ nodes: named }, 'gave names and wikilinks to nodes written before wikilinks named nodes by name');
  } catch (err) {
    await Promise.all(embeddingServers.map((s) => s.stop()));
    await stores.close(0);
    throw err;
  }
  const resolved = services.config;
  services.gate.start();
  await services.embeddings.start();
  const dispatcher = new WebhookDispatcher({ graph, redis: endpoints.redis, config: resolved, logger, clock: options.clock ?? systemClock });
  dispatcher.start();
  // Audit retention, hourly (and once at start); a failed pass is tried again at the next.
  const purge = () => void services.audit.purgeExpired().catch((err) => logger.warn({ err: (err as Error).message }, 'audit retention pass failed'));
  const retention = config.auditRetentionDays === undefined ? undefined : setInterval(purge, 3_600_000);
  retention?.unref();
  if (retention) purge();
  const app = createApp(services, { validateResponses: options.validateResponses });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.port, config.host, () => resolve(s));
    s.once('error', reject);
  }).catch(async (err) => {
    // A port already taken: the servers this process started must not outlive it.
    clearInterval(retention);
    await services.gate.stop();
    await services.embeddings.stop();
    await dispatcher.stop();
    await Promise.all(embeddingServers.map((s) => s.stop()));
    await stores.close(0);
    throw err;
  });
  answerClientErrors(server);
  // Idle keep-alive sockets are closed by clients and proxies before the server does (theirs are shorter), so a
  // request never meets a socket the server is closing at that moment (ECONNRESET).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  return {
    url: `http://${host}:${port}`,
    server,
    services,
    dispatcher,
    stop: async () => {
      // Not ready from now on; a balancer that polls /readyz stops sending requests during the drain.
      services.lifecycle.draining = true;
      if (config.shutdownDrainMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDrainMs));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, config.shutdownGraceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        // Idle keep-alive sockets would hold close() open until they time out.
        server.closeIdleConnections();
      });
      clearInterval(retention);
      // The last flushes wait on Redis and Neo4j: one that stopped answering (ioredis keeps commands until it
      // reconnects) must not keep the process from stopping.
      const graceEnds = Date.now() + config.shutdownGraceMs;
      const flushed = (async () => {
        await services.embeddings.stop();
        await services.gate.stop();
        await dispatcher.stop();
      })();
      const done = await Promise.race([flushed.then(() => true, () => true), delay(config.shutdownGraceMs, false, { ref: false })]);
      if (!done) logger.warn({ afterMs: config.shutdownGraceMs }, 'Redis or Neo4j did not answer while stopping: stopped without the last flushes');
      await Promise.all(embeddingServers.map((s) => s.stop()));
      await stores.close(graceEnds - Date.now());
    },
  };
}

/**
 * With no provider configured, the embedded model's servers: one for passages (the background embedder's
 * batches) and one for questions, so that a query never waits behind a batch. A question is embedded on two
 * threads where there are two cores: it is on every query's critical path, and two threads halve it on an idle
 * machine (docs/retrieval.md).
 */
async function startEmbeddingServers(config: Config, logger: Logger): Promise<LocalServer[]> {
  const { embeddings } = config;
  if (embeddings.kind !== 'embedded') return [];
  logger.info('EMBEDDINGS_URL not set: starting the embedded model (multilingual-e5-small)');
  const passages = await startEmbeddingServer({ threads: embeddings.threads, background: true });
  try {
    return [passages, await startEmbeddingServer({ threads: Math.min(2, os.availableParallelism()) })];
  } catch (err) {
    await passages.stop();
    throw err;
  }
}

function withEmbeddingServers(config: Config, servers: LocalServer[]): Config {
  if (config.embeddings.kind !== 'embedded') return config;
  return { ...config, embeddings: embeddedProviderConfig(servers[0].url, servers[1].url, config.embeddings.batch) };
}
