import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { QueryCatalog } from './infra/cypher-files.js';
import { type Clock, systemClock } from './infra/ids.js';
import { type LocalServer, startNeo4j, startRedis } from './infra/local-deps.js';
import { migrate } from './infra/migrations.js';
import { GraphExecutor, createDriver } from './infra/neo4j.js';
import { createRedis, type RedisTarget, redisTargetOf } from './infra/redis.js';
import { answerClientErrors } from './http/error-handler.js';
import { Metrics } from './http/observability.js';
import { type AppServices, createServices } from './services.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';

export function createLogger(level: string): Logger {
  // Keys travel only in the Authorization header; it is never logged.
  return pino({ level, redact: ['req.headers.authorization', 'headers.authorization', 'authorization'] });
}

/** Where the service finds Neo4j and Redis. */
export interface Endpoints {
  neo4jUri: string;
  redis: RedisTarget;
}

/** Neo4j and Redis as configured, or started by the project itself when their URLs are not set. */
export async function ensureDependencies(config: Config, logger: Logger): Promise<Endpoints & { stop: () => Promise<void> }> {
  const started: LocalServer[] = [];
  try {
    let neo4jUri = config.neo4j.uri;
    if (!neo4jUri) {
      logger.info('NEO4J_URI not set: starting Neo4j embedded');
      const neo4j = await startNeo4j({ dataDir: config.dataDir, log: (m) => logger.info(m) });
      started.push(neo4j);
      neo4jUri = neo4j.url;
    }
    let redisUrl: string | undefined;
    if (!config.redisUrl && !config.redisCluster && !config.redisSentinel) {
      logger.info('REDIS_URL not set: starting redis-server');
      const redis = await startRedis({ dataDir: config.dataDir });
      started.push(redis);
      redisUrl = redis.url;
    }
    // The CLI finds the servers this process started through this file (their ports are chosen at random).
    const endpointsFile = path.join(config.dataDir, 'endpoints.json');
    if (started.length > 0) {
      mkdirSync(config.dataDir, { recursive: true });
      writeFileSync(endpointsFile, JSON.stringify({ neo4jUri, redis: redisTargetOf(config, redisUrl), pid: process.pid }, null, 2));
    }
    return {
      neo4jUri,
      redis: redisTargetOf(config, redisUrl),
      stop: async () => {
        if (started.length > 0) rmSync(endpointsFile, { force: true });
        await Promise.all(started.map((s) => s.stop()));
      },
    };
  } catch (err) {
    await Promise.all(started.map((s) => s.stop()));
    throw err;
  }
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
 * Connects to Neo4j and Redis, applies migrations and serves the API. `stop` lets in-flight requests
 * finish, then closes the driver and the Redis connections.
 */
export async function startService(
  config: Config,
  logger: Logger,
  endpoints: Endpoints,
  options: { clock?: Clock; validateResponses?: boolean } = {},
): Promise<RunningService> {
  const driver = createDriver({ ...config.neo4j, uri: endpoints.neo4jUri });
  const graph = new GraphExecutor(driver, config.neo4j.database, new QueryCatalog(), { readTimeoutMs: config.neo4j.readTimeoutMs });
  const redis = createRedis(endpoints.redis);
  // The services see the Neo4j in use, self-started or not (the analysts' query processes connect to it themselves).
  const resolved: Config = { ...config, neo4j: { ...config.neo4j, uri: endpoints.neo4jUri } };
  const services = createServices({ config: resolved, logger, graph, redis, clock: options.clock, metrics: new Metrics({ defaultMetrics: true }) });
  try {
    await driver.verifyConnectivity({ database: config.neo4j.database });
    await migrate(graph);
    // Only an optimisation: a warm-up that fails leaves the first requests to plan the statements.
    await services.retrieval.warmUp().catch((err) => logger.warn({ err: (err as Error).message }, 'warm-up failed'));
    await redis.connect();
    const counted = await services.nodes.backfillTokenCounts();
    if (counted > 0) logger.info({ nodes: counted }, 'stored token counts on nodes written before they were counted');
    const named = await services.nodes.backfillNames();
    if (named > 0) logger.info({ nodes: named }, 'gave names and wikilinks to nodes written before wikilinks named nodes by name');
  } catch (err) {
    await driver.close();
    redis.disconnect();
    throw err;
  }
  services.gate.start();
  const dispatcher = new WebhookDispatcher({ graph, redis: endpoints.redis, config, logger, clock: options.clock ?? systemClock });
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
      // The last flushes and the closing of connections wait on Redis and Neo4j: one that stopped answering
      // (ioredis keeps commands until it reconnects) must not keep the process from stopping.
      const cleanUp = (async () => {
        await services.gate.stop();
        await dispatcher.stop();
        await driver.close();
        await redis.quit();
      })();
      const done = await Promise.race([cleanUp.then(() => true, () => true), delay(config.shutdownGraceMs, false, { ref: false })]);
      if (!done) {
        logger.warn({ afterMs: config.shutdownGraceMs }, 'Redis or Neo4j did not answer while stopping: stopped without the last flushes');
        redis.disconnect();
      }
    },
  };
}
