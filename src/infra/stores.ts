import { setTimeout as delay } from 'node:timers/promises';
import type { Config } from '../config.js';
import { QueryCatalog } from './cypher-files.js';
import { type Endpoints, forgetEndpoints, recordEndpoints, recordedEndpoints } from './endpoints-file.js';
import { type LocalServer, startNeo4j, startRedis } from './local-deps.js';
import { migrate } from './migrations.js';
import { GraphExecutor } from './neo4j.js';
import { createDriver } from './neo4j-driver.js';
import { type RedisClient, createRedis, redisTargetOf } from './redis.js';

/** A process's connections to Neo4j and Redis. */
export interface Stores {
  /** Where they are: named by the configuration, recorded by a running process, or started by this one. */
  endpoints: Endpoints;
  graph: GraphExecutor;
  /** Lazy: its commands fail until `prepare` (or `redis.connect()`) has connected it. */
  redis: RedisClient;
  /** Checks that Neo4j answers, applies pending migrations and connects Redis: what a process does before using them. */
  prepare(): Promise<void>;
  /**
   * Closes the connections, then stops the servers openStores started. Past graceMs (the configured shutdown grace
   * by default) Redis's connection is cut: one that stopped answering must not keep a process from ending.
   */
  close(graceMs?: number): Promise<void>;
}

export interface OpenStoresOptions {
  /** Told when a server is started, and while Neo4j is built on a first run. */
  log?: (message: string) => void;
  /** The named statements; the service's own by default. */
  queries?: QueryCatalog;
}

/**
 * Neo4j and Redis as the configuration names them; when it names neither, those that a running process on the same
 * DATA_DIR started and recorded; else each one it does not name is started here, recorded for the others, and
 * stopped by `close`.
 */
export async function openStores(config: Config, options: OpenStoresOptions = {}): Promise<Stores> {
  const servers = await findOrStartServers(config, options.log ?? (() => {}));
  const { endpoints } = servers;
  let graph: GraphExecutor;
  try {
    const driver = createDriver({ ...config.neo4j, uri: endpoints.neo4jUri });
    graph = new GraphExecutor(driver, config.neo4j.database, options.queries ?? new QueryCatalog(), { readTimeoutMs: config.neo4j.readTimeoutMs });
  } catch (err) {
    await servers.stop();
    throw err;
  }
  const redis = createRedis(endpoints.redis);
  return {
    endpoints,
    graph,
    redis,
    prepare: async () => {
      await graph.driver.verifyConnectivity({ database: config.neo4j.database });
      await migrate(graph);
      await redis.connect();
    },
    close: async (graceMs = config.shutdownGraceMs) => {
      // A connection that is not up has nothing to say goodbye to; QUIT would only wait for it to come back.
      const quit = redis.status === 'ready' ? redis.quit().then(() => undefined, () => undefined) : Promise.resolve(redis.disconnect());
      const closed = Promise.all([graph.driver.close().catch(() => undefined), quit]);
      if (!(await Promise.race([closed.then(() => true), delay(Math.max(0, graceMs), false, { ref: false })]))) redis.disconnect();
      await servers.stop();
    },
  };
}

/** `config` naming the given Neo4j and Redis instead of its own. */
export function withEndpoints(config: Config, endpoints: Endpoints): Config {
  const { redis } = endpoints;
  return {
    ...config,
    neo4j: { ...config.neo4j, uri: endpoints.neo4jUri },
    redisUrl: typeof redis === 'string' ? redis : undefined,
    redisCluster: typeof redis !== 'string' && 'cluster' in redis ? { nodes: redis.cluster } : undefined,
    redisSentinel: typeof redis !== 'string' && 'sentinels' in redis ? { sentinels: redis.sentinels, name: redis.name } : undefined,
  };
}

async function findOrStartServers(config: Config, log: (message: string) => void): Promise<{ endpoints: Endpoints; stop(): Promise<void> }> {
  const namesRedis = Boolean(config.redisUrl || config.redisCluster || config.redisSentinel);
  const running = !config.neo4j.uri && !namesRedis ? recordedEndpoints(config.dataDir) : undefined;
  if (running) return { endpoints: running, stop: async () => {} };
  const started: LocalServer[] = [];
  const stop = async () => {
    if (started.length > 0) forgetEndpoints(config.dataDir);
    await Promise.all(started.map((s) => s.stop()));
  };
  try {
    let neo4jUri = config.neo4j.uri;
    if (!neo4jUri) {
      log('NEO4J_URI not set: starting Neo4j embedded');
      const neo4j = await startNeo4j({ dataDir: config.dataDir, log });
      started.push(neo4j);
      neo4jUri = neo4j.url;
    }
    let redisUrl: string | undefined;
    if (!namesRedis) {
      log('REDIS_URL not set: starting redis-server');
      const redis = await startRedis({ dataDir: config.dataDir });
      started.push(redis);
      redisUrl = redis.url;
    }
    const endpoints = { neo4jUri, redis: redisTargetOf(config, redisUrl) };
    if (started.length > 0) recordEndpoints(config.dataDir, endpoints);
    return { endpoints, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
